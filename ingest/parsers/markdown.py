"""Markdown member parser: canonical analysis-set members, every generation (GRAMMAR §3–§7, §10).

Structure comes from markdown-it-py tokens (their ``map`` gives source lines), frontmatter from
PyYAML. The result has the plain-text parser's shape: a flat list of blocks whose ``gap + markup``
concatenation between ``preamble`` and ``trailer`` is the file's text, byte for byte.

Blocks, in document order (GRAMMAR section in brackets):

- headings: ``section`` (H2), ``kinds`` (H3 kind heading under ``## Shared records``, §4.1),
  ``declaration`` (``#### ID — Label`` or G4 ``#### ID`` + ``Label:`` line, §4.2; G1 also
  ``### ID — Label`` after an H3 kind heading, and ``ID — Label. …`` opening a paragraph, whose
  ``ID —`` is the heading and the rest a statement inside it), ``annotation`` (``#### On ID —
  label`` or the link form, §4.6), ``subsection`` (any other H3–H6);
- statements: ``paragraph``, ``list_item`` (one per top-level bullet), ``field`` (a ``Label: value``
  bullet, bold bullet or line inside a declaration or annotation, §4.3–§4.5, and ``Route ID:``
  ledger lines, §3.5), ``table_header``/``table_row`` (§7), ``quotation`` (one blockquote passage
  with its attribution, §6), ``empty_marker`` (§4.1), ``amendment`` (§4.8), ``conflict`` (§4.9),
  ``code`` (fenced or indented code), ``html`` and ``rule``.

Quoted and fenced text never yields citations, declarations, statuses or ID findings (§6).

Lines end at LF, CR LF or a lone CR, the line endings of CommonMark (§2.1) that markdown-it-py
counts (:func:`~ingest.parsers.plaintext.split_lines`): a block's ``line`` and ``markup`` are those
lines', and its ``text`` reads the same whichever endings the file has. A leading byte-order mark
is part of the preamble.
"""

from __future__ import annotations

import hashlib
import importlib
import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, Iterator

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from graph.errors import ParseError, SourceSpan
from ingest.citations import extract_citations, split_cell_citations
from domain.grammar import (
    ATTRIBUTION,
    EMPTY_KIND,
    ID_LIKE,
    KIND_HEADINGS,
    MEMBER_FILES,
    RECORD_ID,
    SOURCE_RANGE,
    STATUS_IN_PROSE,
    STATUS_LABEL,
    QUOTE_MARKER,
    MemberType,
    anchor_record,
    member_identity,
    member_type,
    record_ranges,
    role_of,
    split_status,
    system_from_title,
)
from domain.model import Citation, Quotation
from ingest.parsers.parsed import ParsedBlock, ParsedDocument, ParsedSourcePin
from ingest.parsers.plaintext import citation_columns, decode_member, iter_lines, split_lines
from ingest.parsers.yamldoc import load_yaml
from ingest.statements import AMENDMENT, CONFLICT, amendment_facts, register_pin

__all__ = ["Frontmatter", "read_frontmatter", "parse_markdown", "frontmatter_records"]

_MD = MarkdownIt("commonmark").enable("table")


