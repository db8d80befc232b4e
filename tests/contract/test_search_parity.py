"""Search parity: the embedded store's FTS5 index and Neo4j's full-text index give the
same statements for the same phrases, so ``queries.search`` ranks the same hits, with the same
snippets, on both. The corpora are the seeds and the Dynamic Cheatsheet set (``pair``)."""

from __future__ import annotations

from collections import Counter

import pytest

from graph.model import Label
from graph.text import Phrase, words
from queries.search import search
from tests.contract.test_parity import answer, pair  # noqa: F401 (the fixture)

pytestmark = pytest.mark.neo4j


def _vocabulary(store) -> list[str]:
    counts = Counter(w for n in store.find_nodes(Label.STATEMENT) for w in set(words(n.get("text") or "")))
    return sorted(counts, key=lambda w: (-counts[w], w))


def test_every_word_finds_the_same_statements(pair):  # noqa: F811
    embedded, neo4j = pair
    vocabulary = _vocabulary(embedded)
    assert len(vocabulary) > 700
    differing = [w for w in vocabulary[:400] + vocabulary[-100:]
                 if answer(lambda: embedded.search([Phrase((w,))])) != answer(lambda: neo4j.search([Phrase((w,))]))]
    assert differing == []
    for prefix in sorted({w[:3] for w in vocabulary[:60]} | {"a", "2"}):
        got = embedded.search([Phrase((prefix,), prefix=True)])
        assert got and answer(lambda: got) == answer(lambda: neo4j.search([Phrase((prefix,), prefix=True)]))


@pytest.mark.parametrize("query", [
    "compare-and-swap", "mcp-server/vault.js", '"the note" write*', "RT-RTE-mcp-write", "SRC-1 vault",
    "memory", "the", "cheatsheet curator", "2026", "a*", "nothing-like-this-anywhere",
])
def test_search_answers_agree(pair, query):  # noqa: F811
    embedded, neo4j = pair
    assert answer(lambda: search(embedded, query, limit=200)) == answer(lambda: search(neo4j, query, limit=200))
    for set_id in [s.id for s in embedded.find_nodes(Label.ANALYSIS_SET)] + ["nope"]:
        assert (answer(lambda: search(embedded, query, set_id=set_id, limit=5))
                == answer(lambda: search(neo4j, query, set_id=set_id, limit=5)))
