"""GraphQL types of the graph's nodes: every label a Relay ``Node`` whose global id wraps the graph node
id, with fields generated from the node's domain class (:mod:`domain.model`; the object a
:class:`queries.read.Stored` holds, decoded once, when a field first asks for it) and relations, the
only fields written here, loaded through the request's DataLoaders. A status or field of a declaration is its
domain object with the statement stating it, a citation :class:`queries.read.NodeCitation`.

Lists of nodes are :class:`~app.graphql.pagination.Connection` pages, ordered by node id (records,
sets, sources, files) or document order (sections, statements, quotations, citations).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Optional, TypeVar, cast, overload
from collections.abc import Iterable

import strawberry
from strawberry import relay
from strawberry.scalars import JSON
from strawberry.types import Info

from app.graphql.context import Context, call
from app.graphql.pagination import Connection, connection_of
from app.graphql.shapes import domain_fields, object_type
from domain import model
from domain.wire import flat
from graph.errors import NodeNotFound
from graph.model import EdgeKind, Label
from graph.store import Direction
from queries.names import unknown_set
from queries.read import GraphRead, NodeCitation, Stored, citation_order, document_order, line_order

if TYPE_CHECKING:
    from app.graphql.result_types import CheckResult, Dossier, RestsOn
    from domain.model import Section as SectionFact, Statement as StatementFact

__all__ = [
    "GraphNode",
    "Block",
    "AnalysisSet",
    "Document",
    "Section",
    "Statement",
    "Quotation",
    "Record",
    "Source",
    "SourceFile",
    "NamedReference",
    "Citation",
    "Declaration",
    "Field",
    "Status",
    "Annotation",
    "wrap",
    "wrap_as",
    "list_nodes",
    "blocks_of",
    "document_named",
    "documents_of",
    "records_of",
]

_Results = "app.graphql.result_types"
Ctx = Info[Context, None]


class _decoded:
    """The domain object a GraphQL object's :class:`~queries.read.Stored` holds as ``attribute``
    (one of its decoded attributes, e.g. ``Stored.section``).

    With ``shows``, the domain class it is, the node type shows its fields
    (:func:`app.graphql.shapes.domain_fields`, given the other keywords; ``after`` names a field
    of the type's own to stand before them): the fields are declared once, on the domain class."""

    def __init__(self, attribute: Any, shows: type | None = None, *, after: str | None = None, **fields: Any):
        self.attribute, self.__doc__ = attribute.name, attribute.__doc__
        self.shows, self.after, self.fields = shows, after, fields

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.stored, self.attribute)


@strawberry.interface(description="A node of the citation graph. `id` is the Relay global id; `nodeId` the graph's own "
                                  "id, e.g. `tolaria/synthesis#L29`, as used by the REST API and the CLI.")
class GraphNode(relay.Node):
    graph_id: relay.NodeID[str]
    stored: strawberry.Private[Stored]

    @strawberry.field(description="Graph node id, e.g. `tolaria/RT-RTE-mcp-write`.")
    def node_id(self) -> str:
        return self.graph_id

    @strawberry.field(description="Node label: AnalysisSet, Document, Section, Statement, Quotation, Record, Source, "
                                  "SourceFile or NamedReference.")
    def label(self) -> str:
        return str(self.stored.label)

    @strawberry.field(name="set", description="Id of the analysis set holding the node.")
    def set_id(self) -> Optional[str]:
        return self.stored.set_id

    def cursor_key(self) -> tuple:
        """Sort key in connections: the node id."""
        return (self.graph_id,)

    def __init_subclass__(cls, **kwargs: Any):
        """Give a node type the fields of the domain objects it shows (:class:`_decoded`), in the
        order decoded, before its own relation fields (strawberry orders annotated fields first)."""
        super().__init_subclass__(**kwargs)
        annotations = dict(inspect.get_annotations(cls))
        for name, decoded in list(vars(cls).items()):
            if not isinstance(decoded, _decoded) or decoded.shows is None:
                continue
            if decoded.after is not None:
                annotations[decoded.after] = getattr(cls, decoded.after).base_resolver.type_annotation
            for field_name, (annotation, made) in domain_fields(decoded.shows, name, **decoded.fields).items():
                annotations[field_name] = annotation
                setattr(cls, field_name, made)
        cls.__annotations__ = annotations

    @classmethod
    async def resolve_nodes(cls, *, info: Ctx, node_ids: Iterable[str], required: bool = False) -> list:
        """Nodes of this type by graph node id, through the request's node loader."""
        ids = list(node_ids)
        found = await info.context.loaders.nodes.load_many(ids)
        out = []
        for node_id, node in zip(ids, found):
            obj = wrap(node)
            if obj is not None and not isinstance(obj, cls):
                obj = None
            if obj is None and required:
                raise NodeNotFound(f"no {cls.__name__} {node_id!r} in the store")
            out.append(obj)
        return out


