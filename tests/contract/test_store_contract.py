"""The store contract (graph/store.py), once, against every backend through the ``store`` fixture.

Small hand-built sets pin down each primitive's edge behaviour; the seeds-based differential tests
live in ``test_parity.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from graph.errors import CitegraphError, PreconditionFailed
from graph.model import DocumentGraph, Edge, EdgeKind, Label, Node, SetBatch
from graph.store import Direction, GraphStore, Reach, SupportsNodesWithEdges, bare_edges
from queries.traversal import generic_reach, reach

S = "s1"
SYSTEM = "system/sys"


def node(node_id: str, label: Label, *, set_id: str | None = S, document_id: str | None = None, **props) -> Node:
    return Node(node_id, label, set_id, document_id, props)


def edge(kind: EdgeKind, src: str, dst: str, seq: int = 0, *, document_id: str | None = None,
         set_id: str | None = S, **props) -> Edge:
    return Edge(kind, src, dst, seq, document_id, set_id, props)


def document(role: str, cites: dict[int, list[str]], *, set_id: str = S, sha: str = "sha-1",
             extra_edges: tuple[Edge, ...] = ()) -> DocumentGraph:
    """Document ``<set>/<role>`` with a section at line 1 and a statement per ``cites`` line, each
    citing the listed node ids in order."""
    doc_id = f"{set_id}/{role}"
    section = f"{doc_id}#L1"
    nodes = [node(section, Label.SECTION, set_id=set_id, document_id=doc_id, heading="Intro", level=2, line=1, order=1)]
    edges = [edge(EdgeKind.CONTAINS, set_id, doc_id, document_id=doc_id, set_id=set_id, order=0),
             edge(EdgeKind.CONTAINS, doc_id, section, document_id=doc_id, set_id=set_id, order=1)]
    for line, targets in sorted(cites.items()):
        statement = f"{doc_id}#L{line}"
        nodes.append(node(statement, Label.STATEMENT, set_id=set_id, document_id=doc_id, kind="paragraph",
                          text=f"line {line}", line=line, order=line))
        edges.append(edge(EdgeKind.CONTAINS, section, statement, document_id=doc_id, set_id=set_id, order=line))
        for seq, target in enumerate(targets):
            edges.append(edge(EdgeKind.CITES, statement, target, seq, document_id=doc_id, set_id=set_id,
                              form="citation", token=target.rsplit("/", 1)[-1]))
    doc = node(doc_id, Label.DOCUMENT, set_id=set_id, document_id=doc_id, role=role, sha256=sha, format="txt")
    return DocumentGraph(doc, tuple(nodes), tuple(edges) + extra_edges)


def shared(set_id: str = S, *records: str, refs: tuple[str, ...] = ()) -> tuple[Node, ...]:
    out = [node(SYSTEM, Label.SYSTEM, set_id=None, name="Sys", slug="sys"),
           node(set_id, Label.ANALYSIS_SET, set_id=set_id, system=SYSTEM, run_id=None)]
    out += [node(f"{set_id}/{r}", Label.RECORD, set_id=set_id, record_id=r, kind="RTE", analyst="RT") for r in records]
    out += [node(f"{set_id}/ref/{r}", Label.NAMED_REFERENCE, set_id=set_id, name=r, slug=r) for r in refs]
    return tuple(out)


def system_edge(set_id: str = S) -> Edge:
    return edge(EdgeKind.CONTAINS, SYSTEM, set_id, set_id=set_id, order=0)


def basic_batch() -> SetBatch:
    """Set s1: document a (L2 cites R1 twice and the ref, L3 cites R2), document b (L2 cites R1);
    the named reference resolves to a's section (derived)."""
    a = document("a", {2: ["s1/R1", "s1/ref/intro", "s1/R1"], 3: ["s1/R2"]})
    b = document("b", {2: ["s1/R1"]})
    derived = (system_edge(), edge(EdgeKind.RESOLVES_TO, "s1/ref/intro", "s1/a#L1"))
    return SetBatch(S, shared(S, "R1", "R2", refs=("intro",)), (a, b), derived)


