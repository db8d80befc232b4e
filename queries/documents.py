"""Documents as stored: each member's Document node and its sections and statements in document order.

The renderer rebuilds members from these trees; it never sees the store. A tree is fetched
with a fixed number of batched store calls, whatever the size of the document or the set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

from domain.model import Annotation, Citation, Field, Member, Quotation, Section, Statement, Status, TableRow
from domain.wire import flat
from graph.codec import (annotation_of, citation_of, field_of, member_frontmatter, member_of, member_text, quotation_of,
                         section_of, statement_of, statuses_of, table_row_of)
from graph.model import Edge, EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from queries.names import unknown_document, unknown_set

__all__ = [
    "ROLE_ORDER",
    "BlockCitation",
    "BlockQuotation",
    "DocumentBlock",
    "DocumentTree",
    "document_tree",
    "document_trees",
    "find_document",
]

ROLE_ORDER = (
    "boundary", "overview", "runtime", "memory", "epistemic", "reconciliation", "memory-profile",
    "workflow-report", "synthesis", "verification", "generated-review",
)
"""Member roles in the order of a set's layout (GRAMMAR §2); other roles sort after them by id."""


@dataclass(frozen=True, slots=True)
class BlockCitation:
    """One outgoing citation of a block, in the order written (edge ``seq``): the
    :class:`~domain.model.Citation` (its ``target`` normalised from the cited node) and ``node``,
    the cited node's id. On the wire it is flat: ``target_kind``, ``target``, ``node``, ``token``,
    ``form``, ``start``, ``end``, ``span_start``, ``span_end``."""

    citation: Citation = field(metadata=flat("target_kind", "target", "node", "token", "form", "start", "end",
                                             "span_start", "span_end"))
    node: str


@dataclass(frozen=True, slots=True)
class BlockQuotation:
    """The quotation a quotation statement QUOTES: ``node``, the Quotation node id, and the
    :class:`~domain.model.Quotation` (flat on the wire: ``node``, ``text``, ``path``, ``lines``,
    ``revision``)."""

    node: str
    quotation: Quotation = field(metadata=flat())


@dataclass(frozen=True, slots=True)
class DocumentBlock:
    """One Section or Statement node of a document: ``block``, the domain
    :class:`~domain.model.Section` or :class:`~domain.model.Statement` it stores (decoded by
    :mod:`graph.codec`), and where it sits: ``document``, the id of the document holding it, and
    ``parent``, the id of the containing section or document; the ``citations`` it makes, the
    ``quotation`` it quotes and ``props``, every stored property. What the block states besides,
    decoded from them: the ``field`` or table ``row`` a statement is, the ``statuses`` it states
    and the ``annotation`` a heading is (None or empty otherwise).

    On the wire it is flat: ``id`` (the node id), ``document``, ``label`` (``Section`` or
    ``Statement``), ``kind`` (section kind ``section``, ``kinds``, ``declaration``, ``annotation``,
    ``subsection``, or statement kind ``paragraph``, ``table_row``, …), ``order`` (block index in
    the document, 1-based), ``line`` (first line in the member), ``level`` (heading level 2–6,
    or 0), ``text`` (the heading, or the statement's plain text), ``markup`` (the exact source)
    and ``gap`` (the whitespace before it), then ``parent``, ``citations``, ``quotation`` and
    ``props``.
    """

    block: Section | Statement = field(metadata=flat("id", "document", "label", "kind", "order", "line", "level",
                                                     "text", "markup", "gap"))
    document: str
    parent: str | None
    citations: tuple[BlockCitation, ...] = ()
    quotation: BlockQuotation | None = None
    props: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The node id of the block."""
        return self.block.node

    @property
    def label(self) -> str:
        """``Section`` or ``Statement``: the label of the block's node."""
        return (Label.SECTION if isinstance(self.block, Section) else Label.STATEMENT).value

    @property
    def level(self) -> int:
        """The heading level (2–6) of a section; 0 for a statement."""
        return self.block.level if isinstance(self.block, Section) else 0

    @property
    def text(self) -> str:
        """The heading of a section (plain), the plain text of a statement."""
        return self.block.heading if isinstance(self.block, Section) else self.block.text

    @property
    def is_section(self) -> bool:
        """True for Section nodes (headings)."""
        return self.label == Label.SECTION

    def _node(self) -> Node:
        return Node(self.id, Label(self.label), None, self.document, self.props)

    @property
    def field(self) -> Field | None:
        """The :class:`~domain.model.Field` a field statement is, else None."""
        return field_of(self._node())

    @property
    def row(self) -> TableRow | None:
        """The :class:`~domain.model.TableRow` a table header or row is, else None."""
        return table_row_of(self._node())

    @property
    def statuses(self) -> tuple[Status, ...]:
        """The statuses a statement states (GRAMMAR §4.4), in order; empty for a section."""
        return () if self.is_section else statuses_of(self._node())

    @property
    def annotation(self) -> Annotation | None:
        """The :class:`~domain.model.Annotation` an annotation heading is, else None."""
        return annotation_of(self._node())

    def cited_records(self) -> tuple[str, ...]:
        """Record IDs this block cites, first occurrence order, without repeats."""
        return tuple(dict.fromkeys(c.citation.target for c in self.citations if c.citation.target_kind == "record"))