def wrap(node: Stored | None) -> Optional[GraphNode]:
    """The GraphQL object of a stored node (None for None and for System and Review nodes)."""
    if node is None:
        return None
    cls = _TYPES.get(node.label)
    return cls(graph_id=node.id, stored=node) if cls is not None else None


_Wrapped = TypeVar("_Wrapped", bound=GraphNode)


@overload
def wrap_as(cls: type[_Wrapped], node: Stored) -> _Wrapped: ...


@overload
def wrap_as(cls: type[_Wrapped], node: Stored | None) -> _Wrapped | None: ...


def wrap_as(cls: type[_Wrapped], node: Stored | None) -> _Wrapped | None:
    """:func:`wrap` of a ``node`` the caller knows is a ``cls``: the id it was loaded by names one
    (a ``set_id``, a ``document_id``), or the edge or label it was found by."""
    return cast("_Wrapped | None", wrap(node))  # known from the caller's id or edge, as said above


def wrap_all(nodes: Iterable[Stored | None]) -> list:
    """:func:`wrap` of each node, dropping the ones without a GraphQL type."""
    return [obj for obj in map(wrap, nodes) if obj is not None]


async def _ensure_set(info: Ctx, set_id: str | None) -> None:
    if set_id is not None:
        node = await info.context.loaders.nodes.load(set_id)
        if node is None or node.label != Label.ANALYSIS_SET:
            raise await call(unknown_set, info.context.store, set_id)


async def list_nodes(info: Ctx, label: Label, set_id: str | None, *, check_set: bool = True) -> list[Stored]:
    """Nodes of ``label`` in ``set_id`` (every set for None), sorted by id.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given, ``check_set`` is true and the set is not in the store.
    """
    if check_set:
        await _ensure_set(info, set_id)
    return await info.context.loaders.labelled.load((label, set_id))


async def _one(info: Ctx, node_id: str, kinds, direction: Direction, label: Label | None = None):
    for _, node in await info.context.loaders.neighbours(node_id, kinds, direction):
        if label is None or node.label == label:
            return wrap(node)
    return None


async def _neighbours(info: Ctx, node_id: str, kinds, direction: Direction, label: Label) -> list[Stored]:
    found = await info.context.loaders.neighbours(node_id, kinds, direction)
    return [n for _, n in found if n.label == label]


async def _many(info: Ctx, node_id: str, kinds, direction: Direction, label: Label) -> list:
    return wrap_all(await _neighbours(info, node_id, kinds, direction, label))


async def _citations(info: Ctx, node_id: str, direction: Direction, form: str | None, *,
                     as_written: bool = False) -> list[NodeCitation]:
    edges = await info.context.loaders.edges(node_id, (EdgeKind.CITES,), direction)
    return GraphRead.citations(edges, form=form, as_written=as_written)


# -- sets and documents ----------------------------------------------------------------------------

async def documents_of(info: Ctx, set_id: str | None, role: str | None, member_type: str | None,
                       text: str | None, *, check_set: bool = True) -> list[Document]:
    """Documents of a set (or all), filtered, by id."""
    nodes = await list_nodes(info, Label.DOCUMENT, set_id, check_set=check_set)
    return wrap_all(GraphRead.documents(nodes, role=role, member_type=member_type, text=text))


async def records_of(info: Ctx, set_id: str | None, analyst: str | None, kind: str | None, text: str | None,
                     declared: bool | None, *, check_set: bool = True) -> list[Record]:
    """Records of a set (or all), filtered, by id; ``text`` matches the record ID or its declared
    label (:meth:`queries.read.GraphRead.records_matching`)."""
    nodes = GraphRead.records(await list_nodes(info, Label.RECORD, set_id, check_set=check_set),
                              analyst=analyst, kind=kind)
    if text is not None:
        ids = await call(info.context.loaders.read.records_matching, set_id=set_id, analyst=analyst, kind=kind,
                         text=text)
        nodes = [n for n in nodes if n.id in ids]
    if declared is not None:
        decls = await info.context.loaders.out_edges.load_many(
            [(n.id, frozenset({EdgeKind.DECLARED_IN})) for n in nodes])
        nodes = [n for n, d in zip(nodes, decls) if bool(d) == declared]
    return wrap_all(nodes)


