"""A set new to the store (embedded or Neo4j) gets its first version from the rows its write put
(:func:`graph.versions.encode_written`), not read back: the same blob, digest, members and counts
as reading the rows back gives, and None whenever the rows alone do not decide them."""

from __future__ import annotations

import pytest

from graph import versions, writes
from graph.model import Edge, EdgeKind, Label, Node
from graph.stores import sqlite as embedded
from graph.stores.sqlite import SQLiteStore
from ingest.loader import build_set_batch
from tests.analysis_sets import DYNAMIC_CHEATSHEET, G1_RESULTS, G2, G4, IM01, IM02
from tests.whole_input import read_members


def test_every_real_set_written_new_gets_the_version_its_rows_read_back_give(monkeypatch):
    compared: list[str] = []
    keep = SQLiteStore._keep_versions

    def checked(self, conn, before, created, after=None):
        for set_id, encoded in (after or {}).items():
            assert encoded == embedded._snapshot(conn, set_id)
            compared.append(set_id)
        return keep(self, conn, before, created, after)

    monkeypatch.setattr(SQLiteStore, "_keep_versions", checked)
    store = SQLiteStore(None)
    by_set: dict[str, list] = {}
    for doc in read_members([*DYNAMIC_CHEATSHEET, IM01, IM02, G1_RESULTS, G2, G4], skip_invalid=True).parsed:
        by_set.setdefault(doc.set_id or doc.run_id or "", []).append(doc)
    for set_id, docs in by_set.items():
        store.write_set(build_set_batch(store, set_id, docs))
    assert sorted(compared) == sorted(by_set) and len(compared) >= 6
    for set_id in by_set:  # the held latest version reads back with the digest it was given
        (version,) = store.set_versions(set_id)
        assert store.set_version(set_id, version.number) is not None
    again = {set_id: build_set_batch(store, set_id, docs) for set_id, docs in by_set.items()}
    compared.clear()
    for batch in again.values():  # a set the store holds is read back, as before
        store.write_set(batch)
    assert compared == []



@pytest.mark.neo4j
def test_every_real_set_written_new_into_neo4j_gets_the_version_its_rows_read_back_give(monkeypatch, neo4j_store):
    from graph.stores import neo4j

    compared: list[str] = []
    keep = neo4j.Neo4jStore._keep_versions_step

    def checked(self, tx, before, created, after=None):
        for set_id, encoded in (after or {}).items():
            assert encoded == neo4j._snapshot(tx, set_id)
            compared.append(set_id)
        return keep(self, tx, before, created, after)

    monkeypatch.setattr(neo4j.Neo4jStore, "_keep_versions_step", checked)
    decided: list[tuple[str, list[str]]] = []
    collect = neo4j.Neo4jStore._collect_orphans_step

    def collect_checked(self, tx, set_ids, *, put=None):  # the rows decide what the server would
        if put is not None:
            (set_id,) = set_ids
            mine = writes.orphans_of_new_set(set_id, *put)
            if mine is not None:
                assert mine == [i for stage in writes.collected(set_id, neo4j._SetRemains(tx)) for i in stage]
                decided.append((set_id, mine))
        return collect(self, tx, set_ids, put=put)

    monkeypatch.setattr(neo4j.Neo4jStore, "_collect_orphans_step", collect_checked)
    by_set: dict[str, list] = {}
    for doc in read_members([*DYNAMIC_CHEATSHEET, IM01, IM02, G1_RESULTS, G2, G4], skip_invalid=True).parsed:
        by_set.setdefault(doc.set_id or doc.run_id or "", []).append(doc)
    for set_id, docs in by_set.items():
        neo4j_store.write_set(build_set_batch(neo4j_store, set_id, docs))
    assert sorted(compared) == sorted(by_set) and len(compared) >= 6
    assert sorted(s for s, _ in decided) == sorted(by_set)
    embedded_store = SQLiteStore(None)
    for set_id, docs in by_set.items():  # the same versions as the embedded store keeps
        embedded_store.write_set(build_set_batch(embedded_store, set_id, docs))
        assert [v.digest for v in neo4j_store.set_versions(set_id)] == [
            v.digest for v in embedded_store.set_versions(set_id)]
    again = {set_id: build_set_batch(neo4j_store, set_id, docs) for set_id, docs in by_set.items()}
    compared.clear()
    for batch in again.values():  # a set the store holds is read back, as before
        neo4j_store.write_set(batch)
    assert compared == []

