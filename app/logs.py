"""What the server writes to its log about requests: a request id for each, and one line per client
error, never a traceback, with bursts rate-limited.

:class:`RequestIds` (ASGI middleware) gives each request an id: the client's ``X-Request-ID`` when
it is 1–64 letters, digits, ``.``, ``_`` or ``-``, else a new one; it is answered in the same header
and held in :data:`REQUEST` for the log lines of the request (also in the worker threads and the
event loop a GraphQL request runs on: context variables follow them). :func:`log_client_error`
writes ``client error CODE on METHOD PATH (request ID): message`` on the ``citegraph.requests``
logger, at most :data:`BURST` lines at once and :data:`RATE` a second after that; the lines left out
are counted in the next one written. Server errors (500) keep their traceback.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["REQUEST", "RequestIds", "log_client_error", "RATE", "BURST"]

log = logging.getLogger("citegraph.requests")

REQUEST: ContextVar[tuple[str, str, str] | None] = ContextVar("citegraph_request", default=None)
"""(request id, method, path) of the request being served."""

RATE = 10.0
"""Client-error lines per second the log takes, after a burst."""
BURST = 20
"""Client-error lines the log takes at once."""
MESSAGE_CHARS = 200
"""A client error's message is cut to this many characters in its line."""

_CLIENT_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RequestIds:
    """ASGI middleware: the request's id in :data:`REQUEST` and in the answer's ``X-Request-ID``."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _CLIENT_ID.fullmatch(given) else uuid.uuid4().hex[:16]
        token = REQUEST.set((request_id, scope.get("method", ""), scope.get("path", "")))

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"x-request-id", request_id.encode("ascii"))]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            REQUEST.reset(token)


class _Bucket:
    """A token bucket: :data:`BURST` lines at once, then :data:`RATE` a second (thread-safe)."""

    def __init__(self, rate: float, burst: int):
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp, self.dropped = float(burst), time.monotonic(), 0
        self.lock = threading.Lock()

    def take(self) -> tuple[bool, int]:
        """Whether a line may be written now, and how many were left out since the last one."""
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens < 1:
                self.dropped += 1
                return False, 0
            self.tokens -= 1
            dropped, self.dropped = self.dropped, 0
            return True, dropped


_bucket = _Bucket(RATE, BURST)


def log_client_error(code: str, message: str, *, status: int | None = None, where: str | None = None) -> None:
    """One line for a client error (a 4xx, or a GraphQL error that is not ``INTERNAL``) of the
    request being served: its code, HTTP ``status``, method and path, request id, ``where`` (a
    GraphQL field path) and the message's start; rate-limited (see the module)."""
    allowed, dropped = _bucket.take()
    if not allowed:
        return
    request_id, method, path = REQUEST.get() or ("-", "-", "-")
    text = " ".join(str(message).split())
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS - 1] + "…"
    status_text = f" {status}" if status else ""
    at = f" at {where}" if where else ""
    more = f" ({dropped} client errors not logged before this one)" if dropped else ""
    log.warning("client error %s%s on %s %s (request %s)%s: %s%s", code, status_text, method, path, request_id,
                at, text, more)
