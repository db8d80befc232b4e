"""Embedded-store behaviour that only a file-backed store shows: persistence, sharing, rollback."""

from __future__ import annotations

import pytest

from graph.errors import CitegraphError, StoreUnavailable
from graph.model import DocumentGraph, Edge, EdgeKind, Label, Node, SetBatch
from graph.stores.memory import MemoryStore
from tests.conftest import SEEDS, ingest_into


def broken_batch() -> SetBatch:
    doc = Node("s/synthesis", Label.DOCUMENT, "s", "s/synthesis", {"role": "synthesis"})
    bad = Edge(EdgeKind.CITES, "s/synthesis", "s/NOT-THERE", 0, "s/synthesis", "s", {})
    return SetBatch("s", (Node("s", Label.ANALYSIS_SET, "s", None, {}),), (DocumentGraph(doc, (), (bad,)),), ())


@pytest.mark.parametrize("persisted", [True, False])
def test_failed_write_leaves_the_store_as_before(tmp_path, persisted):
    store = MemoryStore(tmp_path / "g.json.gz" if persisted else None)
    ingest_into(store, SEEDS)
    before = (store.counts(), store.find_nodes(Label.STATEMENT))
    with pytest.raises(CitegraphError, match="unknown node s/NOT-THERE"):
        store.write_set(broken_batch())
    assert (store.counts(), store.find_nodes(Label.STATEMENT)) == before
    assert store.get_nodes(["s", "s/synthesis"]) == {}


def test_a_second_process_view_sees_writes(tmp_path):
    path = tmp_path / "g.json.gz"
    server, writer = MemoryStore(path), MemoryStore(path)
    assert server.counts()["nodes"] == 0
    ingest_into(writer, SEEDS)
    assert server.counts()["Document"] == 3
    writer.delete_documents(["talorys/synthesis"])
    assert [d.id for d in server.find_nodes(Label.DOCUMENT)] == ["tolaria/synthesis", "tolaria/workflow-report"]
    # Deleting the set's last document removes the set, its system and its shared nodes.
    assert server.get_nodes(["talorys", "system/talorys", "talorys/RT-RTE-owner-chat"]) == {}


def test_unreadable_file_is_store_unavailable(tmp_path):
    path = tmp_path / "g.json.gz"
    path.write_bytes(b"not gzip")
    with pytest.raises(StoreUnavailable, match="cannot read the embedded store"):
        MemoryStore(path)


def test_bulk_groups_a_run_into_one_save_and_one_rollback(tmp_path, monkeypatch):
    store = MemoryStore(tmp_path / "g.json.gz")
    saves = []
    real_save = store._save
    monkeypatch.setattr(store, "_save", lambda: (saves.append(1), real_save()))
    ingest_into(store, SEEDS)  # two sets, one run
    assert len(saves) == 1 and store.counts()["Document"] == 3
    with pytest.raises(CitegraphError, match="unknown node s/NOT-THERE"):
        with store.bulk():
            store.delete_documents(["talorys/synthesis"])
            store.write_set(broken_batch())
    assert len(saves) == 1  # nothing saved for the failed block
    assert [d.id for d in MemoryStore(tmp_path / "g.json.gz").find_nodes(Label.DOCUMENT)] == [
        "talorys/synthesis", "tolaria/synthesis", "tolaria/workflow-report"]
    assert store.counts()["Document"] == 3  # the delete inside the failed block was rolled back too