def dump(store: GraphStore) -> dict:
    """Everything in the store, as JSON-compatible data in a canonical order."""
    nodes = [n.to_dict() for label in Label for n in store.find_nodes(label)]
    ids = [n["id"] for n in nodes]
    out = store.edges(ids, direction=Direction.OUT)
    return {"nodes": nodes, "edges": [e.to_dict() for i in ids for e in out[i]], "counts": store.counts()}


# -- reads --------------------------------------------------------------------------------------


def test_empty_store_answers_empty(store):
    assert store.get_nodes(["x"]) == {}
    assert store.find_nodes(Label.RECORD) == []
    assert store.edges(["x"], direction=Direction.IN) == {"x": []}
    assert store.closure(["x"], kinds=[EdgeKind.CITES]) == []
    counts = store.counts()
    assert set(counts) == {*map(str, Label), *map(str, EdgeKind), "nodes", "edges"}
    assert set(counts.values()) == {0}


def test_get_nodes_leaves_unknown_ids_out(store):
    store.write_set(basic_batch())
    got = store.get_nodes(["s1/R1", "nope", "s1/a#L2", "s1/R1"])
    assert sorted(got) == ["s1/R1", "s1/a#L2"]
    assert got["s1/R1"] == node("s1/R1", Label.RECORD, record_id="R1", kind="RTE", analyst="RT")
    assert got["s1/a#L2"].document_id == "s1/a" and got["s1/a#L2"].label == Label.STATEMENT
    assert store.get_nodes([]) == {}


def test_find_nodes_filters_by_label_set_document_and_all_where_items(store):
    store.write_set(basic_batch())
    store.write_set(SetBatch("s2", shared("s2", "R1"), (document("a", {2: ["s2/R1"]}, set_id="s2"),),
                             (system_edge("s2"),)))
    assert [n.id for n in store.find_nodes(Label.RECORD)] == ["s1/R1", "s1/R2", "s2/R1"]
    assert [n.id for n in store.find_nodes(Label.RECORD, set_id="s2")] == ["s2/R1"]
    assert [n.id for n in store.find_nodes(Label.STATEMENT, document_id="s1/a")] == ["s1/a#L2", "s1/a#L3"]
    assert [n.id for n in store.find_nodes(Label.SECTION, document_id="s1/a")] == ["s1/a#L1"]
    assert [n.id for n in store.find_nodes(Label.RECORD, where={"record_id": "R1"})] == ["s1/R1", "s2/R1"]
    # every where item must hold (all, never any)
    assert store.find_nodes(Label.RECORD, where={"record_id": "R1", "kind": "MEM"}) == []
    assert [n.id for n in store.find_nodes(Label.RECORD, set_id="s1", where={"record_id": "R1", "kind": "RTE"})] == ["s1/R1"]
    # non-string values, and None matching a property that is absent or null
    assert [n.id for n in store.find_nodes(Label.STATEMENT, where={"line": 3})] == ["s1/a#L3"]
    assert [n.id for n in store.find_nodes(Label.ANALYSIS_SET, where={"run_id": None})] == ["s1", "s2"]
    assert [n.id for n in store.find_nodes(Label.ANALYSIS_SET, where={"missing": None})] == ["s1", "s2"]
    assert store.find_nodes(Label.RECORD, where={"record_id": None}) == []
    assert store.find_nodes(Label.RECORD, set_id="nope") == []
    assert store.find_nodes(Label.RECORD, document_id="s1/a") == []


def test_edges_every_asked_id_is_a_key_and_lists_are_sorted(store):
    store.write_set(basic_batch())
    out = store.edges(["s1/a#L2", "nope"], direction=Direction.OUT)
    assert out["nope"] == []
    assert [(e.kind, e.dst, e.seq) for e in out["s1/a#L2"]] == [
        (EdgeKind.CITES, "s1/R1", 0), (EdgeKind.CITES, "s1/R1", 2), (EdgeKind.CITES, "s1/ref/intro", 1)]
    assert all(e.props["form"] == "citation" and e.document_id == "s1/a" for e in out["s1/a#L2"])
    incoming = store.edges(["s1/R1", "s1/a#L2"], kinds=[EdgeKind.CITES], direction=Direction.IN)
    assert [(e.src, e.seq) for e in incoming["s1/R1"]] == [("s1/a#L2", 0), ("s1/a#L2", 2), ("s1/b#L2", 0)]
    assert incoming["s1/a#L2"] == []
    contains = store.edges(["s1/a#L2"], kinds=[EdgeKind.CONTAINS], direction=Direction.IN)["s1/a#L2"]
    assert [(e.src, e.props) for e in contains] == [("s1/a#L1", {"order": 2})]
    assert store.edges(["s1/a#L2"], kinds=[], direction=Direction.OUT) == {"s1/a#L2": []}
    assert store.edges([], direction=Direction.OUT) == {}



