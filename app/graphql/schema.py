"""The GraphQL schema (strawberry), mounted at ``/graphql`` with GraphiQL on.

Outline (every list of nodes is a Relay connection: ``first`` default 50, at most 200):

- ``node(id:)``, ``nodes(ids:)`` (Relay global ids), ``graphNode(nodeId:)`` (graph node ids)
- ``sets``, ``set(id:)``, ``documents``, ``document(id:)``, ``records``, ``record(id:, set:)``,
  ``sections``, ``statements``, ``sources``, ``sourceFiles``, ``quotations`` with filters
- ``restsOn``, ``search``, ``render``, ``impact``, ``check``: the queries of the CLI and REST faces
- ``versions``, ``diff``, ``runs``, ``compare``: history of a set and runs of a system;
  every read field above takes ``version:`` (:mod:`app.graphql.history`)

Types: :mod:`app.graphql.types` (nodes), :mod:`app.graphql.result_types` (query results),
:mod:`app.graphql.impact`, :mod:`app.graphql.search`; the types of query results are built from
the ``queries/`` dataclasses by :mod:`app.graphql.shapes`. Limits and error codes:
:mod:`app.graphql.limits`. Context and DataLoaders: :mod:`app.graphql.context`, batched through
:class:`queries.read.GraphRead`.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
import time
import weakref

from typing import Annotated, Any, Optional, TypeVar
from collections.abc import Awaitable, Callable, Iterable

from graphql import GraphQLError, OperationType, get_operation_ast

import strawberry
from strawberry import relay
from strawberry.fastapi import GraphQLRouter
from strawberry.schema.config import StrawberryConfig
from strawberry.types import ExecutionResult, Info
from strawberry.types.base import get_object_definition
from starlette.concurrency import run_in_threadpool

from app.graphql.context import CALLS, CONCURRENT_CALLS, DEADLINE, Context, call, get_context
from app.graphql.history import (Run, RunComparison, SetDiff, SetVersion, VersionArg, VersionPins, resolve_compare,
                                 resolve_diff, resolve_runs, resolve_versions)
from app.graphql.ide import GraphiQLRouter
from app.graphql.impact import Impact, ImpactRun, OpenSuspects, RepositoryImpact
from app.graphql.mutations import Mutation
from app.graphql.limits import (LIMIT_EXCEEDED, GraphQLLimits, ValidDocuments, limit_extensions, parsed,
                                refused_before_parsing)
from app.graphql.pagination import Connection, connection_of
from app.errors import face_of
from app.logs import log_client_error
from app.graphql.result_types import CheckResult, RestsOn, run_check, run_rests_on
from app.graphql.search import SearchResult
from app.graphql.types import (
    NODE_TYPES,
    AnalysisSet,
    Document,
    GraphNode,
    Quotation,
    Record,
    Section,
    Source,
    SourceFile,
    Statement,
    blocks_of,
    document_named,
    documents_of,
    list_nodes,
    records_of,
    wrap,
    wrap_all,
    wrap_as,
)
from app.wiring import allowed_repository, repository_names
from graph.errors import AmbiguousScope, CitegraphError, InvalidQuery, QueryLimitExceeded
from graph.model import Label
from graph.store import SNAPSHOT_ATTEMPTS, SnapshotMoved, SupportsSnapshot
from ingest.git import GitRepository
from queries.read import GraphRead
from queries.names import unknown_set
from queries.impact import impact_of, impact_on_repository

__all__ = ["CitegraphSchema", "build_schema", "schema", "graphql_router", "Context", "get_context"]

Ctx = Info[Context, None]
_BY_TYPENAME = {get_object_definition(cls, strict=True).name: cls for cls in NODE_TYPES}


async def _by_global_id(info: Ctx, global_id: str) -> Optional[GraphNode]:
    try:
        parsed = relay.GlobalID.from_id(global_id)
    except ValueError:
        raise CitegraphError(f"malformed id {global_id!r}", hint="pass an `id` this API returned") from None
    cls = _BY_TYPENAME.get(parsed.type_name)
    obj = wrap(await info.context.loaders.node(parsed.node_id)) if cls is not None else None
    return obj if cls is not None and isinstance(obj, cls) else None


@strawberry.type
class Query:
    @strawberry.field(description="The object with this Relay global id (null when there is none).")
    async def node(self, info: Ctx, id: strawberry.ID) -> Optional[relay.Node]:
        return await _by_global_id(info, id)

    @strawberry.field(description="The objects with these Relay global ids, in order (null where there is none; "
                                  "at most 200 ids).")
    async def nodes(self, info: Ctx, ids: list[strawberry.ID]) -> list[Optional[relay.Node]]:
        limit = info.schema.limits.max_node_ids  # type: ignore[attr-defined]
        if len(ids) > limit:
            raise QueryLimitExceeded(f"nodes(ids:) takes at most {limit} ids, not {len(ids)}")
        return list(await asyncio.gather(*(_by_global_id(info, i) for i in ids)))

    @strawberry.field(description="The node with this graph node id, e.g. `tolaria/synthesis#L29` (null when there is "
                                  "none).")
    async def graph_node(self, info: Ctx, node_id: str, version: VersionArg = None) -> Optional[GraphNode]:
        return wrap(await info.context.loaders.node(node_id))

    @relay.connection(Connection[AnalysisSet], description="Analysis sets, by id; `text` matches the id or system.")
    async def sets(self, info: Ctx, text: Optional[str] = None) -> Iterable[AnalysisSet]:
        nodes = await list_nodes(info, Label.ANALYSIS_SET, None)
        return wrap_all(GraphRead.sets(nodes, text=text))

    @strawberry.field(name="set", description="One analysis set by id.")
    async def analysis_set(self, info: Ctx, id: str, version: VersionArg = None) -> AnalysisSet:
        obj = wrap(await info.context.loaders.node(id))
        if not isinstance(obj, AnalysisSet):
            raise await call(unknown_set, info.context.store, id)
        return obj

    @relay.connection(Connection[Document], description="Ingested members, sorted by id; `role` e.g. `synthesis`; "
                                                          "`text` matches title, role or path.")
    async def documents(self, info: Ctx, set: Optional[str] = None, role: Optional[str] = None,
                        member_type: Optional[str] = None, text: Optional[str] = None,
                        version: VersionArg = None) -> Iterable[Document]:
        return await documents_of(info, set, role, member_type, text)

    @strawberry.field(description="One member by document id (`tolaria/synthesis`) or by the path it was ingested from.")
    async def document(self, info: Ctx, id: str, version: VersionArg = None) -> Document:
        return wrap_as(Document, await document_named(info, id))

    @relay.connection(Connection[Record], description="Records, sorted by node id; `analyst` RT, MEM or EPI; `kind` "
                                                        "e.g. RTE; `text` matches the record ID or label; `declared` only "
                                                        "(un)declared ones.")
    async def records(self, info: Ctx, set: Optional[str] = None, analyst: Optional[str] = None,
                      kind: Optional[str] = None, text: Optional[str] = None,
                      declared: Optional[bool] = None, version: VersionArg = None) -> Iterable[Record]:
        return await records_of(info, set, analyst, kind, text, declared)

    @strawberry.field(description="One record by ID; give `set` when the ID occurs in several sets.")
    async def record(self, info: Ctx, id: str, set: Optional[str] = None, version: VersionArg = None) -> Record:
        found = await call(info.context.loaders.read.records_named, id, set)
        if len(found) > 1:
            raise AmbiguousScope(f"record {id} occurs in sets {', '.join(n.set_id or '' for n in found)}",
                                 hint="pass set")
        return wrap_as(Record, found[0])

    @relay.connection(Connection[Section], description="Sections (headings) in document order; filters: set, "
                                                         "document id, member role, kind, text (heading).")
    async def sections(self, info: Ctx, set: Optional[str] = None, document: Optional[str] = None,
                       role: Optional[str] = None, kind: Optional[str] = None,
                       text: Optional[str] = None, version: VersionArg = None) -> Iterable[Section]:
        doc = await document_named(info, document) if document is not None else None
        return await blocks_of(info, Label.SECTION, set_id=set, document=doc, role=role, kind=kind, text=text)

    @relay.connection(Connection[Statement], description="Statements in document order; filters: set, document id, "
                                                           "member role, kind, text (case-insensitive substring).")
    async def statements(self, info: Ctx, set: Optional[str] = None, document: Optional[str] = None,
                         role: Optional[str] = None, kind: Optional[str] = None,
                         text: Optional[str] = None, version: VersionArg = None) -> Iterable[Statement]:
        doc = await document_named(info, document) if document is not None else None
        return await blocks_of(info, Label.STATEMENT, set_id=set, document=doc, role=role, kind=kind, text=text)

    @relay.connection(Connection[Source], description="Sources (`SRC-n`), by id.")
    async def sources(self, info: Ctx, set: Optional[str] = None, kind: Optional[str] = None,
                      version: VersionArg = None) -> Iterable[Source]:
        return wrap_all(GraphRead.sources(await list_nodes(info, Label.SOURCE, set), kind=kind))

    @relay.connection(Connection[SourceFile], description="Cited or quoted source files, by id; `text` matches the path.")
    async def source_files(self, info: Ctx, set: Optional[str] = None, text: Optional[str] = None,
                           version: VersionArg = None) -> Iterable[SourceFile]:
        return wrap_all(GraphRead.source_files(await list_nodes(info, Label.SOURCE_FILE, set), text=text))

    @relay.connection(Connection[Quotation], description="Quotations in document order; `text` matches the quoted text, "
                                                           "`path` the attributed path.")
    async def quotations(self, info: Ctx, set: Optional[str] = None, text: Optional[str] = None,
                         path: Optional[str] = None, version: VersionArg = None) -> Iterable[Quotation]:
        return wrap_all(GraphRead.quotations(await list_nodes(info, Label.QUOTATION, set), text=text, path=path))

    @strawberry.field(description="Validation findings of the stored graph (`citegraph check`), of one set or all.")
    async def check(self, info: Ctx, set: Optional[str] = None, version: VersionArg = None) -> CheckResult:
        return await run_check(info, set)

    @strawberry.field(description="Statements resting on a record ID, a source ID (`source: \"SRC-1\"`) or a cited "
                                  "source file (`file: \"mcp-server/vault.js\"`): give exactly one (every set, or "
                                  "`set`). A file or source gives the statements impact analysis flags when it "
                                  "changes.")
    async def rests_on(self, info: Ctx, record: Optional[str] = None, set: Optional[str] = None, direct: bool = False,
                       max_depth: Optional[int] = None, source: Optional[str] = None,
                       file: Optional[str] = None, version: VersionArg = None) -> RestsOn:
        given = [(kind, value) for kind, value in (("record", record), ("source", source), ("source_file", file))
                 if value is not None]
        if len(given) != 1:
            raise InvalidQuery("restsOn takes exactly one of record, source and file",
                               hint='e.g. restsOn(record: "RT-RTE-mcp-write") or restsOn(file: "mcp-server/vault.js")')
        kind, name = given[0]
        return await run_rests_on(info, name, set_id=set, direct=direct, max_depth=max_depth, kind=kind)

    @strawberry.field(description="Full-text search over statements (`citegraph search`): every term of `text` must "
                                  "occur (`compare-and-swap`, `\"the note\"`, `vau*`); ranked hits with snippets; "
                                  "`limit` 1–200.")
    async def search(self, info: Ctx, text: str, set: Optional[str] = None, limit: int = 20,
                     version: VersionArg = None) -> SearchResult:
        from queries.search import search

        return await call(search, info.context.store, text, set_id=set, limit=limit)

    @strawberry.field(description="A rendering as text: a `document` rebuilt from the graph, the statements resting "
                                  "on record `restsOn`, the dossier of `record`, or (`set` alone) a whole set with its "
                                  "record index; `format` md, txt or html.")
    async def render(self, info: Ctx, document: Optional[str] = None, format: Optional[str] = None,
                     rests_on: Optional[str] = None, record: Optional[str] = None, set: Optional[str] = None,
                     max_depth: Optional[int] = None, version: VersionArg = None) -> str:
        from app.rendering import render_request

        ctx = info.context
        rendered = await call(render_request, ctx.store, document=document, rests_on=rests_on, record=record,
                              set_id=set, fmt=format, max_depth=ctx.settings.depth(max_depth))
        return rendered.text

    @strawberry.field(description="Changed cited files, quotation drift and suspects between two revisions of a set's "
                                  "source; `repo` is a git clone on the server, `from` defaults to the pinned commit.")
    async def impact(self, info: Ctx, repo: str, to: str, set: Optional[str] = None,
                     source: Optional[str] = None,
                     from_: Annotated[Optional[str], strawberry.argument(name="from")] = None,
                     version: VersionArg = None) -> Impact:
        def run():
            allowed = allowed_repository(info.context.settings, repo)
            return impact_of(info.context.store, GitRepository(allowed), to_revision=to, from_revision=from_,
                             set_id=set, source_id=source)

        return await call(run)

    @strawberry.field(description="Impact on every set whose source register pins the repository `repo` (a git clone "
                                  "on the server; matched by a remote's URL, `owner/name` or CITEGRAPH_REPO_NAMES), "
                                  "each from its own pinned commit to `to`, ranked by conclusions affected; `set` "
                                  "narrows it to one set.")
    async def repository_impact(self, info: Ctx, repo: str, to: str = "HEAD",
                                set: Optional[str] = None) -> RepositoryImpact:
        def run():
            settings = info.context.settings
            repository = GitRepository(allowed_repository(settings, repo))
            return impact_on_repository(info.context.store, repository, names=repository_names(settings, repository),
                                        to_revision=to, set_id=set)

        return await call(run)

    @strawberry.field(description="Impact runs made by push hooks (`POST /hooks/push`), newest first; `repository` "
                                  "(owner/name) narrows them to one repository.")
    async def impact_runs(self, info: Ctx, repository: Optional[str] = None, limit: int = 50) -> list[ImpactRun]:
        def run():
            from app.hooks import run_log

            if not 1 <= limit <= 500:
                raise InvalidQuery(f"limit {limit} is outside 1..500")
            return run_log(info.context.settings).runs(repository=repository, limit=limit)

        return await call(run)

    @strawberry.field(description="Suspects no review has cleared: the latest impact run of each repository "
                                  "(`source-change`) and what rests on a part a new version of a set changed "
                                  "(`analysis-change`); `set` narrows them to one set.")
    async def suspects(self, info: Ctx, set: Optional[str] = None) -> OpenSuspects:
        def run():
            from app.hooks import latest_runs, run_log
            from queries.impact import open_suspects

            return open_suspects(info.context.store, set_id=set, runs=latest_runs(run_log(info.context.settings)))

        return await call(run)

    @relay.connection(connection_of(SetVersion), description="The kept versions of an analysis set, oldest first "
                                                             "(the latest is the live graph).")
    async def versions(self, info: Ctx, set: str) -> Iterable[SetVersion]:
        return await resolve_versions(info, set)

    @strawberry.field(description="What changed in a set between versions `from` (default: the one before `to`) and "
                                  "`to` (default: the latest): members, records, statements, citations, quotations, "
                                  "Limitations rows and the rests-on answers that moved.")
    async def diff(self, info: Ctx, set: str,
                   from_: Annotated[Optional[int], strawberry.argument(name="from")] = None,
                   to: Optional[int] = None, max_depth: Optional[int] = None) -> SetDiff:
        return await resolve_diff(info, set, from_, to, max_depth)

    @relay.connection(connection_of(Run),
                      description="The analysis sets analysing a system (its slug or name), by date.")
    async def runs(self, info: Ctx, system: str) -> Iterable[Run]:
        return await resolve_runs(info, system)

    @strawberry.field(description="Where two runs of one system agree: records matched by slug ID or kind plus label, "
                                  "unmatched ones with candidates citing the same files, files and Limitations per "
                                  "run.")
    async def compare(self, info: Ctx, a: str, b: str, version_a: Optional[int] = None,
                      version_b: Optional[int] = None) -> RunComparison:
        return await resolve_compare(info, a, b, version_a, version_b)


class CitegraphSchema(strawberry.Schema):
    """The schema with its :class:`GraphQLLimits` (``schema.limits``), read by connections and limits,
    and the documents it has found valid (``schema.valid_documents``, :class:`app.graphql.limits.KnownValid`).

    A query (not a mutation) executed with a :class:`Context` reads one snapshot of the store
    (:meth:`graph.store.SupportsSnapshot.snapshot`): every resolver of the request sees the same
    committed state, as :func:`graph.store.read_snapshot` gives REST.
    """

    def __init__(self, limits: GraphQLLimits):
        self.limits = limits
        self.valid_documents = ValidDocuments()
        super().__init__(query=Query, mutation=Mutation, types=list(NODE_TYPES),
                         extensions=[*limit_extensions(limits, self.valid_documents), VersionPins],
                         config=StrawberryConfig(relay_max_results=limits.max_page_size))

    async def execute(self, query: str | None, variable_values: dict[str, Any] | None = None,
                      context_value: Any | None = None, root_value: Any | None = None,
                      operation_name: str | None = None, *args: Any, **kwargs: Any):
        """Execute a request off the server's event loop, within the limits and the time budget.

        A document over ``max_document_bytes``, or with a string literal over
        ``max_literal_bytes``, is refused before it is parsed. Parsing, validation and execution
        then run on an event loop of their own in a worker thread, so a CPU-heavy request never
        holds up another (``/health`` answers meanwhile), and stop with ``LIMIT_EXCEEDED`` when the
        time budget (``settings.graphql_timeout_s`` of a :class:`Context`) is spent: no resolver
        call starts after it (:func:`app.graphql.context.call`), and the request is answered
        once the calls under way have returned.
        """
        refused = refused_before_parsing(query, self.limits)
        if refused is not None:
            return ExecutionResult(data=None, errors=[refused])
        budget = getattr(getattr(context_value, "settings", None), "graphql_timeout_s", None)
        work = self._execute_here(query, variable_values, context_value, root_value, operation_name, *args, **kwargs)
        return await run_in_threadpool(_run_in_own_loop, work, budget)

    async def _execute_here(self, query: str | None, variable_values: dict[str, Any] | None = None,
                            context_value: Any | None = None, root_value: Any | None = None,
                            operation_name: str | None = None, *args: Any, **kwargs: Any):
        run = lambda: super(CitegraphSchema, self).execute(  # noqa: E731
            query, variable_values, context_value, root_value, operation_name, *args, **kwargs)
        if not isinstance(context_value, Context) or not isinstance(context_value.store, SupportsSnapshot) \
                or not self._is_query(query, operation_name):
            return await run()
        store = context_value.store
        for attempt in range(SNAPSHOT_ATTEMPTS):
            # this loop runs in a worker thread for this request alone: the snapshot opens and
            # closes here, without a hop to another thread
            snapshot = store.snapshot()
            context_value.read_from(snapshot.__enter__())  # outside the budget
            try:
                result = await _with_its_tasks(run)
            except BaseException:
                if not snapshot.__exit__(*sys.exc_info()):
                    raise
                raise AssertionError("a snapshot swallowed an error") from None  # pragma: no cover
            finally:
                context_value.read_from(store)
            try:
                snapshot.__exit__(None, None, None)
            except SnapshotMoved:  # a write landed while it was read: read it again
                if attempt == SNAPSHOT_ATTEMPTS - 1:
                    raise
                continue
            return result
        raise AssertionError("unreachable")  # pragma: no cover

    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        """Log each error of a request: one line for a client's (every code but ``INTERNAL``,
        rate-limited, :func:`app.logs.log_client_error`), the traceback only for an internal one."""
        for error in errors:
            original = error.original_error
            code = (error.extensions or {}).get("code") or (face_of(original).code if isinstance(original, CitegraphError)
                                                             else None)
            if code != "INTERNAL" and (original is None or isinstance(original, (CitegraphError, GraphQLError))):
                where = ".".join(str(p) for p in error.path) if error.path else None
                log_client_error(str(code or "BAD_REQUEST"), error.message, where=where)
            else:
                super().process_errors([error], execution_context)

    def _is_query(self, query: str | None, operation_name: str | None) -> bool:
        """Whether ``query`` is a query operation (parsed within the token limit; a document that
        does not parse is left to the schema, which reports it)."""
        if not query:
            return False
        try:
            document = parsed(query, max_tokens=self.limits.max_tokens)  # the document execution reads
        except GraphQLError:
            return False
        operation = get_operation_ast(document, operation_name)
        return operation is not None and operation.operation == OperationType.QUERY


_T = TypeVar("_T")


async def _with_its_tasks(run: Callable[[], Awaitable[_T]]) -> _T:
    """``await run()``, then cancel the tasks it left behind and wait for them to end. graphql-core
    gathers a list's items without cancelling the others when one fails (an error past a non-null
    field, or the time budget), and cancelling the execution leaves them too: a call of theirs under
    way in a worker thread would go on reading the snapshot while it closes (on Neo4j, a statement
    and the rollback on one connection, which then hangs until its read timeout)."""
    before = asyncio.all_tasks()
    try:
        return await run()
    finally:
        left = asyncio.all_tasks() - before
        for task in left:
            task.cancel()
        if left:  # a cancelled call waits for its thread to return (app.graphql.context.call)
            await asyncio.gather(*left, return_exceptions=True)


class _LoopCloser:
    """Closes a thread's loop when the thread ends (its :class:`_ThreadLoop` attributes go)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        weakref.finalize(self, loop.close)


