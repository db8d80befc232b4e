"""Citation extraction from a statement's plain text (GRAMMAR §5 and §9 rule 5).

Shared by the plain-text and Markdown parsers: both reduce a block to plain text first, then call
:func:`extract_citations`. Forms recognised, in order of precedence:

1. citation groups: ``(…)`` and ``[…]`` (not a link label) split on ``;`` then ``,`` — a group
   counts when one token is an ID or path, or when it closes a sentence and every token names a
   member or a known section (``(boundary, Source register).``,
   :func:`ingest.resolve.names_part`); an ordinary parenthetical such as ``(ranking may reorder
   results)`` is prose;
2. a bare trailing ID list after the final sentence (seed 003: ``… effects. RT-RTE-owner-chat,
   RT-OBJ-active-runs.``), and the list of the overview's amendment index line (GRAMMAR §2.2
   rule 6: ``Amended or superseded records: EPI-OBJ-1, EPI-OBJ-4; reconciliation.``);
3. whole table cells of citation columns (Limitations ``affected …`` column);
4. every other record/source ID or ``dir/file.ext`` path in running prose, as a ``mention``.

None is read inside an inline HTML comment or a URL (``<!-- RTE-2 -->``,
``<https://example.org/RTE-1>``; :data:`~domain.grammar.IGNORED_IN_PROSE`): those are ignored
occurrences, as :mod:`ingest.accounting` counts them.

A record range (``MEM-RTE-1 through MEM-RTE-7``, `` `RT-BAP-1`–`RT-BAP-3` ``, GRAMMAR §1.1) found
by any of these forms cites every record in it, each with form ``range`` and the range as its token;
one that cannot be expanded exactly cites only its ends, as written
(:func:`domain.grammar.record_ranges`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import accumulate
from dataclasses import dataclass

from domain.grammar import PROSE_PATH, RECORD_ID, SOURCE_ID, classify_token, ignored_spans, record_ranges
from domain.vocabulary import ANALYSTS, KINDS
from domain.model import Citation
from ingest.resolve import names_part

__all__ = ["extract_citations", "split_cell_citations", "with_heading_records"]

_GROUP = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\](?!\()")
_RECORD_MARKS = tuple(f"{kind}-" for kind in (*KINDS, *ANALYSTS[1:]))
"""Every :data:`~domain.grammar.RECORD_ID` holds one of these (a kind, or a G0 proposal's ``MEM-``
or ``EPI-``): a cheap ``in`` test lets most
statements skip the ID scans (Python's ``re`` tries each position of a pattern that opens with a
look-behind)."""
_SENTENCE_END = re.compile(r"[.!?:](?:\s|$)")
_CLOSES_SENTENCE = re.compile(r"[.;]?\s*$|[.;](?:\s|$)")
"""What follows a group that closes its sentence (matched at the group's end, not on a copy of
the rest of the text: a paragraph of many groups stays linear)."""
_INDEX_LABEL = "Amended or superseded records:"
_INDEX_LINE = re.compile(rf"^{_INDEX_LABEL}[ \t]*")
_MAX_NAME_WORDS = 5
_SEPARATORS = re.compile(r"([;,])")
_NAME_BREAK = re.compile(r"[.:!?\"“”]")
_SOURCE_AND_REST = re.compile(r"^(SRC-\d+)(?:\s*:\s*|\s+)(.+)$")
_SENTENCE_BREAK = re.compile(r"[.!?]\s+")


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    start: int
    end: int


def _split(text: str, base: int) -> list[_Token]:
    """Split ``text`` (at offset ``base``) on ``;`` then ``,``; tokens are stripped, offsets kept."""
    tokens = []
    pos = 0
    for part in _SEPARATORS.split(text):
        if part in (";", ","):
            pos += 1
            continue
        stripped = part.strip()
        if stripped:
            lead = len(part) - len(part.lstrip())
            tokens.append(_Token(stripped, base + pos + lead, base + pos + lead + len(stripped)))
        pos += len(part)
    return tokens


def _is_short_name(token: str) -> bool:
    words = token.split()
    return 0 < len(words) <= _MAX_NAME_WORDS and not _NAME_BREAK.search(token)


def _group_citations(tokens: list[_Token], form: str, span: tuple[int, int]) -> list[Citation]:
    """Classify the tokens of one citation group; IDs inside a longer token are cited on their own;
    a token naming no member or known section (:func:`~ingest.resolve.names_part`) is prose, not
    a named reference (a plain-text rendering invents none)."""
    out: list[Citation] = []
    current_source: str | None = None
    for tok in tokens:
        text, start = tok.text, tok.start
        # "SRC-1: path" or "SRC-1 path" (GRAMMAR §5 bracketed/bare source + anchors)
        m = _SOURCE_AND_REST.match(text) if text.startswith("SRC-") else None
        if m:
            current_source = m.group(1)
            out.append(Citation(m.group(1), "source", m.group(1), form, start, start + len(m.group(1)), *span))
            rest_start = start + m.start(2)
            text, start = m.group(2).strip(), rest_start
        kind = classify_token(text)
        if kind == "source":
            current_source = text
        if kind in ("record", "source", "file"):
            target = text.rstrip("/")
            out.append(Citation(text, kind, target, form, start, start + len(text), *span,
                                source_id=current_source if kind == "file" else None))
            continue
        inner = sorted([*RECORD_ID.finditer(text), *SOURCE_ID.finditer(text)], key=lambda x: x.start())
        if inner:
            for im in inner:
                k = "source" if im.group().startswith("SRC-") else "record"
                out.append(Citation(im.group(), k, im.group(), form, start + im.start(), start + im.end(), *span))
            continue
        if names_part(text):  # prose in a group that cites (`(§2.1, SRC-1)`, `(about 11; RTE-1)`) names nothing
            out.append(Citation(text, "named", " ".join(text.split()), form, start, start + len(text), *span))
    return out


def _is_citation_group(tokens: list[_Token], text: str, end: int) -> bool:
    if not tokens:
        return False
    # a token opening with ``SRC-`` counts whatever follows it; any other is classified as written
    if any(t.text.startswith("SRC-") or classify_token(t.text) != "named" for t in tokens):
        return True
    if any(RECORD_ID.search(t.text) or SOURCE_ID.search(t.text) for t in tokens):
        return True
    return _CLOSES_SENTENCE.match(text, end) is not None and all(names_part(t.text) for t in tokens)


def _has_record_mark(text: str) -> bool:
    """Whether ``text`` could hold a record ID: it contains a kind followed by ``-`` (``RTE-``).

    False means :data:`~domain.grammar.RECORD_ID` finds nothing in ``text``; true means it may.

    >>> _has_record_mark("see RT-RTE-x"), _has_record_mark("no IDs here")
    (True, False)
    """
    return "-" in text and any(mark in text for mark in _RECORD_MARKS)


class _Sentences:
    """Sentence boundaries of one text, found on first use; :meth:`around` is a binary search."""

    def __init__(self, text: str):
        self.text = text
        self.length = len(text)
        self.starts: list[int] | None = None
        self.ends: list[int] = []

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The sentence around ``text[start:end]``: after the previous ``. `` and through the next."""
        if self.starts is None:
            matches = [(m.start(), m.end()) for m in _SENTENCE_END.finditer(self.text)]
            self.starts = [s for s, _ in matches]
            self.ends = [e for _, e in matches]
        k = bisect_right(self.ends, start) - 1
        left = self.ends[k] if k >= 0 else 0
        i = bisect_left(self.starts, end)
        right = self.starts[i] + 1 if i < len(self.starts) else self.length
        return left, right


