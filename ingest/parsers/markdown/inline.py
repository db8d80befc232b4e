"""Inline Markdown: the plain text of inline tokens and the links in it (GRAMMAR §9) and the
citations a link makes (§5). The facts a statement's plain text carries (ID findings, statuses,
run-on fields) are :mod:`ingest.statements`', shared with the plain-text parser.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import PurePosixPath

from markdown_it.token import Token

from domain.grammar import GITHUB_BLOB, MEMBER_FILES, RECORD_ID, anchor_record  # GITHUB_BLOB re-exported
from domain.model import Citation
from ingest.statements import id_findings, run_on_fields, status_facts  # re-exported: shared by both parsers

__all__ = ["Link", "render_inline", "inline_lines", "bold_label", "link_citations", "with_links", "shift", "id_findings", "status_facts", "run_on_fields", "GITHUB_BLOB"]


_FILE_ROLES = {name: role for role, name in MEMBER_FILES.items()}




@dataclass(frozen=True, slots=True)
class Link:
    """A Markdown link in rendered plain text: ``[start, end)`` is its label."""

    start: int
    end: int
    href: str
    label: str


def render_inline(children: list[Token] | None) -> tuple[str, list[Link]]:
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
            piece = render_inline(tok.children)[0]
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
    links = [Link(start, end, href, text[start:end]) for start, end, href in spans]
    return text, sorted(links, key=lambda link: link.start)


def inline_lines(children: list[Token] | None) -> list[list[Token]]:
    """Inline tokens split at line breaks: one token list per source line."""
    lines: list[list[Token]] = [[]]
    for tok in children or ():
        if tok.type in ("softbreak", "hardbreak"):
            lines.append([])
        else:
            lines[-1].append(tok)
    return lines


def bold_label(children: list[Token] | None) -> tuple[str, list[Token]] | None:
    """``(label, rest)`` when inline tokens open with a bold label ``**Label.**`` / ``**Label:**``
    (G2 bold-bullet fields, GRAMMAR §4.3), else None."""
    toks = [t for t in (children or ()) if not (t.type == "text" and not t.content)]
    if not toks or toks[0].type != "strong_open":
        return None
    close = next((i for i, t in enumerate(toks) if t.type == "strong_close"), None)
    if close is None:
        return None
    label = render_inline(toks[1:close])[0].strip()
    rest = toks[close + 1:]
    after = render_inline(rest)[0]
    if label.endswith((".", ":")) or after.lstrip().startswith(":"):
        return label.rstrip(".:").strip(), rest
    return None


def _member_role(file_name: str) -> str | None:
    return _FILE_ROLES.get(file_name)


def link_citations(link: Link, own_file: str, elsewhere: bool = False) -> list[Citation] | None:
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
    blob = GITHUB_BLOB.match(href)
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
        anchored = anchor_record(anchor) if anchor else label
        return [Citation(link.label, "record", label, "link", link.start, link.end, link.start, link.end,
                         member=file_name, anchor=anchor if anchored != label else None)]
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


def with_links(citations: tuple[Citation, ...] | list[Citation], links: list[Link],
                own_file: str, elsewhere: bool = False) -> tuple[Citation, ...]:
    """``citations`` found in plain text, with those made by links replaced by the links' own
    (:func:`link_citations`): a plain-text citation overlapping a link that makes citations goes,
    and the link's citations support the union of the spans of those it replaced.

    Plain-text named references are dropped: in Markdown a reference to a member or section is a
    link (GRAMMAR §5), and the plain-text rule would take parenthetical prose for one.

    Links do not overlap one another (CommonMark links do not nest), so each plain-text citation
    is matched with the first link it overlaps by one binary search: linear in the links and
    citations (one line of 100,000 links)."""
    if not links and not citations:
        return ()
    kept = [c for c in citations if c.target_kind != "named"]
    made_by: list[tuple[Link, list[Citation]]] = []
    for link in sorted(links, key=lambda link: (link.start, link.end)):
        made = link_citations(link, own_file, elsewhere)
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
    for k, (_link, made) in enumerate(made_by):
        gone = replaced.get(k)
        if gone:
            span = (min(c.span_start for c in gone), max(c.span_end for c in gone))
            made = [_spanning(c, *span) for c in made]
        out.extend(made)
    return tuple(sorted(out, key=lambda c: (c.start, c.end)))


def shift(citations, offset: int) -> list[Citation]:
    """``citations`` with every offset (token and span) moved by ``offset`` characters."""
    return [Citation(c.token, c.target_kind, c.target, c.form, c.start + offset, c.end + offset,
                     c.span_start + offset, c.span_end + offset, c.source_id, c.member, c.line, c.anchor)
            for c in citations]


def _spanning(c: Citation, span_start: int, span_end: int) -> Citation:
    """``c`` supporting ``[span_start, span_end)`` (``dataclasses.replace``, built directly: a
    statement's citations are copied often enough for its generic field loop to count)."""
    return Citation(c.token, c.target_kind, c.target, c.form, c.start, c.end, span_start, span_end, c.source_id,
                    c.member, c.line, c.anchor)


# shift and _spanning name every field of Citation, in order: a field added there must be added to both
assert Citation.__slots__ == ("token", "target_kind", "target", "form", "start", "end", "span_start", "span_end",
                              "source_id", "member", "line", "anchor")
