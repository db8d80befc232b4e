"""Store statistics (``citegraph stats``): counts per label and edge kind, and per analysis set."""

from __future__ import annotations

from dataclasses import dataclass

from graph.model import Label
from graph.store import GraphStore
from graph.tallies import SetTally, SupportsSetTallies, set_tallies
from queries.kept import per_set, rows_of
from queries.names import require_set

__all__ = ["SetStats", "Stats", "stats", "stats_of_set"]


@dataclass(frozen=True, slots=True)
class SetStats:
    """Counts for one analysis set: members, statements, distinct records, record-ID occurrences
    (citations of records plus annotation headings), source files cited, quotations, and the
    record-ID tokens of its prose that nothing accounts for (``unaccounted``, the accounting invariant:
    0 on every real document; ``check`` names each as ``unaccounted-record-id``)."""

    set: str
    documents: tuple[str, ...]
    statements: int
    records: int
    record_occurrences: int
    source_files: tuple[str, ...]
    quotations: int
    unaccounted: int = 0


@dataclass(frozen=True, slots=True)
class Stats:
    """``totals``: :meth:`GraphStore.counts` output; ``sets``: per-set counts sorted by set id. Its
    JSON (``stats --json``, ``GET /stats`` after ``store``) is :func:`queries.shapes.plain` of it."""

    totals: dict[str, int]
    sets: tuple[SetStats, ...]


def stats(store: GraphStore, *, fresh: bool = False) -> Stats:
    """Counts of the whole store (its kept counts) and of each analysis set (:func:`stats_of_set`'s
    row), each set's row kept by a store that keeps results (:func:`queries.kept.per_set`) and
    reused while the set is unchanged; ``fresh`` computes every row again."""
    sets = [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
    encode, decode = rows_of(SetStats)

    def counted(missing: list[str]) -> dict[str, tuple[SetStats, ...]]:  # one query for the sets not kept
        return {s: (_set_row(store, s, tally),) for s, tally in set_tallies(store, missing).items()}

    rows = per_set(store, "stats", sets, lambda set_id: (_set_row(store, set_id),), encode=encode, decode=decode,
                   fresh=fresh, compute_many=counted if isinstance(store, SupportsSetTallies) else None)
    return Stats(store.counts(), tuple(row for set_id in sets for row in rows[set_id]))


def stats_of_set(store: GraphStore, set_id: str) -> Stats:
    """:func:`stats` of one analysis set: its row, and its own counts (:meth:`GraphStore.counts`
    of the set) as the totals; reads that set only.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store.
    """
    require_set(store, set_id)
    return Stats(store.counts(set_id=set_id), (_set_row(store, set_id),))


def _set_row(store: GraphStore, set_id: str, tally: SetTally | None = None) -> SetStats:
    """One set's :class:`SetStats` from its :class:`~graph.tallies.SetTally` (``tally``, or
    :func:`~graph.tallies.set_tallies` of the set): everything is counted, not fetched."""
    if tally is None:
        tally = set_tallies(store, [set_id])[set_id]
    return SetStats(
        set=set_id,
        documents=tally.documents,
        statements=tally.labels[Label.STATEMENT],
        records=tally.labels[Label.RECORD],
        record_occurrences=tally.record_citations + tally.annotations,
        source_files=tally.source_files,
        quotations=tally.labels[Label.QUOTATION],
        unaccounted=tally.unaccounted,
    )