def _trailing_list(text: str, taken: list[tuple[int, int]]) -> tuple[int, list[_Token]] | None:
    """A bare ID list after the final sentence (seed 003), as (offset, tokens), or None."""
    body = text.rstrip()
    if body.endswith("."):
        body = body[:-1]
    boundary = max((m.end() for m in _SENTENCE_BREAK.finditer(body)), default=0)
    tail = body[boundary:]
    if not tail or "(" in tail or any(s < len(body) and e > boundary for s, e in taken):
        return None
    tokens = _split(tail, boundary)
    if not any(classify_token(t.text) in ("record", "source") for t in tokens):
        return None
    if not all(classify_token(t.text) in ("record", "source") or _is_short_name(t.text) for t in tokens):
        return None
    if any(classify_token(t.text) == "named" and t.text[:1].isupper() and " " not in t.text for t in tokens):
        return None
    return boundary, tokens


def extract_citations(text: str) -> tuple[Citation, ...]:
    """Every citation in one statement's plain ``text``, ordered by offset.

    >>> [(c.target_kind, c.target, c.form) for c in extract_citations(
    ...     "Stop does not undo writes (workflow account, RT-RTE-workspace-send).")]
    [('named', 'workflow account', 'citation'), ('record', 'RT-RTE-workspace-send', 'citation')]
    >>> [(c.target, c.form) for c in extract_citations("Carried by RT-RTE-x (SRC-1, a/b.js).")]
    [('RT-RTE-x', 'mention'), ('SRC-1', 'citation'), ('a/b.js', 'citation')]
    >>> [(c.target_kind, c.target, c.source_id) for c in extract_citations("Facts reach it (SRC-2 src/prompt.rs).")]
    [('source', 'SRC-2', None), ('file', 'src/prompt.rs', 'SRC-2')]
    >>> [(c.target, c.form, c.token) for c in extract_citations("Paths (RT-BAP-1–RT-BAP-3).")]
    [('RT-BAP-1', 'range', 'RT-BAP-1–RT-BAP-3'), ('RT-BAP-2', 'range', 'RT-BAP-1–RT-BAP-3'), ('RT-BAP-3', 'range', 'RT-BAP-1–RT-BAP-3')]
    """
    # Cheap substring tests first: each scan below can only match when its literal is present.
    records, sources = _has_record_mark(text), "SRC-" in text
    if not (records or sources or "/" in text or "(" in text or "[" in text) and not text.startswith(_INDEX_LABEL):
        return ()  # no group, index line, ID or path can be in it (most statements): nothing to cite
    found: list[Citation] = []
    taken: list[tuple[int, int]] = []
    span_from = 0
    for m in _GROUP.finditer(text) if "(" in text or "[" in text else ():
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        inner_start = m.start(1) if m.group(1) is not None else m.start(2)
        tokens = _split(inner, inner_start)
        if not _is_citation_group(tokens, text, m.end()):
            continue
        span_end = m.end() + (1 if text[m.end() : m.end() + 1] in (".", "!", "?") else 0)
        found.extend(_group_citations(tokens, "citation", (span_from, span_end)))
        taken.append((m.start(), m.end()))
        span_from = span_end
    index = _INDEX_LINE.match(text)
    if index:  # GRAMMAR §2.2 rule 6: the list after the label, `none` or IDs, then the reconciliation
        tokens = [t for t in _split(text[index.end():].rstrip().rstrip("."), index.end()) if t.text != "none"]
        found.extend(_group_citations(tokens, "citation", (0, len(text))))
        taken.append((index.end(), len(text)))
    # A trailing list needs a record or source token (``classify_token``), so an ID mark.
    trailing = _trailing_list(text, taken) if (records or sources) and not index else None
    if trailing:
        offset, tokens = trailing
        end = len(text.rstrip())
        found.extend(_group_citations(tokens, "citation", (span_from, end)))
        taken.append((offset, end))

    taken.sort()
    starts = [ts for ts, _ in taken]
    reach = list(accumulate((te for _, te in taken), max))  # furthest end among groups starting earlier

    def free(s: int, e: int) -> bool:
        """Not inside any taken group; O(log n) so long paragraphs stay linear overall."""
        i = bisect_right(starts, s) - 1
        return i < 0 or reach[i] < e

    sentences = _Sentences(text)
    for m in [*(RECORD_ID.finditer(text) if records else ()), *(SOURCE_ID.finditer(text) if sources else ())]:
        if free(m.start(), m.end()):
            kind = "source" if m.group().startswith("SRC-") else "record"
            found.append(Citation(m.group(), kind, m.group(), "mention", m.start(), m.end(),
                                  *sentences.around(m.start(), m.end())))
    for m in PROSE_PATH.finditer(text) if "/" in text else ():
        if free(m.start(), m.end()):
            found.append(Citation(m.group(), "file", m.group(), "mention", m.start(), m.end(),
                                  *sentences.around(m.start(), m.end())))
    return _unignored(text, _with_ranges(text, found, sentences.around, records=records))


