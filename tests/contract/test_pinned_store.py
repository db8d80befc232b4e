"""The read-only view of earlier versions (:class:`graph.stores.pinned.PinnedStore`) answers the
store contract exactly as a store holding those versions does: pinned to the latest version it is
indistinguishable from the store itself, on both backends, whichever sets the reads touch."""

from __future__ import annotations

import pytest

from graph.errors import CitegraphError
from graph.model import DEPENDENCY_KINDS, EdgeKind, Label
from graph.store import Direction, SupportsReach
from graph.stores.pinned import PinnedStore
from graph.stores.sqlite import SQLiteStore
from queries.search import parse_query
from queries.traversal import RESTS_ON_FIELDS
from tests.conftest import SEEDS, ingest_into
from tests.contract.helpers import canonical
from tests.history_sets import LEDGER, LEDGER_V1, ledger_versions


def reads(store) -> str:
    """Every contract read over every node, by label and set, in both directions."""
    sets = [None, "tolaria", LEDGER, "nope"]
    nodes = {label: {s: store.find_nodes(label, set_id=s) for s in sets} for label in Label}
    ids = sorted({n.id for found in nodes[Label.RECORD].values() for n in found} |
                 {n.id for label in Label for n in nodes[label][None]} | {"system/ledger", "nope"})
    records = [n.id for n in nodes[Label.RECORD][None]]
    return canonical({
        "nodes": nodes,
        "by_document": store.find_nodes(Label.STATEMENT, document_id=f"{LEDGER}/synthesis"),
        "where": store.find_nodes(Label.RECORD, where={"kind": "RTE"}),
        "get": store.get_nodes(ids),
        "out": store.edges(ids, direction=Direction.OUT),
        "in": store.edges(ids, kinds=[EdgeKind.CITES, EdgeKind.CONTAINS], direction=Direction.IN),
        "degrees": store.degrees(ids, direction=Direction.IN),
        "closure": store.closure(records, kinds=DEPENDENCY_KINDS),
        "reach": store.reach(records, kinds=DEPENDENCY_KINDS, fields=RESTS_ON_FIELDS),
        "counts": [store.counts(set_id=s) for s in sets],
        "search": [store.search(parse_query("the"), set_id=s) for s in sets],
    })


def test_pinned_to_the_latest_version_it_reads_as_the_store(store):
    ingest_into(store, SEEDS)
    ledger_versions(store)
    latest = SQLiteStore(None, versions_kept=0)
    latest.write_set(store.set_version(LEDGER, 2))
    view = PinnedStore(store, {LEDGER: latest})
    assert isinstance(view, SupportsReach)
    assert reads(view) == reads(store)
    assert view.set_versions(LEDGER) == store.set_versions(LEDGER)


def test_pinned_to_an_earlier_version_it_reads_as_a_store_of_that_version(store):
    ingest_into(store, SEEDS)
    ledger_versions(store)
    earlier = SQLiteStore(None, versions_kept=0)
    earlier.write_set(store.set_version(LEDGER, 1))
    expected = SQLiteStore(None)
    ingest_into(expected, SEEDS)
    ingest_into(expected, LEDGER_V1)
    assert reads(PinnedStore(store, {LEDGER: earlier})) == reads(expected)
    with pytest.raises(CitegraphError, match="read-only"):
        PinnedStore(store, {LEDGER: earlier}).delete_documents([f"{LEDGER}/synthesis"])