def test_degrees_count_what_edges_would_give(store):
    store.write_set(basic_batch())
    ids = ["s1/R1", "s1/R2", "s1/a#L2", "s1/ref/intro", "nope"]
    assert store.degrees(ids, kinds=[EdgeKind.CITES], direction=Direction.IN) == {
        "s1/R1": 3, "s1/R2": 1, "s1/a#L2": 0, "s1/ref/intro": 1, "nope": 0}
    assert store.degrees(["s1/a#L2", "s1/ref/intro"], direction=Direction.OUT) == {"s1/a#L2": 3, "s1/ref/intro": 1}
    for direction in Direction:
        listed = store.edges(ids, direction=direction)
        assert store.degrees(ids, direction=direction) == {i: len(es) for i, es in listed.items()}
    assert store.degrees(["s1/R1"], kinds=[], direction=Direction.IN) == {"s1/R1": 0}
    assert store.degrees([], direction=Direction.IN) == {}

def test_closure_is_reverse_reachability_over_the_given_kinds(store):
    store.write_set(basic_batch())
    kinds = [EdgeKind.CITES, EdgeKind.RESOLVES_TO, EdgeKind.CONTAINS]
    found = store.closure(["s1/R2"], kinds=kinds)
    # R2 <- a#L3 <- a#L1 <- {a, ref} ; a <- s1 ; s1 <- system ; ref <- a#L2 ; a#L2 <- a#L1 (already)
    assert [(e.src, str(e.kind), e.dst) for e in found] == [
        ("s1", "CONTAINS", "s1/a"),
        ("s1/a", "CONTAINS", "s1/a#L1"),
        ("s1/a#L1", "CONTAINS", "s1/a#L2"),
        ("s1/a#L1", "CONTAINS", "s1/a#L3"),
        ("s1/a#L2", "CITES", "s1/ref/intro"),
        ("s1/a#L3", "CITES", "s1/R2"),
        ("s1/ref/intro", "RESOLVES_TO", "s1/a#L1"),
        ("system/sys", "CONTAINS", "s1"),
    ]
    assert found == sorted(found, key=Edge.sort_key)
    only_cites = store.closure(["s1/R1"], kinds=[EdgeKind.CITES])
    assert [(e.src, e.dst, e.seq) for e in only_cites] == [
        ("s1/a#L2", "s1/R1", 0), ("s1/a#L2", "s1/R1", 2), ("s1/b#L2", "s1/R1", 0)]
    assert store.closure(["nope"], kinds=kinds) == []
    assert store.closure(["s1/R1"], kinds=[]) == []
    both = store.closure(["s1/R1", "s1/R2", "nope"], kinds=[EdgeKind.CITES])
    assert len(both) == len({(e.src, e.dst, e.seq) for e in both}) == 4