def _unignored(text: str, citations: tuple[Citation, ...]) -> tuple[Citation, ...]:
    """``citations`` without those inside an inline HTML comment or a URL of ``text``
    (:func:`~domain.grammar.ignored_spans`: ignored occurrences, no citations)."""
    spans = ignored_spans(text)
    if not spans:
        return citations
    starts = [s for s, _ in spans]

    def inside(c: Citation) -> bool:
        i = bisect_right(starts, c.start) - 1
        return i >= 0 and spans[i][1] >= c.end

    return tuple(c for c in citations if not inside(c))


def _with_ranges(text: str, found: list[Citation], around, base: int = 0, *,
                 records: bool | None = None) -> tuple[Citation, ...]:
    """``found`` (citations of ``text``, offsets from ``base``) with the ends of each expandable
    record range replaced by one ``range`` citation per record in it, over the span the ends
    supported (``around(start, end)`` when none was cited); ordered by offset.

    Ranges do not overlap, so each record citation is matched with the range that may hold it by
    one binary search: linear in the ranges and citations (a paragraph of 20,000 ranges).
    ``records``: :func:`_has_record_mark` of ``text``, when the caller knows it."""
    if records is None:
        records = _has_record_mark(text)
    ranges = [r for r in record_ranges(text) if r.reason is None] if records else []
    if not ranges:
        return tuple(sorted(found, key=lambda c: (c.start, c.end)))
    starts = [base + r.start for r in ranges]
    ends: dict[int, list[Citation]] = {}
    kept = []
    for c in found:
        k = bisect_right(starts, c.start) - 1  # the last range starting at or before the citation
        if c.target_kind == "record" and k >= 0 and c.end <= base + ranges[k].end:
            ends.setdefault(k, []).append(c)
        else:
            kept.append(c)
    for k, r in enumerate(ranges):
        start, end = base + r.start, base + r.end
        cited = ends.get(k)
        span = ((min(c.span_start for c in cited), max(c.span_end for c in cited)) if cited
                else around(start, end))
        kept.extend(Citation(r.text, "record", record, "range", start, end, *span) for record in r.records)
    return tuple(sorted(kept, key=lambda c: (c.start, c.end)))


