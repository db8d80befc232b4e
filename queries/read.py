"""One read object over a store: the lookups, listings and filters every face answers the same way.

:class:`GraphRead` holds the batched reads the GraphQL face's DataLoaders batch through (nodes by
id, edges by kind, nodes by label, document trees) and the filters of its list fields (documents,
sections and statements), so that ``app/graphql`` keeps no query logic of its own: a document is
named by its id or by the path it was ingested from, as :func:`queries.documents.find_document`
names it, on every face, and an analysis set is answered as its domain
:class:`~domain.model.AnalysisSet` (:meth:`GraphRead.analysis_set`). It also groups what a
record's page shows: the body of a declaration or annotation heading
(:meth:`GraphRead.record_body`), a record's annotations (:meth:`GraphRead.annotations`) and the
statuses a statement states. Every node it answers is a :class:`Stored`: the node's id with the
domain objects it holds, decoded once by :mod:`graph.codec`, so that no face reads a node's stored
properties. A citation between two nodes is a :class:`NodeCitation` (what GraphQL's ``Citation``
shows).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

from dataclasses import dataclass, field
from collections.abc import Callable, Collection, Iterable, Sequence

from domain.model import AnalysisSet, Citation
from domain.wire import flat
from graph.codec import (analysis_set_of, annotation_of, block_line, block_order, citation_of, declaration_of,
                         field_of, member_frontmatter, member_of, named_reference_of, quotation_of, record_of,
                         section_of, source_file_of, source_of, statement_of, statuses_of, system_name, table_row_of)
from graph.model import Edge, EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from queries.documents import DocumentBlock, DocumentTree, document_trees, find_document
from queries.names import unknown_set

__all__ = ["GraphRead", "Stored", "NodeCitation", "matches", "document_order", "line_order", "citation_order"]

_Decoded = TypeVar("_Decoded")


class _decodes(Generic[_Decoded]):
    """A :class:`Stored` attribute: what the :mod:`graph.codec` reader ``decode`` finds in the node,
    decoded on first read and then kept on the object (as :func:`functools.cached_property`,
    without the lock Python 3.11 takes on each first read)."""

    def __init__(self, decode: Callable[[Node], _Decoded]):
        self.decode, self.__doc__ = decode, decode.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _decodes[_Decoded]: ...

    @overload
    def __get__(self, obj: Stored, owner: type | None = None) -> _Decoded: ...

    def __get__(self, obj: Stored | None, owner: type | None = None) -> _Decoded | _decodes[_Decoded]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.decode(obj._node)
        return value


class Stored:
    """One stored node as the domain objects it holds: ``id`` (its node id), ``label``, ``set_id``
    (None for nodes outside a set) and ``document_id`` (None outside a document), and, each decoded
    by :mod:`graph.codec` when first read and then kept, the domain object of its label:
    ``analysis_set`` (AnalysisSet), ``member`` and ``frontmatter`` (Document), ``section`` with the
    ``declaration`` or ``annotation`` a heading is (Section), ``statement`` with the ``field`` or
    table ``row`` it is and the ``statuses`` it states (Statement), ``quotation``, ``record``,
    ``source``, ``source_file``, ``reference`` (NamedReference) and ``system_name`` (System);
    ``line`` and ``order`` place a block or quotation in its member (0 when unstated). Reading the
    attribute of another label is the codec's answer for a node without those properties."""

    def __init__(self, node: Node):
        self._node = node
        self.id, self.label, self.set_id, self.document_id = node.id, node.label, node.set_id, node.document_id

    def __repr__(self) -> str:
        return f"Stored({self.label.value} {self.id!r})"

    analysis_set = _decodes(analysis_set_of)
    member = _decodes(member_of)
    frontmatter = _decodes(member_frontmatter)
    section = _decodes(section_of)
    declaration = _decodes(declaration_of)
    annotation = _decodes(annotation_of)
    statement = _decodes(statement_of)
    field = _decodes(field_of)
    row = _decodes(table_row_of)
    statuses = _decodes(statuses_of)
    quotation = _decodes(quotation_of)
    record = _decodes(record_of)
    source = _decodes(source_of)
    source_file = _decodes(source_file_of)
    reference = _decodes(named_reference_of)
    system_name = _decodes(system_name)
    line = _decodes(block_line)
    order = _decodes(block_order)


