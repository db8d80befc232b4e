"""A GraphQL query the cost estimate admits cannot run for long (the issue: ``nodes`` of 200 ids ×
``render`` was admitted and ran 32 s): fields weigh their real cost, so that query is refused before
it runs, and execution stops at the time budget (``CITEGRAPH_GRAPHQL_TIMEOUT_S``) with
``LIMIT_EXCEEDED``. On both stores."""

from __future__ import annotations

import base64
import contextlib
import threading
import time

import pytest
from fastapi.testclient import TestClient

from app.rest.main import create_app
from app.settings import Settings
from tests.conftest import SEEDS, ingest_into
from tests.reliability.helpers import CHEATSHEET, CHEATSHEET_SET

SET_ID = base64.b64encode(f"AnalysisSet:{CHEATSHEET_SET}".encode()).decode()
"""The Relay id of the Dynamic Cheatsheet set (389 statements, the corpus's largest)."""


def _renders(n: int) -> str:
    ids = ", ".join(f'"{SET_ID}"' for _ in range(n))
    return f"{{ nodes(ids: [{ids}]) {{ ... on AnalysisSet {{ render }} }} }}"


@pytest.fixture
def stocked(store):
    ingest_into(store, SEEDS)
    ingest_into(store, *CHEATSHEET)
    return store


def test_nodes_of_200_ids_times_render_is_refused_before_it_runs(stocked):
    with TestClient(create_app(Settings(env_file=None), store=stocked)) as client:
        started = time.monotonic()
        answer = client.post("/graphql", json={"query": _renders(200)}).json()
        took = time.monotonic() - started
    assert "data" not in answer  # refused before it runs: a request error (GraphQL over HTTP)
    (error,) = answer["errors"]
    assert error["extensions"]["code"] == "LIMIT_EXCEEDED"
    assert error["message"].startswith("'anonymous' costs 60000; at most 10000 is allowed")  # 200 × 300
    assert took < 2, took


def test_a_query_the_estimate_admits_stops_at_the_time_budget(stocked):
    """30 whole-set renderings cost 9,000, under the limit; with a budget of twice one rendering's
    time they are stopped: at most 4 calls of a request run at once, and none starts after the budget."""
    with TestClient(create_app(Settings(env_file=None), store=stocked)) as client:
        started = time.monotonic()
        one = client.post("/graphql", json={"query": _renders(1)}).json()
        single = time.monotonic() - started
    assert "errors" not in one and one["data"]["nodes"][0]["render"].startswith(f"# Dynamic Cheatsheet analysis set {CHEATSHEET_SET}\n")
    budget = 2 * single + 0.1
    with TestClient(create_app(Settings(env_file=None, graphql_timeout_s=budget), store=stocked)) as client:
        started = time.monotonic()
        answer = client.post("/graphql", json={"query": _renders(30)}).json()
        took = time.monotonic() - started
    codes = {e["extensions"]["code"] for e in answer["errors"]}
    assert codes == {"LIMIT_EXCEEDED"}, answer["errors"][:2]
    assert any("ran out of its time budget" in e["message"] for e in answer["errors"])
    rendered = [n for n in (answer["data"] or {}).get("nodes") or [] if n and n.get("render")]
    assert len(rendered) < 30
    assert took < budget + 1.0 + 4 * single, (took, single)  # the budget, its grace second, the 4 calls under way


def test_the_calls_a_stopped_query_left_running_end_before_its_snapshot_closes(stocked, monkeypatch):
    """Past its budget and grace second, a query is cancelled; its renderings under way in worker
    threads return before the request's snapshot closes, so none reads a closed snapshot (on Neo4j,
    a statement sent on the connection its rollback used hung until the 120 s read timeout)."""
    import app.rendering

    real_render, real_snapshot = app.rendering.render_request, type(stocked).snapshot
    lock, under_way, at_close = threading.Lock(), [0], []

    def slow_render(*args, **kwargs):  # each rendering outlasts the budget and its grace second
        with lock:
            under_way[0] += 1
        try:
            time.sleep(1.5)
            return real_render(*args, **kwargs)
        finally:
            with lock:
                under_way[0] -= 1

    @contextlib.contextmanager
    def watched_snapshot(self):
        with real_snapshot(self) as view:
            try:
                yield view
            finally:
                at_close.append(under_way[0])

    monkeypatch.setattr(app.rendering, "render_request", slow_render)
    monkeypatch.setattr(type(stocked), "snapshot", watched_snapshot)
    with TestClient(create_app(Settings(env_file=None, graphql_timeout_s=0.2), store=stocked)) as client:
        answer = client.post("/graphql", json={"query": _renders(12)}).json()
    (error,) = answer["errors"]
    assert error["message"] == "the query ran out of its time budget of 0.2 s"
    assert at_close == [0]


def test_the_budget_is_a_setting():
    assert Settings(env_file=None).graphql_timeout_s == 5.0
    assert Settings(env_file=None, environ={"CITEGRAPH_GRAPHQL_TIMEOUT_S": "2.5"}).graphql_timeout_s == 2.5
