"""Shared FastAPI dependencies and parameter aliases for every REST route."""

from __future__ import annotations

from typing import Annotated, Any, Callable, Optional, TypeVar

from fastapi import Depends, Query, Request
from starlette.concurrency import run_in_threadpool

from app.settings import Settings
from graph.store import GraphStore, read_snapshot
from queries.traversal import MAX_DEPTH

__all__ = ["get_store", "get_app_settings", "StoreDep", "SettingsDep", "Depth", "SetFilter", "in_snapshot"]

T = TypeVar("T")


def get_store(request: Request) -> GraphStore:
    """The store opened by the app's lifespan."""
    return request.app.state.store


def get_app_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    return request.app.state.settings


StoreDep = Annotated[GraphStore, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]
Depth = Annotated[Optional[int], Query(ge=1, le=MAX_DEPTH, description="Maximum evidence steps.")]
SetFilter = Annotated[Optional[str], Query(alias="set", description="Only this analysis set.")]


async def in_snapshot(store: GraphStore, read: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``read(view, *args, **kwargs)`` in a worker thread, on one read snapshot of ``store``
    (:func:`graph.store.read_snapshot`): every store call of the request sees one committed state,
    so a concurrent write shows whole or not at all. ``read`` must only read (it may run again).

    Raises
    ------
    Exception
        Whatever ``read`` raises (a :class:`~graph.errors.NotFound` …).
    """
    return await run_in_threadpool(read_snapshot, store, lambda view: read(view, *args, **kwargs))
