"""At the store: :func:`graph.store.read_snapshot` gives a request one committed
state on both stores (the contract), by a true snapshot on SQLite and on Neo4j by an optimistic
read in a READ session checked against the write clock, or by holding commits off while writes
are under way (each store's own named tests)."""

from __future__ import annotations

import threading
import time

import pytest
from neo4j.exceptions import Neo4jError

from graph.errors import CitegraphError
from graph.model import DEPENDENCY_KINDS, EdgeKind, Label
from graph.store import GraphStore, SupportsSnapshot, read_snapshot
from graph.stores import cypher
from graph.stores.neo4j import HOLD_AFTER_MOVE_S, Neo4jStore
from tests.conftest import SEEDS, ingest_into
from tests.reliability.helpers import synthesis_of


def run_to_the_end(threads: list[threading.Thread], timeout: float = 120) -> None:
    """Start ``threads`` together and wait for each (at most ``timeout`` seconds); all must end."""
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads)


def _delete_tolaria(store) -> None:
    """Delete the Tolaria set from another thread (another connection or session), and wait for it."""
    thread = threading.Thread(target=lambda: store.delete_documents((), sets=["tolaria"]))
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()


def test_read_snapshot_gives_one_state_when_a_write_runs_between_two_reads(store: GraphStore):
    """A set deleted from another thread between the two reads of a request. SQLite commits it
    meanwhile and the request's snapshot does not see it: the store before the delete. Neo4j's
    optimistic snapshot lets the write commit, finds at its end that a write began, and the request
    is read again on a held snapshot: the store after the delete. Either way one state."""
    ingest_into(store, SEEDS)
    assert isinstance(store, SupportsSnapshot)
    writer = threading.Thread(target=lambda: store.delete_documents((), sets=["tolaria"]))

    def two_reads(view):
        sets = [n.id for n in view.find_nodes(Label.ANALYSIS_SET)]
        if writer.ident is None:  # the first attempt only
            writer.start()
            writer.join(timeout=10.0)
        documents = [n.id for n in view.find_nodes(Label.DOCUMENT)]
        return sets, documents

    before = (["talorys", "tolaria"], ["talorys/synthesis", "tolaria/synthesis", "tolaria/workflow-report"])
    after = (["talorys"], ["talorys/synthesis"])
    assert read_snapshot(store, two_reads) == (after if isinstance(store, Neo4jStore) else before)
    writer.join(timeout=60)
    assert not writer.is_alive()
    assert [n.id for n in store.find_nodes(Label.ANALYSIS_SET)] == ["talorys"]
    if isinstance(store, Neo4jStore):
        assert store.snapshot_counts == {"moved": 1, "held": 1}


def test_a_snapshot_refuses_writes(store):
    ingest_into(store, SEEDS)
    with store.snapshot() as view:
        with pytest.raises(CitegraphError, match="read-only"):
            view.delete_documents(["tolaria/synthesis"])
        assert view.counts()["Document"] == 3
    assert store.counts()["Document"] == 3


def test_an_embedded_snapshot_keeps_its_state_while_others_write(tmp_path):
    from graph.stores import open_embedded

    store = open_embedded(tmp_path / "home")
    ingest_into(store, SEEDS)
    with store.snapshot() as view:
        assert view.counts()["Document"] == 3
        _delete_tolaria(store)  # not held off: SQLite readers never block writers
        assert store.counts()["Document"] == 1
        assert view.counts()["Document"] == 3 and len(view.closure(["tolaria/RT-RTE-mcp-write"], kinds=[EdgeKind.CITES])) == 11
        assert [n.id for n in view.find_nodes(Label.ANALYSIS_SET)] == ["talorys", "tolaria"]
    with store.snapshot() as later:
        assert later.counts()["Document"] == 1
    store.close()


