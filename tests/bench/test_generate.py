"""The benchmark corpus generator: deterministic, structurally valid, and ingested with
0 ``check`` errors on every store, so the benchmark cannot rot. No timing assertions here."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from bench.generate import CHANGED_FILES, generate, plan_set
from bench.invariants import check_corpus
from bench.run import evaluate, markdown_table
from tests.whole_input import read_sets
from ingest.loader import ingest_parsed
from queries.validation import check


def _digest(root: Path) -> str:
    """SHA-256 over every corpus file (path and bytes) and both commit ids."""
    h = hashlib.sha256()
    for path in sorted((root / "corpus").rglob("*")):
        if path.is_file():
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    source = json.loads((root / "bench-manifest.json").read_text(encoding="utf-8"))["source"]
    h.update(f"{source['base']} {source['change']}".encode())
    return h.hexdigest()


@pytest.fixture(scope="module")
def corpus_s(tmp_path_factory):
    """Size S, seed 0, generated once for the module."""
    return generate(tmp_path_factory.mktemp("bench") / "S", size="S", seed=0)


def test_size_s_holds_about_100_members_of_both_generations(corpus_s):
    manifest = json.loads((corpus_s.root / "bench-manifest.json").read_text(encoding="utf-8"))
    assert 90 <= corpus_s.documents <= 110
    assert {s["generation"] for s in manifest["sets"]} == {3, 4}
    assert len(list(corpus_s.corpus.rglob("*.md"))) == corpus_s.documents
    assert corpus_s.citations / corpus_s.documents > 50


def test_same_seed_gives_same_bytes_and_commits(tmp_path):
    first = generate(tmp_path / "x", size="S", seed=3, workers=1)
    digest = _digest(first.root)
    again = generate(tmp_path / "x", size="S", seed=3, workers=2, force=True)
    assert _digest(again.root) == digest
    assert (again.base, again.change) == (first.base, first.change)
    other = generate(tmp_path / "y", sets=3, seed=4)
    assert other.base != first.base


def test_plans_are_pure():
    a, b = plan_set(5, 7), plan_set(5, 7)
    assert [r.id for r in a.all_records] == [r.id for r in b.all_records]
    assert a.files == b.files


def test_refuses_a_non_empty_output_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises(FileExistsError):
        generate(tmp_path, sets=1)


def test_change_commit_edits_the_listed_files(corpus_s):
    diff = subprocess.run(["git", "-C", str(corpus_s.source), "diff", "--name-only", corpus_s.base, corpus_s.change],
                          check=True, capture_output=True, text=True).stdout.split()
    assert sorted(diff) == sorted(corpus_s.changed_files)
    assert len(diff) == CHANGED_FILES


def test_structural_invariants_hold(corpus_s):
    assert check_corpus(corpus_s.root) == []


def test_invariants_catch_a_broken_set(tmp_path):
    g = generate(tmp_path / "c", sets=2, seed=1)
    runtime = next(g.corpus.glob("*/runtime.md"))
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(text.replace("- Later read-back:", "- Later readback:", 1), encoding="utf-8")
    problems = check_corpus(g.root)
    assert any("pin mismatch" in p for p in problems)
    assert any("route field Later read-back" in p for p in problems)


def test_generated_sets_ingest_with_no_check_errors(store, corpus_s):
    assembly = read_sets([corpus_s.corpus])
    ingest_parsed(store, list(assembly.documents))
    report = check(store, problems=assembly.problems)
    errors = [f"{f.code} {f.file}:{f.line} {f.message}" for f in report.findings if f.severity == "error"]
    assert errors == []
    assert store.counts()["Document"] == corpus_s.documents


def test_check_table_marks_each_target():
    figures = {"embedded": {"ingest_s": 70.0, "ingest_vs_floor": 0.6, "rests_on_p50_ms": 2.0, "grep_speedup": 80.0,
                            "peak_rss_mb": 900.0, "check_errors": 0, "verify_differing": 0},
               "_run": {"total_s": 100.0}}
    verdicts = {(r["target"], r["store"]): r["verdict"] for r in evaluate("L", figures)}
    assert verdicts[("embedded ingest time", "embedded")] == "FAIL"
    assert verdicts[("rests-on p50 (embedded)", "embedded")] == "PASS"
    assert verdicts[("impact of a 50-file change", "embedded")] == "SKIP"
    assert not any(target.startswith("bench/run --size M") for target, _ in verdicts)
    assert "| rests-on speed-up over grep | 80.0 |" in markdown_table("L", figures)
