"""Versions of a set in the store: kept on each changed write, none on an unchanged
one, each rebuilding its set exactly, bounded by retention, gone with the set. Runs on both stores
(the ``store`` fixture: SQLite file and Neo4j)."""

from __future__ import annotations

import pytest

from graph.model import Label
from graph.store import Direction, KeepsVersions
from graph.stores.sqlite import SQLiteStore
from graph.versions import VersionCounts, decode, encode, snapshot
from queries.history import read_set
from tests.conftest import ingest_into
from tests.contract.helpers import canonical
from tests.history_sets import LEDGER, LEDGER_V1, LEDGER_V2, sha256


def set_content(store, set_id: str) -> str:
    """Every node and edge of one set (and its counts), canonically."""
    nodes = [n for label in Label for n in store.find_nodes(label, set_id=set_id)]
    edges = store.edges([n.id for n in nodes], direction=Direction.OUT)
    return canonical({"nodes": nodes, "edges": edges, "counts": store.counts(set_id=set_id)})


def with_kept(store, kept: int):
    """The same store (same file or database) keeping ``kept`` versions per set."""
    if isinstance(store, SQLiteStore):
        return SQLiteStore(store.path, versions_kept=kept)
    from graph.stores.neo4j import Neo4jStore

    return Neo4jStore(store.driver, database=store.database, versions_kept=kept)


def test_each_changed_write_keeps_a_version_and_an_unchanged_one_none(store):
    assert isinstance(store, KeepsVersions) and store.versions_kept == 10
    ingest_into(store, LEDGER_V1)
    v1_content = set_content(store, LEDGER)
    ingest_into(store, LEDGER_V1)  # unchanged: no member is written, and no version is added
    assert [v.number for v in store.set_versions(LEDGER)] == [1]
    store.write_set(read_set(store, LEDGER))  # the same set written again through the store: still none
    assert [v.number for v in store.set_versions(LEDGER)] == [1]
    ingest_into(store, LEDGER_V2)
    versions = store.set_versions(LEDGER)
    assert [v.number for v in versions] == [1, 2]
    assert [v.created is not None for v in versions] == [True, True]
    assert versions[0].digest != versions[1].digest
    for version, folder in zip(versions, (LEDGER_V1, LEDGER_V2)):
        assert [(m.document, m.role, m.sha256) for m in version.members] == [
            (f"{LEDGER}/{role}", role, sha256(folder / f"{role}.md"))
            for role in ("reconciliation", "runtime", "synthesis")]
    assert versions[0].counts == VersionCounts(documents=3, sections=15, statements=38, records=3, declarations=3,
                                               citations=22, quotations=0, source_files=3, nodes=65, edges=85)
    # the summary a store keeps beside the blob: members, then counts, keyed by field name
    assert versions[0].summary_json().startswith('{"members":[{"document":"%s/reconciliation","role":"reconciliation",'
                                                 '"path":' % LEDGER)
    assert versions[0].summary_json().endswith(
        '"counts":{"documents":3,"sections":15,"statements":38,"records":3,"declarations":3,"citations":22,'
        '"quotations":0,"source_files":3,"nodes":65,"edges":85}}')
    # version 2: one amendment paragraph more (one statement), which cites two records
    counts = versions[1].counts
    assert (counts.statements, counts.citations, counts.records) == (39, 24, 3)

    # each version rebuilds its set exactly in an empty store; the latest is the live graph
    for number, expected in ((1, v1_content), (2, set_content(store, LEDGER))):
        rebuilt = SQLiteStore(None, versions_kept=0)
        rebuilt.write_set(store.set_version(LEDGER, number))
        assert set_content(rebuilt, LEDGER) == expected
    assert store.set_version(LEDGER, 3) is None
    assert store.set_versions("no-such-set") == [] and store.set_version("no-such-set", 1) is None


def test_the_digest_is_the_content(store):
    ingest_into(store, LEDGER_V1)
    (version,) = store.set_versions(LEDGER)
    batch = store.set_version(LEDGER, 1)
    blob, digest = encode(batch)
    assert digest == version.digest
    assert decode(blob) == batch
    assert snapshot("no-such-set", [], []) is None


def test_retention_keeps_the_newest(store):
    kept = with_kept(store, 2)
    for folder in (LEDGER_V1, LEDGER_V2, LEDGER_V1):  # back to version 1's content: a new version, 3
        ingest_into(kept, folder)
    second, third = kept.set_versions(LEDGER)
    assert (second.number, third.number) == (2, 3)
    assert kept.set_version(LEDGER, 1) is None
    assert [m.sha256 for m in third.members] == [sha256(LEDGER_V1 / f"{r}.md")
                                                 for r in ("reconciliation", "runtime", "synthesis")]
    assert second.digest != third.digest
    assert encode(kept.set_version(LEDGER, 3))[1] == third.digest


def test_deleting_members_is_a_version_and_deleting_the_set_deletes_them_all(store):
    ingest_into(store, LEDGER_V1)
    ingest_into(store, LEDGER_V2)
    store.delete_documents([f"{LEDGER}/synthesis"])
    versions = store.set_versions(LEDGER)
    assert [v.number for v in versions] == [1, 2, 3]
    assert [m.document for m in versions[2].members] == [f"{LEDGER}/reconciliation", f"{LEDGER}/runtime"]
    store.delete_documents([f"{LEDGER}/reconciliation", f"{LEDGER}/runtime"])
    assert store.set_versions(LEDGER) == []
    assert store.get_nodes([LEDGER]) == {}
    ingest_into(store, LEDGER_V2)  # the set anew: its history starts again
    assert [v.number for v in store.set_versions(LEDGER)] == [1]


def test_a_set_written_before_versions_were_kept_gets_its_state_as_version_1(store):
    ingest_into(with_kept(store, 0), LEDGER_V1)  # as a citegraph without versions wrote it
    assert store.set_versions(LEDGER) == []
    before = set_content(store, LEDGER)
    ingest_into(store, LEDGER_V2)
    versions = store.set_versions(LEDGER)
    assert [(v.number, v.created is None) for v in versions] == [(1, True), (2, False)]
    rebuilt = SQLiteStore(None, versions_kept=0)
    rebuilt.write_set(store.set_version(LEDGER, 1))
    assert set_content(rebuilt, LEDGER) == before


@pytest.mark.parametrize("kept", [-1])
def test_a_negative_retention_is_refused(kept):
    with pytest.raises(ValueError, match="versions_kept must be at least 0, not -1"):
        SQLiteStore(None, versions_kept=kept)
