"""The embedded store: a networkx MultiDiGraph in memory, persisted as one JSON file."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import tempfile
import threading
import zlib
from collections import defaultdict, deque
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Collection, Iterable, Iterator, Mapping

import networkx as nx

from graph.errors import CitegraphError, PreconditionFailed, StoreUnavailable
from graph.model import SHARED_LABELS, Edge, EdgeKind, Label, Node, SetBatch, WriteSummary
from graph.store import Direction

__all__ = ["MemoryStore", "FORMAT_VERSION"]

_COLLECTABLE = SHARED_LABELS - {Label.SYSTEM, Label.ANALYSIS_SET}

FORMAT_VERSION = 1
"""Version of the persisted file layout; a file of another version is refused."""


class MemoryStore:
    """The embedded :class:`~graph.store.GraphStore`: zero setup, persisted atomically.

    Parameters
    ----------
    path : Path or None
        File holding the graph (gzip-compressed JSON, ``{"version", "nodes", "edges"}``). Read on
        open if it exists; rewritten after every successful write through a temporary file,
        ``fsync`` and ``rename``, so a crash leaves the old or the new file, never a torn one.
        ``None`` keeps the graph in memory only (tests, doctests).

    Notes
    -----
    Thread-safe (one lock) and safe across processes sharing ``path``: a write takes an exclusive
    ``flock`` on ``<path>.lock``, reloads the file if another process changed it, applies the batch
    and saves; every read first reloads the file when its (mtime, size) changed, so a running
    ``citegraph serve`` sees what ``citegraph ingest`` wrote.

    Raises
    ------
    StoreUnavailable
        The file exists but is not a citegraph store of this version.
    """

    def __init__(self, path: Path | None = None):
        self.path = Path(path) if path is not None else None
        self._reset()
        self._lock = threading.RLock()
        self._bulk_depth = 0
        self._stamp: tuple[int, int] | None = None
        self._sync()

    # -- persistence -------------------------------------------------------------------------

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)  # type: ignore[arg-type]
        except (FileNotFoundError, TypeError):
            return None
        except OSError as exc:
            raise StoreUnavailable(f"cannot use {self.path} as the embedded store: {exc.strerror}",
                                   hint="--home / CITEGRAPH_HOME must name a folder") from None
        return (st.st_mtime_ns, st.st_size)

    def _sync(self) -> None:
        """Reload from disk when the file changed since this process last read or wrote it."""
        if self.path is None:
            return
        stamp = self._file_stamp()
        if stamp != self._stamp:
            if stamp is None:
                self._reset()
            else:
                self._load()
            self._stamp = stamp

    @contextmanager
    def _reading(self) -> Iterator[None]:
        with self._lock:
            self._sync()
            yield

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """Group the writes of a block into one transaction (see :class:`graph.store.SupportsBulkWrite`):
        each write applies in memory, the file is saved once when the block ends, and if any write
        or the block itself fails, every write of the block is rolled back. Ingesting many sets in
        one run so costs one save instead of one per set."""
        with self._transaction():
            self._bulk_depth += 1
            try:
                yield
            finally:
                self._bulk_depth -= 1

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """Exclusive, all-or-nothing write: lock (thread and file), sync, mutate, save. On any error
        the file is untouched and the graph is rolled back: reloaded from the file when persisted
        (no per-write copy of a large graph), restored from a snapshot when in memory only. Inside
        :meth:`bulk` the enclosing transaction already holds the locks and does the save."""
        if self._bulk_depth:
            with self._lock:
                yield
            return
        with self._lock, self._file_lock():
            self._sync()
            snap = self._snapshot() if self.path is None else None
            try:
                yield
                self._save()
            except BaseException:
                if snap is not None:
                    self._restore(snap)
                else:
                    self._stamp = None
                    self._sync()
                raise
            self._stamp = self._file_stamp()

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        if self.path is None:
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _load(self) -> None:
        """Read the file into a fresh state, one element per line (see :meth:`_save`); a file
        written as a single JSON document (before the line layout) is read whole.

        Raises
        ------
        StoreUnavailable
            The file is not gzip, not UTF-8, not a store of this format, or damaged (a line that is
            not an element, a missing comma, a dangling edge, a truncated end); the message names
            the file and, in the line layout, the line. The store is left empty.
        """
        assert self.path is not None
        try:
            with gzip.open(self.path, "rt", encoding="utf-8") as fh:
                head = fh.readline()
                if head.rstrip("\n") == _HEAD:
                    self._load_lines(fh)
                else:
                    self._load_document(json.loads(head + fh.read()))
        except StoreUnavailable:
            self._reset()
            raise
        except (OSError, ValueError, KeyError, TypeError, EOFError, zlib.error, CitegraphError) as exc:
            self._reset()
            raise StoreUnavailable(
                f"cannot read the embedded store {self.path}: {exc}",
                hint="remove the file to start from an empty store",
            ) from exc

    def _load_lines(self, lines: Iterator[str]) -> None:
        """Elements from line 2 on: each followed by a comma except the last of its array."""
        self._reset()
        section, intern = "nodes", _Interner()
        batch: list[tuple[int, str]] = []  # (file line, element JSON)

        def flush() -> None:
            try:
                items = json.loads("[" + ",".join(text for _, text in batch) + "]")
            except ValueError:
                for number, text in batch:  # find the line at fault
                    try:
                        json.loads(text)
                    except ValueError as exc:
                        raise ValueError(f"line {number}: {exc}") from None
                raise
            for (number, _), item in zip(batch, items):
                try:
                    if section == "nodes":
                        self._add_node(intern.node(item))
                    else:
                        self._add_edge(intern.edge(item, self._nodes), fresh=True)
                except (KeyError, TypeError, ValueError, CitegraphError) as exc:
                    why = f"no field {exc}" if isinstance(exc, KeyError) else str(exc)
                    raise ValueError(f"line {number}: {why}") from None
            batch.clear()

        last_comma = None  # whether the previous element line of this array ended with a comma
        for number, line in enumerate(lines, start=2):
            line = line.rstrip("\n")
            if line in (_MIDDLE, _TAIL) and section != "end":
                if last_comma:
                    raise ValueError(f"line {number - 1}: a comma after the last element")
                flush()
                if (line, section) not in ((_MIDDLE, "nodes"), (_TAIL, "edges")):
                    raise ValueError(f"line {number}: unexpected {line[:40]!r}")
                section, last_comma = ("edges" if section == "nodes" else "end"), None
            elif section == "end":
                raise ValueError(f"line {number}: text after the end of the store")
            else:
                if last_comma is False:
                    raise ValueError(f"line {number - 1}: no comma between two elements")
                last_comma = line.endswith(",")
                batch.append((number, line[:-1] if last_comma else line))
                if len(batch) >= 4096:
                    flush()
        if section != "end":
            raise ValueError("the file ends before its last line (truncated)")
        self._edge_count = self._g.number_of_edges()

    def _load_document(self, data: Any) -> None:
        if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
            raise StoreUnavailable(f"{self.path} is not a citegraph store of format {FORMAT_VERSION}")
        self._reset()
        for raw in data["nodes"]:
            self._add_node(Node.from_dict(raw))
        for raw in data["edges"]:
            self._add_edge(Edge.from_dict(raw))

    def _save(self) -> None:
        """Write the file: gzip-compressed JSON, ``{"version", "nodes", "edges"}`` with one node or
        edge per line, nodes sorted by id and edges by :meth:`Edge.sort_key`. Streamed element by
        element, so saving costs about one chunk of memory, not a second copy of the store."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".graph-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=1) as gz:
                for chunk in _chunks(self._lines()):
                    gz.write(chunk.encode("utf-8"))
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException as exc:
            if os.path.exists(tmp):
                os.unlink(tmp)
            if isinstance(exc, OSError) and not exc.filename:  # a full disk, a file size limit
                raise OSError(exc.errno, exc.strerror or str(exc), str(self.path)) from exc
            raise

    def _lines(self) -> Iterator[str]:
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        ids = sorted(self._nodes)
        yield _HEAD
        yield from _commas(dumps(self._nodes[i].to_dict(copy=False)) for i in ids)
        yield _MIDDLE
        # Edge.sort_key starts with src, so sorting each node's out-edges in node order sorts them all.
        yield from _commas(
            dumps(edge.to_dict(copy=False))
            for i in ids
            for edge in sorted((d["edge"] for _, _, d in self._g.out_edges(i, data=True)), key=Edge.sort_key)
        )
        yield _TAIL

    _STATE = ("_g", "_nodes", "_by_scope", "_by_document", "_edges_by_owner", "_shared_by_set", "_edge_count")

    def _snapshot(self) -> dict[str, Any]:
        """A copy of the whole in-memory state (in-memory stores only: persisted ones reload)."""
        copy = {"_g": self._g.copy(), "_nodes": dict(self._nodes), "_edge_count": self._edge_count}
        for name in ("_by_scope", "_by_document", "_edges_by_owner", "_shared_by_set"):
            copy[name] = defaultdict(set, {k: set(v) for k, v in getattr(self, name).items()})
        return copy

    def _restore(self, snap: dict[str, Any]) -> None:
        for name in self._STATE:
            setattr(self, name, snap[name])

    # -- primitive mutations -----------------------------------------------------------------

    def _reset(self) -> None:
        """Empty state. ``_g`` holds the topology (edge data ``{"edge": Edge}``), ``_nodes`` the
        nodes by id; the indexes answer ``find_nodes`` and ownership without scanning the graph,
        and ``_edge_count`` keeps ``number_of_edges()`` (a walk of every adjacency list) off the
        write path."""
        self._g = nx.MultiDiGraph()
        self._nodes: dict[str, Node] = {}
        self._by_scope: dict[tuple[Label, str | None], set[str]] = defaultdict(set)
        self._by_document: dict[str, set[str]] = defaultdict(set)
        self._edges_by_owner: dict[str, set[tuple]] = defaultdict(set)
        self._shared_by_set: dict[str | None, set[str]] = defaultdict(set)
        self._edge_count = 0

    def _add_node(self, node: Node) -> None:
        old = self._nodes.get(node.id)
        if old is not None:
            self._unindex(old)
        else:
            self._g.add_node(node.id)
        self._nodes[node.id] = node
        self._by_scope[node.label, node.set_id].add(node.id)
        if node.document_id:
            self._by_document[node.document_id].add(node.id)
        elif node.label in _COLLECTABLE:
            self._shared_by_set[node.set_id].add(node.id)

    def _unindex(self, node: Node) -> None:
        self._by_scope[node.label, node.set_id].discard(node.id)
        if node.document_id:
            self._by_document[node.document_id].discard(node.id)
        self._shared_by_set[node.set_id].discard(node.id)

    def _remove_node(self, node_id: str) -> None:
        self._unindex(self._nodes.pop(node_id))
        self._edge_count -= (self._g.in_degree(node_id) + self._g.out_degree(node_id)
                             - self._g.number_of_edges(node_id, node_id))
        self._g.remove_node(node_id)

    def _add_edge(self, edge: Edge, *, fresh: bool = False) -> None:
        """Add or replace ``edge`` (keyed by its ends, kind, ``seq`` and owner). ``fresh``: the
        caller knows it is new and sets ``_edge_count`` itself (loading a file)."""
        for end in (edge.src, edge.dst):
            if end not in self._nodes:
                raise CitegraphError(f"edge {edge.kind} {edge.src} -> {edge.dst} names unknown node {end}")
        key = (str(edge.kind), edge.seq, edge.document_id)
        if not fresh and not self._g.has_edge(edge.src, edge.dst, key):
            self._edge_count += 1
        self._g.add_edge(edge.src, edge.dst, key=key, edge=edge)
        self._edges_by_owner[_owner(edge)].add((edge.src, edge.dst, key))

    def _remove_edges_of(self, owner: str) -> None:
        for u, v, k in self._edges_by_owner.pop(owner, ()):
            if self._g.has_edge(u, v, k):
                self._g.remove_edge(u, v, k)
                self._edge_count -= 1

    def _all_edges(self) -> Iterable[Edge]:
        return (d["edge"] for _, _, d in self._g.edges(data=True))

    # -- contract: reads ---------------------------------------------------------------------

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        """See :meth:`graph.store.GraphStore.get_nodes`."""
        with self._reading():
            nodes = self._nodes
            return {i: nodes[i] for i in ids if i in nodes}

    def find_nodes(
        self,
        label: Label,
        *,
        set_id: str | None = None,
        document_id: str | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> list[Node]:
        """See :meth:`graph.store.GraphStore.find_nodes`."""
        with self._reading():
            return self._find_nodes(label, set_id, document_id, where)

    def _find_nodes(self, label, set_id, document_id, where) -> list[Node]:
        if document_id:
            ids: Iterable[str] = self._by_document.get(document_id, ())
        elif set_id is not None:
            ids = self._by_scope.get((label, set_id), ())
        else:
            ids = [i for (lab, _), scope in self._by_scope.items() if lab == label for i in scope]
        out = []
        for i in ids:
            node = self._nodes[i]
            if node.label != label:
                continue
            if set_id is not None and node.set_id != set_id:
                continue
            if where and any(node.props.get(k) != v for k, v in where.items()):
                continue
            out.append(node)
        return sorted(out, key=lambda n: n.id)

    def edges(
        self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None, direction: Direction
    ) -> dict[str, list[Edge]]:
        """See :meth:`graph.store.GraphStore.edges`."""
        with self._reading():
            return self._edges(ids, kinds, direction)

    def _edges(self, ids, kinds, direction) -> dict[str, list[Edge]]:
        wanted = set(kinds) if kinds is not None else None
        out: dict[str, list[Edge]] = {}
        for i in ids:
            if i not in self._g:
                out[i] = []
                continue
            view = self._g.out_edges(i, data=True) if direction == Direction.OUT else self._g.in_edges(i, data=True)
            found = [d["edge"] for _, _, d in view if wanted is None or d["edge"].kind in wanted]
            out[i] = sorted(found, key=Edge.sort_key)
        return out

    def closure(self, ids: Collection[str], *, kinds: Collection[EdgeKind]) -> list[Edge]:
        """See :meth:`graph.store.GraphStore.closure`."""
        with self._reading():
            return self._closure(ids, kinds)

    def _closure(self, ids, kinds) -> list[Edge]:
        wanted = set(kinds)
        seen = {i for i in ids if i in self._g}
        queue = deque(seen)
        found: list[Edge] = []
        while queue:
            dst = queue.popleft()
            for src, _, data in self._g.in_edges(dst, data=True):
                edge: Edge = data["edge"]
                if edge.kind not in wanted:
                    continue
                found.append(edge)
                if src not in seen:
                    seen.add(src)
                    queue.append(src)
        return sorted(found, key=Edge.sort_key)

    def counts(self) -> dict[str, int]:
        """See :meth:`graph.store.GraphStore.counts`."""
        with self._reading():
            return self._counts()

    def _counts(self) -> dict[str, int]:
        out = {str(label): 0 for label in Label}
        for (label, _), ids in self._by_scope.items():
            out[str(label)] += len(ids)
        out.update({str(kind): 0 for kind in EdgeKind})
        for edge in self._all_edges():
            out[str(edge.kind)] += 1
        out["nodes"] = len(self._nodes)
        out["edges"] = self._edge_count
        return out

    # -- contract: writes --------------------------------------------------------------------

    def write_set(self, batch: SetBatch) -> WriteSummary:
        """See :meth:`graph.store.GraphStore.write_set`."""
        with self._transaction():
            self._check_expected(batch.expect)
            for doc_id in {*batch.replace, *(d.id for d in batch.documents)}:
                self._delete_document(doc_id)
            for node in batch.shared:
                self._upsert_shared(node)
            for doc in batch.documents:
                for node in (doc.document, *doc.nodes):
                    self._add_node(node)
            for doc in batch.documents:
                for edge in doc.edges:
                    self._add_edge(edge)
            self._replace_derived(batch.set_id, batch.derived)
            self._collect_orphans({batch.set_id})
            nodes, edges = len(self._nodes), self._edge_count
        return WriteSummary(
            written=tuple(d.id for d in batch.documents),
            deleted=tuple(sorted(set(batch.replace) - {d.id for d in batch.documents})),
            nodes=nodes,
            edges=edges,
        )

    def delete_documents(self, ids: Iterable[str], *, expect: Mapping[str, str | None] | None = None) -> WriteSummary:
        """See :meth:`graph.store.GraphStore.delete_documents`."""
        deleted, sets = [], set()
        with self._transaction():
            self._check_expected(expect or {})
            for doc_id in ids:
                if doc_id in self._nodes:
                    sets.add(self._nodes[doc_id].set_id)
                    self._delete_document(doc_id)
                    deleted.append(doc_id)
            self._collect_orphans(sets)
            nodes, edges = len(self._nodes), self._edge_count
        return WriteSummary((), tuple(deleted), nodes, edges)

    def put_reviews(self, reviews: Collection[Node]) -> int:
        """See :meth:`graph.store.GraphStore.put_reviews`."""
        reviews = list(reviews)
        for node in reviews:
            if node.label != Label.REVIEW or node.document_id is not None:
                raise CitegraphError(f"put_reviews takes Review nodes without a document, not {node.label} {node.id}")
        if not reviews:
            return 0
        with self._transaction():
            for node in reviews:
                self._add_node(node)
        return len(reviews)

    def close(self) -> None:
        """Nothing to release: every write is already on disk."""

    # -- write helpers -----------------------------------------------------------------------

    def _check_expected(self, expect: Mapping[str, str | None]) -> None:
        for doc_id, sha in expect.items():
            current = self._nodes[doc_id].props.get("sha256") if doc_id in self._nodes else None
            if current != sha:
                raise PreconditionFailed(
                    f"document {doc_id} is at {current or 'nothing'}, not the expected {sha or 'nothing'}",
                    hint="fetch the document again for its current ETag and retry")

    def _delete_document(self, doc_id: str) -> None:
        for node_id in list(self._by_document.get(doc_id, ())):
            self._remove_node(node_id)
        self._by_document.pop(doc_id, None)
        if doc_id in self._nodes:
            self._remove_node(doc_id)
        # Edges between two shared nodes (SUPERSEDED_BY, PART_OF) survive their endpoints' removal:
        self._remove_edges_of(doc_id)

    def _upsert_shared(self, node: Node) -> None:
        if node.id in self._nodes:
            old = self._nodes[node.id]
            merged = dict(old.props)
            merged.update({k: v for k, v in node.props.items() if v is not None})
            node = Node(node.id, node.label, node.set_id, node.document_id, merged)
        self._add_node(node)

    def _replace_derived(self, set_id: str, derived: Iterable[Edge]) -> None:
        self._remove_edges_of(f"set:{set_id}")
        for edge in derived:
            self._add_edge(edge)

    def _collect_orphans(self, set_ids: set[str | None]) -> None:
        for set_id in set_ids:
            for node_id in list(self._shared_by_set.get(set_id, ())):
                touching = [*self._g.in_edges(node_id, data=True), *self._g.out_edges(node_id, data=True)]
                if not any(d["edge"].document_id for _, _, d in touching):
                    self._remove_node(node_id)
            has_docs = set_id in self._nodes and any(
                self._nodes[v].label == Label.DOCUMENT for v in self._g.successors(set_id)
            )
            if not has_docs and set_id in self._nodes:
                system_ids = [u for u, _ in self._g.in_edges(set_id)]
                self._remove_node(set_id)
                for system_id in system_ids:
                    if self._g.out_degree(system_id) == 0:
                        self._remove_node(system_id)


_HEAD = '{"version":%d,"nodes":[' % FORMAT_VERSION
_MIDDLE = '],"edges":['
_TAIL = ']}'


def _commas(items: Iterable[str]) -> Iterator[str]:
    """JSON array items, each but the last followed by a comma."""
    previous = None
    for item in items:
        if previous is not None:
            yield previous + ","
        previous = item
    if previous is not None:
        yield previous


def _chunks(lines: Iterable[str], size: int = 1 << 20) -> Iterator[str]:
    """``lines`` joined by newlines into pieces of about ``size`` characters, ending in a newline."""
    buf, n = [], 0
    for line in lines:
        buf.append(line)
        n += len(line) + 1
        if n >= size:
            yield "\n".join(buf) + "\n"
            buf, n = [], 0
    if buf:
        yield "\n".join(buf) + "\n"


_LABELS: dict[str, Label] = {str(label): label for label in Label}
_KINDS: dict[str, EdgeKind] = {str(kind): kind for kind in EdgeKind}


class _Interner:
    """Builds nodes and edges from their saved form sharing one string object per distinct id,
    set id and document id (a JSON parse makes a new string per occurrence): at size L that is
    millions of repeated strings."""

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}

    def _s(self, value: str | None) -> str | None:
        return None if value is None else self._strings.setdefault(value, value)

    def _props(self, props: dict | None) -> dict:
        """Short string values (kinds, forms, tokens such as record IDs) shared too."""
        if not props:
            return {}
        setdefault = self._strings.setdefault
        for key, value in props.items():
            if type(value) is str and len(value) <= 64:
                props[key] = setdefault(value, value)
        return props

    def node(self, data: dict) -> Node:
        if data["label"] not in _LABELS:
            raise ValueError(f"unknown label {data['label']!r}")
        return Node(self._s(data["id"]), _LABELS[data["label"]], self._s(data.get("set_id")),
                    self._s(data.get("document_id")), self._props(data.get("props")))

    def edge(self, data: dict, nodes: Mapping[str, Node]) -> Edge:
        if data["kind"] not in _KINDS:
            raise ValueError(f"unknown edge kind {data['kind']!r}")
        src, dst = data["src"], data["dst"]
        return Edge(_KINDS[data["kind"]], nodes[src].id if src in nodes else src,
                    nodes[dst].id if dst in nodes else dst, int(data.get("seq", 0)),
                    self._s(data.get("document_id")), self._s(data.get("set_id")), self._props(data.get("props")))


def _owner(edge: Edge) -> str:
    """Index key of the owner of ``edge``: its document id, or ``set:<id>`` for derived edges."""
    return edge.document_id or f"set:{edge.set_id}"