def _mark_a_write(store: Neo4jStore, token: str, *, age_ms: int = 0) -> None:
    """The mark a writer leaves before its write (:data:`cypher.BEGIN_WRITE`), ``age_ms`` old."""
    store.driver.execute_query(cypher.BEGIN_WRITE, {"token": token, "lease_ms": cypher.WRITE_MARK_LEASE_MS},
                               database_=store.database)
    store.driver.execute_query(f"MATCH (w:{cypher.LOCK_LABEL} {{name: 'writing-' + $token}}) SET w.since = w.since - $age",
                               {"token": token, "age": age_ms}, database_=store.database)


def _marks(store: Neo4jStore) -> list[str]:
    return sorted(r["name"] for r in store.driver.execute_query(
        f"MATCH (w:{cypher.LOCK_LABEL}) WHERE w.name STARTS WITH 'writing-' RETURN w.name AS name",
        database_=store.database).records)


@pytest.mark.neo4j
def test_a_neo4j_snapshot_reads_optimistically_in_a_read_session_while_no_write_is_under_way(neo4j_store: Neo4jStore):
    ingest_into(neo4j_store, SEEDS)
    assert _marks(neo4j_store) == []  # each write removed its mark
    with neo4j_store.snapshot() as view:
        assert view.counts()["Document"] == 3
    assert neo4j_store.snapshot_counts == {"read": 1}
    assert read_snapshot(neo4j_store, lambda view: len(view.find_nodes(Label.DOCUMENT, set_id="tolaria"))) == 2
    assert neo4j_store.snapshot_counts == {"read": 2}
    with pytest.raises(Neo4jError, match="read access mode"), neo4j_store.snapshot() as view:  # a READ session
        tx = view._tx  # type: ignore[attr-defined]  # the snapshot's own READ transaction, private: probed on purpose
        tx.run(f"CREATE (:{cypher.LOCK_LABEL} {{name: 'probe'}})").consume()
    assert neo4j_store.snapshot_counts == {"read": 2}  # the block's own error stands, uncounted


@pytest.mark.neo4j
def test_a_neo4j_snapshot_holds_a_commit_off_while_a_write_is_under_way(neo4j_store: Neo4jStore):
    """A write under way at the snapshot's start (here: its mark, as a writer leaves it before its
    transaction): the snapshot is held, and another write's commit waits for it to end."""
    ingest_into(neo4j_store, SEEDS)
    _mark_a_write(neo4j_store, "elsewhere")
    writer = threading.Thread(target=lambda: neo4j_store.delete_documents((), sets=["tolaria"]))
    with neo4j_store.snapshot() as view:
        assert view.counts()["Document"] == 3
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive()  # its commit waits for the snapshot's read slot
        assert view.counts()["Document"] == 3 and len(view.find_nodes(Label.DOCUMENT, set_id="tolaria")) == 2
        assert neo4j_store.counts()["Document"] == 3  # a plain read meanwhile: nothing committed yet
    writer.join(timeout=60)
    assert not writer.is_alive()
    assert neo4j_store.snapshot_counts == {"held": 1}
    assert neo4j_store.counts()["Document"] == 1
    assert _marks(neo4j_store) == ["writing-elsewhere"]  # the writer removed its own mark only
    neo4j_store.driver.execute_query(cypher.END_WRITE, {"token": "elsewhere"}, database_=neo4j_store.database)
    with neo4j_store.snapshot() as later:
        assert later.counts()["Document"] == 1
    assert neo4j_store.snapshot_counts == {"held": 1, "read": 1}


@pytest.mark.neo4j
def test_a_write_removes_marks_older_than_the_lease(neo4j_store: Neo4jStore):
    """A writer that died between its mark and its end leaves the mark (snapshots are held while it
    stands); the next write removes it once it is older than the lease, and only then."""
    ingest_into(neo4j_store, SEEDS)
    _mark_a_write(neo4j_store, "dead", age_ms=cypher.WRITE_MARK_LEASE_MS + 1000)
    _mark_a_write(neo4j_store, "young", age_ms=cypher.WRITE_MARK_LEASE_MS - 60_000)
    assert read_snapshot(neo4j_store, lambda view: view.counts()["Document"]) == 3
    assert neo4j_store.snapshot_counts == {"held": 1}
    neo4j_store.delete_documents((), sets=["tolaria"])
    assert _marks(neo4j_store) == ["writing-young"]


