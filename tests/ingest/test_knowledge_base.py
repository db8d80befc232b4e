"""The whole knowledge base in one ingest: every file accounted for, September reviews in their run's
set with their pinned result checked, G0 prototype files in their folder's run.

Counts come from the files themselves (``find corpus/commonplace/kb -type f``, and the lines cited).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from graph.errors import IngestError, ParseError
from graph.model import Label
from ingest.pipeline import ingest_paths, stage_paths
from queries.traversal import rests_on
from queries.validation import check
from tests.analysis_sets import COMMONPLACE, G1_RESULTS
from tests.conftest import ROOT, SEEDS

runner = CliRunner()

REVIEWS = COMMONPLACE / "agentic-systems" / "reviews"
G0 = ROOT / "tests" / "fixtures" / "g0"
G0_RUN = "AGS-2026-08-20-SWAMP-01"

SEPTEMBER = {  # review → its frontmatter `analysis-run` (line 5; dualgraph.md's JSON frontmatter: line 6)
    "aide2.md": "AAS-2026-09-25-aide2-01",
    "fragility-grid.md": "AAS-2026-09-25-fragility-grid-01",
    "dualgraph.md": "AAS-2026-09-25-dualgraph-01",
    "jaz-evals.md": "AAS-2026-09-26-jaz-evals-01",
    "napkin.md": "AAS-2026-09-26-napkin-03",
    "mem0.md": "AAS-2026-09-27-mem0-04",
}


def every_file(folder: Path) -> list[str]:
    """Every file under ``folder``, hidden ones too, as the test sees the folder (not the code), in
    path order (a folder's files before a sibling folder's whose name extends it)."""
    return [str(p) for p in sorted(Path(d) / n for d, _, names in os.walk(folder) for n in names)]


def test_the_kb_folder_names_every_one_of_its_59_files(store):
    files = every_file(COMMONPLACE)
    # 42 Markdown files, 14 `*.schema.yaml` in agentic-system-analyses/types/, 2 ARTIFACT.yaml and
    # retained-archive/.commonplace-validation-ignore
    assert (len(files), sum(f.endswith(".md") for f in files)) == (59, 42)
    report = ingest_paths(store, [COMMONPLACE])
    assert sorted(d.path for d in report.documents) == sorted(files)
    rows = {d.path: d for d in report.documents}
    assert Counter(d.status for d in report.documents) == {"written": 25, "manifest": 2, "skipped": 32}
    # types/: 14 type definitions (`type: types/type-spec.md`, line 2) and their 14 schemas;
    # instructions/: 3 notes (`type: types/note.md`, line 2); the hidden marker file
    assert Counter(d.reason for d in report.documents if d.status == "skipped") == {
        "type-definition": 28, "instruction": 3, "not-a-document": 1}
    assert all(d.note and d.error is None for d in report.documents if d.status == "skipped")
    assert rows[str(COMMONPLACE / "agentic-system-analyses" / "retained-archive" /
                    ".commonplace-validation-ignore")].note == "no analysis document: a hidden file"
    assert rows[str(COMMONPLACE / "agentic-system-analyses" / "types" / "generated-review.schema.yaml")].note == \
        "a type definition of the format (a schema)"
    assert rows[str(COMMONPLACE / "agentic-system-analyses" / "instructions" / "agentic-analysis-records.md")].note \
        == "an instruction of the format (type 'types/note.md')"
    assert [d.note for d in report.documents if d.status == "manifest"] == [
        "the manifest of set AAS-2026-10-04-dynamic-cheatsheet-01, pinning 6 members",
        "the manifest of set AAS-2026-10-01-instinctual-memory-01, pinning 5 members"]
    # the 19 members named before, the six September reviews besides them
    written = [d for d in report.documents if d.status == "written"]
    assert sum(d.document.endswith("/generated-review") for d in written) == 7
    assert len(report.sets) == 13


def test_file_mode_and_folder_mode_agree(tmp_path):
    """Each of the 59 files given by path, in the folder's order: the same answer, row for row."""
    from graph.stores.sqlite import SQLiteStore

    folder = ingest_paths(SQLiteStore(tmp_path / "a.sqlite"), [COMMONPLACE])
    one_by_one = ingest_paths(SQLiteStore(tmp_path / "b.sqlite"), [Path(f) for f in every_file(COMMONPLACE)])
    assert one_by_one == folder