async def document_named(info: Ctx, document_id: str) -> Stored:
    """The Document ``document_id``: its id or the path it was ingested from
    (:meth:`queries.read.GraphRead.document`).

    Raises
    ------
    DocumentNotFound
        No such document.
    """
    return await call(info.context.loaders.read.document, document_id)


async def blocks_of(info: Ctx, label: Label, *, set_id: str | None = None, document: Stored | None = None,
                    role: str | None = None, kind: str | None = None, text: str | None = None,
                    check_set: bool = True) -> list:
    """Sections or statements of a set, of a ``document`` (or all), filtered, in document order;
    ``text`` matches a section's heading or a statement's text."""
    if document is not None:
        if set_id is not None and set_id != document.set_id:
            return []
        nodes = await list_nodes(info, label, document.set_id, check_set=False)
    else:
        nodes = await list_nodes(info, label, set_id, check_set=check_set)
    return wrap_all(GraphRead.blocks(nodes, label, document=document, role=role, kind=kind, text=text))


@strawberry.type(description="An analysis set: the members of one analysis run (or of one system's analyses).")
class AnalysisSet(GraphNode):
    analysis_set = _decoded(Stored.analysis_set, model.AnalysisSet, shown=("run_id", "reviewed_boundary"), after="system")

    @strawberry.field(description="The analysed system's name.")
    async def system(self, info: Ctx) -> Optional[str]:
        system = self.analysis_set.system or None
        node = await info.context.loaders.node(system)
        return node.system_name if node is not None else system

    @relay.connection(Connection["Document"], description="Members, by id; `role` e.g. `synthesis`, `text` matches "
                                                          "title, role or path.")
    async def documents(self, info: Ctx, role: Optional[str] = None, member_type: Optional[str] = None,
                        text: Optional[str] = None) -> Iterable[Document]:
        return await documents_of(info, self.graph_id, role, member_type, text, check_set=False)

    @relay.connection(Connection["Record"], description="Records cited or declared in the set, by id; `analyst` RT, "
                                                        "MEM or EPI; `text` matches the record ID or label.")
    async def records(self, info: Ctx, analyst: Optional[str] = None, kind: Optional[str] = None,
                      text: Optional[str] = None, declared: Optional[bool] = None) -> Iterable[Record]:
        return await records_of(info, self.graph_id, analyst, kind, text, declared, check_set=False)

    @relay.connection(Connection["Statement"], description="Statements of the set's members, in document order.")
    async def statements(self, info: Ctx, role: Optional[str] = None, kind: Optional[str] = None,
                         text: Optional[str] = None) -> Iterable[Statement]:
        return await blocks_of(info, Label.STATEMENT, set_id=self.graph_id, role=role, kind=kind, text=text,
                               check_set=False)

    @relay.connection(Connection["Source"], description="Sources (`SRC-n`), by id.")
    async def sources(self, info: Ctx) -> Iterable[Source]:
        return wrap_all(await list_nodes(info, Label.SOURCE, self.graph_id, check_set=False))

    @relay.connection(Connection["SourceFile"], description="Source files cited or quoted, by id.")
    async def source_files(self, info: Ctx, text: Optional[str] = None) -> Iterable[SourceFile]:
        return wrap_all(GraphRead.source_files(await list_nodes(info, Label.SOURCE_FILE, self.graph_id, check_set=False),
                                               text=text))

    @relay.connection(Connection["Quotation"], description="Quotations, in document order.")
    async def quotations(self, info: Ctx, text: Optional[str] = None) -> Iterable[Quotation]:
        nodes = await list_nodes(info, Label.QUOTATION, self.graph_id, check_set=False)
        return wrap_all(GraphRead.quotations(nodes, text=text))

    @strawberry.field(description="Validation findings of this set (`citegraph check --set`).")
    async def check(self, info: Ctx) -> Annotated[CheckResult, strawberry.lazy(_Results)]:
        from app.graphql.result_types import run_check

        return await run_check(info, self.graph_id)

    @strawberry.field(description="The whole set with its record index, as text: `format` md (default), txt or html.")
    async def render(self, info: Ctx, format: Optional[str] = None) -> str:
        from app.rendering import render_request

        return (await call(render_request, info.context.store, set_id=self.graph_id, fmt=format)).text


