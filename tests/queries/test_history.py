"""History of a set: every version stays queryable, and the diff of the hand-made ledger
set's two versions lists exactly its three changes (one amendment, one status change, one edited
paragraph) and the rests-on answers they move. Both stores (the ``store`` fixture)."""

from __future__ import annotations

import pytest

from graph.errors import AmbiguousScope, AnalysisSetNotFound, VersionNotFound
from graph.stores.pinned import PinnedStore
from graph.stores.sqlite import SQLiteStore
from queries.history import diff_versions, history, store_at
from queries.shapes import plain
from queries.traversal import rests_on
from tests.conftest import ingest_into
from tests.history_sets import LEDGER, LEDGER_V1, LEDGER_V2, ledger_versions, sha256

L = LEDGER
RECONCILIATION, RUNTIME, SYNTHESIS = (f"{L}/{r}" for r in ("reconciliation", "runtime", "synthesis"))


def statements(store, record: str) -> list[str]:
    return [r.statement for r in rests_on(store, record, set_id=L).results]


def test_history_lists_the_versions(store):
    ledger_versions(store)
    found = history(store, L)
    assert found.latest == 2
    assert [(v.number, v.counts.statements, v.counts.citations) for v in found.versions] == [(1, 38, 22), (2, 39, 24)]
    assert [m.sha256 for m in found.versions[1].members] == [sha256(LEDGER_V2 / f"{r}.md")
                                                             for r in ("reconciliation", "runtime", "synthesis")]
    with pytest.raises(AnalysisSetNotFound, match="no analysis set 'nope' in the store"):
        history(store, "nope")


def test_every_version_stays_queryable(store):
    ledger_versions(store)
    only_v1 = SQLiteStore(None)
    ingest_into(only_v1, LEDGER_V1)
    at_1 = store_at(store, L, 1)
    assert isinstance(at_1, PinnedStore)
    assert store_at(store, L, 2) is store and store_at(store, L, None) is store
    for record in ("RT-RTE-ledger-commit", "RT-RTE-ledger-append", "RT-OBJ-ledger-file"):
        assert plain(rests_on(at_1, record, set_id=L)) == plain(rests_on(only_v1, record, set_id=L))
    assert statements(at_1, "RT-RTE-ledger-commit") == [
        f"{RECONCILIATION}#L14", f"{RUNTIME}#L14", f"{SYNTHESIS}#L18"]
    assert statements(store, "RT-RTE-ledger-commit") == [
        f"{RECONCILIATION}#L14", f"{RECONCILIATION}#L16", f"{RUNTIME}#L12", f"{RUNTIME}#L14", f"{SYNTHESIS}#L12",
        f"{SYNTHESIS}#L18"]
    with pytest.raises(Exception, match="an earlier version of an analysis set is read-only"):
        at_1.write_set(None)  # type: ignore[arg-type]


def test_unknown_versions_and_versions_without_a_set_are_refused(store):
    ledger_versions(store)
    with pytest.raises(VersionNotFound, match=f"analysis set '{L}' has no version 3; it keeps versions 1–2"):
        store_at(store, L, 3)
    with pytest.raises(AmbiguousScope, match="version 1 of which analysis set"):
        store_at(store, None, 1)
    with pytest.raises(AnalysisSetNotFound):
        store_at(store, "nope", 1)
    with pytest.raises(VersionNotFound, match="keeps no version before version 1"):
        diff_versions(store, L, to_version=1)


