"""Opening an embedded store of format 3 (property maps as JSON text): converted once, in one
transaction, answering exactly as before; read-only, converted in memory and left as it is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graph.stores.packing import Packer
from graph.stores.sqlite import FORMAT_VERSION, SQLiteStore
from tests.conftest import SEEDS, ingest_into
from tests.graph.test_format_2 import answers, conversion_fails_at_its_last_step, read_only_is_read_as_is, seeded_store, version_of

FORMAT_3_SEARCH = (
    "DROP TRIGGER statement_search_insert", "DROP TRIGGER statement_search_delete",
    "DROP TRIGGER statement_search_update",
    """CREATE TRIGGER statement_search_insert AFTER INSERT ON nodes WHEN new.label = 'Statement' BEGIN
  INSERT INTO statement_search (rowid, text) VALUES (new.nid, json_extract(new.props, '$.text'));
END""",
    """CREATE TRIGGER statement_search_delete AFTER DELETE ON nodes WHEN old.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text) VALUES ('delete', old.nid, json_extract(old.props, '$.text'));
END""",
    """CREATE TRIGGER statement_search_update AFTER UPDATE ON nodes
WHEN old.label = 'Statement' OR new.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text)
    SELECT 'delete', old.nid, json_extract(old.props, '$.text') WHERE old.label = 'Statement';
  INSERT INTO statement_search (rowid, text)
    SELECT new.nid, json_extract(new.props, '$.text') WHERE new.label = 'Statement';
END""",
)
"""Format 3's full-text triggers (as the store of 3 December 2026, 89523a6, made them): the
property maps read as JSON text."""


def to_format_3(path: Path) -> None:
    """Turn the format-6 store at ``path`` into format 3 with the same rows (through format 4,
    :func:`tests.graph.test_search_counts.to_format_4`): every property map unpacked to its JSON
    text, no dictionaries, format 3's triggers."""
    from tests.graph.test_search_counts import to_format_4

    to_format_4(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.create_function("unpacked", 1, Packer(conn).unpack)
    conn.execute("BEGIN")
    for statement in FORMAT_3_SEARCH[:3]:
        conn.execute(statement)
    conn.execute("UPDATE nodes SET props = unpacked(props) WHERE typeof(props) = 'blob'")
    conn.execute("UPDATE links SET props = unpacked(props) WHERE typeof(props) = 'blob'")
    for statement in FORMAT_3_SEARCH[3:]:
        conn.execute(statement)
    conn.execute("DROP TABLE dictionaries")
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'version'")
    conn.execute("COMMIT")
    conn.close()


def packed_rows(path: Path) -> tuple[int, int]:
    with sqlite3.connect(path) as conn:
        return (conn.execute("SELECT count(*) FROM nodes WHERE typeof(props) = 'blob'").fetchone()[0],
                conn.execute("SELECT count(*) FROM links WHERE typeof(props) = 'blob'").fetchone()[0])


@pytest.fixture
def format_3(tmp_path) -> tuple[Path, str]:
    """A format-3 store of the seed sets, and the answers its format-6 original gave."""
    path, expected = seeded_store(tmp_path)
    to_format_3(path)
    assert packed_rows(path) == (0, 0)
    return path, expected


def test_a_fresh_store_packs_statements_and_citations(tmp_path):
    path = tmp_path / "home" / "citegraph.sqlite"
    store = SQLiteStore(path)
    ingest_into(store, SEEDS)
    store.close()
    with sqlite3.connect(path) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM dictionaries ORDER BY name")] == [
            "Section", "Statement", "edge:CITES"]  # the labels and kinds with 2 KB of JSON or more
        assert conn.execute("SELECT count(*) FROM nodes WHERE typeof(props) = 'blob' AND label = 'Record'"
                            ).fetchone() == (0,)  # its index reads the JSON text
    assert packed_rows(path) == (78 + 29, 220)  # every statement and section, every citation of the seeds


def test_a_format_3_store_is_converted_once_and_answers_as_before(format_3):
    path, expected = format_3
    before = path.stat().st_size
    store = SQLiteStore(path)
    assert version_of(path) == str(FORMAT_VERSION)
    assert answers(store) == expected
    ingest_into(store, SEEDS)  # unchanged documents: nothing written, no new version
    assert answers(store) == expected
    store.close()
    nodes, links = packed_rows(path)
    assert nodes > 0 and links > 0
    assert path.stat().st_size < before


def test_a_format_3_store_this_user_may_only_read_is_read_as_is(format_3, monkeypatch):
    path, expected = format_3
    read_only_is_read_as_is(path, expected, "3", monkeypatch)


def test_a_failed_conversion_leaves_format_3(format_3, monkeypatch):
    path, expected = format_3
    conversion_fails_at_its_last_step(path, "_convert_format_3", monkeypatch)
    assert version_of(path) == "3"
    assert packed_rows(path) == (0, 0)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'dictionaries'").fetchone() is None
    monkeypatch.undo()
    assert answers(SQLiteStore(path)) == expected
