"""Export round trips: each format, loaded back by networkx or pandas, holds exactly
the store's graph (every node and edge kind with their properties); the same store gives the same
bytes, from the CLI, from REST and from Neo4j."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from graph.model import EdgeKind, Label, SetBatch
from graph.store import Direction
from graph.stores.sqlite import SQLiteStore
from graph.writes import edge_owner
from queries.export import graph_of
from render.export import csv_tables, edge_key, graphml, node_link
from tests.conftest import CORPUS, ROOT, SEEDS, fresh_neo4j_store, ingest_into
from tests.contract.test_store_contract import S, document, edge, node, shared, system_edge

FIXTURES = ROOT / "tests" / "fixtures"
KB = CORPUS / "commonplace" / "kb" / "agentic-system-analyses"
DC_FOLDERS = [KB / "retained" / "dynamic-cheatsheet", KB / "retained-archive" / "AAS-2026-10-04-dynamic-cheatsheet-01"]


def fill(store) -> None:
    """The seeds, the Dynamic Cheatsheet set, and a small set with a supersession, a part and a
    review (which neither corpus has): every node label and edge kind occurs."""
    ingest_into(store, SEEDS)
    ingest_into(store, *DC_FOLDERS)
    supersedes = edge(EdgeKind.SUPERSEDED_BY, "s1/R1", "s1/R2", document_id="s1/a", statement="s1/a#L2")
    part = edge(EdgeKind.PART_OF, "s1/R2", "s1/R1", document_id="s1/a", statement="s1/a#L3")
    store.write_set(SetBatch(S, shared(S, "R1", "R2"), (document("a", {2: ["s1/R1"], 3: ["s1/R2"]},
                                                                 extra_edges=(supersedes, part)),), (system_edge(),)))
    store.put_reviews([node("review/s1/a#L2@abc", Label.REVIEW, node="s1/a#L2", revision="abc", reviewer="ada",
                            at="2026-01-01T00:00:00Z", note=None, fingerprint="f1")])


@pytest.fixture(scope="module")
def both_store():
    store = SQLiteStore(None)
    fill(store)
    return store


def stored(store, set_id=None) -> tuple[dict, Counter]:
    """The store's graph read through the contract: nodes by id, edges as a multiset."""
    nodes = {n.id: (n.label.value, n.set_id, n.document_id, dict(n.props))
             for label in Label for n in store.find_nodes(label, set_id=set_id)}
    if set_id is not None:
        into = store.edges([set_id], direction=Direction.IN)[set_id]
        nodes.update({n.id: (n.label.value, None, None, dict(n.props))
                      for n in store.get_nodes([e.src for e in into]).values() if n.label == Label.SYSTEM})
    out = store.edges(list(nodes), direction=Direction.OUT)
    edges = Counter((e.src, e.kind.value, e.dst, e.seq, edge_owner(e), e.set_id, e.document_id,
                     json.dumps(dict(e.props), sort_keys=True))
                    for found in out.values() for e in found if e.dst in nodes)
    return nodes, edges


def test_graphml_round_trip(both_store, tmp_path):
    expected_nodes, expected_edges = stored(both_store)
    assert {v[0] for v in expected_nodes.values()} == {label.value for label in Label}
    assert {e[1] for e in expected_edges} == {kind.value for kind in EdgeKind}  # every kind is exercised
    path = tmp_path / "store.graphml"
    path.write_bytes(graphml(graph_of(both_store)))
    loaded = nx.read_graphml(path, force_multigraph=True)
    by_id = {d["node_id"]: d for _, d in loaded.nodes(data=True)}
    nodes = {i: (d["model_label"], d.get("set_id"), d.get("document_id"), json.loads(d["props_json"]))
             for i, d in by_id.items()}
    assert nodes == expected_nodes
    for i, d in by_id.items():  # the typed columns equal the properties
        props = expected_nodes[i][3]
        assert all(props[k] == v for k, v in d.items()
                   if k not in ("node_id", "label", "model_label", "set_id", "document_id", "props_json"))
    graph_id = {n: d["node_id"] for n, d in loaded.nodes(data=True)}
    edges = Counter((graph_id[u], d["kind"], graph_id[v], d["seq"], d["edge_key"].split(":", 1)[1].rsplit(":", 1)[0],
                     d.get("set_id"), d.get("document_id"), json.dumps(json.loads(d["props_json"]), sort_keys=True))
                    for u, v, d in loaded.edges(data=True))
    assert edges == expected_edges
    statement = by_id["tolaria/synthesis#L12"]
    assert (statement["kind"], statement["line"]) == ("paragraph", 12)  # GraphML typed them: str, int


