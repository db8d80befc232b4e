"""CLI, REST and GraphQL answer the seeds' questions exactly as the query functions do."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from queries.shapes import plain
from queries.traversal import rests_on
from tests.app.commands import cli_group
from tests.conftest import SEEDS

runner = CliRunner()


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """An embedded store folder holding the seeds, ingested through the CLI."""
    home = tmp_path_factory.mktemp("home")
    result = runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home


@pytest.fixture(scope="module")
def client(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        yield client


def cli_json(*args: str, home) -> dict:
    result = runner.invoke(cli, [*args, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cli_ingest_summary(tmp_path):
    result = runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["sets"] == ["tolaria", "talorys"]
    assert [(d["document"], d["statements"], d["citations"]) for d in data["documents"]] == [
        ("tolaria/synthesis", 24, 82), ("tolaria/workflow-report", 30, 62), ("talorys/synthesis", 24, 76)]


def test_rests_on_agrees_on_every_face(home, client, seeds_store):
    expected = plain(rests_on(seeds_store, "RT-RTE-mcp-write"))
    assert len(expected["results"]) == 14
    assert cli_json("rests-on", "RT-RTE-mcp-write", home=home) == expected

    rest = client.get("/records/RT-RTE-mcp-write/rests-on").json()
    assert rest.pop("count") == 14
    assert rest == expected

    query = """query($r: String!) { restsOn(record: $r) { record set records count
        results { set document section sectionHeading statement kind text line order direct depth path } } }"""
    gql = client.post("/graphql", json={"query": query, "variables": {"r": "RT-RTE-mcp-write"}}).json()
    assert "errors" not in gql
    got = gql["data"]["restsOn"]
    assert got.pop("count") == 14
    assert got["records"] == expected["records"]
    assert [{"section_heading": r.pop("sectionHeading"), **r} for r in got["results"]] == [
        {"section_heading": r["section_heading"], **{k: v for k, v in r.items() if k != "section_heading"}}
        for r in expected["results"]]


def test_direct_flag_on_every_face(home, client):
    cli_direct = cli_json("rests-on", "RT-RTE-mcp-write", "--direct", home=home)
    assert len(cli_direct["results"]) == 12
    rest = client.get("/records/RT-RTE-mcp-write/rests-on", params={"direct": "true", "set": "tolaria"}).json()
    assert [r["statement"] for r in rest["results"]] == [r["statement"] for r in cli_direct["results"]]
    gql = client.post("/graphql", json={"query": '{ restsOn(record: "RT-RTE-mcp-write", set: "tolaria", direct: true)'
                                                  ' { count } }'}).json()
    assert gql["data"]["restsOn"]["count"] == 12


def test_graphql_record_and_documents(client):
    gql = client.post("/graphql", json={"query": """{
        record(id: "RT-RTE-owner-chat") { nodeId set analyst kind slug restsOn { results { statement } } }
        documents { totalCount edges { node { nodeId role format } } } }"""}).json()
    assert gql["data"]["record"] == {
        "nodeId": "talorys/RT-RTE-owner-chat", "set": "talorys", "analyst": "RT", "kind": "RTE", "slug": "owner-chat",
        "restsOn": {"results": [{"statement": "talorys/synthesis#L6"}, {"statement": "talorys/synthesis#L26"}]}}
    assert gql["data"]["documents"]["totalCount"] == 3
    assert [e["node"]["nodeId"] for e in gql["data"]["documents"]["edges"]] == [
        "talorys/synthesis", "tolaria/synthesis", "tolaria/workflow-report"]


def test_rest_documents_and_health(client):
    docs = client.get("/documents").json()
    assert docs["count"] == 3 and docs["data"][2]["role"] == "workflow-report"
    assert client.get("/documents", params={"set": "talorys"}).json()["count"] == 1
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["nodes"] == 204 and health["edges"] == 354
    assert health["store"] == "embedded"


def test_unknown_record_is_404_66_and_not_found(home, client):
    result = runner.invoke(cli, ["rests-on", "RT-RTE-nope", "--home", str(home)])
    assert result.exit_code == 66 and "record RT-RTE-nope is not cited or declared" in result.stderr
    response = client.get("/records/RT-RTE-nope/rests-on")
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    gql = client.post("/graphql", json={"query": '{ restsOn(record: "RT-RTE-nope") { count } }'}).json()
    assert gql["errors"][0]["extensions"]["code"] == "NOT_FOUND"


def test_bad_depth_is_rejected(client):
    assert client.get("/records/RT-RTE-mcp-write/rests-on", params={"max_depth": 0}).status_code == 422
    gql = client.post("/graphql", json={"query": '{ restsOn(record: "RT-RTE-mcp-write", maxDepth: 99) { count } }'}).json()
    assert gql["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"


def test_cli_bad_file_exits_65_and_stores_nothing(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Title only\n\nType: nope\n")
    result = runner.invoke(cli, ["ingest", str(bad), "--home", str(tmp_path / "home")])
    assert result.exit_code == 65
    assert f"{bad}:3: unknown member type 'nope'" in result.stderr
    assert not (tmp_path / "home").exists()


def test_stats_and_check(home):
    data = cli_json("stats", home=home)
    assert [(s["set"], s["records"], s["record_occurrences"]) for s in data["sets"]] == [
        ("talorys", 38, 58), ("tolaria", 24, 72)]
    check = cli_json("check", home=home)
    codes = [f["code"] for f in check["findings"]]
    assert check["errors"] == 0 and check["warnings"] == len(codes) == 62 + 12
    assert codes.count("undeclared-record") == 62 and codes.count("unresolved-reference") == 12


def test_every_command_has_help():
    group = cli_group()
    for name, command in group.commands.items():
        assert command.help and "Example: citegraph" in command.help, name
