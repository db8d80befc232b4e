"""The search primitive of the store contract (``GraphStore.search``) on every backend:
statements holding every phrase, found through the store's own full-text index, kept current by
every write; then what only one backend can show (an index made for a store that predates it)."""

from __future__ import annotations

from dataclasses import replace

import os
import sqlite3

import pytest

from graph.model import DocumentGraph, EdgeKind, Label, SetBatch
from graph.store import Direction
from graph.stores.sqlite import SQLiteStore
from graph.text import Phrase
from tests.contract.test_store_contract import S, edge, node, shared, system_edge

TEXTS = {
    2: "Writes use compare-and-swap on mcp-server/vault.js.",
    3: "Compare, then swap: not atomic. Swap swap.",
    4: "Vaults and the vault: café 2026.",
}


def batch(texts: dict[int, str] = TEXTS, *, set_id: str = S, role: str = "a") -> SetBatch:
    doc_id = f"{set_id}/{role}"
    nodes = [node(f"{doc_id}#L{line}", Label.STATEMENT, set_id=set_id, document_id=doc_id, kind="paragraph",
                  text=text, line=line, order=line, markup=text + "\n") for line, text in sorted(texts.items())]
    edges = [edge(EdgeKind.CONTAINS, set_id, doc_id, document_id=doc_id, set_id=set_id, order=0)]
    edges += [edge(EdgeKind.CONTAINS, doc_id, n.id, document_id=doc_id, set_id=set_id, order=n.get("line"))
              for n in nodes]
    doc = node(doc_id, Label.DOCUMENT, set_id=set_id, document_id=doc_id, role=role, sha256="x", format="txt")
    return SetBatch(set_id, shared(set_id), (DocumentGraph(doc, tuple(nodes), tuple(edges)),),
                    (system_edge(set_id),))


def ids(found) -> list[str]:
    return [n.id for n in found]


def P(text: str, prefix: bool = False) -> Phrase:
    return Phrase(tuple(text.split()), prefix=prefix)


def test_search_finds_the_statements_holding_every_phrase(store):
    store.write_set(batch())
    assert ids(store.search([P("compare and swap")])) == ["s1/a#L2"]  # L3 has the words, not in a row
    assert ids(store.search([P("compare")])) == ["s1/a#L2", "s1/a#L3"]
    assert ids(store.search([P("swap"), P("atomic")])) == ["s1/a#L3"]
    assert ids(store.search([P("vault js"), P("mcp server")])) == ["s1/a#L2"]
    assert ids(store.search([P("vault")])) == ["s1/a#L2", "s1/a#L4"]
    assert ids(store.search([P("vault", prefix=True)])) == ["s1/a#L2", "s1/a#L4"]  # vault, vaults
    assert ids(store.search([P("vaults")])) == ["s1/a#L4"]
    assert ids(store.search([P("café")])) == ["s1/a#L4"] and store.search([P("cafe")]) == []  # accents kept
    assert ids(store.search([P("2026")])) == ["s1/a#L4"]
    assert store.search([P("swap compare")]) == []
    assert store.search([]) == []
    (hit,) = store.search([P("atomic")])
    assert hit.label == Label.STATEMENT and (hit.set_id, hit.document_id) == (S, "s1/a")
    assert dict(hit.props) == {"kind": "paragraph", "text": TEXTS[3], "line": 3, "order": 3}  # no markup


def test_search_by_set_and_on_an_empty_store(store):
    assert store.search([P("vault")]) == []
    store.write_set(batch())
    store.write_set(batch({7: "the vault of set two"}, set_id="s2"))
    assert ids(store.search([P("vault")])) == ["s1/a#L2", "s1/a#L4", "s2/a#L7"]
    assert ids(store.search([P("vault")], set_id="s2")) == ["s2/a#L7"]
    assert store.search([P("vault")], set_id="nope") == []


def test_search_follows_every_write(store):
    store.write_set(batch())
    store.write_set(batch({2: "Now it merges notes.", 5: "A new vault line."}))  # the document replaced
    assert ids(store.search([P("compare")])) == []
    assert ids(store.search([P("merges")])) == ["s1/a#L2"]
    assert ids(store.search([P("vault")])) == ["s1/a#L5"]
    store.delete_documents(["s1/a"])
    assert store.search([P("vault")]) == [] and store.search([P("merges")]) == []


def test_a_failed_write_leaves_the_index_as_before(store):
    store.write_set(batch())
    bad = batch({2: "a dangling vault"})
    broken = DocumentGraph(bad.documents[0].document, bad.documents[0].nodes,
                           (*bad.documents[0].edges, edge(EdgeKind.CITES, "s1/a#L2", "s1/missing", document_id="s1/a")))
    with pytest.raises(Exception):  # noqa: B017 - each store raises its own driver's error
        store.write_set(SetBatch(S, bad.shared, (broken,), bad.derived))
    assert ids(store.search([P("compare and swap")])) == ["s1/a#L2"]
    assert store.search([P("dangling")]) == []


# -- embedded store only --------------------------------------------------------------------------


def test_embedded_index_survives_vacuum_and_is_made_for_an_older_store(tmp_path):
    path = tmp_path / "citegraph.sqlite"
    store = SQLiteStore(path)
    store.write_set(batch())
    store.write_set(batch({9: "second set vault"}, set_id="s2"))
    store.delete_documents(["s1/a"])
    store.write_set(batch())
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("VACUUM")  # keeps nodes.nid (an INTEGER PRIMARY KEY), which keys the index
    for trigger in ("insert", "delete", "update"):
        conn.execute(f"DROP TRIGGER statement_search_{trigger}")
    conn.execute("DROP TABLE statement_search")  # as a store written before the index existed
    conn.commit()
    conn.close()
    reopened = SQLiteStore(path)
    assert ids(reopened.search([P("vault")])) == ["s1/a#L2", "s1/a#L4", "s2/a#L9"]
    reopened.write_set(batch({2: "no more"}))
    assert ids(reopened.search([P("vault")])) == ["s2/a#L9"]
    reopened.close()