def test_closure_terminates_on_cycles_and_returns_each_edge_once(store):
    # records superseding each other in a ring, each cited once; a self-loop too
    ring = [edge(EdgeKind.SUPERSEDED_BY, "s1/R1", "s1/R2", document_id="s1/a"),
            edge(EdgeKind.SUPERSEDED_BY, "s1/R2", "s1/R3", document_id="s1/a"),
            edge(EdgeKind.SUPERSEDED_BY, "s1/R3", "s1/R1", document_id="s1/a"),
            edge(EdgeKind.SUPERSEDED_BY, "s1/R3", "s1/R3", 1, document_id="s1/a")]
    a = document("a", {2: ["s1/R1"], 3: ["s1/R2"], 4: ["s1/R3"]}, extra_edges=tuple(ring))
    store.write_set(SetBatch(S, shared(S, "R1", "R2", "R3"), (a,), (system_edge(),)))
    found = store.closure(["s1/R1"], kinds=[EdgeKind.SUPERSEDED_BY, EdgeKind.CITES])
    assert [(e.src, str(e.kind), e.dst, e.seq) for e in found] == [
        ("s1/R1", "SUPERSEDED_BY", "s1/R2", 0),
        ("s1/R2", "SUPERSEDED_BY", "s1/R3", 0),
        ("s1/R3", "SUPERSEDED_BY", "s1/R1", 0),
        ("s1/R3", "SUPERSEDED_BY", "s1/R3", 1),
        ("s1/a#L2", "CITES", "s1/R1", 0),
        ("s1/a#L3", "CITES", "s1/R2", 0),
        ("s1/a#L4", "CITES", "s1/R3", 0),
    ]


ODD_PROPS = {"none": None, "empty": [], "nested": {"a": [1, 2]}, "huge": 2**70 + 1, "id": "shadows the node id",
             "flag": True, "ratio": 0.5, "tags": ["x", "y"], "markup": "| heavy |\n"}
"""Props of every shape: Neo4j holds some natively, others (None, [], maps, ints beyond 64 bits,
reserved names) only in ``props_json``; a projection must give them back exactly."""


def test_reach_is_the_closure_with_the_nodes_on_it_projected(store):
    a = document("a", {2: ["s1/R1"], 3: ["s1/R2"]})
    odd = dataclasses.replace(a.nodes[1], props={**a.nodes[1].props, **ODD_PROPS})
    a = dataclasses.replace(a, nodes=(a.nodes[0], odd, *a.nodes[2:]))
    store.write_set(SetBatch(S, shared(S, "R1", "R2"), (a,), (system_edge(),)))
    kinds = [EdgeKind.CITES, EdgeKind.CONTAINS]
    light = {Label.STATEMENT: ("kind", "line", "missing"), Label.SECTION: ("heading",)}

    found = reach(store, ["s1/R1", "nope", "s1/R1"], kinds=kinds, fields=light)
    assert found == generic_reach(store, ["s1/R1", "nope"], kinds=kinds, fields=light)
    assert found.edges == store.closure(["s1/R1"], kinds=kinds)
    assert sorted(found.nodes) == ["s1", "s1/R1", "s1/a", "s1/a#L1", "s1/a#L2", "system/sys"]
    assert found.nodes["s1/a#L2"] == Node("s1/a#L2", Label.STATEMENT, S, "s1/a", {"kind": "paragraph", "line": 2})
    assert found.nodes["s1/a#L1"].props == {"heading": "Intro"}
    assert found.nodes["s1/R1"] == Node("s1/R1", Label.RECORD, S, None, {})
    assert found.nodes["system/sys"] == Node("system/sys", Label.SYSTEM, None, None, {})

    every = {Label.STATEMENT: (*ODD_PROPS, "text", "missing"), Label.ANALYSIS_SET: ("run_id", "system")}
    found = reach(store, ["s1/R1"], kinds=kinds, fields=every)
    assert found.nodes["s1/a#L2"].props == {**ODD_PROPS, "text": "line 2"}
    assert found.nodes["s1"].props == {"run_id": None, "system": SYSTEM}
    assert found == generic_reach(store, ["s1/R1"], kinds=kinds, fields=every)

    bare = reach(store, ["s1/R1"], kinds=kinds, fields=every, edge_props=False)
    assert bare == Reach(bare_edges(found.edges), found.nodes)
    assert any(e.props for e in found.edges) and not any(e.props for e in bare.edges)
    assert bare == generic_reach(store, ["s1/R1"], kinds=kinds, fields=every, edge_props=False)

    assert reach(store, ["s1/R1", "nope"], kinds=[], fields=light) == Reach([], {"s1/R1": found.nodes["s1/R1"]})
    assert reach(store, ["nope"], kinds=kinds, fields=light) == Reach([], {})
    assert reach(store, [], kinds=kinds, fields=light) == Reach([], {})


