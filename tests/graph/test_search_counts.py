"""The embedded store's ``search_counts``: each statement's frequent words counted exactly as its
FTS5 index tokenizes, kept by every write, made for a store of format 4 by its conversion; and
ranked search of one word answered from it as ranking every hit answers."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

import queries.search as qs
from bench.generate import generate
import graph.stores.sqlite as sqlite_store
from graph.stores.sqlite import FORMAT_VERSION, SEARCH_COUNT_FLOOR, SQLiteStore
from graph.text import frequent_words, words
from tests.conftest import SEEDS, ingest_into
from tests.contract.test_search_contract import P, batch
from tests.graph.test_format_2 import answers, conversion_fails_at_its_last_step, version_of
from tests.graph.test_format_5 import to_format_5

C0 = SEARCH_COUNT_FLOOR


def kept(conn: sqlite3.Connection) -> set[tuple[str, int, int]]:
    return set(conn.execute("SELECT term, n, statement FROM search_counts"))


def index_counts(conn: sqlite3.Connection, floor: int) -> set[tuple[str, int, int]]:
    """``(term, count, statement)`` of every term a statement holds ``floor`` times or more, from
    the FTS5 index's own instances."""
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.instances USING fts5vocab(main, statement_search, instance)")
    return set(conn.execute("SELECT term, count(*), doc FROM temp.instances GROUP BY term, doc HAVING count(*) >= ?",
                            (floor,)))


def python_counts(conn: sqlite3.Connection, floor: int) -> set[tuple[str, int, int]]:
    texts = conn.execute("SELECT nid, json_extract(unpacked(props), '$.text') FROM nodes WHERE label = 'Statement'")
    return {(w, n, nid) for nid, text in texts for w, n in frequent_words(text or "", floor)}


@pytest.fixture(scope="module")
def generated_s(tmp_path_factory) -> SQLiteStore:
    """A store of the generated S corpus (seed 0) and the seeds, in memory."""
    corpus = generate(tmp_path_factory.mktemp("gen") / "S", size="S", seed=0, workers=1).corpus
    store = SQLiteStore(None)
    ingest_into(store, corpus, SEEDS)
    return store


def test_counts_are_the_full_text_index_s_own(generated_s):
    with generated_s._reading() as conn:
        rows = kept(conn)
        assert len(rows) > 1000 and len({t for t, _, _ in rows}) > 20
        assert rows == index_counts(conn, C0)
        # every word of every statement, not just the frequent ones: the tokenizing is the index's
        assert python_counts(conn, 1) == index_counts(conn, 1)


def test_frequent_words_tokenize_as_the_index_on_odd_text(tmp_path):
    texts = {2: "İstanbul İSTANBUL ß ẞ ǅ ǆ Ⅻ ⅻ ½ ٣ x_y x-y", 3: "naïve NAÏVE naïve café CAFÉ e\u0301 ΣΑΣ σας",
             4: "The " * 9 + "tHe, THE; the.", 5: "a1 A1 1a ２ ２ ｔｈｅ ＴＨＥ 𝐓𝐡𝐞 Ǆ ǅ ǆ " * 8}
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    store.write_set(batch(texts))
    with store._reading() as conn:
        # the rows are the rank's own counts (graph.text, which queries.search checks each answer by);
        # FTS5's unicode61 folds a few forms otherwise (dotted İ, final sigma, combining marks), so
        # on such text the index's instances differ and the answer is checked, not taken on trust
        assert kept(conn) == python_counts(conn, C0) != set()
        assert {(t, n) for t, n, _ in kept(conn)} >= {("the", 12), ("1a", 8)}
    store.close()


def test_frequent_words():
    assert frequent_words("a b a c a", 3) == [("a", 3)]
    assert frequent_words("a b a c a", 4) == []
    assert frequent_words("Ünïcode ünïcode-ÜNÏCODE x", 3) == [("ünïcode", 3)]
    text = "Mcp-Server/vault.JS the_the 2026 " * 3
    assert sorted(frequent_words(text, 1)) == sorted((w, words(text).count(w)) for w in set(words(text)))


