"""The embedded store: SQLite (WAL) holds the graph durably and indexed; each process holds in memory
the edges of the analysis sets a traversal touches, indexed by the node they point into.

Every command costs what it touches, not the whole store: lookups, listings and counts are SQL over
indexes; a closure loads only the edges of the sets holding edges into the nodes it reaches
(identity is set-scoped, so that is one set or a few), and keeps them in a per-process cache that a
per-set version number invalidates, so a long-running server sees another process's write by
reloading that set alone. A
write is one SQLite transaction that touches only the rows of the set written (and shared nodes),
so its cost and the bytes written grow with the set, not with the store.

Layout (format 6)::

    meta   (key PRIMARY KEY, value)             format, version, generation
    names  (ref INTEGER PRIMARY KEY, name UNIQUE)
                                                the set ids, document ids and owners nodes and edges
                                                name, each once (kept when unused: a few per document)
    vertices (nid INTEGER PRIMARY KEY, id UNIQUE, label, set_id, document_id, props packed JSON)
                                                the nodes: ``set_id``, ``document_id`` are ``names.ref``
    nodes  (VIEW: nid, id, label, set_id, document_id, props as stored, rowid)
                                                the nodes as format 4 stored them, for reading by hand
    links  (src, kind, dst, owner, seq UNIQUE together, document_id, set_id, props packed JSON)
                                                the edges: ``src``/``dst`` are ``vertices.nid``,
                                                ``owner``, ``document_id``, ``set_id`` are ``names.ref``
    edges  (VIEW: src, kind, dst, owner, seq, document_id, set_id, props as stored; rowid)
                                                the edges as format 2 stored them, for reading by hand
    dictionaries (id INTEGER PRIMARY KEY, name UNIQUE, zdict)
                                                the deflate dictionary of each label and edge kind
                                                (:mod:`graph.stores.packing`)
    scopes (scope PRIMARY KEY, version)         one row per set ('' for set-less nodes and edges)
    counts (scope, name, n)                     nodes per label and edges per kind, per scope
    totals (name PRIMARY KEY, n)                the same for the whole store, kept by the same writes
    versions (set_id, number PRIMARY KEY together, created, digest, summary JSON, blob)
                                                the kept versions of each set (:mod:`graph.versions`);
                                                the latest one's blob is empty while the set's
                                                live rows hold it
    set_results (set_id, name PRIMARY KEY together, stamp, result)
                                                what a query computed from one set at the stamp
                                                (``scopes.version``) it read (:mod:`queries.kept`)
    statement_search (FTS5, contentless)        statements' text by ``vertices.nid``, kept by triggers on
                                                ``vertices`` (search)
    search_counts (term, n, statement PRIMARY KEY together, WITHOUT ROWID)
                                                each word a statement (``vertices.nid``) holds at least
                                                :data:`SEARCH_COUNT_FLOOR` times, with its count
                                                (ranked search of a common word)

The rules a write follows are :mod:`graph.writes`' (and, for versions, :mod:`graph.versions`');
this module only executes them in SQL. The text ids of nodes are stored once, in ``vertices``; an
edge row and its three indexes hold small integers (format 2 held the 30–60 byte ids in each, 41 %
of the file), and so do a node's set and document and their indexes (every filter by set or
document goes through ``names``; an order by them joins ``names`` and orders by the text). A
property map is stored packed (deflated with its label's dictionary, a bytes value) or, when short
or of a label in :data:`PLAIN_LABELS`, as its JSON text; SQL reads either as text through the
function ``unpacked(props)`` that every connection of this module has. A store of format 2 to 5
is converted on its first opening by a process that may write it, in one transaction per format
(all or nothing, :func:`_convert_format_2`, :func:`_convert_format_3`, :func:`_convert_format_4`,
:func:`_convert_format_5`); one this user may only read is converted into memory each time it is
opened, and the file is left as it is. A set's latest version is kept as an empty blob while the
set's live rows encode it (the same digest; format 5 kept a second copy of them): reading it
encodes the rows (:func:`_held_blob`), and a write that would change rows of a set whose versions
it does not keep first stores that set's blob (:func:`_release_held`), so every version reads as it
was written.
A store written before versions were kept gets
its ``versions`` table on its first write, and one written before set results were kept its
``set_results`` table; a write deletes the kept results of every set it touches (an older citegraph
writing does not, so a kept result is only read while its stamp is the set's version).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
import types
from collections import OrderedDict
from contextlib import contextmanager, suppress
from datetime import datetime, UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence

from graph import writes
from graph.errors import CitegraphError, StoreUnavailable, StoreWriteFailed
from graph.model import Edge, EdgeKind, Label, Node, SetBatch, WriteSummary
from graph.store import SEARCH_FIELDS, VERSIONS_KEPT, ClosedOnExit, Direction, Reach, bare_edges
from graph.stores import store_log
from graph.stores.packing import DICTIONARIES_TABLE, Packer
from graph.text import Phrase, frequent_words, holds

if TYPE_CHECKING:
    from graph import versions
    from graph.analysis_changes import PartChange
    from graph.versions import SetVersion

# graph.versions (the versions' rules, with graph.analysis_changes) is imported by the methods that
# keep or read versions: a read of the live rows imports neither.

__all__ = ["SQLiteStore", "STORE_FILE", "FORMAT", "FORMAT_VERSION"]

STORE_FILE = "citegraph.sqlite"
"""The store's file name in a home folder (SQLite adds ``-wal`` and ``-shm`` beside it)."""

FORMAT = "citegraph-embedded"
"""``meta.format`` of a citegraph store; a database without it is refused, never written."""

FORMAT_VERSION = 6
"""``meta.version``; format 1 was the gzip JSON file (:mod:`graph.stores.legacy`), format 2 held
text ids in the edge rows (converted on opening, :func:`_convert_format_2`), format 3 the property
maps as JSON text (:func:`_convert_format_3`), format 4 had no ``search_counts``
(:func:`_convert_format_4`), format 5 the nodes' set and document ids as text and a blob for every
version, the latest too (:func:`_convert_format_5`)."""

SEARCH_COUNT_FLOOR = 8
"""``search_counts`` keeps a word of a statement when it occurs at least this often in its text."""

PLAIN_LABELS = frozenset({"Record", "Document"})
"""Labels whose property maps stay JSON text: the indexes on ``record_id`` and ``path`` read them."""

BUSY_TIMEOUT_S = 600.0
"""How long a writer waits for another process's write to finish before giving up."""

WAIT_NOTICE_S = 1.0
"""After this long waiting for another writer, a writer says that it waits."""

CACHE_EDGES = 500_000
"""Edges the per-process cache of set graphs keeps at most (about 0.5 GB), least recently used
sets evicted first; the sets of the traversal at hand are always kept."""

_SCHEMA_TEMPLATE = f"""
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
{{nodes}}
{{links}}
{{dictionaries}}
CREATE TABLE IF NOT EXISTS scopes (scope TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS counts (scope TEXT NOT NULL, name TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (scope, name));
CREATE TABLE IF NOT EXISTS totals (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
{{versions}}
{{set_results}}
{{search_counts}}
INSERT OR IGNORE INTO meta VALUES ('format', '{FORMAT}'), ('version', '{{version}}'), ('generation', '0');
COMMIT;
"""

_VERSIONS_TABLE = """CREATE TABLE IF NOT EXISTS versions (
  set_id TEXT NOT NULL, number INTEGER NOT NULL, created TEXT, digest TEXT NOT NULL, summary TEXT NOT NULL,
  blob BLOB NOT NULL, PRIMARY KEY (set_id, number));"""
_RESULTS_TABLE = """CREATE TABLE IF NOT EXISTS set_results (
  set_id TEXT NOT NULL, name TEXT NOT NULL, stamp INTEGER NOT NULL, result BLOB NOT NULL,
  PRIMARY KEY (set_id, name)) WITHOUT ROWID;"""
_NAMES = "CREATE TABLE IF NOT EXISTS names (ref INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
_NODES_TABLE = """CREATE TABLE IF NOT EXISTS vertices (
  nid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, label TEXT NOT NULL, set_id INTEGER, document_id INTEGER,
  props TEXT NOT NULL);"""
_NODES_INDEXES = """CREATE INDEX IF NOT EXISTS nodes_set ON vertices (set_id, label);
CREATE INDEX IF NOT EXISTS nodes_label ON vertices (label);
CREATE INDEX IF NOT EXISTS nodes_document ON vertices (document_id) WHERE document_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS nodes_record_id ON vertices (json_extract(props, '$.record_id')) WHERE label = 'Record';
CREATE INDEX IF NOT EXISTS nodes_path ON vertices (json_extract(props, '$.path')) WHERE label = 'Document';
CREATE VIEW IF NOT EXISTS nodes AS SELECT n.nid AS nid, n.id AS id, n.label AS label, sn.name AS set_id,
  dn.name AS document_id, n.props AS props, n.nid AS rowid
  FROM vertices n LEFT JOIN names sn ON sn.ref = n.set_id LEFT JOIN names dn ON dn.ref = n.document_id;"""
"""The nodes of format 6: their set and document as refs into ``names``; the view ``nodes`` reads
them as text, as formats 3 to 5 stored them (with ``rowid``, the ``nid``)."""
_NODES = "\n".join((_NAMES, _NODES_TABLE, _NODES_INDEXES))
_NODES_4 = """CREATE TABLE IF NOT EXISTS nodes (
  nid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, label TEXT NOT NULL, set_id TEXT, document_id TEXT,
  props TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS nodes_set ON nodes (set_id, label);
CREATE INDEX IF NOT EXISTS nodes_label ON nodes (label);
CREATE INDEX IF NOT EXISTS nodes_document ON nodes (document_id) WHERE document_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS nodes_record_id ON nodes (json_extract(props, '$.record_id')) WHERE label = 'Record';
CREATE INDEX IF NOT EXISTS nodes_path ON nodes (json_extract(props, '$.path')) WHERE label = 'Document';"""
"""The nodes of formats 3 to 5 (set and document ids as text), which :func:`_convert_format_2` makes."""
_LINKS = """CREATE TABLE IF NOT EXISTS names (ref INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS links (
  src INTEGER NOT NULL, kind TEXT NOT NULL, dst INTEGER NOT NULL, owner INTEGER NOT NULL, seq INTEGER NOT NULL,
  document_id INTEGER, set_id INTEGER, props TEXT NOT NULL, UNIQUE (src, kind, dst, owner, seq));
CREATE INDEX IF NOT EXISTS links_dst ON links (dst, set_id);
CREATE INDEX IF NOT EXISTS links_owner ON links (owner);
CREATE INDEX IF NOT EXISTS links_set ON links (set_id, kind);
{edges_view}"""
_EDGES_VIEW = """CREATE VIEW IF NOT EXISTS edges AS SELECT l.rowid AS rowid, s.id AS src, l.kind AS kind, d.id AS dst,
  o.name AS owner, l.seq AS seq, dn.name AS document_id, sn.name AS set_id, l.props AS props
  FROM links l JOIN {nodes} s ON s.nid = l.src JOIN {nodes} d ON d.nid = l.dst JOIN names o ON o.ref = l.owner
  LEFT JOIN names dn ON dn.ref = l.document_id LEFT JOIN names sn ON sn.ref = l.set_id;"""
"""The edges of format 3: integers into the nodes' table and ``names``; the view ``edges`` reads them as text."""


def _counts_schema(table: str) -> str:
    """``search_counts`` with its index and its triggers on the nodes' table ``table``."""
    return f"""CREATE TABLE IF NOT EXISTS search_counts (
  term TEXT NOT NULL, n INTEGER NOT NULL, statement INTEGER NOT NULL, PRIMARY KEY (term, n, statement)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS search_counts_statement ON search_counts (statement);
CREATE TRIGGER IF NOT EXISTS search_counts_delete AFTER DELETE ON {table} WHEN old.label = 'Statement'
  BEGIN DELETE FROM search_counts WHERE statement = old.nid; END;
CREATE TRIGGER IF NOT EXISTS search_counts_update AFTER UPDATE OF label, props ON {table} WHEN old.label = 'Statement'
  BEGIN DELETE FROM search_counts WHERE statement = old.nid; END;"""


