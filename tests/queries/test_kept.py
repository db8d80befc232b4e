"""Kept per-set results (``queries.kept``): what ``stats``, ``sets``, ``check`` and ``verify`` read
back from the embedded store is byte for byte what they compute fresh, on every real set of
``corpus/`` and on the generated corpus of size S; a write drops only its own set's results."""

from __future__ import annotations

import json
import sqlite3
from typing import Any
from contextlib import closing

import pytest

import queries.catalog
import queries.stats
import queries.validation
from app.rendering import verify_sets
from bench.generate import generate
from graph.model import Label
from graph.stores import cypher
from graph.stores.sqlite import STORE_FILE, SQLiteStore
from tests.whole_input import read_members, read_sets
from ingest.loader import ingest_parsed
from queries import kept
from queries.catalog import analysis_sets
from queries.shapes import plain
from queries.stats import stats
from queries.validation import check
from tests.analysis_sets import DYNAMIC_CHEATSHEET, copy_set, edit
from tests.conftest import CORPUS


STATS_SUMS = [1898, 349, 2381, 234, 0]
"""Statements, records, record occurrences, quotations and unaccounted ids of every real set, summed."""


def answers(store, *, fresh: bool = False) -> dict[str, bytes]:
    """The JSON of each whole-store answer, as the faces print it."""
    sets = [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
    out = {"stats": plain(stats(store, fresh=fresh)), "sets": plain(analysis_sets(store, fresh=fresh)),
           "check": plain(check(store, fresh=fresh)), "verify": plain(verify_sets(store, sets, fresh=fresh))}
    return {k: json.dumps(v, ensure_ascii=False, indent=2).encode() for k, v in out.items()}


def kept_rows(home) -> dict[str, int]:
    """Kept results per name (without the code digest)."""
    with sqlite3.connect(home / STORE_FILE) as conn:
        return {name.split("@")[0]: n for name, n in conn.execute(
            "SELECT name, count(*) FROM set_results GROUP BY name ORDER BY name")}


def file_store(tmp_path, *paths) -> SQLiteStore:
    store = SQLiteStore(tmp_path / STORE_FILE)
    ingest_parsed(store, list(read_sets(list(paths)).documents))
    return store


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Every real set of ``corpus/`` in one embedded store on disk."""
    home = tmp_path_factory.mktemp("real")
    store = file_store(home, CORPUS)
    yield home, store
    store.close()


def no_computing(monkeypatch):
    """Make every per-set computation fail: an answer now comes from kept results only."""
    def refuse(*_, **__):
        raise AssertionError("computed, not read from the kept results")
    monkeypatch.setattr(queries.validation, "_check_set", refuse)
    monkeypatch.setattr(queries.stats, "_set_row", refuse)
    monkeypatch.setattr(queries.catalog, "_set_sizes", refuse)
    monkeypatch.setattr("queries.documents.document_trees", refuse)


def test_kept_answers_are_the_fresh_ones_on_every_real_set(real, monkeypatch):
    home, store = real
    sets = [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
    # the 15 sets `citegraph ingest corpus` writes: 9 commonplace runs, 4 runs known only by their
    # September review (kb/agentic-systems/reviews/{dualgraph,jaz-evals,napkin,mem0}.md), 2 seeds
    assert len(sets) == 15
    first = answers(store)  # computes and keeps
    assert kept_rows(home) == {"check": 15, "sets": 15, "stats": 15, "verify": 15}
    fresh = answers(store, fresh=True)
    no_computing(monkeypatch)
    again = answers(store)
    assert again == first == fresh
    assert json.loads(again["verify"])[0]["ok"] is True and len(json.loads(again["verify"])) == 28  # 3 seeds, 25 kb members


def test_kept_answers_are_the_fresh_ones_on_the_generated_corpus(tmp_path_factory, monkeypatch):
    corpus = generate(tmp_path_factory.mktemp("bench") / "S", size="S", seed=0)
    with file_store(tmp_path_factory.mktemp("home-s"), corpus.root / "corpus") as store:
        first = answers(store)
        fresh = answers(store, fresh=True)
        no_computing(monkeypatch)
        assert answers(store) == first == fresh
        assert len(json.loads(first["sets"])) == 15  # S: 15 sets, 98 members (bench/generate.py SIZES)
        assert len(json.loads(first["verify"])) == 98


def test_a_write_drops_only_its_own_sets_results(tmp_path):
    dc = copy_set(DYNAMIC_CHEATSHEET[0], tmp_path / "dc" / "retained")
    copy_set(DYNAMIC_CHEATSHEET[1], tmp_path / "dc" / "archive")
    with file_store(tmp_path, tmp_path / "dc", CORPUS / "seeds") as store:
        home = tmp_path
        before = answers(store)
        assert kept_rows(home) == {"check": 3, "sets": 3, "stats": 3, "verify": 3}
        # overview.md of the set (line 22), one word of a sentence changed, re-pinned in its manifest
        edit(dc, "overview.md", "The example notebook also demonstrates", "The example notebook also shows")
        ingest_parsed(store, read_members([tmp_path / "dc"]).parsed)
        with sqlite3.connect(home / STORE_FILE) as conn:
            left = sorted(conn.execute("SELECT DISTINCT set_id FROM set_results"))
        assert left == [("talorys",), ("tolaria",)]
        after = answers(store)
        assert after == answers(store, fresh=True)
        assert after["check"] == before["check"] and after["sets"] == before["sets"]
        assert after["verify"] != before["verify"]  # the member's new SHA-256


def test_a_result_computed_before_a_write_is_not_kept(tmp_path):
    with file_store(tmp_path, CORPUS / "seeds") as store:
        _a_result_computed_before_a_write_is_not_kept(store)


def _a_result_computed_before_a_write_is_not_kept(store):
    """``store`` holds the seeds: a result stamped before a write into its set is not kept."""
    stamps = store.set_stamps(["tolaria", "talorys", "no-such-set"])
    assert sorted(stamps) == ["talorys", "tolaria"]
    store.delete_documents([], sets=["tolaria"])  # a write into tolaria since the stamps were read
    assert store.keep_results("x", {s: (n, b"[]") for s, n in stamps.items()}) == 1  # talorys only
    assert store.kept_results("x", stamps) == {"talorys": b"[]"}
    assert store.kept_results("x", {"talorys": stamps["talorys"] + 1}) == {}


def test_results_of_other_code_are_not_read(tmp_path, monkeypatch):
    with file_store(tmp_path, CORPUS / "seeds") as store:
        check(store)
        monkeypatch.setattr(kept, "code_digest", lambda: "0" * 16)
        calls: list[str] = []  # the sets checked anew
        real_check_set = queries.validation._check_set

        def counted_check_set(*args: Any) -> Any:
            calls.append(args[1])
            return real_check_set(*args)

        monkeypatch.setattr(queries.validation, "_check_set", counted_check_set)
        check(store)
        assert calls == ["talorys", "tolaria"]


def test_a_store_busy_or_read_only_keeps_nothing_and_answers(tmp_path):
    with file_store(tmp_path, CORPUS / "seeds") as store, closing(sqlite3.connect(tmp_path / STORE_FILE)) as other:
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        assert check(store).warnings == 74  # tolaria 24 + 6, talorys 38 + 6 (test_check_real_sets)
        assert kept_rows(tmp_path) == {}
        other.execute("ROLLBACK")
        check(store)
        assert kept_rows(tmp_path) == {"check": 2}


def test_a_snapshot_keeps_through_its_store(tmp_path):
    """A server reads each request in a snapshot (one read transaction); what it computes there is
    kept through the store that made the view, checked against the set's stamp at that moment."""
    with file_store(tmp_path, CORPUS / "seeds") as store:
        with store.snapshot() as view:
            first = plain(check(view))
        assert kept_rows(tmp_path) == {"check": 2}
        with store.snapshot() as view:
            assert plain(check(view)) == first == plain(check(store, fresh=True))


# -- Neo4j keeps them too (a real server: the neo4j marker) -------------------------------------

def neo4j_kept_rows(store) -> dict[str, int]:
    """Kept results per name (without the code digest) in a Neo4j store."""
    rows = store.driver.execute_query(f"MATCH (r:{cypher.RESULT_LABEL}) RETURN r.name AS name, count(*) AS n",
                                      database_=store.database).records
    return {r["name"].split("@")[0]: r["n"] for r in rows}


def neo4j_kept_sets(store) -> list[str]:
    rows = store.driver.execute_query(f"MATCH (r:{cypher.RESULT_LABEL}) RETURN DISTINCT r.set_id AS s ORDER BY s",
                                      database_=store.database).records
    return [r["s"] for r in rows]


@pytest.mark.neo4j
def test_neo4j_keeps_exactly_the_fresh_answers_on_every_real_set(real, neo4j_store, monkeypatch):
    """Every real set of ``corpus/`` in Neo4j: the kept ``stats``, ``sets``, ``check`` and
    ``verify`` are byte for byte what Neo4j computes fresh and what the embedded store answers."""
    _, embedded = real
    ingest_parsed(neo4j_store, list(read_sets([CORPUS]).documents))
    expected = answers(embedded, fresh=True)
    first = answers(neo4j_store)  # computes and keeps
    assert neo4j_kept_rows(neo4j_store) == {"check": 15, "sets": 15, "stats": 15, "verify": 15}
    fresh = answers(neo4j_store, fresh=True)
    no_computing(monkeypatch)
    again = answers(neo4j_store)
    assert again == first == fresh == expected
    rows = json.loads(again["stats"])["sets"]
    assert len(rows) == 15
    assert [sum(r[k] for r in rows) for k in ("statements", "records", "record_occurrences", "quotations",
                                              "unaccounted")] == STATS_SUMS
    assert sum(len(r["documents"]) for r in rows) == 28  # 3 seeds, 25 kb members
    totals = neo4j_store.counts()  # counted now, another query
    assert [totals[Label.STATEMENT], totals[Label.RECORD], totals[Label.QUOTATION]] == [1898, 349, 234]


@pytest.mark.neo4j
def test_neo4j_a_write_drops_only_its_own_sets_results(tmp_path, neo4j_store):
    dc = copy_set(DYNAMIC_CHEATSHEET[0], tmp_path / "dc" / "retained")
    copy_set(DYNAMIC_CHEATSHEET[1], tmp_path / "dc" / "archive")
    ingest_parsed(neo4j_store, read_members([tmp_path / "dc", CORPUS / "seeds"]).parsed)
    before = answers(neo4j_store)
    assert neo4j_kept_rows(neo4j_store) == {"check": 3, "sets": 3, "stats": 3, "verify": 3}
    edit(dc, "overview.md", "The example notebook also demonstrates", "The example notebook also shows")
    ingest_parsed(neo4j_store, read_members([tmp_path / "dc"]).parsed)
    assert neo4j_kept_sets(neo4j_store) == ["talorys", "tolaria"]
    after = answers(neo4j_store)
    assert after == answers(neo4j_store, fresh=True)
    assert after["check"] == before["check"] and after["sets"] == before["sets"]
    assert after["verify"] != before["verify"]  # the member's new SHA-256


@pytest.mark.neo4j
def test_neo4j_a_result_computed_before_a_write_is_not_kept(neo4j_store):
    ingest_parsed(neo4j_store, read_members([CORPUS / "seeds"]).parsed)
    _a_result_computed_before_a_write_is_not_kept(neo4j_store)


@pytest.mark.neo4j
def test_neo4j_a_write_that_kept_no_stamps_is_never_read_past(neo4j_store):
    """A citegraph that keeps no stamps counts its write on the lock alone (the statement it ran,
    below): no set has a stamp until the next write of this code, which stamps every set."""
    ingest_parsed(neo4j_store, read_members([CORPUS / "seeds"]).parsed)
    check(neo4j_store)
    assert neo4j_kept_rows(neo4j_store) == {"check": 2}
    neo4j_store.driver.execute_query(f"MERGE (l:{cypher.LOCK_LABEL} {{name: 'writes'}}) "
                                     "SET l.writes = coalesce(l.writes, 0) + 1", database_=neo4j_store.database)
    assert neo4j_store.set_stamps(["tolaria", "talorys"]) == {}
    assert neo4j_store.keep_results("x", {"talorys": (1, b"[]")}) == 0
    assert check(neo4j_store).warnings == 74  # computed: tolaria 24 + 6, talorys 38 + 6 (test_check_real_sets)
    neo4j_store.delete_documents([], sets=["no-such-set"])  # a write of this code, touching no set
    stamps = neo4j_store.set_stamps(["tolaria", "talorys"])
    assert sorted(stamps) == ["talorys", "tolaria"] and len(set(stamps.values())) == 1
    assert neo4j_kept_rows(neo4j_store) == {}
    check(neo4j_store)
    assert neo4j_kept_rows(neo4j_store) == {"check": 2}


@pytest.mark.neo4j
def test_neo4j_a_snapshot_keeps_through_its_store(neo4j_store):
    ingest_parsed(neo4j_store, read_members([CORPUS / "seeds"]).parsed)
    with neo4j_store.snapshot() as view:
        first = plain(check(view))
    assert neo4j_kept_rows(neo4j_store) == {"check": 2}
    with neo4j_store.snapshot() as view:
        assert plain(check(view)) == first == plain(check(neo4j_store, fresh=True))
