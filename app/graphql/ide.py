"""GraphiQL at ``/graphql`` from the app's own files: strawberry's GraphiQL page, with each unpkg.com
URL it names (React, ReactDOM, js-cookie, graphiql, @graphiql/plugin-explorer, at the versions
strawberry pins) replaced by the copy ``scripts/vendor-js`` took from the npm registry, served at
``/embed/static/vendor/graphiql/<package>@<version>/<path>``. The page then works without internet
access.

The tags keep strawberry's ``integrity`` hashes, so the browser itself checks that the vendored bytes
are the ones strawberry pinned; the router checks the same when it is built. When a file is missing
(``CITEGRAPH_SKIP_VENDOR_JS=1`` installs), differs, or strawberry's page names a version that was not
vendored, ``/graphql`` serves strawberry's page unchanged (assets from the CDN) and the log says so
once. The page is titled :data:`TITLE` and opens on :func:`example_query`.

:class:`GraphiQLRouter` also fixes what a GraphQL-over-HTTP client sees of strawberry's two routes:
their OpenAPI (operationIds, body, answers), no ``data`` entry for a request error, a 400 (not a
500) for a body that is not a UTF-8 JSON object.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import logging
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cross_web import HTTPException
from fastapi import Request
from fastapi.routing import APIWebSocketRoute
from fastapi.responses import HTMLResponse
from strawberry.fastapi import GraphQLRouter
from strawberry.http import GraphQLHTTPResponse
from strawberry.http.ides import get_graphql_ide_html
from strawberry.types.execution import ExecutionResult, PreExecutionError

from app.embed.routes import VENDOR_DIR
from app.rest.openapi import graphql_operation

__all__ = ["GRAPHIQL_DIR", "GRAPHIQL_URL", "CDN_PREFIX", "LocalGraphiQL", "local_graphiql", "example_query",
           "with_example", "GraphiQLRouter"]

log = logging.getLogger("citegraph.graphql")

GRAPHIQL_DIR = VENDOR_DIR / "graphiql"
"""Where ``scripts/vendor-js`` copies GraphiQL's files, as ``<package>@<version>/<path>`` (gitignored)."""
GRAPHIQL_URL = "/embed/static/vendor/graphiql"
"""Where the app serves :data:`GRAPHIQL_DIR` (the ``/embed/static`` mount of :mod:`app.embed.routes`),
below the app's root path."""
CDN_PREFIX = "https://unpkg.com/"
"""The CDN strawberry's GraphiQL page loads its assets from."""

_ASSET_TAG = re.compile(r"<(?:script|link)\b[^>]*>", re.IGNORECASE)
_ASSET_URL = re.compile(r"""\b(?:src|href)\s*=\s*["'](https?://[^"']+)["']""", re.IGNORECASE)
_INTEGRITY = re.compile(r"""\bintegrity\s*=\s*["'](sha256|sha384|sha512)-([^"']+)["']""", re.IGNORECASE)


@dataclass(frozen=True)
class LocalGraphiQL:
    """Strawberry's GraphiQL page and the vendored file standing in for each CDN URL it names.

    ``files`` maps each CDN URL (e.g. ``https://unpkg.com/react@18.2.0/umd/react.production.min.js``)
    to its path under :data:`GRAPHIQL_DIR` (``react@18.2.0/umd/react.production.min.js``).
    """

    page: str
    files: dict[str, str]

    def render(self, base: str) -> str:
        """The page with every CDN URL replaced by ``{base}/embed/static/vendor/graphiql/<path>``.

        >>> LocalGraphiQL('<script src="https://unpkg.com/a@1/a.js"></script>',
        ...               {"https://unpkg.com/a@1/a.js": "a@1/a.js"}).render("/p")
        '<script src="/p/embed/static/vendor/graphiql/a@1/a.js"></script>'
        """
        page = self.page
        for url, path in self.files.items():
            page = page.replace(url, html.escape(f"{base}{GRAPHIQL_URL}/{quote(path, safe='/@')}", quote=True))
        return page


def _sri(data: bytes, algorithm: str) -> str:
    return base64.b64encode(hashlib.new(algorithm, data).digest()).decode("ascii")


