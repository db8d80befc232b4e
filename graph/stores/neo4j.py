"""The Neo4j store: the store contract over Bolt with the official driver, answering exactly as the
embedded store does.

Every Cypher statement lives in :mod:`graph.stores.cypher`. Reads are one auto-commit
transaction each in a READ-mode session (one round trip; retried as ``execute_query`` would,
:meth:`Neo4jStore._autocommit`); a write (:meth:`Neo4jStore.write_set`,
:meth:`Neo4jStore.delete_documents`, :meth:`Neo4jStore.put_reviews`) is one managed write
transaction, so a failure anywhere leaves the previous version in place. Results are decoded into the same :class:`~graph.model.Node` and
:class:`~graph.model.Edge` values the embedded store holds, and sorted in Python by the same keys
(node id, :meth:`~graph.model.Edge.sort_key`), so both stores order strings identically.
Driver errors are translated here: an unreachable or overloaded server becomes
:class:`~graph.errors.StoreUnavailable`, a uniqueness violation
:class:`~graph.errors.DuplicateDeclaration`.

Needs Neo4j 5.23 or later (scoped ``CALL () {…}`` subqueries); 5.26 LTS is what the tests run on.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import uuid
import weakref
from collections import Counter
from contextlib import contextmanager, nullcontext, suppress
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence

from graph.stores import bolt  # noqa: F401  (first: the driver without numpy/pandas, see graph.stores.bolt)
from neo4j import (READ_ACCESS, WRITE_ACCESS, Driver, GraphDatabase, ManagedTransaction, NotificationDisabledClassification,
                   Record, Transaction)
from neo4j.exceptions import (
    AuthError,
    ConfigurationError,
    ConstraintError,
    DriverError,
    IncompleteCommit,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph import writes
from graph.errors import CitegraphError, DuplicateDeclaration, StoreUnavailable
from graph.model import Edge, EdgeKind, Label, Node, SetBatch, WriteSummary
from graph.store import SEARCH_FIELDS, VERSIONS_KEPT, ClosedOnExit, Direction, Reach, SnapshotMoved, projected
from graph.stores import cypher
from graph.text import Phrase, holds, words

if TYPE_CHECKING:
    from graph import versions
    from graph.analysis_changes import PartChange
    from graph.tallies import SetTally
    from graph.versions import SetVersion

# graph.versions (with graph.analysis_changes, graph.codec, domain.model and difflib) is imported by
# the methods that keep or read versions, and graph.tallies by set_tallies, as the embedded store
# does: a command that reads live rows imports neither.

__all__ = ["Neo4jStore", "DRIVER_CONFIG", "BATCH_ROWS", "READ_RETRY_S", "READ_RETRY_FIRST_S", "KEEP_RESULTS_TIMEOUT_S", "HOLD_AFTER_MOVE_S", "KEPT_READ_S", "KEPT_READS_MAX"]

DRIVER_CONFIG: dict[str, Any] = {
    "notifications_disabled_classifications": [NotificationDisabledClassification.UNRECOGNIZED],
}
"""Driver options :meth:`Neo4jStore.connect` uses: the server's "property key does not exist"
notices are off (absent keys such as ``document_id`` on shared nodes are part of the layout);
deprecation and performance notices stay on."""

HOLD_AFTER_MOVE_S = 0.2
"""Seconds after an optimistic snapshot moved during which a store's snapshots are held (see
:meth:`Neo4jStore.snapshot`): writes are landing, and a held view does not need reading again."""

KEPT_READ_S = 1.0
"""Seconds after its ``BEGIN`` during which a READ transaction is kept for the next optimistic
snapshot (see :meth:`Neo4jStore.snapshot`): a request then pays neither a session, a ``BEGIN``
nor a ``ROLLBACK``, and starts from the clock its predecessor read last. Bounded so that a kept
transaction never holds the server's resources (nor, on a cluster, a member) for long."""

KEPT_READS_MAX = 8
"""Idle READ transactions a store keeps at most (one per request thread in steady use)."""

KEEP_RESULTS_TIMEOUT_S = 2.0
"""Seconds :meth:`Neo4jStore.keep_results` may take (waiting for a lock included) before it gives up."""

READ_RETRY_S = 30.0
"""Seconds during which a read (:meth:`Neo4jStore._autocommit`) is run again after a retryable
error: the driver's own default for ``execute_query`` and managed transactions."""

READ_RETRY_FIRST_S = 1.0
"""Seconds before a read's first retry; each later wait doubles (the driver's own defaults)."""

BATCH_ROWS = 2000
"""Rows per ``UNWIND`` statement when writing nodes or edges (chosen by measurement: smaller batches
were slower, larger no faster, see bench/README.md); a write stays one transaction."""

_INT64 = (-(2**63), 2**63 - 1)
_ALREADY_EXISTS = {
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
}
_LABELS = {label.value: label for label in Label}
log = logging.getLogger("citegraph")
_BOLT_SCHEMES = {"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"}

_Done = TypeVar("_Done")
"""What the work of one write transaction (:meth:`Neo4jStore._write`) answers."""


