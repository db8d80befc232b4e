"""The graph as it leaves citegraph: every node and edge of one analysis set, or of
the whole store, in a stable order; :mod:`render.export` writes it as GraphML, node-link JSON or CSV."""

from __future__ import annotations

from dataclasses import dataclass

from graph.model import Edge, Label, Node
from graph.store import Direction, GraphStore
from graph.writes import edge_owner
from queries.names import require_set

__all__ = ["GraphSnapshot", "graph_of"]


@dataclass(frozen=True, slots=True)
class GraphSnapshot:
    """Nodes sorted by id and edges sorted by (src, kind, dst, seq, owner), each exactly as stored;
    ``set`` the analysis set exported (None: the whole store)."""

    set: str | None
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


def graph_of(store: GraphStore, *, set_id: str | None = None) -> GraphSnapshot:
    """Every node and edge of analysis set ``set_id`` (every set, when None).

    A set's graph is its nodes of every label (its reviews included), the System node that contains
    it, and every edge between two of those nodes. The store's graph is every node and every edge.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store (the hint names the closest sets).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> g = graph_of(demo_store(), set_id="demo")
    >>> len(g.nodes), len(g.edges), g.nodes[0].id, g.edges[0].kind.value
    (7, 6, 'demo', 'CONTAINS')

    Notes
    -----
    One ``find_nodes`` per label and one ``edges`` call (plus one for a set's System): the whole
    graph in memory, so export large stores a set at a time.
    """
    require_set(store, set_id)
    nodes = {n.id: n for label in Label for n in store.find_nodes(label, set_id=set_id)}
    if set_id is not None:
        into = store.edges([set_id], direction=Direction.IN)[set_id]
        nodes.update({n.id: n for n in store.get_nodes([e.src for e in into]).values() if n.label == Label.SYSTEM})
    out = store.edges(list(nodes), direction=Direction.OUT)
    edges = [e for found in out.values() for e in found if e.dst in nodes]
    return GraphSnapshot(set_id, tuple(sorted(nodes.values(), key=lambda n: n.id)),
                         tuple(sorted(edges, key=lambda e: (*e.sort_key(), edge_owner(e)))))
