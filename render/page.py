"""A small format-neutral page model: what a report says, before it is written as Markdown, plain
text or HTML by :mod:`render.writers`.

Every item carries its text in the forms the writers need: ``plain`` (the seeds' plain text, one
line per paragraph), ``markdown`` (the member's own Markdown, or the plain text for plain-text
members) and, for HTML, plain text that the HTML writer escapes. ``set_id`` says in which analysis
set record IDs in the text resolve (IDs are set-scoped), so the HTML writer can link them to the
page's record anchors.

Each shape is a :class:`typing.NamedTuple` (immutable, compared by value, with its fields in
order): made when the module is imported about eight times faster than a frozen dataclass, which
a one-report command pays for every shape (bench/README.md, "``--help`` and ``render`` under the
targets").
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "Heading",
    "Paragraph",
    "TableRow",
    "Table",
    "Quote",
    "Note",
    "IndexClause",
    "IndexEntry",
    "Index",
    "Item",
    "Page",
    "anchor",
    "record_anchor",
]


def anchor(prefix: str, node_id: str) -> str:
    """An HTML id for a node: ``prefix-`` plus the id lowercased, runs of other characters → ``-``.

    >>> anchor("st", "tolaria/synthesis#L29")
    'st-tolaria-synthesis-l29'
    """
    return f"{prefix}-" + re.sub(r"[^a-z0-9]+", "-", node_id.lower()).strip("-")


def record_anchor(set_id: str, record_id: str) -> str:
    """The one anchor of record ``record_id`` of set ``set_id`` on a page.

    >>> record_anchor("tolaria", "RT-RTE-mcp-write")
    'rec-tolaria-rt-rte-mcp-write'
    """
    return anchor("rec", f"{set_id}-{record_id}")


class Heading(NamedTuple):
    """A heading at ``level`` 2–6 (the page title is level 1)."""

    level: int
    plain: str
    markdown: str
    anchor: str | None = None
    set_id: str | None = None


class Paragraph(NamedTuple):
    """A statement or prose paragraph; ``plain`` may hold several lines (list items), ``kind`` is
    the statement kind (CSS class in HTML)."""

    plain: str
    markdown: str
    anchor: str | None = None
    set_id: str | None = None
    kind: str = "paragraph"


class TableRow(NamedTuple):
    """One table row: ``cells`` as plain text, the row as ``plain`` and ``markdown`` lines."""

    cells: tuple[str, ...]
    plain: str
    markdown: str
    anchor: str | None = None


class Table(NamedTuple):
    """A pipe table: ``header`` row (its ``plain``/``markdown`` hold the header and separator
    lines) and ``rows``."""

    header: TableRow
    rows: tuple[TableRow, ...]
    set_id: str | None = None


class Quote(NamedTuple):
    """A quotation: ``text`` (body with its line breaks), attributed ``path``; ``plain`` is the
    seeds' one-line form (``… --- path``) and ``markdown`` the blockquote."""

    text: str
    path: str
    plain: str
    markdown: str
    anchor: str | None = None
    set_id: str | None = None


class Note(NamedTuple):
    """A remark about the preceding item: ``tag`` (``direct``, ``transitive``, …) and ``text``."""

    tag: str
    text: str
    set_id: str | None = None


class IndexClause(NamedTuple):
    """One clause of an index entry, ``text`` (``declared in …``, ``cited by 3 statements``), with
    ``links`` (label, target anchor) to the places it names, written right after it."""

    text: str
    links: tuple[tuple[str, str], ...] = ()


class IndexEntry(NamedTuple):
    """One record of a record index: ``record_id`` of ``set_id``, its ``anchor``, and the
    ``clauses`` of its one-sentence summary (joined by semicolons, each with its own links)."""

    record_id: str
    set_id: str
    anchor: str
    clauses: tuple[IndexClause, ...]


class Index(NamedTuple):
    """A record index; ``html_only`` indexes exist to give every record an anchor in HTML and are
    left out of Markdown and plain text."""

    entries: tuple[IndexEntry, ...]
    html_only: bool = False


Item = Heading | Paragraph | Table | Quote | Note | Index


class Page(NamedTuple):
    """A whole report: ``title``, ``lead`` lines (what was asked, counts) and ``items``;
    ``markdown_only``: composed to be written as Markdown alone, its items' plain forms left empty
    (:mod:`render.compose`), so :func:`render.writers.write` refuses the other formats."""

    title: str
    lead: tuple[str, ...] = ()
    items: tuple[Item, ...] = ()
    markdown_only: bool = False

    def record_anchors(self) -> dict[str, dict[str, str]]:
        """Anchors of the page's indexed records: set id → record ID → anchor."""
        out: dict[str, dict[str, str]] = {}
        for item in self.items:
            if isinstance(item, Index):
                for e in item.entries:
                    out.setdefault(e.set_id, {})[e.record_id] = e.anchor
        return out
