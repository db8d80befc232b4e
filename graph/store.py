"""The store contract every backend implements: a few batched primitives with exact edge behaviour.

Semantics (depth, paths, ordering, deduplication) live once in ``queries/``; a store only answers
these primitives. The same contract suite (``tests/contract/``) runs against every backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Collection, ContextManager, Iterable, Mapping, Protocol, Sequence, runtime_checkable

from graph.model import Edge, EdgeKind, Label, Node, SetBatch, WriteSummary
from graph.text import Phrase

__all__ = ["Direction", "GraphStore", "SupportsBulkWrite", "Reach", "SupportsReach", "SEARCH_FIELDS", "projected"]

SEARCH_FIELDS: tuple[str, ...] = ("kind", "text", "line", "order")
"""The props of each statement :meth:`GraphStore.search` returns (see :func:`projected`)."""


class Direction(StrEnum):
    """Which edges of a node: ``OUT`` (node is ``src``) or ``IN`` (node is ``dst``)."""

    OUT = "out"
    IN = "in"


@runtime_checkable
class GraphStore(Protocol):
    """A persistent property graph of citegraph nodes and edges."""

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        """Nodes by id, one round trip. Unknown ids are simply absent from the result."""

    def find_nodes(
        self,
        label: Label,
        *,
        set_id: str | None = None,
        document_id: str | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> list[Node]:
        """Nodes with ``label`` whose ``set_id``/``document_id`` equal the given ones (when given) and
        whose properties equal **all** ``where`` items. Sorted by id. An empty store gives ``[]``."""

    def edges(
        self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None, direction: Direction
    ) -> dict[str, list[Edge]]:
        """Edges leaving (``OUT``) or entering (``IN``) each id, one round trip, restricted to
        ``kinds`` when given. Every asked id is a key (``[]`` when it has none or is unknown).
        Each list is sorted by :meth:`Edge.sort_key`."""

    def degrees(
        self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None, direction: Direction
    ) -> dict[str, int]:
        """How many edges :meth:`edges` would give each id (same ``kinds`` and ``direction``), counted
        without reading them, one round trip. Every asked id is a key (0 when it has none)."""

    def closure(self, ids: Collection[str], *, kinds: Collection[EdgeKind]) -> list[Edge]:
        """Every edge of ``kinds`` whose ``dst`` can reach one of ``ids`` along edges of ``kinds``
        (reverse reachability, the start nodes included as destinations), one round trip. Cycles
        are harmless. Sorted by :meth:`Edge.sort_key`; unknown ids contribute nothing."""

    def search(self, phrases: Sequence[Phrase], *, set_id: str | None = None) -> list[Node]:
        """Statements whose ``text`` holds every phrase (:func:`graph.text.holds`: its words in a
        row, compared in lower case), of set ``set_id`` only when given, found through the store's
        own full-text index in one round trip. Sorted by id; each node keeps only the props
        :data:`SEARCH_FIELDS` names. No phrases, or an unknown set, give ``[]``."""

    def write_set(self, batch: SetBatch) -> WriteSummary:
        """Apply ``batch`` atomically, in the order documented on :class:`SetBatch`. On any failure
        the store is left exactly as before. Writing the same batch twice leaves the store as after
        once. The ``expect`` check and the write are one atomic compare-and-swap: of two writers
        expecting the same version, exactly one succeeds.

        Raises
        ------
        PreconditionFailed
            An ``expect`` item does not match the stored document."""

    def delete_documents(self, ids: Iterable[str], *, expect: Mapping[str, str | None] | None = None) -> WriteSummary:
        """Check ``expect`` exactly as :class:`SetBatch` step 0 does (raising PreconditionFailed
        and changing nothing on a mismatch), then delete documents and all they own, then orphaned shared nodes and, for sets left with no
        document, the set (and its system if no other set remains). Unknown ids are ignored.
        Derived edges of the touched sets are not recomputed here; callers that need them rewrite
        the set."""

    def put_reviews(self, reviews: Collection[Node]) -> int:
        """Create or replace Review nodes by id, atomically; returns how many were written.

        Every node must have label :attr:`Label.REVIEW` and ``document_id`` ``None``; otherwise a
        :class:`~graph.errors.CitegraphError` is raised and nothing is written. Reviews have no
        edges and belong to no document: :meth:`write_set`, :meth:`delete_documents` and orphan
        collection never touch them, so they outlive re-ingests of the reviewed set. Read them with
        ``find_nodes(Label.REVIEW, set_id=…, where={"node": …})``. An empty collection writes
        nothing and returns 0."""

    def counts(self, *, set_id: str | None = None) -> dict[str, int]:
        """Node count per label and edge count per kind, keys are label/kind names; absent ones are
        0. Plus ``nodes`` and ``edges`` totals. With ``set_id``: the nodes of that set and the edges
        of that set (``Edge.set_id``; every edge of the model starts at a node of its set or at the
        set's System); an unknown set gives all zeros. Answered from indexes or kept counts, never
        by reading the nodes."""

    def close(self) -> None:
        """Release resources. Safe to call twice."""


@runtime_checkable
class SupportsBulkWrite(Protocol):
    """An optional fast path: a store whose writes are cheaper grouped (the embedded store commits
    one transaction for a whole ingest run). Callers use it when present and behave the same without it."""

    def bulk(self) -> ContextManager[None]:
        """A block whose writes form one transaction: all kept when it ends, all rolled back if any
        write or the block raises."""


@dataclass(frozen=True, slots=True)
class Reach:
    """What reaches a set of start nodes: ``edges``, exactly :meth:`GraphStore.closure` of the
    starts (sorted by :meth:`Edge.sort_key`), and ``nodes``, every node that reaches a start (each
    start that exists, and both ends of every edge) keyed by id, each :func:`projected` to the
    asked fields."""

    edges: list[Edge]
    nodes: dict[str, Node]


@runtime_checkable
class SupportsReach(Protocol):
    """An optional fast path: a store that answers a closure together with the light fields of the
    nodes on it in one round trip (Neo4j), or without decoding whole property maps (SQLite). Callers use it when present; without it the same
    :class:`Reach` comes from :meth:`GraphStore.closure` plus :meth:`GraphStore.get_nodes`
    (:func:`queries.traversal.generic_reach`), and the contract suite checks both agree."""

    def reach(self, ids: Collection[str], *, kinds: Collection[EdgeKind],
              fields: Mapping[Label, Collection[str]]) -> Reach:
        """``closure(ids, kinds=kinds)`` and the nodes reaching ``ids``, one round trip.

        ``fields`` names, per label, the props each node keeps (see :func:`projected`); nodes of
        other labels keep none. Unknown ids contribute nothing; empty ``kinds`` give no edges and
        only the starts that exist."""


def projected(node: Node, fields: Mapping[Label, Collection[str]]) -> Node:
    """``node`` with only the props ``fields[node.label]`` names, in that order; a named prop the
    node lacks stays absent (one stored as ``None`` is kept). Other labels keep no props.

    Examples
    --------
    >>> n = Node("s/d#L3", Label.STATEMENT, "s", "s/d", {"text": "x", "markup": "x\\n", "line": 3})
    >>> projected(n, {Label.STATEMENT: ("line", "text", "order")}).props
    {'line': 3, 'text': 'x'}
    >>> projected(n, {Label.SECTION: ("heading",)}).props
    {}
    """
    keep = fields.get(node.label, ())
    return Node(node.id, node.label, node.set_id, node.document_id,
                {k: node.props[k] for k in keep if k in node.props})