class _ThreadLoop(threading.local):
    """The event loop of each worker thread that executes GraphQL requests, made on the thread's
    first request and kept for the next (a new loop per request, as :func:`asyncio.run` makes,
    cost about 0.2 ms of CPU); closed when the thread ends."""

    loop: asyncio.AbstractEventLoop | None = None
    closer: _LoopCloser | None = None

    def run(self, work: Any) -> Any:
        """Run the coroutine ``work`` to its end on this thread's loop, in a copy of the thread's
        context, then cancel whatever tasks it left, as :func:`asyncio.run` does."""
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
            self.closer = _LoopCloser(self.loop)
        loop = self.loop
        try:
            return loop.run_until_complete(loop.create_task(work, context=contextvars.copy_context()))
        finally:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))


_LOOPS = _ThreadLoop()


def _run_in_own_loop(work: Any, budget: float | None) -> ExecutionResult:
    """Run the coroutine ``work`` (one request's execution) to its end on this (worker) thread's
    own event loop, with :data:`app.graphql.context.DEADLINE` set ``budget`` seconds ahead; past
    the budget plus a grace second, the request is answered ``LIMIT_EXCEEDED`` as soon as the
    calls under way return."""

    async def bounded() -> ExecutionResult:
        CALLS.set(asyncio.Semaphore(CONCURRENT_CALLS))
        if budget is None:
            return await work
        DEADLINE.set(time.monotonic() + budget)
        try:
            return await asyncio.wait_for(work, budget + 1.0)
        except TimeoutError:
            error = QueryLimitExceeded(f"the query ran out of its time budget of {budget:g} s",
                                       hint="ask for fewer or cheaper fields, or raise CITEGRAPH_GRAPHQL_TIMEOUT_S")
            log_client_error(LIMIT_EXCEEDED, error.message)
            return ExecutionResult(data=None, errors=[GraphQLError(error.message, original_error=error,
                                                                   extensions={"code": LIMIT_EXCEEDED,
                                                                               "hint": error.hint})])

    return _LOOPS.run(bounded())


def build_schema(limits: GraphQLLimits | None = None) -> CitegraphSchema:
    """A schema held to ``limits`` (default :class:`GraphQLLimits`)."""
    return CitegraphSchema(limits or GraphQLLimits())


schema = build_schema()


def graphql_router(graphql_schema: CitegraphSchema | None = None) -> GraphQLRouter:
    """The ``/graphql`` router with GraphiQL (served from the app's vendored files, see
    :mod:`app.graphql.ide`); its context comes from :func:`get_context`."""
    return GraphiQLRouter(graphql_schema or schema, context_getter=get_context)
