"""The store contract every backend implements: a few batched primitives with exact edge behaviour.

Semantics (depth, paths, ordering, deduplication) live once in ``queries/``; a store only answers
these primitives. The same contract suite (``tests/contract/``) runs against every backend.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum
from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from graph.model import Edge, EdgeKind, Label, Node, SetBatch, WriteSummary

if TYPE_CHECKING:  # named in signatures only: a read that keeps no version imports none of them
    from graph.analysis_changes import PartChange
    from graph.text import Phrase
    from graph.versions import SetVersion

__all__ = ["Direction", "GraphStore", "ClosedOnExit", "SupportsBulkWrite", "SupportsSnapshot", "SnapshotMoved",
           "SNAPSHOT_ATTEMPTS", "read_snapshot",
           "Reach", "bare_edges", "SupportsReach", "SupportsNodesWithEdges", "SupportsRankedSearch", "KeepsVersions", "KeepsSetResults", "SEARCH_FIELDS", "VERSIONS_KEPT",
           "projected"]

T = TypeVar("T")

VERSIONS_KEPT = 10
"""Versions a store keeps per set unless told otherwise (``CITEGRAPH_VERSIONS_KEPT``; :class:`KeepsVersions`)."""

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
            An ``expect`` item does not match the stored document.
        NodeConflict
            An id the batch replaces or writes names a stored node of another kind or owner
            (:func:`graph.writes.check_node_kinds`); nothing is written."""

    def delete_documents(self, ids: Iterable[str], *, expect: Mapping[str, str | None] | None = None,
                         sets: Collection[str] = ()) -> WriteSummary:
        """Check ``expect`` exactly as :class:`SetBatch` step 0 does (raising PreconditionFailed
        and changing nothing on a mismatch), then delete documents and all they own, then orphaned
        shared nodes and, for sets left with no document, the set (and its system if no other set
        remains). The documents are each id of ``ids`` that names a Document node (unknown ids and
        ids of other nodes, such as a set, a record or a statement, are ignored:
        :func:`graph.writes.documents_deleted`) and every document of each set in ``sets``, as
        stored when the write runs (so of two concurrent deletes of a set, one deletes it and the
        other finds nothing). ``WriteSummary.deleted`` lists the documents deleted. Derived edges
        of the touched sets are not recomputed here; callers that need them rewrite the set."""

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

    def __enter__(self: T) -> T:
        """The store itself: ``with open_store(...) as store:`` closes it when the block ends."""

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """:meth:`close` the store, whether the block ended normally or raised (the error goes on)."""


class ClosedOnExit(ABC):
    """What makes a store a context manager: ``with store:`` gives the store and closes it at the
    end of the block, however the block ends (its error propagates). Every store class mixes it in,
    so the protocol's ``__enter__``/``__exit__`` are written once; a class without its own
    :meth:`close` cannot be made (``TypeError``)."""

    @abstractmethod
    def close(self) -> None:
        """Release what the store holds (connections, files); each store class says how."""

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


@runtime_checkable
class SupportsBulkWrite(Protocol):
    """An optional fast path: a store whose writes are cheaper grouped (the embedded store commits
    one transaction for a whole ingest run). Callers use it when present and behave the same without it."""

    def bulk(self) -> AbstractContextManager[None]:
        """A block whose writes form one transaction: all kept when it ends, all rolled back if any
        write or the block raises."""


@runtime_checkable
class SupportsSnapshot(Protocol):
    """A store whose reads can be held to one committed state for a while: every read of a request
    made through one view sees the same store, as if no write ran meanwhile. Callers use
    :func:`read_snapshot`, which also serves stores without it."""

    def snapshot(self) -> AbstractContextManager[GraphStore]:
        """A read-only view of one committed state of the store, for the block.

        The view answers every read of :class:`GraphStore` (and of the store's optional read
        protocols) and refuses writes. It may be used from several threads, one call at a time.
        How a store keeps the state is its own: SQLite in WAL mode reads one snapshot while writers
        commit; Neo4j, which reads at read-committed isolation, reads optimistically in a READ
        session and checks at the end that no write began meanwhile, or, while writes are under
        way, holds commits off until the block ends.

        Raises
        ------
        SnapshotMoved
            On leaving the block (instead of the block's own error, if any), when the store finds
            that a write may have been applied while the view was open: what the block read must be
            dropped and read again (:func:`read_snapshot` does). A store's next snapshot after one
            that moved does not move."""