def local_graphiql(page: str, directory: Path) -> tuple[LocalGraphiQL | None, list[str]]:
    """Strawberry's GraphiQL ``page`` served from the files vendored in ``directory``, if it can be.

    Parameters
    ----------
    page : str
        Strawberry's GraphiQL HTML (``strawberry.http.ides.get_graphql_ide_html``).
    directory : Path
        Vendored files as ``<package>@<version>/<path>``, the layout of the page's unpkg.com URLs.

    Returns
    -------
    (LocalGraphiQL or None, list of str)
        The local page and no problems; or None and why not, one line per script or stylesheet tag:
        a file that is missing, one whose bytes do not match the tag's ``integrity`` hash, or a URL
        on a host other than unpkg.com.

    Examples
    --------
    >>> local_graphiql('<script src="https://unpkg.com/a@1/a.js"></script>', Path("/nonexistent"))[1]
    ['missing /nonexistent/a@1/a.js (for https://unpkg.com/a@1/a.js)']
    """
    files: dict[str, str] = {}
    problems: list[str] = []
    for tag in _ASSET_TAG.findall(page):
        found = _ASSET_URL.search(tag)
        if not found:
            continue
        url = found.group(1)
        if not url.startswith(CDN_PREFIX):
            problems.append(f"{url} is not on {CDN_PREFIX}")
            continue
        relative = url[len(CDN_PREFIX):].split("?")[0].split("#")[0]
        path = directory / relative
        if ".." in Path(relative).parts or not path.is_file():
            problems.append(f"missing {path} (for {url})")
            continue
        integrity = _INTEGRITY.search(tag)
        if integrity and _sri(path.read_bytes(), integrity.group(1).lower()) != integrity.group(2):
            problems.append(f"{path} does not match the {integrity.group(1)} hash strawberry pins for {url}")
            continue
        files[url] = relative
    return (None if problems or not files else LocalGraphiQL(page, files)), problems


_EXAMPLE = re.compile(r"const EXAMPLE_QUERY = `.*?`;", re.DOTALL)
_QUERY_PARAMETER = "parameters.q || EXAMPLE_QUERY"


COMMENT_WIDTH = 50
"""Longest line of the example query's comments and fields, in characters: the editor's toolbar
(run, prettify, merge, copy) covers the text from about 52 characters on at a 1280 px window."""

TITLE = "citegraph GraphiQL"
"""The GraphiQL page's title (strawberry's says "Strawberry GraphiQL")."""


def example_query(example: tuple[str, str] | None) -> str:
    """The query GraphiQL opens with: the mission's question about ``example`` (``(record ID,
    set)``, :func:`queries.catalog.example_record`), or the store's sets when it is empty; its
    comments wrapped at :data:`COMMENT_WIDTH`, one argument a line.

    >>> print(example_query(("RT-RTE-mcp-write", "tolaria")))
    # What rests on RT-RTE-mcp-write? Every statement
    # resting on the record, with the citation path
    # that explains it. Run it with ▶ or Ctrl-Enter;
    # the Docs pane lists every field.
    {
      restsOn(
        record: "RT-RTE-mcp-write"
        set: "tolaria"
      ) {
        count
        results { statement direct depth text path }
      }
    }
    <BLANKLINE>
    """
    if example is None:
        return (_comment("The store holds no analysis set yet: `citegraph ingest corpus/seeds` adds the seeds.")
                + "{\n  sets { totalCount edges { node { nodeId system } } }\n}\n")
    record_id, set_id = example
    return (_comment(f"What rests on {record_id}? Every statement resting on the record, with the citation "
                     "path that explains it. Run it with ▶ or Ctrl-Enter; the Docs pane lists every field.")
            + "{\n"
            "  restsOn(\n"
            f"    record: {json.dumps(record_id)}\n"
            f"    set: {json.dumps(set_id)}\n"
            "  ) {\n"
            "    count\n"
            "    results { statement direct depth text path }\n"
            "  }\n"
            "}\n")


def _comment(text: str) -> str:
    return "".join(f"# {line}\n" for line in textwrap.wrap(text, COMMENT_WIDTH - 2, break_on_hyphens=False))


_TITLE = re.compile(r"<title>[^<]*</title>")


def with_example(page: str, query: str) -> str | None:
    """Strawberry's GraphiQL ``page`` opening on ``query``, taking a query from ``?query=`` as
    well as strawberry's own ``?q=``, titled :data:`TITLE`; None when the page is not the one this
    expects (then it is served as it is).

    >>> with_example('<title>S</title> const EXAMPLE_QUERY = `# hi`; x(parameters.q || EXAMPLE_QUERY)', "{ a }")
    '<title>citegraph GraphiQL</title> const EXAMPLE_QUERY = "{ a }"; x(parameters.q || parameters.query || EXAMPLE_QUERY)'
    """
    if not _EXAMPLE.search(page) or _QUERY_PARAMETER not in page:
        return None
    literal = json.dumps(query, ensure_ascii=False).replace("<", "\\u003c")  # a JS string that cannot end the script
    page = _EXAMPLE.sub(lambda _: f"const EXAMPLE_QUERY = {literal};", page, count=1)
    page = _TITLE.sub(f"<title>{TITLE}</title>", page, count=1)
    return page.replace(_QUERY_PARAMETER, "parameters.q || parameters.query || EXAMPLE_QUERY", 1)