S = Node("s", Label.ANALYSIS_SET, "s", None, {})
SYS = Node("system/x", Label.SYSTEM, None, None, {"name": "X"})
HOLDS = Edge(EdgeKind.CONTAINS, "system/x", "s", 0, None, "s")
R1, R2 = (Node(f"s/record/R-{n}", Label.RECORD, "s", None, {}) for n in (1, 2))


def test_the_last_of_equal_nodes_and_edges_is_encoded_as_a_store_keeps_it():
    alias = Edge(EdgeKind.SUPERSEDED_BY, R1.id, R2.id, 0, "s/a", "s", {"via": "old"})
    newer = Edge(EdgeKind.SUPERSEDED_BY, R1.id, R2.id, 0, "s/a", "s", {"via": "new"})
    got = versions.encode_written("s", [(S, "{}"), (SYS, '{"name":"X"}'), (R1, "{}"), (R2, "{}"), (R2, '{"n":2}')],
                                  [(HOLDS, "{}"), (alias, '{"via":"old"}'), (newer, '{"via":"new"}')])
    assert got == versions.encode_rows(
        "s", [("s", "AnalysisSet", "s", None, "{}"), ("system/x", "System", None, None, '{"name":"X"}'),
              (R1.id, "Record", "s", None, "{}"), (R2.id, "Record", "s", None, '{"n":2}')],
        [("CONTAINS", "system/x", "s", 0, None, "s", "{}"),
         ("SUPERSEDED_BY", R1.id, R2.id, 0, "s/a", "s", '{"via":"new"}')])


def test_rows_that_do_not_decide_the_encoding_give_none():
    a = Edge(EdgeKind.SUPERSEDED_BY, R1.id, R2.id, 0, "s/a", "s")
    b = Edge(EdgeKind.SUPERSEDED_BY, R1.id, R2.id, 0, "s/b", "s")  # the same place in the order, another owner
    nodes = [(S, "{}"), (SYS, "{}"), (R1, "{}"), (R2, "{}")]
    assert versions.encode_written("s", nodes, [(HOLDS, "{}"), (a, "{}"), (b, "{}")]) is None
    assert versions.encode_written("s", nodes[:1] + nodes[2:], [(HOLDS, "{}")]) is None  # a System not written
    assert versions.encode_written("s", nodes[1:], [(HOLDS, "{}")]) is None  # no AnalysisSet
    assert versions.encode_written("s", nodes, [(HOLDS, "{}"), (a, "{}")]) is not None


def test_a_new_sets_orphans_are_decided_from_its_rows_only_when_they_decide_them():
    from graph.writes import orphans_of_new_set

    doc = Node("s/a", Label.DOCUMENT, "s", "s/a", {})
    src, pinned = (Node(f"s/source/{n}", Label.SOURCE, "s", None, {}) for n in ("cited", "pinned"))
    f = Node("s/file/x.py", Label.SOURCE_FILE, "s", None, {})
    holds = Edge(EdgeKind.CONTAINS, "s", "s/a", 0, "s/a", "s")
    cites = Edge(EdgeKind.CITES, "s/a", src.id, 0, "s/a", "s")
    derived = Edge(EdgeKind.IN_SOURCE, f.id, pinned.id, 0, None, "s")  # a set's edge keeps nothing
    nodes = [(n, "{}") for n in (S, SYS, doc, src, pinned, f)]
    edges = [(e, "{}") for e in (HOLDS, holds, cites, derived)]
    assert orphans_of_new_set("s", nodes, edges) == [f.id, pinned.id]
    assert orphans_of_new_set("s", nodes, [(HOLDS, "{}"), (cites, "{}")]) is None  # no Document held
    stored_end = Edge(EdgeKind.CITES, "s/a", "t/record/R-1", 0, "s/a", "s")
    assert orphans_of_new_set("s", nodes, [*edges, (stored_end, "{}")]) is None  # an end the write did not put
