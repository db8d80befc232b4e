"""Versions of an analysis set, decided once for every store: what a version holds, when a write
adds one, how it is encoded, and which versions retention keeps.

A **version** of a set is the whole set as one :class:`~graph.model.SetBatch` (its shared nodes,
every member's document graph, its derived edges), as it stands after a write that changed it.
Stores keep each version as one blob (:func:`encode`: zlib-compressed JSON) beside a
:class:`SetVersion` summary (number, time, digest, members with their SHA-256, counts); the
embedded store keeps none for a latest version that its live rows encode, and encodes them when
it is read (:mod:`graph.stores.sqlite`). The live
graph is always the latest version; an earlier one is read by materialising its batch into an
empty store (:func:`queries.history.store_at`).

The rules a store follows inside every write transaction (``write_set``, ``delete_documents``),
after the write's own steps:

1. **baseline**: a set that existed before the write but has no stored version (written before
   versions were kept) first gets its pre-write state as version 1, with no time
   (:func:`baseline_needed`);
2. **snapshot**: the set as it now stands is read back (:func:`snapshot`); a set left with no
   document deletes all its versions;
3. **new version only on change**: when the snapshot's :func:`digest` equals the latest stored
   version's, nothing is added (an unchanged re-ingest changes nothing); else it is stored with
   the next number (numbers are never reused while the set exists);
4. **retention**: the oldest versions beyond ``versions_kept`` are deleted (:func:`plan`).
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Collection, Iterable, Sequence

from domain.wire import wire
from graph import analysis_changes
from graph.analysis_changes import PartChange
from graph.model import DocumentGraph, Edge, EdgeKind, Label, Node, SetBatch
from graph.writes import edge_identity

__all__ = [
    "FORMAT",
    "MemberVersion",
    "VersionCounts",
    "SetVersion",
    "VersionPlan",
    "snapshot",
    "encode",
    "decode",
    "digest_of",
    "summary_of",
    "baseline_needed",
    "plan",
    "changes",
    "RawNode",
    "RawEdge",
    "Encoded",
    "encode_rows",
    "encode_texts",
    "encode_batch",
    "encode_written",
    "checked_versions",
    "node_text",
    "edge_text",
    "COMPRESSION",
    "changed_in",
]

FORMAT = 1
"""``format`` of an encoded version (the JSON document inside the blob)."""

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@dataclass(frozen=True, slots=True)
class MemberVersion:
    """One member of a version: ``document`` id, ``role``, ``path`` it was ingested from, the
    SHA-256 of its bytes and its ``size`` in bytes."""

    document: str
    role: str | None
    path: str | None
    sha256: str | None
    size: int | None


@dataclass(frozen=True, slots=True)
class VersionCounts:
    """What a version holds: members (``documents``), ``sections``, ``statements``, ``records``,
    ``declarations`` (DECLARED_IN edges), ``citations`` (CITES edges), ``quotations``,
    ``source_files``, and all its ``nodes`` and ``edges``."""

    documents: int = 0
    sections: int = 0
    statements: int = 0
    records: int = 0
    declarations: int = 0
    citations: int = 0
    quotations: int = 0
    source_files: int = 0
    nodes: int = 0
    edges: int = 0


@dataclass(frozen=True, slots=True)
class SetVersion:
    """One stored version of an analysis set: its number, time, digest, members and counts.

    Attributes
    ----------
    set_id : str
        The analysis set (``set`` on the wire).
    number : int
        1, 2, … in write order; never reused while the set exists (``version`` on the wire).
    created : str or None
        UTC ISO 8601 time of the write that made it; None for a baseline (the state a set had when
        it was first written by a store that did not keep versions yet).
    digest : str
        SHA-256 of the encoded version (before compression): equal digests, equal sets.
    members : tuple of MemberVersion
        Sorted by document id.
    counts : VersionCounts
        What it holds.
    """

    set_id: str = field(metadata=wire("set"))
    number: int = field(metadata=wire("version"))
    created: str | None
    digest: str
    members: tuple[MemberVersion, ...]
    counts: VersionCounts = field(default_factory=VersionCounts)

    def summary_json(self, changed: Sequence[PartChange] = ()) -> str:
        """The members and counts as stored beside the blob (:meth:`from_stored` reads them back):
        ``{"members": [{"document", "role", "path", "sha256", "size"}], "counts": {"documents", …}}``,
        keyed by the fields' Python names (a stored format, not a face's), and ``changed``, the
        part changes the version keeps (:mod:`graph.analysis_changes`; :func:`changed_in` reads
        them), when there are any."""
        data: dict[str, Any] = {"members": [dataclasses.asdict(m) for m in self.members],
                      "counts": dataclasses.asdict(self.counts)}
        if changed:
            data["changed"] = analysis_changes.to_stored(changed)
        return _dumps(data)

    @classmethod
    def from_stored(cls, set_id: str, number: int, created: str | None, digest: str, summary: str) -> SetVersion:
        """A version from a store's row: the columns and :meth:`summary_json`'s text (a count it
        lacks is 0)."""
        data = json.loads(summary)
        members = tuple(MemberVersion(m["document"], m.get("role"), m.get("path"), m.get("sha256"), m.get("size"))
                        for m in data.get("members", ()))
        counts = data.get("counts", {})
        return cls(set_id, int(number), created, digest, members,
                   VersionCounts(**{f.name: int(counts.get(f.name, 0)) for f in dataclasses.fields(VersionCounts)}))


@dataclass(frozen=True, slots=True)
class VersionPlan:
    """What a write does to the versions of its set: ``add`` the snapshot as version ``number``
    (None: the set is unchanged, nothing is added) and ``drop`` these older numbers."""

    number: int | None
    drop: tuple[int, ...]


def snapshot(set_id: str, nodes: Iterable[Node], edges: Iterable[Edge]) -> SetBatch | None:
    """The whole of set ``set_id`` as a :class:`SetBatch`, from every node and edge a store holds
    for it: its nodes (``Node.set_id``, Review nodes excluded: they are not part of a version), its
    System node, and its edges (``Edge.set_id``). None when the set has no AnalysisSet node.

    Documents own their nodes and edges (``document_id``); the rest are the shared nodes and the
    derived edges. Every list is sorted (nodes by id, edges by :meth:`Edge.sort_key`), so equal
    sets give equal batches whichever store read them. Writing the batch into an empty store
    rebuilds exactly these nodes and edges.

    Examples
    --------
    >>> s = Node("s", Label.ANALYSIS_SET, "s", None, {"system": "system/x"})
    >>> d = Node("s/d", Label.DOCUMENT, "s", "s/d", {"sha256": "ab"})
    >>> batch = snapshot("s", [d, s, Node("system/x", Label.SYSTEM, None, None, {})],
    ...                  [Edge(EdgeKind.CONTAINS, "s", "s/d", 0, "s/d", "s"), Edge(EdgeKind.CONTAINS, "system/x", "s", 0, None, "s")])
    >>> [n.id for n in batch.shared], [g.id for g in batch.documents], [e.src for e in batch.derived]
    (['s', 'system/x'], ['s/d'], ['system/x'])
    """
    shared: list[Node] = []
    documents: dict[str, Node] = {}
    owned: dict[str, list[Node]] = {}
    has_set = False
    for node in nodes:
        if node.label == Label.REVIEW:
            continue
        if node.id == set_id and node.label == Label.ANALYSIS_SET:
            has_set = True
        if node.label == Label.DOCUMENT:
            documents[node.id] = node
        elif node.document_id:
            owned.setdefault(node.document_id, []).append(node)
        else:
            shared.append(node)
    if not has_set:
        return None
    document_edges: dict[str, list[Edge]] = {}
    derived: list[Edge] = []
    for edge in edges:
        if edge.document_id:
            document_edges.setdefault(edge.document_id, []).append(edge)
        else:
            derived.append(edge)
    graphs = tuple(
        DocumentGraph(documents[d], tuple(sorted(owned.get(d, ()), key=lambda n: n.id)),
                      tuple(sorted(document_edges.get(d, ()), key=Edge.sort_key)))
        for d in sorted(documents)
    )
    return SetBatch(set_id, tuple(sorted(shared, key=lambda n: n.id)), graphs, tuple(sorted(derived, key=Edge.sort_key)))


RawNode = tuple[str, str, "str | None", "str | None", str]
"""A node as a store holds it: ``(id, label, set_id, document_id, props as JSON text)``, the text
exactly as :data:`graph.stores.sqlite` and :data:`graph.stores.neo4j` write it (compact, UTF-8)."""
RawEdge = tuple[str, str, str, int, "str | None", "str | None", str]
"""An edge as a store holds it: ``(kind, src, dst, seq, document_id, set_id, props as JSON text)``."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """An encoded version of set ``set_id``: ``blob`` (zlib-compressed JSON), ``digest`` (SHA-256
    hex of the JSON), and the ``members`` and ``counts`` a :class:`SetVersion` shows."""

    set_id: str
    blob: bytes
    digest: str
    members: tuple[MemberVersion, ...]
    counts: VersionCounts

    def version(self, number: int, created: str | None) -> SetVersion:
        """The :class:`SetVersion` of this encoding stored as ``number``."""
        return SetVersion(self.set_id, number, created, self.digest, self.members, self.counts)


_COUNTED = {"Section": "sections", "Statement": "statements", "Quotation": "quotations", "Record": "records",
            "SourceFile": "source_files"}


NodeText = tuple[str, str, "str | None", "str | None", str]
"""A node ready to encode: ``(id, label, document_id, props JSON text or None, node JSON text)``;
the props text is needed for Document nodes only (their :class:`MemberVersion`)."""
EdgeText = tuple["str | None", str, str]
"""An edge ready to encode: ``(document_id, kind, edge JSON text)``."""


def node_text(node_id: str, label: str, set_id: str | None, document_id: str | None, props: str) -> str:
    """A node's JSON, as :meth:`Node.to_dict` gives it, around its stored ``props`` text.

    >>> node_text("s/d", "Document", "s", "s/d", '{"role":"d"}')
    '{"id":"s/d","label":"Document","set_id":"s","document_id":"s/d","props":{"role":"d"}}'
    """
    q = _dumps
    return f'{{"id":{q(node_id)},"label":{q(label)},"set_id":{q(set_id)},"document_id":{q(document_id)},"props":{props}}}'


def edge_text(kind: str, src: str, dst: str, seq: int, document_id: str | None, set_id: str | None, props: str) -> str:
    """An edge's JSON, as :meth:`Edge.to_dict` gives it, around its stored ``props`` text."""
    q = _dumps
    return (f'{{"kind":{q(kind)},"src":{q(src)},"dst":{q(dst)},"seq":{int(seq)},"document_id":{q(document_id)},'
            f'"set_id":{q(set_id)},"props":{props}}}')


