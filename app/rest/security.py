"""Bearer-token checks and the request body limit."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.rest.deps import SettingsDep

__all__ = ["require_read", "require_write", "ReadAccess", "WriteAccess", "BodyLimit"]


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _matches(given: str | None, secret) -> bool:
    return given is not None and secret is not None and hmac.compare_digest(given, secret.get_secret_value())


def require_write(request: Request, settings: SettingsDep) -> None:
    """Writes need ``Authorization: Bearer <CITEGRAPH_WRITE_TOKEN>``: 401 without a bearer token,
    403 with a wrong one or when no write token is configured (writes disabled)."""
    given = _token(request)
    if settings.write_token is None:
        raise HTTPException(403, "writes are disabled: set CITEGRAPH_WRITE_TOKEN to enable them")
    if given is None:
        raise HTTPException(401, "writes need Authorization: Bearer <token>", headers={"WWW-Authenticate": "Bearer"})
    if not _matches(given, settings.write_token):
        raise HTTPException(403, "the bearer token does not allow writes")


def require_read(request: Request, settings: SettingsDep) -> None:
    """Reads are open unless ``CITEGRAPH_READ_TOKEN`` is set; then the read or the write token is
    needed (401 without a token, 403 with a wrong one)."""
    if settings.read_token is None:
        return
    given = _token(request)
    if given is None:
        raise HTTPException(401, "reads need Authorization: Bearer <token>", headers={"WWW-Authenticate": "Bearer"})
    if not (_matches(given, settings.read_token) or _matches(given, settings.write_token)):
        raise HTTPException(403, "the bearer token does not allow reads")


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
    body = ('{"error":{"code":"PAYLOAD_TOO_LARGE","message":"request body over %d bytes"}}' % limit).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
