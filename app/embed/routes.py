"""Embed routes: the pages, their JSON twin, the dossier fragment the pages load, static files.

``GET /embed/rests-on/{record_id}`` shows the graph beside the rests-on report (``record_id`` may
also be a source ID or a cited file's path, e.g. ``/embed/rests-on/mcp-server/vault.js?set=tolaria``);
``GET /embed/records/{record_id}`` beside the record's dossier; both take ``?version=N`` (with the
set) and show a version selector. ``GET /embed/history/{set_id}`` is the diff of two versions of a
set and ``GET /embed/compare?a=…&b=…`` the comparison of two runs, each with selectors. Clicking a record node loads
``GET /embed/records/{record_id}/dossier`` (the dossier's HTML, without page chrome) into the
pane. ``GET /embed/rests-on/{record_id}/graph`` is the graph the pages draw, as JSON. Pages and
fragments carry the strict policy of :func:`app.embed.security.embed_policy`; reads follow
``CITEGRAPH_READ_TOKEN`` like every other read.
"""

from __future__ import annotations

import html
import json
import logging
from pathlib import Path
from typing import Annotated, Any, Optional
from collections.abc import Callable
from urllib.parse import quote

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Security
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from app.embed.history import compare_view, history_view, version_selector
from app.embed.page import embed_page, error_page, main_of
from app.embed.security import embed_policy
from app.embed.subgraph import RestsOnGraphOut, rests_on_graph
from app.errors import face_of, for_clients, hint_of
from app.rest.openapi import CHALLENGE, READ_BEARER, STATUSES, WRITE_BEARER, errors
from app.rest.deps import Depth, SetFilter, SettingsDep, StoreDep, in_snapshot, read_version
from app.rest.security import require_read
from graph.errors import CitegraphError
from graph.store import GraphStore
from queries.dossier import record_dossiers
from queries.subgraphs import rests_on_subgraph
from render import Format
from render.compose import dossier_page, rests_on_page
from render.writers import write

__all__ = ["STATIC_DIR", "VENDOR_DIR", "GRAPH_LIBRARY", "graph_library", "router", "mount_embed"]

log = logging.getLogger("citegraph.embed")

STATIC_DIR = Path(__file__).parent / "static"
"""Scripts and styles of the pages, served at ``/embed/static/``."""
VENDOR_DIR = STATIC_DIR / "vendor"
"""Where ``scripts/vendor-js`` copies the graph library (gitignored; package data of wheels)."""
GRAPH_LIBRARY = "cytoscape.min.js"
"""The vendored graph library's file name."""

router = APIRouter(prefix="/embed", tags=["embed"],
                   dependencies=[Depends(require_read), Security(READ_BEARER), Security(WRITE_BEARER)])

_ERROR_BODY = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
_PAGE_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"description": STATUSES[401], "content": _ERROR_BODY, "headers": CHALLENGE},
    403: {"description": STATUSES[403], "content": _ERROR_BODY},
    "default": {"description": STATUSES["default"], "content": _ERROR_BODY},
    **{status: {"description": f"{STATUSES[status]} An error page (a malformed parameter: the JSON error body).",
                "content": {"text/html": {"schema": {"type": "string"}}, **_ERROR_BODY}} for status in (400, 404, 422)},
}
"""The answers of a page besides 200: the error page, the JSON error body when a token is missing
or wrong or a parameter malformed (:data:`app.rest.openapi.STATUSES`)."""


def graph_library() -> str | None:
    """The vendored library's file name when it is installed, else None (pages fall back to a list)."""
    return GRAPH_LIBRARY if (VENDOR_DIR / GRAPH_LIBRARY).is_file() else None


def _library_version() -> str | None:
    try:
        return json.loads((VENDOR_DIR / "versions.json").read_text(encoding="utf-8")).get("cytoscape")
    except (OSError, ValueError, AttributeError):
        return None


def mount_embed(app: FastAPI) -> None:
    """Add the embed routes and ``/embed/static`` to ``app``, and say in the log whether the graph
    library is installed."""
    app.include_router(router, dependencies=[Depends(read_version)])  # ?version=N
    app.mount("/embed/static", StaticFiles(directory=STATIC_DIR), name="embed-static")
    if graph_library():
        log.info("embedded views: graph library cytoscape %s at %s", _library_version() or "(version unknown)",
                 VENDOR_DIR / GRAPH_LIBRARY)
    else:
        log.warning("embedded views: graph library MISSING (%s); pages under /embed show a plain list instead of "
                    "the graph. Run scripts/vendor-js (make install does) to vendor cytoscape from the npm registry.",
                    VENDOR_DIR / GRAPH_LIBRARY)


