"""The API docs and the start page, working without internet access.

- ``GET /docs``: Swagger UI and ``GET /redoc``: ReDoc, FastAPI's own pages loading Swagger UI
  (``swagger-ui-dist``) and ReDoc's standalone bundle from the copies ``scripts/vendor-js`` took from
  the npm registry (``/embed/static/vendor/swagger-ui/``, ``…/redoc/``; ReDoc's as
  ``/redoc/redoc.standalone.js``, its CDN logo blanked by :func:`redoc_bundle`), like GraphiQL's
  assets; no CDN, no Google fonts, no online validator badge. Without the vendored files (an install with
  ``CITEGRAPH_SKIP_VENDOR_JS=1``) the pages load from FastAPI's CDN defaults, and the log says so.
- ``GET /``: a start page linking GraphiQL (opening on the mission's question), the API docs, the
  analysis sets (their JSON and their rendered page) and an example embedded view, with the kind
  of store it serves (never its folder). One self-contained page under the embedded views' strict policy (no script).
"""

from __future__ import annotations

import html
import logging
from functools import lru_cache
from pathlib import Path
from typing import TypedDict
from urllib.parse import quote, urlencode

from fastapi import Depends, FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.embed.routes import VENDOR_DIR
from app.embed.security import embed_policy
from app.rest.security import require_read
from app.wiring import store_kind
from graph.store import GraphStore

__all__ = ["SWAGGER_FILES", "REDOC_FILE", "DOCS_POLICY", "OPENAPI_URL", "REDOC_LOGO", "BLANK_IMAGE", "REDOC_URL",
           "redoc_bundle", "mount_docs", "start_page"]

log = logging.getLogger("citegraph")

SWAGGER_FILES = ("swagger-ui/swagger-ui-bundle.js", "swagger-ui/swagger-ui.css", "swagger-ui/favicon-32x32.png")
"""Swagger UI's files under :data:`app.embed.routes.VENDOR_DIR`."""
REDOC_FILE = "redoc/redoc.standalone.js"
"""ReDoc's bundle under :data:`app.embed.routes.VENDOR_DIR`."""

OPENAPI_URL = "/openapi.json"
"""Where the OpenAPI document is served (by :func:`mount_docs`, behind the read token: the app is
built with ``openapi_url=None``)."""

START_SETS = 50
"""Sets the start page lists (the rest behind a link to ``/sets``), so it loads fast on any store."""

DOCS_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
"""The ``Content-Security-Policy`` of ``/docs`` and ``/redoc`` with vendored assets: everything from
the app itself (FastAPI's pages start Swagger UI with an inline script; both libraries style inline;
ReDoc's search runs in a worker made from a blob), nothing from elsewhere, so the pages work offline
and cannot call out (ReDoc's side menu loads Redocly's logo from its CDN: :func:`redoc_bundle` serves
the bundle with a blank inline image in its place, so the policy has nothing to refuse)."""

REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
"""The image ReDoc's side menu loads from Redocly's CDN, whatever its options (redoc 2.5)."""
BLANK_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E"
"""What ReDoc's menu shows instead: nothing (the "API docs by Redocly" link stays)."""
REDOC_URL = "/redoc/redoc.standalone.js"
"""Where the app serves :func:`redoc_bundle`."""


@lru_cache(maxsize=2)
def redoc_bundle(path: Path) -> bytes:
    """ReDoc's vendored standalone bundle with :data:`REDOC_LOGO` replaced by :data:`BLANK_IMAGE`:
    the docs' policy would refuse the CDN image and the browser log a console error for it (and
    offline, nothing may be fetched from elsewhere). A bundle without that URL is served as it is."""
    return path.read_bytes().replace(REDOC_LOGO.encode("ascii"), BLANK_IMAGE.encode("ascii"))


class _SwaggerAssets(TypedDict, total=False):
    """Where Swagger UI's files are served from when vendored (else FastAPI's defaults, a CDN)."""

    swagger_js_url: str
    swagger_css_url: str
    swagger_favicon_url: str


def _base(request: Request) -> str:
    return request.scope.get("root_path", "").rstrip("/")