SNAPSHOT_ATTEMPTS = 3
"""How many snapshots a request opens at most before a :class:`SnapshotMoved` reaches its caller
(a store's snapshot after one that moved does not move, so two would do)."""


class SnapshotMoved(Exception):
    """A read snapshot found, at its end, that a write may have landed while it was open
    (:meth:`SupportsSnapshot.snapshot`): its reads are not one state. Not an error a user sees:
    :func:`read_snapshot` reads again."""


def read_snapshot(store: GraphStore, read: Callable[[GraphStore], T]) -> T:
    """``read(view)`` on one committed state of ``store``: every store call ``read`` makes sees the
    same data (a set listed has its documents, a record found is still there when its closure is
    read). This is how a face serves one request. A store without snapshots is read as it is.
    When the snapshot moved (:class:`SnapshotMoved`), ``read`` runs again on a new one and what it
    returned before is dropped: ``read`` only reads.

    Returns
    -------
    T
        What ``read`` returned.

    Raises
    ------
    Exception
        Whatever ``read`` raised (a :class:`~graph.errors.NotFound`, …).
    """
    if not isinstance(store, SupportsSnapshot):
        return read(store)
    for attempt in range(SNAPSHOT_ATTEMPTS):
        try:
            with store.snapshot() as view:
                return read(view)
        except SnapshotMoved:
            if attempt == SNAPSHOT_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover



@dataclass(frozen=True, slots=True)
class Reach:
    """What reaches a set of start nodes: ``edges``, exactly :meth:`GraphStore.closure` of the
    starts (sorted by :meth:`Edge.sort_key`), and ``nodes``, every node that reaches a start (each
    start that exists, and both ends of every edge) keyed by id, each :func:`projected` to the
    asked fields."""

    edges: list[Edge]
    nodes: dict[str, Node]


def bare_edges(edges: Iterable[Edge]) -> list[Edge]:
    """``edges`` with empty props (every other field kept): a :class:`Reach` asked without
    ``edge_props`` (:meth:`SupportsReach.reach`)."""
    return [Edge(e.kind, e.src, e.dst, e.seq, e.document_id, e.set_id) for e in edges]


@runtime_checkable
class SupportsReach(Protocol):
    """An optional fast path: a store that answers a closure together with the light fields of the
    nodes on it in one round trip (Neo4j), or without decoding whole property maps (SQLite). Callers use it when present; without it the same
    :class:`Reach` comes from :meth:`GraphStore.closure` plus :meth:`GraphStore.get_nodes`
    (:func:`queries.traversal.generic_reach`), and the contract suite checks both agree."""

    def reach(self, ids: Collection[str], *, kinds: Collection[EdgeKind],
              fields: Mapping[Label, Collection[str]], edge_props: bool = True) -> Reach:
        """``closure(ids, kinds=kinds)`` and the nodes reaching ``ids``, one round trip.

        ``fields`` names, per label, the props each node keeps (see :func:`projected`); nodes of
        other labels keep none. Without ``edge_props`` every edge has empty props
        (:func:`bare_edges`: a caller that reads only kinds and ends need not have them
        shipped and decoded). Unknown ids contribute nothing; empty ``kinds`` give no edges and
        only the starts that exist."""


@runtime_checkable
class SupportsNodesWithEdges(Protocol):
    """An optional fast path for a store that pays a round trip per call (Neo4j): nodes and the
    edges leaving them in one call. Callers use it when present; without it, the same answer is
    :meth:`GraphStore.get_nodes` plus :meth:`GraphStore.edges` (``direction`` OUT), and the
    contract suite checks both agree."""

    def nodes_with_edges(self, ids: Collection[str], *, kinds: Collection[EdgeKind]
                         ) -> tuple[dict[str, Node], dict[str, list[Edge]]]:
        """``(get_nodes(ids), edges(ids, kinds=kinds, direction=Direction.OUT))``, one round trip:
        the found nodes by id, and every asked id's outgoing edges of ``kinds`` (an empty list for
        an unknown id or empty ``kinds``), each list sorted by :meth:`Edge.sort_key`."""