@strawberry.type(description="An ingested analysis-set member.")
class Document(GraphNode):
    member = _decoded(Stored.member, model.Member, shown=("role", "title", "member_type", "format", "path", "sha256", "size"),
                      nullable=("size",), descriptions={
                          "format": "`txt` or `md`: the format the member was ingested from.",
                          "path": "Path the member was ingested from.", "sha256": "SHA-256 of the original bytes.",
                          "size": "Size of the original in bytes."})

    @strawberry.field(description="YAML frontmatter of a Markdown member (an object; empty for plain text).")
    def frontmatter(self) -> JSON:
        return JSON(dict(self.stored.frontmatter))

    @strawberry.field
    async def analysis_set(self, info: Ctx) -> Optional[AnalysisSet]:
        return wrap_as(AnalysisSet, await info.context.loaders.node(self.stored.set_id))

    @relay.connection(Connection["Section"], description="Every section (heading) of the member, in document order.")
    async def sections(self, info: Ctx, kind: Optional[str] = None, text: Optional[str] = None) -> Iterable[Section]:
        return await blocks_of(info, Label.SECTION, document=self.stored, kind=kind, text=text)

    @relay.connection(Connection["Statement"], description="Every statement of the member, in document order; `kind` "
                                                           "e.g. `paragraph`, `table_row`, `field`; `text` a substring.")
    async def statements(self, info: Ctx, kind: Optional[str] = None, text: Optional[str] = None) -> Iterable[Statement]:
        return await blocks_of(info, Label.STATEMENT, document=self.stored, kind=kind, text=text)

    @relay.connection(Connection["Quotation"], description="Quotations in the member, in document order.")
    async def quotations(self, info: Ctx) -> Iterable[Quotation]:
        nodes = await list_nodes(info, Label.QUOTATION, self.stored.set_id, check_set=False)
        return wrap_all(GraphRead.quotations(nodes, document_id=self.graph_id))

    @strawberry.field(description="The member rendered from the graph: in its own format (default) the exact original "
                                  "text; `format` md, txt or html.")
    async def render(self, info: Ctx, format: Optional[str] = None) -> str:
        from app.rendering import render_request

        return (await call(render_request, info.context.store, document=self.graph_id, fmt=format)).text


@strawberry.interface(description="A section or statement: one block of a document.")
class Block(GraphNode):
    # order, line and markup read ``block``: the domain Section or Statement each type decodes
    if TYPE_CHECKING:
        block: SectionFact | StatementFact

    @strawberry.field(description="Block index in the document (1-based).")
    def order(self) -> int:
        return self.block.order

    @strawberry.field(description="First line of the block in the member.")
    def line(self) -> int:
        return self.block.line

    @strawberry.field(description="Exact source of the block.")
    def markup(self) -> str:
        return self.block.markup

    @strawberry.field(description="Id of the document holding the block.")
    def document_id(self) -> str:
        return self.stored.document_id or ""

    @strawberry.field
    async def document(self, info: Ctx) -> Optional[Document]:
        return wrap_as(Document, await info.context.loaders.node(self.stored.document_id))

    @strawberry.field(description="The innermost section containing the block (null at document level).")
    async def parent(self, info: Ctx) -> Optional[Section]:
        return await _one(info, self.stored.id, EdgeKind.CONTAINS, Direction.IN, Label.SECTION)

    def cursor_key(self) -> tuple:
        return document_order(self.stored)


