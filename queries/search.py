"""Full-text search over statements: ranked hits with highlighted snippets.

The store's own full-text index finds the statements holding every phrase of the query
(:meth:`graph.store.GraphStore.search`: SQLite FTS5 in the embedded store, a Lucene full-text
index in Neo4j); the ranking, the snippets and the highlights are computed here from each
statement's text, so both stores give the same answer.

Query text
----------
Words are :func:`graph.text.words`: runs of letters and digits, compared in lower case. A term
written without spaces is a phrase of its words (``compare-and-swap`` is the words ``compare and
swap`` in a row; ``mcp-server/vault.js`` the words ``mcp server vault js``); ``"a quoted text"``
is one phrase; a one-word term ending in ``*`` (``vau*``) matches every word it begins. A statement
is a hit when it holds every phrase.

Ranking
-------
1. more occurrences of the query's phrases in the statement first;
2. then the shorter statement (fewer characters: the denser one);
3. then document order: set, document id, block order.
"""

from __future__ import annotations

from typing import Any

import re
from dataclasses import dataclass, field

from domain.model import Statement
from domain.wire import flat
from graph.codec import block_order, block_text, node_name, statement_of
from graph.errors import InvalidQuery, QueryLimitExceeded
from graph.model import EdgeKind, Label, Node
from graph.store import SEARCH_FIELDS, Direction, GraphStore, SupportsRankedSearch, projected
from graph.text import Phrase, count, holds, occurrences, word_spans
from queries.names import require_set

__all__ = ["MAX_LIMIT", "MAX_PHRASES", "SNIPPET_CHARS", "parse_query", "SearchHit", "SearchReport", "search"]

MAX_LIMIT = 200
"""Most hits one search returns (``limit`` 1..200)."""
MAX_PHRASES = 16
"""Most phrases one query may hold."""
SNIPPET_CHARS = 160
"""Longest snippet, in characters (before the ``…`` marks)."""

_TERM = re.compile(r'["“”„]([^"“”„]*)["“”„]?|(\S+)')
"""A quoted phrase (straight or curly double quotes, as the corpus writes them and analysts paste
them: ``“only path”``) or a bare term."""