def _html(text: str, request: Request, status: int = 200) -> HTMLResponse:
    origins = request.app.state.settings.embed_origins
    return HTMLResponse(text, status_code=status, headers={
        "Content-Security-Policy": embed_policy(origins), "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store"})


def _base(request: Request) -> str:
    return request.scope.get("root_path", "").rstrip("/")


def _failed(exc: CitegraphError, request: Request) -> HTMLResponse:
    face = face_of(exc)
    home = request.app.state.settings.home
    return _html(error_page(face.status, face.code, for_clients(exc.message, home), for_clients(hint_of(exc), home),
                            _base(request)), request, face.status)


async def _page(request: Request, view: Callable[..., str], store: GraphStore, *args: Any) -> HTMLResponse:
    """``view(store, *args)`` in a worker thread, on one read snapshot of ``store``, as an embedded
    page, or the error page of what it raised."""
    try:
        page = await in_snapshot(store, view, *args)
    except CitegraphError as exc:
        return _failed(exc, request)
    return _html(page, request)


def _version(request: Request) -> int | None:
    value = request.query_params.get("version")
    return int(value) if value else None  # read_version has checked it


def _selector(store: GraphStore, set_id: str | None, records: tuple[str, ...] | list[str], version: int | None,
              path: str, params: dict) -> tuple[str, tuple[str, int] | None]:
    """The version selector of a graph page (of ``set_id``, else of the one set holding
    ``records``, node ids; none when they lie in several sets and none was named), and the (set,
    version) the page shows when it is an earlier version."""
    sets = {set_id} if set_id else {r.split("/", 1)[0] for r in records}
    if len(sets) != 1:
        return "", None
    (chosen,) = sets
    from queries.history import history

    found = history(store, chosen)
    shown = (chosen, version) if version is not None and version != found.latest else None
    return version_selector(found, version, path, {**params, "set": chosen}), shown


def _rests_on_view(store: GraphStore, record_id: str, set_id: str | None, direct: bool, max_depth: int | None,
                   base: str, version: int | None = None) -> str:
    sub = rests_on_subgraph(store, record_id, set_id=set_id, direct_only=direct, max_depth=max_depth, kind=None)
    graph = rests_on_graph(sub)
    direct_count = sum(1 for r in sub.report.results if r.direct)
    summary = (f"{graph['count']} statements rest on it ({direct_count} direct, {graph['count'] - direct_count} "
               f"transitive){' in set ' + set_id if set_id else ''}. Click a node for its details, the record for "
               f"its dossier.")
    selector, shown = _selector(store, set_id, sub.report.records, version,
                                f"{base}/embed/rests-on/{quote(record_id, safe='')}",
                                {"direct": "true" if direct else None, "max_depth": max_depth})
    return embed_page(title=f"What rests on {record_id}", summary=summary, mode="rests-on", graph=graph,
                      pane_html=main_of(write(rests_on_page(sub), Format.HTML)),
                      pane_showing=f"rests-on:{record_id}", base=base, library=graph_library(), selector=selector,
                      version_of=shown)


def _record_view(store: GraphStore, record_id: str, set_id: str | None, max_depth: int | None, base: str,
                 version: int | None = None) -> str:
    dossiers = record_dossiers(store, record_id, set_id=set_id, max_depth=max_depth)
    graph = rests_on_graph(rests_on_subgraph(store, record_id, set_id=set_id, max_depth=max_depth))
    sets = ", ".join(d.set_id for d in dossiers)
    summary = (f"Record dossier (set {sets}) beside the {graph['count']} statements resting on it. Click a node for "
               f"its details, another record for its dossier.")
    selector, shown = _selector(store, set_id, [d.record.id for d in dossiers], version,
                                f"{base}/embed/records/{quote(record_id, safe='')}", {"max_depth": max_depth})
    return embed_page(title=f"Record {record_id}", summary=summary, mode="record", graph=graph,
                      pane_html=main_of(write(dossier_page(dossiers), Format.HTML)),
                      pane_showing="dossier:" + ",".join(graph["records"]), base=base, library=graph_library(),
                      selector=selector, version_of=shown)


@router.get("/rests-on/{record_id:path}/graph", operation_id="embedRestsOnGraph", response_model=RestsOnGraphOut,
            responses=errors(400, 401, 403, 404, 422))
