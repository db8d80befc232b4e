"""Intermediate parse results: small dataclasses that keep line numbers, before any graph node exists.

A parser turns one file into a :class:`ParsedDocument`: a flat, ordered list of blocks (headings
and statements) whose citations and quotations are already the domain's
:class:`~domain.model.Citation` and :class:`~domain.model.Quotation`, and whose source pins are
:class:`~domain.model.Source`. Concatenating every block's ``gap + markup`` between ``preamble`` and ``trailer``
gives back the file's text exactly; the loader relies on it and the renderer proves it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.checks import Flaws, MemberIdentity, Pinning
from domain.model import Amendment, Annotation, Citation, Declaration, Field, Quotation, Source, Status, TableRow
from graph.errors import SourceSpan

__all__ = ["ParsedBlock", "ParsedDocument"]


@dataclass(frozen=True, slots=True)
class ParsedBlock:
    """One block of a member, in document order.

    ``kind`` is ``heading`` or a statement kind (see :class:`graph.model.Node`). Headings carry
    ``level`` (2–6) and ``section_kind``; statements carry ``text`` (plain) and ``citations``.
    ``markup`` is the block's exact source and ``gap`` the whitespace between the previous block
    and this one. What a block states besides is its domain facts: a heading's ``h1`` and
    ``record_kind`` (:class:`~domain.model.Section`), its ``declaration`` or ``annotation``; a
    statement's ``field``, table ``row``, ``amendment``, ``statuses``, ``run_on`` fields,
    ``kind_statuses``, ``continuation`` and ``closes_record`` (:class:`~domain.model.Statement`);
    the ``flaws`` a parser found (:class:`~domain.checks.Flaws`, None for most blocks) and a
    Source register row's ``pin`` (moved to :attr:`ParsedDocument.pins`, never stored on the block).
    """

    kind: str
    line: int
    markup: str
    gap: str
    text: str = ""
    level: int = 0
    section_kind: str = ""
    citations: tuple[Citation, ...] = ()
    quotation: Quotation | None = None
    h1: bool = False
    record_kind: str | None = None
    declaration: Declaration | None = None
    annotation: Annotation | None = None
    field: Field | None = None
    row: TableRow | None = None
    amendment: Amendment | None = None
    statuses: tuple[Status, ...] = ()
    run_on: tuple[Field, ...] = ()
    kind_statuses: tuple[Status, ...] = ()
    continuation: bool = False
    closes_record: bool = False
    flaws: Flaws | None = None
    pin: Source | None = None


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """One parsed member.

    ``path`` is the file as given; ``format`` ``txt`` or ``md``; ``sha256`` of the raw bytes;
    ``role`` from the member type (``synthesis``, ``workflow-report``, …); ``system`` the system's
    name; ``run_id`` from frontmatter or None. ``set_id`` is the analysis set a set assembly put the
    member in (a manifest may pin a member whose run-id disagrees), None to derive it from
    ``run_id``; ``identity`` is what a Markdown member states of its set (None for a plain-text
    member) and ``pinning`` how its set's manifest pins it (None: read without a manifest).
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
    pins: tuple[Source, ...] = ()
    frontmatter_citations: tuple[Citation, ...] = ()
    set_id: str | None = None
    identity: MemberIdentity | None = None
    pinning: Pinning | None = None

    def span(self, line: int) -> SourceSpan:
        """A :class:`SourceSpan` at ``line`` of this file."""
        return SourceSpan(self.path, line)


def _reduce_by_fields(self):
    """Pickle as ``type(self)(*fields)``: about twice as fast both ways as the dataclass default
    (per-field ``__getstate__``/``__setstate__`` loops), which counts when parsed members come back
    from parser processes (:func:`ingest.sets.assemble` with workers)."""
    return type(self), tuple([getattr(self, name) for name in self.__slots__])


for _cls in (ParsedBlock, ParsedDocument):  # the domain types reduce themselves (domain.model)
    # dataclass(slots=True) lists every field in __slots__, in __init__'s positional order.
    assert _cls.__slots__ == tuple(f.name for f in _cls.__dataclass_fields__.values() if f.init)
    _cls.__reduce__ = _reduce_by_fields
del _cls
