"""GraphQL types of query results: rests-on (the :mod:`queries.traversal` shapes themselves, built by
:func:`app.graphql.shapes.object_type`), record dossiers (:mod:`queries.dossier`) and check findings
(:mod:`queries.validation`, a Relay connection), these two converted ``from_domain``."""

from __future__ import annotations

from typing import Iterable, Optional

import strawberry
from strawberry import relay
from strawberry.types import Info

from app.graphql.context import Context, call
from app.graphql.pagination import Connection
from app.graphql.shapes import object_type
from app.graphql.types import GraphNode, Record, Statement, wrap
from queries import dossier as dossier_domain
from queries.documents import BlockCitation, BlockQuotation, DocumentBlock, DocumentTree
from queries.dossier import record_dossiers
from queries.read import block_node
from queries import traversal as domain_traversal
from queries.traversal import rests_on
from queries.validation import CheckReport, check
from queries.validation import Finding as DomainFinding

__all__ = ["RestsOnResult", "RestsOn", "Dossier", "Finding", "CheckResult", "run_rests_on", "run_dossier", "run_check"]

Ctx = Info[Context, None]


# -- rests on --------------------------------------------------------------------------------------

async def _statement_node(self: domain_traversal.RestsOnResult, info: Ctx) -> Optional[Statement]:
    return wrap(await info.context.loaders.node(self.statement))


def _count(self: domain_traversal.RestsOnReport) -> int:
    return len(self.results)


RestsOnResult = object_type(
    domain_traversal.RestsOnResult, description="A statement resting on a record, with the path explaining it.",
    extra={"statement_node": strawberry.field(
        resolver=_statement_node, description="The resting statement as a node (document, section, citations …).")})
RestsOn = object_type(
    domain_traversal.RestsOnReport, name="RestsOn",
    description="Everything resting on one record ID (or source ID, or cited file path).",
    descriptions={"kind": "What `record` names: `record`, `source` or `source_file`."},
    extra={"count": strawberry.field(resolver=_count)})


async def run_rests_on(info: Ctx, record_id: str, *, set_id: str | None, direct: bool,
                       max_depth: int | None, kind: str = "record") -> RestsOn:
    """:func:`queries.traversal.rests_on` in a worker thread; ``max_depth`` defaults to the settings';
    ``kind`` what ``record_id`` names (``record``, ``source`` or ``source_file``)."""
    ctx = info.context
    report = await call(rests_on, ctx.store, record_id, set_id=set_id, direct_only=direct,
                        max_depth=ctx.settings.depth(max_depth), kind=kind)
    return report


# -- dossier ---------------------------------------------------------------------------------------

BlockCitationOut = object_type(BlockCitation, name="BlockCitationOut", names={"node": "nodeId"},
                               description="A citation inside a dossier block, in the order written.")
BlockQuotationOut = object_type(BlockQuotation, name="BlockQuotationOut", names={"node": "nodeId"},
                                description="A quotation a dossier block quotes.")


@strawberry.type(description="A section or statement of a document, as the dossier shows it.")
class DossierBlock:
    node_id: str
    document: str
    label: str
    kind: str
    order: int
    line: int
    level: int
    text: str
    markup: str
    parent: Optional[str]
    citations: list[BlockCitationOut]
    quotation: Optional[BlockQuotationOut]
    graph_node: strawberry.Private[object]

    @strawberry.field(description="The block as a graph node (Section or Statement).")
    def node(self) -> Optional[GraphNode]:
        return self.graph_node  # type: ignore[return-value]

    @classmethod
    def from_domain(cls, block: DocumentBlock, tree: DocumentTree) -> "DossierBlock":
        return cls(node_id=block.id, document=tree.id, label=block.label, kind=block.kind, order=block.order,
                   line=block.line, level=block.level, text=block.text, markup=block.markup, parent=block.parent,
                   citations=list(block.citations), quotation=block.quotation,
                   graph_node=wrap(block_node(block, tree)))


@strawberry.type(description="An annotation in a dossier: the heading (null for a lone annotating statement) and body.")
class DossierAnnotation:
    document: str
    section: Optional[DossierBlock]
    body: list[DossierBlock]


async def _related_record(self: dossier_domain.RelatedRecord, info: Ctx) -> Optional[Record]:
    return wrap(await info.context.loaders.node(self.node))


RelatedRecord = object_type(dossier_domain.RelatedRecord, names={"node": "nodeId"},
                            description="A record linked to the dossier's record, with the statement stating the link.",
                            extra={"record": strawberry.field(resolver=_related_record)})


@strawberry.type(description="A quotation behind the record's declaration or annotations.")
class DossierQuotation:
    statement: str
    quotation: BlockQuotationOut


