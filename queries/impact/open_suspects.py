"""Open suspects of both causes: what the latest impact run of each repository flagged and no review
has cleared since (``source-change``), and what rests on a part a new version of a set changed
(``analysis-change``, :mod:`graph.analysis_changes`), until a review clears it.

An analysis-change suspect is a statement resting on the changed part by the rests-on semantics of
:mod:`queries.traversal` (one closure over :data:`~graph.model.DEPENDENCY_KINDS` from every changed
part, then :func:`~queries.traversal.explain`): a changed declaration starts from every record
carrying that record ID, in any set (as ``rests-on RECORD`` does without ``--set``), a changed
quotation or source pin from its own node (their ids are the set's own). It is cleared by a review
of the statement at the revision :attr:`~graph.analysis_changes.PartChange.digest` (the digest of
the version that made the change) whose fingerprint is the statement's current one.

A source-change suspect of a run is cleared by a review at the run's ``to`` revision with the
node's current fingerprint (one at an earlier revision was applied by the run itself); a node no
longer in the store is not listed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Iterable

from graph.analysis_changes import PartChange
from graph.errors import RecordNotFound
from graph.model import Label, Node
from graph.store import GraphStore
from graph.writes import review_fingerprint
from queries.impact.results import SUSPECT_CAUSES, Review, Suspect
from queries.impact.runs import ImpactRun
from queries.impact.suspects import suspects_of
from queries.names import require_set
from queries.traversal import starts_named

__all__ = ["OpenSuspects", "open_suspects"]


@dataclass(frozen=True, slots=True)
class OpenSuspects:
    """Answer of :func:`open_suspects`: the ``set`` asked for (None: every set), ``suspects`` open
    (sorted by :meth:`Suspect.sort_key`, then cause), and how many of each cause
    (``source_change``, ``analysis_change``). The JSON of ``citegraph suspects --json`` and of
    ``GET /suspects`` is :func:`queries.shapes.plain` of it."""

    set: str | None
    suspects: tuple[Suspect, ...]
    source_change: int
    analysis_change: int


def _analysis_suspects(store: GraphStore, changes: Iterable[PartChange]) -> list[Suspect]:
    """Statements resting on the changed parts, each with the change its best path ends at."""
    cause: dict[str, PartChange] = {}
    for change in sorted(changes, key=lambda c: (c.set_id, c.to_version, c.part, c.node)):
        if change.part == "declaration":
            try:
                starts = [n.id for n in starts_named(store, change.name, kind="record")[1]]
            except RecordNotFound:
                continue
        else:
            starts = [change.node]
        for start in starts:
            cause.setdefault(start, change)
    present = store.get_nodes(sorted(cause))
    triggers = {start: change.describe() for start, change in cause.items() if start in present}
    found, _ = suspects_of(store, triggers)
    return [replace(s, cause=SUSPECT_CAUSES[1], version_change=cause[s.trigger]) for s in found
            if s.kind == "statement"]


def _reviewed(reviews: dict[str, list[Review]], node: Node | None, revision: str) -> Review | None:
    """The latest review of ``node`` at ``revision`` vouching for its current content, if any."""
    if node is None:
        return None
    fingerprint = review_fingerprint(node)
    found = [r for r in reviews.get(node.id, ()) if r.revision == revision and r.fingerprint == fingerprint]
    return max(found, key=lambda r: r.at) if found else None


def open_suspects(store: GraphStore, *, set_id: str | None = None, runs: Iterable[ImpactRun] = ()) -> OpenSuspects:
    """Suspects not cleared by a review, of both causes (rules in the module docstring).

    Parameters
    ----------
    store : GraphStore
        A store keeping versions (:class:`~graph.store.KeepsVersions`); one that keeps none has no
        analysis-change suspects.
    set_id : str, optional
        Only suspects in this analysis set (a change in another set that it rests on included).
    runs : iterable of ImpactRun
        The impact runs whose suspects count, typically the latest of each repository; runs not
        ``done`` contribute nothing.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store.
    """
    require_set(store, set_id)
    part_changes = getattr(store, "part_changes", None)
    changes = [c for found in (part_changes() if part_changes else {}).values() for c in found]
    candidates = _analysis_suspects(store, changes)
    by_revision = [(s, s.version_change.digest) for s in candidates]  # type: ignore[union-attr]
    for run in runs:
        if run.state == "done" and run.result is not None:
            by_revision += [(s, report.to_revision) for report in run.result.sets for s in report.suspects]
    if set_id is not None:
        by_revision = [(s, r) for s, r in by_revision if s.set == set_id]
    nodes = store.get_nodes(sorted({s.node for s, _ in by_revision}))
    reviews: dict[str, list[Review]] = {}
    for node in store.find_nodes(Label.REVIEW, set_id=set_id):
        review = Review.from_node(node)
        reviews.setdefault(review.node, []).append(review)
    out = [s for s, revision in by_revision
           if s.node in nodes and _reviewed(reviews, nodes[s.node], revision) is None]
    out.sort(key=lambda s: (*s.sort_key(), SUSPECT_CAUSES.index(s.cause)))
    return OpenSuspects(set_id, tuple(out), sum(s.cause == SUSPECT_CAUSES[0] for s in out),
                        sum(s.cause == SUSPECT_CAUSES[1] for s in out))
