"""Impact analysis results: frozen dataclasses, the shapes every face answers with."""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field
from graph.analysis_changes import PartChange
from graph.codec import review_of
from graph.model import Label, Node
from queries.shapes import wire

__all__ = [
    "FILE_STATUSES",
    "QUOTATION_STATES",
    "SUSPECT_KINDS",
    "SUSPECT_CAUSES",
    "ChangedFile",
    "Occurrence",
    "QuotationContext",
    "QuotationDrift",
    "Review",
    "Suspect",
    "ImpactSummary",
    "ImpactReport",
]

FILE_STATUSES = ("added", "modified", "deleted", "renamed")
"""Statuses of a changed file, as :class:`FileChangeLike` reports them."""

QUOTATION_STATES = ("intact", "moved", "ambiguous", "broken")
"""States of a quotation at ``--to`` (see :class:`QuotationDrift`)."""

SUSPECT_KINDS = {Label.STATEMENT: "statement", Label.RECORD: "record", Label.SECTION: "section",
                 Label.DOCUMENT: "document"}
"""Labels that can be suspects, and the kind name each is reported under (also their sort rank)."""

SUSPECT_CAUSES = ("source-change", "analysis-change")
"""Why a node is suspect: the analysed source moved (impact analysis), or a new version of a set
changed a declaration, quotation or source pin it rests on (:mod:`graph.analysis_changes`)."""

_KIND_RANK = {kind: rank for rank, kind in enumerate(SUSPECT_KINDS.values())}


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A cited source file that changed between ``--from`` and ``--to``.

    ``file`` is the SourceFile node id and ``path`` the path as the set cites it; ``status`` one of
    :data:`FILE_STATUSES`; ``old_path``/``new_path`` as git reports them (``renamed``: old → new,
    the citations stay attached to the cited ``path``); ``cited_by`` the statements citing it and
    the quotations attributed to it (node ids in document order); ``renamed``: the file was renamed
    (``old_path`` → ``new_path``), possibly with edits.
    """

    file: str
    path: str
    status: str
    old_path: str | None
    new_path: str | None
    cited_by: tuple[str, ...]
    renamed: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "renamed", self.status == "renamed")

    def describe(self) -> str:
        """``modified mcp-server/vault.js``, ``renamed mcp-server/index.js → mcp-server/server.js``."""
        if self.renamed:
            return f"renamed {self.old_path} → {self.new_path}"
        return f"{self.status} {self.path}"


@dataclass(frozen=True, slots=True)
class Occurrence:
    """``count`` occurrences of a quotation in the file at ``path``."""

    path: str
    count: int


@dataclass(frozen=True, slots=True)
class QuotationContext:
    """Where a quotation's text sits in one file version: ``path`` at ``revision`` (full commit id),
    1-based inclusive ``start_line``..``end_line``, and those lines' ``text``."""

    path: str
    revision: str
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class QuotationDrift:
    """The state at ``--to`` of one quotation of the set.

    ``quotation`` (node id), ``statement`` (the quoting statement), ``document``, ``path`` (the
    attributed path as cited), ``checked_path`` (that file at ``--to`` after a rename; None when it
    was deleted), ``text`` (the quotation as stored).

    ``state`` is decided on :func:`normalise_quotation` forms of the quotation and of every file:

    - ``intact``: it occurs exactly once in the attributed file (at ``checked_path``);
    - ``ambiguous``: more than once there; or not there and more than once in other files;
    - ``moved``: not there, and exactly once in exactly one other file (``found_in``);
    - ``broken``: nowhere in the repository at ``--to``.

    ``found_in``: each file holding it at ``--to`` with its occurrence count, sorted by path.
    ``reason`` says why in one sentence. For ``moved`` and ``broken``: ``old`` is where it sat in
    the attributed file at ``--from`` (None when it did not occur there either), ``new`` where it
    sits now (moved) or the region that replaced it (broken; None when the file is gone), and
    ``diff`` a unified diff of the two regions with two lines of context ("" for intact and
    ambiguous quotations).
    """

    quotation: str
    statement: str | None
    document: str
    path: str
    checked_path: str | None
    text: str
    state: str
    found_in: tuple[Occurrence, ...]
    reason: str
    old: QuotationContext | None = None
    new: QuotationContext | None = None
    diff: str = ""

    def describe(self) -> str:
        """``broken quotation of src/lib/aiAgentStreamCallbacks.ts`` and the like."""
        where = f" (now in {self.found_in[0].path})" if self.state == "moved" else ""
        return f"{self.state} quotation of {self.path}{where}"


