"""The per-request GraphQL context: the store, the settings and DataLoaders batched through the store
contract's primitives, built by a FastAPI dependency so their caches die with the request."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from functools import partial
from typing import Any, ParamSpec, TypeVar
from collections.abc import Callable, Sequence

from fastapi import Request
from starlette.concurrency import run_in_threadpool
from strawberry.dataloader import DataLoader
from strawberry.fastapi import BaseContext

from app.rest.deps import SettingsDep, StoreDep
from app.settings import Settings
from graph.errors import QueryLimitExceeded
from graph.model import EdgeKind, Label
from graph.model import Edge as GraphEdge
from graph.store import Direction, GraphStore
from queries.documents import DocumentTree
from queries.read import GraphRead, Stored

__all__ = ["Loaders", "Context", "get_context", "call", "check_deadline", "DEADLINE", "CALLS", "CONCURRENT_CALLS"]


DEADLINE: ContextVar[float | None] = ContextVar("citegraph_graphql_deadline", default=None)
"""``time.monotonic()`` by which the GraphQL request being executed must end (its time budget,
``CITEGRAPH_GRAPHQL_TIMEOUT_S``), set by :meth:`app.graphql.schema.CitegraphSchema.execute`."""


def check_deadline(where: str) -> None:
    """Raise ``QueryLimitExceeded`` when the request's time budget (:data:`DEADLINE`) is spent."""
    deadline = DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise QueryLimitExceeded(f"the query ran out of its time budget (stopped at {where})",
                                 hint="ask for fewer or cheaper fields (render, dossier, impact, search), or "
                                      "raise CITEGRAPH_GRAPHQL_TIMEOUT_S on the server")


CALLS: ContextVar[asyncio.Semaphore | None] = ContextVar("citegraph_graphql_calls", default=None)
"""The semaphore of the request being executed (on its own event loop): how many of its calls
run at once (:data:`CONCURRENT_CALLS`), so that the time budget stops the rest before they start."""

CONCURRENT_CALLS = 4
"""Worker threads one GraphQL request's resolver calls use at most at once."""

CALL_THREADS = ThreadPoolExecutor(max_workers=40, thread_name_prefix="citegraph-graphql-call")
"""The worker threads of the calls of requests executed on their own event loops, kept from one
request to the next (as many as the server's thread pool has). anyio's threads, started from a
request's own loop, stopped when the request ended: a new thread for every request."""


_P = ParamSpec("_P")
_T = TypeVar("_T")


