"""What subgraph reports show: the statements resting on a record with their documents and explained
paths, and a whole analysis set with its record index.

Each function gathers everything a report needs in a bounded number of batched store calls and
returns frozen results; ``render/`` turns them into Markdown, plain text or HTML. Each result is a
:class:`typing.NamedTuple` (immutable, compared by value): a report's process makes its shapes when
it imports this module, several times faster than frozen dataclasses (bench/README.md, "``--help``
and ``render`` under the targets").
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from queries.names import unknown_set
from graph.codec import (analysis_set_of, citation_form, citation_token, declaration_label, node_name, record_id_of,
                         system_name)
from graph.model import DEPENDENCY_KINDS, EdgeKind, Label, Node, RecordId
from graph.store import Direction, GraphStore
from queries.documents import DocumentTree, document_trees
from queries.traversal import RestsOnReport, rests_on

__all__ = [
    "PathStep",
    "RestsOnSubgraph",
    "rests_on_subgraph",
    "RecordEntry",
    "SetReport",
    "analysis_set_report",
]

class PathStep(NamedTuple):
    """One node of an explanation path.

    ``node`` id, ``label`` (``Statement``, ``Section``, ``NamedReference``, ``Record`` …), ``name``
    for readers (record ID, heading, reference name, path; the node id for statements),
    ``document`` owning it (None for shared nodes), ``kinds``: the edge kinds leading from
    this node to the next one on the path, sorted (empty for the last node), and ``ranges``: the
    record ranges as written (``RT-BAP-1–RT-BAP-3``) through which it cites the next node, when
    its citation is a record inside a range (form ``range``, GRAMMAR §1.1).
    """

    node: str
    label: str
    name: str
    document: str | None
    kinds: tuple[str, ...]
    ranges: tuple[str, ...] = ()


class RestsOnSubgraph(NamedTuple):
    """The part of the graph resting on one record ID.

    ``report`` the rests-on answer (results in set, document, order); ``documents`` the trees of
    the documents holding results, in (set, role order, id) order; ``steps`` the explanation path
    of each result statement (statement id → steps from the statement to the record);
    ``max_depth`` the evidence-step limit asked (None = unlimited); ``direct_only`` as asked;
    ``labels`` the declared label of each record on the paths or asked about (record node id →
    label, e.g. ``"MCP note update"``; records declared nowhere are absent).
    """

    report: RestsOnReport
    documents: tuple[DocumentTree, ...]
    steps: dict[str, tuple[PathStep, ...]]
    max_depth: int | None = None
    direct_only: bool = False
    labels: Mapping[str, str] = MappingProxyType({})


def rests_on_subgraph(
    store: GraphStore,
    record_id: RecordId | str,
    *,
    set_id: str | None = None,
    direct_only: bool = False,
    max_depth: int | None = None,
    kind: str | None = "record",
) -> RestsOnSubgraph:
    """Statements resting on ``record_id``, with their documents and named explanation paths.

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    record_id : str
        A record ID such as ``"RT-RTE-mcp-write"``, looked up in every set unless ``set_id``.
    set_id : str, optional
        Restrict to one analysis set.
    direct_only : bool, default False
        Only statements citing or annotating the record themselves.
    max_depth : int, optional
        Maximum evidence steps (1..16); unlimited when None.
    kind : str or None, default "record"
        What ``record_id`` names, as :func:`queries.traversal.rests_on` takes it (None: a record,
        else a source ID, else a source file's path).

    Returns
    -------
    RestsOnSubgraph
        See the class.

    Raises
    ------
    RecordNotFound, AnalysisSetNotFound, QueryLimitExceeded
        As :func:`queries.traversal.rests_on`.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> sub = rests_on_subgraph(demo_store(), "RT-RTE-x")
    >>> [(s.name, s.kinds) for s in sub.steps["demo/synthesis#L4"]]
    [('demo/synthesis#L4', ('CITES',)), ('RT-RTE-x', ())]

    Notes
    -----
    :func:`~queries.traversal.rests_on` plus three batched calls (path nodes, their outgoing
    dependency edges) and the calls of :func:`~queries.documents.document_trees`.
    """
    report = rests_on(store, record_id, set_id=set_id, direct_only=direct_only, max_depth=max_depth, kind=kind)
    path_ids = sorted({n for r in report.results for n in r.path} | set(report.records))
    nodes = store.get_nodes(path_ids)
    out_edges = store.edges(path_ids, kinds=DEPENDENCY_KINDS, direction=Direction.OUT)
    steps: dict[str, tuple[PathStep, ...]] = {}
    for r in report.results:
        chain = []
        for i, node_id in enumerate(r.path):
            nxt = r.path[i + 1] if i + 1 < len(r.path) else None
            to_next = [e for e in out_edges.get(node_id, []) if e.dst == nxt] if nxt else []
            kinds = tuple(sorted({str(e.kind) for e in to_next}))
            ranges = tuple(sorted({citation_token(e) for e in to_next if e.kind == EdgeKind.CITES
                                   and citation_form(e) == "range"}))
            chain.append(_step(node_id, nodes.get(node_id), kinds, ranges))
        steps[r.statement] = tuple(chain)
    documents = document_trees(store, document_ids=sorted({r.document for r in report.results}))
    labels = {node_id: str(declaration_label(e)) for node_id in path_ids for e in out_edges.get(node_id, [])
              if e.kind == EdgeKind.DECLARED_IN and declaration_label(e)}
    return RestsOnSubgraph(report, documents, steps, max_depth, direct_only, labels)


def _step(node_id: str, node: Node | None, kinds: tuple[str, ...], ranges: tuple[str, ...] = ()) -> PathStep:
    if node is None:
        return PathStep(node_id, "", node_id, None, kinds, ranges)
    name = node_id if node.label == Label.STATEMENT else node_name(node)
    return PathStep(node_id, str(node.label), str(name or node_id), node.document_id, kinds, ranges)


class RecordEntry(NamedTuple):
    """One record of a set's index.

    ``record`` the Record node; ``declarations`` the declaration sections (node ids) declaring it;
    ``annotations`` the annotation sections on it; ``citations`` the statements and sections citing
    it, in (document, order) order, each once.
    """

    record: Node
    declarations: tuple[str, ...]
    annotations: tuple[str, ...]
    citations: tuple[str, ...]

    @property
    def record_id(self) -> str:
        """The record ID as written, e.g. ``RT-RTE-mcp-write``."""
        return record_id_of(self.record) or self.record.id


class SetReport(NamedTuple):
    """A whole analysis set: its AnalysisSet node, system name, member trees in layout order and
    the record index sorted by record ID."""

    analysis_set: Node
    system: str
    documents: tuple[DocumentTree, ...]
    records: tuple[RecordEntry, ...]

    @property
    def id(self) -> str:
        """The set id."""
        return self.analysis_set.id


def analysis_set_report(store: GraphStore, set_id: str) -> SetReport:
    """Everything needed to render ``set_id`` as one document with a record index.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> report = analysis_set_report(demo_store(), "demo")
    >>> report.system, [(e.record_id, e.citations) for e in report.records]
    ('Demo', [('RT-RTE-x', ('demo/synthesis#L4',))])
    """
    found = store.get_nodes([set_id]).get(set_id)
    if found is None or found.label != Label.ANALYSIS_SET:
        raise unknown_set(store, set_id)
    system_id = analysis_set_of(found).system
    system = store.get_nodes([system_id]).get(system_id) if system_id else None
    trees = document_trees(store, set_id=set_id)
    records = store.find_nodes(Label.RECORD, set_id=set_id)
    ids = [r.id for r in records]
    declared = store.edges(ids, kinds=[EdgeKind.DECLARED_IN], direction=Direction.OUT)
    annotated = store.edges(ids, kinds=[EdgeKind.ANNOTATES], direction=Direction.IN)
    sections = {b.id for t in trees for b in t.blocks if b.is_section}
    citing: dict[str, list[str]] = {}
    for tree in trees:
        for block in tree.blocks:
            for c in block.citations:
                if c.citation.target_kind == "record" and block.id not in citing.setdefault(c.node, []):
                    citing[c.node].append(block.id)
    entries = [
        RecordEntry(
            record=r,
            declarations=tuple(e.dst for e in declared[r.id]),
            annotations=tuple(e.src for e in annotated[r.id] if e.src in sections),
            citations=tuple(citing.get(r.id, ())),
        )
        for r in records
    ]
    entries.sort(key=lambda e: e.record_id)
    name = system_name(system) if system is not None else system_id or set_id
    return SetReport(found, str(name), trees, tuple(entries))

