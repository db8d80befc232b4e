"""One analysis set read whole, as the diff of two versions and the comparison of two runs need it:
its documents' trees, its records' declared state, its Limitations rows.

Read through the store contract alone (:func:`queries.documents.document_trees` plus three calls
for the records), so it works on any store and on any version of a set
(:func:`queries.history.store_at`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from collections.abc import Collection

from graph.codec import declaration_label, record_id_of, record_of
from graph.model import EdgeKind, Label
from graph.store import Direction, GraphStore
from queries.documents import DocumentBlock, DocumentTree, document_trees
from queries.names import require_set

__all__ = ["RecordState", "SetView", "read_view", "normalised_label", "status_value", "is_slug_id"]


def normalised_label(label: str | None) -> str | None:
    """A record label as compared across runs: Unicode NFKC, case-folded, runs of whitespace as one
    space, trailing full stop dropped; None stays None.

    >>> normalised_label("  MCP  stdio Operation. ")
    'mcp stdio operation'
    """
    if label is None:
        return None
    text = " ".join(unicodedata.normalize("NFKC", label).casefold().split())
    return text.rstrip(".").rstrip() or None


def status_value(status: tuple[str, ...]) -> str:
    """A status's value as shown: its term and, when kept apart (GRAMMAR §4.4), its qualifier.

    >>> status_value(("implementation conclusion status", "wired")), status_value(("s", "wired", "for x"))
    ('wired', 'wired for x')
    """
    return " ".join(part for part in status[1:] if part)


_NUMBERED = re.compile(r"^(?:(?:RT|MEM|EPI)-)?[A-Z]{3}-\d+$")


def is_slug_id(record_id: str) -> bool:
    """Whether ``record_id`` names its record by a slug (``RT-RTE-mcp-write``), which identifies it
    across runs, rather than by a number (``RT-RTE-2``, ``RTE-2``), which does not.

    >>> is_slug_id("RT-RTE-mcp-write"), is_slug_id("RT-RTE-2"), is_slug_id("RTE-11")
    (True, False, False)
    """
    return not _NUMBERED.match(record_id)


@dataclass(frozen=True, slots=True)
class RecordState:
    """What a set states about one record.

    Attributes
    ----------
    record_id : str
        As written, e.g. ``RT-RTE-2``.
    node : str
        Its node id (``<set>/<record id>``).
    kind : str
        Record kind (``RTE``, ``OBJ``, …).
    label : str or None
        Its declared label; None when no member declares it.
    document, declaration : str or None
        The declaring document and declaration section ids.
    fields : tuple of (str, str)
        ``(label, value)`` of each field statement of its declaration, in order, except fields that
        are a status line themselves (those are ``statuses``).
    statuses : tuple of tuple of str
        Each status stated in its declaration (``(label, value[, qualifier])``), in order.
    files : tuple of str
        Source-file paths cited or quoted in its declaration and in annotations on it, sorted.
    """

    record_id: str
    node: str
    kind: str
    label: str | None
    document: str | None
    declaration: str | None
    fields: tuple[tuple[str, str], ...]
    statuses: tuple[tuple[str, ...], ...]
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SetView:
    """A set read whole: ``set_id``, ``trees`` (its documents, in set order; or the members asked
    for), ``records`` (record ID → :class:`RecordState`, every Record node of the set) and
    ``blocks`` (block id → (document id, block))."""

    set_id: str
    trees: tuple[DocumentTree, ...]
    records: dict[str, RecordState]
    blocks: dict[str, tuple[str, DocumentBlock]]

    def limitations(self) -> list[tuple[str, DocumentBlock]]:
        """Rows of the set's Limitations tables, ``(document id, row)`` in set order."""
        return [(t.id, b) for t in self.trees for b in t.blocks
                if b.block.kind == "table_row" and b.row is not None and b.row.table == "limitations"]

    def file_citations(self) -> dict[str, int]:
        """Path → how many blocks cite or quote that source file."""
        out: dict[str, int] = {}
        for tree in self.trees:
            for block in tree.blocks:
                paths = {c.citation.target for c in block.citations if c.citation.target_kind == "file"}
                if block.quotation is not None and block.quotation.quotation.path:
                    paths.add(block.quotation.quotation.path.rstrip("/"))
                for path in paths:
                    out[path] = out.get(path, 0) + 1
        return out


def _within(tree: DocumentTree, section_id: str) -> list[DocumentBlock]:
    """The section and the blocks nested in it, in order (one pass over the document)."""
    inside = {section_id}
    out = [tree.block(section_id)]
    for block in tree.blocks:
        if block.parent in inside:
            inside.add(block.id)
            out.append(block)
    return out


def _is_status_line(block: DocumentBlock) -> bool:
    """A field that is itself a status (``- operation conclusion status: wired``): shown as a status,
    not again as a field."""
    label = (block.field.label if block.field is not None else "").casefold()
    return any(s.label.casefold() == label for s in block.statuses)


def _files(blocks: list[DocumentBlock]) -> set[str]:
    out = {c.citation.target for b in blocks for c in b.citations if c.citation.target_kind == "file"}
    out |= {b.quotation.quotation.path.rstrip("/") for b in blocks
            if b.quotation is not None and b.quotation.quotation.path}
    return out


def read_view(store: GraphStore, set_id: str, *, documents: Collection[str] | None = None) -> SetView:
    """The :class:`SetView` of ``set_id`` in ``store``: :func:`document_trees`, then the set's
    records with their DECLARED_IN and ANNOTATES edges (three store calls).

    ``documents``, when given, limits the trees read to those members: every record is still
    listed with its label, but fields, statuses and files only come from the members read (a
    diff reads only the members whose SHA-256 changed).

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store.
    """
    if documents is None:
        trees = document_trees(store, set_id=set_id)
    else:
        require_set(store, set_id)
        trees = document_trees(store, set_id=set_id, document_ids=sorted(documents)) if documents else ()
    blocks = {b.id: (t.id, b) for t in trees for b in t.blocks}
    by_document = {t.id: t for t in trees}
    records = store.find_nodes(Label.RECORD, set_id=set_id)
    ids = [r.id for r in records]
    declared = store.edges(ids, kinds=[EdgeKind.DECLARED_IN], direction=Direction.OUT)
    annotated = store.edges(ids, kinds=[EdgeKind.ANNOTATES], direction=Direction.IN)
    states: dict[str, RecordState] = {}
    for record in records:
        record_id = record_id_of(record) or record.id.rpartition("/")[2]
        decl = next((e for e in declared[record.id] if e.dst in blocks), None) or next(iter(declared[record.id]), None)
        inside: list[DocumentBlock] = []
        document = None
        if decl is not None:
            document = decl.dst.partition("#")[0]
            if decl.dst in blocks:
                inside = _within(by_document[document], decl.dst)
        files = _files(inside)
        for edge in annotated[record.id]:
            if edge.src in blocks:
                doc, block = blocks[edge.src]
                files |= _files(_within(by_document[doc], block.id) if block.is_section else [block])
        states[record_id] = RecordState(
            record_id=record_id, node=record.id, kind=record_of(record).kind,
            label=(declaration_label(decl) if decl is not None else None),
            document=document, declaration=decl.dst if decl is not None else None,
            fields=tuple((b.field.label, b.field.value) for b in inside
                         if b.field is not None and not _is_status_line(b)),
            statuses=tuple((s.label, s.value, s.qualifier) if s.qualifier else (s.label, s.value)
                           for b in inside for s in b.statuses),
            files=tuple(sorted(files)),
        )
    return SetView(set_id, trees, dict(sorted(states.items())), blocks)
