"""Shared FastAPI dependencies and parameter aliases for every REST route."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import Depends, Query, Request

from app.settings import Settings
from graph.store import GraphStore
from queries.traversal import MAX_DEPTH

__all__ = ["get_store", "get_app_settings", "StoreDep", "SettingsDep", "Depth", "SetFilter"]


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