@dataclass(frozen=True, slots=True)
class DocumentTree:
    """A document as stored: ``document`` (the Document node) and ``blocks`` sorted by ``order``;
    what renderers read of the document, decoded from the node by :mod:`graph.codec`: its domain
    ``member`` (:class:`~domain.model.Member`), the ``preamble`` and ``trailer`` text it keeps
    before its first block and after its last, and its parsed ``frontmatter`` (``{}`` when none)."""

    document: Node
    blocks: tuple[DocumentBlock, ...]
    _by_id: dict[str, DocumentBlock] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {b.id: b for b in self.blocks})

    @property
    def member(self) -> Member:
        """The domain :class:`~domain.model.Member` the document is."""
        return member_of(self.document)

    @property
    def preamble(self) -> str:
        """The text the member keeps before its first block (``""`` when none)."""
        return member_text(self.document)[0]

    @property
    def trailer(self) -> str:
        """The text the member keeps after its last block (``""`` when none)."""
        return member_text(self.document)[1]

    @property
    def frontmatter(self) -> Mapping[str, Any]:
        """The member's parsed front matter (``run-date``, …), ``{}`` when none."""
        return member_frontmatter(self.document)

    @property
    def id(self) -> str:
        """The document id, ``<set>/<role>``."""
        return self.document.id

    @property
    def set_id(self) -> str:
        """The analysis set the document belongs to."""
        return self.document.set_id or ""

    @property
    def title(self) -> str:
        """The member's title (its H1 or first line)."""
        return self.member.title or self.document.id

    @property
    def format(self) -> str:
        """``txt`` or ``md``: the format the member was ingested from."""
        return self.member.format or "txt"

    def block(self, block_id: str) -> DocumentBlock:
        """The block with node id ``block_id``.

        Raises
        ------
        KeyError
            No block of this document has that id.
        """
        return self._by_id[block_id]

    def headings(self, block_id: str) -> tuple[DocumentBlock, ...]:
        """Sections enclosing ``block_id``, outermost first (the block itself excluded).

        Raises
        ------
        KeyError
            No block of this document has that id.
        """
        index = self._by_id
        out: list[DocumentBlock] = []
        parent = index[block_id].parent
        while parent in index:
            out.append(index[parent])
            parent = index[parent].parent
        return tuple(reversed(out))

    def within(self, section_id: str) -> tuple[DocumentBlock, ...]:
        """Blocks nested (at any depth) in section ``section_id``, in document order."""
        return tuple(b for b in self.blocks if any(h.id == section_id for h in self.headings(b.id)))


def find_document(store: GraphStore, reference: str) -> Node:
    """The Document node named by ``reference``: a document id (``tolaria/synthesis``) or the path
    it was ingested from.

    Raises
    ------
    DocumentNotFound
        No stored document has that id or path.
    """
    found = store.get_nodes([reference]).get(reference)
    if found is not None and found.label == Label.DOCUMENT:
        return found
    by_path = store.find_nodes(Label.DOCUMENT, where={"path": reference})
    if by_path:
        return by_path[0]
    raise unknown_document(store, reference)


