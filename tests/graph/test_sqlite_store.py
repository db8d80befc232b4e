"""Embedded-store behaviour only a file shows: persistence, other processes, crashes, damaged files,
the per-set graph cache and the bytes a write touches."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from graph.errors import CitegraphError, StoreUnavailable
from graph.model import DocumentGraph, Edge, EdgeKind, Label, Node, SetBatch
from graph.text import Phrase
from graph.stores import open_embedded
from graph.stores.sqlite import SQLiteStore
from tests.conftest import CORPUS, ROOT, SEED_WORKFLOW, SEEDS, ingest_into
from tests.contract.helpers import canonical, content

CHEATSHEET = [CORPUS / "commonplace/kb/agentic-system-analyses/retained/dynamic-cheatsheet",
              CORPUS / "commonplace/kb/agentic-system-analyses/retained-archive/AAS-2026-10-04-dynamic-cheatsheet-01"]
CHEATSHEET_SET = "AAS-2026-10-04-dynamic-cheatsheet-01"


def broken_batch() -> SetBatch:
    doc = Node("s/synthesis", Label.DOCUMENT, "s", "s/synthesis", {"role": "synthesis"})
    bad = Edge(EdgeKind.CITES, "s/synthesis", "s/NOT-THERE", 0, "s/synthesis", "s", {})
    return SetBatch("s", (Node("s", Label.ANALYSIS_SET, "s", None, {}),), (DocumentGraph(doc, (), (bad,)),), ())


def run_python(code: str, *args: str, wait: bool = True):
    """``code`` in a fresh interpreter at the repository root (another process on the same home)."""
    command = [sys.executable, "-c", textwrap.dedent(code), *args]
    if not wait:
        return subprocess.Popen(command, cwd=ROOT)
    subprocess.run(command, cwd=ROOT, check=True, timeout=120)


INGEST = """
    import sys
    from pathlib import Path
    from graph.stores import open_embedded
    from tests.whole_input import read_members
    from ingest.loader import ingest_parsed
    store = open_embedded(Path(sys.argv[1]))
    for _ in range(int(sys.argv[2])):
        for folder in sys.argv[3:]:
            ingest_parsed(store, read_members([Path(p) for p in folder.split(",")]).parsed)
