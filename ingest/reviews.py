"""Writing reviews: that a suspect of impact analysis was checked against the source at a revision.

The write half of reviews; :func:`queries.impact.reviews_of` reads them and
:func:`queries.impact.impact_of` applies them.
"""

from __future__ import annotations

import re
from datetime import datetime, UTC
from typing import Protocol

from domain.ids import NodeId
from domain.model import Review
from graph.codec import review_props
from graph.errors import CitegraphError, NodeNotFound
from graph.model import Label, Node, review_node_id
from graph.store import GraphStore
from graph.writes import review_fingerprint

__all__ = ["REVIEWED_LABELS", "ResolvesRevisions", "review_suspect"]

REVIEWED_LABELS = frozenset({Label.STATEMENT, Label.RECORD, Label.SECTION, Label.DOCUMENT})
"""Labels of the nodes a review may be written for (the suspects impact analysis reports)."""

_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class ResolvesRevisions(Protocol):
    """What :func:`review_suspect` needs of a repository (:class:`ingest.git.GitRepository` has it)."""

    def resolve(self, revision: str) -> str:
        """The full commit id ``revision`` names; raises :class:`~graph.errors.RevisionNotFound`."""


def review_suspect(
    store: GraphStore,
    node_id: str,
    *,
    revision: str,
    reviewer: str,
    note: str | None = None,
    at: datetime | None = None,
    repo: ResolvesRevisions | None = None,
) -> Node:
    """Record in the graph that ``node_id`` was reviewed against the source at ``revision``.

    Parameters
    ----------
    store : GraphStore
        Where the Review node is written (:meth:`~graph.store.GraphStore.put_reviews`).
    node_id : str
        A statement, record, section or document node id, as :func:`queries.impact.impact_of`
        reports suspects (``tolaria/synthesis#L29``).
    revision : str
        The source revision the reviewer checked the node against. Without ``repo`` it must be a
        full commit id (40 or 64 hex digits), so that a branch name that later moves is never
        stored; with ``repo`` any spelling is resolved to one.
    reviewer : str
        Who reviewed.
    note : str, optional
        Free text.
    at : datetime, optional
        When; default now. Stored as UTC ISO 8601 (seconds).
    repo : ResolvesRevisions, optional
        Resolves and checks ``revision``.

    Returns
    -------
    Node
        The Review node as stored (:meth:`queries.impact.Review.from_node` reads it); reviewing the
        same node at the same revision again replaces the earlier review.

    Raises
    ------
    NodeNotFound
        ``node_id`` is not in the store (code ``unknown-suspect``).
    CitegraphError
        ``node_id`` is not a statement, record, section or document, or ``revision`` is not a full
        commit id and no ``repo`` is given (code ``revision-not-full``).
    RevisionNotFound
        ``repo`` does not hold ``revision``.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> store = demo_store()
    >>> r = review_suspect(store, "demo/synthesis#L4", revision="a" * 40, reviewer="ada",
    ...                    at=datetime(2026, 10, 20, 9, 30, tzinfo=UTC))
    >>> (r.id[:30], r.props["at"], [n.id[:30] for n in store.find_nodes(Label.REVIEW)])
    ('review/demo/synthesis#L4@aaaaa', '2026-10-20T09:30:00+00:00', ['review/demo/synthesis#L4@aaaaa'])
    """
    node = store.get_nodes([node_id]).get(node_id)
    if node is None:
        raise NodeNotFound(f"no node {node_id!r} in the store", code="unknown-suspect")
    if node.label not in REVIEWED_LABELS:
        raise CitegraphError(f"{node_id} is a {node.label}; only statements, records, sections and documents "
                             "are reviewed")
    if repo is not None:
        revision = repo.resolve(revision)
    elif not _HEX.fullmatch(revision):
        raise CitegraphError(f"revision {revision!r} is not a full commit id", code="revision-not-full")
    when = (at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    review = Node(review_node_id(node.id, revision), Label.REVIEW, node.set_id, None, review_props(
        Review(NodeId(node.id), revision, reviewer, when, note, review_fingerprint(node))))
    store.put_reviews([review])
    return review
