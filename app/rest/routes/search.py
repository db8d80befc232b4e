"""``GET /search``: full-text search over statements, the JSON of ``citegraph search --format json``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.rest.deps import SetFilter, StoreDep, in_snapshot
from app.rest.schemas import SearchOut
from queries.search import MAX_LIMIT, search
from queries.shapes import plain

router = APIRouter(tags=["search"])


@router.get("/search", operation_id="search", response_model=SearchOut)
async def search_statements(
    store: StoreDep,
    q: Annotated[str, Query(min_length=1, max_length=500, description='Words to find: compare-and-swap, "the note", vau*.')],
    set_id: SetFilter = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Most hits returned.")] = 20,
) -> dict:
    """Statements holding every term of ``q``, ranked (most matches, then shorter, then document
    order), each with a snippet, the matches' offsets in it and the statement id to pass on."""
    report = await in_snapshot(store, lambda view: search(view, q, set_id=set_id, limit=limit))
    return plain(report)
