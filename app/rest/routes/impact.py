"""Impact route: ``POST /impact`` (issue #6), with its request and response models.

The response body is exactly :meth:`queries.impact.ImpactReport.to_dict`, the same JSON
``citegraph impact --json`` prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.rest.deps import SettingsDep, StoreDep, in_snapshot
from app.wiring import allowed_repository
from graph.store import GraphStore
from ingest.git import GitRepository
from queries.impact import ImpactReport, impact_of

__all__ = ["router", "ImpactIn", "ImpactOut"]

router = APIRouter(tags=["impact"])


class ImpactIn(BaseModel):
    """``POST /impact`` body: the repository (a folder on the server), the set and source (optional
    when unambiguous) and the two revisions (``from`` defaults to the source's pinned commit)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    repo: str = Field(description="Top folder of a git clone of the analysed source, on the server.")
    set: Optional[str] = Field(None, description="Analysis set; optional when the store holds one.")
    source: Optional[str] = Field(None, description="The set's source the repository holds, e.g. SRC-1.")
    from_: Optional[str] = Field(None, alias="from", description="Revision the set refers to; default: pinned.")
    to: str = Field(description="Revision to check against.")
    version: Optional[int] = Field(None, ge=1, description="Version of the set to check (default: the latest).")


class ChangedFileOut(BaseModel):
    """A cited file changed between the revisions; see :class:`queries.impact.ChangedFile`."""

    file: str
    path: str
    status: str
    old_path: Optional[str]
    new_path: Optional[str]
    cited_by: list[str]
    renamed: bool


class OccurrenceOut(BaseModel):
    """Occurrences of a quotation in one file."""

    path: str
    count: int


class QuotationContextOut(BaseModel):
    """Lines of one file version around a quotation."""

    path: str
    revision: str
    start_line: int
    end_line: int
    text: str


class QuotationDriftOut(BaseModel):
    """One quotation's state at ``to``; see :class:`queries.impact.QuotationDrift`."""

    quotation: str
    statement: Optional[str]
    document: str
    path: str
    checked_path: Optional[str]
    text: str
    state: str
    found_in: list[OccurrenceOut]
    reason: str
    old: Optional[QuotationContextOut]
    new: Optional[QuotationContextOut]
    diff: str


class ReviewOut(BaseModel):
    """A stored review; see :class:`queries.impact.Review`."""

    id: str
    node: str
    set: str
    revision: str
    reviewer: str
    at: str
    note: Optional[str]
    fingerprint: str


class SuspectOut(BaseModel):
    """A node resting on changed evidence; see :class:`queries.impact.Suspect`."""

    node: str
    kind: str
    set: str
    document: Optional[str]
    section: Optional[str]
    section_heading: Optional[str]
    text: str
    line: Optional[int]
    order: int
    conclusion: bool
    depth: int
    path: list[str]
    edges: list[str]
    trigger: str
    change: str
    review: Optional[ReviewOut]


class ImpactSummaryOut(BaseModel):
    """Counts; see :class:`queries.impact.ImpactSummary`."""

    changed_files: int
    uncited_changes: int
    intact: int
    moved: int
    ambiguous: int
    broken: int
    statements: int
    records: int
    sections: int
    documents: int
    conclusions: int
    reviewed: int


class ImpactOut(BaseModel):
    """``POST /impact``: :meth:`queries.impact.ImpactReport.to_dict`."""

    model_config = ConfigDict(populate_by_name=True)

    set: str
    source: Optional[str]
    from_: str = Field(alias="from")
    to: str
    summary: ImpactSummaryOut
    changes: list[ChangedFileOut]
    uncited_changes: list[str]
    quotations: list[QuotationDriftOut]
    suspects: list[SuspectOut]
    reviewed: list[SuspectOut]

    @classmethod
    def from_domain(cls, report: ImpactReport) -> "ImpactOut":
        return cls.model_validate(report.to_dict())


def _impact(store: GraphStore, repo: GitRepository, body: ImpactIn) -> ImpactReport:
    from queries.history import store_at

    return impact_of(store_at(store, body.set, body.version), repo, to_revision=body.to, from_revision=body.from_,
                     set_id=body.set, source_id=body.source)


@router.post("/impact", response_model=ImpactOut, response_model_by_alias=True)
async def post_impact(body: ImpactIn, store: StoreDep, settings: SettingsDep) -> ImpactOut:
    """Changed cited files, quotation drift and suspects between two revisions of the set's source.
    The repository must lie under ``CITEGRAPH_REPO_ROOTS`` (else 403); a folder that is not a git
    repository, or an unknown or missing revision, is a 422."""
    repo = await run_in_threadpool(lambda: GitRepository(allowed_repository(settings, body.repo)))
    report = await in_snapshot(store, _impact, repo, body)
    return ImpactOut.from_domain(report)
