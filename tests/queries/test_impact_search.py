"""The search for moved quotations: the ``git grep`` prefilter (SupportsContaining) gives exactly the
answers of reading every file, and reads only the files it names."""

from __future__ import annotations

import random
import re
from datetime import datetime, UTC

import pytest

from graph.stores.sqlite import SQLiteStore
from ingest.git import GitRepository
from ingest.reviews import review_suspect
from queries.impact import SupportsContaining, impact_of, normalise_quotation
from queries.impact.quotations import quotation_fragment
from tests.conftest import SEEDS, ingest_into
from tests.impact_repo import ImpactRepo, build_impact_repo

COMMITS = ("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "vault_only")


class FullScan:
    """The repository without ``containing``: impact reads every file to look for moved quotations."""

    def __init__(self, repo: GitRepository):
        self._repo = repo
        self.reads: list[tuple[str, str]] = []

    def resolve(self, revision):
        return self._repo.resolve(revision)

    def changes(self, old, new):
        return self._repo.changes(old, new)

    def read(self, revision, paths):
        self.reads.extend((revision, p) for p in paths)
        return self._repo.read(revision, paths)

    def files(self, revision):
        return self._repo.files(revision)

    def is_ancestor(self, ancestor, descendant):
        return self._repo.is_ancestor(ancestor, descendant)


class Grep(FullScan):
    """FullScan plus the repository's ``containing``, recording what it is asked."""

    def __init__(self, repo: GitRepository):
        super().__init__(repo)
        self.searches: list[tuple[str, tuple[str, ...], str]] = []

    def containing(self, revision, fragments, *, skip=""):
        self.searches.append((revision, tuple(fragments), skip))
        return self._repo.containing(revision, fragments, skip=skip)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> ImpactRepo:
    return build_impact_repo(tmp_path_factory.mktemp("impact-search") / "tolaria")


@pytest.fixture(scope="module")
def store(built) -> SQLiteStore:
    """The seeds, with reviews at c3 so that reviews check quotation outcomes at another revision."""
    store = SQLiteStore(None)
    ingest_into(store, SEEDS)
    for node in ("tolaria/workflow-report#L39", "tolaria/synthesis#L11", "tolaria/workflow-report#L61"):
        review_suspect(store, node, revision=built["c3"], reviewer="ada",
                       at=datetime(2026, 10, 20, 9, 30, tzinfo=UTC))
    return store


def test_only_the_git_repository_offers_the_fast_path(built):
    repo = GitRepository(built.path)
    assert isinstance(repo, SupportsContaining) and isinstance(Grep(repo), SupportsContaining)
    assert not isinstance(FullScan(repo), SupportsContaining)


@pytest.mark.parametrize("frm", COMMITS)
def test_the_prefilter_gives_the_full_scans_report(store, built, frm):
    repo = GitRepository(built.path)
    for to in COMMITS:
        fast = impact_of(store, Grep(repo), from_revision=built[frm], to_revision=built[to], set_id="tolaria")
        slow = impact_of(store, FullScan(repo), from_revision=built[frm], to_revision=built[to], set_id="tolaria")
        assert fast == slow, (frm, to)


def test_moved_and_broken_quotations_cost_one_search_and_few_reads(store, built):
    repo = GitRepository(built.path)
    grep, full = Grep(repo), FullScan(repo)
    report = impact_of(store, grep, from_revision=built["c0"], to_revision=built["c3"], set_id="tolaria")
    impact_of(store, full, from_revision=built["c0"], to_revision=built["c3"], set_id="tolaria")
    assert {q.state for q in report.quotations} >= {"moved", "broken"}
    at_c3 = [s for s in grep.searches if s[0] == built["c3"]]
    assert len(at_c3) == 1 and len(at_c3[0][1]) == 2  # one search for the moved and the broken quotation
    read_fast = {p for r, p in grep.reads if r == built["c3"]}
    read_full = {p for r, p in full.reads if r == built["c3"]}
    assert read_full == set(repo.files(built["c3"]))
    assert "mcp-server/mtime-guard.js" in read_fast and read_fast < read_full


def test_nothing_is_searched_when_every_quotation_is_in_its_file(store, built):
    grep = Grep(GitRepository(built.path))
    impact_of(store, grep, from_revision=built["c0"], to_revision=built["c1"], set_id="tolaria")
    assert grep.searches == []


def _holds(text: str, fragment: str, plain: bool) -> bool:
    """``fragment`` occurs in ``text``, with backticks between its characters when ``plain``."""
    pattern = "`*".join(map(re.escape, fragment)) if plain else re.escape(fragment)
    return re.search(pattern, text) is not None


def test_a_needles_fragment_survives_in_every_file_that_holds_the_needle():
    """The lemma the prefilter rests on, over random texts mixing everything normalisation touches."""
    rng = random.Random(6)
    alphabet = ["a", "b", "é", "`", "`", ">", ">", " ", "\t", "\n", "\n", "\r", "\u00a0", "\u2028", "\ufffd",
                "\x00", "(", ".", "x`y", "\n> ", "\n  >>", "  "]
    checked = 0
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        plain = rng.random() < 0.6
        norm = normalise_quotation(text, plain=plain)
        if not norm:
            continue
        i = rng.randrange(len(norm))
        needle = norm[i:rng.randint(i + 1, len(norm))].strip()
        fragment = quotation_fragment(needle) if needle else None
        if fragment is None:
            continue
        assert needle == normalise_quotation(needle, plain=False) or plain
        assert "\ufffd" not in fragment and "\x00" not in fragment and not any(c.isspace() for c in fragment)
        assert _holds(text, fragment, plain), (text, plain, needle, fragment)
        checked += 1
    assert checked > 1000


def test_fragments():
    assert quotation_fragment("throw new Error( Note was modified, )") == "modified,"
    assert quotation_fragment("a\ufffdbcd ef") == "bcd"
    assert quotation_fragment("\ufffd \x00") is None
    assert len(quotation_fragment("x" * 500)) == 64
