"""Traversals: what rests on a node, with the shortest citation path that explains each answer.

Written once for every backend: :func:`reach` fetches the dependency edges that can reach the
start nodes with the light fields of the nodes on them (one round trip on a store with the
:class:`~graph.store.SupportsReach` fast path, else ``store.closure`` plus ``store.get_nodes``),
and :func:`explain` ranks paths in Python. A store with a faster way to fetch the same edges only
changes how they are fetched; the semantics stay here.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from collections.abc import Collection, Iterable, Mapping

from graph.errors import InvalidQuery, QueryLimitExceeded
from graph.model import (DEPENDENCY_KINDS, EVIDENCE_KINDS, Edge, EdgeKind, Label, Node, RecordId, record_node_id,
                         source_file_node_id, source_node_id)
from domain.model import Statement
from domain.wire import flat
from graph.codec import is_alias, node_name, statement_of
from graph.store import Direction, GraphStore, Reach, SupportsNodesWithEdges, SupportsReach, bare_edges, projected
from queries.limits import MAX_DEPTH
from queries.names import unknown_record, unknown_set

__all__ = [
    "MAX_DEPTH",
    "Explanation",
    "explain",
    "reach",
    "generic_reach",
    "RestsOnResult",
    "RestsOnReport",
    "START_KINDS",
    "records_named",
    "starts_named",
    "rests_on",
    "RESTS_ON_FIELDS",
]



@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a node rests on a start node: ``depth`` in evidence steps (CITES, ANNOTATES, QUOTES,
    SUPERSEDED_BY; structural hops cost nothing), ``path`` of node ids from the node to the start
    node, ``edges`` the kinds along it (``len(edges) == len(path) - 1``)."""

    depth: int
    path: tuple[str, ...]
    edges: tuple[str, ...]


def explain(edges: Iterable[Edge], starts: Collection[str], *, max_depth: int | None = None) -> dict[str, Explanation]:
    """Best explanation for every node that reaches ``starts`` along ``edges``.

    Parameters
    ----------
    edges : iterable of Edge
        Dependency edges (``src`` rests on ``dst``), typically ``store.closure(starts, …)``.
    starts : collection of str
        Start node ids; each explains itself with depth 0.
    max_depth : int, optional
        Drop explanations deeper than this many evidence steps.

    Returns
    -------
    dict[str, Explanation]
        Keyed by node id, start nodes included. Among all paths the best is the one with fewest
        evidence steps, then fewest hops, then the earliest nodes (ids compared with their
        ``#L<line>`` numerically): a total order, so every backend gives the same answer.

    Notes
    -----
    Dijkstra from the starts over reversed edges with (depth, hops, path) costs; cycles are
    visited once.

    Examples
    --------
    >>> from graph.model import EdgeKind
    >>> es = [Edge(EdgeKind.CITES, "s1", "r"), Edge(EdgeKind.CITES, "s2", "ref"),
    ...       Edge(EdgeKind.RESOLVES_TO, "ref", "sec"), Edge(EdgeKind.CONTAINS, "sec", "s1")]
    >>> {k: (v.depth, v.path) for k, v in sorted(explain(es, ["r"]).items())}  # doctest: +NORMALIZE_WHITESPACE
    {'r': (0, ('r',)), 'ref': (1, ('ref', 'sec', 's1', 'r')), 's1': (1, ('s1', 'r')),
     's2': (2, ('s2', 'ref', 'sec', 's1', 'r')), 'sec': (1, ('sec', 's1', 'r'))}
    """
    incoming: dict[str, list[Edge]] = {}
    for e in edges:
        if e.kind in DEPENDENCY_KINDS:
            incoming.setdefault(e.dst, []).append(e)
    best: dict[str, Explanation] = {}
    heap: list[tuple[int, int, tuple[tuple[str, int, str], ...], tuple[str, ...], tuple[str, ...]]] = [
        (0, 0, (_id_key(s),), (s,), ()) for s in sorted(set(starts))]
    heapq.heapify(heap)
    while heap:
        depth, hops, key, path, kinds = heapq.heappop(heap)
        node = path[0]
        if node in best:
            continue
        best[node] = Explanation(depth, path, kinds)
        for e in incoming.get(node, ()):
            if e.src in best:
                continue
            step = 1 if e.kind in EVIDENCE_KINDS else 0
            if max_depth is not None and depth + step > max_depth:
                continue
            heapq.heappush(heap, (depth + step, hops + 1, (_id_key(e.src), *key), (e.src, *path),
                                  (str(e.kind), *kinds)))
    return best