def test_nodes_with_edges_are_get_nodes_and_outgoing_edges_in_one_call(store):
    """Where a store offers :class:`~graph.store.SupportsNodesWithEdges` (Neo4j), it answers what
    ``get_nodes`` and ``edges`` (OUT) answer, duplicates, unknown ids and empty kinds included; a
    store without it (the embedded one, where a call costs no round trip) is asked those two calls,
    as ``queries.traversal`` asks it."""
    alias = edge(EdgeKind.SUPERSEDED_BY, "s1/R1", "s1/R2", document_id="s1/a", alias=True, statement="s1/a#L2")
    a = document("a", {2: ["s1/R1"], 3: ["s1/R2"]}, extra_edges=(alias,))
    store.write_set(SetBatch(S, shared(S, "R1", "R2"), (a,), (system_edge(),)))
    assert isinstance(store, SupportsNodesWithEdges) == (store.__class__.__name__ == "Neo4jStore")

    def ask(ids: list[str], *, kinds: list[EdgeKind]) -> tuple[dict, dict]:
        if isinstance(store, SupportsNodesWithEdges):
            return store.nodes_with_edges(ids, kinds=kinds)
        return store.get_nodes(ids), store.edges(ids, kinds=kinds, direction=Direction.OUT)

    for ids, kinds in [(["s1", "s1/R1", "nope", "s1/R1"], [EdgeKind.SUPERSEDED_BY]),
                       (["s1/a#L2", "s1/a#L1"], [EdgeKind.CITES, EdgeKind.CONTAINS]),
                       (["s1/R1"], []), ([], [EdgeKind.CITES])]:
        nodes, out = ask(ids, kinds=kinds)
        assert nodes == store.get_nodes(ids)
        assert out == store.edges(ids, kinds=kinds, direction=Direction.OUT)
    assert ask(["s1/R1"], kinds=[EdgeKind.SUPERSEDED_BY])[1] == {"s1/R1": [alias]}


def test_counts_per_label_and_kind_with_totals(store):
    store.write_set(basic_batch())
    counts = store.counts()
    assert counts["Document"] == 2 and counts["Statement"] == 3 and counts["Record"] == 2
    assert counts["System"] == counts["AnalysisSet"] == counts["NamedReference"] == 1
    assert counts["CITES"] == 5 and counts["RESOLVES_TO"] == 1 and counts["QUOTES"] == 0
    assert counts["nodes"] == sum(counts[str(label)] for label in Label)
    assert counts["edges"] == sum(counts[str(kind)] for kind in EdgeKind)



def test_counts_of_one_set_are_its_nodes_and_edges(store):
    store.write_set(basic_batch())
    store.write_set(SetBatch("s2", shared("s2", "R1"), (document("a", {2: ["s2/R1"]}, set_id="s2"),),
                             (system_edge("s2"),)))
    s1, s2, total = store.counts(set_id="s1"), store.counts(set_id="s2"), store.counts()
    assert (s1["Document"], s1["Section"], s1["Statement"], s1["Record"], s1["AnalysisSet"]) == (2, 2, 3, 2, 1)
    assert (s2["Document"], s2["Statement"], s2["Record"], s2["NamedReference"]) == (1, 1, 1, 0)
    assert s1["System"] == s2["System"] == 0 and total["System"] == 1  # the System belongs to no set
    # the System's CONTAINS edge to a set is that set's: CONTAINS = set→doc, doc→section, section→statement, system→set
    assert (s1["CONTAINS"], s1["CITES"], s1["RESOLVES_TO"]) == (2 + 2 + 3 + 1, 5, 1)
    assert (s2["CONTAINS"], s2["CITES"], s2["nodes"], s2["edges"]) == (1 + 1 + 1 + 1, 1, 5, 5)
    assert s1["edges"] + s2["edges"] == total["edges"]
    assert s1["nodes"] + s2["nodes"] + total["System"] == total["nodes"]
    assert set(store.counts(set_id="nope").values()) == {0}
    store.delete_documents(["s2/a"])
    assert set(store.counts(set_id="s2").values()) == {0}

# -- writes -------------------------------------------------------------------------------------


