"""Loading: parsed members → graph nodes and edges → one atomic store write per analysis set."""

from __future__ import annotations

import threading
from typing import TypeVar
from contextlib import nullcontext
from itertools import chain
from queue import Queue
from dataclasses import dataclass, field, replace
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence

from domain.grammar import alias_pairs, parse_record_id
from domain.checks import Flaws
from domain.ids import AnalysisSetId, DocumentId, NodeId, RecordId, SourceId
from domain.model import AnalysisSet, Citation, Member, NamedReference, Record, Section, SourceFile, Statement
from graph.codec import (
    analysis_set_props,
    citation_props,
    citation_target_kind,
    contains_props,
    cited_source_props,
    declared_in_props,
    member_of,
    member_props,
    named_reference_name,
    named_reference_props,
    quotation_props,
    record_props,
    section_of,
    section_props,
    source_file_of,
    source_file_props,
    source_props,
    stated_in_props,
    statement_props,
    alias_props,
    system_props,
)
from graph.errors import CitegraphError, IngestError, PreconditionFailed, SourceSpan
from graph.model import (
    DocumentGraph,
    Edge,
    EdgeKind,
    Label,
    Node,
    SetBatch,
    named_reference_node_id,
    record_node_id,
    slugify,
    source_file_node_id,
    source_node_id,
)
from graph.store import GraphStore, SupportsBulkWrite
from ingest.accounting import IGNORED_KINDS, accounted_by, unaccounted_ids
from ingest.parsers.parsed import ParsedBlock, ParsedDocument
from ingest.resolve import SectionRef, resolve_named_reference

__all__ = [
    "set_id_of",
    "document_id_of",
    "block_props",
    "build_document",
    "build_set_batch",
    "DocumentOutcome",
    "IngestReport",
    "ingest_parsed",
    "ingest_stream",
    "ordered_report",
    "produced_ahead",
]


def set_id_of(doc: ParsedDocument) -> str:
    """The set a member belongs to: the one a set assembly put it in (``doc.set_id``), else its
    run-id when it has one, else its system's slug."""
    return doc.set_id or doc.run_id or slugify(doc.system)


def document_id_of(doc: ParsedDocument) -> str:
    """``<set>/<role>``, e.g. ``tolaria/synthesis``."""
    return f"{set_id_of(doc)}/{doc.role}"


@dataclass
class _Builder:
    """Accumulates one document's owned nodes/edges and the shared nodes it touches."""

    set_id: str
    doc_id: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    shared: dict[str, Node] = field(default_factory=dict)

    def own(self, node_id: str, label: Label, props: dict) -> str:
        self.nodes.append(Node(node_id, label, self.set_id, self.doc_id, props))
        return node_id

    def share(self, node: Node) -> str:
        old = self.shared.get(node.id)
        if old is not None:
            merged = {**old.props, **{k: v for k, v in node.props.items() if v is not None}}
            node = Node(node.id, node.label, node.set_id, None, merged)
        self.shared[node.id] = node
        return node.id

    def edge(self, kind: EdgeKind, src: str, dst: str, seq: int = 0, props: dict | None = None) -> None:
        self.edges.append(Edge(kind, src, dst, seq, self.doc_id, self.set_id, {} if props is None else props))

    def record(self, record_id: str) -> str:
        node_id = record_node_id(self.set_id, record_id)
        if node_id in self.shared:  # a record's properties follow from its ID: merging again changes nothing
            return node_id
        parsed = parse_record_id(record_id)
        return self.share(Node(node_id, Label.RECORD, self.set_id, None,
                               record_props(Record(RecordId(record_id), parsed.analyst, parsed.kind, parsed.slug))))

    def target(self, c: Citation) -> str:
        if c.target_kind == "record":
            return self.record(c.target)
        if c.target_kind == "source":
            return self.share(Node(source_node_id(self.set_id, c.target), Label.SOURCE, self.set_id, None,
                                   cited_source_props(SourceId(c.target))))
        if c.target_kind == "file":
            return self.share(Node(source_file_node_id(self.set_id, c.target), Label.SOURCE_FILE, self.set_id, None,
                                   source_file_props(SourceFile(c.target, c.source_id))))
        return self.share(Node(named_reference_node_id(self.set_id, c.target), Label.NAMED_REFERENCE, self.set_id,
                               None, named_reference_props(NamedReference(c.target, slugify(c.target)))))


