"""Store statistics (``citegraph stats``): counts per label and edge kind, and per analysis set."""

from __future__ import annotations

from dataclasses import dataclass

from graph.codec import source_file_path, unaccounted_count
from graph.model import EdgeKind, Label
from graph.store import Direction, GraphStore
from queries.kept import per_set, rows_of
from queries.names import require_set

__all__ = ["SetStats", "Stats", "stats", "stats_of_set"]


@dataclass(frozen=True, slots=True)
class SetStats:
    """Counts for one analysis set: members, statements, distinct records, record-ID occurrences
    (citations of records plus annotation headings), source files cited, quotations, and the
    record-ID tokens of its prose that nothing accounts for (``unaccounted``, issue 23's invariant:
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
    rows = per_set(store, "stats", sets, lambda set_id: (_set_row(store, set_id),), encode=encode, decode=decode,
                   fresh=fresh)
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


def _set_row(store: GraphStore, set_id: str) -> SetStats:
    """One set's :class:`SetStats`: its kept counts, its documents (whose properties are large, so
    memory stays one set's) and its light nodes; statements, quotations and record citations are
    counted, not read."""
    records = store.find_nodes(Label.RECORD, set_id=set_id)
    files = store.find_nodes(Label.SOURCE_FILE, set_id=set_id)
    annotations = store.find_nodes(Label.SECTION, set_id=set_id, where={"kind": "annotation"})
    cites = store.degrees([r.id for r in records], kinds=[EdgeKind.CITES], direction=Direction.IN)
    counts = store.counts(set_id=set_id)
    docs = store.find_nodes(Label.DOCUMENT, set_id=set_id)
    return SetStats(
        set=set_id,
        documents=tuple(d.id for d in docs),
        statements=counts[Label.STATEMENT],
        records=len(records),
        record_occurrences=sum(cites[r.id] for r in records) + len(annotations),
        source_files=tuple(source_file_path(f) for f in files),
        quotations=counts[Label.QUOTATION],
        unaccounted=sum(map(unaccounted_count, docs)),
    )
