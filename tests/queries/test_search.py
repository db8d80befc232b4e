"""``queries.search``: ranked full-text hits with snippets on the seeds and the Dynamic Cheatsheet set."""

from __future__ import annotations

import re

import pytest

from graph.errors import AnalysisSetNotFound, InvalidQuery, QueryLimitExceeded
from graph.model import Label
from graph.stores.sqlite import SQLiteStore
from queries.search import SNIPPET_CHARS, parse_query, search
from queries.shapes import plain
from tests.conftest import CORPUS, ingest_into

KB = CORPUS / "commonplace" / "kb" / "agentic-system-analyses"
DC = "AAS-2026-10-04-dynamic-cheatsheet-01"


@pytest.fixture(scope="module")
def dc_store():
    store = SQLiteStore(None)
    ingest_into(store, KB / "retained" / "dynamic-cheatsheet", KB / "retained-archive" / DC)
    return store


def containing(store, pattern: str) -> set[str]:
    """Statements whose text matches ``pattern`` (a regex, case-insensitive): the independent answer."""
    return {n.id for n in store.find_nodes(Label.STATEMENT) if re.search(pattern, n.get("text") or "", re.I)}


def test_compare_and_swap_on_the_seeds(seeds_store):
    report = search(seeds_store, "compare-and-swap")
    assert {h.statement for h in report.hits} == containing(seeds_store, r"compare-and-swap")
    assert (report.total, [h.statement for h in report.hits]) == (
        2, ["tolaria/workflow-report#L43", "tolaria/synthesis#L12"])  # one match each: the shorter first
    first = report.hits[0]
    assert (first.rank, first.set, first.document, first.section, first.section_heading, first.block.kind, first.block.line) == (
        1, "tolaria", "tolaria/workflow-report", "tolaria/workflow-report#L35",
        "4. Verification can reject staleness, not establish correctness", "paragraph", 43)
    assert first.snippet == ("…followed by a separate write is not atomic compare-and-swap. A concurrent change "
                             "after the comparison can escape detection. Passing the guard says nothing…")
    assert [first.snippet[a:b] for a, b in first.highlights] == ["compare-and-swap"]
    assert report.hits[1].section_heading == "From assignment to a changed note"
    assert plain(report)["hits"][0]["highlights"] == [[44, 60]]


def test_ranking_counts_occurrences_then_prefers_shorter_statements(seeds_store):
    report = search(seeds_store, '"the note" write*', limit=6)
    assert report.total == 6
    assert [(h.statement, h.matches) for h in report.hits] == [
        ("tolaria/workflow-report#L45", 4), ("tolaria/synthesis#L12", 4), ("tolaria/workflow-report#L31", 3),
        ("tolaria/workflow-report#L43", 3), ("tolaria/workflow-report#L57", 3), ("tolaria/synthesis#L16", 3)]
    keys = [(-h.matches, len(h.block.text)) for h in report.hits]
    assert keys == sorted(keys) and keys[0][1] < keys[1][1]  # equal matches: the denser statement first
    hit = report.hits[0]
    assert {hit.snippet[a:b].lower() for a, b in hit.highlights} <= {"the note", "write", "writes", "written"}


def test_file_paths_and_record_ids_are_phrases_of_their_words(seeds_store):
    report = search(seeds_store, "mcp-server/vault.js", limit=50)
    assert {h.statement for h in report.hits} == containing(seeds_store, r"mcp-server/vault\.js")
    assert report.total == 6
    assert {h.statement for h in search(seeds_store, "RT-RTE-mcp-write", limit=50).hits} == containing(
        seeds_store, r"RT-RTE-mcp-write")


def test_set_filter_limit_and_errors(seeds_store):
    assert search(seeds_store, "the", set_id="talorys", limit=200).total == 15
    assert {h.set for h in search(seeds_store, "the", set_id="talorys", limit=200).hits} == {"talorys"}
    assert len(search(seeds_store, "the", limit=3).hits) == 3 and search(seeds_store, "the").total == 51
    assert search(seeds_store, "nothing-like-this").total == 0
    with pytest.raises(AnalysisSetNotFound) as unknown:
        search(seeds_store, "vault", set_id="Tolaria")
    assert unknown.value.hint is not None and unknown.value.hint.startswith("did you mean tolaria? the store holds 2 sets: talorys, tolaria")
    with pytest.raises(InvalidQuery, match="holds no word"):
        search(seeds_store, " -- ** ")
    with pytest.raises(QueryLimitExceeded):
        search(seeds_store, "vault", limit=0)


def test_markdown_set_hits(dc_store):
    report = search(dc_store, "checkpoint resume", limit=3)
    assert report.total == len(containing(dc_store, r"\bcheckpoint\b.*\bresume\b|\bresume\b.*\bcheckpoint\b")) == 21
    assert [(h.statement, h.matches) for h in report.hits] == [
        (f"{DC}/epistemic#L18", 4), (f"{DC}/memory#L20", 4), (f"{DC}/overview#L90", 4)]
    assert all(len(h.snippet) <= SNIPPET_CHARS + 2 for h in search(dc_store, "curator", limit=50).hits)


def test_query_syntax():
    assert [(p.words, p.prefix) for p in parse_query('compare-and-swap "Vault JS" vau* x*y')] == [
        (("compare", "and", "swap"), False), (("vault", "js"), False), (("vau",), True), (("x", "y"), False)]
    assert parse_query("a a A") == parse_query("a")


def test_curly_quotes_make_a_phrase_as_straight_ones_do(seeds_store):
    """The corpus writes “curly” quotes, and analysts paste them into a search."""
    phrase = ["tolaria/workflow-report#L31", "tolaria/workflow-report#L57", "tolaria/workflow-report#L45",
              "tolaria/workflow-report#L39", "tolaria/workflow-report#L43", "tolaria/synthesis#L16",
              "tolaria/synthesis#L12", "talorys/synthesis#L18"]
    for text in ('"the note"', "“the note”", "„the note“"):
        assert [h.statement for h in search(seeds_store, text).hits] == phrase, text
    assert search(seeds_store, "the note").total == 22  # the words anywhere