class Neo4jStore(ClosedOnExit):
    """A :class:`~graph.store.GraphStore` on a Neo4j server (5.23+, Community or Enterprise, Aura).

    Parameters
    ----------
    driver : neo4j.Driver
        A ready driver (one per process; it is thread-safe and owns the connection pool).
    database : str, default "neo4j"
        Database to use; named explicitly on every call.
    owns_driver : bool, default False
        Close ``driver`` in :meth:`close` (true for stores made by :meth:`connect`).
    versions_kept : int, default :data:`graph.store.VERSIONS_KEPT`
        Versions kept per set (:class:`~graph.store.KeepsVersions`); 0 keeps none.

    Notes
    -----
    The schema is not touched here; call :meth:`ensure_schema` once (``connect`` does). Writers
    take a store-wide lock (:data:`graph.stores.cypher.LOCK_WRITES`), so concurrent writes run one
    after the other. A plain read never waits; a query made of several reads (rests-on reads the
    record, then the closure with its nodes) can see a write that committed between them, unless it
    reads through a :meth:`snapshot` (:func:`graph.store.read_snapshot`): one committed state, read
    in a READ-mode session unless writes are landing.
    Implements :class:`~graph.store.SupportsReach` (:meth:`reach`),
    :class:`~graph.store.SupportsSnapshot` and :class:`~graph.store.KeepsSetResults`.
    """

    def __init__(self, driver: Driver, *, database: str = "neo4j", owns_driver: bool = False,
                 versions_kept: int = VERSIONS_KEPT):
        if versions_kept < 0:
            raise ValueError(f"versions_kept must be at least 0, not {versions_kept}")
        self.driver = driver
        self.database = database
        self.uri: str | None = None  # set by connect(); names the server to people (stats, the CLI)
        self._owns_driver = owns_driver
        self._closed = False
        self.versions_kept = versions_kept
        self.snapshot_counts: Counter[str] = Counter()
        """Snapshots of each kind so far: ``read`` (optimistic, one state), ``moved`` (optimistic,
        read again), ``stale`` (optimistic from a kept transaction's last clock, read again),
        ``held`` (see :meth:`snapshot`)."""
        self._hold_until = 0.0  # time.monotonic() before which snapshots are held
        self._kept: list[_KeptRead] = []  # idle READ transactions for optimistic snapshots, oldest first
        self._kept_lock = threading.Lock()
        weakref.finalize(self, _end_reads, self._kept, self._kept_lock)  # a store dropped unclosed

    @classmethod
    def connect(cls, uri: str, *, user: str = "neo4j", password: str = "", database: str = "neo4j",
                versions_kept: int = VERSIONS_KEPT) -> Neo4jStore:
        """Open a driver on ``uri``, check that the server answers, and make sure the schema exists.

        Parameters
        ----------
        uri : str
            ``bolt://host:7687``, ``neo4j://host:7687`` (routing, clusters) or ``neo4j+s://…`` (Aura).
        user, password : str
            Credentials; an empty password connects without authentication.
        database : str, default "neo4j"
            Database to use.
        versions_kept : int
            As for the constructor.

        Raises
        ------
        StoreUnavailable
            The URI is malformed, the server does not answer, refuses the credentials (or asks for
            them when ``password`` is empty) or lacks the database.
        """
        scheme = uri.partition("://")[0].lower()
        if scheme not in _BOLT_SCHEMES:
            raise StoreUnavailable(f"cannot use Neo4j URI {uri!r}: citegraph talks Bolt, not {scheme or 'no scheme'}",
                                   hint="use bolt://HOST:7687, neo4j://HOST:7687 or neo4j+s://HOST for Aura")
        try:
            driver = GraphDatabase.driver(uri, auth=(user, password) if password else None, **DRIVER_CONFIG)
        except (ConfigurationError, ValueError) as exc:
            raise StoreUnavailable(f"cannot use Neo4j URI {uri!r}: {exc}",
                                   hint="use bolt://HOST:7687, neo4j://HOST:7687 or neo4j+s://HOST for Aura") from exc
        store = cls(driver, database=database, owns_driver=True, versions_kept=versions_kept)
        store.uri = uri
        try:
            with _translated(uri):
                try:
                    driver.verify_connectivity()
                except AuthError as exc:
                    if password:
                        raise
                    raise StoreUnavailable(f"Neo4j ({uri}) asks for credentials and none "
                                           "were given", hint="set CITEGRAPH_NEO4J_USER (default neo4j) and "
                                           "CITEGRAPH_NEO4J_PASSWORD") from exc
            store.ensure_schema()
        except BaseException:
            driver.close()
            raise
        return store

    def ensure_schema(self, *, timeout: int = 300) -> None:
        """Create the constraints and indexes of :func:`graph.stores.cypher.schema_statements` if they
        do not exist, then wait (at most ``timeout`` seconds) until every index is online.
        Idempotent, and safe when several processes do it at once. When every one of them is
        online already (every connect after the first), this costs two round trips
        (:data:`graph.stores.cypher.SCHEMA_STATE` and the search-words marker), not one per
        statement (the 28 statements cost 0.1 s of every command)."""
        with _translated(self.database):
            online = set(self._autocommit(WRITE_ACCESS, cypher.SCHEMA_STATE)[0]["online"])
            if online.issuperset(cypher.schema_names()):
                self._index_old_statements()
                return
            for statement in cypher.schema_statements():
                try:
                    self.driver.execute_query(statement, database_=self.database)
                except Neo4jError as exc:
                    if exc.code not in _ALREADY_EXISTS:
                        raise
            self.driver.execute_query(cypher.AWAIT_INDEXES, {"seconds": timeout}, database_=self.database)
            self._index_old_statements()

    def _index_old_statements(self, batch: int = BATCH_ROWS) -> None:
        """Give statements written before the full-text index existed their ``search_words``
        (a database filled by an earlier citegraph), a batch per write transaction, once: a marker
        (:data:`graph.stores.cypher.SEARCH_WORDS_DONE`) says it is done, so a connect costs one
        indexed lookup afterwards."""
        if self._autocommit(WRITE_ACCESS, cypher.SEARCH_WORDS_DONE)[0]["done"]:
            return
        while True:
            rows = self.driver.execute_query(cypher.UNINDEXED_STATEMENTS, {"limit": batch},
                                             database_=self.database).records
            if not rows:
                self.driver.execute_query(cypher.MARK_SEARCH_WORDS_DONE, database_=self.database)
                return
            found = [{"id": r["id"], "words": " ".join(words(json.loads(r["props_json"] or "{}").get("text") or ""))}
                     for r in rows]
            self.driver.execute_query(cypher.SET_SEARCH_WORDS, {"rows": found}, database_=self.database)

    # -- plumbing --------------------------------------------------------------------------------

    def _read(self, query: str, **params: Any) -> list[Any]:
        with _translated(self.database):
            return self._autocommit(READ_ACCESS, query, params)

    def _autocommit(self, mode: str, query: str, params: dict[str, Any] | None = None) -> list[Record]:
        """``query``'s records, read in one auto-commit transaction of a ``mode`` session that shares
        the bookmark manager of ``execute_query`` (so it reads this process's writes): one round trip
        (``RUN`` and ``PULL``), where ``execute_query``'s managed transaction is two (its ``COMMIT``).
        Like ``execute_query``, it runs again on an error the driver calls retryable (a leader
        that moved, a server briefly gone, a transient error), for at most :data:`READ_RETRY_S`
        seconds, waiting :data:`READ_RETRY_FIRST_S`, then twice as long each time (±20 %) in
        between; only statements that write nothing, or that may be run twice, are run this way."""
        deadline: float | None = None
        delay = READ_RETRY_FIRST_S
        while True:
            try:
                with self.driver.session(database=self.database, default_access_mode=mode,
                                         bookmark_manager=self.driver.execute_query_bookmark_manager) as session:
                    return list(session.run(query, params))
            except (Neo4jError, DriverError) as exc:
                if not exc.is_retryable():
                    raise
                now = time.monotonic()
                deadline = now + READ_RETRY_S if deadline is None else deadline
                if now + delay > deadline:
                    raise
                time.sleep(delay * random.uniform(0.8, 1.2))
                delay *= 2

    def _read_clocked(self, clocked: str, plain: str, **params: Any) -> list[Any]:
        """``plain``'s records. A snapshot view runs ``clocked`` instead: the same records, the
        first also carrying the write clock read after them (``begun``, ``writing``; see
        :func:`graph.stores.cypher.reach`), which spares the view's end its own clock read
        when no other read follows (:meth:`snapshot`)."""
        return self._read(plain, **params)

    def _write(self, work: Callable[..., _Done], *args: Any) -> _Done:
        """Run ``work(tx, *args)`` as one managed write transaction (retried on transient errors, so
        ``work`` only reads and writes through ``tx``) that takes every read slot last
        (:data:`graph.stores.cypher.LOCK_READERS`): it commits while no held :meth:`snapshot` is
        open. A transaction of its own before it marks the write under way and one after it removes
        the mark (:data:`~graph.stores.cypher.BEGIN_WRITE`), which is what the optimistic snapshots
        check. Each of the three sends its ``BEGIN`` with its first statement (:func:`_pipelined_begin`)."""

        def then_lock_readers(tx: ManagedTransaction, *args: Any) -> _Done:
            done = work(tx, *args)
            _run(tx, cypher.LOCK_READERS, slots=cypher.READ_SLOTS)
            return done

        token = uuid.uuid4().hex
        with _translated(self.database), self.driver.session(database=self.database,
                                 bookmark_manager=self.driver.execute_query_bookmark_manager) as session, \
                _pipelined_begin(session):
            session.execute_write(_run, cypher.BEGIN_WRITE, token=token, lease_ms=cypher.WRITE_MARK_LEASE_MS)
            try:
                return session.execute_write(then_lock_readers, *args)
            finally:
                with suppress(Neo4jError, DriverError):  # a mark left behind goes after its lease
                    session.execute_write(_run, cypher.END_WRITE, token=token)

    @contextmanager
    def snapshot(self) -> Iterator[Neo4jStore]:
        """A read-only view of one committed state (:meth:`graph.store.SupportsSnapshot.snapshot`).

        Neo4j reads at read-committed isolation and applies a commit piece by piece, so one
        transaction alone is not one state. Optimistically, the view reads in one READ-mode
        transaction (on a cluster under ``neo4j://``, a follower or read replica; the driver's
        bookmark manager, shared with every write, makes it see this process's writes), between two
        reads of the write clock (:data:`graph.stores.cypher.WRITE_CLOCK`): when a write began
        by the end, leaving the block raises
        :class:`~graph.store.SnapshotMoved` (:func:`~graph.store.read_snapshot` reads again). Held:
        when a write is under way at the start, or a snapshot of this store moved less than
        :data:`HOLD_AFTER_MOVE_S` ago, the view's transaction holds a read slot
        (:data:`~graph.stores.cypher.HOLD_READ_SLOT`) in a write session, and no commit lands while
        it is open (a write's commit waits for it; it never moves). :attr:`snapshot_counts` counts
        the views of each kind (``read``, ``moved``, ``stale``, ``held``).

        An optimistic view's READ transaction is kept for the next one (:data:`KEPT_READ_S` after
        its ``BEGIN``, while this process writes nothing; read-committed, it sees later commits),
        which starts from the clock the last one read at its end: if no write was under way then
        and none has begun by the new view's end, none was under way while it read. So a request
        in steady use is its reads and one clock read: no session, ``BEGIN`` or ``ROLLBACK``.
        A write that began in between makes it ``stale``: read again, from a clock of its own.

        Raises
        ------
        StoreUnavailable
            The server does not answer.
        SnapshotMoved
            On leaving an optimistic view that a write may have crossed.
        """
        if time.monotonic() >= self._hold_until:
            read = self._take_read()
            try:
                with _Snapshot.over(self, read.tx) as view:
                    stale = read.clock is not None  # the clock of the transaction's last snapshot
                    begun = read.clock if stale else read.read_clock(view)
                    read.clock = None
                    if begun is not None:
                        try:
                            yield view
                        except Exception as exc:
                            self._check_unmoved(view, read, begun, stale, exc)
                            raise
                        except BaseException:  # interrupted, maybe mid-statement: not kept
                            read.spoiled = True
                            raise
                        self._check_unmoved(view, read, begun, stale, None)
                        return
            finally:
                self._give_read(read)
        self.snapshot_counts["held"] += 1
        slot = _READ_SLOTS.take()
        try:
            held = self._begin("WRITE")
            try:
                with _Snapshot.over(self, held.tx) as view:
                    view._read(cypher.HOLD_READ_SLOT, slot=slot)
                    yield view
            finally:
                held.end()
        finally:
            _READ_SLOTS.give(slot)

    def _check_unmoved(self, view: _Snapshot, read: _KeptRead, begun: int, stale: bool,
                       error: Exception | None) -> None:
        """Count an optimistic view that ended; raise :class:`SnapshotMoved` if a write began while
        it was open. ``stale``: ``begun`` is the clock the transaction's previous snapshot read
        last, so a write may have begun (and ended) before this one's first read; it is read again
        from this clock, without holding the next snapshots. When the block raised ``error`` and
        the view's transaction can no longer read (a failed statement spoils it), the block's
        error stands and the transaction is not kept."""
        try:
            now = read.read_clock(view, any_writing=True)
        except (CitegraphError, Neo4jError, DriverError):
            read.spoiled = True
            if error is None:
                raise
            return
        if now == begun:
            self.snapshot_counts["read"] += 1
            return
        read.clock = None  # the next snapshot reads its own first clock
        if stale:
            self.snapshot_counts["stale"] += 1
            raise SnapshotMoved("a write began since the kept transaction's last snapshot") from error
        self.snapshot_counts["moved"] += 1
        self._hold_until = time.monotonic() + HOLD_AFTER_MOVE_S
        raise SnapshotMoved("a write began while the snapshot was read") from error

    def _take_read(self) -> _KeptRead:
        """A READ transaction for one optimistic snapshot: the newest kept one younger than
        :data:`KEPT_READ_S` begun after this process's last write (its bookmarks, so that it reads
        this process's writes on a cluster too), else a new one; kept ones too old are ended."""
        bookmarks = frozenset(self.driver.execute_query_bookmark_manager.get_bookmarks())
        young = time.monotonic() - KEPT_READ_S
        with self._kept_lock:
            usable = [r for r in self._kept if r.began >= young and r.bookmarks == bookmarks]
            old = [r for r in self._kept if r not in usable]
            self._kept[:] = usable
            read = self._kept.pop() if self._kept else None
        for ended in old:
            ended.end()
        return read if read is not None else self._begin("READ", bookmarks)

    def _give_read(self, read: _KeptRead) -> None:
        """Keep ``read`` for the next snapshot unless it is spoiled, too old, or enough are kept."""
        if not read.spoiled and not self._closed and time.monotonic() - read.began < KEPT_READ_S:
            with self._kept_lock:
                if len(self._kept) < KEPT_READS_MAX:
                    self._kept.append(read)
                    return
        read.end()

    def _begin(self, mode: str, bookmarks: frozenset[str] | None = None) -> _KeptRead:
        """An explicit transaction in a ``READ`` or ``WRITE`` session (sharing the bookmark
        manager), to roll back at the end (:meth:`_KeptRead.end`): nothing a snapshot does is kept.
        Its ``BEGIN`` is sent with its first statement, not on its own (:func:`_pipelined_begin`):
        one round trip less per snapshot; a ``BEGIN`` the server refuses fails that first statement.
        ``bookmarks``: the bookmark manager's, read just before (read here when not given)."""
        if bookmarks is None:
            bookmarks = frozenset(self.driver.execute_query_bookmark_manager.get_bookmarks())
        with _translated(self.database):
            session = self.driver.session(database=self.database, default_access_mode=mode,
                                          bookmark_manager=self.driver.execute_query_bookmark_manager)
        try:
            with _translated(self.database), _pipelined_begin(session):
                tx = session.begin_transaction()
        except BaseException:
            session.close()
            raise
        return _KeptRead(session, tx, time.monotonic(), bookmarks)

    # -- contract: reads -------------------------------------------------------------------------

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        """See :meth:`graph.store.GraphStore.get_nodes`."""
        wanted = _distinct(ids)
        if not wanted:
            return {}
        found = {n.id: n for n in map(_node_from_row, self._read(cypher.GET_NODES, ids=wanted)[0]["nodes"])}
        return {i: found[i] for i in wanted if i in found}

    def find_nodes(
        self,
        label: Label,
        *,
        set_id: str | None = None,
        document_id: str | None = None,
        where: Mapping[str, Any] | None = None,
    ) -> list[Node]:
        """See :meth:`graph.store.GraphStore.find_nodes`.

        String-valued ``where`` items on ordinary keys are matched in Cypher (indexed where an index
        exists, e.g. ``record_id``); every item is then checked on the decoded props with Python's
        ``==``, exactly as the embedded store does.
        """
        where = dict(where or {})
        pushed = [k for k, v in where.items()
                  if isinstance(v, str) and cypher.PROPERTY_KEY.fullmatch(k) and k not in cypher.RESERVED_NODE_KEYS]
        query = cypher.find_nodes(label, by_set=set_id is not None, by_document=document_id is not None,
                                  where_keys=pushed)
        rows = self._read(query, set_id=set_id, document_id=document_id, where_values=[where[k] for k in pushed])
        out = [n for n in map(_node_from_row, rows[0]["nodes"])
               if n.label == label and all(n.props.get(k) == v for k, v in where.items())]
        return sorted(out, key=lambda n: n.id)

    def edges(
        self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None, direction: Direction
    ) -> dict[str, list[Edge]]:
        """See :meth:`graph.store.GraphStore.edges`."""
        wanted = _distinct(ids)
        out: dict[str, list[Edge]] = {i: [] for i in wanted}
        if not wanted or (kinds is not None and not list(kinds)):
            return out
        rows = self._read(cypher.edges(outgoing=direction == Direction.OUT, kinds=kinds), ids=wanted)[0]["edges"]
        for row, edge in zip(rows, _edges_from_rows([row["edge"] for row in rows])):
            out[row["asked"]].append(edge)
        for found in out.values():
            found.sort(key=Edge.sort_key)
        return out

    def nodes_with_edges(self, ids: Collection[str], *, kinds: Collection[EdgeKind]
                         ) -> tuple[dict[str, Node], dict[str, list[Edge]]]:
        """See :meth:`graph.store.SupportsNodesWithEdges.nodes_with_edges`. One query:
        :func:`graph.stores.cypher.nodes_with_edges`."""
        wanted, kinds = _distinct(ids), list(kinds)
        out: dict[str, list[Edge]] = {i: [] for i in wanted}
        if not wanted:
            return {}, out
        if not kinds:
            return self.get_nodes(wanted), out
        found: dict[str, Node] = {}
        for row in self._read(cypher.nodes_with_edges(kinds), ids=wanted):
            node = _node_from_row(row)
            found[node.id] = node
            out[node.id] = sorted(_edges_from_rows(row["out"]), key=Edge.sort_key)
        return {i: found[i] for i in wanted if i in found}, out

    def degrees(
        self, ids: Collection[str], *, kinds: Collection[EdgeKind] | None = None, direction: Direction
    ) -> dict[str, int]:
        """See :meth:`graph.store.GraphStore.degrees`."""
        wanted = _distinct(ids)
        out = dict.fromkeys(wanted, 0)
        if not wanted or (kinds is not None and not list(kinds)):
            return out
        for row in self._read(cypher.degrees(outgoing=direction == Direction.OUT, kinds=kinds), ids=wanted):
            out[row["asked"]] = row["count"]
        return out

    def closure(self, ids: Collection[str], *, kinds: Collection[EdgeKind]) -> list[Edge]:
        """See :meth:`graph.store.GraphStore.closure`. One query: :func:`graph.stores.cypher.closure`."""
        wanted, kinds = _distinct(ids), list(kinds)
        if not wanted or not kinds:
            return []
        rows = {row["rid"]: row for row in self._read(cypher.closure(kinds), ids=wanted)}
        return sorted(_edges_from_rows(list(rows.values())), key=Edge.sort_key)

    def reach(self, ids: Collection[str], *, kinds: Collection[EdgeKind],
              fields: Mapping[Label, Collection[str]], edge_props: bool = True) -> Reach:
        """See :meth:`graph.store.SupportsReach.reach`. One query: :func:`graph.stores.cypher.reach`;
        without ``edge_props`` the edges' ``props_json`` neither travels nor is decoded.

        Asked props are read from their native Neo4j properties; a node whose asked value is null
        there (absent, ``None``, or not natively storable) also ships ``props_json``, which then
        decides, so the props are exactly :func:`~graph.store.projected` ones. A label asked for a
        key that has no native property (a reserved name such as ``id``) always ships it.
        """
        wanted, kinds = _distinct(ids), list(kinds)
        if not wanted:
            return Reach([], {})
        if not kinds:
            return Reach([], {i: projected(n, fields) for i, n in self.get_nodes(wanted).items()})
        native: dict[str, list[str]] = {}
        whole: list[str] = []
        for label, keys in fields.items():
            keys = _distinct(keys)
            if all(cypher.PROPERTY_KEY.fullmatch(k) and k not in cypher.RESERVED_NODE_KEYS for k in keys):
                native[Label(label).value] = keys
            else:
                whole.append(Label(label).value)
        nodes: dict[str, Node] = {}
        edges: dict[str, Any] = {}
        for row in self._read_clocked(cypher.reach(kinds, clock=True), cypher.reach(kinds),
                                      ids=wanted, fields=native, whole=whole, edge_props=edge_props)[0]["nodes"]:
            node = _light_node_from_row(row, native)
            nodes[node.id] = projected(node, fields) if row["props_json"] is not None else node
            for edge in row["incoming"]:
                edges[edge["rid"]] = edge
        return Reach(sorted(_edges_from_rows(list(edges.values()), props=edge_props), key=Edge.sort_key), nodes)

    def counts(self, *, set_id: str | None = None) -> dict[str, int]:
        """See :meth:`graph.store.GraphStore.counts`. Of a set: through the ``set_id`` index. Of the
        store: from the count store (:func:`graph.stores.cypher.count_from_count_store`, constant
        time; a scan of ``:CgNode`` took 0.14-0.3 s at M), unless another node of the database
        carries a model label, which only a scan tells apart."""
        out = {label.value: 0 for label in Label} | {kind.value: 0 for kind in EdgeKind}
        if set_id is None:
            rows = self._read(cypher.count_from_count_store())[0]["counts"]
            cg = next(r["count"] for r in rows if r["name"] == cypher.NODE_LABEL)
            if sum(r["count"] for r in rows if r["name"] in _LABELS) != cg:  # another node carries a model label
                rows = self._read(cypher.count_nodes_and_edges())
        else:
            rows = self._read(cypher.COUNT_SET, set_id=set_id)
        for row in rows:
            if row["name"] in out:
                out[row["name"]] += row["count"]
        out["nodes"] = sum(out[label.value] for label in Label)
        out["edges"] = sum(out[kind.value] for kind in EdgeKind)
        return out

    def set_tallies(self, set_ids: Collection[str]) -> dict[str, SetTally]:
        """See :meth:`graph.tallies.SupportsSetTallies.set_tallies`: one query for every set
        (:data:`graph.stores.cypher.SET_TALLIES`)."""
        wanted = _distinct(set_ids)
        if not wanted:
            return {}
        from graph.tallies import SetTally

        out = {}
        for row in self._read(cypher.SET_TALLIES, set_ids=wanted):
            labels = {label.value: 0 for label in Label}
            for name, count in row["labels"]:
                if name in labels:
                    labels[name] += count
            documents = sorted(row["documents"])
            out[row["sid"]] = SetTally(
                documents=tuple(d for d, _ in documents),
                unaccounted=sum(int(n or 0) for _, n in documents),
                labels=labels,
                record_citations=row["record_citations"] or 0,
                annotations=row["annotations"],
                source_files=tuple(path or "" for _, path in sorted(row["source_files"])),
            )
        return {s: out[s] for s in wanted}

    def search(self, phrases: Sequence[Phrase], *, set_id: str | None = None) -> list[Node]:
        """See :meth:`graph.store.GraphStore.search`: one query of the full-text index
        (:data:`graph.stores.cypher.SEARCH`), every hit then checked with :func:`graph.text.holds`."""
        phrases = list(phrases)
        if not phrases:
            return []
        out = []
        for row in self._read(cypher.SEARCH, lucene=cypher.search_query(phrases), set_id=set_id):
            native = {"kind": row["kind"], "text": row["text"], "line": row["line"], "order": row["ord"]}
            if any(v is None for v in native.values()):  # a field Neo4j could not hold natively
                stored = json.loads(row["props_json"] or "{}")
                native = {f: stored[f] for f in SEARCH_FIELDS if f in stored}
            if holds(native.get("text") or "", phrases):
                out.append(Node(row["id"], Label.STATEMENT, row["set_id"], row["document_id"], native))
        return sorted(out, key=lambda n: n.id)

    # -- contract: writes ------------------------------------------------------------------------

    def write_set(self, batch: SetBatch) -> WriteSummary:
        """See :meth:`graph.store.GraphStore.write_set`. One write transaction running the
        :class:`~graph.model.SetBatch` steps in order, each a batched ``UNWIND``."""
        nodes, edges = self._write(self._write_set_tx, batch, _now())
        return writes.write_summary(batch, nodes, edges)

    def delete_documents(self, ids: Iterable[str], *, expect: Mapping[str, str | None] | None = None,
                         sets: Collection[str] = ()) -> WriteSummary:
        """See :meth:`graph.store.GraphStore.delete_documents`. One write transaction."""
        deleted, nodes, edges = self._write(self._delete_documents_tx, list(ids), dict(expect or {}), sorted(sets),
                                            _now())
        return WriteSummary((), tuple(deleted), nodes, edges)

    def put_reviews(self, reviews: Collection[Node]) -> int:
        """See :meth:`graph.store.GraphStore.put_reviews`. One write transaction."""
        reviews = writes.checked_reviews(reviews)
        if not reviews:
            return 0
        self._write(self._put_reviews_tx, reviews)
        return len(reviews)

    # -- kept results of one set (queries.kept) --------------------------------------------------

    def set_stamps(self, set_ids: Collection[str]) -> dict[str, int]:
        """See :meth:`graph.store.KeepsSetResults.set_stamps`: the sets' ``:CgSetStamp`` nodes
        (:data:`graph.stores.cypher.STAMP_SETS`); a set no write of this code has touched has none."""
        wanted = _distinct(s for s in set_ids if s)
        if not wanted:
            return {}
        return dict(self._read(cypher.SET_STAMPS, set_ids=wanted)[0]["stamps"])

    def kept_results(self, name: str, stamps: Mapping[str, int]) -> dict[str, bytes]:
        """See :meth:`graph.store.KeepsSetResults.kept_results`."""
        if not stamps:
            return {}
        rows = self._read(cypher.KEPT_RESULTS, keys=[cypher.result_key(name, s) for s in sorted(stamps)])
        return {set_id: bytes(result) for set_id, stamp, result in rows[0]["results"] if stamps.get(set_id) == stamp}

    def keep_results(self, name: str, results: Mapping[str, tuple[int, bytes]]) -> int:
        """See :meth:`graph.store.KeepsSetResults.keep_results`: one write transaction that takes no
        write lock (a write that lands meanwhile gives its sets new stamps, so what is kept for them
        here is never read) and gives up after :data:`KEEP_RESULTS_TIMEOUT_S`; a server that
        refuses it (busy, read-only) keeps nothing."""
        rows = [{"key": cypher.result_key(name, s), "set_id": s, "stamp": stamp, "result": result}
                for s, (stamp, result) in sorted(results.items())]
        if not rows:
            return 0
        try:
            with self.driver.session(database=self.database, bookmark_manager=self.driver.execute_query_bookmark_manager
                                     ) as session, session.begin_transaction(timeout=KEEP_RESULTS_TIMEOUT_S) as tx:
                kept = tx.run(cypher.KEEP_RESULTS, {"rows": _Rows(rows), "name": name}).single(strict=True)["kept"]
                tx.commit()
        except (Neo4jError, DriverError) as exc:  # a result not kept costs only time
            log.debug("set results not kept in %s: %s", self.database, exc)
            return 0
        return int(kept)

    def close(self) -> None:
        """End the kept READ transactions and close the driver if this store opened it
        (:meth:`connect`). Safe to call twice."""
        _end_reads(self._kept, self._kept_lock)
        if not self._closed and self._owns_driver:
            self.driver.close()
        self._closed = True

    def clear(self) -> None:
        """Delete every citegraph node and relationship (and the write lock) from the database; other
        data is left alone. Not part of the store contract: for tests and for starting over."""
        with _translated(self.database), self.driver.session(database=self.database,
                                 bookmark_manager=self.driver.execute_query_bookmark_manager) as session:
            session.run(cypher.WIPE).consume()

    # -- write steps (each runs inside the one transaction of a write) ---------------------------

    def _write_set_tx(self, tx: ManagedTransaction, batch: SetBatch, created: str) -> tuple[int, int]:
        from graph import versions

        lock = _run(tx, cypher.LOCK_WRITES)[0]
        self._check_expected_step(tx, batch.expect)
        stored = {n.id: n for n in map(_node_from_row, _run(tx, cypher.EXISTING_KINDS,
                                                              ids=writes.kind_checked_ids(batch)))}
        writes.check_node_kinds(batch, stored)
        before, holds = self._set_states(tx, [batch.set_id])
        # a set holding no node holds no document and no derived edge: nothing to delete, and
        # (with no version kept) its version is what this write puts (graph.versions.encode_written)
        new_set = not holds[batch.set_id]
        replaced = writes.documents_replaced(batch)
        derived_owner = f"set:{batch.set_id}"
        if not new_set:  # a document not stored owns no node and no edge: only the stored ones are deleted
            self._delete_documents_step(tx, [d for d in replaced if d in stored], also_owners=[derived_owner])
        nodes = [n for d in batch.documents for n in (d.document, *d.nodes)]
        # every id written is among those EXISTING_KINDS asked for: one it did not find is created outright
        nodes_put = self._merge_nodes_step(tx, [*self._shared_merged(tx, batch.shared, stored), *nodes],
                                           maybe_stored=stored.keys())
        written = frozenset(n.id for n in (*batch.shared, *nodes))  # exist now: no need to ask
        edges_put = self._merge_edges_step(tx, [e for d in batch.documents for e in d.edges],
                                           cleared=frozenset(replaced), written=written)
        edges_put += self._replace_derived_step(tx, derived_owner, batch.derived, written=written)
        collected = self._collect_orphans_step(tx, [batch.set_id], put=(nodes_put, edges_put) if new_set else None)
        after = {}
        if new_set and not collected and batch.set_id in before and not before[batch.set_id][0]:
            encoded = versions.encode_written(batch.set_id, nodes_put, edges_put)
            if encoded is not None:
                after[batch.set_id] = encoded
        self._keep_versions_step(tx, before, created, after)
        _stamp_step(tx, lock, {batch.set_id, *(n.set_id for n in (*batch.shared, *nodes)),
                               *(e.set_id for d in batch.documents for e in d.edges), *(e.set_id for e in batch.derived)})
        return self._totals(tx)

    def _delete_documents_tx(self, tx: ManagedTransaction, ids: list[str], expect: Mapping[str, str | None],
                             sets: list[str], created: str) -> tuple[list[str], int, int]:
        lock = _run(tx, cypher.LOCK_WRITES)[0]
        self._check_expected_step(tx, expect)
        if sets:
            ids = [*ids, *(row["id"] for row in _run(tx, cypher.SET_DOCUMENTS, sets=sets))]
        existing = {n.id: n for n in map(_node_from_row, _run(tx, cypher.EXISTING_NODES, ids=_distinct(ids)))}
        deleted = writes.documents_deleted(ids, existing)
        sets = sorted({s for d in deleted if (s := existing[d].set_id) is not None})
        before = self._versions_before(tx, sets)
        self._delete_documents_step(tx, deleted)
        self._collect_orphans_step(tx, sets)
        self._keep_versions_step(tx, before, created)
        _stamp_step(tx, lock, sets)
        return (deleted, *self._totals(tx))

    def _put_reviews_tx(self, tx: ManagedTransaction, reviews: list[Node]) -> None:
        lock = _run(tx, cypher.LOCK_WRITES)[0]
        self._merge_nodes_step(tx, reviews)
        _stamp_step(tx, lock, {n.set_id for n in reviews})

    def _check_expected_step(self, tx: ManagedTransaction, expect: Mapping[str, str | None]) -> None:
        """SetBatch step 0: each document id must be at the expected SHA-256 (None: absent). Runs
        under the write lock, so check and write are one compare-and-swap.

        Raises
        ------
        PreconditionFailed
            A document is at another version (the transaction rolls back).
        """
        if not expect:
            return
        stored = {n.id: n for n in map(_node_from_row, _run(tx, cypher.EXISTING_NODES, ids=list(expect)))}
        writes.check_expected(expect, {i: n.props.get("sha256") for i, n in stored.items()})

    def _delete_documents_step(self, tx: ManagedTransaction, document_ids: list[str], *,
                               also_owners: Collection[str] = ()) -> None:
        """SetBatch step 1: each document's nodes (with every relationship touching them), then the
        relationships it owns between nodes that stay (SUPERSEDED_BY, PART_OF between records), and
        every relationship owned by one of ``also_owners`` (a set's derived edges, ``set:<id>``,
        replaced by step 4): one statement for the owned relationships of all of them."""
        if document_ids:
            _run(tx, cypher.DELETE_DOCUMENT_NODES, document_ids=document_ids)
        if owners := [*document_ids, *also_owners]:
            _run(tx, cypher.delete_owned_edges(), owners=owners)

    def _shared_merged(self, tx: ManagedTransaction, shared: Iterable[Node], stored: Mapping[str, Node]) -> list[Node]:
        """SetBatch step 2: shared nodes, merged onto the stored ones (non-null props overwrite,
        null ones never erase), to be written by :meth:`_merge_nodes_step`. ``stored`` holds every
        id of ``shared`` that names a node now (props not needed): only those are read whole."""
        shared = list(shared)
        ids = _distinct(n.id for n in shared)
        asked = [i for i in ids if i in stored]
        current = {n.id: n for n in map(_node_from_row, _run(tx, cypher.EXISTING_NODES, ids=asked))} if asked else {}
        for node in shared:
            current[node.id] = writes.merged_shared(current.get(node.id), node)
        return [current[i] for i in ids]

    def _merge_nodes_step(self, tx: ManagedTransaction, nodes: list[Node], *,
                          maybe_stored: Collection[str] | None = None) -> list[tuple[Node, str]]:
        """Create or wholly replace nodes (the last of equal ids wins), every label in one statement
        per :data:`BATCH_ROWS` rows; each node written with its ``props_json``, in order.

        ``maybe_stored``, when given, holds the only ids among ``nodes`` that may name a stored
        node (read in this transaction): every other node is created outright
        (:data:`graph.stores.cypher.CREATE_NODES`), without the lookup and label removal of
        :data:`graph.stores.cypher.MERGE_NODES`."""
        put: list[tuple[Node, str]] = []
        merged: list[dict[str, Any]] = []
        fresh: list[tuple[str, dict[str, Any]]] = []
        for node in writes.last_of(nodes):
            properties = _node_properties(node)
            put.append((node, properties["props_json"]))
            if maybe_stored is not None and node.id not in maybe_stored:
                fresh.append((node.label.value, properties))
            else:
                merged.append({"id": node.id, "label": node.label.value, "properties": properties})
        for chunk in _chunks(merged):
            _run(tx, cypher.MERGE_NODES, rows=chunk)
        for by_label in _grouped_chunks(fresh, [label.value for label in Label]):
            _run(tx, cypher.CREATE_NODES, rows=by_label)
        return put

    def _merge_edges_step(self, tx: ManagedTransaction, edges: list[Edge], *, cleared: frozenset[str],
                          written: frozenset[str] = frozenset()) -> list[tuple[Edge, str]]:
        """Create or replace edges (the last of equal identities wins), every kind in one statement
        per :data:`BATCH_ROWS` rows; each edge written with its ``props_json``, in order.

        ``cleared`` names owners whose every edge this transaction has deleted already (the
        documents replaced, or ``set:<id>`` before its derived edges): no stored edge has the
        identity of one of theirs, so those edges are created outright. Any other edge may have a
        stored twin (:func:`graph.writes.edge_identity`): the stored edges of its node pair and
        owner are looked up, once per pair (:meth:`_stored_edges`); a twin found has its properties
        replaced, the other edges are created. ``written`` names nodes this transaction has just
        written: an edge end among them exists, so only the other ends are looked up (at M the
        lookup of every end was 2.1 s of the ingest's 32 s).

        Raises
        ------
        CitegraphError
            An edge names a node that is not in the store (the transaction rolls back).

        Notes
        -----
        Linear in the edges written, however many of them join one pair of nodes (a statement
        citing one record 4,000 times). A ``MERGE`` per edge on ``(a)-[r {owner, seq}]->(b)``, as
        written before, made Neo4j expand every relationship already between ``a`` and ``b`` for
        each row (``Expand(Into)``, then a filter on ``owner`` and ``seq``): k such edges cost
        k²/2 relationship reads (4,000: 113 s).
        """
        if not edges:
            return []
        ends = _distinct(i for e in edges for i in (e.src, e.dst))
        asked = [i for i in ends if i not in written]
        known = written.intersection(ends) | (
            {row["id"] for row in _run(tx, cypher.EXISTING_IDS, ids=asked)} if asked else set())
        writes.check_edge_ends(edges, known)
        final = writes.last_of(edges)
        by_kind: dict[EdgeKind, list[Edge]] = {}
        for edge in final:
            if writes.edge_owner(edge) not in cleared:
                by_kind.setdefault(edge.kind, []).append(edge)
        stored: dict[tuple[Any, ...], str] = {}
        for kind, kind_edges in by_kind.items():
            stored.update(self._stored_edges(tx, kind, kind_edges))
        replaced: list[dict[str, Any]] = []
        created: list[tuple[str, dict[str, Any]]] = []
        put: list[tuple[Edge, str]] = []
        for edge in final:
            rid = stored.get(writes.edge_identity(edge))  # never one of a cleared owner's
            properties = _edge_properties(edge)
            put.append((edge, properties["props_json"]))
            if rid is None:
                created.append((edge.kind.value, {"src": edge.src, "dst": edge.dst, "properties": properties}))
            else:
                replaced.append({"rid": rid, "properties": properties})
        for chunk in _chunks(replaced):
            _run(tx, cypher.REPLACE_EDGES, rows=chunk)
        for typed in _grouped_chunks(created, [kind.value for kind in EdgeKind]):
            _run(tx, cypher.CREATE_EDGES, rows=typed)
        return put

    @staticmethod
    def _stored_edges(tx: ManagedTransaction, kind: EdgeKind, edges: list[Edge]) -> dict[tuple[Any, ...], str]:
        """Element id of each stored ``kind`` relationship with the identity of one of ``edges``,
        keyed by :func:`graph.writes.edge_identity`, read with one expansion per node pair."""
        owners: dict[tuple[str, str], set[str]] = {}
        for edge in edges:
            owners.setdefault((edge.src, edge.dst), set()).add(writes.edge_owner(edge))
        pairs = [{"src": src, "dst": dst, "owners": sorted(o)} for (src, dst), o in owners.items()]
        found: dict[tuple[Any, ...], str] = {}
        for chunk in _chunks(pairs):
            for row in _run(tx, cypher.stored_edges(kind), pairs=chunk):
                found[(row["src"], str(kind), row["dst"], row["owner"], row["seq"])] = row["rid"]
        return found

    def _replace_derived_step(self, tx: ManagedTransaction, owner: str, derived: Iterable[Edge], *,
                              written: frozenset[str] = frozenset()) -> list[tuple[Edge, str]]:
        """SetBatch step 4: the set's derived edges (``owner``: ``set:<id>``), whose stored ones
        step 1 deleted (or none was stored), written anew (``written``: as for :meth:`_merge_edges_step`)."""
        return self._merge_edges_step(tx, list(derived), cleared=frozenset({owner}), written=written)

    def _collect_orphans_step(self, tx: ManagedTransaction, set_ids: list[str], *,
                              put: tuple[list[tuple[Node, str]], list[tuple[Edge, str]]] | None = None) -> list[str]:
        """SetBatch step 5, set by set: what :func:`graph.writes.collected` decides, deleted; the ids
        deleted. ``put``: the nodes and edges this write put into a store that held no node of
        its one set, which decide the orphans without asking the server when they can
        (:func:`graph.writes.orphans_of_new_set`)."""
        remains = _SetRemains(tx)
        deleted: list[str] = []
        for set_id in set_ids:
            decided = writes.orphans_of_new_set(set_id, *put) if put is not None else None
            gone = decided if decided is not None else [i for stage in writes.collected(set_id, remains) for i in stage]
            if gone:
                _run(tx, cypher.DETACH_DELETE, ids=gone)
                deleted += gone
        return deleted

    # -- versions (graph.versions) --------------------------------------------------------------

    def set_versions(self, set_id: str) -> list[SetVersion]:
        """See :meth:`graph.store.KeepsVersions.set_versions`."""
        from graph.versions import SetVersion

        return [SetVersion.from_stored(set_id, r["number"], r["created"], r["digest"], r["summary"])
                for r in self._read(cypher.VERSION_SUMMARIES, set_id=set_id)]

    def part_changes(self, set_ids: Collection[str] | None = None) -> dict[str, tuple[PartChange, ...]]:
        """See :meth:`graph.store.KeepsVersions.part_changes`."""
        from graph import versions

        rows = self._read(cypher.LATEST_SUMMARIES, set_ids=None if set_ids is None else sorted(set_ids))
        return {r["set_id"]: found for r in rows if (found := versions.changed_in(r["summary"]))}

    def set_version(self, set_id: str, number: int) -> SetBatch | None:
        """See :meth:`graph.store.KeepsVersions.set_version`."""
        from graph import versions

        rows = self._read(cypher.VERSION_BLOB, set_id=set_id, number=int(number))
        return versions.decode(rows[0]["blob"]) if rows else None

    def replace_versions(self, set_id: str, kept: Collection[tuple[SetVersion, bytes]], *,
                         changed: Sequence[PartChange] = ()) -> int:
        """See :meth:`graph.store.KeepsVersions.replace_versions`. One write transaction."""
        from graph import versions

        rows = versions.checked_versions(set_id, kept)
        return self._write(self._replace_versions_tx, set_id, rows, list(changed))

    def _replace_versions_tx(self, tx: ManagedTransaction, set_id: str, rows: list[tuple[SetVersion, bytes]],
                             changed: list[PartChange]) -> int:
        _stamp_step(tx, _run(tx, cypher.LOCK_WRITES)[0], ())  # versions are no rows of the set
        if not _run(tx, cypher.SET_EXISTS, set_id=set_id)[0]["n"]:
            raise CitegraphError(f"no analysis set {set_id!r} to give versions to")
        _run(tx, cypher.DROP_ALL_VERSIONS, set_id=set_id)
        if rows:
            _run(tx, cypher.ADD_VERSIONS, rows=[
                {"set_id": set_id, "number": v.number, "created": v.created, "digest": v.digest,
                 "summary": v.summary_json(changed if v is rows[-1][0] else ()), "blob": blob} for v, blob in rows])
        return len(rows)

    def _versions_before(self, tx: ManagedTransaction, set_ids: Iterable[str]
                         ) -> dict[str, tuple[list[tuple[int, str]], versions.Encoded | None]]:
        """Per set about to be written: its stored ``(number, digest)`` and, when a baseline is
        needed (:func:`graph.versions.baseline_needed`), its state before the write."""
        return dict(self._set_states(tx, set_ids)[0])

    def _set_states(self, tx: ManagedTransaction, set_ids: Iterable[str]
                    ) -> tuple[dict[str, tuple[list[tuple[int, str]], versions.Encoded | None]], dict[str, bool]]:
        """:meth:`_versions_before` (empty when no version is kept) and, per set, whether the store
        holds any node of it: one statement per set (:data:`graph.stores.cypher.SET_STATE`)."""
        from graph import versions

        before: dict[str, tuple[list[tuple[int, str]], versions.Encoded | None]] = {}
        holds: dict[str, bool] = {}
        for set_id in set_ids:
            (row,) = _run(tx, cypher.SET_STATE, set_id=set_id)
            holds[set_id] = row["holds"]
            if self.versions_kept:
                stored = sorted((number, digest) for number, digest in row["stored"])
                baseline = _snapshot(tx, set_id) if versions.baseline_needed(row["existed"], stored) else None
                before[set_id] = (stored, baseline)
        return before, holds

    def _keep_versions_step(self, tx: ManagedTransaction,
                            before: Mapping[str, tuple[list[tuple[int, str]], versions.Encoded | None]],
                            created: str, after: Mapping[str, versions.Encoded] | None = None) -> None:
        """After a write's steps: each written set's new version, if it changed, and retention
        (:func:`graph.versions.changes`). The set as it now stands is ``after[set_id]`` when
        given (encoded from what the write put), else read back (:func:`_snapshot`)."""
        from graph import versions

        after = after or {}
        for set_id, (stored, baseline) in before.items():
            def previous(set_id: str = set_id) -> tuple[bytes, str] | None:
                rows = _run(tx, cypher.LATEST_VERSION, set_id=set_id)
                return (bytes(rows[0]["blob"]), rows[0]["summary"]) if rows else None

            now = after[set_id] if set_id in after else _snapshot(tx, set_id)
            add, drop = versions.changes(now, stored, kept=self.versions_kept, created=created,
                                         baseline=baseline, previous=previous)
            if drop is None:
                _run(tx, cypher.DROP_ALL_VERSIONS, set_id=set_id)
                continue
            if drop:
                _run(tx, cypher.DROP_VERSIONS, set_id=set_id, numbers=list(drop))
            if add:
                _run(tx, cypher.ADD_VERSIONS, rows=[
                    {"set_id": set_id, "number": v.number, "created": v.created, "digest": v.digest,
                     "summary": summary, "blob": blob} for v, blob, summary in add])

    @staticmethod
    def _totals(tx: ManagedTransaction) -> tuple[int, int]:
        row = _run(tx, cypher.TOTALS)[0]
        return row["nodes"], row["edges"]


