"""``/health`` asks the store at most once per MAX_AGE seconds (a count query per call
cost 177 ms on Neo4j at M), and a store that stops answering is reported by the next ask."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from app.rest.health import MAX_AGE, Liveness
from graph.errors import StoreUnavailable


class Counting:
    """A store whose ``counts`` answers 7 nodes and ``asks`` edges, or raises when ``down``."""

    def __init__(self) -> None:
        self.asks = 0
        self.down = False

    def counts(self) -> dict[str, int]:
        self.asks += 1
        if self.down:
            raise StoreUnavailable("Neo4j (neo4j) is unreachable: test")
        return {"nodes": 7, "edges": self.asks}


def test_totals_are_asked_once_per_max_age():
    now = [100.0]
    liveness, store = Liveness(clock=lambda: now[0]), Counting()

    async def ask():
        return await liveness.totals(store)

    assert asyncio.run(ask()) == (7, 1)
    now[0] += MAX_AGE  # still within the bound
    assert asyncio.run(ask()) == (7, 1) and store.asks == 1
    now[0] += 0.01
    assert asyncio.run(ask()) == (7, 2) and store.asks == 2
    store.down = True
    now[0] += MAX_AGE + 0.01
    with pytest.raises(StoreUnavailable, match="unreachable"):
        asyncio.run(ask())
    with pytest.raises(StoreUnavailable):  # a failed ask is not kept: asked again
        asyncio.run(ask())
    assert store.asks == 4


def test_requests_arriving_together_share_one_ask():
    liveness, store = Liveness(), Counting()

    async def together():
        return await asyncio.gather(*(liveness.totals(store) for _ in range(20)))

    assert asyncio.run(together()) == [(7, 1)] * 20 and store.asks == 1


def test_a_write_through_the_server_shows_in_the_next_health(tmp_path):
    """The totals kept for MAX_AGE are dropped by a write through REST or GraphQL, so a client that
    ingests and then asks ``/health`` at once sees its write (the seeds: 3 members)."""
    from fastapi.testclient import TestClient

    from app.rest.main import create_app
    from app.settings import Settings
    from graph.stores.sqlite import SQLiteStore
    from tests.conftest import SEEDS

    store = SQLiteStore(None)
    auth = {"Authorization": "Bearer health-test-write"}
    with TestClient(create_app(Settings(env_file=None, write_token="health-test-write"), store=store)) as client:
        assert client.get("/health").json()["nodes"] == 0  # kept now
        files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in sorted(SEEDS.iterdir())]
        assert client.post("/sets", files=files, headers=auth).status_code == 201
        assert client.get("/health").json()["nodes"] == store.counts()["nodes"] > 0
        mutation = ('mutation($f: [MemberFileInput!]!) { ingest(files: $f) { sets } }')
        member = "Demo synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md\nDemo\nIt reads RT-RTE-x.\n"
        before = client.get("/health").json()["nodes"]
        answer = client.post("/graphql", json={"query": mutation, "variables": {"f": [{"name": "demo.txt", "content": member}]}},
                             headers=auth)
        assert answer.json()["data"]["ingest"]["sets"] == ["demo"]
        assert client.get("/health").json()["nodes"] == store.counts()["nodes"] > before


def test_nothing_is_kept_while_a_write_runs():
    """Between ``writing`` and ``written`` (which a route's cleanup may reach after its answer is
    sent) every ``/health`` asks the store; after it, the next ask is kept again."""
    now = [100.0]
    liveness, store = Liveness(clock=lambda: now[0]), Counting()
    assert asyncio.run(liveness.totals(store)) == (7, 1)
    liveness.writing()
    assert asyncio.run(liveness.totals(store)) == (7, 2)
    assert asyncio.run(liveness.totals(store)) == (7, 3)  # asked again: nothing kept while writing
    liveness.written()
    assert asyncio.run(liveness.totals(store)) == (7, 4)
    assert asyncio.run(liveness.totals(store)) == (7, 4)  # kept again


class Hanging(Counting):
    """A store whose ``counts`` blocks until ``release`` is set (a server that does not answer)."""

    def __init__(self):
        super().__init__()
        self.release = threading.Event()

    def counts(self):
        self.asks += 1
        self.release.wait(10)
        return {"nodes": 5, "edges": 6}


def test_an_ask_the_store_does_not_answer_is_a_503_after_the_timeout_and_runs_once():
    liveness, store = Liveness(ask_timeout=0.2), Hanging()

    async def scenario():
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.2 s"):
            await liveness.totals(store)
        waited = time.monotonic() - started
        with pytest.raises(StoreUnavailable):  # the same ask, still under way: not a second one
            await liveness.totals(store)
        store.release.set()
        await asyncio.sleep(0.1)
        return waited, await liveness.totals(store)

    waited, totals = asyncio.run(scenario())
    assert 0.2 <= waited < 5
    assert totals == (5, 6) and store.asks == 1  # the answer of the one ask, kept


@pytest.mark.neo4j
def test_health_on_neo4j_answers_from_the_kept_totals_then_503_when_the_server_is_gone(neo4j_server, neo4j_store):
    """A real Neo4j behind a forwarder the test closes: within MAX_AGE of the last answer /health
    still says ok with those totals (no store call: the store is unreachable); after it, a 503
    within the ask timeout, not after the driver's 30 s of retries; once the server is back, ok."""
    from fastapi.testclient import TestClient

    from app.rest.main import create_app
    from app.settings import Settings
    from graph.stores.neo4j import Neo4jStore
    from tests.conftest import SEEDS, ingest_into
    from tests.forwarder import Forwarder

    ingest_into(neo4j_store, SEEDS)
    nodes = neo4j_store.counts()["nodes"]
    host, port = neo4j_server.uri.split("://", 1)[1].rsplit(":", 1)
    with Forwarder(host, int(port)) as forwarder:
        store = Neo4jStore.connect(f"bolt://127.0.0.1:{forwarder.port}", user=neo4j_server.user,
                                   password=neo4j_server.password, database=neo4j_server.database)
        try:
            app = create_app(Settings(env_file=None), store=store)
            with TestClient(app) as client:
                now = [100.0]
                app.state.liveness = Liveness(ask_timeout=1.0, clock=lambda: now[0])
                first = client.get("/health").json()
                assert (first["status"], first["nodes"], first["edges"]) == ("ok", nodes, neo4j_store.counts()["edges"])
                forwarder.close()
                now[0] += MAX_AGE
                assert client.get("/health").json()["nodes"] == nodes  # the kept answer, within the bound
                now[0] += 0.01
                started = time.monotonic()
                gone = client.get("/health")
                assert gone.status_code == 503 and gone.json()["error"]["code"] == "UNAVAILABLE"
                assert time.monotonic() - started < 10  # the ask timeout, not the driver's retries
                forwarder.open()  # back: the ask under way answers at the driver's next retry (1-2 s)
                for _ in range(30):
                    back = client.get("/health")
                    if back.status_code == 200:
                        break
                    time.sleep(0.2)
                assert back.status_code == 200 and back.json()["nodes"] == nodes
        finally:
            store.close()
