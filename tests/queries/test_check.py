"""``check``: the set rules of GRAMMAR §2.2 and record rules of §4 on the stored graph, plus the
problems only files show; each code fires on a minimal bad set and is silent on the good ones."""

from __future__ import annotations


import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from graph.model import Label
from queries.validation import CODES, check
from tests.analysis_sets import (
    DC_ARCHIVE,
    DC_RETAINED,
    DYNAMIC_CHEATSHEET,
    G2,
    G4,
    G4_SET,
    KB,
    copy_set,
    edit,
    load,
    repin,
    stage,
)
from tests.conftest import CORPUS, SEEDS

runner = CliRunner()


def check_paths(*paths):
    """What ``citegraph check PATH…`` reports."""
    store, problems = stage(*paths)
    return check(store, problems=problems)


def codes(report) -> set[str]:
    return {f.code for f in report.findings}


# -- good sets are silent ---------------------------------------------------------------------


def test_dynamic_cheatsheet_has_no_finding():
    report = check(load(*DYNAMIC_CHEATSHEET))
    assert (report.errors, report.warnings, report.findings) == (0, 0, ())


@pytest.mark.parametrize("folder", [G2, G4], ids=["g2", "g4"])
def test_hand_written_generations_have_no_finding(folder):
    assert check_paths(folder).findings == ()
    assert check(load(folder)).findings == ()


def test_seeds_keep_their_warnings_only():
    report = check(load(SEEDS, *DYNAMIC_CHEATSHEET))
    assert report.errors == 0
    assert {f.code for f in report.findings} == {"undeclared-record", "unresolved-reference"}
    assert {f.set for f in report.findings} == {"tolaria", "talorys"}


def test_check_of_one_set():
    store = load(SEEDS, G4)
    assert check(store, set_id=G4_SET).findings == ()
    assert check(store, set_id="tolaria").warnings > 0


# -- each code on a minimal bad set -----------------------------------------------------------


def add_runtime_prose(folder, text: str) -> None:
    edit(folder, "runtime.md", "[SRC-1: `src/store.ts`].\n", f"[SRC-1: `src/store.ts`]. {text}\n")


STATUS_LINE = "- operation conclusion status: uninspected\n"

def rename_record(folder: Path, name: str, old: str, new: str) -> None:
    """Rename record ``old`` to ``new`` in member ``name`` of ``folder``: both places it is written
    (its declaring heading and the label of the one link to it) and that link's anchor."""
    edit(folder, name, old, new, count=2)
    edit(folder, name, f"#{old.lower()}", f"#{new.lower()}")


