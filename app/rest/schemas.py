"""Response models of the REST API (stable JSON keys), built from query results by ``from_domain``."""

from __future__ import annotations

from pydantic import BaseModel

from graph.model import Node
from queries.traversal import RestsOnReport

__all__ = ["RestsOnResultOut", "RestsOnOut", "DocumentOut", "DocumentsOut", "HealthOut"]


class RestsOnResultOut(BaseModel):
    """One statement resting on the record; see :class:`queries.traversal.RestsOnResult`."""

    set: str
    document: str
    section: str | None
    section_heading: str | None
    statement: str
    kind: str
    text: str
    line: int
    direct: bool
    depth: int
    path: list[str]


class RestsOnOut(BaseModel):
    """``GET /records/{id}/rests-on``: the record asked, the set filter, matching record nodes and
    the results in (set, document, order) order."""

    record: str
    set: str | None
    records: list[str]
    results: list[RestsOnResultOut]
    count: int

    @classmethod
    def from_domain(cls, report: RestsOnReport) -> "RestsOnOut":
        data = report.to_dict()
        return cls(**data, count=len(report.results))


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