"""
"""Ingest each argument (comma-separated paths: one run) into home ``argv[1]``, ``argv[2]`` times over."""


@pytest.mark.parametrize("persisted", [True, False])
def test_failed_write_leaves_the_store_as_before(tmp_path, persisted):
    store = SQLiteStore(tmp_path / "citegraph.sqlite" if persisted else None)
    ingest_into(store, SEEDS)
    before = canonical(content(store))
    with pytest.raises(CitegraphError, match="unknown node s/NOT-THERE"):
        store.write_set(broken_batch())
    assert canonical(content(store)) == before
    assert store.get_nodes(["s", "s/synthesis"]) == {}


def test_a_missing_file_reads_as_empty_and_is_created_by_the_first_write(tmp_path):
    path = tmp_path / "home" / "citegraph.sqlite"
    store = SQLiteStore(path)
    assert store.counts()["nodes"] == 0 and store.find_nodes(Label.DOCUMENT) == []
    assert not path.parent.exists()  # a read creates nothing
    ingest_into(store, SEEDS)
    assert path.is_file() and SQLiteStore(path).counts()["Document"] == 3


def test_another_process_sees_writes_and_the_cache_reloads_only_the_set_written(tmp_path):
    home = tmp_path / "home"
    server = open_embedded(home)
    ingest_into(server, SEEDS)
    cites = [EdgeKind.CITES, EdgeKind.CONTAINS]
    assert len(server.closure(["tolaria/RT-RTE-mcp-write"], kinds=cites)) == 34
    assert len(server.closure(["talorys/RT-RTE-owner-chat"], kinds=cites)) == 9
    cached = lambda scope: next(g for (_, s), (_, g) in server._graphs.items() if s == scope)  # noqa: E731
    tolaria, talorys = cached("tolaria"), cached("talorys")
    assert len(server.closure(["tolaria/RT-RTE-mcp-write"], kinds=cites)) == 34
    assert cached("tolaria") is tolaria  # served from the cache: unchanged version
    run_python("""
        import sys
        from pathlib import Path
        from graph.stores import open_embedded
        open_embedded(Path(sys.argv[1])).delete_documents(["tolaria/workflow-report"])
    """, str(home))
    assert [d.id for d in server.find_nodes(Label.DOCUMENT)] == ["talorys/synthesis", "tolaria/synthesis"]
    assert len(server.closure(["tolaria/RT-RTE-mcp-write"], kinds=cites)) == 13
    assert len(server.closure(["talorys/RT-RTE-owner-chat"], kinds=cites)) == 9
    assert cached("tolaria") is not tolaria and cached("talorys") is talorys
    reference = SQLiteStore(None)  # the same state built afresh: no cache involved
    ingest_into(reference, SEEDS)
    reference.delete_documents(["tolaria/workflow-report"])
    for record in ("tolaria/RT-RTE-mcp-write", "talorys/RT-RTE-owner-chat"):
        assert server.closure([record], kinds=cites) == reference.closure([record], kinds=cites)
    run_python("""
        import sys
        from pathlib import Path
        from graph.stores import open_embedded
        open_embedded(Path(sys.argv[1])).delete_documents(["talorys/synthesis"])
    """, str(home))
    # Deleting the set's last document removes the set, its system and its shared nodes.
    assert server.get_nodes(["talorys", "system/talorys", "talorys/RT-RTE-owner-chat"]) == {}
    assert server.closure(["talorys/RT-RTE-owner-chat"], kinds=cites) == []


def test_the_cache_is_bounded_in_edges_and_keeps_the_sets_in_use(tmp_path):
    store = SQLiteStore(tmp_path / "citegraph.sqlite", cache_edges=100)
    ingest_into(store, SEEDS)
    store.closure(["talorys/RT-RTE-owner-chat"], kinds=[EdgeKind.CITES])
    store.closure(["tolaria/RT-RTE-mcp-write"], kinds=[EdgeKind.CITES])
    assert [scope for _, scope in store._graphs] == ["tolaria"]  # talorys evicted: tolaria alone is over 100 edges
    assert next(iter(store._graphs.values()))[1].size == 246


def test_a_file_that_is_not_a_store_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "citegraph.sqlite"
    path.write_bytes(b"not a database at all, but long enough to have a header" * 10)
    before = path.read_bytes()
    with pytest.raises(StoreUnavailable, match=f"cannot read the embedded store {path}: file is not a database"):
        SQLiteStore(path)
    other = sqlite3.connect(tmp_path / "other.sqlite")
    other.execute("CREATE TABLE notes (body TEXT)")
    other.commit()
    other.close()
    with pytest.raises(StoreUnavailable, match="is an SQLite database but not a citegraph store"):
        SQLiteStore(tmp_path / "other.sqlite")
    assert path.read_bytes() == before
    assert sqlite3.connect(tmp_path / "other.sqlite").execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]


def test_a_home_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreUnavailable, match="as the embedded store's folder: it is a file"):
        open_embedded(tmp_path / "file")


def test_bulk_is_one_transaction_that_rolls_back_whole(tmp_path):
    path = tmp_path / "citegraph.sqlite"
    store = SQLiteStore(path)
    ingest_into(store, SEEDS)
    other = SQLiteStore(path)
    with pytest.raises(CitegraphError, match="unknown node s/NOT-THERE"), store.bulk():
        store.delete_documents(["talorys/synthesis"])
        assert store.counts()["Document"] == 2  # the block sees its own writes
        assert other.counts()["Document"] == 3  # nobody else does
        store.write_set(broken_batch())
    assert [d.id for d in SQLiteStore(path).find_nodes(Label.DOCUMENT)] == [
        "talorys/synthesis", "tolaria/synthesis", "tolaria/workflow-report"]
    assert store.counts()["Document"] == 3


def test_the_counts_follow_every_write_and_delete(tmp_path):
    path = tmp_path / "citegraph.sqlite"
    store = SQLiteStore(path)
    ingest_into(store, SEEDS)
    db = sqlite3.connect(path)
    rows = lambda table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]  # noqa: E731
    assert store.counts()["edges"] == rows("edges") == sum(
        n for k, n in store.counts().items() if k in set(EdgeKind)) == 354
    summary = store.delete_documents(["tolaria/workflow-report"])
    assert summary.edges == rows("edges") == store.counts()["edges"] == 221
    assert summary.nodes == rows("nodes") == 140
    ingest_into(store, SEEDS)  # re-ingest: unchanged documents are skipped, the deleted one written
    assert store.counts()["edges"] == rows("edges") == 354
    assert store.find_nodes(Label.RECORD, set_id="talorys", where={"record_id": "RT-RTE-owner-chat"})[0].id == (
        "talorys/RT-RTE-owner-chat")


def test_a_write_touches_only_its_own_set(tmp_path):
    """Adding a set rewrites no row of another set: every other row keeps its rowid and bytes."""
    path = tmp_path / "citegraph.sqlite"
    store = SQLiteStore(path)
    ingest_into(store, SEEDS)
    db = sqlite3.connect(path)
    snapshot = lambda: (db.execute("SELECT rowid, * FROM nodes WHERE set_id <> ? ORDER BY rowid",  # noqa: E731
                                   (CHEATSHEET_SET,)).fetchall(),
                        db.execute("SELECT rowid, * FROM edges WHERE set_id <> ? ORDER BY rowid",
                                   (CHEATSHEET_SET,)).fetchall())
    before = snapshot()
    versions = dict(db.execute("SELECT scope, version FROM scopes"))
    ingest_parsed_report = ingest_into(store, *CHEATSHEET)
    assert ingest_parsed_report.sets == (CHEATSHEET_SET,)
    assert snapshot() == before
    after = dict(db.execute("SELECT scope, version FROM scopes"))
    assert {k: v for k, v in after.items() if after.get(k) != versions.get(k)}.keys() == {CHEATSHEET_SET, ""}


def test_two_processes_ingesting_different_sets_keep_both_every_time(tmp_path):
    tolaria, talorys = tmp_path / "tolaria", tmp_path / "talorys"
    tolaria.mkdir(), talorys.mkdir()
    for seed in SEEDS.iterdir():
        shutil.copy(seed, talorys if seed.name.startswith("003") else tolaria)
    for trial in range(4):
        home = tmp_path / f"home{trial}"
        writers = [run_python(INGEST, str(home), "1", str(folder), wait=False) for folder in (tolaria, talorys)]
        assert [w.wait(timeout=120) for w in writers] == [0, 0]
        store = open_embedded(home)
        assert [s.id for s in store.find_nodes(Label.ANALYSIS_SET)] == ["talorys", "tolaria"]
        assert store.counts()["Document"] == 3 and store.counts()["edges"] == 354


def _variant(tmp_path: Path) -> Path:
    """The seeds with the workflow report's last annotation dropped: another version of tolaria."""
    folder = tmp_path / "seeds-v2"
    shutil.copytree(SEEDS, folder)
    text = SEED_WORKFLOW.read_text()
    (folder / SEED_WORKFLOW.name).write_text(text[: text.index("\n\nOn RT-RTE-mcp-write")])
    return folder


