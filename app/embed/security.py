"""Who may frame the embeddable views and call the API from another origin: both come from one
setting, ``CITEGRAPH_EMBED_ORIGINS``, and everything else is denied by default.

- Embedded pages answer with a strict ``Content-Security-Policy`` (:func:`embed_policy`): scripts,
  styles, images and fetches from the app itself only, no inline script, and ``frame-ancestors``
  listing the configured origins (``'none'`` when there are none).
- Every other response gets ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY`` unless it set
  a policy of its own, and every response gets ``X-Content-Type-Options: nosniff``
  (:class:`SecurityHeaders`).
- CORS (:func:`cors_options`, for Starlette's ``CORSMiddleware``) allows exactly the configured
  origins, without credentials (the API takes bearer tokens, not cookies).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["frame_ancestors", "embed_policy", "cors_options", "SecurityHeaders"]


def frame_ancestors(origins: list[str]) -> str:
    """The ``frame-ancestors`` source list: the origins, or ``'none'``.

    >>> frame_ancestors([]), frame_ancestors(["https://a.example", "http://localhost:3000"])
    ("'none'", 'https://a.example http://localhost:3000')
    """
    return " ".join(origins) if origins else "'none'"


def embed_policy(origins: list[str]) -> str:
    """The ``Content-Security-Policy`` of an embedded page (origins are validated by the settings).

    >>> embed_policy([])  # doctest: +NORMALIZE_WHITESPACE
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';
     font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    """
    return ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            f"font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
            f"frame-ancestors {frame_ancestors(origins)}")


def cors_options(origins: list[str]) -> dict:
    """Keyword arguments of ``CORSMiddleware``: only ``origins`` may call cross-origin, with the
    methods and headers the API uses (bearer token, ``If-Match``), exposing ``ETag``."""
    return {
        "allow_origins": list(origins),
        "allow_methods": ["GET", "POST", "PUT", "DELETE"],
        "allow_headers": ["Authorization", "Content-Type", "If-Match", "If-None-Match"],
        "expose_headers": ["ETag"],
        "allow_credentials": False,
        "max_age": 600,
    }


class SecurityHeaders:
    """ASGI middleware: ``X-Content-Type-Options: nosniff`` on every response; responses without a
    ``Content-Security-Policy`` of their own may not be framed by anyone."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-content-type-options"]
                headers.append((b"x-content-type-options", b"nosniff"))
                if not any(k.lower() == b"content-security-policy" for k, _ in headers):
                    headers.append((b"content-security-policy", b"frame-ancestors 'none'"))
                    headers.append((b"x-frame-options", b"DENY"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
