"""Concurrent first writers on a fresh home (the issue: 1 in 308 concurrent first ingests exited 69
"stayed locked by another writer for 600 s" within seconds, and its set was not stored).

The cause: a new database is put into WAL mode by the first process that opens it, and ``PRAGMA
journal_mode = WAL`` needs the file to itself; while another process opens or creates the same new
file SQLite answers ``database is locked`` at once, not through the busy handler, so the 600 s wait
never ran and the message lied. The store now retries that step, and a lock message says how long
it waited."""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest

from graph.errors import StoreUnavailable
from graph.stores import open_embedded
from graph.stores.sqlite import SQLiteStore
from ingest.files import InputFile
from ingest.pipeline import ingest_files

WRITERS, ROUNDS = 8, 50


def _member(n: int) -> bytes:
    """A plain-text synthesis of its own system (its set is ``system<n>``), citing one record."""
    return (f"System{n} synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n"
            f"Bounded synthesis\nThe note is written through MCP (RT-RTE-mcp-write).\n").encode()


def _first_write(job: tuple[str, int, float]) -> str | None:
    """Wait for the common start, then ingest one member into the fresh home: None, or the error."""
    home, n, start = job
    time.sleep(max(0.0, start - time.time() - 0.002))  # asleep until 2 ms before the start, then
    while time.time() < start:  # spinning, so all writers of a round start within a millisecond
        pass
    try:
        with open_embedded(Path(home)) as store:
            ingest_files(store, [InputFile(f"system{n}.txt", _member(n), explicit=True)])
    except Exception as exc:  # noqa: BLE001 - reported, with the round, by the test
        return f"{type(exc).__name__}: {exc}"
    return None


def test_eight_first_writers_on_fresh_homes_all_succeed_for_50_rounds(tmp_path):
    failures, homes = [], []
    with multiprocessing.get_context("fork").Pool(WRITERS) as pool:
        for round_ in range(ROUNDS):
            home = tmp_path / f"home{round_}"
            homes.append(home)
            start = time.time() + 0.05
            for outcome in pool.map(_first_write, [(str(home), n, start) for n in range(WRITERS)]):
                if outcome:
                    failures.append((round_, outcome))
    assert failures == []
    for home in homes:
        with SQLiteStore(home / "citegraph.sqlite") as store:
            assert store.counts()["AnalysisSet"] == WRITERS, home


def test_a_busy_answer_given_at_once_is_not_reported_as_the_600_s_wait(tmp_path):
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    with pytest.raises(StoreUnavailable) as caught, store._translated():
        raise sqlite3.OperationalError("database is locked")
    assert str(caught.value) == (f"the embedded store {tmp_path / 'citegraph.sqlite'} was busy: SQLite answered "
                                 f"'database is locked' after 0.0 s, without waiting for the other process using it")
    assert caught.value.hint == "retry; nothing of this command was written"