def _stamp_step(tx: ManagedTransaction, lock: Record, set_ids: Iterable[str | None]) -> None:
    """The last step of a write: the sets whose rows it touched take its number as their stamp
    (:class:`~graph.store.KeepsSetResults`), and lose their kept results; every set does when
    ``lock`` (:data:`graph.stores.cypher.LOCK_WRITES`' row) says that a write before this one kept
    no stamps."""
    if not lock["unbroken"]:
        _run(tx, cypher.STAMP_EVERY_SET, stamp=lock["stamp"])
    elif touched := sorted({s for s in set_ids if s}):
        _run(tx, cypher.STAMP_SETS, set_ids=touched, stamp=lock["stamp"])


def _pipelined_begin(session: Any) -> Any:
    """A context in which ``session.begin_transaction()`` queues ``BEGIN`` to be sent with the
    transaction's first statement instead of waiting for its answer: the driver's own switch for
    ``Driver.execute_query`` (``Session._pipelined_begin``, in the 5.x and 6.x drivers), or no
    change where a driver lacks it."""
    switch = getattr(session, "_pipelined_begin", None)
    return switch if switch is not None and hasattr(switch, "__enter__") else nullcontext()


class _Snapshot(Neo4jStore):
    """A read-only view of a :class:`Neo4jStore` whose reads run in one open transaction (see
    :meth:`Neo4jStore.snapshot`), one at a time from any thread. Writes raise."""

    def __init__(self, store: Neo4jStore, tx: Transaction):
        super().__init__(store.driver, database=store.database)
        self._tx = tx
        self._use = threading.RLock()
        self._ended = False
        self._clock_after: tuple[int, int] | None = None  # the clock as read after the last read

    @classmethod
    @contextmanager
    def over(cls, store: Neo4jStore, tx: Transaction) -> Iterator[_Snapshot]:
        """The view reading in ``tx`` for the block. On leaving, a read under way on another thread
        ends first and later reads raise ``CitegraphError``: ``tx`` is rolled back next, and a
        statement sent on its connection meanwhile would interleave with the rollback."""
        view = cls(store, tx)
        try:
            yield view
        finally:
            with view._use:
                view._ended = True

    def _read(self, query: str, **params: Any) -> list[Any]:
        with self._use, _translated(self.database):
            if self._ended:
                raise CitegraphError("a read of a Neo4j snapshot after it ended")
            self._clock_after = None
            return list(self._tx.run(query, params))

    def _read_clocked(self, clocked: str, plain: str, **params: Any) -> list[Any]:
        with self._use:
            rows = self._read(clocked, **params)
            self._clock_after = (rows[0]["begun"], rows[0]["writing"])
            return rows

    def clock_after_reads(self) -> tuple[int, int] | None:
        """``(begun, writing)`` of the write clock as read after every read of the view so far (the
        last read carried it, :meth:`_read_clocked`), or None: then it is to be read."""
        with self._use:
            return self._clock_after

    def _write(self, work: Callable[..., _Done], *args: Any) -> _Done:
        raise CitegraphError("a snapshot of the Neo4j store is read-only")

    @contextmanager
    def snapshot(self) -> Iterator[Neo4jStore]:
        yield self

    def clear(self) -> None:
        raise CitegraphError("a snapshot of the Neo4j store is read-only")


