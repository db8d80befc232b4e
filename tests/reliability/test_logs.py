"""Client errors are logged as one line each (code, method and path, request id), never with a
traceback, and a burst is rate-limited (the issue: a 1.4 KB query of 20 ``__schema`` aliases wrote
318 KB and 164 tracebacks to the log), on both stores; server errors keep their traceback."""

from __future__ import annotations

import logging
import re
import time

import pytest
from fastapi.testclient import TestClient

import app.logs as logs
from app.rest.main import create_app
from app.settings import Settings
from tests.conftest import SEEDS, ingest_into

ALIASES = "{ " + " ".join(f"s{i}: __schema {{ types {{ name fields {{ name type {{ kind name }} }} }} }}"
                          for i in range(20)) + " }"
"""20 aliases of ``__schema``, each listing every type's fields: the cost meter stops it as it runs."""


@pytest.fixture
def client(store, monkeypatch):
    ingest_into(store, SEEDS)
    monkeypatch.setattr(logs, "_bucket", logs._Bucket(logs.RATE, logs.BURST))  # a fresh burst for each test
    with TestClient(create_app(Settings(env_file=None), store=store), raise_server_exceptions=False) as client:
        yield client


def _text(records) -> str:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter())
    return "\n".join(handler.format(r) for r in records)


def test_the_issues_alias_query_writes_a_few_lines_and_no_traceback(client, caplog):
    assert 1300 < len(ALIASES) < 1500
    caplog.set_level(logging.INFO)
    response = client.post("/graphql", json={"query": ALIASES}, headers={"X-Request-ID": "probe-1"})
    assert response.headers["x-request-id"] == "probe-1"
    assert {e["extensions"]["code"] for e in response.json()["errors"]} == {"LIMIT_EXCEEDED"}
    text = _text(caplog.records)
    assert "Traceback" not in text and not any(r.exc_info for r in caplog.records)
    lines = [r.getMessage() for r in caplog.records if r.name == "citegraph.requests"]
    assert 1 <= len(lines) <= logs.BURST
    assert all(line.startswith("client error LIMIT_EXCEEDED on POST /graphql (request probe-1) at s") for line in lines)
    assert len(text) < 10_000, len(text)  # was 318 KB


def test_a_burst_of_client_errors_is_rate_limited_and_counted(client, caplog):
    caplog.set_level(logging.INFO)
    started = time.monotonic()
    for n in range(100):
        assert client.get("/records/RT-NOPE-x", headers={"X-Request-ID": f"burst-{n}"}).status_code == 404
    elapsed = time.monotonic() - started
    lines = [r.getMessage() for r in caplog.records if r.name == "citegraph.requests"]
    assert logs.BURST <= len(lines) <= logs.BURST + logs.RATE * elapsed + 1
    assert lines[0].startswith("client error NOT_FOUND 404 on GET /records/RT-NOPE-x (request burst-0): record RT-NOPE-x")
    time.sleep(0.25)  # room for more than one line again
    client.get("/records/RT-NOPE-y")
    written = [r.getMessage() for r in caplog.records if r.name == "citegraph.requests"]
    assert written[-1].startswith("client error NOT_FOUND 404 on GET /records/RT-NOPE-y")
    counted = sum(int(n) for n in re.findall(r"\((\d+) client errors not logged before this one\)", "\n".join(written)))
    assert counted == 101 - len(written) > 0  # every error left out is counted in a later line


def test_a_malformed_request_and_an_unknown_route_are_one_line_each(client, caplog):
    caplog.set_level(logging.INFO)
    client.get("/records/RT-RTE-mcp-write/rests-on", params={"max_depth": "deep"}, headers={"X-Request-ID": "m-1"})
    client.get("/no/such/route", headers={"X-Request-ID": "m-2"})
    lines = [r.getMessage() for r in caplog.records if r.name == "citegraph.requests"]
    assert [line.split(":")[0] for line in lines] == [
        "client error INVALID_INPUT 422 on GET /records/RT-RTE-mcp-write/rests-on (request m-1)",
        "client error NOT_FOUND 404 on GET /no/such/route (request m-2)"]
    assert not any(r.exc_info for r in caplog.records)


def test_an_internal_error_keeps_its_traceback(client, store, monkeypatch, caplog):
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(type(store), "counts", lambda self, *a, **k: 1 / 0)
    assert client.get("/health").status_code == 500
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)