_COUNTS = _counts_schema("vertices")
"""The frequent words of each statement (:func:`_put_search_counts` writes a statement's rows; the
triggers drop them when the statement is deleted or replaced, before its new rows are written)."""


def _schema(nodes: str, table: str, version: int, counts: str) -> str:
    """The schema script with ``nodes`` (the nodes' DDL), the view ``edges`` over ``table`` and
    ``counts`` (``search_counts``' DDL, or nothing)."""
    links = _LINKS.replace("{edges_view}", _EDGES_VIEW.replace("{nodes}", table))
    return (_SCHEMA_TEMPLATE.replace("{versions}", _VERSIONS_TABLE).replace("{set_results}", _RESULTS_TABLE)
            .replace("{nodes}", nodes).replace("{links}", links).replace("{dictionaries}", DICTIONARIES_TABLE)
            .replace("{search_counts}", counts).replace("{version}", str(version)))


_SCHEMA_4 = _schema(_NODES_4, "nodes", 4, "")
"""The schema of format 4 (and, but for ``dictionaries``, 3): what :func:`_convert_format_2` makes."""
_SCHEMA = _schema(_NODES, "vertices", FORMAT_VERSION, _COUNTS)


def _search_schema(table: str) -> tuple[str, ...]:
    """The full-text index's statements over the nodes' table ``table``."""
    return tuple(statement.replace("{nodes}", table) for statement in (
        "CREATE VIRTUAL TABLE IF NOT EXISTS statement_search USING fts5("
        "text, content='', tokenize='unicode61 remove_diacritics 0 categories ''L* N*''')",
        """CREATE TRIGGER IF NOT EXISTS statement_search_insert AFTER INSERT ON {nodes} WHEN new.label = 'Statement' BEGIN
  INSERT INTO statement_search (rowid, text) VALUES (new.nid, json_extract(unpacked(new.props), '$.text'));
END""",
        """CREATE TRIGGER IF NOT EXISTS statement_search_delete AFTER DELETE ON {nodes} WHEN old.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text) VALUES ('delete', old.nid, json_extract(unpacked(old.props), '$.text'));
END""",
        """CREATE TRIGGER IF NOT EXISTS statement_search_update AFTER UPDATE ON {nodes}
WHEN old.label = 'Statement' OR new.label = 'Statement' BEGIN
  INSERT INTO statement_search (statement_search, rowid, text)
    SELECT 'delete', old.nid, json_extract(unpacked(old.props), '$.text') WHERE old.label = 'Statement';
  INSERT INTO statement_search (rowid, text)
    SELECT new.nid, json_extract(unpacked(new.props), '$.text') WHERE new.label = 'Statement';
END""",
        "INSERT INTO statement_search (rowid, text) SELECT nid, json_extract(unpacked(props), '$.text') FROM {nodes} "
        "WHERE label = 'Statement'",
    ))


_SEARCH_SCHEMA = _search_schema("vertices")
"""The full-text index of statements (:meth:`SQLiteStore.search`), made by
:func:`_ensure_search_index`: FTS5 with ``unicode61`` (``remove_diacritics 0``, ``categories
'L* N*'``: the words of :mod:`graph.text`), contentless, its rows keyed by ``vertices.nid`` (which
``VACUUM`` keeps: an ``INTEGER PRIMARY KEY``) and kept by triggers
in the transaction of every write that touches a statement (also a write by a citegraph that
predates the index)."""

_LABELS = {str(label): label for label in Label}
_KINDS = {str(kind): kind for kind in EdgeKind}
_NAMED = "LEFT JOIN names sn ON sn.ref = n.set_id LEFT JOIN names dn ON dn.ref = n.document_id"
"""The set and document ids of ``vertices n`` as text: ``sn.name``, ``dn.name``."""
_NODE_ROWS = f"SELECT n.id, n.label, sn.name, dn.name, n.props FROM vertices n {_NAMED}"
"""Nodes as :func:`_nodes` reads them, from ``vertices n`` (conditions go on ``n``'s columns, the
set and document as refs)."""
_EDGE_ROWS = ("SELECT s.id, l.kind, d.id, l.seq, dn.name, sn.name, l.props FROM links l "
              "JOIN vertices s ON s.nid = l.src JOIN vertices d ON d.nid = l.dst "
              "LEFT JOIN names dn ON dn.ref = l.document_id LEFT JOIN names sn ON sn.ref = l.set_id")