def _escaped_split(row: str) -> list[str]:
    r"""A pipe-table row split at its unescaped pipes, each escaped pipe ``\|`` kept as ``|``: what
    markdown-it-py's ``rules_block.table.escapedSplit`` returns, in time linear in the row. The
    library grows one string per escaped pipe, copying it each time (a row of 400,000 escaped
    pipes, 2 MB, took 19 s); here each cell's pieces are joined once. A pipe is escaped when the
    character before it is a backslash, as in the library.

    >>> _escaped_split("| a \\| b | c |")
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
_library_escaped_split = _table_rule.escapedSplit
_table_rule.escapedSplit = _escaped_split  # the table rule looks it up at each call (issue 14)

_KIND_NAMES = {name: kind for kind, name in KIND_HEADINGS}
_FILE_ROLES = {name: role for role, name in MEMBER_FILES.items()}
_DECLARATION = re.compile(rf"^({RECORD_ID.pattern})(?:[ \t]+[\u2014\u2013-][ \t]+(\S.*))?$")
_DECLARATION_LIKE = re.compile(r"^([A-Z]{2,}(?:-[A-Za-z0-9]+)+)(?:\s|$)")
_INLINE_DECLARATION = re.compile(rf"^({RECORD_ID.pattern})[ \t]+(\u2014)[ \t]+(?=\S)")
_ANNOTATION = re.compile(rf"^On[ \t]+({RECORD_ID.pattern})(?:[ \t]+[\u2014\u2013-][ \t]+(\S.*))?$")
_LABEL = re.compile(r"^([^:\n]{1,200}?):[ \t]+(\S[\s\S]*)$")
_PART_OF = re.compile(
    rf"^Part of:[ \t]+(?:({RECORD_ID.pattern})|\[({RECORD_ID.pattern})\]\(([^()\s]*)\))[ \t]*$"
)
_LINES_SUFFIX = re.compile(r"^(.*?):(\d+(?:-\d+)?)$")
_GITHUB_BLOB = re.compile(
    r"^https://github\.com/[^/\s]+/[^/\s]+/blob/([0-9a-f]{7,40})/([^#?\s]+)(?:#L(\d+)(?:-L(\d+))?)?$"
)
_TABLE_ROLES = {
    "limitations": "limitations",
    "source register": "register",
    "epistemic-object inventory": "inventory",
    "authority-route ledger": "ledger",
    "system-claim versus route comparison": "claims",
}
_SOURCE_ROW = re.compile(r"^SRC-\d+$")


def _plain_value(value: Any) -> Any:
    """A YAML value as JSON-compatible data: string keys, lists for sequences, text for the rest."""
    if isinstance(value, dict):
        return {str(k): _plain_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_value(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """A member's YAML frontmatter.

    ``data`` is the mapping as JSON-compatible values; ``lines`` maps each top-level key to its
    1-based file line; ``node`` is the composed YAML node (for line numbers deeper down); ``end`` is
    the character offset just after the closing ``---`` line's text and ``end_line`` its line.
    """

    data: dict[str, Any]
    lines: dict[str, int]
    node: Any
    end: int
    end_line: int


def read_frontmatter(text: str, path: str) -> Frontmatter | None:
    """The YAML frontmatter at the top of ``text``, or None when the text does not open with ``---``.

    Parameters
    ----------
    text : str
        The member's text.
    path : str
        Shown in errors.

    Returns
    -------
    Frontmatter or None

    Raises
    ------
    ParseError
        The frontmatter is never closed, is not valid YAML (the error names the YAML's line in the
        file), nests deeper than 64 levels or has aliases that would expand it by more than
        100,000 nodes and characters (:mod:`ingest.parsers.yamldoc`, naming the line), or is not
        a mapping.

    Examples
    --------
    >>> fm = read_frontmatter("---\\ntype: t.md\\nrun-date: 2026-10-04\\n---\\n# T\\n", "m.md")
    >>> fm.data, fm.lines, fm.end_line
    ({'type': 't.md', 'run-date': '2026-10-04'}, {'type': 2, 'run-date': 3}, 4)
    """
    lines, starts = _head_lines(text)
    if lines[0] != "---":
        return None
    close = next((k for k in range(1, len(lines)) if lines[k] in ("---", "...")), None)
    if close is None:
        raise ParseError("the frontmatter opened on line 1 is never closed", source=SourceSpan(path, 1),
                         hint="close the YAML frontmatter with a `---` line")
    body = "\n".join(lines[1:close])
    try:
        # Dates stay the strings written, so quoted and unquoted dates read the same and the
        # frontmatter stays JSON-compatible (GRAMMAR §3.2, §10).
        node, data = load_yaml(body, dates_as_text=True)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParseError(f"malformed YAML frontmatter: {problem}", source=SourceSpan(path, line),
                         hint=getattr(exc, "hint", None)
                         or "quote values that contain `: ` or start with a special character") from None
    if data is None:
        data, node = {}, None
    if not isinstance(data, dict):
        raise ParseError("the frontmatter is not a YAML mapping", source=SourceSpan(path, 2))
    key_lines = {}
    if isinstance(node, yaml.MappingNode):
        key_lines = {str(k.value): k.start_mark.line + 2 for k, _ in node.value}
    end = starts[close] + len(lines[close])
    return Frontmatter(_plain_value(data), key_lines, node, end, close + 1)


def _head_lines(text: str) -> tuple[list[str], list[int]]:
    """The lines of ``text`` and their offsets (as :func:`~ingest.parsers.plaintext.split_lines`
    gives them) through its first ``---``/``...`` line after line 1 when line 1 is ``---``, else
    line 1 alone: only what the frontmatter spans is split, however long the member."""
    lines, starts = [], []
    for line, start in iter_lines(text):
        lines.append(line)
        starts.append(start)
        if (len(lines) == 1 and line != "---") or (len(lines) > 1 and line in ("---", "...")):
            break
    return lines, starts


def frontmatter_records(node: Any) -> Iterator[tuple[str, int]]:
    """Every entry of every ``records`` list in a composed frontmatter, with its 1-based file line
    (the memory profile's ``memory-comparison``, GRAMMAR §3.7), in document order.

    >>> fm = read_frontmatter("---\\nm:\\n  a: {records: [RT-OBJ-x]}\\n  records:\\n  - runtime.md#rt-obj-y\\n---\\n", "p.md")
    >>> list(frontmatter_records(fm.node))
    [('RT-OBJ-x', 3), ('runtime.md#rt-obj-y', 5)]
    """
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == "records" and isinstance(value, yaml.SequenceNode):
                for item in value.value:
                    if isinstance(item, yaml.ScalarNode) and item.value.strip():
                        yield item.value.strip(), item.start_mark.line + 2
            else:
                yield from frontmatter_records(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from frontmatter_records(item)


# -- inline rendering -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Link:
    """A Markdown link in rendered plain text: ``[start, end)`` is its label."""

    start: int
    end: int
    href: str
    label: str


def _render_inline(children: list[Token] | None) -> tuple[str, list[_Link]]:
    """Plain text of inline tokens the GRAMMAR §9 way (backticks removed, links → label, emphasis
    markers dropped, line breaks → one space) and the links inside it."""
    out: list[str] = []
    pos = 0
    spans: list[tuple[int, int, str]] = []
    open_links: list[tuple[int, str]] = []
    for tok in children or ():
        if tok.type in ("text", "text_special", "code_inline", "html_inline"):
            piece = tok.content
        elif tok.type in ("softbreak", "hardbreak"):
            piece = " "
        elif tok.type == "image":
            piece = _render_inline(tok.children)[0]
        elif tok.type == "link_open":
            open_links.append((pos, str(tok.attrs.get("href", ""))))
            continue
        elif tok.type == "link_close" and open_links:
            start, href = open_links.pop()
            spans.append((start, pos, href))
            continue
        else:
            continue
        out.append(piece)
        pos += len(piece)
    text = "".join(out)  # labels are sliced from the whole text once it is joined: linear in the links
    links = [_Link(start, end, href, text[start:end]) for start, end, href in spans]
    return text, sorted(links, key=lambda link: link.start)


def _split_lines(children: list[Token] | None) -> list[list[Token]]:
    """Inline tokens split at line breaks: one token list per source line."""
    lines: list[list[Token]] = [[]]
    for tok in children or ():
        if tok.type in ("softbreak", "hardbreak"):
            lines.append([])
        else:
            lines[-1].append(tok)
    return lines


def _bold_label(children: list[Token] | None) -> tuple[str, list[Token]] | None:
    """``(label, rest)`` when inline tokens open with a bold label ``**Label.**`` / ``**Label:**``
    (G2 bold-bullet fields, GRAMMAR §4.3), else None."""
    toks = [t for t in (children or ()) if not (t.type == "text" and not t.content)]
    if not toks or toks[0].type != "strong_open":
        return None
    close = next((i for i, t in enumerate(toks) if t.type == "strong_close"), None)
    if close is None:
        return None
    label = _render_inline(toks[1:close])[0].strip()
    rest = toks[close + 1:]
    after = _render_inline(rest)[0]
    if label.endswith((".", ":")) or after.lstrip().startswith(":"):
        return label.rstrip(".:").strip(), rest
    return None


# -- citations --------------------------------------------------------------------------------


def _member_role(file_name: str) -> str | None:
    return _FILE_ROLES.get(file_name)


def _link_citations(link: _Link, own_file: str, elsewhere: bool = False) -> list[Citation] | None:
    """Citations a Markdown link makes (GRAMMAR §5), or None to leave its label to the plain-text
    rules. A link to a member beside ``own_file`` (or within it; with ``elsewhere``, a projection's
    relative link into the reviewed set's folder, ``../reports/retained/<run>/runtime.md#…``, GRAMMAR
    §3.11):

    - labelled with exactly a record ID → that record (GRAMMAR §5, §2.2 rule 3; G4
      ``[RT-OBJ-store](runtime.md#rt-obj-store)``, G2 ``[MEM-OBJ-1](memory.md#mem-obj-1-source-event-journal)``
      whose anchor is the declaration heading's slug); an anchor naming another record or none is
      kept as ``anchor``, a ``check`` finding, never a silent choice;
    - else an anchor naming a record (:func:`~domain.grammar.anchor_record`) → that record (G3
      ``[runtime](runtime.md#rt-rte-x)``);
    - else a whole member → the IDs in its label when the label is only an ID list (G2
      ``[CMP-1, CMP-2](runtime.md)``), else a named reference to the member plus the IDs its label
      mentions (G2 ``[annotations on OBJ-1](memory.md)``).

    Every record citation has form ``link`` and ``member`` set. A GitHub blob URL → the file it pins."""
    href = link.href.strip()
    blob = _GITHUB_BLOB.match(href)
    if blob:
        return [Citation(link.label, "file", blob.group(2), "link", link.start, link.end, link.start,
                         link.end)]
    if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
        return None
    file_part, _, anchor = href.partition("#")
    file_name = PurePosixPath(file_part).name if file_part else own_file
    if file_part:
        beside = file_part in (file_name, f"./{file_name}") or (elsewhere and not file_part.startswith("/"))
        if not beside or _member_role(file_name) is None:
            return None
    role = _member_role(file_name) or ""
    label = link.label.strip()
    if RECORD_ID.fullmatch(label):
        named = anchor_record(anchor) if anchor else label
        return [Citation(link.label, "record", label, "link", link.start, link.end, link.start, link.end,
                         member=file_name, anchor=anchor if named != label else None)]
    if anchor:
        record = anchor_record(anchor)
        if record is not None:
            return [Citation(link.label, "record", record, "link", link.start, link.end, link.start,
                             link.end, member=file_name)]
        name = " ".join([role.replace("-", " "), anchor.replace("-", " ")]).strip()
        return [Citation(link.label, "named", name, "link", link.start, link.end, link.start, link.end,
                         member=file_name)]
    ids = list(RECORD_ID.finditer(link.label))
    pure = bool(ids) and not RECORD_ID.sub("", link.label).replace(",", " ").replace(" and ", " ").strip()
    records = [Citation(m.group(), "record", m.group(), "link", link.start + m.start(), link.start + m.end(),
                        link.start, link.end, member=file_name if pure else None) for m in ids]
    if pure:
        return records
    named = Citation(link.label, "named", role.replace("-", " "), "link", link.start, link.end, link.start,
                     link.end, member=file_name)
    return [named, *records]


def _with_links(citations: tuple[Citation, ...] | list[Citation], links: list[_Link],
                own_file: str, elsewhere: bool = False) -> tuple[Citation, ...]:
    """``citations`` found in plain text, with those made by links replaced by the links' own
    (:func:`_link_citations`): a plain-text citation overlapping a link that makes citations goes,
    and the link's citations support the union of the spans of those it replaced.

    Plain-text named references are dropped: in Markdown a reference to a member or section is a
    link (GRAMMAR §5), and the plain-text rule would take parenthetical prose for one.

    Links do not overlap one another (CommonMark links do not nest), so each plain-text citation
    is matched with the first link it overlaps by one binary search: linear in the links and
    citations (one line of 100,000 links, issue 14)."""
    kept = [c for c in citations if c.target_kind != "named"]
    made_by: list[tuple[_Link, list[Citation]]] = []
    for link in sorted(links, key=lambda link: (link.start, link.end)):
        made = _link_citations(link, own_file, elsewhere)
        if made is not None:
            made_by.append((link, made))
    if not made_by:
        return tuple(sorted(kept, key=lambda c: (c.start, c.end)))
    ends = [link.end for link, _ in made_by]
    replaced: dict[int, list[Citation]] = {}
    out = []
    for c in kept:
        k = bisect_right(ends, c.start)  # the first link ending after the citation starts
        if k < len(made_by) and made_by[k][0].start < c.end:
            replaced.setdefault(k, []).append(c)
        else:
            out.append(c)
    for k, (link, made) in enumerate(made_by):
        gone = replaced.get(k)
        if gone:
            span = (min(c.span_start for c in gone), max(c.span_end for c in gone))
            made = [replace(c, span_start=span[0], span_end=span[1]) for c in made]
        out.extend(made)
    return tuple(sorted(out, key=lambda c: (c.start, c.end)))


def _shift(citations, offset: int) -> list[Citation]:
    return [replace(c, start=c.start + offset, end=c.end + offset, span_start=c.span_start + offset,
                    span_end=c.span_end + offset) for c in citations]


def _id_findings(text: str) -> dict[str, list[str]]:
    """Malformed ID-shaped tokens and refused ranges in one statement's plain text (GRAMMAR §1)."""
    out: dict[str, list[str]] = {}
    # Each scan only runs when its literal is in the text: ID_LIKE needs an analyst prefix and
    # ``-``, SOURCE_RANGE ``SRC-``, record ranges ``through`` or ``–`` (most statements have none).
    if "RT-" in text or "MEM-" in text or "EPI-" in text:
        malformed = [m.group() for m in ID_LIKE.finditer(text) if not RECORD_ID.fullmatch(m.group())]
        if malformed:
            out["malformed_ids"] = malformed
    if "SRC-" in text:
        ranges = [m.group() for m in SOURCE_RANGE.finditer(text)]
        if ranges:
            out["source_ranges"] = ranges
    ranges = record_ranges(text)
    if any(r.reason is None for r in ranges):
        out["record_ranges"] = [r.text for r in ranges if r.reason is None]
    if any(r.reason is not None for r in ranges):
        out["unexpanded_ranges"] = [[r.text, r.reason] for r in ranges if r.reason is not None]
    return out


def _statuses(text: str, label: str | None, value: str | None, form: str | None) -> list[list[str]]:
    """Conclusion-status fields stated by one statement (GRAMMAR §4.4), each ``[label, value]`` or
    ``[label, value, qualifier]`` (:func:`~domain.grammar.split_status`): a ``label: value`` bullet
    or line gives its whole value (so ``wired; observed`` is kept whole and refused); bold bullets
    and run-on prose (G2) give each ``… conclusion status: value`` (or ``… conclusion status
    `wired```, no colon) up to the next ``;`` or ``.``."""
    if (label is not None and form in ("bullet", "line") and STATUS_LABEL.match(label)
            and not STATUS_IN_PROSE.search(value or "")):
        stated = [(label, value or "")]
    else:
        stated = [(m.group(1), m.group(2)) for m in STATUS_IN_PROSE.finditer(text)]
    out = []
    for name, raw in stated:
        status, qualifier = split_status(raw)
        out.append([name.strip(), status] + ([qualifier] if qualifier else []))
    return out


_RUN_ON_LABEL = re.compile(r"(?:^|(?<=[.;]\s))([A-Z][\w/,' -]{2,80}?):\s")


def _run_on_fields(text: str) -> list[list[str]]:
    """``[label, value]`` pairs of a run-on prose record body (G2: ``Source-native identity: …
    Representational form: … Storage substrate: …``, GRAMMAR §4.3); empty unless it has two."""
    marks = list(_RUN_ON_LABEL.finditer(text))
    if len(marks) < 2:
        return []
    return [[m.group(1).strip(), text[m.end():nxt.start() if nxt else len(text)].strip()]
            for m, nxt in zip(marks, [*marks[1:], None])]


# -- the parser -------------------------------------------------------------------------------


@dataclass
class _Context:
    """Where the parser is: the open H2, kind heading, declaration and annotation."""

    member: MemberType
    file_name: str
    h2: str = ""
    record_kind: str | None = None
    declaration: dict | None = None
    annotation: str | None = None
    first_in_record: bool = False


@dataclass
class _Builder:
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
        an inline declaration, :func:`_inline_declaration`)."""
        if start < self.prev_end:
            raise ParseError("overlapping Markdown blocks", source=SourceSpan(self.path, line + 1))
        block = ParsedBlock(kind, line + 1, self.text[start:end], self.text[self.prev_end:start], **kwargs)
        self.blocks.append(block)
        self.prev_end = end
        return block


def _close(tokens: list[Token], i: int) -> int:
    """Index of the token closing ``tokens[i]`` (``i`` itself for self-contained tokens)."""
    if tokens[i].nesting != 1:
        return i
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def parse_markdown(data: bytes, path: str, *, text: str | None = None,
                   frontmatter: Frontmatter | None = None) -> ParsedDocument:
    """Parse one Markdown analysis-set member.

    Parameters
    ----------
    data : bytes
        The file's raw bytes; the SHA-256 is taken over them.
    path : str
        The path shown in errors and stored on the document; its file name gives the role of
        verification members (GRAMMAR §3.9) and the member named by same-file links.
    text : str, optional
        ``data`` already decoded by :func:`~ingest.parsers.plaintext.decode_member`, so a caller
        that has read the frontmatter need not decode again; with ``frontmatter`` only.
    frontmatter : Frontmatter, optional
        ``read_frontmatter(text, path)``, already read by the caller (set assembly reads it to
        tell members from other Markdown), so it is parsed once per member.

    Returns
    -------
    ParsedDocument
        ``preamble`` is the frontmatter and the H1 (and anything before it); ``blocks`` every
        heading and statement after it (see the module docstring; a generated review's ``Evidence
        basis:`` line and synthesis paragraphs precede its first H2, GRAMMAR §3.11, so they are
        statements directly under the document); ``trailer`` the whitespace after the last block.
        ``pins`` holds the Source register rows (``declared``) and a boundary or overview
        frontmatter ``source``; ``frontmatter_citations`` every ``records`` entry of the
        frontmatter (form ``frontmatter``).

    Raises
    ------
    ParseError
        Not UTF-8, no frontmatter, malformed YAML, no ``type`` or one that is not a member type, no
        ``# title`` heading; the error names the line.

    Examples
    --------
    >>> data = (b"---\\ntype: agentic-system-analyses/types/agentic-system-reconciliation-report.md\\n"
    ...     b"run-id: AAS-2026-10-04-x-01\\n---\\n\\n# X reconciliation\\n\\n## Reconciliation\\n\\n"
    ...     b"Amendment: RT-OBJ-a is superseded by EPI-OBJ-b.\\n")
    >>> doc = parse_markdown(data, "reconciliation.md")
    >>> [(b.kind, b.line, b.extra.get("supersedes")) for b in doc.blocks]
    [('heading', 8, None), ('amendment', 10, [('RT-OBJ-a', 'EPI-OBJ-b')])]
    >>> doc.preamble + "".join(b.gap + b.markup for b in doc.blocks) + doc.trailer == data.decode()
    True
    """
    if frontmatter is None or text is None:
        text = decode_member(data, path)
        fm = read_frontmatter(text, path)
    else:
        fm = frontmatter
    file_name = PurePosixPath(path.replace("\\", "/")).name
    if fm is None:
        raise ParseError("expected YAML frontmatter opening with `---` on line 1", source=SourceSpan(path, 1),
                         hint="analysis-set members start with frontmatter naming their `type`")
    type_path = fm.data.get("type")
    if not isinstance(type_path, str) or not type_path.strip():
        raise ParseError("the frontmatter has no `type`", source=SourceSpan(path, 2))
    mtype = member_type(type_path)
    if mtype is None:
        raise ParseError(f"unknown member type {type_path!r}", source=SourceSpan(path, fm.lines.get("type", 2)),
                         hint="expected an agentic-system analysis member type such as "
                              "agentic-system-analyses/types/agentic-system-runtime-report.md")
    lines, starts = split_lines(text)  # the lines markdown-it-py counts: LF, CR or CR LF ends one
    body_first = fm.end_line  # 0-based index of the first body line
    body = "\n".join(lines[body_first:])
    tokens = _MD.parse(body)
    top = [i for i, t in enumerate(tokens) if t.level == 0 and t.nesting != -1]
    h1 = next((i for i in top if tokens[i].type == "heading_open" and tokens[i].tag == "h1"), None)
    if h1 is None:
        raise ParseError("expected a `# title` heading after the frontmatter",
                         source=SourceSpan(path, body_first + 1))
    title = _render_inline(tokens[h1 + 1].children)[0].strip()
    first = next((i for i in top if i > h1 + 2), len(tokens))  # what follows the H1 is body
    if first < len(tokens):
        k = body_first + tokens[first].map[0]
        while k > 0 and not lines[k - 1].strip():
            k -= 1
        preamble_end = starts[k - 1] + len(lines[k - 1]) if k > 0 else 0
    else:
        preamble_end = len(text.rstrip())
    builder = _Builder(path, text, lines, starts, preamble_end)
    ctx = _Context(mtype, file_name)
    i = first
    while i < len(tokens):
        close = _close(tokens, i)
        if tokens[i].nesting != -1 and tokens[i].map is not None:
            _top_block(tokens, i, close, body_first, builder, ctx)
        i = close + 1
    blocks = builder.blocks
    preamble = text[:preamble_end]
    trailer = text[builder.prev_end:]
    pins = _frontmatter_pins(fm.data, mtype) + tuple(
        b.extra.pop("_pin") for b in blocks if "_pin" in b.extra)
    fm_citations = tuple(_frontmatter_citation(value, line) for value, line in frontmatter_records(fm.node))
    run_id, boundary = member_identity(fm.data, mtype)
    system = fm.data.get("system")
    return ParsedDocument(
        path=path,
        format="md",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        title=title,
        member_type=type_path.strip(),
        role=role_of(mtype, file_name),
        system=str(system).strip() if system else system_from_title(title),
        preamble=preamble,
        blocks=tuple(blocks),
        trailer=trailer,
        run_id=run_id,
        reviewed_boundary=boundary,
        frontmatter=fm.data,
        pins=pins,
        frontmatter_citations=tuple(c for c in fm_citations if c is not None),
        extra={
            "file_name": file_name,
            "record_prefix": mtype.record_prefix,
            "reviewed_boundary": boundary,
            "frontmatter_lines": fm.lines,
            **({"identity_keys": {"run-id": mtype.run_id_key, "reviewed-boundary": mtype.boundary_key},
                "projection": True} if mtype.projection else {}),
        },
    )


def _frontmatter_pins(data: dict, mtype: MemberType) -> tuple[ParsedSourcePin, ...]:
    """The boundary's (or an overview's) frontmatter ``source`` as the pin of ``SRC-1`` (GRAMMAR §3.1,
    §7: the register row equals it)."""
    source = data.get("source")
    if mtype.role not in ("boundary", "overview") or not isinstance(source, dict):
        return ()
    return (ParsedSourcePin("SRC-1", url=_str(source.get("identity")), commit=_str(source.get("revision")),
                            kind=_str(source.get("kind"))),)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _frontmatter_citation(value: str, line: int) -> Citation | None:
    """A ``records`` entry: a bare record ID or ``member.md#anchor`` (GRAMMAR §3.7)."""
    member = None
    record = value
    if "#" in value:
        member, _, anchor = value.partition("#")
        record = anchor_record(anchor) or anchor
        member = PurePosixPath(member).name or None
    kind = "record" if RECORD_ID.fullmatch(record) else "named"
    return Citation(value, kind, record, "frontmatter", 0, len(value), 0, len(value), member=member, line=line)


def _top_block(tokens: list[Token], i: int, close: int, base: int, b: _Builder, ctx: _Context) -> None:
    """Emit the blocks of one top-level token range ``tokens[i..close]``."""
    tok = tokens[i]
    first, stop = base + tok.map[0], base + tok.map[1]
    in_record = ctx.declaration is not None or ctx.annotation is not None
    if in_record and tok.type in ("paragraph_open", "bullet_list_open", "ordered_list_open"):
        parts = [n for n in range(first + 1, stop) if _PART_OF_LINE.match(b.lines[n])]
        if parts:
            _split_at_part_of(first, parts, stop, b, ctx)
            return
    if tok.type == "heading_open":
        _heading(tokens[i + 1], int(tok.tag[1:]), first, stop, b, ctx)
    elif tok.type == "paragraph_open":
        _paragraph(tokens[i + 1], first, stop, b, ctx)
    elif tok.type in ("bullet_list_open", "ordered_list_open"):
        j = i + 1
        while j < close:
            item_close = _close(tokens, j)
            if tokens[j].type == "list_item_open":
                _list_item(tokens, j, item_close, base, b, ctx)
            j = item_close + 1
    elif tok.type == "blockquote_open":
        _blockquote(first, stop, b, ctx)
    elif tok.type == "table_open":
        _table(tokens, i, close, base, b, ctx)
    elif tok.type in ("fence", "code_block"):
        _statement(b, ctx, "code", first, stop, tok.content.rstrip("\n"), scan=False)
    elif tok.type == "html_block":
        _statement(b, ctx, "html", first, stop, tok.content.rstrip("\n"), scan=False)
    elif tok.type == "hr":
        _statement(b, ctx, "rule", first, stop, "", scan=False)


_PART_OF_LINE = re.compile(r"^Part of:")


def _split_at_part_of(first: int, parts: list[int], stop: int, b: _Builder, ctx: _Context) -> None:
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
            text, links = _render_inline(_MD.parseInline(b.lines[k])[0].children)
            m = _LABEL.match(text)
            _statement(b, ctx, "field", k, k + 1, text, links=links,
                       **_field_extra("Part of", m.group(2).strip() if m else "", "line", b.lines[k], ctx))
        start = k + 1
    if start < stop:
        _blocks_of(start, stop, b, ctx)


def _blocks_of(first: int, stop: int, b: _Builder, ctx: _Context) -> None:
    """Parse file lines ``[first, stop)`` on their own and emit their blocks."""
    tokens = _MD.parse("\n".join(b.lines[first:stop]))
    i = 0
    while i < len(tokens):
        close = _close(tokens, i)
        if tokens[i].nesting != -1 and tokens[i].map is not None:
            _top_block(tokens, i, close, first, b, ctx)
        i = close + 1


def _heading(inline: Token, level: int, first: int, stop: int, b: _Builder, ctx: _Context) -> None:
    text, links = _render_inline(inline.children)
    text = text.strip()
    extra: dict[str, Any] = {}
    kind = "subsection"
    if level <= 2:
        extra = {"h1": True} if level == 1 else {}
        level, kind = 2, "section"
        ctx.h2, ctx.record_kind, ctx.declaration, ctx.annotation = text, None, None, None
    elif level == 3:
        within_kind = ctx.record_kind
        ctx.declaration, ctx.annotation, ctx.record_kind = None, None, None
        if ctx.h2 == "Shared records" and text in _KIND_NAMES:
            kind, ctx.record_kind = "kinds", _KIND_NAMES[text]
            extra = {"record_kind": ctx.record_kind}
        elif ctx.h2 == "Shared records" and within_kind and (m := _DECLARATION.match(text)):
            # G1 (the Napkin result): `### CMP-1 — Label` under the `### Components` kind heading
            kind, ctx.record_kind = "declaration", within_kind
            extra = {"record_id": m.group(1), "label": m.group(2), "heading_form": "labelled" if m.group(2) else "bare"}
            ctx.declaration, ctx.first_in_record = extra, True
    elif level == 4:
        ctx.declaration, ctx.annotation = None, None
        if ctx.h2 == "Shared records" and ctx.record_kind:
            m = _DECLARATION.match(text)
            if m:
                kind = "declaration"
                extra = {"record_id": m.group(1), "label": m.group(2), "heading_form": "labelled" if m.group(2) else "bare"}
                ctx.declaration, ctx.first_in_record = extra, True
            elif like := _DECLARATION_LIKE.match(text):
                extra = {"malformed_declaration": like.group(1)}
        elif ctx.h2 == "Annotations" and text.startswith("On"):
            record, label = _annotated(text, links, ctx.file_name)
            if record:
                kind = "annotation"
                extra = {"annotates": record, "label": label}
                ctx.annotation, ctx.first_in_record = record, True
            else:
                extra = {"malformed_annotation": text}
    b.emit("heading", first, stop, text=text, level=level, section_kind=kind, extra=extra)


def _annotated(text: str, links: list[_Link], own_file: str) -> tuple[str | None, str | None]:
    """(record ID, label) of an annotation heading: ``On ID — label`` or the G4 link form with
    exactly one record link (GRAMMAR §4.6)."""
    records = [(link, c) for link in links for c in (_link_citations(link, own_file) or ())
               if c.target_kind == "record"]
    if len(records) == 1:
        link, record = records[0]
        rest = text[link.end:].strip()
        label = re.sub(r"^[\u2014\u2013-][ \t]+", "", rest) or None
        return record.target, label
    m = _ANNOTATION.match(text)
    return (m.group(1), m.group(2)) if m else (None, None)


def _statement(b: _Builder, ctx: _Context, kind: str, first: int, stop: int, text: str, *,
               links: list[_Link] = (), scan: bool = True, citations=None, at: tuple[int, int] | None = None,
               **extra) -> ParsedBlock:
    """Emit one statement: citations (plain-text rules, then links), statuses inside a declaration
    or annotation (GRAMMAR §4.4) and ID findings; ``scan=False`` for quoted, fenced and raw HTML
    text; ``at`` gives file offsets when the statement is part of a line (an inline declaration's
    body)."""
    extra = {k: v for k, v in extra.items() if v is not None}
    if scan:
        if citations is None:
            citations = _with_links(extract_citations(text), list(links), ctx.file_name, ctx.member.projection)
        extra.update(_id_findings(text))
        if ctx.declaration is not None or ctx.annotation is not None:
            statuses = _statuses(text, extra.get("label"), extra.get("value"), extra.get("form"))
            if statuses:
                extra["statuses"] = statuses
        if ctx.declaration is not None or ctx.annotation is not None:
            fields = _run_on_fields(text) if kind in ("field", "paragraph") and extra.get("form") in (None, "line") else []
            if fields:
                extra["fields"] = fields
    elif citations is None:
        citations = ()
    if ctx.annotation is not None and kind == "paragraph":
        kind = "annotation_body"
    if at is None:
        block = b.emit(kind, first, stop, text=text, citations=tuple(citations), extra=extra)
    else:  # offsets within the lines (the body of an inline declaration)
        block = b.emit_at(kind, first, *at, text=text, citations=tuple(citations), extra=extra)
    if ctx.first_in_record:
        ctx.first_in_record = False
        if (ctx.declaration is not None and kind == "field" and extra.get("label") == "Label"
                and not ctx.declaration.get("label")):
            ctx.declaration["label"] = extra.get("value")
    return block


def _field_extra(label: str, value: str, form: str, raw: str, ctx: _Context) -> dict[str, Any]:
    """``label``/``value``/``form`` of a field, plus ``part_of`` (or ``part_of_malformed``) for a
    ``Part of:`` line inside a declaration (GRAMMAR §4.7; inside an annotation it is malformed:
    an annotation adds no ``Part of:``, §4.6) and ``route_ids`` for a ledger ``Route ID:`` line
    (§3.5)."""
    extra: dict[str, Any] = {"label": label, "value": value, "form": form}
    if label == "Part of" and ctx.declaration is None and ctx.annotation is not None:
        extra["part_of_malformed"] = f"`{raw.strip()}` in an annotation, which adds no `Part of:`"
    elif label == "Part of" and ctx.declaration is not None:
        m = _PART_OF.match(raw)
        if form != "line":
            extra["part_of_malformed"] = f"bulleted `{raw.strip()}`"
        elif m and m.group(1):
            extra["part_of"] = m.group(1)
        elif m and m.group(2) and anchor_record(m.group(3).partition("#")[2]) == m.group(2):
            extra["part_of"] = m.group(2)
        else:
            extra["part_of_malformed"] = raw.strip()
    if label == "Route ID":
        extra["route_ids"] = [m.group() for m in RECORD_ID.finditer(value)]
    return extra


def _inline_declaration(inline: Token, first: int, stop: int, b: _Builder, ctx: _Context) -> bool:
    """A paragraph opening with ``ID — `` under a kind heading (G1, the Supermemory result:
    ``CMP-1 — Supermemory MCP request server. Implementation conclusion status: wired. …``) is a
    declaration written inline: its ``ID —`` is emitted as the declaration section (``heading_form``
    ``inline``, the loader names it ``<document>#D<line>``; its label is the paragraph's first
    sentence) and the paragraph after the dash as the first statement inside it, so every ID the
    label cites is a statement's citation. Whether it was one (GRAMMAR §4.2 as G1 extends it)."""
    if ctx.h2 != "Shared records" or not ctx.record_kind:
        return False
    m = _INLINE_DECLARATION.match(b.lines[first])
    text, links = _render_inline(inline.children)
    if m is None or not text.startswith(m.group(0)):
        return False
    start = b.starts[first]
    lead = m.end()
    body = text[lead:]
    label = re.split(r"\.(?:\s|$)", body, maxsplit=1)[0].strip() or None
    extra = {"record_id": m.group(1), "label": label, "heading_form": "inline"}
    b.emit_at("heading", first, start, start + m.end(2), text=m.group(1), level=4, section_kind="declaration",
              extra=extra)
    ctx.declaration, ctx.first_in_record = extra, True
    shifted = [replace(link, start=link.start - lead, end=link.end - lead) for link in links if link.start >= lead]
    _, end, _ = b.bounds(first, stop)
    _statement(b, ctx, "paragraph", first, stop, body, links=shifted, at=(start + lead, end))
    return True


def _paragraph(inline: Token, first: int, stop: int, b: _Builder, ctx: _Context) -> None:
    if _inline_declaration(inline, first, stop, b, ctx):
        return
    text, links = _render_inline(inline.children)
    if EMPTY_KIND.match(text.strip()):
        _statement(b, ctx, "empty_marker", first, stop, text)
        return
    if text.startswith(AMENDMENT):
        block = _statement(b, ctx, "amendment", first, stop, text, links=links)
        block.extra.update(amendment_facts(block.text, block.citations))
        return
    if text.startswith(CONFLICT):
        _statement(b, ctx, "conflict", first, stop, text, links=links)
        return
    in_record = ctx.declaration is not None or ctx.annotation is not None
    ledger = ctx.h2 == "Authority-route ledger" and text.startswith("Route ID:")
    if in_record or ledger:
        per_line = [_render_inline(line) for line in _split_lines(inline.children)]
        matches = [_LABEL.match(t) for t, _ in per_line]
        if len(per_line) == stop - first and all(matches):
            for n, ((line_text, line_links), m) in enumerate(zip(per_line, matches)):
                raw = b.lines[first + n]
                _statement(b, ctx, "field", first + n, first + n + 1, line_text, links=line_links,
                           **_field_extra(m.group(1).strip(), m.group(2).strip(), "line", raw, ctx))
            return
    _statement(b, ctx, "paragraph", first, stop, text, links=links)


def _item_parts(tokens: list[Token], i: int, close: int) -> list[tuple[str, int, int]]:
    """The children of list item ``tokens[i..close]`` as (kind, first token, last token), kind
    ``text`` for ordinary content and ``quote``/``code`` for nested blockquotes and fences."""
    parts = []
    j = i + 1
    while j < close:
        end = _close(tokens, j)
        kind = {"blockquote_open": "quote", "fence": "code", "code_block": "code"}.get(tokens[j].type, "text")
        parts.append((kind, j, end))
        j = end + 1
    return parts


def _render_blocks(tokens: list[Token], i: int, close: int) -> tuple[str, list[_Link]]:
    """Plain text of block tokens ``tokens[i..close]``: paragraphs, nested list items and table
    cells one per line; nested quotes and fences are left out (GRAMMAR §6)."""
    out: list[str] = []
    links: list[_Link] = []
    skip_until = -1
    offset = 0
    for j in range(i, close + 1):
        tok = tokens[j]
        if j <= skip_until:
            continue
        if tok.type in ("blockquote_open",):
            skip_until = _close(tokens, j)
            continue
        if tok.type == "inline":
            piece, piece_links = _render_inline(tok.children)
            if out:
                offset += 1
            links.extend(replace(link, start=link.start + offset, end=link.end + offset) for link in piece_links)
            out.append(piece)
            offset += len(piece)
    return "\n".join(out), links


def _list_item(tokens: list[Token], i: int, close: int, base: int, b: _Builder, ctx: _Context) -> None:
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
            _statement(b, ctx, "code", first, stop, tok.content.rstrip("\n"), scan=False)
        else:
            _item_text(tokens, members, first, stop, b, ctx, is_first=n == 0)
    if not groups:
        _statement(b, ctx, "list_item", item_first, item_stop, "")


def _item_text(tokens: list[Token], members: list[tuple[str, int, int]], first: int, stop: int,
               b: _Builder, ctx: _Context, *, is_first: bool) -> None:
    text, links = _render_blocks(tokens, members[0][1], members[-1][2])
    if not is_first:
        _statement(b, ctx, "list_item", first, stop, text, links=links, continuation=True)
        return
    if ctx.declaration is not None or ctx.annotation is not None:
        lead = tokens[members[0][1]]
        bold = _bold_label(tokens[members[0][1] + 1].children) if lead.type == "paragraph_open" else None
        if bold is not None:
            label, rest = bold
            value = _render_inline(rest)[0].strip().lstrip(":").strip()
            more = text.split("\n", 1)[1] if "\n" in text else ""
            value = f"{value}\n{more}".strip() if more else value
            _statement(b, ctx, "field", first, stop, text, links=links,
                       **_field_extra(label, value, "bold", b.lines[first], ctx))
            return
        m = _LABEL.match(text)
        if m and ". " not in m.group(1):
            _statement(b, ctx, "field", first, stop, text, links=links,
                       **_field_extra(m.group(1).strip(), m.group(2).strip(), "bullet", b.lines[first], ctx))
            return
    _statement(b, ctx, "list_item", first, stop, text, links=links)


def _attribution(span: str) -> tuple[str, str | None, str | None]:
    """(path, lines, revision) of an attribution's code span: ``path``, ``path:270-275`` or a pinned
    GitHub blob URL (GRAMMAR §6)."""
    blob = _GITHUB_BLOB.match(span)
    if blob:
        rev, path, start, end = blob.groups()
        lines = None if start is None else (start if end is None else f"{start}-{end}")
        return path, lines, rev
    m = _LINES_SUFFIX.match(span)
    if m and not span.startswith(("http://", "https://")):
        return m.group(1), m.group(2), None
    return span, None, None


def _blockquote(first: int, stop: int, b: _Builder, ctx: _Context) -> None:
    """One ``quotation`` block per attributed passage of a blockquote (GRAMMAR §6); the attribution
    path is the block's only citation (form ``quotation``)."""
    _, _, stop = b.bounds(first, stop)
    start = first
    for n in range(first, stop):
        m = ATTRIBUTION.match(b.lines[n])
        if m or n == stop - 1:
            _quotation(start, n + 1, m, b, ctx)
            start = n + 1


def _quotation(first: int, stop: int, attribution: re.Match | None, b: _Builder, ctx: _Context) -> None:
    raw = b.lines[first:stop - 1] if attribution else b.lines[first:stop]
    body = "\n".join(QUOTE_MARKER.sub("", line, count=1) for line in raw).strip("\n")
    flat = " ".join(body.split())
    if attribution is None:
        _statement(b, ctx, "quotation", first, stop, flat, scan=False, unattributed=True)
        return
    span, revision = attribution.group(1), attribution.group(2)
    path, lines, rev = _attribution(span)
    text = f"{flat} --- {span}" if flat else f"--- {span}"
    at = len(text) - len(span)
    cite = Citation(span, "file", path, "quotation", at, len(text), 0, len(text))
    block = _statement(b, ctx, "quotation", first, stop, text, scan=False, citations=(cite,))
    b.blocks[-1] = replace(block, quotation=Quotation(body, path, lines, revision or rev))


def _cells(tokens: list[Token], tr: int, tr_close: int) -> list[tuple[str, list[_Link], list[Token]]]:
    """(plain text, links, inline children) of each cell of table row ``tokens[tr..tr_close]``."""
    out = []
    for j in range(tr, tr_close):
        if tokens[j].type == "inline":
            text, links = _render_inline(tokens[j].children)
            out.append((text.strip(), links, tokens[j].children or []))
    return out


def _row(cells: list[tuple[str, list[_Link], list[Token]]]) -> tuple[str, list[tuple[str, int, list[_Link]]]]:
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
            extra = link.start + pipes
            moved.append(replace(link, start=len(text) + 1 + extra,
                                 end=len(text) + 1 + extra + len(link.label.replace("|", "\\|"))))
        placed.append((escaped, len(text) + 1, moved))
        text += f" {escaped} |"
    return text, placed


def _table(tokens: list[Token], i: int, close: int, base: int, b: _Builder, ctx: _Context) -> None:
    """A pipe table: one ``table_header`` block (header and separator rows) and one ``table_row``
    per body row (GRAMMAR §7); Source register rows also pin their source."""
    rows = [j for j in range(i, close) if tokens[j].type == "tr_open"]
    table = _TABLE_ROLES.get(ctx.h2.strip().lower(), "table")
    header_close = _close(tokens, rows[0])
    header = _cells(tokens, rows[0], header_close)
    header_text, _ = _row(header)
    header_cells = [c for c, _, _ in header]
    first = base + tokens[rows[0]].map[0]
    header_stop = base + tokens[rows[1]].map[0] if len(rows) > 1 else base + tokens[i].map[1]
    _statement(b, ctx, "table_header", first, header_stop, header_text, scan=False,
               cells=header_cells, table=table)
    cite_cols = citation_columns(ctx.h2, header_cells) if table == "limitations" else {
        n for n, h in enumerate(header_cells) if "record citations" in h.lower()}
    for tr in rows[1:]:
        cells = _cells(tokens, tr, _close(tokens, tr))
        text, placed = _row(cells)
        found: list[Citation] = []
        links: list[_Link] = []
        for n, (cell, offset, cell_links) in enumerate(placed):
            links.extend(cell_links)
            if n in cite_cols:
                found.extend(split_cell_citations(cell, offset))
            else:
                found.extend(_shift(extract_citations(cell), offset))
        citations = _with_links(found, links, ctx.file_name, ctx.member.projection)
        extra: dict[str, Any] = {"cells": [c for c, _, _ in cells], "table": table}
        if table == "register" and cells and _SOURCE_ROW.match(cells[0][0]):
            extra["source_id"] = cells[0][0]
            spans = [t.content for t in cells[2][2] if t.type == "code_inline"] if len(cells) > 2 else []
            extra["_pin"] = register_pin([c for c, _, _ in cells], identity=spans[0] if spans else None)
        row_first = base + tokens[tr].map[0]
        _statement(b, ctx, "table_row", row_first, base + tokens[tr].map[1], text, citations=citations, **extra)
