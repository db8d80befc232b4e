"""A real uvicorn server on a free loopback port, in a background thread, for tests that need HTTP
from another client (concurrency, the notebook client, the browser)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator

import httpx
import uvicorn


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(app, *, timeout: float = 20.0) -> Iterator[str]:
    """Serve ``app`` on ``http://127.0.0.1:<port>`` until the block ends; yields the base URL.

    Raises
    ------
    RuntimeError
        The server did not answer ``/health`` within ``timeout`` seconds.
    """
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code < 500:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"test server on {url} did not start")
        time.sleep(0.05)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)