@strawberry.type(description="A section: a heading and the blocks under it.")
class Section(Block):
    block = _decoded(Stored.section, model.Section, shown=("heading", "level", "kind"), descriptions={
        "level": "Heading level, 2–6.", "kind": "`section`, `kinds`, `declaration`, `annotation` or `subsection`."})
    declaration = _decoded(Stored.declaration)
    annotation = _decoded(Stored.annotation)

    @strawberry.field(description="Record ID a declaration heading declares (or an annotation heading annotates).")
    def record_id(self) -> Optional[str]:
        if self.declaration is not None:
            return self.declaration.record_id or None
        return (self.annotation.annotates or None) if self.annotation is not None else None

    @relay.connection(Connection["Section"], description="Subsections directly under this one, in document order.")
    async def sections(self, info: Ctx) -> Iterable[Section]:
        found = await _many(info, self.graph_id, EdgeKind.CONTAINS, Direction.OUT, Label.SECTION)
        return sorted(found, key=lambda s: s.cursor_key())

    @relay.connection(Connection["Statement"], description="Statements directly under this section, in document order.")
    async def statements(self, info: Ctx, kind: Optional[str] = None, text: Optional[str] = None) -> Iterable[Statement]:
        found = await _neighbours(info, self.graph_id, EdgeKind.CONTAINS, Direction.OUT, Label.STATEMENT)
        return wrap_all(GraphRead.blocks(found, Label.STATEMENT, kind=kind, text=text))

    @strawberry.field(description="The record this declaration heading declares.")
    async def declares(self, info: Ctx) -> Optional[Record]:
        return await _one(info, self.graph_id, EdgeKind.DECLARED_IN, Direction.IN, Label.RECORD)

    @strawberry.field(description="The record this annotation heading annotates.")
    async def annotates(self, info: Ctx) -> Optional[Record]:
        return await _one(info, self.graph_id, EdgeKind.ANNOTATES, Direction.OUT, Label.RECORD)


def _statuses(statement: Statement) -> list[Status]:
    return [StatedStatus(s, statement) for s in statement.stored.statuses]


@strawberry.type(description="A paragraph, table row, field, quotation … of a member.")
class Statement(Block):
    block = _decoded(Stored.statement, model.Statement, shown=("kind", "text"), descriptions={
        "kind": "`paragraph`, `table_header`, `table_row`, `quotation`, `annotation_body`, `field`, `empty_marker`, "
                "`amendment`, `conflict`, `list_item`, `code`, `html` or `rule`.",
        "text": "Plain text."})
    field = _decoded(Stored.field, model.Field, shown=("label", "value", "form"), absent=True, names={"label": "field_label"},
                     descriptions={"label": "Field label (fields).", "value": "Field value (fields).",
                                   "form": "Field form: `bullet`, `bold` or `line`."})
    row = _decoded(Stored.row, model.TableRow, shown=("table", "cells"), absent=True,
                   descriptions={"table": "Table role of a row, e.g. `limitations`.", "cells": "Cells of a table row."})

    @strawberry.field(description="Statuses this statement states.")
    def statuses(self) -> list[Status]:
        return _statuses(self)

    @relay.connection(connection_of("Citation"), description="Citations in this statement, in the order written; "
                                                             "`form` citation, mention, quotation, link, range or "
                                                             "frontmatter.")
    async def citations(self, info: Ctx, form: Optional[str] = None) -> Iterable[Citation]:
        return await _citations(info, self.graph_id, Direction.OUT, form, as_written=True)

    @strawberry.field(description="The quotation this statement quotes.")
    async def quotation(self, info: Ctx) -> Optional[Quotation]:
        return await _one(info, self.graph_id, EdgeKind.QUOTES, Direction.OUT, Label.QUOTATION)

    @strawberry.field(description="The record this annotation body annotates.")
    async def annotates(self, info: Ctx) -> Optional[Record]:
        return await _one(info, self.graph_id, EdgeKind.ANNOTATES, Direction.OUT, Label.RECORD)


@dataclass(frozen=True, slots=True)
class StatedStatus:
    """A :class:`domain.model.Status` with the ``statement`` stating it (GraphQL's ``Status``)."""

    status: model.Status = field(metadata=flat("label", "value", "statement", "qualifier"))
    statement: Statement


Status = object_type(
    StatedStatus, name="Status", nullable=("statement",), descriptions={"statement": "The statement stating it."},
    description="A status a record states: `label` (e.g. `Conclusion status`), `value` (the leading vocabulary term) "
                "and `qualifier` (what follows it, e.g. `on target emission`).")


@strawberry.type(description="A quoted passage of a source file.")
class Quotation(GraphNode):
    quotation = _decoded(Stored.quotation, model.Quotation, nullable=("path",), descriptions={
        "path": "Attributed path.", "lines": "Attributed lines, e.g. `270-275`."})

    @strawberry.field
    def line(self) -> Optional[int]:
        return self.stored.line

    @strawberry.field
    async def document(self, info: Ctx) -> Optional[Document]:
        return wrap_as(Document, await info.context.loaders.node(self.stored.document_id))

    @strawberry.field(description="The statement quoting it.")
    async def statement(self, info: Ctx) -> Optional[Statement]:
        return await _one(info, self.graph_id, EdgeKind.QUOTES, Direction.IN, Label.STATEMENT)

    @strawberry.field(description="The source file it is attributed to.")
    async def source_file(self, info: Ctx) -> Optional[SourceFile]:
        return await _one(info, self.graph_id, EdgeKind.ATTRIBUTED_TO, Direction.OUT, Label.SOURCE_FILE)

    def cursor_key(self) -> tuple:
        return line_order(self.graph_id)


