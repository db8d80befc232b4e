"""Every face reports bad input and failures in its documented shape: no tracebacks, no bare 500s."""

from __future__ import annotations

import shutil

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from graph.errors import StoreUnavailable
from ingest.citations import extract_citations
from tests.conftest import SEEDS

runner = CliRunner()


def test_graphql_max_depth_zero_is_refused(client):
    for field in ('restsOn(record: "RT-RTE-mcp-write", maxDepth: 0) { count }',
                  'render(restsOn: "RT-RTE-mcp-write", maxDepth: 0)'):
        errors = client.post("/graphql", json={"query": "{ %s }" % field}).json()["errors"]
        assert errors[0]["extensions"]["code"] == "LIMIT_EXCEEDED", field
        assert errors[0]["message"] == "max_depth must be between 1 and 16 evidence steps, not 0"


@pytest.fixture(scope="module")
def client(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store), raise_server_exceptions=False) as client:
        yield client


def test_malformed_parameters_use_the_error_envelope(client):
    response = client.get("/records/RT-RTE-mcp-write/rests-on", params={"direct": "maybe"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "INVALID_INPUT" and error["message"].startswith("query.direct: ")
    assert client.get("/no/such/route").json() == {
        "error": {"code": "NOT_FOUND", "message": "Not Found", "hint": None}}
    assert client.get("/documents", params={"set": "nope"}).json()["error"]["code"] == "NOT_FOUND"


def test_unexpected_errors_are_masked_json(seeds_store, monkeypatch):
    app = create_app(Settings(), store=seeds_store)
    monkeypatch.setattr(seeds_store, "counts", lambda: 1 / 0)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/stats")
    assert response.status_code == 500
    assert response.json() == {"error": {"code": "INTERNAL", "message": "internal error", "hint": None}}


def test_corrupt_store_file_is_503_and_exit_69(tmp_path):
    home = tmp_path / "home"
    assert runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)]).exit_code == 0
    store_file = home / "citegraph.sqlite"
    damaged = store_file.read_bytes()[:5000]  # truncated by a failing disk or a careless copy
    with TestClient(create_app(Settings(home=home)), raise_server_exceptions=False) as client:
        assert client.get("/stats").status_code == 200
        store_file.write_bytes(damaged)
        response = client.get("/stats")
    assert response.status_code == 503 and response.json()["error"]["code"] == "UNAVAILABLE"
    assert response.json()["error"]["message"] == ("cannot read the embedded store the store's folder/citegraph.sqlite: "
                                                   "database disk image is malformed")  # a client is not told where
    result = runner.invoke(cli, ["stats", "--home", str(home)])
    assert result.exit_code == 69 and f"cannot read the embedded store {store_file}" in result.stderr
    with (pytest.raises(StoreUnavailable, match="database disk image is malformed"),
          TestClient(create_app(Settings(home=home)))):  # a server does not start on it
        pass
    assert store_file.read_bytes() == damaged  # nothing overwritten


def test_cli_reports_os_errors_and_bad_homes(tmp_path):
    home = tmp_path / "home"
    runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)])
    result = runner.invoke(cli, ["render", "--rests-on", "RT-RTE-mcp-write", "-o", str(tmp_path / "no" / "x.md"),
                                 "--home", str(home)])
    assert result.exit_code == 74 and "No such file or directory" in result.stderr
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    result = runner.invoke(cli, ["stats", "--home", str(not_a_folder)])
    assert result.exit_code == 69 and "must name a folder" in result.stderr
    assert runner.invoke(cli, ["serve", "--port", "99999"]).exit_code == 2


def test_empty_input_is_refused(tmp_path):
    result = runner.invoke(cli, ["ingest", str(tmp_path), "--home", str(tmp_path / "home")])
    assert result.exit_code == 65 and "no analysis-set members found in the input" in result.stderr


def test_skip_hint_is_one_readable_sentence(tmp_path):
    folder = tmp_path / "in"
    shutil.copytree(SEEDS, folder)
    (folder / "bad.txt").write_bytes(b"\xff")
    result = runner.invoke(cli, ["ingest", str(folder), "--home", str(tmp_path / "home")])
    assert result.exit_code == 65
    assert ("hint: members are UTF-8 text; re-save the file as UTF-8. Nothing was ingested; skip invalid files "
            "to ingest the rest (--skip-invalid, ?skip_invalid=true, skipInvalid: true).") in result.stderr


def test_many_citations_in_one_paragraph():
    text = "A claim (RT-RTE-z). Carried by RT-RTE-y. " * 5000
    found = extract_citations(text)
    assert len(found) == 10000
    assert [(c.target, c.form) for c in found[:2]] == [("RT-RTE-z", "citation"), ("RT-RTE-y", "mention")]
    mention = found[1]
    assert text[mention.span_start:mention.span_end] == "Carried by RT-RTE-y."
