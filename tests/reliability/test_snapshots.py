"""Snapshots at the store: :func:`graph.store.read_snapshot` gives a request one committed
state on both stores (the contract), by a true snapshot on SQLite and by holding commits off for
the read on Neo4j (each store's own named tests)."""

from __future__ import annotations

import threading
import time

import pytest

from graph.errors import CitegraphError
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


def test_read_snapshot_gives_one_state_when_a_write_runs_between_two_reads(store):
    """A set deleted from another thread between the two reads of a request: SQLite commits it
    meanwhile and the request's snapshot does not see it; Neo4j holds its commit until the request
    ends. Either way the request sees the store before the delete, and the delete then lands."""
    ingest_into(store, SEEDS)
    assert isinstance(store, SupportsSnapshot)
    writer = threading.Thread(target=lambda: store.delete_documents((), sets=["tolaria"]))

    def two_reads(view):
        sets = [n.id for n in view.find_nodes(Label.ANALYSIS_SET)]
        writer.start()
        writer.join(timeout=2.0)  # SQLite: committed; Neo4j: its commit waits for this read
        documents = [n.id for n in view.find_nodes(Label.DOCUMENT)]
        return sets, documents

    assert read_snapshot(store, two_reads) == (
        ["talorys", "tolaria"], ["talorys/synthesis", "tolaria/synthesis", "tolaria/workflow-report"])
    writer.join(timeout=60)
    assert not writer.is_alive()
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
def test_a_neo4j_snapshot_holds_a_commit_off_until_it_ends(neo4j_store: Neo4jStore):
    ingest_into(neo4j_store, SEEDS)
    writer = threading.Thread(target=lambda: neo4j_store.delete_documents((), sets=["tolaria"]))
    with neo4j_store.snapshot() as view:
        assert view.counts()["Document"] == 3
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive()  # its commit waits for the snapshot's read slot
        assert view.counts()["Document"] == 3 and len(view.find_nodes(Label.DOCUMENT, set_id="tolaria")) == 2
        assert neo4j_store.counts()["Document"] == 3  # a plain read meanwhile: nothing committed yet
    writer.join(timeout=60)
    assert not writer.is_alive()
    assert neo4j_store.counts()["Document"] == 1
    with neo4j_store.snapshot() as later:
        assert later.counts()["Document"] == 1


@pytest.mark.neo4j
def test_neo4j_snapshots_of_one_process_do_not_wait_for_each_other(neo4j_store: Neo4jStore):
    """32 snapshots open at once, one inside the other: each holds a slot of its own, so none waits
    (a shared slot would block the inner snapshot on the outer one for good)."""
    ingest_into(neo4j_store, SEEDS)
    counted = []

    def nested(depth: int) -> None:
        with neo4j_store.snapshot() as view:
            counted.append(view.counts()["Document"])
            if depth > 1:
                nested(depth - 1)

    thread = threading.Thread(target=nested, args=(32,))
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert counted == [3] * 32


@pytest.mark.neo4j
def test_a_neo4j_read_never_sees_a_replaced_document_missing(neo4j_store: Neo4jStore):
    """The failure read-committed isolation allows without the read slots (seen under load): a
    replacement deletes the member's nodes and writes them again in one transaction, and a reader
    that looks the member up while the commit is applied finds neither. Three writers replace one
    member for five seconds while four readers look it up; every lookup finds it."""
    from ingest.pipeline import ingest_files
    from ingest.sets import InputFile
    from tests.reliability.helpers import synthesis_of

    member = "shared0/synthesis"
    ingest_files(neo4j_store, [InputFile("synthesis.txt", synthesis_of("Shared0"), explicit=True)])
    stop = time.monotonic() + 5.0
    missing, reads, writes = [], [0], [0]

    def replace(k: int) -> None:
        while time.monotonic() < stop:
            ingest_files(neo4j_store, [InputFile("synthesis.txt", synthesis_of("Shared0", f"Replacement {k}."),
                                                 explicit=True)])
            writes[0] += 1

    def look_up() -> None:
        while time.monotonic() < stop:
            found = read_snapshot(neo4j_store, lambda view: view.get_nodes([member]))
            reads[0] += 1
            if member not in found:
                missing.append(reads[0])

    threads = [threading.Thread(target=replace, args=(k,)) for k in range(3)]
    threads += [threading.Thread(target=look_up) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert writes[0] > 0 and reads[0] > 0
    assert missing == []
