"""``citegraph verify``/``render``, the REST render routes and the GraphQL ``render`` field return what
:func:`app.rendering.render_request` returns."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rendering import render_request
from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from tests.whole_input import read_members
from ingest.loader import ingest_parsed
from tests.conftest import SEED_WORKFLOW, SEEDS

runner = CliRunner()


@pytest.fixture(autouse=True, scope="module")
def embedded_cli():
    """The CLI tests use the embedded store at ``--home`` even when ``CITEGRAPH_NEO4J_URI`` is set
    (it selects Neo4j in the cached settings otherwise)."""
    import app.cli_registry

    patch = pytest.MonkeyPatch()
    patch.setattr(app.cli_registry, "get_settings", lambda: Settings(store="embedded"))
    yield
    patch.undo()


@pytest.fixture(scope="module")
def home(tmp_path_factory, embedded_cli):
    """An embedded store folder holding the seeds, ingested through the CLI."""
    home = tmp_path_factory.mktemp("home")
    result = runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home


@pytest.fixture(scope="module")
def client(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        yield client


def test_cli_verify_reports_no_difference(home):
    result = runner.invoke(cli, ["verify", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("3 documents, 0 differ")
    data = json.loads(runner.invoke(cli, ["verify", "--json", "--home", str(home)]).stdout)
    assert (data["documents"], data["differing"]) == (3, 0)
    assert runner.invoke(cli, ["verify", "--set", "talorys", "--json", "--home", str(home)]).exit_code == 0


def test_cli_verify_exits_1_and_shows_the_first_difference(tmp_path):
    (parsed,) = read_members([SEED_WORKFLOW]).parsed
    blocks = list(parsed.blocks)
    blocks[3] = dataclasses.replace(blocks[3], markup=blocks[3].markup.replace("frozen commit", "frozen comit"))
    assert blocks[3].markup != parsed.blocks[3].markup
    ingest_parsed(SQLiteStore(tmp_path / "citegraph.sqlite"), [dataclasses.replace(parsed, blocks=tuple(blocks))])
    result = runner.invoke(cli, ["verify", "--home", str(tmp_path)])
    assert result.exit_code == 1
    assert "DIFFERS  tolaria/workflow-report" in result.stdout
    assert "-" + parsed.blocks[3].markup in result.stdout and "+" + blocks[3].markup in result.stdout
    assert result.stdout.count("\n@@ ") == 1
    assert result.stdout.strip().endswith("1 document, 1 differ")


def test_cli_render_document_is_exact(home):
    result = runner.invoke(cli, ["render", "tolaria/workflow-report", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes == SEED_WORKFLOW.read_bytes()


@pytest.mark.parametrize("args, kwargs", [
    (["--rests-on", "RT-RTE-mcp-write"], {"rests_on": "RT-RTE-mcp-write"}),
    (["--rests-on", "RT-RTE-mcp-write", "--format", "txt", "--set", "tolaria"],
     {"rests_on": "RT-RTE-mcp-write", "fmt": "txt", "set_id": "tolaria"}),
    (["--record", "RT-RTE-workspace-send", "-f", "html"], {"record": "RT-RTE-workspace-send", "fmt": "html"}),
    (["--set", "talorys", "--format", "txt"], {"set_id": "talorys", "fmt": "txt"}),
    (["tolaria/synthesis", "--format", "html"], {"document": "tolaria/synthesis", "fmt": "html"}),
])
def test_cli_render_agrees_with_the_render_request(home, seeds_store, args, kwargs):
    result = runner.invoke(cli, ["render", *args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert result.stdout_bytes.decode("utf-8") == render_request(seeds_store, **kwargs).text


def test_cli_render_to_a_file(home, tmp_path, seeds_store):
    out = tmp_path / "r.html"
    result = runner.invoke(cli, ["render", "--rests-on", "RT-RTE-mcp-write", "--format", "html", "-o", str(out),
                                 "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == render_request(seeds_store, rests_on="RT-RTE-mcp-write", fmt="html").text


@pytest.mark.parametrize("args, code", [
    (["--rests-on", "RT-RTE-nope"], 66), (["nope/document"], 66), (["--set", "nope"], 66), ([], 2),
    (["tolaria/synthesis", "--record", "RT-RTE-mcp-write"], 2), (["--rests-on", "X", "--format", "pdf"], 2),
])
def test_cli_render_errors(home, args, code):
    result = runner.invoke(cli, ["render", *args, "--home", str(home)])
    assert result.exit_code == code, result.output


@pytest.mark.parametrize("url, kwargs, media", [
    ("/documents/tolaria/synthesis/render", {"document": "tolaria/synthesis"}, "text/plain"),
    ("/documents/tolaria/synthesis/render?format=html", {"document": "tolaria/synthesis", "fmt": "html"}, "text/html"),
    ("/records/RT-RTE-mcp-write/rests-on/report", {"rests_on": "RT-RTE-mcp-write"}, "text/markdown"),
    ("/records/RT-RTE-mcp-write/rests-on/report?format=txt&set=tolaria",
     {"rests_on": "RT-RTE-mcp-write", "fmt": "txt", "set_id": "tolaria"}, "text/plain"),
    ("/records/RT-RTE-mcp-write/dossier?format=html", {"record": "RT-RTE-mcp-write", "fmt": "html"}, "text/html"),
    ("/sets/tolaria/render?format=md", {"set_id": "tolaria", "fmt": "md"}, "text/markdown"),
])
def test_rest_renders_agree_with_the_render_request(client, seeds_store, url, kwargs, media):
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == f"{media}; charset=utf-8"
    assert response.content == render_request(seeds_store, **kwargs).text.encode("utf-8")


def test_rest_document_render_is_byte_exact(client):
    body = client.get("/documents/tolaria/workflow-report/render").content
    assert hashlib.sha256(body).digest() == hashlib.sha256(SEED_WORKFLOW.read_bytes()).digest()


@pytest.mark.parametrize("url, status", [
    ("/documents/nope/render", 404), ("/records/RT-RTE-nope/dossier", 404),
    ("/records/RT-RTE-mcp-write/rests-on/report?format=pdf", 422), ("/sets/nope/render", 404),
])
def test_rest_render_errors(client, url, status):
    assert client.get(url).status_code == status


def test_graphql_render_agrees_with_the_render_request(client, seeds_store):
    query = """query($d: String, $f: String, $r: String, $rec: String, $s: String) {
        render(document: $d, format: $f, restsOn: $r, record: $rec, set: $s) }"""
    cases = [({"r": "RT-RTE-mcp-write", "f": "txt"}, {"rests_on": "RT-RTE-mcp-write", "fmt": "txt"}),
             ({"d": "talorys/synthesis"}, {"document": "talorys/synthesis"}),
             ({"rec": "RT-RTE-mcp-write", "f": "html"}, {"record": "RT-RTE-mcp-write", "fmt": "html"})]
    for variables, kwargs in cases:
        data = client.post("/graphql", json={"query": query, "variables": variables}).json()
        assert data.get("errors") is None, data
        assert data["data"]["render"] == render_request(seeds_store, **kwargs).text


def test_graphql_render_errors_carry_codes(client):
    data = client.post("/graphql", json={"query": '{ render(restsOn: "RT-RTE-nope") }'}).json()
    assert data["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    data = client.post("/graphql", json={"query": '{ render(document: "tolaria/synthesis", format: "pdf") }'}).json()
    assert data["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
