"""A record dossier: everything the ingested members say about one record.

Declaration and fields (or none), annotations, amendments and supersessions, parts and container,
the quotations, source files and sources behind its declaration and annotations, the Limitations
rows naming it, and everything that rests on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graph.codec import record_id_of, stated_by
from graph.model import Edge, EdgeKind, Node, RecordId
from graph.store import Direction, GraphStore
from queries.documents import BlockQuotation, DocumentBlock, DocumentTree, document_trees
from queries.read import Stored
from queries.subgraphs import RestsOnSubgraph, rests_on_subgraph
from queries.traversal import records_named

__all__ = ["Annotation", "RelatedRecord", "Quoted", "RecordDossier", "record_dossiers"]


@dataclass(frozen=True, slots=True)
class Annotation:
    """An annotation on the record: ``document`` id, the annotation ``section`` (None when a
    statement annotates without an annotation heading) and its ``body`` blocks in order."""

    document: str
    section: DocumentBlock | None
    body: tuple[DocumentBlock, ...]


@dataclass(frozen=True, slots=True)
class RelatedRecord:
    """Another record linked to this one: its ``record_id``, Record ``node`` id and the
    ``statement`` stating the link (None when the edge names none)."""

    record_id: str
    node: str
    statement: str | None = None


@dataclass(frozen=True, slots=True)
class Quoted:
    """A quotation behind the record: the ``statement`` id quoting it and the ``quotation``."""

    statement: str
    quotation: BlockQuotation


@dataclass(frozen=True, slots=True)
class RecordDossier:
    """Everything about one record of one analysis set.

    Attributes
    ----------
    record : Node
        The Record node (``record_id``, ``analyst``, ``kind``, ``slug``).
    declaration : DocumentBlock or None
        Its declaration section; None when it is cited but declared in no ingested member.
    declaration_document : str or None
        The document holding the declaration.
    fields : tuple of DocumentBlock
        Blocks inside the declaration section (fields, statuses, quotations), in order.
    annotations : tuple of Annotation
        Annotations on it, by (document, order).
    supersedes, superseded_by : tuple of RelatedRecord
        Records this one supersedes / is superseded by (``SUPERSEDED_BY`` edges).
    amendments : tuple of DocumentBlock
        ``amendment`` and ``conflict`` statements citing it.
    part_of, parts : tuple of RelatedRecord
        Its containers and its parts (``PART_OF`` edges).
    quotations : tuple of Quoted
        Quotations in its declaration and annotations, with the quoting statement id.
    source_files : tuple of str
        Paths cited or quoted by its declaration and annotations, then paths cited for the same
        text as the record (same citation span) by statements citing it; first occurrence order.
    sources : tuple of str
        ``SRC-n`` cited likewise.
    limitations : tuple of DocumentBlock
        Limitations table rows citing it.
    rests_on : RestsOnSubgraph
        Everything resting on it, in its set.
    documents : tuple of DocumentTree
        The documents the blocks above come from.
    """

    record: Node
    declaration: DocumentBlock | None
    declaration_document: str | None
    fields: tuple[DocumentBlock, ...]
    annotations: tuple[Annotation, ...]
    supersedes: tuple[RelatedRecord, ...]
    superseded_by: tuple[RelatedRecord, ...]
    amendments: tuple[DocumentBlock, ...]
    part_of: tuple[RelatedRecord, ...]
    parts: tuple[RelatedRecord, ...]
    quotations: tuple[Quoted, ...]
    source_files: tuple[str, ...]
    sources: tuple[str, ...]
    limitations: tuple[DocumentBlock, ...]
    rests_on: RestsOnSubgraph
    documents: tuple[DocumentTree, ...]

    @property
    def record_id(self) -> str:
        """The record ID as written."""
        return record_id_of(self.record) or self.record.id

    @property
    def set_id(self) -> str:
        """The analysis set of the record."""
        return self.record.set_id or ""

    @property
    def stored(self) -> Stored:
        """The record's node as the domain objects it holds (its domain record: ``stored.record``)."""
        return Stored(self.record)


def record_dossiers(store: GraphStore, record_id: RecordId | str, *, set_id: str | None = None,
                    max_depth: int | None = None) -> tuple[RecordDossier, ...]:
    """The dossier of ``record_id`` in each set holding it (or in ``set_id``), sorted by set.

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    record_id : str
        A record ID such as ``"RT-RTE-mcp-write"``.
    set_id : str, optional
        Only this analysis set.
    max_depth : int, optional
        Evidence-step limit of the rests-on part (1..16); unlimited when None.

    Returns
    -------
    tuple of RecordDossier
        One per matching Record node (IDs are set-scoped).

    Raises
    ------
    RecordNotFound, AnalysisSetNotFound, QueryLimitExceeded
        As :func:`queries.traversal.rests_on`.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> d, = record_dossiers(demo_store(), "RT-RTE-x")
    >>> d.declaration is None, len(d.rests_on.report.results)
    (True, 1)
    """
    records = records_named(store, str(record_id), set_id)
    ids = [r.id for r in records]
    out_edges = store.edges(ids, kinds=[EdgeKind.DECLARED_IN, EdgeKind.SUPERSEDED_BY, EdgeKind.PART_OF],
                            direction=Direction.OUT)
    in_edges = store.edges(ids, kinds=[EdgeKind.ANNOTATES, EdgeKind.SUPERSEDED_BY, EdgeKind.PART_OF,
                                       EdgeKind.CITES], direction=Direction.IN)
    others = {e.dst for es in out_edges.values() for e in es if e.kind != EdgeKind.DECLARED_IN}
    others |= {e.src for es in in_edges.values() for e in es if e.kind in (EdgeKind.SUPERSEDED_BY, EdgeKind.PART_OF)}
    related = store.get_nodes(others)
    documents = {e.document_id for es in [*out_edges.values(), *in_edges.values()] for e in es if e.document_id}
    documents |= {e.dst.partition("#")[0] for es in out_edges.values() for e in es if e.kind == EdgeKind.DECLARED_IN}
    trees = {t.id: t for t in document_trees(store, document_ids=sorted(documents))}
    blocks = {b.id: (t, b) for t in trees.values() for b in t.blocks}
    dossiers = []
    for record in records:
        dossiers.append(_dossier(store, record, out_edges[record.id], in_edges[record.id], related, trees, blocks,
                                 max_depth))
    return tuple(dossiers)