def counts_store(path: Path | None = None) -> SQLiteStore:
    """Set ``s1``: statements holding ``vault`` 12, 9, 8, 8, 8 and 7 times (ties at the floor),
    ``swap`` 8 times once; set ``s2``: ``vault`` 10 times."""
    store = SQLiteStore(path)
    texts = {2: "vault " * 12, 3: "Vault, " * 9 + "swap " * 8, 4: "vault " * 8 + "end", 5: "a vault " * 8,
             6: "vault " * 8, 7: "vault " * 7, 8: "one vault only"}
    store.write_set(batch(texts))
    store.write_set(batch({9: "vault " * 10}, set_id="s2"))
    return store


def ranked_as_every_hit(store: SQLiteStore, query: str, monkeypatch) -> None:
    """``search`` answers every limit as ranking every hit does."""
    fast = {n: qs.search(store, query, limit=n) for n in (1, 2, 3, 5, 6, 7, 8, 20, 200)}
    with monkeypatch.context() as m:
        m.setattr(qs, "_ranked_in_store", lambda *a, **k: None)
        reference = qs.search(store, query, limit=200)
    assert {n: r for n, r in fast.items()} == {n: replace(reference, hits=reference.hits[:n]) for n in fast}


def ranked(store: SQLiteStore, word: str, limit: int) -> tuple[list[tuple[str, int]], int]:
    answer = store.ranked_search([P(word)], limit=limit)
    assert answer is not None  # one word: the store ranks it
    return answer


def test_a_word_ranked_from_the_counts_and_otherwise(monkeypatch):
    store = counts_store()
    found, total = ranked(store, "vault", 3)
    assert found == [("s1/a#L2", 12), ("s2/a#L9", 10), ("s1/a#L3", 9)] and total == 8
    # the 5th best is 8, a tie of three at the floor: all three are candidates, the shortest first
    assert ranked(store, "vault", 5)[0][3:] == [("s1/a#L6", 8), ("s1/a#L4", 8)]
    seven, total = ranked(store, "vault", 7)  # 6 statements at 8+: grouped
    assert (seven, total) == (ranked(store, "vault", 20)[0][:7], 8) and seven[-1] == ("s1/a#L7", 7)
    assert store.ranked_search([P("swap")], limit=1) == ([("s1/a#L3", 8)], 1)
    assert store.ranked_search([P("swap")], limit=2) == ([("s1/a#L3", 8)], 1)  # 1 statement at 8+: grouped
    for query in ("vault", "swap", "vault swap", "vau*", "a", "only", "nothing"):
        ranked_as_every_hit(store, query, monkeypatch)


def test_counts_follow_deletes_and_changed_members(monkeypatch):
    store = counts_store()
    store.delete_documents([], sets=["s2"])
    with store._reading() as conn:
        assert {t for t, _, _ in kept(conn)} == {"a", "vault", "swap"} and kept(conn) == index_counts(conn, C0)
    assert store.ranked_search([P("vault")], limit=1) == ([("s1/a#L2", 12)], 7)
    ranked_as_every_hit(store, "vault", monkeypatch)
    # the member changed: L2 now holds the word twice, L3 gone, a new L10 holds it 11 times
    store.write_set(batch({2: "vault vault", 4: "vault " * 8 + "end", 10: "Vaults vault " * 11}))
    with store._reading() as conn:
        assert sorted((t, n) for t, n, _ in kept(conn)) == [("vault", 8), ("vault", 11), ("vaults", 11)]
        assert kept(conn) == index_counts(conn, C0)
    assert store.ranked_search([P("vault")], limit=1) == ([("s1/a#L10", 11)], 3)
    assert store.ranked_search([P("swap")], limit=1) == ([], 0)
    for query in ("vault", "vaults", "swap"):
        ranked_as_every_hit(store, query, monkeypatch)
    store.delete_documents(["s1/a"])
    with store._reading() as conn:
        assert kept(conn) == set()


