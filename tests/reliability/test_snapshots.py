"""Issue 14, item 4 at the store: :func:`graph.store.read_snapshot` gives a request one committed
state on both stores (the contract), by a true snapshot on SQLite and by noticing a write and
reading again on Neo4j (each store's own named test)."""

from __future__ import annotations

import threading
import time

import pytest

from graph.errors import CitegraphError, SnapshotChanged
from graph.model import EdgeKind, Label
from graph.store import SupportsSnapshot, read_snapshot
from graph.stores.neo4j import Neo4jStore
from tests.conftest import SEEDS, ingest_into


def _delete_tolaria(store) -> None:
    """Delete the Tolaria set from another thread (another connection or session), and wait for it."""
    thread = threading.Thread(target=lambda: store.delete_documents((), sets=["tolaria"]))
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()


def test_read_snapshot_gives_one_state_when_a_write_commits_between_two_reads(store):
    ingest_into(store, SEEDS)
    assert isinstance(store, SupportsSnapshot)
    attempts = []

    def two_reads(view):
        sets = [n.id for n in view.find_nodes(Label.ANALYSIS_SET)]
        if not attempts:
            _delete_tolaria(store)  # commits between the two reads of the first attempt
        attempts.append(sets)
        documents = [n.id for n in view.find_nodes(Label.DOCUMENT)]
        return sets, documents

    sets, documents = read_snapshot(store, two_reads)
    assert (sets, documents) in [
        (["talorys", "tolaria"], ["talorys/synthesis", "tolaria/synthesis", "tolaria/workflow-report"]),  # before
        (["talorys"], ["talorys/synthesis"]),  # after
    ]
    assert [n.id for n in store.find_nodes(Label.ANALYSIS_SET)] == ["talorys"]


def test_a_snapshot_refuses_writes(store):
    ingest_into(store, SEEDS)
    with store.snapshot() as view:
        with pytest.raises(CitegraphError, match="read-only"):
            view.delete_documents(["tolaria/synthesis"])
        assert view.counts()["Document"] == 3
    assert store.counts()["Document"] == 3


def test_an_embedded_snapshot_keeps_its_state_while_others_write(tmp_path):
    from graph.stores import open_embedded

    store = open_embedded(tmp_path / "home")
    ingest_into(store, SEEDS)
    with store.snapshot() as view:
        assert view.counts()["Document"] == 3
        _delete_tolaria(store)  # not held off: SQLite readers never block writers
        assert store.counts()["Document"] == 1
        assert view.counts()["Document"] == 3 and len(view.closure(["tolaria/RT-RTE-mcp-write"], kinds=[EdgeKind.CITES])) == 11
        assert [n.id for n in view.find_nodes(Label.ANALYSIS_SET)] == ["talorys", "tolaria"]
    with store.snapshot() as later:
        assert later.counts()["Document"] == 1
    store.close()


@pytest.mark.neo4j
def test_a_neo4j_snapshot_that_saw_a_write_commit_says_so(neo4j_store: Neo4jStore):
    ingest_into(neo4j_store, SEEDS)
    with pytest.raises(SnapshotChanged, match="a write committed while the request read the store"):
        with neo4j_store.snapshot() as view:
            assert view.counts()["Document"] == 3
            _delete_tolaria(neo4j_store)
    with neo4j_store.snapshot() as quiet:  # no write meanwhile: leaves without complaint
        assert quiet.counts()["Document"] == 1


@pytest.mark.neo4j
def test_an_exclusive_neo4j_snapshot_holds_writers_off_until_it_ends(neo4j_store: Neo4jStore):
    ingest_into(neo4j_store, SEEDS)
    writer = threading.Thread(target=lambda: neo4j_store.delete_documents((), sets=["tolaria"]))
    with neo4j_store.snapshot(exclusive=True) as view:
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive()  # waiting for the snapshot's lock
        assert view.counts()["Document"] == 3 and len(view.find_nodes(Label.DOCUMENT, set_id="tolaria")) == 2
    writer.join(timeout=60)
    assert not writer.is_alive()
    assert neo4j_store.counts()["Document"] == 1
