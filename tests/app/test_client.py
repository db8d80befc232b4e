"""The notebook client against a live server (uvicorn on a free loopback port, embedded store):
ingest through ``POST /sets``, then the mission question as a networkx graph, DataFrames and GraphQL,
each agreeing with the query functions; errors carry the server's codes."""

from __future__ import annotations

import sys

import networkx as nx
import pytest

from citegraph import Client, ClientError, GraphQLRequestError
from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from ingest.pipeline import ingest_paths
from queries.shapes import plain
from queries.traversal import rests_on
from tests.analysis_sets import G1_RESULTS
from tests.conftest import ROOT, SEEDS
from tests.live_server import free_port, live_server

TOKEN = "notebook-secret"


@pytest.fixture(scope="module")
def store():
    return SQLiteStore(None)


@pytest.fixture(scope="module")
def url(store):
    with live_server(create_app(Settings(write_token=TOKEN), store=store)) as url:
        yield url


@pytest.fixture(scope="module")
def client(url):
    """A client that has ingested the seeds through the API."""
    with Client(url, token=TOKEN) as client:
        report = client.ingest(SEEDS)
        assert report["sets"] == ["tolaria", "talorys"]
        assert [(d["document"], d["status"], d["statements"]) for d in report["documents"]] == [
            ("tolaria/synthesis", "written", 24), ("tolaria/workflow-report", "written", 30),
            ("talorys/synthesis", "written", 24)]
        yield client


def test_health_counts_the_ingested_graph(client, store):
    health = client.health()
    assert health["status"] == "ok" and health["nodes"] == store.counts()["nodes"] > 0


def test_ingest_again_is_unchanged_and_takes_single_files(client):
    again = client.ingest(SEEDS / "000_a3dd65b871acf2aa.txt", SEEDS / "001_12342d341e774cc9.txt")
    assert [(d["document"], d["status"]) for d in again["documents"]] == [
        ("tolaria/synthesis", "unchanged"), ("tolaria/workflow-report", "unchanged")]


def test_rests_on_is_a_graph_along_the_explanation_paths(client, store):
    graph = client.rests_on("RT-RTE-mcp-write")
    assert isinstance(graph, nx.DiGraph)
    kinds: dict[str, int] = {}
    for _, data in graph.nodes(data=True):
        kinds[data["kind"]] = kinds.get(data["kind"], 0) + 1
    assert kinds == {"record": 1, "statement": 14, "section": 2, "named_reference": 1}
    assert graph.graph["count"] == 14 and graph.graph["records"] == ["tolaria/RT-RTE-mcp-write"]

    report = rests_on(store, "RT-RTE-mcp-write")
    statements = [n for n, d in graph.nodes(data=True) if d["kind"] == "statement"]
    assert statements == [r.statement for r in report.results]
    for r in report.results:
        node = graph.nodes[r.statement]
        assert (node["text"], node["document"], node["section"], node["direct"], node["depth"]) == (
            r.block.text, r.document, r.section, r.direct, r.depth)
        assert nx.shortest_path(graph, r.statement, "tolaria/RT-RTE-mcp-write") == list(r.path)

    transitive = graph.nodes["tolaria/synthesis#L16"]
    assert (transitive["direct"], transitive["depth"], transitive["section_heading"]) == (
        False, 2, "Delivery, later reliance and assessment")
    assert graph.edges["tolaria/synthesis#L16", "tolaria/ref/workflow-account"]["kinds"] == ["CITES"]
    assert graph.edges["tolaria/ref/workflow-account", "tolaria/workflow-report#L5"]["kinds"] == ["RESOLVES_TO"]
    assert graph.nodes["tolaria/RT-RTE-mcp-write"]["start"] is True
    assert nx.ancestors(graph, "tolaria/RT-RTE-mcp-write") == set(graph) - {"tolaria/RT-RTE-mcp-write"}


def test_rests_on_options(client):
    direct = client.rests_on("RT-RTE-mcp-write", set="tolaria", direct=True)
    assert sum(1 for _, d in direct.nodes(data=True) if d["kind"] == "statement") == 12
    assert direct.number_of_nodes() == 13 and direct.graph["set"] == "tolaria"
    with pytest.raises(ClientError) as caught:
        client.rests_on("RT-RTE-mcp-write", set="talorys")
    assert (caught.value.status, caught.value.code) == (404, "NOT_FOUND")


def test_frames(client, store):
    frame = client.rests_on_frame("RT-RTE-mcp-write")
    assert frame.shape == (14, 11)
    assert int(frame["direct"].sum()) == 12 and sorted(frame["depth"].unique().tolist()) == [1, 2]
    assert frame["statement"].tolist() == [r.statement for r in rests_on(store, "RT-RTE-mcp-write").results]
    documents = client.documents_frame()
    assert documents["id"].tolist() == ["talorys/synthesis", "tolaria/synthesis", "tolaria/workflow-report"]
    assert client.documents_frame(set="tolaria")["role"].tolist() == ["synthesis", "workflow-report"]


