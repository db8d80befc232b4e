"""Set validation (``citegraph check``): findings with stable codes, read from the stored graph.

The rules are the set rules of GRAMMAR §2.2 and the record rules of §4, evaluated on what the
parsers stored (declarations, fields, statuses, ``Part of:`` facts, manifest pins, frontmatter
identity), so they run unchanged on every store backend. Problems only a file can show (malformed
YAML, unknown types, missing or mismatched manifest members) come from set assembly and are merged
in through ``problems``.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable

from domain.vocabulary import ROUTE_FIELDS, STATUS_VALUES
from graph.model import Label
from graph.store import GraphStore
from queries.kept import per_set, rows_of
from queries.names import unknown_set

__all__ = ["Finding", "CheckReport", "check", "CODES", "STATUS_VALUES", "ROUTE_FIELDS"]

CODES: dict[str, tuple[str, str]] = {
    "duplicate-declaration": ("error", "GRAMMAR §2.2 rule 2: a record is declared twice in the set"),
    "wrong-prefix": ("error", "GRAMMAR §2.2 rule 4: a member declares another analyst's prefix"),
    "annotates-own-record": ("error", "GRAMMAR §4.6: an annotation of a record its own member declares"),
    "malformed-id": ("error", "GRAMMAR §1.1: an ID-shaped token or declaration heading that is no record ID"),
    "source-range": ("error", "GRAMMAR §1.2: a source range such as SRC-1 through SRC-3"),
    "record-range": ("warning", "GRAMMAR §1.1: a record range such as RTE-4 through RTE-9 or RT-OBJ-1–RT-OBJ-3 "
                                "(refused, seen in G2 and G2.5); it cites every record in it, or only its ends "
                                "when it cannot be expanded exactly"),
    "status-value": ("error", "GRAMMAR §4.4: a conclusion status outside the vocabulary"),
    "status-duplicate": ("error", "GRAMMAR §4.4: a status label stated twice for one record"),
    "status-missing": ("error", "GRAMMAR §4.4: a route declaration without a conclusion status (a warning on "
                                "numbered G2 IDs, which predate the rule)"),
    "route-field-missing": ("error", "GRAMMAR §4.5: a route declaration lacks a route field"),
    "route-field-duplicate": ("error", "GRAMMAR §4.5: a route field stated twice"),
    "route-field-reason": ("error", "GRAMMAR §4.5: `inapplicable`/`uninspected` without `— reason`"),
    "part-of-malformed": ("error", "GRAMMAR §4.7: a malformed, bulleted or repeated `Part of:`"),
    "part-of-self": ("error", "GRAMMAR §4.7: `Part of:` names the record itself"),
    "dangling-record-citation": ("error", "GRAMMAR §2.2 rule 3: a record citation its named member does not declare"),
    "link-target": ("error", "GRAMMAR §2.2 rule 3: a link names a member that does not declare the record"),
    "link-label": ("error", "GRAMMAR §2.2 rule 3: a link labelled with a record ID whose anchor names another "
                            "record or none (neither lower(ID) nor its declaration heading's slug)"),
    "dangling-source-citation": ("error", "GRAMMAR §2.2 rule 3: an SRC ID the Source register does not declare"),
    "pin-mismatch": ("error", "GRAMMAR §2.1: a member's SHA-256 differs from its manifest pin"),
    "result-digest-mismatch": ("error", "GRAMMAR §3.11 (September reviews): a generated review's "
                                        "`analysis-result-sha256` differs from the SHA-256 of the ingested result"),
    "unpinned-member": ("error", "GRAMMAR §2.2 rule 1: a member the set's manifest does not pin"),
    "manifest-missing-member": ("error", "GRAMMAR §2.1: the manifest pins a member that is absent"),
    "run-id-mismatch": ("error", "GRAMMAR §2.2 rule 5: a member's run-id disagrees with its set"),
    "boundary-mismatch": ("error", "GRAMMAR §2.2 rule 5: a member's reviewed-boundary disagrees with the set's"),
    "amendment-index": ("error", "GRAMMAR §2.2 rule 6: the overview's amendment index disagrees with the reconciliation"),
    "unresolved-reference": ("warning", "seeds issue: a named reference resolves to no section or member of its set"),
    "undeclared-record": ("warning", "a record is cited but its declaring member is not in the set"),
    "unattributed-quotation": ("warning", "GRAMMAR §6: a blockquote without a `> --- `path`` attribution"),
    "misplaced-declaration": ("warning", "GRAMMAR §4.1: a declaration heading (§4.2) outside `## Shared records`, "
                                         "which declares nothing there"),
    "malformed-table-row": ("warning", "GRAMMAR §3.5, §7: a table row whose cell count differs from its header's, "
                                       "or that does not end with `|` (the parser pads or drops cells)"),
    "unaccounted-record-id": ("warning", "GRAMMAR §11.11: a record-ID-shaped token in prose (any case, `_`, Unicode "
                                         "hyphens, `RTE-2a`, `RTE-2.1`, `OBJ-1,2,3`) that is no citation, "
                                         "declaration, alias or ignored occurrence (a form the parser does not know)"),
}
"""Every graph rule: code → (severity, rule and source). Set assembly adds its own codes
(``ingest.sets``: ``malformed-frontmatter``, ``unknown-member-type``, ``parse-error`` …)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One validation finding.

    ``code`` is stable (e.g. ``unresolved-reference``), ``severity`` ``error``, ``warning`` or
    ``skipped`` (a file checked that is no analysis document; ``code`` says why),
    ``set`` the analysis set, ``file`` and ``line`` where the problem is (``line`` 0 when the
    finding is about a whole file or set), ``node`` the graph node concerned, ``message`` prose.
    """

    code: str
    severity: str
    set: str
    file: str
    line: int
    node: str
    message: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    """All findings, sorted by (set, file, line, code, node), and the numbers of ``errors``,
    ``warnings`` and ``skipped`` files among them (checking files: each file that is no analysis
    document is a finding of severity ``skipped`` whose code says why, ``type-definition`` …). Its
    JSON (``check --json``, ``GET /check``) is :func:`queries.shapes.plain` of it:
    ``{"errors", "warnings", "skipped", "findings": [...]}``."""

    errors: int = field(init=False)
    warnings: int = field(init=False)
    skipped: int = field(init=False)
    findings: tuple[Finding, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "errors", sum(1 for f in self.findings if f.severity == "error"))
        object.__setattr__(self, "warnings", sum(1 for f in self.findings if f.severity == "warning"))
        object.__setattr__(self, "skipped", sum(1 for f in self.findings if f.severity == "skipped"))


def check(store: GraphStore, *, set_id: str | None = None, problems: Iterable[Any] = (),
          progress: Callable[[int, int], None] | None = None, fresh: bool = False) -> CheckReport:
    """Validate the stored sets (or one set).

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    set_id : str, optional
        Only this analysis set.
    problems : iterable, optional
        Problems found while reading files (objects with ``code``, ``severity``, ``path``,
        ``line``, ``message`` and ``set_id``, e.g. :class:`ingest.sets.SetProblem`); merged in,
        except where a graph rule reports the same code at the same place. A pinned member named
        by an error among them is not reported as ``manifest-missing-member``.
    progress : callable, optional
        ``progress(done, total)`` after each set checked (units: sets).
    fresh : bool
        Check every set again instead of reusing the findings a store keeps for a set unchanged
        since it was last checked (:func:`queries.kept.per_set`; kept only when no ``problems``
        name a refused member).

    Returns
    -------
    CheckReport
        Findings sorted by (set, file, line, code, node); rules and codes in :data:`CODES`.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(f.code, f.severity, f.line) for f in check(demo_store()).findings]
    [('undeclared-record', 'warning', 4)]

    Notes
    -----
    A record citation is ``dangling-record-citation`` (error) when the member that should declare
    it — the member a link names, else the analyst's member by prefix — is in the set and does not;
    when that member is absent (the seeds) it is only ``undeclared-record`` (warning). Source
    citations are checked only in sets holding a Source register (a boundary or overview member).
    Route fields are checked on slug-ID routes (G3 and later); statuses on every declaration and
    annotation, a missing one being an error on slug IDs and a warning on numbered (G2) IDs. A status
    is its leading vocabulary term; a trailing qualifier (``wired on target emission``) is kept beside
    it, not refused.
    """
    if set_id is not None and not store.get_nodes([set_id]):
        raise unknown_set(store, set_id)
    problems = list(problems)
    # A pinned member that is present but was refused (unparsable, pin mismatch) is not missing.
    refused = frozenset((p.set_id, PurePosixPath(p.path.replace("\\", "/")).name)
                        for p in problems if p.severity == "error")
    # Every rule is one set's, so the store is checked set by set: memory is one set's, not the
    # store's, and a store that keeps results keeps each set's findings while the set is unchanged.
    scopes = [set_id] if set_id is not None else [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
    if refused:  # findings that depend on files read now: computed, never kept
        found = {}
        for done, scope in enumerate(scopes):
            if progress is not None:
                progress(done, len(scopes))
            found[scope] = _check_set(store, scope, refused)
        if progress is not None:
            progress(len(scopes), len(scopes))
    else:
        encode, decode = rows_of(Finding)
        found = per_set(store, "check", scopes, lambda scope: _check_set(store, scope), encode=encode,
                        decode=decode, fresh=fresh, progress=progress)
    findings: list[Finding] = [f for scope in scopes for f in found[scope]]
    seen = {(f.code, f.file, f.line) for f in findings}
    for p in problems:
        if set_id is not None and p.set_id not in (None, set_id):
            continue
        if (p.code, p.path, p.line) in seen:
            continue
        seen.add((p.code, p.path, p.line))
        findings.append(Finding(p.code, p.severity, p.set_id or "", p.path, p.line, "", p.message))
    findings.sort(key=lambda f: (f.set, f.file, f.line, f.code, f.node))
    return CheckReport(tuple(findings))


def _check_set(store: GraphStore, scope: str, refused: frozenset[tuple[str | None, str]] = frozenset()
               ) -> tuple[Finding, ...]:
    """:func:`queries.check_rules.check_set`, imported when a set is checked: a check answered
    from the findings a store keeps imports no rule, nor the codec and domain model they read."""
    from queries.check_rules import check_set

    return check_set(store, scope, refused)