class GraphiQLRouter(GraphQLRouter):
    """Strawberry's FastAPI router, its GraphiQL page loading from the app's vendored files, its
    two routes described in OpenAPI as a GraphQL-over-HTTP client sees them
    (:func:`app.rest.openapi.graphql_operation`).

    Takes :class:`strawberry.fastapi.GraphQLRouter`'s arguments (``graphql_ide`` is always
    ``"graphiql"``), plus ``graphiql_dir`` (default :data:`GRAPHIQL_DIR`). Built once per app; says in
    the log whether GraphiQL is local or, files missing, loads from the CDN.
    """

    def __init__(self, *args: Any, graphiql_dir: Path | None = None, **kwargs: Any):
        kwargs["graphql_ide"] = "graphiql"
        kwargs["subscription_protocols"] = ()
        super().__init__(*args, **kwargs)
        # The schema has no subscriptions: no WebSocket route, which the HTTP read-token dependency
        # could not guard (its dependencies take a Request).
        self.routes[:] = [route for route in self.routes if not isinstance(route, APIWebSocketRoute)]
        directory = graphiql_dir or GRAPHIQL_DIR
        self.local_graphiql, problems = local_graphiql(get_graphql_ide_html("graphiql"), directory)
        if self.local_graphiql is not None:
            packages = sorted({path.rsplit("@", 1)[0] + "@" + path.rsplit("@", 1)[1].split("/")[0]
                               for path in self.local_graphiql.files.values()})
            log.info("GraphiQL: served from the app (%s, from %s)", ", ".join(packages), directory)
        else:
            log.warning("GraphiQL: vendored files MISSING or not the pinned ones (%s); /graphql loads GraphiQL "
                        "from %s, so it needs a browser with internet access. Run scripts/vendor-js (make install "
                        "does) to vendor it from the npm registry.", "; ".join(problems) or "none named",
                        CDN_PREFIX)

    def add_api_route(self, path: str, endpoint: Any, **kwargs: Any) -> None:
        """Strawberry's route, with the operationId, summary, parameters, body and answers of
        :func:`app.rest.openapi.graphql_operation` (instead of "Handle Http Get")."""
        methods = kwargs.get("methods") or ()
        if len(methods) == 1 and next(iter(methods)).upper() in ("GET", "POST"):
            kwargs.update(graphql_operation(next(iter(methods)).upper()))
        super().add_api_route(path, endpoint, **kwargs)

    def parse_json(self, data: str | bytes) -> Any:
        """The JSON of a request body (or of ``?variables=``), refused with strawberry's 400 when it
        is not UTF-8 or not an object or a list: a GraphQL-over-HTTP request is ``{"query": …}``
        (strawberry would fail on either with a 500)."""
        try:
            value = super().parse_json(data)
        except UnicodeDecodeError as e:
            raise HTTPException(400, "Unable to parse request body as JSON (it is not UTF-8)") from e
        if not isinstance(value, (dict, list)):
            raise HTTPException(400, 'The request must be a JSON object: {"query": "…", "variables": {…}}')
        return value

    async def process_result(self, request: Request, result: ExecutionResult) -> GraphQLHTTPResponse:
        """Strawberry's response, without ``data`` when the request itself was refused (it does
        not parse, fails validation or a limit): the GraphQL spec's request error result ("the
        `data` entry must not be present", §7.1 Response Format; GraphQL-over-HTTP §Body), which
        strawberry sends as ``"data": null``, the answer of a failed execution."""
        response = await super().process_result(request, result)
        if isinstance(result, PreExecutionError):
            response.pop("data", None)
        return response

    def should_render_graphql_ide(self, request: Any) -> bool:
        """GraphiQL for a browser opening ``/graphql`` (its ``Accept`` names ``text/html``), even
        with ``?query=``, which then fills the editor (as express-graphql does); a client asking for
        JSON (``*/*``, ``application/json``) with ``?query=`` gets the query's result."""
        if request.method == "GET" and "text/html" in request.headers.get("accept", ""):
            return True
        return super().should_render_graphql_ide(request)

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        """The GraphiQL page: local assets below the app's root path (or strawberry's CDN page),
        opening on :func:`example_query` about the store's :func:`queries.catalog.example_record`,
        or on the query of ``?query=`` / ``?q=``."""
        from starlette.concurrency import run_in_threadpool

        from queries.catalog import example_record

        if self.local_graphiql is None:
            page = bytes((await super().render_graphql_ide(request)).body).decode("utf-8")
        else:
            page = self.local_graphiql.render(request.scope.get("root_path", "").rstrip("/"))
        store = getattr(request.app.state, "store", None)
        example = await run_in_threadpool(example_record, store) if store is not None else None
        customised = with_example(page, example_query(example))
        if customised is None:
            log.warning("GraphiQL: strawberry's page is not the one expected; it opens on its own example query")
        return HTMLResponse(customised or page)