def _id_key(node_id: str) -> tuple[str, int, str]:
    """Sort key of a node id: document part, then line number, so ``#L7`` precedes ``#L19``."""
    head, _sep, tail = node_id.partition("#")
    digits = tail[1:] if tail[:1] in ("L", "Q", "D") else ""
    return (head, int(digits) if digits.isdigit() else -1, tail)


def reach(store: GraphStore, ids: Collection[str], *, kinds: Collection[EdgeKind],
          fields: Mapping[Label, Collection[str]], edge_props: bool = True) -> Reach:
    """The closure of ``ids`` over ``kinds`` and the light fields of every node on it.

    Parameters
    ----------
    store : GraphStore
        Any backend; one with :class:`~graph.store.SupportsReach` answers in one round trip.
    ids : collection of str
        Start node ids; unknown ones contribute nothing.
    kinds : collection of EdgeKind
        Edge kinds to follow backwards (``src`` rests on ``dst``).
    fields : mapping of Label to collection of str
        Props each node keeps, per label (see :func:`graph.store.projected`); leave heavy props
        such as ``markup`` out.
    edge_props : bool, default True
        False: every edge comes with empty props (:func:`graph.store.bare_edges`), for a caller
        that reads only kinds and ends; Neo4j then neither ships nor decodes them.

    Returns
    -------
    Reach
        ``edges`` equal to ``store.closure(ids, kinds=kinds)`` (with empty props without
        ``edge_props``); ``nodes`` every node reaching a
        start (starts included) by id, projected to ``fields``. Exactly :func:`generic_reach`'s
        answer whichever path answers it.
    """
    if isinstance(store, SupportsReach):
        return store.reach(ids, kinds=kinds, fields=fields, edge_props=edge_props)
    return generic_reach(store, ids, kinds=kinds, fields=fields, edge_props=edge_props)


def generic_reach(store: GraphStore, ids: Collection[str], *, kinds: Collection[EdgeKind],
                  fields: Mapping[Label, Collection[str]], edge_props: bool = True) -> Reach:
    """:func:`reach` from the contract primitives alone: ``store.closure``, then ``store.get_nodes``
    of the starts and of every edge end (two round trips; the reference the fast path must match)."""
    edges = store.closure(ids, kinds=kinds)
    ends = dict.fromkeys([*ids, *(i for e in edges for i in (e.src, e.dst))])
    return Reach(edges if edge_props else bare_edges(edges),
                 {i: projected(n, fields) for i, n in store.get_nodes(list(ends)).items()})


@dataclass(frozen=True, slots=True)
class RestsOnResult:
    """One statement resting on the record.

    ``set``, ``document`` (``<set>/<role>``), ``section``
    (innermost section id, or None) and its ``section_heading``; ``block``, the domain
    :class:`~domain.model.Statement` as the rests-on read brings it (its ``kind``, ``text``,
    ``line`` and ``order``, see :data:`RESTS_ON_FIELDS`); ``direct`` (the statement itself cites or
    annotates the record), ``depth`` (evidence steps, 1 = direct), ``path`` (node ids from the
    statement to the record). On the wire it is flat: ``set``, ``document``, ``section``,
    ``section_heading``, ``statement`` (the node id), ``kind``, ``text``, ``line``, ``order``,
    ``direct``, ``depth``, ``path``.
    """

    set: str
    document: str
    section: str | None
    section_heading: str | None
    block: Statement = field(metadata=flat("statement", "kind", "text", "line", "order"))
    direct: bool
    depth: int
    path: tuple[str, ...]

    @property
    def statement(self) -> str:
        """The node id of the resting statement."""
        return self.block.node