async def call(fn: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """Run a blocking store or query call in a worker thread (resolvers stay ``async``); within
    the request's time budget, checked when the thread starts the call (a call queued behind
    others starts no work once the budget is spent) and when it returns; at most
    :data:`CONCURRENT_CALLS` of a request at once."""
    name = getattr(fn, "__name__", "a call")

    def budgeted() -> _T:
        check_deadline(name)
        return fn(*args, **kwargs)

    limiter = CALLS.get()
    result: _T = await (_in_call_thread(limiter, budgeted) if limiter is not None else run_in_threadpool(budgeted))
    check_deadline(name)
    return result


async def _in_call_thread(limiter: asyncio.Semaphore, fn: Callable[[], _T]) -> _T:
    """``fn()`` in one of :data:`CALL_THREADS`, in a copy of the caller's context, holding
    ``limiter``. Cancelled, it waits for the call under way to end before the cancellation goes
    on, as ``anyio.to_thread.run_sync`` does (the request's snapshot stays open until then)."""
    async with limiter:
        future = asyncio.get_running_loop().run_in_executor(CALL_THREADS, contextvars.copy_context().run, fn)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            while not future.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait([future])
            raise


EdgeKey = tuple[str, frozenset[EdgeKind]]
"""Key of the edge loaders: (node id, edge kinds)."""


class Loaders:
    """DataLoaders over one store, each batch one read of :class:`queries.read.GraphRead` (one
    store call).

    Attributes
    ----------
    nodes : DataLoader[str, Stored | None]
        Nodes by id (:class:`queries.read.Stored`: the domain objects they hold), through one :meth:`GraphStore.get_nodes` per batch; unknown ids give None.
    out_edges, in_edges : DataLoader[(str, frozenset[EdgeKind]), list[Edge]]
        Edges leaving / entering a node, restricted to the kinds of the key, through one
        :meth:`GraphStore.edges` per batch (kinds of all keys united, then filtered per key); each
        list in the store's order (:meth:`Edge.sort_key`).
    labelled : DataLoader[(Label, str | None), list[Stored]]
        Nodes of a label in one set (or every set for None), sorted by id, through one
        :meth:`GraphStore.find_nodes` per distinct key; primes ``nodes`` with what it found.
    trees : DataLoader[str, DocumentTree | None]
        Documents with their blocks in order, through :func:`queries.documents.document_trees` once
        per batch (a fixed number of store calls per set involved).
    answers : dict
        Whole query answers the request needs more than once, by key, kept by the resolvers that
        ask (``("history", set id)``: a set's versions, read once for every version's ``latest``).
    """

    def __init__(self, store: GraphStore):
        self.store = store
        self.read = GraphRead(store)
        self.nodes: DataLoader[str, Stored | None] = DataLoader(self._nodes)
        self.out_edges: DataLoader[EdgeKey, list[GraphEdge]] = DataLoader(partial(self._edges, Direction.OUT))
        self.in_edges: DataLoader[EdgeKey, list[GraphEdge]] = DataLoader(partial(self._edges, Direction.IN))
        self.labelled: DataLoader[tuple[Label, str | None], list[Stored]] = DataLoader(self._labelled)
        self.trees: DataLoader[str, DocumentTree | None] = DataLoader(self._trees)
        self.answers: dict[tuple, Any] = {}

    async def _nodes(self, ids: Sequence[str]) -> list[Stored | None]:
        return await call(self.read.nodes, ids)

    async def _edges(self, direction: Direction, keys: Sequence[EdgeKey]) -> list[list[GraphEdge]]:
        return await call(self.read.edges, direction, keys)

    async def _labelled(self, keys: Sequence[tuple[Label, str | None]]) -> list[list[Stored]]:
        out = []
        for label, set_id in keys:
            found = await call(self.read.labelled, label, set_id)
            self.nodes.prime_many({n.id: n for n in found})
            out.append(found)
        return out

    async def _trees(self, ids: Sequence[str]) -> list[DocumentTree | None]:
        return await call(self.read.trees, ids)

    # -- conveniences ---------------------------------------------------------------------------

    async def node(self, node_id: str | None) -> Stored | None:
        """The node ``node_id`` (None for None or an unknown id)."""
        return None if node_id is None else await self.nodes.load(node_id)

    async def edges(self, node_id: str, kinds: Sequence[EdgeKind] | EdgeKind, direction: Direction) -> list[GraphEdge]:
        """Edges of ``kinds`` leaving (OUT) or entering (IN) ``node_id``."""
        wanted = frozenset([kinds] if isinstance(kinds, EdgeKind) else kinds)
        loader = self.out_edges if direction is Direction.OUT else self.in_edges
        return await loader.load((node_id, wanted))

    async def neighbours(self, node_id: str, kinds: Sequence[EdgeKind] | EdgeKind,
                         direction: Direction) -> list[tuple[GraphEdge, Stored]]:
        """(edge, node at the other end) of each edge of ``kinds``, in edge order; ends that are not
        in the store are skipped."""
        edges = await self.edges(node_id, kinds, direction)
        ends = [e.dst if direction is Direction.OUT else e.src for e in edges]
        nodes = await self.nodes.load_many(ends)
        return [(e, n) for e, n in zip(edges, nodes) if n is not None]


class Context(BaseContext):
    """Per-request context: the app's store and settings, and fresh :class:`Loaders`."""

    def __init__(self, store: GraphStore, settings: Settings, authorization: str | None = None):
        super().__init__()
        self.store = store
        self.settings = settings
        self.authorization = authorization
        self.loaders = Loaders(store)

    def read_from(self, store: GraphStore) -> None:
        """Answer from ``store`` (a read snapshot of the app's store) with fresh loaders, whose
        caches hold nothing of an earlier attempt."""
        self.store = store
        self.loaders = Loaders(store)


async def get_context(request: Request, store: StoreDep, settings: SettingsDep) -> Context:
    """FastAPI dependency building the GraphQL context from the same dependencies as the REST routes;
    it keeps the ``Authorization`` header for mutations (:func:`app.rest.security.check_write`)."""
    from app.rest.security import authorization_of

    return Context(store, settings, authorization_of(request))