@pytest.mark.neo4j
def test_neo4j_requests_read_one_state_while_writers_replace_sets(neo4j_store: Neo4jStore):
    """Real threads on the real server: two writers keep replacing the synthesis of their own set
    (its closing paragraph names the round), while four readers each read, in one request, the
    sets, each set's documents and each document's statements. Every request sees both sets, each
    with its one document holding exactly one round's paragraph; most requests read optimistically."""
    from ingest.pipeline import ingest_files
    from ingest.sets import InputFile

    def write_round(system: str, k: int) -> None:
        ingest_files(neo4j_store, [InputFile("synthesis.txt", synthesis_of(system, f"Round {k} closes it."),
                                             explicit=True)])

    for system in ("Alpha0", "Beta0"):
        write_round(system, 0)
    stop = time.monotonic() + 6.0
    torn, reads, writes = [], [0], [0]

    def replace(system: str) -> None:
        k = 0
        while time.monotonic() < stop:
            k += 1
            write_round(system, k)
            writes[0] += 1
            time.sleep(0.5)  # quiet spells, in which requests read optimistically

    def request(view) -> list[tuple[str, list[str], list[str]]]:
        seen = []
        for analysis_set in view.find_nodes(Label.ANALYSIS_SET):
            documents = [n.id for n in view.find_nodes(Label.DOCUMENT, set_id=analysis_set.id)]
            rounds = [s.props["text"] for d in documents for s in view.find_nodes(Label.STATEMENT, document_id=d)
                      if s.props.get("text", "").startswith("Round ")]
            seen.append((analysis_set.id, documents, rounds))
        return seen

    def look() -> None:
        while time.monotonic() < stop:
            seen = read_snapshot(neo4j_store, request)
            reads[0] += 1
            if [(set_id, documents, len(rounds)) for set_id, documents, rounds in seen] != [
                    ("alpha0", ["alpha0/synthesis"], 1), ("beta0", ["beta0/synthesis"], 1)]:
                torn.append(seen)

    threads = [threading.Thread(target=replace, args=(system,)) for system in ("Alpha0", "Beta0")]
    threads += [threading.Thread(target=look) for _ in range(4)]
    run_to_the_end(threads)
    assert writes[0] > 0 and reads[0] > 0 and torn == []
    counts = neo4j_store.snapshot_counts
    assert counts["read"] + counts["held"] == reads[0] and counts["read"] > 0


@pytest.mark.neo4j
def test_neo4j_snapshots_of_one_process_do_not_wait_for_each_other(neo4j_store: Neo4jStore):
    """32 snapshots open at once, one inside the other: each holds a slot of its own, so none waits
    (a shared slot would block the inner snapshot on the outer one for good)."""
    ingest_into(neo4j_store, SEEDS)
    counted = []

    def nested(depth: int) -> None:
        with neo4j_store.snapshot() as view:
            counted.append(view.counts()["Document"])
            if depth > 1:
                nested(depth - 1)

    thread = threading.Thread(target=nested, args=(32,))
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert counted == [3] * 32


@pytest.mark.neo4j
def test_a_neo4j_read_never_sees_a_replaced_document_missing(neo4j_store: Neo4jStore):
    """The failure read-committed isolation allows without the read slots (seen under load): a
    replacement deletes the member's nodes and writes them again in one transaction, and a reader
    that looks the member up while the commit is applied finds neither. Three writers replace one
    member for five seconds while four readers look it up; every lookup finds it."""
    from ingest.pipeline import ingest_files
    from ingest.sets import InputFile
    from tests.reliability.helpers import synthesis_of

    member = "shared0/synthesis"
    ingest_files(neo4j_store, [InputFile("synthesis.txt", synthesis_of("Shared0"), explicit=True)])
    stop = time.monotonic() + 5.0
    missing, reads, writes = [], [0], [0]

    def replace(k: int) -> None:
        while time.monotonic() < stop:
            ingest_files(neo4j_store, [InputFile("synthesis.txt", synthesis_of("Shared0", f"Replacement {k}."),
                                                 explicit=True)])
            writes[0] += 1

    def look_up() -> None:
        while time.monotonic() < stop:
            found = read_snapshot(neo4j_store, lambda view: view.get_nodes([member]))
            reads[0] += 1
            if member not in found:
                missing.append(reads[0])

    threads = [threading.Thread(target=replace, args=(k,)) for k in range(3)]
    threads += [threading.Thread(target=look_up) for _ in range(4)]
    run_to_the_end(threads)
    assert writes[0] > 0 and reads[0] > 0
    assert missing == []