@dataclass(frozen=True, slots=True)
class RestsOnReport:
    """Answer to "what rests on ``record``": ``record`` as asked (a record ID, or a source ID or
    source-file path, see ``kind``), ``set`` filter (or None), ``records`` (node ids of the start
    nodes: the matching records, sources or source files, sorted), ``results`` sorted by (set,
    document, order), ``kind`` of the start nodes: ``record``, ``source`` or ``source_file``. Its
    JSON (``rests-on --json``, the REST body) is :func:`queries.shapes.plain` of it, in this field
    order."""

    record: str
    kind: str = field(default="record", kw_only=True)
    set: str | None
    records: tuple[str, ...]
    results: tuple[RestsOnResult, ...]


def records_named(store: GraphStore, record_id: str, set_id: str | None = None) -> list[Node]:
    """Record nodes carrying ``record_id`` (in ``set_id`` only, when given), sorted by node id.

    Returns
    -------
    list of Node
        At most one record when ``set_id`` is given (IDs are set-scoped), else one per set
        declaring or citing the ID.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.
    RecordNotFound
        No record in scope has that ID.

    Notes
    -----
    With ``set_id`` one ``store.get_nodes`` call reads the set and the record by its node id
    (:func:`graph.model.record_node_id`); the label and ``record_id`` are checked, since that id
    could name another node (``<set>/SRC-1`` is a Source). Without, one ``store.find_nodes``.
    """
    found = _named(store, Label.RECORD, record_id, set_id)
    if not found:
        raise unknown_record(store, record_id, set_id)
    return found


START_KINDS: dict[str, Label] = {"record": Label.RECORD, "source": Label.SOURCE, "source_file": Label.SOURCE_FILE}
"""What a rests-on query may start from, by the ``kind`` name the faces use."""

_NAME_PROP = {Label.RECORD: "record_id", Label.SOURCE: "source_id", Label.SOURCE_FILE: "path"}
_NODE_ID = {Label.RECORD: record_node_id, Label.SOURCE: source_node_id, Label.SOURCE_FILE: source_file_node_id}


def _named(store: GraphStore, label: Label, name: str, set_id: str | None) -> list[Node]:
    """Nodes of ``label`` named ``name`` (record ID, ``SRC-n`` or path), in ``set_id`` only when
    given (one ``get_nodes`` of the set and the node id), else one ``find_nodes``; sorted by id.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.
    """
    return _named_with_out(store, label, name, set_id, ())[0]


def _named_with_out(store: GraphStore, label: Label, name: str, set_id: str | None,
                    kinds: Collection[EdgeKind]) -> tuple[list[Node], dict[str, list[Edge]] | None]:
    """:func:`_named`, and with ``set_id`` and ``kinds`` on a store with
    :class:`~graph.store.SupportsNodesWithEdges`, the found node's outgoing edges of ``kinds`` read
    in the same call (keyed by node id); otherwise None in their place.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.
    """
    prop = _NAME_PROP[label]
    if set_id is not None:
        node_id = _NODE_ID[label](set_id, name)
        out: dict[str, list[Edge]] | None = None
        if kinds and isinstance(store, SupportsNodesWithEdges):
            nodes, out = store.nodes_with_edges([set_id, node_id], kinds=kinds)
        else:
            nodes = store.get_nodes([set_id, node_id])
        if set_id not in nodes or nodes[set_id].label != Label.ANALYSIS_SET:
            raise unknown_set(store, set_id)
        node = nodes.get(node_id)
        found = node is not None and node.label == label and node.set_id == set_id and node.get(prop) == name
        return ([node] if found and node is not None else []), out
    return store.find_nodes(label, where={prop: name}), None


