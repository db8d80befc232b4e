"""Shared fixtures: the bundled corpus, ingested once per session, and a ``store`` per backend.

``store`` runs a test on the embedded store and on a real Neo4j server over Bolt (marked
``neo4j``). The server is, in this order: ``CITEGRAPH_NEO4J_URI`` (with ``_USER``, ``_PASSWORD``,
``_DATABASE``; ``docker/neo4j-local/start`` exports them), else a testcontainers Neo4j when the
optional ``testcontainers`` package is installed and a Docker engine answers, else the neo4j tests
are skipped with a loud reason, or fail when ``CITEGRAPH_REQUIRE_NEO4J=1`` (``scripts/test``).
Each test starts from an empty graph: every ``:CgNode`` of the database is deleted first, so point
``CITEGRAPH_NEO4J_URI`` at a throw-away server or database.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from graph.stores.sqlite import SQLiteStore
from tests.whole_input import read_members
from ingest.loader import ingest_parsed

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SEEDS = CORPUS / "seeds"
SEED_SYNTHESIS = SEEDS / "000_a3dd65b871acf2aa.txt"
SEED_WORKFLOW = SEEDS / "001_12342d341e774cc9.txt"
SEED_TALORYS = SEEDS / "003_68dfe0dcb1db1ebb.txt"


def ingest_into(store, *paths: Path):
    """Ingest member files/folders into ``store`` through the real loader; returns the report."""
    return ingest_parsed(store, read_members(list(paths)).parsed)


@pytest.fixture(scope="session")
def seeds_store() -> SQLiteStore:
    """An in-memory store holding the three seeds (read-only for tests)."""
    store = SQLiteStore(None)
    ingest_into(store, SEEDS)
    return store


# -- Neo4j ----------------------------------------------------------------------------------------

NEO4J_IMAGE = "neo4j:5.26-community"
"""Image the testcontainers fallback runs (the LTS line the local server also runs)."""

_NEO4J_SKIPPED: list[str] = []

NEO4J_ENV = {k: v for k, v in os.environ.items() if k.startswith("CITEGRAPH_NEO4J_") or k == "CITEGRAPH_STORE"}
"""The Neo4j settings the session started with: they name the test server, not the app's store."""


@pytest.fixture(scope="session", autouse=True)
def _app_settings_are_explicit():
    """Tests never inherit the app's store choice from the environment: ``CITEGRAPH_NEO4J_URI``
    (exported by ``scripts/test`` for the neo4j fixtures) would otherwise switch every CLI and
    app test to Neo4j. A test that wants Neo4j passes ``--neo4j`` / settings explicitly."""
    from app.settings import get_settings

    with pytest.MonkeyPatch.context() as patch:
        for key in NEO4J_ENV:
            patch.delenv(key, raising=False)
        get_settings.cache_clear()
        yield
    get_settings.cache_clear()


@dataclass(frozen=True)
class Neo4jServer:
    """Where the neo4j tests connect: Bolt ``uri``, credentials (empty password: no auth), database."""

    uri: str
    user: str
    password: str
    database: str


def _neo4j_missing(reason: str):
    """Skip (or, with ``CITEGRAPH_REQUIRE_NEO4J=1``, fail) every test that needs Neo4j."""
    message = f"NEO4J NOT AVAILABLE, Neo4j tests not run: {reason}"
    if os.environ.get("CITEGRAPH_REQUIRE_NEO4J") == "1":
        pytest.fail(message + " (CITEGRAPH_REQUIRE_NEO4J=1 makes this an error)", pytrace=False)
    pytest.skip(message)


def _docker_answers() -> bool:
    try:
        import docker  # installed with testcontainers

        client = docker.from_env(timeout=5)
        client.ping()
        client.close()
        return True
    except Exception:  # noqa: BLE001 - any failure to connect means no server here
        return False


@pytest.fixture(scope="session")
def neo4j_server():
    """A Neo4j server for the session: ``CITEGRAPH_NEO4J_URI``, else testcontainers, else skip."""
    uri = NEO4J_ENV.get("CITEGRAPH_NEO4J_URI")
    database = NEO4J_ENV.get("CITEGRAPH_NEO4J_DATABASE", "neo4j")
    if uri:
        password = NEO4J_ENV.get("CITEGRAPH_NEO4J_PASSWORD", "")
        yield Neo4jServer(uri, NEO4J_ENV.get("CITEGRAPH_NEO4J_USER", "neo4j"),
                          "" if password == "none" else password, database)
        return
    try:
        try:
            from testcontainers.community.neo4j import Neo4jContainer  # testcontainers >= 4.14
        except ImportError:
            from testcontainers.neo4j import Neo4jContainer
    except ImportError:
        _neo4j_missing("CITEGRAPH_NEO4J_URI is not set and testcontainers is not installed; "
                       "run `eval \"$(docker/neo4j-local/start)\"` (no Docker needed) or `pip install testcontainers[neo4j]`")
    if not _docker_answers():
        _neo4j_missing("CITEGRAPH_NEO4J_URI is not set and no Docker engine answers for testcontainers; "
                       "run `eval \"$(docker/neo4j-local/start)\"` (no Docker needed)")
    container = Neo4jContainer(NEO4J_IMAGE, password="citegraph-test")
    container.start()
    try:
        yield Neo4jServer(container.get_connection_url(), container.username, container.password, "neo4j")
    finally:
        container.stop()


@pytest.fixture(scope="session")
def neo4j_session_store(neo4j_server):
    """One connected :class:`Neo4jStore` (driver, schema) for the whole session."""
    from graph.errors import StoreUnavailable
    from graph.stores.neo4j import Neo4jStore

    try:
        store = Neo4jStore.connect(neo4j_server.uri, user=neo4j_server.user, password=neo4j_server.password,
                                   database=neo4j_server.database)
    except StoreUnavailable as exc:
        _neo4j_missing(f"{neo4j_server.uri}: {exc}")
    yield store
    store.close()


def fresh_neo4j_store(session_store):
    """An empty Neo4j store on the session's driver (its ``close`` leaves the driver open)."""
    from graph.stores.neo4j import Neo4jStore

    session_store.clear()
    return Neo4jStore(session_store.driver, database=session_store.database)


@pytest.fixture
def neo4j_store(neo4j_session_store):
    """An empty Neo4j store for one test (closed after it: its kept READ transactions end)."""
    store = fresh_neo4j_store(neo4j_session_store)
    yield store
    store.close()


@pytest.fixture(params=["embedded", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def store(request):
    """An empty store of each backend: the embedded store in a fresh SQLite file, and Neo4j."""
    if request.param == "embedded":
        store = SQLiteStore(request.getfixturevalue("tmp_path") / "citegraph.sqlite")
        request.addfinalizer(store.close)
        return store
    return request.getfixturevalue("neo4j_store")


def pytest_runtest_logreport(report):
    if report.skipped and "NEO4J NOT AVAILABLE" in str(report.longrepr):
        _NEO4J_SKIPPED.append(report.nodeid)


def pytest_terminal_summary(terminalreporter):
    if _NEO4J_SKIPPED:
        terminalreporter.write_sep("!", f"{len(_NEO4J_SKIPPED)} Neo4j tests were SKIPPED: no Neo4j server", red=True)
        terminalreporter.write_line("start one with: eval \"$(docker/neo4j-local/start)\"  (or set CITEGRAPH_NEO4J_URI)")