def parse_query(text: str) -> tuple[Phrase, ...]:
    """The phrases of a query text (see the module docstring), without repeats, in order.

    Raises
    ------
    InvalidQuery
        The text holds no word.
    QueryLimitExceeded
        More than :data:`MAX_PHRASES` phrases.

    Examples
    --------
    >>> [(p.words, p.prefix) for p in parse_query('compare-and-swap "Vault JS" vau* x*y')]
    [(('compare', 'and', 'swap'), False), (('vault', 'js'), False), (('vau',), True), (('x', 'y'), False)]
    >>> [p.words for p in parse_query('“only path” and')]
    [('only', 'path'), ('and',)]
    """
    phrases: list[Phrase] = []
    for quoted, bare in _TERM.findall(text):
        term = quoted if quoted or not bare else bare
        found = [w for w, _, _ in word_spans(term)]
        if not found:
            continue
        prefix = not quoted and term.endswith("*") and len(found) == 1
        phrase = Phrase(tuple(found), prefix=prefix)
        if phrase not in phrases:
            phrases.append(phrase)
    if not phrases:
        raise InvalidQuery(f"the search text {text!r} holds no word",
                           hint='search for words, e.g. compare-and-swap, "vault js" or vau*')
    if len(phrases) > MAX_PHRASES:
        raise QueryLimitExceeded(f"a search takes at most {MAX_PHRASES} terms, not {len(phrases)}")
    return tuple(phrases)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One statement holding the query.

    ``rank`` (1-based); ``block``, the domain
    :class:`~domain.model.Statement` hit, as the search brings it (its ``kind``, ``text``, ``line``
    and ``order``, :data:`graph.store.SEARCH_FIELDS`); ``set``, ``document``, ``section`` (innermost section
    id, or None) and ``section_heading``; ``snippet`` (at most :data:`SNIPPET_CHARS` characters of
    the text around the first match, ``…`` where cut), ``highlights`` (``(start, end)`` character
    offsets of each match inside ``snippet``), ``matches`` (occurrences of the query's phrases in
    the whole text). On the wire it is flat: ``rank``, ``statement`` (the node id, e.g.
    ``tolaria/synthesis#L12``: pass it on to ``render`` or GraphQL ``graphNode``), ``set``,
    ``document``, ``section``, ``section_heading``, ``kind`` (statement kind), ``line``, ``text``
    (whole), ``snippet``, ``highlights``, ``matches``.
    """

    rank: int
    block: Statement = field(metadata=flat("statement", "set", "document", "section", "section_heading", "kind",
                                           "line", "text"))
    set: str
    document: str
    section: str | None
    section_heading: str | None
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    matches: int

    @property
    def statement(self) -> str:
        """The node id of the statement hit."""
        return self.block.node


@dataclass(frozen=True, slots=True)
class SearchReport:
    """Answer to a search: ``query`` as asked, ``set`` filter (or None), ``total`` statements
    holding it, ``hits`` the best ``limit`` of them in rank order. Its JSON (``search --format
    json``, the REST body) is :func:`queries.shapes.plain` of it (``highlights`` as ``[[start, end], …]``)."""

    query: str
    set: str | None
    total: int
    hits: tuple[SearchHit, ...]


def _spans(text: str, phrases: tuple[Phrase, ...]) -> list[tuple[int, int]]:
    """Character spans of every occurrence of ``phrases`` in ``text``, in order."""
    spans = list(word_spans(text))
    text_words = [w for w, _, _ in spans]
    found: list[tuple[int, int]] = []
    for phrase in phrases:
        n = len(phrase.words)
        found += [(spans[i][1], spans[i + n - 1][2]) for i in occurrences(text_words, phrase)]
    return sorted(found)


def _snippet(text: str, spans: list[tuple[int, int]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The text around the first match, cut at spaces, with the matches inside it."""
    start, end = 0, len(text)
    if len(text) > SNIPPET_CHARS and spans:
        start = max(0, spans[0][0] - SNIPPET_CHARS // 4)
        if start:
            space = text.rfind(" ", 0, start + 1)
            start = space + 1 if space >= 0 else start
        end = min(len(text), start + SNIPPET_CHARS)
        if end < len(text):
            space = text.rfind(" ", max(start, spans[0][1]), end)
            end = space if space > spans[0][1] else max(end, spans[0][1])
    head = "…" if start else ""
    tail = "…" if end < len(text) else ""
    snippet = head + text[start:end].strip() + tail
    shift = len(head) - start - (len(text[start:end]) - len(text[start:end].lstrip()))
    inside = tuple((a + shift, b + shift) for a, b in spans if a >= start and b <= end)
    return snippet, inside


def search(store: GraphStore, text: str, *, set_id: str | None = None, limit: int = 20) -> SearchReport:
    """Statements holding ``text``, ranked, with highlighted snippets.

    Parameters
    ----------
    store : GraphStore
        Any backend; its full-text index finds the statements (one ``store.search`` call).
    text : str
        The query (module docstring), e.g. ``"compare-and-swap"``.
    set_id : str, optional
        Only statements of this analysis set.
    limit : int, default 20
        Most hits returned, 1..:data:`MAX_LIMIT`; ``total`` counts them all.

    Returns
    -------
    SearchReport
        Hits in rank order (module docstring), each with its snippet and section.

    Raises
    ------
    InvalidQuery
        ``text`` holds no word.
    QueryLimitExceeded
        ``limit`` outside 1..:data:`MAX_LIMIT`, or too many phrases.
    AnalysisSetNotFound
        ``set_id`` is not in the store (the hint names the closest sets).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(h.statement, h.snippet, h.highlights) for h in search(demo_store(), "note").hits]
    [('demo/synthesis#L4', 'Writes replace the note (RT-RTE-x).', ((19, 23),))]

    Notes
    -----
    Store calls: the set check (when ``set_id``), ``search``, then for the returned hits only the
    CONTAINS edges into them and their sections. Without ``set_id``, a store that ranks a search
    itself (:class:`~graph.store.SupportsRankedSearch`: the embedded store, for phrases of one
    word) answers the best ``limit`` hits and the total instead of ``search``, and only the hits
    returned are read; they are checked against the rule above.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise QueryLimitExceeded(f"limit must be between 1 and {MAX_LIMIT} hits, not {limit}")
    phrases = parse_query(text)
    require_set(store, set_id)
    ranked = _ranked_in_store(store, phrases, limit) if set_id is None else None
    if ranked is not None:
        best, total = ranked
    else:
        scored = [_scored(node, phrases) for node in store.search(phrases, set_id=set_id)]
        scored.sort(key=lambda s: s[0])
        best, total = scored[:limit], len(scored)
    ids = [node.id for _, node, _ in best]
    parents = store.edges(ids, kinds=[EdgeKind.CONTAINS], direction=Direction.IN)
    section_of = {i: min((e.src for e in parents[i] if "#" in e.src), default=None) for i in ids}
    sections = store.get_nodes({s for s in section_of.values() if s})
    hits = []
    for rank, (_, node, matches) in enumerate(best, 1):
        block = statement_of(node)
        snippet, highlights = _snippet(block.text, _spans(block.text, phrases))
        section = section_of[node.id]
        hits.append(SearchHit(
            rank=rank, block=block, set=node.set_id or "", document=node.document_id or "",
            section=section, section_heading=node_name(sections[section]) if section in sections else None,
            snippet=snippet, highlights=highlights, matches=matches))
    return SearchReport(text, set_id, total, tuple(hits))


def _scored(node: Node, phrases: tuple[Phrase, ...]) -> tuple[tuple[Any, ...], Node, int]:
    """``(rank key, node, matches)`` of a hit: the key sorts as the module docstring ranks."""
    body = block_text(node)
    matches = sum(count(body, p) for p in phrases)  # the rank needs counts only: no tokenising here
    return (-matches, len(body), node.set_id or "", node.document_id or "", block_order(node), node.id), node, matches


def _ranked_in_store(store: GraphStore, phrases: tuple[Phrase, ...], limit: int) -> tuple[list[Any], int] | None:
    """The best ``limit`` hits, scored, and the total, from a store that ranks a search itself
    (:class:`~graph.store.SupportsRankedSearch`), each hit checked against :func:`_scored` and
    :func:`graph.text.holds`; None when the store cannot, or a hit is not what the rule says (then
    the caller ranks every hit of :meth:`~graph.store.GraphStore.search`)."""
    if not isinstance(store, SupportsRankedSearch):
        return None
    answer = store.ranked_search(phrases, limit=limit)
    if answer is None:
        return None
    found, total = answer
    nodes = store.get_nodes([i for i, _ in found])
    if len(nodes) != len(found) or not all(holds(block_text(nodes[i]), phrases) for i, _ in found):
        return None
    best = [_scored(projected(nodes[i], {Label.STATEMENT: SEARCH_FIELDS}), phrases) for i, _ in found]
    if [m for _, _, m in best] != [n for _, n in found] or [k for k, _, _ in best] != sorted(k for k, _, _ in best):
        return None  # the index counted otherwise than the rule (not expected: the same words)
    return best, total