G4_CASES = {
    "duplicate-declaration": (lambda f: edit(f, "epistemic.md", "- Source: [SRC-1: `README.md`]\n",
                                             "- Source: [SRC-1: `README.md`]\n\n#### EPI-CLM-fast\n\nLabel: Again\n"),
                              "epistemic.md", 43),
    "wrong-prefix": (lambda f: rename_record(f, "epistemic.md", "EPI-CLM-fast", "RT-CLM-fast"), "epistemic.md", 36),
    "annotates-own-record": (lambda f: edit(f, "memory.md", "#### On [RT-RTE-index-write](runtime.md#rt-rte-index-write)",
                                            "#### On [MEM-OBJ-index](#mem-obj-index)"), "memory.md", 68),
    "malformed-id": (lambda f: add_runtime_prose(f, "RT-RTE-Bad is not an ID."), "runtime.md", 12),
    "source-range": (lambda f: add_runtime_prose(f, "See SRC-1-3."), "runtime.md", 12),
    "status-value": (lambda f: edit(f, "runtime.md", STATUS_LINE, "- operation conclusion status: wired; observed\n"),
                     "runtime.md", 55),
    "status-duplicate": (lambda f: edit(f, "runtime.md", STATUS_LINE, "- implementation conclusion status: wired\n"),
                         "runtime.md", 55),
    "status-missing": (lambda f: edit(f, "runtime.md", "- implementation conclusion status: wired\n" + STATUS_LINE, ""),
                       "runtime.md", 49),
    "route-field-missing": (lambda f: edit(f, "runtime.md", "- Evidence limits: source only.\n", ""), "runtime.md", 49),
    "route-field-duplicate": (lambda f: edit(f, "runtime.md", "- Selection predicate: every write.\n",
                                             "- Selection predicate: every write.\n- Selection predicate: again.\n"),
                              "runtime.md", 60),
    "route-field-reason": (lambda f: edit(f, "runtime.md", "inapplicable — notes never expire.", "inapplicable"),
                           "runtime.md", 60),
    "misplaced-declaration": (lambda f: edit(f, "runtime.md", "[SRC-1: `src/store.ts`].\n",
                                             "[SRC-1: `src/store.ts`].\n\n#### RT-OBJ-store — Again\n"),
                              "runtime.md", 14),
    "malformed-table-row": (lambda f: edit(f, "overview.md", " | Whether search is instant. | Run traces. |\n", "\n"),
                            "overview.md", 26),
    "part-of-malformed": (lambda f: edit(f, "memory.md", "Part of: [RT-OBJ-store](runtime.md#rt-obj-store)",
                                         "Part of: `RT-OBJ-store`"), "memory.md", 30),
    "part-of-self": (lambda f: edit(f, "memory.md", "Part of: [RT-OBJ-store](runtime.md#rt-obj-store)",
                                    "Part of: [MEM-OBJ-index](#mem-obj-index)"), "memory.md", 30),
    "dangling-record-citation": (lambda f: add_runtime_prose(f, "[RT-OBJ-gone](#rt-obj-gone) is cited."),
                                 "runtime.md", 12),
    "link-target": (lambda f: edit(f, "overview.md", "[MEM-OBJ-index](memory.md#mem-obj-index)",
                                   "[MEM-OBJ-index](runtime.md#mem-obj-index)"), "overview.md", 20),
    "link-label": (lambda f: edit(f, "overview.md", "through [RT-RTE-index-write](runtime.md#rt-rte-index-write)",
                                  "through [RT-OBJ-store](runtime.md#rt-rte-index-write)"), "overview.md", 20),
    "dangling-source-citation": (lambda f: add_runtime_prose(f, "Also (SRC-9)."), "runtime.md", 12),
    "pin-mismatch": (lambda f: edit(f, "runtime.md", "Notes are written", "Notes are Written", pin=False),
                     "runtime.md", 0),
    "run-id-mismatch": (lambda f: edit(f, "runtime.md", "run-id: AAS-2026-10-10-fixture-four-01",
                                       "run-id: AAS-2026-10-10-fixture-four-02"), "runtime.md", 4),
    "boundary-mismatch": (lambda f: edit(f, "epistemic.md", 'reviewed-boundary: "0123456789abcdef',
                                         'reviewed-boundary: "f123456789abcdef'), "epistemic.md", 5),
    "amendment-index": (lambda f: edit(f, "overview.md", "records: MEM-RTE-reindex, RT-OBJ-blob;",
                                       "records: MEM-RTE-reindex;"), "overview.md", 30),
    "unresolved-reference": (lambda f: edit(f, "overview.md", "[boundary](boundary.md))",
                                            "[boundary notes](boundary.md#notes))"), "overview.md", 20),
    "unattributed-quotation": (lambda f: add_runtime_prose(f, "\n> a quotation without attribution\n"),
                               "runtime.md", 13),
}


@pytest.mark.parametrize("code", sorted(G4_CASES))
def test_each_rule_fires_on_a_minimal_bad_set(code, tmp_path):
    mutate, file, line = G4_CASES[code]
    folder = copy_set(G4, tmp_path / "g4")
    mutate(folder)
    report = check_paths(folder)
    assert codes(report) == {code}, [f.message for f in report.findings]
    (finding,) = [f for f in report.findings if f.code == code][:1]
    assert (finding.file, finding.line, finding.severity, finding.set) == (
        str(folder / file), line, CODES[code][0], G4_SET)
    assert (report.errors > 0) == (CODES[code][0] == "error")


def test_a_table_row_of_too_few_cells_and_no_closing_pipe_is_named_with_its_counts(tmp_path):
    """The row is kept as the table rule reads it (padded to the header's five cells) and reported."""
    folder = copy_set(G4, tmp_path / "g4")
    edit(folder, "overview.md", " | Whether search is instant. | Run traces. |\n", "\n")
    edit(folder, "boundary.md", " | none |\n", " | none | extra |\n")
    report = check_paths(folder)
    assert [(f.code, f.severity, f.file, f.line, f.message) for f in report.findings] == [
        ("malformed-table-row", "warning", str(folder / "boundary.md"), 24,
         "table row has 9 cells where the header has 8: every row ends with `|` and has as many cells as its header"),
        ("malformed-table-row", "warning", str(folder / "overview.md"), 26,
         "table row has 3 cells where the header has 5, and no closing `|`: every row ends with `|` and has as many "
         "cells as its header")]
    store, _ = stage(folder)
    (row,) = [n for n in store.find_nodes(Label.STATEMENT, set_id=G4_SET)
              if n.get("kind") == "table_row" and n.get("table") == "limitations"]
    assert row.get("cells") == ["No run was observed.", "SRC-1; RT-RTE-index-write", "Source only.", "", ""]


