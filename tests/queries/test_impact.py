"""impact_of over the seeds and a real git repository built in the test, on every store."""

from __future__ import annotations

from datetime import datetime, UTC

import pytest

from graph.errors import (
    AmbiguousScope,
    CitegraphError,
    NodeNotFound,
    RevisionNotFound,
    SourceRepositoryError,
)
from graph.model import Label, Node, review_node_id
from ingest.git import GitRepository
from queries.demo import demo_store
from ingest.reviews import review_suspect
from queries.impact import Review, impact_of, normalise_quotation, reviews_of
from tests.conftest import SEEDS, SEED_WORKFLOW, ingest_into
from tests.impact_repo import ImpactRepo, build_impact_repo

Q31, Q39, Q51, Q61 = (f"tolaria/workflow-report#Q{n}" for n in (31, 39, 51, 61))
VAULT = "tolaria/file/mcp-server/vault.js"
PINNED = "48f2a70844c1e8005a7aa5f1499c66f7678360de"

# (status, cited path, new path) of the cited changed files, and the state of Q31, Q39, Q51, Q61,
# for impact from c0 (the pinned commit's role) to each commit; see tests/impact_repo.py.
FROM_C0 = {
    "c1": ([], ["README.md"], ("intact", "intact", "intact", "intact")),
    "c2": ([("modified", "src/lib/aiAgentStreamCallbacks.ts", "src/lib/aiAgentStreamCallbacks.ts")],
           ["README.md"], ("intact", "intact", "intact", "broken")),
    "c3": ([("modified", "mcp-server/vault.js", "mcp-server/vault.js"),
            ("modified", "src/lib/aiAgentStreamCallbacks.ts", "src/lib/aiAgentStreamCallbacks.ts")],
           ["README.md", "mcp-server/mtime-guard.js"], ("intact", "moved", "intact", "broken")),
    "c4": ([("modified", "mcp-server/index.js", "mcp-server/index.js"),
            ("modified", "mcp-server/vault.js", "mcp-server/vault.js"),
            ("modified", "src/lib/aiAgentStreamCallbacks.ts", "src/lib/aiAgentStreamCallbacks.ts")],
           ["README.md", "mcp-server/mtime-guard.js"], ("intact", "moved", "ambiguous", "broken")),
    "c5": ([("renamed", "mcp-server/index.js", "mcp-server/server.js"),
            ("modified", "mcp-server/vault.js", "mcp-server/vault.js"),
            ("modified", "src/lib/aiAgentStreamCallbacks.ts", "src/lib/aiAgentStreamCallbacks.ts")],
           ["README.md", "mcp-server/mtime-guard.js"], ("intact", "moved", "ambiguous", "broken")),
    "c6": ([("renamed", "mcp-server/index.js", "mcp-server/server.js"),
            ("modified", "mcp-server/vault.js", "mcp-server/vault.js"),
            ("deleted", "src/lib/aiAgentSession.ts", None),
            ("modified", "src/lib/aiAgentStreamCallbacks.ts", "src/lib/aiAgentStreamCallbacks.ts")],
           ["README.md", "mcp-server/mtime-guard.js"], ("intact", "moved", "ambiguous", "broken")),
}
FROM_C0["c7"] = FROM_C0["c6"]

# Cited changed files of each commit against its parent.
STEP = {
    "c1": [],
    "c2": [("modified", "src/lib/aiAgentStreamCallbacks.ts", "src/lib/aiAgentStreamCallbacks.ts")],
    "c3": [("modified", "mcp-server/vault.js", "mcp-server/vault.js")],
    "c4": [("modified", "mcp-server/index.js", "mcp-server/index.js")],
    "c5": [("renamed", "mcp-server/index.js", "mcp-server/server.js")],
    "c6": [("deleted", "src/lib/aiAgentSession.ts", None)],
    "c7": [("modified", "mcp-server/vault.js", "mcp-server/vault.js")],
}

