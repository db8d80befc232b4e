"""Top-level blocks: dispatch by token, paragraphs and fields, list items with their nested
quotes and fences, quotations (GRAMMAR §6) and folded ``Part of:`` lines (§4.7).
"""

from __future__ import annotations

import re
from dataclasses import replace

from markdown_it.token import Token

from domain.grammar import ATTRIBUTION, EMPTY_KIND, QUOTE_MARKER, RECORD_ID, kind_statuses
from domain.checks import Flaws
from domain.model import Citation, Quotation
from ingest.parsers.markdown.builder import LABEL, MD, Builder, Context, closing, parse_field, statement
from ingest.parsers.markdown.inline import GITHUB_BLOB, Link, bold_label, inline_lines, render_inline
from ingest.parsers.markdown.records import heading, inline_declaration
from ingest.parsers.markdown.tables import parse_table, table_fragment
from ingest.statements import AMENDMENT, CONFLICT, amendment_facts

__all__ = ["top_block"]


_LINES_SUFFIX = re.compile(r"^(.*?):(\d+(?:-\d+)?)$")


def top_block(tokens: list[Token], i: int, close: int, base: int, b: Builder, ctx: Context) -> None:
    """Emit the blocks of one top-level token range ``tokens[i..close]``."""
    tok = tokens[i]
    first, stop = base + tok.map[0], base + tok.map[1]
    in_record = ctx.declaration is not None or ctx.annotation is not None
    if in_record and tok.type in ("paragraph_open", "bullet_list_open", "ordered_list_open"):
        parts = [n for n in range(first + 1, stop) if _PART_OF_LINE.match(b.lines[n])]
        if parts:
            _split_at_part_of(first, parts, stop, b, ctx)
            return
    if tok.type not in ("paragraph_open", "table_open"):
        ctx.id_table = None
    if tok.type == "heading_open":
        heading(tokens[i + 1], int(tok.tag[1:]), first, stop, b, ctx)
    elif tok.type == "paragraph_open":
        _paragraph(tokens[i + 1], first, stop, b, ctx)
    elif tok.type in ("bullet_list_open", "ordered_list_open"):
        j = i + 1
        while j < close:
            item_close = closing(tokens, j)
            if tokens[j].type == "list_item_open":
                _list_item(tokens, j, item_close, base, b, ctx)
            j = item_close + 1
    elif tok.type == "blockquote_open":
        _blockquote(first, stop, b, ctx)
    elif tok.type == "table_open":
        parse_table(tokens, i, close, base, b, ctx)
    elif tok.type in ("fence", "code_block"):
        statement(b, ctx, "code", first, stop, tok.content.rstrip("\n"), scan=False)
    elif tok.type == "html_block":
        statement(b, ctx, "html", first, stop, tok.content.rstrip("\n"), scan=False)
    elif tok.type == "hr":
        statement(b, ctx, "rule", first, stop, "", scan=False)


_PART_OF_LINE = re.compile(r"^Part of:")


def _split_at_part_of(first: int, parts: list[int], stop: int, b: Builder, ctx: Context) -> None:
    """Lines ``[first, stop)`` of a paragraph or list whose lines ``parts`` (ascending, each after
    ``first``) are column-0 ``Part of:`` lines that Markdown folds into the block before them (a
    lazy continuation of a bullet, or a paragraph's next line): the lines between them are parsed
    as blocks of their own, and each of those lines is the ``Part of:`` line it is wherever it
    stands (GRAMMAR §4.7). Every line is parsed once, so the cost is linear in the block however
    many ``Part of:`` lines it folds in."""
    start = first
    for k in parts:
        _blocks_of(start, k, b, ctx)
        if ctx.declaration is None and ctx.annotation is None:  # the lines before held a heading
            _blocks_of(k, k + 1, b, ctx)                       # that ended the record: plain prose
        else:
            text, links = render_inline(MD.parseInline(b.lines[k])[0].children)
            m = LABEL.match(text)
            field, flaws = parse_field("Part of", m.group(2).strip() if m else "", "line", b.lines[k], ctx)
            statement(b, ctx, "field", k, k + 1, text, links=links, field=field, flaws=flaws)
        start = k + 1
    if start < stop:
        _blocks_of(start, stop, b, ctx)


