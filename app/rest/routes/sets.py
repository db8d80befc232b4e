"""Set-level reads: ``GET /sets``, ``GET /sets/{set_id}``, ``GET /stats``, ``GET /check``."""

from __future__ import annotations

from fastapi import APIRouter
from app.rest.deps import SetFilter, StoreDep, in_snapshot
from app.rest.schemas import SetOut, SetsOut
from app.wiring import store_kind
from queries.catalog import analysis_sets
from queries.shapes import plain
from queries.stats import stats
from queries.validation import check

router = APIRouter(tags=["sets"])


@router.get("/sets", operation_id="listSets", response_model=SetsOut)
async def list_sets(store: StoreDep) -> SetsOut:
    """Every analysis set with its members and sizes, sorted by id (``citegraph sets --json``)."""
    data = [plain(s) for s in await in_snapshot(store, analysis_sets)]
    return SetsOut(data=data, count=len(data))


@router.get("/sets/{set_id}", operation_id="getSet", response_model=SetOut)
async def get_set(set_id: str, store: StoreDep) -> dict:
    """One analysis set with its members and sizes; 404 naming the closest sets when absent."""
    (found,) = await in_snapshot(store, lambda view: analysis_sets(view, set_id=set_id))
    return plain(found)


@router.get("/stats", operation_id="getStats")
async def get_stats(store: StoreDep) -> dict:
    """Counts of the whole store and per set, and which kind of store it is (the JSON of ``citegraph
    stats --json``, whose ``store`` also names the folder or server, which a client is never told)."""
    return {"store": store_kind(store), **await in_snapshot(store, lambda view: plain(stats(view)))}


@router.get("/check", operation_id="check")
async def get_check(store: StoreDep, set_id: SetFilter = None) -> dict:
    """Validation findings with stable codes (the JSON of ``citegraph check --json``)."""
    return await in_snapshot(store, lambda view: plain(check(view, set_id=set_id)))