def _cite(b: _Builder, src: str, citations: Iterable[Citation]) -> None:
    for seq, c in enumerate(citations):
        b.edge(EdgeKind.CITES, src, b.target(c), seq, citation_props(c))


def block_props(block: ParsedBlock, node_id: str = "", order: int = 0, unaccounted: Iterable[str] = ()) -> dict:
    """The properties of the Section (a heading) or Statement node ``block`` is, as node
    ``node_id`` at block index ``order`` of its document, with the record-ID tokens of its prose
    nothing accounts for (``unaccounted``, :mod:`ingest.accounting`) among its flaws."""
    flaws = block.flaws
    if unaccounted:
        flaws = replace(flaws or Flaws(), unaccounted_ids=tuple(unaccounted))
    if block.kind == "heading":
        return section_props(Section(NodeId(node_id), block.text, block.level, block.section_kind, order, block.line,
                                     block.markup, block.gap, block.h1, block.record_kind),
                             block.declaration, block.annotation, flaws)
    return statement_props(Statement(NodeId(node_id), block.kind, block.text, order, block.line, block.markup,
                                     block.gap, (), block.statuses, block.run_on, block.kind_statuses,
                                     block.continuation, block.closes_record),
                           block.field, block.row, block.amendment, flaws)


def build_document(doc: ParsedDocument) -> tuple[DocumentGraph, list[Node]]:
    """The graph of one parsed member and the shared nodes it touches.

    Sections nest by heading level; every statement hangs under the innermost open section (or
    the document before the first heading). Statements inside an annotation section ANNOTATE its
    record, as does the section itself; a declaration section is where its Record is DECLARED_IN.
    A block holding record IDs nothing accounts for (:mod:`ingest.accounting`) stores them as
    ``unaccounted_ids``, and its document their number as ``unaccounted_record_ids``.

    Returns
    -------
    (DocumentGraph, list[Node])
        The document-owned part, and the shared nodes (System, AnalysisSet, Record, Source,
        SourceFile, NamedReference) with the properties this member states about them.
    """
    set_id, doc_id = set_id_of(doc), document_id_of(doc)
    b = _Builder(set_id, doc_id)
    unaccounted = {n: ids for n, block in enumerate(doc.blocks, start=1)
                   if (ids := unaccounted_ids(block.kind, block.text, block.citations, *accounted_by(block)))}
    system_id = f"system/{slugify(doc.system)}"
    b.share(Node(system_id, Label.SYSTEM, None, None, system_props(doc.system, slugify(doc.system))))
    b.share(Node(set_id, Label.ANALYSIS_SET, set_id, None,
                 analysis_set_props(AnalysisSet(AnalysisSetId(set_id), system_id, doc.run_id, doc.reviewed_boundary))))
    document = Node(doc_id, Label.DOCUMENT, set_id, doc_id, member_props(
        Member(DocumentId(doc_id), doc.role, doc.title, doc.member_type, doc.format, doc.path, doc.sha256, doc.size),
        doc.identity, doc.pinning, preamble=doc.preamble, trailer=doc.trailer, frontmatter=doc.frontmatter,
        run_id=doc.run_id, unaccounted=sum(map(len, unaccounted.values()))))
    b.edge(EdgeKind.CONTAINS, set_id, doc_id, 0, contains_props(0))
    for pin in doc.pins:
        b.share(Node(source_node_id(set_id, pin.source_id), Label.SOURCE, set_id, None, source_props(pin)))
    _cite(b, doc_id, doc.frontmatter_citations)
    stack: list[tuple[int, str, ParsedBlock | None]] = [(1, doc_id, None)]
    aliased: set[tuple[str, str]] = set()
    for order, block in enumerate(doc.blocks, start=1):
        # an inline declaration shares its line with the statement after it (G1): #D<line>
        declaration = block.declaration
        node_id = f"{doc_id}#{'D' if declaration is not None and declaration.form in ('inline', 'row') else 'L'}{block.line}"
        props = block_props(block, node_id, order, unaccounted.get(order, ()))
        if block.kind == "heading":
            while stack[-1][0] >= block.level:
                stack.pop()
            b.own(node_id, Label.SECTION, props)
            b.edge(EdgeKind.CONTAINS, stack[-1][1], node_id, 0, contains_props(order))
            if block.section_kind == "annotation" and block.annotation is not None:
                b.edge(EdgeKind.ANNOTATES, node_id, b.record(block.annotation.annotates))
            if block.section_kind == "declaration" and declaration is not None:
                b.edge(EdgeKind.DECLARED_IN, b.record(declaration.record_id), node_id, 0,
                       declared_in_props(declaration.label))
            _cite(b, node_id, block.citations)
            stack.append((block.level, node_id, block))
            continue
        if block.closes_record:  # a paragraph ending an inline declaration (G1)
            while stack[-1][2] is not None and stack[-1][2].section_kind == "declaration":
                stack.pop()
        b.own(node_id, Label.STATEMENT, props)
        b.edge(EdgeKind.CONTAINS, stack[-1][1], node_id, 0, contains_props(order))
        opened = stack[-1][2].declaration if stack[-1][2] is not None else None
        row_declaration = opened is not None and opened.form == "row"
        _cite(b, node_id, block.citations)
        annotation = next((s.annotation for _, _, s in reversed(stack)
                           if s is not None and s.section_kind == "annotation" and s.annotation is not None), None)
        if annotation is not None:
            b.edge(EdgeKind.ANNOTATES, node_id, b.record(annotation.annotates))
        if block.quotation is not None:
            q = block.quotation
            quotation_id = b.own(f"{doc_id}#Q{block.line}", Label.QUOTATION, quotation_props(q, line=block.line))
            b.edge(EdgeKind.QUOTES, node_id, quotation_id)
            file_id = b.share(Node(source_file_node_id(set_id, q.path), Label.SOURCE_FILE, set_id, None,
                                   source_file_props(SourceFile(q.path))))
            b.edge(EdgeKind.ATTRIBUTED_TO, quotation_id, file_id)
        for seq, (old, new) in enumerate(block.amendment.supersedes if block.amendment is not None else ()):
            b.edge(EdgeKind.SUPERSEDED_BY, b.record(old), b.record(new), seq, stated_in_props(node_id))
        if block.field is not None and block.field.part_of:
            declared = next((s.declaration for _, _, s in reversed(stack)
                             if s is not None and s.section_kind == "declaration" and s.declaration is not None), None)
            if declared is not None:
                b.edge(EdgeKind.PART_OF, b.record(declared.record_id), b.record(block.field.part_of), 0,
                       stated_in_props(node_id))
        mapped = [*(block.row.aliases if block.row is not None else ()), *(alias_pairs(block.text) if block.kind not in IGNORED_KINDS else ())]
        for alias, canonical in mapped:
            if (alias, canonical) not in aliased:  # a mapping restated later in the member adds nothing
                aliased.add((alias, canonical))
                b.edge(EdgeKind.SUPERSEDED_BY, b.record(alias), b.record(canonical), 0, alias_props(node_id))
        if row_declaration:  # a declaring table row is the whole body of its record
            stack.pop()
    return DocumentGraph(document, tuple(b.nodes), tuple(b.edges)), list(b.shared.values())


