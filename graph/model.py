"""The citegraph graph model: node labels, edge kinds, identities and property maps.

::

    System ─CONTAINS→ AnalysisSet ─CONTAINS→ Document ─CONTAINS→ Section ─CONTAINS→ Section | Statement
                                                                    │                     │
                                              Record ─DECLARED_IN───┘                     ├─CITES→ Record | Source | SourceFile
                                                │  ─SUPERSEDED_BY→ Record                 │        | NamedReference | Section | Document
                                                │  ─PART_OF→ Record                       ├─ANNOTATES→ Record
                                      Section ─ANNOTATES→ Record                          └─QUOTES→ Quotation ─ATTRIBUTED_TO→ SourceFile
                          NamedReference ─RESOLVES_TO→ Section | Document          SourceFile ─IN_SOURCE→ Source

Every edge points from the dependent to what it depends on, so "what rests on X" is reverse
reachability from X over the dependency kinds (:data:`DEPENDENCY_KINDS`).

Identity is set-scoped (seeds issue, §3): record IDs and ``SRC-n`` are unique within an analysis
set, not globally. Node ids are strings:

===============  ====================================  =====================================
label            id                                    example
===============  ====================================  =====================================
System           ``system/<slug>``                     ``system/tolaria``
AnalysisSet      ``<set>``                             ``tolaria``, ``AAS-2026-10-04-…-01``
Document         ``<set>/<role>``                      ``tolaria/workflow-report``
Section          ``<document>#L<line>``                ``tolaria/workflow-report#L5``
                 (``#D<line>``: a declaration written
                 inline at the start of a paragraph, G1)
Statement        ``<document>#L<line>``                ``tolaria/synthesis#L29``
Quotation        ``<document>#Q<line>``                ``tolaria/workflow-report#Q39``
Record           ``<set>/<record id>``                 ``tolaria/RT-RTE-mcp-write``
Source           ``<set>/<SRC-n>``                     ``tolaria/SRC-1``
SourceFile       ``<set>/file/<path>``                 ``tolaria/file/mcp-server/vault.js``
NamedReference   ``<set>/ref/<slug>``                  ``tolaria/ref/workflow-account``
Review           ``review/<node id>@<revision>``       ``review/tolaria/synthesis#L29@48f2a70…``
===============  ====================================  =====================================

Ownership: a node or edge with a ``document_id`` belongs to that document and is replaced with it.
Shared nodes (System, AnalysisSet, Record, Source, SourceFile, NamedReference) belong to a set and
are removed when no document-owned edge touches them any more. Derived edges (``document_id`` is
``None``: RESOLVES_TO, IN_SOURCE) are recomputed for the whole set on every write. Review nodes
(a suspect reviewed at a source revision) have no edges, belong to no document and are
never collected; only :meth:`graph.store.GraphStore.put_reviews` writes them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from collections.abc import Mapping

from domain.ids import AnalysisSetId, DocumentId, RecordId

__all__ = [
    "Label",
    "EdgeKind",
    "DEPENDENCY_KINDS",
    "EVIDENCE_KINDS",
    "SHARED_LABELS",
    "RecordId",
    "AnalysisSetId",
    "DocumentId",
    "Node",
    "Edge",
    "DocumentGraph",
    "SetBatch",
    "WriteSummary",
    "record_node_id",
    "source_node_id",
    "source_file_node_id",
    "named_reference_node_id",
    "review_node_id",
    "slugify",
]

class Label(StrEnum):
    """Node labels; also the Neo4j labels."""

    SYSTEM = "System"
    ANALYSIS_SET = "AnalysisSet"
    DOCUMENT = "Document"
    SECTION = "Section"
    STATEMENT = "Statement"
    QUOTATION = "Quotation"
    RECORD = "Record"
    SOURCE = "Source"
    SOURCE_FILE = "SourceFile"
    NAMED_REFERENCE = "NamedReference"
    REVIEW = "Review"


class EdgeKind(StrEnum):
    """Edge kinds; also the Neo4j relationship types. Each points from dependent to dependency."""

    CONTAINS = "CONTAINS"
    CITES = "CITES"
    ANNOTATES = "ANNOTATES"
    QUOTES = "QUOTES"
    ATTRIBUTED_TO = "ATTRIBUTED_TO"
    DECLARED_IN = "DECLARED_IN"
    SUPERSEDED_BY = "SUPERSEDED_BY"
    PART_OF = "PART_OF"
    RESOLVES_TO = "RESOLVES_TO"
    IN_SOURCE = "IN_SOURCE"


EVIDENCE_KINDS: frozenset[EdgeKind] = frozenset(
    {EdgeKind.CITES, EdgeKind.ANNOTATES, EdgeKind.QUOTES, EdgeKind.SUPERSEDED_BY}
)
"""Dependency kinds that count one step of depth: a statement's own evidence."""

DEPENDENCY_KINDS: frozenset[EdgeKind] = EVIDENCE_KINDS | frozenset(
    {EdgeKind.CONTAINS, EdgeKind.RESOLVES_TO, EdgeKind.DECLARED_IN, EdgeKind.IN_SOURCE}
)
"""Edge kinds along which "rests on" propagates. Structural kinds cost no depth."""