# Everything resting on mcp-server/vault.js, read off the seeds: the six workflow-report statements
# citing it (L39 is the quotation statement, citing it through its attribution), then the synthesis
# statements citing "workflow account" (the Workflow account section holds L11, which cites it).
# Conclusions (synthesis statements; L27 is a Limitations row) come first.
VAULT_STATEMENTS = [
    "tolaria/synthesis#L11", "tolaria/synthesis#L12", "tolaria/synthesis#L16", "tolaria/synthesis#L27",
    "tolaria/workflow-report#L11", "tolaria/workflow-report#L27", "tolaria/workflow-report#L33",
    "tolaria/workflow-report#L39", "tolaria/workflow-report#L43", "tolaria/workflow-report#L45",
]
VAULT_SECTIONS = [
    "tolaria/synthesis#L3", "tolaria/synthesis#L10", "tolaria/synthesis#L15", "tolaria/synthesis#L22",
    "tolaria/workflow-report#L5", "tolaria/workflow-report#L7", "tolaria/workflow-report#L25",
    "tolaria/workflow-report#L35",
]
VAULT_DOCUMENTS = ["tolaria/synthesis", "tolaria/workflow-report"]
THROUGH_WORKFLOW_ACCOUNT = ("tolaria/ref/workflow-account", "tolaria/workflow-report#L5",
                            "tolaria/workflow-report#L7", "tolaria/workflow-report#L11", VAULT)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> ImpactRepo:
    return build_impact_repo(tmp_path_factory.mktemp("impact") / "tolaria")


@pytest.fixture(scope="module")
def repo(built) -> GitRepository:
    return GitRepository(built.path)


@pytest.fixture
def seeded(store):
    """The store fixture (embedded and Neo4j) holding the three seeds."""
    ingest_into(store, SEEDS)
    return store


def impact(store, repo, built, to, frm="c0", **kwargs):
    return impact_of(store, repo, to_revision=built[to], from_revision=built[frm] if frm else None,
                     set_id=kwargs.pop("set_id", "tolaria"), **kwargs)


def changes_of(report):
    return [(c.status, c.path, c.new_path) for c in report.changes]


def states_of(report):
    return tuple({q.quotation: q.state for q in report.quotations}[q] for q in (Q31, Q39, Q51, Q61))


def test_changed_files_and_quotation_states_per_commit(seeded, repo, built):
    for commit, (changes, uncited, states) in FROM_C0.items():
        report = impact(seeded, repo, built, commit)
        assert changes_of(report) == changes, commit
        assert list(report.uncited_changes) == uncited, commit
        assert states_of(report) == states, commit
        assert (report.from_revision, report.to_revision) == (built["c0"], built[commit])


def test_changed_files_commit_by_commit(seeded, repo, built):
    previous = "c0"
    for commit, changes in STEP.items():
        assert changes_of(impact(seeded, repo, built, commit, frm=previous)) == changes, commit
        previous = commit


def test_an_uncited_change_flags_nothing(seeded, repo, built):
    report = impact(seeded, repo, built, "c1")
    assert report.changes == () and report.suspects == () and report.reviewed == ()
    assert report.uncited_changes == ("README.md",)
    # README.md now also holds the index.js sentence: the attributed file still has it once, so intact.
    assert report.quotations[0].found_in[0].path == "mcp-server/index.js"
    assert report.summary.intact == 4 and report.summary.changed_files == 0


def test_exact_suspects_of_a_vault_js_change(seeded, repo, built):
    report = impact(seeded, repo, built, "vault_only")
    assert changes_of(report) == [("modified", "mcp-server/vault.js", "mcp-server/vault.js")]
    assert states_of(report) == ("intact",) * 4
    assert [s.node for s in report.suspects] == VAULT_STATEMENTS + VAULT_SECTIONS + VAULT_DOCUMENTS
    assert {s.trigger for s in report.suspects} == {VAULT}
    assert {s.change for s in report.suspects} == {"modified mcp-server/vault.js"}
    by_node = {s.node: s for s in report.suspects}
    assert [s.node for s in report.suspects if s.conclusion] == VAULT_STATEMENTS[:4]
    for node in VAULT_STATEMENTS[:4]:
        assert (by_node[node].depth, by_node[node].path) == (2, (node, *THROUGH_WORKFLOW_ACCOUNT)), node
    for node in VAULT_STATEMENTS[4:]:
        assert (by_node[node].depth, by_node[node].path, by_node[node].edges) == (1, (node, VAULT), ("CITES",)), node
    row = by_node["tolaria/synthesis#L27"]
    assert (row.kind, row.section_heading) == ("statement", "Limitations")
    assert row.text.startswith("| Wiring is not observed operation or benefit. |")
    assert by_node["tolaria/workflow-report#L35"].text == "4. Verification can reject staleness, not establish correctness"
    assert by_node["tolaria/workflow-report"].text == "Tolaria workflow report"
    s = report.summary
    assert (s.statements, s.records, s.sections, s.documents, s.conclusions, s.reviewed) == (10, 0, 8, 2, 4, 0)