COMPRESSION = 3
"""zlib level of a version's blob (level 6 takes twice as long for blobs 17 % smaller)."""


def encode_rows(set_id: str, nodes: Iterable[RawNode], edges: Iterable[RawEdge]) -> Encoded | None:
    """The encoded version of set ``set_id`` from every node and edge a store holds for it, as
    stored (see :func:`snapshot` for which belong and how they group); None when the set has no
    AnalysisSet node (:func:`encode_texts` on the rows' JSON)."""
    texts = sorted((n[0], n[1], n[3], n[4] if n[1] == "Document" else None, node_text(*n)) for n in nodes)
    links = sorted(((e[1], e[0], e[2], int(e[3])), (e[4], e[0], edge_text(*e))) for e in edges)
    return encode_texts(set_id, texts, [t for _, t in links])


def encode_texts(set_id: str, nodes: Sequence[NodeText], edges: Sequence[EdgeText]) -> Encoded | None:
    """The encoded version of set ``set_id`` from its nodes' and edges' JSON (:func:`node_text`,
    :func:`edge_text`), nodes sorted by id and edges by :meth:`Edge.sort_key`; None when the set
    has no AnalysisSet node. Only members' property text is decoded (for :class:`MemberVersion`);
    the rest is copied, so encoding costs little more than compressing the set.

    The JSON is ``{"format", "set_id", "shared", "documents": [{"document", "nodes", "edges"}],
    "derived"}``: :func:`encode` of the :func:`snapshot` of the same set gives the same bytes, and
    :func:`decode` reads them back.
    """
    shared: list[str] = []
    documents: dict[str, tuple[str, str]] = {}
    owned: dict[str, list[str]] = {}
    counts = dict.fromkeys(("documents", "sections", "statements", "records", "declarations", "citations",
                            "quotations", "source_files", "nodes", "edges"), 0)
    has_set = False
    labels: dict[str | None, list[str]] = {}
    for node_id, label, document_id, props, text in nodes:
        if label == "Review":
            continue
        has_set = has_set or (node_id == set_id and label == "AnalysisSet")
        if label == "Document":
            documents[node_id] = (text, props or "{}")
        elif document_id:
            owned.setdefault(document_id, []).append(text)
            labels.setdefault(document_id, []).append(label)
        else:
            shared.append(text)
            labels.setdefault(None, []).append(label)
    if not has_set:
        return None
    document_edges: dict[str, list[str]] = {}
    derived: list[str] = []
    kinds: dict[str | None, list[str]] = {}
    for document_id, kind, text in edges:
        (document_edges.setdefault(document_id, []) if document_id else derived).append(text)
        kinds.setdefault(document_id or None, []).append(kind)
    counted = [*labels.get(None, ())]
    cited = [*kinds.get(None, ())]
    parts, members = [], []
    for document_id in sorted(documents):
        text, props = documents[document_id]
        mine, links = owned.get(document_id, []), document_edges.get(document_id, [])
        parts.append(f'{{"document":{text},"nodes":[{",".join(mine)}],"edges":[{",".join(links)}]}}')
        data = json.loads(props)
        members.append(MemberVersion(document_id, data.get("role"), data.get("path"), data.get("sha256"),
                                     data.get("size")))
        counts["documents"] += 1
        counts["nodes"] += 1 + len(mine)
        counts["edges"] += len(links)
        counted += labels.get(document_id, [])
        cited += kinds.get(document_id, [])
    counts["nodes"] += len(shared)
    counts["edges"] += len(derived)
    for label in counted:
        if label in _COUNTED:
            counts[_COUNTED[label]] += 1
    counts["citations"] = cited.count("CITES")
    counts["declarations"] = cited.count("DECLARED_IN")
    encoded = (f'{{"format":{FORMAT},"set_id":{_dumps(set_id)},"shared":[{",".join(shared)}],'
               f'"documents":[{",".join(parts)}],"derived":[{",".join(derived)}]}}').encode()
    return Encoded(set_id, zlib.compress(encoded, COMPRESSION), _sha256(encoded), tuple(members), VersionCounts(**counts))