def _graphml_schema():
    """The GraphML 1.0 schema vendored in ``tests/fixtures/graphml`` (see its NOTICE), offline: the
    XLink schema it imports sits beside it, and W3C's address is mapped to xmlschema's own
    ``xml.xsd``."""
    import xmlschema

    here = FIXTURES / "graphml"
    mapper = {"xlink.xsd": str(here / "xlink.xsd"),
              "http://www.w3.org/2001/xml.xsd": str(Path(xmlschema.__file__).parent / "schemas" / "XML" / "xml.xsd")}
    return xmlschema.XMLSchema10(str(here / "graphml.xsd"), uri_mapper=mapper)


def test_graphml_is_valid_against_the_schema_and_loads_in_networkx_and_igraph(both_store, tmp_path):
    """A set's and the store's export are valid GraphML (unique edge ids, ids that are name tokens),
    and networkx and igraph read as many nodes and edges as the store holds; Gephi's ``label`` is
    the display label, the model label is ``model_label``."""
    import igraph

    schema = _graphml_schema()
    broken = (b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
              b'<node id="a"/><node id="b"/><edge id="e0" source="a" target="b"/><edge id="e0" source="b" target="a"/>'
              b'</graph></graphml>')
    assert not schema.is_valid(broken.decode())  # the schema does reject repeated edge ids
    for set_id, nodes, edges in (("tolaria", 126, 246), (None, len(stored(both_store)[0]),
                                                          sum(stored(both_store)[1].values()))):
        path = tmp_path / f"{set_id or 'store'}.graphml"
        path.write_bytes(graphml(graph_of(both_store, set_id=set_id)))
        assert [str(e)[:300] for e in schema.iter_errors(str(path))] == []
        loaded = nx.read_graphml(path, force_multigraph=True)
        assert (loaded.number_of_nodes(), loaded.number_of_edges()) == (nodes, edges)
        read = igraph.Graph.Read_GraphML(str(path))
        assert (read.vcount(), read.ecount(), read.is_directed()) == (nodes, edges, True)
    tolaria = nx.read_graphml(tmp_path / "tolaria.graphml", force_multigraph=True)
    assert isinstance(tolaria, nx.MultiDiGraph)
    ids = [k for _, _, k in tolaria.edges(keys=True)]
    assert len(set(ids)) == len(ids) == 246  # 23 distinct ids before: CONTAINS:tolaria/workflow-report:0 49 times
    shown = {d["node_id"]: (d["model_label"], d["label"]) for _, d in tolaria.nodes(data=True)}
    assert shown["tolaria/synthesis#L12"] == ("Statement", "When supplied, the timestamp can…")
    assert shown["tolaria/RT-RTE-mcp-write"] == ("Record", "RT-RTE-mcp-write")  # the seeds declare no labels
    store = nx.read_graphml(tmp_path / "store.graphml", force_multigraph=True)
    declared = {d["node_id"]: d["label"] for _, d in store.nodes(data=True)}
    # retained-archive/AAS-2026-10-04-dynamic-cheatsheet-01/epistemic.md:156 "#### EPI-CLM-performance — Reported benchmark gains"
    assert declared["AAS-2026-10-04-dynamic-cheatsheet-01/EPI-CLM-performance"] == (
        "EPI-CLM-performance: Reported benchmark gains")
    assert shown["tolaria/file/mcp-server/vault.js"] == ("SourceFile", "mcp-server/vault.js")
    assert shown["system/tolaria"] == ("System", "Tolaria")
    assert shown["tolaria/SRC-1"] == ("Source", "SRC-1")
    read = igraph.Graph.Read_GraphML(str(tmp_path / "tolaria.graphml"))
    assert sorted(read.vs["node_id"]) == sorted(shown) and set(read.es["label"]) <= {k.value for k in EdgeKind}


