"""Set-level reads: ``GET /sets``, ``GET /sets/{set_id}``, ``GET /stats``, ``GET /check``."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from app.rest.deps import SetFilter, StoreDep
from app.rest.schemas import SetOut, SetsOut
from queries.names import unknown_set
from graph.model import Label
from graph.store import GraphStore
from queries.stats import stats
from queries.validation import check

router = APIRouter(tags=["sets"])


def _sets(store: GraphStore, set_id: str | None = None) -> list[SetOut]:
    sets = store.find_nodes(Label.ANALYSIS_SET)
    if set_id is not None:
        sets = [s for s in sets if s.id == set_id]
    docs = store.find_nodes(Label.DOCUMENT)
    return [SetOut(id=s.id, system=s.get("system"), run_id=s.get("run_id"), reviewed_boundary=s.get("reviewed_boundary"),
                   documents=[d.id for d in docs if d.set_id == s.id]) for s in sets]


@router.get("/sets", response_model=SetsOut)
async def list_sets(store: StoreDep) -> SetsOut:
    """Every analysis set with its members, sorted by id."""
    data = await run_in_threadpool(_sets, store)
    return SetsOut(data=data, count=len(data))


@router.get("/sets/{set_id}", response_model=SetOut)
async def get_set(set_id: str, store: StoreDep) -> SetOut:
    """One analysis set with its members."""
    data = await run_in_threadpool(_sets, store, set_id)
    if not data:
        raise await run_in_threadpool(unknown_set, store, set_id)
    return data[0]


@router.get("/stats")
async def get_stats(store: StoreDep) -> dict:
    """Counts of the whole store and per set (the JSON of ``citegraph stats --json``)."""
    return (await run_in_threadpool(stats, store)).to_dict()


@router.get("/check")
async def get_check(store: StoreDep, set_id: SetFilter = None) -> dict:
    """Validation findings with stable codes (the JSON of ``citegraph check --json``)."""
    return (await run_in_threadpool(lambda: check(store, set_id=set_id))).to_dict()
