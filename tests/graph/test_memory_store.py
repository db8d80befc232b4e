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
