"""Suspects when the analysis itself changes: a new version of a set that changes a record's
declaration, a quotation or a source pin makes exactly the statements resting on it suspect (as
``rests-on`` answers, in every set citing the record), with the version diff as the explanation,
until a review at that version clears them. Both stores (the ``store`` fixture)."""

from __future__ import annotations

import shutil
from datetime import datetime, UTC

import pytest

from ingest.reviews import review_suspect
from queries.impact import open_suspects
from queries.shapes import plain
from queries.traversal import rests_on
from tests.conftest import SEEDS, ingest_into
from tests.history_sets import LEDGER, LEDGER_RUN_2, LEDGER_V1, second_ledger_run

R = "RT-RTE-ledger-commit"
OLD_LINE = "- Later read-back: readers see committed entries."
NEW_LINE = "- Later read-back: readers see committed entries once flushed."
TOLARIA_COMMIT = "48f2a70844c1e8005a7aa5f1499c66f7678360de"
OTHER_COMMIT = "5fadc9bb251d" + "0" * 28


def edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def statements(found) -> list[str]:
    return sorted(s.node for s in found.suspects)


@pytest.fixture
def ledgers(store, tmp_path):
    """The ledger set (from a copy) and a second run citing the same records, both ingested."""
    ledger = shutil.copytree(LEDGER_V1, tmp_path / "ledger")
    ingest_into(store, ledger)
    ingest_into(store, second_ledger_run(tmp_path / "run2"))
    return ledger


@pytest.fixture
def seeds(store, tmp_path):
    copied = shutil.copytree(SEEDS, tmp_path / "seeds")
    ingest_into(store, copied)
    return copied


def test_a_changed_declaration_makes_what_rests_on_the_record_suspect_in_every_set(store, ledgers):
    assert open_suspects(store).suspects == ()
    edit(ledgers / "runtime.md", OLD_LINE, NEW_LINE)
    ingest_into(store, ledgers)
    found = open_suspects(store)
    expected = [r.statement for r in rests_on(store, R).results]
    assert statements(found) == sorted(expected) == [
        f"{LEDGER}/reconciliation#L14", f"{LEDGER}/runtime#L14", f"{LEDGER}/synthesis#L18",
        f"{LEDGER_RUN_2}/reconciliation#L14", f"{LEDGER_RUN_2}/runtime#L14", f"{LEDGER_RUN_2}/synthesis#L18"]
    assert (found.source_change, found.analysis_change) == (0, 6)
    assert {s.cause for s in found.suspects} == {"analysis-change"}
    first = found.suspects[0]  # conclusions first: the Limitations row of the first set
    assert (first.node, first.conclusion, first.depth, first.trigger, first.change) == (
        f"{LEDGER}/synthesis#L18", True, 1, f"{LEDGER}/{R}",
        f"declaration of {R} changed in {LEDGER} version 1 → 2")
    change = plain(first.version_change)
    assert {k: change[k] for k in ("set", "part", "node", "name", "from", "to")} == {
        "set": LEDGER, "part": "declaration", "node": f"{LEDGER}/{R}", "name": R, "from": 1, "to": 2}
    assert "Later read-back: readers see committed entries.\n" in change["old"]
    assert "Later read-back: readers see committed entries once flushed.\n" in change["new"]
    assert change["digest"] == store.set_versions(LEDGER)[-1].digest
    # the second run's statements rest on its own record of that ID: the path ends there
    second = next(s for s in found.suspects if s.set == LEDGER_RUN_2 and s.node.endswith("runtime#L14"))
    assert second.trigger == f"{LEDGER_RUN_2}/{R}" and second.version_change.set_id == LEDGER
    assert statements(open_suspects(store, set_id=LEDGER_RUN_2)) == [
        f"{LEDGER_RUN_2}/reconciliation#L14", f"{LEDGER_RUN_2}/runtime#L14", f"{LEDGER_RUN_2}/synthesis#L18"]