def _clock_reads(monkeypatch) -> list[int]:
    """Counts the write-clock reads of every Neo4j snapshot from now on (one list item per read)."""
    from graph.stores import neo4j as neo4j_module

    reads: list[int] = []
    real = neo4j_module._KeptRead.read_clock

    def counted(self, view, **kwargs):
        reads.append(1)
        return real(self, view, **kwargs)

    monkeypatch.setattr(neo4j_module._KeptRead, "read_clock", counted)
    return reads


@pytest.mark.neo4j
def test_a_neo4j_snapshot_reads_in_the_transaction_the_last_one_kept(neo4j_store: Neo4jStore, monkeypatch):
    """Snapshots one after the other read in one kept READ transaction, each starting from the
    clock the last one read at its end: three snapshots, one transaction, four clock reads."""
    ingest_into(neo4j_store, SEEDS)
    reads = _clock_reads(monkeypatch)
    transactions = []
    for _ in range(3):
        with neo4j_store.snapshot() as view:
            transactions.append(view._tx)  # type: ignore[attr-defined]  # private: probed on purpose
            assert view.counts()["Document"] == 3
    assert len(set(map(id, transactions))) == 1 and len(reads) == 4
    assert neo4j_store.snapshot_counts == {"read": 3}


@pytest.mark.neo4j
def test_a_write_of_another_process_makes_the_next_snapshot_read_again(neo4j_store: Neo4jStore, neo4j_server):
    """A write by another driver (another process: it does not share this one's bookmarks) between
    two snapshots: the second finds the clock moved since the kept transaction's last read, reads
    again from a clock of its own (``stale``, not held), and sees the write."""
    ingest_into(neo4j_store, SEEDS)
    assert read_snapshot(neo4j_store, lambda view: view.counts()["Document"]) == 3
    other = Neo4jStore.connect(neo4j_server.uri, user=neo4j_server.user, password=neo4j_server.password,
                               database=neo4j_server.database)
    try:
        other.delete_documents((), sets=["tolaria"])
    finally:
        other.close()
    assert read_snapshot(neo4j_store, lambda view: view.counts()["Document"]) == 1
    assert neo4j_store.snapshot_counts == {"read": 2, "stale": 1}
    assert read_snapshot(neo4j_store, lambda view: view.counts()["Document"]) == 1
    assert neo4j_store.snapshot_counts == {"read": 3, "stale": 1}


@pytest.mark.neo4j
def test_a_kept_transaction_is_not_used_after_this_process_writes_or_once_it_is_old(neo4j_store: Neo4jStore,
                                                                                   monkeypatch):
    """A write of this process (new bookmarks) and age (``KEPT_READ_S``) each end the kept READ
    transaction: the next snapshot begins its own (which, on a cluster, waits for the bookmarks)."""
    from graph.stores import neo4j as neo4j_module

    ingest_into(neo4j_store, SEEDS)

    def transaction_of_a_snapshot():
        with neo4j_store.snapshot() as view:
            assert view.counts()["Document"] >= 1
            return view._tx  # type: ignore[attr-defined]  # private: probed on purpose

    first = transaction_of_a_snapshot()
    neo4j_store.delete_documents((), sets=["tolaria"])
    second = transaction_of_a_snapshot()
    assert second is not first and first.closed() and not second.closed()
    monkeypatch.setattr(neo4j_module, "KEPT_READ_S", 0.0)
    third = transaction_of_a_snapshot()
    assert third is not second and second.closed() and third.closed()  # too old to be kept, even once
    assert neo4j_store.snapshot_counts == {"read": 3}
    neo4j_store.close()
    assert neo4j_store._kept == []  # private: probed on purpose


