"""Opening an embedded store of format 2 (text ids in the edge rows): converted once, in one
transaction, answering exactly as before; read-only, converted in memory and left as it is."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from graph.errors import StoreUnavailable
from graph.store import Direction
from graph.stores.sqlite import FORMAT_VERSION, SQLiteStore
from queries.search import search
from tests.conftest import SEEDS, ingest_into
from tests.contract.helpers import canonical, content

FORMAT_2 = """
CREATE TABLE nodes2 (id TEXT NOT NULL UNIQUE, label TEXT NOT NULL, set_id TEXT, document_id TEXT, props TEXT NOT NULL);
INSERT INTO nodes2 (rowid, id, label, set_id, document_id, props) SELECT nid, id, label, set_id, document_id, props FROM nodes;
CREATE TABLE edges2 (src TEXT NOT NULL, kind TEXT NOT NULL, dst TEXT NOT NULL, owner TEXT NOT NULL, seq INTEGER NOT NULL,
  document_id TEXT, set_id TEXT, props TEXT NOT NULL, UNIQUE (src, kind, dst, owner, seq));
INSERT INTO edges2 (rowid, src, kind, dst, owner, seq, document_id, set_id, props)
  SELECT rowid, src, kind, dst, owner, seq, document_id, set_id, props FROM edges;
DROP VIEW edges; DROP TABLE links; DROP TABLE names; DROP TABLE nodes;
ALTER TABLE nodes2 RENAME TO nodes; ALTER TABLE edges2 RENAME TO edges;
CREATE INDEX nodes_set ON nodes (set_id, label);
CREATE INDEX nodes_label ON nodes (label);
CREATE INDEX nodes_document ON nodes (document_id) WHERE document_id IS NOT NULL;
CREATE INDEX nodes_record_id ON nodes (json_extract(props, '$.record_id')) WHERE label = 'Record';
CREATE INDEX nodes_path ON nodes (json_extract(props, '$.path')) WHERE label = 'Document';
CREATE INDEX edges_dst ON edges (dst, set_id);
CREATE INDEX edges_owner ON edges (owner);
CREATE INDEX edges_set ON edges (set_id, kind);
UPDATE meta SET value = '2' WHERE key = 'version';
"""
"""Format 2's tables and indexes (as the store of 2 December 2026, b24daf8, made them), made from a
store of format 3 (:func:`tests.graph.test_format_3.to_format_3`) with the same rows and rowids."""

FORMAT_2_SEARCH = (
    "DROP TABLE statement_search",
    "CREATE TABLE IF NOT EXISTS statement_search_keys (key INTEGER PRIMARY KEY, node_id TEXT NOT NULL UNIQUE)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS statement_search USING fts5("
    "text, content='', tokenize='unicode61 remove_diacritics 0 categories ''L* N*''')",
    """CREATE TRIGGER IF NOT EXISTS statement_search_insert AFTER INSERT ON nodes WHEN new.label = 'Statement' BEGIN
  INSERT OR IGNORE INTO statement_search_keys (node_id) VALUES (new.id);
  INSERT INTO statement_search (rowid, text)
    SELECT key, json_extract(new.props, '$.text') FROM statement_search_keys WHERE node_id = new.id;
END""",
    """CREATE TRIGGER IF NOT EXISTS statement_search_delete AFTER DELETE ON nodes WHEN old.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text)
    SELECT 'delete', key, json_extract(old.props, '$.text') FROM statement_search_keys WHERE node_id = old.id;
  DELETE FROM statement_search_keys WHERE node_id = old.id;
END""",
    """CREATE TRIGGER IF NOT EXISTS statement_search_update AFTER UPDATE ON nodes
WHEN old.label = 'Statement' OR new.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text)
    SELECT 'delete', key, json_extract(old.props, '$.text') FROM statement_search_keys
    WHERE node_id = old.id AND old.label = 'Statement';
  DELETE FROM statement_search_keys WHERE node_id = old.id;
  INSERT INTO statement_search_keys (node_id) SELECT new.id WHERE new.label = 'Statement';
  INSERT INTO statement_search (rowid, text)
    SELECT key, json_extract(new.props, '$.text') FROM statement_search_keys WHERE node_id = new.id;
