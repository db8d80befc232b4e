"""A client generated from ``/openapi.json`` by openapi-python-client works against a real server:
a read, a 404, a write with the write token and a 412, each parsed into the declared models; and
the spec itself passes openapi-spec-validator and declares what the server really sends."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from app.rest.main import create_app
from app.rest.schemas import rests_on_body
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from queries import traversal
from queries.traversal import MAX_DEPTH
from tests.conftest import SEED_SYNTHESIS, SEEDS, ingest_into
from tests.live_server import live_server

READ, WRITE = "read-secret", "write-secret"
SETTINGS = Settings(read_token=READ, write_token=WRITE)
OPERATIONS = {
    ("get", "/health"): "health",
    ("get", "/documents/{document_id}/render"): "renderDocument",
    ("get", "/records/{record_id}/dossier"): "renderDossier",
    ("get", "/records/{record_id}/rests-on/report"): "renderRestsOn",
    ("get", "/sets/{set_id}/render"): "renderSet",
    ("get", "/sets/{set_id}/versions"): "listVersions",
    ("get", "/sets/{set_id}/diff"): "diffVersions",
    ("get", "/systems/{system}/runs"): "listRuns",
    ("get", "/compare"): "compareRuns",
    ("get", "/documents"): "listDocuments",
    ("get", "/documents/{document_id}"): "getDocument",
    ("put", "/documents/{document_id}"): "putDocument",
    ("delete", "/documents/{document_id}"): "deleteDocument",
    ("get", "/records"): "listRecords",
    ("get", "/records/{record_id}"): "getRecord",
    ("get", "/records/{record_id}/citations"): "listCitations",
    ("get", "/records/{record_id}/rests-on"): "restsOn",
    ("get", "/sources/{source_id}/rests-on"): "sourceRestsOn",
    ("get", "/source-files/{path}/rests-on"): "sourceFileRestsOn",
    ("get", "/search"): "search",
    ("get", "/export"): "exportGraph",
    ("get", "/sets"): "listSets",
    ("post", "/sets"): "ingestSets",
    ("get", "/sets/{set_id}"): "getSet",
    ("delete", "/sets/{set_id}"): "deleteSet",
    ("get", "/stats"): "getStats",
    ("get", "/check"): "check",
    ("post", "/impact"): "impact",
    ("post", "/impact/repository"): "repositoryImpact",
    ("post", "/hooks/push"): "pushHook",
    ("get", "/impact-runs"): "listImpactRuns",
    ("get", "/impact-runs/{run_id}"): "getImpactRun",
    ("get", "/suspects"): "listSuspects",
    ("get", "/graphql"): "graphqlGet",
    ("post", "/graphql"): "graphql",
    ("get", "/embed/rests-on/{record_id}/graph"): "embedRestsOnGraph",
    ("get", "/embed/rests-on/{record_id}"): "embedRestsOn",
    ("get", "/embed/records/{record_id}"): "embedRecord",
    ("get", "/embed/records/{record_id}/dossier"): "embedDossier",
    ("get", "/embed/history/{set_id}"): "embedHistory",
    ("get", "/embed/impact-runs"): "embedImpactRuns",
    ("get", "/embed/compare"): "embedCompare",
}
"""Every operation and its operationId: clients name their functions after these, so they change
only on purpose."""


@pytest.fixture(scope="module")
def spec() -> dict:
    return create_app(SETTINGS, store=SQLiteStore(None)).openapi()


@pytest.fixture(scope="module")
def client_package(spec, tmp_path_factory):
    """The package openapi-python-client generates from the spec (imported), and its output."""
    root = tmp_path_factory.mktemp("generated")
    (root / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff
    run = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", "openapi.json",
                          "--meta", "none", "--output-path", "citegraph_client"],
                         cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("citegraph_client"), run.stdout + run.stderr
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "citegraph_client" or m.startswith("citegraph_client.")]:
            del sys.modules[name]


@pytest.fixture
def server():
    store = SQLiteStore(None)
    ingest_into(store, SEEDS)
    with live_server(create_app(SETTINGS, store=store)) as url:
        yield url, store


def test_the_spec_is_valid_openapi(spec):
    validate(spec)
    assert {(method, path): op["operationId"] for path, ops in spec["paths"].items()
            for method, op in ops.items()} == OPERATIONS
    schemes = spec["components"]["securitySchemes"]
    assert {name: (s["type"], s["scheme"]) for name, s in schemes.items()} == {
        "readToken": ("http", "bearer"), "writeToken": ("http", "bearer")}  # Swagger UI's Authorize button


def test_every_operation_declares_its_errors_and_security(spec):
    error = {"$ref": "#/components/schemas/ErrorOut"}
    for (method, path), operation_id in OPERATIONS.items():
        op = spec["paths"][path][method]
        assert op["tags"], operation_id
        assert op["responses"]["default"]["content"]["application/json"]["schema"] == error, operation_id
        if path == "/health":
            assert "security" not in op
            continue
        if path == "/hooks/push":  # no bearer token: the git host signs the delivery
            assert "security" not in op and {"401", "403", "422"} <= set(op["responses"]), operation_id
            continue
        for status in ("401", "403"):
            assert op["responses"][status]["content"]["application/json"]["schema"] == error, (operation_id, status)
        expected = [{"writeToken": []}] if op["tags"] == ["writes"] else [{"readToken": []}, {"writeToken": []}]
        assert op["security"] == expected, operation_id
        if op.get("parameters") and operation_id not in ("graphqlGet", "deleteDocument", "deleteSet"):  # no constraint to fail
            assert op["responses"]["422"]["content"]["application/json"]["schema"] == error, operation_id
    assert "HTTPValidationError" not in spec["components"]["schemas"]  # FastAPI's {"detail": [...]}, never sent
    writes = {op: sorted(spec["paths"][p][m]["responses"]) for (m, p), op in OPERATIONS.items()
              if spec["paths"][p][m]["tags"] == ["writes"]}
    assert writes == {
        "putDocument": ["200", "201", "401", "403", "409", "412", "413", "422", "default"],
        "deleteDocument": ["204", "401", "403", "404", "412", "default"],
        "ingestSets": ["200", "201", "401", "403", "409", "413", "422", "default"],
        "deleteSet": ["204", "401", "403", "404", "default"],
    }
    bodies = {op: sorted(spec["paths"][p][m]["requestBody"]["content"]) for (m, p), op in OPERATIONS.items()
              if "requestBody" in spec["paths"][p][m]}
    assert bodies == {"putDocument": ["application/octet-stream", "text/markdown", "text/plain"],
                      "ingestSets": ["application/zip", "multipart/form-data"],
                      "impact": ["application/json"], "repositoryImpact": ["application/json"],
                      "graphql": ["application/json"]}
    open_server = create_app(Settings(write_token=WRITE), store=SQLiteStore(None)).openapi()["paths"]
    assert open_server["/records/{record_id}/rests-on"]["get"]["security"] == [{"readToken": []}, {"writeToken": []}, {}]
    assert open_server["/embed/rests-on/{record_id}"]["get"]["security"][-1] == {}  # reads open: a token optional
    assert open_server["/sets"]["post"]["security"] == [{"writeToken": []}]
    graph = spec["paths"]["/embed/rests-on/{record_id}/graph"]["get"]["responses"]["200"]["content"]
    assert graph["application/json"]["schema"] == {"$ref": "#/components/schemas/RestsOnGraphOut"}
    assert spec["paths"]["/graphql"]["post"]["summary"] == "GraphQL query or mutation"


def test_the_generator_reads_everything_but_the_media_types_it_lacks(client_package):
    """openapi-python-client 0.29 sends binary bodies only as application/octet-stream: the other
    media types the server accepts are all it skips (the generated client uses octet-stream and
    multipart)."""
    _, output = client_package
    warnings = [line for line in output.splitlines() if line.startswith("Unsupported") or "WARNING" in line
                or "Skipping" in line or "Error" in line]
    assert warnings == [
        "WARNING parsing PUT /documents/{document_id} within writes.", "Unsupported content type text/markdown",
        "WARNING parsing PUT /documents/{document_id} within writes.", "Unsupported content type text/plain",
        "WARNING parsing POST /sets within writes.", "Unsupported content type application/zip",
    ]


def test_generated_client_reads_writes_and_parses_errors(client_package, server):
    package, _ = client_package
    from citegraph_client import AuthenticatedClient  # noqa: F401 (imported through the generated package)
    from citegraph_client.api.documents import get_document
    from citegraph_client.api.embed import embed_record, embed_rests_on_graph
    from citegraph_client.api.export import export_graph
    from citegraph_client.api.render import render_document
    from citegraph_client.api.graphql import graphql
    from citegraph_client.api.records import get_record, rests_on
    from citegraph_client.api.writes import put_document
    from citegraph_client.models import (ExportGraphFormat, ErrorOut, GraphQLResponseOut, GraphqlBody, GraphqlBodyVariablesType0, IngestOut,
                                         RecordOut, RestsOnGraphOut, RestsOnOut)
    from citegraph_client.types import UNSET, File

    url, store = server
    reader = package.AuthenticatedClient(base_url=url, token=READ, raise_on_unexpected_status=True)
    writer = package.AuthenticatedClient(base_url=url, token=WRITE, raise_on_unexpected_status=True)
    anonymous = package.Client(base_url=url, raise_on_unexpected_status=True)

    answer = rests_on.sync(client=reader, record_id="RT-RTE-mcp-write", set_="tolaria")
    assert isinstance(answer, RestsOnOut)
    assert answer.count == 14 and answer.to_dict() == rests_on_body(
        traversal.rests_on(store, "RT-RTE-mcp-write", set_id="tolaria"))

    graph = embed_rests_on_graph.sync(client=reader, record_id="RT-RTE-mcp-write", set_="tolaria")
    assert isinstance(graph, RestsOnGraphOut) and (graph.count, len(graph.nodes), len(graph.edges)) == (14, 18, 17)
    assert [(n.id, n.kind, n.start) for n in graph.nodes[:2]] == [
        ("tolaria/RT-RTE-mcp-write", "record", True), (answer.results[0].statement, "statement", False)]

    rendered = render_document.sync(client=reader, document_id="tolaria/synthesis")  # text bodies read as text
    assert rendered.encode("utf-8") == SEED_SYNTHESIS.read_bytes()  # the seeds round-trip exactly
    exported = export_graph.sync(client=reader, format_=ExportGraphFormat.GRAPHML, set_="tolaria")
    assert "<graphml " in exported and exported.rstrip().endswith("</graphml>")
    page_missing = embed_record.sync_detailed(client=reader, record_id="RT-RTE-nope")
    assert page_missing.status_code == 404 and "NOT_FOUND" in page_missing.parsed  # the error page, as text

    query = GraphqlBody(query='query($r: String!) { restsOn(record: $r, set: "tolaria") { count } }',
                        variables=GraphqlBodyVariablesType0.from_dict({"r": "RT-RTE-mcp-write"}))
    result = graphql.sync(client=reader, body=query)
    assert isinstance(result, GraphQLResponseOut) and result.data.to_dict() == {"restsOn": {"count": 14}}
    refused = graphql.sync(client=reader, body=GraphqlBody(query="{ records(first: 1000) { totalCount } }"))
    assert result.errors is UNSET and refused.data is UNSET  # a request error: no data entry
    assert [e.extensions.to_dict()["code"] for e in refused.errors] == ["LIMIT_EXCEEDED"]

    records = get_record.sync(client=reader, record_id="RT-RTE-mcp-write")
    assert [(r.id, r.citations) for r in records] == [("tolaria/RT-RTE-mcp-write", 11)]
    assert all(isinstance(r, RecordOut) for r in records)

    missing = get_record.sync_detailed(client=reader, record_id="rt-rte-mcp-write")
    assert missing.status_code == 404 and isinstance(missing.parsed, ErrorOut)
    error = missing.parsed.error
    assert error.code == "NOT_FOUND" and error.hint.startswith("did you mean RT-RTE-mcp-write")
    assert error.source is UNSET and error.details is UNSET

    refused = get_record.sync_detailed(client=anonymous, record_id="RT-RTE-mcp-write")
    assert refused.status_code == 401 and refused.parsed.error.code == "UNAUTHENTICATED"

    invalid = rests_on.sync_detailed(client=reader, record_id="RT-RTE-mcp-write", max_depth=MAX_DEPTH + 1)
    assert invalid.status_code == 422 and invalid.parsed.error.code == "INVALID_INPUT"
    assert [(p.where, p.message) for p in invalid.parsed.error.details] == [
        ("query.max_depth", f"Input should be less than or equal to {MAX_DEPTH}")]

    current = get_document.sync_detailed(client=reader, document_id="tolaria/synthesis")
    assert current.status_code == 200 and current.parsed.id == "tolaria/synthesis"
    etag = current.headers["etag"]
    assert etag == f'"{current.parsed.sha256}"'

    changed = File(payload=SEED_SYNTHESIS.read_bytes() + b"\nA new closing paragraph (RT-RTE-mcp-write).",
                   file_name="synthesis.txt")
    stale = put_document.sync_detailed(client=writer, document_id="tolaria/synthesis", body=changed,
                                       name="000_a3dd65b871acf2aa.txt", if_match='"0000"')
    assert stale.status_code == 412 and isinstance(stale.parsed, ErrorOut)
    assert stale.parsed.error.code == "PRECONDITION_FAILED"

    read_only = put_document.sync_detailed(client=reader, document_id="tolaria/synthesis", body=changed,
                                           name="000_a3dd65b871acf2aa.txt", if_match=etag)
    assert read_only.status_code == 403 and read_only.parsed.error.code == "FORBIDDEN"

    written = put_document.sync_detailed(client=writer, document_id="tolaria/synthesis", body=changed,
                                         name="000_a3dd65b871acf2aa.txt", if_match=etag)
    assert written.status_code == 200 and isinstance(written.parsed, IngestOut)
    assert [(d.document, d.status) for d in written.parsed.documents] == [("tolaria/synthesis", "written")]
    assert written.headers["etag"] != etag
    after = get_document.sync(client=reader, document_id="tolaria/synthesis")
    assert f'"{after.sha256}"' == written.headers["etag"]


def test_every_error_the_server_sends_is_the_declared_model():
    """Each kind of error body (a refused parameter, a file that does not parse, a token, a version
    without its set, a precondition, a body over the limit) validates against ``ErrorOut``."""
    from fastapi.testclient import TestClient

    from app.rest.openapi import ErrorOut

    store = SQLiteStore(None)
    ingest_into(store, SEEDS)
    read, write = {"Authorization": f"Bearer {READ}"}, {"Authorization": f"Bearer {WRITE}"}
    with TestClient(create_app(Settings(read_token=READ, write_token=WRITE, max_body_bytes=200_000),
                               store=store)) as client:
        answers = {
            "query": client.get("/records", params={"limit": 0}, headers=read),
            "file": client.post("/sets", files=[("files", ("broken.txt", b"Only a title\nType: nope\n", "text/plain"))],
                                headers=write),
            "no token": client.get("/records"),
            "read token writing": client.delete("/sets/tolaria", headers=read),
            "version without set": client.get("/records", params={"version": 1}, headers=read),
            "unknown set": client.get("/sets/nope", headers=read),
            "precondition": client.delete("/documents/tolaria/synthesis", headers={**write, "If-Match": '"0"'}),
            "too large": client.put("/documents/tolaria/synthesis", content=b"x" * 200_001, headers=write),
            "no route": client.get("/nope", headers=read),
        }
    statuses = {name: r.status_code for name, r in answers.items()}
    assert statuses == {"query": 422, "file": 422, "no token": 401, "read token writing": 403,
                        "version without set": 400, "unknown set": 404, "precondition": 412, "too large": 413,
                        "no route": 404}
    errors = {name: ErrorOut.model_validate(r.json()).error for name, r in answers.items()}
    assert [(p.where, p.message) for p in errors["query"].details] == [
        ("query.limit", "Input should be greater than or equal to 1")]
    assert (errors["file"].code, errors["file"].source.path, errors["file"].source.line) == ("INVALID_INPUT", "broken.txt", 2)
    assert {name: e.code for name, e in errors.items()} == {
        "query": "INVALID_INPUT", "file": "INVALID_INPUT", "no token": "UNAUTHENTICATED",
        "read token writing": "FORBIDDEN", "version without set": "BAD_REQUEST", "unknown set": "NOT_FOUND",
        "precondition": "PRECONDITION_FAILED", "too large": "PAYLOAD_TOO_LARGE", "no route": "NOT_FOUND"}
    assert answers["no token"].headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("name", ["app.rest.openapi", "app.graphql.ide"])
def test_doctests(name):
    import doctest

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