def _with_canonical(store: GraphStore, records: list[Node],
                    out: Mapping[str, list[Edge]] | None = None) -> list[Node]:
    """``records`` and the canonical record of each that is an alias (a retired proposal tag a
    reconciliation maps, GRAMMAR §11.5: a SUPERSEDED_BY edge marked ``alias``), sorted by id: what
    rests on an alias is what rests on its record. One store call, two when there are aliases;
    none but those when ``out`` holds the records' outgoing SUPERSEDED_BY edges already."""
    if out is None:
        out = store.edges([r.id for r in records], kinds=[EdgeKind.SUPERSEDED_BY], direction=Direction.OUT)
    canonical = {e.dst for r in records for e in out.get(r.id, ()) if is_alias(e)} - {r.id for r in records}
    if not canonical:
        return records
    return sorted([*records, *store.get_nodes(canonical).values()], key=lambda n: n.id)


def starts_named(store: GraphStore, name: str, set_id: str | None = None, *,
                 kind: str | None = None) -> tuple[str, list[Node]]:
    """What a rests-on query starting at ``name`` starts from: ``(kind, nodes)``.

    Parameters
    ----------
    name : str
        A record ID (``RT-RTE-mcp-write``), a source ID (``SRC-1``) or a cited source file's path
        (``mcp-server/vault.js``), as the members write them.
    set_id : str, optional
        Only in this analysis set.
    kind : str, optional
        ``record``, ``source`` or ``source_file`` (:data:`START_KINDS`): look for that kind only.
        Without it, records are looked for first, then sources, then source files; the first kind
        with a match is the answer.

    Returns
    -------
    (str, list of Node)
        The kind found and its nodes, sorted by id (one per set holding the name); a record that
        is an alias brings its canonical record with it (:func:`_with_canonical`).

    Raises
    ------
    RecordNotFound
        Nothing of the kinds looked for has that name; the hint names the closest ones.
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.
    InvalidQuery
        ``kind`` is none of :data:`START_KINDS`.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(k, [n.id for n in found]) for k, found in [starts_named(demo_store(), "RT-RTE-x")]]
    [('record', ['demo/RT-RTE-x'])]
    """
    if kind is not None and kind not in START_KINDS:
        raise InvalidQuery(f"rests-on starts from a {' or '.join(START_KINDS)}, not a {kind!r}")
    kinds = [kind] if kind is not None else list(START_KINDS)
    for k in kinds:
        aliases = [EdgeKind.SUPERSEDED_BY] if k == "record" else []  # read with the record where one call can
        found, out = _named_with_out(store, START_KINDS[k], name, set_id, aliases)
        if found:
            return k, (_with_canonical(store, found, out) if k == "record" else found)
    raise unknown_record(store, name, set_id, also=[START_KINDS[k] for k in kinds if k != "record"])


def _check_depth(max_depth: int | None) -> None:
    if max_depth is not None and not 1 <= max_depth <= MAX_DEPTH:
        raise QueryLimitExceeded(f"max_depth must be between 1 and {MAX_DEPTH} evidence steps, not {max_depth}")


