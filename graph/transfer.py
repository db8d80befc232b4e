"""Copying a store's content into another store, through the store contract only.

Any backend to any backend: a set is read back as the :class:`~graph.model.SetBatch` that would
write it, and written with one atomic :meth:`~graph.store.GraphStore.write_set`; its kept versions
follow (:meth:`~graph.store.KeepsVersions.replace_versions`, same numbers, times and digests), then
reviews with :meth:`~graph.store.GraphStore.put_reviews`. ``citegraph copy --to neo4j://…`` uses it
to move an embedded store into Neo4j.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable

from graph.model import DocumentGraph, Edge, Label, Node, SetBatch
from graph.store import Direction, GraphStore

__all__ = ["CopyReport", "set_batch_of", "copy_store"]


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What :func:`copy_store` wrote: ``sets`` copied (sorted), ``documents`` and ``reviews`` counts,
    and the target's ``nodes``/``edges`` totals afterwards."""

    sets: tuple[str, ...]
    documents: int
    reviews: int
    nodes: int
    edges: int


def set_batch_of(store: GraphStore, set_id: str, *, replace: tuple[str, ...] = ()) -> SetBatch:
    """The batch that writes analysis set ``set_id`` exactly as ``store`` holds it.

    Parameters
    ----------
    store : GraphStore
        Where the set is read (about a dozen calls, whatever the set's size).
    set_id : str
        An analysis set in ``store``.
    replace : tuple of str, optional
        Extra document ids the batch deletes (documents the target holds and the source does not).

    Returns
    -------
    SetBatch
        ``shared``: the set's nodes owned by no document (Review nodes excepted) and the System nodes
        that contain the set; ``documents``: each Document with the nodes and edges it owns, sorted
        by id; ``derived``: the set's edges owned by no document.
    """
    nodes = [n for label in Label if label != Label.REVIEW for n in store.find_nodes(label, set_id=set_id)]
    into_set = store.edges([set_id], direction=Direction.IN)[set_id]
    systems = store.get_nodes([e.src for e in into_set])
    nodes += [n for n in systems.values() if n.label == Label.SYSTEM and n.set_id is None]
    documents = {n.id: n for n in nodes if n.label == Label.DOCUMENT}
    owned: dict[str, list[Node]] = {doc_id: [] for doc_id in documents}
    shared: list[Node] = []
    for node in nodes:
        if node.document_id in documents and node.id not in documents:
            owned[node.document_id].append(node)
        elif node.document_id is None:
            shared.append(node)
    out = store.edges([n.id for n in nodes], direction=Direction.OUT)
    owned_edges: dict[str, list[Edge]] = {doc_id: [] for doc_id in documents}
    derived: list[Edge] = []
    for edges in out.values():
        for edge in edges:
            if edge.document_id in documents:
                owned_edges[edge.document_id].append(edge)
            elif edge.document_id is None and edge.set_id == set_id:
                derived.append(edge)
    graphs = tuple(
        DocumentGraph(documents[d], tuple(sorted(owned[d], key=lambda n: n.id)),
                      tuple(sorted(owned_edges[d], key=Edge.sort_key)))
        for d in sorted(documents)
    )
    return SetBatch(set_id, tuple(sorted(shared, key=lambda n: n.id)), graphs,
                    tuple(sorted(derived, key=Edge.sort_key)), replace=replace)


def _copy_versions(source: GraphStore, target: GraphStore, set_id: str) -> None:
    """``source``'s kept versions of ``set_id`` become ``target``'s (re-encoded from their batches,
    which gives the same bytes), the latest with its part changes; nothing when either store keeps none."""
    from graph.store import KeepsVersions
    from graph.versions import encode_batch

    if not (isinstance(source, KeepsVersions) and isinstance(target, KeepsVersions)):
        return
    kept = source.set_versions(set_id)
    if not kept:
        return
    rows = []
    for version in kept:
        batch = source.set_version(set_id, version.number)
        if batch is not None:
            rows.append((version, encode_batch(batch).blob))
    target.replace_versions(set_id, rows, changed=source.part_changes([set_id]).get(set_id, ()))


def copy_store(source: GraphStore, target: GraphStore, *,
               progress: Callable[[int, int], None] | None = None) -> CopyReport:
    """Copy every analysis set (with its kept versions) and review of ``source`` into ``target``,
    one atomic write per set.

    A set already in ``target`` ends up as ``source`` holds it: its documents are replaced and the
    ones ``source`` lacks are deleted. Sets only in ``target`` are left alone. Copying twice
    changes nothing the second time. ``progress(done, total)``, when given, is told after each set
    (units: sets).

    Raises
    ------
    StoreUnavailable
        Either store cannot be reached; sets written before the failure stay written.
    """
    sets = [s.id for s in source.find_nodes(Label.ANALYSIS_SET)]
    documents = 0
    for done, set_id in enumerate(sets):
        if progress is not None:
            progress(done, len(sets))
        theirs = {d.id for d in target.find_nodes(Label.DOCUMENT, set_id=set_id)}
        batch = set_batch_of(source, set_id)
        mine = {d.id for d in batch.documents}
        target.write_set(SetBatch(batch.set_id, batch.shared, batch.documents, batch.derived,
                                  replace=tuple(sorted(theirs - mine))))
        documents += len(batch.documents)
        _copy_versions(source, target, set_id)
    if progress is not None:
        progress(len(sets), len(sets))
    reviews = target.put_reviews(source.find_nodes(Label.REVIEW))
    counts = target.counts()
    return CopyReport(tuple(sets), documents, reviews, counts["nodes"], counts["edges"])
