"""One read object over a store: the lookups, listings and filters every face answers the same way.

:class:`GraphRead` holds the batched reads the GraphQL face's DataLoaders batch through (nodes by
id, edges by kind, nodes by label, document trees) and the filters of its list fields (documents,
sections and statements), so that ``app/graphql`` keeps no query logic of its own: a document is
named by its id or by the path it was ingested from, as :func:`queries.documents.find_document`
names it, on every face, and an analysis set is answered as its domain
:class:`~domain.model.AnalysisSet` (:meth:`GraphRead.analysis_set`). It also groups what a
record's page shows: the body of a declaration or annotation heading
(:meth:`GraphRead.record_body`), a record's annotations (:meth:`GraphRead.annotations`) and the
statuses a statement states (:func:`statuses_of`). A citation between two nodes is a
:class:`NodeCitation` (what GraphQL's ``Citation`` shows).
"""

from __future__ import annotations

from typing import Any

from dataclasses import dataclass, field
from collections.abc import Collection, Iterable, Sequence

from domain.model import AnalysisSet, Citation
from domain.wire import flat
from graph.codec import (analysis_set_of, block_order, citation_of, field_of, member_of, quotation_of, record_of,
                         section_of, source_file_path, source_of, statement_of, statuses_of)
from graph.model import Edge, EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from queries.documents import DocumentBlock, DocumentTree, document_trees, find_document
from queries.names import unknown_set

__all__ = ["GraphRead", "NodeCitation", "matches", "document_order", "line_order", "citation_order", "block_node",
           "statuses_of"]


def matches(text: str | None, value: object) -> bool:
    """Case-insensitive substring filter; ``None`` matches everything.

    >>> (matches("MCP", "the mcp server"), matches(None, None), matches("x", None))
    (True, True, False)
    """
    return text is None or text.casefold() in str(value or "").casefold()


def document_order(node: Node) -> tuple[Any, ...]:
    """Sort key of blocks in document order: (document id, block order, node id)."""
    return (node.document_id or "", block_order(node), node.id)


def line_order(node_id: str) -> tuple[Any, ...]:
    """Sort key of node ids in line order: ``doc#L7`` before ``doc#L19`` (quotations, citing nodes).

    >>> sorted(["d#L19", "d#L7", "d"], key=line_order)
    ['d', 'd#L7', 'd#L19']
    """
    head, _, tail = node_id.partition("#")
    digits = tail[1:] if tail[:1] in ("L", "Q", "D") else ""
    return (head, int(digits) if digits.isdigit() else -1, tail)


@dataclass(frozen=True, slots=True)
class NodeCitation:
    """One citation between two nodes (a CITES edge): the :class:`domain.model.Citation` it stores
    (decoded by :func:`graph.codec.citation_of`), ``citing_id`` the citing statement, section or
    document, ``target_id`` the cited node and ``seq`` its place among the citing node's
    citations, as written. On the wire it is flat: ``form``, ``token``, ``target_kind``, ``start``,
    ``end``, ``span_start``, ``span_end``, then ``citing_id``, ``target_id`` and ``seq``."""

    citation: Citation = field(metadata=flat("form", "token", "target_kind", "start", "end", "span_start",
                                             "span_end"))
    citing_id: str
    target_id: str
    seq: int

    @classmethod
    def of(cls, edge: Edge) -> NodeCitation:
        """The citation on CITES ``edge``."""
        return cls(citation_of(edge), edge.src, edge.dst, edge.seq)


def citation_order(c: NodeCitation) -> tuple[Any, ...]:
    """Sort key of citations in document order of the citing node, then as written in it:
    (*:func:`line_order` of the citing id, seq, target id)."""
    return (*line_order(c.citing_id), c.seq, c.target_id)