def encode_written(set_id: str, nodes: Iterable[tuple[Node, str]], edges: Iterable[tuple[Edge, str]]) -> Encoded | None:
    """The encoded version of set ``set_id`` after a write into a store that held nothing of it,
    from what the write put, without reading it back: ``nodes`` and ``edges`` in the order written,
    each with its properties' JSON text as stored (a later node of the same id, a later edge of the
    same identity ``(src, kind, dst, owner, seq)``, replaces the earlier, as the stores write them).
    It is :func:`encode_rows` of the set's rows as a store then holds them: the nodes of the set
    (Review nodes aside), the System node each derived ``CONTAINS`` into the set comes from, the
    edges of the set.

    None when the rows alone do not decide the encoding (read it back from the store instead): two
    edges of the set with the same ``(src, kind, dst, seq)`` (a store orders those as it finds
    them), a System node the write did not put, or no AnalysisSet node.

    >>> s = Node("s", Label.ANALYSIS_SET, "s", None, {})
    >>> x = Node("system/x", Label.SYSTEM, None, None, {})
    >>> e = Edge(EdgeKind.CONTAINS, "system/x", "s", 0, None, "s")
    >>> encode_written("s", [(s, "{}"), (x, "{}")], [(e, "{}")]) == encode_rows(
    ...     "s", [("s", "AnalysisSet", "s", None, "{}"), ("system/x", "System", None, None, "{}")],
    ...     [("CONTAINS", "system/x", "s", 0, None, "s", "{}")])
    True
    """
    final_nodes = {node.id: (node, props) for node, props in nodes}
    final_edges = {edge_identity(e): (e, props) for e, props in edges}
    mine = [(e, props) for e, props in final_edges.values() if e.set_id == set_id]
    if len({(e.src, e.kind, e.dst, e.seq) for e, _ in mine}) != len(mine):
        return None
    systems = sorted({e.src for e, _ in mine if e.kind == EdgeKind.CONTAINS and e.document_id is None
                      and e.dst == set_id})
    if any(s not in final_nodes for s in systems):
        return None
    chosen = [(n, p) for n, p in final_nodes.values() if n.set_id == set_id and n.label != Label.REVIEW]
    chosen += [final_nodes[s] for s in systems]  # as the stores read them: by their edge, once more if in the set
    return encode_rows(set_id, [(n.id, n.label.value, n.set_id, n.document_id, p) for n, p in chosen],
                       [(e.kind.value, e.src, e.dst, e.seq, e.document_id, e.set_id, p) for e, p in mine])