def test_a_file_reached_twice_is_read_once_at_its_first_place(tmp_path):
    """The same folder twice, a folder and a file in it, and bash's ``DIR/**/*`` (``globstar``: each
    folder and each file below DIR, hidden ones left out, sorted in the C locale) read as DIR."""
    from graph.stores.sqlite import SQLiteStore
    from ingest.files import member_files

    synthesis = SEEDS / "000_a3dd65b871acf2aa.txt"
    assert member_files([SEEDS, synthesis, SEEDS]) == member_files([SEEDS]) == sorted(SEEDS.iterdir())
    assert member_files([synthesis, SEEDS]) == [synthesis, SEEDS / "001_12342d341e774cc9.txt",
                                                SEEDS / "003_68dfe0dcb1db1ebb.txt"]
    folder = ingest_paths(SQLiteStore(tmp_path / "a.sqlite"), [COMMONPLACE])
    globbed = sorted(str(p) for p in COMMONPLACE.glob("**/*") if not any(
        part.startswith(".") for part in p.relative_to(COMMONPLACE).parts))
    assert len(globbed) == 82  # 58 of the 59 files (not .commonplace-validation-ignore) and 24 folders
    assert ingest_paths(SQLiteStore(tmp_path / "b.sqlite"), [Path(p) for p in globbed]) == folder
    twice = ingest_paths(SQLiteStore(tmp_path / "c.sqlite"), [COMMONPLACE, COMMONPLACE / "agentic-systems", COMMONPLACE])
    assert twice == folder and len(twice.documents) == 59


def test_a_link_to_a_file_of_the_input_is_that_file(store, tmp_path):
    shutil.copytree(SEEDS, tmp_path / "seeds")
    (tmp_path / "seeds" / "zz-link.txt").symlink_to(tmp_path / "seeds" / "000_a3dd65b871acf2aa.txt")
    report = ingest_paths(store, [tmp_path / "seeds"])
    assert [(Path(d.path).name, d.status) for d in report.documents] == [
        ("000_a3dd65b871acf2aa.txt", "written"), ("001_12342d341e774cc9.txt", "written"),
        ("003_68dfe0dcb1db1ebb.txt", "written")]


def test_the_cli_reads_a_folder_and_a_file_in_it_once(tmp_path):
    result = runner.invoke(cli, ["ingest", str(SEEDS), str(SEEDS / "000_a3dd65b871acf2aa.txt"), str(SEEDS),
                                 "--home", str(tmp_path / "home")])
    assert result.exit_code == 0, result.output  # 65 before: "… are both document tolaria/synthesis"
    assert result.stdout.splitlines()[-1].startswith("3 documents in 2 sets: 3 written, 0 unchanged, 0 skipped;")


def test_strict_makes_each_skipped_file_an_error_and_writes_nothing(store):
    with pytest.raises(ParseError) as refused:
        ingest_paths(store, [COMMONPLACE], strict=True)
    assert refused.value.message == (
        "an instruction of the format (type 'types/note.md') (and 31 more problems)")
    assert refused.value.source.path == str(
        COMMONPLACE / "agentic-system-analyses" / "instructions" / "agentic-analysis-boundary.md")
    assert store.find_nodes(Label.DOCUMENT) == []
    report = ingest_paths(store, [COMMONPLACE], strict=True, skip_invalid=True)
    skipped = [d for d in report.documents if d.status == "skipped"]
    assert len(skipped) == 32 and all(d.error and d.reason is None for d in skipped)
    assert len(report.sets) == 13