SHARED_LABELS: frozenset[Label] = frozenset(
    {Label.SYSTEM, Label.ANALYSIS_SET, Label.RECORD, Label.SOURCE, Label.SOURCE_FILE, Label.NAMED_REFERENCE}
)
"""Labels of set-level nodes that several documents may share."""


def slugify(text: str) -> str:
    """Lower-case, hyphen-joined words: ``"Workflow account"`` → ``"workflow-account"``."""
    out, dash = [], False
    for ch in text.lower():
        if ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    return "".join(out).rstrip("-")


def record_node_id(set_id: str, record_id: str) -> str:
    """Node id of record ``record_id`` in set ``set_id``: ``tolaria/RT-RTE-mcp-write``."""
    return f"{set_id}/{record_id}"


def source_node_id(set_id: str, source_id: str) -> str:
    """Node id of source ``SRC-n`` in set ``set_id``: ``tolaria/SRC-1``."""
    return f"{set_id}/{source_id}"


def source_file_node_id(set_id: str, path: str) -> str:
    """Node id of a source file (commit-relative ``path``) in set ``set_id``."""
    return f"{set_id}/file/{path}"


def named_reference_node_id(set_id: str, name: str) -> str:
    """Node id of a named reference such as ``"workflow account"`` in set ``set_id``."""
    return f"{set_id}/ref/{slugify(name)}"


def review_node_id(node_id: str, revision: str) -> str:
    """Node id of the review of node ``node_id`` at source ``revision`` (a full commit id)."""
    return f"review/{node_id}@{revision}"


def _freeze(value: Any) -> Any:
    return json.loads(json.dumps(value))


