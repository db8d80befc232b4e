"""Headings: sections, kind headings (GRAMMAR §4.1), record declarations (§4.2, with G1's
``### ID — Label`` and inline ``ID — Label.`` forms) and annotations (§4.6).
"""

from __future__ import annotations

import re
from dataclasses import replace

from markdown_it.token import Token

from domain.checks import Flaws
from domain.grammar import RECORD_ID, parse_record_id
from domain.ids import RecordId
from domain.model import Annotation
from domain.vocabulary import KIND_HEADINGS
from ingest.parsers.markdown.builder import Builder, Context, open_declaration, statement
from ingest.citations import extract_citations
from ingest.parsers.markdown.inline import Link, link_citations, render_inline

__all__ = ["heading", "inline_declaration"]


_KIND_NAMES = {name: kind for kind, name in KIND_HEADINGS}


_DECLARATION = re.compile(rf"^({RECORD_ID.pattern})(?:[ \t]+[\u2014\u2013-][ \t]+(\S.*))?$")


_DECLARATION_LIKE = re.compile(r"^([A-Z]{2,}(?:-[A-Za-z0-9]+)+)(?:\s|$)")


_INLINE_DECLARATION = re.compile(rf"^({RECORD_ID.pattern})[ \t]+(\u2014)[ \t]+(?=\S)")


_ANNOTATIONS_H3 = re.compile(r"(?i)^annotations\b")
"""An H3 that holds annotations under another H2 (G1: ``### Annotations of runtime records``;
GRAMMAR §4.6 puts them directly under ``## Annotations``)."""


_ANNOTATION = re.compile(rf"^On[ \t]+({RECORD_ID.pattern})(?:[ \t]+[\u2014\u2013-][ \t]+(\S.*))?$")


def heading(inline: Token, level: int, first: int, stop: int, b: Builder, ctx: Context) -> None:
    """Emit one heading of file lines ``[first, stop)`` and move ``ctx`` into it: an H1/H2
    ``section``, a ``kinds`` H3 under ``## Shared records`` (GRAMMAR §4.1), a ``declaration``
    (§4.2; G1's H3 form under a kind heading), an ``annotation`` under ``## Annotations`` (§4.6),
    else a ``subsection``; an ID-shaped heading that is neither is kept as ``malformed_*``, an H4 in
    the declaration form of an analyst's record outside ``## Shared records`` (which declares
    nothing, §4.1) as ``misplaced_declaration``."""
    text, links = render_inline(inline.children)
    text = text.strip()
    facts: dict = {}  # the heading's facts (ParsedBlock fields): none for a plain subsection
    kind = "subsection"
    ctx.id_table = None
    ctx.heading_ids = {n: ids for n, ids in ctx.heading_ids.items() if n < max(level, 2)}
    if level <= 2:
        facts = {"h1": True} if level == 1 else {}
        level, kind = 2, "section"
        ctx.h2, ctx.record_kind, ctx.declaration, ctx.annotation = text, None, None, None
        ctx.kind_statuses, ctx.h3 = None, ""
    elif level == 3:
        ctx.h3 = text
        within_kind = ctx.record_kind
        ctx.declaration, ctx.annotation, ctx.record_kind = None, None, None
        if not (ctx.h2 == "Shared records" and within_kind and _DECLARATION.match(text)):
            ctx.kind_statuses = None  # a new H3 opens a new kind section (a G1 H3 declaration stays in it)
        if ctx.h2 == "Shared records" and text in _KIND_NAMES:
            kind, ctx.record_kind = "kinds", _KIND_NAMES[text]
            facts = {"record_kind": ctx.record_kind}
        elif ctx.h2 == "Shared records" and within_kind and (m := _DECLARATION.match(text)):
            # G1 (the Napkin result): `### CMP-1 — Label` under the `### Components` kind heading
            kind, ctx.record_kind = "declaration", within_kind
            facts = {"declaration": open_declaration(ctx, m.group(1), m.group(2), "labelled" if m.group(2) else "bare")}
    elif level == 4:
        ctx.declaration, ctx.annotation = None, None
        if ctx.h2 == "Shared records" and ctx.record_kind:
            m = _DECLARATION.match(text)
            if m:
                kind = "declaration"
                facts = {"declaration": open_declaration(ctx, m.group(1), m.group(2),
                                                         "labelled" if m.group(2) else "bare")}
            elif like := _DECLARATION_LIKE.match(text):
                facts = {"flaws": Flaws(malformed_declaration=like.group(1))}
        elif (ctx.h2 == "Annotations" or _ANNOTATIONS_H3.match(ctx.h3)) and text.startswith("On"):
            record, label = _annotated(text, links, ctx.file_name)
            if record:
                kind = "annotation"
                facts = {"annotation": Annotation(RecordId(record), label)}
                ctx.annotation, ctx.first_in_record = record, True
            else:
                facts = {"flaws": Flaws(malformed_annotation=text)}
    citations: tuple = ()
    if kind == "subsection" and not facts:
        # a ledger heading naming records (`### RTE-5 — …`) cites them, and so
        # does every statement under it (:func:`~ingest.parsers.markdown.builder.heading_citations`)
        citations = tuple(c for c in extract_citations(text) if c.target_kind == "record")
        if citations:
            ctx.heading_ids[level] = list(dict.fromkeys((c.target, first + 1) for c in citations))
        if level == 4 and ctx.h2 != "Shared records" and (m := _DECLARATION.match(text)) and _analysts(m.group(1)):
            facts = {"flaws": Flaws(misplaced_declaration=m.group(1))}  # it cites, as any heading naming records
    b.emit("heading", first, stop, text=text, level=level, section_kind=kind, citations=citations, **facts)