def test_a_reader_sees_the_old_or_the_new_set_never_a_mix(tmp_path):
    v2 = _variant(tmp_path)
    versions = set()
    for folder in (SEEDS, v2):
        reference = SQLiteStore(None)
        ingest_into(reference, folder)
        versions.add(canonical(reference.find_nodes(Label.STATEMENT, set_id="tolaria")))
    home = tmp_path / "home"
    ingest_into(open_embedded(home), SEEDS)
    reader = open_embedded(home)
    writer = run_python(INGEST, str(home), "6", str(v2), str(SEEDS), wait=False)
    seen, reads = set(), 0
    while writer.poll() is None:
        seen.add(canonical(reader.find_nodes(Label.STATEMENT, set_id="tolaria")))
        reads += 1
    assert writer.returncode == 0 and reads > 10
    assert seen <= versions and len(seen) == 2  # both versions were seen, nothing else


def test_a_writer_killed_at_any_moment_leaves_the_state_before_or_after(tmp_path):
    home = tmp_path / "home"
    before = open_embedded(home)
    ingest_into(before, SEEDS)
    after = SQLiteStore(None)
    ingest_into(after, SEEDS)
    ingest_into(after, *CHEATSHEET)
    states = {"before": canonical(content(before)), "after": canonical(content(after))}
    before.close()
    pristine = tmp_path / "pristine"
    shutil.copytree(home, pristine)
    started = time.monotonic()
    run_python(INGEST, str(home), "1", ",".join(map(str, CHEATSHEET)))
    duration = time.monotonic() - started
    rng, outcomes = random.Random(12), []
    for _trial in range(16):
        shutil.rmtree(home)
        shutil.copytree(pristine, home)
        writer = run_python(INGEST, str(home), "1", ",".join(map(str, CHEATSHEET)), wait=False)
        time.sleep(rng.uniform(0.2, duration * 2))  # past the end too: the write completed
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        state = canonical(content(open_embedded(home)))
        outcomes.append(next((name for name, s in states.items() if s == state), "neither"))
    assert "neither" not in outcomes
    assert set(outcomes) == {"before", "after"}, outcomes  # kills landed both before and after the commit


