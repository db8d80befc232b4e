"""Shared FastAPI dependencies and parameter aliases for every REST route."""

from __future__ import annotations

from typing import Annotated, Any, Optional, TypeVar
from collections.abc import Callable

from fastapi import Depends, Query, Request
from starlette.concurrency import run_in_threadpool

from app.settings import Settings
from graph.store import GraphStore, read_snapshot
from queries.traversal import MAX_DEPTH

__all__ = ["get_store", "get_app_settings", "StoreDep", "SettingsDep", "Depth", "SetFilter", "in_snapshot",
           "VersionParam", "read_version"]

T = TypeVar("T")


async def get_store(request: Request) -> GraphStore:
    """The store opened by the app's lifespan, or the request's view of it at the version asked
    (:func:`read_version`). ``async`` as the other dependencies that only read the request: FastAPI
    runs a plain ``def`` dependency in a worker thread, a hop of about 0.2 ms each."""
    return getattr(request.state, "versioned_store", None) or request.app.state.store


async def get_app_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    return request.app.state.settings


StoreDep = Annotated[GraphStore, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
Depth = Annotated[Optional[int], Query(ge=1, le=MAX_DEPTH, description="Maximum evidence steps.")]
SetFilter = Annotated[Optional[str], Query(alias="set", description="Only this analysis set.")]


async def in_snapshot(store: GraphStore, read: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``read(view, *args, **kwargs)`` in a worker thread, on one read snapshot of ``store``
    (:func:`graph.store.read_snapshot`): every store call of the request sees one committed state,
    so a concurrent write shows whole or not at all. ``read`` must only read.

    Raises
    ------
    Exception
        Whatever ``read`` raises (a :class:`~graph.errors.NotFound` …).
    """
    return await run_in_threadpool(read_snapshot, store, lambda view: read(view, *args, **kwargs))


VersionParam = Annotated[Optional[int], Query(ge=1, description="Read the set (`set`, or the set in the path) at this "
                                                             "version (GET /sets/{id}/versions lists them); default: "
                                                             "the latest.")]


async def read_version(request: Request, version: VersionParam = None) -> None:
    """Router dependency of the read routes: with ``?version=N``, the request reads the
    set named by ``set=``, the path's ``set_id`` or the path's ``document_id`` at version N
    (:func:`queries.history.store_at`); :func:`get_store` then returns that view.

    Raises
    ------
    AmbiguousScope
        A version without a set (400).
    AnalysisSetNotFound, VersionNotFound, DocumentNotFound
        An unknown set, version or document (404).
    """
    if version is None:  # the common case answers on the event loop, without a thread hop
        return
    await run_in_threadpool(_read_version, request, version)


def _read_version(request: Request, version: int) -> None:
    """:func:`read_version` with a version: reads the store (in a worker thread)."""
    from app.rendering import set_of_request
    from queries.history import store_at

    store = request.app.state.store
    set_id = request.query_params.get("set") or request.path_params.get("set_id")
    if set_id is None and request.path_params.get("document_id"):
        set_id = set_of_request(store, request.path_params["document_id"], None)
    request.state.versioned_store = store_at(store, set_id, version)
