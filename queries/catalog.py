"""What the store holds, to find things by (issue #15): its analysis sets with their sizes, and its
documents (members) with their metadata. ``citegraph sets``, ``citegraph documents``, ``GET /sets``
and ``GET /documents`` answer from here."""

from __future__ import annotations

from dataclasses import dataclass

from graph.codec import record_id_of
from graph.model import Label, Node
from graph.store import GraphStore
from queries.names import require_set

__all__ = ["MISSION_RECORD", "SetSummary", "analysis_sets", "DocumentSummary", "documents_of", "example_record"]

MISSION_RECORD = "RT-RTE-mcp-write"
"""The record of the mission's question, "which conclusions rest on RT-RTE-mcp-write?"."""


@dataclass(frozen=True, slots=True)
class SetSummary:
    """One analysis set: ``id`` (run-id or system slug), ``system`` (the analysed system's name),
    ``run_id`` (or None), ``reviewed_boundary`` (or None), ``documents`` (its member ids, sorted) and
    the numbers of its ``statements``, ``records``, ``sources``, ``source_files`` and
    ``quotations``."""

    id: str
    system: str | None
    run_id: str | None
    reviewed_boundary: str | None
    documents: tuple[str, ...]
    statements: int
    records: int
    sources: int
    source_files: int
    quotations: int


def analysis_sets(store: GraphStore, *, set_id: str | None = None, limit: int | None = None) -> list[SetSummary]:
    """Every analysis set (or only ``set_id``; or the first ``limit`` sets), sorted by id.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store (the hint names the closest sets).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(s.id, s.system, s.documents, s.statements, s.records) for s in analysis_sets(demo_store())]
    [('demo', 'Demo', ('demo/synthesis',), 2, 1)]

    Notes
    -----
    The sizes are the store's kept counts (``counts(set_id=…)``); the members are the set's
    Document nodes, read a set at a time (their properties are large).
    """
    require_set(store, set_id)
    sets = store.find_nodes(Label.ANALYSIS_SET)
    if set_id is not None:
        sets = [s for s in sets if s.id == set_id]
    if limit is not None:
        sets = sets[:limit]
    systems = store.get_nodes({s.get("system") for s in sets if s.get("system")})
    out = []
    for s in sets:
        counts = store.counts(set_id=s.id)
        system = systems.get(s.get("system"))
        out.append(SetSummary(
            id=s.id, system=system.get("name") if system is not None else s.get("system"), run_id=s.get("run_id"),
            reviewed_boundary=s.get("reviewed_boundary"),
            documents=tuple(d.id for d in store.find_nodes(Label.DOCUMENT, set_id=s.id)),
            statements=counts[Label.STATEMENT], records=counts[Label.RECORD], sources=counts[Label.SOURCE],
            source_files=counts[Label.SOURCE_FILE], quotations=counts[Label.QUOTATION]))
    return out


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """One member: ``id`` (``<set>/<role>``), ``set``, ``role``, ``title``, ``member_type``,
    ``format`` (``txt`` or ``md``), ``path`` it was ingested from, ``sha256`` of its bytes and
    their ``size`` (bytes)."""

    id: str
    set: str
    role: str
    title: str
    member_type: str
    format: str
    path: str
    sha256: str
    size: int

    @classmethod
    def of(cls, node: Node) -> "DocumentSummary":
        """The summary of a Document node."""
        p = node.props
        return cls(id=node.id, set=node.set_id or "", role=p.get("role") or "", title=p.get("title") or "",
                   member_type=p.get("member_type") or "", format=p.get("format") or "", path=p.get("path") or "",
                   sha256=p.get("sha256") or "", size=int(p.get("size") or 0))


def documents_of(store: GraphStore, *, set_id: str | None = None) -> list[DocumentSummary]:
    """Every member (of ``set_id`` only, when given), sorted by id, read a set at a time.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store (the hint names the closest sets).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(d.id, d.role, d.format) for d in documents_of(demo_store())]
    [('demo/synthesis', 'synthesis', 'txt')]
    """
    require_set(store, set_id)
    sets = [set_id] if set_id is not None else [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
    out = [DocumentSummary.of(d) for s in sets for d in store.find_nodes(Label.DOCUMENT, set_id=s)]
    return sorted(out, key=lambda d: d.id)


def example_record(store: GraphStore) -> tuple[str, str] | None:
    """A record to show a new user, as ``(record ID, set)``: the mission's record
    (:data:`MISSION_RECORD`) when a set holds it, else the most cited record of the first set (ties
    by ID); None for an empty store. A few indexed reads, whatever the store's size.

    >>> from queries.demo import demo_store
    >>> example_record(demo_store())
    ('RT-RTE-x', 'demo')
    """
    from graph.model import EdgeKind
    from graph.store import Direction

    mission = store.find_nodes(Label.RECORD, where={"record_id": MISSION_RECORD})
    if mission:
        return MISSION_RECORD, mission[0].set_id or ""
    sets = store.find_nodes(Label.ANALYSIS_SET)
    if not sets:
        return None
    records = store.find_nodes(Label.RECORD, set_id=sets[0].id)
    if not records:
        return None
    cited = store.degrees([r.id for r in records], kinds=[EdgeKind.CITES], direction=Direction.IN)
    best = min(records, key=lambda r: (-cited[r.id], record_id_of(r)))
    return record_id_of(best), sets[0].id
