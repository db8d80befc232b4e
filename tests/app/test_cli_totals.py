"""The command line's total lines say what happened, in words that agree with their numbers: the
sets a re-ingest touched, singular nouns for one, a whole file's finding at line 1 (as ingest
says it), a text report ending with a newline, and a refused set's manifest named."""

from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

from app.cli import cli
from tests.analysis_sets import IM01, IM01_SET
from tests.conftest import SEED_SYNTHESIS, SEEDS

runner = CliRunner()


def run(*args: str):
    return runner.invoke(cli, list(args))


def test_an_unchanged_re_ingest_names_the_sets_it_touched(tmp_path):
    home = str(tmp_path / "home")
    assert run("ingest", str(SEEDS), "--home", home).exit_code == 0
    again = run("ingest", str(SEEDS), "--home", home)
    assert again.exit_code == 0
    assert again.stdout.splitlines()[-1].startswith(
        "3 documents in 2 sets: 0 written, 3 unchanged, 0 skipped; 0 sections, 0 statements, 0 records, 0 citations (")


def test_one_of_a_kind_is_singular_on_every_total_line(tmp_path):
    """One seed: tolaria/synthesis, 5 sections, 24 statements, 22 records, 82 citations (as the seeds'
    ingest table shows them)."""
    home = str(tmp_path / "home")
    ingested = run("ingest", str(SEED_SYNTHESIS), "--home", home)
    assert ingested.stdout.splitlines()[-1].startswith(
        "1 document in 1 set: 1 written, 0 unchanged, 0 skipped; 5 sections, 24 statements, 22 records, 82 citations (")
    assert run("sets", "--home", home).stdout.splitlines()[-1] == "1 set, 1 document"
    assert run("documents", "--home", home).stdout.splitlines()[-1] == "1 document"


def test_check_paths_names_a_skipped_file_at_line_1_as_ingest_does(tmp_path):
    folder = tmp_path / "seeds"
    shutil.copytree(SEEDS, folder)
    (folder / "placeholder.md").write_bytes(b"")
    checked = run("check", str(folder), "--home", str(tmp_path / "home"))
    assert f"{folder / 'placeholder.md'}:1: skipped: [not-a-document] no analysis document: an empty file" \
        in checked.stdout.splitlines()
    assert checked.stdout.splitlines()[-1].endswith(", 1 file skipped")
    strict = run("ingest", str(folder), "--strict", "--home", str(tmp_path / "home"))
    assert f"error: {folder / 'placeholder.md'}:1: no analysis document: an empty file" in strict.stderr


def test_a_text_report_ends_with_one_newline(tmp_path):
    """Each report's last item (the set's record index ends with RT-RTE-workspace-send, the
    rests-on report and the dossier with the row of tolaria/synthesis#L29) and one newline."""
    home = str(tmp_path / "home")
    run("ingest", str(SEEDS), "--home", home)
    row = "[direct] row “Transcript retention and file updates lack established crash/concurrency guarantees.”: " \
          "cites RT-RTE-mcp-write\n"
    for args, end in ((("--set", "tolaria"), "tolaria/synthesis#L27, tolaria/synthesis#L28).\n"),
                      (("--rests-on", "RT-RTE-mcp-write"), "\n\n" + row), (("--record", "RT-RTE-mcp-write"), "\n\n" + row)):
        text = run("render", *args, "--format", "txt", "--home", home).stdout
        assert text.endswith(end) and not text.endswith("\n\n"), args


def test_a_refused_sets_manifest_is_listed_with_skip_invalid(tmp_path):
    """A set copied without memory.md (pinned at ARTIFACT.yaml:7) is refused whole, its manifest too."""
    copied = tmp_path / "copied"
    shutil.copytree(IM01, copied)
    (copied / "memory.md").unlink()
    result = run("ingest", str(copied), "--skip-invalid", "--json", "--home", str(tmp_path / "home"))
    assert result.exit_code == 0, result.output
    refused = f"set {IM01_SET} was refused as a whole"
    assert [(d["path"], d["status"], d["error"]) for d in json.loads(result.stdout)["documents"]] == [
        (str(copied / "memory.md"), "skipped",
         f"{copied / 'ARTIFACT.yaml'}:7: the manifest pins memory.md, which is not among the inputs"),
        *[(str(copied / name), "skipped", f"{copied / name}:1: {refused}")
          for name in ("epistemic.md", "overview.md", "reconciliation.md", "runtime.md", "ARTIFACT.yaml")]]
    table = run("ingest", str(copied), "--skip-invalid", "--home", str(tmp_path / "home"))
    assert table.stdout.splitlines()[-1].startswith(
        "5 documents in 0 sets: 0 written, 0 unchanged, 5 skipped; 0 sections, 0 statements, 0 records, 0 citations; "
        "6 files: 1 manifest (")
    assert f"skipped {copied / 'ARTIFACT.yaml'}: {copied / 'ARTIFACT.yaml'}:1: {refused}" in table.stderr.splitlines()
