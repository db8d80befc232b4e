"""Plain-text member parser: the seeds' rendering of Markdown members (GRAMMAR §9).

Recovery rules (GRAMMAR §9, "Recovery rules for a plain-text parser"): line 1 is the title, a
``Type:`` line names the member type and so the heading vocabulary; a line is a heading when it is a
known section or kind name, an ``On <ID>`` under ``Annotations``, a declaration ``<ID> — label``
under a kind heading, or a short unpunctuated line inside a section that allows free subheadings;
``|`` lines form tables; a paragraph ending `` --- <path>`` is a quotation, which may span several
paragraphs back to the one ending with ``:`` that introduced it; blank lines carry no meaning.
As in Markdown (:mod:`ingest.statements`), ``Amendment:`` paragraphs are amendments and Source
register rows declare their ``SRC-n``, so a set's plain-text rendering gives the Markdown set's
records, citations and rests-on answers. Lines end as in Markdown, at LF, CR LF
or a lone CR (:func:`split_lines`), and a leading byte-order mark is part of the preamble.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from collections.abc import Iterator

from graph.errors import ParseError, SourceSpan
from ingest.citations import extract_citations, split_cell_citations, with_heading_records
from domain.grammar import (
    EMPTY_KIND,
    RECORD_ID,
    SOURCE_ID,
    MemberType,
    declaring_table,
    kind_statuses,
    mapping_table,
    member_type,
    row_declaration,
    role_of,
    system_from_title,
)
from domain.ids import RecordId
from domain.model import Annotation, Citation, Declaration, Field, Quotation, Source, Status, TableRow
from domain.vocabulary import KIND_HEADINGS
from ingest.parsers.parsed import ParsedBlock, ParsedDocument
from ingest.statements import AMENDMENT, CONFLICT, amendment_facts, id_findings, register_pin, row_statuses, status_facts
import itertools

__all__ = ["parse_plaintext", "plaintext_system", "decode_member", "iter_lines", "split_lines", "table_cells", "citation_columns",
           "source_pins_from_prose"]

_TYPE_LINE = re.compile(r"^Type: (\S+)$")
_ATTRIBUTION = re.compile(r"\s---\s(\S+)$")
_TABLE_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")
_ANNOTATION_HEADING = re.compile(rf"^On ({RECORD_ID.pattern})(?: \u2014 (.+))?$")  # G2/G3 add `— label` (§4.6)
_DECLARATION = re.compile(rf"^({RECORD_ID.pattern})(?: \u2014(?: (.+))?)?$")  # `ID —`: a G1 inline declaration
_FIELD = re.compile(r"^(?:- )?([A-Z][^:\n]{0,80}?):\s+(\S.*)$")
_ANNOTATIONS_H3 = re.compile(r"^Annotations(?: of [^.:;]{1,80})?$")  # G1 `### Annotations of runtime records`
_SOURCE_ROW = re.compile(r"^SRC-\d+$")
_FREE_HEADING_MAX = 100
_KIND_NAMES = {name: kind for kind, name in KIND_HEADINGS}


def decode_member(data: bytes, path: str) -> str:
    """UTF-8 text of a member file (a leading byte-order mark is kept: it is the file's first
    character, part of the preamble, and no line's text; see :func:`split_lines`).

    Raises
    ------
    ParseError
        The file is empty, binary (has a NUL byte) or not valid UTF-8; the error names the line.
    """
    if not data.strip():
        raise ParseError("file is empty", source=SourceSpan(path, 1),
                         hint="an analysis-set member starts with a title line")
    if b"\x00" in data:
        line, _ = _place(data, data.index(b"\x00"))
        raise ParseError("file is binary (NUL byte), not a text member", source=SourceSpan(path, line))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _place(data, exc.start)
        raise ParseError(f"invalid UTF-8 at byte {exc.start}", source=SourceSpan(path, line, col),
                         hint="members are UTF-8 text; re-save the file as UTF-8") from None


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")


def _place(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (line, column in bytes) of byte ``offset``, lines as :func:`split_lines` counts them."""
    line, start = 1, 0
    for m in _LINE_BREAK_BYTES.finditer(data, 0, offset):
        line, start = line + 1, m.end()
    return line, offset - start + 1


def iter_lines(text: str) -> Iterator[tuple[str, int]]:
    r"""``(line, start offset)`` of each line of a member's text, in order, found as they are asked for.

    A line ends at a line feed, a carriage return not followed by a line feed, or a CR LF pair:
    CommonMark's line endings (spec §2.1), which markdown-it-py counts too, so its token lines are
    these lines in a Markdown member; plain text counts them the same way. A line's text excludes
    its ending, so ``text[start:start + len(line)]`` is the line. A leading byte-order mark
    belongs to no line: line 1 starts after it (it stays in the text, and so in the member's
    preamble).

    >>> list(iter_lines("a\r\nb\rc\n"))
    [('a', 0), ('b', 3), ('c', 5), ('', 7)]
    >>> list(iter_lines("\ufeff---\r\r\nx"))
    [('---', 1), ('', 5), ('x', 7)]
    """
    pos = 1 if text.startswith("\ufeff") else 0
    for m in _LINE_BREAK.finditer(text, pos):
        yield text[pos:m.start()], pos
        pos = m.end()
    yield text[pos:], pos


def split_lines(text: str) -> tuple[list[str], list[int]]:
    r"""Every line of a member's text and the offset each starts at (:func:`iter_lines`).

    >>> split_lines("a\r\n\ufeffb")
    (['a', '\ufeffb'], [0, 3])
    """
    pos = 1 if text.startswith("\ufeff") else 0
    if "\r" not in text:  # the common case, at str.split's speed
        lines = (text[1:] if pos else text).split("\n")
        starts = []
        for line in lines:
            starts.append(pos)
            pos += len(line) + 1
        return lines, starts
    lines, starts = [], []
    for line, start in iter_lines(text):
        lines.append(line)
        starts.append(start)
    return lines, starts


def table_cells(row: str) -> list[tuple[str, int]]:
    """Cells of a pipe-table row with their start offsets; escaped pipes ``\\|`` stay in the cell
    (GRAMMAR §3.5 table rules).

    >>> [c for c, _ in table_cells("| a | b \\\\| c |")]
    ['a', 'b \\\\| c']
    """
    cells: list[tuple[str, int]] = []
    starts = [m.start() for m in re.finditer(r"(?<!\\)\|", row)]
    for left, right in itertools.pairwise(starts):
        raw = row[left + 1 : right]
        lead = len(raw) - len(raw.lstrip())
        cells.append((raw.strip(), left + 1 + lead))
    return cells


def citation_columns(section_heading: str, header_cells: list[str]) -> set[int]:
    """Columns whose cells are citation lists: the Limitations table's second column (matched by
    position, GRAMMAR §3.8), and any column whose header says ``record citations``."""
    cols = {i for i, h in enumerate(header_cells) if "record citations" in h.lower() or "affected" in h.lower()}
    if section_heading.startswith("Limitations") and len(header_cells) >= 2:
        cols.add(1)
    return cols


def row_citations(cells: list[tuple[str, int]], cite_cols: set[int]) -> tuple[Citation, ...]:
    """Citations of one table row: citation columns split whole, other cells scanned as prose."""
    out: list[Citation] = []
    for i, (cell, offset) in enumerate(cells):
        if i in cite_cols:
            out.extend(split_cell_citations(cell, offset))
        else:
            for c in extract_citations(cell):
                out.append(replace(c, start=c.start + offset, end=c.end + offset,
                                   span_start=c.span_start + offset, span_end=c.span_end + offset))
    return tuple(out)


_URL = re.compile(r"https?://[^\s,;()]+[^\s,;().]")
_COMMIT = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")
_CUTOFF = re.compile(r"cutoff (?:of |date )?(\d{4}-\d{2}-\d{2})")


def source_pins_from_prose(texts: list[str]) -> tuple[Source, ...]:
    """The source pin stated in prose (seeds: ``… at commit <40 hex> of <url>, with an applicability
    cutoff of 2026-10-14``): the first paragraph naming a URL and a commit pins the ``SRC-n`` it
    cites (``SRC-1`` when it names none)."""
    for text in texts:
        url, commit = _URL.search(text), _COMMIT.search(text)
        if url and commit:
            cutoff = _CUTOFF.search(text)
            src = SOURCE_ID.search(text)
            return (Source(src.group() if src else "SRC-1", url=url.group(), commit=commit.group(),
                           cutoff=cutoff.group(1) if cutoff else None, kind="git"),)
    return ()


@dataclass(slots=True)
class _Line:
    """One non-blank line: its ``text`` (no line ending), ``[start, end)`` offsets, 1-based ``number``."""

    text: str
    start: int
    end: int
    number: int


@dataclass
class _Context:
    member: MemberType
    h2: str = ""
    h3_kind: str = ""
    annotates: str | None = None
    in_declaration: bool = False
    declaration: str | None = None
    """The record the open declaration declares."""
    inline: bool = False
    """The open declaration is a G1 inline one (rendered ``ID —``): a paragraph opening with
    another record ID ends it."""
    annotations_h3: bool = False
    kind_statuses: tuple[Status, ...] | None = None
    heading_ids: list[tuple[str, int]] = field(default_factory=list)
    """(record ID, line) pairs the open ledger heading names."""
    id_table: list[str] | None = None
    """Header cells of the declaring table just before (GRAMMAR §0; a fragment after a blank line
    continues it)."""
    blocks: list[ParsedBlock] = field(default_factory=list)
    pins: list[Source] = field(default_factory=list)
    checked: int = 0
    """Blocks :func:`_quotation` has looked at."""
    prose_from: int | None = None
    """Where the run of paragraphs not ending with ``:`` at the end of ``blocks[:checked]``
    starts (what a quotation may take back), None when there is none."""


def _heading(line: str, ctx: _Context) -> tuple[int, str, dict] | None:
    """(level, section kind, facts) when ``line`` is a heading in this context, else None; facts
    are :class:`ParsedBlock` fields (``record_kind``, ``annotation``, ``declaration``) and
    ``ledger`` for a heading naming records over a ledger block."""
    if line in ctx.member.sections:
        return 2, "section", {}
    if line in _KIND_NAMES and ctx.h2 == "Shared records":
        return 3, "kinds", {"record_kind": _KIND_NAMES[line]}
    if line in ctx.member.subsections or _ANNOTATIONS_H3.match(line):
        return 3, "subsection", {}
    if (ctx.h2 == "Annotations" or ctx.annotations_h3) and (m := _ANNOTATION_HEADING.match(line)):
        return 4, "annotation", {"annotation": Annotation(RecordId(m.group(1)), None, states_label=False)}
    if ctx.h2 == "Shared records" and ctx.h3_kind and (m := _DECLARATION.match(line)):
        return 4, "declaration", {"declaration": Declaration(RecordId(m.group(1)), m.group(2))}
    if (ctx.h2 != "Shared records" and _DECLARATION.match(line) and " \u2014 " in line
            and len(line) < _FREE_HEADING_MAX and line[-1] not in ".:;,)"):
        return 4, "subsection", {"ledger": True}  # `RTE-5 — acceptance` heading a ledger block (item 10)
    if ctx.heading_ids and len(line) < _FREE_HEADING_MAX and line[-1] not in ".:;,)" and not _FIELD.match(line):
        return 4, "subsection", {}  # a short unpunctuated line ends a ledger block: the next heading
    if (
        ctx.h2 in ctx.member.free
        and len(line) < _FREE_HEADING_MAX
        and not line.startswith("|")
        and line[-1] not in ".:;,)"
        and not _ATTRIBUTION.search(line)
    ):
        return 3, "subsection", {}
    return None


def _header(lines: list[_Line], path: str) -> tuple[str, _Line, str, MemberType]:
    """The title, the ``Type:`` line, its type path and member type of a plain-text member.

    Raises
    ------
    ParseError
        No title on line 1, no ``Type:`` line within the next three, or an unknown member type.
    """
    title = lines[0].text.strip()
    if not title or title.startswith(("---", "#", "|")):
        raise ParseError("expected a title on line 1", source=SourceSpan(path, 1),
                         hint="plain-text members start with the title line, then `Type: <type path>`")
    type_line = next((ln for ln in lines[1:4] if ln.text.strip()), None)
    match = _TYPE_LINE.match(type_line.text) if type_line else None
    if not match:
        raise ParseError("expected a `Type: <member type>` line after the title",
                         source=SourceSpan(path, type_line.number if type_line else 2))
    mtype = member_type(match.group(1))
    if mtype is None:
        raise ParseError(f"unknown member type {match.group(1)!r}", source=SourceSpan(path, type_line.number),
                         hint="expected an agentic-system analysis member type such as "
                              "agentic-system-analyses/types/agentic-system-synthesis.md")
    return title, type_line, match.group(1), mtype


def plaintext_system(data: bytes, path: str) -> str:
    """The system a plain-text member is about, read from its first lines only: what
    :func:`parse_plaintext` gives as ``system`` (without parsing the body).

    Raises
    ------
    ParseError
        As :func:`parse_plaintext` for the title and ``Type:`` lines (and the decoding).
    """
    text = decode_member(data, path)
    head = [_Line(raw, start, start + len(raw), number)
            for number, (raw, start) in zip(range(1, 5), iter_lines(text))]
    return system_from_title(_header(head, path)[0])


def parse_plaintext(data: bytes, path: str) -> ParsedDocument:
    """Parse one plain-text member.

    Parameters
    ----------
    data : bytes
        The file's raw bytes; the SHA-256 is taken over them.
    path : str
        The path shown in errors and stored on the document.

    Returns
    -------
    ParsedDocument
        Blocks in document order; ``preamble`` is the title through the ``Type:`` line, ``trailer``
        what follows the last block (``""`` for the seeds, which end without a newline).

    Raises
    ------
    ParseError
        Not UTF-8, empty, binary, no title or ``Type:`` line within the first three lines, or a
        type that is not a known member type; the error names the line.
    """
    text = decode_member(data, path)
    raw, starts = split_lines(text)
    title, type_line, type_path, mtype = _header(
        [_Line(raw[k], starts[k], starts[k] + len(raw[k]), k + 1) for k in range(min(4, len(raw)))], path)
    ctx = _Context(mtype)
    prev_end = type_line.end
    rest = [_Line(raw[k], starts[k], starts[k] + len(raw[k]), k + 1)
            for k in range(type_line.number, len(raw)) if raw[k].strip()]
    del raw, starts
    i = 0
    while i < len(rest):
        ln = rest[i]
        gap = text[prev_end : ln.start]
        if ln.text.startswith("|"):
            i, prev_end = _table(rest, i, gap, text, ctx)
            continue
        _block(ln, gap, ctx)
        prev_end = ln.end
        i += 1
    trailer = text[prev_end:]
    statements = [b.text for b in ctx.blocks if b.kind == "paragraph"]
    return ParsedDocument(
        path=path,
        format="txt",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        title=title,
        member_type=type_path,
        role=role_of(mtype, path.replace("\\", "/").rsplit("/", 1)[-1]),
        system=system_from_title(title),
        preamble=text[: type_line.end],
        blocks=tuple(ctx.blocks),
        trailer=trailer,
        pins=source_pins_from_prose(statements) + tuple(ctx.pins),
    )


def _block(ln: _Line, gap: str, ctx: _Context) -> None:
    line = ln.text
    ctx.id_table = None  # a table fragment continues a declaring table only right after it
    heading = _heading(line, ctx)
    if heading:
        level, kind, facts = heading
        if level == 2:
            ctx.h2, ctx.h3_kind, ctx.annotates, ctx.in_declaration = line, "", None, False
            ctx.kind_statuses, ctx.annotations_h3 = None, False
        elif kind == "kinds":
            ctx.h3_kind, ctx.in_declaration, ctx.kind_statuses, ctx.annotations_h3 = line, False, None, False
        elif kind == "annotation":
            ctx.annotates, ctx.in_declaration = facts["annotation"].annotates, False
        elif kind == "declaration":
            declaration = facts["declaration"]
            ctx.in_declaration, ctx.annotates, ctx.declaration = True, None, declaration.record_id
            ctx.inline = declaration.label is None and line.endswith("\u2014")
            if ctx.kind_statuses:
                facts["declaration"] = replace(declaration, inherited_statuses=ctx.kind_statuses)
        elif level == 3:
            ctx.h3_kind, ctx.in_declaration, ctx.kind_statuses = "", False, None
            ctx.annotations_h3 = bool(_ANNOTATIONS_H3.match(line))
        citations: tuple = ()
        ctx.heading_ids = []
        if facts.pop("ledger", False):
            citations = tuple(c for c in extract_citations(line) if c.target_kind == "record")
            ctx.heading_ids = list(dict.fromkeys((c.target, ln.number) for c in citations))
        ctx.blocks.append(ParsedBlock("heading", ln.number, line, gap, text=line, level=level,
                                      section_kind=kind, citations=citations, **facts))
        return
    if EMPTY_KIND.match(line):
        ctx.blocks.append(ParsedBlock("empty_marker", ln.number, line, gap, text=line))
        return
    attribution = _ATTRIBUTION.search(line)
    if attribution:
        _quotation(ln, gap, attribution, ctx)
        return
    kind = "paragraph"
    field = amendment = None
    closes_record, stated = False, ()
    citations = extract_citations(line)
    if ctx.heading_ids:
        citations = with_heading_records(citations, ctx.heading_ids, len(line))
    if ctx.in_declaration and ctx.inline and (opening := RECORD_ID.match(line)) and opening.group() != ctx.declaration:
        ctx.in_declaration = False  # as in Markdown: the paragraph ends the inline declaration
        closes_record = True
    if line.startswith(AMENDMENT):
        kind, amendment, closes_record = "amendment", amendment_facts(line, citations), False
    elif line.startswith(CONFLICT):
        kind = "conflict"
    elif ctx.in_declaration and (m := _FIELD.match(line)):
        label = m.group(1)
        # the rendering drops list markers: a field is a bullet, but for the `Part of:` line (§4.7)
        kind, field, closes_record = "field", Field(label, m.group(2), "line" if label == "Part of" else "bullet"), False
    elif ctx.annotates:
        kind = "annotation_body"
    elif (ctx.h2 == "Shared records" and ctx.h3_kind and not ctx.in_declaration
          and (stated := kind_statuses(line))):
        ctx.kind_statuses = stated  # G1: the sentence heading a kind section
    statuses = ()
    if ctx.in_declaration or ctx.annotates:
        statuses = status_facts(line, field and field.label, field and field.value, field and field.form)
    ctx.blocks.append(ParsedBlock(kind, ln.number, line, gap, text=line, citations=citations, field=field,
                                  amendment=amendment, statuses=statuses, kind_statuses=stated,
                                  closes_record=closes_record, flaws=id_findings(line)))


def _quotation(ln: _Line, gap: str, attribution: re.Match, ctx: _Context) -> None:
    """A quotation ends at the attribution line; it starts after the nearest preceding paragraph
    ending with ``:`` (GRAMMAR §9 rule 4), taking the paragraphs in between with it."""
    blocks = ctx.blocks
    for k in range(ctx.checked, len(blocks)):  # each block is looked at once, however many quotations
        prose = blocks[k].kind == "paragraph" and not blocks[k].text.rstrip().endswith(":")
        ctx.prose_from = (k if ctx.prose_from is None else ctx.prose_from) if prose else None
    j = (len(blocks) if ctx.prose_from is None else ctx.prose_from) - 1
    introduced = j >= 0 and blocks[j].kind == "paragraph" and blocks[j].text.rstrip().endswith(":")
    taken = blocks[j + 1:] if introduced else []
    del blocks[len(blocks) - len(taken):]
    first_gap = taken[0].gap if taken else gap
    markup = "".join([taken[0].markup, *(b.gap + b.markup for b in taken[1:]), gap + ln.text]) if taken else ln.text
    text = _LINE_BREAK.sub("\n", markup) if "\r" in markup else markup  # the paragraphs' gaps as LF
    path = attribution.group(1)
    body = text[: len(text) - len(attribution.group(0))]
    at = len(text) - len(path)
    cite = Citation(path, "file", path.rstrip("/"), "quotation", at, len(text), 0, len(text))
    blocks.append(ParsedBlock(
        "quotation", taken[0].line if taken else ln.number, markup, first_gap, text=text,
        citations=(cite,), quotation=Quotation(body, path),
    ))
    ctx.checked, ctx.prose_from = len(blocks), None


def _table(rest: list[_Line], i: int, gap: str, text: str, ctx: _Context) -> tuple[int, int]:
    """Consume a pipe table starting at ``rest[i]``: one ``table_header`` block (header and
    separator rows) and one ``table_row`` block per row (GRAMMAR §9 rule 6). A table whose header's
    first cell is ``ID`` declares its rows' records as in Markdown (:func:`~domain.grammar.declaring_table`),
    and rows after a blank line that open with a record ID continue it without a header."""
    header = rest[i]
    j = i + 1
    fragment = (ctx.id_table is not None and not (j < len(rest) and _TABLE_SEPARATOR.match(rest[j].text))
                and row_declaration([c for c, _ in table_cells(header.text)]) is not None)
    table = "limitations" if ctx.h2.startswith("Limitations") else ("register" if ctx.h2 == "Source register" else "table")
    if fragment:
        header_cells, prev_end, j = ctx.id_table, None, i
    else:
        if j < len(rest) and _TABLE_SEPARATOR.match(rest[j].text) and rest[j].number == header.number + 1:
            end = rest[j]
            j += 1
        else:
            end = header
        header_cells = [c for c, _ in table_cells(header.text)]
        ctx.blocks.append(ParsedBlock("table_header", header.number, text[header.start : end.end], gap,
                                      text=header.text, row=TableRow(table, tuple(header_cells))))
        prev_end = end.end
    ctx.id_table = None
    declares = declaring_table(header_cells)
    cite_cols = citation_columns(ctx.h2, header_cells)
    while j < len(rest) and rest[j].text.startswith("|") and (j == i or rest[j].number == rest[j - 1].number + 1):
        row = rest[j]
        row_gap = gap if prev_end is None else text[prev_end : row.start]
        cells = table_cells(row.text)
        plain = [c for c, _ in cells]
        source_id = None
        if table == "register" and cells and _SOURCE_ROW.match(cells[0][0]):
            source_id = cells[0][0]
            ctx.pins.append(register_pin([c.replace("\\|", "|") for c, _ in cells]))
        aliases: tuple[tuple[str, str], ...] = ()
        if (mapping_table(header_cells) and len(plain) >= 2 and plain[0] != plain[1]
                and row_declaration(plain) and row_declaration(plain[1:])):
            aliases = ((plain[0], plain[1]),)
        declared = row_declaration(plain) if declares else None
        citations = row_citations(cells[1:] if declared else cells, {n - 1 for n in cite_cols} if declared else cite_cols)
        statuses = ()
        if declared is not None:
            declaration = Declaration(RecordId(declared), plain[1] if len(plain) > 1 and plain[1] else None, "row",
                                      ctx.kind_statuses or ())
            ctx.blocks.append(ParsedBlock("heading", row.number, "", row_gap, text=declared, level=4,
                                          section_kind="declaration", declaration=declaration))
            row_gap = ""
            statuses = row_statuses(header_cells, plain) + status_facts(row.text, None, None, None)
        ctx.blocks.append(ParsedBlock(
            "table_row", row.number, row.text, row_gap, text=row.text, citations=citations,
            row=TableRow(table, tuple(plain), source_id, declared, aliases), statuses=statuses,
            flaws=id_findings(row.text),
        ))
        prev_end = row.end
        j += 1
    ctx.id_table = header_cells if declares else None
    ctx.in_declaration = False if declares else ctx.in_declaration
    return j, prev_end
