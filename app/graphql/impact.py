"""GraphQL types of the ``impact`` field: the :mod:`queries.impact` result shapes, built by
:func:`app.graphql.shapes.object_type` (names camel-cased by strawberry, ``old_path`` → ``oldPath``;
``from_revision`` is exposed as ``from``, ``to_revision`` as ``to``). Resolvers return the
:class:`queries.impact.ImpactReport` itself."""

from __future__ import annotations

from app.graphql.shapes import object_type
from graph.analysis_changes import PartChange
from queries import impact as domain

__all__ = ["Impact", "RepositoryImpact", "ImpactRun", "OpenSuspects"]

object_type(domain.ChangedFile, description="A cited source file changed between the two revisions.")
object_type(domain.Occurrence, description="Occurrences of a quotation in one file.")
object_type(domain.QuotationContext, description="Lines of one file version around a quotation (1-based, inclusive).")
object_type(domain.QuotationDrift, description="A quotation's state at `to`: intact, moved, ambiguous or broken.")
object_type(domain.Review, description="A suspect reviewed at a source revision.")
object_type(PartChange, description="What a new version of a set changed in a declaration, quotation or source pin "
                                    "(old → new, the versions; `digest`: the revision a review is written at).")
object_type(domain.Suspect,
            description="A statement, record, section or document resting on changed evidence; `cause` "
                        "`source-change` (the analysed source moved) or `analysis-change` (a new version of a set).")
object_type(domain.ImpactSummary, description="Counts of an impact report.")
Impact = object_type(domain.ImpactReport, name="Impact",
                     description="What moving the analysed source between two revisions does to an analysis set.")
object_type(domain.PinnedSource, description="A source of a set whose register pins the repository, and whether it "
                                             "was analysed (`analysed`, `missing-commit`, `unpinned`).")
object_type(domain.RepositorySummary, description="Counts over every set pinned to a repository.")
RepositoryImpact = object_type(domain.RepositoryImpact, name="RepositoryImpact",
                               description="Impact on every set whose source register pins a repository, each from "
                                           "its own pinned commit, ranked by conclusions affected.")
ImpactRun = object_type(domain.ImpactRun, name="ImpactRun",
                        description="One push delivery and the impact it ran (`POST /hooks/push`).")
OpenSuspects = object_type(domain.OpenSuspects, name="OpenSuspects",
                           description="Suspects no review has cleared, of both causes: the latest impact run of "
                                       "each repository, and analysis changes.")
