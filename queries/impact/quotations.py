"""Quotation matching: the normal form quotations and files are compared in, and where a quotation sits."""

from __future__ import annotations

import re

__all__ = ["normalise_quotation", "count_occurrences", "quotation_fragment", "locate_quotation", "quoted_lines"]

_MARKERS = re.compile(r"^(?:[ \t]*>)+", re.MULTILINE)
_NOT_IN_FRAGMENT = re.compile(r"[\s\x00\ufffd\ud800-\udfff]+")
_MAX_FRAGMENT = 64


def normalise_quotation(text: str, *, plain: bool) -> str:
    """The form quotations and files are compared in: whitespace runs become one space, ends are
    stripped; for ``plain`` (quotations of plain-text renderings) backticks and line-initial ``>``
    markers are dropped first, since the rendering drops them (GRAMMAR §9). Both the quotation and
    the file are normalised the same way; nothing else is forgiven.

    Parameters
    ----------
    text : str
        A quotation body or a whole file.
    plain : bool
        Also drop what plain-text renderings drop (the quoting document's ``format`` is ``txt``).

    Returns
    -------
    str

    Examples
    --------
    >>> normalise_quotation("    throw new Error(\\n      `Note was modified`,\\n    )", plain=True)
    'throw new Error( Note was modified, )'
    >>> normalise_quotation("> a => b\\n>\\n> c", plain=True)
    'a => b c'
    >>> normalise_quotation("text: `x`", plain=False)
    'text: `x`'

    References
    ----------
    .. [1] GRAMMAR §6 (quote text occurs exactly once under whitespace normalisation) and §9
       (plain-text rendering: backticks, ``>`` markers and line breaks vanish).
    """
    if plain:
        text = _MARKERS.sub("", text).replace("`", "")
    return " ".join(text.split())


def _normalise_with_index(text: str, plain: bool) -> tuple[str, list[int]]:
    """:func:`normalise_quotation` plus, for each output character, its offset in ``text``."""
    dropped = bytearray(len(text))
    if plain:
        for m in _MARKERS.finditer(text):
            dropped[m.start():m.end()] = b"\1" * (m.end() - m.start())
        for i, ch in enumerate(text):
            if ch == "`":
                dropped[i] = 1
    out: list[str] = []
    index: list[int] = []
    space = -1
    for i, ch in enumerate(text):
        if dropped[i]:
            continue
        if ch.isspace():
            if out and space < 0:
                space = i
            continue
        if space >= 0:
            out.append(" ")
            index.append(space)
            space = -1
        out.append(ch)
        index.append(i)
    return "".join(out), index


def count_occurrences(haystack: str, needle: str) -> int:
    """Occurrences of ``needle`` in ``haystack``, overlapping ones included."""
    n, i = 0, haystack.find(needle)
    while i >= 0:
        n += 1
        i = haystack.find(needle, i + 1)
    return n


def quotation_fragment(needle: str) -> str | None:
    """A piece of the normalised ``needle`` that the text of every file whose normalised form
    contains ``needle`` holds too, with at most backticks between its characters; None if none.

    :func:`normalise_quotation` only turns whitespace runs into one space and, for ``plain``, drops
    backticks and line-initial ``>`` markers. A marker follows a line break, which is whitespace,
    so inside a run of non-space characters of a normalised file only backticks were dropped:
    each space-free piece of the needle occurs in the file's text, backticks aside. The piece also
    avoids U+FFFD (invalid bytes decode to it, so it says nothing about the file's bytes), NUL and
    lone surrogates (which no text a repository reads holds, so leaving them out only widens the
    search). Which piece is chosen only changes how many files are read: the longest, with digits
    and punctuation counting double (they make a piece rarer than a common word of that length),
    cut to :data:`_MAX_FRAGMENT` characters.

    >>> quotation_fragment("throw new Error( Note was modified, )")
    'modified,'
    >>> quotation_fragment("Note 0.9.5: keeps the retrieve step")
    '0.9.5:'
    >>> quotation_fragment("\\ufffd") is None
    True
    """
    best = max(_NOT_IN_FRAGMENT.split(needle), key=lambda piece: len(piece) + sum(not c.isalpha() for c in piece))
    return best[:_MAX_FRAGMENT] or None


def locate_quotation(text: str, needle: str, plain: bool) -> tuple[int, int] | None:
    """1-based first and last line of the first occurrence of normalised ``needle`` in ``text``."""
    norm, index = _normalise_with_index(text, plain)
    i = norm.find(needle) if needle else -1
    if i < 0:
        return None
    start, end = index[i], index[i + len(needle) - 1]
    return text.count("\n", 0, start) + 1, text.count("\n", 0, end) + 1


def quoted_lines(text: str, start: int, end: int) -> str:
    """Lines ``start`` to ``end`` (1-based, inclusive) of ``text``, joined by LF."""
    return "\n".join(text.splitlines()[start - 1:end])
