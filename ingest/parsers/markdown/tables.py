"""Pipe tables (GRAMMAR §7): a header block and one block per row, citation columns, Source
register pins; and the linear row split patched into markdown-it-py's table rule.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import replace

from markdown_it.rules_block.table import escapedSplit as library_escaped_split  # before escaped_split replaces it below
from markdown_it.token import Token

from domain.checks import Flaws
from domain.grammar import declaring_table, mapping_table, row_declaration
from domain.model import Citation, TableRow
from ingest.citations import extract_citations, split_cell_citations
from ingest.parsers.markdown.builder import MD, Builder, Context, closing, line_span, open_declaration, statement
from ingest.parsers.markdown.inline import Link, render_inline, shift, with_links
from ingest.parsers.plaintext import citation_columns
from ingest.statements import register_pin, row_statuses

__all__ = ["escaped_split", "library_escaped_split", "parse_table", "row_flaws", "table_fragment"]


def escaped_split(row: str) -> list[str]:
    r"""A pipe-table row split at its unescaped pipes, each escaped pipe ``\|`` kept as ``|``: what
    markdown-it-py's ``rules_block.table.escapedSplit`` returns, in time linear in the row. The
    library grows one string per escaped pipe, copying it each time (a row of 400,000 escaped
    pipes, 2 MB, took 19 s); here each cell's pieces are joined once. A pipe is escaped when the
    character before it is a backslash, as in the library.

    >>> escaped_split("| a \\| b | c |")
    ['', ' a | b ', ' c ', '']
    """
    cells, pieces, last = [], [], 0
    pos = row.find("|")
    while pos != -1:
        if pos and row[pos - 1] == "\\":
            pieces.append(row[last:pos - 1])
            last = pos
        else:
            pieces.append(row[last:pos])
            cells.append("".join(pieces))
            pieces, last = [], pos + 1
        pos = row.find("|", pos + 1)
    pieces.append(row[last:])
    cells.append("".join(pieces))
    return cells


_table_rule = importlib.import_module("markdown_it.rules_block.table")  # the module: `table` is also its rule
# The table rule looks escapedSplit up at each call. Set by name: import_module gives a bare ModuleType.
setattr(_table_rule, "escapedSplit", escaped_split)  # noqa: B010


_TABLE_ROLES = {
    "limitations": "limitations",
    "source register": "register",
    "epistemic-object inventory": "inventory",
    "authority-route ledger": "ledger",
    "system-claim versus route comparison": "claims",
}


_SOURCE_ROW = re.compile(r"^SRC-\d+$")


def _cells(tokens: list[Token], tr: int, tr_close: int) -> list[tuple[str, list[Link], list[Token]]]:
    """(plain text, links, inline children) of each cell of table row ``tokens[tr..tr_close]``."""
    out = []
    for j in range(tr, tr_close):
        if tokens[j].type == "inline":
            text, links = render_inline(tokens[j].children)
            out.append((text.strip(), links, tokens[j].children or []))
    return out


def _row(cells: list[tuple[str, list[Link], list[Token]]]) -> tuple[str, list[tuple[str, int, list[Link]]]]:
    """A row's plain text ``| a | b |`` (literal pipes escaped again) and each cell's (text, offset,
    links shifted to the row)."""
    text = "|"
    placed = []
    for cell, links, _ in cells:
        escaped = cell.replace("|", "\\|")
        moved = []
        pipes = counted = 0  # pipes in cell[:counted], counted on as the links go: linear in the cell
        for link in sorted(links, key=lambda link: link.start):
            pipes += cell.count("|", counted, link.start)
            counted = link.start
            shift_by = link.start + pipes
            moved.append(replace(link, start=len(text) + 1 + shift_by,
                                 end=len(text) + 1 + shift_by + len(link.label.replace("|", "\\|"))))
        placed.append((escaped, len(text) + 1, moved))
        text += f" {escaped} |"
    return text, placed


def row_flaws(line: str, header_cells: int) -> Flaws | None:
    r"""What is wrong with the form of table row ``line`` under a header of ``header_cells`` cells
    (GRAMMAR §3.5: every row starts and ends with ``|``, equal cell counts): the cell counts when
    they differ, a missing closing ``|``; None for a well-formed row or a line that does not open
    with ``|`` (a row inside a blockquote or list item is not judged). Cells are split as the
    table rule splits them, at unescaped pipes.

    >>> flaws = row_flaws("| Expiry unknown | RT-OBJ-page-cache | staleness bound", 5)
    >>> flaws.row_cells, flaws.unclosed_row
    ((5, 3), True)
    >>> row_flaws("| a \\| b | c |", 2) is None
    True
    """
    row = line.strip()
    if not row.startswith("|"):
        return None
    parts = escaped_split(row)[1:]
    closed = len(parts) > 1 and not parts[-1].strip()
    cells = len(parts) - closed
    if cells == header_cells and closed:
        return None
    return Flaws(row_cells=(header_cells, cells) if cells != header_cells else None, unclosed_row=not closed)


def parse_table(tokens: list[Token], i: int, close: int, base: int, b: Builder, ctx: Context) -> None:
    """A pipe table: one ``table_header`` block (header and separator rows) and one ``table_row``
    per body row (GRAMMAR §7); Source register rows also pin their source. A table whose header's
    first cell is ``ID`` declares the record each row opens with (:func:`~domain.grammar.declaring_table`);
    a proposal-to-canonical mapping table makes each row's first ID an alias of its second
    (:func:`~domain.grammar.mapping_table`)."""
    rows = [j for j in range(i, close) if tokens[j].type == "tr_open"]
    table = _TABLE_ROLES.get(ctx.h2.strip().lower(), "table")
    header_close = closing(tokens, rows[0])
    header = _cells(tokens, rows[0], header_close)
    header_text, _ = _row(header)
    header_cells = [c for c, _, _ in header]
    first = base + line_span(tokens[rows[0]])[0]
    header_stop = base + (line_span(tokens[rows[1]])[0] if len(rows) > 1 else line_span(tokens[i])[1])
    statement(b, ctx, "table_header", first, header_stop, header_text, scan=False,
              row=TableRow(table, tuple(header_cells)))
    ctx.id_table = header_cells if declaring_table(header_cells) else None
    for tr in rows[1:]:
        cells = _cells(tokens, tr, closing(tokens, tr))
        row_first, row_stop = line_span(tokens[tr])
        _body_row(cells, base + row_first, base + row_stop, header_cells, table, b, ctx)


def table_fragment(first: int, stop: int, b: Builder, ctx: Context) -> bool:
    """File lines ``[first, stop)`` of a paragraph that continue the declaring table before it
    after a blank line, without its header (G1): every line a pipe row. Emits one
    ``table_row`` per line as if the header stood above them; whether it was such a fragment."""
    if ctx.id_table is None:
        return False
    lines = b.lines[first:stop]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    if not lines or not all(line.strip().startswith("|") and line.strip().endswith("|") for line in lines):
        return False
    for n, line in enumerate(lines):
        parts = escaped_split(line.strip())[1:-1]
        cells = []
        for part in parts:
            children = MD.parseInline(part.strip())[0].children
            text, links = render_inline(children)
            cells.append((text.strip(), links, children or []))
        _body_row(cells, first + n, first + n + 1, ctx.id_table, "table", b, ctx)
    return True


def _body_row(cells: list[tuple[str, list[Link], list[Token]]], row_first: int, row_stop: int,
              header_cells: list[str], table: str, b: Builder, ctx: Context) -> None:
    """One body row of file lines ``[row_first, row_stop)``: its citations, a register pin, and
    for a declaring table the declaration of the record in its first cell (a zero-width
    ``declaration`` heading, ``heading_form`` ``row``, before the row: the row is its body and the
    declaring cell no citation of it), whose ``Status`` column states its status
    (:func:`~ingest.statements.row_statuses`)."""
    cite_cols = citation_columns(ctx.h2, header_cells) if table == "limitations" else {
        n for n, h in enumerate(header_cells) if "record citations" in h.lower()}
    text, placed = _row(cells)
    plain = [c for c, _, _ in cells]
    declared = row_declaration(plain) if declaring_table(header_cells) else None
    found: list[Citation] = []
    links: list[Link] = []
    for n, (cell, offset, cell_links) in enumerate(placed):
        if declared is not None and n == 0:
            continue
        links.extend(cell_links)
        if n in cite_cols:
            found.extend(split_cell_citations(cell, offset))
        else:
            found.extend(shift(extract_citations(cell), offset))
    citations = with_links(found, links, ctx.file_name, ctx.member.projection)
    source_id = pin = None
    if table == "register" and cells and _SOURCE_ROW.match(cells[0][0]):
        source_id = cells[0][0]
        spans = [t.content for t in cells[2][2] if t.type == "code_inline"] if len(cells) > 2 else []
        pin = register_pin(plain, identity=spans[0] if spans else None)
    aliases: tuple[tuple[str, str], ...] = ()
    if (mapping_table(header_cells) and len(plain) >= 2 and plain[0] != plain[1]
            and row_declaration(plain) and row_declaration(plain[1:])):
        aliases = ((plain[0], plain[1]),)
    if declared is not None:
        start = b.starts[row_first]
        declaration = open_declaration(ctx, declared, plain[1] if len(plain) > 1 and plain[1] else None, "row")
        b.emit_at("heading", row_first, start, start, text=declared, level=4, section_kind="declaration",
                  declaration=declaration)
    row = TableRow(table, tuple(plain), source_id, declared, aliases)
    block = statement(b, ctx, "table_row", row_first, row_stop, text, citations=citations, row=row,
                      flaws=row_flaws(b.lines[row_first], len(header_cells)))
    if pin is not None or declared is not None:
        column = row_statuses(header_cells, plain) if declared is not None else ()  # a `Status` column (G0 route tables)
        b.blocks[-1] = replace(block, pin=pin, statuses=column + block.statuses)
    if declared is not None:
        ctx.declaration = None