# -- records ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StatedField:
    """A :class:`domain.model.Field` with the ``statement`` it is (GraphQL's ``Field``)."""

    fact: model.Field = field(metadata=flat("label", "value", "form"))
    statement: Statement


Field = object_type(StatedField, name="Field", nullable=("label", "value"),
                    description="A field of a declaration: `label`, `value` and `form` (bullet, bold or line).")


def _field(statement: Statement) -> Field:
    return StatedField(statement.field, statement)  # a statement of kind field (GraphRead.fields) states one


@strawberry.type(description="Where and how a record is declared.")
class Declaration:
    section: Section = strawberry.field(description="The declaration heading.")
    fields: list[Field] = strawberry.field(description="Field statements under it, in order.")
    statuses: list[Status] = strawberry.field(description="Statuses stated under it, in order.")

    @strawberry.field(description="Label of the declaration heading (the text after the record ID).")
    def label(self) -> Optional[str]:
        return self.section.declaration.label if self.section.declaration is not None else None

    @strawberry.field
    async def document(self, info: Ctx) -> Optional[Document]:
        return wrap_as(Document, await info.context.loaders.node(self.section.stored.document_id))


@strawberry.type(description="An annotation on a record: an annotation heading with its body, or one annotating "
                             "statement.")
class Annotation:
    anchor: strawberry.Private[Stored]
    body: list[Statement] = strawberry.field(description="Statements of the annotation, in order.")

    @strawberry.field(description="The annotation heading (null when a statement annotates without one).")
    def section(self) -> Optional[Section]:
        return wrap_as(Section, self.anchor) if self.anchor.label == Label.SECTION else None

    @strawberry.field
    async def document(self, info: Ctx) -> Optional[Document]:
        return wrap_as(Document, await info.context.loaders.node(self.anchor.document_id))

    def cursor_key(self) -> tuple:
        return document_order(self.anchor)


async def _citing(self: NodeCitation, info: Ctx) -> Optional[GraphNode]:
    return wrap(await info.context.loaders.node(self.citing_id))


async def _citing_statement(self: NodeCitation, info: Ctx) -> Optional[Statement]:
    node = await info.context.loaders.node(self.citing_id)
    return wrap_as(Statement, node) if node is not None and node.label == Label.STATEMENT else None


async def _cited(self: NodeCitation, info: Ctx) -> Optional[GraphNode]:
    return wrap(await info.context.loaders.node(self.target_id))


async def _supported_text(self: NodeCitation, info: Ctx) -> Optional[str]:
    node = await info.context.loaders.node(self.citing_id)
    if node is None:
        return None
    text = node.statement.text if node.label == Label.STATEMENT else ""  # a heading or document: no text
    c = self.citation
    return text[c.span_start:c.span_end] if c.span_end > c.span_start else None


Citation = object_type(
    NodeCitation, name="Citation", key=citation_order, hidden=("seq",),
    description="One citation: a statement (or heading) citing a record, source, file, named reference, section or "
                "document.",
    descriptions={"form": "`citation`, `mention`, `quotation`, `link` or `frontmatter`.",
                  "token": "The token as written, e.g. `RT-RTE-mcp-write`.",
                  "target_kind": "`record`, `source`, `file` or `named`.",
                  "start": "Character offset of the token in the citing text.", "end": "End offset of the token.",
                  "span_start": "Start offset of the text the citation supports.",
                  "span_end": "End offset of the text the citation supports.",
                  "citing_id": "Id of the citing node.", "target_id": "Id of the cited node."},
    added={"citing": strawberry.field(resolver=_citing, description="The citing statement or section."),
           "statement": strawberry.field(resolver=_citing_statement,
                                         description="The citing statement (null when a heading cites)."),
           "target": strawberry.field(resolver=_cited, description="The cited node."),
           "supported_text": strawberry.field(resolver=_supported_text,
                                              description="The part of the citing text this citation supports.")})


