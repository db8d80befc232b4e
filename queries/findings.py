"""The findings of ``citegraph check``: every code with its severity and rule (:data:`CODES`), a
:class:`Finding` and the :class:`CheckReport` of them, declared apart from the rules that make
them (:mod:`queries.check_rules`) and the check that reads or keeps them (:mod:`queries.validation`,
which names them too), so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CODES", "CheckReport", "Finding"]

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
