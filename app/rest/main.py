"""The FastAPI application: REST routes, GraphQL at ``/graphql``, one error handler."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request, Security
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from fastapi.responses import JSONResponse
from starlette.middleware.cors import CORSMiddleware

from app.embed.routes import mount_embed
from app.embed.security import SecurityHeaders, cors_options
from app.errors import face_of, for_clients, hint_of
from app.graphql.schema import graphql_router
from app.logs import RequestIds, log_client_error
from app.rest.deps import read_version
from app.rest.docs import mount_docs
from app.rest.health import Liveness
from app.rest.openapi import READ_BEARER, TAGS, WRITE_BEARER, errors, open_reads, operation_id
from app.rest.routes import documents, export, history, hooks, impact, records, render, search, sets, sources, writes
from app.rest.schemas import HealthOut
from app.rest.security import BodyLimit, authorization_of, bearer_challenge, check_read, require_read
from app.settings import Settings, get_settings
from app.wiring import open_store
from graph.errors import CitegraphError
from graph.store import GraphStore

__all__ = ["create_app"]

logger = logging.getLogger("citegraph")


def create_app(settings: Settings | None = None, *, store: GraphStore | None = None) -> FastAPI:
    """Build the app.

    Parameters
    ----------
    settings : Settings, optional
        Defaults to :func:`get_settings`.
    store : GraphStore, optional
        Use this store instead of opening the one the settings select (tests); the app then does
        not close it.
    """
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        owned = store is None
        app.state.store = open_store(settings) if owned else store
        app.state.liveness = Liveness()
        try:
            yield
        finally:
            if owned:
                app.state.store.close()

    app = FastAPI(title="citegraph", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None,
                  description="Knowledge graph of agentic-system analysis documents.", openapi_tags=TAGS,
                  generate_unique_id_function=operation_id)
    app.state.settings = settings
    if store is not None:
        app.state.store = store  # usable before (and without) the lifespan, e.g. by ASGI test clients

    @app.exception_handler(CitegraphError)
    async def citegraph_error(request: Request, exc: CitegraphError) -> JSONResponse:
        face = face_of(exc)
        home = settings.home
        error: dict[str, object] = {"code": face.code, "message": for_clients(exc.message, home),
                                    "hint": for_clients(hint_of(exc), home)}
        if exc.source:
            error["source"] = {"path": exc.source.path, "line": exc.source.line}
        body = {"error": error}
        if face.status < 500:
            log_client_error(face.code, exc.message, status=face.status)
        else:  # the store's trouble, not a bug: one line, no traceback
            logger.error("%s %d on %s %s: %s", face.code, face.status, request.method, request.url.path, exc.message)
        challenge = bearer_challenge(exc)
        headers = {"WWW-Authenticate": challenge} if challenge else None
        return JSONResponse(body, status_code=face.status, headers=headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
        code = codes.get(exc.status_code, "BAD_REQUEST")
        body = {"error": {"code": code, "message": exc.detail, "hint": None}}
        log_client_error(code, str(exc.detail), status=exc.status_code)
        return JSONResponse(body, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [{"where": ".".join(str(p) for p in e.get("loc", ())), "message": e.get("msg", "")}
                    for e in exc.errors()]
        first = problems[0] if problems else {"where": "request", "message": "invalid request"}
        message = f"{first['where']}: {first['message']}"
        body = {"error": {"code": "INVALID_INPUT", "message": message, "hint": None, "details": problems}}
        log_client_error("INVALID_INPUT", message, status=422)
        return JSONResponse(body, status_code=422)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unexpected error on %s %s", request.method, request.url.path)
        face = face_of(exc)
        return JSONResponse({"error": {"code": face.code, "message": "internal error", "hint": None}},
                            status_code=face.status)

    @app.get("/health", response_model=HealthOut, response_model_exclude_none=True, tags=["health"],
             operation_id="health", responses=errors())
    async def health(request: Request) -> HealthOut:
        """Liveness (503 when the store does not answer) plus the store's kind and totals, as the
        store answered at most :data:`app.rest.health.MAX_AGE` seconds ago
        (:class:`app.rest.health.Liveness`); with ``CITEGRAPH_READ_TOKEN`` set, the kind and totals
        only for the read or write token (open to probes, which send none: ``{"status": "ok"}``)."""
        nodes, edges = await request.app.state.liveness.totals(request.app.state.store)  # a store that is down: 503
        try:
            check_read(authorization_of(request), settings)
        except CitegraphError:  # no token, a wrong one, a malformed header: liveness only, never an error
            return HealthOut(status="ok")
        return HealthOut(status="ok", store=settings.store or "embedded", nodes=nodes, edges=edges)

    # reads: either token when CITEGRAPH_READ_TOKEN is set; the Security entries only declare the schemes
    reads = [Depends(require_read), Security(READ_BEARER), Security(WRITE_BEARER)]
    versioned = [*reads, Depends(read_version)]  # ?version=N reads the set at version N
    answers = errors(400, 401, 403, 404, 422)  # every read route's error statuses, declared with the error body
    app.include_router(render.router, dependencies=versioned, responses=answers)  # before documents: its paths hold ids with slashes
    app.include_router(history.router, dependencies=reads, responses=answers)  # before documents and sets, for the same reason
    for routes in (documents, records, sources, search, export, sets):
        app.include_router(routes.router, dependencies=versioned, responses=answers)
    app.include_router(writes.router, dependencies=[Security(WRITE_BEARER)])  # each write route requires the write token itself
    app.include_router(impact.router, dependencies=reads, responses={**answers, **errors(413)})
    app.include_router(hooks.runs_router, dependencies=reads, responses=answers)
    app.include_router(hooks.hooks_router)  # no bearer token: the git host signs each delivery (app.hooks)
    app.include_router(graphql_router(), prefix="/graphql", dependencies=reads)
    mount_embed(app)  # /embed pages, their JSON twin and /embed/static
    mount_docs(app)  # /docs, /redoc from vendored files and the start page /
    if settings.read_token is None:
        open_reads(app)  # the spec says reads need no token here
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(CORSMiddleware, **cors_options(settings.embed_origins))  # only CITEGRAPH_EMBED_ORIGINS
    app.add_middleware(SecurityHeaders)  # nosniff and frame-ancestors on every response
    app.add_middleware(RequestIds)  # outermost: every answer and log line of a request carries its id
    return app
