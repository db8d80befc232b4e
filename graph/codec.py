"""Domain objects ↔ stored nodes and edges: the one module that spells their property keys.

Each concept of :mod:`domain.model` is written by a ``*_props`` function (the property map a
:class:`~graph.model.Node` or :class:`~graph.model.Edge` stores) and read back by a ``*_of``
function, so a key and its default exist once. Readers for a single key (:func:`citation_form`,
:func:`citation_target_kind`, …) serve filters that must not build an object per edge. What only
``citegraph check`` reads (:mod:`domain.checks`: a member's identity and manifest pin, a block's
flaws) is written and read here too (:func:`member_props`, :func:`flaws_props`;
:func:`member_identity_of`, :func:`pinning_of`, :func:`flaws_of`): the parsers and the set
assembly state them as :mod:`domain.checks` objects (``ingest.parsers``, ``ingest.sets``).

==============  ==================  ===============================================================
concept         stored as           keys
==============  ==================  ===============================================================
(structure)     CONTAINS edge       ``order`` (the child's block index; 0 for a set's documents)
Amendment       SUPERSEDED_BY edge  ``statement`` (the amending statement's node id); PART_OF too
Declaration     DECLARED_IN edge    ``label`` (the declaration heading's label, or None)
Citation        CITES edge          ``form``, ``token``, ``target_kind``, ``start``, ``end``,
                                    ``span_start``, ``span_end``; ``member``, ``line``, ``anchor``
                                    only when set. The target is the edge's ``dst`` node.
Section         Section node        ``heading``, ``level``, ``order``, ``line``, ``kind``, ``markup``,
                                    ``gap``; ``h1`` (True), ``record_kind`` (a kinds heading) when set
Declaration     Section node        ``record_id``, ``label`` (even None), ``heading_form`` (its form,
                                    when stated), ``inherited_statuses`` (when any)
Annotation      Section node        ``annotates``, ``label`` (even None; not when no label is read)
Statement       Statement node      ``kind``, ``text``, ``markup``, ``gap``, ``order``, ``line``;
                                    ``continuation``, ``closes_record`` (True), ``kind_statuses``,
                                    ``statuses``, ``fields`` (run-on [label, value] pairs) when set
Status          Statement, Section  an entry [label, value] or [label, value, qualifier]
Field           Statement node      ``label``, ``value``, ``form``, ``part_of``, ``route_ids``
TableRow        Statement node      ``cells``, ``table``, ``source_id``, ``aliases`` ([alias,
                                    canonical] pairs), ``declares``
Amendment       Statement node      ``amends``, ``supersedes`` ((old, new) pairs, when any)
Flaws           Section, Statement  ``malformed_ids``, ``source_ranges``, ``record_ranges``,
                                    ``unexpanded_ranges``, ``unattributed``, ``part_of_malformed``;
                                    ``malformed_declaration``, ``malformed_annotation``,
                                    ``misplaced_declaration`` (headings);
                                    ``unaccounted_ids`` (the accounting invariant); ``row_cells``
                                    ([header's, row's]), ``unclosed_row`` (table rows); each only when found
(accounting)    Document node       ``unaccounted_record_ids``: how many of its blocks' IDs are unaccounted
Quotation       Quotation node      ``text``, ``path``, ``lines``, ``revision``, ``line``
Record          Record node         ``record_id``, ``analyst``, ``kind``, ``slug``
Source          Source node         ``source_id``, ``kind``, ``url``, ``commit``, ``cutoff``,
                                    ``evidence_layers``, ``declared`` (True or None)
SourceFile      SourceFile node     ``path``, ``source_id``
NamedReference  NamedReference      ``name``, ``slug``
System          System node         ``name``, ``slug``
AnalysisSet     AnalysisSet node    ``system`` (the System node id), ``run_id``, ``reviewed_boundary``
Member          Document node       its MemberIdentity and Pinning keys (below), then
                                    ``role``, ``title``, ``member_type``, ``format``, ``path``,
                                    ``sha256``, ``size``, ``preamble``, ``trailer``, ``frontmatter``,
                                    ``run_id``
MemberIdentity  Document node       ``file_name``, ``record_prefix`` (stated or not), ``run_id``,
                                    ``reviewed_boundary``, ``frontmatter_lines`` (key → line),
                                    ``identity_keys`` (run-id and boundary key → frontmatter key),
                                    ``projection``, ``analysis_result``, ``analysis_result_sha256``
                                    (a generated review's; Markdown members only)
Pinning         Document node       ``manifest``, ``manifest_members``, ``manifest_lines`` (name →
                                    line), ``pinned_sha256``, ``pin_verified`` (:mod:`ingest.sets`)
Review          Review node         ``node``, ``revision``, ``reviewer``, ``at``, ``note``,
                                    ``fingerprint``
==============  ==================  ===============================================================

Defaults when a key is missing (a hand-built or older edge): ``form`` reads as ``citation``,
``target_kind`` as ``record``, ``token`` as ``""`` and every offset as 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from domain.ids import AnalysisSetId, DocumentId, NodeId, RecordId, SourceId
from domain.model import (AnalysisSet, Amendment, Annotation, Citation, Declaration, Field, Member, NamedReference,
                          Quotation, Record, Review, Section, Source, SourceFile, Statement, Status, TableRow)
from graph.model import Edge, Label, Node

if TYPE_CHECKING:  # imported where decoded: only a checking process builds these classes
    from domain.checks import Flaws, MemberIdentity, Pinning

__all__ = [
    "unaccounted_count",
    "alias_props",
    "is_alias",
    "citation_props",
    "citation_of",
    "citation_form",
    "citation_token",
    "citation_target_kind",
    "citation_span",
    "citation_target",
    "citation_member",
    "citation_anchor",
    "citation_line",
    "declared_in_props",
    "contains_props",
    "stated_in_props",
    "declaration_label",
    "section_props",
    "section_of",
    "declaration_of",
    "annotation_of",
    "block_line",
    "block_position",
    "block_order",
    "block_kind",
    "block_text",
    "statement_props",
    "statement_of",
    "field_of",
    "amendment_of",
    "flaws_props",
    "field_part_of",
    "statuses_of",
    "amended_record",
    "flaws_of",
    "table_row_of",
    "quotation_props",
    "quotation_of",
    "record_props",
    "record_of",
    "record_id_of",
    "source_props",
    "source_of",
    "cited_source_props",
    "source_file_props",
    "source_file_path",
    "source_file_of",
    "named_reference_name",
    "named_reference_of",
    "stated_by",
    "named_reference_props",
    "system_props",
    "system_name",
    "system_slug",
    "analysis_set_props",
    "analysis_set_of",
    "member_props",
    "member_of",
    "member_path",
    "member_text",
    "member_frontmatter",
    "member_file_name",
    "member_identity_of",
    "pinning_of",
    "node_name",
    "review_props",
    "review_of",
]

_TARGET_KEY = {"record": "record_id", "source": "source_id", "file": "path", "named": "name"}
"""The property of a cited node that holds its normalised target, by target kind."""


# -- Citation: a CITES edge ------------------------------------------------------------------------

def citation_props(c: Citation) -> dict[str, Any]:
    """The CITES edge properties of ``c`` (module table); ``member``, ``line`` and ``anchor``
    appear only when set, ``target`` and ``source_id`` live on the cited node."""
    props: dict[str, Any] = {
        "form": c.form, "token": c.token, "target_kind": c.target_kind, "start": c.start, "end": c.end,
        "span_start": c.span_start, "span_end": c.span_end,
    }
    if c.member:
        props["member"] = c.member
    if c.line:
        props["line"] = c.line
    if c.anchor:
        props["anchor"] = c.anchor
    return props


def citation_form(edge: Edge) -> str:
    """How the citation on ``edge`` is written (:data:`domain.model.CITATION_FORMS`); ``citation``
    when unstated."""
    return edge.props.get("form") or "citation"


def citation_token(edge: Edge) -> str:
    """The token as written on ``edge``, ``""`` when unstated."""
    return edge.props.get("token") or ""


def citation_target_kind(edge: Edge) -> str:
    """What ``edge`` cites (:data:`domain.model.TARGET_KINDS`); ``record`` when unstated."""
    return edge.props.get("target_kind") or "record"


def citation_span(edge: Edge) -> tuple[int, int]:
    """(start, end) character offsets of the text the citation on ``edge`` supports; (0, 0) when
    unstated."""
    props = edge.props
    return int(props.get("span_start") or 0), int(props.get("span_end") or 0)


def citation_target(edge: Edge, node: Node | None) -> str:
    """The normalised target of the citation on ``edge``: the record ID, ``SRC-n``, path or name
    the cited ``node`` holds, else the token as written, else the node id ``edge.dst``."""
    target = node.get(_TARGET_KEY.get(citation_target_kind(edge), "name")) if node is not None else None
    return target or citation_token(edge) or edge.dst


def citation_member(edge: Edge) -> str | None:
    """The member file a link citation on ``edge`` names (``runtime.md``), or None."""
    return edge.props.get("member")


def citation_anchor(edge: Edge) -> str | None:
    """The anchor of a record-labelled link on ``edge`` that does not name that record, or None
    (GRAMMAR §2.2 rule 3)."""
    return edge.props.get("anchor")


def citation_line(edge: Edge) -> int:
    """The file line of a frontmatter citation on ``edge`` (GRAMMAR §2.1), 0 when unstated."""
    return int(edge.props.get("line") or 0)


def citation_of(edge: Edge, node: Node | None = None) -> Citation:
    """The :class:`~domain.model.Citation` a CITES ``edge`` stores; ``node`` is the cited node (for
    the normalised ``target``, see :func:`citation_target`), None when not at hand. The defaults are
    those of the single-key readers above."""
    get = edge.props.get
    kind, token, line = get("target_kind") or "record", get("token") or "", get("line")
    target = node.props.get(_TARGET_KEY.get(kind, "name")) if node is not None else None
    return Citation(
        token, kind, target or token or edge.dst, get("form") or "citation", int(get("start") or 0),
        int(get("end") or 0), int(get("span_start") or 0), int(get("span_end") or 0),
        node.props.get("source_id") if node is not None else None, get("member"), int(line) if line else None,
        get("anchor"),
    )


# -- Declaration: a DECLARED_IN edge (Record → its declaration Section) --------------------------

def declared_in_props(label: str | None) -> dict[str, Any]:
    """The DECLARED_IN edge properties of a declaration labelled ``label`` (None for a bare one)."""
    return {"label": label}


def declaration_label(edge: Edge) -> str | None:
    """The label of the declaration a DECLARED_IN ``edge`` leads to, or None."""
    return edge.props.get("label")


# -- Section and Statement: the blocks of a document ---------------------------------------------

def section_props(s: Section, declaration: Declaration | None = None, annotation: Annotation | None = None,
                  flaws: Flaws | None = None) -> dict[str, Any]:
    """The Section node properties of ``s`` and of the ``declaration`` or ``annotation`` its
    heading is, and the ``flaws`` its parser found (module table)."""
    props: dict[str, Any] = {"heading": s.heading, "level": s.level, "order": s.order, "line": s.line,
                             "kind": s.kind, "markup": s.markup, "gap": s.gap}
    if s.h1:
        props["h1"] = True
    if s.record_kind is not None:
        props["record_kind"] = s.record_kind
    if declaration is not None:
        props["record_id"], props["label"] = declaration.record_id, declaration.label
        if declaration.form is not None:
            props["heading_form"] = declaration.form
        if declaration.inherited_statuses:
            props["inherited_statuses"] = _status_entries(declaration.inherited_statuses)
    if annotation is not None:
        props["annotates"] = annotation.annotates
        if annotation.states_label:
            props["label"] = annotation.label
    if flaws is not None:
        props.update(flaws_props(flaws))
    return props


def section_of(node: Node) -> Section:
    """The :class:`~domain.model.Section` a Section ``node`` stores (missing: kind ``section``,
    numbers 0, text ``""``)."""
    get = node.props.get
    return Section(NodeId(node.id), get("heading") or "", int(get("level") or 0), get("kind") or "section",
                   int(get("order") or 0), int(get("line") or 0), get("markup") or "", get("gap") or "",
                   bool(get("h1")), get("record_kind"))


def declaration_of(node: Node) -> Declaration | None:
    """The :class:`~domain.model.Declaration` a declaration Section ``node`` states (its
    ``record_id``, ``label``, ``heading_form`` and ``inherited_statuses`` keys), None for any other
    section."""
    get = node.props.get
    if get("kind") != "declaration":
        return None
    return Declaration(RecordId(get("record_id") or ""), get("label"), get("heading_form"),
                       _statuses(get("inherited_statuses")), NodeId(node.id))


def annotation_of(node: Node) -> Annotation | None:
    """The :class:`~domain.model.Annotation` an annotation Section ``node`` states (its
    ``annotates`` and ``label`` keys), None for any other section."""
    if node.get("kind") != "annotation":
        return None
    return Annotation(RecordId(node.get("annotates") or ""), node.get("label"), "label" in node.props,
                      NodeId(node.id))


def _status_entries(statuses: tuple[Status, ...]) -> list[list[str]]:
    """The stored form of ``statuses``: [label, value] or [label, value, qualifier] entries."""
    return [[s.label, s.value, s.qualifier] if s.qualifier else [s.label, s.value] for s in statuses]


def _statuses(entries: Any) -> tuple[Status, ...]:
    """The statuses stored ``entries`` state, in order; entries of another shape are skipped."""
    if not entries:
        return ()
    return tuple(Status(str(e[0]), str(e[1]), str(e[2]) if len(e) == 3 else None) for e in entries
                 if isinstance(e, (list, tuple)) and len(e) in (2, 3))


def block_line(node: Node) -> int:
    """The file line a Section, Statement or Quotation ``node`` starts at, 0 when unstated."""
    return int(node.get("line") or 0)


def block_position(node: Node) -> tuple[int, int]:
    """(order, line) of a Section or Statement ``node``: its place in its document, (0, 0) when
    unstated."""
    return int(node.get("order") or 0), int(node.get("line") or 0)


def block_kind(node: Node) -> str | None:
    """The kind a Section or Statement ``node`` stores (``declaration``, ``paragraph``, …), or None."""
    kind = node.get("kind")
    return None if kind is None else str(kind)


def block_text(node: Node) -> str:
    """The plain text a Statement or Quotation ``node`` stores, ``""`` when unstated."""
    return node.get("text") or ""


def block_order(node: Node) -> int:
    """The block index of a Section or Statement ``node`` in its document, 0 when unstated."""
    return int(node.get("order") or 0)


def statement_props(s: Statement, field: Field | None = None, row: TableRow | None = None,
                    amendment: Amendment | None = None, flaws: Flaws | None = None) -> dict[str, Any]:
    """The Statement node properties of ``s`` (its citations are CITES edges, :func:`citation_props`)
    and of the ``field``, table ``row`` or ``amendment`` it is, and the ``flaws`` its parser found
    (module table); a key whose fact is unstated (None, empty, False) is not stored."""
    props: dict[str, Any] = {"kind": s.kind, "text": s.text, "markup": s.markup, "gap": s.gap, "order": s.order,
                             "line": s.line}
    if field is not None:
        props["label"], props["value"] = field.label, field.value
        if field.form is not None:
            props["form"] = field.form
        if field.part_of:
            props["part_of"] = field.part_of
        if field.route_ids is not None:
            props["route_ids"] = list(field.route_ids)
    if row is not None:
        props["cells"] = list(row.cells)
        if row.table is not None:
            props["table"] = row.table
        if row.source_id is not None:
            props["source_id"] = row.source_id
        if row.aliases:
            props["aliases"] = [list(pair) for pair in row.aliases]
        if row.declares is not None:
            props["declares"] = row.declares
    if s.continuation:
        props["continuation"] = True
    if s.closes_record:
        props["closes_record"] = True
    if s.kind_statuses:
        props["kind_statuses"] = _status_entries(s.kind_statuses)
    if flaws is not None:
        props.update(flaws_props(flaws))
    if s.statuses:
        props["statuses"] = _status_entries(s.statuses)
    if s.run_on:
        props["fields"] = [[f.label, f.value] for f in s.run_on]
    if amendment is not None:
        props["amends"] = amendment.amends
        if amendment.supersedes:
            props["supersedes"] = list(amendment.supersedes)
    return props


def statement_of(node: Node) -> Statement:
    """The :class:`~domain.model.Statement` a Statement ``node`` stores, without its citations
    (missing: kind ``paragraph``, numbers 0, text ``""``)."""
    get = node.props.get
    fields = get("fields")
    return Statement(NodeId(node.id), get("kind") or "paragraph", get("text") or "", int(get("order") or 0),
                     int(get("line") or 0), get("markup") or "", get("gap") or "", (), _statuses(get("statuses")),
                     tuple(Field(str(f[0]), str(f[1])) for f in fields) if fields else (),
                     _statuses(get("kind_statuses")), bool(get("continuation")), bool(get("closes_record")))


def field_of(node: Node) -> Field | None:
    """The :class:`~domain.model.Field` a field Statement ``node`` states (missing label or value:
    ``""``), None for any other block."""
    get = node.props.get
    if get("kind") != "field":
        return None
    route_ids = get("route_ids")
    return Field(get("label") or "", get("value") or "", get("form"), get("part_of") or None,
                 tuple(route_ids) if route_ids is not None else None)


def amendment_of(node: Node) -> Amendment | None:
    """The :class:`~domain.model.Amendment` an amendment Statement ``node`` states, None for any
    other block or one citing no record."""
    get = node.props.get
    if get("kind") != "amendment" or not get("amends"):
        return None
    return Amendment(RecordId(str(get("amends"))),
                     tuple((RecordId(old), RecordId(new)) for old, new in get("supersedes") or ()))


def field_part_of(node: Node) -> str | None:
    """The record ID a declaration's well-formed ``Part of:`` field ``node`` names (GRAMMAR §4.7),
    None for any other block: the :attr:`domain.model.Field.part_of` of :func:`field_of` without
    building the field."""
    return node.props.get("part_of") or None


def statuses_of(node: Node) -> tuple[Status, ...]:
    """The statuses statement ``node`` states, in order; stored entries of another shape are
    skipped."""
    return _statuses(node.props.get("statuses"))


def amended_record(node: Node) -> str | None:
    """The record ID an amendment Statement ``node`` amends (GRAMMAR §4.8: the first it cites),
    None for any other block or when it cites none."""
    get = node.props.get
    return (get("amends") or None) if get("kind") == "amendment" else None


_FLAW_KEYS = frozenset({"malformed_ids", "source_ranges", "record_ranges", "unexpanded_ranges", "unattributed",
                        "part_of_malformed", "malformed_declaration", "malformed_annotation", "unaccounted_ids",
                        "misplaced_declaration", "row_cells", "unclosed_row"})


def flaws_props(f: Flaws) -> dict[str, Any]:
    """The Section or Statement node properties the flaws ``f`` store: each one found, none else."""
    props: dict[str, Any] = {}
    for key in ("malformed_ids", "source_ranges", "record_ranges"):
        if getattr(f, key):
            props[key] = list(getattr(f, key))
    if f.unexpanded_ranges:
        props["unexpanded_ranges"] = [list(pair) for pair in f.unexpanded_ranges]
    if f.unattributed:
        props["unattributed"] = True
    for key in ("part_of_malformed", "malformed_declaration", "malformed_annotation", "misplaced_declaration"):
        if getattr(f, key):
            props[key] = getattr(f, key)
    if f.unaccounted_ids:
        props["unaccounted_ids"] = list(f.unaccounted_ids)
    if f.row_cells:
        props["row_cells"] = list(f.row_cells)
    if f.unclosed_row:
        props["unclosed_row"] = True
    return props


def flaws_of(node: Node) -> Flaws | None:
    """The :class:`~domain.checks.Flaws` the parser stored on a Section or Statement ``node``, None
    for a block without any (most blocks)."""
    if _FLAW_KEYS.isdisjoint(node.props):  # one C-level pass over the keys
        return None
    get = node.props.get
    ids, source_ranges, record_ranges, unexpanded = (get("malformed_ids"), get("source_ranges"),
                                                     get("record_ranges"), get("unexpanded_ranges"))
    unattributed, part_of = get("unattributed"), get("part_of_malformed")
    declaration, annotation = get("malformed_declaration"), get("malformed_annotation")
    unaccounted, misplaced = get("unaccounted_ids"), get("misplaced_declaration")
    row_cells, unclosed = get("row_cells"), get("unclosed_row")
    if not (ids or source_ranges or record_ranges or unexpanded or unattributed or part_of or declaration
            or annotation or unaccounted or misplaced or row_cells or unclosed):
        return None
    from domain.checks import Flaws

    return Flaws(tuple(ids or ()), tuple(source_ranges or ()), tuple(record_ranges or ()),
                 tuple(tuple(pair) for pair in unexpanded or ()), bool(unattributed), part_of or None,
                 declaration or None, annotation or None, tuple(unaccounted or ()), misplaced or None,
                 (row_cells[0], row_cells[1]) if row_cells else None, bool(unclosed))


def unaccounted_count(node: Node) -> int:
    """How many record-ID tokens of a Document ``node``'s prose nothing accounts for
    (:mod:`ingest.accounting`; ``unaccounted_record_ids``, 0 when unstated)."""
    return int(node.get("unaccounted_record_ids") or 0)


def table_row_of(node: Node) -> TableRow | None:
    """The :class:`~domain.model.TableRow` a ``table_header`` or ``table_row`` Statement ``node``
    states (each cell as text; ``table`` None when unstated), None for a block storing no list of
    cells."""
    get = node.props.get
    cells = get("cells")
    if not isinstance(cells, (list, tuple)):
        return None
    return TableRow(get("table"), tuple([str(c) for c in cells]), get("source_id"), get("declares"),
                    tuple((str(a), str(c)) for a, c in get("aliases") or ()))


# -- structure and amendments --------------------------------------------------------------------

def contains_props(order: int) -> dict[str, Any]:
    """The CONTAINS edge properties of a child at block index ``order``."""
    return {"order": order}


def stated_in_props(statement: str) -> dict[str, Any]:
    """The SUPERSEDED_BY or PART_OF edge properties naming the ``statement`` (node id) that states it."""
    return {"statement": statement}


def alias_props(statement: str) -> dict[str, Any]:
    """The properties of a SUPERSEDED_BY edge that makes a retired proposal tag an alias of its
    canonical record, naming the ``statement`` (node id) that maps it."""
    return {"statement": statement, "alias": True}


def is_alias(edge: Edge) -> bool:
    """Whether a SUPERSEDED_BY ``edge`` is an alias mapping (:func:`alias_props`), not an amendment."""
    return bool(edge.props.get("alias"))


def stated_by(edge: Edge) -> str | None:
    """The statement (node id) a SUPERSEDED_BY or PART_OF ``edge`` names, or None."""
    return edge.props.get("statement")


# -- Quotation -------------------------------------------------------------------------------------

def quotation_props(q: Quotation, *, line: int) -> dict[str, Any]:
    """The Quotation node properties of ``q`` quoted by the statement at file ``line``."""
    return {"text": q.text, "path": q.path, "lines": q.lines, "revision": q.revision, "line": line}


def quotation_of(node: Node) -> Quotation:
    """The :class:`~domain.model.Quotation` a Quotation ``node`` stores (missing text/path: ``""``)."""
    return Quotation(node.get("text") or "", node.get("path") or "", node.get("lines"), node.get("revision"))


# -- shared nodes: Record, Source, SourceFile, NamedReference ---------------------------------------

def record_props(r: Record) -> dict[str, Any]:
    """The Record node properties of ``r``."""
    return {"record_id": r.record_id, "analyst": r.analyst, "kind": r.kind, "slug": r.slug}


def record_of(node: Node) -> Record:
    """The :class:`~domain.model.Record` a Record ``node`` stores."""
    return Record(RecordId(node.get("record_id") or ""), node.get("analyst"), node.get("kind") or "",
                  node.get("slug") or "")


def record_id_of(node: Node) -> str:
    """The record ID a Record ``node`` stores (``RT-RTE-mcp-write``), ``""`` when unstated."""
    return node.get("record_id") or ""


def source_props(s: Source) -> dict[str, Any]:
    """The Source node properties of ``s``; ``declared`` is stored True or None (a shared node's
    None never erases what another member stated)."""
    return {"source_id": s.source_id, "kind": s.kind, "url": s.url, "commit": s.commit,
            "cutoff": s.cutoff, "evidence_layers": s.evidence_layers, "declared": True if s.declared else None}


def source_of(node: Node) -> Source:
    """The :class:`~domain.model.Source` a Source ``node`` stores (``source_id`` ``""`` when
    unstated; ``declared`` True only when the register stated the row)."""
    get = node.props.get
    return Source(SourceId(get("source_id") or ""), get("kind"), get("url"), get("commit"), get("cutoff"),
                  get("evidence_layers"), bool(get("declared")))


def cited_source_props(source_id: SourceId) -> dict[str, Any]:
    """The Source node properties a citation of ``source_id`` states: the id alone (the register
    row, when there is one, states the rest through :func:`source_props`)."""
    return {"source_id": source_id}


def source_file_props(f: SourceFile) -> dict[str, Any]:
    """The SourceFile node properties of ``f``."""
    return {"path": f.path, "source_id": f.source_id}


def source_file_path(node: Node) -> str:
    """The commit-relative path a SourceFile ``node`` stores, ``""`` when unstated."""
    return node.get("path") or ""


def source_file_of(node: Node) -> SourceFile:
    """The :class:`~domain.model.SourceFile` a SourceFile ``node`` stores (its ``source_id`` None
    when no citation named the source)."""
    return SourceFile(node.get("path") or "", node.get("source_id"))


def named_reference_props(r: NamedReference) -> dict[str, Any]:
    """The NamedReference node properties of ``r``."""
    return {"name": r.name, "slug": r.slug}


def named_reference_name(node: Node) -> str:
    """The name a NamedReference ``node`` stores as written (``Source register``), ``""`` when
    unstated."""
    return node.get("name") or ""


def named_reference_of(node: Node) -> NamedReference:
    """The :class:`~domain.model.NamedReference` a NamedReference ``node`` stores (missing name or
    slug: ``""``)."""
    return NamedReference(node.get("name") or "", node.get("slug") or "")


# -- System, AnalysisSet and Member (a Document node) ---------------------------------------------

def system_props(name: str, slug: str) -> dict[str, Any]:
    """The System node properties of the system ``name`` (its ``slug`` is the node id's tail)."""
    return {"name": name, "slug": slug}


def system_name(node: Node) -> str | None:
    """The name a System ``node`` stores (``Tolaria``), or None."""
    name: str | None = node.get("name")
    return name


def system_slug(node: Node) -> str:
    """The slug a System ``node`` stores, else the tail of its id ``system/<slug>``."""
    return node.get("slug") or node.id.removeprefix("system/")


def analysis_set_props(a: AnalysisSet) -> dict[str, Any]:
    """The AnalysisSet node properties of ``a`` (its ``set_id`` is the node id)."""
    return {"system": a.system, "run_id": a.run_id, "reviewed_boundary": a.reviewed_boundary}


def analysis_set_of(node: Node) -> AnalysisSet:
    """The :class:`~domain.model.AnalysisSet` an AnalysisSet ``node`` stores (``system`` is the
    System node id, ``""`` when unstated)."""
    return AnalysisSet(AnalysisSetId(node.id), node.get("system") or "", node.get("run_id"),
                       node.get("reviewed_boundary"))


def member_props(m: Member, identity: MemberIdentity | None = None, pinning: Pinning | None = None, *,
                 preamble: str, trailer: str, frontmatter: Mapping[str, Any], run_id: str | None,
                 unaccounted: int = 0) -> dict[str, Any]:
    """The Document node properties of member ``m``: what it states of its set (``identity``, a
    Markdown member's), how its set's manifest pins it (``pinning``), how many record-ID tokens
    of its prose nothing accounts for (``unaccounted``, stored when any), then the member's
    fields and the text around its blocks (``preamble``, ``trailer``), its parsed ``frontmatter``
    and the set's ``run_id`` (module table)."""
    props: dict[str, Any] = {}
    if identity is not None:
        props.update(file_name=identity.file_name, record_prefix=identity.record_prefix,
                     reviewed_boundary=identity.reviewed_boundary, frontmatter_lines=dict(identity.frontmatter_lines))
        if identity.projection:
            props["identity_keys"] = {"run-id": identity.run_id_key, "reviewed-boundary": identity.boundary_key}
            props["projection"] = True
        if identity.analysis_result is not None:
            props["analysis_result"] = identity.analysis_result
            props["analysis_result_sha256"] = identity.analysis_result_sha256
    if pinning is not None:
        props.update(manifest=pinning.manifest, manifest_members=[name for name, _ in pinning.pins],
                     manifest_lines={name: line for name, line in pinning.pins}, pinned_sha256=pinning.sha256)
        if pinning.sha256 is not None:
            props["pin_verified"] = pinning.verified
    if unaccounted:
        props["unaccounted_record_ids"] = unaccounted
    props.update(role=m.role, title=m.title, member_type=m.member_type, format=m.format, path=m.path,
                 sha256=m.sha256, size=m.size, preamble=preamble, trailer=trailer, frontmatter=frontmatter,
                 run_id=run_id)
    return props


def member_of(node: Node) -> Member:
    """The :class:`~domain.model.Member` a Document ``node`` stores (missing text: ``""``, size 0)."""
    get = node.props.get
    return Member(DocumentId(node.id), get("role") or "", get("title") or "", get("member_type") or "",
                  get("format") or "", get("path") or "", get("sha256") or "", int(get("size") or 0))


def member_path(node: Node) -> str:
    """The path a Document ``node`` was ingested from, ``""`` when unstated."""
    return node.get("path") or ""


def member_text(node: Node) -> tuple[str, str]:
    """(preamble, trailer): the text a Document ``node`` keeps before its first block and after
    its last, ``""`` when unstated."""
    return node.get("preamble") or "", node.get("trailer") or ""


def member_frontmatter(node: Node) -> Mapping[str, Any]:
    """The parsed front matter a Document ``node`` keeps (``run-date``, …), ``{}`` when none."""
    return node.get("frontmatter") or {}


def member_file_name(node: Node) -> str | None:
    """The file name a Document ``node`` was read from (``runtime.md``; the parser's
    ``file_name`` key), or None."""
    file_name: str | None = node.get("file_name")
    return file_name


def member_identity_of(node: Node) -> MemberIdentity:
    """The :class:`~domain.checks.MemberIdentity` a Document ``node`` stores (a plain-text member's:
    its ``run_id`` alone, ``states_prefix`` False)."""
    from domain.checks import MemberIdentity

    props = node.props
    get = props.get
    keys = get("identity_keys") or {}
    return MemberIdentity(get("file_name"), get("record_prefix"), "record_prefix" in props, get("run_id"),
                          get("reviewed_boundary"), tuple((get("frontmatter_lines") or {}).items()),
                          keys.get("run-id", "run-id"), keys.get("reviewed-boundary", "reviewed-boundary"),
                          bool(get("projection")), get("analysis_result"), get("analysis_result_sha256"))


def reviewed_result_of(node: Node) -> tuple[str, str | None, int] | None:
    """(path, pinned SHA-256 or None, its frontmatter line) of the result a generated review
    names (``analysis-result``, ``analysis-result-sha256``; the parser's ``analysis_result`` keys),
    None for any other Document ``node``."""
    path = node.get("analysis_result")
    if not path:
        return None
    lines = node.get("frontmatter_lines") or {}
    return path, node.get("analysis_result_sha256"), int(lines.get("analysis-result-sha256",
                                                                    lines.get("analysis-result", 1)))


def pinning_of(node: Node) -> Pinning:
    """The :class:`~domain.checks.Pinning` a Document ``node`` stores (a pin without a manifest line
    reads line 0; a member read without a manifest: ``Pinning()``)."""
    from domain.checks import Pinning

    get = node.props.get
    lines = get("manifest_lines") or {}
    return Pinning(get("manifest"), tuple((name, int(lines.get(name, 0))) for name in get("manifest_members") or ()),
                   get("pinned_sha256"), get("pin_verified"))


# -- any node ----------------------------------------------------------------------------------------

_NAME_KEY = {
    Label.RECORD: "record_id", Label.SECTION: "heading", Label.DOCUMENT: "title", Label.NAMED_REFERENCE: "name",
    Label.SOURCE_FILE: "path", Label.SOURCE: "source_id", Label.QUOTATION: "path", Label.ANALYSIS_SET: "system",
}


def node_name(node: Node) -> str | None:
    """What readers know ``node`` by, as stored: a record's ID, a section's heading, a document's
    title, a named reference's name, a source file's or quotation's path, a source's ``SRC-n``, a
    set's system (its node id); None for another label or when unstated."""
    key = _NAME_KEY.get(node.label)
    return node.props.get(key) if key is not None else None


# -- Review -----------------------------------------------------------------------------------------

def review_props(r: Review) -> dict[str, Any]:
    """The Review node properties of ``r``."""
    return {"node": r.node, "revision": r.revision, "reviewer": r.reviewer, "at": r.at, "note": r.note,
            "fingerprint": r.fingerprint}


def review_of(node: Node) -> Review:
    """The :class:`~domain.model.Review` a Review ``node`` stores (``node`` and ``revision`` are
    required; a missing reviewer or time reads as ``""``)."""
    p = node.props
    return Review(NodeId(p["node"]), p["revision"], p.get("reviewer") or "", p.get("at") or "", p.get("note"),
                  p.get("fingerprint"))
