"""impact_on_repository: every set whose source register pins the repository (tests/impact_repo.py),
each from its own pinned commit, on every store.

The knowledge base: the seeds' ``tolaria`` pinned to c0, a copy of its two members named Toleria
(set ``toleria``) pinned to c5, a copy named Tolurio (set ``tolurio``) keeping the seeds' pin
48f2a70…, which the test clone lacks, and ``talorys``, whose register pins another repository
(https://github.com/rociiu/talorys, 003_68dfe0dcb1db1ebb.txt line 5). The pin is the commit in
line 5 of 000_a3dd65b871acf2aa.txt.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.errors import AnalysisSetNotFound, RevisionNotFound
from ingest.git import GitRepository
from queries.impact import impact_of, impact_on_repository, pins, repository_identity
from queries.shapes import plain
from tests.conftest import SEED_SYNTHESIS, SEED_TALORYS, SEED_WORKFLOW, ingest_into
from tests.impact_repo import ImpactRepo, build_impact_repo

PINNED = "48f2a70844c1e8005a7aa5f1499c66f7678360de"
TOLARIA = "https://github.com/refactoringhq/tolaria"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> ImpactRepo:
    return build_impact_repo(tmp_path_factory.mktemp("kb") / "tolaria")


def knowledge_base(folder: Path, built: ImpactRepo) -> Path:
    """The seeds folder described in the module docstring, written under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    copies = {"": built["c0"], "Toleria": built["c5"], "Tolurio": PINNED}
    for name, commit in copies.items():
        for seed in (SEED_SYNTHESIS, SEED_WORKFLOW):
            text = seed.read_text(encoding="utf-8").replace(PINNED, commit)
            if name:
                text = text.replace("Tolaria", name)
            (folder / f"{name or 'Tolaria'}-{seed.name}").write_text(text, encoding="utf-8")
    (folder / SEED_TALORYS.name).write_text(SEED_TALORYS.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


@pytest.fixture
def kb_store(store, built, tmp_path):
    ingest_into(store, knowledge_base(tmp_path / "kb", built))
    return store


def test_every_pinned_set_answers_exactly_its_single_set_impact(kb_store, built):
    repo = GitRepository(built.path)
    got = impact_on_repository(kb_store, repo, names=["refactoringhq/tolaria"], to_revision="main")
    assert got.to_revision == built["c7"]
    assert [(p.set, p.source, p.commit, p.state) for p in got.pinned] == [
        ("tolaria", "tolaria/SRC-1", built["c0"], "analysed"),
        ("toleria", "toleria/SRC-1", built["c5"], "analysed"),
        ("tolurio", "tolurio/SRC-1", PINNED, "missing-commit")]
    assert [p.set for p in got.unanalysed] == ["tolurio"]
    assert f"lacks the pinned commit {PINNED}" in got.unanalysed[0].reason
    # each report is that set's own impact from its pinned commit
    for report in got.sets:
        single = impact_of(kb_store, repo, to_revision="main", set_id=report.set)
        assert plain(report) == plain(single)
    assert {r.set: r.from_revision for r in got.sets} == {"tolaria": built["c0"], "toleria": built["c5"]}
    # ranked by conclusions affected, then suspect statements: from c5 the rename and the moved guard
    # are behind toleria already (4 conclusions, 15 statements); tolaria from c0 has 18
    ranked = [(r.set, r.summary.conclusions, r.summary.statements) for r in got.sets]
    assert ranked == [("tolaria", 4, 18), ("toleria", 4, 15)]
    assert got.summary.sets == 2 and got.summary.unanalysed == 1
    assert (got.summary.statements, got.summary.conclusions) == (33, 8)


def test_set_narrows_and_other_repositories_are_not_matched(kb_store, built):
    repo = GitRepository(built.path)
    narrowed = impact_on_repository(kb_store, repo, names=[TOLARIA + ".git"], to_revision="main", set_id="toleria")
    assert [r.set for r in narrowed.sets] == ["toleria"] and narrowed.unanalysed == ()
    talorys = impact_on_repository(kb_store, repo, names=["rociiu/talorys"], to_revision="main")
    assert [(p.set, p.state) for p in talorys.pinned] == [("talorys", "missing-commit")]
    nothing = impact_on_repository(kb_store, repo, names=["someone/else"], to_revision="main")
    assert (nothing.pinned, nothing.sets) == ((), ())
    with pytest.raises(AnalysisSetNotFound):
        impact_on_repository(kb_store, repo, names=[TOLARIA], set_id="nope")
    with pytest.raises(RevisionNotFound):
        impact_on_repository(kb_store, repo, names=[TOLARIA], to_revision="no-such-branch")


def test_repository_names_match_by_url_or_owner_and_name():
    assert repository_identity("ssh://git@github.com:22/refactoringhq/Tolaria.git/") == ("github.com",
                                                                                         "refactoringhq/tolaria")
    assert pins(TOLARIA, ["git@github.com:refactoringhq/tolaria.git"])
    assert pins(TOLARIA, ["refactoringhq/tolaria"])
    assert not pins(TOLARIA, ["https://gitlab.com/refactoringhq/tolaria"])  # another host
    assert not pins(TOLARIA, ["refactoringhq/tolaria-fork", "/srv/clones/tolaria"])
    assert not pins(None, ["refactoringhq/tolaria"])