def test_a_folder_of_type_definitions_alone_has_no_member_and_says_how_many_it_skipped(store):
    types = COMMONPLACE / "agentic-system-analyses" / "types"
    with pytest.raises(IngestError) as refused:
        ingest_paths(store, [types])
    assert refused.value.message == ("no analysis-set members found in the input; a type definition of the format "
                                     "(type 'types/type-spec.md') (and 27 more files skipped)")
    assert (refused.value.source.path, refused.value.source.line) == (str(types / "agent-memory-analysis-report.md"), 1)


def test_check_of_the_kb_folder_names_the_skipped_files(tmp_path):
    from graph.stores.sqlite import SQLiteStore

    staged = SQLiteStore(tmp_path / "staged.sqlite")
    problems = stage_paths(staged, [COMMONPLACE])
    report = check(staged, problems=problems)
    assert report.skipped == 32
    assert Counter(f.code for f in report.findings if f.severity == "skipped") == {
        "type-definition": 28, "instruction": 3, "not-a-document": 1}


@pytest.fixture
def reviews_and_results(store):
    ingest_paths(store, [REVIEWS, G1_RESULTS])
    return store


def test_each_september_review_is_a_document_of_its_runs_set(reviews_and_results):
    store = reviews_and_results
    documents = {d.get("path"): d for d in store.find_nodes(Label.DOCUMENT)}
    for name, run in SEPTEMBER.items():
        review = documents[str(REVIEWS / name)]
        assert (review.id, review.set_id, review.get("role")) == (f"{run}/generated-review", run, "generated-review")
    # AIDE2 and Fragility Grid review results that are ingested: the review joins the result's set
    for run in ("AAS-2026-09-25-aide2-01", "AAS-2026-09-25-fragility-grid-01"):
        assert sorted(d.get("role") for d in store.find_nodes(Label.DOCUMENT, set_id=run)) == [
            "generated-review", "result"]
    # the four others are sets of their own, named after their run
    for run in ("AAS-2026-09-25-dualgraph-01", "AAS-2026-09-26-jaz-evals-01", "AAS-2026-09-26-napkin-03",
                "AAS-2026-09-27-mem0-04"):
        assert [d.get("role") for d in store.find_nodes(Label.DOCUMENT, set_id=run)] == ["generated-review"]
    # dualgraph.md's frontmatter is JSON (lines 2-12), read as YAML; its H1 (line 15) is "DualGraph"
    assert documents[str(REVIEWS / "dualgraph.md")].get("title") == "DualGraph"


def test_a_review_keeps_its_result_link_and_pinned_digest(reviews_and_results):
    review = reviews_and_results.get_nodes(["AAS-2026-09-25-aide2-01/generated-review"])[
        "AAS-2026-09-25-aide2-01/generated-review"]
    # aide2.md lines 8-9
    assert review.get("analysis_result") == \
        "kb/reports/retained/agentic-system-analysis/AAS-2026-09-25-aide2-01/result.md"
    assert review.get("analysis_result_sha256") == "79a52919eaf48fccaf3e2445c5c52a628ce1dd4076df6ba3840a10252d5dba15"


def test_rests_on_a_result_record_includes_the_review_statements_citing_it(reviews_and_results):
    # mem0.md line 21: "… ([RTE-1], [RTE-6] …)" cites RTE-6 of the mem0-04 run
    report = rests_on(reviews_and_results, "RTE-6", set_id="AAS-2026-09-27-mem0-04")
    assert "AAS-2026-09-27-mem0-04/generated-review#L21" in [r.statement for r in report.results]