def test_a_declaration_heading_outside_shared_records_is_named_and_its_citations_still_dangle(tmp_path):
    """The new user's form: `#### RT-OBJ-outside — …` under `### Fetching` of `## Runtime account`
    declares nothing; the heading and the statement under it cite the record, which nothing declares."""
    folder = copy_set(G4, tmp_path / "g4")
    edit(folder, "runtime.md", "[SRC-1: `src/store.ts`].\n",
         "[SRC-1: `src/store.ts`].\n\n### Fetching\n\n#### RT-OBJ-outside — Declared outside Shared records\n\n"
         "The outside object is read first.\n")
    report = check_paths(folder)
    assert [(f.code, f.severity, f.line, f.message) for f in report.findings] == [
        ("dangling-record-citation", "error", 16,
         "RT-OBJ-outside is cited (2 citations) but the runtime member does not declare it"),
        ("misplaced-declaration", "warning", 16,
         "declaration heading 'RT-OBJ-outside — Declared outside Shared records' is outside `## Shared records`, "
         "so it does not declare RT-OBJ-outside; it only cites it")]


def test_a_dangling_citation_names_the_member_by_its_role_however_it_is_cited(tmp_path):
    """A link naming runtime.md and a bare citation whose prefix names the runtime member: one wording."""
    folder = copy_set(G4, tmp_path / "g4")
    add_runtime_prose(folder, "RT-OBJ-bare is cited bare.")
    edit(folder, "overview.md", "through [RT-RTE-index-write](runtime.md#rt-rte-index-write)",
         "through [RT-RTE-index-write](runtime.md#rt-rte-index-write) and [RT-RTE-gone](runtime.md#rt-rte-gone)")
    report = check_paths(folder)
    assert [(f.file, f.line, f.message) for f in report.findings if f.code == "dangling-record-citation"] == [
        (str(folder / "overview.md"), 20, "RT-RTE-gone is cited but the runtime member does not declare it"),
        (str(folder / "runtime.md"), 12, "RT-OBJ-bare is cited but the runtime member does not declare it")]


def test_record_range_and_numeric_routes_in_g2(tmp_path):
    folder = copy_set(G2, tmp_path / "g2")
    edit(folder, "runtime.md", "The journal consolidates into facts.", "RTE-3 through RTE-4 consolidate.")
    report = check_paths(folder)
    assert [(f.code, f.severity, f.line) for f in report.findings] == [("record-range", "warning", 14)]