def stored(node: Node | None) -> Stored | None:
    """The :class:`Stored` of ``node`` (None for None)."""
    return None if node is None else Stored(node)


def matches(text: str | None, value: object) -> bool:
    """Case-insensitive substring filter; ``None`` matches everything.

    >>> (matches("MCP", "the mcp server"), matches(None, None), matches("x", None))
    (True, True, False)
    """
    return text is None or text.casefold() in str(value or "").casefold()


def document_order(node: Stored) -> tuple[Any, ...]:
    """Sort key of blocks in document order: (document id, block order, node id)."""
    return (node.document_id or "", node.order, node.id)


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


def _block_node(block: DocumentBlock, tree: DocumentTree) -> Stored:
    """The stored node of a block of ``tree`` (its properties are the stored ones: no store call)."""
    return Stored(Node(block.id, Label(block.label), tree.set_id, tree.id, dict(block.props)))


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

    def nodes(self, ids: Sequence[str]) -> list[Stored | None]:
        """The node of each id, in the order asked (None for an unknown id); one ``get_nodes``."""
        found = self.store.get_nodes(list(dict.fromkeys(ids)))
        return [stored(found.get(i)) for i in ids]

    def edges(self, direction: Direction,
              keys: Sequence[tuple[str, Collection[EdgeKind]]]) -> list[list[Edge]]:
        """For each (node id, edge kinds) key, the edges of those kinds leaving (OUT) or entering
        (IN) the node, in the store's order; one ``edges`` call for all keys (their kinds united,
        then filtered per key)."""
        ids = list(dict.fromkeys(node_id for node_id, _ in keys))
        kinds = sorted(frozenset().union(*(frozenset(k) for _, k in keys)))
        found = self.store.edges(ids, kinds=kinds, direction=direction)
        return [[e for e in found.get(node_id, []) if e.kind in wanted] for node_id, wanted in keys]

    def labelled(self, label: Label, set_id: str | None) -> list[Stored]:
        """Nodes of ``label`` in ``set_id`` (every set for None), sorted by id; one ``find_nodes``."""
        return [Stored(n) for n in self.store.find_nodes(label, set_id=set_id)]

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

    def document(self, reference: str) -> Stored:
        """The Document node named by ``reference``, its id or the path it was ingested from
        (:func:`queries.documents.find_document`).

        Raises
        ------
        DocumentNotFound
            No stored document has that id or path (the hint names the closest).
        """
        return Stored(find_document(self.store, reference))

    @staticmethod
    def documents(nodes: Iterable[Stored], *, role: str | None = None, member_type: str | None = None,
                  text: str | None = None) -> list[Stored]:
        """The Document ``nodes`` of ``role`` and ``member_type`` whose title, role or path holds
        ``text`` (any case), in the order given."""
        if role is None and member_type is None and text is None:
            return list(nodes)
        return [n for n, m in ((n, n.member) for n in nodes)
                if (role is None or m.role == role) and (member_type is None or m.member_type == member_type)
                and (text is None or any(matches(text, v) for v in (m.title, m.role, m.path)))]

    @staticmethod
    def blocks(nodes: Iterable[Stored], label: Label, *, document: Stored | None = None, role: str | None = None,
               kind: str | None = None, text: str | None = None) -> list[Stored]:
        """The Section or Statement ``nodes`` (``label``) of ``document`` (any, for None), of
        members of ``role``, of ``kind``, whose heading (sections) or text (statements) holds
        ``text`` (any case), in document order (:func:`document_order`)."""
        def wanted(n: Stored) -> bool:
            if kind is None and text is None:
                return True
            if label == Label.SECTION:
                section = n.section
                return (kind is None or section.kind == kind) and matches(text, section.heading)
            statement = n.statement
            return (kind is None or statement.kind == kind) and matches(text, statement.text)

        chosen = [n for n in nodes
                  if (document is None or n.document_id == document.id)
                  and (role is None or (n.document_id or "").rpartition("/")[2] == role) and wanted(n)]
        return sorted(chosen, key=document_order)

    @staticmethod
    def records(nodes: Iterable[Stored], *, analyst: str | None = None, kind: str | None = None) -> list[Stored]:
        """The Record ``nodes`` of ``analyst`` and ``kind``, in the order given."""
        if analyst is None and kind is None:
            return list(nodes)
        return [n for n, r in ((n, n.record) for n in nodes)
                if (analyst is None or r.analyst == analyst) and (kind is None or r.kind == kind)]

    def records_named(self, record_id: str, set_id: str | None = None) -> list[Stored]:
        """The records carrying ``record_id`` (in ``set_id`` only, when given), sorted by node id
        (:func:`queries.traversal.records_named`, which raises ``AnalysisSetNotFound`` for an
        unknown ``set_id``)."""
        from queries.traversal import records_named

        return [Stored(n) for n in records_named(self.store, record_id, set_id)]

    def records_matching(self, *, set_id: str | None, analyst: str | None, kind: str | None, text: str) -> set[str]:
        """Node ids of the records whose ID or declared label holds ``text`` (any case), as
        :func:`queries.records.records_of` finds them (``citegraph records TEXT``, ``GET /records?q=``)."""
        from queries.records import records_of

        return {r.id for r in records_of(self.store, set_id=set_id, analyst=analyst, kind=kind, text=text)}

    @staticmethod
    def sets(nodes: Iterable[Stored], *, text: str | None = None) -> list[Stored]:
        """The AnalysisSet ``nodes`` whose id or system holds ``text`` (any case), in the order given."""
        return [n for n in nodes if matches(text, n.id) or matches(text, n.analysis_set.system)]

    @staticmethod
    def sources(nodes: Iterable[Stored], *, kind: str | None = None) -> list[Stored]:
        """The Source ``nodes`` of ``kind``, in the order given."""
        return [n for n in nodes if kind is None or n.source.kind == kind]

    @staticmethod
    def source_files(nodes: Iterable[Stored], *, text: str | None = None) -> list[Stored]:
        """The SourceFile ``nodes`` whose path holds ``text`` (any case), in the order given."""
        return [n for n in nodes if matches(text, n.source_file.path)]

    @staticmethod
    def quotations(nodes: Iterable[Stored], *, document_id: str | None = None, text: str | None = None,
                   path: str | None = None) -> list[Stored]:
        """The Quotation ``nodes`` of ``document_id`` (any, for None) whose text holds ``text`` and
        whose attributed path holds ``path`` (any case), in line order (:func:`line_order`)."""
        chosen = [n for n in nodes if (document_id is None or n.document_id == document_id)
                  and ((text is None and path is None)
                       or (matches(text, (q := n.quotation).text) and matches(path, q.path)))]
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
    def record_body(tree: DocumentTree, section_id: str) -> list[Stored]:
        """Statements whose innermost declaration or annotation heading is ``section_id``, in order
        (the body :mod:`queries.validation` reads a record's fields and statuses from)."""
        out = []
        for block in tree.within(section_id):
            if block.is_section:
                continue
            owner = next((h for h in reversed(tree.headings(block.id))
                          if h.block.kind in ("declaration", "annotation")), None)
            if owner is not None and owner.id == section_id:
                out.append(_block_node(block, tree))
        return out

    @staticmethod
    def fields(body: Iterable[Stored]) -> list[Stored]:
        """The field statements of a declaration ``body``, in order."""
        return [n for n in body if n.field is not None]

    @staticmethod
    def annotations(anchors: Iterable[Stored],
                    trees: Iterable[DocumentTree | None]) -> list[tuple[Stored, list[Stored]]]:
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