@strawberry.type(description="Everything the ingested members say about one record of one set.")
class Dossier:
    record: Record
    declaration: Optional[DossierBlock]
    declaration_document: Optional[str]
    fields: list[DossierBlock]
    annotations: list[DossierAnnotation]
    supersedes: list[RelatedRecord]
    superseded_by: list[RelatedRecord]
    amendments: list[DossierBlock]
    part_of: list[RelatedRecord]
    parts: list[RelatedRecord]
    quotations: list[DossierQuotation]
    source_files: list[str]
    sources: list[str]
    limitations: list[DossierBlock]
    rests_on: RestsOn

    @classmethod
    def from_domain(cls, d: dossier_domain.RecordDossier) -> "Dossier":
        trees = {t.id: t for t in d.documents}

        def block(document: str | None, b: DocumentBlock | None) -> DossierBlock | None:
            if b is None or document not in trees:
                return None
            return DossierBlock.from_domain(b, trees[document])

        def blocks(document: str | None, bs: Iterable[DocumentBlock]) -> list[DossierBlock]:
            return [x for x in (block(document, b) for b in bs) if x is not None]

        quotations = [DossierQuotation(statement=s, quotation=q) for s, q in d.quotations]
        return cls(
            record=wrap(d.record),  # type: ignore[arg-type]
            declaration=block(d.declaration_document, d.declaration),
            declaration_document=d.declaration_document,
            fields=blocks(d.declaration_document, d.fields),
            annotations=[DossierAnnotation(document=a.document, section=block(a.document, a.section),
                                           body=blocks(a.document, a.body)) for a in d.annotations],
            supersedes=list(d.supersedes),
            superseded_by=list(d.superseded_by),
            amendments=[x for doc, b in d.amendments if (x := block(doc, b)) is not None],
            part_of=list(d.part_of),
            parts=list(d.parts),
            quotations=quotations,
            source_files=list(d.source_files),
            sources=list(d.sources),
            limitations=[x for doc, b in d.limitations if (x := block(doc, b)) is not None],
            rests_on=d.rests_on.report,
        )


async def run_dossier(info: Ctx, record_id: str, *, set_id: str | None, max_depth: int | None) -> Dossier:
    """The dossier of ``record_id`` in ``set_id`` (:func:`queries.dossier.record_dossiers`)."""
    ctx = info.context
    found = await call(record_dossiers, ctx.store, record_id, set_id=set_id,
                       max_depth=ctx.settings.depth(max_depth))
    return Dossier.from_domain(found[0])


# -- check -----------------------------------------------------------------------------------------

@strawberry.type(description="A validation finding (`citegraph check`): a stable `code`, `severity` error or warning, "
                             "where (`file`, `line`, 0 for whole-file findings) and the `nodeId` concerned.")
class Finding:
    code: str
    severity: str
    set: str
    file: str
    line: int
    node_id: str
    message: str
    key: strawberry.Private[tuple]

    @strawberry.field(description="The node concerned, when it is in the store.")
    async def node(self, info: Ctx) -> Optional[GraphNode]:
        return wrap(await info.context.loaders.node(self.node_id)) if self.node_id else None

    def cursor_key(self) -> tuple:
        return self.key

    @classmethod
    def from_domain(cls, f: DomainFinding, occurrence: int) -> "Finding":
        return cls(code=f.code, severity=f.severity, set=f.set, file=f.file, line=f.line, node_id=f.node,
                   message=f.message, key=(f.set, f.file, f.line, f.code, f.node, f.message, occurrence))


@strawberry.type(description="Validation of the stored graph: counts and findings (sorted by set, file, line, code).")
class CheckResult:
    errors: int
    warnings: int
    report: strawberry.Private[CheckReport]

    @relay.connection(Connection[Finding], description="Findings, optionally of one `severity` or `code`.")
    def findings(self, severity: Optional[str] = None, code: Optional[str] = None) -> Iterable[Finding]:
        seen: dict[tuple, int] = {}
        out = []
        for f in self.report.findings:
            base = (f.set, f.file, f.line, f.code, f.node, f.message)
            seen[base] = seen.get(base, -1) + 1
            if (severity is None or f.severity == severity) and (code is None or f.code == code):
                out.append(Finding.from_domain(f, seen[base]))
        return sorted(out, key=Finding.cursor_key)


async def run_check(info: Ctx, set_id: str | None) -> CheckResult:
    """:func:`queries.validation.check` over the stored graph (one set, or every set)."""
    report = await call(check, info.context.store, set_id=set_id)
    return CheckResult(errors=report.errors, warnings=report.warnings, report=report)