"""Edges as :func:`_edges` reads them, from ``links l`` (conditions go on ``l``'s integer columns)."""
_IDS = "(SELECT value FROM json_each(?))"
"""A list parameter: ``x IN {_IDS}`` with one JSON array bound, whatever its length."""
_NIDS = f"(SELECT nid FROM vertices WHERE id IN {_IDS})"
"""The same list of node ids as ``vertices.nid`` (what ``links.src`` / ``links.dst`` hold)."""
_REFS = f"(SELECT ref FROM names WHERE name IN {_IDS})"
"""The same list of set ids, document ids or owners as ``names.ref`` (what ``links`` and
``vertices`` hold)."""
_NID = "(SELECT nid FROM vertices WHERE id = ?)"
_REF = "(SELECT ref FROM names WHERE name = ?)"
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class _Connection(sqlite3.Connection):
    """A connection with its :class:`~graph.stores.packing.Packer`, whose ``unpack`` SQL calls
    ``unpacked(props)``."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.packer = Packer(self)
        self.create_function("unpacked", 1, self.packer.unpack, deterministic=True)


def _packer(conn: sqlite3.Connection) -> Packer:
    assert isinstance(conn, _Connection), "a store's connections are made by SQLiteStore._connect"
    return conn.packer


class SetEdges:
    """The edges of one scope (an analysis set, or ``''`` for set-less edges) by the node they point
    into: ``into[dst]`` is a tuple of the edges into ``dst``, each edge once (the last of equal
    :func:`graph.writes.edge_identity`); ``size`` is the number of edges. What a closure walks
    backwards, and what the per-process cache holds and bounds in edges."""

    __slots__ = ("_bare", "into", "size")

    def __init__(self, edges: Iterable[Edge]):
        into: dict[str, dict[tuple[Any, ...], Edge]] = {}
        for e in edges:
            into.setdefault(e.dst, {})[writes.edge_identity(e)] = e
        self.into: dict[str, tuple[Edge, ...]] = {dst: tuple(es.values()) for dst, es in into.items()}
        self.size = sum(len(es) for es in self.into.values())
        self._bare: dict[str, tuple[Edge, ...]] = {}

    def bare_into(self, dst: str) -> tuple[Edge, ...]:
        """``into[dst]`` (empty when none) with empty props (:func:`graph.store.bare_edges`), made on
        first use and kept with the graph: a reach without edge props builds no edge per request."""
        found = self._bare.get(dst)
        if found is None:
            full = self.into.get(dst)
            if full is None:
                return ()
            found = self._bare[dst] = tuple(bare_edges(full))  # two threads may both make it: equal tuples
        return found


class _ThreadState(threading.local):
    """One thread's state of a store: its connection to the file and that file's identity, how
    deep it is in ``bulk()`` blocks, whether it writes now."""

    conn: sqlite3.Connection | None = None
    ident: tuple[Any, ...] | None = None
    bulk: int = 0
    writing: bool = False


class SQLiteStore(ClosedOnExit):
    """The embedded :class:`~graph.store.GraphStore` (with :class:`~graph.store.SupportsBulkWrite`,
    :class:`~graph.store.SupportsReach`, :class:`~graph.store.SupportsSnapshot` and
    :class:`~graph.store.KeepsSetResults`).

    Parameters
    ----------
    path : Path or None
        The SQLite file, created with its folder on the first write (reads of a missing file answer
        as an empty store and create nothing). ``None`` keeps the store in memory (tests, doctests).
    cache_edges : int
        Bound of the per-process cache of set graphs, in edges (:data:`CACHE_EDGES`).
    versions_kept : int
        Versions kept per set (:class:`~graph.store.KeepsVersions`, default
        :data:`graph.store.VERSIONS_KEPT`); 0 keeps none (throwaway stores, such as a version
        materialised for reading).

    Notes
    -----
    Every call is one SQLite transaction, so it sees one committed state: readers never see a
    half-written set, and never wait for a writer (WAL). Writers, in this process or others, take
    the database's write lock (``BEGIN IMMEDIATE``) and run one after the other, waiting up to
    :data:`BUSY_TIMEOUT_S`. A process killed at any moment leaves the state before or after its
    last write. Threads each get their own connection; an in-memory store has one, behind a lock.
    A :meth:`snapshot` holds one read transaction open across many calls (one request).

    Raises
    ------
    StoreUnavailable
        The file exists but is not a citegraph store of this format, or it is damaged; the message
        names the file, and the file is left as it is.
    """

    def __init__(self, path: Path | None = None, *, cache_edges: int = CACHE_EDGES,
                 versions_kept: int = VERSIONS_KEPT):
        if versions_kept < 0:
            raise ValueError(f"versions_kept must be at least 0, not {versions_kept}")
        self.path = Path(path) if path is not None else None
        self.cache_edges = cache_edges
        self.versions_kept = versions_kept
        self._local: _ThreadState | types.SimpleNamespace = _ThreadState()  # a snapshot's is shared
        self._lock = threading.RLock()  # the in-memory store's one connection; the graph cache
        self._graphs: OrderedDict[tuple[Any, ...], tuple[int, SetEdges]] = OrderedDict()  # (file, scope) →
        self._connections: list[sqlite3.Connection] = []
        self._shared: sqlite3.Connection | None = None  # the in-memory store's database
        self._empty_db: sqlite3.Connection | None = None  # answers reads while the file does not exist
        self._idle: list[tuple[tuple[Any, ...], sqlite3.Connection]] = []  # (file identity, connection) for snapshots
        if self.path is None:
            self._shared = self._connect(":memory:", create=True)
            self._local.ident = None
        elif self.path.parent.exists() and not self.path.parent.is_dir():
            raise StoreUnavailable(f"cannot use {self.path.parent} as the embedded store's folder: it is a file",
                                   hint="--home / CITEGRAPH_HOME must name a folder")
        elif self.path.exists():
            self._connection()  # refuse a foreign or damaged file now, not on first use

    # -- connections ---------------------------------------------------------------------------

    def _connect(self, where: str, *, create: bool, uri: bool = False) -> sqlite3.Connection:
        with self._translated():
            conn: sqlite3.Connection = sqlite3.connect(where, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S,
                                   uri=uri, factory=_Connection)
            self._connections.append(conn)
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA cache_size = -65536")
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables and create:
                if where != ":memory:":
                    _set_wal(conn)
                conn.executescript(_SCHEMA)  # one transaction; a second process creating it too changes nothing
            elif tables:
                conn = self._check_format(conn, tables, read_only=uri)
            if create:
                _ensure_search_index(conn)
            _packer(conn).load()
        return conn

    def _check_format(self, conn: sqlite3.Connection, tables: set[str], *, read_only: bool) -> sqlite3.Connection:
        """``conn`` when it opened a store of this format; for one of format 2 to 5, the connection
        to it converted (:func:`_convert_format_2`, :func:`_convert_format_3`,
        :func:`_convert_format_4`, then :func:`_convert_format_5`, one format each): the file itself
        when this user may write it, else a copy in memory (the file is left as it is)."""
        meta = dict(conn.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
        if meta.get("format") != FORMAT:
            raise StoreUnavailable(f"{self.path} is an SQLite database but not a citegraph store",
                                   hint="--home / CITEGRAPH_HOME must name a citegraph folder; the file is left as it is")
        if meta.get("version") in ("2", "3", "4", "5"):
            if read_only:
                copy = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False, factory=_Connection)
                self._connections.append(copy)
                conn.backup(copy)
                conn.close()
                conn = copy
            converted = meta["version"] == "2" and _convert_format_2(conn)
            converted = (meta["version"] in ("2", "3") and _convert_format_3(conn)) or converted
            converted = (meta["version"] in ("2", "3", "4") and _convert_format_4(conn)) or converted
            converted = _convert_format_5(conn) or converted
            if converted and not read_only:
                try:  # give back the pages the older format used (once; the store is whole either way)
                    conn.execute("VACUUM")
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.OperationalError as exc:
                    store_log().warning("%s was converted to format %s but not compacted: %s", self.path, FORMAT_VERSION, exc)
            return conn
        if meta.get("version") != str(FORMAT_VERSION):
            raise StoreUnavailable(f"{self.path} is a citegraph store of format {meta.get('version')}, "
                                   f"not {FORMAT_VERSION}", hint="use the citegraph version that wrote it")
        return conn

    def _connection(self, *, create: bool = False) -> sqlite3.Connection | None:
        """This thread's connection to the file (``None`` when there is no store yet, or an empty
        file, and ``create`` is false). When the file at ``path`` is no longer the one the
        connection opened (deleted, or replaced by another), a new connection is opened, so a
        long-running server follows a store rebuilt under it. A store this user may not write is
        opened read-only."""
        if self.path is None:
            return self._shared
        ident = self._file_ident()
        conn: sqlite3.Connection | None = self._local.conn
        if conn is not None and (self._local.bulk or (ident is not None and self._local.ident == ident)):
            return conn
        if conn is not None:
            conn.close()
            self._local.conn = None
        if ident is None and not create:
            return None
        conn, self._local.ident = self._open_file(ident, create=create)
        self._local.conn = conn
        return conn

    def _file_ident(self) -> tuple[Any, ...] | None:
        """``(device, inode)`` of the store file, or None when it does not exist or is empty."""
        assert self.path is not None, "a store in memory has no file"
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreUnavailable(f"cannot use {self.path} as the embedded store: {exc.strerror}",
                                   hint="--home / CITEGRAPH_HOME must name a folder") from None
        return (st.st_dev, st.st_ino) if st.st_size else None

    def _open_file(self, ident: tuple[Any, ...] | None, *, create: bool) -> tuple[sqlite3.Connection, tuple[Any, ...]]:
        """A new connection to the file (made first when ``create``) and the file's identity."""
        assert self.path is not None, "a store in memory has no file"
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreUnavailable(f"cannot use {self.path.parent} as the embedded store's folder: "
                                       f"{exc.strerror}", hint="--home / CITEGRAPH_HOME must name a folder") from None
        if ident is not None and not create and not (os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)):
            # Read-only for this user: SQLite cannot make the WAL index beside it. A file closed
            # cleanly has no WAL, and reads as it is.
            wal = Path(f"{self.path}-wal")
            mode = "mode=ro" if wal.exists() and wal.stat().st_size else "immutable=1"
            conn = self._connect(f"{self.path.resolve().as_uri()}?{mode}", create=False, uri=True)
        else:
            conn = self._connect(str(self.path), create=True)
        st = os.stat(self.path)
        return conn, (st.st_dev, st.st_ino)

    def _empty(self) -> sqlite3.Connection:
        """An empty store in memory, answering reads of a store whose file does not exist yet."""
        with self._lock:
            if self._empty_db is None:
                self._empty_db = self._connect(":memory:", create=True)
            return self._empty_db

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """SQLite's errors as citegraph's: a damaged or foreign file is :class:`StoreUnavailable`
        naming it; a full disk or an I/O error :class:`StoreWriteFailed` naming it (the write is
        rolled back); a lock says how long it was waited for, so a busy answer SQLite gives at once
        is never reported as the 600 s wait for another writer."""
        started = time.monotonic()
        try:
            yield
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if "database or disk is full" in text or "disk I/O error" in text:
                raise StoreWriteFailed(f"cannot write the embedded store {self.path}: {text}",
                                       hint="nothing of this write was kept; free disk space (or fix the disk) "
                                            "and retry") from exc
            if "readonly" in text:
                raise StoreUnavailable(f"cannot write the embedded store {self.path}: it is read-only for this user",
                                       hint="reads work; write as a user who may write the file and its folder") from exc
            if "locked" in text or "busy" in text:
                waited = time.monotonic() - started
                if waited >= BUSY_TIMEOUT_S - 1:
                    raise StoreUnavailable(f"the embedded store {self.path} stayed locked by another writer "
                                           f"for {BUSY_TIMEOUT_S:.0f} s", hint="retry when the other write has finished") from exc
                raise StoreUnavailable(f"the embedded store {self.path} was busy: SQLite answered '{text}' after "
                                       f"{waited:.1f} s, without waiting for the other process using it",
                                       hint="retry; nothing of this command was written") from exc
            raise StoreUnavailable(f"cannot use the embedded store {self.path}: {text}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreUnavailable(f"cannot read the embedded store {self.path}: {exc}",
                                   hint="the file is left as it is; restore it from a copy, or move it away "
                                        "to start from an empty store") from exc

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """One read transaction (one committed state), or the enclosing write's own view. Before the
        store file exists, the empty database answers, with no transaction: it is shared by every
        thread and never written, and two threads beginning transactions on it at once collided
        ("cannot start a transaction within a transaction")."""
        with self._guard():
            conn = self._connection()
            if conn is None:
                with self._translated():
                    yield self._empty()
                return
            if conn.in_transaction:
                with self._translated():
                    yield conn
                return
            with self._translated():
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    conn.execute("COMMIT")

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """The in-memory store's one connection is used by one thread at a time."""
        if self.path is None:
            with self._lock:
                yield
        else:
            yield

    @contextmanager
    def snapshot(self) -> Iterator[SQLiteStore]:
        """A read-only view of one committed state (:meth:`graph.store.SupportsSnapshot.snapshot`):
        one SQLite read transaction held open for the block, on a connection of its own. WAL makes
        it a true snapshot: writers, here and in other processes, go on and commit meanwhile, and
        the view sees none of it. An in-memory store (one connection) is its own view."""
        if self.path is None:
            yield self
            return
        ident = self._file_ident()
        if ident is None:  # no store yet: the empty database, which no write ever touches
            yield _Snapshot(self, self._empty(), None, begun=False)
            return
        conn = self._idle_connection(ident)
        try:
            with self._translated():
                conn.execute("BEGIN")
                conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()  # the snapshot starts here
        except BaseException:
            conn.close()
            raise
        try:
            yield _Snapshot(self, conn, ident, begun=True)
        finally:
            ended = False
            with suppress(sqlite3.Error):
                conn.execute("COMMIT")
                ended = True
            with self._lock:
                if ended and len(self._idle) < 8:
                    self._idle.append((ident, conn))
                else:
                    conn.close()

    def _idle_connection(self, ident: tuple[Any, ...]) -> sqlite3.Connection:
        """A connection to the file ``ident`` names, not in use by any thread: a kept one, or new."""
        with self._lock:
            while self._idle:
                known, conn = self._idle.pop()
                if known == ident:
                    return conn
                conn.close()
        conn, _ = self._open_file(ident, create=False)
        return conn

    @contextmanager
    def bulk(self) -> Iterator[None]:
        """A block whose writes form one transaction (:class:`~graph.store.SupportsBulkWrite`):
        all kept when it ends, all rolled back if any write or the block raises. Ingest runs a
        whole run in one, so a failure in any set keeps nothing of the run."""
        with self._writing():
            self._local.bulk = self._local.bulk + 1
            try:
                yield
            finally:
                self._local.bulk -= 1

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """Exclusive, all-or-nothing write: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any
        error. Inside :meth:`bulk` the enclosing transaction is used."""
        with self._guard():
            conn = self._connection(create=True)
            assert conn is not None
            packer = _packer(conn)
            packer.begin_write()
            if self._local.bulk:
                with self._translated():
                    yield conn
                return
            with self._translated():
                self._begin_immediate(conn)
                self._local.writing = True
                try:
                    conn.execute(_VERSIONS_TABLE)  # a store written before versions were kept gets the table
                    conn.execute(_RESULTS_TABLE)  # and one written before set results were kept, that one
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:  # SQLite may have rolled back already (a full disk)
                        conn.execute("ROLLBACK")
                    _packer(conn).forget()  # and any dictionary the write trained
                    raise
                finally:
                    self._local.writing = False
                    packer.begin_write()  # nor after it

    def _begin_immediate(self, conn: sqlite3.Connection) -> None:
        """Take the write lock; when another writer holds it past :data:`WAIT_NOTICE_S`, say so
        (a warning on the ``citegraph`` logger, which the CLI prints) and wait on, up to
        :data:`BUSY_TIMEOUT_S` in all."""
        conn.execute(f"PRAGMA busy_timeout = {int(WAIT_NOTICE_S * 1000)}")
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        store_log().warning("waiting for another citegraph process writing %s (up to %d s)", self.path, BUSY_TIMEOUT_S)
        conn.execute("BEGIN IMMEDIATE")

    # -- contract: reads -------------------------------------------------------------------------

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        """See :meth:`graph.store.GraphStore.get_nodes`."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        with self._reading() as conn:
            return {n.id: n for n in _nodes(conn, f"{_NODE_ROWS} WHERE n.id IN {_IDS}", (_dumps(ids),))}

    def find_nodes(
        self,
        label: Label,
        *,
        set_id: str | None = None,
        document_id: str | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> list[Node]:
        """See :meth:`graph.store.GraphStore.find_nodes`. String and integer ``where`` values
        narrow the SQL through the property indexes; every item is then checked exactly."""
        label = Label(label)
        sql = [f"{_NODE_ROWS} WHERE n.label = '{label.value}'"]  # a literal, so partial indexes apply
        params: list[Any] = []
        if set_id is not None:
            sql.append(f"AND n.set_id = {_REF}")
            params.append(set_id)
        if document_id:
            sql.append(f"AND n.document_id = {_REF}")
            params.append(document_id)
        for key, value in (where or {}).items():
            if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
                props = "n.props" if label.value in PLAIN_LABELS else "unpacked(n.props)"  # the indexes read props
                sql.append(f"AND json_extract({props}, '{_json_path(key)}') = ?")
                params.append(value)
        with self._reading() as conn:
            found = _nodes(conn, " ".join(sql), params)
        if where:
            found = [n for n in found if all(n.props.get(k) == v for k, v in where.items())]
        return sorted(found, key=lambda n: n.id)

    def edges(
        self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None, direction: Direction
    ) -> dict[str, list[Edge]]:
        """See :meth:`graph.store.GraphStore.edges`."""
        ids = list(ids)
        out: dict[str, list[Edge]] = {i: [] for i in ids}
        if not ids:
            return out
        _end, where, params = _edges_at(list(out), kinds, direction)
        with self._reading() as conn:
            for e in _edges(conn, f"{_EDGE_ROWS} WHERE {where}", params):
                out[e.src if direction == Direction.OUT else e.dst].append(e)
        for found in out.values():
            found.sort(key=Edge.sort_key)
        return out

    def degrees(
        self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None, direction: Direction
    ) -> dict[str, int]:
        """See :meth:`graph.store.GraphStore.degrees`: one indexed ``count(*)`` per id."""
        out = dict.fromkeys(ids, 0)
        if not out:
            return out
        end, where, params = _edges_at(list(out), kinds, direction)
        with self._reading() as conn:
            out.update(conn.execute(f"SELECT x.id, count(*) FROM links l JOIN vertices x ON x.nid = l.{end} "
                                    f"WHERE {where} GROUP BY x.id", params))
        return out

    def closure(self, ids: Collection[str], *, kinds: Collection[EdgeKind]) -> list[Edge]:
        """See :meth:`graph.store.GraphStore.closure`. Breadth-first over the :class:`SetEdges` of
        the sets holding edges into the nodes reached (one indexed lookup per level finds them);
        each set graph comes from the cache while its version is unchanged."""
        with self._reading() as conn:
            return self._closure(conn, ids, kinds)[1]

    def reach(self, ids: Collection[str], *, kinds: Collection[EdgeKind],
              fields: Mapping[Label, Collection[str]], edge_props: bool = True) -> Reach:
        """See :meth:`graph.store.SupportsReach.reach`: :meth:`closure` and the nodes on it in one
        read transaction, each node's map decoded only when its label has ``fields`` to keep."""
        with self._reading() as conn:
            starts, edges = self._closure(conn, ids, kinds, bare=not edge_props)
            ends = list(dict.fromkeys([*starts, *(i for e in edges for i in (e.src, e.dst))]))
            return Reach(edges, _projected_nodes(conn, ends, fields))

    def _closure(self, conn: sqlite3.Connection, ids: Collection[str],
                 kinds: Collection[EdgeKind], *, bare: bool = False) -> tuple[list[str], list[Edge]]:
        """(the start ids that exist, in order; the closure's edges, sorted; with ``bare``, with
        empty props, :meth:`SetEdges.bare_into`)."""
        wanted = {str(k) for k in kinds}
        ids = list(dict.fromkeys(ids))
        if not ids:
            return [], []
        existing = {row[0] for row in conn.execute(f"SELECT id FROM vertices WHERE id IN {_IDS}", (_dumps(ids),))}
        starts = [i for i in ids if i in existing]
        if not wanted:
            return starts, []
        seen, frontier, found = set(starts), sorted(starts), []
        graphs: dict[str, SetEdges] = {}
        while frontier:
            scopes = {row[0] or "" for row in conn.execute(
                "SELECT sn.name FROM (SELECT DISTINCT set_id FROM links WHERE dst IN "
                f"{_NIDS}) l LEFT JOIN names sn ON sn.ref = l.set_id", (_dumps(frontier),))}
            graphs.update(self._set_graphs(conn, scopes - graphs.keys(), keep=graphs.keys() | scopes))
            reached = []
            for dst in frontier:
                for scope in scopes:
                    for edge in (graphs[scope].bare_into(dst) if bare else graphs[scope].into.get(dst, ())):
                        if edge.kind not in wanted:
                            continue
                        found.append(edge)
                        if edge.src not in seen:
                            seen.add(edge.src)
                            reached.append(edge.src)
            frontier = reached
        return starts, sorted(found, key=Edge.sort_key)

    def counts(self, *, set_id: str | None = None) -> dict[str, int]:
        """See :meth:`graph.store.GraphStore.counts`. Kept per set by every write: no scan."""
        with self._reading() as conn:
            return _totals(conn, set_id)

    def search(self, phrases: Sequence[Phrase], *, set_id: str | None = None) -> list[Node]:
        """See :meth:`graph.store.GraphStore.search`: one FTS5 ``MATCH`` (each phrase a quoted
        FTS5 phrase, ``"w"*`` for a prefix), every hit then checked with :func:`graph.text.holds`.
        A store opened read-only that predates the index is scanned instead (same answer)."""
        phrases = list(phrases)
        if not phrases:
            return []
        fields = ", ".join(f"json_extract(unpacked(n.props), '$.{f}')" for f in SEARCH_FIELDS)
        scope, params = (f"AND n.set_id = {_REF}", [set_id]) if set_id is not None else ("", [])
        with self._reading() as conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'statement_search'").fetchone():
                rows = conn.execute(  # CROSS JOIN: the index first, then each hit's row (not every statement)
                    f"SELECT n.id, sn.name, dn.name, {fields} FROM statement_search s "
                    f"CROSS JOIN vertices n ON n.nid = s.rowid {_NAMED} "
                    f"WHERE statement_search MATCH ? AND n.label = 'Statement' {scope}",
                    [_fts_query(phrases), *params]).fetchall()
            else:
                rows = conn.execute(f"SELECT n.id, sn.name, dn.name, {fields} FROM vertices n {_NAMED} "
                                    f"WHERE n.label = 'Statement' {scope}", params).fetchall()
        unsure = {r[0] for r in rows if None in r[3:]}  # a field absent, or stored as null
        exact = self.get_nodes(unsure) if unsure else {}
        out = []
        for node_id, node_set, document_id, *values in rows:
            if node_id in unsure:  # the whole map decides, as graph.store.projected
                props = {f: exact[node_id].props[f] for f in SEARCH_FIELDS if f in exact[node_id].props}
            else:
                props = dict(zip(SEARCH_FIELDS, values))
            if holds(props.get("text") or "", phrases):
                out.append(Node(node_id, Label.STATEMENT, node_set, document_id, props))
        return sorted(out, key=lambda n: n.id)

    def ranked_search(self, phrases: Sequence[Phrase], *, limit: int) -> tuple[list[tuple[str, int]], int] | None:
        """See :class:`graph.store.SupportsRankedSearch`. Each phrase's occurrences in each
        statement are counted from the FTS5 index's instances (an ``fts5vocab`` table over it; the
        index tokenizes as :mod:`graph.text` does), summed, and only the statements that can be
        among the best ``limit`` (at least as many occurrences as the ``limit``-th best) are read
        and sorted by the rank; no row is read for the others. None for a phrase of several words
        (its occurrences are not one term's instances), for a store without the index and for an
        index made with a ``detail`` option (only the default, ``full``, keeps every instance).

        One word, not a prefix, that at least ``limit`` statements hold
        :data:`SEARCH_COUNT_FLOOR` times or more is answered from ``search_counts`` instead, without
        reading its instances: every statement holding it that often has its row there, so the best
        ``limit`` (all at or above the ``limit``-th best count) are exact; the total is a ``MATCH``
        count. A prefix (a statement's count sums several words, each of which may be below the
        floor) and several phrases (the rank sums their counts) are not answered from it."""
        phrases = list(phrases)
        if not phrases or any(len(p.words) != 1 for p in phrases):
            return None
        parts, params = [], []
        for i, phrase in enumerate(phrases):
            word = phrase.words[0]
            if phrase.prefix:  # every term that begins with the word: [word, word + U+10FFFF)
                parts.append(f"SELECT doc, {i} AS phrase, count(*) AS n FROM temp.statement_search_instances "
                             "WHERE term >= ? AND term < ? GROUP BY doc")
                params += [word, word + "\U0010ffff"]
            else:
                parts.append(f"SELECT doc, {i} AS phrase, count(*) AS n FROM temp.statement_search_instances "
                             "WHERE term = ? GROUP BY doc")
                params.append(word)
        with self._reading() as conn:
            made = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'statement_search'").fetchone()
            if made is None or "detail" in re.sub(r"'[^']*'", "", made[0]).lower():
                return None  # no index, or one that keeps no positions (detail=column|none): no instances to count
            if len(phrases) == 1 and not phrases[0].prefix:
                frequent = _frequent_search(conn, phrases[0].words[0], limit)
                if frequent is not None:
                    return frequent
            conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.statement_search_instances "
                         "USING fts5vocab(main, statement_search, instance)")
            hits = (parts[0].replace("count(*) AS n", "count(*) AS matches") if len(parts) == 1 else  # one term: one grouping
                    "SELECT doc, sum(n) AS matches FROM (" + " UNION ALL ".join(parts) + f") GROUP BY doc HAVING count(*) = {len(parts)}")
            rows = conn.execute(
                f"WITH hits AS MATERIALIZED ({hits}), "
                "floor AS (SELECT matches FROM hits ORDER BY matches DESC LIMIT 1 OFFSET ?) "
                "SELECT n.id, hits.matches, (SELECT count(*) FROM hits) FROM hits CROSS JOIN vertices n ON n.nid = hits.doc "
                f"{_NAMED} "
                "WHERE hits.matches >= coalesce((SELECT matches FROM floor), 0) AND n.label = 'Statement' "
                f"ORDER BY hits.matches DESC, {_RANK_TIES} LIMIT ?",
                [*params, limit - 1, limit]).fetchall()
        return ([(r[0], r[1]) for r in rows], rows[0][2]) if rows else ([], 0)

    # -- the per-process cache of set graphs -------------------------------------------------------

    def _set_graphs(self, conn: sqlite3.Connection, scopes: set[str], *, keep: Collection[str]) -> dict[str, SetEdges]:
        """The :class:`SetEdges` of each scope, from the cache when its version is current.
        Inside a write transaction nothing is cached (its versions may yet roll back)."""
        if not scopes:
            return {}
        versions = dict(conn.execute(f"SELECT scope, version FROM scopes WHERE scope IN {_IDS}",
                                     (_dumps(sorted(scopes)),)))
        cacheable = not self._local.writing and not self._local.bulk
        out = {}
        for scope in sorted(scopes):
            version = versions.get(scope, -1)
            key = (self._local.ident, scope)  # a version is one file's
            with self._lock:
                cached = self._graphs.get(key)
                if cached is not None and cached[0] == version and cacheable:
                    self._graphs.move_to_end(key)
                    out[scope] = cached[1]
                    continue
            sql = f"{_EDGE_ROWS} WHERE " + (f"l.set_id = {_REF}" if scope else "l.set_id IS NULL")
            graph = SetEdges(_edges(conn, sql, (scope,) if scope else ()))
            out[scope] = graph
            if cacheable:
                self._remember(key, version, graph, {(key[0], k) for k in keep})
        return out

    def _remember(self, key: tuple[Any, ...], version: int, graph: SetEdges, keep: Collection[tuple[Any, ...]]) -> None:
        with self._lock:
            cached = self._graphs.get(key)
            if cached is not None and cached[0] > version:  # a snapshot read an older version: keep the newer
                return
            self._graphs[key] = (version, graph)
            total = sum(g.size for _, g in self._graphs.values())
            for old in list(self._graphs):
                if total <= self.cache_edges:
                    break
                if old not in keep:
                    total -= self._graphs.pop(old)[1].size

    # -- contract: writes --------------------------------------------------------------------------

    def write_set(self, batch: SetBatch) -> WriteSummary:
        """See :meth:`graph.store.GraphStore.write_set`: the :class:`~graph.model.SetBatch` steps
        in one transaction, touching the rows of ``batch.set_id`` only."""
        from graph import versions

        created = _now()
        with self._writing() as conn:
            writes.check_expected(batch.expect, _stored_shas(conn, batch.expect))
            writes.check_node_kinds(batch, {n.id: n for n in _nodes(
                conn, f"SELECT n.id, n.label, sn.name, dn.name, '{{}}' FROM vertices n {_NAMED} WHERE n.id IN {_IDS}",
                (_dumps(writes.kind_checked_ids(batch)),))})
            before = self._versions_before(conn, [batch.set_id])
            new_set = batch.set_id in before and not before[batch.set_id][0] and not _holds_rows(conn, batch.set_id)
            own = {batch.set_id}
            _release_held(conn, own - before.keys())  # rows this write changes without keeping its versions
            touched = _delete_documents(conn, writes.documents_replaced(batch), own)
            shared = writes.last_of(batch.shared)
            stored = {n.id: n for n in _nodes(conn, f"{_NODE_ROWS} WHERE n.id IN {_IDS}",
                                              (_dumps([n.id for n in shared]),))}
            merged = [writes.merged_shared(stored.get(n.id), n) for n in shared]
            written = [n for d in batch.documents for n in (d.document, *d.nodes)]
            linked = [e for d in batch.documents for e in d.edges]
            changed = [n.id for n in merged if n.id in stored and stored[n.id] != n]  # a System another set holds
            named = {n.set_id for n in (*merged, *written) if n.set_id} | {e.set_id for e in (*linked, *batch.derived)
                                                                          if e.set_id}
            _release_held(conn, (_holders(conn, changed) | named) - own)
            nodes_put = [*zip(merged, _put_nodes(conn, merged)), *zip(written, _put_nodes(conn, written))]
            edges_put = list(zip(linked, _put_edges(conn, linked)))
            conn.execute(f"DELETE FROM links WHERE owner = {_REF}", (f"set:{batch.set_id}",))
            edges_put += zip(batch.derived, _put_edges(conn, list(batch.derived)))
            collected = _collect_orphans(conn, [batch.set_id], own)
            touched |= collected
            touched |= {n.set_id or "" for n in (*shared, *(d.document for d in batch.documents))}
            touched |= {e.set_id or "" for e in batch.derived} | {batch.set_id}
            # a set new to the store, nothing collected: its version is what this write put (not read back)
            after = versions.encode_written(batch.set_id, nodes_put, edges_put) if new_set and not collected else None
            self._keep_versions(conn, before, created, {batch.set_id: after} if after is not None else {})
            nodes, edges = _bump(conn, touched)
        return writes.write_summary(batch, nodes, edges)

    def delete_documents(self, ids: Iterable[str], *, expect: Mapping[str, str | None] | None = None,
                         sets: Collection[str] = ()) -> WriteSummary:
        """See :meth:`graph.store.GraphStore.delete_documents`."""
        ids = list(ids)
        created = _now()
        with self._writing() as conn:
            writes.check_expected(expect or {}, _stored_shas(conn, expect or {}))
            if sets:
                ids += [row[0] for row in conn.execute(
                    f"SELECT id FROM vertices WHERE label = 'Document' AND set_id IN {_REFS} ORDER BY id",
                    (_dumps(sorted(sets)),))]
            existing = {n.id: n for n in _nodes(conn, f"{_NODE_ROWS} WHERE n.id IN {_IDS}", (_dumps(ids),))}
            deleted = writes.documents_deleted(ids, existing)
            sets = sorted({s for d in deleted if (s := existing[d].set_id) is not None})
            before = self._versions_before(conn, sets)
            _release_held(conn, set(sets) - before.keys())
            touched = _delete_documents(conn, deleted, set(sets))
            touched |= _collect_orphans(conn, sets, set(sets))
            self._keep_versions(conn, before, created)
            nodes, edges = _bump(conn, touched)
        return WriteSummary((), tuple(deleted), nodes, edges)

    def put_reviews(self, reviews: Collection[Node]) -> int:
        """See :meth:`graph.store.GraphStore.put_reviews`."""
        reviews = writes.checked_reviews(reviews)
        if not reviews:
            return 0
        with self._writing() as conn:
            _put_nodes(conn, reviews)
            _bump(conn, {n.set_id or "" for n in reviews})
        return len(reviews)

    # -- kept results of one set (queries.kept) ----------------------------------------------------

    def set_stamps(self, set_ids: Collection[str]) -> dict[str, int]:
        """See :meth:`graph.store.KeepsSetResults.set_stamps`: the sets' ``scopes.version``."""
        ids = sorted(set(set_ids) - {""})
        if not ids:
            return {}
        with self._reading() as conn:
            return dict(conn.execute(
                f"SELECT s.scope, s.version FROM scopes s JOIN vertices n ON n.id = s.scope AND n.label = 'AnalysisSet' "
                f"WHERE s.scope IN {_IDS}", (_dumps(ids),)))

    def kept_results(self, name: str, stamps: Mapping[str, int]) -> dict[str, bytes]:
        """See :meth:`graph.store.KeepsSetResults.kept_results`."""
        if not stamps:
            return {}
        with self._reading() as conn:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'set_results'").fetchone():
                return {}
            rows = conn.execute(f"SELECT set_id, stamp, result FROM set_results WHERE name = ? AND set_id IN {_IDS}",
                                (name, _dumps(sorted(stamps))))
            return {set_id: bytes(result) for set_id, stamp, result in rows if stamps.get(set_id) == stamp}

    def keep_results(self, name: str, results: Mapping[str, tuple[int, bytes]]) -> int:
        """See :meth:`graph.store.KeepsSetResults.keep_results`: one short write transaction, taken
        only if no other writer holds the lock (inside :meth:`bulk`, the enclosing one)."""
        if not results:
            return 0
        with self._guard():
            conn = self._connection()
            if conn is None:
                return 0
            if self._local.bulk or self._local.writing:
                return self._keep_results(conn, name, results)
            try:
                conn.execute("PRAGMA busy_timeout = 0")
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # another writer, or a store this user may only read
                return 0
            finally:
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            try:
                kept = self._keep_results(conn, name, results)
                conn.execute("COMMIT")
                return kept
            except sqlite3.OperationalError as exc:  # read-only, full: a result not kept costs only time
                store_log().debug("set results not kept in %s: %s", self.path, exc)
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                return 0
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @staticmethod
    def _keep_results(conn: sqlite3.Connection, name: str, results: Mapping[str, tuple[int, bytes]]) -> int:
        conn.execute(_RESULTS_TABLE)
        current = dict(conn.execute(f"SELECT scope, version FROM scopes WHERE scope IN {_IDS}",
                                    (_dumps(sorted(results)),)))
        rows = [(set_id, name, stamp, result) for set_id, (stamp, result) in sorted(results.items())
                if current.get(set_id) == stamp]
        conn.executemany("INSERT OR REPLACE INTO set_results VALUES (?, ?, ?, ?)", rows)
        return len(rows)

    # -- versions (graph.versions) ----------------------------------------------------------------

    def _versions_before(self, conn: sqlite3.Connection, set_ids: Iterable[str]) -> dict[str, _Before]:
        """Per set about to be written: its stored ``(number, digest)``, when a baseline is needed
        (:func:`graph.versions.baseline_needed`) its state before the write, and when the live rows
        hold its latest version (:func:`_held_blob`) that version's blob, from the rows before the
        write."""
        from graph import versions

        if not self.versions_kept:
            return {}
        out = {}
        for set_id in set_ids:
            stored = [tuple(row) for row in conn.execute(
                "SELECT number, digest FROM versions WHERE set_id = ? ORDER BY number", (set_id,))]
            existed = conn.execute("SELECT 1 FROM vertices WHERE id = ? AND label = 'AnalysisSet'", (set_id,)).fetchone()
            baseline = _snapshot(conn, set_id) if versions.baseline_needed(bool(existed), stored) else None
            out[set_id] = (stored, baseline, _held_blob(conn, set_id))
        return out

    def _keep_versions(self, conn: sqlite3.Connection, before: Mapping[str, _Before], created: str,
                       after: Mapping[str, versions.Encoded] | None = None) -> None:
        """After a write: each written set's new version, if it changed, and retention
        (:func:`graph.versions.changes`). The newest version is stored with an empty blob (the
        live rows hold it); the one it follows gets its blob back, from ``before``. A set's
        encoding as it now stands is read from its rows (:func:`_snapshot`) unless ``after`` has it."""
        from graph import versions

        for set_id, (stored, baseline, held) in before.items():
            def previous(set_id: str = set_id, held: bytes | None = held) -> tuple[bytes, str] | None:
                row = conn.execute("SELECT blob, summary FROM versions WHERE set_id = ? ORDER BY number DESC LIMIT 1",
                                   (set_id,)).fetchone()
                if row is None:
                    return None
                return (bytes(row[0]) if row[0] or held is None else held), row[1]

            now = after[set_id] if after and set_id in after else _snapshot(conn, set_id)
            add, drop = versions.changes(now, stored, kept=self.versions_kept, created=created,
                                         baseline=baseline, previous=previous)
            if drop is None:
                conn.execute("DELETE FROM versions WHERE set_id = ?", (set_id,))
                continue
            conn.executemany("DELETE FROM versions WHERE set_id = ? AND number = ?", [(set_id, n) for n in drop])
            if add and held is not None:  # the version the live rows held is one no more
                conn.execute("UPDATE versions SET blob = ? WHERE set_id = ? AND number = ? AND length(blob) = 0",
                             (held, set_id, max(stored)[0]))
            newest = max((v.number for v, _, _ in add), default=None)  # what the rows now encode (versions.changes)
            conn.executemany("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?)",
                             [(set_id, v.number, v.created, v.digest, summary, b"" if v.number == newest else blob)
                              for v, blob, summary in add])

    def replace_versions(self, set_id: str, kept: Collection[tuple[SetVersion, bytes]], *,
                         changed: Sequence[PartChange] = ()) -> int:
        """See :meth:`graph.store.KeepsVersions.replace_versions`."""
        from graph import versions

        rows = versions.checked_versions(set_id, kept)
        with self._writing() as conn:
            if not conn.execute("SELECT 1 FROM vertices WHERE id = ? AND label = 'AnalysisSet'", (set_id,)).fetchone():
                raise CitegraphError(f"no analysis set {set_id!r} to give versions to")
            conn.execute("DELETE FROM versions WHERE set_id = ?", (set_id,))
            conn.executemany("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?)",
                             [(set_id, v.number, v.created, v.digest, v.summary_json(changed if v is rows[-1][0] else ()),
                               blob) for v, blob in rows])
        return len(rows)

    def set_versions(self, set_id: str) -> list[SetVersion]:
        """See :meth:`graph.store.KeepsVersions.set_versions`."""
        from graph.versions import SetVersion

        with self._reading() as conn:
            if not _has_versions_table(conn):
                return []
            return [SetVersion.from_stored(set_id, *row) for row in conn.execute(
                "SELECT number, created, digest, summary FROM versions WHERE set_id = ? ORDER BY number", (set_id,))]

    def part_changes(self, set_ids: Collection[str] | None = None) -> dict[str, tuple[PartChange, ...]]:
        """See :meth:`graph.store.KeepsVersions.part_changes`."""
        from graph import versions

        with self._reading() as conn:
            if not _has_versions_table(conn):
                return {}
            where, args = (f"AND v.set_id IN {_IDS}", (_dumps(sorted(set_ids)),)) if set_ids is not None else ("", ())
            rows = conn.execute(
                f"SELECT v.set_id, v.summary FROM versions v WHERE v.number = "
                f"(SELECT max(number) FROM versions w WHERE w.set_id = v.set_id) {where} ORDER BY v.set_id", args)
            return {set_id: found for set_id, summary in rows if (found := versions.changed_in(summary))}

    def set_version(self, set_id: str, number: int) -> SetBatch | None:
        """See :meth:`graph.store.KeepsVersions.set_version`."""
        from graph import versions

        with self._reading() as conn:
            if not _has_versions_table(conn):
                return None
            row = conn.execute("SELECT blob, number = (SELECT max(number) FROM versions WHERE set_id = ?) FROM versions "
                               "WHERE set_id = ? AND number = ?", (set_id, set_id, int(number))).fetchone()
            if row is None:
                return None
            blob = bytes(row[0]) or (_held_blob(conn, set_id) if row[1] else None)
        if not blob:  # only the latest version may be held by the rows
            raise StoreUnavailable(f"version {number} of set {set_id} is not in the store: its blob is empty",
                                   hint="the store is damaged; restore it from a copy, or ingest the set again")
        return versions.decode(blob)

    def close(self) -> None:
        """Close this store's connections and drop its cache. Safe to call twice."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
            self._idle.clear()
            self._graphs.clear()
            self._local = _ThreadState()
            self._shared = self._empty_db = None


class _Snapshot(SQLiteStore):
    """A read-only view of ``store`` on one connection held in one read transaction (see
    :meth:`SQLiteStore.snapshot`): every read of the store's contract, one call at a time from any
    thread, on that transaction; it shares the store's cache of set graphs. Writes raise."""

    def __init__(self, store: SQLiteStore, conn: sqlite3.Connection, ident: tuple[Any, ...] | None, *, begun: bool):
        self.path = store.path
        self.cache_edges = store.cache_edges
        self._lock = store._lock
        self._graphs = store._graphs
        self._local = types.SimpleNamespace(ident=ident, conn=conn, bulk=0, writing=False)
        self._connections = []
        self._shared = self._empty_db = None
        self._idle = []
        self._conn = conn
        self._begun = begun
        self._use = threading.RLock()
        self._store = store

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._use, self._translated():
            if not self._begun:  # the empty database of a store with no file yet
                with self._lock:
                    yield self._conn
            else:
                yield self._conn

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        raise CitegraphError("a snapshot of the embedded store is read-only")
        yield  # pragma: no cover

    @contextmanager
    def snapshot(self) -> Iterator[SQLiteStore]:
        yield self

    def keep_results(self, name: str, results: Mapping[str, tuple[int, bytes]]) -> int:
        """Kept through the store that made the view (its own write transaction, which keeps only
        the results whose stamp is still current)."""
        return self._store.keep_results(name, results)

    def close(self) -> None:
        """Nothing to release: the store that made the view owns its connection."""


