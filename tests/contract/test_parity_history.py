"""Parity of history: the embedded store and Neo4j keep the same versions (same digests,
members and counts) and answer history, diff, every read at an earlier version, runs and compare
with byte-identical JSON."""

from __future__ import annotations

import pytest

from app.rendering import render_request
from graph.stores.sqlite import SQLiteStore
from queries.documents import document_trees
from queries.history import diff_versions, history, store_at
from queries.runs import compare_runs, runs_of
from queries.shapes import plain
from queries.traversal import rests_on
from queries.validation import check
from tests.conftest import fresh_neo4j_store
from tests.contract.helpers import canonical
from tests.history_sets import IM01, IM02, LEDGER, instinctual_memory, ledger_versions

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def pair(neo4j_session_store):
    """(embedded, neo4j), each holding the ledger set's two versions and both Instinctual Memory runs."""
    embedded, neo4j = SQLiteStore(None), fresh_neo4j_store(neo4j_session_store)
    for store in (embedded, neo4j):
        ledger_versions(store)
        instinctual_memory(store)
    yield embedded, neo4j
    neo4j_session_store.clear()


def both(pair, fn) -> tuple[str, str]:
    return tuple(canonical(fn(store)) for store in pair)  # type: ignore[return-value]


def untimed(found) -> dict:
    data = plain(found)
    for v in data["versions"]:
        assert v.pop("created") is not None
    return data


def test_the_same_versions(pair):
    embedded, neo4j = both(pair, lambda s: untimed(history(s, LEDGER)))
    assert embedded == neo4j
    assert [v.digest for v in pair[0].set_versions(LEDGER)] == [v.digest for v in pair[1].set_versions(LEDGER)]
    assert canonical(pair[0].set_version(LEDGER, 1)) == canonical(pair[1].set_version(LEDGER, 1))


@pytest.mark.parametrize("query", ["diff", "diff-back", "rests-on-at-1", "render-at-1", "check-at-1", "trees-at-1",
                                   "runs", "compare", "compare-back"])
def test_the_same_answers(pair, query):
    fn = {
        "diff": lambda s: diff_versions(s, LEDGER, 1, 2),
        "diff-back": lambda s: diff_versions(s, LEDGER, 2, 1, max_depth=1),
        "rests-on-at-1": lambda s: [rests_on(store_at(s, LEDGER, 1), r, set_id=LEDGER)
                                    for r in ("RT-RTE-ledger-commit", "RT-RTE-ledger-append", "RT-OBJ-ledger-file")],
        "render-at-1": lambda s: [render_request(store_at(s, LEDGER, 1), set_id=LEDGER, fmt="md").text,
                                  render_request(store_at(s, LEDGER, 1), record="RT-RTE-ledger-commit", set_id=LEDGER).text],
        "check-at-1": lambda s: check(store_at(s, LEDGER, 1), set_id=LEDGER),
        "trees-at-1": lambda s: document_trees(store_at(s, LEDGER, 1), set_id=LEDGER),
        "runs": lambda s: runs_of(s, "instinctual-memory"),
        "compare": lambda s: compare_runs(s, IM01, IM02),
        "compare-back": lambda s: compare_runs(s, IM02, IM01),
    }[query]
    embedded, neo4j = both(pair, fn)
    assert embedded == neo4j