def _rows(batch: SetBatch) -> tuple[list[RawNode], list[RawEdge]]:
    nodes = [*batch.shared, *(n for g in batch.documents for n in (g.document, *g.nodes))]
    edges = [*batch.derived, *(e for g in batch.documents for e in g.edges)]
    return ([(n.id, str(n.label), n.set_id, n.document_id, _dumps(dict(n.props))) for n in nodes],
            [(str(e.kind), e.src, e.dst, e.seq, e.document_id, e.set_id, _dumps(dict(e.props))) for e in edges])


def encode_batch(batch: SetBatch) -> Encoded:
    """:func:`encode_rows` of a :func:`snapshot` (the object path, for any store).

    Raises
    ------
    ValueError
        ``batch`` holds no AnalysisSet node for its set.
    """
    found = encode_rows(batch.set_id, *_rows(batch))
    if found is None:
        raise ValueError(f"set batch {batch.set_id!r} holds no AnalysisSet node")
    return found


def encode(batch: SetBatch) -> tuple[bytes, str]:
    """``(blob, digest)`` of ``batch`` (a :func:`snapshot`): zlib-compressed JSON and the SHA-256
    (hex) of that JSON (:func:`encode_batch`). :func:`decode` is its inverse.

    >>> blob, digest = encode(SetBatch("s", (Node("s", Label.ANALYSIS_SET, "s"),), (), ()))
    >>> decode(blob).shared[0].id, len(digest)
    ('s', 64)
    """
    found = encode_batch(batch)
    return found.blob, found.digest


