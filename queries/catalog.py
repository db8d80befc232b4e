"""What the store holds, to find things by: its analysis sets with their sizes, and its
documents (members) with their metadata. ``citegraph sets``, ``citegraph documents``, ``GET /sets``
and ``GET /documents`` answer from here."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.model import Member
from domain.wire import flat
from graph.codec import analysis_set_of, member_of, record_id_of, system_name
from graph.model import Label, Node
from graph.store import GraphStore
from graph.tallies import SetTally, SupportsSetTallies, set_tallies
from queries.kept import per_set, rows_of
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


def analysis_sets(store: GraphStore, *, set_id: str | None = None, limit: int | None = None,
                  fresh: bool = False) -> list[SetSummary]:
    """Every analysis set (or only ``set_id``; or the first ``limit`` sets), sorted by id; each
    set's sizes kept by a store that keeps results (:func:`queries.kept.per_set`; ``fresh``
    computes them again).

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
    Document nodes, read a set at a time (their properties are large) when not kept.
    """
    require_set(store, set_id)
    sets = store.find_nodes(Label.ANALYSIS_SET)
    if set_id is not None:
        sets = [s for s in sets if s.id == set_id]
    if limit is not None:
        sets = sets[:limit]
    stated = {s.id: analysis_set_of(s) for s in sets}
    systems = store.get_nodes({a.system for a in stated.values() if a.system})
    encode, decode = rows_of(_SetSizes)

    def counted(missing: list[str]) -> dict[str, tuple[_SetSizes, ...]]:  # one query for the sets not kept
        return {s: (_set_sizes(store, s, tally),) for s, tally in set_tallies(store, missing).items()}

    sizes = per_set(store, "sets", list(stated), lambda s: (_set_sizes(store, s),), encode=encode, decode=decode,
                    fresh=fresh, compute_many=counted if isinstance(store, SupportsSetTallies) else None)
    out = []
    for s, a in stated.items():
        (size,) = sizes[s]
        system = systems.get(a.system)
        out.append(SetSummary(
            id=s, system=system_name(system) if system is not None else (a.system or None), run_id=a.run_id,
            reviewed_boundary=a.reviewed_boundary, documents=size.documents, statements=size.statements,
            records=size.records, sources=size.sources, source_files=size.source_files, quotations=size.quotations))
    return out


@dataclass(frozen=True, slots=True)
class _SetSizes:
    """What :class:`SetSummary` reads from one set's rows (its system's name is read each time:
    the System node is shared by the sets of a system)."""

    documents: tuple[str, ...]
    statements: int
    records: int
    sources: int
    source_files: int
    quotations: int


def _set_sizes(store: GraphStore, set_id: str, tally: SetTally | None = None) -> _SetSizes:
    """One set's sizes from its :class:`~graph.tallies.SetTally` (``tally``, or counted now)."""
    if tally is None:
        counts = store.counts(set_id=set_id)
        documents = tuple(d.id for d in store.find_nodes(Label.DOCUMENT, set_id=set_id))
    else:
        counts, documents = tally.labels, tally.documents
    return _SetSizes(documents=documents, statements=counts[Label.STATEMENT], records=counts[Label.RECORD],
                     sources=counts[Label.SOURCE], source_files=counts[Label.SOURCE_FILE],
                     quotations=counts[Label.QUOTATION])


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """One member: ``id`` (``<set>/<role>``), ``set``, ``role``, ``title``, ``member_type``,
    ``format`` (``txt`` or ``md``), ``path`` it was ingested from, ``sha256`` of its bytes and
    their ``size`` (bytes).

    All but ``id`` and ``set`` are those of the :class:`domain.model.Member` it holds, flat on the
    wire."""

    id: str
    set: str
    member: Member = field(metadata=flat("role", "title", "member_type", "format", "path", "sha256", "size"))

    @classmethod
    def of(cls, node: Node) -> DocumentSummary:
        """The summary of a Document node."""
        return cls(id=node.id, set=node.set_id or "", member=member_of(node))


def documents_of(store: GraphStore, *, set_id: str | None = None) -> list[DocumentSummary]:
    """Every member (of ``set_id`` only, when given), sorted by id, read a set at a time.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store (the hint names the closest sets).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(d.id, d.member.role, d.member.format) for d in documents_of(demo_store())]
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