# -- SQL steps (each runs inside the transaction of a write) ----------------------------------------


_RANK_TIES = ("coalesce(length(json_extract(unpacked(n.props), '$.text')), 0), coalesce(sn.name, ''), "
              "coalesce(dn.name, ''), coalesce(json_extract(unpacked(n.props), '$.order'), 0), n.id")
"""The rank's order among statements ``n`` of equal count (:mod:`queries.search`), their set
``sn`` and document ``dn`` joined by :data:`_NAMED` (ordered by the text, not the ref)."""


def _frequent_search(conn: sqlite3.Connection, word: str, limit: int) -> tuple[list[tuple[str, int]], int] | None:
    """:meth:`SQLiteStore.ranked_search` of one ``word`` from ``search_counts``, or None when fewer
    than ``limit`` statements hold it :data:`SEARCH_COUNT_FLOOR` times."""
    least = conn.execute("SELECT n FROM search_counts WHERE term = ? ORDER BY n DESC LIMIT 1 OFFSET ?",
                         (word, limit - 1)).fetchone()
    if least is None:
        return None
    rows = conn.execute(  # CROSS JOIN: the counts first, then each candidate's row
        f"SELECT n.id, c.n FROM search_counts c CROSS JOIN vertices n ON n.nid = c.statement {_NAMED} "
        f"WHERE c.term = ? AND c.n >= ? AND n.label = 'Statement' ORDER BY c.n DESC, {_RANK_TIES} LIMIT ?",
        (word, least[0], limit)).fetchall()
    (total,) = conn.execute("SELECT count(*) FROM statement_search WHERE statement_search MATCH ?",
                            (_fts_query([Phrase((word,))]),)).fetchone()
    return [(r[0], r[1]) for r in rows], total


