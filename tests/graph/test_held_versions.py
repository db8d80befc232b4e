"""The embedded store keeps no copy of a set's latest version while its live rows hold it (an
empty blob): the version is read from the rows, and every write that would change rows another
version is read from first gives that version its blob. Every version reads as it was written."""

from __future__ import annotations

import sqlite3

import pytest

from graph.errors import StoreUnavailable
from graph.model import Label, SetBatch
from graph.stores.sqlite import SQLiteStore
from tests.contract.test_store_contract import SYSTEM, document, node, shared, system_edge


def set_batch(set_id: str, *, system: str = "Sys", lines: tuple[int, ...] = (2,)) -> SetBatch:
    """Set ``set_id`` with one document, in the System ``SYSTEM`` named ``system``."""
    nodes = tuple(n if n.id != SYSTEM else node(SYSTEM, Label.SYSTEM, set_id=None, name=system, slug="sys")
                  for n in shared(set_id))
    return SetBatch(set_id, nodes, (document("a", {line: [] for line in lines}, set_id=set_id),), (system_edge(set_id),))


def blobs(store: SQLiteStore) -> dict[tuple[str, int], int]:
    """Each stored version's blob length in bytes (0: held by the live rows)."""
    assert store.path is not None
    with sqlite3.connect(store.path) as conn:
        return {(s, n): size for s, n, size in conn.execute("SELECT set_id, number, length(blob) FROM versions")}


def test_the_latest_version_is_held_by_the_rows_and_the_one_before_gets_its_blob(tmp_path):
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    store.write_set(set_batch("s1"))
    first = store.set_version("s1", 1)
    assert blobs(store) == {("s1", 1): 0}
    assert first is not None and first.set_id == "s1"
    store.write_set(set_batch("s1", lines=(2, 3)))  # a statement more: version 2
    sizes = blobs(store)
    assert sizes[("s1", 1)] > 0 and sizes[("s1", 2)] == 0
    assert store.set_version("s1", 1) == first
    second = store.set_version("s1", 2)
    assert second is not None and second != first
    store.write_set(set_batch("s1", lines=(2, 3)))  # unchanged: no version, still held
    assert blobs(store) == sizes and store.set_version("s1", 2) == second


def test_a_system_another_set_changes_leaves_each_version_as_it_was(tmp_path):
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    store.write_set(set_batch("s1"))
    before = store.set_version("s1", 1)
    store.write_set(set_batch("s2", system="Sys renamed"))  # the shared System's name changes under s1
    assert blobs(store)[("s1", 1)] > 0 and blobs(store)[("s2", 1)] == 0
    assert store.set_version("s1", 1) == before
    assert store.get_nodes([SYSTEM])[SYSTEM].props["name"] == "Sys renamed"
    store.write_set(set_batch("s2", system="Sys renamed"))  # the same System again: nothing to give
    assert store.set_version("s1", 1) == before


def test_a_writer_keeping_no_versions_first_gives_the_latest_its_blob(tmp_path):
    path = tmp_path / "citegraph.sqlite"
    SQLiteStore(path).write_set(set_batch("s1"))
    before = SQLiteStore(path).set_version("s1", 1)
    SQLiteStore(path, versions_kept=0).write_set(set_batch("s1", lines=(2, 3)))
    reader = SQLiteStore(path)
    assert [v.number for v in reader.set_versions("s1")] == [1]
    assert blobs(reader)[("s1", 1)] > 0 and reader.set_version("s1", 1) == before


def test_deleting_a_set_of_a_shared_system_keeps_the_other_sets_versions(tmp_path):
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    store.write_set(set_batch("s1"))
    store.write_set(set_batch("s2"))
    before = {s: store.set_version(s, 1) for s in ("s1", "s2")}
    store.delete_documents(["s2/a"])
    assert store.set_versions("s2") == [] and store.set_version("s1", 1) == before["s1"]
    assert blobs(store) == {("s1", 1): 0}  # s1's rows are untouched: still held


def test_an_empty_blob_of_an_older_version_or_changed_rows_is_a_damaged_store(tmp_path):
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    store.write_set(set_batch("s1"))
    store.write_set(set_batch("s1", lines=(2, 3)))
    assert store.path is not None
    with sqlite3.connect(store.path) as conn:  # damage: version 1's blob lost, version 2's rows changed
        conn.execute("UPDATE versions SET blob = x'' WHERE set_id = 's1' AND number = 1")
        conn.execute("UPDATE versions SET digest = 'not-the-rows' WHERE set_id = 's1' AND number = 2")
    with pytest.raises(StoreUnavailable, match="version 1 of set s1 is not in the store: its blob is empty"):
        store.set_version("s1", 1)
    with pytest.raises(StoreUnavailable, match="version 2 of set s1 is not in the store: its rows changed since"):
        store.set_version("s1", 2)