def test_write_set_twice_is_the_same_as_once(store):
    first = store.write_set(basic_batch())
    before = dump(store)
    second = store.write_set(basic_batch())
    assert dump(store) == before
    assert first == second
    assert first.written == ("s1/a", "s1/b") and first.deleted == ()
    assert (first.nodes, first.edges) == (before["counts"]["nodes"], before["counts"]["edges"])


def test_replacing_a_document_leaves_nothing_of_the_old_version(store):
    store.write_set(basic_batch())
    a2 = document("a", {5: ["s1/R1"]}, sha="sha-2")
    summary = store.write_set(SetBatch(S, shared(S, "R1"), (a2,), (system_edge(),)))
    assert [n.id for n in store.find_nodes(Label.STATEMENT, document_id="s1/a")] == ["s1/a#L5"]
    assert store.get_nodes(["s1/a#L2", "s1/a#L3"]) == {}
    assert store.get_nodes(["s1/a"])["s1/a"].props["sha256"] == "sha-2"
    # R2 and the named reference were only cited by the old version: collected. b is untouched.
    assert store.get_nodes(["s1/R2", "s1/ref/intro"]) == {}
    assert [n.id for n in store.find_nodes(Label.STATEMENT, document_id="s1/b")] == ["s1/b#L2"]
    assert [e.src for e in store.edges(["s1/R1"], direction=Direction.IN)["s1/R1"]] == ["s1/a#L5", "s1/b#L2"]
    assert (summary.nodes, summary.edges) == (store.counts()["nodes"], store.counts()["edges"])


def test_replace_names_documents_to_delete(store):
    store.write_set(basic_batch())
    summary = store.write_set(SetBatch(S, shared(S), (), (system_edge(),), replace=("s1/b", "s1/unknown")))
    assert summary.deleted == ("s1/b", "s1/unknown") and summary.written == ()
    assert [d.id for d in store.find_nodes(Label.DOCUMENT)] == ["s1/a"]
    assert store.find_nodes(Label.STATEMENT, document_id="s1/b") == []


def test_derived_edges_of_the_set_are_replaced(store):
    store.write_set(basic_batch())
    batch = basic_batch()
    store.write_set(SetBatch(S, batch.shared, (), (system_edge(), edge(EdgeKind.RESOLVES_TO, "s1/ref/intro", "s1/b"))))
    resolves = store.edges(["s1/ref/intro"], kinds=[EdgeKind.RESOLVES_TO], direction=Direction.OUT)["s1/ref/intro"]
    assert [(e.dst, e.document_id, e.set_id) for e in resolves] == [("s1/b", None, "s1")]
    store.write_set(SetBatch(S, batch.shared, (), (system_edge(),)))
    assert store.counts()["RESOLVES_TO"] == 0


def test_shared_nodes_merge_non_null_properties(store):
    store.write_set(basic_batch())
    renamed = node("s1/R1", Label.RECORD, record_id="R1", kind=None, analyst="EPI", slug="new")
    store.write_set(SetBatch(S, (*shared(S), renamed), (), (system_edge(),)))
    assert store.get_nodes(["s1/R1"])["s1/R1"].props == {"record_id": "R1", "kind": "RTE", "analyst": "EPI", "slug": "new"}


def test_orphaned_shared_nodes_are_collected_and_an_empty_set_goes(store):
    store.write_set(basic_batch())
    # a shared node that no document-owned edge touches is not kept
    lonely = node("s1/R9", Label.RECORD, record_id="R9")
    store.write_set(SetBatch(S, (*shared(S), lonely), (), (system_edge(),)))
    assert store.get_nodes(["s1/R9"]) == {}
    summary = store.delete_documents(["s1/a", "nope", "s1/a"])
    assert summary.deleted == ("s1/a",)
    assert store.get_nodes(["s1/R2", "s1/ref/intro"]) == {}
    assert sorted(store.get_nodes(["s1/R1", "s1", SYSTEM])) == ["s1", "s1/R1", SYSTEM]
    summary = store.delete_documents(["s1/b"])
    assert summary.deleted == ("s1/b",)
    assert dump(store)["nodes"] == [] and (summary.nodes, summary.edges) == (0, 0)