def build_set_batch(store: GraphStore, set_id: str, docs: list[ParsedDocument]) -> SetBatch:
    """One atomic write for ``set_id``: the given members replace their stored versions, and the
    set's derived edges (System CONTAINS set, SourceFile IN_SOURCE Source, NamedReference
    RESOLVES_TO Section/Document) are recomputed over stored + new members."""
    graphs: list[DocumentGraph] = []
    shared: dict[str, Node] = {}
    for doc in docs:
        graph, nodes = build_document(doc)
        graphs.append(graph)
        for node in nodes:
            if node.id in shared:
                old = shared[node.id]
                node = Node(node.id, node.label, node.set_id, None,
                            {**old.props, **{k: v for k, v in node.props.items() if v is not None}})
            shared[node.id] = node
    replaced = {g.id for g in graphs}
    stored_docs = [d for d in store.find_nodes(Label.DOCUMENT, set_id=set_id) if d.id not in replaced]
    roles = {d.id: member_of(d).role for d in stored_docs} | {g.id: member_of(g.document).role for g in graphs}
    documents = {role: doc_id for doc_id, role in roles.items()}

    def section_ref(section: Node) -> SectionRef:
        assert section.document_id is not None  # a Section is always a member's
        return SectionRef(section.id, roles[section.document_id], section_of(section).heading)

    sections = [section_ref(s) for s in store.find_nodes(Label.SECTION, set_id=set_id) if s.document_id not in replaced
                ] + [section_ref(n) for g in graphs for n in g.nodes if n.label == Label.SECTION]
    sections.sort(key=lambda s: (s.id.split("#")[0], int(s.id.rsplit("#", 1)[1][1:])))
    refs = {n.id: n for n in store.find_nodes(Label.NAMED_REFERENCE, set_id=set_id)}
    refs.update({n.id: n for n in shared.values() if n.label == Label.NAMED_REFERENCE})
    derived: list[Edge] = []
    system = next(n for n in shared.values() if n.label == Label.SYSTEM)
    derived.append(Edge(EdgeKind.CONTAINS, system.id, set_id, 0, None, set_id, contains_props(0)))
    for ref in refs.values():
        target = resolve_named_reference(named_reference_name(ref), documents, sections)
        if target is not None:
            derived.append(Edge(EdgeKind.RESOLVES_TO, ref.id, target, 0, None, set_id, {}))
    sources = {n.id: n for n in store.find_nodes(Label.SOURCE, set_id=set_id)}
    sources.update({n.id: n for n in shared.values() if n.label == Label.SOURCE})
    files = {n.id: n for n in store.find_nodes(Label.SOURCE_FILE, set_id=set_id)}
    files.update({n.id: n for n in shared.values() if n.label == Label.SOURCE_FILE})
    for f in files.values():
        src = source_file_of(f).source_id
        target = source_node_id(set_id, src) if src else (next(iter(sources)) if len(sources) == 1 else None)
        if target in sources:
            derived.append(Edge(EdgeKind.IN_SOURCE, f.id, target, 0, None, set_id, {}))
    return SetBatch(set_id, tuple(shared.values()), tuple(graphs), tuple(derived))