def _networkx_graph(snapshot) -> nx.MultiDiGraph:
    """The snapshot built as a networkx multigraph, the reference :func:`node_link` must equal once
    networkx writes it: node attributes label, set_id, document_id, props; edge attributes kind,
    seq, set_id, document_id, props; edges keyed by :func:`edge_key`."""
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    graph.graph["citegraph"] = "store" if snapshot.set is None else f"set {snapshot.set}"
    for n in snapshot.nodes:
        attrs = {"label": n.label.value, "props": dict(n.props)}
        attrs.update({k: v for k, v in (("set_id", n.set_id), ("document_id", n.document_id)) if v is not None})
        graph.add_node(n.id, **dict(sorted(attrs.items())))
    for e in snapshot.edges:
        attrs = {"kind": e.kind.value, "seq": e.seq, "props": dict(e.props)}
        attrs.update({k: v for k, v in (("set_id", e.set_id), ("document_id", e.document_id)) if v is not None})
        graph.add_edge(e.src, e.dst, key=edge_key(e), **dict(sorted(attrs.items())))
    return graph


@pytest.mark.parametrize("set_id", [None, "tolaria", "talorys", "AAS-2026-10-04-dynamic-cheatsheet-01", S])
def test_node_link_is_byte_for_byte_what_networkx_writes(both_store, set_id):
    snapshot = graph_of(both_store, set_id=set_id)
    theirs = nx.node_link_data(_networkx_graph(snapshot), edges="edges")
    assert node_link(snapshot) == (json.dumps(theirs, ensure_ascii=False, sort_keys=True, indent=1) + "\n").encode()
    assert len(theirs["edges"]) == len(snapshot.edges) > 0


def test_node_link_orders_and_merges_as_a_networkx_multidigraph():
    from dataclasses import replace

    from graph.model import Edge, Node
    from queries.export import GraphSnapshot
    a, b = Node("a", Label.RECORD, "s", None, {"x": 1}), Node("b", Label.RECORD, "s", None, {})
    cites = Edge(EdgeKind.CITES, "c", "a", 0, "s/d", "s", {})
    edges = (cites, replace(cites, dst="b"), replace(cites, src="b", dst="a"), replace(cites, seq=1),
             replace(cites, props={"p": 2}), replace(cites, src="z", dst="y"))  # a repeat; nodes y and z unlisted
    snapshot = GraphSnapshot(None, (a, b, replace(a, props={"x": 3})), edges)
    theirs = nx.node_link_data(_networkx_graph(snapshot), edges="edges")
    assert [n["id"] for n in theirs["nodes"]] == ["a", "b", "c", "z", "y"]
    assert theirs["nodes"][0]["props"] == {"x": 3} and "props" not in theirs["nodes"][2]
    assert [(e["source"], e["target"], e["seq"], e["props"]) for e in theirs["edges"]] == [
        ("b", "a", 0, {}), ("c", "a", 0, {"p": 2}), ("c", "a", 1, {}), ("c", "b", 0, {}), ("z", "y", 0, {})]
    assert json.loads(node_link(snapshot)) == theirs


def test_node_link_round_trip(both_store):
    snapshot = graph_of(both_store, set_id="tolaria")
    loaded = nx.node_link_graph(json.loads(node_link(snapshot)), edges="edges")
    expected_nodes, expected_edges = stored(both_store, "tolaria")
    assert isinstance(loaded, nx.MultiDiGraph) and loaded.number_of_nodes() == len(expected_nodes) == 126
    assert {n: (d["label"], d.get("set_id"), d.get("document_id"), d["props"])
            for n, d in loaded.nodes(data=True)} == expected_nodes
    assert Counter((u, d["kind"], v, d["seq"], k.split(":", 1)[1].rsplit(":", 1)[0], d.get("set_id"),
                    d.get("document_id"), json.dumps(d["props"], sort_keys=True))
                   for u, v, k, d in loaded.edges(keys=True, data=True)) == expected_edges
    assert sum(expected_edges.values()) == 246


def test_csv_round_trip_through_pandas(both_store, tmp_path):
    tables = csv_tables(graph_of(both_store))
    for name, data in tables.items():
        (tmp_path / name).write_bytes(data)
    expected_nodes, expected_edges = stored(both_store)
    frame = pd.read_csv(tmp_path / "nodes.csv")  # as a notebook user loads it
    assert len(frame) == len(expected_nodes) and frame["label"].value_counts()["Statement"] == both_store.counts()[
        "Statement"]
    exact = pd.read_csv(tmp_path / "nodes.csv", dtype=str, keep_default_na=False)
    assert {r["id"]: (r["label"], r["set_id"] or None, r["document_id"] or None, json.loads(r["props_json"]))
            for r in exact.to_dict("records")} == expected_nodes
    text = frame.set_index("id").loc["tolaria/synthesis#L12", "text"]
    assert isinstance(text, str) and text.startswith("When supplied, the timestamp")
    edges = pd.read_csv(tmp_path / "edges.csv", dtype=str, keep_default_na=False)
    assert Counter((r["src"], r["kind"], r["dst"], int(r["seq"]), r["key"].split(":", 1)[1].rsplit(":", 1)[0],
                    r["set_id"] or None, r["document_id"] or None, json.dumps(json.loads(r["props_json"]), sort_keys=True))
                   for r in edges.to_dict("records")) == expected_edges