def test_annotation_statuses_are_checked_like_declaration_statuses(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    edit(folder, "memory.md", "- Write agency, curation, trace learning and source: automatic.\n",
         "- Write agency, curation, trace learning and source: automatic.\n"
         "- implementation conclusion status: uninspected, no supplied benchmark result\n"
         "- operation conclusion status: wired; observed\n")
    report = check_paths(folder)
    assert [(f.code, f.severity, f.line) for f in report.findings] == [("status-value", "error", 73)]
    assert "annotation on RT-RTE-index-write: operation conclusion status 'wired; observed'" in report.findings[0].message
    store, _ = stage(folder)
    (qualified,) = [n for n in store.find_nodes(Label.STATEMENT, set_id=G4_SET) if n.get("line") == 72]
    assert qualified.get("statuses") == [["implementation conclusion status", "uninspected",
                                          "no supplied benchmark result"]]


def test_unpinned_member(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    (folder / "profile-verification.md").write_bytes((folder / "record-verification.md").read_bytes())
    report = check_paths(folder)
    assert [(f.code, f.file, f.line) for f in report.findings] == [
        ("unpinned-member", str(folder / "profile-verification.md"), 0)]


def test_manifest_missing_member(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    (folder / "record-verification.md").unlink()
    report = check_paths(folder)
    assert [(f.code, f.severity, f.file, f.line) for f in report.findings] == [
        ("manifest-missing-member", "error", str(folder / "ARTIFACT.yaml"), 22),
        ("unresolved-reference", "warning", str(folder / "overview.md"), 33)]


def test_undeclared_record_when_its_member_is_absent(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    (folder / "epistemic.md").unlink()
    text = (folder / "ARTIFACT.yaml").read_text()
    (folder / "ARTIFACT.yaml").write_text(text.replace(text[text.index("  epistemic.md:"):text.index("  reconciliation.md:")], ""))
    edit(folder, "overview.md", "Writes go through", "EPI-CLM-fast aside, writes go through")
    report = check_paths(folder)
    assert [(f.code, f.severity, f.line) for f in report.findings] == [
        ("undeclared-record", "warning", 20), ("unresolved-reference", "warning", 32)]


def test_run_id_mismatch_of_a_pinned_member_joins_the_manifests_set(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    G4_CASES["run-id-mismatch"][0](folder)
    store, problems = stage(folder)
    assert problems == ()
    assert {d.set_id for d in store.find_nodes(Label.DOCUMENT)} == {G4_SET}


# -- problems only the files show -------------------------------------------------------------


@pytest.mark.parametrize("name, old, new, code, line", [
    ("memory.md", 'description: "Fixture memory report of a G4 set"', "description: a: b", "malformed-frontmatter", 3),
    ("runtime.md", "agentic-system-runtime-report.md", "agentic-system-runtime-notes.md", "unknown-member-type", 2),
    ("runtime.md", "# fixture-four runtime report\n", "", "parse-error", 9),  # the first text after the frontmatter
    ("ARTIFACT.yaml", "  runtime.md:\n    sha256: ", "  runtime.md:\n    sha256: 12", "malformed-manifest", 12),
])
def test_parse_time_problems_are_findings(tmp_path, name, old, new, code, line):
    folder = copy_set(G4, tmp_path / "g4")
    edit(folder, name, old, new, pin=False)
    report = check_paths(folder)
    found = [(f.code, f.file, f.line, f.set) for f in report.findings if f.code == code]
    assert found == [(code, str(folder / name), line, "" if code == "malformed-manifest" else G4_SET)]
    assert report.errors >= 1


def test_pin_mismatch_is_reported_even_when_the_member_does_not_parse(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    edit(folder, "runtime.md", "reviewed-boundary:", "reviewed-boundary: : :", pin=False)
    report = check_paths(folder)
    assert {(f.code, f.file) for f in report.findings} >= {
        ("pin-mismatch", str(folder / "runtime.md")), ("malformed-frontmatter", str(folder / "runtime.md"))}


def test_an_unparsable_member_in_another_folder_is_refused_not_missing(tmp_path):
    retained = copy_set(DC_RETAINED, tmp_path / "retained")
    archive = copy_set(DC_ARCHIVE, tmp_path / "archive")
    edit(archive, "runtime.md", "\ntype:", "\nbad: a: b\ntype:", pin=False)
    report = check_paths(retained, archive)
    assert [(f.code, f.file, f.line) for f in report.findings if f.severity == "error"] == [
        ("pin-mismatch", str(archive / "runtime.md"), 0),
        ("malformed-frontmatter", str(archive / "runtime.md"), 2)]


def test_duplicate_member(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    (folder / "runtime-copy.md").write_bytes((folder / "runtime.md").read_bytes())
    report = check_paths(folder)
    assert [(f.code, f.file) for f in report.findings] == [("duplicate-member", str(folder / "runtime-copy.md"))]


def test_flipped_byte_in_the_real_set_is_a_pin_mismatch(tmp_path):
    retained = copy_set(DC_RETAINED, tmp_path / "retained")
    archive = copy_set(DC_ARCHIVE, tmp_path / "archive")
    data = bytearray((archive / "memory.md").read_bytes())
    data[1000] ^= 0x01
    (archive / "memory.md").write_bytes(bytes(data))
    report = check_paths(retained, archive)
    assert [(f.code, f.file, f.line) for f in report.findings] == [("pin-mismatch", str(archive / "memory.md"), 0)]
    assert report.findings[0].message.endswith(f"at {retained / 'ARTIFACT.yaml'}:7")  # the pin's line, as ingest says
    repin(archive, "memory.md", retained)
    assert check_paths(retained, archive).findings == ()


# -- the command line -------------------------------------------------------------------------


def test_cli_ingest_then_check_prints_zero_errors(tmp_path):
    home = str(tmp_path / "home")
    result = runner.invoke(cli, ["ingest", *map(str, DYNAMIC_CHEATSHEET), "--home", home])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["check", "--home", home])
    assert result.exit_code == 0 and result.stdout.strip().endswith("0 errors, 0 warnings")
    result = runner.invoke(cli, ["check", "--json", "--set", "AAS-2026-10-04-dynamic-cheatsheet-01", "--home", home])
    assert json.loads(result.stdout) == {"errors": 0, "warnings": 0, "skipped": 0, "findings": []}


def test_cli_check_paths_exits_1_on_a_pin_mismatch(tmp_path):
    folder = copy_set(G4, tmp_path / "g4")
    edit(folder, "memory.md", "Notes and their index only.", "Notes and their index.", pin=False)
    home = str(tmp_path / "home")
    result = runner.invoke(cli, ["check", str(folder), "--home", home])
    assert result.exit_code == 1
    assert f"{folder / 'memory.md'}:1: error: [pin-mismatch]" in result.stdout  # a whole file's finding: line 1
    assert not (tmp_path / "home").exists()  # nothing was ingested
    result = runner.invoke(cli, ["ingest", str(folder), "--home", home])
    assert result.exit_code == 65 and f"{folder / 'memory.md'}:1: SHA-256 " in result.output  # ingest says so too


@pytest.mark.parametrize("folder", ["types", "text", "empty"])
def test_cli_check_of_a_folder_without_members_says_so(tmp_path, folder):
    """As ingest says it: at the first file skipped, with its reason; a folder of no file by name."""
    path = KB / "types" if folder == "types" else tmp_path / folder
    path.mkdir(exist_ok=True)
    if folder == "text":
        (path / "a.txt").write_text("hi\n")
    result = runner.invoke(cli, ["check", str(path), "--home", str(tmp_path / "home")])
    assert result.exit_code == 65
    first = {"types": f"{path / 'agent-memory-analysis-report.md'}:1: no analysis-set members found in the input; "
                      "a type definition of the format (type 'types/type-spec.md') (and 27 more files skipped)",
             "text": f"{path / 'a.txt'}:1: no analysis-set members found in the input; no analysis document: no line "
                     "of its first 4 starts with `Type:` (a plain-text member names its type there)",
             "empty": f"no analysis-set members found in the input: {path}"}[folder]
    assert result.stderr.splitlines()[0] == f"error: {first}"
    assert "0 errors" not in result.output
    if folder != "empty":
        ingested = runner.invoke(cli, ["ingest", str(path), "--home", str(tmp_path / "home")])
        assert ingested.exit_code == 65 and ingested.stderr.splitlines()[-2:] == result.stderr.splitlines()[-2:]


def test_cli_ingest_of_the_whole_corpus(tmp_path):
    home = str(tmp_path / "home")
    result = runner.invoke(cli, ["ingest", str(CORPUS), "--json", "--home", home])
    assert result.exit_code == 0, result.output
    # the five G1 results' runs, and four runs known only by their September review (dualgraph, jaz-evals,
    # mem0-04, napkin-03: kb/agentic-systems/reviews/*.md, frontmatter `analysis-run`)
    assert sorted(json.loads(result.stdout)["sets"]) == [
        "AAS-2026-09-21-supermemory-01", "AAS-2026-09-25-aide2-01", "AAS-2026-09-25-dualgraph-01",
        "AAS-2026-09-25-fragility-grid-01", "AAS-2026-09-26-jaz-evals-01", "AAS-2026-09-26-mem0-01",
        "AAS-2026-09-26-napkin-03", "AAS-2026-09-27-mem0-04", "AAS-2026-09-27-napkin-02",
        "AAS-2026-09-30-instinctual-memory-02", "AAS-2026-10-01-instinctual-memory-01",
        "AAS-2026-10-02-instinctual-memory-01", "AAS-2026-10-04-dynamic-cheatsheet-01", "talorys", "tolaria"]
    assert runner.invoke(cli, ["check", "--home", home]).exit_code == 0


def test_every_code_is_documented():
    tested_elsewhere = {"record-range", "unpinned-member", "manifest-missing-member", "undeclared-record",
                        "unaccounted-record-id",  # tests/ingest/test_forms.py
                        "result-digest-mismatch"}  # tests/ingest/test_knowledge_base.py
    assert set(G4_CASES) | tested_elsewhere == set(CODES)
