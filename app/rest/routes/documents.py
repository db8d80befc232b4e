"""Document routes: ``/documents``."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from app.rest.deps import SetFilter, StoreDep
from app.rest.schemas import DocumentOut, DocumentsOut
from graph.model import Label

router = APIRouter(prefix="/documents", tags=["documents"])


@router.get("", response_model=DocumentsOut)
async def list_documents(store: StoreDep, set_id: SetFilter = None) -> DocumentsOut:
    """Every ingested member (optionally of one set), sorted by id."""
    nodes = await run_in_threadpool(store.find_nodes, Label.DOCUMENT, set_id=set_id)
    return DocumentsOut(data=[DocumentOut.from_domain(n) for n in nodes], count=len(nodes))