def test_exports_are_deterministic_and_the_faces_agree(tmp_path, seeds_store):
    home = tmp_path / "home"
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)]).exit_code == 0
    for fmt, suffix in (("graphml", "graphml"), ("json", "json")):
        first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        for out in (first, second):
            result = runner.invoke(cli, ["export", "--set", "tolaria", "--format", fmt, "--out", str(out),
                                         "--home", str(home)])
            assert result.exit_code == 0, result.output
        assert first.read_bytes() == second.read_bytes()
        with TestClient(create_app(Settings(), store=seeds_store)) as client:
            response = client.get("/export", params={"format": fmt, "set": "tolaria"})
        assert response.status_code == 200 and response.content == first.read_bytes()
        assert response.headers["content-disposition"] == f'attachment; filename="citegraph-tolaria.{suffix}"'
    result = runner.invoke(cli, ["export", "--format", "csv", "--out", str(tmp_path / "tables"), "--home", str(home)])
    assert result.exit_code == 0 and sorted(p.name for p in (tmp_path / "tables").iterdir()) == ["edges.csv", "nodes.csv"]
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        assert client.get("/export", params={"format": "csv", "table": "edges"}).content == (
            tmp_path / "tables" / "edges.csv").read_bytes()
        assert client.get("/export", params={"format": "csv"}).json()["error"]["code"] == "INVALID_INPUT"
        assert client.get("/export", params={"format": "gexf"}).status_code == 422
        unknown = client.get("/export", params={"format": "json", "set": "tolara"}).json()["error"]
        assert unknown["code"] == "NOT_FOUND" and unknown["hint"].startswith("did you mean tolaria?")
    assert runner.invoke(cli, ["export", "--format", "csv", "--home", str(home)]).exit_code == 2  # csv needs --out
    later = tmp_path / "later"  # the same corpus ingested later elsewhere: no timestamp, no path, same bytes
    assert runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(later)]).exit_code == 0
    again = runner.invoke(cli, ["export", "--set", "tolaria", "--format", "json", "--home", str(later)])
    assert again.stdout_bytes == (tmp_path / "a.json").read_bytes()


@pytest.mark.neo4j
def test_neo4j_exports_the_same_bytes(both_store, neo4j_session_store):
    neo4j = fresh_neo4j_store(neo4j_session_store)
    fill(neo4j)
    for set_id in (None, "tolaria", "AAS-2026-10-04-dynamic-cheatsheet-01", S):
        mine, theirs = graph_of(both_store, set_id=set_id), graph_of(neo4j, set_id=set_id)
        assert graphml(mine) == graphml(theirs)
        assert node_link(mine) == node_link(theirs)
        assert csv_tables(mine) == csv_tables(theirs)


def test_the_indented_writer_writes_what_json_dumps_writes():
    from enum import IntEnum, StrEnum

    from render.export import indented_json

    class Kind(StrEnum):
        CITES = "CITES"

    class Level(IntEnum):
        TWO = 2

    values = [
        {}, [], (), "", 0, -7, 2**70, 1.5, -0.0, 1e16, 1e-7, True, False, None, "é\n\t\"\\\u2028\x00\x1f🙂",
        {"b": [1, [], {}, [[]], {"x": ()}], "a": {"é": "x\"y", "": None}, "B": (1, "2"), "z": {"y": {"x": [True]}}},
        [Kind.CITES, Level.TWO, {"k": Kind.CITES}, {"k": Level.TWO}],
        {"nan": float("nan"), "inf": [float("inf"), float("-inf")]},  # not finite: json.dumps's own spelling
        {1: "a", 2: "b"}, {True: 1}, {None: 0}, {2.5: 1, 3: 0},  # keys not strings: json.dumps converts them
    ]
    for value in values:
        assert indented_json(value) == json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1), value
    for unwritable in ({"a": object()}, {1: "a", "1": "b"}):  # as json.dumps: no form, keys that do not sort
        with pytest.raises(TypeError):
            indented_json(unwritable)