def _nodes(conn: sqlite3.Connection, sql: str, params: Iterable[Any] = ()) -> list[Node]:
    unpack = _packer(conn).text
    return [Node(i, _LABELS[label], set_id, document_id, json.loads(unpack(props)))
            for i, label, set_id, document_id, props in conn.execute(sql, tuple(params))]


def _edges(conn: sqlite3.Connection, sql: str, params: Iterable[Any] = ()) -> list[Edge]:
    """The edges ``sql`` selects, each property map decoded when first read (a closure, a tree's
    containment and most paths never read it: bench/README.md, "``--help`` and ``render`` under
    the targets")."""
    later = _packer(conn).decoded_later
    return [Edge(_KINDS[kind], src, dst, seq, document_id, set_id, later(props))
            for src, kind, dst, seq, document_id, set_id, props in conn.execute(sql, tuple(params))]


def _projected_nodes(conn: sqlite3.Connection, ids: list[str], fields: Mapping[Label, Collection[str]]) -> dict[str, Node]:
    """Nodes ``ids`` keeping only ``fields[label]`` of their props, as :func:`graph.store.projected`
    (a named prop the node lacks stays absent; one stored as null is kept).

    The map of a node with fields to keep is inflated and decoded once, by ``json.loads`` as
    :func:`_nodes` reads it, and the fields are picked in Python; one with none is not decoded.
    SQLite's ``json_type`` and ``->>`` of each field cost more (bench/README.md, "Serve: less CPU
    per kept-alive request")."""
    if not ids:
        return {}
    unpack = _packer(conn).text
    out = {}
    for node_id, label, set_id, document_id, packed in conn.execute(
            f"SELECT n.id, n.label, sn.name, dn.name, n.props FROM vertices n {_NAMED} WHERE n.id IN {_IDS}",
            (_dumps(ids),)):
        label = _LABELS[label]
        keep = fields.get(label, ())
        props = json.loads(unpack(packed)) if keep else {}
        out[node_id] = Node(node_id, label, set_id, document_id, {f: props[f] for f in keep if f in props})
    return out