END""",
    "INSERT OR IGNORE INTO statement_search_keys (node_id) SELECT id FROM nodes WHERE label = 'Statement'",
    "INSERT INTO statement_search (rowid, text) SELECT k.key, json_extract(n.props, '$.text') "
    "FROM statement_search_keys k JOIN nodes n ON n.id = k.node_id",
)
"""Format 2's full-text index: its rows keyed by ``statement_search_keys`` (node id → FTS5 row)."""


def answers(store: SQLiteStore) -> str:
    """Every node, edge and count, every set's versions and version 1, and a search."""
    found = content(store)
    sets = sorted(n.id for n in found["nodes"] if n.label.value == "AnalysisSet")
    into = store.edges([n.id for n in found["nodes"]], direction=Direction.IN)
    return canonical({**found, "in": into, "versions": {s: store.set_versions(s) for s in sets},
                      "first": {s: store.set_version(s, 1) for s in sets},
                      "search": search(store, "memory").hits, "closure": store.closure(sets, kinds=list(
                          {e.kind for es in into.values() for e in es}))})


def seeded_store(tmp_path: Path) -> tuple[Path, str]:
    """A store of this format with the seed sets at ``tmp_path/home``, closed, and its
    :func:`answers`: what each older format made from it must answer."""
    path = tmp_path / "home" / "citegraph.sqlite"
    store = SQLiteStore(path)
    ingest_into(store, SEEDS)
    expected = answers(store)
    store.close()
    return path, expected


@pytest.fixture
def format_2(tmp_path) -> tuple[Path, str]:
    """A format-2 store of the seed sets, and the answers its original gave."""
    path, expected = seeded_store(tmp_path)
    from tests.graph.test_format_3 import to_format_3
    to_format_3(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript("BEGIN;" + FORMAT_2 + ";".join(FORMAT_2_SEARCH) + ";COMMIT;")
    assert conn.execute("SELECT count(*) FROM edges").fetchone() == (354,)  # test_sqlite_store: the seeds' edges
    conn.close()
    return path, expected


def version_of(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0]


def test_a_format_2_store_is_converted_once_and_answers_as_before(format_2):
    path, expected = format_2
    store = SQLiteStore(path)
    assert version_of(path) == str(FORMAT_VERSION)
    assert answers(store) == expected
    ingest_into(store, SEEDS)  # unchanged documents: nothing written, no new version
    assert answers(store) == expected
    store.close()
    with sqlite3.connect(path) as conn:
        assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '%_v2'")} == set()
        assert conn.execute("SELECT count(*) FROM links").fetchone() == (354,)
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'statement_search_keys'").fetchone() is None


def read_only_is_read_as_is(path: Path, expected: str, version: str, monkeypatch) -> None:
    """A store of an older ``version`` that this user may only read answers ``expected`` and its
    file is left byte for byte as it was."""
    before = path.read_bytes()
    monkeypatch.setattr("graph.stores.sqlite.os.access", lambda p, mode: mode != os.W_OK)  # not this user's
    store = SQLiteStore(path)
    assert answers(store) == expected
    store.close()
    assert version_of(path) == version and path.read_bytes() == before


def conversion_fails_at_its_last_step(path: Path, converter: str, monkeypatch) -> None:
    """Open ``path`` with the conversion ``graph.stores.sqlite.<converter>`` failing as it sets the
    new version (its last step): the open is refused as the store's own error."""
    import graph.stores.sqlite as sqlite_store

    real = getattr(sqlite_store, converter)

    def failing(conn):
        conn.create_function("fail", 0, lambda: 1 / 0)
        conn.execute("CREATE TEMP TRIGGER stop BEFORE UPDATE ON main.meta BEGIN SELECT fail(); END")
        return real(conn)
    monkeypatch.setattr(sqlite_store, converter, failing)
    with pytest.raises(StoreUnavailable, match="user-defined function raised exception"):
        SQLiteStore(path)


def test_a_format_2_store_this_user_may_only_read_is_read_as_is(format_2, monkeypatch):
    path, expected = format_2
    read_only_is_read_as_is(path, expected, "2", monkeypatch)


def test_a_failed_conversion_leaves_format_2(format_2, monkeypatch):
    path, expected = format_2
    conversion_fails_at_its_last_step(path, "_convert_format_2", monkeypatch)
    assert version_of(path) == "2"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM edges").fetchone() == (354,)
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'links'").fetchone() is None
    monkeypatch.undo()
    assert answers(SQLiteStore(path)) == expected