def test_moved_quotation_reports_both_places(seeded, repo, built):
    q = {q.quotation: q for q in impact(seeded, repo, built, "c3").quotations}[Q39]
    assert (q.state, q.checked_path, [(o.path, o.count) for o in q.found_in]) == (
        "moved", "mcp-server/vault.js", [("mcp-server/mtime-guard.js", 1)])
    assert q.reason == "not in mcp-server/vault.js; occurs once in mcp-server/mtime-guard.js"
    assert (q.old.path, q.old.revision, q.old.start_line, q.old.end_line) == ("mcp-server/vault.js", built["c0"], 24, 29)
    assert (q.new.path, q.new.revision, q.new.start_line, q.new.end_line) == (
        "mcp-server/mtime-guard.js", built["c3"], 5, 10)
    assert q.old.text.splitlines()[0] == "  if (expectedMtime === undefined || expectedMtime === null) return"
    assert q.old.text == q.new.text
    assert q.diff.splitlines()[:2] == [f"--- a/mcp-server/vault.js@{built['c0'][:12]}:22",
                                       f"+++ b/mcp-server/mtime-guard.js@{built['c3'][:12]}:3"]
    assert q.describe() == "moved quotation of mcp-server/vault.js (now in mcp-server/mtime-guard.js)"


def test_broken_quotation_shows_what_replaced_it(seeded, repo, built):
    report = impact(seeded, repo, built, "c2")
    q = {q.quotation: q for q in report.quotations}[Q61]
    assert (q.state, q.found_in, q.statement) == ("broken", (), "tolaria/workflow-report#L61")
    assert q.reason == "not in src/lib/aiAgentStreamCallbacks.ts, nor anywhere else in the repository"
    assert (q.old.start_line, q.old.end_line, q.new.start_line, q.new.end_line) == (13, 15, 13, 15)
    changed = [line for line in q.diff.splitlines() if line[:1] in "+-" and line[:3] not in ("---", "+++")]
    assert changed == [
        "-      action.status === 'pending' ? { ...action, status: 'done' as const } : action",
        "+      action.status === 'pending' ? { ...action, status: 'completed' as const } : action",
    ]
    # The quotation statement rests on the broken quotation and on its changed file: both depth 1.
    quoting = {s.node: s for s in report.suspects}["tolaria/workflow-report#L61"]
    assert quoting.depth == 1 and quoting.trigger in (Q61, "tolaria/file/src/lib/aiAgentStreamCallbacks.ts")


def test_no_fuzzy_matching_against_a_lookalike(seeded, repo, built):
    # failMessage keeps `action.status === 'pending' ? { ...action, status: 'error' as const }` with a
    # typed `(action: AgentAction)`: close, but not the quotation, so Q61 is broken, never moved.
    report = impact(seeded, repo, built, "c7")
    assert {q.quotation: q.state for q in report.quotations}[Q61] == "broken"


def test_duplicated_quotation_is_ambiguous(seeded, repo, built):
    q = {q.quotation: q for q in impact(seeded, repo, built, "c4").quotations}[Q51]
    assert (q.state, [(o.path, o.count) for o in q.found_in], q.diff, q.old) == (
        "ambiguous", [("mcp-server/index.js", 2)], "", None)


def test_renamed_file_keeps_its_citations_and_quotations(seeded, repo, built):
    report = impact(seeded, repo, built, "c5", frm="c4")
    (index,) = report.changes
    assert (index.file, index.renamed, index.describe()) == (
        "tolaria/file/mcp-server/index.js", True, "renamed mcp-server/index.js → mcp-server/server.js")
    assert index.cited_by == (
        "tolaria/workflow-report#L9", "tolaria/workflow-report#L11", "tolaria/workflow-report#L27",
        "tolaria/workflow-report#L31", "tolaria/workflow-report#Q31", "tolaria/workflow-report#L51",
        "tolaria/workflow-report#Q51", "tolaria/workflow-report#L53", "tolaria/workflow-report#L57")
    q31 = {q.quotation: q for q in report.quotations}[Q31]
    assert (q31.state, q31.checked_path) == ("intact", "mcp-server/server.js")
    assert q31.reason == "occurs once in mcp-server/server.js (renamed from mcp-server/index.js)"
    assert {s.change for s in report.suspects} >= {"renamed mcp-server/index.js → mcp-server/server.js"}