def _blocks_of(first: int, stop: int, b: Builder, ctx: Context) -> None:
    """Parse file lines ``[first, stop)`` on their own and emit their blocks."""
    tokens = MD.parse("\n".join(b.lines[first:stop]))
    i = 0
    while i < len(tokens):
        close = closing(tokens, i)
        if tokens[i].nesting != -1 and tokens[i].map is not None:
            top_block(tokens, i, close, first, b, ctx)
        i = close + 1


def _paragraph(inline: Token, first: int, stop: int, b: Builder, ctx: Context) -> None:
    if table_fragment(first, stop, b, ctx):
        return
    ctx.id_table = None  # a fragment continues a declaring table only right after it
    if inline_declaration(inline, first, stop, b, ctx):
        return
    text, links = render_inline(inline.children)
    if EMPTY_KIND.match(text.strip()):
        statement(b, ctx, "empty_marker", first, stop, text)
        return
    if text.startswith(AMENDMENT):
        block = statement(b, ctx, "amendment", first, stop, text, links=links)
        b.blocks[-1] = replace(block, amendment=amendment_facts(block.text, block.citations))
        return
    if text.startswith(CONFLICT):
        statement(b, ctx, "conflict", first, stop, text, links=links)
        return
    if (ctx.declaration is not None and ctx.declaration.form == "inline"
            and (opening := RECORD_ID.match(text)) and opening.group() != ctx.declaration.record_id):
        # G1: an inline declaration's body ends at a paragraph that opens with another record ID
        #; the paragraph is the kind section's, not the record's
        ctx.declaration = None
        statement(b, ctx, "paragraph", first, stop, text, links=links, closes_record=True)
        return
    in_record = ctx.declaration is not None or ctx.annotation is not None
    if not in_record and ctx.h2 == "Shared records" and ctx.record_kind and (stated := kind_statuses(text)):
        ctx.kind_statuses = stated  # G1: the sentence heading a kind section
        statement(b, ctx, "paragraph", first, stop, text, links=links, kind_statuses=stated)
        return
    ledger = ctx.h2 == "Authority-route ledger" and text.startswith("Route ID:")
    if in_record or ledger:
        per_line = [render_inline(line) for line in inline_lines(inline.children)]
        matches = [LABEL.match(t) for t, _ in per_line]
        if len(per_line) == stop - first and all(matches):
            for n, ((line_text, line_links), m) in enumerate(zip(per_line, matches)):
                raw = b.lines[first + n]
                field, flaws = parse_field(m.group(1).strip(), m.group(2).strip(), "line", raw, ctx)
                statement(b, ctx, "field", first + n, first + n + 1, line_text, links=line_links, field=field,
                          flaws=flaws)
            return
    statement(b, ctx, "paragraph", first, stop, text, links=links)


def _item_parts(tokens: list[Token], i: int, close: int) -> list[tuple[str, int, int]]:
    """The children of list item ``tokens[i..close]`` as (kind, first token, last token), kind
    ``text`` for ordinary content and ``quote``/``code`` for nested blockquotes and fences."""
    parts = []
    j = i + 1
    while j < close:
        end = closing(tokens, j)
        kind = {"blockquote_open": "quote", "fence": "code", "code_block": "code"}.get(tokens[j].type, "text")
        parts.append((kind, j, end))
        j = end + 1
    return parts


def _render_blocks(tokens: list[Token], i: int, close: int) -> tuple[str, list[Link]]:
    """Plain text of block tokens ``tokens[i..close]``: paragraphs, nested list items and table
    cells one per line; nested quotes and fences are left out (GRAMMAR §6)."""
    out: list[str] = []
    links: list[Link] = []
    skip_until = -1
    offset = 0
    for j in range(i, close + 1):
        tok = tokens[j]
        if j <= skip_until:
            continue
        if tok.type in ("blockquote_open",):
            skip_until = closing(tokens, j)
            continue
        if tok.type == "inline":
            piece, piece_links = render_inline(tok.children)
            if out:
                offset += 1
            links.extend(replace(link, start=link.start + offset, end=link.end + offset) for link in piece_links)
            out.append(piece)
            offset += len(piece)
    return "\n".join(out), links