def _edges_at(ids: list[str], kinds: Collection[EdgeKind] | None, direction: Direction) -> tuple[str, str, list[Any]]:
    """``(end, where, params)``: the edges leaving (``src``) or entering (``dst``) ``ids``, of
    ``kinds`` when given, as an SQL condition on ``links l`` over its indexes."""
    end = "src" if direction == Direction.OUT else "dst"
    where, params = f"l.{end} IN {_NIDS}", [_dumps(ids)]
    if kinds is not None:
        where += f" AND l.kind IN {_IDS}"
        params.append(_dumps(sorted(map(str, kinds))))
    return end, where, params


def _json_path(key: str) -> str:
    """``$.key`` for a plain key (the form the property indexes use), ``$."k.e.y"`` otherwise."""
    if key.isidentifier():
        return f"$.{key}"
    return '$."' + key.replace('"', '""').replace("'", "''") + '"'


def _stored_shas(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, str | None]:
    ids = list(ids)
    if not ids:
        return {}
    return dict(conn.execute(f"SELECT id, json_extract(unpacked(props), '$.sha256') FROM vertices WHERE id IN {_IDS}",
                             (_dumps(ids),)))


def _put_nodes(conn: sqlite3.Connection, nodes: Iterable[Node]) -> list[str]:
    """Create or wholly replace nodes by id (their edges stay), a later node of the same id last;
    each node's properties as JSON text (:func:`_props_text`), in order.

    The rows go through a temporary table and into ``vertices`` in one statement: the full-text
    index's triggers then fire within one statement, and FTS5 flushes its pending terms once per
    statement (row by row, each statement's flush made the index cost eight times its own work)."""
    nodes = list(nodes)
    rows = [(n.id, n.label.value, n.set_id, n.document_id, _props_text(n.props)) for n in nodes]
    if not rows:
        return []
    ref = _refs(conn, {name for r in rows for name in (r[2], r[3]) if name is not None})
    ref[None] = None
    packer = _packer(conn)
    packer.train((r[1], r[4]) for r in rows if r[1] not in PLAIN_LABELS)
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS put_nodes (id, label, set_id, document_id, props)")
    conn.executemany("INSERT INTO temp.put_nodes VALUES (?, ?, ?, ?, ?)",
                     ((i, label, ref[set_id], ref[document_id], props if label in PLAIN_LABELS else packer.pack(label, props))
                      for i, label, set_id, document_id, props in rows))
    conn.execute(
        "INSERT INTO vertices (id, label, set_id, document_id, props) "
        "SELECT id, label, set_id, document_id, props FROM temp.put_nodes WHERE true ORDER BY rowid "
        "ON CONFLICT (id) DO UPDATE SET label = excluded.label, set_id = excluded.set_id, "
        "document_id = excluded.document_id, props = excluded.props")
    conn.execute("DELETE FROM temp.put_nodes")
    _put_search_counts(conn, {n.id: n.props.get("text") for n in nodes if n.label == Label.STATEMENT})
    return [r[4] for r in rows]


def _put_search_counts(conn: sqlite3.Connection, texts: Mapping[str, Any]) -> None:
    """The ``search_counts`` rows of statements just written (node id → its ``text``), counted
    as the full-text index tokenizes (:func:`graph.text.frequent_words`; a text that is not a
    string has none). Their former rows are gone already (the triggers of ``_COUNTS``)."""
    rows = [(w, n, node_id) for node_id, text in texts.items() if isinstance(text, str)
            for w, n in frequent_words(text, SEARCH_COUNT_FLOOR)]
    if rows:
        conn.execute("INSERT INTO search_counts (term, n, statement) SELECT value ->> 0, value ->> 1, "
                     "(SELECT nid FROM vertices WHERE id = value ->> 2) FROM json_each(?)", (_dumps(rows),))


def _put_edges(conn: sqlite3.Connection, edges: list[Edge]) -> list[str]:
    """Create or replace edges by :func:`graph.writes.edge_identity`; each edge's properties as
    JSON text (:func:`_props_text`), in order.

    Raises
    ------
    CitegraphError
        An edge names a node that is not in the store (the write rolls back).
    """
    if not edges:
        return []
    ends = list(dict.fromkeys(i for e in edges for i in (e.src, e.dst)))
    nid = dict(conn.execute(f"SELECT id, nid FROM vertices WHERE id IN {_IDS}", (_dumps(ends),)))
    writes.check_edge_ends(edges, nid.keys())
    owners = [writes.edge_owner(e) for e in edges]
    ref = _refs(conn, {name for e, owner in zip(edges, owners) for name in (owner, e.document_id, e.set_id)
                       if name is not None})
    ref[None] = None
    kinds = [e.kind.value for e in edges]
    texts = [(f"edge:{kind}", _props_text(e.props)) for e, kind in zip(edges, kinds)]
    packer = _packer(conn)
    packer.train(texts)
    pack = packer.pack
    conn.executemany(
        "INSERT OR REPLACE INTO links (src, kind, dst, owner, seq, document_id, set_id, props) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(nid[e.src], kind, nid[e.dst], ref[owner], e.seq, ref[e.document_id], ref[e.set_id], pack(name, text))
         for e, kind, owner, (name, text) in zip(edges, kinds, owners, texts)])
    return [text for _, text in texts]


def _props_text(props: Mapping[str, Any]) -> str:
    """A node's or an edge's property map as the store keeps it: compact JSON, UTF-8 as it is
    (``{}`` when empty)."""
    if not props:
        return "{}"
    return _dumps(props if type(props) is dict else dict(props))


def _holds_rows(conn: sqlite3.Connection, set_id: str) -> bool:
    """Whether the store holds a node (a Review aside) or an edge of set ``set_id``."""
    ref = conn.execute("SELECT ref FROM names WHERE name = ?", (set_id,)).fetchone()
    if ref is None:
        return False
    return bool(conn.execute("SELECT 1 FROM vertices WHERE set_id = ? AND label <> 'Review' LIMIT 1", ref).fetchone()
                or conn.execute("SELECT 1 FROM links WHERE set_id = ? LIMIT 1", ref).fetchone())


def _refs(conn: sqlite3.Connection, names: Collection[str]) -> dict[str | None, int | None]:
    """``names.ref`` of each name, each added to ``names`` when new."""
    param = (_dumps(sorted(names)),)
    conn.execute("INSERT OR IGNORE INTO names (name) SELECT value FROM json_each(?)", param)
    return dict(conn.execute(f"SELECT name, ref FROM names WHERE name IN {_IDS}", param))


def _detach_delete(conn: sqlite3.Connection, ids: list[str], own: Collection[str]) -> set[str]:
    """Delete nodes ``ids`` with every edge touching them; the scopes touched. The latest version of
    any set but ``own`` that the live rows hold gets its blob first (:func:`_release_held`)."""
    if not ids:
        return set()
    _release_held(conn, _holders(conn, ids) - set(own))
    param = (_dumps(ids),)
    touched = {row[0] or "" for row in conn.execute(
        f"SELECT sn.name FROM (SELECT DISTINCT set_id FROM vertices WHERE id IN {_IDS}) n "
        "LEFT JOIN names sn ON sn.ref = n.set_id", param)}
    touched |= {row[0] or "" for row in conn.execute(
        f"SELECT sn.name FROM (SELECT DISTINCT set_id FROM links WHERE dst IN {_NIDS}) l "
        "LEFT JOIN names sn ON sn.ref = l.set_id", param)}
    conn.execute(f"DELETE FROM links WHERE src IN {_NIDS}", param)
    conn.execute(f"DELETE FROM links WHERE dst IN {_NIDS}", param)
    conn.execute(f"DELETE FROM vertices WHERE id IN {_IDS}", param)
    return touched


def _delete_documents(conn: sqlite3.Connection, document_ids: list[str], own: Collection[str]) -> set[str]:
    """SetBatch step 1: each document's node and the nodes it owns (with every edge touching them),
    then the edges it owns between nodes that stay (SUPERSEDED_BY, PART_OF between records)."""
    if not document_ids:
        return set()
    param = (_dumps(document_ids),)
    owned = [row[0] for row in conn.execute(
        f"SELECT id FROM vertices WHERE document_id IN {_REFS} UNION SELECT id FROM vertices WHERE id IN {_IDS}",
        param * 2)]
    touched = _detach_delete(conn, owned, own)
    scopes = {row[0] or "" for row in conn.execute(
        f"SELECT sn.name FROM (SELECT DISTINCT set_id FROM links WHERE owner IN {_REFS}) l "
        "LEFT JOIN names sn ON sn.ref = l.set_id", param)}
    _release_held(conn, scopes - set(own))
    touched |= scopes
    conn.execute(f"DELETE FROM links WHERE owner IN {_REFS}", param)
    return touched


