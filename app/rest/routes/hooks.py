"""Push hooks and impact runs: ``POST /hooks/push``, ``GET /impact-runs``, ``GET /impact-runs/{run_id}``,
and ``GET /suspects`` (what is open of the latest runs and of analysis changes).

A push delivery of GitHub, GitLab or Gitea (verified by :func:`app.hooks.read_push`) for a
repository with a clone under ``CITEGRAPH_REPO_ROOTS`` becomes an impact run: the answer is 202 with
the queued run, and :func:`queries.impact.impact_on_repository` runs after the response is sent (a
background task), its result stored in the run log. A replayed delivery (same delivery id) answers
200 with the run it already made and runs nothing. Events other than pushes answer 204.
"""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, BackgroundTasks, Query, Request, Response
from starlette.concurrency import run_in_threadpool

from app.rest.deps import SettingsDep, StoreDep
from app.rest.openapi import errors
from app.hooks import find_clone, latest_runs, read_push, run_log
from app.rest.shapes import listing, response_model
from app.settings import Settings
from graph.errors import NotFound
from graph.store import GraphStore, read_snapshot
from queries.impact import ImpactRun, OpenSuspects, impact_on_repository, open_suspects
from queries.shapes import plain

__all__ = ["hooks_router", "runs_router", "ImpactRunOut", "ImpactRunsOut", "OpenSuspectsOut"]

hooks_router = APIRouter(tags=["hooks"])
runs_router = APIRouter(tags=["impact"])

ImpactRunOut = response_model(ImpactRun, "ImpactRunOut")
"""An impact run: :class:`queries.impact.ImpactRun` as :func:`queries.shapes.plain` gives it."""
ImpactRunsOut = listing(ImpactRunOut, "ImpactRunsOut", "Impact runs, newest first, and their count.")
OpenSuspectsOut = response_model(OpenSuspects, "OpenSuspectsOut")
"""Open suspects of both causes: :class:`queries.impact.OpenSuspects` as :func:`queries.shapes.plain` gives it."""


def _run_impact(store: GraphStore, settings: Settings, run: ImpactRun, push, found) -> None:
    """The background part: fetch when configured, then impact of the pushed commit; stored in the log."""
    from ingest.git import fetch_clone

    log = run_log(settings)
    if found is None:
        log.update(run.id, state="failed", error=f"no clone of {push.repository} under CITEGRAPH_REPO_ROOTS "
                                                  "(its remotes or CITEGRAPH_REPO_NAMES must name it)")
        return
    repo, names = found
    log.update(run.id, state="running")
    try:
        if settings.hook_fetch:
            fetch_clone(repo)
        result = read_snapshot(store, lambda view: impact_on_repository(view, repo, names=names,
                                                                        to_revision=push.after or "HEAD"))
    except Exception as exc:  # noqa: BLE001 - the run records every failure; nothing escapes a background task
        log.update(run.id, state="failed", error=str(exc) or type(exc).__name__)
        return
    log.update(run.id, state="done", result=result)


@hooks_router.post("/hooks/push", operation_id="pushHook", status_code=202, response_model=ImpactRunOut,
                   responses={200: {"model": ImpactRunOut, "description": "A replayed delivery: the run it made."},
                              204: {"description": "Not a push event: nothing to run."},
                              **errors(401, 403, 413, 422)})
async def post_push(request: Request, background: BackgroundTasks, store: StoreDep, settings: SettingsDep,
                    response: Response):
    """A push delivery of GitHub (``X-Hub-Signature-256``), Gitea (``X-Gitea-Signature``) or GitLab
    (``X-Gitlab-Token``), signed with ``CITEGRAPH_HOOK_SECRET``: queues an impact run of every set
    pinning the pushed repository at the pushed commit (202). A replay of a delivery answers its run
    (200); another event, 204. Unsigned or wrongly signed: 401; hooks off: 403; a payload naming no
    repository: 422."""
    body = await request.body()
    secret = settings.hook_secret.get_secret_value() if settings.hook_secret is not None else None
    push = read_push(request.headers, body, secret=secret)
    if push.event is None:
        return Response(status_code=204)
    found = await run_in_threadpool(find_clone, settings, push)
    run, created = await run_in_threadpool(run_log(settings).claim, push, str(found[0].path) if found else None)
    if not created:
        response.status_code = 200
        return plain(run)
    background.add_task(_run_impact, store, settings, run, push, found)
    return plain(run)


@runs_router.get("/impact-runs", operation_id="listImpactRuns", response_model=ImpactRunsOut)
async def get_impact_runs(settings: SettingsDep,
                          repository: Annotated[Optional[str], Query(description="Only runs of this owner/name.")] = None,
                          limit: Annotated[int, Query(ge=1, le=500, description="At most this many runs.")] = 50) -> dict:
    """Impact runs made by push hooks, newest first."""
    runs = await run_in_threadpool(run_log(settings).runs, repository=repository, limit=limit)
    return {"data": [plain(r) for r in runs], "count": len(runs)}


@runs_router.get("/impact-runs/{run_id}", operation_id="getImpactRun", response_model=ImpactRunOut)
async def get_impact_run(run_id: str, settings: SettingsDep) -> dict:
    """One impact run; 404 when there is none with that id."""
    run = await run_in_threadpool(run_log(settings).get, run_id)
    if run is None:
        raise NotFound(f"no impact run {run_id!r}", hint="GET /impact-runs lists them")
    return plain(run)


@runs_router.get("/suspects", operation_id="listSuspects", response_model=OpenSuspectsOut, responses=errors(404))
async def get_suspects(store: StoreDep, settings: SettingsDep,
                       set: Annotated[Optional[str], Query(description="Only suspects in this analysis set.")] = None
                       ) -> dict:
    """Suspects no review has cleared: those of the latest impact run of each repository
    (``source-change``) and those resting on a part a new version of a set changed
    (``analysis-change``); 404 for an unknown set."""
    def run() -> OpenSuspects:
        return open_suspects(store, set_id=set, runs=latest_runs(run_log(settings)))

    return plain(await run_in_threadpool(run))