async def embed_rests_on_graph(record_id: str, store: StoreDep, settings: SettingsDep, set_id: SetFilter = None,
                               direct: bool = False, max_depth: Depth = None) -> JSONResponse:
    """The graph the page draws: ``{"record", "kind", "set", "records", "count", "nodes", "edges"}``
    (see :func:`app.embed.subgraph.rests_on_graph`); errors as every JSON route reports them. Declared
    before the page, whose path also matches a file path ending in ``/graph``."""
    sub = await in_snapshot(store, rests_on_subgraph, record_id, set_id=set_id, direct_only=direct,
                            max_depth=settings.depth(max_depth), kind=None)
    return JSONResponse(rests_on_graph(sub))


@router.get("/rests-on/{record_id:path}", operation_id="embedRestsOn", response_class=HTMLResponse,
            responses=_PAGE_ERRORS)
async def embed_rests_on(record_id: str, request: Request, store: StoreDep, settings: SettingsDep,
                         set_id: SetFilter = None, direct: bool = False, max_depth: Depth = None) -> HTMLResponse:
    """The graph of the record (or source ``SRC-1``, or cited file ``mcp-server/vault.js``) and the
    statements resting on it, beside the rests-on report."""
    return await _page(request, _rests_on_view, store, record_id, set_id, direct, settings.depth(max_depth),
                       _base(request), _version(request))


@router.get("/records/{record_id}", operation_id="embedRecord", response_class=HTMLResponse,
            responses=_PAGE_ERRORS)
async def embed_record(record_id: str, request: Request, store: StoreDep, settings: SettingsDep,
                       set_id: SetFilter = None, max_depth: Depth = None) -> HTMLResponse:
    """The record's dossier beside the graph of what rests on it."""
    return await _page(request, _record_view, store, record_id, set_id, settings.depth(max_depth), _base(request),
                       _version(request))


@router.get("/records/{record_id}/dossier", operation_id="embedDossier", response_class=HTMLResponse,
            responses=_PAGE_ERRORS)
async def embed_dossier(record_id: str, request: Request, store: StoreDep, settings: SettingsDep,
                        set_id: SetFilter = None, max_depth: Depth = None) -> HTMLResponse:
    """The record's dossier as an HTML fragment (the rendered dossier's body), for the pages' pane."""

    def run(view: GraphStore) -> str:
        dossiers = record_dossiers(view, record_id, set_id=set_id, max_depth=settings.depth(max_depth))
        return main_of(write(dossier_page(dossiers), Format.HTML))

    try:
        fragment = await in_snapshot(store, run)
    except CitegraphError as exc:
        face = face_of(exc)
        return _html(f'<p class="cg-failed">{face.code}: {html.escape(exc.message)}</p>', request, face.status)
    return _html(fragment, request)


VersionNumber = Annotated[Optional[int], Query(ge=1, description="A version number of the set.")]


@router.get("/history/{set_id}", operation_id="embedHistory", response_class=HTMLResponse,
            responses=_PAGE_ERRORS)
async def embed_history(set_id: str, request: Request, store: StoreDep,
                        from_: Annotated[VersionNumber, Query(alias="from")] = None,
                        to: VersionNumber = None) -> HTMLResponse:
    """What changed in the set between two versions (default: the latest and the one before), with
    a *from* and a *to* version selector."""
    return await _page(request, history_view, store, set_id, from_, to, _base(request))


@router.get("/compare", operation_id="embedCompare", response_class=HTMLResponse,
            responses=_PAGE_ERRORS)
async def embed_compare(request: Request, store: StoreDep,
                        a: Annotated[str, Query(description="One run (analysis set).")],
                        b: Annotated[Optional[str], Query(description="Another run of the same system "
                                                                      "(default: the other run, when it has two).")] = None
                        ) -> HTMLResponse:
    """Where two runs of one system agree, with a selector for each run."""
    return await _page(request, compare_view, store, a, b, _base(request))


@router.get("/impact-runs", operation_id="embedImpactRuns", response_class=HTMLResponse, responses=_PAGE_ERRORS)
async def embed_impact_runs(request: Request) -> HTMLResponse:
    """The latest push-hook impact run of each repository, for dashboards."""
    from app.embed.impact_runs import impact_runs_view
    from app.hooks import latest_runs, run_log

    settings = request.app.state.settings
    runs = await run_in_threadpool(lambda: latest_runs(run_log(settings)))
    return _html(impact_runs_view(runs, _base(request)), request)
