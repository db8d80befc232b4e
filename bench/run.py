"""The benchmark harness behind ``bench/run``; see ``bench/README.md``.

For each size and each store it measures ingest (documents/s, MB/s, and the ratio to
markdown-it-py's bare parse of the same files), ``check`` errors, rests-on latency for 100 records
(50 most-cited, 50 least-cited) against ``grep -rlF ID`` over the corpus folder, impact of a
50-file change, whole-store ``verify`` throughput, the peak RSS of every phase and the store's size
on disk. On the embedded store it also times what a user feels, whole ``citegraph`` processes:
``rests-on``, ``stats``, ``check``, ``render`` against ``grep -rlF`` as a process, ``ingest`` of one
more set into the store against an empty one, and ``serve`` from start to its first ``/health``.
Figures go to ``bench/results/<date>-<size>.json`` and a Markdown table; ``--check`` compares them
with the issue's targets.

Every phase and every timed whole process is started by :mod:`bench.spawn`, a small interpreter
that forks it and reaps it with ``os.wait4``, so its ``ru_maxrss`` is its own peak, not the
harness's pages a fork would copy. Ratios are measured side by side in one run; absolute
figures are context only, since these machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import datetime as dt
import http.client
import json
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.generate import GENERATOR_VERSION, SIZES, generate
from bench.pathological import CASES, WRITE_CASES

__all__ = ["TARGETS", "PATHOLOGICAL_TARGETS", "Target", "main", "percentile", "evaluate", "pathological_figures",
           "pathological_ingest_figures"]

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
NEO4J_LOCAL = ROOT / "docker" / "neo4j-local"


@dataclass(frozen=True, slots=True)
class Target:
    """One target: ``figure`` (key in the flat figures), comparison ``op``
    (``<``, ``<=`` or ``>=``), ``limit``, ``unit``, the ``store`` it applies to (None: each store;
    ``parser`` for the pathological inputs, which touch no store) and the size it is stated for
    (None: every size)."""

    name: str
    figure: str
    op: str
    limit: float
    unit: str
    store: str | None = None
    size: str | tuple[str, ...] | None = None

    def stated_for(self, size: str) -> bool:
        """Whether this target judges a run of ``size`` (a target stated for no size judges every size)."""
        return self.size is None or size == self.size or (isinstance(self.size, tuple) and size in self.size)


PAIRED_COMMANDS = ("rests-on", "stats", "sets", "records", "check")
"""The ``citegraph`` commands timed on both stores side by side (issue 25, :func:`side_by_side_phase`):
``rests-on --json`` and ``records``/``check`` of one set, ``stats --json`` and ``sets`` of the whole store."""

TARGETS: tuple[Target, ...] = (
    Target("embedded ingest time", "ingest_s", "<", 60, "s", "embedded", "L"),
    Target("ingest throughput vs parse floor", "ingest_vs_floor", ">=", 0.5, "×", "embedded", "L"),
    Target("rests-on p50 (embedded)", "rests_on_p50_ms", "<", 10, "ms", "embedded"),
    Target("rests-on p50 (neo4j)", "rests_on_p50_ms", "<", 30, "ms", "neo4j"),
    Target("rests-on speed-up over grep", "grep_speedup", ">=", 50, "×"),
    Target("impact of a 50-file change", "impact_s", "<", 1, "s"),
    Target("rests-on process vs grep -rlF process", "cli_rests_on_vs_grep", "<", 3, "×", "embedded", "L"),
    Target("rests-on process vs the same at size S", "cli_rests_on_vs_s", "<", 1.5, "×", "embedded", "L"),
    Target("ingest one set: this store vs an empty one", "add_set_ratio", "<", 2, "×", "embedded"),
    Target("whole-store stats process ÷ the same on a one-set store", "whole_stats_vs_one", "<=", 3, "×", "embedded", "L"),
    Target("whole-store sets process ÷ the same on a one-set store", "whole_sets_vs_one", "<=", 3, "×", "embedded", "L"),
    Target("whole-store check process ÷ the same on a one-set store", "whole_check_vs_one", "<=", 3, "×", "embedded", "L"),
    Target("whole-store verify process ÷ the same on a one-set store", "whole_verify_vs_one", "<=", 3, "×", "embedded", "L"),
    Target("whole-store answers: kept ≠ --fresh (correctness gate)", "whole_kept_mismatches", "<", 1, "", "embedded"),
    Target("store on disk ÷ corpus bytes", "disk_vs_corpus", "<=", 4, "×", "embedded", "L"),
    Target("ingest CPU ÷ parse-floor CPU", "ingest_cpu_vs_floor", "<=", 2, "×", "embedded"),
    Target("ingest wall ÷ (parse-floor CPU ÷ cores)", "ingest_wall_vs_floor_cores", "<=", 1.2, "×", "embedded"),
    Target("serve: first /health 200 after start", "serve_ready_s", "<", 2, "s", "embedded"),
    Target("serve: /health p50", "serve_health_p50_ms", "<", 50, "ms", "embedded"),
    Target("embedded peak RSS", "peak_rss_mb", "<", 1536, "MB", "embedded"),
    Target("one-set query peak RSS (rests-on process)", "cli_rests_on_rss_mb", "<", 300, "MB", "embedded"),
    Target("check errors", "check_errors", "<", 1, ""),
    Target("verify: members that do not rebuild", "verify_differing", "<", 1, ""),
    Target("bench/run --size M (embedded part)", "total_s", "<", 900, "s", None, "M"),
    Target("version diff of one set (first call)", "diff_first_s", "<", 1, "s", "embedded", "M"),
    Target("comparison of two runs (first call)", "compare_first_s", "<", 1, "s", "embedded", "M"),
    Target("rests-on p50, 10 versions of every set ÷ 1 version", "rests_on_versions_ratio", "<", 1.2, "×",
           "embedded", "M"),
    # start-up, one-set processes against grep, common-word search, keep-alive
    Target("citegraph --help CPU", "cli_startup_cpu_p50_ms", "<", 150, "ms", "embedded"),
    Target("citegraph --version CPU", "cli_version_cpu_p50_ms", "<", 150, "ms", "embedded"),
    *(Target(f"{c} process faster than grep -rlF process", f"cli_{c.replace('-', '_')}_vs_grep", "<", 1.0, "×", "embedded", "L")
      for c in ("rests-on", "records", "check", "render", "history", "search", "export")),
    Target("search of a common word (the): CPU", "search_common_cpu_s", "<=", 0.5, "s", "embedded", "L"),
    Target("search of a common word (the): peak RSS", "search_common_rss_mb", "<=", 100, "MB", "embedded", "L"),
    Target("serve keep-alive: /health p50", "serve_keepalive_health_p50_ms", "<=", 3, "ms", "embedded"),
    Target("serve keep-alive: REST rests-on p50", "serve_keepalive_rest_p50_ms", "<=", 5, "ms", "embedded"),
    Target("serve keep-alive: GraphQL restsOn p50", "serve_keepalive_graphql_p50_ms", "<=", 10, "ms", "embedded"),
    # Neo4j beside the embedded store (issue 25): ratios measured side by side in one run
    Target("rests-on p50 (neo4j) at L", "rests_on_p50_ms", "<", 10, "ms", "neo4j", "L"),
    Target("Neo4j ingest wall ÷ embedded ingest wall", "ingest_vs_embedded", "<=", 2, "×", "neo4j", ("M", "L")),
    *(Target(f"Neo4j {c} process ÷ embedded, side by side", f"cli_{c.replace('-', '_')}_vs_embedded", "<=", 1.5, "×",
             "neo4j", ("M", "L")) for c in PAIRED_COMMANDS),
    Target("Neo4j serve keep-alive: REST rests-on p50 ÷ embedded, side by side", "serve_keepalive_rest_vs_embedded",
           "<=", 1.5, "×", "neo4j", ("M", "L")),
    Target("Neo4j serve keep-alive: /health p50", "serve_keepalive_health_p50_ms", "<=", 5, "ms", "neo4j"),
)
"""The scale targets, plus the two correctness gates (0 ``check`` errors, 0 failed rebuilds), and
the targets of start-up, one-set commands, search and the server."""


def _key(case: str) -> str:
    return "patho_" + case.replace("-", "_")


PATHOLOGICAL_TARGETS: tuple[Target, ...] = tuple(  # noqa: RUF005 - three generators, one per line
    Target(f"{c.name}: refused within (at 2n)", f"{_key(c.name)}_2n_s", "<", 2, "s", "parser") if c.refused
    else Target(f"{c.name}: parse CPU at 2n ÷ at n", f"{_key(c.name)}_ratio", "<=", 2.2, "×", "parser")
    for c in CASES
) + (Target("txt-lines: parse memory at 2n ÷ at n", f"{_key('txt-lines')}_mem_ratio", "<=", 2.2, "×", "parser"),) + tuple(
    Target(f"{c.name}: ingest time at 2n ÷ at n", f"{_key(c.name)}_ingest_ratio", "<=", 2.2, "×", store)
    for c in WRITE_CASES for store in ("embedded", "neo4j")
)
"""The targets for the pathological inputs (:mod:`bench.pathological`): parsing linear in
its input (doubling the input at most 2.2 times the parse's CPU time, and for plain-text lines its
memory), the two refused YAML documents refused within 2 s, and writing linear in the edges (each
write case's whole ingest, wall time, on each store: Neo4j's work is in its server)."""


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0–100) by linear interpolation between closest ranks.

    >>> percentile([1, 2, 3, 4], 50)
    2.5
    >>> percentile([5.0], 99)
    5.0
    """
    if not values:
        return float("nan")
    xs = sorted(values)
    k = (len(xs) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


# -- processes ---------------------------------------------------------------------------------


def _address_cap(memory_gb: float | None):
    """A ``preexec_fn`` capping the child's address space at ``memory_gb`` (None: no cap)."""
    if not memory_gb:
        return None

    def limit() -> None:
        cap = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return limit


def _reap(proc: subprocess.Popen, t0: float, timeout: float | None) -> tuple[int, Any, bool, float]:
    """Wait for ``proc`` with a blocking ``os.wait4`` (so the wall time is exact, not polled);
    kill it once ``timeout`` seconds after ``t0`` have passed. Returns the exit code, the child's
    own ``rusage``, whether it was killed for the timeout, and the wall seconds since ``t0``."""
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        with contextlib.suppress(ProcessLookupError):
            proc.kill()  # the pid stays ours until it is reaped below, so this cannot hit another process

    timer = None
    if timeout is not None:
        timer = threading.Timer(max(0.0, t0 + timeout - time.perf_counter()), kill)
        timer.daemon = True
        timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        if timer is not None:
            timer.cancel()
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
    return proc.returncode, usage, killed.is_set(), wall


class Starter:
    """The harness's one :mod:`bench.spawn` process, started at first use and kept for the run: it
    forks each timed command, so a command's peak RSS is its own (a fork of the harness would copy
    the harness's pages into it) and its wall time holds no first-fork cost."""

    SCRIPT = Path(__file__).with_name("spawn.py")

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _started(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            out, err = os.dup(sys.stdout.fileno()), os.dup(sys.stderr.fileno())
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, "-S", "-I", str(self.SCRIPT), str(out), str(err)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(out, err), text=True)
            finally:
                os.close(out)
                os.close(err)
        return self._proc

    def run(self, cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
            stdin: Path | None = None, stdout: Path | None = None, stderr: Path | None = None,
            timeout: float | None = None, memory_gb: float | None = None) -> dict:
        """Run ``cmd`` and return its figures: ``wall_s``, ``cpu_s``, ``peak_rss_mb`` (MiB),
        ``exit`` and ``killed`` (stopped after ``timeout`` seconds). Streams are file paths
        (``stdin`` default ``/dev/null``; ``stdout``/``stderr`` default the harness's own);
        ``env`` default the harness's environment; ``memory_gb`` caps the address space.

        Raises RuntimeError when the starter stops answering."""
        env = dict(env or os.environ)
        program = shutil.which(str(cmd[0]), path=env.get("PATH")) or str(cmd[0])  # searched here, not after the fork
        request = {"cmd": [program, *map(str, cmd[1:])], "cwd": str(cwd or ROOT), "env": env,
                   "stdin": str(stdin) if stdin else None, "stdout": str(stdout) if stdout else None,
                   "stderr": str(stderr) if stderr else None, "timeout": timeout, "memory_gb": memory_gb}
        with self._lock:
            proc = self._started()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"bench/spawn.py stopped (exit {proc.poll()}) while running {cmd[0]}")
        return json.loads(answer)

    def close(self) -> None:
        """End the starter (it exits at the end of its input)."""
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait()
            self._proc = None


STARTER = Starter()
atexit.register(STARTER.close)