@dataclass(frozen=True, slots=True)
class DocumentOutcome:
    """What ingest did with one file of its input (every file is named): ``status`` is
    ``written``, ``unchanged``, ``skipped``, ``missing`` (a member its set's manifest pins but that
    is absent, where the manifest expects it, ingested ``partial``; ``error`` says which pin) or
    ``manifest`` (a set's ``ARTIFACT.yaml``, consumed by the set its ``note`` names). A file
    skipped because it is no analysis document has a ``reason`` (code of
    :data:`domain.grammar.SKIP_REASONS`: ``type-definition``, ``instruction``, ``not-a-document``)
    and a ``note`` saying why; one refused as invalid has its ``error``. Counts are of the
    document's own graph: ``records`` is how many records it cites or annotates (not those it
    declares)."""

    path: str
    document: str | None
    status: str
    statements: int = 0
    sections: int = 0
    records: int = 0
    citations: int = 0
    error: str | None = None
    reason: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class IngestReport:
    """The sets written and the outcomes per input file, in input order (the JSON of ``ingest
    --json``, ``POST /sets`` and the GraphQL ``ingest`` mutation, in this field order)."""

    sets: tuple[str, ...]
    documents: tuple[DocumentOutcome, ...]


def _outcome(doc: ParsedDocument, graph: DocumentGraph | None, status: str) -> DocumentOutcome:
    if graph is None:
        return DocumentOutcome(doc.path, document_id_of(doc), status)
    prefix = f"{set_id_of(doc)}/"
    cites = [e for e in graph.edges if e.kind == EdgeKind.CITES]
    records = {e.dst for e in (*cites, *(e for e in graph.edges if e.kind == EdgeKind.ANNOTATES))
               if e.dst.startswith(prefix) and citation_target_kind(e) == "record"}
    labels = [n.label for n in graph.nodes]
    return DocumentOutcome(
        doc.path, graph.id, status,
        statements=labels.count(Label.STATEMENT),
        sections=labels.count(Label.SECTION),
        records=len(records),
        citations=len(cites),
    )


