"""Store statistics (``citegraph stats``): counts per label and edge kind, and per analysis set."""

from __future__ import annotations

from dataclasses import dataclass

from graph.model import EdgeKind, Label
from graph.store import Direction, GraphStore

__all__ = ["SetStats", "Stats", "stats"]


@dataclass(frozen=True, slots=True)
class SetStats:
    """Counts for one analysis set: members, statements, distinct records, record-ID occurrences
    (citations of records plus annotation headings), source files cited, quotations."""

    set: str
    documents: tuple[str, ...]
    statements: int
    records: int
    record_occurrences: int
    source_files: tuple[str, ...]
    quotations: int


@dataclass(frozen=True, slots=True)
class Stats:
    """``totals``: :meth:`GraphStore.counts` output; ``sets``: per-set counts sorted by set id."""

    totals: dict[str, int]
    sets: tuple[SetStats, ...]

    def to_dict(self) -> dict:
        """JSON-compatible form."""
        return {
            "totals": self.totals,
            "sets": [
                {"set": s.set, "documents": list(s.documents), "statements": s.statements, "records": s.records,
                 "record_occurrences": s.record_occurrences, "source_files": list(s.source_files),
                 "quotations": s.quotations}
                for s in self.sets
            ],
        }


def stats(store: GraphStore) -> Stats:
    """Counts of the whole store and of each analysis set (a fixed number of store calls per set; the
    statements and quotations are counted, not read)."""
    sets = []
    for s in store.find_nodes(Label.ANALYSIS_SET):
        counts = store.counts(set_id=s.id)
        records = store.find_nodes(Label.RECORD, set_id=s.id)
        cites = store.degrees([r.id for r in records], kinds=[EdgeKind.CITES], direction=Direction.IN)
        annotations = store.find_nodes(Label.SECTION, set_id=s.id, where={"kind": "annotation"})
        occurrences = sum(cites.values()) + len(annotations)
        sets.append(SetStats(
            set=s.id,
            documents=tuple(d.id for d in store.find_nodes(Label.DOCUMENT, set_id=s.id)),
            statements=counts[Label.STATEMENT],
            records=len(records),
            record_occurrences=occurrences,
            source_files=tuple(f.get("path") for f in store.find_nodes(Label.SOURCE_FILE, set_id=s.id)),
            quotations=counts[Label.QUOTATION],
        ))
    return Stats(store.counts(), tuple(sets))