def _analysts(record_id: str) -> bool:
    """Whether ``record_id`` is an analyst's record (``RT-OBJ-store``), the form of a declaration
    heading (§4.2); a numbered ID (``RTE-5``) heads a G2 ledger block, which cites it."""
    parsed = parse_record_id(record_id)
    return parsed.analyst is not None and parsed.kind != "proposal"


def _annotated(text: str, links: list[Link], own_file: str) -> tuple[str | None, str | None]:
    """(record ID, label) of an annotation heading: ``On ID — label`` or the G4 link form with
    exactly one record link (GRAMMAR §4.6)."""
    records = [(link, c) for link in links for c in (link_citations(link, own_file) or ())
               if c.target_kind == "record"]
    if len(records) == 1:
        link, record = records[0]
        rest = text[link.end:].strip()
        label = re.sub(r"^[\u2014\u2013-][ \t]+", "", rest) or None
        return record.target, label
    m = _ANNOTATION.match(text)
    return (m.group(1), m.group(2)) if m else (None, None)


def inline_declaration(inline: Token, first: int, stop: int, b: Builder, ctx: Context) -> bool:
    """A paragraph opening with ``ID — `` under a kind heading (G1, the Supermemory result:
    ``CMP-1 — Supermemory MCP request server. Implementation conclusion status: wired. …``) is a
    declaration written inline: its ``ID —`` is emitted as the declaration section (``heading_form``
    ``inline``, the loader names it ``<document>#D<line>``; its label is the paragraph's first
    sentence) and the paragraph after the dash as the first statement inside it, so every ID the
    label cites is a statement's citation. Whether it was one (GRAMMAR §4.2 as G1 extends it)."""
    if ctx.h2 != "Shared records" or not ctx.record_kind:
        return False
    m = _INLINE_DECLARATION.match(b.lines[first])
    text, links = render_inline(inline.children)
    if m is None or not text.startswith(m.group(0)):
        return False
    start = b.starts[first]
    lead = m.end()
    body = text[lead:]
    label = re.split(r"\.(?:\s|$)", body, maxsplit=1)[0].strip() or None
    b.emit_at("heading", first, start, start + m.end(2), text=m.group(1), level=4, section_kind="declaration",
              declaration=open_declaration(ctx, m.group(1), label, "inline"))
    shifted = [replace(link, start=link.start - lead, end=link.end - lead) for link in links if link.start >= lead]
    _, end, _ = b.bounds(first, stop)
    statement(b, ctx, "paragraph", first, stop, body, links=shifted, at=(start + lead, end))
    return True
