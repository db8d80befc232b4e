"""Property maps packed with a dictionary kept in the file (:mod:`graph.stores.packing`)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from graph.stores.packing import DICTIONARIES_TABLE, Packer

ROWS = [("Statement", json.dumps({"kind": "paragraph", "text": f"Statement {i} rests on RT-X and SRC-{i}.",
                                  "markup": f"Statement {i} rests on `RT-X` and `SRC-{i}`.", "order": i}))
        for i in range(100)]


@pytest.fixture
def conn(tmp_path):
    conn = sqlite3.connect(tmp_path / "p.sqlite", isolation_level=None)
    conn.execute(DICTIONARIES_TABLE)
    yield conn
    conn.close()


def test_a_packed_map_unpacks_to_its_text_in_another_connection(conn, tmp_path):
    packer = Packer(conn)
    conn.execute("BEGIN IMMEDIATE")
    packer.train(ROWS)
    conn.execute("COMMIT")
    packed = [packer.pack(*row) for row in ROWS]
    assert all(isinstance(p, bytes) and p[0] == 1 for p in packed)
    assert sum(map(len, packed)) < sum(len(text) for _, text in ROWS) / 3
    other = Packer(sqlite3.connect(tmp_path / "p.sqlite"))  # knows no dictionary yet: loads it on the first value
    assert [other.text(p) for p in packed] == [text for _, text in ROWS]
    assert packer.pack("Statement", '{"order":3}') == '{"order":3}'  # too short to pack
    assert packer.pack("Section", ROWS[0][1]) == ROWS[0][1]  # no dictionary for the label


def test_a_dictionary_trained_in_a_write_rolled_back_is_forgotten(conn, tmp_path):
    packer = Packer(conn)
    conn.execute("BEGIN IMMEDIATE")
    packer.train(ROWS)
    assert isinstance(packer.pack(*ROWS[0]), bytes)
    conn.execute("ROLLBACK")
    packer.forget()
    assert packer.pack(*ROWS[0]) == ROWS[0][1]  # kept as text: no dictionary is in the file
    conn.execute("BEGIN IMMEDIATE")
    packer.train(ROWS[:50])
    conn.execute("COMMIT")
    assert conn.execute("SELECT id, name FROM dictionaries").fetchall() == [(1, "Statement")]
    other = Packer(sqlite3.connect(tmp_path / "p.sqlite"))
    assert other.text(packer.pack(*ROWS[99])) == ROWS[99][1]


def test_a_value_naming_a_dictionary_the_file_lacks_is_refused(conn):
    with pytest.raises(sqlite3.DatabaseError, match="names dictionary 7, which the store lacks"):
        Packer(conn).text(b"\x07\x01\x02")


def test_a_map_decoded_later_is_the_map_of_its_text(conn, tmp_path):
    packer = Packer(conn)
    conn.execute("BEGIN IMMEDIATE")
    packer.train(ROWS)
    conn.execute("COMMIT")
    other = Packer(sqlite3.connect(tmp_path / "p.sqlite"))
    values = [packer.pack(*row) for row in ROWS[:3]] + ['{"order":3}', "{}"]
    later = [other.decoded_later(v) for v in values]
    expected = [json.loads(text) for _, text in ROWS[:3]] + [{"order": 3}, {}]
    assert later == expected and expected == later  # compared as dicts, both ways
    assert [dict(m) for m in later] == expected
    assert (later[3]["order"], later[3].get("text"), "order" in later[3], len(later[0])) == (3, None, True, 4)
    with pytest.raises(sqlite3.DatabaseError, match="names dictionary 7, which the store lacks"):
        other.decoded_later(b"\x07\x01\x02")  # refused when read, as text() refuses it
    damaged = other.decoded_later(b"\x01\xff\xfe")
    with pytest.raises(sqlite3.DatabaseError, match="does not unpack"):
        damaged.get("order")
