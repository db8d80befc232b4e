"""Tables of the command line that fit: readable at 80 columns and when piped,
no column dropped, no ID split; ``--format table|json|csv`` wherever a table is printed.

A table declares its columns as *ids* (node ids, paths, statuses: never split), *numbers* (right
aligned, never split) or *text* (wrapped, at most :data:`TEXT_LINES` lines a cell). When the ids
and numbers leave each text column at least :data:`MIN_TEXT` characters, it is a grid (rich's
:class:`~rich.table.Table`); else each row is printed as a short block: its ids and numbers on one
line, its text indented below. ``json`` prints the query's own JSON (the REST body); ``csv`` one
header row and every row in full (the :mod:`csv` module's quoting), for DataFrames and
spreadsheets. Rows longer than ``fold`` are folded in a table (``--verbose`` shows all); JSON and
CSV always hold every row.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Optional
from collections.abc import Iterable, Sequence

from app.cli_params import Opt
from app.cli_registry import prints_as_is, word_breaks

if TYPE_CHECKING:
    from rich.text import Text

__all__ = ["clip_cell", "Marked", "TableFormat", "FormatOpt", "VerboseOpt", "Column", "chosen_format", "emit"]

MIN_TEXT = 24
"""Narrowest text column a grid may have, in characters; below it rows become blocks."""
TEXT_LINES = 3
"""Most lines a text cell takes in a grid (or under a block), the rest cut with ``…``."""


class TableFormat(str, Enum):
    """How a command prints its result: ``table`` (for people), ``json`` or ``csv``."""

    table = "table"
    json = "json"
    csv = "csv"


FormatOpt = Annotated[Optional[TableFormat], Opt(
    "--format", help="table (default), json (the REST body) or csv (one row per line, every row).",
    show_choices=True)]
VerboseOpt = Annotated[bool, Opt("--verbose", "-v", help="Show every row of a long table.")]


def chosen_format(fmt: TableFormat | None, as_json: bool = False) -> TableFormat:
    """``--format`` when given, ``json`` for the older ``--json`` flag, else ``table``.

    Raises
    ------
    typer.BadParameter
        ``--json`` and another ``--format`` were both given (exit 2).
    """
    if as_json and fmt not in (None, TableFormat.json):
        from typer import BadParameter

        raise BadParameter(f"--json and --format {fmt.value} ask for different outputs; give one")
    return TableFormat.json if as_json else (fmt or TableFormat.table)


@dataclass(frozen=True, slots=True)
class Column:
    """One column: ``name`` (its header), ``kind`` ``id``, ``number`` or ``text``."""

    name: str
    kind: str = "id"


class Marked:
    """A text cell with marked spans (search's matches), drawn bold and reversed where rich draws
    the table; its :attr:`plain` text is what :class:`rich.text.Text` keeps of ``text`` (without the
    control characters rich drops), made without importing rich."""

    __slots__ = ("marks", "text")

    def __init__(self, text: str, marks: Iterable[tuple[int, int]] = ()):
        self.text, self.marks = text, tuple(marks)

    @property
    def plain(self) -> str:
        return self.text.translate(_RICH_DROPS)

    def spans(self) -> list[tuple[int, int]]:
        """The marks as :meth:`rich.text.Text.stylize` keeps them on :attr:`plain` (negative
        offsets from the end, cut at the end, empty or outside ones dropped)."""
        length, kept = len(self.plain), []
        for start, end in self.marks:
            start, end = (length + start if start < 0 else start), (length + end if end < 0 else end)
            if start < length and end > start:
                kept.append((start, min(length, end)))
        return kept

    def rich(self) -> Text:
        """The cell as a :class:`rich.text.Text`, the marks styled ``bold reverse``."""
        from rich.text import Text

        text = Text(self.text)
        for start, end in self.marks:
            text.stylize("bold reverse", start, end)
        return text


_RICH_DROPS = dict.fromkeys((7, 8, 11, 12, 13))
"""The control characters :class:`rich.text.Text` drops from its text (bell, backspace, vertical
tab, form feed, carriage return)."""


def _cell(value: Any) -> str | Text:
    """A cell as printed: a string (None empty), or a :class:`rich.text.Text` as given (styled spans,
    e.g. search highlights; CSV gets its plain text)."""
    if value is None:
        return ""
    return value if hasattr(value, "plain") else str(value)


def _plain(value: Any) -> str:
    return value.plain if hasattr(value, "plain") else value


def emit(console, *, columns: Sequence[Column], rows: Iterable[Sequence[Any]], fmt: TableFormat,
         data: Any = None, title: str | None = None, footer: Sequence[str] = (), fold: int | None = None,
         verbose: bool = False) -> None:
    """Print ``rows`` as ``fmt`` on ``console`` (standard output's).

    Parameters
    ----------
    console : rich.console.Console
        Where the table goes; its width decides grid or blocks (80 when piped, unless $COLUMNS).
    columns : sequence of Column
        The columns, in order; every row has one value per column (None prints empty).
    rows : iterable of sequences
        The rows, in order; a text cell may be a :class:`rich.text.Text` with styled spans.
    fmt : TableFormat
        ``json`` prints ``data`` (JSON-compatible) as is; ``csv`` the header and every row; ``table``
        the title, the rows (folded after ``fold`` unless ``verbose``) and the ``footer`` lines.
    """
    cells = [[_cell(v) for v in row] for row in rows]
    if fmt == TableFormat.json:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return
    if fmt == TableFormat.csv:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([c.name for c in columns])
        writer.writerows([_plain(v) for v in row] for row in cells)
        return
    shown, hidden = cells, 0
    if fold is not None and not verbose and len(cells) > fold:
        shown, hidden = cells[:fold], len(cells) - fold
    after = [*([f"… and {hidden} more rows (--verbose shows them all, --format csv lists them)"] if hidden else []),
             *footer]
    width = console.plain_width() if hasattr(console, "plain_width") else None
    if width is not None:  # plain output (piped): blocks as rich would print them, without rich's console
        lines = _plain_blocks(columns, shown, title, width)
        if lines is not None and all(prints_as_is(line) for line in after):
            sys.stdout.write("".join(line + "\n" for line in (*lines, *after)))
            return
    # app.cli_registry's lazy console: the rich one it makes (rich needs the real object)
    console.width  # noqa: B018 - the lazy console makes the rich one when it is first read
    console = getattr(console, "_console", None) or console
    _table(console, columns, shown, title)
    for line in after:
        console.print(line, markup=False, highlight=False)


def clip_cell(value: Any, width: int):
    """A text cell cut to about what :data:`TEXT_LINES` lines of ``width`` hold, with ``…``, as a
    :class:`rich.text.Text` (never read as markup). A styled span (a search match) is never cut in
    two: the cut moves to before it."""
    from rich.text import Text

    if isinstance(value, Marked):
        text = value.rich()
    else:
        text = value.copy() if hasattr(value, "plain") else Text(" ".join(str(value).split()))
    room = int(max(1, width) * TEXT_LINES * 0.9)
    for span in text.spans:
        if span.start < room < span.end and span.start > 0:
            room = span.start
    if len(text.plain) > room:
        text.truncate(room, overflow="ellipsis")
    return text


def _grid(columns: Sequence[Column], rows: list[list[str | Text]], width: int) -> tuple[dict[int, int], int, int] | None:
    """How a grid of ``rows`` fits ``width``: the width each id and number column needs, the width
    of each text column and the least a text column needs; None when it does not fit (blocks)."""
    short = [i for i, c in enumerate(columns) if c.kind != "text"]
    texts = [i for i, c in enumerate(columns) if c.kind == "text"]
    need = {i: max([len(columns[i].name), *(len(_plain(r[i])) for r in rows)]) for i in short}
    fixed = sum(need.values()) + 3 * len(columns) + 1  # borders and padding of the heavy box
    text_width = (width - fixed) // len(texts) if texts else 0
    # a text column needs MIN_TEXT characters, or less when its header and cells are all shorter
    text_need = max([min(MIN_TEXT, max([len(columns[i].name), *(len(_plain(r[i])) for r in rows)])) for i in texts],
                    default=0)
    if (texts and text_width < text_need) or fixed > width:
        return None
    return need, text_width, text_need


def _table(console, columns: Sequence[Column], rows: list[list[str | Text]], title: str | None) -> None:
    from rich.table import Table
    from rich.text import Text

    width = console.width
    texts = [i for i, c in enumerate(columns) if c.kind == "text"]
    grid = _grid(columns, rows, width)
    if grid is None:
        _blocks(console, columns, rows, title, width)
        return
    need, text_width, text_need = grid
    table = Table(title=Text(title) if title else None, title_justify="left")
    for i, c in enumerate(columns):
        if c.kind == "text":
            table.add_column(c.name, overflow="fold", ratio=1, min_width=min(text_need, text_width))
        else:
            table.add_column(c.name, no_wrap=True, min_width=need[i], justify="right" if c.kind == "number" else "left")
    for r in rows:  # Text cells: what the members wrote is never read as rich markup
        table.add_row(*[clip_cell(v, text_width) if i in texts else Text(_plain(v)) for i, v in enumerate(r)])
    console.print(table)


def _head(columns: Sequence[Column], row: Sequence[str | Text], width: int) -> list[str]:
    """A block's first lines: its first value, then the other ids and numbers (``name value``),
    each part whole, a line too long going on below, indented four spaces."""
    head = [_plain(row[0])] + [f"{c.name} {_plain(v)}" if c.kind == "number" else _plain(v)
                               for c, v in zip(columns[1:], row[1:]) if c.kind != "text" and _plain(v) != ""]
    lines = []
    line = head[0]
    for part in head[1:]:
        if len(line) + 2 + len(part) > width:
            lines.append(line)
            line = "    " + part
        else:
            line += "  " + part
    lines.append(line)
    return lines


def _plain_blocks(columns: Sequence[Column], rows: list[list[str | Text]], title: str | None,
                  width: int) -> list[str] | None:
    """The lines :func:`_blocks` prints for ``rows`` at ``width`` on a console that prints plain text
    (:meth:`app.cli_registry._Console.plain_width`), made without rich's console: None when they
    make a grid, or hold what rich's console would change (:func:`app.cli_registry.prints_as_is`),
    which rich then prints. A text cell of printable ASCII that fits one line is that line; any
    other is wrapped by rich's :meth:`~rich.text.Text.wrap`, as :func:`_blocks` wraps it."""
    if _grid(columns, rows, width) is not None:
        return None
    if title and not prints_as_is(title):
        return None
    lines = [title] if title else []
    text_width = max(20, width - 4)
    for r in rows:
        head = _head(columns, r, width)
        if not all(prints_as_is(line) for line in head):
            return None
        lines.extend(head)
        for c, v in zip(columns, r):
            if c.kind != "text" or not _plain(v):
                continue
            own = _text_lines(v, text_width)
            if own is not None:
                lines.extend("    " + line for line in own)
                continue
            for line in clip_cell(v, text_width).wrap(None, text_width)[:TEXT_LINES]:
                line.rstrip()  # (a console is used only to justify, which "default" does not)
                if not prints_as_is(line.plain):
                    return None
                lines.append("    " + line.plain)
    return lines


_TRAILING_SPACE = re.compile(r"\s+$")


def _text_lines(value: Any, width: int) -> list[str] | None:
    """The lines under a block that :func:`clip_cell` and rich's :meth:`~rich.text.Text.wrap` make
    of a text cell (a string or a :class:`Marked`) whose characters each take one column
    (printable ASCII and ``…``), made without importing rich: cut to about :data:`TEXT_LINES`
    lines with ``…`` (never inside a mark), broken at word boundaries (rich's ``divide_line``, a
    word longer than ``width`` folded), at most :data:`TEXT_LINES`, trailing spaces dropped. None
    for any other cell: rich wraps it. tests/app/test_cli_plain_tables.py compares the two."""
    if isinstance(value, Marked):
        plain, spans = value.plain, value.spans()
    elif isinstance(value, str):
        plain, spans = " ".join(value.split()), []
    else:
        return None
    if not all(" " <= c <= "~" or c == "…" for c in plain):
        return None
    room = int(max(1, width) * TEXT_LINES * 0.9)  # clip_cell's cut
    for start, end in spans:
        if start < room < end and start > 0:
            room = start
    if len(plain) > room:
        plain = plain[:room - 1] + "…"
    breaks = word_breaks(plain, width)
    lines = []
    for start, end in zip([0, *breaks], [*breaks, len(plain)]):
        line = plain[start:end]
        if len(line) > width:  # Text.rstrip_end, then the fold
            space = _TRAILING_SPACE.search(line)
            if space is not None:
                line = line[:len(line) - min(len(space.group()), len(line) - width)]
            line = line[:width]
        lines.append(line)
    return [line.rstrip() for line in lines[:TEXT_LINES]]


def _blocks(console, columns: Sequence[Column], rows: list[list[str | Text]], title: str | None, width: int) -> None:
    """Each row as a block: its first value, the other ids and numbers (``name value``), then each
    text cell below, indented four spaces and wrapped at word boundaries."""
    from rich.text import Text

    if title:
        console.print(title, markup=False, highlight=False)
    for r in rows:
        for line in _head(columns, r, width):
            console.print(line, markup=False, highlight=False)
        for c, v in zip(columns, r):
            if c.kind == "text" and _plain(v):
                for line in clip_cell(v, max(20, width - 4)).wrap(console, max(20, width - 4))[:TEXT_LINES]:
                    line.rstrip()
                    console.print(Text("    ") + line, soft_wrap=True)