def test_a_failed_write_leaves_the_counts_as_before(tmp_path):
    store = counts_store(tmp_path / "citegraph.sqlite")
    with store._reading() as conn:
        before = kept(conn)
    with pytest.raises(RuntimeError, match="the run fails"), store.bulk():
        store.write_set(batch({2: "swap " * 20}))
        raise RuntimeError("the run fails")
    with store._reading() as conn:
        assert kept(conn) == before
    store.close()


def to_format_4(path: Path) -> None:
    """Turn the store at ``path`` into format 4: format 5 (:func:`tests.graph.test_format_5.to_format_5`)
    without ``search_counts``."""
    to_format_5(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    for name in ("search_counts_delete", "search_counts_update"):
        conn.execute(f"DROP TRIGGER {name}")
    conn.execute("DROP TABLE search_counts")
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'version'")
    conn.execute("COMMIT")
    conn.close()


@pytest.fixture
def format_4(tmp_path) -> tuple[Path, str, set[tuple[str, int, int]]]:
    """A format-4 store of the seeds and a many-times-`vault` set, the answers of its original
    and its ``search_counts``."""
    path = tmp_path / "home" / "citegraph.sqlite"
    store = counts_store(path)
    ingest_into(store, SEEDS)
    expected = format_4_answers(store)
    with store._reading() as conn:
        rows = kept(conn)
    store.close()
    to_format_4(path)
    return path, expected, rows


def format_4_answers(store: SQLiteStore) -> str:
    return answers(store) + repr([qs.search(store, "vault", limit=n) for n in (1, 3, 20)])


def test_a_format_4_store_gains_its_counts_once_and_answers_as_before(format_4):
    path, expected, rows = format_4
    store = SQLiteStore(path)
    assert version_of(path) == str(FORMAT_VERSION) == "6"
    assert format_4_answers(store) == expected
    with store._reading() as conn:
        assert kept(conn) == rows and len(rows) > 5
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'search_counts%'").fetchone() == (4,)
    ingest_into(store, SEEDS)
    assert format_4_answers(store) == expected
    store.close()


def test_a_format_4_store_this_user_may_only_read_is_converted_in_memory(format_4, monkeypatch):
    path, expected, _ = format_4
    before = path.read_bytes()
    monkeypatch.setattr("graph.stores.sqlite.os.access", lambda p, mode: mode != os.W_OK)
    store = SQLiteStore(path)
    # its counts built in memory (4 -> 5 -> 6); the seeds hold `vault` too (28 statements in all)
    assert store.ranked_search([P("vault")], limit=3) == ([("s1/a#L2", 12), ("s2/a#L9", 10), ("s1/a#L3", 9)], 28)
    assert format_4_answers(store) == expected
    store.close()
    assert version_of(path) == "4" and path.read_bytes() == before


def test_a_failed_conversion_leaves_format_4(format_4, monkeypatch):
    path, expected, _ = format_4
    conversion_fails_at_its_last_step(path, "_convert_format_4", monkeypatch)
    assert version_of(path) == "4"
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name LIKE 'search_counts%'").fetchone() is None
    monkeypatch.undo()
    assert format_4_answers(SQLiteStore(path)) == expected


def test_counts_of_a_converted_store_are_a_fresh_store_s(tmp_path):
    # the conversion's build and the write path count alike (one connection of the store's kind)
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    ingest_into(store, SEEDS)
    store.write_set(batch({2: "the " * 30, 3: "The, the; THE " * 4}))
    with store._writing() as conn:
        written = kept(conn)
        assert sqlite_store._build_search_counts(conn) == len(written)
        assert kept(conn) == written == index_counts(conn, C0)
    store.close()
