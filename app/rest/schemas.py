"""Response models of the REST API (stable JSON keys): built from the queries' result dataclasses
(:func:`app.rest.shapes.response_model`), or built from query results by ``from_domain``."""

from __future__ import annotations

import json
from typing import Any, Optional

from fastapi.responses import Response
from pydantic import BaseModel

from app.rest.shapes import listing, response_model
from ingest.loader import DocumentOutcome, IngestReport
from queries.catalog import DocumentSummary, SetSummary
from queries.records import Citation, RecordSummary
from queries.search import SearchHit, SearchReport
from queries.shapes import plain
from queries.traversal import RestsOnReport, RestsOnResult

__all__ = ["RestsOnOut", "rests_on_body", "rests_on_answer", "model_json", "DocumentOut", "DocumentsOut", "HealthOut"]


response_model(RestsOnResult, "RestsOnResultOut")
RestsOnOut = response_model(RestsOnReport, "RestsOnOut", added={"count": int})
"""``GET /records/{id}/rests-on`` (and ``/sources/{id}/rests-on``, ``/source-files/{path}/rests-on``):
:class:`queries.traversal.RestsOnReport` and its ``count`` of results (:func:`rests_on_body`), answered
already encoded (:func:`rests_on_answer`)."""


def rests_on_body(report: RestsOnReport) -> dict:
    """The REST body of a rests-on answer: ``rests-on --json`` plus ``count``."""
    return {**plain(report), "count": len(report.results)}


def rests_on_answer(report: RestsOnReport) -> Response:
    """The REST answer of a rests-on report: :func:`rests_on_body` encoded by :func:`model_json`."""
    return model_json(rests_on_body(report))


def model_json(body: Any) -> Response:
    """``body`` encoded as FastAPI encodes a route's response model, byte for byte: compact JSON
    (no spaces), UTF-8 as is (no ``\\u`` escapes but control characters'), ``application/json``.

    For a body that already has its model's shape (:func:`queries.shapes.plain` of the result
    dataclass the model is built from: the same keys in the same order, JSON values), so that the
    route skips the model's validation and serialisation, which cost as much as the query for a
    large answer (0.6 ms of a 69 KB rests-on answer). The route keeps ``response_model`` for its
    OpenAPI schema.
    """
    return Response(json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(),
                    media_type="application/json")


DocumentOut = response_model(DocumentSummary, "DocumentOut")
"""One ingested member: :class:`queries.catalog.DocumentSummary`."""


DocumentsOut = listing(DocumentOut, "DocumentsOut", "``GET /documents``: every member, sorted by id, and their count.")


class HealthOut(BaseModel):
    """``GET /health``: ``status`` ok, the store kind (``embedded`` or ``neo4j``) and its node/edge
    totals; with ``CITEGRAPH_READ_TOKEN`` set, ``status`` alone unless the request has a token."""

    status: str
    store: Optional[str] = None
    nodes: Optional[int] = None
    edges: Optional[int] = None


class Page(BaseModel):
    """Paging of a list response: ``offset`` and ``limit`` asked, ``total`` matching items."""

    offset: int
    limit: int
    total: int


RecordOut = response_model(RecordSummary, "RecordOut")
"""One record: :class:`queries.records.RecordSummary`."""


class RecordsOut(BaseModel):
    """``GET /records``: one page of records sorted by node id."""

    data: list[RecordOut]
    page: Page


CitationOut = response_model(Citation, "CitationOut")
"""A statement citing a record: :class:`queries.records.Citation`."""


CitationsOut = listing(CitationOut, "CitationsOut", "``GET /records/{id}/citations``: every citation, sorted by document and line.")


response_model(SearchHit, "SearchHitOut")
SearchOut = response_model(SearchReport, "SearchOut")
"""``GET /search``: :class:`queries.search.SearchReport` as :func:`queries.shapes.plain` gives it."""


SetOut = response_model(SetSummary, "SetOut")
"""One analysis set, its members and sizes: :class:`queries.catalog.SetSummary`."""


SetsOut = listing(SetOut, "SetsOut", "``GET /sets``: every analysis set, sorted by id.")


response_model(DocumentOutcome, "DocumentOutcomeOut")
IngestOut = response_model(IngestReport, "IngestOut")
"""``POST /sets`` and ``PUT /documents/{id}``: :class:`ingest.loader.IngestReport`, the sets written
and every file's outcome."""