def _end_reads(kept: list[_KeptRead], lock: threading.Lock) -> None:
    """End the READ transactions a store keeps (``kept``, emptied under ``lock``)."""
    with lock:
        reads = kept[:]
        kept.clear()
    for read in reads:
        read.end()


class _KeptRead:
    """A snapshot's transaction in its own session (:meth:`Neo4jStore._begin`); in READ mode, kept
    for optimistic snapshots one after the other (see :meth:`Neo4jStore.snapshot`), with what its
    last snapshot learnt."""

    __slots__ = ("began", "bookmarks", "clock", "session", "spoiled", "tx")

    def __init__(self, session: Any, tx: Transaction, began: float, bookmarks: frozenset[str]):
        self.session, self.tx, self.began, self.bookmarks = session, tx, began, bookmarks
        self.clock: int | None = None
        """Writes begun (:data:`graph.stores.cypher.WRITE_CLOCK`) at the last clock read, when
        none was under way then: where the next snapshot in this transaction starts from."""
        self.spoiled = False
        """A statement failed: the transaction cannot read again."""

    def read_clock(self, view: _Snapshot, *, any_writing: bool = False) -> int | None:
        """How many writes have begun, read in ``view``; None when a write is under way, unless
        ``any_writing``. Remembered as :attr:`clock` when none is under way. The view's last
        read may have read it already (:meth:`_Snapshot.clock_after_reads`): then no statement."""
        after = view.clock_after_reads()
        if after is None:
            row = view._read(cypher.WRITE_CLOCK)[0]
            after = (row["begun"], row["writing"])
        begun, writing = after
        self.clock = begun if writing == 0 else None
        return begun if any_writing or writing == 0 else None

    def end(self) -> None:
        """Roll the transaction back and close its session; a connection already gone is no error."""
        try:
            with suppress(Neo4jError, DriverError):
                if not self.tx.closed():
                    self.tx.rollback()
        finally:
            with suppress(Neo4jError, DriverError):
                self.session.close()