def run_phase(name: str, args: dict, *, timeout: float | None = None, memory_gb: float | None = None) -> dict:
    """Run one phase in a fresh interpreter; its figures plus ``wall_s``, ``peak_rss_mb`` and
    ``process_cpu_s``.

    The child is reaped with ``os.wait4`` so ``ru_maxrss`` is that child's own peak (the same
    figure ``resource.getrusage(RUSAGE_CHILDREN)`` reports for a parent with one child).
    ``timeout`` (seconds) stops the phase; ``memory_gb`` caps its address space (``RLIMIT_AS``),
    so a phase that would exhaust a shared machine fails with ``MemoryError`` instead.
    """
    with tempfile.TemporaryDirectory(prefix="bench-phase-") as tmp:
        args_path, out_path = Path(tmp, "args.json"), Path(tmp, "out.json")
        args_path.write_text(json.dumps(args), encoding="utf-8")
        used = STARTER.run([sys.executable, "-m", "bench.phases", name, str(args_path), str(out_path)],
                           timeout=timeout, memory_gb=memory_gb)
        code, timed_out, wall = used["exit"], used["killed"], used["wall_s"]
        rss_mb, cpu = used["peak_rss_mb"], used["cpu_s"]
        partial = json.loads(out_path.read_text(encoding="utf-8")) if out_path.exists() else {}
        if timed_out or code != 0 or partial.get("partial"):
            why = f"stopped after {timeout:.0f} s" if timed_out else f"exited with {code}"
            if memory_gb and not timed_out:
                why += f" (address space capped at {memory_gb:g} GB)"
            return {**partial, "failed": f"phase {name} {why}", "wall_s": wall, "peak_rss_mb": rss_mb,
                    "process_cpu_s": cpu}
        result = partial
    result.update(wall_s=wall, peak_rss_mb=rss_mb, process_cpu_s=cpu)
    return result