def split_cell_citations(cell: str, base: int) -> tuple[Citation, ...]:
    """Citations of a whole citation-column cell starting at offset ``base`` of the row text
    (Limitations ``affected SRC IDs and record citations``: ``SRC-1; RT-RTE-x, workflow account``).

    >>> [(c.target_kind, c.target) for c in split_cell_citations("SRC-1; RT-RTE-x, report verification limits", 0)]
    [('source', 'SRC-1'), ('record', 'RT-RTE-x'), ('named', 'report verification limits')]
    """
    tokens = _split(cell, base)
    found = _group_citations(tokens, "citation", (base, base + len(cell)))
    return _with_ranges(cell, found, lambda s, e: (base, base + len(cell)), base)


def with_heading_records(citations, records: list[tuple[str, int]], length: int) -> tuple[Citation, ...]:
    """``citations`` of a statement of ``length`` characters and, for each (record ID, heading
    line) of ``records`` (what the open headings that are no declaration name: a ledger's ``###
    RTE-5 — …``) that they do not cite, a citation of form ``heading`` over the whole statement,
    ``line`` the heading's (a bullet under it that does not repeat the ID still
    rests on it).

    >>> [(c.target, c.form, c.line) for c in with_heading_records(extract_citations("Keeps OBJ-1."), [("RTE-5", 12)], 12)]
    [('OBJ-1', 'mention', None), ('RTE-5', 'heading', 12)]
    """
    cited = {c.target for c in citations if c.target_kind == "record"}
    added = []
    for record, line in records:
        if record not in cited:
            cited.add(record)
            added.append(Citation(record, "record", record, "heading", 0, 0, 0, length, line=line))
    return (*citations, *added) if added else tuple(citations)
