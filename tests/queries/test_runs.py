"""Runs of a system and where they agree, on both stores.

The facts about the two Instinctual Memory runs come from reading them: IM-01
(``AAS-2026-10-01-instinctual-memory-01``, G2: numbered IDs without an analyst prefix in the
runtime member, ``OBJ-1``, ``RTE-1``…) and its G2.5 rewrite IM-02
(``AAS-2026-09-30-instinctual-memory-02``: ``RT-CMP-1``…), both at 6acb13dc. Their declarations
are read again here straight from the ``#### ID — Label`` headings, independently of the parser.

The record IDs a Limitations row names through a range ("MEM-RTE-1 through MEM-RTE-7") depend on
the range rule (GRAMMAR §11.6), so only the third row's records, which name no range, are asserted;
statuses keep their qualifier apart, which changes no fact here (no record of one run matches one
of the other).
"""

from __future__ import annotations

import re

import pytest

from graph.errors import IncomparableSets, SystemNotFound
from queries import shapes
from queries.runs import compare_runs, runs_of
from queries.setview import normalised_label
from tests.conftest import ingest_into
from tests.history_sets import (IM01, IM01_DIR, IM02, IM02_DIR, LEDGER, LEDGER_RUN_2, LEDGER_V1, instinctual_memory,
                                second_ledger_run)

BOUNDARY = "6acb13dc35765bf5ccfc87e445dd09c480f1c28a"
DECLARATION = re.compile(r"^#### ((?:(?:RT|MEM|EPI)-)?(CMP|OBJ|RTE|CLM|ABS|BAP)-\d+) — (.+)$", re.M)


def declarations(folder) -> dict[str, tuple[str, str]]:
    """ID → (kind, label) of every ``#### ID — Label`` heading of the run's members."""
    return {m.group(1): (m.group(2), m.group(3)) for p in sorted(folder.glob("*.md"))
            for m in DECLARATION.finditer(p.read_text(encoding="utf-8"))}


def test_the_runs_of_instinctual_memory(store):
    instinctual_memory(store)
    found = runs_of(store, "instinctual-memory")
    assert (found.system, found.name) == ("instinctual-memory", "Instinctual Memory")  # IM-02's title, written last
    assert runs_of(store, "Instinctual Memory") == runs_of(store, "system/instinctual-memory") == found
    assert [shapes.plain(r) for r in found.runs] == [
        {"set": IM02, "run_id": IM02, "date": "2026-09-30", "revisions": [BOUNDARY], "reviewed_boundary": BOUNDARY,
         "cutoff": None, "sources": [{"source_id": "SRC-1", "url": None, "commit": None, "cutoff": None}],
         "documents": 2, "declarations": 25, "version": 1},
        {"set": IM01, "run_id": IM01, "date": "2026-10-01", "revisions": [BOUNDARY], "reviewed_boundary": BOUNDARY,
         "cutoff": "2026-10-01",
         "sources": [{"source_id": s, "url": "https://github.com/jasonkneen/instinctual-memory", "commit": BOUNDARY,
                      "cutoff": None} for s in ("SRC-1", "SRC-2")],
         "documents": 5, "declarations": 28, "version": 1},
    ]
    with pytest.raises(SystemNotFound, match="no analysis set in the store analyses system 'instinctual'"):
        runs_of(store, "instinctual")