def test_a_review_at_the_version_clears_a_suspect_and_nothing_else(store, ledgers):
    edit(ledgers / "runtime.md", OLD_LINE, NEW_LINE)
    ingest_into(store, ledgers)
    digest = store.set_versions(LEDGER)[-1].digest
    review_suspect(store, f"{LEDGER}/runtime#L14", revision="a" * 40, reviewer="ada")  # another revision
    assert len(open_suspects(store).suspects) == 6
    review_suspect(store, f"{LEDGER}/runtime#L14", revision=digest, reviewer="ada",
                   at=datetime(2026, 12, 1, tzinfo=UTC))
    left = open_suspects(store)
    assert f"{LEDGER}/runtime#L14" not in statements(left) and len(left.suspects) == 5
    for s in left.suspects:
        review_suspect(store, s.node, revision=s.version_change.digest, reviewer="ada")
    assert open_suspects(store).suspects == ()


def test_an_unchanged_reingest_makes_no_suspect(store, ledgers, tmp_path):
    ingest_into(store, ledgers)
    ingest_into(store, second_ledger_run(tmp_path / "run2"))
    assert store.part_changes() == {}
    assert open_suspects(store).suspects == ()


def test_a_changed_quotation_then_a_changed_source_pin(store, seeds):
    edit(seeds / "001_12342d341e774cc9.txt", "to fail-fast when the note changed", "to fail fast when the note changed")
    ingest_into(store, seeds)
    found = open_suspects(store)
    # the quoting statement, and the synthesis conclusions citing the workflow account that holds it
    assert [(s.node, s.depth, s.conclusion) for s in found.suspects] == [
        ("tolaria/synthesis#L11", 2, True), ("tolaria/synthesis#L12", 2, True), ("tolaria/synthesis#L16", 2, True),
        ("tolaria/synthesis#L27", 2, True), ("tolaria/workflow-report#L31", 1, False)]
    assert found.suspects[-1].path == ("tolaria/workflow-report#L31", "tolaria/workflow-report#Q31")
    assert found.suspects[0].path == ("tolaria/synthesis#L11", "tolaria/ref/workflow-account", "tolaria/workflow-report#L5",
                                      "tolaria/workflow-report#L25", "tolaria/workflow-report#L31",
                                      "tolaria/workflow-report#Q31")
    change = found.suspects[0].version_change
    assert {s.version_change for s in found.suspects} == {change}
    assert (change.node, change.name, change.from_version, change.to_version) == (
        "tolaria/workflow-report#Q31", "mcp-server/index.js", 1, 2)
    assert change.old.startswith('"Optionally pass expectedMtime (the note mtimeMs returned by get_note) to fail-fast')
    assert change.new.endswith('to fail fast when the note changed between read and write." (mcp-server/index.js)')

    edit(seeds / "000_a3dd65b871acf2aa.txt", TOLARIA_COMMIT, OTHER_COMMIT)
    ingest_into(store, seeds)
    found = open_suspects(store, set_id="tolaria")
    pinned = [r.statement for r in rests_on(store, "SRC-1", set_id="tolaria", kind="source").results]
    assert statements(found) == sorted(pinned) and len(pinned) == 29
    parts = {s.node: s.version_change for s in found.suspects}
    assert (parts["tolaria/workflow-report#L31"].part, parts["tolaria/workflow-report#L31"].to_version) == ("quotation", 2)
    pin = parts["tolaria/synthesis#L5"]
    assert (pin.part, pin.node, pin.from_version, pin.to_version, pin.old, pin.new) == (
        "source-pin", "tolaria/SRC-1", 2, 3, f"https://github.com/refactoringhq/tolaria @ {TOLARIA_COMMIT}",
        f"https://github.com/refactoringhq/tolaria @ {OTHER_COMMIT}")
    assert sum(c.part == "source-pin" for c in parts.values()) == 28
    assert open_suspects(store, set_id="talorys").suspects == ()
