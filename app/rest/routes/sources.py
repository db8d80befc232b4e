"""Rests-on from a source or a cited source file: ``/sources/{source_id}/rests-on`` and
``/source-files/{path}/rests-on``, the same answer as ``/records/{id}/rests-on``."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.rest.deps import Depth, SetFilter, SettingsDep, StoreDep, in_snapshot
from app.rest.schemas import RestsOnOut, rests_on_answer
from queries.traversal import rests_on

router = APIRouter(tags=["records"])


@router.get("/sources/{source_id}/rests-on", operation_id="sourceRestsOn", response_model=RestsOnOut)
async def get_source_rests_on(
    source_id: str, store: StoreDep, settings: SettingsDep, set_id: SetFilter = None, direct: bool = False,
    max_depth: Depth = None,
) -> Response:
    """Statements resting on a source (``SRC-1``), through the files of it they cite, each with its
    explanation path; in every set holding that source ID, or ``set``."""
    report = await in_snapshot(store, rests_on, source_id, set_id=set_id, direct_only=direct,
                                     max_depth=settings.depth(max_depth), kind="source")
    return rests_on_answer(report)


@router.get("/source-files/{path:path}/rests-on", operation_id="sourceFileRestsOn", response_model=RestsOnOut)
async def get_source_file_rests_on(
    path: str, store: StoreDep, settings: SettingsDep, set_id: SetFilter = None, direct: bool = False,
    max_depth: Depth = None,
) -> Response:
    """Statements resting on a cited source file (``mcp-server/vault.js``): what impact analysis
    flags when that file changes, each with its explanation path."""
    report = await in_snapshot(store, rests_on, path, set_id=set_id, direct_only=direct,
                                     max_depth=settings.depth(max_depth), kind="source_file")
    return rests_on_answer(report)
