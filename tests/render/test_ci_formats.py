"""``impact`` and ``check`` in the formats CI reads (render.ci): SARIF 2.1.0 validated against the
vendored schema (tests/fixtures/sarif/NOTICE.md), JUnit XML and GitHub annotations, on the seeds and
the impact test repository (tests/impact_repo.py), from c0 to c3: a quoted guard moved out of vault.js."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from typer.testing import CliRunner

from app.cli import cli
from ingest.git import GitRepository
from queries.impact import impact_of
from queries.validation import check
from render import ci
from tests.conftest import CORPUS, ROOT, SEEDS
from tests.impact_repo import ImpactRepo, build_impact_repo

SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "sarif" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
SYNTHESIS = "seeds/000_a3dd65b871acf2aa.txt"
WORKFLOW = "seeds/001_12342d341e774cc9.txt"
runner = CliRunner()


def valid_sarif(text: str) -> dict:
    log = json.loads(text)
    jsonschema.Draft202012Validator(SCHEMA).validate(log)
    return log


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> ImpactRepo:
    return build_impact_repo(tmp_path_factory.mktemp("ci") / "tolaria")


@pytest.fixture(scope="module")
def report(built, seeds_store):
    return impact_of(seeds_store, GitRepository(built.path), to_revision=built["c3"], from_revision=built["c0"],
                     set_id="tolaria")


def test_impact_sarif_validates_and_names_each_suspect_statements_line(report):
    log = valid_sarif(ci.impact_sarif(report, base=CORPUS, tool_version="0.1.0"))
    run = log["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["suspect-conclusion", "suspect-statement"]
    assert "citegraph review NODE --at REV" in run["tool"]["driver"]["rules"][0]["help"]["text"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == CORPUS.resolve().as_uri() + "/"
    results = run["results"]
    statements = [s for s in report.suspects if s.kind == "statement"]
    assert len(results) == len(statements) == 13
    where = [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results]
    assert where == [(("suspect-conclusion" if s.conclusion else "suspect-statement"),
                      SYNTHESIS if s.document == "tolaria/synthesis" else WORKFLOW, s.line) for s in statements]
    # the first: 000_a3dd65b871acf2aa.txt line 11, "The representative workflow is revision …", a synthesis
    # conclusion resting on vault.js through the workflow account (001_12342d341e774cc9.txt lines 5, 7, 11)
    first = results[0]
    assert (first["ruleId"], first["level"], where[0]) == ("suspect-conclusion", "error",
                                                           ("suspect-conclusion", SYNTHESIS, 11))
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
    assert first["message"]["text"].startswith("Conclusion tolaria/synthesis#L11 rests on modified "
                                               "mcp-server/vault.js (2 steps): The representative workflow")
    assert first["codeFlows"][0]["message"]["text"] == (
        "tolaria/synthesis#L11 → tolaria/ref/workflow-account → tolaria/workflow-report#L5 → "
        "tolaria/workflow-report#L7 → tolaria/workflow-report#L11 → tolaria/file/mcp-server/vault.js")
    steps = first["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [s["location"]["message"]["text"] for s in steps] == [
        "tolaria/synthesis#L11 → tolaria/ref/workflow-account", "tolaria/workflow-report#L5",
        "tolaria/workflow-report#L7", "tolaria/workflow-report#L11 → tolaria/file/mcp-server/vault.js"]
    placed = [(s["location"]["physicalLocation"]["artifactLocation"]["uri"],
               s["location"]["physicalLocation"]["region"]["startLine"]) for s in steps]
    assert placed == [(SYNTHESIS, 11), (WORKFLOW, 5), (WORKFLOW, 7), (WORKFLOW, 11)]
    assert run["properties"]["unlocated"] == []
    assert [r["message"]["text"] for r in first["relatedLocations"]] == [
        "tolaria/workflow-report#L5 (on the explanation path)", "tolaria/workflow-report#L7 (on the explanation path)",
        "tolaria/workflow-report#L11 (on the explanation path)"]
    assert run["properties"]["suspects"]["statements"] == 13


def test_a_file_outside_the_base_keeps_its_absolute_uri(report, tmp_path):
    log = valid_sarif(ci.impact_sarif(report, base=tmp_path))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (SEEDS / "000_a3dd65b871acf2aa.txt").resolve().as_uri()}


def test_impact_junit_fails_each_suspect_statement_and_each_drifted_quotation(report):
    root = ET.fromstring(ci.impact_junit(report, base=CORPUS))
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    # 13 suspect statements, no reviews, 4 quotations (001_12342d341e774cc9.txt lines 31, 39, 51, 61) of which
    # the vault.js guard (39) moved (c3) and the 'done' status line (61) broke (c2)
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == ("impact tolaria", "17", "15")
    assert (cases[0].get("name"), cases[0].get("file"), cases[0].get("line")) == ("tolaria/synthesis#L11", SYNTHESIS, "11")
    assert cases[0].find("failure").get("type") == "suspect-conclusion"
    quotations = [(c.get("name"), c.find("failure") is not None) for c in cases if c.get("classname") == "tolaria.quotations"]
    assert [q for q, failed in quotations if failed] == ["tolaria/workflow-report#Q39", "tolaria/workflow-report#Q61"]
    assert len(quotations) == 4


def test_impact_annotations_one_line_per_suspect_statement(report):
    lines = ci.impact_annotations(report, base=CORPUS).splitlines()
    assert len(lines) == 13
    assert lines[0].startswith(f"::error file={SYNTHESIS},line=11,title=citegraph suspect-conclusion%3A "
                               "tolaria/synthesis#L11::Conclusion tolaria/synthesis#L11 rests on modified mcp-server/vault.js")
    assert "%0Avia tolaria/synthesis#L11 → tolaria/ref/workflow-account" in lines[0]
    assert sum(line.startswith("::warning ") for line in lines) == sum(
        not s.conclusion for s in report.suspects if s.kind == "statement")


def test_annotation_escapes_as_the_workflow_commands_docs_say():
    assert ci.annotation("warning", "100% sure\r\nreally", file="a:b,c.md", line=7, title="t, u") == (
        "::warning file=a%3Ab%2Cc.md,line=7,title=t%2C u::100%25 sure%0D%0Areally")
    assert ci.annotation("notice", "plain") == "::notice::plain"


def test_check_formats_one_entry_per_finding(seeds_store):
    report = check(seeds_store)
    assert (report.errors, report.warnings, len(report.findings)) == (0, 74, 74)
    log = valid_sarif(ci.check_sarif(report, base=CORPUS))
    results = log["runs"][0]["results"]
    assert len(results) == 74 and {r["level"] for r in results} == {"warning"}
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert set(rules) == {f.code for f in report.findings}
    first = report.findings[0]
    assert results[0]["ruleId"] == first.code
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == first.line
    junit = ET.fromstring(ci.check_junit(report, base=CORPUS))
    assert (junit.get("tests"), junit.get("failures")) == ("74", "0")
    assert len(ci.check_annotations(report, base=CORPUS).splitlines()) == 74


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("ci-home") / "home"
    result = runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home


def test_cli_impact_sarif_keeps_the_exit_codes(built, home, report):
    common = ["impact", "--repo", str(built.path), "--set", "tolaria", "--from", built["c0"], "--home", str(home),
              "--base", str(CORPUS), "--fail-on-suspect"]
    flagged = runner.invoke(cli, [*common, "--to", built["c3"], "--format", "sarif"])
    assert flagged.exit_code == 1, flagged.output
    got = valid_sarif(flagged.stdout)
    assert got["runs"][0]["results"] == json.loads(ci.impact_sarif(report, base=CORPUS))["runs"][0]["results"]
    clean = runner.invoke(cli, [*common, "--to", built["c1"], "--format", "github"])
    assert (clean.exit_code, clean.stdout) == (0, "")
    refused = runner.invoke(cli, [*common, "--to", built["c1"], "--format", "junit", "--json"])
    assert refused.exit_code == 2


def test_cli_check_formats(home):
    got = runner.invoke(cli, ["check", "--home", str(home), "--base", str(CORPUS), "--format", "junit"])
    assert got.exit_code == 0, got.output
    assert ET.fromstring(got.stdout).get("tests") == "74"
    assert runner.invoke(cli, ["check", "--home", str(home), "--format", "csv"]).exit_code == 2


def test_check_errors_fail_in_every_format(tmp_path):
    """A Dynamic Cheatsheet copy with a status outside the vocabulary (runtime.md lines 81, 100, 118,
    134, 150, 168, 186 and 204, ``implementation conclusion status: wired``, made ``wirde`` and re-pinned) and an edit that is not
    re-pinned (epistemic.md's 17 ``# ``): errors in every format, through ``check PATHS`` as CI would run it."""
    from tests.analysis_sets import DC_ARCHIVE, DC_RETAINED, copy_set, edit

    retained = copy_set(DC_RETAINED, tmp_path / "retained" / "dynamic-cheatsheet")
    archive = copy_set(DC_ARCHIVE, tmp_path / "archive" / DC_ARCHIVE.name)
    runtime = (archive / "runtime.md").read_text(encoding="utf-8")
    line = runtime.splitlines().index("- implementation conclusion status: wired") + 1
    assert line == 81
    edit(archive, "runtime.md", "- implementation conclusion status: wired\n",
         "- implementation conclusion status: wirde\n", count=runtime.count("- implementation conclusion status: wired\n"),
         manifest_folder=retained)
    edit(archive, "epistemic.md", "# ", "#  ", pin=False, count=17)
    common = ["check", str(retained), str(archive), "--base", str(tmp_path)]
    sarif = runner.invoke(cli, [*common, "--format", "sarif"])
    assert sarif.exit_code == 1, sarif.output
    results = valid_sarif(sarif.stdout)["runs"][0]["results"]
    errors = [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
               r["locations"][0]["physicalLocation"].get("region", {}).get("startLine"))
              for r in results if r["level"] == "error"]
    runtime_uri = f"archive/{DC_ARCHIVE.name}/runtime.md"
    assert [e for e in errors if e[0] == "status-value"] == [
        ("status-value", runtime_uri, n) for n in (81, 100, 118, 134, 150, 168, 186, 204)]
    assert ("pin-mismatch", f"archive/{DC_ARCHIVE.name}/epistemic.md", 1) in errors  # the whole file: line 1
    github = runner.invoke(cli, [*common, "--format", "github"])
    assert github.exit_code == 1
    assert any(a.startswith(f"::error file=archive/{DC_ARCHIVE.name}/runtime.md,line={line},title=citegraph "
                            "status-value::") for a in github.stdout.splitlines())
    junit = ET.fromstring(runner.invoke(cli, [*common, "--format", "junit"]).stdout)
    assert int(junit.get("failures")) == len(errors) >= 2
