"""The GraphQL schema (strawberry), mounted at ``/graphql`` with GraphiQL on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import strawberry
from fastapi import Depends, Request
from graphql import GraphQLError
from starlette.concurrency import run_in_threadpool
from strawberry.extensions import MaskErrors, QueryDepthLimiter
from strawberry.fastapi import BaseContext, GraphQLRouter
from strawberry.types import Info

from app.errors import face_of
from app.graphql.impact import Impact
from app.settings import Settings
from graph.errors import CitegraphError, QueryLimitExceeded
from graph.model import Label, Node
from graph.store import GraphStore
from ingest.git import GitRepository
from queries.impact import impact_of
from queries.traversal import RestsOnReport, records_named, rests_on

__all__ = ["schema", "graphql_router", "Context"]


class Context(BaseContext):
    """Per-request context: the app's store and settings."""

    def __init__(self, store: GraphStore, settings: Settings):
        super().__init__()
        self.store = store
        self.settings = settings


async def _call(fn: Callable[..., Any], *args, **kwargs) -> Any:
    """Run a blocking query in a thread; a CitegraphError becomes a GraphQL error with its code."""
    try:
        return await run_in_threadpool(fn, *args, **kwargs)
    except CitegraphError as exc:
        raise GraphQLError(exc.message, extensions={"code": face_of(exc).code, "hint": exc.hint}) from exc


@strawberry.type(description="A statement resting on a record, with the path explaining it.")
class RestsOnResult:
    set: str
    document: str
    section: Optional[str]
    section_heading: Optional[str]
    statement: str
    kind: str
    text: str
    line: int
    direct: bool
    depth: int
    path: list[str]


@strawberry.type(description="Everything resting on one record ID.")
class RestsOn:
    record: str
    set: Optional[str]
    records: list[str]
    results: list[RestsOnResult]
    count: int

    @classmethod
    def from_domain(cls, report: RestsOnReport) -> "RestsOn":
        return cls(
            record=report.record, set=report.set, records=list(report.records), count=len(report.results),
            results=[RestsOnResult(set=r.set, document=r.document, section=r.section,
                                   section_heading=r.section_heading, statement=r.statement, kind=r.kind,
                                   text=r.text, line=r.line, direct=r.direct, depth=r.depth, path=list(r.path))
                     for r in report.results],
        )


@strawberry.type(description="An ingested analysis-set member.")
class Document:
    id: str
    set: str
    role: str
    title: str
    member_type: str
    format: str
    path: str
    sha256: str

    @classmethod
    def from_domain(cls, node: Node) -> "Document":
        p = node.props
        return cls(id=node.id, set=node.set_id or "", role=p["role"], title=p["title"], member_type=p["member_type"],
                   format=p["format"], path=p["path"], sha256=p["sha256"])


@strawberry.type(description="A record (RT/MEM/EPI, kind, slug), scoped to its analysis set.")
class Record:
    id: str = strawberry.field(description="Node id, <set>/<record ID>.")
    record_id: str
    set: str
    analyst: Optional[str]
    kind: str
    slug: str

    @strawberry.field(description="Statements resting on this record, in this record's set.")
    async def rests_on(self, info: Info[Context, None], direct: bool = False,
                       max_depth: Optional[int] = None) -> RestsOn:
        ctx = info.context
        report = await _call(rests_on, ctx.store, self.record_id, set_id=self.set, direct_only=direct,
                             max_depth=max_depth or ctx.settings.max_depth)
        return RestsOn.from_domain(report)

    @classmethod
    def from_domain(cls, node: Node) -> "Record":
        p = node.props
        return cls(id=node.id, record_id=p["record_id"], set=node.set_id or "", analyst=p.get("analyst"),
                   kind=p["kind"], slug=p["slug"])


@strawberry.type
class Query:
    @strawberry.field(description="Statements resting on a record ID (every set, or one).")
    async def rests_on(self, info: Info[Context, None], record: str, set: Optional[str] = None,
                       direct: bool = False, max_depth: Optional[int] = None) -> RestsOn:
        ctx = info.context
        report = await _call(rests_on, ctx.store, record, set_id=set, direct_only=direct,
                             max_depth=max_depth or ctx.settings.max_depth)
        return RestsOn.from_domain(report)

    @strawberry.field(description="One record by ID; give `set` when the ID occurs in several sets.")
    async def record(self, info: Info[Context, None], id: str, set: Optional[str] = None) -> Record:
        found = await _call(records_named, info.context.store, id, set)
        if len(found) > 1:
            raise GraphQLError(f"record {id} occurs in sets {', '.join(n.set_id or '' for n in found)}; pass set",
                               extensions={"code": face_of(QueryLimitExceeded("")).code})
        return Record.from_domain(found[0])

    @strawberry.field(description="A rendering as text: a `document` rebuilt from the graph, the statements resting "
                                  "on record `restsOn`, the dossier of `record`, or (`set` alone) a whole set with its "
                                  "record index; `format` md, txt or html.")
    async def render(self, info: Info[Context, None], document: Optional[str] = None, format: Optional[str] = None,
                     rests_on: Optional[str] = None, record: Optional[str] = None, set: Optional[str] = None,
                     max_depth: Optional[int] = None) -> str:
        from app.rendering import render_request

        ctx = info.context
        rendered = await _call(render_request, ctx.store, document=document, rests_on=rests_on, record=record,
                               set_id=set, fmt=format, max_depth=max_depth or ctx.settings.max_depth)
        return rendered.text

    @strawberry.field(description="Changed cited files, quotation drift and suspects between two revisions of a set's "
                                  "source; `repo` is a git clone on the server, `from` defaults to the pinned commit.")
    async def impact(self, info: Info[Context, None], repo: str, to: str, set: Optional[str] = None,
                     source: Optional[str] = None,
                     from_: Annotated[Optional[str], strawberry.argument(name="from")] = None) -> Impact:
        def run():
            return impact_of(info.context.store, GitRepository(Path(repo)), to_revision=to, from_revision=from_,
                             set_id=set, source_id=source)

        return Impact.from_domain(await _call(run))

    @strawberry.field(description="Ingested members, sorted by id.")
    async def documents(self, info: Info[Context, None], set: Optional[str] = None) -> list[Document]:
        nodes = await _call(info.context.store.find_nodes, Label.DOCUMENT, set_id=set)
        return [Document.from_domain(n) for n in nodes]


def _masked(error: GraphQLError) -> bool:
    """Mask everything that is not a deliberate GraphQL error or a CitegraphError."""
    original = error.original_error
    return original is not None and not isinstance(original, (CitegraphError, GraphQLError))


schema = strawberry.Schema(
    query=Query,
    extensions=[lambda: QueryDepthLimiter(max_depth=10), lambda: MaskErrors(should_mask_error=_masked)],
)


def _context(request: Request) -> Context:
    return Context(request.app.state.store, request.app.state.settings)


async def get_context(ctx: Context = Depends(_context)) -> Context:
    """FastAPI dependency building the GraphQL context, so REST and GraphQL share ``Depends``."""
    return ctx


def graphql_router() -> GraphQLRouter:
    """The ``/graphql`` router with GraphiQL."""
    return GraphQLRouter(schema, context_getter=get_context, graphql_ide="graphiql")
