"""What ``/openapi.json`` declares beyond FastAPI's defaults, so a client generated from it (e.g. by
openapi-python-client) can parse every answer and send every request.

- :class:`ErrorOut`: the one error body every JSON route answers with (``{"error": {…}}``, built by
  the handlers of :mod:`app.rest.main` and by :class:`app.rest.security.BodyLimit`), declared once
  and named by :func:`errors` for each status a route can give; FastAPI's ``{"detail": […]}`` 422
  is never sent, so never declared.
- :data:`READ_BEARER`, :data:`WRITE_BEARER`: the bearer ``securitySchemes`` (Swagger UI's Authorize
  button). They only declare: :mod:`app.rest.security` checks the tokens.
- :func:`open_reads`: on a server without ``CITEGRAPH_READ_TOKEN``, reads declare the token
  optional (the empty requirement ``{}``), so generated clients may call them without one.
- :func:`operation_id`: the fallback of routes without an explicit ``operation_id`` (every route of
  the app names its own, short and stable under refactors: ``restsOn``, ``getDocument``).
- :data:`TAGS`: the tags' order and descriptions.
- :class:`GraphQLRequestIn`, :class:`GraphQLResponseOut` and :func:`graphql_operation`: the two
  ``/graphql`` routes strawberry adds, as a GraphQL-over-HTTP client sees them.
"""

from __future__ import annotations

from typing import Any, Optional

from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer
from pydantic import BaseModel, Field

__all__ = ["ErrorOut", "ErrorBody", "ErrorSource", "Problem", "errors", "READ_BEARER", "WRITE_BEARER",
           "operation_id", "open_reads", "TAGS", "STATUSES", "GraphQLRequestIn", "GraphQLErrorOut", "GraphQLResponseOut",
           "graphql_operation"]


class ErrorSource(BaseModel):
    """Where a refused input is wrong: the file (or ``request``) and its 1-based line."""

    path: str
    line: int


class Problem(BaseModel):
    """One malformed parameter or body field of a 422: where (``query.max_depth``) and what."""

    where: str
    message: str


class ErrorBody(BaseModel):
    """An error: a stable ``code`` (the table of :mod:`app.errors`), a message, a hint or null;
    ``source`` when the error is in an input file, ``details`` (every problem) when the request's
    parameters or body are malformed."""

    code: str = Field(description="UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, PRECONDITION_FAILED, "
                                  "INVALID_INPUT, LIMIT_EXCEEDED, BAD_REQUEST, PAYLOAD_TOO_LARGE, UNAVAILABLE, "
                                  "MISCONFIGURED, INTERNAL …")
    message: str
    hint: Optional[str] = Field(description="What to do about it, or null.")
    source: Optional[ErrorSource] = Field(None, description="Only for an error in an input file.")
    details: Optional[list[Problem]] = Field(None, description="Only for malformed parameters or body (422).")


class ErrorOut(BaseModel):
    """The body of every error answer of the REST routes: ``{"error": {…}}``."""

    error: ErrorBody


STATUSES: dict[int | str, str] = {
    400: "A bad request (BAD_REQUEST): a version without its set, a depth over the server's limit "
         "(LIMIT_EXCEEDED).",
    401: "No bearer token where one is needed (UNAUTHENTICATED); the answer carries `WWW-Authenticate: Bearer`.",
    403: "The token does not allow this, or the operation is disabled on this server (FORBIDDEN).",
    404: "No such set, version, document, record or source (NOT_FOUND); the hint names the closest.",
    409: "The input declares again what another document already declares (CONFLICT).",
    412: "`If-Match` or `If-None-Match` does not hold for the stored member (PRECONDITION_FAILED).",
    413: "The request body is over the server's limit (PAYLOAD_TOO_LARGE).",
    422: "Malformed parameters or body (INVALID_INPUT, `details` lists each problem), or an input file "
         "that does not parse (`source` names file and line).",
    "default": "Any other error: the store unavailable (503 UNAVAILABLE), a server misconfigured or an "
               "unexpected error (500, message masked).",
}
"""What each status means on this API (the descriptions :func:`errors` declares)."""


CHALLENGE = {"WWW-Authenticate": {"description": "`Bearer` (RFC 6750).", "schema": {"type": "string"}}}
"""The header of a 401."""


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route (or router) that can answer ``statuses``, each with
    :class:`ErrorOut`, plus ``default`` (503, 500).

    >>> sorted(errors(404, 422), key=str)
    [404, 422, 'default']
    """
    keys: tuple[int | str, ...] = (*statuses, "default")
    answers: dict[int | str, dict[str, Any]] = {
        status: {"model": ErrorOut, "description": STATUSES[status]} for status in keys}
    if 401 in answers:
        answers[401]["headers"] = CHALLENGE
    return answers


READ_BEARER = HTTPBearer(
    scheme_name="readToken", auto_error=False,
    description="`Authorization: Bearer <CITEGRAPH_READ_TOKEN>` (the write token also reads). Reads are open unless "
                "the server sets CITEGRAPH_READ_TOKEN.")
"""The read token's security scheme (declares only; :func:`app.rest.security.require_read` checks)."""
WRITE_BEARER = HTTPBearer(
    scheme_name="writeToken", auto_error=False,
    description="`Authorization: Bearer <CITEGRAPH_WRITE_TOKEN>`: every write; writes are disabled (403) unless "
                "the server sets CITEGRAPH_WRITE_TOKEN.")
"""The write token's security scheme (declares only; :func:`app.rest.security.require_write` checks)."""


