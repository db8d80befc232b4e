"""The GraphQL ``ingest`` mutation: the same loader as the CLI and ``POST /sets``, behind the write token."""

from __future__ import annotations

import base64

import pytest
from fastapi.testclient import TestClient

from app.rest.main import create_app
from app.settings import Settings
from graph.model import Label
from tests.conftest import ROOT, SEEDS

MUTATION = """mutation($files: [MemberFileInput!]!, $skip: Boolean! = false) {
  ingest(files: $files, skipInvalid: $skip) { sets documents { path document status statements error } } }"""
AUTH = {"Authorization": "Bearer w"}


def seed_inputs() -> list[dict]:
    return [{"name": p.name, "content": p.read_text(encoding="utf-8")} for p in sorted(SEEDS.iterdir())]


@pytest.fixture
def client(store):
    with TestClient(create_app(Settings(write_token="w"), store=store)) as client:
        yield client


def test_ingest_mutation_writes_the_seeds(client, store):
    result = client.post("/graphql", json={"query": MUTATION, "variables": {"files": seed_inputs()}},
                         headers=AUTH).json()
    assert "errors" not in result, result
    assert result["data"]["ingest"]["sets"] == ["tolaria", "talorys"]
    assert [(d["document"], d["status"], d["statements"]) for d in result["data"]["ingest"]["documents"]] == [
        ("tolaria/synthesis", "written", 24), ("tolaria/workflow-report", "written", 30),
        ("talorys/synthesis", "written", 24)]
    assert len(store.find_nodes(Label.STATEMENT)) == 78


@pytest.mark.parametrize(("headers", "code"), [({}, "UNAUTHENTICATED"), ({"Authorization": "Bearer x"}, "UNAUTHENTICATED")])
def test_ingest_mutation_needs_the_write_token(client, store, headers, code):
    result = client.post("/graphql", json={"query": MUTATION, "variables": {"files": seed_inputs()}},
                         headers=headers).json()
    assert result["errors"][0]["extensions"]["code"] == code
    assert store.find_nodes(Label.DOCUMENT) == []


def test_bad_member_is_invalid_input_and_nothing_is_stored(client, store):
    bad = {"name": "bad.txt", "content": base64.b64encode(b"Title\nType: x\n\xff").decode(), "base64": True}
    result = client.post("/graphql", json={"query": MUTATION, "variables": {"files": [*seed_inputs(), bad]}},
                         headers=AUTH).json()
    error = result["errors"][0]
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert error["message"].startswith("invalid UTF-8 at byte 14")
    assert error["extensions"]["source"] == {"path": "bad.txt", "line": 3}
    assert store.find_nodes(Label.DOCUMENT) == []
    skipped = client.post("/graphql", json={"query": MUTATION, "variables": {"files": [*seed_inputs(), bad],
                                                                              "skip": True}}, headers=AUTH).json()
    assert [d["status"] for d in skipped["data"]["ingest"]["documents"]] == ["written"] * 3 + ["skipped"]


def test_ingest_mutation_places_a_file_by_the_folders_of_its_name(client, store):
    """A G0 prototype is known by its folder (GRAMMAR §0), so ``name`` is a relative path, kept."""
    run = "AGS-2026-08-20-SWAMP-01"
    trial = ROOT / "tests" / "fixtures" / "g0" / "multistage-swamp" / "trials" / run
    files = [{"name": f"trials/{run}/{p.name}", "content": p.read_text(encoding="utf-8")} for p in sorted(trial.iterdir())]
    result = client.post("/graphql", json={"query": MUTATION, "variables": {"files": files}}, headers=AUTH).json()
    assert "errors" not in result, result
    assert result["data"]["ingest"]["sets"] == [run]
    assert [(d["path"], d["document"], d["status"]) for d in result["data"]["ingest"]["documents"]] == [
        (f"trials/{run}/lens-memory.md", f"{run}/lens-memory", "written"),
        (f"trials/{run}/reconciliation.md", f"{run}/reconciliation", "written"),
        (f"trials/{run}/result.md", f"{run}/result", "written")]


def test_ingest_mutation_refuses_a_name_outside_the_upload(client, store):
    files = [*seed_inputs()[:1], {"name": "../x/synthesis.txt", "content": seed_inputs()[0]["content"]}]
    error = client.post("/graphql", json={"query": MUTATION, "variables": {"files": files}},
                        headers=AUTH).json()["errors"][0]
    assert (error["extensions"]["code"], error["message"]) == (
        "INVALID_INPUT", "unsafe path '../x/synthesis.txt' in the upload")
    assert store.find_nodes(Label.DOCUMENT) == []
