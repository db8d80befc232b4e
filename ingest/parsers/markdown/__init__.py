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

The package divides by job: :mod:`.frontmatter` (the YAML head), :mod:`.inline` (inline content,
links and the citations and facts a statement's text carries), :mod:`.builder` (exact blocks and
the one way a statement is emitted), :mod:`.records` (headings: declarations and annotations),
:mod:`.tables` (pipe tables) and :mod:`.blocks` (the top-level blocks); :func:`parse_markdown`
here drives them.
"""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath

from domain.checks import MemberIdentity
from domain.grammar import member_identity, member_type_of, role_of, system_from_title
from graph.errors import ParseError, SourceSpan
from ingest.parsers.markdown.blocks import top_block
from ingest.parsers.markdown.builder import MD, Builder, Context, closing, line_span
from ingest.parsers.markdown.frontmatter import (
    Frontmatter,
    frontmatter_citation,
    frontmatter_pins,
    frontmatter_records,
    read_frontmatter,
)
from ingest.parsers.markdown.inline import render_inline
from ingest.parsers.parsed import ParsedDocument
from ingest.parsers.plaintext import decode_member, split_lines

__all__ = ["Frontmatter", "read_frontmatter", "parse_markdown", "frontmatter_records"]


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
    >>> [(b.kind, b.line, b.amendment and b.amendment.supersedes) for b in doc.blocks]
    [('heading', 8, None), ('amendment', 10, (('RT-OBJ-a', 'EPI-OBJ-b'),))]
    >>> doc.preamble + "".join(b.gap + b.markup for b in doc.blocks) + doc.trailer == data.decode()
    True
    """
    if frontmatter is None or text is None:
        text = decode_member(data, path)
        fm = read_frontmatter(text, path)
    else:
        fm = frontmatter
    file_name = PurePosixPath(path.replace("\\", "/")).name
    mtype = member_type_of(fm.data if fm is not None else None, path)
    if fm is None:
        if mtype is None:
            raise ParseError("expected YAML frontmatter opening with `---` on line 1", source=SourceSpan(path, 1),
                             hint="analysis-set members start with frontmatter naming their `type`")
        fm = Frontmatter({}, {}, None, 0, 0)  # a G0 prototype without frontmatter (GRAMMAR §0)
    type_path = fm.data.get("type")
    if mtype is None and (not isinstance(type_path, str) or not type_path.strip()):
        raise ParseError("the frontmatter has no `type`", source=SourceSpan(path, 2))
    if mtype is None:
        raise ParseError(f"unknown member type {type_path!r}", source=SourceSpan(path, fm.lines.get("type", 2)),
                         hint="expected an agentic-system analysis member type such as "
                              "agentic-system-analyses/types/agentic-system-runtime-report.md")
    lines, starts = split_lines(text)  # the lines markdown-it-py counts: LF, CR or CR LF ends one
    body_first = fm.end_line  # 0-based index of the first body line
    body = "\n".join(lines[body_first:])
    tokens = MD.parse(body)
    top = [i for i, t in enumerate(tokens) if t.level == 0 and t.nesting != -1]
    h1 = next((i for i in top if tokens[i].type == "heading_open" and tokens[i].tag == "h1"), None)
    if h1 is None:  # named at the first line of text after the frontmatter, where the title belongs
        opening = tokens[top[0]].map if top else None
        raise ParseError("expected a `# title` heading after the frontmatter",
                         source=SourceSpan(path, body_first + 1 + (opening[0] if opening else 0)))
    title = render_inline(tokens[h1 + 1].children)[0].strip()
    first = next((i for i in top if i > h1 + 2), len(tokens))  # what follows the H1 is body
    if first < len(tokens):
        k = body_first + line_span(tokens[first])[0]
        while k > 0 and not lines[k - 1].strip():
            k -= 1
        preamble_end = starts[k - 1] + len(lines[k - 1]) if k > 0 else 0
    else:
        preamble_end = len(text.rstrip())
    builder = Builder(path, text, lines, starts, preamble_end)
    ctx = Context(mtype, file_name)
    i = first
    while i < len(tokens):
        close = closing(tokens, i)
        if tokens[i].nesting != -1 and tokens[i].map is not None:
            top_block(tokens, i, close, body_first, builder, ctx)
        i = close + 1
    blocks = builder.blocks
    preamble = text[:preamble_end]
    trailer = text[builder.prev_end:]
    pins = frontmatter_pins(fm.data, mtype) + tuple(b.pin for b in blocks if b.pin is not None)
    fm_citations = tuple(frontmatter_citation(value, line) for value, line in frontmatter_records(fm.node))
    run_id, boundary = member_identity(fm.data, mtype, path)
    system = fm.data.get("system")
    return ParsedDocument(
        path=path,
        format="md",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        title=title,
        member_type=type_path.strip() if isinstance(type_path, str) and type_path.strip() else mtype.name,
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
        identity=MemberIdentity(
            file_name, mtype.record_prefix, True, run_id, boundary, tuple(fm.lines.items()), mtype.run_id_key,
            mtype.boundary_key, mtype.projection,
            # the result a September review pins (GRAMMAR §3.11 as observed): its path and SHA-256
            *((str(fm.data["analysis-result"]), str(fm.data.get("analysis-result-sha256") or "") or None)
              if mtype.projection and fm.data.get("analysis-result") else (None, None))),
    )
