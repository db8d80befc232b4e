"""Impact routes: ``POST /impact`` and ``POST /impact/repository`` (every set pinned to a
repository), with their request and response models.

The response body is :func:`queries.shapes.plain` of :class:`queries.impact.ImpactReport`, the
same JSON ``citegraph impact --json`` prints; its model is built from that class
(:func:`app.rest.shapes.response_model`).
"""

from __future__ import annotations

from typing import Optional

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from app.rest.deps import SettingsDep, StoreDep, in_snapshot
from app.rest.shapes import response_model
from app.rest.openapi import errors
from app.wiring import allowed_repository, repository_names
from graph.store import GraphStore
from ingest.git import GitRepository
from queries.impact import ImpactReport, RepositoryImpact, impact_of, impact_on_repository
from queries.shapes import plain

__all__ = ["router", "ImpactIn", "ImpactOut", "RepositoryImpactIn", "RepositoryImpactOut"]

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


ImpactOut = response_model(ImpactReport, "ImpactOut")
"""``POST /impact``: :class:`queries.impact.ImpactReport` as :func:`queries.shapes.plain` gives it."""


def _impact(store: GraphStore, repo: GitRepository, body: ImpactIn) -> ImpactReport:
    from queries.history import store_at

    return impact_of(store_at(store, body.set, body.version), repo, to_revision=body.to, from_revision=body.from_,
                     set_id=body.set, source_id=body.source)


@router.post("/impact", operation_id="impact", response_model=ImpactOut, response_model_by_alias=True)
async def post_impact(body: ImpactIn, store: StoreDep, settings: SettingsDep) -> dict:
    """Changed cited files, quotation drift and suspects between two revisions of the set's source.
    The repository must lie under ``CITEGRAPH_REPO_ROOTS`` (else 403); a folder that is not a git
    repository, or an unknown or missing revision, is a 422."""
    repo = await run_in_threadpool(lambda: GitRepository(allowed_repository(settings, body.repo)))
    report = await in_snapshot(store, _impact, repo, body)
    return plain(report)


class RepositoryImpactIn(BaseModel):
    """``POST /impact/repository`` body: the repository (a folder on the server), the revision
    (default ``HEAD``) and optionally one set to narrow the search to."""

    model_config = ConfigDict(extra="forbid")

    repo: str = Field(description="Top folder of a git clone of the analysed source, on the server.")
    to: str = Field("HEAD", description="Revision to check every pinned set against.")
    set: Optional[str] = Field(None, description="Only this analysis set (default: every set pinning the repository).")


RepositoryImpactOut = response_model(RepositoryImpact, "RepositoryImpactOut")
"""``POST /impact/repository``: :class:`queries.impact.RepositoryImpact` as :func:`queries.shapes.plain`
gives it, the same JSON ``citegraph impact --repo R --json`` (without ``--set``) prints."""


@router.post("/impact/repository", operation_id="repositoryImpact", response_model=RepositoryImpactOut,
             response_model_by_alias=True, responses=errors(403, 404, 422))
async def post_repository_impact(body: RepositoryImpactIn, store: StoreDep, settings: SettingsDep) -> dict:
    """Impact on every set whose source register pins the repository (by a remote's URL, its
    ``owner/name`` or ``CITEGRAPH_REPO_NAMES``), each from its own pinned commit, ranked by
    conclusions affected; sets pinned to commits the clone lacks are listed in ``unanalysed``. The
    repository must lie under ``CITEGRAPH_REPO_ROOTS`` (else 403); an unknown revision is a 422."""
    def open_repository() -> tuple[GitRepository, list[str]]:
        repo = GitRepository(allowed_repository(settings, body.repo))
        return repo, repository_names(settings, repo)

    repo, names = await run_in_threadpool(open_repository)
    result = await in_snapshot(store, lambda view: impact_on_repository(view, repo, names=names,
                                                                        to_revision=body.to, set_id=body.set))
    return plain(result)