def test_the_digests_that_match_give_no_finding(reviews_and_results):
    for run, name in (("AAS-2026-09-25-aide2-01", "aide2.md"), ("AAS-2026-09-25-fragility-grid-01",
                                                                  "fragility-grid.md")):
        pinned = next(line.split(": ")[1] for line in (REVIEWS / name).read_text().splitlines()
                      if line.startswith("analysis-result-sha256:"))
        assert hashlib.sha256((G1_RESULTS / run / "result.md").read_bytes()).hexdigest() == pinned
    assert [f for f in check(reviews_and_results).findings if f.code == "result-digest-mismatch"] == []


def test_a_result_that_is_not_what_its_review_pins_is_an_error(store, tmp_path):
    shutil.copy(REVIEWS / "aide2.md", tmp_path / "aide2.md")
    result = tmp_path / "AAS-2026-09-25-aide2-01" / "result.md"
    result.parent.mkdir()
    result.write_bytes((G1_RESULTS / "AAS-2026-09-25-aide2-01" / "result.md").read_bytes() + b"\nA late edit.\n")
    ingest_paths(store, [tmp_path])
    found = [(f.code, f.severity, f.file, f.line) for f in check(store).findings if f.code == "result-digest-mismatch"]
    assert found == [("result-digest-mismatch", "error", str(tmp_path / "aide2.md"), 9)]  # aide2.md line 9


def test_a_g0_prototype_is_a_document_of_its_folders_run(store):
    report = ingest_paths(store, [G0])
    assert report.sets == (G0_RUN,)
    assert [(d.document, d.status) for d in report.documents] == [
        (f"{G0_RUN}/lens-memory", "written"), (f"{G0_RUN}/reconciliation", "written"), (f"{G0_RUN}/result", "written")]
    documents = store.find_nodes(Label.DOCUMENT, set_id=G0_RUN)
    assert sorted((d.get("title"), d.get("run_id")) for d in documents) == [
        ("SWAMP memory lens", G0_RUN), ("SWAMP reconciliation", G0_RUN), ("SWAMP result", G0_RUN)]
    # lens-memory.md line 12 and reconciliation.md line 3 cite `CMP-02` in prose
    cited = {r.statement for r in rests_on(store, "CMP-02", set_id=G0_RUN).results}
    assert {f"{G0_RUN}/lens-memory#L12", f"{G0_RUN}/reconciliation#L3"} <= cited


def test_cli_total_line_and_json_of_the_kb_folder(tmp_path):
    home = str(tmp_path / "home")
    result = runner.invoke(cli, ["ingest", str(COMMONPLACE), "--home", home])
    assert result.exit_code == 0, result.output
    total = result.stdout.strip().splitlines()[-1]
    assert total.startswith("25 documents in 13 sets: 25 written, 0 unchanged, 0 skipped; ")
    assert ("; 59 files: 2 manifests, 32 skipped as no analysis document (28 type definitions, 3 instructions, "
            "1 other) (") in total
    assert f"skipped {COMMONPLACE}/agentic-system-analyses/types/generated-review.md: a type definition" in \
        result.stderr
    again = runner.invoke(cli, ["ingest", str(COMMONPLACE), "--json", "--home", home])
    rows = json.loads(again.stdout)["documents"]
    assert len(rows) == 59 and Counter(r["status"] for r in rows) == {"unchanged": 25, "manifest": 2, "skipped": 32}


def test_rest_and_graphql_answers_name_each_file_sent(store):
    types = COMMONPLACE / "agentic-system-analyses" / "types"
    sent = [*sorted(SEEDS.iterdir()), types / "generated-review.md", types / "generated-review.schema.yaml"]
    auth = {"Authorization": "Bearer w"}
    with TestClient(create_app(Settings(write_token="w"), store=store)) as client:
        files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in sent]
        body = client.post("/sets", files=files, headers=auth).json()
        assert [(d["path"], d["status"], d["reason"]) for d in body["documents"]] == [
            *((p.name, "written", None) for p in sorted(SEEDS.iterdir())),
            ("generated-review.md", "skipped", "type-definition"),
            ("generated-review.schema.yaml", "skipped", "type-definition")]
        assert client.post("/sets", files=files, headers=auth, params={"strict": "true"}).status_code == 422
        mutation = ('mutation($f: [MemberFileInput!]!) { ingest(files: $f) { documents { path status reason note } } }')
        variables = {"f": [{"name": p.name, "content": p.read_text()} for p in sent]}
        got = client.post("/graphql", json={"query": mutation, "variables": variables}, headers=auth).json()
        assert got["data"]["ingest"]["documents"][-1] == {
            "path": "generated-review.schema.yaml", "status": "skipped", "reason": "type-definition",
            "note": "a type definition of the format (a schema)"}