@dataclass(frozen=True, slots=True)
class Review:
    """A suspect reviewed at a source revision: ``id`` (``review/<node>@<revision>``), ``node``,
    ``set``, ``revision`` (full commit id), ``reviewer``, ``at`` (UTC ISO 8601), ``note`` (or None),
    ``fingerprint`` (SHA-256 of the node's content when reviewed)."""

    id: str
    node: str
    set: str
    revision: str
    reviewer: str
    at: str
    note: str | None
    fingerprint: str

    @classmethod
    def from_node(cls, node: Node) -> Review:
        """The review a Review node holds."""
        r = review_of(node)
        return cls(id=node.id, node=r.node, set=node.set_id or "", revision=r.revision, reviewer=r.reviewer,
                   at=r.at, note=r.note, fingerprint=r.fingerprint or "")


@dataclass(frozen=True, slots=True)
class Suspect:
    """A node resting on changed evidence.

    ``node`` (id), ``kind`` (``statement``|``record``|``section``|``document``), ``set``,
    ``document`` (None for records), ``section`` and ``section_heading`` (innermost section of a
    statement, else None), ``text`` (statement text, section heading, document title or record ID),
    ``line`` (None for documents and records), ``file`` (the path the suspect's document was
    ingested from, as stored; None for records), ``order`` (document order, 0 when none),
    ``conclusion`` (a statement of a synthesis member or a row of a ``Limitations`` table),
    ``depth`` (evidence steps to the trigger, 1 = cites it or quotes it directly), ``path`` (node
    ids from the suspect to the trigger), ``edges`` (edge kinds along it), ``trigger`` (the
    changed SourceFile or drifted Quotation node id the path ends at), ``change`` (what happened
    to it, e.g. ``modified mcp-server/vault.js``), ``review`` (the review that clears it, only in
    :attr:`ImpactReport.reviewed`), ``cause`` (one of :data:`SUSPECT_CAUSES`: ``source-change``,
    the analysed source moved; ``analysis-change``, a new version of a set changed a part it rests
    on) and ``version_change`` (for an ``analysis-change``, the version diff that explains it: the
    part, old → new and the versions; None otherwise).
    """

    node: str
    kind: str
    set: str
    document: str | None
    section: str | None
    section_heading: str | None
    text: str
    line: int | None
    order: int
    conclusion: bool
    depth: int
    path: tuple[str, ...]
    edges: tuple[str, ...]
    trigger: str
    change: str
    file: str | None = None
    review: Review | None = None
    cause: str = "source-change"
    version_change: PartChange | None = None

    def sort_key(self) -> tuple[Any, ...]:
        """Conclusions first, then statements, records, sections, documents; then document order."""
        return (not self.conclusion, _KIND_RANK[self.kind], self.set, self.document or "", self.order, self.node)


@dataclass(frozen=True, slots=True)
class ImpactSummary:
    """Counts: cited ``changed_files`` and ``uncited_changes``; quotations per state; flagged
    suspects per kind, of which ``conclusions``; and ``reviewed`` suspects cleared by a review."""

    changed_files: int
    uncited_changes: int
    intact: int
    moved: int
    ambiguous: int
    broken: int
    statements: int
    records: int
    sections: int
    documents: int
    conclusions: int
    reviewed: int


@dataclass(frozen=True, slots=True)
class ImpactReport:
    """Answer of :func:`impact_of`.

    ``set`` and ``source`` (Source node id, or None for a set without one) as analysed;
    ``from_revision`` and ``to_revision`` (full commit ids; ``from`` and ``to`` on the wire);
    ``summary``; ``changes`` (cited changed files,
    sorted by path); ``uncited_changes`` (paths of the other changed files, sorted); ``quotations``
    (every quotation of the set in scope, in document order); ``suspects`` (flagged, sorted by
    :meth:`Suspect.sort_key`); ``reviewed`` (suspects a review clears, same order). The REST body
    and ``citegraph impact --json`` are :func:`queries.shapes.plain` of it.
    """

    set: str
    source: str | None
    from_revision: str = field(metadata=wire("from"))
    to_revision: str = field(metadata=wire("to"))
    summary: ImpactSummary = field(init=False)
    changes: tuple[ChangedFile, ...]
    uncited_changes: tuple[str, ...]
    quotations: tuple[QuotationDrift, ...]
    suspects: tuple[Suspect, ...]
    reviewed: tuple[Suspect, ...]

    def __post_init__(self) -> None:
        states = {s: sum(q.state == s for q in self.quotations) for s in QUOTATION_STATES}
        kinds = {k: sum(s.kind == k for s in self.suspects) for k in SUSPECT_KINDS.values()}
        object.__setattr__(self, "summary", ImpactSummary(
            changed_files=len(self.changes), uncited_changes=len(self.uncited_changes), **states,
            statements=kinds["statement"], records=kinds["record"], sections=kinds["section"],
            documents=kinds["document"], conclusions=sum(s.conclusion for s in self.suspects),
            reviewed=len(self.reviewed)))
