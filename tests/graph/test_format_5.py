"""Opening an embedded store of format 5 (the nodes' set and document ids as text): converted once,
in one transaction, answering exactly as before; read-only, converted in memory and left as it is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graph.stores.sqlite import SQLiteStore
from graph.versions import encode
from tests.conftest import SEEDS, ingest_into
from tests.graph.test_format_2 import answers, conversion_fails_at_its_last_step, read_only_is_read_as_is, seeded_store, version_of

FORMAT_5 = """
DROP TRIGGER statement_search_insert; DROP TRIGGER statement_search_delete; DROP TRIGGER statement_search_update;
DROP VIEW nodes; DROP VIEW edges;
CREATE TABLE nodes (
  nid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, label TEXT NOT NULL, set_id TEXT, document_id TEXT,
  props TEXT NOT NULL);
INSERT INTO nodes (nid, id, label, set_id, document_id, props)
  SELECT v.nid, v.id, v.label, sn.name, dn.name, v.props FROM vertices v
  LEFT JOIN names sn ON sn.ref = v.set_id LEFT JOIN names dn ON dn.ref = v.document_id ORDER BY v.nid;
DROP TABLE vertices;
CREATE INDEX nodes_set ON nodes (set_id, label);
CREATE INDEX nodes_label ON nodes (label);
CREATE INDEX nodes_document ON nodes (document_id) WHERE document_id IS NOT NULL;
CREATE INDEX nodes_record_id ON nodes (json_extract(props, '$.record_id')) WHERE label = 'Record';
CREATE INDEX nodes_path ON nodes (json_extract(props, '$.path')) WHERE label = 'Document';
CREATE VIEW edges AS SELECT l.rowid AS rowid, s.id AS src, l.kind AS kind, d.id AS dst,
  o.name AS owner, l.seq AS seq, dn.name AS document_id, sn.name AS set_id, l.props AS props
  FROM links l JOIN nodes s ON s.nid = l.src JOIN nodes d ON d.nid = l.dst JOIN names o ON o.ref = l.owner
  LEFT JOIN names dn ON dn.ref = l.document_id LEFT JOIN names sn ON sn.ref = l.set_id;
CREATE TRIGGER statement_search_insert AFTER INSERT ON nodes WHEN new.label = 'Statement' BEGIN
  INSERT INTO statement_search (rowid, text) VALUES (new.nid, json_extract(unpacked(new.props), '$.text'));
END;
CREATE TRIGGER statement_search_delete AFTER DELETE ON nodes WHEN old.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text) VALUES ('delete', old.nid, json_extract(unpacked(old.props), '$.text'));
END;
CREATE TRIGGER statement_search_update AFTER UPDATE ON nodes
WHEN old.label = 'Statement' OR new.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text)
    SELECT 'delete', old.nid, json_extract(unpacked(old.props), '$.text') WHERE old.label = 'Statement';
  INSERT INTO statement_search (rowid, text)
    SELECT new.nid, json_extract(unpacked(new.props), '$.text') WHERE new.label = 'Statement';
END;
CREATE TRIGGER search_counts_delete AFTER DELETE ON nodes WHEN old.label = 'Statement'
  BEGIN DELETE FROM search_counts WHERE statement = old.nid; END;
CREATE TRIGGER search_counts_update AFTER UPDATE OF label, props ON nodes WHEN old.label = 'Statement'
  BEGIN DELETE FROM search_counts WHERE statement = old.nid; END;