@strawberry.type(description="A record (RT/MEM/EPI, kind, slug), scoped to its analysis set.")
class Record(GraphNode):
    record = _decoded(Stored.record, model.Record, descriptions={
        "record_id": "The record ID as written, e.g. `RT-RTE-mcp-write`.",
        "analyst": "RT, MEM, EPI, or null for unprefixed IDs.", "kind": "Record kind, e.g. `RTE`, `OBJ`, `CMP`."})

    @strawberry.field
    async def analysis_set(self, info: Ctx) -> Optional[AnalysisSet]:
        return wrap_as(AnalysisSet, await info.context.loaders.node(self.stored.set_id))

    @strawberry.field(description="Its declaration: heading, fields and statuses (null when no member declares it).")
    async def declaration(self, info: Ctx) -> Optional[Declaration]:
        section = await _one(info, self.graph_id, EdgeKind.DECLARED_IN, Direction.OUT, Label.SECTION)
        if section is None:
            return None
        tree = await info.context.loaders.trees.load(section.stored.document_id)
        body = GraphRead.record_body(tree, section.graph_id) if tree is not None else []
        fields = [_field(wrap_as(Statement, n)) for n in GraphRead.fields(body)]
        statuses = [status for statement in wrap_all(body) for status in _statuses(statement)]
        return Declaration(section=section, fields=fields, statuses=statuses)

    @relay.connection(connection_of("Annotation"), description="Annotations on it, in document order.")
    async def annotations(self, info: Ctx) -> Iterable[Annotation]:
        found = await info.context.loaders.neighbours(self.graph_id, EdgeKind.ANNOTATES, Direction.IN)
        anchors = [n for _, n in found]
        trees = await info.context.loaders.trees.load_many(list(dict.fromkeys(n.document_id for n in anchors if n.document_id is not None)))
        return [Annotation(anchor=anchor, body=wrap_all(body)) for anchor, body in GraphRead.annotations(anchors, trees)]

    @relay.connection(Connection["Record"], description="Records this one supersedes, by id.")
    async def supersedes(self, info: Ctx) -> Iterable[Record]:
        return sorted(await _many(info, self.graph_id, EdgeKind.SUPERSEDED_BY, Direction.IN, Label.RECORD),
                      key=lambda r: r.cursor_key())

    @relay.connection(Connection["Record"], description="Records superseding this one, by id.")
    async def superseded_by(self, info: Ctx) -> Iterable[Record]:
        return sorted(await _many(info, self.graph_id, EdgeKind.SUPERSEDED_BY, Direction.OUT, Label.RECORD),
                      key=lambda r: r.cursor_key())

    @strawberry.field(description="The record this one is part of (`Part of:`).")
    async def container(self, info: Ctx) -> Optional[Record]:
        return await _one(info, self.graph_id, EdgeKind.PART_OF, Direction.OUT, Label.RECORD)

    @relay.connection(Connection["Record"], description="Records that are part of this one, by id.")
    async def parts(self, info: Ctx) -> Iterable[Record]:
        return sorted(await _many(info, self.graph_id, EdgeKind.PART_OF, Direction.IN, Label.RECORD),
                      key=lambda r: r.cursor_key())

    @relay.connection(connection_of("Citation"), description="Statements citing it, in document order; `form` "
                                                             "citation, mention, quotation, link or frontmatter.")
    async def cited_by(self, info: Ctx, form: Optional[str] = None) -> Iterable[Citation]:
        return await _citations(info, self.graph_id, Direction.IN, form)

    @strawberry.field(description="Statements resting on this record, in this record's set.")
    async def rests_on(self, info: Ctx, direct: bool = False,
                       max_depth: Optional[int] = None) -> Annotated[RestsOn, strawberry.lazy(_Results)]:
        from app.graphql.result_types import run_rests_on

        return await run_rests_on(info, self.record.record_id, set_id=self.stored.set_id, direct=direct,
                                  max_depth=max_depth)

    @strawberry.field(description="Everything the members say about this record (`citegraph render --record`), "
                                  "structured.")
    async def dossier(self, info: Ctx, max_depth: Optional[int] = None) -> Annotated[Dossier, strawberry.lazy(_Results)]:
        from app.graphql.result_types import run_dossier

        return await run_dossier(info, self.record.record_id, set_id=self.stored.set_id, max_depth=max_depth)


# -- sources ---------------------------------------------------------------------------------------

