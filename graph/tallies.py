"""Per-set tallies: what ``stats`` and ``sets`` count of one analysis set, counted, not fetched.

:func:`set_tallies` answers from a store's own counting query where it has one
(:class:`SupportsSetTallies`: Neo4j counts every set in one round trip, without shipping the large
Document properties) and otherwise from the contract reads of :class:`~graph.store.GraphStore`
(the embedded store, which keeps the results computed from them, :mod:`queries.kept`). Both paths
mean exactly the same: the definitions are the docstring of :class:`SetTally`, and the parity
tests hold the stores to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable
from collections.abc import Collection

from graph.codec import source_file_path, unaccounted_count
from graph.model import EdgeKind, Label
from graph.store import Direction, GraphStore

__all__ = ["SetTally", "SupportsSetTallies", "set_tallies", "tally_by_reads"]


@dataclass(frozen=True, slots=True)
class SetTally:
    """One analysis set, counted.

    ``documents``: its Document ids, sorted; ``unaccounted``: the sum of their
    ``unaccounted_record_ids`` (:func:`graph.codec.unaccounted_count`); ``labels``: how many of its
    nodes (``set_id`` the set) carry each label (every :class:`~graph.model.Label`, 0 when none;
    as :meth:`GraphStore.counts` of the set counts them); ``record_citations``: the incoming
    ``CITES`` edges of its Record nodes; ``annotations``: its Section nodes of ``kind``
    ``annotation``; ``source_files``: the paths of its SourceFile nodes
    (:func:`graph.codec.source_file_path`), in node-id order."""

    documents: tuple[str, ...]
    unaccounted: int
    labels: dict[str, int]
    record_citations: int
    annotations: int
    source_files: tuple[str, ...]


@runtime_checkable
class SupportsSetTallies(Protocol):
    """An optional fast path: a store that counts :class:`SetTally` for many sets in one query."""

    def set_tallies(self, set_ids: Collection[str]) -> dict[str, SetTally]:
        """The tally of each of ``set_ids`` (a set not in the store is tallied as empty)."""


def set_tallies(store: GraphStore, set_ids: Collection[str]) -> dict[str, SetTally]:
    """The :class:`SetTally` of each of ``set_ids``, keyed by set id in their order: the store's
    own query when it has one (:class:`SupportsSetTallies`), else six contract reads per set."""
    if isinstance(store, SupportsSetTallies):
        return store.set_tallies(list(set_ids))
    return {s: tally_by_reads(store, s) for s in set_ids}


def tally_by_reads(store: GraphStore, set_id: str) -> SetTally:
    """One set's tally from :class:`GraphStore` reads: its documents (whose properties are large,
    so memory stays one set's) and light nodes; statements and quotations counted, not read."""
    records = store.find_nodes(Label.RECORD, set_id=set_id)
    files = store.find_nodes(Label.SOURCE_FILE, set_id=set_id)
    annotations = store.find_nodes(Label.SECTION, set_id=set_id, where={"kind": "annotation"})
    cites = store.degrees([r.id for r in records], kinds=[EdgeKind.CITES], direction=Direction.IN)
    counts = store.counts(set_id=set_id)
    docs = store.find_nodes(Label.DOCUMENT, set_id=set_id)
    return SetTally(
        documents=tuple(d.id for d in docs),
        unaccounted=sum(map(unaccounted_count, docs)),
        labels={label.value: counts[label.value] for label in Label},
        record_citations=sum(cites[r.id] for r in records),
        annotations=len(annotations),
        source_files=tuple(source_file_path(f) for f in files),
    )