UPDATE meta SET value = '5' WHERE key = 'version';
"""
"""Format 5's nodes, indexes, view, full-text and ``search_counts`` triggers (as the store of 4
December 2026, 5839c1a, made them), made from a store of format 6 with the same rows and ``nid``s
(run inside a transaction)."""


def to_format_5(path: Path) -> None:
    """Turn the format-6 store at ``path`` into format 5 with the same rows, every version with its
    blob (format 6 keeps none for a latest version that the live rows hold)."""
    store = SQLiteStore(path)
    conn = sqlite3.connect(path, isolation_level=None)
    held = []
    for set_id, number in conn.execute("SELECT set_id, number FROM versions WHERE length(blob) = 0").fetchall():
        batch = store.set_version(set_id, number)
        assert batch is not None
        held.append((encode(batch)[0], set_id, number))
    store.close()
    conn.executescript("BEGIN;" + FORMAT_5)
    conn.executemany("UPDATE versions SET blob = ? WHERE set_id = ? AND number = ?", held)
    conn.execute("COMMIT")
    conn.close()


def text_ids(path: Path) -> tuple[int, int]:
    """Nodes whose set id, and nodes whose document id, is stored as text."""
    with sqlite3.connect(path) as conn:
        table = "nodes" if conn.execute("SELECT type FROM sqlite_master WHERE name = 'nodes'").fetchone() == (
            "table",) else "vertices"
        return (conn.execute(f"SELECT count(*) FROM {table} WHERE typeof(set_id) = 'text'").fetchone()[0],
                conn.execute(f"SELECT count(*) FROM {table} WHERE typeof(document_id) = 'text'").fetchone()[0])


@pytest.fixture
def format_5(tmp_path) -> tuple[Path, str]:
    """A format-5 store of the seed sets, and the answers its format-6 original gave."""
    path, expected = seeded_store(tmp_path)
    to_format_5(path)
    assert text_ids(path) == (202, 114)  # of the seeds' 204 nodes, all but 2 in a set, 114 in a document
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM versions WHERE length(blob) = 0").fetchone() == (0,)
    return path, expected


def test_a_fresh_store_keeps_sets_and_documents_as_refs(tmp_path):
    path = tmp_path / "home" / "citegraph.sqlite"
    store = SQLiteStore(path)
    ingest_into(store, SEEDS)
    store.close()
    assert text_ids(path) == (0, 0)
    with sqlite3.connect(path) as conn:
        named = conn.execute("SELECT count(*), count(set_id), count(document_id) FROM nodes").fetchone()
        assert named == conn.execute("SELECT count(*), count(set_id), count(document_id) FROM vertices").fetchone()
        assert conn.execute("SELECT set_id, document_id FROM nodes WHERE id = 'tolaria/synthesis#L5'"
                            ).fetchone() == ("tolaria", "tolaria/synthesis")


def test_a_format_5_store_is_converted_once_and_answers_as_before(format_5):
    path, expected = format_5
    before = path.stat().st_size
    store = SQLiteStore(path)
    assert version_of(path) == "6"
    assert answers(store) == expected
    ingest_into(store, SEEDS)  # unchanged documents: nothing written, no new version
    assert answers(store) == expected
    store.close()
    assert text_ids(path) == (0, 0)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT type FROM sqlite_master WHERE name = 'nodes'").fetchone() == ("view",)
        # each set's one version is its live rows: no blob kept for it
        assert conn.execute("SELECT set_id, number, length(blob) FROM versions ORDER BY set_id").fetchall() == [
            ("talorys", 1, 0), ("tolaria", 1, 0)]
    assert path.stat().st_size <= before


def test_a_format_5_store_this_user_may_only_read_is_read_as_is(format_5, monkeypatch):
    path, expected = format_5
    read_only_is_read_as_is(path, expected, "5", monkeypatch)


def test_a_failed_conversion_leaves_format_5(format_5, monkeypatch):
    path, expected = format_5
    conversion_fails_at_its_last_step(path, "_convert_format_5", monkeypatch)
    assert version_of(path) == "5"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vertices'").fetchone() is None
        assert conn.execute("SELECT type FROM sqlite_master WHERE name = 'nodes'").fetchone() == ("table",)
    assert text_ids(path)[0] > 0
    monkeypatch.undo()
    assert answers(SQLiteStore(path)) == expected
