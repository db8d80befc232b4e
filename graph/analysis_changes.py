"""What a new version of an analysis set changes in the parts other statements rest on, decided
once for every store: each store only runs :func:`version_changes` inside the write that adds the
version (:func:`graph.versions.changes`) and keeps the answer beside the version.

A **part change** is one of:

- ``declaration``: a record declared in both versions whose declaration reads otherwise (its
  heading and the text of every block it contains, in document order; line numbers do not count),
  or a record no longer declared while still cited;
- ``quotation``: a quotation whose text or pin (attributed path, lines, revision) differs, paired
  with the old one by its place among its member's quotations (an added or removed quotation is no
  change of one that stays);
- ``source-pin``: a source register entry whose repository URL or commit differs.

A version keeps the changes of the one before it that are still about a part it holds, the newer
change of a part replacing the older (:func:`carried`), so a change stays known, until reviewed,
however many versions retention drops.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable, Sequence

from domain.wire import wire
from graph.codec import (block_line, block_order, block_text, quotation_of, record_id_of, section_of,
                         source_of)
from graph.model import Edge, EdgeKind, Label, Node, SetBatch

__all__ = ["PART_KINDS", "PartChange", "version_changes", "carried", "to_stored", "from_stored"]

PART_KINDS = ("declaration", "quotation", "source-pin")
"""Kinds of part a new version can change (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class PartChange:
    """One part of set ``set_id`` that version ``to_version`` changed from version ``from_version``.

    ``part`` is one of :data:`PART_KINDS`; ``node`` the changed node id in the later version (the
    Record, Quotation or Source); ``name`` what the members call it (record ID, the quotation's
    attributed path, ``SRC-n``); ``old`` and ``new`` its declaration text, quotation
    (``"text" (path lines @revision)``) or pin (``url @ commit``) in each version (None: absent);
    ``digest`` the later version's digest, the revision a review of what rests on it is written at.
    """

    set_id: str = field(metadata=wire("set"))
    part: str
    node: str
    name: str
    from_version: int = field(metadata=wire("from"))
    to_version: int = field(metadata=wire("to"))
    digest: str
    old: str | None
    new: str | None

    def describe(self) -> str:
        """``declaration of RT-RTE-x changed in tolaria version 1 → 2`` and the like."""
        what = {"declaration": f"declaration of {self.name}", "quotation": f"quotation of {self.name}",
                "source-pin": f"source pin of {self.name}"}[self.part]
        return f"{what} changed in {self.set_id} version {self.from_version} → {self.to_version}"


def _contained(graph_edges: Iterable[Edge], start: str) -> set[str]:
    below: dict[str, list[str]] = {}
    for e in graph_edges:
        if e.kind == EdgeKind.CONTAINS:
            below.setdefault(e.src, []).append(e.dst)
    seen, todo = {start}, [start]
    while todo:
        for child in below.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _declarations(batch: SetBatch) -> dict[str, tuple[str, str]]:
    """Record node id → (record ID, declaration text) of each record the batch declares."""
    records = {n.id: n for n in batch.shared if n.label == Label.RECORD}
    out: dict[str, tuple[str, str]] = {}
    for graph in batch.documents:
        nodes = {n.id: n for n in graph.nodes}
        for e in graph.edges:
            if e.kind != EdgeKind.DECLARED_IN or e.src not in records or e.dst not in nodes:
                continue
            inside = sorted((nodes[i] for i in _contained(graph.edges, e.dst) if i in nodes),
                            key=lambda n: (block_order(n), n.id))
            text = "\n".join(section_of(n).heading if n.label == Label.SECTION else block_text(n)
                             for n in inside)
            out.setdefault(e.src, (record_id_of(records[e.src]) or e.src, text))
    return out


def _quotation_text(node: Node) -> str:
    q = quotation_of(node)
    lines = f" {q.lines}" if q.lines else ""
    revision = f" @{q.revision}" if q.revision else ""
    return f"\"{q.text}\" ({q.path}{lines}{revision})"


def _quotations(batch: SetBatch) -> dict[str, list[Node]]:
    """Document id → its Quotation nodes in line order."""
    return {g.id: sorted((n for n in g.nodes if n.label == Label.QUOTATION), key=lambda n: (block_line(n), n.id))
            for g in batch.documents}


def _pin(node: Node) -> str | None:
    source = source_of(node)
    url, commit = source.url, source.commit
    if url is None and commit is None:
        return None
    return f"{url or '(no url)'} @ {commit or '(no commit)'}"


def version_changes(old: SetBatch, new: SetBatch, *, from_version: int, to_version: int,
                    digest: str) -> list[PartChange]:
    """The part changes from ``old`` (version ``from_version``) to ``new`` (``to_version``, whose
    digest is ``digest``), sorted by (part, node)."""
    out: list[PartChange] = []

    def changed(part: str, node: str, name: str, old: str | None, now: str | None) -> PartChange:
        return PartChange(part=part, node=node, name=name, old=old, new=now, set_id=new.set_id,
                          from_version=from_version, to_version=to_version, digest=digest)

    before, after = _declarations(old), _declarations(new)
    live = {n.id for n in new.shared if n.label == Label.RECORD}
    for node_id, (name, text) in before.items():
        now = after.get(node_id)
        if (now is None and node_id in live) or (now is not None and now[1] != text):
            out.append(changed("declaration", node_id, name, text, now[1] if now else None))
    old_q, new_q = _quotations(old), _quotations(new)
    for document, quotations in new_q.items():
        was = old_q.get(document, [])
        keys = [_quotation_text(q) for q in was], [_quotation_text(q) for q in quotations]
        matcher = difflib.SequenceMatcher(None, *keys, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace":
                continue
            for a, b in zip(range(i1, i2), range(j1, j2)):
                out.append(changed("quotation", quotations[b].id, quotation_of(quotations[b]).path,
                                   keys[0][a], keys[1][b]))
    sources = {n.id: n for n in old.shared if n.label == Label.SOURCE}
    for node in new.shared:
        if node.label == Label.SOURCE and node.id in sources:
            pinned, repinned = _pin(sources[node.id]), _pin(node)
            if pinned is not None and pinned != repinned:
                out.append(changed("source-pin", node.id, source_of(node).source_id or node.id, pinned, repinned))
    out.sort(key=lambda c: (PART_KINDS.index(c.part), c.node))
    return out


def carried(earlier: Sequence[PartChange], latest: Sequence[PartChange], new: SetBatch) -> list[PartChange]:
    """The changes a new version keeps: ``latest`` (its own), and each of ``earlier`` (the previous
    version's) about a part ``new`` still holds and ``latest`` does not change again; sorted by
    (part, node)."""
    held = {n.id for n in new.shared} | {n.id for g in new.documents for n in g.nodes}
    again = {(c.part, c.node) for c in latest}
    kept = [c for c in earlier if c.node in held and (c.part, c.node) not in again]
    return sorted([*kept, *latest], key=lambda c: (PART_KINDS.index(c.part), c.node))


def to_stored(changes: Sequence[PartChange]) -> list[dict[str, Any]]:
    """``changes`` as the JSON a version's summary keeps (Python field names: a stored format)."""
    return [dataclasses.asdict(c) for c in changes]


def from_stored(data: Iterable[dict[str, Any]] | None) -> tuple[PartChange, ...]:
    """The changes :func:`to_stored` kept (none for a summary written before they were kept)."""
    return tuple(PartChange(**d) for d in data or ())
