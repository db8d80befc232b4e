"""Words of a statement's text as the full-text indexes of both stores see them.

A *word* is a maximal run of letters and digits (Unicode categories ``L*`` and ``N*``:
``str.isalnum``), compared in lower case: exactly the tokens of SQLite FTS5's ``unicode61``
tokenizer with ``remove_diacritics 0`` and ``categories 'L* N*'``, which the embedded store indexes,
and the words the Neo4j store writes into each statement's ``search_words``
property for its ``whitespace``-analysed full-text index. ``compare-and-swap`` is the three words
``compare and swap``; ``mcp-server/vault.js`` is ``mcp server vault js``.

A :class:`Phrase` is a sequence of words that must occur consecutively; with ``prefix`` its one word
matches every word it begins. :func:`holds` is the exact rule a store's :meth:`search` answers by.
"""

from __future__ import annotations


import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Iterator, Sequence

__all__ = ["Phrase", "words", "word_spans", "word_count", "frequent_words", "occurrences", "count", "holds"]


_WORD = re.compile(r"[^\W_]+")
"""Letters and digits (``str.isalnum``: Unicode categories ``L*`` and ``N*``), in runs."""


def word_spans(text: str) -> Iterator[tuple[str, int, int]]:
    """Each word of ``text`` in order as ``(word in lower case, start, end)``, offsets in characters.

    >>> list(word_spans("Compare-and-swap, SRC-1."))
    [('compare', 0, 7), ('and', 8, 11), ('swap', 12, 16), ('src', 18, 21), ('1', 22, 23)]
    >>> [w for w, _, _ in word_spans("rests_on café Ⅻ")]
    ['rests', 'on', 'café', 'ⅻ']
    """
    for m in _WORD.finditer(text):
        yield m.group().lower(), m.start(), m.end()


def word_count(text: str) -> int:
    """How many words ``text`` has.

    >>> word_count("mcp-server/vault.js: the Write path")
    7
    """
    return len(_WORD.findall(text))


def words(text: str) -> list[str]:
    """The words of ``text``, in order, in lower case.

    >>> words("mcp-server/vault.js: the Write path")
    ['mcp', 'server', 'vault', 'js', 'the', 'write', 'path']
    """
    return [m.group().lower() for m in _WORD.finditer(text)]


_ASCII_WORDS = bytes(c | 0x20 if chr(c).isalpha() else c if chr(c).isdigit() else 0x20 for c in range(128)) + b" " * 128
"""A ``bytes.translate`` table: ASCII letters to lower case, digits kept, every other byte a space
(so ``split`` gives :func:`words` of an ASCII text)."""


def frequent_words(text: str, floor: int) -> list[tuple[str, int]]:
    """The words that occur at least ``floor`` times (>= 1) in ``text``, each with its count of
    :func:`words`, in order of first occurrence.

    >>> frequent_words("The cat, the hat: THE end.", 2)
    [('the', 3)]
    >>> frequent_words("Été, été; ÉTÉ", 3)
    [('été', 3)]
    """
    if text.isascii():  # the common case, in C: the same words as the pattern finds
        found: Sequence[str | bytes] = text.encode("ascii").translate(_ASCII_WORDS).split()
    else:
        found = words(text)
    if len(found) < floor:
        return []
    return [(w if isinstance(w, str) else w.decode("ascii"), n) for w, n in Counter(found).items() if n >= floor]


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


_W = r"[^\W_]"
_SEP = r"[\W_]+"


@lru_cache(maxsize=256)
def _pattern(phrase: Phrase) -> re.Pattern[str]:
    """A regular expression over lower-cased text matching at each start of ``phrase``: its words
    whole, in a row, anything but word characters between them (so ``count`` and ``holds`` need
    no tokenising, the same answers as :func:`occurrences` over :func:`words`)."""
    if phrase.prefix:
        return re.compile(rf"(?<!{_W}){re.escape(phrase.words[0])}", re.S)
    if len(phrase.words) == 1:  # a word cannot overlap itself: no look-ahead, much faster
        return re.compile(rf"(?<!{_W}){re.escape(phrase.words[0])}(?!{_W})", re.S)
    body = _SEP.join(re.escape(w) for w in phrase.words)
    return re.compile(rf"(?=(?<!{_W}){body}(?!{_W}))", re.S)


def count(text: str, phrase: Phrase) -> int:
    """How many times ``phrase`` starts in ``text`` (overlaps included), as :func:`occurrences`.

    >>> count("A a a; vault, Vaults", Phrase(("a", "a"))), count("vault, Vaults", Phrase(("vault",), prefix=True))
    (2, 2)
    """
    return len(_pattern(phrase).findall(text.lower()))


def holds(text: str, phrases: Sequence[Phrase]) -> bool:
    """Whether ``text`` holds every phrase: the rule of :meth:`graph.store.GraphStore.search`.

    >>> holds("Writes use compare-and-swap.", [Phrase(("compare", "and", "swap"))])
    True
    >>> holds("compare, then swap", [Phrase(("compare", "and", "swap"))])
    False
    >>> holds("compare-and-swapped", [Phrase(("compare", "and", "swap"))])
    False
    """
    lowered = text.lower()
    return all(_pattern(p).search(lowered) for p in phrases)