def test_frames_without_pandas_say_how_to_get_it(client, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[notebook\]'"):
        client.rests_on_frame("RT-RTE-mcp-write")


def test_query_returns_data_and_raises_with_codes(client):
    data = client.query("query($r: String!) { restsOn(record: $r) { count } }", {"r": "RT-RTE-mcp-write"})
    assert data == {"restsOn": {"count": 14}}
    with pytest.raises(GraphQLRequestError) as caught:
        client.query("query($r: String!) { restsOn(record: $r) { count } }", {"r": "RT-NOPE-x"})
    assert caught.value.codes == ["NOT_FOUND"] and caught.value.code == "NOT_FOUND"
    assert "record RT-NOPE-x is not cited or declared" in str(caught.value)


def test_ingest_needs_the_write_token(url):
    for token, status, code in ((None, 401, "UNAUTHENTICATED"), ("wrong", 401, "UNAUTHENTICATED")):
        with Client(url, token=token) as anonymous, pytest.raises(ClientError) as caught:
            anonymous.ingest(SEEDS)
        assert (caught.value.status, caught.value.code) == (status, code)


def test_ingest_of_folders_keeps_their_paths_so_a_g0_run_is_its_set():
    """``Client.ingest`` of a G0 prototype's folder (GRAMMAR §0: ``trials/<run-id>/result.md``) and
    a G1 result's folder: the server reads both as the CLI does, each row named by its path below
    the folder's parent, so the two ``result.md`` rows are told apart."""
    g0, run = ROOT / "tests" / "fixtures" / "g0", "AGS-2026-08-20-SWAMP-01"
    mem0 = G1_RESULTS / "AAS-2026-09-26-mem0-01"
    with live_server(create_app(Settings(write_token=TOKEN), store=SQLiteStore(None))) as url, \
            Client(url, token=TOKEN) as client:
        report = client.ingest(g0, mem0)
    assert report["sets"] == [run, "AAS-2026-09-26-mem0-01"]
    assert [(d["path"], d["document"], d["status"]) for d in report["documents"]] == [
        (f"g0/multistage-swamp/trials/{run}/lens-memory.md", f"{run}/lens-memory", "written"),
        (f"g0/multistage-swamp/trials/{run}/reconciliation.md", f"{run}/reconciliation", "written"),
        (f"g0/multistage-swamp/trials/{run}/result.md", f"{run}/result", "written"),
        ("AAS-2026-09-26-mem0-01/result.md", "AAS-2026-09-26-mem0-01/result", "written")]
    on_disk = plain(ingest_paths(SQLiteStore(None), [g0, mem0]))
    assert [{**d, "path": None} for d in report["documents"]] == [{**d, "path": None} for d in on_disk["documents"]]


def test_ingest_of_a_file_by_path_sends_its_folder_too():
    """A G0 prototype given by path is named by its run's folder and its own name, as under a folder."""
    run = "AGS-2026-08-20-SWAMP-01"
    result = ROOT / "tests" / "fixtures" / "g0" / "multistage-swamp" / "trials" / run / "result.md"
    with live_server(create_app(Settings(write_token=TOKEN), store=SQLiteStore(None))) as url, \
            Client(url, token=TOKEN) as client:
        report = client.ingest(result, SEEDS / "000_a3dd65b871acf2aa.txt")
    assert report["sets"] == [run, "tolaria"]
    assert [(d["path"], d["document"], d["status"]) for d in report["documents"]] == [
        (f"{run}/result.md", f"{run}/result", "written"),
        ("seeds/000_a3dd65b871acf2aa.txt", "tolaria/synthesis", "written")]


def test_ingest_refuses_missing_paths_before_sending(client, tmp_path):
    with pytest.raises(ClientError, match="no such file or folder"):
        client.ingest(tmp_path / "absent")
    with pytest.raises(ClientError, match="no member files"):
        client.ingest(tmp_path)


def test_unreachable_server_is_a_client_error():
    with Client(f"http://127.0.0.1:{free_port()}", timeout=2) as nowhere, pytest.raises(ClientError) as caught:
        nowhere.health()
    assert caught.value.code == "UNAVAILABLE" and caught.value.status is None


def test_a_users_own_app_py_does_not_shadow_the_public_package(tmp_path):
    """``from citegraph import Client, __version__`` in a folder holding the user's ``app.py`` (first
    on ``sys.path``): the client loads, ``import app`` is still the user's, and ``Client.ingest``,
    which alone needs ``ingest.files``, names an ``ingest/`` folder there that stands in its way."""
    import subprocess

    (tmp_path / "app.py").write_text("MINE = True\n")
    script = ("from citegraph import Client, __version__\nimport app\nprint(__version__, app.MINE)\n"
              "try:\n    Client('http://127.0.0.1:9').ingest(%r)\nexcept Exception as exc:\n"
              "    print(type(exc).__name__, exc)\n" % str(SEEDS))
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.stdout.splitlines()[0] == "0.1.0 True"
    assert run.stdout.splitlines()[1].startswith("ClientError UNAVAILABLE: POST http://127.0.0.1:9/sets failed")
    (tmp_path / "ingest").mkdir()
    (tmp_path / "ingest" / "__init__.py").write_text("")
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.stdout.splitlines()[1] == (
        f"ImportError citegraph could not import its own ingest.files from {ROOT} (No module named 'ingest.files'): "
        f"{tmp_path / 'ingest' / '__init__.py'} stands in its way; a module or folder named "
        "app/domain/graph/ingest/queries/render in the current folder shadows citegraph's packages of that name: "
        "rename it")