def grep_baseline(corpus: Path, records: list[dict]) -> list[dict]:
    """``grep -rlF ID CORPUS`` per record, timed as a whole process: the user's alternative."""
    out = []
    for row in records:
        t0 = time.perf_counter()
        done = subprocess.run(["grep", "-rlF", "--", row["record"], str(corpus)], capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        files = sorted(str(Path(p).resolve()) for p in done.stdout.split("\n") if p)
        out.append({"record": row["record"], "set": row["set"], "seconds": seconds, "files": files})
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateNeo4j:
    """A Neo4j of our own (``docker/neo4j-local``'s jar, its own port and data folder), so a
    benchmark never touches a server that tests or colleagues are using."""

    def __init__(self, work: Path, *, password: str = "citegraph-bench"):
        self.work = work
        self.password = password
        self.port = _free_port()
        self.data = work / f"neo4j-{self.port}"
        self.log = work / f"neo4j-{self.port}.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 180) -> dict:
        jar = NEO4J_LOCAL / "target" / "neo4j-local.jar"
        if not jar.exists() or not (NEO4J_LOCAL / "target" / "lib").is_dir():
            subprocess.run(["mvn", "-q", "-B", "package"], cwd=NEO4J_LOCAL, check=True)
        shutil.rmtree(self.data, ignore_errors=True)
        self.data.mkdir(parents=True)
        env = {**os.environ, "CITEGRAPH_NEO4J_PASSWORD": self.password,
               "CITEGRAPH_NEO4J_PAGECACHE_MB": os.environ.get("CITEGRAPH_NEO4J_PAGECACHE_MB", "512")}
        heap = os.environ.get("CITEGRAPH_NEO4J_HEAP", "2g")
        java = str(Path(os.environ["JAVA_HOME"], "bin", "java")) if os.environ.get("JAVA_HOME") else "java"
        cmd = [java, "-Xms256m", f"-Xmx{heap}", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError",
               "-Dio.netty.tryReflectionSetAccessible=true", "-Dlog4j2.disable.jmx=true",
               "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
               "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
               "-cp", f"{jar}:{NEO4J_LOCAL / 'target' / 'lib'}/*", "citegraph.neo4jlocal.Neo4jLocal",
               str(self.data), str(self.port)]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        spec = {"kind": "neo4j", "uri": f"bolt://127.0.0.1:{self.port}", "user": "neo4j",
                "password": self.password, "database": "neo4j"}
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Neo4j exited during startup; see {self.log}")
            if "NEO4J-LOCAL READY" in self.log.read_text(errors="replace") and _bolt_ok(spec):
                return spec
            time.sleep(1)
        self.stop()
        raise RuntimeError(f"Neo4j did not answer within {timeout:.0f} s; see {self.log}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.data, ignore_errors=True)


def _bolt_ok(spec: dict) -> bool:
    try:
        from neo4j import GraphDatabase

        with GraphDatabase.driver(spec["uri"], auth=(spec["user"], spec["password"]), connection_timeout=5) as d:
            d.execute_query("RETURN 1")
        return True
    except Exception:  # noqa: BLE001 - any failure means "not ready yet"
        return False


def _neo4j_node_count(spec: dict) -> int:
    from bench.phases import open_store

    with open_store(spec) as store:
        return store.counts()["nodes"]


def _neo4j_wipe(spec: dict) -> None:
    from bench.phases import open_store

    from graph.stores.neo4j import Neo4jStore

    with open_store(spec) as store:
        assert isinstance(store, Neo4jStore)  # a neo4j spec's store
        store.clear()  # every citegraph node and relationship


def _dir_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


# -- whole citegraph processes -------------------------------------------------------------------

EXTRA_SET_INDEX = 9_000
"""Set number of the set that the add-one-set figure ingests: drawn by the generator like any other
set of the corpus seed (``plan_set(seed, 9000)``), so no corpus of up to 9,000 sets holds it."""

CLI_COMMANDS = ("rests-on", "stats", "check", "render", "records", "history", "search", "export", "startup", "version")
"""The ``citegraph`` commands timed as whole processes, each against ``grep -rlF ID CORPUS``;
``startup`` is ``citegraph --help`` and ``version`` ``citegraph --version``, which open no store;
``search`` looks for the record's id (a rare phrase), ``export`` writes the set's node-link JSON."""

SEARCH_COMMON = "the"
"""The common word whose search is timed as a whole process (:func:`search_phase`)."""

_STORE_VARIABLES = ("CITEGRAPH_STORE", "CITEGRAPH_NEO4J_URI", "CITEGRAPH_NEO4J_USER", "CITEGRAPH_NEO4J_PASSWORD",
                    "CITEGRAPH_NEO4J_DATABASE")



def child_env() -> dict[str, str]:
    """The environment of a timed process: the harness's, except that Python may write bytecode
    caches (the untimed warm-up runs write them, as any installed copy has them) and that no store is
    chosen by a variable the caller happened to export (each command names its store)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and k not in _STORE_VARIABLES}


def neo4j_env(spec: dict) -> dict[str, str]:
    """The environment of a timed ``citegraph`` process that reads the Neo4j of ``spec`` (its URI,
    user, password and database as ``CITEGRAPH_NEO4J_*``, which select Neo4j)."""
    return {**child_env(), "CITEGRAPH_NEO4J_URI": spec["uri"], "CITEGRAPH_NEO4J_USER": spec.get("user", "neo4j"),
            "CITEGRAPH_NEO4J_PASSWORD": spec.get("password", ""), "CITEGRAPH_NEO4J_DATABASE": spec.get("database", "neo4j")}


def citegraph_executable() -> Path | None:
    """The ``citegraph`` console script beside the Python running the harness (the one
    ``bench/run`` chose), else the first on ``PATH``; None when there is none."""
    beside = Path(sys.executable).parent / "citegraph"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("citegraph")
    return Path(found) if found else None


def run_process(cmd: list[str], *, timeout: float | None = None, memory_gb: float | None = None,
                ok: tuple[int, ...] = (0,), stdout: Path | None = None, env: dict[str, str] | None = None) -> dict:
    """One whole process, started by :data:`STARTER` and timed from just before its fork to its
    reaping by ``os.wait4``: ``wall_s``, ``cpu_s`` (user + system), ``peak_rss_mb`` (its own
    ``ru_maxrss``) and ``exit``;
    ``failed`` (with the tail of its standard error) unless it exited with a code in ``ok``.
    Standard output goes to ``stdout`` (a file, so a large output cannot block the child), else
    to ``/dev/null``. ``env``: the process's environment (default :func:`child_env`)."""
    with tempfile.TemporaryDirectory(prefix="bench-process-") as tmp:
        err = Path(tmp, "stderr")
        used = STARTER.run(cmd, env=env or child_env(), stdout=stdout or Path(os.devnull), stderr=err,
                           timeout=timeout, memory_gb=memory_gb)
        code, timed_out = used["exit"], used["killed"]
        row = {"wall_s": used["wall_s"], "cpu_s": used["cpu_s"], "peak_rss_mb": used["peak_rss_mb"], "exit": code}
        if timed_out or code not in ok:
            tail = err.read_bytes()[-2000:].decode("utf-8", "replace").strip()
            why = f"stopped after {timeout:.0f} s" if timed_out else f"exited with {code}"
            row["failed"] = f"{Path(cmd[0]).name} {' '.join(cmd[1:3])} {why}" + (f": {tail}" if tail else "")
    return row


def cli_records(records: list[dict], n: int) -> list[dict]:
    """The records timed as whole processes: the ``n`` most-cited of the hot group and the ``n``
    least-cited of the cold group (the selection lists each group most-cited first).

    >>> rows = [{"group": "hot", "record": f"H{i}"} for i in range(4)] + [{"group": "cold", "record": f"C{i}"} for i in range(4)]
    >>> [r["record"] for r in cli_records(rows, 2)]
    ['H0', 'H1', 'C2', 'C3']
    """
    hot = [r for r in records if r["group"] == "hot"][:n]
    cold = [r for r in records if r["group"] == "cold"]
    return hot + (cold[-n:] if n else [])


def pair_records(records: list[dict], reference: list[dict]) -> list[dict | None]:
    """For each record, the reference record (of size S) timed beside it: the one of the same
    group and rank within the group, cycling when the reference group is shorter; None when the
    reference has no record of that group.

    >>> rows = [{"group": g, "record": f"{g}{i}"} for g in ("hot", "cold") for i in range(3)]
    >>> ref = [{"group": "hot", "record": "h0"}, {"group": "hot", "record": "h1"}, {"group": "cold", "record": "c0"}]
    >>> [r["record"] for r in pair_records(rows, ref)]
    ['h0', 'h1', 'h0', 'c0', 'c0', 'c0']
    """
    groups: dict[str, list[dict]] = {}
    for r in reference:
        groups.setdefault(r["group"], []).append(r)
    rank: dict[str, int] = {}
    out: list[dict | None] = []
    for r in records:
        i = rank[r["group"]] = rank.get(r["group"], -1) + 1
        same = groups.get(r["group"])
        out.append(same[i % len(same)] if same else None)
    return out


def _cli_command(cli: Path, command: str, row: dict, home: Path | None) -> list[str]:
    """The argument vector of ``command`` for ``row``'s record and set; on the embedded store in
    ``home``, or, with None, on the store the environment names (Neo4j, :func:`neo4j_env`)."""
    h = ["--home", str(home)] if home is not None else []
    return {
        "rests-on": [str(cli), "rests-on", row["record"], "--set", row["set"], "--json", *h],
        "stats": [str(cli), "stats", "--json", *h],
        "sets": [str(cli), "sets", "--format", "json", *h],
        "check": [str(cli), "check", "--set", row["set"], *h],
        "render": [str(cli), "render", "--rests-on", row["record"], "--set", row["set"], *h],
        "records": [str(cli), "records", "--set", row["set"], *h],
        "history": [str(cli), "history", row["set"], *h],
        "search": [str(cli), "search", row["record"], *h],
        "export": [str(cli), "export", "--set", row["set"], "--format", "json", *h],
        "startup": [str(cli), "--help"],
        "version": [str(cli), "--version"],
    }[command]


def cli_phase(cli: Path, home: Path, corpus: Path, records: list[dict], expected: dict[tuple[str, str], int],
              args: argparse.Namespace, reference: dict | None = None) -> dict:
    """Each of :data:`CLI_COMMANDS` and ``grep -rlF ID CORPUS`` as whole processes, per record,
    interleaved (grep, then each command, for one record before the next), after one untimed
    warm-up of each. ``expected`` is the in-process rests-on result count per (set, record):
    a whole-process answer with another count is reported as a mismatch.

    With ``reference`` (``{"home": <size S's home folder>, "records": <its whole-process
    records>}``), each record's round also runs ``rests-on`` on the size-S store for the S record
    :func:`pair_records` pairs with it (command ``rests-on@S``), so the ratio to S is measured
    side by side, under the same machine load and the same code."""
    paired = pair_records(records, reference["records"]) if reference else [None] * len(records)
    runs: list[dict] = []
    failed = []
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        out = Path(tmp, "stdout")

        def one(command: str, row: dict, timed: bool = True) -> None:
            if command == "grep":
                cmd = ["grep", "-rlF", "--", row["record"], str(corpus)]
            elif command == "rests-on@S":
                assert reference is not None  # run only with a reference
                cmd = _cli_command(cli, "rests-on", row, Path(reference["home"]))
            else:
                cmd = _cli_command(cli, command, row, home)
            r = run_process(cmd, timeout=args.phase_timeout, memory_gb=args.phase_memory, stdout=out,
                            ok=(0, 1) if command in ("check", "grep") else (0,))
            r.update(command=command, set=row["set"], record=row["record"], output_bytes=out.stat().st_size)
            if command.startswith("rests-on") and "failed" not in r:
                try:
                    r["results"] = len(json.loads(out.read_text(encoding="utf-8"))["results"])
                except (ValueError, KeyError) as exc:
                    r["failed"] = f"rests-on --json printed no results list: {exc}"
            if "failed" in r:
                failed.append(r["failed"])
            if timed:
                runs.append(r)

        for command in ("grep", *CLI_COMMANDS):
            if records:
                one(command, records[0], timed=False)  # warm-up: page cache, bytecode caches
        if paired and paired[0] is not None:
            one("rests-on@S", paired[0], timed=False)
        for row, ref in zip(records, paired):
            for command in ("grep", *CLI_COMMANDS):
                one(command, row)
                if command == "rests-on" and ref is not None:
                    one("rests-on@S", ref)
    mismatches = [f"{r['set']}/{r['record']}: {r['results']} results, in-process {expected[(r['set'], r['record'])]}"
                  for r in runs if r["command"] == "rests-on" and "results" in r
                  and (r["set"], r["record"]) in expected and r["results"] != expected[(r["set"], r["record"])]]
    result: dict[str, Any] = {"records": len(records), "runs": runs, "mismatches": mismatches,
                              "peak_rss_mb": max((r["peak_rss_mb"] for r in runs), default=0)}
    if failed:
        result["failed"] = f"phase cli: {len(failed)} processes failed; first: {failed[0]}"
    return result


WHOLE_STORE_COMMANDS: dict[str, tuple[str, ...]] = {
    "stats": ("stats", "--json"), "sets": ("sets", "--format", "json"), "check": ("check", "--json"),
    "verify": ("verify", "--json")}
"""The whole-store commands timed against a one-set store (:func:`whole_store_phase`)."""


def whole_store_phase(cli: Path, home: Path, extra: dict, work: Path, args: argparse.Namespace) -> dict:
    """Each of :data:`WHOLE_STORE_COMMANDS` as a whole process on the store in ``home`` and on a
    store holding only the extra set (``citegraph ingest SETDIR`` into a fresh home folder, the
    one-set store), interleaved, after one untimed warm-up of each (which also lets the store keep
    its per-set results); ``args.add_repeats`` timed rounds. Then each once with ``--fresh`` on the
    store: its standard output must be byte for byte the kept answer's (``mismatches``)."""
    one = work / "one-set"
    shutil.rmtree(one, ignore_errors=True)
    made = run_process([str(cli), "ingest", extra["dir"], "--home", str(one)], timeout=args.phase_timeout)
    if "failed" in made:
        return {"failed": f"phase whole-store: the one-set store: {made['failed']}"}
    runs: list[dict] = []
    failed, mismatches = [], []
    with tempfile.TemporaryDirectory(prefix="bench-whole-") as tmp:
        def one_run(command: str, where: str, h: Path, *extra_args: str, keep: bool = True) -> Path:
            out = Path(tmp, f"{command}-{where}{'-'.join(extra_args)}")
            r = run_process([str(cli), *WHOLE_STORE_COMMANDS[command], *extra_args, "--home", str(h)],
                            timeout=args.phase_timeout, memory_gb=args.phase_memory, stdout=out,
                            ok=(0, 1) if command in ("check", "verify") else (0,))
            r.update(command=command, store=where, fresh=bool(extra_args))
            if "failed" in r:
                failed.append(r["failed"])
            if keep:
                runs.append(r)
            return out

        for command in WHOLE_STORE_COMMANDS:
            one_run(command, "store", home, keep=False)
            one_run(command, "one-set", one, keep=False)
        for _ in range(args.add_repeats):
            for command in WHOLE_STORE_COMMANDS:
                one_run(command, "store", home)
                one_run(command, "one-set", one)
        for command in WHOLE_STORE_COMMANDS:
            kept = one_run(command, "store", home, keep=False)
            fresh = one_run(command, "store", home, "--fresh")
            if kept.read_bytes() != fresh.read_bytes():
                mismatches.append(command)
    result: dict[str, Any] = {"runs": runs, "mismatches": mismatches,
                              "peak_rss_mb": max((r["peak_rss_mb"] for r in runs), default=0)}
    if failed:
        result["failed"] = f"phase whole-store: {len(failed)} processes failed; first: {failed[0]}"
    return result


def write_extra_set(out: Path, *, seed: int, commit: str, source_root: str) -> dict:
    """Write the set the add-one-set figure ingests (set :data:`EXTRA_SET_INDEX` of ``seed``) into
    a fresh ``out/<slug>``; its folder, run-id, member count and member bytes."""
    from bench.generate import plan_set, render_set

    plan = plan_set(seed, EXTRA_SET_INDEX, width=4)
    files, _, citations = render_set(plan, commit, source_root)
    shutil.rmtree(out, ignore_errors=True)
    folder = out / plan.slug
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    members = [n for n in files if n.endswith(".md")]
    return {"dir": str(folder), "set": plan.run_id, "documents": len(members),
            "bytes": sum(len(files[n]) for n in members), "citations": citations}


def changed_bytes(before: Path, after: Path, *, block: int = 4096) -> int:
    """Bytes of the files under ``after`` that differ from the same file under ``before``: every
    ``block``-sized block that differs counts whole (the last block of a file by its length),
    except that a block which only grew counts its new bytes; a new file counts whole; removed
    files do not count."""
    total = 0
    for path in sorted(p for p in after.rglob("*") if p.is_file()):
        old = before / path.relative_to(after)
        if not old.is_file():
            total += path.stat().st_size
            continue
        with open(old, "rb") as a, open(path, "rb") as b:
            while True:
                x, y = a.read(block), b.read(block)
                if not y:
                    break
                if x != y:
                    total += len(y) - len(x) if len(x) < len(y) and y.startswith(x) else len(y)
    return total


def add_set_phase(cli: Path, home: Path, extra: dict, work: Path, args: argparse.Namespace) -> dict:
    """``citegraph ingest SETDIR --home H`` of one set not in the corpus, as a whole process, into
    a copy of this size's home folder (every file copied, so the measured store stays as it was)
    and into an empty home folder, alternately, ``args.add_repeats`` times each; the home
    folder's growth and the bytes that changed (:func:`changed_bytes` against the original). The
    copy is synced to disk before the timed process starts: a user's store is not a file written a
    moment ago, and the first commit's ``fsync`` would otherwise pay for writing the whole copy back."""
    runs: dict[str, list[dict]] = {"store": [], "empty": []}
    failed = []
    for i in range(args.add_repeats):
        for target in ("empty", "store"):
            h = work / f"add-set-{target}"
            shutil.rmtree(h, ignore_errors=True)
            if target == "store":
                shutil.copytree(home, h)
            else:
                h.mkdir(parents=True)
            os.sync()  # the copy's dirty pages written back now, not by the timed process's first fsync
            before = _dir_size(h)
            r = run_process([str(cli), "ingest", extra["dir"], "--home", str(h)], timeout=args.phase_timeout,
                            memory_gb=args.phase_memory)
            r.update(before_bytes=before, after_bytes=_dir_size(h))
            if "failed" in r:
                failed.append(r["failed"])
            elif i == 0:
                r["changed_bytes"] = changed_bytes(home, h) if target == "store" else r["after_bytes"]
            runs[target].append(r)
            shutil.rmtree(h, ignore_errors=True)
    result: dict[str, Any] = {"set": extra, **runs,
                              "peak_rss_mb": max((r["peak_rss_mb"] for rs in runs.values() for r in rs), default=0)}
    if failed:
        result["failed"] = f"phase add-set: {len(failed)} ingests failed; first: {failed[0]}"
    return result


def _vmhwm_mb(pid: int) -> float | None:
    """Peak resident set (``VmHWM``) of a live process, from ``/proc/PID/status``."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _get_health(port: int, timeout: float = 2.0) -> tuple[int, bytes]:
    """``GET /health`` on the loopback interface, one new connection per request (as ``curl``)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", "/health")
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


KEEPALIVE_GRAPHQL = "query($r: String!, $s: String) { restsOn(record: $r, set: $s) { count results { statement direct depth } } }"
"""The GraphQL document the kept-alive requests send (:func:`keepalive_requests`)."""


def keepalive_requests(record: str, set_id: str | None) -> dict[str, tuple[str, str, dict | None, dict | None]]:
    """The kept-alive requests of the bench, by name (``health``, ``rest``, ``graphql``): method,
    path, query parameters and JSON body, for ``record`` in ``set_id``."""
    params = {"set": set_id} if set_id else None
    return {"health": ("GET", "/health", None, None),
            "rest": ("GET", f"/records/{record}/rests-on", params, None),
            "graphql": ("POST", "/graphql", None, {"query": KEEPALIVE_GRAPHQL, "variables": {"r": record, "s": set_id}})}


def keepalive_times(port: int, row: dict, n: int, *, pid: int | None = None,
                    cpu: dict[str, float] | None = None) -> dict[str, list[float]]:
    """Seconds of each of ``n`` requests on one kept-alive httpx connection (the notebook client's
    library), after one untimed request each: ``/health``, REST ``rests-on`` and GraphQL
    ``restsOn`` of ``row``'s record in its set. With the server's ``pid`` and a ``cpu`` dict, also
    the server's CPU seconds per request of each (``utime + stime`` of ``/proc/PID/stat`` over the
    ``n``), into ``cpu[name]``: what tells a server that works more from a machine that runs slower.

    Raises
    ------
    RuntimeError
        A request did not answer 200, or GraphQL answered errors.
    """
    import httpx

    times: dict[str, list[float]] = {}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        for name, (method, path, params, body) in keepalive_requests(row["record"], row["set"]).items():
            first = client.request(method, path, json=body, params=params)
            if first.status_code != 200 or (name == "graphql" and first.json().get("errors")):
                raise RuntimeError(f"{method} {path} answered {first.status_code}: {first.text[:300]}")
            times[name] = []
            before = process_cpu_s(pid) if pid is not None and cpu is not None else None
            for _ in range(n):
                t = time.perf_counter()
                client.request(method, path, json=body, params=params).raise_for_status()
                times[name].append(time.perf_counter() - t)
            if before is not None and cpu is not None and pid is not None:
                cpu[name] = (process_cpu_s(pid) - before) / n
    return times


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> float:
    """CPU seconds (user + system, every thread) a live process has used, from ``/proc/PID/stat``
    (in clock ticks: 10 ms each on Linux, so time many requests at once)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


class Served:
    """A ``citegraph serve`` whole process on a free loopback port (its own session, so it is stopped
    with whatever it started): :meth:`wait_ready` polls ``/health``, :meth:`stop` sends SIGTERM
    (SIGKILL after 30 s) and reaps it with ``os.wait4``. Use it as a context manager: the server is
    always stopped."""

    def __init__(self, cli: Path, store_args: list[str], log_path: Path, *, env: dict[str, str] | None = None,
                 memory_gb: float | None = None):
        self.port = _free_port()
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115 - closed by stop()
        cmd = [str(cli), "serve", *store_args, "--host", "127.0.0.1", "--port", str(self.port)]
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                     cwd=ROOT, env=env or child_env(), start_new_session=True,
                                     preexec_fn=_address_cap(memory_gb))
        self.reaped: tuple[int, Any] | None = None
        self.stopped_by: str | None = None

    def wait_ready(self, timeout: float) -> tuple[float, Any] | None:
        """Seconds from the start to the first 200 on ``/health`` (tried every 10 ms) and that
        answer's JSON; None when the process exited first (``reaped`` then holds its exit) or
        ``timeout`` seconds passed."""
        while time.perf_counter() - self.started < timeout:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:  # exited before answering
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.reaped = (self.proc.returncode, usage)
                return None
            try:
                code, body = _get_health(self.port)
            except (OSError, http.client.HTTPException):
                code, body = 0, b""
            if code == 200:
                ready = time.perf_counter() - self.started
                try:
                    return ready, json.loads(body)
                except ValueError:
                    return ready, body[:200].decode("utf-8", "replace")
            time.sleep(0.01)
        return None

    def stop(self) -> tuple[int, Any]:
        """Stop the server (if it still runs) and return its exit code and ``rusage``."""
        if self.reaped is None:
            t = time.perf_counter()
            self.proc.send_signal(signal.SIGTERM)
            code, usage, killed, _ = _reap(self.proc, t, 30)
            self.reaped = (code, usage)
            self.stopped_by = "SIGKILL after 30 s" if killed else "SIGTERM"
        self._log.close()
        return self.reaped

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-1500:].strip()

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_phase(cli: Path, home: Path, args: argparse.Namespace, log_path: Path, row: dict | None = None) -> dict:
    """``citegraph serve --home H --port P`` (a free loopback port) as a whole process: seconds from
    just before it starts to the first 200 on ``/health`` (tried every 10 ms, at most
    ``args.serve_timeout`` s); then ``args.health_requests`` timed ``/health`` requests, each on a
    new connection; with ``row`` (a record and its set), ``args.keepalive_requests`` each on one
    kept-alive connection (:func:`keepalive_times`); its ``VmHWM`` (its peak RSS: ``ru_maxrss`` would
    count the harness's pages the fork copied); then SIGTERM (SIGKILL after 30 s) and its CPU from
    ``os.wait4``. The server is always stopped."""
    with Served(cli, ["--home", str(home)], log_path, memory_gb=args.phase_memory) as server:
        result: dict[str, Any] = {"port": server.port, "log": str(log_path)}
        ready = server.wait_ready(args.serve_timeout)
        if ready is not None:
            result["ready_s"], result["health"] = ready
            times, codes = [], []
            for _ in range(args.health_requests):
                t = time.perf_counter()
                try:
                    code, _ = _get_health(server.port)
                except (OSError, http.client.HTTPException):
                    code = 0  # reported below as a failed phase
                times.append(time.perf_counter() - t)
                codes.append(code)
            result.update(health_s=times, health_codes=sorted(set(codes)))
            keepalive = getattr(args, "keepalive_requests", 0)  # apart: in the condition mypy types the 0 as a bool
            if row is not None and keepalive:
                try:
                    cpu: dict[str, float] = {}
                    result.update(keepalive_load=os.getloadavg()[0], keepalive_cpu_s=cpu)
                    result["keepalive_s"] = keepalive_times(server.port, row, args.keepalive_requests,
                                                            pid=server.proc.pid, cpu=cpu)
                except Exception as exc:  # noqa: BLE001 - RuntimeError, httpx.HTTPError: a failed phase, reported below
                    result["keepalive_failed"] = f"{type(exc).__name__}: {exc}"
            result["vmhwm_mb"] = _vmhwm_mb(server.proc.pid)
        code, usage = server.stop()
    if server.stopped_by:
        result["stopped_by"] = server.stopped_by
    # ru_maxrss would include the harness's pages the fork copied; VmHWM is kept per address space,
    # so it starts again at exec and is the server's own
    result.update(exit=code, cpu_s=usage.ru_utime + usage.ru_stime, peak_rss_mb=result.get("vmhwm_mb") or 0.0)
    if "ready_s" not in result:
        why = f"exited with {code}" if "stopped_by" not in result else f"no 200 within {args.serve_timeout:.0f} s"
        tail = server.log_tail()
        result["failed"] = f"phase serve: {why}" + (f": {tail}" if tail else "")
    elif any(c != 200 for c in result["health_codes"]):
        result["failed"] = f"phase serve: /health answered {result['health_codes']}"
    elif "keepalive_failed" in result:
        result["failed"] = f"phase serve: keep-alive requests: {result['keepalive_failed']}"
    return result


SIDE_BY_SIDE_ROUNDS = 3
"""Rounds of kept-alive requests to the two servers of :func:`side_by_side_phase`, alternating which goes first."""


def side_by_side_phase(cli: Path, home: Path, spec: dict, records: list[dict], args: argparse.Namespace,
                       work: Path) -> dict:
    """The embedded store in ``home`` and the Neo4j of ``spec``, holding the same corpus, timed side by
    side as whole processes (issue 25): each of :data:`PAIRED_COMMANDS` for each record on one store,
    then on the other, the first store alternating from one record to the next, after an untimed
    warm-up of each (``runs``: rows with ``command`` and ``store``); then a ``citegraph serve`` of each,
    both running, and ``args.keepalive_requests`` kept-alive requests each of ``/health``, REST
    rests-on and GraphQL ``restsOn`` (:func:`keepalive_times`) to one server then the other, in
    :data:`SIDE_BY_SIDE_ROUNDS` rounds alternating which goes first (``keepalive_s[store][name]``).
    A ``rests-on --json`` answer of another length on the two stores is a ``mismatch``."""
    envs = {"embedded": child_env(), "neo4j": neo4j_env(spec)}
    homes: dict[str, Path | None] = {"embedded": home, "neo4j": None}
    runs: list[dict] = []
    failed: list[str] = []
    mismatches: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-pair-") as tmp:
        def one(command: str, row: dict, store: str, timed: bool = True) -> bytes:
            out = Path(tmp, f"{store}-{command}")
            r = run_process(_cli_command(cli, command, row, homes[store]), timeout=args.phase_timeout,
                            memory_gb=args.phase_memory, stdout=out, env=envs[store],
                            ok=(0, 1) if command == "check" else (0,))
            r.update(command=command, store=store, set=row["set"], record=row["record"])
            if "failed" in r:
                failed.append(f"{store}: {r['failed']}")
            if timed:
                runs.append(r)
            return out.read_bytes()

        for command in PAIRED_COMMANDS:
            if records:
                for store in envs:
                    one(command, records[0], store, timed=False)
        for i, row in enumerate(records):
            order = list(envs) if i % 2 == 0 else list(reversed(envs))
            for command in PAIRED_COMMANDS:
                answers = {store: one(command, row, store) for store in order}
                if command == "rests-on" and len(set(answers.values())) > 1:
                    mismatches.append(f"{row['set']}/{row['record']}: rests-on --json differs between the stores")
    result: dict[str, Any] = {"records": len(records), "runs": runs, "mismatches": mismatches}
    requests: int = getattr(args, "keepalive_requests", 0)
    if records and requests:
        keepalive: dict[str, dict[str, list[float]]] = {store: {} for store in envs}
        keepalive_cpu: dict[str, dict[str, list[float]]] = {store: {} for store in envs}  # per round
        result["keepalive_load"] = os.getloadavg()[0]
        with contextlib.ExitStack() as stack:
            servers = {store: stack.enter_context(Served(cli, ["--home", str(home)] if homes[store] else [],
                                                         work / f"serve-side-by-side-{store}.log", env=envs[store],
                                                         memory_gb=args.phase_memory))
                       for store in envs}
            ready = {store: s.wait_ready(args.serve_timeout) for store, s in servers.items()}
            result["ready_s"] = {store: r[0] if r else None for store, r in ready.items()}
            if all(ready.values()):
                for k in range(SIDE_BY_SIDE_ROUNDS):
                    for store in (list(envs) if k % 2 == 0 else list(reversed(envs))):
                        cpu: dict[str, float] = {}
                        try:
                            times = keepalive_times(servers[store].port, records[0], requests,
                                                    pid=servers[store].proc.pid, cpu=cpu)
                        except Exception as exc:  # noqa: BLE001 - RuntimeError, httpx.HTTPError: a failed phase
                            failed.append(f"{store}: serve keep-alive: {type(exc).__name__}: {exc}")
                            continue
                        for name, ts in times.items():
                            keepalive[store].setdefault(name, []).extend(ts)
                        for name, per_request in cpu.items():
                            keepalive_cpu[store].setdefault(name, []).append(per_request)
            else:
                failed.extend(f"{store}: serve gave no 200 within {args.serve_timeout:.0f} s: {servers[store].log_tail()}"
                              for store, r in ready.items() if not r)
        result["keepalive_s"] = keepalive
        result["keepalive_cpu_s"] = {store: {name: statistics.fmean(per) for name, per in kinds.items()}
                                     for store, kinds in keepalive_cpu.items()}
    result["peak_rss_mb"] = max((r["peak_rss_mb"] for r in runs), default=0)
    if failed:
        result["failed"] = f"phase side-by-side: {len(failed)} failures; first: {failed[0]}"
    return result


def side_by_side_figures(phase: dict) -> dict:
    """The Neo4j store's flat figures from :func:`side_by_side_phase`: per command of
    :data:`PAIRED_COMMANDS` the median wall and CPU on Neo4j and on the embedded store
    (``cli_<command>_p50_ms``, ``cli_<command>_embedded_p50_ms``, ``…_cpu_…``) and their ratio
    ``cli_<command>_vs_embedded``; per kept-alive request the p50 on each and the ratio
    (``serve_keepalive_<name>_p50_ms``, ``serve_keepalive_<name>_embedded_p50_ms``,
    ``serve_keepalive_<name>_vs_embedded``), and each server's CPU per request
    (``serve_keepalive_<name>_cpu_ms``, ``serve_keepalive_<name>_embedded_cpu_ms``).

    >>> runs = [{"command": "stats", "store": s, "wall_s": w, "cpu_s": w / 2} for s, w in
    ...         (("embedded", 0.2), ("neo4j", 0.3), ("embedded", 0.2), ("neo4j", 0.36))]
    >>> f = side_by_side_figures({"runs": runs, "keepalive_s": {"embedded": {"rest": [0.004]}, "neo4j": {"rest": [0.006]}}})
    >>> round(f["cli_stats_vs_embedded"], 2), f["serve_keepalive_rest_p50_ms"], round(f["serve_keepalive_rest_vs_embedded"], 2)
    (1.65, 6.0, 1.5)
    """
    fig: dict[str, Any] = {}
    for command in PAIRED_COMMANDS:
        key = "cli_" + command.replace("-", "_")
        by = {store: [r for r in phase.get("runs", []) if r["command"] == command and r["store"] == store
                      and "failed" not in r] for store in ("embedded", "neo4j")}
        if not (by["embedded"] and by["neo4j"]):
            continue
        fig[f"{key}_p50_ms"] = neo = _median_ms(by["neo4j"])
        fig[f"{key}_cpu_p50_ms"] = _median_ms(by["neo4j"], "cpu_s")
        fig[f"{key}_embedded_p50_ms"] = emb = _median_ms(by["embedded"])
        fig[f"{key}_embedded_cpu_p50_ms"] = _median_ms(by["embedded"], "cpu_s")
        fig[f"{key}_vs_embedded"] = neo / emb if neo is not None and emb else None
    kept = phase.get("keepalive_s") or {}
    for name in (kept.get("neo4j") or {}):
        neo = percentile([t * 1000 for t in kept["neo4j"][name]], 50)
        emb = percentile([t * 1000 for t in (kept.get("embedded") or {}).get(name, [])], 50)
        fig[f"serve_keepalive_{name}_p50_ms"] = neo
        fig[f"serve_keepalive_{name}_embedded_p50_ms"] = emb
        fig[f"serve_keepalive_{name}_vs_embedded"] = neo / emb if emb == emb and emb else None
    for store, suffix in (("neo4j", ""), ("embedded", "_embedded")):
        for name, cpu_s in ((phase.get("keepalive_cpu_s") or {}).get(store) or {}).items():
            fig[f"serve_keepalive_{name}{suffix}_cpu_ms"] = cpu_s * 1000
    fig["cli_side_by_side_mismatches"] = len(phase.get("mismatches", []))
    return fig


def search_phase(cli: Path, home: Path, args: argparse.Namespace) -> dict:
    """``citegraph search`` of :data:`SEARCH_COMMON` (``--format json``) as whole processes,
    ``args.search_repeats`` times after one untimed warm-up: each run's wall, CPU and peak RSS, and
    the total and hit count it printed."""
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        out = Path(tmp, "stdout")
        cmd = [str(cli), "search", SEARCH_COMMON, "--format", "json", "--home", str(home)]
        for i in range(args.search_repeats + 1):
            r = run_process(cmd, timeout=args.phase_timeout, stdout=out)
            if "failed" not in r:
                try:
                    report = json.loads(out.read_text(encoding="utf-8"))
                    r.update(total=report["total"], hits=len(report["hits"]))
                except (ValueError, KeyError) as exc:
                    r["failed"] = f"search --format json printed no report: {exc}"
            if "failed" in r:
                return {"runs": runs, "failed": f"phase search: {r['failed']}"}
            if i:
                runs.append(r)
    return {"runs": runs, "peak_rss_mb": max(r["peak_rss_mb"] for r in runs)}


def bench_processes(cli: Path | None, home: Path, corpus_dir: Path, manifest: dict | None, records: list[dict],
                    rests: dict, work: Path, args: argparse.Namespace, log, reference: dict | None = None) -> dict:
    """The whole-process phases on the embedded store in ``home``: ``cli``, ``add-set``, ``serve``
    (``reference``: size S's home folder and records, see :func:`cli_phase`)."""
    if cli is None:
        return {"cli": {"skipped": f"no citegraph console script beside {sys.executable} or on PATH"}}
    phases: dict[str, dict] = {}
    picked = cli_records(records, args.cli_records)
    expected = {(r["set"], r["record"]): r["results"] for r in rests.get("per_record", [])}
    side = reference if reference and reference.get("home") and Path(reference["home"]).is_dir() else None
    log(f"  [embedded] whole processes: {', '.join(CLI_COMMANDS)}{', rests-on on the S store' if side else ''}"
        f" and grep × {len(picked)} records …")
    phases["cli"] = cli_phase(cli, home, corpus_dir, picked, expected, args, side)
    if manifest is not None:
        commit, source_root = manifest["source"]["base"], str(corpus_dir.parent / manifest["source"]["path"])
        extra_dir = corpus_dir.parent / "extra"
    else:
        commit, source_root, extra_dir = "0" * 40, str(work / "extra-source"), work / f"extra-seed{args.seed}"
    extra = write_extra_set(extra_dir, seed=args.seed, commit=commit, source_root=source_root)
    log(f"  [embedded] whole processes: {', '.join(WHOLE_STORE_COMMANDS)} on the store and on a one-set store …")
    phases["whole-store"] = whole_store_phase(cli, home, extra, work, args)
    log(f"  [embedded] whole processes: ingest one more set ({extra['documents']} members) × {args.add_repeats} …")
    phases["add-set"] = add_set_phase(cli, home, extra, work, args)
    log(f"  [embedded] whole processes: search {SEARCH_COMMON} × {args.search_repeats} …")
    phases["search"] = search_phase(cli, home, args)
    log("  [embedded] whole processes: serve …")
    phases["serve"] = serve_phase(cli, home, args, work / f"serve-{home.name}.log", picked[0] if picked else None)
    return phases


# -- one size ----------------------------------------------------------------------------------


def ensure_corpus(work: Path, size: str, seed: int) -> tuple[Path, dict, float | None]:
    """The generated corpus for (size, seed) under ``work``, generated unless already there."""
    root = work / f"{size}-seed{seed}"
    manifest_path = root / "bench-manifest.json"
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("generator_version") == GENERATOR_VERSION:
            return root, manifest, None
    g = generate(root, size=size, seed=seed, force=True)
    return root, json.loads(manifest_path.read_text(encoding="utf-8")), g.seconds


def _rests_on_figures(rests: dict, grep: list[dict] | None) -> dict:
    rows = rests["per_record"]
    med = [statistics.median(r["times"]) * 1000 for r in rows]
    med_cpu = [statistics.median(r["cpu"]) * 1000 for r in rows if r.get("cpu")]
    fig: dict[str, Any] = {
        "rests_on_open_s": rests["open_s"],
        "rests_on_p50_ms": percentile(med, 50), "rests_on_p95_ms": percentile(med, 95),
        "rests_on_p99_ms": percentile(med, 99),
        "rests_on_first_p50_ms": percentile([r["first_s"] * 1000 for r in rows], 50),
        "rests_on_cpu_p50_ms": percentile(med_cpu, 50),
        "rests_on_results": sum(r["results"] for r in rows),
        "rests_on_transitive": sum(r["transitive"] for r in rows),
    }
    for group in ("hot", "cold"):
        g = [m for m, r in zip(med, rows) if r["group"] == group]
        fig[f"rests_on_{group}_p50_ms"] = percentile(g, 50)
        fig[f"rests_on_{group}_p99_ms"] = percentile(g, 99)
        fig[f"rests_on_{group}_citations"] = statistics.mean([r["citations"] for r in rows if r["group"] == group]) if g else 0
    if grep:
        by_id = {(g["set"], g["record"]): g for g in grep}
        grep_ms = [by_id[(r["set"], r["record"])]["seconds"] * 1000 for r in rows]
        fig["grep_p50_ms"] = percentile(grep_ms, 50)
        fig["grep_speedup"] = fig["grep_p50_ms"] / fig["rests_on_p50_ms"] if fig["rests_on_p50_ms"] else float("inf")
        unseen = missed = 0
        for r in rows:
            files = set(by_id[(r["set"], r["record"])]["files"])
            reached = {str(Path(p).resolve()) for p in r["paths"]}
            unseen += len(reached - files)
            missed += len({str(Path(p).resolve()) for p in r["direct_paths"]} - files)
        fig["grep_missed_transitive_statements"] = fig["rests_on_transitive"]
        fig["grep_missed_files"] = unseen
        fig["grep_missed_direct_files"] = missed
    return fig


def bench_store(store: str, spec: dict, corpus_dir: Path, manifest: dict | None, floor: dict,
                records: list[dict] | None, args: argparse.Namespace, log) -> tuple[dict, list[dict] | None]:
    """All phases on one store; the phase outputs and flat figures, and the records chosen."""
    out: dict[str, Any] = {"phases": {}}
    phases = out["phases"]
    log(f"  [{store}] ingest …")
    phases["ingest"] = ing = run_phase("ingest", {"corpus": str(corpus_dir), "store": spec},
                                       timeout=args.phase_timeout, memory_gb=args.phase_memory)
    if "failed" in ing:
        log(f"  [{store}] ingest {ing['failed']}; later phases skipped")
        return out, records
    log(f"  [{store}] ingest {ing['documents']} documents in {ing['seconds']:.1f} s; check …")
    phases["check"] = run_phase("check", {"store": spec})
    if records is None:
        sel = run_phase("select", {"store": spec, "seed": args.seed, "hot": args.hot, "cold": args.cold})
        records = sel.get("records", [])
        out["selection"] = {"candidates": sel.get("candidates"), "peak_rss_mb": sel.get("peak_rss_mb")}
    log(f"  [{store}] rests-on × {len(records)} …")
    phases["rests-on"] = run_phase("rests-on", {"store": spec, "records": records, "repeats": args.repeats})
    if manifest is not None:
        log(f"  [{store}] impact …")
        src = manifest["source"]
        phases["impact"] = run_phase("impact", {"store": spec, "source": str(corpus_dir.parent / src["path"]),
                                                "base": src["base"], "change": src["change"],
                                                "set": src["impact_set"]})
    log(f"  [{store}] verify …")
    phases["verify"] = run_phase("verify", {"store": spec})
    if spec["kind"] == "embedded":
        home = Path(spec["home"])
        out["disk_bytes"] = _dir_size(home)  # every file in the home folder
        out["disk_files"] = {str(f.relative_to(home)): f.stat().st_size for f in sorted(home.rglob("*")) if f.is_file()}
    elif spec.get("data"):  # the store files; Neo4j's transaction logs are reported apart
        out["disk_bytes"] = _dir_size(Path(spec["data"]) / "data" / "databases" / "neo4j")
        out["tx_log_bytes"] = _dir_size(Path(spec["data"]) / "data" / "transactions" / "neo4j")
    return out, records


PROCESS_FIGURES = ("cli_rests_on_vs_grep", "cli_rests_on_rss_mb", "cli_rests_on_vs_s", "add_set_ratio",
                   "serve_ready_s", "serve_health_p50_ms", "cli_startup_cpu_p50_ms", "search_common_cpu_s",
                   "serve_keepalive_rest_p50_ms")
"""The whole-process figures that targets read; a reason they are missing goes in ``<figure>_note``."""


def _median_ms(rows: list[dict], key: str = "wall_s") -> float | None:
    return statistics.median(r[key] for r in rows) * 1000 if rows else None


def process_figures(phases: dict) -> dict:
    """Flat figures of the whole-process phases (``cli``, ``add-set``, ``serve``): medians of wall
    and CPU, the largest peak RSS, and the ratios the targets read; failed processes left out."""
    fig: dict[str, Any] = {}
    cli = phases.get("cli") or {}
    if "skipped" in cli:
        return {f"{k}_note": cli["skipped"] for k in PROCESS_FIGURES}
    by: dict[str, list[dict]] = {}
    for r in cli.get("runs", []):
        if "failed" not in r:
            by.setdefault(r["command"], []).append(r)
    if cli:
        fig["cli_records"] = cli.get("records")
        fig["cli_grep_p50_ms"] = grep_ms = _median_ms(by.get("grep", []))
        for command in CLI_COMMANDS:
            rows, key = by.get(command, []), "cli_" + command.replace("-", "_")
            if not rows:
                continue
            fig[f"{key}_p50_ms"] = ms = _median_ms(rows)
            fig[f"{key}_cpu_p50_ms"] = _median_ms(rows, "cpu_s")
            fig[f"{key}_rss_mb"] = max(r["peak_rss_mb"] for r in rows)
            fig[f"{key}_vs_grep"] = ms / grep_ms if ms is not None and grep_ms else None
        fig["cli_rests_on_mismatches"] = len(cli.get("mismatches", []))
        if by.get("rests-on@S"):
            fig["cli_rests_on_s_p50_ms"] = _median_ms(by["rests-on@S"])
    whole = phases.get("whole-store") or {}
    for command in WHOLE_STORE_COMMANDS:
        kept = {w: [r for r in whole.get("runs", []) if r["command"] == command and r["store"] == w
                    and not r["fresh"] and "failed" not in r] for w in ("store", "one-set")}
        fresh = [r for r in whole.get("runs", []) if r["command"] == command and r["fresh"] and "failed" not in r]
        if kept["store"] and kept["one-set"]:
            fig[f"whole_{command}_p50_ms"] = ms = _median_ms(kept["store"])
            fig[f"whole_{command}_cpu_p50_ms"] = _median_ms(kept["store"], "cpu_s")
            fig[f"whole_{command}_rss_mb"] = max(r["peak_rss_mb"] for r in kept["store"])
            fig[f"whole_{command}_one_p50_ms"] = one = _median_ms(kept["one-set"])
            fig[f"whole_{command}_one_cpu_p50_ms"] = _median_ms(kept["one-set"], "cpu_s")
            fig[f"whole_{command}_vs_one"] = ms / one if ms is not None and one else None
        if fresh:
            fig[f"whole_{command}_fresh_ms"] = _median_ms(fresh)
            fig[f"whole_{command}_fresh_cpu_ms"] = _median_ms(fresh, "cpu_s")
            fig[f"whole_{command}_fresh_rss_mb"] = max(r["peak_rss_mb"] for r in fresh)
    if "runs" in whole:
        fig["whole_kept_mismatches"] = len(whole.get("mismatches", []))
    add = phases.get("add-set") or {}
    into, empty = ([r for r in add.get(k, []) if "failed" not in r] for k in ("store", "empty"))
    if into and empty:
        fig.update(add_set_s=statistics.median(r["wall_s"] for r in into),
                   add_set_empty_s=statistics.median(r["wall_s"] for r in empty),
                   add_set_cpu_s=statistics.median(r["cpu_s"] for r in into),
                   add_set_empty_cpu_s=statistics.median(r["cpu_s"] for r in empty),
                   add_set_rss_mb=max(r["peak_rss_mb"] for r in into),
                   add_set_documents=add["set"]["documents"], add_set_set_mb=add["set"]["bytes"] / 1e6,
                   add_set_grew_mb=(into[0]["after_bytes"] - into[0]["before_bytes"]) / 1e6,
                   add_set_changed_mb=into[0].get("changed_bytes", float("nan")) / 1e6,
                   add_set_empty_mb=empty[0]["after_bytes"] / 1e6)
        fig["add_set_ratio"] = fig["add_set_s"] / fig["add_set_empty_s"]
    serve = phases.get("serve") or {}
    if "ready_s" in serve:
        health_ms = [t * 1000 for t in serve.get("health_s", [])]
        fig.update(serve_ready_s=serve["ready_s"], serve_health_p50_ms=percentile(health_ms, 50),
                   serve_health_p95_ms=percentile(health_ms, 95), serve_rss_mb=serve.get("peak_rss_mb"),
                   serve_vmhwm_mb=serve.get("vmhwm_mb"))
        for name, times in (serve.get("keepalive_s") or {}).items():
            fig[f"serve_keepalive_{name}_p50_ms"] = percentile([t * 1000 for t in times], 50)
        for name, cpu_s in (serve.get("keepalive_cpu_s") or {}).items():
            fig[f"serve_keepalive_{name}_cpu_ms"] = cpu_s * 1000
        if "keepalive_load" in serve:
            fig["serve_keepalive_load"] = serve["keepalive_load"]
    search = [r for r in (phases.get("search") or {}).get("runs", []) if "failed" not in r]
    if search:
        fig.update(search_common_s=statistics.median(r["wall_s"] for r in search),
                   search_common_cpu_s=statistics.median(r["cpu_s"] for r in search),
                   search_common_rss_mb=max(r["peak_rss_mb"] for r in search),
                   search_common_total=search[0]["total"], search_common_hits=search[0]["hits"])
    return fig


def versus_reference(size: str, figures: dict, reference: dict | None, *, generated: bool = True,
                     key: str = "cli_rests_on_p50_ms") -> tuple[float | None, str]:
    """Whole-process rests-on at ``size`` ÷ the same on a store of size S, and a note saying where
    S's figure comes from, or why there is no ratio. S's figure is ``cli_rests_on_s_p50_ms`` when
    the size-S store was timed side by side in this size's rounds; else the median of
    ``reference`` (``{"figures": <S's embedded figures>, "source": <where they come from>}``).

    >>> versus_reference("L", {"cli_rests_on_p50_ms": 900.0, "cli_rests_on_s_p50_ms": 600.0}, None)
    (1.5, 'S store timed side by side in this run: 600 ms')
    >>> versus_reference("L", {"cli_rests_on_p50_ms": 900.0}, {"figures": {"cli_rests_on_p50_ms": 450.0}, "source": "x.json"})
    (2.0, 'S: 450 ms (x.json)')
    >>> versus_reference("S", {"cli_rests_on_p50_ms": 600.0}, None)
    (None, 'size S is the reference')
    """
    if not generated:
        return None, "--corpus: no generated size S to compare with"
    if size == "S":
        return None, "size S is the reference"
    value, side = figures.get(key), figures.get("cli_rests_on_s_p50_ms")
    if value is None or value != value:
        return None, f"no whole-process rests-on figure at {size}"
    if side:
        return value / side, f"S store timed side by side in this run: {side:,.0f} ms"
    if reference is None:
        return None, "no size-S figure: run --size S in the same run (or keep a results file for S)"
    ref = reference["figures"].get(key)
    if not ref or ref != ref:
        return None, f"no whole-process rests-on figure at S ({reference['source']})"
    return value / ref, f"S: {ref:,.0f} ms ({reference['source']})"


def previous_reference(folders: list[Path], seed: int) -> dict | None:
    """The newest results file for size S and ``seed`` in ``folders`` with a whole-process
    rests-on figure (for a run without ``--size S``), as :func:`versus_reference` takes it."""
    found = []
    for folder in folders:
        for path in folder.glob("*-S.json") if folder.is_dir() else ():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            figures = (data.get("stores") or {}).get("embedded") or {}
            if data.get("seed") == seed and data.get("size") == "S" and figures.get("cli_rests_on_p50_ms"):
                found.append((str(data.get("date")), path.stat().st_mtime, path, figures))
    if not found:
        return None
    _date, _, path, figures = max(found, key=lambda f: (f[0], f[1]))
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return {"figures": figures, "source": f"{shown}, an earlier run"}


def _flat(store_out: dict, floor: dict, grep: list[dict] | None) -> dict:
    p = store_out["phases"]
    ing = p["ingest"]
    fig: dict[str, Any] = {}
    if "failed" in ing:
        return {"failed": ing["failed"], "documents": ing.get("documents"), "ingest_read_parse_s": ing.get("read_parse_s"),
                "ingest_s": ing.get("wall_s"), "peak_rss_mb": ing.get("peak_rss_mb"), "rss_ingest_mb": ing.get("peak_rss_mb"),
                "ingest_note": ing["failed"]}
    mb = ing["bytes"] / 1e6
    floor_mbps = floor["bytes"] / 1e6 / floor["parse_s"] if floor.get("parse_s") and floor.get("bytes") else float("nan")
    floor_cpu_mbps = floor["bytes"] / 1e6 / floor["parse_cpu_s"] if floor.get("parse_cpu_s") and floor.get("bytes") \
        else float("nan")
    fig.update(ingest_cpu_s=ing.get("cpu_s"), ingest_vs_floor_cpu=(mb / ing["cpu_s"]) / floor_cpu_mbps
               if ing.get("cpu_s") else float("nan"))
    if floor.get("parse_cpu_s") and floor.get("bytes") and ing.get("cpu_s"):
        floor_cpu_s = floor["parse_cpu_s"] * ing["bytes"] / floor["bytes"]  # the floor of ingest's own bytes
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        fig.update(ingest_cpu_vs_floor=ing["cpu_s"] / floor_cpu_s,
                   ingest_wall_vs_floor_cores=ing["seconds"] / (floor_cpu_s / cores))
    fig.update(documents=ing["documents"], sets=ing["sets"], ingest_s=ing["seconds"],
               ingest_read_parse_s=ing["read_parse_s"], ingest_write_s=ing["write_s"],
               ingest_docs_per_s=ing["documents"] / ing["seconds"], ingest_mb_per_s=mb / ing["seconds"],
               floor_mb_per_s=floor_mbps, ingest_vs_floor=(mb / ing["seconds"]) / floor_mbps,
               nodes=ing["counts"].get("nodes"), edges=ing["counts"].get("edges"),
               cites_edges=ing["counts"].get("CITES"))
    chk = p.get("check", {})
    fig["check_errors"] = chk.get("errors", float("nan")) if "failed" not in chk else float("nan")
    fig["check_warnings"] = chk.get("warnings", float("nan"))
    fig["check_s"] = chk.get("seconds")
    if "rests-on" in p and "failed" not in p["rests-on"]:
        fig.update(_rests_on_figures(p["rests-on"], grep))
    imp = p.get("impact")
    if imp is not None:
        fig["impact_s"] = imp.get("seconds")
        fig["impact_first_s"] = imp.get("first_s")
        for key in ("changed_files", "uncited_changes", "broken", "statements", "conclusions"):
            fig[f"impact_{key}"] = (imp.get("summary") or {}).get(key)
        if "skipped" in imp or "failed" in imp:
            fig["impact_note"] = imp.get("skipped") or imp.get("failed")
    ver = p.get("verify", {})
    if "failed" not in ver and ver.get("seconds"):
        fig["verify_mb_per_s"] = ver["bytes"] / 1e6 / ver["seconds"]
        fig["verify_differing"] = ver["differing"]
    fig.update(process_figures(p))
    hist = p.get("history")
    if hist is not None and "failed" not in hist:
        for key in ("diff_first_s", "diff_s", "compare_first_s", "compare_s", "version_writes", "version_write_s",
                    "versions_per_set", "rests_on_versions_p50_ms", "rests_on_one_version_p50_ms",
                    "rests_on_versions_ratio"):
            fig[key] = hist.get(key)
        if hist.get("disk_versions_bytes"):
            fig["disk_versions_mb"] = hist["disk_versions_bytes"] / 1e6
            fig["disk_one_version_mb"] = hist["disk_one_version_bytes"] / 1e6
    elif hist is not None:
        fig.update({f"{k}_note": hist["failed"] for k in ("diff_first_s", "compare_first_s", "rests_on_versions_ratio")})
    fig["peak_rss_mb"] = max(v.get("peak_rss_mb", 0) for v in p.values())  # every phase, whole processes too
    for name, v in p.items():
        fig[f"rss_{name}_mb"] = v.get("peak_rss_mb")
    fig["disk_mb"] = store_out.get("disk_bytes", 0) / 1e6 if store_out.get("disk_bytes") is not None else None
    if fig["disk_mb"] and ing.get("bytes"):
        fig["disk_vs_corpus"] = fig["disk_mb"] / (ing["bytes"] / 1e6)
    fig["tx_log_mb"] = store_out["tx_log_bytes"] / 1e6 if store_out.get("tx_log_bytes") is not None else None
    return fig


def evaluate(size: str, stores: dict[str, dict], targets: tuple[Target, ...] = TARGETS) -> list[dict]:
    """Each applicable target with its figure and PASS/FAIL (SKIP when the figure is missing; INFO
    for a target stated for another size, e.g. "at L" in an M run: its figure is shown, and only
    the run at that size judges it)."""
    rows = []
    for t in targets:
        for store, fig in stores.items():
            if t.store not in (None, store) or (t.figure == "total_s") != (store == "_run"):
                continue
            value = fig.get(t.figure)
            elsewhere = not t.stated_for(size)  # stated for another size: shown, not judged
            stated = t.size if isinstance(t.size, str) else " and ".join(t.size or ())
            scope = f" (target stated at {stated}: shown, not judged)" if elsewhere else ""
            if elsewhere and t.figure == "total_s":
                continue
            ok = value is not None and not (isinstance(value, float) and value != value) and (
                value < t.limit if t.op == "<" else value <= t.limit if t.op == "<=" else value >= t.limit)
            if fig.get("ingest_note") and t.figure in ("ingest_s", "peak_rss_mb"):
                verdict = "FAIL" if t.figure == "ingest_s" or not ok else "SKIP"  # unfinished: lower bounds only
            elif value is None or (isinstance(value, float) and value != value):
                verdict = "SKIP"
            else:
                verdict = "PASS" if ok else "FAIL"
            if elsewhere and verdict != "SKIP":
                verdict = "INFO"
            rows.append({"target": t.name + scope, "store": store, "figure": value, "op": t.op, "limit": t.limit,
                         "unit": t.unit, "verdict": verdict,
                         "note": fig.get("impact_note") if t.figure == "impact_s" else
                         fig.get("ingest_note") if t.figure in ("ingest_s", "peak_rss_mb") else
                         fig.get(f"{t.figure}_note")})
    return rows


def _fmt(v: Any, digits: int = 1) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        if v != v:
            return "—"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        return f"{v:.{digits}f}" if abs(v) >= 1 else f"{v:.{max(digits, 2)}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


_TABLE_ROWS = (
    ("documents", "documents"), ("sets", "sets"), ("nodes / edges", ("nodes", "edges")), ("CITES edges", "cites_edges"),
    ("ingest s", "ingest_s"),
    ("ingest CPU s", "ingest_cpu_s"),
    ("ingest docs/s", "ingest_docs_per_s"), ("ingest MB/s", "ingest_mb_per_s"),
    ("parse floor MB/s (markdown-it)", "floor_mb_per_s"), ("ingest ÷ parse floor (wall / CPU)", ("ingest_vs_floor", "ingest_vs_floor_cpu")),
    ("ingest CPU ÷ floor CPU / ingest wall ÷ (floor CPU ÷ cores)", ("ingest_cpu_vs_floor", "ingest_wall_vs_floor_cores")),
    ("check errors / warnings", ("check_errors", "check_warnings")),
    ("store open s", "rests_on_open_s"),
    ("rests-on p50 / p95 / p99 ms", ("rests_on_p50_ms", "rests_on_p95_ms", "rests_on_p99_ms")),
    ("rests-on hot p50 / cold p50 ms", ("rests_on_hot_p50_ms", "rests_on_cold_p50_ms")),
    ("rests-on CPU p50 ms / first call p50 ms", ("rests_on_cpu_p50_ms", "rests_on_first_p50_ms")),
    ("grep -rlF p50 ms", "grep_p50_ms"), ("rests-on speed-up over grep", "grep_speedup"),
    ("transitive results grep cannot find", "grep_missed_transitive_statements"),
    ("member files reached only transitively", "grep_missed_files"),
    ("impact s: first / repeat (50 files)", ("impact_first_s", "impact_s")),
    ("impact: cited changed files / broken quotations / suspect statements",
     ("impact_changed_files", "impact_broken", "impact_statements")), ("verify MB/s", "verify_mb_per_s"),
    ("whole process p50 ms: rests-on --set / stats / check --set / render --rests-on",
     ("cli_rests_on_p50_ms", "cli_stats_p50_ms", "cli_check_p50_ms", "cli_render_p50_ms")),
    ("whole process p50 ms: citegraph --help (start-up, no store)", "cli_startup_p50_ms"),
    ("whole process CPU p50 ms: --help / --version", ("cli_startup_cpu_p50_ms", "cli_version_cpu_p50_ms")),
    ("whole process p50 ms: records --set / history / search ID / export --set",
     ("cli_records_p50_ms", "cli_history_p50_ms", "cli_search_p50_ms", "cli_export_p50_ms")),
    ("whole process ÷ grep: records / history / search ID / export",
     ("cli_records_vs_grep", "cli_history_vs_grep", "cli_search_vs_grep", "cli_export_vs_grep")),
    (f"search {SEARCH_COMMON}: s / CPU s / peak RSS MB / total", ("search_common_s", "search_common_cpu_s",
                                                            "search_common_rss_mb", "search_common_total")),
    ("whole process grep -rlF p50 ms", "cli_grep_p50_ms"),
    ("whole process ÷ grep: rests-on / stats / check / render",
     ("cli_rests_on_vs_grep", "cli_stats_vs_grep", "cli_check_vs_grep", "cli_render_vs_grep")),
    ("rests-on process on the size-S store, side by side, p50 ms", "cli_rests_on_s_p50_ms"),
    ("rests-on process ÷ the same at size S", "cli_rests_on_vs_s"), ("  (size S figure)", "cli_rests_on_vs_s_note"),
    ("one-set query peak RSS MB (rests-on process, largest)", "cli_rests_on_rss_mb"),
    ("Neo4j ingest wall ÷ embedded ingest wall", "ingest_vs_embedded"),
    ("Neo4j ÷ embedded, whole process p50 side by side: " + " / ".join(PAIRED_COMMANDS),
     tuple(f"cli_{c.replace('-', '_')}_vs_embedded" for c in PAIRED_COMMANDS)),
    ("Neo4j ÷ embedded, serve keep-alive p50 side by side: /health / REST rests-on / GraphQL restsOn",
     ("serve_keepalive_health_vs_embedded", "serve_keepalive_rest_vs_embedded", "serve_keepalive_graphql_vs_embedded")),
    ("whole store ÷ one-set store, process p50: stats / sets / check / verify",
     ("whole_stats_vs_one", "whole_sets_vs_one", "whole_check_vs_one", "whole_verify_vs_one")),
    ("whole store, process p50 ms (kept): stats / sets / check / verify",
     ("whole_stats_p50_ms", "whole_sets_p50_ms", "whole_check_p50_ms", "whole_verify_p50_ms")),
    ("whole store, process ms with --fresh: stats / sets / check / verify",
     ("whole_stats_fresh_ms", "whole_sets_fresh_ms", "whole_check_fresh_ms", "whole_verify_fresh_ms")),
    ("whole store, peak RSS MB (kept): stats / sets / check / verify",
     ("whole_stats_rss_mb", "whole_sets_rss_mb", "whole_check_rss_mb", "whole_verify_rss_mb")),
    ("whole store answers: kept ≠ --fresh", "whole_kept_mismatches"),
    ("ingest one more set s: this store / empty store (ratio)", ("add_set_s", "add_set_empty_s", "add_set_ratio")),
    ("ingest one more set: home grew / bytes changed / empty home MB",
     ("add_set_grew_mb", "add_set_changed_mb", "add_set_empty_mb")),
    ("serve: first /health 200 s / /health p50 / p95 ms", ("serve_ready_s", "serve_health_p50_ms", "serve_health_p95_ms")),
    ("serve keep-alive p50 ms: /health / REST rests-on / GraphQL restsOn",
     ("serve_keepalive_health_p50_ms", "serve_keepalive_rest_p50_ms", "serve_keepalive_graphql_p50_ms")),
    ("serve keep-alive, server CPU ms per request: /health / REST rests-on / GraphQL restsOn; load average",
     ("serve_keepalive_health_cpu_ms", "serve_keepalive_rest_cpu_ms", "serve_keepalive_graphql_cpu_ms",
      "serve_keepalive_load")),
    ("peak RSS MB: ingest / rests-on / verify", ("rss_ingest_mb", "rss_rests-on_mb", "rss_verify_mb")),
    ("peak RSS MB, whole processes: commands / ingest one set / serve", ("rss_cli_mb", "rss_add-set_mb", "rss_serve_mb")),
    ("store on disk MB (Neo4j: store files)", "disk_mb"), ("store on disk ÷ corpus bytes", "disk_vs_corpus"), ("Neo4j transaction logs MB", "tx_log_mb"),
    ("history: version diff s, first / repeat", ("diff_first_s", "diff_s")),
    ("history: comparison of two runs s, first / repeat", ("compare_first_s", "compare_s")),
    ("history: rests-on p50 ms, 10 versions / 1 version (ratio)",
     ("rests_on_versions_p50_ms", "rests_on_one_version_p50_ms", "rests_on_versions_ratio")),
    ("history: version writes / s / store MB with 1 and 10 versions of every set",
     ("version_writes", "version_write_s", "disk_one_version_mb", "disk_versions_mb")),
    ("note", "ingest_note"),
)


def markdown_table(size: str, stores: dict[str, dict]) -> str:
    """The figures of one size as a Markdown table, one column per store."""
    names = [s for s in stores if not s.startswith("_")]
    lines = [f"| size {size} | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for title, key_or_keys in _TABLE_ROWS:
        keys = key_or_keys if isinstance(key_or_keys, tuple) else (key_or_keys,)
        cells = [" / ".join(_fmt(stores[s].get(k)) for k in keys) for s in names]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _check_table(rows: list[dict]) -> str:
    out = ["| target | store | figure | limit | result |", "|---|---|---:|---:|---|"]
    for r in rows:
        note = f" ({r['note']})" if r.get("note") else ""
        out.append(f"| {r['target']} | {r['store']} | {_fmt(r['figure'], 2)} {r['unit']} | {r['op']} {_fmt(float(r['limit']))} "
                   f"{r['unit']} | {r['verdict']}{note} |")
    return "\n".join(out)


def pathological_figures(runs: dict[str, dict[str, dict]]) -> dict:
    """Flat figures of the pathological phases: ``runs[case]`` holds the ``time`` phase's output
    and the ``memory`` phases' at ``n`` and ``2n``. Per case ``patho_<case>_`` + ``s``/``2n_s`` and
    ``cpu_s``/``2n_cpu_s`` (the fastest of the rounds: what load on the machine adds is never
    less), ``ratio`` (CPU at 2n ÷ at n) and ``wall_ratio``; ``gc_cpu_s``/``2n_gc_cpu_s`` and
    ``gc_ratio`` (the parses with the cyclic collector running); ``mb``/``2n_mb`` (how far one parse
    raised peak RSS) and ``mem_ratio``; ``n``/``2n_n``, ``bytes``/``2n_bytes`` and the outcome at 2n.
    A phase that failed or raised gives ``inf`` for what it could not measure (every ratio), its
    reason in ``<figure>_note``.

    >>> runs = {"md-links": {
    ...     "time": {"n": 10, "bytes": {"n": 100, "2n": 200}, "times": {"n": [1.2, 1.0], "2n": [2.1, 2.2]},
    ...              "cpu": {"n": [1.0, 1.1], "2n": [2.1, 2.0]}, "gc_cpu": {"n": 1.5, "2n": 3.6},
    ...              "outcome": {"2n": {"blocks": 4, "citations": 20}}},
    ...     "n": {"parse_mb": 10.0}, "2n": {"parse_mb": 21.0}}}
    >>> f = pathological_figures(runs)
    >>> f["patho_md_links_s"], f["patho_md_links_ratio"], f["patho_md_links_mem_ratio"], f["patho_md_links_gc_ratio"]
    (1.0, 2.0, 2.1, 2.4)
    >>> pathological_figures({"md-links": {"time": {"error": "RecursionError: x"}}})["patho_md_links_ratio_note"]
    'RecursionError: x'
    """
    inf = float("inf")
    fig: dict[str, Any] = {}
    for case, phases in runs.items():
        key, timed = _key(case), phases.get("time") or {}
        why = timed.get("error") or timed.get("failed")
        for half, suffix in (("n", ""), ("2n", "_2n")):
            times, cpu = (timed.get(k, {}).get(half) or [] for k in ("times", "cpu"))
            fig[f"{key}{suffix}_s"] = min(times) if times else inf  # a stopped phase: what it measured
            fig[f"{key}{suffix}_cpu_s"] = min(cpu) if cpu else inf
            fig[f"{key}{suffix}_gc_cpu_s"] = (timed.get("gc_cpu") or {}).get(half)
            fig[f"{key}{suffix}_mb"] = (phases.get(half) or {}).get("parse_mb")
            fig[f"{key}{suffix}_bytes"] = (timed.get("bytes") or {}).get(half)
            fig[f"{key}{suffix}_n"] = (timed["n"] if half == "n" else 2 * timed["n"]) if "n" in timed else None
            got = (timed.get("outcome") or {}).get(half) or {}
            fig[f"{key}{suffix}_outcome"] = got.get("refused") or (
                f"{got['blocks']} blocks, {got['citations']} citations" if "blocks" in got else why)

        def ratio(a, b, why=why):
            if why:
                return inf
            return round(b / a, 3) if a and b is not None and a != inf and b != inf else None

        fig[f"{key}_ratio"] = ratio(fig[f"{key}_cpu_s"], fig[f"{key}_2n_cpu_s"])
        fig[f"{key}_wall_ratio"] = ratio(fig[f"{key}_s"], fig[f"{key}_2n_s"])
        fig[f"{key}_gc_ratio"] = ratio(fig[f"{key}_gc_cpu_s"], fig[f"{key}_2n_gc_cpu_s"])
        fig[f"{key}_mem_ratio"] = ratio(fig[f"{key}_mb"], fig[f"{key}_2n_mb"])
        memory_why = next((p.get("error") or p.get("failed") for h in ("n", "2n") if (p := phases.get(h) or {})
                           and (p.get("error") or p.get("failed"))), None)
        if why:
            for name in ("ratio", "2n_s"):
                fig[f"{key}_{name}_note"] = why
        if why or memory_why:
            fig[f"{key}_mem_ratio_note"] = memory_why or why
            if fig[f"{key}_mem_ratio"] is None:
                fig[f"{key}_mem_ratio"] = inf
    return fig


def pathological_ingest_figures(runs: dict[str, dict]) -> dict:
    """Flat figures of the ``pathological-ingest`` phases of one store: ``runs[case]`` is the
    phase's output. Per case ``patho_<case>_ingest_`` + ``s``/``2n_s`` and ``cpu_s``/``2n_cpu_s``
    (the fastest round, wall and this process's CPU), ``ratio`` (wall at 2n ÷ at n), ``n``/``2n_n``
    and ``edges``/``2n_edges`` (CITES edges after the ingest). A phase that failed or raised gives
    ``inf`` for what it could not measure, its reason in ``<figure>_note``.

    >>> f = pathological_ingest_figures({"txt-cites": {"n": 10, "times": {"n": [1.2, 1.0], "2n": [2.3, 2.1]},
    ...     "cpu": {"n": [0.5, 0.4], "2n": [0.9, 0.8]}, "outcome": {"n": {"edges": 10}, "2n": {"edges": 20}}}})
    >>> f["patho_txt_cites_ingest_s"], f["patho_txt_cites_ingest_ratio"], f["patho_txt_cites_ingest_2n_edges"]
    (1.0, 2.1, 20)
    """
    inf = float("inf")
    fig: dict[str, Any] = {}
    for case, timed in runs.items():
        key = _key(case) + "_ingest"
        why = timed.get("error") or timed.get("failed")
        for half, suffix in (("n", ""), ("2n", "_2n")):
            times, cpu = (timed.get(k, {}).get(half) or [] for k in ("times", "cpu"))
            fig[f"{key}{suffix}_s"] = min(times) if times else inf
            fig[f"{key}{suffix}_cpu_s"] = min(cpu) if cpu else inf
            fig[f"{key}{suffix}_n"] = (timed["n"] if half == "n" else 2 * timed["n"]) if "n" in timed else None
            fig[f"{key}{suffix}_edges"] = ((timed.get("outcome") or {}).get(half) or {}).get("edges")
        a, b = fig[f"{key}_s"], fig[f"{key}_2n_s"]
        fig[f"{key}_ratio"] = inf if why or inf in (a, b) else round(b / a, 3) if a else None
        if why:
            fig[f"{key}_ratio_note"] = why
    return fig


def pathological_table(fig: dict) -> str:
    """The pathological figures as a Markdown table, one row per case."""
    lines = ["| input | n / 2n | bytes at 2n | wall s at n / 2n | CPU s at n / 2n | CPU ratio | "
             "with the collector: CPU s at n / 2n (ratio) | parse MB at n / 2n | at 2n |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in CASES:
        k = _key(c.name)
        lines.append(f"| {c.name}: {c.what} | {_fmt(fig.get(f'{k}_n'))} / {_fmt(fig.get(f'{k}_2n_n'))} {c.unit} | "
                     f"{_fmt(fig.get(f'{k}_2n_bytes'))} | {_fmt(fig.get(f'{k}_s'), 2)} / {_fmt(fig.get(f'{k}_2n_s'), 2)} | "
                     f"{_fmt(fig.get(f'{k}_cpu_s'), 2)} / {_fmt(fig.get(f'{k}_2n_cpu_s'), 2)} | "
                     f"{_fmt(fig.get(f'{k}_ratio'), 2)} | {_fmt(fig.get(f'{k}_gc_cpu_s'), 2)} / "
                     f"{_fmt(fig.get(f'{k}_2n_gc_cpu_s'), 2)} ({_fmt(fig.get(f'{k}_gc_ratio'), 2)}) | "
                     f"{_fmt(fig.get(f'{k}_mb'))} / {_fmt(fig.get(f'{k}_2n_mb'))} | "
                     f"{fig.get(f'{k}_2n_outcome') or '—'} |")
    return "\n".join(lines)


def pathological_ingest_table(stores: dict[str, dict]) -> str:
    """The figures of the write cases as a Markdown table, one row per case and store."""
    lines = ["| input | store | n / 2n | wall s at n / 2n | ratio | CPU s (this process) at n / 2n | CITES edges at n / 2n |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for c in WRITE_CASES:
        k = _key(c.name) + "_ingest"
        for store, fig in stores.items():
            if f"{k}_s" not in fig:
                continue
            lines.append(f"| {c.name}: {c.what} | {store} | {_fmt(fig.get(f'{k}_n'))} / {_fmt(fig.get(f'{k}_2n_n'))} "
                         f"{c.unit} | {_fmt(fig.get(f'{k}_s'), 2)} / {_fmt(fig.get(f'{k}_2n_s'), 2)} | "
                         f"{_fmt(fig.get(f'{k}_ratio'), 2)} | {_fmt(fig.get(f'{k}_cpu_s'), 2)} / "
                         f"{_fmt(fig.get(f'{k}_2n_cpu_s'), 2)} | {_fmt(fig.get(f'{k}_edges'))} / "
                         f"{_fmt(fig.get(f'{k}_2n_edges'))} |")
    return "\n".join(lines)


def bench_pathological(args: argparse.Namespace, log, neo4j_spec: dict | None = None) -> dict:
    """The pathological inputs (:data:`bench.pathological.CASES`), each in fresh processes: one
    ``pathological`` phase of mode ``time`` (both sizes, ``args.patho_repeats`` rounds) and one of
    mode ``memory`` per size (not when the first failed), under ``--phase-timeout`` and
    ``--phase-memory``; then each write case (:data:`bench.pathological.WRITE_CASES`) in one
    ``pathological-ingest`` phase per store (embedded in a fresh home folder; Neo4j, wiped first,
    when ``neo4j_spec`` is given). The result document with its figures and targets."""
    started = time.perf_counter()
    runs: dict[str, dict[str, dict]] = {}
    for c in CASES:
        log(f"pathological: {c.name} at {c.n:,} and {2 * c.n:,} {c.unit} …")
        common = {"case": c.name, "path": c.path, "repeats": args.patho_repeats}
        limits = {"timeout": args.phase_timeout, "memory_gb": args.phase_memory}
        timed = run_phase("pathological", {**common, "n": c.n, "mode": "time"}, **limits)
        runs[c.name] = {"time": timed}
        for half, n in (("n", c.n), ("2n", 2 * c.n)) if not (timed.get("failed") or timed.get("error")) else ():
            runs[c.name][half] = run_phase("pathological", {**common, "n": n, "mode": "memory"}, **limits)
        for name, r in runs[c.name].items():
            if r.get("failed") or r.get("error"):
                log(f"  {c.name} ({name}): {r.get('error') or r.get('failed')}")
    fig = pathological_figures(runs)
    fig["peak_rss_mb"] = max((r.get("peak_rss_mb", 0) for pair in runs.values() for r in pair.values()), default=0)
    stores = {"parser": fig}
    raw = {"parser": {"phases": {f"{c}@{h}": r for c, pair in runs.items() for h, r in pair.items()}}}
    for store in ["embedded"] + (["neo4j"] if neo4j_spec else []):
        written: dict[str, dict] = {}
        for c in WRITE_CASES:
            log(f"pathological: ingest {c.name} into {store} at {c.n:,} and {2 * c.n:,} {c.unit} …")
            with tempfile.TemporaryDirectory(prefix="bench-patho-home-", dir=args.work) as home:
                if neo4j_spec and store == "neo4j":
                    _neo4j_wipe(neo4j_spec)
                spec = neo4j_spec if store == "neo4j" else {"kind": "embedded", "home": home}
                written[c.name] = run_phase("pathological-ingest", {"case": c.name, "path": c.path, "n": c.n,
                                                                    "repeats": args.patho_repeats, "store": spec},
                                            timeout=args.phase_timeout, memory_gb=args.phase_memory)
            if written[c.name].get("failed") or written[c.name].get("error"):
                log(f"  {c.name} ({store}): {written[c.name].get('error') or written[c.name].get('failed')}")
        stores[store] = pathological_ingest_figures(written)
        raw[store] = {"phases": {f"{c}@ingest": r for c, r in written.items()}}
    return {"date": dt.date.today().isoformat(), "size": "pathological",
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
            "stores": stores, "raw": raw, "targets": evaluate("pathological", stores, PATHOLOGICAL_TARGETS),
            "total_s": time.perf_counter() - started}


def bench_size(size: str, args: argparse.Namespace, neo4j_spec: dict | None, log,
               reference: dict | None = None, *, keep_home: bool = False) -> dict:
    """Every measurement of one size; the result document written to ``bench/results``.
    ``reference``: size S's embedded figures (and, when kept, its home folder and records), for
    the whole-process rests-on ratio to S (see :func:`versus_reference`). ``keep_home`` keeps the
    embedded home folder after the run (its path is then the result's ``home``)."""
    started = time.perf_counter()
    work = args.work
    if args.corpus:
        corpus_dir, manifest, gen_s = Path(args.corpus).resolve(), None, None
        label = size
    else:
        log(f"size {size}: corpus …")
        root, manifest, gen_s = ensure_corpus(work, size, args.seed)
        corpus_dir = root / "corpus"
        label = size
    log(f"size {size}: parse floor …")
    floor = run_phase("parse-floor", {"corpus": str(corpus_dir)})
    prepared_s = time.perf_counter() - started  # the corpus and the parse floor, counted with the embedded part
    stores: dict[str, dict] = {}
    raw: dict[str, dict] = {}
    records = None
    wanted = ["embedded"] + (["neo4j"] if neo4j_spec else [])
    grep = None
    embedded_s = 0.0
    for store in wanted:
        store_started = time.perf_counter()
        if store == "embedded":
            home = work / f"store-{label}-seed{args.seed}"
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(parents=True)
            spec = {"kind": "embedded", "home": str(home)}  # opened with graph.stores.open_embedded
        else:
            assert neo4j_spec is not None  # neo4j is wanted only with its spec
            spec = neo4j_spec
            _neo4j_wipe(spec)
        raw[store], records = bench_store(store, spec, corpus_dir, manifest, floor, records, args, log)
        if grep is None and records:
            log(f"  grep -rlF × {len(records)} …")
            grep = grep_baseline(corpus_dir, records)
        phases = raw[store]["phases"]
        if store == "embedded" and "failed" not in phases["ingest"] and records:
            phases.update(bench_processes(citegraph_executable(), Path(spec["home"]), corpus_dir, manifest, records,
                                          phases.get("rests-on", {}), work, args, log, reference))
            embedded_s += time.perf_counter() - store_started
    home = work / f"store-{label}-seed{args.seed}"
    ingested = {store for store in raw if "failed" not in raw[store]["phases"]["ingest"]}
    cli = citegraph_executable()
    if neo4j_spec is not None and ingested == {"embedded", "neo4j"} and records and cli is not None:
        picked = cli_records(records, args.cli_records)
        log(f"  [neo4j] side by side with the embedded store: {', '.join(PAIRED_COMMANDS)} × {len(picked)} records, "
            "then both servers kept alive …")
        raw["neo4j"]["phases"]["side-by-side"] = side_by_side_phase(cli, home, neo4j_spec, picked, args, work)
    if "embedded" in ingested and records and not getattr(args, "no_history", False):
        log("  [embedded] history: diff, compare, 10 versions of every set …")  # last: it changes the store
        t = time.perf_counter()
        raw["embedded"]["phases"]["history"] = run_phase(
            "history", {"store": {"kind": "embedded", "home": str(home)}, "records": records, "repeats": args.repeats,
                        "set": (manifest or {}).get("source", {}).get("impact_set")},
            timeout=args.phase_timeout, memory_gb=args.phase_memory)
        embedded_s += time.perf_counter() - t
    for store in raw:
        stores[store] = _flat(raw[store], floor, grep)
        if store == "embedded":
            vs, note = versus_reference(size, stores[store], reference, generated=not args.corpus)
            stores[store].update(cli_rests_on_vs_s=vs, cli_rests_on_vs_s_note=note)
    if "side-by-side" in raw.get("neo4j", {}).get("phases", {}):
        stores["neo4j"].update(side_by_side_figures(raw["neo4j"]["phases"]["side-by-side"]))
    if ingested == {"embedded", "neo4j"}:
        stores["neo4j"]["ingest_vs_embedded"] = stores["neo4j"]["ingest_s"] / stores["embedded"]["ingest_s"]
    if not (args.keep_store or keep_home):
        shutil.rmtree(home, ignore_errors=True)
    embedded_total = prepared_s + embedded_s
    total = time.perf_counter() - started
    stores["_run"] = {"total_s": embedded_total, "with_neo4j_s": total}
    result = {
        "date": dt.date.today().isoformat(), "size": size, "seed": args.seed,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "corpus": {"path": str(corpus_dir), "generate_s": gen_s, **(manifest or {}).get("totals", {})},
        "parse_floor": floor, "stores": {k: v for k, v in stores.items()}, "raw": raw,
        "records": records, "grep": [{k: v for k, v in g.items() if k != "files"} | {"files": len(g["files"])}
                                     for g in (grep or [])],
        "total_s": total,
    }
    if args.keep_store or keep_home:
        result["home"] = str(work / f"store-{label}-seed{args.seed}")
    result["targets"] = evaluate(size, stores)
    return result


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``bench/run``."""
    ap = argparse.ArgumentParser(prog="bench/run", description="citegraph benchmarks at scale")
    ap.add_argument("--size", action="append", choices=sorted(SIZES), help="S, M or L (repeatable; default S)")
    ap.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "citegraph-bench",
                    help="folder for generated corpora and stores (default $TMPDIR/citegraph-bench)")
    ap.add_argument("--corpus", type=Path, help="benchmark this member folder instead of a generated corpus")
    ap.add_argument("--neo4j", action="store_true", help="also measure Neo4j (a private server unless --neo4j-uri)")
    ap.add_argument("--neo4j-uri", default=None, help="use this server (CITEGRAPH_NEO4J_USER/_PASSWORD apply)")
    ap.add_argument("--neo4j-wipe", action="store_true", help="allow deleting everything in the --neo4j-uri database")
    ap.add_argument("--repeats", type=int, default=3, help="timed rests-on calls per record (default 3)")
    ap.add_argument("--hot", type=int, default=50, help="most-cited records to query (default 50)")
    ap.add_argument("--cold", type=int, default=50, help="least-cited records to query (default 50)")
    ap.add_argument("--keep-store", action="store_true", help="keep the embedded store file after the run")
    ap.add_argument("--no-history", action="store_true",
                    help="leave out the history phase (10 versions of every set: about 70 %% of an L run; its targets are stated at M)")
    ap.add_argument("--phase-timeout", type=float, default=None,
                    help="stop the ingest phase after this many seconds and report what it reached")
    ap.add_argument("--phase-memory", type=float, default=None,
                    help="cap the ingest phase's address space at this many GB (it then fails with MemoryError)")
    ap.add_argument("--cli-records", type=int, default=5,
                    help="hot and cold records (this many of each) timed as whole citegraph processes (default 5)")
    ap.add_argument("--add-repeats", type=int, default=3,
                    help="ingests of one more set into this store and into an empty one, each (default 3)")
    ap.add_argument("--health-requests", type=int, default=20, help="timed /health requests to citegraph serve (default 20)")
    ap.add_argument("--keepalive-requests", type=int, default=50,
                    help="timed requests each of /health, REST rests-on and GraphQL restsOn on one kept-alive connection (default 50)")
    ap.add_argument("--search-repeats", type=int, default=3, help=f"timed processes of citegraph search {SEARCH_COMMON} (default 3)")
    ap.add_argument("--serve-timeout", type=float, default=300,
                    help="give up on citegraph serve answering /health after this many seconds (default 300)")
    ap.add_argument("--pathological", action="store_true",
                    help="parse the pathological inputs (bench/pathological.py) at n and 2n, and ingest the write "
                         "cases into each store; alone unless --size is given")
    ap.add_argument("--patho-repeats", type=int, default=3, help="timed parses (and ingests) per pathological input and size (default 3)")
    ap.add_argument("--check", action="store_true", help="print each target with PASS/FAIL; exit 1 on FAIL")
    ap.add_argument("--results", type=Path, default=RESULTS, help="where result JSON goes (default bench/results)")
    args = ap.parse_args(argv)
    sizes = sorted(set(args.size or ([] if args.pathological else ["S"])), key=list(SIZES).index)  # S first
    if min(args.cli_records, args.add_repeats, args.health_requests, args.patho_repeats, args.keepalive_requests,
           args.search_repeats) < 1 or args.serve_timeout <= 0:
        ap.error("--cli-records, --add-repeats, --health-requests, --keepalive-requests, --search-repeats, --patho-repeats "
                 "and --serve-timeout must be positive")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    caller = Path(os.environ.get("CITEGRAPH_BENCH_CWD") or os.getcwd())  # bench/run cds to the repository
    args.work, args.results = (caller / args.work).resolve(), (caller / args.results).resolve()
    if args.corpus is not None:
        args.corpus = (caller / args.corpus).resolve()
        if not args.corpus.is_dir():
            log(f"error: --corpus {args.corpus} is not a folder")
            return 2
    args.work.mkdir(parents=True, exist_ok=True)

    server = None
    neo4j_spec = None
    if args.neo4j or args.neo4j_uri:
        if args.neo4j_uri:
            neo4j_spec = {"kind": "neo4j", "uri": args.neo4j_uri, "user": os.environ.get("CITEGRAPH_NEO4J_USER", "neo4j"),
                          "password": os.environ.get("CITEGRAPH_NEO4J_PASSWORD", ""), "database": "neo4j"}
            if not args.neo4j_wipe and _neo4j_node_count(neo4j_spec):
                log("error: the --neo4j-uri database is not empty; pass --neo4j-wipe to let the benchmark clear it")
                return 2
        else:
            log("starting a private Neo4j …")
            server = PrivateNeo4j(args.work)
            neo4j_spec = server.start()
            neo4j_spec["data"] = str(server.data)
    failed = False
    kept_home = None
    try:
        # size S for the others: its store, kept and timed side by side with theirs, and its figures;
        # without S in the run, the figures of an earlier results file
        reference = None
        for size in sizes:
            if size != "S" and reference is None and not args.corpus:
                reference = previous_reference([args.results, RESULTS], args.seed)
            keep = size == "S" and len(sizes) > 1 and not args.corpus
            result = bench_size(size, args, neo4j_spec, log, reference, keep_home=keep)
            if size == "S":
                reference = {"figures": result["stores"].get("embedded", {}), "source": "this run",
                             "home": result.get("home"), "records": cli_records(result["records"] or [], args.cli_records)}
                if keep and not args.keep_store:
                    kept_home = result.get("home")
            args.results.mkdir(parents=True, exist_ok=True)
            name = f"{result['date']}-{size}" + ("" if not args.corpus else f"-{Path(args.corpus).name}")
            path = args.results / f"{name}.json"
            path.write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")
            print(markdown_table(size, result["stores"]))
            print(f"\nresults: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}; "
                  f"total {result['total_s']:.0f} s\n")
            broken = sorted({f"{store}: {phase['failed']}" for store, out in result["raw"].items()
                             for phase in out.get("phases", {}).values() if isinstance(phase, dict) and "failed" in phase})
            for line in broken:
                log(f"error: {line}")
            failed |= bool(broken)
            if args.check:
                print(_check_table(result["targets"]) + "\n")
                failed |= any(r["verdict"] == "FAIL" for r in result["targets"])
        if args.pathological:
            result = bench_pathological(args, log, neo4j_spec)
            args.results.mkdir(parents=True, exist_ok=True)
            path = args.results / f"{result['date']}-pathological.json"
            path.write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")
            print(pathological_table(result["stores"]["parser"]))
            print("\n" + pathological_ingest_table(result["stores"]))
            print(f"\nresults: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}; "
                  f"total {result['total_s']:.0f} s\n")
            if args.check:
                print(_check_table(result["targets"]) + "\n")
                failed |= any(r["verdict"] == "FAIL" for r in result["targets"])
    finally:
        if server is not None:
            server.stop()
        if kept_home:
            shutil.rmtree(kept_home, ignore_errors=True)
    return 1 if failed else 0  # a failed phase, or with --check a failed target


if __name__ == "__main__":
    raise SystemExit(main())
