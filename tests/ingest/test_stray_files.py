"""Stray files in a folder of members: an empty ``.md`` and a ``.txt`` without a ``Type:`` line are no
analysis documents, skipped with their reason and never refusing the other files (``--strict``
makes them errors); a file that claims to be a member stays an error when broken."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from app.cli import cli
from graph.errors import ParseError
from graph.model import Label
from ingest.pipeline import ingest_paths
from tests.analysis_sets import IM01, IM01_SET, copy_set
from tests.conftest import SEEDS

runner = CliRunner()

EMPTY = "no analysis document: an empty file"
NO_TYPE = "no analysis document: no line of its first 4 starts with `Type:` (a plain-text member names its type there)"


@pytest.fixture
def seeds_and_strays(tmp_path):
    """The three seeds, and four files beside them that are no analysis documents."""
    folder = tmp_path / "seeds"
    shutil.copytree(SEEDS, folder)
    (folder / "placeholder.md").write_bytes(b"")
    (folder / "blank.md").write_bytes(b"\n \n\t\n")
    (folder / "bom.md").write_bytes(b"\xef\xbb\xbf\n")
    (folder / "readme.txt").write_bytes(b"Seeds\n\nThree plain-text renderings.\n\nType: notes, on line 5\n")
    return folder


def test_stray_files_are_skipped_with_their_reason_and_the_seeds_written(store, seeds_and_strays):
    report = ingest_paths(store, [seeds_and_strays])
    assert report.sets == ("tolaria", "talorys")
    assert [(d.path.removeprefix(f"{seeds_and_strays}/"), d.status, d.reason, d.note) for d in report.documents] == [
        ("000_a3dd65b871acf2aa.txt", "written", None, None),
        ("001_12342d341e774cc9.txt", "written", None, None),
        ("003_68dfe0dcb1db1ebb.txt", "written", None, None),
        ("blank.md", "skipped", "not-a-document", EMPTY),
        ("bom.md", "skipped", "not-a-document", EMPTY),
        ("placeholder.md", "skipped", "not-a-document", EMPTY),
        ("readme.txt", "skipped", "not-a-document", NO_TYPE),  # its `Type:` is on line 5
    ]
    assert len(store.find_nodes(Label.DOCUMENT)) == 3


def test_the_cli_names_each_stray_file_and_exits_0(seeds_and_strays, tmp_path):
    result = runner.invoke(cli, ["ingest", str(seeds_and_strays), "--home", str(tmp_path / "home")])
    assert result.exit_code == 0, result.output
    assert [line for line in result.stderr.splitlines() if line.startswith("skipped")] == [
        f"skipped {seeds_and_strays / 'blank.md'}: {EMPTY}",
        f"skipped {seeds_and_strays / 'bom.md'}: {EMPTY}",
        f"skipped {seeds_and_strays / 'placeholder.md'}: {EMPTY}",
        f"skipped {seeds_and_strays / 'readme.txt'}: {NO_TYPE}"]


def test_strict_makes_a_stray_file_an_error_and_writes_nothing(store, seeds_and_strays):
    with pytest.raises(ParseError) as refused:
        ingest_paths(store, [seeds_and_strays], strict=True)
    assert refused.value.source is not None
    assert (refused.value.source.path, refused.value.source.line, refused.value.message) == (
        str(seeds_and_strays / "blank.md"), 1, f"{EMPTY} (and 3 more problems)")
    assert store.find_nodes(Label.DOCUMENT) == []


@pytest.mark.parametrize(("name", "data", "line", "message"), [
    # a `Type:` line claims a plain-text member (GRAMMAR §9: title on line 1, `Type:` on line 2 or 3)
    ("claims.txt", b"Notes\nType: agentic-system-analyses/types/nope.md\n", 2,
     "unknown member type 'agentic-system-analyses/types/nope.md'"),
    ("untitled.txt", b"Type: agentic-system-analyses/types/agentic-system-synthesis.md\n", 2,
     "expected a `Type: <member type>` line after the title"),
    # a G0 prototype is named by its place (GRAMMAR §0): empty, it is a broken member
    ("trials/AGS-2026-08-20-SWAMP-01/result.md", b"\n", 1, "file is empty"),
])
def test_a_file_that_claims_to_be_a_member_stays_an_error(store, tmp_path, name, data, line, message):
    folder = tmp_path / "in"
    shutil.copytree(SEEDS, folder)
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    with pytest.raises(ParseError) as refused:
        ingest_paths(store, [folder])
    assert refused.value.source is not None
    assert (refused.value.source.path, refused.value.source.line, refused.value.message) == (
        str(folder / name), line, message)
    assert store.find_nodes(Label.DOCUMENT) == []


def test_an_empty_member_its_manifest_pins_refuses_its_set(store, tmp_path):
    """memory.md is pinned at ARTIFACT.yaml:7: emptied, it is a broken member, not a stray file."""
    folder = copy_set(IM01, tmp_path / IM01_SET)
    (folder / "memory.md").write_bytes(b"")
    result = runner.invoke(cli, ["ingest", str(folder), "--skip-invalid", "--json", "--home", str(tmp_path / "h")])
    assert result.exit_code == 0, result.output
    refused = f"set {IM01_SET} was refused as a whole"
    assert [(d["path"].removeprefix(f"{folder}/"), d["status"], d["error"].removeprefix(f"{folder}/"))
            for d in json.loads(result.stdout)["documents"]] == [
        ("memory.md", "skipped", "memory.md:1: file is empty"),
        ("memory.md", "skipped", (  # e3b0c442…: the SHA-256 of no bytes
            "memory.md:1: SHA-256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 differs from the "
            f"pin 783e48509c375c232a7c50ddc7160676fddafd376deab5e631af512c6fa56d98 at {folder}/ARTIFACT.yaml:7")),
        *[(name, "skipped", f"{name}:1: {refused}")
          for name in ("epistemic.md", "overview.md", "reconciliation.md", "runtime.md", "ARTIFACT.yaml")]]