def test_the_diff_lists_exactly_the_three_changes_and_the_answers_they_move(store):
    ledger_versions(store)
    diff = diff_versions(store, L, 1, 2)
    assert plain(diff_versions(store, L)) == plain(diff)  # default: the latest against the one before
    record = "RT-RTE-ledger-commit"
    assert plain(diff) == {
        "set": L, "from": 1, "to": 2,
        "members": [
            {"document": d, "change": "changed", "from_sha256": sha256(LEDGER_V1 / f"{d.rsplit('/', 1)[1]}.md"),
             "to_sha256": sha256(LEDGER_V2 / f"{d.rsplit('/', 1)[1]}.md")}
            for d in (RECONCILIATION, RUNTIME, SYNTHESIS)],
        # the status change
        "records": [{"record_id": record, "change": "changed", "from_label": "Commit buffered entries",
                     "to_label": "Commit buffered entries",
                     "statuses": [{"label": "operation conclusion status", "from_value": "uninspected",
                                   "to_value": "observed"}],
                     "fields": []}],
        "statements": [
            {"document": RUNTIME, "change": "changed", "from_statement": f"{RUNTIME}#L51",
             "to_statement": f"{RUNTIME}#L51", "from_line": 51, "to_line": 51, "kind": "field",
             "text": "operation conclusion status: observed",
             "diff": f"--- {RUNTIME}#L51\n+++ {RUNTIME}#L51\n@@ -1 +1 @@\n"
                     "-- operation conclusion status: uninspected\n+- operation conclusion status: observed\n"},
            # the amendment, inserted above a paragraph that moves from line 14 to 16 unchanged (not listed)
            {"document": RECONCILIATION, "change": "added", "from_statement": None,
             "to_statement": f"{RECONCILIATION}#L14", "from_line": None, "to_line": 14, "kind": "amendment",
             "text": "Amendment: RT-RTE-ledger-append is superseded by RT-RTE-ledger-commit. Identity evidence: an "
                     "appended entry is only visible once committed.", "diff": ""},
            # the edited paragraph
            {"document": SYNTHESIS, "change": "changed", "from_statement": f"{SYNTHESIS}#L12",
             "to_statement": f"{SYNTHESIS}#L12", "from_line": 12, "to_line": 12, "kind": "paragraph",
             "text": "Entries reach the ledger through RT-RTE-ledger-commit once committed, which the runtime traces "
                     "to RT-OBJ-ledger-file.",
             "diff": f"--- {SYNTHESIS}#L12\n+++ {SYNTHESIS}#L12\n@@ -1 +1 @@\n"
                     "-Entries reach the ledger through RT-RTE-ledger-append, which the runtime traces to "
                     "RT-OBJ-ledger-file.\n"
                     "+Entries reach the ledger through RT-RTE-ledger-commit once committed, which the runtime "
                     "traces to RT-OBJ-ledger-file.\n"},
        ],
        "citations": [
            {"document": RECONCILIATION, "from_statement": None, "to_statement": f"{RECONCILIATION}#L14",
             "gained": [{"kind": "record", "target": "RT-RTE-ledger-append"},
                        {"kind": "record", "target": "RT-RTE-ledger-commit"}], "lost": []},
            {"document": SYNTHESIS, "from_statement": f"{SYNTHESIS}#L12", "to_statement": f"{SYNTHESIS}#L12",
             "gained": [{"kind": "record", "target": "RT-RTE-ledger-commit"}],
             "lost": [{"kind": "record", "target": "RT-RTE-ledger-append"}]},
        ],
        "quotations": [],
        "limitations": [],
        "rests_on": [
            # the ledger file is cited by the field of RT-RTE-ledger-append's declaration, so the amendment
            # citing that record rests on it too (one evidence step further)
            {"record_id": "RT-OBJ-ledger-file", "gained": [f"{RECONCILIATION}#L14"], "lost": [], "from_count": 5,
             "to_count": 6, "deeper": [], "shallower": []},
            {"record_id": "RT-RTE-ledger-append", "gained": [f"{RECONCILIATION}#L14"], "lost": [f"{SYNTHESIS}#L12"],
             "from_count": 3, "to_count": 3, "deeper": [], "shallower": []},
            # superseded by RT-RTE-ledger-commit, RT-RTE-ledger-append rests on it, and with it the runtime
            # paragraph citing RT-RTE-ledger-append; the edited paragraph and the amendment cite it directly
            {"record_id": record, "gained": [f"{RECONCILIATION}#L14", f"{RUNTIME}#L12", f"{SYNTHESIS}#L12"],
             "lost": [], "from_count": 3, "to_count": 6, "deeper": [], "shallower": []},
        ],
    }
    # the other way round, everything is reversed
    back = diff_versions(store, L, 2, 1)
    assert [(s.change, s.from_statement, s.to_statement) for s in back.statements] == [
        ("changed", f"{RUNTIME}#L51", f"{RUNTIME}#L51"), ("removed", f"{RECONCILIATION}#L14", None),
        ("changed", f"{SYNTHESIS}#L12", f"{SYNTHESIS}#L12")]
    assert [(r.record_id, r.gained, r.lost) for r in back.rests_on] == [
        ("RT-OBJ-ledger-file", (), (f"{RECONCILIATION}#L14",)),
        ("RT-RTE-ledger-append", (f"{SYNTHESIS}#L12",), (f"{RECONCILIATION}#L14",)),
        ("RT-RTE-ledger-commit", (), (f"{RECONCILIATION}#L14", f"{RUNTIME}#L12", f"{SYNTHESIS}#L12"))]
    same = diff_versions(store, L, 2, 2)
    assert same.unchanged and plain(same)["statements"] == []