def test_paths_refer_to_the_from_revision(seeded, repo, built):
    # From c5, where index.js is already server.js, nothing renames it: Q31 is looked for everywhere
    # and found in server.js and in README.md.
    q31 = {q.quotation: q for q in impact(seeded, repo, built, "c6", frm="c5").quotations}[Q31]
    assert (q31.state, q31.checked_path, [o.path for o in q31.found_in]) == (
        "ambiguous", "mcp-server/index.js", ["README.md", "mcp-server/server.js"])


def test_deleted_cited_file_flags_its_citers(seeded, repo, built):
    report = impact(seeded, repo, built, "c6", frm="c5")
    assert changes_of(report) == [("deleted", "src/lib/aiAgentSession.ts", None)]
    direct = [s.node for s in report.suspects if s.depth == 1 and s.kind == "statement"
              and s.trigger == "tolaria/file/src/lib/aiAgentSession.ts"]
    assert direct == ["tolaria/workflow-report#L11", "tolaria/workflow-report#L15", "tolaria/workflow-report#L63"]


def test_default_from_is_the_pinned_commit(store, repo, built, tmp_path):
    for seed in SEEDS.iterdir():
        (tmp_path / seed.name).write_text(seed.read_text(encoding="utf-8").replace(PINNED, built["c0"]),
                                          encoding="utf-8")
    ingest_into(store, tmp_path)
    pinned = impact_of(store, repo, to_revision="main", set_id="tolaria")
    assert pinned.from_revision == built["c0"] and pinned.source == "tolaria/SRC-1"
    assert pinned == impact(store, repo, built, "c7")


def test_missing_pinned_revision(seeded, repo):
    with pytest.raises(RevisionNotFound, match=f"the pinned revision of tolaria/SRC-1 is missing: "
                                               f"revision '{PINNED}' is not a commit of"):
        impact_of(seeded, repo, to_revision="main", set_id="tolaria")


def test_bad_scope_and_revisions(seeded, repo, built):
    with pytest.raises(RevisionNotFound, match="revision 'nope' is not a commit"):
        impact_of(seeded, repo, to_revision="nope", from_revision=built["c0"], set_id="tolaria")
    with pytest.raises(AmbiguousScope, match="the store holds 2 analysis sets: talorys, tolaria"):
        impact_of(seeded, repo, to_revision="main", from_revision=built["c0"])
    with pytest.raises(NodeNotFound, match="set tolaria has no source SRC-9"):
        impact_of(seeded, repo, to_revision="main", from_revision=built["c0"], set_id="tolaria", source_id="SRC-9")
    with pytest.raises(SourceRepositoryError, match="set demo pins no source revision"):
        impact_of(demo_store(), repo, to_revision="main")


def test_normalisation_is_exact_apart_from_what_the_rendering_drops():
    quote = "return { content: [{ type: 'text', text: Error: ${error.message} }], isError: true, }"
    source = "    return {\n      content: [{ type: 'text', text: `Error: ${error.message}` }],\n      isError: true,\n    }"
    assert normalise_quotation(quote, plain=True) in normalise_quotation(source, plain=True)
    assert normalise_quotation(quote, plain=False) not in normalise_quotation(source, plain=False)
    assert normalise_quotation("a  b", plain=True) != normalise_quotation("a b.", plain=True)


# -- reviews ---------------------------------------------------------------------------------------

AT = datetime(2026, 10, 20, 9, 30, tzinfo=UTC)


def test_a_review_clears_a_suspect_until_its_evidence_changes_again(seeded, repo, built):
    node = "tolaria/workflow-report#L43"  # cites mcp-server/vault.js (and RT-RTE-mcp-write) only
    assert node in [s.node for s in impact(seeded, repo, built, "c3").suspects]
    review = Review.from_node(review_suspect(seeded, node, revision="main~4", reviewer="ada",
                                             note="guard moved, text holds", at=AT, repo=repo))
    assert (review.id, review.revision, review.at) == (review_node_id(node, built["c3"]), built["c3"],
                                                       "2026-10-20T09:30:00+00:00")

    unchanged = impact(seeded, repo, built, "c3")
    assert node not in [s.node for s in unchanged.suspects]
    assert [(s.node, s.review) for s in unchanged.reviewed] == [(node, review)]
    assert unchanged.summary.reviewed == 1

    # index.js changes and is renamed after c3; nothing node rests on changes: still cleared.
    for later in ("c4", "c5", "c6"):
        report = impact(seeded, repo, built, later)
        assert [s.node for s in report.reviewed] == [node], later
        assert "tolaria/synthesis#L12" in [s.node for s in report.suspects], later  # not reviewed

    # c7 edits vault.js again: flagged again.
    again = impact(seeded, repo, built, "c7")
    assert node in [s.node for s in again.suspects] and again.reviewed == ()


