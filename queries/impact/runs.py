"""Impact runs: the stored answer of one push delivery (``POST /hooks/push``), the shape of
``GET /impact-runs`` and GraphQL ``impactRuns``."""

from __future__ import annotations

from dataclasses import dataclass

from queries.impact.repository_wide import RepositoryImpact

__all__ = ["RUN_STATES", "ImpactRun"]

RUN_STATES = ("queued", "running", "done", "failed")
"""States of an impact run, in the order a run goes through them (``failed`` instead of ``done``)."""


@dataclass(frozen=True, slots=True)
class ImpactRun:
    """One push delivery and the impact it ran.

    ``id`` (a positive number, as text), ``delivery`` (the host's delivery id, or the SHA-256 of the
    payload when the host sends none: a replayed delivery is the same run), ``host`` (``github``,
    ``gitlab`` or ``gitea``), ``repository`` (``owner/name`` as the payload names it), ``ref`` and
    ``after`` (the pushed ref and commit), ``clone`` (the local clone the run read, None when none
    under ``CITEGRAPH_REPO_ROOTS`` is that repository), ``state`` (one of :data:`RUN_STATES`),
    ``error`` (why it failed, else None), ``received_at`` and ``finished_at`` (UTC ISO 8601; None
    until finished) and ``result``: :func:`~queries.impact.impact_on_repository` at ``after``, once done.
    """

    id: str
    delivery: str
    host: str
    repository: str
    ref: str | None
    after: str | None
    clone: str | None
    state: str
    error: str | None
    received_at: str
    finished_at: str | None
    result: RepositoryImpact | None
