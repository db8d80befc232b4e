"""Markdown members → plain text in the style of the seeds (GRAMMAR §9).

Mapping, block by block from each node's Markdown ``markup``:

- the H1 becomes line 1 and the frontmatter is reduced to ``Type: <type>``;
- headings of every level become bare lines (``#### On RT-OBJ-x — Label`` → ``On RT-OBJ-x — Label``);
- inline markup is dropped: code-span backticks, emphasis and bold markers, link targets (a link
  keeps its label; see below for record anchors), raw HTML is kept as written;
- list markers (``-``, ``*``, ``+``) are stripped and each paragraph or list item is one line;
- a quotation's lines are joined with single spaces onto one line ending `` --- <path>``; a bare
  ``>`` line becomes a paragraph break;
- tables are kept as pipe rows, header separator included; cells lose backticks and link targets,
  and a literal ``|`` in a cell stays escaped (``\\|``) so the row still splits into the same cells;
- blocks are separated by a blank line (seed 001), table rows by a single newline, and the text
  ends without a newline.

One deliberate addition to "links keep their label": a link whose target is a record anchor
(``[runtime](runtime.md#rt-rte-cumulative-update)``, GRAMMAR §5, G3 overview) is written as the
record ID (``RT-RTE-cumulative-update``) unless its label is a record ID, which the link cites
itself (G2 ``[MEM-OBJ-1](memory.md#mem-obj-1-source-event-journal)``). Dropping the target would
lose the citation, and the plain text must cite the same records as the Markdown member. Which
record an anchor names is :func:`domain.grammar.anchor_record`, and which line of a quotation is
its attribution and what its ``>`` marker is are :data:`domain.grammar.ATTRIBUTION` and
:data:`domain.grammar.QUOTE_MARKER`: the parser's rules, not restated here.
Plain-text members are returned unchanged.

Text holding no character that starts inline markup (:data:`INLINE_SYNTAX`) is its own plain
text and is returned without parsing: markdown-it and :mod:`domain.grammar` are imported when
some text needs them (a Markdown page's table-row notes usually do not).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from queries.documents import DocumentBlock, DocumentTree

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

__all__ = ["plaintext_of", "plain_inline", "plain_block", "plain_heading", "INLINE_SYNTAX"]

INLINE_SYNTAX = re.compile(r"[\\`*_&<>\[\]!~\r\n\x00]")
"""What CommonMark's inline rules start on (escapes, code spans, emphasis, entities, raw HTML and
autolinks, links and images, line breaks; ``~`` and ``>`` besides) and what markdown-it normalises
(carriage returns, NUL): text with none of them parses to itself."""


@cache
def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:[ \t]+|$)")
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_LIST_MARKER = re.compile(r"^\s*[-*+][ \t]+")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")


def _anchored_record(href: str) -> str | None:
    """The record a link target's anchor names (``runtime.md#rt-rte-x`` → ``RT-RTE-x``), or None.

    >>> _anchored_record("runtime.md#rt-rte-cumulative-update"), _anchored_record("reconciliation.md")
    ('RT-RTE-cumulative-update', None)
    """
    from domain.grammar import anchor_record

    _, hash_, anchor = href.partition("#")
    return anchor_record(anchor) if hash_ and anchor else None


def plain_inline(markup: str, *, cell: bool = False) -> str:
    """Plain text of one line (or soft-wrapped paragraph) of Markdown inline content.

    Parameters
    ----------
    markup : str
        Inline Markdown; soft line breaks become single spaces.
    cell : bool, default False
        The text is a table cell: a literal ``|`` is written ``\\|``.

    Examples
    --------
    >>> plain_inline("Reads `final_cheatsheet` ([runtime](runtime.md#rt-obj-cheatsheet); **SRC-1**).")
    'Reads final_cheatsheet (RT-OBJ-cheatsheet; SRC-1).'
    >>> plain_inline("[RT-OBJ-store](#rt-obj-store) and [reconciliation](reconciliation.md)")
    'RT-OBJ-store and reconciliation'
    >>> plain_inline("[MEM-OBJ-1](memory.md#mem-obj-1-source-event-journal)")  # G2: the label is the ID
    'MEM-OBJ-1'
    >>> plain_inline("The [Pipeline](https://github.com/o/r/blob/abc1234/src/main.py#L3-L9) runs.")
    'The Pipeline (src/main.py) runs.'
    """
    if not INLINE_SYNTAX.search(markup):
        return markup.replace("|", "\\|") if cell else markup
    from domain.grammar import GITHUB_BLOB, RECORD_ID

    tokens = _markdown().parseInline(markup)
    out: list[str] = []
    link_stack: list[tuple[str | None, str | None, int]] = []  # anchored record, pinned file, start in out
    for tok in tokens[0].children or () if tokens else ():
        if tok.type in ("text", "code_inline", "html_inline"):
            out.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif tok.type == "image":
            out.append(tok.content)
        elif tok.type == "link_open":
            href = str(tok.attrs.get("href") or "")
            blob = GITHUB_BLOB.match(href.strip())
            link_stack.append((_anchored_record(href), blob.group(2) if blob else None, len(out)))
        elif tok.type == "link_close" and link_stack:
            record, pinned_file, at = link_stack.pop()
            label = "".join(out[at:]).strip()
            if record is not None and not RECORD_ID.fullmatch(label):
                del out[at:]
                out.append(record)
            elif pinned_file is not None and label != pinned_file:
                out.append(f" ({pinned_file})")  # the file the link pins, cited in the text too
    text = "".join(out)
    return text.replace("|", "\\|") if cell else text


def plain_heading(markup: str) -> str:
    """A heading line without its ``#`` markers and inline markup.

    >>> plain_heading("#### On [RT-RTE-model-call](runtime.md#rt-rte-model-call)")
    'On RT-RTE-model-call'
    """
    line = markup.strip().splitlines()[0] if markup.strip() else ""
    line = _CLOSING_HASHES.sub("", _HEADING.sub("", line, count=1))
    return plain_inline(line.strip())


def _table_row(line: str) -> str:
    stripped = line.strip()
    if re.fullmatch(r"\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?", stripped):
        return stripped
    cells = re.split(r"(?<!\\)\|", stripped)
    if stripped.startswith("|"):
        cells = cells[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        cells = cells[:-1]
    # GFM: a cell's escaped pipes are unescaped before inline parsing, code spans included
    return "| " + " | ".join(plain_inline(c.strip().replace("\\|", "|"), cell=True) for c in cells) + " |"


def _quotation(block: DocumentBlock) -> str:
    """Body lines joined with spaces, a bare ``>`` as a paragraph break, `` --- path`` appended."""
    from domain.grammar import ATTRIBUTION, QUOTE_MARKER

    paragraphs: list[list[str]] = [[]]
    path = block.quotation.quotation.path if block.quotation is not None else ""
    for raw in block.block.markup.splitlines():
        m = ATTRIBUTION.match(raw)
        if m:
            if not path:
                path = plain_inline(m.group("span") or m.group("url"))
            continue
        body = QUOTE_MARKER.sub("", raw, count=1)
        if not body.strip():
            if paragraphs[-1]:
                paragraphs.append([])
            continue
        paragraphs[-1].append(" ".join(body.split()))
    parts = [plain_inline(" ".join(p)) for p in paragraphs if p]
    lines = block.quotation.quotation.lines if block.quotation is not None else None
    attribution = f"{path}:{lines}" if lines and f":{lines}" not in path else path
    if not parts:
        return f"--- {attribution}"
    parts[-1] = f"{parts[-1]} --- {attribution}"
    return "\n\n".join(parts)


def plain_block(block: DocumentBlock) -> str:
    """The plain-text lines of one block of a Markdown member (see the module docstring).

    Returns
    -------
    str
        One line for headings, paragraphs and list items, one line per row for tables, one line
        per quote paragraph for quotations. Several list items in one block give one line each.

    Examples
    --------
    >>> from domain.model import Statement
    >>> from queries.documents import DocumentBlock
    >>> owner = Statement("d#L9", "field", "", 9, 9, "- **Owner:** the `runner`\\n  and host.")
    >>> b = DocumentBlock(owner, "d", None)
    >>> plain_block(b)
    'Owner: the runner and host.'
    """
    if block.is_section:
        return plain_heading(block.block.markup)
    if block.block.kind in ("table_header", "table_row"):
        return "\n".join(_table_row(line) for line in block.block.markup.splitlines() if line.strip())
    if block.block.kind == "quotation" or block.quotation is not None:
        return _quotation(block)
    lines = block.block.markup.splitlines()
    if lines and _FENCE.match(lines[0]):
        return "\n".join(line for line in lines[1:] if not _FENCE.match(line))
    items: list[list[str]] = []
    for line in lines:
        if not line.strip():
            continue
        if _LIST_MARKER.match(line) or not items:
            items.append([_LIST_MARKER.sub("", line, count=1).strip()])
        else:
            items[-1].append(line.strip())
    return "\n".join(plain_inline("\n".join(item)) for item in items)


def plaintext_of(tree: DocumentTree) -> str:
    """The member as plain text in the seeds' style.

    Parameters
    ----------
    tree : DocumentTree
        A stored member. Plain-text members are rebuilt exactly; Markdown members are converted.

    Returns
    -------
    str
        Title line, blank line, ``Type: <type>`` line, then the blocks (module docstring); no
        trailing newline.

    Examples
    --------
    >>> from queries.demo import DEMO_TEXT, demo_store
    >>> from queries.documents import document_tree
    >>> plaintext_of(document_tree(demo_store(), "demo/synthesis")) == DEMO_TEXT
    True
    """
    from domain.grammar import member_type, member_type_of, type_path

    if tree.format != "md":
        from render.document import rebuild  # a plain-text member's own text (a report's cells need none of it)

        return rebuild(tree)
    frontmatter = tree.frontmatter
    stated = frontmatter.get("type") if isinstance(frontmatter, dict) else None
    member = tree.member
    read_as = member_type_of(dict(frontmatter) if frontmatter else None, member.path)
    if read_as is not None and (not isinstance(stated, str) or member_type(stated) is None):
        stated = type_path(read_as)  # a September review (type note), a G0 prototype (no type)
    out = [plain_inline(tree.title), "\n\nType: " + str(stated or member.member_type)]
    previous: DocumentBlock | None = None
    for block in tree.blocks:
        text = plain_block(block)
        if not text:
            continue
        joined = (block.block.kind == "table_row" and previous is not None
                  and previous.block.kind in ("table_header", "table_row"))
        out.append(("\n" if joined else "\n\n") + text)
        previous = block
    return "".join(out)
