"""Embedded-store behaviour that only a file-backed store shows: persistence, sharing, rollback."""

from __future__ import annotations

import errno
import gzip
import json

import pytest

from graph.errors import CitegraphError, StoreUnavailable
from graph.model import DocumentGraph, Edge, EdgeKind, Label, Node, SetBatch
from graph.store import Direction
from graph.stores.memory import MemoryStore
from tests.conftest import SEEDS, ingest_into
from tests.contract.helpers import content


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


def test_the_file_holds_one_element_per_line_and_reloads_to_the_same_store(tmp_path):
    path = tmp_path / "g.json.gz"
    store = MemoryStore(path)
    ingest_into(store, SEEDS)
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    counts = store.counts()
    assert lines[0] == '{"version":1,"nodes":[' and lines[-1] == "]}"
    assert lines.index('],"edges":[') == counts["nodes"] + 1
    assert len(lines) == counts["nodes"] + counts["edges"] + 3
    document = json.loads("\n".join(lines))  # still one JSON document
    assert [n["id"] for n in document["nodes"]] == sorted(n["id"] for n in document["nodes"])
    assert [Edge.from_dict(e).sort_key() for e in document["edges"]] == sorted(
        Edge.from_dict(e).sort_key() for e in document["edges"])
    assert content(MemoryStore(path)) == content(store)


def test_a_file_written_as_a_single_json_document_still_opens(tmp_path):
    path = tmp_path / "g.json.gz"
    store = MemoryStore(path)
    ingest_into(store, SEEDS)
    document = json.loads(gzip.decompress(path.read_bytes()))
    path.write_bytes(gzip.compress(json.dumps(document).encode("utf-8")))  # the layout before lines
    assert content(MemoryStore(path)) == content(store)


def _damage(lines: list[str], how: str) -> tuple[list[str], str]:
    """``lines`` of a saved store damaged one way, and the message expected for it."""
    first_edge = lines.index('],"edges":[') + 1
    if how == "truncated":
        return lines[:-5], "the file ends before its last line (truncated)"
    if how == "text after the end":
        return [*lines, "]}"], f"line {len(lines) + 1}: text after the end of the store"
    if how == "broken line":
        return [*lines[:199], '{"id":broken,', *lines[200:]], "line 200: Expecting value: line 1 column 7"
    if how == "missing comma":
        return [*lines[:4], lines[4].rstrip(","), *lines[5:]], "line 5: no comma between two elements"
    if how == "comma after the last":
        return [*lines[:first_edge - 2], lines[first_edge - 2] + ",", *lines[first_edge - 1:]], (
            f"line {first_edge - 1}: a comma after the last element")
    if how == "unknown label":
        return [*lines[:1], lines[1].replace('"label":"System"', '"label":"Nope"'), *lines[2:]], (
            "line 2: unknown label 'Nope'")
    assert how == "dangling edge"  # the first node is gone, and the edge from it comes first
    return [lines[0], *lines[2:]], (
        f"line {first_edge}: edge CONTAINS system/talorys -> talorys names unknown node system/talorys")


@pytest.mark.parametrize("how", ["truncated", "text after the end", "broken line", "missing comma",
                                 "comma after the last", "unknown label", "dangling edge"])
def test_a_damaged_file_is_store_unavailable_naming_file_and_line(tmp_path, how):
    path = tmp_path / "g.json.gz"
    ingest_into(MemoryStore(path), SEEDS)
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    assert lines[1].startswith('{"id":"system/talorys","label":"System"')
    damaged, message = _damage(lines, how)
    path.write_bytes(gzip.compress("\n".join(damaged).encode("utf-8")))
    with pytest.raises(StoreUnavailable) as caught:
        MemoryStore(path)
    assert str(caught.value).startswith(f"cannot read the embedded store {path}: {message}")


def test_a_failed_save_names_the_file_and_keeps_the_store(tmp_path, monkeypatch):
    path = tmp_path / "g.json.gz"
    store = MemoryStore(path)
    ingest_into(store, SEEDS)
    before = path.read_bytes()

    def full(*_):
        raise OSError(errno.EFBIG, "File too large")

    monkeypatch.setattr("graph.stores.memory._chunks", full)
    with pytest.raises(OSError) as caught:
        store.delete_documents(["talorys/synthesis"])
    assert (caught.value.filename, caught.value.strerror) == (str(path), "File too large")
    assert path.read_bytes() == before and list(tmp_path.glob(".graph-*")) == []
    assert store.counts()["Document"] == 3


def test_loaded_ids_are_shared_string_objects(tmp_path):
    path = tmp_path / "g.json.gz"
    ingest_into(MemoryStore(path), SEEDS)
    store = MemoryStore(path)
    record = store.get_nodes(["tolaria/RT-RTE-mcp-write"])["tolaria/RT-RTE-mcp-write"]
    cites = store.edges([record.id], kinds=[EdgeKind.CITES], direction=Direction.IN)[record.id]
    assert [e.src for e in cites] == [  # the eleven citing statements of issue #2's 12 direct ones
        *(f"tolaria/synthesis#L{n}" for n in (11, 12, 13, 29)),
        *(f"tolaria/workflow-report#L{n}" for n in (23, 27, 33, 43, 45, 57, 9))]
    assert all(e.dst is record.id and e.set_id is record.set_id for e in cites)


def test_the_edge_count_follows_every_write_and_delete(tmp_path):
    store = MemoryStore(None)
    ingest_into(store, SEEDS)
    assert store.counts()["edges"] == store._g.number_of_edges() == sum(
        n for k, n in store.counts().items() if k in set(EdgeKind)) == 354
    summary = store.delete_documents(["tolaria/workflow-report"])
    assert summary.edges == store._g.number_of_edges() == store.counts()["edges"] == 221
    assert summary.nodes == len(store._g) == 140
    ingest_into(store, SEEDS)  # re-ingest: unchanged documents are skipped, the deleted one written
    assert store.counts()["edges"] == store._g.number_of_edges() == 354
    assert store.find_nodes(Label.RECORD, set_id="talorys", where={"record_id": "RT-RTE-owner-chat"})[0].id == (
        "talorys/RT-RTE-owner-chat")
