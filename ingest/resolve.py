"""Named-reference resolution: ``"workflow account"`` → the workflow report's ``Workflow account``.

Named references resolve within the citing set only (seeds issue, rests-on rules); one that names
nothing ingested stays unresolved and visible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.grammar import SECTION_NAMES

__all__ = ["SectionRef", "resolve_named_reference", "names_part", "ROLE_WORDS"]

ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "workflow report": ("workflow-report",),
    "workflow": ("workflow-report",),
    "report verification": ("report-verification", "record-verification"),
    "record verification": ("record-verification", "report-verification"),
    "profile verification": ("profile-verification",),
    "synthesis verification": ("synthesis-verification",),
    "memory profile": ("memory-profile",),
    "profile": ("memory-profile",),
    "runtime": ("runtime",),
    "memory": ("memory",),
    "epistemic": ("epistemic",),
    "reconciliation": ("reconciliation",),
    "boundary": ("boundary",),
    "overview": ("overview",),
    "synthesis": ("synthesis",),
    "result": ("result",),
}
"""Leading words of a named reference that name a member role (GRAMMAR §2 layout roles, and §0's
G1 ``result``, which a September review links as ``[exact analysis](…/result.md)``; the seeds
cite the workflow report as ``workflow …``)."""


_MAX_NAME_WORDS = 5


def names_part(token: str) -> bool:
    """Whether a citation-group token names a member or a known section, as a named reference does
    (the seeds' form): at most five words, no sentence punctuation, and either a
    section name of the grammar (:data:`~domain.grammar.SECTION_NAMES`) or opening with a role's
    words (:data:`ROLE_WORDS`). Ordinary parentheticals name neither.

    >>> [names_part(t) for t in ["workflow account", "Source register", "report verification limits",
    ...                          "ranking may reorder results", "the executable and service"]]
    [True, True, True, False, False]
    """
    words = token.lower().split()
    if not 0 < len(words) <= _MAX_NAME_WORDS or re.search(r"[.:!?\"“”]", token):
        return False
    return " ".join(words) in SECTION_NAMES or " ".join(words[:2]) in ROLE_WORDS or words[0] in ROLE_WORDS


@dataclass(frozen=True, slots=True)
class SectionRef:
    """A section a reference may resolve to: node ``id``, its document's ``role``, ``heading``."""

    id: str
    role: str
    heading: str


def resolve_named_reference(name: str, documents: dict[str, str], sections: list[SectionRef]) -> str | None:
    """The node id a named reference resolves to, or None.

    Parameters
    ----------
    name : str
        The reference as cited, e.g. ``"report verification limits"``.
    documents : dict[str, str]
        Role → document node id for the set's current members.
    sections : list[SectionRef]
        The set's sections in (document, order) order.

    Returns
    -------
    str or None
        1. the one section whose heading equals ``name`` (case-insensitive);
        2. else, when ``name`` starts with a role's words (longest first): the member itself if
           nothing remains, or the one section of that member whose heading holds every remaining
           word;
        3. else None. Ambiguity is never guessed: two candidates give None.

    Examples
    --------
    >>> secs = [SectionRef("t/w#L5", "workflow-report", "Workflow account"),
    ...         SectionRef("t/e#L9", "epistemic", "Bounded conclusion")]
    >>> docs = {"workflow-report": "t/w", "epistemic": "t/e"}
    >>> [resolve_named_reference(n, docs, secs) for n in
    ...  ["workflow account", "epistemic conclusion", "epistemic", "boundary", "workflow chat annotation"]]
    ['t/w#L5', 't/e#L9', 't/e', None, None]
    """
    wanted = " ".join(name.lower().split())
    exact = [s.id for s in sections if s.heading.lower() == wanted]
    if len(exact) == 1:
        return exact[0]
    words = wanted.split()
    for size in (2, 1):
        prefix = " ".join(words[:size])
        if len(words) < size or prefix not in ROLE_WORDS:
            continue
        role = next((r for r in ROLE_WORDS[prefix] if r in documents), None)
        if role is None:
            return None
        remainder = words[size:]
        if not remainder:
            return documents[role]
        candidates = [
            s.id for s in sections
            if s.role == role and all(w in s.heading.lower().split() for w in remainder)
        ]
        return candidates[0] if len(candidates) == 1 else None
    return None