def test_a_review_ingested_after_its_result_joins_the_stored_set(store, tmp_path):
    run = "AAS-2026-09-25-fragility-grid-01"
    ingest_paths(store, [G1_RESULTS / run])
    report = ingest_paths(store, [REVIEWS / "fragility-grid.md"])
    assert report.sets == (run,) and [d.document for d in report.documents] == [f"{run}/generated-review"]
    assert sorted(d.get("role") for d in store.find_nodes(Label.DOCUMENT, set_id=run)) == ["generated-review", "result"]
    assert [f for f in check(store, set_id=run).findings if f.code == "result-digest-mismatch"] == []


def test_a_september_review_and_a_g0_file_rendered_as_plain_text_ingest_again(store, tmp_path):
    from queries.documents import document_tree
    from render.to_plaintext import plaintext_of

    ingest_paths(store, [REVIEWS / "mem0.md", G0])
    rendered = tmp_path / "txt"
    rendered.mkdir()
    texts = {}
    for document, name in (("AAS-2026-09-27-mem0-04/generated-review", "mem0.txt"), (f"{G0_RUN}/result", "result.txt")):
        texts[name] = plaintext_of(document_tree(store, document))
        (rendered / name).write_text(texts[name], encoding="utf-8")
    # the Type: line names what the Markdown was read as, not its frontmatter's note type (or none)
    assert texts["mem0.txt"].splitlines()[2] == "Type: agentic-system-analyses/types/generated-review.md"
    assert texts["result.txt"].splitlines()[2] == "Type: agentic-system-analyses/types/g0-prototype.md"
    from graph.stores.sqlite import SQLiteStore

    again = ingest_paths(SQLiteStore(tmp_path / "again.sqlite"), [rendered])
    assert sorted((d.document.rsplit("/", 1)[1], d.status) for d in again.documents) == [
        ("generated-review", "written"), ("result", "written")]


def test_a_broken_link_is_named_never_dropped(store, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SEEDS / "003_68dfe0dcb1db1ebb.txt", folder / "talorys.txt")
    (folder / "gone.md").symlink_to(tmp_path / "nowhere.md")
    (folder / "gone.png").symlink_to(tmp_path / "nowhere.png")
    with pytest.raises(ParseError) as refused:
        ingest_paths(store, [folder])
    assert (refused.value.source.path, refused.value.message) == (
        str(folder / "gone.md"), "not a regular file that can be read (a broken link?)")
    report = ingest_paths(store, [folder], skip_invalid=True)
    assert [(Path(d.path).name, d.status, d.reason) for d in report.documents] == [
        ("talorys.txt", "written", None), ("gone.md", "skipped", None), ("gone.png", "skipped", "not-a-document")]


def test_a_folder_that_cannot_be_listed_is_an_error(tmp_path, monkeypatch):
    """(The tests may run as root, who can list any folder: the walk's error is simulated.)"""
    import ingest.files

    def walk(top, onerror=None, followlinks=False):
        yield str(top), ["locked"], []
        onerror(PermissionError(13, "Permission denied", str(top / "locked")))

    monkeypatch.setattr(ingest.files.os, "walk", walk)
    with pytest.raises(IngestError, match=rf"^cannot read the folder {tmp_path / 'locked'}: Permission denied$"):
        ingest.files.member_files([tmp_path])
