"""What a statement states besides its citations, read the same way by both parsers from its
plain text and citations: amendments (GRAMMAR §4.8) and the sources a Source register row
declares (§7). A plain-text rendering of a Markdown member must give the same facts as the
member (issue 13, item 6), so each rule is written once, here.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from domain.grammar import RECORD_ID
from domain.model import Citation, Source

__all__ = ["AMENDMENT", "CONFLICT", "amendment_facts", "register_pin"]

AMENDMENT = "Amendment:"
"""Opening of an amendment paragraph (GRAMMAR §4.8)."""

CONFLICT = "Unresolved conflict:"
"""Opening of an unresolved-conflict paragraph (GRAMMAR §4.9)."""

_SUPERSESSION = re.compile(
    rf"^Amendment:\s*({RECORD_ID.pattern})\s+is superseded by\s+"
    rf"((?:{RECORD_ID.pattern})(?:\s*(?:,\s*(?:and\s+)?|and\s+)(?:{RECORD_ID.pattern}))*)"
)
_ACCESS_ROOT = re.compile(r"\s*[(;]\s*access root")


def amendment_facts(text: str, citations: Sequence[Citation]) -> dict[str, Any]:
    """``amends`` (the amended record: the first ID, GRAMMAR §4.8) and, for the supersession
    form, ``supersedes`` = [(old, new), …] of an ``Amendment:`` paragraph, from its plain ``text``
    and record citations; ``{}`` when it cites no record.

    >>> from ingest.citations import extract_citations
    >>> text = "Amendment: EPI-OBJ-1 is superseded by MEM-OBJ-1 as the canonical identity."
    >>> amendment_facts(text, extract_citations(text))
    {'amends': 'EPI-OBJ-1', 'supersedes': [('EPI-OBJ-1', 'MEM-OBJ-1')]}
    """
    records = [c for c in citations if c.target_kind == "record"]
    if not records:
        return {}
    facts: dict[str, Any] = {"amends": records[0].target}
    m = _SUPERSESSION.match(text)
    if m:
        old = [c.target for c in records if m.start(1) <= c.start < m.end(1)]
        new = [c.target for c in records if m.start(2) <= c.start < m.end(2)]
        if old and new:
            facts = {"amends": old[0], "supersedes": [(old[0], n) for n in new]}
    return facts


def register_pin(cells: Sequence[str], identity: str | None = None) -> Source:
    """The source a Source register row declares (GRAMMAR §7): ``SRC-n | kind | identity/location
    | revision or capture | evidence layer | …``. The identity is ``identity`` when given (the
    Markdown cell's first code span), else the cell's text before an ``(access root …)`` note.

    >>> pin = register_pin(["SRC-1", "Git", "https://github.com/a/b (access root: x/)", "6acb", "implementation"])
    >>> (pin.source_id, pin.kind, pin.url, pin.commit, pin.evidence_layers, pin.declared)
    ('SRC-1', 'Git', 'https://github.com/a/b', '6acb', 'implementation', True)
    """

    def cell(n: int) -> str | None:
        return cells[n] if n < len(cells) and cells[n] else None

    if identity is None and len(cells) > 2:
        identity = _ACCESS_ROOT.split(cells[2])[0].strip() or None
    return Source(cells[0], url=identity, commit=cell(3), kind=cell(1), evidence_layers=cell(4), declared=True)