class _ReadSlots:
    """The read slots (:data:`graph.stores.cypher.READ_SLOTS`) this process's open snapshots hold:
    each takes one of the least held at random, so while fewer than that many are open, two
    snapshots of the process never wait for each other (nor one opened inside another for the outer
    one); beyond, slots are shared."""

    def __init__(self, count: int):
        self._holders = [0] * count  # open snapshots per slot
        self._lock = threading.Lock()

    def take(self) -> int:
        with self._lock:
            fewest = min(self._holders)
            slot = random.choice([k for k, held in enumerate(self._holders) if held == fewest])
            self._holders[slot] += 1
            return slot

    def give(self, slot: int) -> None:
        with self._lock:
            self._holders[slot] -= 1


_READ_SLOTS = _ReadSlots(cypher.READ_SLOTS)


# -- encoding -------------------------------------------------------------------------------------


def _now() -> str:
    """The time of a write, as its versions record it (UTC ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _snapshot(tx: ManagedTransaction, set_id: str) -> versions.Encoded | None:
    """Set ``set_id`` as it stands in ``tx``, encoded (:func:`graph.versions.encode_rows`) from its
    properties' JSON text as stored, read in one record (:data:`graph.stores.cypher.SET_SNAPSHOT`)."""
    from graph import versions

    (row,) = _run(tx, cypher.SET_SNAPSHOT, set_id=set_id)
    nodes = [(i, next(_LABELS[name] for name in labels if name in _LABELS).value, s, d, p or "{}")
             for i, labels, s, d, p in row["nodes"]]
    if not any(n[0] == set_id for n in nodes):
        return None
    edges = [(k, a, b, q, d, s, p or "{}") for k, a, b, q, d, s, p in row["edges"]]
    return versions.encode_rows(set_id, nodes, edges)


