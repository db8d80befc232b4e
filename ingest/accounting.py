"""The accounting invariant: every record-ID-shaped token in a member's prose is
a citation, a declaration, an alias or an explicitly ignored occurrence.

Both parsers reduce a block to its plain ``text`` and the citations found in it; this module is the
one place that compares the two, so a form neither parser knows (the next unknown one) is not lost
silently: each record ID it holds is *unaccounted*, stored on its block as ``unaccounted_ids`` and
reported by ``citegraph check`` as ``unaccounted-record-id`` (counted by ``stats``).

A token is accounted for when

- a record citation of the block covers it (its token's offsets ``[start, end)`` hold the token:
  a mention, a citation-group token, a range, a link labelled with it or listing it);
- it is the record the block declares (``record_id``, a declaring table row's ``declares``) or
  annotates (``annotates``), or one side of
  an alias mapping the block states (``aliases``, GRAMMAR notes in :mod:`domain.grammar`), or of an
  amendment's ``supersedes`` pair;
- the block is ignored as a whole: quotations, fenced or indented code, raw HTML and rules
  (GRAMMAR §6: quoted and fenced text yields no citations);
- it lies in an ignored span of prose: an inline HTML comment or a URL
  (:data:`~domain.grammar.IGNORED_IN_PROSE`), where no citation is read either;
- it is reported by a finding of its own: a ``malformed-id`` token (``RT-RTE-Recall-Path``) or
  heading.

Nothing else is ignored: an ID inside a code span of running prose is cited like any other (the
plain text the citation rules read has no backticks; G0 cites `` `CMP-02` ``), so it is accounted
by its citation.

Tokens are found by :data:`~domain.grammar.RECORD_ID_SHAPE`, looser than the citation pattern (any
case, ``_``, Unicode hyphens, HTML entities, ``RTE-2a``, ``RTE-2.1``, ``OBJ-1,2,3``): a token that
looks like a record ID but that no rule reads as one is reported whole, even where the citation
rules read a part of it (``OBJ-1`` of ``OBJ-1,2,3``; a citation accounts only for a token it covers
whole).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from collections.abc import Iterable

from domain.grammar import RECORD_ID_SHAPE, ignored_spans
from domain.model import Citation
from ingest.parsers.parsed import ParsedBlock
from domain.vocabulary import ANALYSTS, KINDS

_ASCII_MARKS = tuple(f"{lead.lower()}{sep}" for lead in (*KINDS, *ANALYSTS[1:]) for sep in "-_&")
_UNICODE_HYPHEN = re.compile("[\u2010-\u2015\u2212]")


def _may_hold_shape(text: str) -> bool:
    """Whether ``text`` may hold a :data:`~domain.grammar.RECORD_ID_SHAPE` token: a kind (or
    ``mem``/``epi``) followed by ``-``, ``_`` or ``&`` in any case, or a Unicode hyphen; substring
    tests, so most blocks skip the scan (a case-blind pattern search would cost more than it).

    >>> _may_hold_shape("Rte_5"), _may_hold_shape("CMP\u20112"), _may_hold_shape("memory notes")
    (True, True, False)
    """
    low = text.lower()
    return any(mark in low for mark in _ASCII_MARKS) or _UNICODE_HYPHEN.search(text) is not None

__all__ = ["IGNORED_KINDS", "accounted_by", "unaccounted_ids"]

IGNORED_KINDS = frozenset({"quotation", "code", "html", "rule"})
"""Block kinds whose text is explicitly ignored by the invariant (GRAMMAR §6)."""


def accounted_by(block: ParsedBlock) -> tuple[set[str], bool]:
    """(record IDs, whole): what ``block`` accounts for by what it is, the :func:`unaccounted_ids`
    arguments after its citations: the record its declaration declares or its annotation
    annotates, a declaring row's record, its alias and supersession pairs, its malformed
    declaration's and IDs' tokens; ``whole`` for a malformed annotation heading (its
    ``malformed-id`` finding names the whole heading)."""
    known: set[str] = set()
    if block.declaration is not None:
        known.add(block.declaration.record_id)
    if block.annotation is not None:
        known.add(block.annotation.annotates)
    if block.row is not None:
        if block.row.declares:
            known.add(block.row.declares)
        for pair in block.row.aliases:
            known.update(pair)
    if block.amendment is not None:
        for pair in block.amendment.supersedes:
            known.update(pair)
    flaws = block.flaws
    if flaws is not None:
        if flaws.malformed_declaration:
            known.add(flaws.malformed_declaration)
        known.update(flaws.malformed_ids)
    return known, bool(flaws is not None and flaws.malformed_annotation)


def unaccounted_ids(kind: str, text: str, citations: Iterable[Citation], known: Iterable[str] = (),
                    whole: bool = False) -> list[str]:
    """The record-ID-shaped tokens of one block's plain ``text`` that nothing accounts for, in
    order (one entry per occurrence); linear in the text and its citations (a binary search per ID).

    Parameters
    ----------
    kind : str
        The block kind (``paragraph``, ``table_row``, ``heading`` …); :data:`IGNORED_KINDS` give ``[]``.
    text : str
        The block's plain text, the text its citations' offsets index.
    citations : iterable of Citation
        The block's citations.
    known : iterable of str
        Record IDs the block accounts for by what it is (:func:`accounted_by`).
    whole : bool
        Whether the whole text is accounted for (a malformed annotation heading, :func:`accounted_by`).

    >>> from ingest.citations import extract_citations
    >>> text = "Both (OBJ-5/OBJ-9) and RTE-2."
    >>> unaccounted_ids("paragraph", text, extract_citations(text))
    []
    >>> unaccounted_ids("paragraph", "See OBJ-1.", ())
    ['OBJ-1']
    >>> unaccounted_ids("quotation", "See OBJ-1.", ())
    []
    >>> text = "Renamed RTE-2a, split into RTE-2.1 (see OBJ-1,2,3 and <!-- RTE-4 --> <https://x.org/RTE-5>)."
    >>> unaccounted_ids("paragraph", text, extract_citations(text))
    ['RTE-2a', 'RTE-2.1', 'OBJ-1,2,3']
    """
    if kind in IGNORED_KINDS or not text or not _may_hold_shape(text):
        return []
    matches = list(RECORD_ID_SHAPE.finditer(text))
    if not matches:
        return []
    known = set(known)
    spans = sorted((c.start, c.end) for c in citations if c.target_kind == "record" and c.end > c.start)
    spans += ignored_spans(text)
    if whole:  # `malformed-id` names the whole annotation heading
        spans.append((0, len(text)))
    spans.sort()
    starts = [s for s, _ in spans]
    reach = list(accumulate((e for _, e in spans), max))  # furthest end among spans starting earlier
    out = []
    for m in matches:
        if m.group() in known:
            continue
        i = bisect_right(starts, m.start()) - 1  # a span covers m when one starting at or before it ends after it
        if i >= 0 and reach[i] >= m.end():
            continue
        out.append(m.group())
    return out