def ingest_parsed(
    store: GraphStore,
    parsed: list[ParsedDocument],
    *,
    errors: Sequence[tuple[str, CitegraphError]] = (),
    check: Callable[[str, list[ParsedDocument]], None] | None = None,
    expect: Mapping[str, str | None] | None = None,
    gaps: Sequence[tuple[str, CitegraphError]] = (),
    manifests: Sequence[tuple[str, str | None, int]] = (),
    skipped: Sequence[tuple[str, str, str]] = (),
) -> IngestReport:
    """Write parsed members to ``store``, one atomic write per analysis set.

    Members whose SHA-256 equals the stored document's are left untouched (``unchanged``); a set
    with no changed member is not written at all. ``errors`` are files already refused (listed as
    ``skipped``), ``gaps`` absent pinned members of partial sets (listed as ``missing``),
    ``manifests`` and ``skipped`` the other files of the input (:func:`ordered_report`). ``check``,
    when given, is called per set before writing and may raise to refuse it.
    ``expect`` maps document ids to the SHA-256 they must have when written (None: must not exist
    yet); the store checks it atomically with the write (compare-and-swap). A store offering
    :class:`~graph.store.SupportsBulkWrite` (the embedded one) takes the whole run as one
    transaction: one save, and a failure in any set keeps nothing of the run.

    This is :func:`ingest_stream` with all of ``parsed`` as one group; the outcomes come in the
    order of ``parsed``, then ``errors``.

    Raises
    ------
    IngestError
        Two inputs claim the same document id (``<set>/<role>``); nothing is written.
    PreconditionFailed
        An ``expect`` item does not match the stored document; that set is not written.
    """
    loaded = ingest_stream(store, [parsed], check=check, expect=expect)
    return ordered_report(loaded, [d.path for d in parsed], errors, gaps=gaps, manifests=manifests, skipped=skipped)


def ingest_stream(
    store: GraphStore,
    groups: Iterable[Iterable[ParsedDocument]],
    *,
    check: Callable[[str, list[ParsedDocument]], None] | None = None,
    expect: Mapping[str, str | None] | None = None,
) -> IngestReport:
    """Write groups of parsed members to ``store`` as they come, one atomic write per analysis set.

    ``groups`` is consumed lazily, one group at a time (a generator that parses each set just
    before handing it over keeps one set in memory, not the run): each group is checked for
    document ids already seen in the run, then written set by set exactly as
    :func:`ingest_parsed` writes a set (unchanged members skipped, ``check`` and ``expect``
    applied). Whether a member is unchanged is read from the stored documents of its own set only
    (:meth:`~graph.store.GraphStore.get_nodes` by document id), so a set costs the same whatever
    the store holds. Give each set whole in one group.

    A store offering :class:`~graph.store.SupportsBulkWrite` takes the whole run as one
    transaction, opened once the first group is produced and spanning the producing of every
    later one: if a write fails, or ``groups`` raises while producing a later group (a parse
    error, a refused set), nothing of the run is kept; if it raises before the first group, the
    store is not touched at all. Without it each set is its own transaction and the sets written
    before a failure stay written, and the next groups are produced (parsed) on a thread of their
    own while this one is written, at most :data:`GROUPS_AHEAD` ahead (a store over the network,
    Neo4j, spends most of a write waiting for its server).

    Returns
    -------
    IngestReport
        The outcome of every member (``written`` or ``unchanged``) in the order received, and
        the sets written in the order written.

    Raises
    ------
    IngestError
        A document id of a group was already given (in this group or an earlier one); nothing of
        that group is written.
    PreconditionFailed
        An ``expect`` item does not match the stored document; that set is not written.
    """
    expect = dict(expect or {})
    seen: dict[str, str] = {}
    outcomes: list[DocumentOutcome] = []
    written_sets: list[str] = []
    bulk = isinstance(store, SupportsBulkWrite)
    groups = iter(groups) if bulk else produced_ahead(groups, GROUPS_AHEAD)
    first = next(groups, None)  # produced before the transaction opens: a refusal there touches nothing
    if first is None:
        return IngestReport(sets=(), documents=())
    grouped = store.bulk() if isinstance(store, SupportsBulkWrite) else nullcontext()
    with grouped:  # one transaction for the run where the store offers it
        for group in chain([first], groups):
            by_set: dict[str, list[ParsedDocument]] = {}
            for doc in group:
                doc_id = document_id_of(doc)
                if doc_id in seen:
                    raise IngestError(f"{doc.path} and {seen[doc_id]} are both document {doc_id}",
                                      source=SourceSpan(doc.path, 1), hint="ingest one version of each member")
                seen[doc_id] = doc.path
                by_set.setdefault(set_id_of(doc), []).append(doc)
            for set_id, docs in by_set.items():
                if _write_set(store, set_id, docs, outcomes, check=check, expect=expect):
                    written_sets.append(set_id)
    return IngestReport(sets=tuple(written_sets), documents=tuple(outcomes))


GROUPS_AHEAD = 2
"""How many groups :func:`ingest_stream` lets the producing thread get ahead of the writes, when
each set is its own transaction (memory holds at most this many more groups)."""

T = TypeVar("T")


