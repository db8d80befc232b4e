"""Impact analysis: what a move of the analysed source does to an analysis set's evidence.

Given a repository holding the set's source (``SRC-n``) and two revisions, ``--from``
(the revision the set's paths and quotations refer to: by default the source's pinned ``commit``)
and ``--to``, :func:`impact_of` answers:

1. **Changed files**: files added, modified, deleted or renamed between the revisions (git rename
   detection) that the set cites: by citation, mention or quotation attribution (every
   ``SourceFile`` node of the set attached to the source). A renamed file keeps its citations and is
   flagged ``renamed`` (old → new); its quotations are looked for under the new path.
2. **Quotation drift**: each quotation is checked against the content at ``--to`` (see
   :func:`normalise_quotation` and :class:`QuotationDrift` for the exact rules). No fuzzy matching.
3. **Suspects**: every statement, record (declaration), section and document that *rests on* a
   changed file or a non-intact quotation, by the rests-on semantics of :mod:`queries.traversal`
   generalised from records to start nodes that are ``SourceFile`` and ``Quotation`` nodes: one
   ``store.closure`` over :data:`~graph.model.DEPENDENCY_KINDS`, then :func:`~queries.traversal.explain`.
4. **Reviews**: a suspect reviewed at revision R (written by :func:`ingest.reviews.review_suspect`,
   read by :func:`reviews_of`) is not flagged again unless its evidence changed after R; see
   :func:`impact_of`, Notes.

Git access is injected: ``queries`` never imports ``ingest``; the faces pass an
:class:`ingest.git.GitRepository`, which satisfies :class:`SourceRepository`, and tests may pass any
object that does.

Every set pinned to one repository: :func:`impact_on_repository` (:mod:`~queries.impact.repository_wide`).
What is open of both causes (impact runs, and new versions of sets changing what statements rest
on): :func:`open_suspects` (:mod:`~queries.impact.open_suspects`).

Modules: :mod:`~queries.impact.repository` (what impact needs from git),
:mod:`~queries.impact.results` (the result shapes), :mod:`~queries.impact.quotations` (matching),
:mod:`~queries.impact.drift` (scope, changed files, quotation drift) and
:mod:`~queries.impact.suspects` (what rests on the changes, and reviews).
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Callable

from graph.model import EdgeKind
from graph.store import Direction, GraphStore
from queries.impact.drift import DriftChecker, file_delta, base_revision, impact_scope
from queries.impact.quotations import normalise_quotation
from queries.impact.repository import FileChangeLike, SourceRepository, SupportsContaining
from queries.impact.results import (
    FILE_STATUSES,
    QUOTATION_STATES,
    SUSPECT_CAUSES,
    SUSPECT_KINDS,
    ChangedFile,
    ImpactReport,
    ImpactSummary,
    Occurrence,
    QuotationContext,
    QuotationDrift,
    Review,
    Suspect,
)
from queries.impact.repository_wide import (PinnedSource, RepositoryImpact, RepositorySummary, impact_on_repository,
                                            pins, repository_identity)
from queries.impact.runs import RUN_STATES, ImpactRun
from queries.impact.open_suspects import OpenSuspects, open_suspects
from queries.impact.suspects import apply_reviews, node_order, suspects_of, reviews_of

__all__ = [
    "FILE_STATUSES",
    "QUOTATION_STATES",
    "SUSPECT_KINDS",
    "SUSPECT_CAUSES",
    "FileChangeLike",
    "SourceRepository",
    "SupportsContaining",
    "ChangedFile",
    "Occurrence",
    "QuotationContext",
    "QuotationDrift",
    "Review",
    "Suspect",
    "ImpactSummary",
    "ImpactReport",
    "normalise_quotation",
    "impact_of",
    "reviews_of",
    "PinnedSource",
    "RepositorySummary",
    "RepositoryImpact",
    "impact_on_repository",
    "pins",
    "repository_identity",
    "RUN_STATES",
    "ImpactRun",
    "OpenSuspects",
    "open_suspects",
]


def impact_of(
    store: GraphStore,
    repo: SourceRepository,
    *,
    to_revision: str,
    from_revision: str | None = None,
    set_id: str | None = None,
    source_id: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImpactReport:
    """What moving the analysed source from ``from_revision`` to ``to_revision`` does to a set.

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    repo : SourceRepository
        The source's repository, e.g. ``ingest.git.GitRepository(Path("../tolaria"))``.
    to_revision : str
        Revision to check against (any spelling ``repo.resolve`` accepts).
    from_revision : str, optional
        Revision the set's paths and quotations refer to; default: the source's pinned ``commit``.
    set_id : str, optional
        The analysis set; may be omitted when the store holds exactly one.
    source_id : str, optional
        ``SRC-n`` of the set's source the repository holds; may be omitted when the set has at
        most one source (with none, every cited file of the set is in scope).
    progress : callable, optional
        ``progress(done, total)`` as the run goes (units: steps; the diff, the reads of the
        quoted files, one per quotation checked, the suspects and the reviews).

    Returns
    -------
    ImpactReport
        Cited changed files, the drift of every quotation in scope, suspects with depth, path and
        trigger (conclusions first), suspects cleared by reviews, and a summary.

    Raises
    ------
    AnalysisSetNotFound, NodeNotFound
        ``set_id`` or ``source_id`` is not in the store.
    AmbiguousScope
        ``set_id`` (``source_id``) is omitted and the store (set) holds several.
    RevisionNotFound
        A revision, or the pinned commit when ``from_revision`` is omitted, is not in ``repo``.
    SourceRepositoryError
        ``repo`` cannot be read, or ``from_revision`` is omitted and the source pins no commit.

    Notes
    -----
    Suspects: the start nodes are the changed cited SourceFiles and the non-intact Quotations;
    everything that reaches a start along :data:`~graph.model.DEPENDENCY_KINDS` rests on it, with
    the best explanation of :func:`~queries.traversal.explain` (a quotation statement reaches its
    Quotation through QUOTES and its file through CITES ``form=quotation``). One ``store.closure``
    call for the run. Git: one diff, and one batch read of the quoted files per revision; quotations
    missing from their attributed files cost one search of the tree at ``to_revision`` (once per
    run): with a ``repo`` offering :class:`SupportsContaining` (``git grep``), a read of the files
    it names, else a batch read of the whole tree.

    Reviews: a suspect S with a review at revision R is moved from ``suspects`` to ``reviewed``
    when all of these hold:

    1. the review's fingerprint equals S's current one (S's text is what was reviewed);
    2. R is a commit of ``repo`` and R is ``to_revision`` or one of its ancestors (a review counts
       for every later run whose ``--to`` is at or after R, whatever ``--from`` is);
    3. S's evidence did not change after R: S rests on none of the changed cited files between R
       and ``to_revision``, and on none of the non-intact quotations whose outcome (state and the
       files holding it) at ``to_revision`` differs from its outcome at R.

    A review at a revision unknown to ``repo`` or on another branch therefore never hides a
    suspect. One more ``closure`` per distinct review revision that has to be checked.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> class Repo:  # the demo set cites no file; a repository with nothing changed
    ...     def resolve(self, revision): return revision * 40
    ...     def changes(self, old, new): return []
    ...     def read(self, revision, paths): return {p: None for p in paths}
    ...     def files(self, revision): return []
    ...     def is_ancestor(self, a, b): return True
    >>> report = impact_of(demo_store(), Repo(), from_revision="a", to_revision="b")
    >>> (report.from_revision[:3], report.to_revision[:3], report.suspects)
    ('aaa', 'bbb', ())
    """
    scope = impact_scope(store, set_id, source_id)
    steps = 4 + len(scope.quotations)
    tell = progress or (lambda done, total: None)
    tell(0, steps)
    to_commit = repo.resolve(to_revision)
    base = base_revision(repo, scope, from_revision)
    checker = DriftChecker(repo, scope)
    changed, uncited = file_delta(checker, base, to_commit)
    tell(1, steps)
    citing = store.edges([c.file for c in changed], kinds=[EdgeKind.CITES, EdgeKind.ATTRIBUTED_TO],
                         direction=Direction.IN)
    changed = [replace(c, cited_by=tuple(sorted({e.src for e in citing[c.file]}, key=node_order)))
               for c in changed]
    checker.prefetch(base, to_commit)
    checker.prefetch(base, base)  # for the old context of moved and broken quotations
    tell(2, steps)
    drift = []
    for n, q in enumerate(scope.quotations):
        drift.append(checker.drift(q, base, to_commit))
        tell(3 + n, steps)
    triggers = {c.file: c.describe() for c in changed}
    triggers.update({q.quotation: q.describe() for q in drift if q.state != "intact"})
    suspects, nodes = suspects_of(store, triggers)
    tell(steps - 1, steps)
    flagged, reviewed = apply_reviews(store, checker, scope, base, to_commit, drift, suspects, nodes)
    tell(steps, steps)
    return ImpactReport(
        set=scope.set_id, source=scope.source.id if scope.source is not None else None,
        from_revision=base, to_revision=to_commit, changes=tuple(changed), uncited_changes=tuple(uncited),
        quotations=tuple(drift), suspects=tuple(flagged), reviewed=tuple(reviewed))