def test_embedded_read_only_store_without_the_index_is_scanned(tmp_path, monkeypatch):
    path = tmp_path / "home" / "citegraph.sqlite"
    store = SQLiteStore(path)
    store.write_set(batch())
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE statement_search")
    conn.commit()
    conn.close()
    monkeypatch.setattr("graph.stores.sqlite.os.access", lambda p, mode: mode != os.W_OK)  # not this user's
    readonly = SQLiteStore(path)
    assert ids(readonly.search([P("compare and swap")])) == ["s1/a#L2"]
    assert ids(readonly.search([P("vault")], set_id=S)) == ["s1/a#L2", "s1/a#L4"]
    readonly.close()
    conn = sqlite3.connect(path)
    assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'statement_search'").fetchone()  # unwritten


# -- Neo4j only -----------------------------------------------------------------------------------


@pytest.mark.neo4j
def test_neo4j_statements_written_before_the_index_get_their_words(neo4j_store):
    neo4j_store.write_set(batch())
    neo4j_store.driver.execute_query("MATCH (n:Statement) REMOVE n.search_words", database_=neo4j_store.database)
    assert neo4j_store.search([P("vault")]) == []  # what an older citegraph's database looks like
    neo4j_store.ensure_schema()
    assert ids(neo4j_store.search([P("vault")])) == ["s1/a#L2", "s1/a#L4"]
    assert neo4j_store.edges(["s1/a#L2"], direction=Direction.IN)["s1/a#L2"][0].kind == EdgeKind.CONTAINS


# -- embedded only: the ranked fast path ----------------------------------------------------------


@pytest.fixture(scope="module")
def cheatsheet_and_seeds() -> SQLiteStore:
    """An embedded store of the seeds and the Dynamic Cheatsheet set (the parity corpora)."""
    from tests.conftest import SEEDS, ingest_into
    from tests.contract.test_parity import DYNAMIC_CHEATSHEET

    store = SQLiteStore(None)
    ingest_into(store, SEEDS, *DYNAMIC_CHEATSHEET)
    return store




def test_embedded_ranked_search_answers_as_ranking_every_hit(cheatsheet_and_seeds, monkeypatch):
    from collections import Counter

    import queries.search as qs
    from graph.text import words

    store = cheatsheet_and_seeds
    counts = Counter(w for n in store.find_nodes(Label.STATEMENT) for w in set(words(n.get("text") or "")))
    vocabulary = sorted(counts, key=lambda w: (-counts[w], w))
    assert len(vocabulary) > 2000 and vocabulary[:2] == ["and", "the"]
    queries = vocabulary[:150] + vocabulary[-30:] + ["the memory", "a*", "write* the", "cheatsheet curator",
                                                     "memory memory", "vau* vault", "nothing-like-this"]
    fast = {(q, n): qs.search(store, q, limit=n) for q in queries for n in (1, 7, 20, 200)}
    monkeypatch.setattr(qs, "_ranked_in_store", lambda *a, **k: None)
    # the reference ranks every hit and answers the first ``limit``: its best 200 hold every shorter answer
    reference = {q: qs.search(store, q, limit=200) for q in queries}
    differing = [(q, n) for (q, n), report in fast.items()
                 if replace(reference[q], hits=reference[q].hits[:n]) != report]
    assert differing == []
    the = fast[("the", 200)]
    assert the.total == counts["the"] and len(the.hits) == 200
    assert [h.matches for h in the.hits] == sorted((h.matches for h in the.hits), reverse=True)


def test_embedded_ranked_search_counts_occurrences_from_the_index(cheatsheet_and_seeds):
    store = cheatsheet_and_seeds
    found, total = store.ranked_search([P("the")], limit=3)
    texts = store.get_nodes([i for i, _ in found])
    assert [n for _, n in found] == [words_the(texts[i].get("text")) for i, _ in found]
    assert total == len(store.search([P("the")]))
    assert store.ranked_search([P("compare and swap")], limit=3) is None  # a phrase of several words
    assert store.ranked_search([P("nothing"), P("like"), P("zzzzqqq")], limit=3) == ([], 0)


def words_the(text: str) -> int:
    from graph.text import words

    return words(text).count("the")


def test_embedded_ranked_search_declines_an_index_without_positions(tmp_path):
    # an index made with detail=column keeps one instance row per statement, not per occurrence
    path = tmp_path / "citegraph.sqlite"
    store = SQLiteStore(path)
    store.write_set(batch())
    assert store.ranked_search([P("swap")], limit=5) == ([("s1/a#L3", 3), ("s1/a#L2", 1)], 2)  # TEXTS 3 and 2
    store.close()
    conn = sqlite3.connect(path)
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'statement_search'").fetchone()[0]
    conn.execute("DROP TABLE statement_search")
    conn.execute(sql.replace("content=''", "content='', detail=column"))
    conn.execute("INSERT INTO statement_search (rowid, text) SELECT nid, json_extract(props, '$.text') "
                 "FROM nodes WHERE label = 'Statement'")
    conn.commit()
    conn.close()
    reopened = SQLiteStore(path)
    assert reopened.ranked_search([P("swap")], limit=5) is None
    from queries.search import search

    assert [(h.statement, h.matches) for h in search(reopened, "swap").hits] == [("s1/a#L3", 3), ("s1/a#L2", 1)]
    reopened.close()