READS: list[dict[str, list[str]]] = [{"readToken": []}, {"writeToken": []}]
"""The security requirement of a read: either token (:data:`READ_BEARER`, :data:`WRITE_BEARER`)."""


def open_reads(app: FastAPI) -> None:
    """Make ``app``'s OpenAPI declare its reads' token optional (``security`` ends with ``{}``):
    for a server whose reads are open (no ``CITEGRAPH_READ_TOKEN``); writes still need theirs."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()  # FastAPI keeps it as app.openapi_schema
        for operations in schema["paths"].values():
            for operation in operations.values():
                if operation.get("security") == READS:
                    operation["security"] = [*READS, {}]
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def operation_id(route: APIRoute) -> str:
    """The operationId of a route that names none: its function's name in camelCase.

    >>> from fastapi.routing import APIRoute
    >>> operation_id(APIRoute("/x", lambda: None, name="list_things"))
    'listThings'
    """
    head, *rest = route.name.split("_")
    return head + "".join(word.capitalize() for word in rest)


TAGS = [
    {"name": "records", "description": "Records, their citations and what rests on them (also on sources and cited "
                                       "files)."},
    {"name": "documents", "description": "Ingested members and their ETags."},
    {"name": "sets", "description": "Analysis sets, store totals and the check findings."},
    {"name": "search", "description": "Full-text search over statements."},
    {"name": "render", "description": "Documents and reports rebuilt from the graph: Markdown, text or HTML."},
    {"name": "history", "description": "Versions of a set, their diff, runs of a system and their comparison."},
    {"name": "impact", "description": "What a change to the analysed source puts in doubt."},
    {"name": "export", "description": "A set's graph (or the store's) as GraphML, node-link JSON or CSV."},
    {"name": "writes", "description": "Ingest, replace and delete members and sets (the write token)."},
    {"name": "graphql", "description": "The GraphQL API; GraphiQL in a browser."},
    {"name": "embed", "description": "Embeddable pages: the graph beside a report."},
    {"name": "health", "description": "Liveness and the store's totals."},
]
"""The tags of the API, in the order the docs show them."""


class GraphQLRequestIn(BaseModel):
    """A GraphQL-over-HTTP request (``POST /graphql``, ``application/json``)."""

    query: str = Field(description="The GraphQL document.")
    variables: Optional[dict[str, Any]] = None
    operationName: Optional[str] = Field(None, description="Which operation of the document to run.")
    extensions: Optional[dict[str, Any]] = None


class GraphQLErrorOut(BaseModel):
    """One GraphQL error; ``extensions.code`` is the code of :mod:`app.errors` (``NOT_FOUND``,
    ``LIMIT_EXCEEDED`` …), ``extensions.hint`` its hint."""

    message: str
    locations: Optional[list[dict[str, int]]] = None
    path: Optional[list[str | int]] = None
    extensions: Optional[dict[str, Any]] = None


class GraphQLResponseOut(BaseModel):
    """A GraphQL response: ``data`` (null when execution failed), absent when the request itself
    was refused (it does not parse, is invalid or over a limit); ``errors`` when there are any."""

    data: Optional[dict[str, Any]] = None
    errors: Optional[list[GraphQLErrorOut]] = None
    extensions: Optional[dict[str, Any]] = None


_REFUSED = {"description": "Not a GraphQL-over-HTTP request: no query, a body that is not JSON, or an operation "
                           "that cannot run by this method (strawberry's reason, as text).",
            "content": {"text/plain": {"schema": {"type": "string"}}}}
_GET_PARAMETERS = [
    {"name": "query", "in": "query", "required": False, "schema": {"type": "string"},
     "description": "The GraphQL document (a query; mutations need POST). Without it a browser gets GraphiQL."},
    {"name": "variables", "in": "query", "required": False, "schema": {"type": "string"},
     "description": "The variables, as a JSON object."},
    {"name": "operationName", "in": "query", "required": False, "schema": {"type": "string"}},
]


def graphql_operation(method: str) -> dict[str, Any]:
    """The keyword arguments of :meth:`fastapi.APIRouter.add_api_route` describing strawberry's
    ``GET`` or ``POST`` ``/graphql`` route (operationIds ``graphqlGet`` and ``graphql``)."""
    responses: dict[int | str, dict[str, Any]] = {**errors(401, 403), 400: _REFUSED}
    common = {"tags": ["graphql"], "responses": responses}
    result = {"model": GraphQLResponseOut, "description": "The GraphQL response (request errors included, as "
                                                           "GraphQL-over-HTTP asks of application/json)."}
    if method == "GET":
        responses[200] = {**result, "content": {"text/html": {"schema": {"type": "string"}}},
                          "description": "With `query`, the GraphQL response; a browser (`Accept: "
                                         "text/html`) gets GraphiQL."}
        return {**common, "operation_id": "graphqlGet", "summary": "GraphQL query by GET (or GraphiQL)",
                "description": "A query in the URL (`?query=…&variables=…`), for caches and links; GraphiQL "
                               "for a browser, opening on `?query=` when given.",
                "openapi_extra": {"parameters": _GET_PARAMETERS}}
    responses[200] = result
    responses[413] = {"model": ErrorOut, "description": STATUSES[413]}
    return {**common, "operation_id": "graphql", "summary": "GraphQL query or mutation",
            "description": "A GraphQL-over-HTTP request as JSON. Mutations (ingest, delete) also need the write "
                           "token.",
            "openapi_extra": {"requestBody": {"required": True, "content": {"application/json": {
                "schema": _untitled(GraphQLRequestIn.model_json_schema())}}}}}


def _untitled(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its title (generators then name the body after the operation)."""
    return {k: v for k, v in schema.items() if k != "title"}
