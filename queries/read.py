"""One read object over a store: the lookups, listings and filters every face answers the same way.

:class:`GraphRead` holds the batched reads the GraphQL face's DataLoaders batch through (nodes by
id, edges by kind, nodes by label, document trees) and the filters of its list fields (documents,
sections and statements), so that ``app/graphql`` keeps no query logic of its own: a document is
named by its id or by the path it was ingested from, as :func:`queries.documents.find_document`
names it, on every face.
"""

from __future__ import annotations

from typing import Collection, Iterable, Sequence

from graph.model import Edge, EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from queries.documents import DocumentTree, document_trees, find_document

__all__ = ["GraphRead", "matches", "document_order"]


def matches(text: str | None, value: object) -> bool:
    """Case-insensitive substring filter; ``None`` matches everything.

    >>> (matches("MCP", "the mcp server"), matches(None, None), matches("x", None))
    (True, True, False)
    """
    return text is None or text.casefold() in str(value or "").casefold()


def document_order(node: Node) -> tuple:
    """Sort key of blocks in document order: (document id, block order, node id)."""
    return (node.document_id or "", int(node.get("order") or 0), node.id)


class GraphRead:
    """Reads over one store, each one store call (or a fixed number of them).

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract (a read snapshot, for one request).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> read = GraphRead(demo_store())
    >>> [d.id for d in read.documents(read.labelled(Label.DOCUMENT, None), role="synthesis")]
    ['demo/synthesis']
    >>> read.document("demo/synthesis").id
    'demo/synthesis'
    """

    def __init__(self, store: GraphStore):
        self.store = store

    def nodes(self, ids: Sequence[str]) -> list[Node | None]:
        """The node of each id, in the order asked (None for an unknown id); one ``get_nodes``."""
        found = self.store.get_nodes(list(dict.fromkeys(ids)))
        return [found.get(i) for i in ids]

    def edges(self, direction: Direction,
              keys: Sequence[tuple[str, Collection[EdgeKind]]]) -> list[list[Edge]]:
        """For each (node id, edge kinds) key, the edges of those kinds leaving (OUT) or entering
        (IN) the node, in the store's order; one ``edges`` call for all keys (their kinds united,
        then filtered per key)."""
        ids = list(dict.fromkeys(node_id for node_id, _ in keys))
        kinds = sorted(frozenset().union(*(frozenset(k) for _, k in keys)))
        found = self.store.edges(ids, kinds=kinds, direction=direction)
        return [[e for e in found.get(node_id, []) if e.kind in wanted] for node_id, wanted in keys]

    def labelled(self, label: Label, set_id: str | None) -> list[Node]:
        """Nodes of ``label`` in ``set_id`` (every set for None), sorted by id; one ``find_nodes``."""
        return self.store.find_nodes(label, set_id=set_id)

    def trees(self, ids: Sequence[str]) -> list[DocumentTree | None]:
        """The tree of each document id, in the order asked (None for an unknown id)."""
        trees = {t.id: t for t in document_trees(self.store, document_ids=list(dict.fromkeys(ids)))}
        return [trees.get(i) for i in ids]

    def document(self, reference: str) -> Node:
        """The Document node named by ``reference``, its id or the path it was ingested from
        (:func:`queries.documents.find_document`).

        Raises
        ------
        DocumentNotFound
            No stored document has that id or path (the hint names the closest).
        """
        return find_document(self.store, reference)

    @staticmethod
    def documents(nodes: Iterable[Node], *, role: str | None = None, member_type: str | None = None,
                  text: str | None = None) -> list[Node]:
        """The Document ``nodes`` of ``role`` and ``member_type`` whose title, role or path holds
        ``text`` (any case), in the order given."""
        return [n for n in nodes
                if (role is None or n.get("role") == role) and (member_type is None or n.get("member_type") == member_type)
                and (text is None or any(matches(text, n.get(k)) for k in ("title", "role", "path")))]

    @staticmethod
    def blocks(nodes: Iterable[Node], label: Label, *, document: Node | None = None, role: str | None = None,
               kind: str | None = None, text: str | None = None) -> list[Node]:
        """The Section or Statement ``nodes`` (``label``) of ``document`` (any, for None), of
        members of ``role``, of ``kind``, whose heading (sections) or text (statements) holds
        ``text`` (any case), in document order (:func:`document_order`)."""
        prop = "heading" if label == Label.SECTION else "text"
        chosen = [n for n in nodes
                  if (document is None or n.document_id == document.id)
                  and (role is None or (n.document_id or "").rpartition("/")[2] == role)
                  and (kind is None or n.get("kind") == kind) and matches(text, n.get(prop))]
        return sorted(chosen, key=document_order)