def _related(node_id: str, related: dict[str, Node], statement: str | None) -> RelatedRecord:
    node = related.get(node_id)
    return RelatedRecord(record_id_of(node) if node is not None else node_id.rpartition("/")[2], node_id, statement)


def _dossier(store: GraphStore, record: Node, out_edges: list[Edge], in_edges: list[Edge], related: dict[str, Node],
            trees: Mapping[str, DocumentTree], blocks: Mapping[str, tuple[DocumentTree, DocumentBlock]],
            max_depth: int | None) -> RecordDossier:
    declaration = declaration_document = None
    fields: tuple[DocumentBlock, ...] = ()
    for e in out_edges:
        if e.kind == EdgeKind.DECLARED_IN and e.dst in blocks:
            tree, declaration = blocks[e.dst]
            declaration_document, fields = tree.id, tree.within(e.dst)
            break
    annotations: list[Annotation] = []
    covered: set[str] = set()
    annotating = sorted((blocks[e.src] for e in in_edges if e.kind == EdgeKind.ANNOTATES and e.src in blocks),
                        key=lambda tb: (tb[0].id, tb[1].block.order))
    for tree, block in annotating:
        if block.is_section:
            body = tree.within(block.id)
            annotations.append(Annotation(tree.id, block, body))
            covered.update(b.id for b in body)
    for tree, block in annotating:
        if not block.is_section and block.id not in covered:
            annotations.append(Annotation(tree.id, None, (block,)))
    annotations.sort(key=lambda a: (a.document, (a.section or a.body[0]).block.order))

    supersedes = tuple(_related(e.src, related, stated_by(e)) for e in in_edges if e.kind == EdgeKind.SUPERSEDED_BY)
    superseded_by = tuple(_related(e.dst, related, stated_by(e)) for e in out_edges if e.kind == EdgeKind.SUPERSEDED_BY)
    part_of = tuple(_related(e.dst, related, stated_by(e)) for e in out_edges if e.kind == EdgeKind.PART_OF)
    parts = tuple(_related(e.src, related, stated_by(e)) for e in in_edges if e.kind == EdgeKind.PART_OF)
    citing = sorted({e.src for e in in_edges if e.kind == EdgeKind.CITES and e.src in blocks},
                    key=lambda i: (blocks[i][0].id, blocks[i][1].block.order))
    amendments = tuple(blocks[i][1] for i in citing if blocks[i][1].block.kind in ("amendment", "conflict"))
    limitations = tuple(
        block for i in citing
        if (block := blocks[i][1]).block.kind == "table_row" and (row := block.row) is not None
        and row.table == "limitations"
    )
    behind = [*fields, *(b for a in annotations for b in a.body)]
    quotations = tuple(Quoted(b.id, b.quotation) for b in behind if b.quotation is not None)
    files: dict[str, None] = {}
    sources: dict[str, None] = {}
    for b in behind:
        for c in (bc.citation for bc in b.citations):
            if c.target_kind == "file":
                files.setdefault(c.target)
            elif c.target_kind == "source":
                sources.setdefault(c.target)
        if b.quotation is not None and b.quotation.quotation.path:
            files.setdefault(b.quotation.quotation.path.rstrip("/"))
    for i in citing:
        cites = blocks[i][1].citations
        spans = {(c.citation.span_start, c.citation.span_end) for c in cites if c.node == record.id}
        for c in (bc.citation for bc in cites):
            if (c.span_start, c.span_end) in spans:
                if c.target_kind == "file":
                    files.setdefault(c.target)
                elif c.target_kind == "source":
                    sources.setdefault(c.target)
    rests = rests_on_subgraph(store, record_id_of(record), set_id=record.set_id, max_depth=max_depth)
    used = {declaration_document, *(a.document for a in annotations), *(b.document for b in amendments),
            *(b.document for b in limitations)}
    return RecordDossier(
        record=record, declaration=declaration, declaration_document=declaration_document, fields=fields,
        annotations=tuple(annotations), supersedes=supersedes, superseded_by=superseded_by,
        amendments=amendments, part_of=part_of, parts=parts, quotations=quotations,
        source_files=tuple(files), sources=tuple(sources), limitations=limitations, rests_on=rests,
        documents=tuple(t for t in sorted(trees.values(), key=lambda t: t.id) if t.id in used),
    )
