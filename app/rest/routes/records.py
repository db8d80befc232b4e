"""Record routes: ``/records/{record_id}/…``."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from app.rest.deps import Depth, SetFilter, SettingsDep, StoreDep
from app.rest.schemas import RestsOnOut
from queries.traversal import rests_on

router = APIRouter(prefix="/records", tags=["records"])


@router.get("/{record_id}/rests-on", response_model=RestsOnOut)
async def get_rests_on(
    record_id: str, store: StoreDep, settings: SettingsDep, set_id: SetFilter = None, direct: bool = False,
    max_depth: Depth = None,
) -> RestsOnOut:
    """Statements that rest on the record, each with its explanation path."""
    report = await run_in_threadpool(rests_on, store, record_id, set_id=set_id, direct_only=direct,
                                     max_depth=max_depth or settings.max_depth)
    return RestsOnOut.from_domain(report)