def document_tree(store: GraphStore, document_id: str) -> DocumentTree:
    """The stored tree of one document.

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    document_id : str
        ``<set>/<role>``, e.g. ``"tolaria/synthesis"``, or the path the member was ingested from.

    Returns
    -------
    DocumentTree
        The Document node and its blocks sorted by ``order``.

    Raises
    ------
    DocumentNotFound
        No such document.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> tree = document_tree(demo_store(), "demo/synthesis")
    >>> [(b.label, b.block.kind, b.block.order) for b in tree.blocks][:3]
    [('Section', 'section', 1), ('Statement', 'paragraph', 2), ('Statement', 'paragraph', 3)]
    """
    document = find_document(store, document_id)
    return _trees(store, [document], document_id=document.id)[0]


def document_trees(store: GraphStore, *, set_id: str | None = None,
                   document_ids: list[str] | None = None) -> tuple[DocumentTree, ...]:
    """Trees of every stored document (of one set, or the given ones), sorted by (set, role order, id).

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    set_id : str, optional
        Only the documents of this analysis set.
    document_ids : list of str, optional
        Only these documents (unknown ids are ignored).

    Returns
    -------
    tuple of DocumentTree
        Possibly empty.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.

    Notes
    -----
    Six store calls per set involved (documents, sections, statements, quotations, outgoing
    citations and quotations, containment), plus one to name the cited nodes.
    """
    if set_id is not None and not store.get_nodes([set_id]):
        raise unknown_set(store, set_id)
    if document_ids is not None:
        documents = [n for n in store.get_nodes(document_ids).values() if n.label == Label.DOCUMENT]
        if set_id is not None:
            documents = [d for d in documents if d.set_id == set_id]
    else:
        documents = store.find_nodes(Label.DOCUMENT, set_id=set_id)
    by_set: dict[str, list[Node]] = {}
    for d in documents:
        by_set.setdefault(d.set_id or "", []).append(d)
    trees: list[DocumentTree] = []
    for sid, docs in sorted(by_set.items()):
        only = docs[0].id if len(docs) == 1 else None
        trees.extend(_trees(store, docs, set_id=sid if only is None else None, document_id=only))
    return tuple(sorted(trees, key=_tree_key))


def _tree_key(tree: DocumentTree) -> tuple[Any, ...]:
    role = tree.member.role
    rank = ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER)
    return (tree.set_id, rank, tree.id)


def _trees(store: GraphStore, documents: list[Node], *, set_id: str | None = None,
           document_id: str | None = None) -> list[DocumentTree]:
    """Trees of ``documents``, all of one set: blocks fetched by ``document_id`` when given, else by
    ``set_id``."""
    wanted = {d.id for d in documents}
    scope = {"document_id": document_id} if document_id else {"set_id": set_id}
    sections = [n for n in store.find_nodes(Label.SECTION, **scope) if n.document_id in wanted]
    statements = [n for n in store.find_nodes(Label.STATEMENT, **scope) if n.document_id in wanted]
    quotations = {n.id: n for n in store.find_nodes(Label.QUOTATION, **scope)}
    ids = [n.id for n in sections + statements]
    outgoing = store.edges(ids, kinds=[EdgeKind.CITES, EdgeKind.QUOTES], direction=Direction.OUT)
    incoming = store.edges(ids, kinds=[EdgeKind.CONTAINS], direction=Direction.IN)
    cited = store.get_nodes({e.dst for es in outgoing.values() for e in es if e.kind == EdgeKind.CITES})
    blocks: dict[str, list[DocumentBlock]] = {d.id: [] for d in documents}
    for node in sections + statements:
        out = outgoing.get(node.id, [])
        cites = sorted((e for e in out if e.kind == EdgeKind.CITES), key=lambda e: (e.seq, e.dst))
        quoted = next((quotations[e.dst] for e in out if e.kind == EdgeKind.QUOTES and e.dst in quotations), None)
        parents = incoming.get(node.id, [])
        blocks[node.document_id or ""].append(DocumentBlock(
            section_of(node) if node.label == Label.SECTION else statement_of(node),
            document=node.document_id or "",
            parent=parents[0].src if parents else None,
            citations=tuple(_citation(e, cited.get(e.dst)) for e in cites),
            quotation=None if quoted is None else _quotation(quoted),
            props=dict(node.props),
        ))
    return [DocumentTree(d, tuple(sorted(blocks[d.id], key=lambda b: (b.block.order, b.block.line, b.id))))
            for d in documents]


def _quotation(node: Node) -> BlockQuotation:
    return BlockQuotation(node.id, quotation_of(node))


def _citation(edge: Edge, node: Node | None) -> BlockCitation:
    return BlockCitation(citation_of(edge, node), edge.dst)