@runtime_checkable
class SupportsRankedSearch(Protocol):
    """An optional fast path of :meth:`GraphStore.search`: the best hits of a search ranked inside
    the store (SQLite: the occurrences counted from the FTS5 index, or for a common word read
    from its kept per-statement counts, sorted with a ``LIMIT``), so that a common word costs the
    store its index, not a row per hit. :func:`queries.search.search`
    uses it when present and checks each hit it returns; the contract suite checks it ranks as the
    generic path does."""

    def ranked_search(self, phrases: Sequence[Phrase], *, limit: int) -> tuple[list[tuple[str, int]], int] | None:
        """The best ``limit`` statements holding every phrase, best first, by the rank of
        :mod:`queries.search` (more occurrences of the phrases, then the shorter text, then set,
        document id, block order and id), each as ``(id, occurrences)``, and how many statements
        hold them all; None when this store cannot rank these phrases itself (then
        :meth:`GraphStore.search` answers)."""


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


@runtime_checkable
class KeepsVersions(Protocol):
    """Versions of each analysis set (:mod:`graph.versions` has the rules). Both stores
    keep them: every :meth:`GraphStore.write_set` and :meth:`GraphStore.delete_documents` that
    changes a set stores the whole set as its next version, in the same transaction; one that
    leaves it unchanged stores nothing; one that leaves it with no document deletes all its
    versions. At most ``versions_kept`` versions per set are kept, the oldest dropped first."""

    versions_kept: int

    def set_versions(self, set_id: str) -> list[SetVersion]:
        """The stored versions of ``set_id`` (without their blobs), by number; ``[]`` for an
        unknown set or one written before versions were kept. One round trip."""

    def set_version(self, set_id: str, number: int) -> SetBatch | None:
        """Version ``number`` of ``set_id`` as the :class:`SetBatch` that rebuilds it in an empty
        store (:func:`graph.versions.decode`); None when it is not stored. One round trip."""

    def part_changes(self, set_ids: Collection[str] | None = None) -> dict[str, tuple[PartChange, ...]]:
        """The part changes the latest version of each set keeps (:mod:`graph.analysis_changes`:
        what its write changed in a declaration, quotation or source pin, and the earlier changes
        carried), for ``set_ids`` or every set; sets keeping none are absent. One round trip."""

    def replace_versions(self, set_id: str, versions: Collection[tuple[SetVersion, bytes]], *,
                         changed: Sequence[PartChange] = ()) -> int:
        """Make ``versions`` (each with its encoded blob, :func:`graph.versions.encode`) the stored
        versions of ``set_id``, atomically, whatever were stored (copying a store's history,
        :func:`graph.transfer.copy_store`); returns how many. The set must exist. The latest keeps
        the part changes ``changed`` (:meth:`part_changes` of the store copied from).

        Raises
        ------
        CitegraphError
            The set is not in the store, or a version names another set; nothing changes."""


@runtime_checkable
class KeepsSetResults(Protocol):
    """An optional store that keeps what a query computed from one analysis set (its ``check``
    findings, its ``stats`` row, its round-trip digests), reused while the set stands as it was.

    A kept result is tied to the set's *stamp*, a number that every write touching a row of the
    set (a node or an edge whose ``set_id`` is the set) replaces by one never used before, in the
    write's own transaction. Results are opaque bytes: what they hold and how they are computed
    is :mod:`queries.kept`'s, so every store answers the same whether it keeps them or not (both
    stores keep them)."""

    def set_stamps(self, set_ids: Collection[str]) -> dict[str, int]:
        """The current stamp of each set of ``set_ids`` that is in the store (others are absent),
        one round trip."""

    def kept_results(self, name: str, stamps: Mapping[str, int]) -> dict[str, bytes]:
        """The results kept under ``name`` for each set of ``stamps`` whose result was kept at
        exactly that stamp (sets without one are absent), one round trip."""

    def keep_results(self, name: str, results: Mapping[str, tuple[int, bytes]]) -> int:
        """Keep ``results[set_id] = (stamp, result)`` under ``name`` for each set whose stamp is
        still ``stamp`` (a result computed from an older state is dropped), atomically; returns
        how many were kept. Never waits for another writer and never fails a read: a store that is
        busy or read-only keeps nothing and returns 0."""