def mount_docs(app: FastAPI) -> None:
    """Add ``/docs``, ``/redoc``, :data:`OPENAPI_URL` and ``/`` to ``app`` (built with
    ``docs_url=None, redoc_url=None, openapi_url=None``), each behind the read token like every
    read, and say in the log whether the docs' assets are vendored."""
    vendored = all((VENDOR_DIR / f).is_file() for f in (*SWAGGER_FILES, REDOC_FILE))
    if vendored:
        log.info("API docs: Swagger UI and ReDoc served from the app (%s)", VENDOR_DIR)
    else:
        log.warning("API docs: Swagger UI / ReDoc files MISSING under %s; /docs and /redoc load them from a CDN, so "
                    "they need a browser with internet access. Run scripts/vendor-js (make install does).", VENDOR_DIR)

    guarded = [Depends(require_read)]

    @app.get(OPENAPI_URL, include_in_schema=False, dependencies=guarded)
    async def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False, dependencies=guarded)
    async def swagger_ui(request: Request) -> HTMLResponse:
        base = _base(request)
        assets: _SwaggerAssets = {}
        if vendored:
            static = f"{base}/embed/static/vendor"
            assets = {"swagger_js_url": f"{static}/{SWAGGER_FILES[0]}", "swagger_css_url": f"{static}/{SWAGGER_FILES[1]}",
                      "swagger_favicon_url": f"{static}/{SWAGGER_FILES[2]}"}
        page = get_swagger_ui_html(openapi_url=f"{base}{OPENAPI_URL}", title="citegraph API (Swagger UI)",
                                   swagger_ui_parameters={"validatorUrl": None, "tryItOutEnabled": True}, **assets)
        if vendored:
            page.headers["Content-Security-Policy"] = DOCS_POLICY
        return page

    @app.get("/redoc", include_in_schema=False, dependencies=guarded)
    async def redoc(request: Request) -> HTMLResponse:
        base = _base(request)
        assets = {}
        if vendored:
            static = f"{base}/embed/static/vendor"
            assets = {"redoc_js_url": f"{base}{REDOC_URL}", "redoc_favicon_url": f"{static}/{SWAGGER_FILES[2]}"}
        page = get_redoc_html(openapi_url=f"{base}{OPENAPI_URL}", title="citegraph API (ReDoc)",
                              with_google_fonts=False, **assets)
        if vendored:
            page.headers["Content-Security-Policy"] = DOCS_POLICY
        return page

    if vendored:
        @app.get(REDOC_URL, include_in_schema=False, dependencies=guarded)
        async def redoc_script() -> Response:
            return Response(redoc_bundle(VENDOR_DIR / REDOC_FILE), media_type="text/javascript; charset=utf-8",
                            headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/", include_in_schema=False, response_class=HTMLResponse, dependencies=guarded)
    async def start(request: Request) -> HTMLResponse:
        store: GraphStore = request.app.state.store
        page = await run_in_threadpool(start_page, store, _base(request))
        return HTMLResponse(page, headers={"Content-Security-Policy": embed_policy([]),
                                           "Referrer-Policy": "same-origin"})


def start_page(store: GraphStore, base: str = "") -> str:
    """The start page's HTML: links to GraphiQL (with the example query), ``/docs``, ``/redoc``,
    ``/openapi.json``, each analysis set (``/sets/{id}`` and ``/sets/{id}/render?format=html``) and
    the example embedded view of :func:`queries.catalog.example_record`, with its ``<iframe>`` code.
    Every value from the store is escaped."""
    from app.graphql.ide import example_query
    from queries.catalog import analysis_sets, example_record

    from graph.model import Label

    e = html.escape
    total = len(store.find_nodes(Label.ANALYSIS_SET))
    sets = analysis_sets(store, limit=START_SETS)
    example = example_record(store)
    graphiql = f"{base}/graphql?" + urlencode({"query": example_query(example)}, quote_via=quote)
    def count(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    items = "".join(
        f'<li><strong>{e(s.id)}</strong> ({e(s.system or "")}): {count(len(s.documents), "document")}, '
        f'{count(s.statements, "statement")}, {count(s.records, "record")} — '
        f'<a href="{e(base)}/sets/{quote(s.id)}/render?format=html">read it</a>, '
        f'<a href="{e(base)}/sets/{quote(s.id)}">JSON</a>, '
        f'<a href="{e(base)}/export?{urlencode({"format": "graphml", "set": s.id})}">GraphML</a></li>'
        for s in sets) or "<li>none yet: <code>citegraph ingest corpus/seeds</code> adds the seeds</li>"
    if total > len(sets):
        items += (f'<li>… and {total - len(sets)} more: <a href="{e(base)}/sets">all {total} sets</a> '
                  f'(<code>citegraph sets</code>)</li>')
    embed = ""
    if example is not None:
        record_id, set_id = example
        src = f"{base}/embed/rests-on/{quote(record_id)}?{urlencode({'set': set_id})}"
        code = (f'<iframe src="https://citegraph.example.org{src}" width="1200" height="800" '
                f'title="What rests on {record_id}"></iframe>')
        embed = (f'<h2>An embedded view</h2>\n<p><a href="{e(src)}">What rests on {e(record_id)}</a> (set '
                 f'{e(set_id)}): the graph beside the report, for dashboards.</p>\n<pre>{e(code)}</pre>\n')
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>citegraph</title>
<link rel="stylesheet" href="{e(base)}/embed/static/embed.css">
</head>
<body class="cg-start">
<h1>citegraph</h1>
<p>Analysis documents as a knowledge graph: records, citations, quotations, and what rests on them.
Serving the {e(store_kind(store))}.</p>
<h2>Query it</h2>
<ul>
<li><a id="graphiql" href="{e(graphiql)}">GraphiQL</a>: the GraphQL API in the browser, opening on the question
“what rests on {e(example[0] if example else 'a record')}?”</li>
<li><a href="{e(base)}/docs">REST API docs (Swagger UI)</a>, <a href="{e(base)}/redoc">the same in ReDoc</a>,
<a href="{e(base)}/openapi.json">OpenAPI</a></li>
<li><a href="{e(base)}/search?q=compare-and-swap">Search</a> (<code>/search?q=…</code>), <a href="{e(base)}/stats">stats</a></li>
</ul>
<h2>Analysis sets ({total})</h2>
<ul id="sets">{items}</ul>
{embed}</body>
</html>
"""