@pytest.mark.neo4j
def test_a_spoiled_kept_transaction_is_ended_not_kept(neo4j_store: Neo4jStore):
    """A statement that fails in a snapshot spoils its transaction: the block's error stands, and
    the next snapshot reads in a new one."""
    ingest_into(neo4j_store, SEEDS)
    with pytest.raises(Neo4jError), neo4j_store.snapshot() as view:
        spoiled = view._tx  # type: ignore[attr-defined]  # private: probed on purpose
        spoiled.run("RETURN 1 / 0").consume()
    with neo4j_store.snapshot() as view:
        assert view._tx is not spoiled and view.counts()["Document"] == 3  # type: ignore[attr-defined]
    assert spoiled.closed()


def _statements(monkeypatch) -> list[str]:
    """The statements every Neo4j snapshot view runs from now on, in order."""
    from graph.stores import neo4j as neo4j_module

    ran: list[str] = []
    real = neo4j_module._Snapshot._read

    def recording(self, query, **params):
        ran.append(query)
        return real(self, query, **params)

    monkeypatch.setattr(neo4j_module._Snapshot, "_read", recording)
    return ran


@pytest.mark.neo4j
def test_a_neo4j_snapshot_ending_on_a_reach_reads_the_clock_with_it(neo4j_store: Neo4jStore, monkeypatch):
    """A reach is a view's last read in a rests-on request; it carries the write clock read after
    its nodes (``cypher.reach(clock=True)``), so the view's end runs no clock statement: the first
    request reads the clock at its start only, the next (in the kept transaction) not at all."""
    from queries.traversal import rests_on

    ingest_into(neo4j_store, SEEDS)
    expected = rests_on(neo4j_store, "RT-RTE-mcp-write", set_id="tolaria")
    ran = _statements(monkeypatch)
    for _ in range(2):
        assert read_snapshot(neo4j_store, lambda view: rests_on(view, "RT-RTE-mcp-write", set_id="tolaria")) == expected
    reach = cypher.reach(DEPENDENCY_KINDS, clock=True)
    assert ran == [cypher.WRITE_CLOCK, cypher.nodes_with_edges([EdgeKind.SUPERSEDED_BY]), reach,
                   cypher.nodes_with_edges([EdgeKind.SUPERSEDED_BY]), reach]
    assert neo4j_store.snapshot_counts == {"read": 2}


@pytest.mark.neo4j
def test_a_write_begun_before_the_reach_moves_a_snapshot_the_reach_ends(neo4j_store: Neo4jStore, monkeypatch):
    """A set deleted between a request's first read and its reach: the clock the reach carries has
    moved, so the request is read again, held, and sees the store after the delete; a read after
    the reach makes the view's end read the clock itself."""
    ingest_into(neo4j_store, SEEDS)
    ran = _statements(monkeypatch)
    writer = threading.Thread(target=lambda: neo4j_store.delete_documents((), sets=["tolaria"]))

    def request(view):
        sets = sorted(view.get_nodes(["tolaria", "talorys"]))
        if writer.ident is None:  # the first attempt only
            writer.start()
            writer.join(timeout=60)
        found = view.reach(["tolaria/RT-RTE-mcp-write"], kinds=DEPENDENCY_KINDS, fields={})
        return sets, sorted(found.nodes)

    assert read_snapshot(neo4j_store, request) == (["talorys"], [])
    assert neo4j_store.snapshot_counts == {"moved": 1, "held": 1}
    assert ran.count(cypher.WRITE_CLOCK) == 1  # the first attempt's start; its end came with the reach

    ran.clear()
    time.sleep(HOLD_AFTER_MOVE_S)  # optimistic again
    with neo4j_store.snapshot() as view:
        view.reach(["talorys/RT-RTE-x"], kinds=DEPENDENCY_KINDS, fields={})
        view.get_nodes(["talorys"])
    assert ran[-1] == cypher.WRITE_CLOCK