class _SetRemains:
    """:class:`graph.writes.SetRemains` read on a write's connection."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def unreferenced(self, set_id: str) -> list[str]:
        collectable = ", ".join(f"'{label.value}'" for label in sorted(writes.COLLECTABLE))
        return [row[0] for row in self.conn.execute(f"""
            SELECT n.id FROM vertices n
            WHERE n.set_id = {_REF} AND n.document_id IS NULL AND n.label IN ({collectable})
              AND NOT EXISTS (SELECT 1 FROM links e WHERE e.src = n.nid AND e.document_id IS NOT NULL
                              AND e.document_id IS NOT (SELECT ref FROM names WHERE name = ''))
              AND NOT EXISTS (SELECT 1 FROM links e WHERE e.dst = n.nid AND e.document_id IS NOT NULL
                              AND e.document_id IS NOT (SELECT ref FROM names WHERE name = ''))""",
            (set_id,))]

    def holds_documents(self, set_id: str) -> bool | None:
        if not self.conn.execute("SELECT 1 FROM vertices WHERE id = ?", (set_id,)).fetchone():
            return None
        return self.conn.execute(
            f"SELECT 1 FROM links e JOIN vertices d ON d.nid = e.dst WHERE e.src = {_NID} AND d.label = 'Document' LIMIT 1",
            (set_id,)).fetchone() is not None

    def pointing_at(self, node_id: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for parent, target in self.conn.execute(
                f"SELECT s.id, t.id FROM links l JOIN vertices s ON s.nid = l.src JOIN links o ON o.src = l.src "
                f"JOIN vertices t ON t.nid = o.dst WHERE l.dst = {_NID}", (node_id,)):
            out.setdefault(parent, set()).add(target)
        return out


def _collect_orphans(conn: sqlite3.Connection, set_ids: Iterable[str], own: Collection[str]) -> set[str]:
    """SetBatch step 5, set by set: the stages :func:`graph.writes.collected` decides, deleted in
    order; the scopes touched."""
    remains = _SetRemains(conn)
    touched: set[str] = set()
    for set_id in set_ids:
        for stage in writes.collected(set_id, remains):
            touched |= _detach_delete(conn, stage, own)
    return touched


def _now() -> str:
    """The time of a write, as its versions record it (UTC ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _has_versions_table(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'versions'").fetchone() is not None


_NODE_TEXT = ("""'{"id":'||json_quote(id)||',"label":'||json_quote(label)||',"set_id":'||json_quote(set_id)||"""
              """',"document_id":'||json_quote(document_id)||',"props":'||unpacked(props)||'}'""")
_EDGE_TEXT = ("""'{"kind":'||json_quote(kind)||',"src":'||json_quote(src)||',"dst":'||json_quote(dst)||"""
              """',"seq":'||seq||',"document_id":'||json_quote(document_id)||',"set_id":'||json_quote(set_id)||"""
              """',"props":'||unpacked(props)||'}'""")
_EDGE_ROWS_NAMED = ("SELECT s.id AS src, l.kind AS kind, d.id AS dst, l.seq AS seq, dn.name AS document_id, "
                    "sn.name AS set_id, l.props AS props" + _EDGE_ROWS[_EDGE_ROWS.index(" FROM links"):])
"""A node's / an edge's JSON built by SQLite from its stored props text, as
:func:`graph.versions.node_text` / :func:`graph.versions.edge_text` build it."""


def _snapshot(conn: sqlite3.Connection, set_id: str) -> versions.Encoded | None:
    """Set ``set_id`` as it stands in this transaction, encoded (:func:`graph.versions.encode_texts`)
    from its rows as stored, through the ``set_id`` indexes, with its System node; each row's JSON
    is built in SQL."""
    from graph import versions

    columns = f"id, label, document_id, CASE WHEN label = 'Document' THEN unpacked(props) END, {_NODE_TEXT}"
    named = ("SELECT n.id AS id, n.label AS label, sn.name AS set_id, dn.name AS document_id, n.props AS props "
             f"FROM vertices n {_NAMED} WHERE")
    nodes = conn.execute(f"SELECT {columns} FROM ({named} n.set_id = {_REF} AND n.label <> 'Review')",
                         (set_id,)).fetchall()
    if not any(row[0] == set_id for row in nodes):
        return None
    systems = [row[0] for row in conn.execute(
        f"SELECT DISTINCT s.id FROM links l JOIN vertices s ON s.nid = l.src WHERE l.dst = {_NID} AND l.set_id = {_REF} "
        "AND l.kind = 'CONTAINS' AND l.document_id IS NULL", (set_id, set_id))]
    if systems:
        nodes += conn.execute(f"SELECT {columns} FROM ({named} n.id IN {_IDS})", (_dumps(systems),)).fetchall()
    nodes.sort()
    edges = conn.execute(f"SELECT document_id, kind, {_EDGE_TEXT} FROM ({_EDGE_ROWS_NAMED} WHERE l.set_id = {_REF}) "
                         "ORDER BY src, kind, dst, seq", (set_id,)).fetchall()
    return versions.encode_texts(set_id, nodes, edges)


_Before = tuple[list[tuple[int, str]], "versions.Encoded | None", "bytes | None"]
"""A written set's versions before the write: stored ``(number, digest)``, baseline, held blob."""


def _held_blob(conn: sqlite3.Connection, set_id: str) -> bytes | None:
    """The blob of set ``set_id``'s latest version when the live rows hold it (its stored blob is
    empty), encoded from the rows as they stand now; None when its blob is stored (or it has none).

    Raises
    ------
    StoreUnavailable
        The rows no longer encode that version (its digest differs): a write changed them without
        giving the version its blob first.
    """
    row = conn.execute("SELECT number, digest FROM versions WHERE set_id = ? AND length(blob) = 0 AND number = "
                       "(SELECT max(number) FROM versions WHERE set_id = ?)", (set_id, set_id)).fetchone()
    if row is None:
        return None
    encoded = _snapshot(conn, set_id)
    if encoded is None or encoded.digest != row[1]:
        raise StoreUnavailable(f"version {row[0]} of set {set_id} is not in the store: its rows changed since",
                               hint="the store is damaged; restore it from a copy, or ingest the set again")
    return encoded.blob


def _release_held(conn: sqlite3.Connection, set_ids: Iterable[str]) -> None:
    """Before a write changes rows of sets ``set_ids`` without keeping their versions: each one's
    latest version that the live rows hold gets its blob stored, from the rows as they stand."""
    for set_id in sorted(set(set_ids) - {""}):
        blob = _held_blob(conn, set_id)
        if blob is not None:
            conn.execute("UPDATE versions SET blob = ? WHERE set_id = ? AND length(blob) = 0", (blob, set_id))


def _holders(conn: sqlite3.Connection, ids: list[str]) -> set[str]:
    """The sets whose versions may hold nodes ``ids``: each node's own set and the set of every edge
    touching it (a System is in each set its ``CONTAINS`` edges go to)."""
    if not ids:
        return set()
    return {row[0] for row in conn.execute(
        f"SELECT sn.name FROM (SELECT set_id FROM vertices WHERE id IN {_IDS} UNION SELECT set_id FROM links "
        f"WHERE src IN {_NIDS} UNION SELECT set_id FROM links WHERE dst IN {_NIDS}) x "
        "JOIN names sn ON sn.ref = x.set_id", (_dumps(ids),) * 3)}


def _bump(conn: sqlite3.Connection, scopes: set[str]) -> tuple[int, int]:
    """After a write: recount each touched scope (and move the store's totals by the difference),
    give it a new version (from the store's one generation counter, so a version is never reused),
    and return the store's node and edge totals. Costs what the scopes hold, not the store."""
    (generation,) = conn.execute("SELECT CAST(value AS INTEGER) + 1 FROM meta WHERE key = 'generation'").fetchone()
    conn.execute("UPDATE meta SET value = ? WHERE key = 'generation'", (str(generation),))
    for scope in sorted(scopes):
        where, params = (f"set_id = {_REF}", (scope,)) if scope else ("set_id IS NULL", ())
        before = dict(conn.execute("SELECT name, n FROM counts WHERE scope = ?", (scope,)))
        conn.execute("DELETE FROM counts WHERE scope = ?", (scope,))
        conn.execute(f"INSERT INTO counts SELECT ?, label, count(*) FROM vertices WHERE {where} GROUP BY label",
                     (scope, *params))
        conn.execute(f"INSERT INTO counts SELECT ?, kind, count(*) FROM links WHERE {where} GROUP BY kind",
                     (scope, *params))
        after = dict(conn.execute("SELECT name, n FROM counts WHERE scope = ?", (scope,)))
        conn.executemany("INSERT INTO totals VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + excluded.n",
                         [(k, after.get(k, 0) - before.get(k, 0)) for k in after.keys() | before.keys()])
        conn.execute("INSERT OR REPLACE INTO scopes VALUES (?, ?)", (scope, generation))
        conn.execute("DELETE FROM set_results WHERE set_id = ?", (scope,))
    totals = _totals(conn)
    return totals["nodes"], totals["edges"]


def _totals(conn: sqlite3.Connection, set_id: str | None = None) -> dict[str, int]:
    """The kept counts of the whole store, or of set ``set_id``."""
    out = {str(label): 0 for label in Label} | {str(kind): 0 for kind in EdgeKind}
    rows = (conn.execute("SELECT name, n FROM totals") if set_id is None else
            conn.execute("SELECT name, n FROM counts WHERE scope = ?", (set_id,)))
    for name, n in rows:
        out[name] = n
    out["nodes"] = sum(out[str(label)] for label in Label)
    out["edges"] = sum(out[str(kind)] for kind in EdgeKind)
    return out


def _set_wal(conn: sqlite3.Connection) -> None:
    """Put a new database file into WAL mode. Changing the journal mode needs the file to itself, and
    SQLite answers ``database is locked`` at once, not through the busy handler, while another
    process opens or creates the same new file; so it is retried (with a growing pause, up to
    :data:`BUSY_TIMEOUT_S`) until this process gets the file or finds another made it WAL."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    pause = 0.001
    while True:
        try:
            (mode,) = conn.execute("PRAGMA journal_mode = WAL").fetchone()
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
            continue
        if str(mode).lower() == "wal":
            return
        raise sqlite3.OperationalError(f"the database stayed in journal mode {mode}, not wal")


def _ensure_search_index(conn: sqlite3.Connection) -> None:
    """Give a store that predates the full-text index its index, filled from its statements, in one
    write transaction (a second process doing the same at once waits, then finds it made)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'statement_search'").fetchone():
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "readonly" in str(exc):
            return  # read as it is; search scans the statements instead
        raise
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'statement_search'").fetchone():
            for statement in _SEARCH_SCHEMA:  # tables, triggers, then the statements already stored
                conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _conversion_step(conn: sqlite3.Connection, version: int, step: Callable[[sqlite3.Connection], object]) -> bool:
    """Run ``step`` (one conversion from format ``version`` to the next) on ``conn`` in one write
    transaction, then record the next version. All or nothing: any failure rolls it back and leaves
    format ``version``. A second process converting at once waits, then finds it done (and answers
    False); True when this call converted it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0] != str(version):
            conn.execute("COMMIT")
            return False
        step(conn)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'version'", (str(version + 1),))
        conn.execute("COMMIT")
        return True
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


_FORMAT_2_INDEXES = ("nodes_set", "nodes_label", "nodes_document", "nodes_record_id", "nodes_path",
                     "edges_dst", "edges_owner", "edges_set")


def _convert_format_2(conn: sqlite3.Connection) -> bool:
    """Convert the format-2 store on ``conn`` to format 3 (:func:`_conversion_step`): every node
    keeps its ``rowid`` as its ``nid``, every edge its row, with its text ids as integers; the
    indexes, the full-text index (keyed by ``nid``) and the view ``edges`` are made anew. A count
    that differs rolls it back. The file keeps its size until a ``VACUUM`` (which the caller runs).

    Raises
    ------
    StoreUnavailable
        An edge names a node, owner or set that the conversion could not map (nothing changes).
    """
    return _conversion_step(conn, 2, _step_from_format_2)


def _step_from_format_2(conn: sqlite3.Connection) -> None:
    for name in ("statement_search_insert", "statement_search_delete", "statement_search_update"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for name in _FORMAT_2_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")
    conn.execute("ALTER TABLE nodes RENAME TO nodes_v2")
    conn.execute("ALTER TABLE edges RENAME TO edges_v2")
    body = _SCHEMA_4.split("BEGIN IMMEDIATE;", 1)[1].rsplit("COMMIT;", 1)[0]
    for statement in body.split(";\n"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT INTO nodes (nid, id, label, set_id, document_id, props) "
                 "SELECT rowid, id, label, set_id, document_id, props FROM nodes_v2")
    conn.execute("INSERT OR IGNORE INTO names (name) SELECT owner FROM edges_v2 "
                 "UNION SELECT document_id FROM edges_v2 WHERE document_id IS NOT NULL "
                 "UNION SELECT set_id FROM edges_v2 WHERE set_id IS NOT NULL")
    conn.execute(
        "INSERT INTO links (rowid, src, kind, dst, owner, seq, document_id, set_id, props) "
        "SELECT e.rowid, s.nid, e.kind, d.nid, o.ref, e.seq, dn.ref, sn.ref, e.props FROM edges_v2 e "
        "JOIN nodes s ON s.id = e.src JOIN nodes d ON d.id = e.dst JOIN names o ON o.name = e.owner "
        "LEFT JOIN names dn ON dn.name = e.document_id LEFT JOIN names sn ON sn.name = e.set_id ORDER BY e.rowid")
    for old, new in (("nodes_v2", "nodes"), ("edges_v2", "links")):
        (was,), (now,) = conn.execute(f"SELECT count(*) FROM {old}"), conn.execute(f"SELECT count(*) FROM {new}")
        if was != now:
            raise StoreUnavailable(f"cannot convert the store of format 2: {was} rows in {old} became {now}",
                                   hint="the store is left in format 2; read it with the citegraph that wrote it")
    conn.execute("DROP TABLE nodes_v2")
    conn.execute("DROP TABLE edges_v2")
    conn.execute("DROP TABLE IF EXISTS statement_search")  # keyed by statement_search_keys: made anew
    conn.execute("DROP TABLE IF EXISTS statement_search_keys")
    for statement in _search_schema("nodes"):
        conn.execute(statement)


_SAMPLE_ROWS = 2000
"""Rows of each label or edge kind a conversion trains its dictionary from."""


def _convert_format_3(conn: sqlite3.Connection) -> bool:
    """Convert the format-3 store on ``conn`` to format 4 (:func:`_conversion_step`): a dictionary
    is trained for each label and edge kind from its first rows, and every property map is packed
    with it (:mod:`graph.stores.packing`; the labels of :data:`PLAIN_LABELS` stay text); the
    full-text index keeps its rows (the text is the same), its triggers are made anew. The file
    keeps its size until a ``VACUUM`` (which the caller runs)."""
    packer = _packer(conn)

    def step(conn: sqlite3.Connection) -> None:
        conn.execute(DICTIONARIES_TABLE)
        packer.load()
        for name in ("statement_search_insert", "statement_search_delete", "statement_search_update"):
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        labels = [r[0] for r in conn.execute("SELECT DISTINCT label FROM nodes") if r[0] not in PLAIN_LABELS]
        kinds = [r[0] for r in conn.execute("SELECT DISTINCT kind FROM links")]
        for label in labels:
            packer.train((label, r[0]) for r in conn.execute(
                "SELECT props FROM nodes WHERE label = ? ORDER BY nid LIMIT ?", (label, _SAMPLE_ROWS)))
        for kind in kinds:
            packer.train((f"edge:{kind}", r[0]) for r in conn.execute(
                "SELECT props FROM links WHERE kind = ? ORDER BY rowid LIMIT ?", (kind, _SAMPLE_ROWS)))
        conn.create_function("packed", 2, packer.pack)
        conn.execute(f"UPDATE nodes SET props = packed(label, props) WHERE label NOT IN {_IDS}",
                     (_dumps(sorted(PLAIN_LABELS)),))
        conn.execute("UPDATE links SET props = packed('edge:' || kind, props)")
        for statement in _search_schema("nodes")[1:4]:  # the triggers; the index's rows stand
            conn.execute(statement)

    try:
        return _conversion_step(conn, 3, step)
    except BaseException:
        packer.forget()
        raise
    finally:
        conn.create_function("packed", 2, None)


def _build_search_counts(conn: sqlite3.Connection, table: str = "vertices") -> int:
    """In the caller's write transaction on ``conn``: ``search_counts`` with its index and its
    triggers on the nodes' table ``table`` (:func:`_counts_schema`), its rows written anew from
    every statement's text (as :func:`_put_nodes` writes them); the number of rows."""
    for statement in _counts_schema(table).split(";\n"):
        conn.execute(statement)
    conn.execute("DELETE FROM search_counts")
    rows = conn.execute(f"SELECT nid, json_extract(unpacked(props), '$.text') FROM {table} WHERE label = 'Statement'")
    conn.executemany("INSERT INTO search_counts (term, n, statement) VALUES (?, ?, ?)",
                     ((w, n, nid) for nid, text in rows if isinstance(text, str)
                      for w, n in frequent_words(text, SEARCH_COUNT_FLOOR)))
    (count,) = conn.execute("SELECT count(*) FROM search_counts").fetchone()
    return int(count)


def _convert_format_4(conn: sqlite3.Connection) -> bool:
    """Convert the format-4 store on ``conn`` to format 5 (:func:`_conversion_step`): it gains
    ``search_counts`` over its table ``nodes`` (:func:`_build_search_counts`); nothing else changes."""
    _packer(conn).load()
    return _conversion_step(conn, 4, lambda conn: _build_search_counts(conn, "nodes"))


_FORMAT_5_INDEXES = ("nodes_set", "nodes_label", "nodes_document", "nodes_record_id", "nodes_path")


def _convert_format_5(conn: sqlite3.Connection) -> bool:
    """Convert the format-5 store on ``conn`` to format 6 (:func:`_conversion_step`): the nodes
    move from ``nodes`` to ``vertices``, each keeping its ``nid`` and its packed property map, its
    set and document id as a ref into ``names`` (each id added once); the indexes, the full-text
    and ``search_counts`` triggers and the views ``nodes`` and ``edges`` are made anew, the
    full-text index and ``search_counts`` keep their rows (keyed by ``nid``); each set's latest
    version that its rows encode is left to them (:func:`_hold_latest_versions`). A count that
    differs rolls it back. The file keeps its size until a ``VACUUM`` (which the caller runs)."""
    _packer(conn).load()
    return _conversion_step(conn, 5, _step_from_format_5)


def _step_from_format_5(conn: sqlite3.Connection) -> None:
    for name in ("statement_search_insert", "statement_search_delete", "statement_search_update",
                 "search_counts_delete", "search_counts_update"):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for name in _FORMAT_5_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")
    conn.execute("DROP VIEW IF EXISTS edges")
    conn.execute(_NAMES)
    conn.execute("INSERT OR IGNORE INTO names (name) SELECT set_id FROM nodes WHERE set_id IS NOT NULL "
                 "UNION SELECT document_id FROM nodes WHERE document_id IS NOT NULL")
    conn.execute(_NODES_TABLE)
    conn.execute("INSERT INTO vertices (nid, id, label, set_id, document_id, props) "
                 "SELECT n.nid, n.id, n.label, sn.ref, dn.ref, n.props FROM nodes n "
                 "LEFT JOIN names sn ON sn.name = n.set_id LEFT JOIN names dn ON dn.name = n.document_id "
                 "ORDER BY n.nid")
    (was,), (now,) = conn.execute("SELECT count(*) FROM nodes"), conn.execute("SELECT count(*) FROM vertices")
    if was != now:
        raise StoreUnavailable(f"cannot convert the store of format 5: {was} nodes became {now}",
                               hint="the store is left in format 5; read it with the citegraph that wrote it")
    conn.execute("DROP TABLE nodes")
    for statement in (*_NODES_INDEXES.split(";\n"), _EDGES_VIEW.replace("{nodes}", "vertices"), *_SEARCH_SCHEMA[1:4],
                      *_COUNTS.split(";\n")):
        conn.execute(statement)  # the indexes, the views, the triggers; the full-text and count rows stand
    _hold_latest_versions(conn)


def _hold_latest_versions(conn: sqlite3.Connection) -> int:
    """Store an empty blob for each set's latest version that the set's live rows encode (same
    digest): the rows hold it (:func:`_held_blob`). The number of versions so left to the rows."""
    if not _has_versions_table(conn):
        return 0
    held = 0
    latest = conn.execute("SELECT v.set_id, v.number, v.digest FROM versions v WHERE length(v.blob) > 0 AND v.number = "
                          "(SELECT max(number) FROM versions w WHERE w.set_id = v.set_id) ORDER BY v.set_id").fetchall()
    for set_id, number, digest in latest:
        encoded = _snapshot(conn, set_id)
        if encoded is not None and encoded.digest == digest:
            conn.execute("UPDATE versions SET blob = x'' WHERE set_id = ? AND number = ?", (set_id, number))
            held += 1
    return held


def _fts_query(phrases: Sequence[Phrase]) -> str:
    """The FTS5 query asking for every phrase: ``"compare and swap" AND "vau"*``. Words hold only
    letters and digits (:mod:`graph.text`), so quoting them needs no escapes."""
    return " AND ".join('"' + " ".join(p.words) + '"' + ("*" if p.prefix else "") for p in phrases)


# -- conversion of the former file ------------------------------------------------------------------


def migrate_legacy(source: Path, target: Path, *, batch: int = 4096) -> dict[str, int]:
    """Convert the format-1 store ``source`` (``graph.json.gz``, :mod:`graph.stores.legacy`) into a
    new SQLite store at ``target``, keeping every node and edge; returns the new store's
    :meth:`~SQLiteStore.counts`. ``source`` is only read.

    The store is built beside ``target`` under a temporary name and renamed into place when
    complete, so ``target`` is either absent or whole, whatever happens meanwhile.

    Raises
    ------
    StoreUnavailable
        ``source`` is not a readable format-1 store (nothing is created), or ``target`` exists.
    """
    from graph.stores.legacy import read_legacy

    if target.exists() and target.stat().st_size:
        raise StoreUnavailable(f"cannot convert {source}: {target} exists already")
    tmp = target.with_name(f".{target.name}.converting-{os.getpid()}")
    _remove_database(tmp)
    store = SQLiteStore(tmp)
    try:
        with store._writing() as conn:
            nodes: list[Node] = []
            edges: list[Edge] = []
            for element in read_legacy(source):
                if isinstance(element, Node):
                    nodes.append(element)
                    if len(nodes) >= batch:
                        _put_nodes(conn, nodes)
                        nodes.clear()
                else:
                    if nodes:
                        _put_nodes(conn, nodes)
                        nodes.clear()
                    edges.append(element)
                    if len(edges) >= batch:
                        _put_edges(conn, edges)
                        edges.clear()
            _put_nodes(conn, nodes)
            _put_edges(conn, edges)
            scopes = {row[0] or "" for row in conn.execute(
                "SELECT DISTINCT set_id FROM nodes UNION SELECT DISTINCT set_id FROM edges")}
            _bump(conn, scopes)
        counts = store.counts()
        with store._translated():  # fold the WAL into the file now, where a failure is seen
            written = store._connection()
            assert written is not None, "the file was just written"
            busy, _, _ = written.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        wal = Path(f"{tmp}-wal")
        if busy or (wal.exists() and wal.stat().st_size):
            raise StoreUnavailable(f"cannot convert {source}: the new store's journal could not be written into {tmp}")
        store.close()
        os.chmod(tmp, source.stat().st_mode & 0o777)  # as private as the file it replaces
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        _fsync_folder(target.parent)
    except BaseException:
        store.close()
        _remove_database(tmp)
        raise
    return counts


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
