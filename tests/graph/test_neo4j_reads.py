"""A Neo4j store's read, without a server: one auto-commit transaction in a READ-mode session that
shares the driver's bookmark manager, run again after an error the driver calls retryable (as
``execute_query`` does), and never after another. The round trips on a real server are in
tests/contract/test_neo4j_store.py."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from neo4j import READ_ACCESS
from neo4j.exceptions import ConfigurationError, ServiceUnavailable

import graph.stores.neo4j as neo4j_store_module
from graph.errors import StoreUnavailable
from graph.stores.neo4j import Neo4jStore


class _Driver:
    """Just what ``Neo4jStore._read`` asks of a driver; each session's ``run`` raises the next of
    ``failures`` (while any are left), then answers ``rows``."""

    def __init__(self, failures: list[Exception], rows: list[dict]):
        self.execute_query_bookmark_manager = object()
        self.failures, self.rows = failures, rows
        self.sessions: list[dict] = []
        self.runs: list[tuple[str, dict]] = []

    @contextmanager
    def session(self, **config):
        self.sessions.append(config)
        yield self

    def run(self, query, params):
        self.runs.append((query, params))
        if self.failures:
            raise self.failures.pop(0)
        return iter(self.rows)


def test_a_read_is_one_autocommit_run_in_a_read_session_sharing_the_bookmarks():
    driver = _Driver([], [{"n": 3}])
    store = Neo4jStore(driver, database="cg")  # type: ignore[arg-type]
    assert store._read("RETURN $n AS n", n=3) == [{"n": 3}]
    assert driver.runs == [("RETURN $n AS n", {"n": 3})]
    assert driver.sessions == [{"database": "cg", "default_access_mode": READ_ACCESS,
                                "bookmark_manager": driver.execute_query_bookmark_manager}]


def test_a_retryable_error_is_read_again_and_another_is_not(monkeypatch):
    monkeypatch.setattr(neo4j_store_module, "READ_RETRY_FIRST_S", 0.01)
    driver = _Driver([ServiceUnavailable("gone for a moment"), ServiceUnavailable("still gone")], [{"n": 1}])
    store = Neo4jStore(driver, database="cg")  # type: ignore[arg-type]
    assert store._read("RETURN 1 AS n") == [{"n": 1}]
    assert len(driver.runs) == 3 and len(driver.sessions) == 3  # a new session each time

    for error, raised in ((ConfigurationError("not retryable"), StoreUnavailable), (ValueError("a bug"), ValueError)):
        driver = _Driver([error], [{"n": 1}])
        store = Neo4jStore(driver, database="cg")  # type: ignore[arg-type]
        with pytest.raises(raised):
            store._read("RETURN 1 AS n")
        assert len(driver.runs) == 1


def test_a_read_gives_up_after_the_retry_time(monkeypatch):
    monkeypatch.setattr(neo4j_store_module, "READ_RETRY_FIRST_S", 0.01)
    monkeypatch.setattr(neo4j_store_module, "READ_RETRY_S", 0.05)
    driver = _Driver([ServiceUnavailable(f"gone {i}") for i in range(50)], [{"n": 1}])
    store = Neo4jStore(driver, database="cg")  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailable, match="unreachable"):
        store._read("RETURN 1 AS n")
    assert 2 <= len(driver.runs) <= 4  # waits of 0.01, 0.02 (, 0.04 s): the next would pass 0.05 s
