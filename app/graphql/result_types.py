"""GraphQL types of query results, built by :func:`app.graphql.shapes.object_type` from the result
dataclasses themselves: rests-on (:mod:`queries.traversal`), record dossiers (:mod:`queries.dossier`,
their blocks :class:`queries.documents.DocumentBlock`) and check findings (:mod:`queries.validation`,
a Relay connection)."""

from __future__ import annotations

from typing import Optional
from collections.abc import Iterable

import strawberry
from strawberry import relay
from strawberry.types import Info

from app.graphql.context import Context, call
from app.graphql.pagination import connection_of
from app.graphql.shapes import object_type
from app.graphql.types import GraphNode, Record, Statement, wrap, wrap_as
from queries import dossier as dossier_domain
from queries.documents import BlockCitation, BlockQuotation, DocumentBlock
from queries.dossier import record_dossiers
from queries import traversal as domain_traversal
from queries.traversal import rests_on
from queries.validation import CheckReport, check
from queries.validation import Finding as DomainFinding

__all__ = ["RestsOnResult", "RestsOn", "Dossier", "Finding", "CheckResult", "run_rests_on", "run_dossier", "run_check"]

Ctx = Info[Context, None]


# -- rests on --------------------------------------------------------------------------------------

async def _statement_node(self: domain_traversal.RestsOnResult, info: Ctx) -> Optional[Statement]:
    return wrap_as(Statement, await info.context.loaders.node(self.statement))


def _count(self: domain_traversal.RestsOnReport) -> int:
    return len(self.results)


RestsOnResult = object_type(
    domain_traversal.RestsOnResult, description="A statement resting on a record, with the path explaining it.",
    added={"statement_node": strawberry.field(
        resolver=_statement_node, description="The resting statement as a node (document, section, citations …).")})
RestsOn = object_type(
    domain_traversal.RestsOnReport, name="RestsOn",
    description="Everything resting on one record ID (or source ID, or cited file path).",
    descriptions={"kind": "What `record` names: `record`, `source` or `source_file`."},
    added={"count": strawberry.field(resolver=_count)})


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


async def _block_node(self: DocumentBlock, info: Ctx) -> Optional[GraphNode]:
    return wrap(await info.context.loaders.node(self.id))


DossierBlock = object_type(
    DocumentBlock, name="DossierBlock", description="A section or statement of a document, as the dossier shows it.",
    names={"id": "nodeId"}, hidden=("gap", "props"),
    added={"node": strawberry.field(resolver=_block_node, description="The block as a graph node (Section or Statement).")})
DossierAnnotation = object_type(
    dossier_domain.Annotation, name="DossierAnnotation",
    description="An annotation in a dossier: the heading (null for a lone annotating statement) and body.")


async def _related_record(self: dossier_domain.RelatedRecord, info: Ctx) -> Optional[Record]:
    return wrap_as(Record, await info.context.loaders.node(self.node))


RelatedRecord = object_type(dossier_domain.RelatedRecord, names={"node": "nodeId"},
                            description="A record linked to the dossier's record, with the statement stating the link.",
                            added={"record": strawberry.field(resolver=_related_record)})
DossierQuotation = object_type(dossier_domain.Quoted, name="DossierQuotation",
                               description="A quotation behind the record's declaration or annotations.")


def _dossier_record(self: dossier_domain.RecordDossier) -> Record:
    return wrap_as(Record, self.stored)


def _dossier_rests_on(self: dossier_domain.RecordDossier) -> RestsOn:
    return self.rests_on.report


Dossier = object_type(
    dossier_domain.RecordDossier, name="Dossier",
    description="Everything the ingested members say about one record of one set.", hidden=("documents",),
    overrides={"record": (Record, strawberry.field(resolver=_dossier_record)),
               "rests_on": (RestsOn, strawberry.field(resolver=_dossier_rests_on))})


async def run_dossier(info: Ctx, record_id: str, *, set_id: str | None, max_depth: int | None) -> Dossier:
    """The dossier of ``record_id`` in ``set_id`` (:func:`queries.dossier.record_dossiers`)."""
    ctx = info.context
    found = await call(record_dossiers, ctx.store, record_id, set_id=set_id,
                       max_depth=ctx.settings.depth(max_depth))
    return found[0]


# -- check -----------------------------------------------------------------------------------------

async def _finding_node(self: DomainFinding, info: Ctx) -> Optional[GraphNode]:
    return wrap(await info.context.loaders.node(self.node)) if self.node else None


def _finding_key(f: DomainFinding) -> tuple:
    return (f.set, f.file, f.line, f.code, f.node, f.message)


Finding = object_type(
    DomainFinding, description="A validation finding (`citegraph check`): a stable `code`, `severity` error or "
                               "warning, where (`file`, `line`, 0 for whole-file findings) and the `nodeId` concerned.",
    names={"node": "nodeId"}, key=_finding_key, repeats=True,
    added={"graph_node": strawberry.field(name="node", resolver=_finding_node,
                                          description="The node concerned, when it is in the store.")})


def _findings(self: CheckReport, severity: Optional[str] = None, code: Optional[str] = None) -> Iterable[Finding]:
    chosen = [f for f in self.findings
              if (severity is None or f.severity == severity) and (code is None or f.code == code)]
    return sorted(chosen, key=_finding_key)  # equal findings keep their order: their ranks in the cursor


CheckResult = object_type(
    CheckReport, name="CheckResult",
    description="Validation of the stored graph: counts and findings (sorted by set, file, line, code).",
    overrides={"findings": (connection_of(Finding), relay.connection(
        connection_of(Finding), resolver=_findings, description="Findings, optionally of one `severity` or `code`."))})


async def run_check(info: Ctx, set_id: str | None) -> CheckResult:
    """:func:`queries.validation.check` over the stored graph (one set, or every set)."""
    return await call(check, info.context.store, set_id=set_id)
