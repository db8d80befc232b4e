"""Record routes: ``/records`` and ``/records/{record_id}/…``."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.rest.deps import Depth, SetFilter, SettingsDep, StoreDep, in_snapshot
from app.rest.schemas import CitationsOut, Page, RecordOut, RecordsOut, RestsOnOut, rests_on_answer
from queries.names import unknown_record
from queries.records import citations_of, records_of
from queries.shapes import plain
from queries.traversal import rests_on

router = APIRouter(prefix="/records", tags=["records"])

Limit = Annotated[int, Query(ge=1, le=500, description="Page size (items).")]
Offset = Annotated[int, Query(ge=0, description="Items to skip.")]


@router.get("", operation_id="listRecords", response_model=RecordsOut)
async def list_records(
    store: StoreDep, set_id: SetFilter = None,
    analyst: Annotated[Optional[str], Query(pattern="^(RT|MEM|EPI)$")] = None,
    kind: Annotated[Optional[str], Query(pattern="^(CMP|OBJ|RTE|CLM|ABS|BAP)$")] = None,
    q: Annotated[Optional[str], Query(max_length=200, description="Substring of the ID or label.")] = None,
    limit: Limit = 50, offset: Offset = 0,
) -> RecordsOut:
    """Records matching every filter, sorted by node id, one page at a time."""
    found = await in_snapshot(store, records_of, set_id=set_id, analyst=analyst, kind=kind, text=q)
    page = found[offset : offset + limit]
    return RecordsOut(data=[plain(r) for r in page], page=Page(offset=offset, limit=limit, total=len(found)))


@router.get("/{record_id}", operation_id="getRecord", response_model=list[RecordOut])
async def get_record(record_id: str, store: StoreDep, set_id: SetFilter = None) -> list[dict]:
    """The record in every set holding it (or in ``set``); 404 when none does."""
    found = await in_snapshot(store, records_of, set_id=set_id, record_id=record_id)
    if not found:
        raise await in_snapshot(store, unknown_record, record_id, set_id)
    return [plain(r) for r in found]


@router.get("/{record_id}/citations", operation_id="listCitations", response_model=CitationsOut)
async def get_citations(record_id: str, store: StoreDep, set_id: SetFilter = None) -> CitationsOut:
    """Every statement citing the record, with the citation's form and token."""
    found = await in_snapshot(store, citations_of, record_id, set_id=set_id)
    return CitationsOut(data=[plain(c) for c in found], count=len(found))


@router.get("/{record_id}/rests-on", operation_id="restsOn", response_model=RestsOnOut)
async def get_rests_on(
    record_id: str, store: StoreDep, settings: SettingsDep, set_id: SetFilter = None, direct: bool = False,
    max_depth: Depth = None,
) -> Response:
    """Statements that rest on the record, each with its explanation path."""
    report = await in_snapshot(store, rests_on, record_id, set_id=set_id, direct_only=direct,
                               max_depth=settings.depth(max_depth))
    return rests_on_answer(report)
