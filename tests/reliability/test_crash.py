"""A writer killed (SIGKILL) while it writes leaves no stray file beside the store,
and the store opens and equals the state before or after one of its writes, on both stores."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from graph.store import read_snapshot
from graph.stores import open_embedded
from tests.conftest import ROOT, SEEDS, ingest_into
from tests.reliability.helpers import CHEATSHEET, CHEATSHEET_SET, STORE_FILES, child_environment, fingerprint

WRITER = textwrap.dedent(f"""
    import sys
    from pathlib import Path
    from app.settings import Settings
    from app.wiring import open_store
    from tests.whole_input import read_members
    from ingest.loader import ingest_parsed
    kind, where, *paths = sys.argv[1:]
    settings = Settings(home=where, env_file=None) if kind == "embedded" else Settings(neo4j_uri=where, env_file=None)
    store = open_store(settings)
    parsed = read_members([Path(p) for p in paths]).parsed
    print("writing", flush=True)
    while True:  # the set written, then deleted, again and again: a kill lands inside a write
        ingest_parsed(store, parsed)
        store.delete_documents((), sets=[{CHEATSHEET_SET!r}])
""")


@pytest.mark.parametrize("trial", range(5))
def test_a_writer_killed_mid_write_leaves_the_store_before_or_after_and_nothing_beside_it(
        request, store, tmp_path, trial):
    kind = request.node.callspec.params["store"]
    if kind == "embedded":
        store.close()
        home = tmp_path / "home"
        store = open_embedded(home)
        where = str(home)
        env = child_environment()
    else:
        neo4j_server = request.getfixturevalue("neo4j_server")
        where = neo4j_server.uri
        env = child_environment(neo4j_server)
    ingest_into(store, SEEDS)
    before = fingerprint(store)
    ingest_into(store, *CHEATSHEET)
    after = fingerprint(store)
    store.delete_documents((), sets=[CHEATSHEET_SET])
    assert fingerprint(store) == before
    if kind == "embedded":
        store.close()

    writer = subprocess.Popen([sys.executable, "-c", WRITER, kind, where, *map(str, CHEATSHEET)], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline() == "writing\n", writer.stderr.read()
        time.sleep(random.Random(trial).uniform(0.2, 1.5))
        assert writer.poll() is None, writer.stderr.read()
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        writer.stderr.close()

    if kind == "embedded":
        assert {p.name for p in home.iterdir()} <= STORE_FILES  # no temporary file of any kind
        store = open_embedded(home)
        request.addfinalizer(store.close)
    assert read_snapshot(store, fingerprint) in (before, after)  # one state, even if the last commit lands now
    # and the store takes writes again: nothing of the killed writer (a lock, a journal) is in the way
    ingest_into(store, *CHEATSHEET)
    assert fingerprint(store) == after