def amended_seeds(folder):
    """The three seeds with the Tolaria synthesis' line 11 no longer citing RT-RTE-mcp-write itself
    (it still cites the workflow account, which rests on it): the README's worked example."""
    import shutil

    from tests.conftest import SEEDS

    shutil.copytree(SEEDS, folder)
    synthesis = folder / "000_a3dd65b871acf2aa.txt"
    text = synthesis.read_text(encoding="utf-8")
    assert text.count("(workflow account, RT-RTE-mcp-write).") == 1
    synthesis.write_text(text.replace("(workflow account, RT-RTE-mcp-write).", "(workflow account)."), encoding="utf-8")
    return folder


def test_an_amendment_of_one_member_moves_one_answer_deeper(store, tmp_path):
    from tests.conftest import SEEDS

    ingest_into(store, SEEDS)
    ingest_into(store, amended_seeds(tmp_path / "seeds"))
    assert [v.number for v in history(store, "talorys").versions] == [1]  # its member is unchanged
    diff = diff_versions(store, "tolaria")
    assert [(m.document, m.change) for m in diff.members] == [("tolaria/synthesis", "changed")]
    assert [(s.change, s.to_statement) for s in diff.statements] == [("changed", "tolaria/synthesis#L11")]
    assert diff.statements[0].diff.splitlines()[-1].endswith("replacement (workflow account).")
    assert [(c.to_statement, c.gained, [x.target for x in c.lost]) for c in diff.citations] == [
        ("tolaria/synthesis#L11", (), ["RT-RTE-mcp-write"])]
    assert diff.records == () and diff.quotations == () and diff.limitations == ()
    assert [(r.record_id, r.gained, r.lost, r.from_count, r.to_count, r.deeper, r.shallower) for r in diff.rests_on] == [
        ("RT-RTE-mcp-write", (), (), 14, 14, (("tolaria/synthesis#L11", 1, 2),), ())]
    before = rests_on(store_at(store, "tolaria", 1), "RT-RTE-mcp-write", set_id="tolaria").results
    after = rests_on(store, "RT-RTE-mcp-write", set_id="tolaria").results
    assert (sum(r.direct for r in before), sum(r.direct for r in after)) == (12, 11)


def test_a_view_of_a_view_reads_each_set_at_its_own_version(store, tmp_path):
    from tests.conftest import SEEDS

    ledger_versions(store)
    ingest_into(store, SEEDS)
    ingest_into(store, amended_seeds(tmp_path / "seeds"))
    both = store_at(store_at(store, L, 1), "tolaria", 1)
    R = "RT-RTE-ledger-commit"
    assert isinstance(both, PinnedStore) and sorted(both.pins) == [L, "tolaria"]
    assert len(rests_on(both, R, set_id=L).results) == 3
    assert sum(r.direct for r in rests_on(both, "RT-RTE-mcp-write", set_id="tolaria").results) == 12
    back = store_at(both, L, 2)  # L at its latest again, tolaria still at 1
    assert sorted(back.pins) == ["tolaria"] and len(rests_on(back, R, set_id=L).results) == 6
    assert store_at(back, "tolaria", 2) is store
    assert plain(diff_versions(both, L, 1, 2)) == plain(diff_versions(store, L, 1, 2))
