"""The block builder: blocks with exact ``gap``/``markup`` from file line ranges, where the
parser is (open H2, kind heading, record), and :func:`statement`, the one way a statement is
emitted (citations, statuses, fields; GRAMMAR §4.3–§4.5, §4.7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from markdown_it import MarkdownIt
from markdown_it.token import Token

from domain.grammar import RECORD_ID, MemberType, anchor_record
from graph.errors import ParseError, SourceSpan
from ingest.citations import extract_citations, with_heading_records
from ingest.parsers.markdown.inline import Link, id_findings, run_on_fields, status_facts, with_links
from domain.checks import Flaws
from domain.ids import RecordId
from domain.model import Citation, Declaration, Field, Status, TableRow
from ingest.parsers.parsed import ParsedBlock

__all__ = ["MD", "Context", "Builder", "closing", "open_declaration", "statement", "heading_citations", "parse_field",
           "LABEL"]


MD = MarkdownIt("commonmark").enable("table")


LABEL = re.compile(r"^([^:\n]{1,200}?):[ \t]+(\S[\s\S]*)$")


_PART_OF = re.compile(
    rf"^Part of:[ \t]+(?:({RECORD_ID.pattern})|\[({RECORD_ID.pattern})\]\(([^()\s]*)\))[ \t]*$"
)


@dataclass
class Context:
    """Where the parser is: the open H2, kind heading, declaration and annotation."""

    member: MemberType
    file_name: str
    h2: str = ""
    record_kind: str | None = None
    declaration: Declaration | None = None
    annotation: str | None = None
    first_in_record: bool = False
    h3: str = ""
    heading_ids: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    """Open headings that are no declaration or annotation but name records (a ledger's ``### RTE-5
    — …``), by level: the (record ID, 1-based heading line) pairs each statement under them cites."""
    kind_statuses: tuple[Status, ...] | None = None
    """Statuses the open kind section's opening sentence states for every record under it
    (:func:`~domain.grammar.kind_statuses`); each declaration under it inherits them."""
    id_table: list[str] | None = None
    """Header cells of the last table under the open heading whose first header cell is ``ID``
    (a declaring table, GRAMMAR §0; G1 kind sections): a headerless fragment of rows after it
    continues it."""


@dataclass
class Builder:
    """Emits blocks with exact ``gap``/``markup`` from file line ranges."""

    path: str
    text: str
    lines: list[str]
    starts: list[int]
    prev_end: int
    blocks: list[ParsedBlock] = field(default_factory=list)

    def bounds(self, first: int, stop: int) -> tuple[int, int, int]:
        """(start offset, end offset, last line) of file lines ``[first, stop)`` (0-based) without
        trailing blank lines."""
        while stop > first + 1 and not self.lines[stop - 1].strip():
            stop -= 1
        return self.starts[first], self.starts[stop - 1] + len(self.lines[stop - 1]), stop

    def emit(self, kind: str, first: int, stop: int, **kwargs) -> ParsedBlock:
        start, end, _ = self.bounds(first, stop)
        return self.emit_at(kind, first, start, end, **kwargs)

    def emit_at(self, kind: str, line: int, start: int, end: int, **kwargs) -> ParsedBlock:
        """Emit a block of file offsets ``[start, end)`` on 0-based ``line`` (a part of a line:
        an inline declaration, :func:`inline_declaration`)."""
        if start < self.prev_end:
            raise ParseError("overlapping Markdown blocks", source=SourceSpan(self.path, line + 1))
        block = ParsedBlock(kind, line + 1, self.text[start:end], self.text[self.prev_end:start], **kwargs)
        self.blocks.append(block)
        self.prev_end = end
        return block


def open_declaration(ctx: Context, record_id: str, label: str | None, form: str) -> Declaration:
    """Enter the declaration of ``record_id`` labelled ``label`` written in ``form``
    (:attr:`~domain.model.Declaration.form`), which inherits the statuses its kind section states
    for every record under it (G1); returns it."""
    declaration = Declaration(RecordId(record_id), label, form, ctx.kind_statuses or ())
    ctx.declaration, ctx.annotation, ctx.first_in_record = declaration, None, True
    return declaration


def closing(tokens: list[Token], i: int) -> int:
    """Index of the token closing ``tokens[i]`` (``i`` itself for self-contained tokens)."""
    if tokens[i].nesting != 1:
        return i
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def statement(b: Builder, ctx: Context, kind: str, first: int, stop: int, text: str, *,
              links: list[Link] = (), scan: bool = True, citations=None, at: tuple[int, int] | None = None,
              field: Field | None = None, row: TableRow | None = None, flaws: Flaws | None = None,
              kind_statuses: tuple[Status, ...] = (), continuation: bool = False,
              closes_record: bool = False) -> ParsedBlock:
    """Emit one statement: citations (plain-text rules, then links), statuses inside a declaration
    or annotation (GRAMMAR §4.4) and ID findings, besides the ``field`` or table ``row`` it is and
    the ``flaws`` its caller found; ``scan=False`` for quoted, fenced and raw HTML text; ``at``
    gives file offsets when the statement is part of a line (an inline declaration's body)."""
    statuses: tuple[Status, ...] = ()
    run_on: tuple[Field, ...] = ()
    if scan:
        if citations is None:
            citations = with_links(extract_citations(text), list(links), ctx.file_name, ctx.member.projection)
        if ctx.heading_ids:
            citations = heading_citations(citations, ctx, len(text))
        flaws = merge_flaws(flaws, id_findings(text))
        if ctx.declaration is not None or ctx.annotation is not None:
            statuses = status_facts(text, field and field.label, field and field.value, field and field.form)
            if kind in ("field", "paragraph") and (field.form if field else None) in (None, "line"):
                run_on = run_on_fields(text)
    elif citations is None:
        citations = ()
    if ctx.annotation is not None and kind == "paragraph":
        kind = "annotation_body"
    facts = dict(text=text, citations=tuple(citations), field=field, row=row, statuses=statuses, run_on=run_on,
                 kind_statuses=kind_statuses, continuation=continuation, closes_record=closes_record, flaws=flaws)
    block = (b.emit(kind, first, stop, **facts) if at is None
             else b.emit_at(kind, first, *at, **facts))  # offsets within the lines (an inline declaration's body)
    if ctx.first_in_record:
        ctx.first_in_record = False
        declaration = ctx.declaration
        if declaration is not None and field is not None and field.label == "Label" and not declaration.label:
            # the record's first field names it: its declaration takes the label
            named = replace(declaration, label=field.value)
            n = next(n for n in range(len(b.blocks) - 1, -1, -1) if b.blocks[n].declaration is declaration)
            b.blocks[n] = replace(b.blocks[n], declaration=named)
            ctx.declaration = named
    return block


def merge_flaws(a: Flaws | None, b: Flaws | None) -> Flaws | None:
    """The flaws of ``a`` and ``b`` together (they state different flaws), None when neither has any."""
    if a is None or b is None:
        return a or b
    return replace(a, **{name: getattr(b, name) for name in b.__slots__ if getattr(b, name)})


def heading_citations(citations, ctx: Context, length: int) -> tuple[Citation, ...]:
    """``citations`` and, for each record an open ledger heading names that they do not cite, a
    citation of form ``heading`` (:func:`ingest.citations.with_heading_records`)."""
    return with_heading_records(citations, [r for level in sorted(ctx.heading_ids) for r in ctx.heading_ids[level]],
                                length)


def parse_field(label: str, value: str, form: str, raw: str, ctx: Context) -> tuple[Field, Flaws | None]:
    """The :class:`~domain.model.Field` of file line ``raw`` (``label``, ``value``, ``form``), with
    ``part_of`` for a well-formed ``Part of:`` line inside a declaration (GRAMMAR §4.7) and
    ``route_ids`` for a ledger ``Route ID:`` line (§3.5); and its flaws: a malformed ``Part of:``
    line (inside an annotation it is malformed: an annotation adds no ``Part of:``, §4.6)."""
    part_of = malformed = None
    if label == "Part of" and ctx.declaration is None and ctx.annotation is not None:
        malformed = f"`{raw.strip()}` in an annotation, which adds no `Part of:`"
    elif label == "Part of" and ctx.declaration is not None:
        m = _PART_OF.match(raw)
        if form != "line":
            malformed = f"bulleted `{raw.strip()}`"
        elif m and m.group(1):
            part_of = m.group(1)
        elif m and m.group(2) and anchor_record(m.group(3).partition("#")[2]) == m.group(2):
            part_of = m.group(2)
        else:
            malformed = raw.strip()
    route_ids = tuple(m.group() for m in RECORD_ID.finditer(value)) if label == "Route ID" else None
    return Field(label, value, form, part_of, route_ids), Flaws(part_of_malformed=malformed) if malformed else None