def rests_on(
    store: GraphStore,
    record_id: RecordId | str,
    *,
    set_id: str | None = None,
    direct_only: bool = False,
    max_depth: int | None = None,
    kind: str | None = "record",
) -> RestsOnReport:
    """Statements that rest on ``record_id``, by reverse dependency reachability.

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    record_id : str
        A record ID such as ``"RT-RTE-mcp-write"``; it is looked up in every set (IDs are
        set-scoped) unless ``set_id`` is given. With ``kind`` ``source`` or ``source_file`` (or
        None), a source ID (``SRC-1``) or a cited file's path (``mcp-server/vault.js``).
    kind : str or None, default "record"
        What ``record_id`` names (see :func:`starts_named`); None: a record, else a source, else a
        source file. A source file or source start gives what impact analysis flags as suspect
        statements when that file (or any file of the source) changes: the same closure over
        :data:`~graph.model.DEPENDENCY_KINDS` (a file reaches its source through IN_SOURCE, a
        structural hop) and the same :func:`explain`.
    set_id : str, optional
        Restrict to one analysis set.
    direct_only : bool, default False
        Only statements that cite or annotate the record themselves.
    max_depth : int, optional
        Maximum evidence steps (1..:data:`MAX_DEPTH`); unlimited when None.

    Returns
    -------
    RestsOnReport
        One result per statement, with its best explanation (see :func:`explain`), sorted by set,
        document and document order.

    Raises
    ------
    RecordNotFound, AnalysisSetNotFound
        See :func:`starts_named`.
    QueryLimitExceeded
        ``max_depth`` outside 1..:data:`MAX_DEPTH`.

    Notes
    -----
    A statement rests directly on R when one of its citations resolves to R in its own set or it
    is the body of an annotation on R; transitively when it cites a named reference, section,
    document or record that rests on R (a section or document rests on R when a statement inside
    it does; a record when a statement of its declaration does; a superseded record rests on its
    successor). Store calls: :func:`starts_named` (with ``set_id`` on a store with
    :class:`~graph.store.SupportsNodesWithEdges`, the record and its alias edges in one), then one
    :func:`reach` that brings only the statement and section fields shown and no edge props (one round trip with
    :class:`~graph.store.SupportsReach`).
    A statement's innermost section is the source of the CONTAINS edge into it; that edge is in
    the closure (CONTAINS is a dependency kind and the statement reaches the record), whatever
    ``max_depth`` cuts from the explanations.
    """
    _check_depth(max_depth)
    kind, records = starts_named(store, str(record_id), set_id, kind=kind)
    starts = [r.id for r in records]
    found = reach(store, starts, kinds=DEPENDENCY_KINDS, fields=RESTS_ON_FIELDS, edge_props=False)
    best = explain(found.edges, starts, max_depth=1 if direct_only else max_depth)
    results = []
    for node_id, why in best.items():
        node = found.nodes.get(node_id)
        if node is None or node.label != Label.STATEMENT:
            continue
        direct = len(why.path) == 2
        if direct_only and not direct:
            continue
        results.append((node, why, direct))
    section_ids = _innermost_sections(found.edges, [n.id for n, _, _ in results])
    out = []
    for node, why, direct in results:
        section = section_ids.get(node.id)
        out.append(RestsOnResult(
            set=node.set_id or "", document=node.document_id or "", section=section,
            section_heading=node_name(found.nodes[section]) if section in found.nodes else None,
            block=statement_of(node), direct=direct, depth=why.depth, path=why.path,
        ))
    out.sort(key=lambda r: (r.set, r.document, r.block.order))
    return RestsOnReport(str(record_id), set_id, tuple(starts), tuple(out), kind=kind)


RESTS_ON_FIELDS: dict[Label, tuple[str, ...]] = {
    Label.STATEMENT: ("kind", "text", "line", "order"),
    Label.SECTION: ("heading",),
}
"""The props a rests-on answer shows: statements' fields and sections' headings (no markup)."""


def _innermost_sections(edges: Iterable[Edge], statement_ids: list[str]) -> dict[str, str | None]:
    """Parent section id of each statement (None when it sits directly under its document): the
    source of the first CONTAINS edge into it by :meth:`Edge.sort_key`, taken from ``edges``,
    which must hold every CONTAINS edge into those statements (a closure reaching them does)."""
    wanted = set(statement_ids)
    parents: dict[str, Edge] = {}
    for e in edges:
        if (e.kind == EdgeKind.CONTAINS and e.dst in wanted
                and (e.dst not in parents or e.sort_key() < parents[e.dst].sort_key())):
            parents[e.dst] = e
    out: dict[str, str | None] = {}
    for sid in statement_ids:
        parent = parents[sid].src if sid in parents else None
        out[sid] = parent if parent and "#" in parent else None
    return out
