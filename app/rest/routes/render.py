"""Render routes: documents rebuilt from the graph and subgraph reports, as Markdown, plain text or HTML.

``GET /documents/{document_id}/render``, ``GET /records/{record_id}/dossier``,
``GET /records/{record_id}/rests-on/report`` and ``GET /sets/{set_id}/render``; every one answers
with the same bytes as ``citegraph render`` (both call :func:`app.rendering.render_request`).
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

from fastapi import APIRouter, Query, Response
from app.rendering import Rendered, render_request
from app.rest.deps import Depth, SetFilter, SettingsDep, StoreDep, in_snapshot
from render import Format

router = APIRouter(tags=["render"])

FormatParam = Annotated[Optional[Format], Query(alias="format", description="md, txt or html.")]
_TEXT: dict[int | str, dict[str, Any]] = {200: {"content": {media: {"schema": {"type": "string"}} for media in ("text/markdown", "text/plain", "text/html")},
               "description": "The rendering (UTF-8)."}}


def _response(rendered: Rendered) -> Response:
    return Response(rendered.text.encode("utf-8"), media_type=rendered.media_type)


@router.get("/documents/{document_id:path}/render", operation_id="renderDocument", response_class=Response, responses=_TEXT)
async def render_document(document_id: str, store: StoreDep, fmt: FormatParam = None) -> Response:
    """A stored member rebuilt from its graph nodes: exact in its own format (the default), the
    seeds' plain text for ``txt`` of a Markdown member, an HTML page for ``html``."""
    return _response(await in_snapshot(store, render_request, document=document_id, fmt=fmt))


@router.get("/records/{record_id}/dossier", operation_id="renderDossier", response_class=Response, responses=_TEXT)
async def render_dossier(record_id: str, store: StoreDep, settings: SettingsDep, set_id: SetFilter = None,
                         fmt: FormatParam = None, max_depth: Depth = None) -> Response:
    """The record's dossier: declaration and fields, annotations, amendments and supersessions,
    parts, quotations and files, Limitations rows and everything resting on it (default ``md``)."""
    return _response(await in_snapshot(store, render_request, record=record_id, set_id=set_id, fmt=fmt,
                                       max_depth=settings.depth(max_depth)))


@router.get("/records/{record_id}/rests-on/report", operation_id="renderRestsOn", response_class=Response, responses=_TEXT)
async def render_rests_on(record_id: str, store: StoreDep, settings: SettingsDep, set_id: SetFilter = None,
                          fmt: FormatParam = None, max_depth: Depth = None) -> Response:
    """The statements resting on the record under their original headings, each marked direct or
    transitive with its explanation path (default ``md``)."""
    return _response(await in_snapshot(store, render_request, rests_on=record_id, set_id=set_id, fmt=fmt,
                                       max_depth=settings.depth(max_depth)))


@router.get("/sets/{set_id}/render", operation_id="renderSet", response_class=Response, responses=_TEXT)
async def render_set(set_id: str, store: StoreDep, fmt: FormatParam = None) -> Response:
    """The whole analysis set as one document with a record index (default ``md``)."""
    return _response(await in_snapshot(store, render_request, set_id=set_id, fmt=fmt))