def test_where_the_instinctual_memory_runs_agree(store):
    instinctual_memory(store)
    c = compare_runs(store, IM01, IM02)
    read_a, read_b = declarations(IM01_DIR), declarations(IM02_DIR)
    assert len(read_a) == 28 and len(read_b) == 25
    assert c.declared == {"a": {"CLM": 1, "OBJ": 10, "RTE": 17},
                          "b": {"BAP": 3, "CLM": 2, "CMP": 3, "OBJ": 7, "RTE": 10}}
    for side, read in (("a", read_a), ("b", read_b)):
        kinds: dict[str, int] = {}
        for kind, _ in read.values():
            kinds[kind] = kinds.get(kind, 0) + 1
        assert c.declared[side] == dict(sorted(kinds.items()))

    # Every ID is numbered, so no ID identifies a record across the runs; and no kind + label coincides
    # (e.g. IM-01's RTE-2 "MCP stdio operation" against IM-02's RT-RTE-2 "MCP operation request").
    assert {(k, normalised_label(v)) for k, v in read_a.values()} & {(k, normalised_label(v)) for k, v in read_b.values()} == set()
    assert c.matches == ()
    unmatched = {(u.run, u.record_id): u for u in c.unmatched}
    assert len([u for u in c.unmatched if u.run == "a"]) == 28 and len([u for u in c.unmatched if u.run == "b"]) == 25
    # Seven IDs occur in both runs for different things: listed apart, never matched.
    shared_ids = sorted(read_a.keys() & read_b.keys())
    assert shared_ids == ["EPI-OBJ-1", "EPI-OBJ-2", "EPI-OBJ-3", "EPI-OBJ-4", "EPI-RTE-1", "EPI-RTE-2", "EPI-RTE-3"]
    assert (unmatched[("a", "EPI-OBJ-1")].label, unmatched[("b", "EPI-OBJ-1")].label) == (
        "Journal event statements", "Consolidation-proposed fact statements")

    # Candidates share cited files; the best for IM-01's MCP route is IM-02's MCP behavioral-authority
    # path (the same two files), a record of another kind: a candidate, not a match.
    mcp = unmatched[("a", "RTE-2")]
    assert (mcp.label, mcp.files) == ("MCP stdio operation", ("src/mcp.rs", "src/ops.rs"))
    assert [(x.record_id, x.label, x.shared, x.overlap) for x in mcp.candidates] == [
        ("RT-BAP-2", "MCP operation results", ("src/mcp.rs", "src/ops.rs"), 1.0),
        ("RT-RTE-2", "MCP operation request", ("src/mcp.rs", "src/ops.rs"), 0.4),
        ("RT-RTE-3", "Direct CLI, shell, and loopback HTTP", ("src/ops.rs",), 0.143),
        ("RT-RTE-5", "Explicit remember, correct, forget, and erase", ("src/mcp.rs",), 0.143)]
    journal = unmatched[("b", "RT-OBJ-1")]
    assert journal.files == ("src/cli.rs", "src/ingest.rs", "src/journal.rs")
    assert [(x.record_id, x.overlap) for x in journal.candidates][:2] == [("MEM-RTE-1", 1.0), ("MEM-OBJ-1", 0.5)]
    assert unmatched[("b", "RT-CMP-2")].candidates == ()  # src/jev.rs and src/search/rerank.rs: IM-01 cites neither

    files = {f.path: f.runs for f in c.files}
    assert sorted(p for p, r in files.items() if r == "both") == [
        "src/change.rs", "src/cli.rs", "src/consolidate.rs", "src/entity.rs", "src/erasure.rs", "src/fact.rs",
        "src/hook.rs", "src/http_serve.rs", "src/ingest.rs", "src/journal.rs", "src/mcp.rs", "src/ops.rs",
        "src/repo.rs", "src/setup.rs", "src/validate.rs"]
    # README.md: IM-01 quotes it and cites it after SRC-2; IM-02 names it only as a bare code span, which
    # is no source-file citation (GRAMMAR §5: a prose path needs a slash); `src/` is IM-01's folder citation
    assert sorted(p for p, r in files.items() if r == "a") == [
        "README.md", "src", "src/checkpoint.rs", "src/controls.rs", "src/evaluation.rs", "src/index.rs", "src/lib.rs",
        "src/main.rs", "src/search/lexical.rs", "src/tidy.rs", "state/controls.json"]
    assert sorted(p for p, r in files.items() if r == "b") == [
        "skills/mem/SKILL.md", "src/jev.rs", "src/search/laya.rs", "src/search/rerank.rs", "src/shell.rs"]

    # IM-01's overview states three Limitations rows; the rewrite has no synthesis or overview, so none
    assert [(x.run, x.statement, x.shared) for x in c.limitations] == [
        ("a", f"{IM01}/overview#L49", False), ("a", f"{IM01}/overview#L50", False), ("a", f"{IM01}/overview#L51", False)]
    assert c.limitations[2].records == ("MEM-RTE-2", "MEM-OBJ-4", "EPI-RTE-2", "EPI-RTE-3")
    assert (c.a.set_id, c.a.version, c.b.set_id, c.b.version) == (IM01, 1, IM02, 1)


def test_runs_of_different_systems_are_not_compared(store):
    instinctual_memory(store)
    ingest_into(store, LEDGER_V1)
    with pytest.raises(IncomparableSets, match=f"{IM01} analyses instinctual-memory but {LEDGER} analyses ledger"):
        compare_runs(store, IM01, LEDGER)
    with pytest.raises(IncomparableSets, match="compared with itself"):
        compare_runs(store, IM01, IM01)


def test_slug_ids_match_and_numbered_ones_match_by_label(store, tmp_path):
    ingest_into(store, LEDGER_V1)
    ingest_into(store, second_ledger_run(tmp_path / "slugs"))
    c = compare_runs(store, LEDGER, LEDGER_RUN_2)
    assert [(m.a, m.b, m.by) for m in c.matches] == [
        ("RT-OBJ-ledger-file", "RT-OBJ-ledger-file", "id"), ("RT-RTE-ledger-append", "RT-RTE-ledger-append", "id"),
        ("RT-RTE-ledger-commit", "RT-RTE-ledger-commit", "id")]  # a slug names the record, whatever its label
    commit = c.matches[2]
    assert [(s.label, s.a, s.b, s.agree) for s in commit.statuses] == [
        ("implementation conclusion status", "wired", "wired", True),
        ("operation conclusion status", "uninspected", "uninspected", True)]
    assert [(f.label, f.agree) for f in commit.fields if not f.agree] == [("Evidence", False)]
    assert (commit.files_both, commit.files_only_a, commit.files_only_b) == (("src/commit.rs",), (), ("src/flush.rs",))
    assert c.unmatched == ()

    other = second_ledger_run(tmp_path / "numbers", numbered=True)
    store.delete_documents([f"{LEDGER_RUN_2}/{r}" for r in ("reconciliation", "runtime", "synthesis")])
    ingest_into(store, other)
    c = compare_runs(store, LEDGER, LEDGER_RUN_2)
    assert [(m.a, m.b, m.by, m.label) for m in c.matches] == [
        ("RT-OBJ-ledger-file", "RT-OBJ-1", "label", "Ledger file"),
        ("RT-RTE-ledger-append", "RT-RTE-1", "label", "Append an entry")]
    assert [(u.run, u.record_id, u.label, [(x.record_id, x.shared, x.overlap) for x in u.candidates])
            for u in c.unmatched] == [
        ("a", "RT-RTE-ledger-commit", "Commit buffered entries", [("RT-RTE-2", ("src/commit.rs",), 0.5)]),
        ("b", "RT-RTE-2", "Write out buffered entries", [("RT-RTE-ledger-commit", ("src/commit.rs",), 0.5)])]
    assert [(x.run, x.shared) for x in c.limitations] == [("a", True), ("b", True)]
