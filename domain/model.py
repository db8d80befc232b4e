"""The model's concepts, one frozen type each, in the field's terms (seeds issue; GRAMMAR §1–§9).

These are what a parser finds and what a query reads back; how each is stored (which node label,
edge kind and property keys) is :mod:`graph.codec`'s business alone. Every type is a frozen,
slotted dataclass of plain values, so it is cheap to build, hashable and safe to share.

::

    AnalysisSet ─ Member ─ Section ─ Statement ─ Citation → Record | Source | SourceFile | NamedReference
                              │          ├─ Quotation → SourceFile
                              │          └─ Field (a field statement's label and value), TableRow (a row's cells)
                              ├─ Declaration (declares a Record)
                              └─ Annotation (annotates a Record)        Amendment: a statement superseding records

What only ``citegraph check`` reads (a member's identity and manifest pin, a block's flaws) is
:mod:`domain.checks`, which a process that never checks does not import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.ids import AnalysisSetId, DocumentId, NodeId, RecordId, SourceId

__all__ = [
    "CITATION_FORMS",
    "TARGET_KINDS",
    "Citation",
    "Quotation",
    "Record",
    "Source",
    "SourceFile",
    "NamedReference",
    "AnalysisSet",
    "Member",
    "Section",
    "Declaration",
    "Annotation",
    "Statement",
    "Status",
    "Field",
    "TableRow",
    "Amendment",
    "Review",
]

CITATION_FORMS = ("citation", "mention", "quotation", "link", "range", "frontmatter", "heading")
"""How a citation is written (GRAMMAR §9 rule 5, §5, §6, §1.1): in a citation group, cell or trailing
list; in running prose; as a quotation's attribution; as a Markdown link; as a record inside a
record range; as a frontmatter ``records`` entry; by a ledger heading over the statements under it
(``line`` is the heading's)."""

TARGET_KINDS = ("record", "source", "file", "named")
"""What a citation token names (GRAMMAR §9 rule 5, :func:`domain.grammar.classify_token`)."""


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation token inside a statement's plain ``text``.

    Parameters
    ----------
    token : str
        The token as written (``RT-RTE-mcp-write``, ``SRC-1``, ``mcp-server/vault.js``).
    target_kind : str
        One of :data:`TARGET_KINDS`.
    target : str
        The normalised target: record ID, ``SRC-n``, commit-relative path, or the reference's words.
    form : str
        One of :data:`CITATION_FORMS`.
    start, end : int
        Character offsets of the token in the statement's ``text``.
    span_start, span_end : int
        Character offsets of the text the citation supports (tokens of one group share it).
    source_id : str or None
        The ``SRC-n`` a file token belongs to when its group names one.
    member : str or None
        The member file a Markdown link names (``runtime.md``).
    line : int or None
        File line of a citation outside any block (frontmatter ``records`` entries), else None.
    anchor : str or None
        The anchor of a link labelled with a record ID when it does not name that record
        (GRAMMAR §2.2 rule 3: a ``check`` finding), else None.
    """

    token: str
    target_kind: str
    target: str
    form: str
    start: int
    end: int
    span_start: int = 0
    span_end: int = 0
    source_id: str | None = None
    member: str | None = None
    line: int | None = None
    anchor: str | None = None


@dataclass(frozen=True, slots=True)
class Quotation:
    """A quoted source passage (GRAMMAR §6): ``text`` (body, as rendered), attributed ``path``,
    optional ``lines`` (``"270-275"``) and ``revision`` (hex)."""

    text: str
    path: str
    lines: str | None = None
    revision: str | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """A record (GRAMMAR §1.1): ``record_id`` as written, split into ``analyst`` (RT|MEM|EPI, or None
    for a G2 unprefixed ID), ``kind`` (CMP|OBJ|RTE|CLM|ABS|BAP) and ``slug`` (name or number)."""

    record_id: RecordId
    analyst: str | None
    kind: str
    slug: str


@dataclass(frozen=True, slots=True)
class Source:
    """A source of the Source register (GRAMMAR §7): ``source_id`` (``SRC-n``) with its ``kind``,
    repository ``url``, ``commit``, ``cutoff`` (``YYYY-MM-DD``) and ``evidence_layers``; ``declared``
    is True when a register row declares it (any other field may be None)."""

    source_id: SourceId
    kind: str | None = None
    url: str | None = None
    commit: str | None = None
    cutoff: str | None = None
    evidence_layers: str | None = None
    declared: bool = False


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file of a source, by commit-relative ``path``; ``source_id`` when a citation names it."""

    path: str
    source_id: str | None = None


@dataclass(frozen=True, slots=True)
class NamedReference:
    """A citation by name (GRAMMAR §9 rule 5): ``name`` as first written and its ``slug``."""

    name: str
    slug: str


@dataclass(frozen=True, slots=True)
class AnalysisSet:
    """An analysis set (GRAMMAR §2): ``set_id`` (the run-id, else the system's slug), the ``system``
    analysed, its ``run_id`` and ``reviewed_boundary`` (either may be None)."""

    set_id: AnalysisSetId
    system: str
    run_id: str | None = None
    reviewed_boundary: str | None = None


@dataclass(frozen=True, slots=True)
class Member:
    """One member document of a set (GRAMMAR §2, §3): ``document_id`` (``<set>/<role>``), ``role``,
    H1 ``title``, ``member_type`` (the ``type:`` value), ``format`` (``txt``|``md``), ``path`` as
    ingested, ``sha256`` of its bytes and ``size`` (bytes)."""

    document_id: DocumentId
    role: str
    title: str
    member_type: str
    format: str
    path: str
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class Section:
    """A heading and what it holds (GRAMMAR §3, §4): ``heading`` (plain), ``level`` (2–6), ``kind``
    (``section``|``kinds``|``declaration``|``annotation``|``subsection``), document ``order``
    (block index), file ``line``, and its exact source: ``markup`` and the ``gap`` (whitespace)
    before it; ``h1`` for the member's H1 read as a section, and a ``kinds`` heading's
    ``record_kind`` (GRAMMAR §4.1; else None)."""

    node: NodeId
    heading: str
    level: int
    kind: str
    order: int
    line: int
    markup: str = ""
    gap: str = ""
    h1: bool = False
    record_kind: str | None = None


@dataclass(frozen=True, slots=True)
class Status:
    """A conclusion status a statement states (GRAMMAR §4.4, :func:`domain.grammar.split_status`):
    the field's ``label`` (``Implementation conclusion status``), its ``value`` (``wired``) and the
    ``qualifier`` after it, or None."""

    label: str
    value: str
    qualifier: str | None = None


@dataclass(frozen=True, slots=True)
class Declaration:
    """A record's declaration (GRAMMAR §4.2): the ``record_id`` it declares, its ``label`` (or
    None, G4), the ``form`` it is written in (``labelled``, ``bare``, ``inline`` (G1: ``ID — …`` opening a
    paragraph), ``row`` (a declaring table's row); None for a plain-text heading), the
    ``inherited_statuses`` its kind section states for every record under it (G1), in ``section``
    (the declaration Section's node id; None until the loader names it)."""

    record_id: RecordId
    label: str | None
    form: str | None = None
    inherited_statuses: tuple[Status, ...] = ()
    section: NodeId | None = None


@dataclass(frozen=True, slots=True)
class Annotation:
    """An annotation heading (GRAMMAR §4.7, ``#### On ID — Label``): the record it ``annotates``,
    its ``label`` (or None), in ``section`` (None until the loader names it). ``states_label`` is
    False when the parser reads no label at all (a plain-text heading: no label is stored)."""

    annotates: RecordId
    label: str | None
    states_label: bool = True
    section: NodeId | None = None


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement (GRAMMAR §9): ``kind`` (``paragraph``, ``field``, ``table_row``, ``quotation``,
    …; see :class:`graph.model.Node`), plain ``text``, document ``order``, file ``line``, its exact
    source (``markup``, and the ``gap`` before it) and the ``citations`` it makes, in the order
    written. Inside a record it may state ``statuses`` (§4.4) and ``run_on`` fields (G2 prose:
    label and value only, §4.3); a kind section's opening sentence states the ``kind_statuses``
    of every record under it (G1); ``continuation`` marks a list item's later paragraph and
    ``closes_record`` a paragraph that ends an inline declaration (G1)."""

    node: NodeId
    kind: str
    text: str
    order: int
    line: int
    markup: str = ""
    gap: str = ""
    citations: tuple[Citation, ...] = ()
    statuses: tuple[Status, ...] = ()
    run_on: tuple[Field, ...] = ()
    kind_statuses: tuple[Status, ...] = ()
    continuation: bool = False
    closes_record: bool = False


@dataclass(frozen=True, slots=True)
class Field:
    """A field statement (GRAMMAR §4.5): its ``label`` and ``value`` as written, its ``form``
    (``bullet``|``bold``|``line``; None in a plain-text member) and, for a declaration's well-formed
    ``Part of:`` line (§4.7), the record ID it is ``part_of`` (else None); a ledger's ``Route ID:``
    line names its ``route_ids`` (§3.5; None for any other field)."""

    label: str
    value: str
    form: str | None = None
    part_of: str | None = None
    route_ids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table's header or row statement (GRAMMAR §9 rule 6): the role of the ``table`` it is in
    (by its section: ``limitations``, ``register``, ``inventory``, ``ledger``, ``claims``, else
    ``table``; None when unstated) and its ``cells``, in order, as written. A Source register row
    names its ``source_id`` (§7), a declaring table's row the record it ``declares`` (GRAMMAR §0),
    a proposal-to-canonical mapping row its ``aliases`` (alias, canonical)."""

    table: str | None
    cells: tuple[str, ...]
    source_id: str | None = None
    declares: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Amendment:
    """What an ``Amendment:`` statement states (GRAMMAR §4.8): the record it ``amends`` (the first
    it cites) and, in the supersession form, the (old, new) record pairs it ``supersedes``."""

    amends: RecordId
    supersedes: tuple[tuple[RecordId, RecordId], ...] = ()


@dataclass(frozen=True, slots=True)
class Review:
    """A suspect reviewed at a source revision: the reviewed ``node``, the ``revision``
    (commit) it was reviewed at, ``reviewer``, ``at`` (UTC ISO 8601), an optional ``note`` and the
    ``fingerprint`` (SHA-256 of the node's content when reviewed, or None)."""

    node: NodeId
    revision: str
    reviewer: str
    at: str
    note: str | None = None
    fingerprint: str | None = None


def _reduce_by_fields(self: Any) -> tuple[type, tuple[Any, ...]]:
    """Pickle as ``type(self)(*fields)``: about twice as fast both ways as the dataclass default,
    which counts when parsed members come back from parser processes (``ingest.sets.assemble``
    with workers)."""
    return type(self), tuple([getattr(self, name) for name in self.__slots__])


for _cls in (Citation, Quotation, Record, Source, SourceFile, NamedReference, AnalysisSet, Member, Section,
             Declaration, Annotation, Statement, Status, Field, TableRow, Amendment, Review):
    # dataclass(slots=True) lists every field in __slots__, in __init__'s positional order.
    assert _cls.__slots__ == tuple(f.name for f in _cls.__dataclass_fields__.values() if f.init)
    setattr(_cls, "__reduce__", _reduce_by_fields)  # noqa: B010 - a method set on many classes at once
del _cls