def test_a_writer_killed_inside_its_transaction_leaves_the_state_before(tmp_path):
    """Killed after half of a set's rows are written (deterministically, not by chance)."""
    home = tmp_path / "home"
    store = open_embedded(home)
    ingest_into(store, SEEDS)
    before = canonical(content(store))
    store.close()
    writer = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sys, time
        from pathlib import Path
        import graph.stores.sqlite as sqlite
        from graph.stores import open_embedded
        from tests.whole_input import read_members
        from ingest.loader import ingest_parsed
        real = sqlite._put_edges
        def put_edges_then_stall(conn, edges):
            real(conn, edges)
            print("rows written", flush=True)
            time.sleep(60)
        sqlite._put_edges = put_edges_then_stall
        ingest_parsed(open_embedded(Path(sys.argv[1])), read_members([Path(p) for p in sys.argv[2:]]).parsed)
    """), str(home), *map(str, CHEATSHEET)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert writer.stdout.readline() == "rows written\n"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    assert Path(f"{home}/citegraph.sqlite-wal").exists()  # the killed writer's journal is still there
    assert canonical(content(open_embedded(home))) == before


FULL_DISK = """
    import resource, signal, sys
    from pathlib import Path
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
    sys.argv = ["citegraph", *sys.argv[2:]]
    from app.cli import main
    main()
"""
"""The CLI with ``argv[2:]``, on a disk that takes no file larger than ``argv[1]`` bytes."""


def test_a_full_disk_during_ingest_names_the_file_and_keeps_the_store(tmp_path):
    home = tmp_path / "home"
    store = open_embedded(home)
    ingest_into(store, SEEDS)
    before = canonical(content(store))
    store.close()
    size = (home / "citegraph.sqlite").stat().st_size
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(FULL_DISK), str(size + 64 * 1024), "ingest",
                          *map(str, CHEATSHEET), "--home", str(home)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 74, run.stderr
    assert str(home / "citegraph.sqlite") in run.stderr and "disk" in run.stderr
    assert canonical(content(open_embedded(home))) == before


def test_a_full_disk_during_conversion_leaves_no_store_and_a_later_open_converts(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(ROOT / "tests/fixtures/legacy-store/graph.json.gz", home / "graph.json.gz")
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(FULL_DISK), "300000", "stats", "--home", str(home)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode != 0 and "converted" not in run.stderr, run.stderr
    assert sorted(p.name for p in home.iterdir()) == [".convert.lock", "graph.json.gz"]  # nothing half-made
    assert open_embedded(home).counts()["nodes"] == 738


def test_an_open_store_follows_a_store_rebuilt_under_it(tmp_path):
    home = tmp_path / "home"
    server = open_embedded(home)
    ingest_into(server, SEEDS)
    assert server.counts()["nodes"] == 204
    assert len(server.closure(["tolaria/RT-RTE-mcp-write"], kinds=[EdgeKind.CITES])) == 11
    shutil.rmtree(home)  # `make clean`, or a restore from another copy
    assert server.counts()["nodes"] == 0 and server.find_nodes(Label.DOCUMENT) == []
    ingest_into(open_embedded(home), SEEDS / "003_68dfe0dcb1db1ebb.txt")
    assert server.counts()["nodes"] == 78
    assert server.closure(["tolaria/RT-RTE-mcp-write"], kinds=[EdgeKind.CITES]) == []  # no stale cached set


def test_a_store_this_user_may_not_write_is_read_and_refuses_writes(tmp_path, monkeypatch):
    home = tmp_path / "home"
    writer = open_embedded(home)
    ingest_into(writer, SEEDS)
    writer.close()  # closed cleanly: no journal left beside the file
    monkeypatch.setattr("graph.stores.sqlite.os.access", lambda path, mode: mode != os.W_OK)
    store = open_embedded(home)
    assert store.counts()["Document"] == 3
    assert len(store.closure(["tolaria/RT-RTE-mcp-write"], kinds=[EdgeKind.CITES])) == 11
    with pytest.raises(StoreUnavailable, match="it is read-only for this user"):
        store.delete_documents(["tolaria/synthesis"])
    assert sorted(p.name for p in home.iterdir()) == ["citegraph.sqlite"]  # opened as it is: no journal made


def test_an_empty_file_is_no_store(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "citegraph.sqlite").touch()  # SQLite makes the file before its first page
    assert open_embedded(home).counts()["nodes"] == 0
    assert (home / "citegraph.sqlite").stat().st_size == 0  # a read wrote nothing
    shutil.copy(ROOT / "tests/fixtures/legacy-store/graph.json.gz", home / "graph.json.gz")
    assert open_embedded(home).counts()["nodes"] == 738  # the former store beside it is converted


def test_a_store_path_that_cannot_be_opened_is_named(tmp_path):
    (tmp_path / "citegraph.sqlite").mkdir()
    with pytest.raises(StoreUnavailable, match=f"cannot use the embedded store {tmp_path / 'citegraph.sqlite'}"):
        SQLiteStore(tmp_path / "citegraph.sqlite").counts()


def test_a_writer_kept_waiting_by_another_says_so_and_then_writes(tmp_path):
    home = tmp_path / "home"
    store = open_embedded(home)
    ingest_into(store, SEED_WORKFLOW)
    store.close()
    holder = sqlite3.connect(home / "citegraph.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's write in progress
    run = subprocess.Popen([sys.executable, "-m", "app.cli", "ingest", str(SEEDS), "--home", str(home), "--json"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stderr.readline() == f"store: embedded store in {home}\n"  # the store line comes first
    notice = run.stderr.readline()  # blocks until the writer says it waits (it cannot write before)
    assert notice == f"waiting for another citegraph process writing {home / 'citegraph.sqlite'} (up to 600 s)\n"
    assert run.poll() is None  # still waiting
    holder.execute("ROLLBACK")
    holder.close()
    _stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stderr
    assert sorted(n.id for n in open_embedded(home).find_nodes(Label.ANALYSIS_SET)) == ["talorys", "tolaria"]


def test_threads_reading_before_the_store_file_exists_do_not_collide(tmp_path):
    """Every thread's read of a store with no file yet is answered by one shared empty database;
    six threads beginning transactions on it at once failed with "cannot start a transaction
    within a transaction" (seen as a 503 from `serve` on a fresh home)."""
    import threading

    path = tmp_path / "home" / "citegraph.sqlite"
    store = SQLiteStore(path)
    errors: list[str] = []

    def read() -> None:
        for _ in range(2000):
            try:
                assert store.get_nodes(["tolaria", "tolaria/synthesis"]) == {}
                assert store.counts()["nodes"] == 0
            except Exception as exc:  # noqa: BLE001 - every failure is counted
                errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=read) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert not path.exists()