class _SetRemains:
    """:class:`graph.writes.SetRemains` read in a write transaction."""

    def __init__(self, tx: ManagedTransaction):
        self.tx = tx

    def unreferenced(self, set_id: str) -> list[str]:
        return [r["id"] for r in _run(self.tx, cypher.UNREFERENCED, set_id=set_id)]

    def holds_documents(self, set_id: str) -> bool | None:
        rows = _run(self.tx, cypher.HOLDS_DOCUMENTS, id=set_id)
        return bool(rows[0]["holds"]) if rows else None

    def pointing_at(self, node_id: str) -> dict[str, list[str]]:
        return {r["id"]: list(r["targets"]) for r in _run(self.tx, cypher.POINTING_AT, id=node_id)}


def _run(tx: ManagedTransaction, /, query: str, **params: Any) -> list[Any]:
    """Run one statement in ``tx`` and consume its records (managed transactions may be retried).
    Its list parameters, and those of its map parameters, go as :class:`_Rows`."""
    return list(tx.run(query, {key: _quiet(value) for key, value in params.items()}))


class _Rows(list[Any]):
    """A statement's list parameter whose ``repr`` is its length, packed as the list it is.

    The driver formats every ``RUN``'s parameters for its debug log before it knows whether that
    log is on (``" ".join(map(repr, fields))`` in ``Bolt5x0.run``, driver 6.4): the ``repr`` of
    every row an ingest writes, about a fifth of the writing process's CPU at M (bench/README.md,
    "Ingest into Neo4j from the written rows")."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def _quiet(value: Any) -> Any:
    """``value`` with its lists, and the lists of a map, as :class:`_Rows` (the same items)."""
    if isinstance(value, list):
        return _Rows(value)
    if isinstance(value, dict) and any(isinstance(v, list) for v in value.values()):
        return {key: _Rows(v) if isinstance(v, list) else v for key, v in value.items()}
    return value


def _chunks(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in slices of :data:`BATCH_ROWS` (all inside the one transaction of the write)."""
    for start in range(0, len(rows), BATCH_ROWS):
        yield rows[start:start + BATCH_ROWS]