def digest_of(batch: SetBatch) -> str:
    """The digest :func:`encode` gives ``batch``."""
    return encode_batch(batch).digest


def _sha256(data: bytes) -> str:
    """SHA-256 of ``data``, hex. :mod:`hashlib` is imported here, not at the top: loading OpenSSL
    costs a process a few milliseconds, and most commands never take a digest."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def decode(blob: bytes) -> SetBatch:
    """The :class:`SetBatch` an :func:`encode` blob holds.

    Raises
    ------
    ValueError
        ``blob`` is not an encoded version of a known format.
    """
    try:
        data = json.loads(zlib.decompress(bytes(blob)).decode("utf-8"))
    except (zlib.error, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not an encoded set version: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not an encoded set version of format {FORMAT}")
    return SetBatch(
        data["set_id"],
        tuple(Node.from_dict(n) for n in data["shared"]),
        tuple(DocumentGraph(Node.from_dict(g["document"]), tuple(Node.from_dict(n) for n in g["nodes"]),
                            tuple(Edge.from_dict(e) for e in g["edges"])) for g in data["documents"]),
        tuple(Edge.from_dict(e) for e in data["derived"]),
    )


def summary_of(batch: SetBatch, *, number: int, created: str | None, digest: str | None = None) -> SetVersion:
    """The :class:`SetVersion` of ``batch`` stored as version ``number`` (``digest`` is computed when
    not given)."""
    found = encode_batch(batch)
    return SetVersion(batch.set_id, number, created, digest or found.digest, found.members, found.counts)


def checked_versions(set_id: str, kept: Iterable[tuple[SetVersion, bytes]]) -> list[tuple[SetVersion, bytes]]:
    """``kept`` as a list sorted by number, each a version of ``set_id`` whose blob holds its digest
    (for :meth:`graph.store.KeepsVersions.replace_versions`).

    Raises
    ------
    CitegraphError
        A version of another set, a number twice, or a blob that does not hold its version.
    """
    from graph.errors import CitegraphError

    rows = sorted(kept, key=lambda r: r[0].number)
    numbers = [v.number for v, _ in rows]
    if len(set(numbers)) != len(numbers):
        raise CitegraphError(f"versions of {set_id!r} numbered twice: {numbers}")
    for version, blob in rows:
        if version.set_id != set_id:
            raise CitegraphError(f"version {version.number} is of set {version.set_id!r}, not {set_id!r}")
        try:
            text = zlib.decompress(bytes(blob))
        except zlib.error as exc:
            raise CitegraphError(f"version {version.number} of {set_id!r} has no readable blob: {exc}") from None
        if _sha256(text) != version.digest:
            raise CitegraphError(f"version {version.number} of {set_id!r}: its blob does not hold digest "
                                 f"{version.digest[:12]}")
    return rows


def baseline_needed(set_existed: bool, stored: Collection[object]) -> bool:
    """Rule 1: whether the pre-write state must be kept first, as version 1 (a set that existed
    before the write, with no stored version)."""
    return set_existed and not stored


def plan(stored: Sequence[tuple[int, str]], digest: str, kept: int) -> VersionPlan:
    """Rules 3 and 4 for one write: ``stored`` is ``(number, digest)`` of the set's stored versions
    (any order), ``digest`` the new snapshot's, ``kept`` the retention bound (at least 1).

    Examples
    --------
    >>> plan([], "a", 10)
    VersionPlan(number=1, drop=())
    >>> plan([(1, "a"), (2, "b")], "b", 10)   # unchanged: nothing added
    VersionPlan(number=None, drop=())
    >>> plan([(1, "a"), (2, "b"), (3, "c")], "d", 3)
    VersionPlan(number=4, drop=(1,))

    Raises
    ------
    ValueError
        ``kept`` is below 1.
    """
    if kept < 1:
        raise ValueError(f"versions kept must be at least 1, not {kept}")
    ordered = sorted(stored)
    if ordered and ordered[-1][1] == digest:
        return VersionPlan(None, tuple(n for n, _ in ordered[:max(0, len(ordered) - kept)]))
    number = ordered[-1][0] + 1 if ordered else 1
    numbers = [n for n, _ in ordered] + [number]
    return VersionPlan(number, tuple(numbers[:max(0, len(numbers) - kept)]))


def changes(after: Encoded | None, stored: Sequence[tuple[int, str]], *, kept: int, created: str | None,
            baseline: Encoded | None = None, previous: Callable[[], tuple[bytes, str] | None] | None = None,
            ) -> tuple[list[tuple[SetVersion, bytes, str]], tuple[int, ...] | None]:
    """Everything a store writes to the versions of one set at the end of a write transaction.

    Parameters
    ----------
    after : Encoded or None
        The set as it now stands (:func:`encode_rows`); None when the write left it with no document.
    stored : sequence of (int, str)
        ``(number, digest)`` of the set's stored versions, read in the same transaction.
    kept : int
        The retention bound (at least 1).
    created : str or None
        UTC ISO 8601 time of the write.
    baseline : Encoded, optional
        The set before the write, when :func:`baseline_needed` (it becomes version 1, untimed).
    previous : callable, optional
        Reads ``(blob, summary text)`` of the latest stored version in the same transaction (None
        when there is none); called only when a version is added after one that is kept.

    Returns
    -------
    (list of (SetVersion, bytes, str), tuple of int or None)
        The versions to add with their blobs and summary texts (none when the set is unchanged),
        and the numbers to delete; None instead of numbers means "every version of the set" (it is
        gone). A version added after another keeps its part changes in its summary
        (:func:`graph.analysis_changes.version_changes` from the version before, then
        :func:`~graph.analysis_changes.carried`).
    """
    if after is None:
        return [], None
    add: list[tuple[SetVersion, bytes, str]] = []
    stored = list(stored)
    before: tuple[int, bytes, str] | None = None
    if baseline is not None and not stored:
        first = baseline.version(1, None)
        add.append((first, baseline.blob, first.summary_json()))
        stored = [(1, baseline.digest)]
        before = (1, baseline.blob, add[0][2])
    step = plan(stored, after.digest, kept)
    if step.number is not None:
        version = after.version(step.number, created)
        if before is None and stored and previous is not None:
            found = previous()
            before = (max(stored)[0], *found) if found is not None else None
        changed: list[PartChange] = []
        if before is not None:
            number, blob, summary = before
            new = decode(after.blob)
            latest = analysis_changes.version_changes(decode(blob), new, from_version=number,
                                                      to_version=step.number, digest=after.digest)
            changed = analysis_changes.carried(changed_in(summary), latest, new)
        add.append((version, after.blob, version.summary_json(changed)))
    dropped = set(step.drop)
    return [a for a in add if a[0].number not in dropped], step.drop


def changed_in(summary: str) -> tuple[PartChange, ...]:
    """The part changes a version's stored summary text keeps (:meth:`SetVersion.summary_json`)."""
    return analysis_changes.from_stored(json.loads(summary).get("changed"))