def test_a_system_stays_while_another_of_its_sets_has_documents(store):
    store.write_set(basic_batch())
    store.write_set(SetBatch("s2", shared("s2", "R1"), (document("a", {2: ["s2/R1"]}, set_id="s2"),),
                             (system_edge("s2"),)))
    store.delete_documents(["s1/a", "s1/b"])
    assert sorted(store.get_nodes(["s1", "s2", SYSTEM])) == ["s2", SYSTEM]
    assert [e.dst for e in store.edges([SYSTEM], direction=Direction.OUT)[SYSTEM]] == ["s2"]


def test_edges_between_shared_nodes_go_with_their_document(store):
    supersedes = edge(EdgeKind.SUPERSEDED_BY, "s1/R1", "s1/R2", document_id="s1/a", statement="s1/a#L2")
    a = document("a", {2: ["s1/R1", "s1/R2"]}, extra_edges=(supersedes,))
    b = document("b", {2: ["s1/R1", "s1/R2"]})
    store.write_set(SetBatch(S, shared(S, "R1", "R2"), (a, b), (system_edge(),)))
    assert store.counts()["SUPERSEDED_BY"] == 1
    store.delete_documents(["s1/a"])
    assert store.counts()["SUPERSEDED_BY"] == 0 and sorted(store.get_nodes(["s1/R1", "s1/R2"])) == ["s1/R1", "s1/R2"]


def test_an_edge_of_an_owner_the_write_keeps_replaces_its_stored_twin(store):
    """An edge whose owner the write neither replaces nor derives (here document a's graph carries
    edges owned by b) replaces the stored edge of equal identity and adds the others, one per
    identity however many join one pair of nodes."""
    store.write_set(basic_batch())  # b#L2 cites R1: seq 0, owned by s1/b
    before = store.counts()
    twins = tuple(edge(EdgeKind.CITES, "s1/b#L2", "s1/R1", seq, document_id="s1/b", form="mention",
                       token=f"again {seq}") for seq in range(50))
    a = document("a", {2: ["s1/R1", "s1/ref/intro", "s1/R1"], 3: ["s1/R2"]}, extra_edges=twins)
    batch = SetBatch(S, basic_batch().shared, (a,), basic_batch().derived)
    store.write_set(batch)
    cites = store.edges(["s1/b#L2"], kinds=[EdgeKind.CITES], direction=Direction.OUT)["s1/b#L2"]
    assert [(e.seq, e.document_id, e.props["token"]) for e in cites] == [(i, "s1/b", f"again {i}") for i in range(50)]
    assert store.counts()["CITES"] == before["CITES"] + 49
    written = dump(store)
    store.write_set(batch)
    assert dump(store) == written
    store.delete_documents(["s1/b"])
    assert store.counts()["CITES"] == before["CITES"] - 1


def test_a_failed_write_changes_nothing(store):
    store.write_set(basic_batch())
    before = dump(store)
    bad = document("a", {7: ["s1/NOT-THERE"]}, sha="sha-2")
    with pytest.raises(CitegraphError, match="unknown node s1/NOT-THERE"):
        store.write_set(SetBatch(S, shared(S), (bad,), (system_edge(),)))
    assert dump(store) == before


def test_expect_is_a_compare_and_swap(store):
    store.write_set(basic_batch())
    before = dump(store)
    a2 = document("a", {5: ["s1/R1"]}, sha="sha-2")
    with pytest.raises(PreconditionFailed, match="s1/a is at sha-1"):
        store.write_set(SetBatch(S, shared(S, "R1"), (a2,), (system_edge(),), expect={"s1/a": "sha-0"}))
    with pytest.raises(PreconditionFailed):
        store.write_set(SetBatch(S, shared(S, "R1"), (a2,), (system_edge(),), expect={"s1/a": None}))
    with pytest.raises(PreconditionFailed, match="s1/c is at nothing"):
        store.delete_documents(["s1/a"], expect={"s1/c": "sha-1"})
    assert dump(store) == before
    store.write_set(SetBatch(S, shared(S, "R1"), (a2,), (system_edge(),), expect={"s1/a": "sha-1", "s1/c": None}))
    assert store.get_nodes(["s1/a"])["s1/a"].props["sha256"] == "sha-2"
    assert store.delete_documents(["s1/a"], expect={"s1/a": "sha-2"}).deleted == ("s1/a",)