def block_node(block: DocumentBlock, tree: DocumentTree) -> Node:
    """The graph node of a block of ``tree`` (its properties are the stored ones: no store call)."""
    return Node(block.id, Label(block.label), tree.set_id, tree.id, dict(block.props))


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

    def analysis_set(self, set_id: str) -> AnalysisSet:
        """The domain :class:`~domain.model.AnalysisSet` stored as ``set_id`` (its node id).

        Raises
        ------
        AnalysisSetNotFound
            No analysis set has that id (the hint names the closest).
        """
        node = self.store.get_nodes([set_id]).get(set_id)
        if node is None or node.label != Label.ANALYSIS_SET:
            raise unknown_set(self.store, set_id)
        return analysis_set_of(node)

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
        if role is None and member_type is None and text is None:
            return list(nodes)
        return [n for n, m in ((n, member_of(n)) for n in nodes)
                if (role is None or m.role == role) and (member_type is None or m.member_type == member_type)
                and (text is None or any(matches(text, v) for v in (m.title, m.role, m.path)))]

    @staticmethod
    def blocks(nodes: Iterable[Node], label: Label, *, document: Node | None = None, role: str | None = None,
               kind: str | None = None, text: str | None = None) -> list[Node]:
        """The Section or Statement ``nodes`` (``label``) of ``document`` (any, for None), of
        members of ``role``, of ``kind``, whose heading (sections) or text (statements) holds
        ``text`` (any case), in document order (:func:`document_order`)."""
        def wanted(n: Node) -> bool:
            if kind is None and text is None:
                return True
            if label == Label.SECTION:
                section = section_of(n)
                return (kind is None or section.kind == kind) and matches(text, section.heading)
            statement = statement_of(n)
            return (kind is None or statement.kind == kind) and matches(text, statement.text)

        chosen = [n for n in nodes
                  if (document is None or n.document_id == document.id)
                  and (role is None or (n.document_id or "").rpartition("/")[2] == role) and wanted(n)]
        return sorted(chosen, key=document_order)

    @staticmethod
    def records(nodes: Iterable[Node], *, analyst: str | None = None, kind: str | None = None) -> list[Node]:
        """The Record ``nodes`` of ``analyst`` and ``kind``, in the order given."""
        if analyst is None and kind is None:
            return list(nodes)
        return [n for n, r in ((n, record_of(n)) for n in nodes)
                if (analyst is None or r.analyst == analyst) and (kind is None or r.kind == kind)]

    def records_matching(self, *, set_id: str | None, analyst: str | None, kind: str | None, text: str) -> set[str]:
        """Node ids of the records whose ID or declared label holds ``text`` (any case), as
        :func:`queries.records.records_of` finds them (``citegraph records TEXT``, ``GET /records?q=``)."""
        from queries.records import records_of

        return {r.id for r in records_of(self.store, set_id=set_id, analyst=analyst, kind=kind, text=text)}

    @staticmethod
    def sets(nodes: Iterable[Node], *, text: str | None = None) -> list[Node]:
        """The AnalysisSet ``nodes`` whose id or system holds ``text`` (any case), in the order given."""
        return [n for n in nodes if matches(text, n.id) or matches(text, analysis_set_of(n).system)]

    @staticmethod
    def sources(nodes: Iterable[Node], *, kind: str | None = None) -> list[Node]:
        """The Source ``nodes`` of ``kind``, in the order given."""
        return [n for n in nodes if kind is None or source_of(n).kind == kind]

    @staticmethod
    def source_files(nodes: Iterable[Node], *, text: str | None = None) -> list[Node]:
        """The SourceFile ``nodes`` whose path holds ``text`` (any case), in the order given."""
        return [n for n in nodes if matches(text, source_file_path(n))]

    @staticmethod
    def quotations(nodes: Iterable[Node], *, document_id: str | None = None, text: str | None = None,
                   path: str | None = None) -> list[Node]:
        """The Quotation ``nodes`` of ``document_id`` (any, for None) whose text holds ``text`` and
        whose attributed path holds ``path`` (any case), in line order (:func:`line_order`)."""
        chosen = [n for n in nodes if (document_id is None or n.document_id == document_id)
                  and ((text is None and path is None)
                       or (matches(text, (q := quotation_of(n)).text) and matches(path, q.path)))]
        return sorted(chosen, key=lambda n: line_order(n.id))

    @staticmethod
    def citations(edges: Iterable[Edge], *, form: str | None = None, as_written: bool = False) -> list[NodeCitation]:
        """The citations on CITES ``edges`` of ``form`` (any, for None), in document order of the
        citing node (then as written in it: :func:`citation_order`), or with ``as_written`` in the
        order written in one citing node."""
        chosen = sorted((c for c in map(NodeCitation.of, edges) if form is None or c.citation.form == form),
                        key=citation_order)
        return sorted(chosen, key=lambda c: (c.seq, c.target_id)) if as_written else chosen

    @staticmethod
    def record_body(tree: DocumentTree, section_id: str) -> list[Node]:
        """Statements whose innermost declaration or annotation heading is ``section_id``, in order
        (the body :mod:`queries.validation` reads a record's fields and statuses from)."""
        out = []
        for block in tree.within(section_id):
            if block.is_section:
                continue
            owner = next((h for h in reversed(tree.headings(block.id)) if h.kind in ("declaration", "annotation")),
                         None)
            if owner is not None and owner.id == section_id:
                out.append(block_node(block, tree))
        return out

    @staticmethod
    def fields(body: Iterable[Node]) -> list[Node]:
        """The field statements of a declaration ``body``, in order."""
        return [n for n in body if field_of(n) is not None]

    @staticmethod
    def annotations(anchors: Iterable[Node], trees: Iterable[DocumentTree | None]) -> list[tuple[Node, list[Node]]]:
        """A record's annotations from the nodes annotating it (``anchors``: annotation headings and
        annotating statements) and their documents' ``trees``: (anchor, body) for each heading with
        its :meth:`record_body`, then for each annotating statement outside those bodies with itself
        as the body, in document order of the anchors."""
        anchors = list(anchors)
        by_doc = {t.id: t for t in trees if t is not None}
        covered: set[str] = set()
        out = []
        for anchor in sorted(anchors, key=document_order):
            if anchor.label == Label.SECTION and anchor.document_id in by_doc:
                body = GraphRead.record_body(by_doc[anchor.document_id], anchor.id)
                covered.update(n.id for n in body)
                out.append((anchor, body))
        out += [(a, [a]) for a in anchors if a.label == Label.STATEMENT and a.id not in covered]
        return sorted(out, key=lambda pair: document_order(pair[0]))