def _set_with_statement(text: str, s: str = "s") -> SetBatch:
    """Set ``s``: one member holding three statements, ``"{text} 0"`` to ``"{text} 2"``."""
    doc = Node(f"{s}/analysis", Label.DOCUMENT, s, f"{s}/analysis", {"role": "analysis"})
    statements = tuple(Node(f"{s}/analysis#p{n}", Label.STATEMENT, s, f"{s}/analysis", {"text": f"{text} {n}"})
                       for n in range(3))
    return SetBatch(s, (Node(s, Label.ANALYSIS_SET, s, None, {}),), (DocumentGraph(doc, statements, ()),), ())


def test_the_full_text_index_holds_exactly_the_statements_written(tmp_path):
    """Nodes go into ``nodes`` in one statement per write; the index's triggers follow each write."""
    path = tmp_path / "citegraph.sqlite"
    store = SQLiteStore(path)
    store.write_set(_set_with_statement("alpha"))
    db = sqlite3.connect(path)
    match = lambda word: db.execute(  # noqa: E731
        "SELECT n.id FROM statement_search f JOIN nodes n ON n.nid = f.rowid WHERE statement_search MATCH ? "
        "ORDER BY n.id", (word,)).fetchall()
    assert match("alpha") == [("s/analysis#p0",), ("s/analysis#p1",), ("s/analysis#p2",)]
    assert match("2") == [("s/analysis#p2",)]
    store.write_set(_set_with_statement("omega"))  # the member rewritten: its statements replaced
    assert match("alpha") == []
    assert match("omega") == [("s/analysis#p0",), ("s/analysis#p1",), ("s/analysis#p2",)]
    assert [n.id for n in store.search([Phrase(("omega", "1"))])] == ["s/analysis#p1"]
    assert store.get_nodes(["s/analysis#p1"])["s/analysis#p1"].get("text") == "omega 1"
    store.delete_documents(["s/analysis"])  # and no later write brings a node written before back
    store.write_set(_set_with_statement("beta", "t"))
    assert store.get_nodes(["s/analysis#p1", "t/analysis#p1"]).keys() == {"t/analysis#p1"}
    assert match("omega") == [] and len(match("beta")) == 3
