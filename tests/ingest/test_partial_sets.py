"""A set copied in part (its manifest pins members that are absent): each missing member is its own
finding, and ``--partial`` ingests what is present with the gaps recorded."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.errors import hint_of
from graph.errors import IngestError
from graph.stores.sqlite import SQLiteStore
from tests.whole_input import read_members
from ingest.loader import ingest_parsed
from ingest.stream import ingest_paths
from queries.validation import check
from tests.analysis_sets import IM01, IM01_SET, copy_set

runner = CliRunner()
ABSENT = {"memory.md": 7, "epistemic.md": 9, "reconciliation.md": 11}  # name → its pin's line in ARTIFACT.yaml


@pytest.fixture
def copied(tmp_path):
    """IM-01 copied without its memory, epistemic and reconciliation members."""
    folder = copy_set(IM01, tmp_path / IM01_SET)
    for name in ABSENT:
        (folder / name).unlink()
    return folder


def test_a_partial_set_is_refused_naming_the_first_missing_member_and_the_flag(copied):
    with pytest.raises(IngestError) as info:
        read_members([copied])
    err = info.value
    assert err.source is not None
    assert (err.source.path, err.source.line) == (str(copied / "ARTIFACT.yaml"), 7)
    assert err.message == "the manifest pins memory.md, which is not among the inputs (and 2 more problems)"
    assert err.code == "input-refused" and err.data == {"gap": True, "rest": 0}
    assert "--partial (?partial=true, partial: true)" in (hint_of(err) or "")  # the faces name the flag


def test_skip_invalid_lists_each_missing_member_once_with_its_own_message(copied):
    read = read_members([copied], skip_invalid=True)
    assert read.parsed == []
    missing = [(path, str(e)) for path, e in read.errors if "pins" in str(e)]
    assert missing == [(str(copied / name), f"{copied / 'ARTIFACT.yaml'}:{line}: the manifest pins {name}, "
                        "which is not among the inputs") for name, line in ABSENT.items()]
    report = ingest_parsed(SQLiteStore(None), read.parsed, errors=read.errors)
    assert [(d.path, d.status) for d in report.documents] == [
        *((str(copied / name), "skipped") for name in ABSENT),
        (str(copied / "overview.md"), "skipped"), (str(copied / "runtime.md"), "skipped"),
        (str(copied / "ARTIFACT.yaml"), "skipped")]  # the refused set's manifest is named too


def test_partial_ingests_what_is_present_and_the_gaps_stay_findings(copied):
    store = SQLiteStore(None)
    report = ingest_paths(store, [copied], partial=True)
    assert report.sets == (IM01_SET,)
    assert [(d.path, d.status) for d in report.documents] == [
        (str(copied / "overview.md"), "written"), (str(copied / "runtime.md"), "written"),
        *((str(copied / name), "missing") for name in ABSENT), (str(copied / "ARTIFACT.yaml"), "manifest")]
    gaps = [(f.code, f.severity, f.file, f.line) for f in check(store).findings if f.severity == "error"]
    assert gaps == [("manifest-missing-member", "error", str(copied / "ARTIFACT.yaml"), line)
                    for line in ABSENT.values()]
    # the streaming ingest and the read-then-load path agree
    read = read_members([copied], partial=True)
    again = ingest_parsed(SQLiteStore(None), read.parsed, errors=read.errors, gaps=read.gaps,
                          manifests=read.manifests, skipped=read.skipped)
    assert again == report


def test_partial_does_not_admit_other_errors(copied):
    (copied / "runtime.md").write_text((copied / "runtime.md").read_text().replace("Local CLI operation", "Local"))
    with pytest.raises(IngestError, match="differs from the pin"):
        read_members([copied], partial=True)


def test_cli_partial_flag(copied, tmp_path):
    home = str(tmp_path / "home")
    result = runner.invoke(cli, ["ingest", str(copied), "--partial", "--json", "--home", home])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["documents"]
    assert [(r["path"].rsplit("/", 1)[1], r["status"]) for r in rows] == [
        ("overview.md", "written"), ("runtime.md", "written"), *((name, "missing") for name in ABSENT),
        ("ARTIFACT.yaml", "manifest")]
    result = runner.invoke(cli, ["check", "--home", home])
    assert result.exit_code == 1
    assert f"{copied / 'ARTIFACT.yaml'}:9: error: [manifest-missing-member] the manifest pins epistemic.md" in result.stdout


def test_rest_and_graphql_take_partial_too(copied):
    from fastapi.testclient import TestClient

    from app.rest.main import create_app
    from app.settings import Settings

    files = [("files", (p.name, p.read_bytes(), "text/markdown")) for p in sorted(copied.iterdir())]
    auth = {"Authorization": "Bearer w"}
    with TestClient(create_app(Settings(write_token="w"), store=SQLiteStore(None))) as client:
        assert client.post("/sets", files=files, headers=auth).status_code == 422
        response = client.post("/sets", files=files, headers=auth, params={"partial": "true"})
        assert response.status_code == 201, response.text
        assert [(d["path"], d["status"]) for d in response.json()["documents"]] == [
            ("overview.md", "written"), ("runtime.md", "written"), *((name, "missing") for name in ABSENT),
        ("ARTIFACT.yaml", "manifest")]
        mutation = ('mutation($f: [MemberFileInput!]!) { ingest(files: $f, partial: true) '
                    '{ documents { path status } } }')
        variables = {"f": [{"name": p.name, "content": p.read_text()} for p in sorted(copied.iterdir())]}
        got = client.post("/graphql", json={"query": mutation, "variables": variables}, headers=auth).json()
        assert [d["status"] for d in got["data"]["ingest"]["documents"]] == ["unchanged", "unchanged"] + ["missing"] * 3 + ["manifest"]


def test_the_hint_names_only_a_folder_that_exists(copied):
    """Copied away from its archive, the hint names no folder (it used to suggest
    ``retained-archive/<run-id>/``, which was nowhere); the Dynamic Cheatsheet set's manifest folder
    alone names the archive folder that holds its pinned runtime.md, with that file's pinned hash."""
    with pytest.raises(IngestError) as info:
        read_members([copied])
    assert info.value.hint == "pass the folder holding memory.md too."
    from tests.conftest import CORPUS

    kb = CORPUS / "commonplace" / "kb" / "agentic-system-analyses"
    with pytest.raises(IngestError) as info:
        read_members([kb / "retained" / "dynamic-cheatsheet"])
    # retained/dynamic-cheatsheet/ARTIFACT.yaml:5 pins runtime.md, kept in the archive folder of its run
    assert info.value.source is not None
    assert (info.value.source.line, info.value.hint) == (
        5, f"pass the folder holding runtime.md too: {kb / 'retained-archive' / 'AAS-2026-10-04-dynamic-cheatsheet-01'}/.")
