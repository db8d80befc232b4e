"""The embedded views read at dashboard sizes: nodes carry words, edge kinds are
line styles named by a legend, and rests-on starts from a source file or a source too."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from queries.impact.suspects import suspects_of
from queries.shapes import plain
from queries.traversal import rests_on
from tests.app.test_embed import graph_data, parse
from tests.conftest import CORPUS, ingest_into

KB = CORPUS / "commonplace" / "kb" / "agentic-system-analyses"
DC = "AAS-2026-10-04-dynamic-cheatsheet-01"


@pytest.fixture(scope="module")
def client(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        yield client


@pytest.fixture(scope="module")
def dc_client():
    store = SQLiteStore(None)
    ingest_into(store, KB / "retained" / "dynamic-cheatsheet", KB / "retained-archive" / DC)
    with TestClient(create_app(Settings(), store=store)) as client:
        yield client


def test_statement_nodes_carry_their_first_words_and_edges_their_style(client):
    graph = client.get("/embed/rests-on/RT-RTE-mcp-write/graph", params={"set": "tolaria"}).json()
    labels = {n["id"]: n["label"] for n in graph["nodes"]}
    assert labels["tolaria/synthesis#L11"] == "The representative workflow is…"
    assert labels["tolaria/synthesis#L27"] == "Wiring is not observed operation…"  # a table row: its cells
    assert labels["tolaria/workflow-report#L7"] == "Selection and evidence boundary"  # a section: its heading
    assert all(len(line) <= 34 for label in labels.values() for line in label.split("\n"))
    assert graph["edge_kinds"] == ["CITES", "ANNOTATES", "RESOLVES_TO", "CONTAINS"]
    drawn = {e["id"]: e["drawn_as"] for e in graph["edges"]}
    assert drawn["tolaria/ref/workflow-account -> tolaria/workflow-report#L5"] == "RESOLVES_TO"
    assert drawn["tolaria/synthesis#L16 -> tolaria/ref/workflow-account"] == "CITES"
    assert sorted(drawn.values()).count("ANNOTATES") == 1 and "label" not in graph["edges"][0]


def test_record_nodes_carry_their_declared_label(dc_client):
    graph = dc_client.get("/embed/rests-on/RT-RTE-checkpoint-resume/graph").json()
    records = {n["id"]: (n["label"], n["record_label"], n["start"]) for n in graph["nodes"] if n["kind"] == "record"}
    assert records == {
        f"{DC}/RT-RTE-checkpoint-resume": ("RT-RTE-checkpoint-resume\nCheckpoint and resume", "Checkpoint and resume",
                                           True),
        f"{DC}/EPI-RTE-answer-extraction": ("EPI-RTE-answer-extraction\nAnswer extraction", "Answer extraction", False)}
    assert graph["edge_kinds"] == ["CITES", "ANNOTATES", "DECLARED_IN", "CONTAINS"]


def test_the_legend_names_what_the_graph_holds(client):
    legend = parse(client.get("/embed/rests-on/RT-RTE-mcp-write").text).find(".//ul[@id='cg-legend']")
    assert [(li.get("class"), li.text) for li in legend.findall("li")] == [
        ("k-record", "record"), ("k-statement direct", "statement, direct"),
        ("k-statement transitive", "statement, transitive"), ("k-section", "section"),
        ("k-named_reference", "named reference"), ("e-CITES", "cites"), ("e-ANNOTATES", "annotates"),
        ("e-RESOLVES_TO", "resolves to"), ("e-CONTAINS", "contains")]


def test_rests_on_a_source_file_is_what_impact_flags_when_it_changes(client, seeds_store):
    graph = client.get("/embed/rests-on/mcp-server/vault.js/graph", params={"set": "tolaria"}).json()
    assert (graph["record"], graph["kind"], graph["records"], graph["count"]) == (
        "mcp-server/vault.js", "source_file", ["tolaria/file/mcp-server/vault.js"], 10)
    start = graph["nodes"][0]
    assert (start["kind"], start["label"], start["start"], start["path"]) == (
        "source_file", "mcp-server/vault.js", True, "mcp-server/vault.js")
    suspects, _ = suspects_of(seeds_store, {"tolaria/file/mcp-server/vault.js": "modified mcp-server/vault.js"})
    flagged = sorted((s.node, s.depth, s.path) for s in suspects if s.kind == "statement")
    report = rests_on(seeds_store, "mcp-server/vault.js", set_id="tolaria", kind=None)
    assert sorted((r.statement, r.depth, r.path) for r in report.results) == flagged
    assert len(flagged) == 10 and sum(r.direct for r in report.results) == 6
    page = client.get("/embed/rests-on/mcp-server/vault.js", params={"set": "tolaria"})
    assert page.status_code == 200 and graph_data(page.text) == graph
    doc = parse(page.text)
    assert doc.find(".//h1").text == "What rests on mcp-server/vault.js"
    assert doc.find(".//div[@id='cg-list']/h2").text == "Source file"


def test_rests_on_a_source_and_the_faces_agree(client, seeds_store):
    expected = plain(rests_on(seeds_store, "SRC-1", set_id="tolaria", kind="source"))
    assert (expected["kind"], expected["records"], len(expected["results"])) == ("source", ["tolaria/SRC-1"], 29)
    assert client.get("/embed/rests-on/SRC-1/graph", params={"set": "tolaria"}).json()["count"] == 29
    rest = client.get("/sources/SRC-1/rests-on", params={"set": "tolaria"}).json()
    assert rest.pop("count") == 29 and rest == expected
    rest_file = client.get("/source-files/mcp-server/vault.js/rests-on", params={"set": "tolaria"}).json()
    assert (rest_file["kind"], rest_file["count"]) == ("source_file", 10)
    both = client.get("/sources/SRC-1/rests-on").json()  # every set holding an SRC-1
    assert (both["records"], both["count"]) == (["talorys/SRC-1", "tolaria/SRC-1"], 38)
    query = """{ f: restsOn(file: "mcp-server/vault.js", set: "tolaria") { kind count records }
                 s: restsOn(source: "SRC-1", set: "tolaria") { kind count }
                 sourceFiles(set: "tolaria", text: "vault.js") { edges { node { path restsOn { count } } } } }"""
    data = client.post("/graphql", json={"query": query}).json()
    assert "errors" not in data, data
    assert data["data"]["f"] == {"kind": "source_file", "count": 10, "records": ["tolaria/file/mcp-server/vault.js"]}
    assert data["data"]["s"] == {"kind": "source", "count": 29}
    assert data["data"]["sourceFiles"]["edges"] == [{"node": {"path": "mcp-server/vault.js", "restsOn": {"count": 10}}}]
    two = client.post("/graphql", json={"query": '{ restsOn(record: "x", file: "y") { count } }'}).json()
    assert two["errors"][0]["extensions"]["code"] == "INVALID_INPUT"


def test_an_unknown_start_names_the_closest_ones_on_every_face(client):
    page = client.get("/embed/rests-on/mcp-server/vault.jss", params={"set": "tolaria"})
    assert page.status_code == 404 and "did you mean mcp-server/vault.js" in page.text
    rest = client.get("/source-files/mcp-server/vault.jss/rests-on").json()["error"]
    assert rest["code"] == "NOT_FOUND" and rest["hint"].startswith("did you mean mcp-server/vault.js")
    rest = client.get("/records/RT-RTE-mcp-wrte/rests-on").json()["error"]
    assert rest["hint"].startswith("did you mean RT-RTE-mcp-write")
