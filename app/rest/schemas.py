"""Response models of the REST API (stable JSON keys): built from the queries' result dataclasses
(:func:`app.rest.shapes.response_model`), or built from query results by ``from_domain``."""

from __future__ import annotations

from pydantic import BaseModel

from app.rest.shapes import response_model
from graph.model import Node
from queries.shapes import plain
from queries.search import SearchHit, SearchReport
from queries.traversal import RestsOnReport, RestsOnResult

__all__ = ["RestsOnOut", "rests_on_body", "DocumentOut", "DocumentsOut", "HealthOut"]


response_model(RestsOnResult, "RestsOnResultOut")
RestsOnOut = response_model(RestsOnReport, "RestsOnOut", extra={"count": int})
"""``GET /records/{id}/rests-on`` (and ``/sources/{id}/rests-on``, ``/source-files/{path}/rests-on``):
:class:`queries.traversal.RestsOnReport` and its ``count`` of results (:func:`rests_on_body`)."""


def rests_on_body(report: RestsOnReport) -> dict:
    """The REST body of a rests-on answer: ``rests-on --json`` plus ``count``."""
    return {**plain(report), "count": len(report.results)}


class DocumentOut(BaseModel):
    """One ingested member."""

    id: str
    set: str
    role: str
    title: str
    member_type: str
    format: str
    path: str
    sha256: str
    size: int

    @classmethod
    def from_domain(cls, node: Node) -> "DocumentOut":
        p = node.props
        return cls(id=node.id, set=node.set_id or "", role=p["role"], title=p["title"],
                   member_type=p["member_type"], format=p["format"], path=p["path"], sha256=p["sha256"],
                   size=p["size"])


class DocumentsOut(BaseModel):
    """``GET /documents``: every member, sorted by id, and their count."""

    data: list[DocumentOut]
    count: int


class HealthOut(BaseModel):
    """``GET /health``: ``status`` ok, the store kind and its node/edge totals."""

    status: str
    store: str
    nodes: int
    edges: int


class Page(BaseModel):
    """Paging of a list response: ``offset`` and ``limit`` asked, ``total`` matching items."""

    offset: int
    limit: int
    total: int


class RecordOut(BaseModel):
    """One record; see :class:`queries.records.RecordSummary`."""

    id: str
    record_id: str
    set: str
    analyst: str | None
    kind: str
    slug: str
    declared_in: str | None
    label: str | None
    citations: int


class RecordsOut(BaseModel):
    """``GET /records``: one page of records sorted by node id."""

    data: list[RecordOut]
    page: Page


class CitationOut(BaseModel):
    """A statement citing a record; see :class:`queries.records.Citation`."""

    record: str
    statement: str
    document: str
    kind: str
    form: str
    token: str
    text: str
    line: int


class CitationsOut(BaseModel):
    """``GET /records/{id}/citations``: every citation, sorted by document and line."""

    data: list[CitationOut]
    count: int


response_model(SearchHit, "SearchHitOut")
SearchOut = response_model(SearchReport, "SearchOut")
"""``GET /search``: :class:`queries.search.SearchReport` as :func:`queries.shapes.plain` gives it."""


class SetOut(BaseModel):
    """One analysis set, its members and sizes; see :class:`queries.catalog.SetSummary`."""

    id: str
    system: str | None
    run_id: str | None
    reviewed_boundary: str | None
    documents: list[str]
    statements: int
    records: int
    sources: int
    source_files: int
    quotations: int


class SetsOut(BaseModel):
    """``GET /sets``: every analysis set, sorted by id."""

    data: list[SetOut]
    count: int


class DocumentOutcomeOut(BaseModel):
    """What ingest did with one file; see :class:`ingest.loader.DocumentOutcome`."""

    path: str
    document: str | None
    status: str
    statements: int
    sections: int
    records: int
    citations: int
    error: str | None


class IngestOut(BaseModel):
    """``POST /sets`` and ``PUT /documents/{id}``: the sets written and every file's outcome."""

    sets: list[str]
    documents: list[DocumentOutcomeOut]

    @classmethod
    def from_domain(cls, report) -> "IngestOut":
        return cls(sets=list(report.sets),
                   documents=[DocumentOutcomeOut(**{k: getattr(d, k) for k in DocumentOutcomeOut.model_fields})
                              for d in report.documents])