@strawberry.type(description="A source (`SRC-n`): a repository or document at a revision.")
class Source(GraphNode):
    source = _decoded(Stored.source, model.Source, shown=("source_id", "kind", "url", "commit", "cutoff", "evidence_layers"),
                      descriptions={"source_id": "`SRC-n`.", "commit": "The revision the set's citations refer to."})

    @strawberry.field(description="True when a Source register row declares it.")
    def declared(self) -> Optional[bool]:
        return True if self.source.declared else None  # null, not false, for a source only cited

    @relay.connection(Connection["SourceFile"], description="Its cited files, by id.")
    async def files(self, info: Ctx) -> Iterable[SourceFile]:
        return sorted(await _many(info, self.graph_id, EdgeKind.IN_SOURCE, Direction.IN, Label.SOURCE_FILE),
                      key=lambda f: f.cursor_key())

    @relay.connection(connection_of("Citation"), description="Statements citing it, in document order.")
    async def cited_by(self, info: Ctx, form: Optional[str] = None) -> Iterable[Citation]:
        return await _citations(info, self.graph_id, Direction.IN, form)

    @strawberry.field(description="Statements resting on this source (through its files too), in this source's set.")
    async def rests_on(self, info: Ctx, direct: bool = False,
                       max_depth: Optional[int] = None) -> Annotated[RestsOn, strawberry.lazy(_Results)]:
        from app.graphql.result_types import run_rests_on

        return await run_rests_on(info, self.source.source_id, set_id=self.stored.set_id, direct=direct,
                                  max_depth=max_depth, kind="source")


@strawberry.type(description="A file of the analysed source, cited or quoted.")
class SourceFile(GraphNode):
    source_file = _decoded(Stored.source_file, model.SourceFile, shown=("path",),
                           descriptions={"path": "Commit-relative path."})

    @strawberry.field
    async def source(self, info: Ctx) -> Optional[Source]:
        return await _one(info, self.graph_id, EdgeKind.IN_SOURCE, Direction.OUT, Label.SOURCE)

    @relay.connection(connection_of("Citation"), description="Statements citing it, in document order.")
    async def cited_by(self, info: Ctx, form: Optional[str] = None) -> Iterable[Citation]:
        return await _citations(info, self.graph_id, Direction.IN, form)

    @relay.connection(Connection["Quotation"], description="Quotations attributed to it, in document order.")
    async def quotations(self, info: Ctx) -> Iterable[Quotation]:
        found = await _many(info, self.graph_id, EdgeKind.ATTRIBUTED_TO, Direction.IN, Label.QUOTATION)
        return sorted(found, key=lambda q: q.cursor_key())

    @strawberry.field(description="Statements resting on this file (what impact analysis flags when it changes), in "
                                  "this file's set.")
    async def rests_on(self, info: Ctx, direct: bool = False,
                       max_depth: Optional[int] = None) -> Annotated[RestsOn, strawberry.lazy(_Results)]:
        from app.graphql.result_types import run_rests_on

        return await run_rests_on(info, self.source_file.path, set_id=self.stored.set_id, direct=direct,
                                  max_depth=max_depth, kind="source_file")


@strawberry.type(description="A named reference such as “workflow account”, resolved to a section or document.")
class NamedReference(GraphNode):
    reference = _decoded(Stored.reference, model.NamedReference,
                         descriptions={"name": "The name as first written."})

    @strawberry.field(description="The section or document it names (null when unresolved).")
    async def resolves_to(self, info: Ctx) -> Optional[GraphNode]:
        return await _one(info, self.graph_id, EdgeKind.RESOLVES_TO, Direction.OUT)

    @relay.connection(connection_of("Citation"), description="Statements citing it, in document order.")
    async def cited_by(self, info: Ctx) -> Iterable[Citation]:
        return await _citations(info, self.graph_id, Direction.IN, None)


_TYPES: dict[Label, type[GraphNode]] = {
    Label.ANALYSIS_SET: AnalysisSet, Label.DOCUMENT: Document, Label.SECTION: Section, Label.STATEMENT: Statement,
    Label.QUOTATION: Quotation, Label.RECORD: Record, Label.SOURCE: Source, Label.SOURCE_FILE: SourceFile,
    Label.NAMED_REFERENCE: NamedReference,
}
"""GraphQL type of each label; System and Review nodes have none."""

NODE_TYPES: tuple[type[GraphNode], ...] = tuple(_TYPES.values())
"""Every concrete node type, for ``strawberry.Schema(types=...)``."""