def test_reviews_are_written_by_id_and_outlive_rewrites(store):
    store.write_set(basic_batch())
    review = node("review/s1/a#L2@abc", Label.REVIEW, node="s1/a#L2", revision="abc", reviewer="me",
                  at="2026-01-01T00:00:00Z", note=None, fingerprint="f1")
    assert store.put_reviews([]) == 0
    assert store.put_reviews([review]) == 1
    assert store.put_reviews([Node(review.id, Label.REVIEW, S, None, {**review.props, "note": "again"})]) == 1
    store.write_set(basic_batch())
    store.delete_documents(["s1/a"])
    found = store.find_nodes(Label.REVIEW, set_id=S, where={"node": "s1/a#L2"})
    assert [(n.id, n.props["note"]) for n in found] == [(review.id, "again")]
    with pytest.raises(CitegraphError, match="Review nodes"):
        store.put_reviews([review, node("s1/R1", Label.RECORD)])


PROPS: dict[str, Any] = {  # JSON-compatible values of every shape, as Node.props holds
    "text": "Ünïcødé — “quoted” 日本語 🚀 \\ \" ' \n tab\t",
    "none": None,
    "zero": 0,
    "big": 2**62,
    "huge": 2**70 + 1,
    "float": 0.1,
    "neg": -3.5e-12,
    "flag": False,
    "empty_list": [],
    "strings": ["a", "b", ""],
    "mixed": [1, "two", None, 3.0, True],
    "frontmatter": {"title": "T", "records": ["RT-1"], "nested": {"deep": [{"k": "v"}, {}]}, "n": None},
    "cells": [{"text": "a"}, {"text": "b", "span": [1, 2]}],
    "id": "a prop named id",
    "props_json": "a prop named props_json",
    "weird key-with.dots": "x",
    "": "empty key",
}


def test_properties_round_trip_exactly(store):
    doc = node("s1/a", Label.DOCUMENT, document_id="s1/a", role="a", **PROPS)
    statement = node("s1/a#L2", Label.STATEMENT, document_id="s1/a", line=2, **PROPS)
    edges = (edge(EdgeKind.CONTAINS, S, "s1/a", document_id="s1/a", order=0),
             edge(EdgeKind.CONTAINS, "s1/a", "s1/a#L2", document_id="s1/a", **PROPS))
    store.write_set(SetBatch(S, shared(S), (DocumentGraph(doc, (statement,), edges),), (system_edge(),)))
    got = store.get_nodes(["s1/a", "s1/a#L2"])
    assert got["s1/a"].to_dict() == doc.to_dict() and got["s1/a#L2"].to_dict() == statement.to_dict()
    assert dict(got["s1/a#L2"].props) == {**PROPS, "line": 2}
    (stored,) = store.edges(["s1/a#L2"], direction=Direction.IN)["s1/a#L2"]
    assert stored.to_dict() == edges[1].to_dict() and dict(stored.props) == PROPS
    assert [n.id for n in store.find_nodes(Label.STATEMENT, where={"text": PROPS["text"]})] == ["s1/a#L2"]
    assert [n.id for n in store.find_nodes(Label.STATEMENT, where={"id": "a prop named id"})] == ["s1/a#L2"]
    assert [n.id for n in store.find_nodes(Label.STATEMENT, where={"frontmatter": PROPS["frontmatter"]})] == ["s1/a#L2"]
    assert [n.id for n in store.find_nodes(Label.STATEMENT, where={"strings": ["a", "b", ""]})] == ["s1/a#L2"]
    assert store.find_nodes(Label.STATEMENT, where={"strings": ["a", "b"]}) == []


def test_a_store_is_a_context_manager_that_closes_itself_however_the_block_ends(store, monkeypatch):
    closes: list[str] = []
    close = store.close

    def counted_close() -> None:
        closes.append("closed")
        close()

    monkeypatch.setattr(store, "close", counted_close)
    with store as entered:
        assert entered is store
        assert entered.counts()["nodes"] == 0
        assert closes == []
    assert closes == ["closed"]
    with pytest.raises(KeyError, match="raised inside"), store:
        raise KeyError("raised inside")
    assert closes == ["closed", "closed"]
