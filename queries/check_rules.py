"""The graph rules of ``citegraph check`` evaluated on one stored set (:func:`check_set`), apart
from :mod:`queries.validation`, which declares their findings and reads the ones a store keeps:
a check answered from kept findings imports no rule, nor the codec and domain model they read.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from domain.checks import Flaws, MemberIdentity
from domain.vocabulary import ANY_ANALYST, ROUTE_FIELDS, STATUS_VALUES
from graph.codec import (amended_record, annotation_of, block_line, block_position, citation_anchor, citation_form,
                         citation_line, citation_member, declaration_of, is_alias, field_of, field_part_of, flaws_of,
                         member_identity_of, member_of, member_path, named_reference_name, pinning_of, record_id_of,
                         record_of, reviewed_result_of, section_of, source_of, stated_by, statement_of,
                         statuses_of)
from graph.model import Edge, EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from queries.findings import CODES, Finding

__all__ = ["check_set"]

_ANALYST_ROLES = {"RT": "runtime", "MEM": "memory", "EPI": "epistemic", None: "runtime"}
"""Member that declares an analyst's records (GRAMMAR §1.1; G2 unprefixed IDs are runtime's)."""

_REGISTER_ROLES = ("boundary", "overview")
"""Members holding the Source register (GRAMMAR §2.2 rule 3: the boundary's, older: the overview's)."""

_UNCERTAIN = re.compile(r"^(inapplicable|uninspected)\b(?P<rest>.*)$", re.S)
_INDEX = re.compile(r"^Amended or superseded records:\s*(?P<ids>[^;]*);")


def _first_citation(store: GraphStore, node_ids: list[str]) -> dict[str, tuple[str, int]]:
    """(file path, line) of the first statement or section citing each node."""
    incoming = store.edges(node_ids, kinds=[EdgeKind.CITES, EdgeKind.ANNOTATES], direction=Direction.IN)
    citing = store.get_nodes({e.src for es in incoming.values() for e in es})
    docs = store.get_nodes({n.document_id for n in citing.values() if n.document_id})
    out = {}
    for node_id, edges in incoming.items():
        places = sorted(
            (member_path(docs[citing[e.src].document_id or ""]), block_line(citing[e.src]))
            for e in edges if e.src in citing and citing[e.src].document_id in docs
        )
        out[node_id] = places[0] if places else ("", 0)
    return out


def _kind_and_slug(record_id: str) -> tuple[str, str]:
    """(kind, slug or number) of a record ID, prefixed or not (GRAMMAR §1.1)."""
    parts = record_id.split("-")
    if parts[0] in _ANALYST_ROLES and len(parts) > 2:
        parts = parts[1:]
    return parts[0], "-".join(parts[1:])


class _Checker:
    """Evaluates every rule of :data:`CODES` over the stored graph (one set or all)."""

    def __init__(self, store: GraphStore, set_id: str | None, refused: frozenset[tuple[str | None, str]] = frozenset()):
        self.store = store
        self.refused = refused  # (set or None, file name) of members refused while reading
        self.findings: list[Finding] = []
        self.docs = {d.id: d for d in store.find_nodes(Label.DOCUMENT, set_id=set_id)}
        self.member = {d.id: member_of(d) for d in self.docs.values()}
        self.identity = {d.id: member_identity_of(d) for d in self.docs.values()}
        sections = store.find_nodes(Label.SECTION, set_id=set_id)
        statements = store.find_nodes(Label.STATEMENT, set_id=set_id)
        self.nodes: dict[str, Node] = {n.id: n for n in [*self.docs.values(), *sections, *statements]}
        self.blocks: dict[str, list[Node]] = defaultdict(list)
        for n in [*sections, *statements]:
            self.blocks[n.document_id or ""].append(n)
        for blocks in self.blocks.values():
            blocks.sort(key=block_position)
        self.records = store.find_nodes(Label.RECORD, set_id=set_id)
        ids = [r.id for r in self.records]
        self.record_out = store.edges(ids, kinds=[EdgeKind.DECLARED_IN, EdgeKind.PART_OF, EdgeKind.SUPERSEDED_BY],
                                      direction=Direction.OUT)
        self.record_in = store.edges(ids, kinds=[EdgeKind.CITES, EdgeKind.ANNOTATES], direction=Direction.IN)
        self.bodies = self._bodies()

    # -- places -------------------------------------------------------------------------------

    def place(self, node_id: str, edge: Edge | None = None) -> tuple[str, int]:
        """(file path, line) of a node (a frontmatter citation's own line for Document sources)."""
        node = self.nodes.get(node_id)
        if node is None:
            return "", 0
        doc = self.docs.get(node.document_id or "")
        path = self.member[doc.id].path if doc is not None else ""
        if node.label == Label.DOCUMENT:
            return path, (citation_line(edge) if edge is not None else 0)
        return path, block_line(node)

    def add(self, code: str, set_id: str, node_id: str, message: str, *, edge: Edge | None = None,
            place: tuple[str, int] | None = None, severity: str | None = None) -> None:
        path, line = place if place is not None else self.place(node_id, edge)
        self.findings.append(Finding(code, severity or CODES[code][0], set_id, path, line, node_id, message))

    def _bodies(self) -> dict[str, list[Node]]:
        """The statements whose innermost declaration or annotation section is each section (by
        node id), in document order; one pass over each document's blocks."""
        out: dict[str, list[Node]] = defaultdict(list)
        for blocks in self.blocks.values():
            stack: list[tuple[Node, int, bool]] = []  # open sections: (node, level, a record's)
            for n in blocks:
                if n.label == Label.SECTION:
                    section = section_of(n)
                    level = section.level or 2
                    while stack and stack[-1][1] >= level:
                        stack.pop()
                    stack.append((n, level, section.kind in ("declaration", "annotation")))
                elif n.label == Label.STATEMENT:
                    if statement_of(n).closes_record:  # the loader's nesting: it ends the declaration before it
                        while stack and stack[-1][2] and section_of(stack[-1][0]).kind == "declaration":
                            stack.pop()
                    record = next((s for s, _, is_record in reversed(stack) if is_record), None)
                    if record is not None:
                        out[record.id].append(n)
                    if stack and (opened := declaration_of(stack[-1][0])) is not None and opened.form == "row":
                        stack.pop()  # a declaring table row is its record's whole body (the loader's nesting)
        return out

    def in_record(self, section: Node) -> list[Node]:
        """Statements inside a declaration or annotation section, in document order."""
        return self.bodies.get(section.id, [])

    def sets(self) -> dict[str, list[Node]]:
        """Documents per set id."""
        by_set: dict[str, list[Node]] = defaultdict(list)
        for d in self.docs.values():
            by_set[d.set_id or ""].append(d)
        return by_set

    # -- rules --------------------------------------------------------------------------------

    def declarations(self) -> None:
        """duplicate-declaration, wrong-prefix, annotates-own-record, malformed-id, misplaced-declaration
        (headings)."""
        declared_by_doc: dict[str, set[str]] = defaultdict(set)
        for record in self.records:
            places = sorted((self.place(e.dst), e.dst) for e in self.record_out[record.id]
                            if e.kind == EdgeKind.DECLARED_IN)
            for _, section_id in places:
                if section_id in self.nodes:
                    declared_by_doc[self.nodes[section_id].document_id or ""].add(record.id)
            for _, section_id in places[1:]:
                first = places[0][0]
                self.add("duplicate-declaration", record.set_id or "", section_id,
                         f"{record_id_of(record)} is declared again; first declared at {first[0]}:{first[1]}")
            for _, section_id in places:
                section = self.nodes.get(section_id)
                doc = self.docs.get(section.document_id or "") if section else None
                if doc is None or not self.identity[doc.id].states_prefix:
                    continue
                prefix, analyst = self.identity[doc.id].record_prefix, record_of(record).analyst
                if prefix == ANY_ANALYST:  # a G1 result holds every analyst's records
                    continue
                if prefix is None or not (analyst == prefix or (analyst is None and prefix == "RT")):
                    allowed = f"only {prefix}- records" if prefix else "no records"
                    self.add("wrong-prefix", record.set_id or "", section_id,
                             f"the {self.member[doc.id].role} member declares {record_id_of(record)}; "
                             f"it may declare {allowed}")
        for record in self.records:
            for e in self.record_in[record.id]:
                source = self.nodes.get(e.src)
                if (e.kind == EdgeKind.ANNOTATES and source is not None and source.label == Label.SECTION
                        and record.id in declared_by_doc.get(source.document_id or "", set())):
                    self.add("annotates-own-record", record.set_id or "", e.src,
                             f"the member annotates {record_id_of(record)}, which it declares itself")
        for node in self.nodes.values():
            flaws = flaws_of(node)
            if flaws is None or not (flaws.malformed_declaration or flaws.malformed_annotation
                                     or flaws.misplaced_declaration):
                continue
            for what, token in (("declaration", flaws.malformed_declaration),
                                ("annotation", flaws.malformed_annotation)):
                if token:
                    self.add("malformed-id", node.set_id or "", node.id,
                             f"{what} heading {section_of(node).heading!r} does not name a well-formed record ID")
            if flaws.misplaced_declaration:
                self.add("misplaced-declaration", node.set_id or "", node.id,
                         f"declaration heading {section_of(node).heading!r} is outside `## Shared records`, so it "
                         f"does not declare {flaws.misplaced_declaration}; it only cites it")

    def statements(self) -> None:
        """malformed-id, source-range, record-range, unattributed-quotation, part-of-malformed,
        malformed-table-row, unaccounted-record-id (statements and headings)."""
        for node in self.nodes.values():
            if node.label == Label.SECTION and (flaws := flaws_of(node)) is not None:
                for token in flaws.unaccounted_ids:
                    self.add("unaccounted-record-id", node.set_id or "", node.id,
                             f"{token} in a heading is neither cited, declared, aliased nor ignored: a form the "
                             "parser does not read")
            if node.label != Label.STATEMENT:
                continue
            flaws = flaws_of(node)
            if flaws is None:
                continue
            set_id = node.set_id or ""
            for token in flaws.malformed_ids:
                self.add("malformed-id", set_id, node.id, f"{token} is shaped like a record ID but is not one")
            for token in flaws.source_ranges:
                self.add("source-range", set_id, node.id, f"source range {token!r}: list every SRC ID instead")
            for token in flaws.record_ranges:
                self.add("record-range", set_id, node.id,
                         f"record range {token!r} cites every record in it: list every full ID instead")
            for token, reason in flaws.unexpanded_ranges:
                self.add("record-range", set_id, node.id,
                         f"record range {token!r} cannot be expanded exactly ({reason}): only its ends are cited")
            for token in flaws.unaccounted_ids:
                self.add("unaccounted-record-id", set_id, node.id,
                         f"{token} is neither cited, declared, aliased nor ignored here: a form the parser "
                         "does not read")
            if flaws.unattributed:
                self.add("unattributed-quotation", set_id, node.id, "blockquote without a `> --- `path`` attribution")
            if flaws.part_of_malformed:
                self.add("part-of-malformed", set_id, node.id,
                         f"malformed `Part of:` {flaws.part_of_malformed}: a declaration states exactly "
                         "one record ID on its own unindented line")
            if flaws.row_cells or flaws.unclosed_row:
                self.add("malformed-table-row", set_id, node.id, _row_problem(flaws))

    def _statuses(self, set_id: str, rid: str, body: list[Node]) -> Counter[str]:
        """status-value and status-duplicate over a declaration's or annotation's body; the labels
        stated, counted."""
        labels: Counter[str] = Counter()
        for n in body:
            for label, value in ((s.label, s.value) for s in statuses_of(n)):
                labels[label.lower()] += 1
                if labels[label.lower()] == 2:
                    self.add("status-duplicate", set_id, n.id, f"{rid} states {label!r} more than once")
                if value.replace("`", "").strip() not in STATUS_VALUES:
                    self.add("status-value", set_id, n.id,
                             f"{rid}: {label} {value!r} is not one of {', '.join(sorted(STATUS_VALUES))}")
        return labels

    def records_fields(self) -> None:
        """status-*, route-field-*, part-of-* per declaration; status-value and status-duplicate per
        annotation too (GRAMMAR §4.4: annotation statuses are read and checked the same way)."""
        for section in self.nodes.values():
            if section.label != Label.SECTION:
                continue
            annotation, declaration = annotation_of(section), declaration_of(section)
            if annotation is not None:
                self._statuses(section.set_id or "", f"annotation on {annotation.annotates}",
                               self.in_record(section))
            if declaration is None:
                continue
            set_id, rid = section.set_id or "", declaration.record_id
            body = self.in_record(section)
            labels = self._statuses(set_id, rid, body)
            if not labels:  # G1: the kind section's opening sentence states every record's status
                labels = Counter(s.label.lower() for s in declaration.inherited_statuses)
            kind, slug = _kind_and_slug(rid)
            if kind == "RTE" and not labels:
                # G2 sets (numbered IDs) predate the rule, as they predate the route fields
                self.add("status-missing", set_id, section.id, f"route {rid} states no conclusion status",
                         severity="warning" if slug.isdigit() else None)
            if kind == "RTE" and not slug.isdigit():
                self._route_fields(section, body, rid)
            parts = [n for n in body if field_part_of(n) or ((f := flaws_of(n)) is not None and f.part_of_malformed)]
            for n in parts[1:]:
                self.add("part-of-malformed", set_id, n.id, f"{rid} states `Part of:` more than once")
        for record in self.records:
            for e in self.record_out[record.id]:
                if e.kind == EdgeKind.PART_OF and e.src == e.dst:
                    statement = stated_by(e) or e.src
                    self.add("part-of-self", record.set_id or "", statement,
                             f"{record_id_of(record)} is declared `Part of:` itself")

    def _route_fields(self, section: Node, body: list[Node], rid: str) -> None:
        """route-field-missing, route-field-duplicate, route-field-reason over a route's ``body``."""
        set_id = section.set_id or ""
        bullets = [(n, f) for n in body if (f := field_of(n)) is not None and f.form == "bullet"]
        for label in ROUTE_FIELDS:
            stated = [(n, f) for n, f in bullets if f.label == label]
            if not stated:
                self.add("route-field-missing", set_id, section.id, f"route {rid} has no `- {label}:` field")
            for n, _ in stated[1:]:
                self.add("route-field-duplicate", set_id, n.id, f"route {rid} states `- {label}:` more than once")
            for n, f in stated:
                m = _UNCERTAIN.match(f.value.strip())
                if m and not re.match(r"^\s+\u2014\s+\S", m.group("rest")):
                    self.add("route-field-reason", set_id, n.id,
                             f"route {rid}: `{label}: {m.group(1)}` needs `{m.group(1)} \u2014 <reason>`")

    def citations(self) -> None:
        """dangling-record-citation / undeclared-record, link-target, link-label."""
        present: dict[str, set[str]] = defaultdict(set)
        role_of: dict[tuple[str, str], str] = {}  # (set, member file name) → its role
        for d in self.docs.values():
            present[d.set_id or ""].update({self.member[d.id].role, self.identity[d.id].file_name or ""})
            role_of[d.set_id or "", self.identity[d.id].file_name or ""] = self.member[d.id].role
        for record in self.records:
            set_id = record.set_id or ""
            declared = [e.dst for e in self.record_out[record.id] if e.kind == EdgeKind.DECLARED_IN]
            citing = sorted(self.record_in[record.id], key=lambda e: (self.place(e.src, e), e.seq))
            declaring_files = {self.identity[self.nodes[s].document_id or ""].file_name
                               for s in declared if s in self.nodes and self.nodes[s].document_id in self.docs}
            for e in citing:
                member, anchor = citation_member(e), citation_anchor(e)
                if citation_form(e) == "link" and anchor:
                    self.add("link-label", set_id, e.src,
                             f"link labelled {record_id_of(record)} points at #{anchor}, which is not the anchor "
                             f"of {record_id_of(record)}", edge=e)
                if declared and member and declaring_files and member not in declaring_files:
                    self.add("link-target", set_id, e.src,
                             f"{record_id_of(record)} is cited in {member}, but declared in "
                             f"{', '.join(sorted(f for f in declaring_files if f))}", edge=e)
            if declared or not citing or any(e.kind == EdgeKind.SUPERSEDED_BY and is_alias(e)
                                             for e in self.record_out[record.id]):
                continue  # an alias (a retired proposal tag) is its canonical record
            expected = {citation_member(e) for e in citing if citation_member(e)}
            role = _ANALYST_ROLES.get(record_of(record).analyst, "runtime")
            named_present = [m for m in expected if m in present[set_id]]
            first = citing[0]
            where = f" ({len(citing)} citations)" if len(citing) > 1 else ""
            if named_present or role in present[set_id]:
                named = role_of.get((set_id, named_present[0]), role) if named_present else role
                self.add("dangling-record-citation", set_id, first.src,
                         f"{record_id_of(record)} is cited{where} but the {named} member does not declare it",
                         edge=first)
            else:
                self.add("undeclared-record", set_id, first.src,
                         f"record {record_id_of(record)} is cited but declared in no ingested member of set "
                         f"{set_id}", edge=first)

    def sources(self, set_id: str | None) -> None:
        """dangling-source-citation, for sets holding a Source register."""
        sources = self.store.find_nodes(Label.SOURCE, set_id=set_id)
        incoming = self.store.edges([s.id for s in sources], kinds=[EdgeKind.CITES], direction=Direction.IN)
        registers = {d.set_id for d in self.docs.values() if self.member[d.id].role in _REGISTER_ROLES}
        for source in sources:
            if source.set_id not in registers or source_of(source).declared or not incoming[source.id]:
                continue
            first = min(incoming[source.id], key=lambda e: (self.place(e.src, e), e.seq))
            self.add("dangling-source-citation", source.set_id or "", first.src,
                     f"{source_of(source).source_id} is cited but the Source register does not declare it", edge=first)

    def members(self) -> None:
        """pin-mismatch, unpinned-member, manifest-missing-member, result-digest-mismatch, run-id-mismatch,
        boundary-mismatch."""
        for set_id, docs in sorted(self.sets().items()):
            pinning = {d.id: pinning_of(d) for d in docs}
            manifests = sorted({p.manifest for p in pinning.values() if p.manifest})
            files = {self.identity[d.id].file_name for d in docs}
            for d in docs:
                pin, identity, path = pinning[d.id], self.identity[d.id], self.member[d.id].path
                if pin.verified is False:
                    line = next((n for name, n in pin.pins if name == identity.file_name), 1)
                    self.add("pin-mismatch", set_id, d.id,
                             f"SHA-256 {self.member[d.id].sha256} differs from the pin {pin.sha256} at "
                             f"{pin.manifest}:{line}", place=(path, 0))
                elif manifests and not pin.sha256 and not identity.projection:  # reviews: GRAMMAR §3.11
                    self.add("unpinned-member", set_id, d.id,
                             f"{identity.file_name or path} is not pinned by {manifests[0]}", place=(path, 0))
            for manifest in manifests:
                holder = next(pinning[d.id] for d in docs if pinning[d.id].manifest == manifest)
                for name, line in holder.pins:
                    if name not in files and not {(set_id, name), (None, name)} & self.refused:
                        self.add("manifest-missing-member", set_id, set_id,
                                 f"the manifest pins {name}, which is not among the inputs", place=(manifest, line))
            self._reviewed_results(set_id, docs)
            md = [(d, self.identity[d.id]) for d in docs if self.member[d.id].format == "md"]
            self._identity(set_id, [(d, i, i.run_id, i.run_id_line) for d, i in md], "run-id", "run-id-mismatch",
                           set_id if re.match(r"^A[AG]S-", set_id) else None)
            reference = next((i.reviewed_boundary for role in _REGISTER_ROLES for d, i in md
                              if self.member[d.id].role == role and i.reviewed_boundary), None)
            self._identity(set_id, [(d, i, i.reviewed_boundary, i.boundary_line) for d, i in md],
                           "reviewed-boundary", "boundary-mismatch", reference)

    def _reviewed_results(self, set_id: str, docs: list[Node]) -> None:
        """result-digest-mismatch: a review pins its run's result by SHA-256 over the file's bytes;
        the result is the set's member at the ``analysis-result`` path (``kb/…``, matched by its
        tail), else the set's ``result`` member. A result not ingested is not checked."""
        for d in docs:
            pinned = reviewed_result_of(d)
            if pinned is None or not pinned[1]:
                continue
            path, sha256, line = pinned
            tail = path.replace("\\", "/").removeprefix("kb/")
            results = [r for r in docs if r.id != d.id and self.member[r.id].path.replace("\\", "/").endswith(tail)]
            results = results or [r for r in docs if self.member[r.id].role == "result"]
            for result in results[:1]:
                if self.member[result.id].sha256 != sha256:
                    self.add("result-digest-mismatch", set_id, d.id,
                             f"the review pins {path} at SHA-256 {sha256}; the ingested result "
                             f"{self.member[result.id].path} is {self.member[result.id].sha256}",
                             place=(self.member[d.id].path, line))

    def _identity(self, set_id: str, stated: list[tuple[Node, MemberIdentity, Any, int]], key: str, code: str,
                  reference: Any) -> None:
        """``code`` for each member whose stated ``key`` (value, front-matter line) differs from
        ``reference``, else from the value most members state."""
        values = Counter(value for _, _, value, _ in stated if value)
        if reference is None and values:
            reference = sorted(values.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0]
        if reference is None:
            return
        for d, identity, value, line in stated:
            if value == reference:
                continue
            stated_as = f"states {key} {value}" if value else f"states no {key}"
            self.add(code, set_id, d.id,
                     f"{identity.file_name or self.member[d.id].role} {stated_as}; the set's is {reference}",
                     place=(self.member[d.id].path, line))

    def amendment_index(self) -> None:
        """The overview's ``Amended or superseded records:`` line against the reconciliation."""
        for set_id, docs in sorted(self.sets().items()):
            roles = {self.member[d.id].role: d for d in docs}
            if "overview" not in roles or "reconciliation" not in roles:
                continue
            amended = sorted({record for d in docs for n in self.blocks.get(d.id, [])
                              if (record := amended_record(n))})
            for n in self.blocks.get(roles["overview"].id, []):
                m = _INDEX.match(statement_of(n).text) if n.label == Label.STATEMENT else None
                if not m:
                    continue
                ids = m.group("ids").strip()
                listed = [] if ids == "none" else [i.strip() for i in ids.split(",") if i.strip()]
                if listed != amended:
                    expected = ", ".join(amended) or "none"
                    self.add("amendment-index", set_id, n.id,
                             f"the amendment index lists {ids or 'nothing'}; the reconciliation amends {expected}")

    def references(self, set_id: str | None) -> None:
        """unresolved-reference."""
        refs = self.store.find_nodes(Label.NAMED_REFERENCE, set_id=set_id)
        resolved = self.store.edges([r.id for r in refs], kinds=[EdgeKind.RESOLVES_TO], direction=Direction.OUT)
        unresolved = [r for r in refs if not resolved[r.id]]
        where = _first_citation(self.store, [r.id for r in unresolved])
        for ref in unresolved:
            self.add("unresolved-reference", ref.set_id or "", ref.id,
                     f"named reference {named_reference_name(ref)!r} resolves to no section or member of set "
                     f"{ref.set_id}", place=where[ref.id])


def check_set(store: GraphStore, scope: str, refused: frozenset[tuple[str | None, str]] = frozenset()
               ) -> tuple[Finding, ...]:
    """Every rule of :data:`CODES` over the stored set ``scope``, in rule order."""
    checker = _Checker(store, scope, refused)
    checker.declarations()
    checker.statements()
    checker.records_fields()
    checker.citations()
    checker.sources(scope)
    checker.members()
    checker.amendment_index()
    checker.references(scope)
    return tuple(checker.findings)


def _row_problem(flaws: Flaws) -> str:
    """The ``malformed-table-row`` message of a row's ``flaws``: its cell count against the header's
    and a missing closing ``|``."""
    problems = []
    if flaws.row_cells:
        header, row = flaws.row_cells
        problems.append(f"{row} {'cell' if row == 1 else 'cells'} where the header has {header}")
    if flaws.unclosed_row:
        problems.append("no closing `|`")
    return f"table row has {', and '.join(problems)}: every row ends with `|` and has as many cells as its header"