def produced_ahead(items: Iterable[T], ahead: int) -> Generator[T, None, None]:
    """``items`` in order, produced on a thread of their own up to ``ahead`` items ahead of the
    consumer; what producing raises is raised to the consumer in its place. Leaving early (an error
    writing, ``close()``) stops the producer after the item it is producing, and the producer's
    iterator is closed on its own thread."""
    handed: Queue[tuple[list[T], BaseException | None]] = Queue(maxsize=ahead)  # [] once the items end
    stop = threading.Event()

    def produce() -> None:
        source = iter(items)
        try:
            for item in source:
                handed.put(([item], None))
                if stop.is_set():
                    break
            handed.put(([], None))
        except BaseException as error:  # noqa: BLE001 - handed to the consumer, raised there
            handed.put(([], error))
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    producer = threading.Thread(target=produce, name="citegraph-ingest-producer", daemon=True)
    producer.start()
    try:
        while True:
            item, error = handed.get()
            if error is not None:
                raise error
            if not item:
                return
            yield item[0]
    finally:
        stop.set()
        while producer.is_alive():  # unblock a producer waiting for room
            while not handed.empty():
                handed.get_nowait()
            producer.join(timeout=0.05)


def _write_set(store: GraphStore, set_id: str, docs: list[ParsedDocument], outcomes: list[DocumentOutcome], *,
               check: Callable[[str, list[ParsedDocument]], None] | None,
               expect: Mapping[str, str | None]) -> bool:
    """Write the changed members of one set (see :func:`ingest_stream`), appending the outcome of
    each of ``docs`` in order; whether the set was written."""
    ids = [document_id_of(d) for d in docs]
    stored = {n.id: n for n in store.get_nodes(ids).values() if n.label == Label.DOCUMENT}
    changed = [d for d, doc_id in zip(docs, ids) if stored.get(doc_id) is None
               or stored[doc_id].get("sha256") != d.sha256]
    wanted = {k: v for k, v in expect.items() if k.rpartition("/")[0] == set_id}  # <set>/<role>: no '/' in a role
    found: dict[str, DocumentOutcome] = {}
    for d, doc_id in zip(docs, ids):
        if d not in changed:
            if doc_id in wanted and stored[doc_id].get("sha256") != wanted[doc_id]:
                raise PreconditionFailed(f"document {doc_id} is at {stored[doc_id].get('sha256')}, "
                                         f"not the expected {wanted[doc_id] or 'nothing'}")
            found[d.path] = _outcome(d, None, "unchanged")
    if changed:
        if check is not None:
            check(set_id, changed)
        batch = replace(build_set_batch(store, set_id, changed), expect=wanted)
        store.write_set(batch)
        for d, g in zip(changed, batch.documents):
            found[d.path] = _outcome(d, g, "written")
    outcomes.extend(found[d.path] for d in docs)
    return bool(changed)


def ordered_report(loaded: IngestReport, order: Iterable[str], errors: Iterable[tuple[str, CitegraphError]] = (),
                   sets: Iterable[str] | None = None,
                   gaps: Iterable[tuple[str, CitegraphError]] = (),
                   manifests: Iterable[tuple[str, str | None, int]] = (),
                   skipped: Iterable[tuple[str, str, str]] = ()) -> IngestReport:
    """The report of a run: the outcome of each path of ``order`` (the members given, as
    :func:`ingest_stream` reported them), then each of ``errors`` as ``skipped`` and each of
    ``gaps`` as ``missing``, then each of ``manifests`` ``(path, set, pins)`` as ``manifest``
    and each of ``skipped`` ``(path, reason, note)`` as ``skipped`` with its reason, one row
    each, in that order; the sets written are ``sets`` when given, else those of ``loaded``."""
    outcomes = {d.path: d for d in loaded.documents}
    errors = list(errors)
    refused = {p for p, _ in errors}
    rows = [outcomes[p] for p in order if p in outcomes and p not in refused]
    rows += [DocumentOutcome(path, None, "skipped", error=str(err)) for path, err in errors]
    rows += [DocumentOutcome(path, None, "missing", error=str(err)) for path, err in gaps]
    rows += [DocumentOutcome(path, None, "manifest",
                             note=f"the manifest of set {set_id}, pinning {pins} members" if set_id
                             else f"a manifest pinning {pins} members, none of them among the inputs")
             for path, set_id, pins in manifests if path not in refused]
    rows += [DocumentOutcome(path, None, "skipped", reason=reason, note=note)
             for path, reason, note in skipped if path not in refused]
    return IngestReport(sets=tuple(loaded.sets if sets is None else sets), documents=tuple(rows))
