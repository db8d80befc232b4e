"""Helpers of the reliability suite: real servers over real stores, members made from the
seeds, and the fingerprint a store is compared by."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Iterator

import httpx

from app.rest.main import create_app
from app.settings import Settings
from graph.store import GraphStore
from tests.conftest import CORPUS, ROOT, SEED_SYNTHESIS
from tests.contract.helpers import canonical, content
from tests.live_server import free_port, live_server

CHEATSHEET = [
    CORPUS / "commonplace/kb/agentic-system-analyses/retained/dynamic-cheatsheet",
    CORPUS / "commonplace/kb/agentic-system-analyses/retained-archive/AAS-2026-10-04-dynamic-cheatsheet-01",
]
"""The folders of the Dynamic Cheatsheet set (Markdown, six members, bigger than the seeds)."""
CHEATSHEET_SET = "AAS-2026-10-04-dynamic-cheatsheet-01"

TOKEN = "reliability-write-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
STORE_FILES = {"citegraph.sqlite", "citegraph.sqlite-wal", "citegraph.sqlite-shm"}
"""Every file an embedded store's home may hold while or after it is used (SQLite in WAL mode)."""


def fingerprint(store: GraphStore) -> str:
    """Every node, edge and count of ``store`` as one canonical string."""
    return canonical(content(store))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def synthesis_of(system: str, extra: str = "") -> bytes:
    """The Tolaria seed synthesis retitled for ``system`` (its set is the system's slug), with
    ``extra`` appended as a closing paragraph."""
    text = SEED_SYNTHESIS.read_bytes()
    title, _, rest = text.partition(b"\n")
    assert title == b"Tolaria synthesis"
    body = f"{system} synthesis\n".encode() + rest
    return body + (f"\n{extra}\n".encode() if extra else b"")


def reconciliation_member(run_id: str, *, amendment: str = "RT-OBJ-a is superseded by EPI-OBJ-b") -> bytes:
    """A minimal Markdown reconciliation member stating ``run_id`` (its run-id line is line 3)."""
    return (f"---\ntype: agentic-system-analyses/types/agentic-system-reconciliation-report.md\n"
            f"run-id: {run_id}\n---\n\n# X reconciliation\n\n## Reconciliation\n\n"
            f"Amendment: {amendment}.\n").encode()


@contextmanager
def served(store: GraphStore, **settings) -> Iterator[str]:
    """A real uvicorn server (in a thread) over ``store``, writes allowed with :data:`TOKEN`."""
    app = create_app(Settings(env_file=None, **{"write_token": TOKEN, **settings}), store=store)
    with live_server(app) as url:
        yield url


def store_arguments(store_kind: str, home: Path, neo4j_server) -> list[str]:
    """CLI options naming the store of a test: ``--home`` or ``--neo4j``."""
    return ["--home", str(home)] if store_kind == "embedded" else ["--neo4j", neo4j_server.uri]


def child_environment(neo4j_server=None, **extra: str) -> dict[str, str]:
    """The environment of a citegraph process a test starts: no inherited store choice, the test
    Neo4j's credentials when one is given, the write token."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    env.update(CITEGRAPH_WRITE_TOKEN=TOKEN, PYTHONPATH=str(ROOT), **extra)
    if neo4j_server is not None:
        env.update(CITEGRAPH_NEO4J_USER=neo4j_server.user, CITEGRAPH_NEO4J_PASSWORD=neo4j_server.password or "",
                   CITEGRAPH_NEO4J_DATABASE=neo4j_server.database)
    return env


@contextmanager
def server_process(arguments: list[str], env: dict[str, str], *, timeout: float = 60.0,
                   preexec=None) -> Iterator[str]:
    """``citegraph serve`` in a process of its own on a free port (``preexec`` runs in it first);
    yields its base URL and stops it (SIGTERM, then SIGKILL) when the block ends."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port), *arguments],
                               cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               preexec_fn=preexec)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"citegraph serve exited {process.returncode}: {process.stderr.read().decode()}")
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"citegraph serve on {url} did not answer within {timeout} s")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()
