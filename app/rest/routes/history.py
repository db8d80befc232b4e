"""History routes: ``GET /sets/{set_id}/versions``, ``GET /sets/{set_id}/diff``,
``GET /systems/{system}/runs`` and ``GET /compare``.

Each body is exactly the ``--json`` of ``citegraph history``, ``diff``, ``runs`` and ``compare``
(the result as :func:`queries.shapes.plain` gives it), its model built from the result dataclass
(:func:`app.rest.shapes.response_model`). Every other read route takes ``?version=N``
(:func:`app.rest.deps.read_version`).
"""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Query

from app.rest.deps import Depth, SettingsDep, StoreDep, in_snapshot
from app.rest.shapes import response_model
from queries.history import SetDiff, SetHistory, diff_versions, history
from queries.runs import RunComparison, SystemRuns, compare_runs, runs_of
from queries.shapes import plain

__all__ = ["router", "SetHistoryOut", "SetDiffOut", "SystemRunsOut", "RunComparisonOut"]

SetHistoryOut = response_model(SetHistory)
"""``GET /sets/{set_id}/versions``: :class:`queries.history.SetHistory`."""
SetDiffOut = response_model(SetDiff)
"""``GET /sets/{set_id}/diff``: :class:`queries.history.SetDiff`."""
SystemRunsOut = response_model(SystemRuns)
"""``GET /systems/{system}/runs``: :class:`queries.runs.SystemRuns`."""
RunComparisonOut = response_model(RunComparison)
"""``GET /compare``: :class:`queries.runs.RunComparison`."""

router = APIRouter(tags=["history"])

Version = Annotated[Optional[int], Query(ge=1, description="A version number (GET /sets/{id}/versions lists them).")]


@router.get("/sets/{set_id}/versions", operation_id="listVersions", response_model=SetHistoryOut)
async def get_versions(set_id: str, store: StoreDep) -> dict:
    """The kept versions of the set, oldest first: number, ingest time, members' SHA-256, counts
    (``{"set", "latest", "versions": [...]}``)."""
    return plain(await in_snapshot(store, history, set_id))


@router.get("/sets/{set_id}/diff", operation_id="diffVersions", response_model=SetDiffOut)
async def get_diff(set_id: str, store: StoreDep, settings: SettingsDep,
                   from_: Annotated[Version, Query(alias="from")] = None,
                   to: Version = None, max_depth: Depth = None) -> dict:
    """What changed between versions ``from`` (default: the one before ``to``) and ``to``
    (default: the latest): members, records, statements, citations, quotations, Limitations rows
    and the rests-on answers that moved."""
    result = await in_snapshot(store, lambda view: diff_versions(view, set_id, from_, to,
                                                                 max_depth=settings.depth(max_depth)))
    return plain(result)


@router.get("/systems/{system}/runs", operation_id="listRuns", response_model=SystemRunsOut)
async def get_runs(system: str, store: StoreDep) -> dict:
    """The analysis sets analysing the system (its slug or name): run-id, date, pinned revisions,
    cutoff (``{"system", "name", "runs": [...]}``)."""
    return plain(await in_snapshot(store, runs_of, system))


@router.get("/compare", operation_id="compareRuns", response_model=RunComparisonOut)
async def get_compare(store: StoreDep, a: Annotated[str, Query(description="One run (analysis set).")],
                      b: Annotated[str, Query(description="Another run of the same system.")],
                      version_a: Version = None, version_b: Version = None) -> dict:
    """Where runs ``a`` and ``b`` of one system agree: matched records, unmatched ones with their
    candidates, source files per run, each run's Limitations; 422 when they analyse different
    systems."""
    result = await in_snapshot(store, lambda view: compare_runs(view, a, b, version_a=version_a, version_b=version_b))
    return plain(result)