def test_a_review_of_a_quotation_suspect_survives_while_the_drift_is_unchanged(seeded, repo, built):
    node = "tolaria/workflow-report#L61"  # quotes Q61, broken since c2
    review_suspect(seeded, node, revision=built["c2"], reviewer="ada", at=AT)
    assert [s.node for s in impact(seeded, repo, built, "c7").reviewed] == [node]


def test_reviews_that_do_not_apply(seeded, repo, built):
    node = "tolaria/workflow-report#L43"
    review_suspect(seeded, node, revision=built["c3"], reviewer="ada", at=AT)
    # Another branch: vault_only does not descend from c3.
    assert node in [s.node for s in impact(seeded, repo, built, "vault_only").suspects]
    # A revision the repository does not hold.
    review_suspect(seeded, "tolaria/workflow-report#L45", revision="f" * 40, reviewer="ada", at=AT)
    assert "tolaria/workflow-report#L45" in [s.node for s in impact(seeded, repo, built, "c3").suspects]
    # A review of other content (the fingerprint no longer matches the node).
    seeded.put_reviews([Node(review_node_id("tolaria/workflow-report#L33", built["c3"]), Label.REVIEW, "tolaria",
                             None, {"node": "tolaria/workflow-report#L33", "revision": built["c3"], "reviewer": "x",
                                    "at": "2026-10-20T09:30:00+00:00", "note": None, "fingerprint": "0" * 64})])
    assert "tolaria/workflow-report#L33" in [s.node for s in impact(seeded, repo, built, "c3").suspects]


def test_reviews_are_listed_and_survive_reingest(seeded, built):
    review_suspect(seeded, "tolaria/synthesis#L29", revision=built["c3"], reviewer="ada", note="n", at=AT)
    review_suspect(seeded, "tolaria/synthesis#L12", revision=built["c3"], reviewer="bo", at=AT)
    seeded.delete_documents(["tolaria/synthesis", "tolaria/workflow-report"])
    assert seeded.get_nodes(["tolaria/synthesis#L29"]) == {}
    ingest_into(seeded, SEEDS)
    listed = reviews_of(seeded, set_id="tolaria")
    assert [(r.node, r.reviewer, r.note) for r in listed] == [
        ("tolaria/synthesis#L12", "bo", None), ("tolaria/synthesis#L29", "ada", "n")]
    assert [r.node for r in reviews_of(seeded, node_id="tolaria/synthesis#L29")] == ["tolaria/synthesis#L29"]
    assert reviews_of(seeded, set_id="talorys") == ()


def test_review_input_errors(seeded, repo):
    with pytest.raises(NodeNotFound, match="no node 'tolaria/synthesis#L999'"):
        review_suspect(seeded, "tolaria/synthesis#L999", revision="a" * 40, reviewer="ada")
    with pytest.raises(CitegraphError, match="is a Quotation"):
        review_suspect(seeded, Q61, revision="a" * 40, reviewer="ada")
    with pytest.raises(CitegraphError, match="'main' is not a full commit id"):
        review_suspect(seeded, "tolaria/synthesis#L29", revision="main", reviewer="ada")
    with pytest.raises(RevisionNotFound):
        review_suspect(seeded, "tolaria/synthesis#L29", revision="nope", reviewer="ada", repo=repo)
    assert reviews_of(seeded) == ()


def test_put_reviews_contract(store):
    ingest_into(store, SEED_WORKFLOW)
    review = Node("review/x@y", Label.REVIEW, "tolaria", None, {"node": "x", "revision": "y"})
    assert store.put_reviews([]) == 0
    with pytest.raises(CitegraphError):
        store.put_reviews([review, Node("n", Label.STATEMENT, "tolaria", None, {})])
    assert store.find_nodes(Label.REVIEW) == []
    assert store.put_reviews([review]) == 1
    assert store.put_reviews([Node("review/x@y", Label.REVIEW, "tolaria", None, {"node": "x", "note": "2"})]) == 1
    assert [n.props for n in store.find_nodes(Label.REVIEW, set_id="tolaria")] == [{"node": "x", "note": "2"}]
    store.delete_documents(["tolaria/workflow-report"])  # the set goes away; its reviews stay
    assert store.get_nodes(["tolaria"]) == {}
    assert [n.id for n in store.find_nodes(Label.REVIEW, where={"node": "x"})] == ["review/x@y"]
    assert store.counts()["Review"] == 1