def _grouped_chunks(rows: list[tuple[str, dict[str, Any]]], groups: list[str]
                    ) -> Iterator[dict[str, list[dict[str, Any]]]]:
    """``rows`` (each a group's name and a row) in slices of :data:`BATCH_ROWS`, each slice as a map
    of every one of ``groups`` to its rows in order; a group with none maps to ``[]``, since a
    statement with a subquery per group (``CREATE_NODES``, ``CREATE_EDGES``) reads every key."""
    for start in range(0, len(rows), BATCH_ROWS):
        grouped: dict[str, list[dict[str, Any]]] = {group: [] for group in groups}
        for group, row in rows[start:start + BATCH_ROWS]:
            grouped[group].append(row)
        yield grouped


def _distinct(ids: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _native(value: Any) -> bool:
    """Whether Neo4j holds ``value`` as a property that compares as Python does."""
    if isinstance(value, (str, bool, float)):
        return True
    if isinstance(value, int):
        return _INT64[0] <= value <= _INT64[1]
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, str) for v in value)


def _props_json(props: Mapping[str, Any], what: str) -> str:
    try:
        return json.dumps(dict(props), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise CitegraphError(f"{what} has a property that is not JSON: {exc}") from exc


def _with_natives(base: dict[str, Any], props: Mapping[str, Any], reserved: frozenset[str]) -> dict[str, Any]:
    for key, value in props.items():
        if key not in reserved and cypher.PROPERTY_KEY.fullmatch(key) and _native(value):
            base[key] = list(value) if isinstance(value, tuple) else value
    return base


def _node_properties(node: Node) -> dict[str, Any]:
    """The Neo4j property map of ``node`` (see :mod:`graph.stores.cypher` for the layout)."""
    base: dict[str, Any] = {"id": node.id, "props_json": _props_json(node.props, f"node {node.id}")}
    if node.set_id is not None:
        base["set_id"] = node.set_id
    if node.document_id is not None:
        base["document_id"] = node.document_id
    if node.label == Label.STATEMENT:
        base[cypher.SEARCH_WORDS] = " ".join(words(str(node.props.get("text") or "")))
    return _with_natives(base, node.props, cypher.RESERVED_NODE_KEYS)


def _edge_properties(edge: Edge) -> dict[str, Any]:
    """The Neo4j property map of ``edge``."""
    base: dict[str, Any] = {"owner": writes.edge_owner(edge), "seq": edge.seq,
                            "props_json": _props_json(edge.props, f"edge {edge.kind} {edge.src} -> {edge.dst}")}
    if edge.set_id is not None:
        base["set_id"] = edge.set_id
    if edge.document_id is not None:
        base["document_id"] = edge.document_id
    return _with_natives(base, edge.props, cypher.RESERVED_EDGE_KEYS)


def _node_from_row(row: Mapping[str, Any]) -> Node:
    label = next(_LABELS[name] for name in row["labels"] if name in _LABELS)
    return Node(row["id"], label, row["set_id"], row["document_id"], json.loads(row["props_json"] or "{}"))


def _light_node_from_row(row: Mapping[str, Any], native: Mapping[str, list[str]]) -> Node:
    """A node map of the :func:`cypher.reach` row as a node: props from ``props_json`` when the row carries it (to
    be projected), else the native ``values`` of the label's keys (none of them null)."""
    label = next(_LABELS[name] for name in row["labels"] if name in _LABELS)
    if row["props_json"] is not None:
        props = json.loads(row["props_json"])
    else:
        props = dict(zip(native.get(label.value, ()), row["values"]))
    return Node(row["id"], label, row["set_id"], row["document_id"], props)


def _edges_from_rows(rows: Sequence[Mapping[str, Any]], *, props: bool = True) -> list[Edge]:
    """The edge of each of ``rows`` (``src``, ``kind``, ``dst``, ``seq``, ``document_id``, ``set_id``,
    ``props_json``), their ``props_json`` texts decoded by one ``json.loads`` of them joined as a
    JSON array: the same dicts, at less than half the cost of a call per edge (200 props of a
    rests-on reach at M: 2.0 against 4.4 ms at load 9). Without ``props``, every edge has empty
    props and nothing is decoded (:func:`graph.store.bare_edges`: a reach asked without edge props)."""
    if not props:
        return [Edge(EdgeKind(row["kind"]), row["src"], row["dst"], row["seq"], row["document_id"], row["set_id"])
                for row in rows]
    decoded = json.loads("[" + ",".join([row["props_json"] or "{}" for row in rows]) + "]")
    return [Edge(EdgeKind(row["kind"]), row["src"], row["dst"], row["seq"], row["document_id"], row["set_id"], p)
            for row, p in zip(rows, decoded, strict=True)]


# -- error translation ----------------------------------------------------------------------------


@contextmanager
def _translated(where: str) -> Iterator[None]:
    """Turn driver errors into citegraph errors; citegraph errors and bugs pass through."""
    try:
        yield
    except CitegraphError:
        raise
    except IncompleteCommit as exc:
        raise StoreUnavailable(f"Neo4j ({where}) lost the connection while committing: {exc}",
                               hint="the write may or may not have been applied; write the set again") from exc
    except (ServiceUnavailable, SessionExpired) as exc:
        raise StoreUnavailable(f"Neo4j ({where}) is unreachable: {exc}",
                               hint="check CITEGRAPH_NEO4J_URI and that the server is running") from exc
    except AuthError as exc:
        raise StoreUnavailable(f"Neo4j ({where}) refused the credentials: {exc.message}",
                               hint="check CITEGRAPH_NEO4J_USER and CITEGRAPH_NEO4J_PASSWORD") from exc
    except TransientError as exc:
        raise StoreUnavailable(f"Neo4j ({where}) could not serve the request after retries: {exc.message}",
                               hint="retry later") from exc
    except ConstraintError as exc:
        raise DuplicateDeclaration(f"Neo4j refused a duplicate: {exc.message}",
                                   hint="two writes declared the same node id; write the set again") from exc
    except Neo4jError as exc:
        if exc.code in ("Neo.ClientError.Database.DatabaseNotFound", "Neo.ClientError.Database.DatabaseUnavailable"):
            raise StoreUnavailable(f"Neo4j has no usable database {where!r}: {exc.message}",
                                   hint="check CITEGRAPH_NEO4J_DATABASE") from exc
        raise
    except DriverError as exc:
        if isinstance(exc, ConfigurationError):
            raise StoreUnavailable(f"Neo4j driver configuration ({where}): {exc}") from exc
        raise StoreUnavailable(f"Neo4j ({where}): {exc}", hint="retry later") from exc
