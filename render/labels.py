"""Short words for drawing a node: a statement's first words, a record's ID and declared label.

One place for both pictures of the graph: the embedded views (:mod:`app.embed.subgraph`) and the
display labels of the GraphML export (:func:`render.export.display_label`).
"""

from __future__ import annotations

__all__ = ["LABEL_CHARS", "short_label"]

LABEL_CHARS = 34
"""Longest node label line, in characters (a statement's first words, a record's label)."""


def short_label(text: str, width: int = LABEL_CHARS) -> str:
    """The first words of ``text`` that fit in ``width`` characters, ``…`` when cut.

    >>> short_label("File effects, UI actions and conversation completion are separate")
    'File effects, UI actions and…'
    >>> short_label("| Wiring is not observed. | SRC-1 |")
    'Wiring is not observed. · SRC-1'
    """
    text = " ".join(text.split()).strip("| ").replace(" | ", " · ")  # a table row reads as its cells
    if len(text) <= width:
        return text
    cut = text[: width - 1].rsplit(" ", 1)[0].rstrip(",;:.") if " " in text[: width - 1] else text[: width - 1]
    return cut + "…"
