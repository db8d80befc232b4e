"""Bearer-token checks and the request body limit."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.rest.deps import SettingsDep
from app.settings import Settings
from graph.errors import AccessDenied, Unauthenticated

__all__ = ["bearer_token", "check_read", "check_write", "require_read", "require_write", "ReadAccess",
           "WriteAccess", "BodyLimit"]


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header value, or None."""
    scheme, _, value = (authorization or "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _matches(given: str | None, secret) -> bool:
    """Whether ``given`` is the ``secret`` token, in constant time, compared as bytes: a header
    arrives as bytes that Starlette decodes as Latin-1, so ``given`` is encoded back to exactly
    those bytes, and the configured token is UTF-8. (:func:`hmac.compare_digest` refuses a ``str``
    with a non-ASCII character, which any client can send.)"""
    if given is None or secret is None:
        return False
    return hmac.compare_digest(_raw(given), secret.get_secret_value().encode("utf-8", "surrogateescape"))


def _raw(text: str) -> bytes:
    """The bytes a header value was decoded from (Latin-1), or UTF-8 for text no header gave."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape")


def check_write(authorization: str | None, settings: Settings) -> None:
    """Writes need ``Authorization: Bearer <CITEGRAPH_WRITE_TOKEN>``.

    Raises
    ------
    Unauthenticated
        No bearer token (HTTP 401).
    AccessDenied
        A wrong token, or no write token configured: writes disabled (HTTP 403).
    """
    given = bearer_token(authorization)
    if settings.write_token is None:
        raise AccessDenied("writes are disabled: set CITEGRAPH_WRITE_TOKEN to enable them")
    if given is None:
        raise Unauthenticated("writes need Authorization: Bearer <token>")
    if not _matches(given, settings.write_token):
        raise AccessDenied("the bearer token does not allow writes")


def check_read(authorization: str | None, settings: Settings) -> None:
    """Reads are open unless ``CITEGRAPH_READ_TOKEN`` is set; then the read or the write token is
    needed.

    Raises
    ------
    Unauthenticated
        No bearer token (HTTP 401).
    AccessDenied
        A token that is neither (HTTP 403).
    """
    if settings.read_token is None:
        return
    given = bearer_token(authorization)
    if given is None:
        raise Unauthenticated("reads need Authorization: Bearer <token>")
    if not (_matches(given, settings.read_token) or _matches(given, settings.write_token)):
        raise AccessDenied("the bearer token does not allow reads")


def require_write(request: Request, settings: SettingsDep) -> None:
    """FastAPI dependency: :func:`check_write` on the request."""
    check_write(request.headers.get("authorization"), settings)


def require_read(request: Request, settings: SettingsDep) -> None:
    """FastAPI dependency: :func:`check_read` on the request."""
    check_read(request.headers.get("authorization"), settings)


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
