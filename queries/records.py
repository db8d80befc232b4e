"""Record listings and citations: which records a set holds, and which statements cite a record."""

from __future__ import annotations

from dataclasses import dataclass

from domain.vocabulary import ANALYSTS, KINDS
from graph.codec import block_kind, block_line, block_text, citation_form, citation_token, declaration_label, node_name, record_of
from graph.errors import InvalidQuery
from graph.model import EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from queries.names import did_you_mean, require_set
from queries.traversal import records_named

__all__ = ["RecordSummary", "records_of", "Citation", "citations_of"]


@dataclass(frozen=True, slots=True)
class RecordSummary:
    """One record: node ``id``, ``record_id``, ``set``, ``analyst`` (or None), ``kind``, ``slug``,
    ``declared_in`` (declaration section id, or None when only cited), ``label`` (from the
    declaration, or None), ``citations`` (number of CITES edges to it)."""

    id: str
    record_id: str
    set: str
    analyst: str | None
    kind: str
    slug: str
    declared_in: str | None
    label: str | None
    citations: int


def records_of(
    store: GraphStore,
    *,
    set_id: str | None = None,
    analyst: str | None = None,
    kind: str | None = None,
    text: str | None = None,
    record_id: str | None = None,
) -> list[RecordSummary]:
    """Records matching every given filter, sorted by node id; three store calls in all.

    ``text`` matches the record ID or its declared label, case-insensitively, as a substring.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store (the hint names the closest sets).
    InvalidQuery
        ``kind`` or ``analyst`` is not one of the grammar's (:data:`domain.vocabulary.KINDS`,
        :data:`~domain.vocabulary.ANALYSTS`; the hint names the closest and lists them), or is a value
        no record in scope has, close to one that some have (a typo: ``OBJ`` for ``CMP`` in a set
        without components); a value close to none that records may have simply matches no record.

    >>> from queries.demo import demo_store
    >>> [(r.id, r.declared_in, r.citations) for r in records_of(demo_store(), kind="RTE")]
    [('demo/RT-RTE-x', None, 1)]
    >>> records_of(demo_store(), analyst="MEM")
    []
    """
    for what, value, vocabulary in (("a record kind", kind, KINDS), ("an analyst prefix", analyst, ANALYSTS)):
        if value is not None and value not in vocabulary:
            guess = did_you_mean(value, vocabulary)
            listed = f"{what} is one of {', '.join(vocabulary)}"
            raise InvalidQuery(f"{value!r} is not {what}", hint=f"{guess} {listed}" if guess else listed)
    require_set(store, set_id)
    where = {k: v for k, v in (("analyst", analyst), ("kind", kind), ("record_id", record_id)) if v is not None}
    nodes = store.find_nodes(Label.RECORD, set_id=set_id, where=where or None)
    if not nodes and (kind is not None or analyst is not None):
        _check_values(store, set_id, kind=kind, analyst=analyst)
    ids = [n.id for n in nodes]
    declared = store.edges(ids, kinds=[EdgeKind.DECLARED_IN], direction=Direction.OUT)
    cited = store.edges(ids, kinds=[EdgeKind.CITES], direction=Direction.IN)
    out = []
    for n in nodes:
        decl = declared[n.id][0] if declared[n.id] else None
        record = record_of(n)
        summary = RecordSummary(
            id=n.id, record_id=record.record_id, set=n.set_id or "", analyst=record.analyst, kind=record.kind,
            slug=record.slug, declared_in=decl.dst if decl else None, label=declaration_label(decl) if decl else None,
            citations=len(cited[n.id]),
        )
        if text and text.lower() not in f"{summary.record_id} {summary.label or ''}".lower():
            continue
        out.append(summary)
    return out


def _check_values(store: GraphStore, set_id: str | None, **asked: str | None) -> None:
    """Raise :class:`InvalidQuery` when an asked ``kind`` or ``analyst`` is held by no record in scope
    but is close to a value that is (see :func:`records_of`)."""
    records = [record_of(r) for r in store.find_nodes(Label.RECORD, set_id=set_id)]
    for prop, value in asked.items():  # a Record field: kind, analyst
        there = sorted({str(getattr(r, prop)) for r in records if getattr(r, prop) is not None})
        if value is not None and value not in there:
            guess = did_you_mean(value, there)
            if guess is None:
                continue
            scope = f" of set {set_id}" if set_id else ""
            listed = ", ".join(there) or "none"
            hint = f"the {prop}s there are: {listed}"
            raise InvalidQuery(f"no record{scope} has {prop} {value!r}", hint=f"{guess} {hint}")


@dataclass(frozen=True, slots=True)
class Citation:
    """A statement citing a record: ``record`` node id, ``statement`` id, ``document``, ``kind``
    (statement kind), ``form`` (citation, mention, link, …), ``token`` as written, ``text`` of the
    statement, ``line``."""

    record: str
    statement: str
    document: str
    kind: str
    form: str
    token: str
    text: str
    line: int


def citations_of(store: GraphStore, record_id: str, *, set_id: str | None = None) -> list[Citation]:
    """Every citation of ``record_id`` (in every set, or ``set_id``), sorted by (document, line,
    statement); frontmatter citations name the document itself. Three store calls.

    Raises
    ------
    RecordNotFound, AnalysisSetNotFound
        As :func:`queries.traversal.records_named`.
    """
    records = records_named(store, record_id, set_id)
    incoming = store.edges([r.id for r in records], kinds=[EdgeKind.CITES], direction=Direction.IN)
    citing: dict[str, Node] = store.get_nodes({e.src for es in incoming.values() for e in es})
    out = []
    for rid, edges in incoming.items():
        for e in edges:
            node = citing.get(e.src)
            if node is None:
                continue
            out.append(Citation(
                record=rid, statement=node.id, document=node.document_id or node.id,
                kind=block_kind(node) or str(node.label), form=citation_form(e), token=citation_token(e),
                text=block_text(node) or node_name(node) or "", line=block_line(node),
            ))
    out.sort(key=lambda c: (c.document, c.line, c.statement, c.token))
    return out
