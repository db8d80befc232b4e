"""Bearer-token checks and the request body limit."""

from __future__ import annotations

import hmac
import re
from typing import Annotated
from collections.abc import Iterator

from fastapi import Depends, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.rest.deps import SettingsDep
from app.settings import Settings
from graph.errors import AccessDenied, CitegraphError, MalformedCredentials, Unauthenticated

__all__ = ["bearer_token", "bearer_challenge", "authorization_of", "check_read", "check_write", "require_read", "require_write",
           "ReadAccess", "WriteAccess", "BodyLimit"]

_SCHEME = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
"""RFC 7235 §2.1 ``auth-scheme = token`` (RFC 7230 §3.2.6 ``tchar``)."""
_CREDENTIALS = re.compile(rf"(?P<scheme>{_SCHEME})(?: +(?P<rest>.*))?", re.S)
"""RFC 7235 §4.2 ``credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]``."""
_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
"""RFC 6750 §2.1 ``b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="``."""


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization`` header value holding Bearer credentials, or None when
    there is no header or it holds another scheme's credentials (``Basic …``).

    Exactly RFC 6750 §2.1 (``credentials = "Bearer" 1*SP b64token``) within RFC 7235 §2.1/§4.2:
    the scheme is matched case-insensitively (``bearer``, ``BEARER``), one or more spaces (SP
    only) separate it from the token, and the token is one ``b64token``; nothing may follow it
    (an HTTP server strips the field's own trailing whitespace before the app sees it).

    >>> bearer_token("bearer mF_9.B5f-4.1JqM"), bearer_token("Basic dXNlcjpwYXNz"), bearer_token(None)
    ('mF_9.B5f-4.1JqM', None, None)

    Raises
    ------
    MalformedCredentials
        Anything else: a scheme alone, a token with a space, tab, comma, quote or non-ASCII
        character in or after it, a tab before it, an empty value (HTTP 400, ``invalid_request``).
    """
    if authorization is None:
        return None
    match = _CREDENTIALS.fullmatch(authorization)
    if match is None:
        raise MalformedCredentials("the Authorization header is not credentials of RFC 7235 (a scheme, then a "
                                   "space and the credentials)", data={"bearer_error": "invalid_request"})
    if match["scheme"].lower() != "bearer":
        return None
    token = match["rest"]
    if token is None or not _B64TOKEN.fullmatch(token):
        raise MalformedCredentials("the Authorization header's Bearer credentials are malformed: RFC 6750 wants "
                                   "one token of letters, digits and - . _ ~ + / (then = padding) after "
                                   "'Bearer ', and nothing after it", data={"bearer_error": "invalid_request"})
    return token


def bearer_challenge(error: CitegraphError) -> str | None:
    """The ``WWW-Authenticate`` value answering ``error`` (RFC 6750 §3): ``Bearer`` when a token
    is missing, with ``error="invalid_request"`` (malformed credentials, 400), ``"invalid_token"``
    (a token that is neither configured one, 401) or ``"insufficient_scope"`` (a token that may
    not do this, 403); None for errors that are not about the token."""
    code = error.data.get("bearer_error")
    if isinstance(error, Unauthenticated) and not code:
        return 'Bearer realm="citegraph"'
    return f'Bearer realm="citegraph", error="{code}"' if code else None


def _matches(given: str, secret) -> bool:
    """Whether ``given`` is the ``secret`` token, in constant time (both are ASCII ``b64token``
    text: :func:`bearer_token` and the settings accept no other)."""
    if secret is None:
        return False
    return hmac.compare_digest(given.encode("ascii"), secret.get_secret_value().encode("ascii"))


def check_write(authorization: str | None, settings: Settings) -> None:
    """Writes need ``Authorization: Bearer <CITEGRAPH_WRITE_TOKEN>``.

    Raises
    ------
    MalformedCredentials
        See :func:`bearer_token` (HTTP 400).
    Unauthenticated
        No bearer token, or one that is neither configured token (HTTP 401).
    AccessDenied
        The read token, or no write token configured: writes disabled (HTTP 403).
    """
    if settings.write_token is None:
        raise AccessDenied("writes are disabled: set CITEGRAPH_WRITE_TOKEN to enable them")
    given = bearer_token(authorization)
    if given is None:
        raise Unauthenticated("writes need Authorization: Bearer <token>")
    if _matches(given, settings.write_token):
        return
    if _matches(given, settings.read_token):
        raise AccessDenied("the bearer token does not allow writes", data={"bearer_error": "insufficient_scope"})
    raise Unauthenticated("the bearer token is not one this server accepts", data={"bearer_error": "invalid_token"})


def check_read(authorization: str | None, settings: Settings) -> None:
    """Reads are open unless ``CITEGRAPH_READ_TOKEN`` is set; then the read or the write token is
    needed.

    Raises
    ------
    MalformedCredentials
        See :func:`bearer_token` (HTTP 400).
    Unauthenticated
        No bearer token, or one that is neither configured token (HTTP 401).
    """
    if settings.read_token is None:
        return
    given = bearer_token(authorization)
    if given is None:
        raise Unauthenticated("reads need Authorization: Bearer <token>")
    if not (_matches(given, settings.read_token) or _matches(given, settings.write_token)):
        raise Unauthenticated("the bearer token is not one this server accepts", data={"bearer_error": "invalid_token"})


def authorization_of(request: Request) -> str | None:
    """The request's one ``Authorization`` header value, or None.

    Raises
    ------
    MalformedCredentials
        Two or more ``Authorization`` headers: the field is not a list (RFC 7235 §4.2), so which one
        counts is undefined (HTTP 400, ``invalid_request``).
    """
    values = request.headers.getlist("authorization")
    if len(values) > 1:
        raise MalformedCredentials(f"{len(values)} Authorization headers: send one",
                                   data={"bearer_error": "invalid_request"})
    return values[0] if values else None


def require_write(request: Request, settings: SettingsDep) -> Iterator[None]:
    """FastAPI dependency: :func:`check_write` on the request; while the write's route runs (and
    until its answer is sent) ``/health`` keeps no totals (:meth:`app.rest.health.Liveness.writing`)."""
    check_write(authorization_of(request), settings)
    liveness = getattr(request.app.state, "liveness", None)
    if liveness is None:
        yield
        return
    liveness.writing()
    try:
        yield
    finally:
        liveness.written()


async def require_read(request: Request, settings: SettingsDep) -> None:
    """FastAPI dependency: :func:`check_read` on the request (``async``: no I/O, so no thread hop)."""
    check_read(authorization_of(request), settings)


ReadAccess = Annotated[None, Depends(require_read)]
WriteAccess = Annotated[None, Depends(require_write)]


class BodyLimit:
    """ASGI middleware refusing request bodies over ``max_bytes`` with 413, by ``Content-Length``
    up front and by counting streamed chunks (a lying or absent length cannot get past it)."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _too_large(send, self.max_bytes)
            return
        seen = 0

        async def counting() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _BodyTooLarge()
            return message

        try:
            await self.app(scope, counting, send)
        except _BodyTooLarge:
            await _too_large(send, self.max_bytes)


class _BodyTooLarge(Exception):
    pass


async def _too_large(send: Send, limit: int) -> None:
    body = ('{"error":{"code":"PAYLOAD_TOO_LARGE","message":"request body over %d bytes","hint":null}}' % limit).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
