"""A read-only view of a store with some analysis sets read at another version.

:class:`PinnedStore` answers every read of the store contract as ``base`` does, except that each
pinned set is read from its own store (a materialised version, see
:func:`queries.history.store_at`). Identity is set-scoped, so every node id belongs to one set or
to none: ``<set>`` and ``<set>/…`` are the set's; System (``system/…``) and Review (``review/…``)
nodes belong to no set and come from ``base`` (a pinned set's System node from its own store when
``base`` no longer has it). No edge crosses sets, so a closure from a set's nodes stays in its
store. Reviews are not versioned: they are always ``base``'s.
"""

from __future__ import annotations

from typing import Any, NoReturn, cast
from collections.abc import Collection, Iterable, Mapping, Sequence

from graph.errors import CitegraphError
from graph.model import Edge, EdgeKind, Label, Node, SetBatch
from graph.store import ClosedOnExit, Direction, GraphStore, KeepsVersions, Reach, SupportsReach, bare_edges, projected
from graph.text import Phrase
from graph.versions import SetVersion

__all__ = ["PinnedStore"]


class PinnedStore(ClosedOnExit):
    """``base`` with each set of ``pins`` (set id → store holding that set) read from its store.

    Implements the reads of :class:`~graph.store.GraphStore` (and :class:`~graph.store.SupportsReach`,
    :class:`~graph.store.KeepsVersions` through ``base``); every write raises
    :class:`~graph.errors.CitegraphError` (an earlier version is read-only). :meth:`close` closes
    ``base`` only: the pinned stores belong to whoever made them.
    """

    def __init__(self, base: GraphStore, pins: Mapping[str, GraphStore]):
        self.base = base
        self.pins = dict(pins)

    @property
    def versions_kept(self) -> int:
        """``base``'s retention bound."""
        return getattr(self.base, "versions_kept", 0)

    # -- routing ---------------------------------------------------------------------------------

    def _owner(self, node_id: str) -> str | None:
        """The pinned set ``node_id`` belongs to, or None (``base``)."""
        head = node_id.split("/", 1)[0]
        return head if head in self.pins and not node_id.startswith(("system/", "review/")) else None

    def _split(self, ids: Iterable[str]) -> dict[str | None, list[str]]:
        out: dict[str | None, list[str]] = {}
        for node_id in dict.fromkeys(ids):
            out.setdefault(self._owner(node_id), []).append(node_id)
        return out

    def _store(self, owner: str | None) -> GraphStore:
        return self.base if owner is None else self.pins[owner]

    # -- reads -----------------------------------------------------------------------------------

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        """See :meth:`graph.store.GraphStore.get_nodes`."""
        out: dict[str, Node] = {}
        for owner, group in self._split(ids).items():
            out.update(self._store(owner).get_nodes(group))
            if owner is None:
                missing = [i for i in group if i not in out and i.startswith("system/")]
                for store in self.pins.values():
                    if missing:
                        found = store.get_nodes(missing)
                        out.update(found)
                        missing = [i for i in missing if i not in found]
        return out

    def find_nodes(self, label: Label, *, set_id: str | None = None, document_id: str | None = None,
                   where: Mapping[str, Any] | None = None) -> list[Node]:
        """See :meth:`graph.store.GraphStore.find_nodes`."""
        label = Label(label)
        if label == Label.REVIEW:
            return self.base.find_nodes(label, set_id=set_id, document_id=document_id, where=where)
        owner = set_id if set_id in self.pins else (self._owner(document_id) if document_id else None)
        if owner is not None:
            return self.pins[owner].find_nodes(label, set_id=set_id, document_id=document_id, where=where)
        found = {n.id: n for n in self.base.find_nodes(label, set_id=set_id, document_id=document_id, where=where)
                 if n.set_id not in self.pins}
        if set_id is None and not document_id:
            for store in self.pins.values():
                for node in store.find_nodes(label, where=where):
                    if node.set_id in self.pins or node.id not in found:
                        found.setdefault(node.id, node)
        return sorted(found.values(), key=lambda n: n.id)

    def search(self, phrases: Sequence[Phrase], *, set_id: str | None = None) -> list[Node]:
        """See :meth:`graph.store.GraphStore.search`: a pinned set's statements from its store, every
        other set's from ``base``."""
        if set_id is not None:
            return self._store(set_id if set_id in self.pins else None).search(phrases, set_id=set_id)
        found = [n for n in self.base.search(phrases) if n.set_id not in self.pins]
        for pinned, store in self.pins.items():
            found += store.search(phrases, set_id=pinned)
        return sorted(found, key=lambda n: n.id)

    def edges(self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None,
              direction: Direction) -> dict[str, list[Edge]]:
        """See :meth:`graph.store.GraphStore.edges`."""
        out: dict[str, list[Edge]] = {}
        for owner, group in self._split(ids).items():
            found = self._store(owner).edges(group, kinds=kinds, direction=direction)
            if owner is None:  # set-less nodes (a System): base's edges of unpinned sets, the pins' of theirs
                for node_id in group:
                    edges = [e for e in found[node_id] if e.set_id not in self.pins]
                    for pinned, store in self.pins.items():
                        edges += [e for e in store.edges([node_id], kinds=kinds, direction=direction)[node_id]
                                  if e.set_id == pinned]
                    found[node_id] = sorted(edges, key=Edge.sort_key)
            out.update(found)
        return {i: out.get(i, []) for i in dict.fromkeys(ids)}

    def degrees(self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None,
                direction: Direction) -> dict[str, int]:
        """See :meth:`graph.store.GraphStore.degrees`."""
        out: dict[str, int] = {}
        for owner, group in self._split(ids).items():
            if owner is None and any(self.pins):
                out.update({i: len(es) for i, es in self.edges(group, kinds=kinds, direction=direction).items()})
            else:
                out.update(self._store(owner).degrees(group, kinds=kinds, direction=direction))
        return {i: out.get(i, 0) for i in dict.fromkeys(ids)}

    def closure(self, ids: Collection[str], *, kinds: Collection[EdgeKind]) -> list[Edge]:
        """See :meth:`graph.store.GraphStore.closure`."""
        found: dict[tuple[Any, ...], Edge] = {}
        for owner, group in self._split(ids).items():
            for edge in self._store(owner).closure(group, kinds=kinds):
                if owner is not None or edge.set_id not in self.pins:
                    found[(edge.sort_key(), edge.document_id)] = edge
        return sorted(found.values(), key=Edge.sort_key)

    def reach(self, ids: Collection[str], *, kinds: Collection[EdgeKind],
              fields: Mapping[Label, Collection[str]], edge_props: bool = True) -> Reach:
        """See :meth:`graph.store.SupportsReach.reach`: each part from its own store."""
        edges: dict[tuple[Any, ...], Edge] = {}
        nodes: dict[str, Node] = {}
        for owner, group in self._split(ids).items():
            store = self._store(owner)
            if isinstance(store, SupportsReach):
                part = store.reach(group, kinds=kinds, fields=fields, edge_props=edge_props)
            else:
                closure = store.closure(group, kinds=kinds)
                ends = dict.fromkeys([*group, *(i for e in closure for i in (e.src, e.dst))])
                part = Reach(closure if edge_props else bare_edges(closure), {i: projected(n, fields) for i, n in store.get_nodes(list(ends)).items()})
            for edge in part.edges:
                if owner is not None or edge.set_id not in self.pins:
                    edges[(edge.sort_key(), edge.document_id)] = edge
            nodes.update(part.nodes)
        return Reach(sorted(edges.values(), key=Edge.sort_key), nodes)

    def counts(self, *, set_id: str | None = None) -> dict[str, int]:
        """See :meth:`graph.store.GraphStore.counts`: a pinned set's from its store; the store's
        totals with each pinned set's counts in place of ``base``'s."""
        if set_id is not None:
            return self._store(set_id if set_id in self.pins else None).counts(set_id=set_id)
        out = dict(self.base.counts())
        for pinned, store in self.pins.items():
            now, then = self.base.counts(set_id=pinned), store.counts(set_id=pinned)
            for key in out:
                out[key] += then.get(key, 0) - now.get(key, 0)
        return out

    def set_versions(self, set_id: str) -> list[SetVersion]:
        """``base``'s (:meth:`graph.store.KeepsVersions.set_versions`)."""
        return cast("KeepsVersions", self.base).set_versions(set_id)

    def set_version(self, set_id: str, number: int) -> SetBatch | None:
        """``base``'s (:meth:`graph.store.KeepsVersions.set_version`)."""
        return cast("KeepsVersions", self.base).set_version(set_id, number)

    def part_changes(self, set_ids: Any = None) -> Any:
        """``base``'s (:meth:`graph.store.KeepsVersions.part_changes`)."""
        return self.base.part_changes(set_ids)  # type: ignore[attr-defined]

    # -- writes: refused -------------------------------------------------------------------------

    def _refuse(self, *_: Any, **__: Any) -> NoReturn:
        raise CitegraphError("an earlier version of an analysis set is read-only",
                             hint="write to the latest version (leave out the version)")

    write_set = delete_documents = put_reviews = replace_versions = _refuse

    def close(self) -> None:
        """Close ``base``; the pinned stores stay open. Safe to call twice."""
        self.base.close()
