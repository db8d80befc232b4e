"""The repository's shell entry points: ``scripts/test`` (``make test``) and ``docker/neo4j-local/start``."""

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

needs_java_and_maven = pytest.mark.skipif(
    not (shutil.which("java") and shutil.which("mvn")),
    reason="scripts/prerequisites stops first without Java and Maven (the local Neo4j's tools)")


def _env_with_port(port: int, run: Path) -> dict[str, str]:
    """The environment of a start on ``port`` keeping its pid and log in ``run``, not in
    ``docker/neo4j-local/run``, where the suite's own server (started by ``scripts/test``) may be."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_NEO4J_")}
    env.update(CITEGRAPH_NEO4J_PORT=str(port), CITEGRAPH_NEO4J_START_TIMEOUT="5", CITEGRAPH_NEO4J_RUN=str(run),
               CITEGRAPH_CHROMIUM=shutil.which("true") or "/bin/true")  # prerequisites asks for a browser
    return env


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run ``args`` in its own process group, killed whole after 60 s (a suite it starts goes too)."""
    with subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as proc:
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.fixture
def held_port():
    """A port on 127.0.0.1 that another process (this one) listens on."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


@needs_java_and_maven
def test_make_test_stops_in_seconds_when_its_neo4j_cannot_start(held_port, tmp_path):
    """The port taken, ``scripts/test`` exits 1 before pytest starts, naming the port and how to pick another."""
    began = time.monotonic()
    run = _run(["bash", "scripts/test"], _env_with_port(held_port, tmp_path))
    assert run.returncode == 1
    assert time.monotonic() - began < 20
    assert f"port {held_port} on 127.0.0.1 is already in use" in run.stderr
    assert "scripts/test: the local Neo4j did not start" in run.stderr
    assert "CITEGRAPH_NEO4J_PORT=7688 make test" in run.stderr
    assert "passed" not in run.stdout and "pytest" not in run.stdout


def test_the_readme_eval_of_start_fails_when_neo4j_cannot_start(held_port, tmp_path):
    """``eval "$(docker/neo4j-local/start)"`` (README, Neo4j option 1) fails too: start prints ``false``."""
    run = _run(["bash", "-c", 'set -e; eval "$(docker/neo4j-local/start)"; echo SUITE-WOULD-RUN'],
               _env_with_port(held_port, tmp_path))
    assert (run.returncode, run.stdout) == (1, "")
    assert f"ERROR: port {held_port} on 127.0.0.1 is already in use" in run.stderr
