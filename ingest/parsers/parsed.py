"""Intermediate parse results: small dataclasses that keep line numbers, before any graph node exists.

A parser turns one file into a :class:`ParsedDocument`: a flat, ordered list of blocks (headings
and statements). Concatenating every block's ``gap + markup`` between ``preamble`` and ``trailer``
gives back the file's text exactly; the loader relies on it and the renderer proves it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph.errors import SourceSpan

__all__ = ["ParsedCitation", "ParsedQuotation", "ParsedBlock", "ParsedSourcePin", "ParsedDocument"]


@dataclass(frozen=True, slots=True)
class ParsedCitation:
    """One citation token inside a block's plain ``text``.

    ``target_kind`` is ``record``, ``source``, ``file`` or ``named``; ``target`` the normalised
    target (record ID, ``SRC-n``, path, or the reference's words); ``form`` is ``citation`` (in a
    citation group, cell or trailing list), ``mention`` (running prose), ``quotation`` (a quotation's
    attribution), ``link`` (a Markdown link) or ``frontmatter``; ``start``/``end`` are character
    offsets of the token in ``text``; ``span_start``/``span_end`` delimit the text it supports.
    ``source_id`` is the ``SRC-n`` a file token belongs to when the group names one; ``member`` the
    member file a Markdown link names (``runtime.md``); ``line`` the file line of a citation that
    sits outside any block (frontmatter ``records`` entries), else None; ``anchor`` the anchor of a
    link labelled with a record ID when it does not name that record (GRAMMAR §2.2 rule 3: a
    ``check`` finding), else None.
    """

    token: str
    target_kind: str
    target: str
    form: str
    start: int
    end: int
    span_start: int
    span_end: int
    source_id: str | None = None
    member: str | None = None
    line: int | None = None
    anchor: str | None = None


@dataclass(frozen=True, slots=True)
class ParsedQuotation:
    """A quoted source passage: ``text`` (body, as rendered), attributed ``path``, optional
    ``lines`` (``"270-275"``) and ``revision`` (hex)."""

    text: str
    path: str
    lines: str | None = None
    revision: str | None = None


@dataclass(frozen=True, slots=True)
class ParsedBlock:
    """One block of a member, in document order.

    ``kind`` is ``heading`` or a statement kind (see :class:`graph.model.Node`). Headings carry
    ``level`` (2–6) and ``section_kind``; statements carry ``text`` (plain) and ``citations``.
    ``markup`` is the block's exact source and ``gap`` the whitespace between the previous block
    and this one. ``extra`` holds kind-specific data (table ``cells``/``table``, field ``label``/
    ``value``, declaration ``record_id``/``label``, ``annotates``, amendment ``supersedes``).
    """

    kind: str
    line: int
    markup: str
    gap: str
    text: str = ""
    level: int = 0
    section_kind: str = ""
    citations: tuple[ParsedCitation, ...] = ()
    quotation: ParsedQuotation | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ParsedSourcePin:
    """A source pin stated by a member: ``SRC-n`` with repository ``url``, ``commit`` and ``cutoff``
    (``YYYY-MM-DD``) and, from a source register, ``kind`` and ``evidence_layers``."""

    source_id: str
    url: str | None = None
    commit: str | None = None
    cutoff: str | None = None
    kind: str | None = None
    evidence_layers: str | None = None
    declared: bool = False


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """One parsed member.

    ``path`` is the file as given; ``format`` ``txt`` or ``md``; ``sha256`` of the raw bytes;
    ``role`` from the member type (``synthesis``, ``workflow-report``, …); ``system`` the system's
    name; ``run_id`` from frontmatter or None. ``set_id`` is the analysis set a set assembly put the
    member in (a manifest may pin a member whose run-id disagrees), None to derive it from
    ``run_id``; ``extra`` holds further Document properties (``file_name``, ``record_prefix``,
    ``reviewed_boundary``, ``frontmatter_lines``, manifest pins …).
    """

    path: str
    format: str
    sha256: str
    size: int
    title: str
    member_type: str
    role: str
    system: str
    preamble: str
    blocks: tuple[ParsedBlock, ...]
    trailer: str
    run_id: str | None = None
    reviewed_boundary: str | None = None
    frontmatter: dict[str, Any] = field(default_factory=dict)
    pins: tuple[ParsedSourcePin, ...] = ()
    frontmatter_citations: tuple[ParsedCitation, ...] = ()
    set_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def span(self, line: int) -> SourceSpan:
        """A :class:`SourceSpan` at ``line`` of this file."""
        return SourceSpan(self.path, line)


def _reduce_by_fields(self):
    """Pickle as ``type(self)(*fields)``: about twice as fast both ways as the dataclass default
    (per-field ``__getstate__``/``__setstate__`` loops), which counts when parsed members come back
    from parser processes (:func:`ingest.sets.assemble` with workers)."""
    return type(self), tuple([getattr(self, name) for name in self.__slots__])


for _cls in (ParsedCitation, ParsedQuotation, ParsedBlock, ParsedSourcePin, ParsedDocument):
    # dataclass(slots=True) lists every field in __slots__, in __init__'s positional order.
    assert _cls.__slots__ == tuple(f.name for f in _cls.__dataclass_fields__.values() if f.init)
    _cls.__reduce__ = _reduce_by_fields
del _cls