def _list_item(tokens: list[Token], i: int, close: int, base: int, b: Builder, ctx: Context) -> None:
    """One top-level bullet: a ``field`` or ``list_item`` block, with nested quotes and fences split
    out as their own blocks (GRAMMAR §6: quotes may sit inside a list item's context)."""
    item_first, item_stop = base + tokens[i].map[0], base + tokens[i].map[1]
    parts = _item_parts(tokens, i, close)
    groups: list[tuple[str, list[tuple[str, int, int]]]] = []
    for part in parts:
        if part[0] == "text" and groups and groups[-1][0] == "text":
            groups[-1][1].append(part)
        else:
            groups.append((part[0], [part]))
    special_starts = [base + tokens[g[1][0][1]].map[0] for g in groups]
    for n, (kind, members) in enumerate(groups):
        first = item_first if n == 0 else special_starts[n]
        stop = special_starts[n + 1] if n + 1 < len(groups) else item_stop
        if kind == "quote":
            _blockquote(first, stop, b, ctx)
        elif kind == "code":
            tok = tokens[members[0][1]]
            statement(b, ctx, "code", first, stop, tok.content.rstrip("\n"), scan=False)
        else:
            _item_text(tokens, members, first, stop, b, ctx, is_first=n == 0)
    if not groups:
        statement(b, ctx, "list_item", item_first, item_stop, "")


def _item_text(tokens: list[Token], members: list[tuple[str, int, int]], first: int, stop: int,
               b: Builder, ctx: Context, *, is_first: bool) -> None:
    text, links = _render_blocks(tokens, members[0][1], members[-1][2])
    if not is_first:
        statement(b, ctx, "list_item", first, stop, text, links=links, continuation=True)
        return
    if ctx.declaration is not None or ctx.annotation is not None:
        lead = tokens[members[0][1]]
        bold = bold_label(tokens[members[0][1] + 1].children) if lead.type == "paragraph_open" else None
        if bold is not None:
            label, rest = bold
            value = render_inline(rest)[0].strip().lstrip(":").strip()
            more = text.split("\n", 1)[1] if "\n" in text else ""
            value = f"{value}\n{more}".strip() if more else value
            field, flaws = parse_field(label, value, "bold", b.lines[first], ctx)
            statement(b, ctx, "field", first, stop, text, links=links, field=field, flaws=flaws)
            return
        m = LABEL.match(text)
        if m and ". " not in m.group(1):
            field, flaws = parse_field(m.group(1).strip(), m.group(2).strip(), "bullet", b.lines[first], ctx)
            statement(b, ctx, "field", first, stop, text, links=links, field=field, flaws=flaws)
            return
    statement(b, ctx, "list_item", first, stop, text, links=links)


def _attribution(span: str) -> tuple[str, str | None, str | None]:
    """(path, lines, revision) of an attribution's code span: ``path``, ``path:270-275`` or a pinned
    GitHub blob URL (GRAMMAR §6)."""
    blob = GITHUB_BLOB.match(span)
    if blob:
        rev, path, start, end = blob.groups()
        lines = None if start is None else (start if end is None else f"{start}-{end}")
        return path, lines, rev
    m = _LINES_SUFFIX.match(span)
    if m and not span.startswith(("http://", "https://")):
        return m.group(1), m.group(2), None
    return span, None, None


def _blockquote(first: int, stop: int, b: Builder, ctx: Context) -> None:
    """One ``quotation`` block per attributed passage of a blockquote (GRAMMAR §6); the attribution
    path is the block's only citation (form ``quotation``)."""
    _, _, stop = b.bounds(first, stop)
    start = first
    for n in range(first, stop):
        m = ATTRIBUTION.match(b.lines[n])
        if m or n == stop - 1:
            _quotation(start, n + 1, m, b, ctx)
            start = n + 1


def _quotation(first: int, stop: int, attribution: re.Match | None, b: Builder, ctx: Context) -> None:
    raw = b.lines[first:stop - 1] if attribution else b.lines[first:stop]
    body = "\n".join(QUOTE_MARKER.sub("", line, count=1) for line in raw).strip("\n")
    flat = " ".join(body.split())
    if attribution is None:
        statement(b, ctx, "quotation", first, stop, flat, scan=False, flaws=Flaws(unattributed=True))
        return
    span, revision = attribution.group("span") or attribution.group("url"), attribution.group("rev")
    path, lines, rev = _attribution(span)
    text = f"{flat} --- {span}" if flat else f"--- {span}"
    at = len(text) - len(span)
    cite = Citation(span, "file", path, "quotation", at, len(text), 0, len(text))
    block = statement(b, ctx, "quotation", first, stop, text, scan=False, citations=(cite,))
    b.blocks[-1] = replace(block, quotation=Quotation(body, path, lines, revision or rev))
