"""Words of a statement's text as the full-text indexes of both stores see them (issue #15).

A *word* is a maximal run of letters, digits and private-use characters (Unicode categories
``L*``, ``N*`` and ``Co``), compared in lower case: exactly the tokens of SQLite FTS5's
``unicode61`` tokenizer with ``remove_diacritics 0`` (its default categories), which the embedded
store indexes, and the words the Neo4j store writes into each statement's ``search_words``
property for its ``whitespace``-analysed full-text index. ``compare-and-swap`` is the three words
``compare and swap``; ``mcp-server/vault.js`` is ``mcp server vault js``.

A :class:`Phrase` is a sequence of words that must occur consecutively; with ``prefix`` its one word
matches every word it begins. :func:`holds` is the exact rule a store's :meth:`search` answers by.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Iterator, Sequence

__all__ = ["Phrase", "words", "word_spans", "occurrences", "holds"]


def _is_word_char(ch: str) -> bool:
    category = unicodedata.category(ch)
    return category[0] in "LN" or category == "Co"


def word_spans(text: str) -> Iterator[tuple[str, int, int]]:
    """Each word of ``text`` in order as ``(word in lower case, start, end)``, offsets in characters.

    >>> list(word_spans("Compare-and-swap, SRC-1."))
    [('compare', 0, 7), ('and', 8, 11), ('swap', 12, 16), ('src', 18, 21), ('1', 22, 23)]
    """
    start = None
    for i, ch in enumerate(text):
        if _is_word_char(ch):
            if start is None:
                start = i
        elif start is not None:
            yield text[start:i].lower(), start, i
            start = None
    if start is not None:
        yield text[start:].lower(), start, len(text)


def words(text: str) -> list[str]:
    """The words of ``text``, in order, in lower case.

    >>> words("mcp-server/vault.js: the Write path")
    ['mcp', 'server', 'vault', 'js', 'the', 'write', 'path']
    """
    return [w for w, _, _ in word_spans(text)]


@dataclass(frozen=True, slots=True)
class Phrase:
    """Words that must occur consecutively (lower case, each a :func:`words` word); with ``prefix``
    the phrase is one word matching every word that begins with it."""

    words: tuple[str, ...]
    prefix: bool = False

    def __post_init__(self) -> None:
        if not self.words:
            raise ValueError("a phrase needs at least one word")
        if self.prefix and len(self.words) != 1:
            raise ValueError("only a one-word phrase can be a prefix")


def occurrences(text_words: Sequence[str], phrase: Phrase) -> list[int]:
    """Indexes in ``text_words`` where ``phrase`` starts (overlaps included).

    >>> occurrences(["a", "b", "a", "b"], Phrase(("a", "b")))
    [0, 2]
    >>> occurrences(["vault", "vaults"], Phrase(("vau",), prefix=True))
    [0, 1]
    """
    if phrase.prefix:
        head = phrase.words[0]
        return [i for i, w in enumerate(text_words) if w.startswith(head)]
    n = len(phrase.words)
    first = phrase.words[0]
    return [i for i in range(len(text_words) - n + 1)
            if text_words[i] == first and tuple(text_words[i:i + n]) == phrase.words]


def holds(text: str, phrases: Sequence[Phrase]) -> bool:
    """Whether ``text`` holds every phrase: the rule of :meth:`graph.store.GraphStore.search`.

    >>> holds("Writes use compare-and-swap.", [Phrase(("compare", "and", "swap"))])
    True
    >>> holds("compare, then swap", [Phrase(("compare", "and", "swap"))])
    False
    """
    text_words = words(text)
    return all(occurrences(text_words, p) for p in phrases)