@dataclass(frozen=True, slots=True)
class Node:
    """A graph node.

    Parameters
    ----------
    id : str
        Unique node id (see the module table).
    label : Label
        Node label.
    set_id : str or None
        Owning analysis set; ``None`` only for System nodes.
    document_id : str or None
        Owning document for document-owned nodes; ``None`` for shared nodes.
    props : Mapping[str, Any]
        JSON-compatible properties (strings, numbers, booleans, lists, nested maps), written and
        read through :mod:`graph.codec` (which maps them to :mod:`domain.model` types). Per label:

        - System: ``name``, ``slug``.
        - AnalysisSet: ``system``, ``run_id`` (or None), ``reviewed_boundary`` (or None).
        - Document: ``role``, ``title``, ``member_type``, ``format`` (``txt``|``md``), ``path``,
          ``sha256`` (of the original bytes), ``size`` (bytes), ``preamble`` (markup before the
          first block: frontmatter and title), ``trailer`` (markup after the last block),
          ``frontmatter`` (map).
          Markdown members add ``file_name``, ``record_prefix`` (RT|MEM|EPI, :data:`domain.vocabulary.ANY_ANALYST`
          for a G1 result holding every analyst's records, or None for members declaring none),
          ``reviewed_boundary``, ``frontmatter_lines`` (key → line) and, in a set with a manifest,
          ``manifest`` (path), ``manifest_members``, ``manifest_lines``, ``pinned_sha256`` (None
          when unpinned) and ``pin_verified`` (see :mod:`ingest.sets`). A generated review adds
          ``projection`` (True: outside the set folder, unpinned) and ``identity_keys`` (the
          frontmatter keys of its run and boundary: ``analysis-run``, ``reviewed-revision``).
        - Section: ``heading``, ``level`` (2–6), ``order`` (block index), ``line``, ``kind``
          (``section``|``kinds``|``declaration``|``annotation``|``subsection``), ``markup``, ``gap``;
          ``record_kind`` (kinds), ``record_id``/``label`` (declaration), ``annotates``/``label``
          (annotation), ``malformed_declaration``/``malformed_annotation`` (ID-like headings),
          ``misplaced_declaration`` (a declaration heading outside Shared records).
        - Statement: ``kind`` (``paragraph``|``table_header``|``table_row``|``quotation``|
          ``annotation_body``|``field``|``empty_marker``|``amendment``|``conflict``|``list_item``|
          ``code``|``html``|``rule``), ``text`` (plain), ``markup`` (exact source block), ``gap``
          (whitespace before it), ``order``, ``line``, ``table`` (table role for rows), ``cells``
          (list of str for rows). Markdown fields add ``label``/``value``/``form``
          (``bullet``|``bold``|``line``); and any statement may carry ``statuses`` ([label, value]
          or, with a trailing qualifier, [label, value, qualifier]: ``wired on target emission`` is
          ``wired`` qualified ``on target emission``, GRAMMAR §4.4), ``part_of``/``part_of_malformed``, ``amends``/``supersedes``, ``source_id``
          (register rows), ``malformed_ids``, ``source_ranges``, ``record_ranges`` (expanded),
          ``unexpanded_ranges`` ([range, reason] pairs), ``unattributed``, ``row_cells`` ([header's,
          row's] cell counts when they differ), ``unclosed_row``. A CITES edge's ``form`` is
          ``citation``, ``mention``, ``quotation``, ``link``, ``range`` (a record inside a record
          range) or ``frontmatter``.
        - Quotation: ``text`` (body), ``path``, ``lines`` (or None), ``revision`` (or None), ``line``.
        - Record: ``record_id``, ``analyst`` (RT|MEM|EPI or None), ``kind``, ``slug``.
        - Source: ``source_id``, ``kind``, ``url`` (identity), ``commit`` (revision), ``cutoff``,
          ``evidence_layers``, ``declared`` (True when a Source register row declares it; any may
          be None).
        - SourceFile: ``path``.
        - NamedReference: ``name`` (as first written), ``slug``.
        - Review: ``node`` (the reviewed node id), ``revision`` (commit reviewed at), ``reviewer``,
          ``at`` (UTC ISO 8601 time), ``note`` (or None), ``fingerprint`` (SHA-256 of the reviewed
          node's content when reviewed; see :func:`graph.writes.review_fingerprint`).
    """

    id: str
    label: Label
    set_id: str | None = None
    document_id: str | None = None
    props: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        """Property ``key`` or ``default``."""
        return self.props.get(key, default)

    def to_dict(self, *, copy: bool = True) -> dict[str, Any]:
        """JSON-compatible form, inverse of :meth:`from_dict`. ``copy=False`` shares ``props``
        with the node instead of deep-copying it (for a caller that only serialises the result)."""
        return {
            "id": self.id,
            "label": str(self.label),
            "set_id": self.set_id,
            "document_id": self.document_id,
            "props": _freeze(dict(self.props)) if copy else self.props,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Node:
        """Node from :meth:`to_dict` output."""
        return cls(
            id=data["id"],
            label=Label(data["label"]),
            set_id=data.get("set_id"),
            document_id=data.get("document_id"),
            props=dict(data.get("props") or {}),
        )


@dataclass(frozen=True, slots=True)
class Edge:
    """A directed edge from dependent ``src`` to dependency ``dst``.

    ``seq`` orders parallel edges of one owner (a statement citing the same record twice keeps two
    edges). ``props`` for CITES: ``form`` (``citation``|``mention``|``quotation``|``link``|
    ``frontmatter``), ``token`` (as written), ``target_kind`` (``record``|``source``|``file``|
    ``named``), ``start``/``end`` (character offsets of the token in the statement text),
    ``span_start``/``span_end`` (the supported text). CONTAINS: ``order``.
    """

    kind: EdgeKind
    src: str
    dst: str
    seq: int = 0
    document_id: str | None = None
    set_id: str | None = None
    props: Mapping[str, Any] = field(default_factory=dict)

    def sort_key(self) -> tuple[Any, ...]:
        """Total order used by every store: (src, kind, dst, seq)."""
        return (self.src, str(self.kind), self.dst, self.seq)

    def to_dict(self, *, copy: bool = True) -> dict[str, Any]:
        """JSON-compatible form, inverse of :meth:`from_dict`; ``copy`` as in :meth:`Node.to_dict`."""
        return {
            "kind": str(self.kind),
            "src": self.src,
            "dst": self.dst,
            "seq": self.seq,
            "document_id": self.document_id,
            "set_id": self.set_id,
            "props": _freeze(dict(self.props)) if copy else self.props,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Edge:
        """Edge from :meth:`to_dict` output."""
        return cls(
            kind=EdgeKind(data["kind"]),
            src=data["src"],
            dst=data["dst"],
            seq=int(data.get("seq", 0)),
            document_id=data.get("document_id"),
            set_id=data.get("set_id"),
            props=dict(data.get("props") or {}),
        )


@dataclass(frozen=True, slots=True)
class DocumentGraph:
    """Everything one document owns: its Document node, the nodes it owns, the edges it owns."""

    document: Node
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    @property
    def id(self) -> str:
        """The document id, ``<set>/<role>``."""
        return self.document.id


@dataclass(frozen=True, slots=True)
class SetBatch:
    """One atomic write of an analysis set.

    The store applies it as one unit (see :meth:`graph.store.GraphStore.write_set`):

    0. every ``expect`` item (document id → SHA-256 it must have now, or None: must not exist) is
       checked; any mismatch raises :class:`~graph.errors.PreconditionFailed` and nothing changes;
    1. every stored document named in ``replace`` or in ``documents`` is deleted with all it owns;
    2. ``shared`` nodes are upserted (non-null properties overwrite, null ones never erase);
    3. the ``documents`` are written;
    4. the set's derived edges are replaced by ``derived``;
    5. shared nodes of the set touched by no document-owned edge are deleted (System and
       AnalysisSet nodes stay while the set has a document).
    """

    set_id: str
    shared: tuple[Node, ...]
    documents: tuple[DocumentGraph, ...]
    derived: tuple[Edge, ...]
    replace: tuple[str, ...] = ()
    expect: Mapping[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class WriteSummary:
    """What a write changed: document ids written and deleted, node and edge counts after it."""

    written: tuple[str, ...]
    deleted: tuple[str, ...]
    nodes: int
    edges: int
