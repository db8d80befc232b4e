"""Two ``citegraph serve`` processes answering kept-alive httpx requests in turn: the server CPU
per request and the p50 of each, for A/B pairs of two installs on one store (bench/README.md,
"Serve: the kept-alive p50 at L").

    .venv/bin/python -m bench.serve_pairs --cli main=/work/main/.venv/bin/citegraph \\
        --cli branch=.venv/bin/citegraph --home /work/bench/homeL \\
        --record RT-RTE-caller-expire1336 --set AAS-2026-10-19-tundra-marlin-1336-01

Both servers run at once on the same store; or, with ``--neo4j NAME``, that install serves the
Neo4j that ``CITEGRAPH_NEO4J_URI``, ``_USER``, ``_PASSWORD`` and ``_DATABASE`` name (the two stores
side by side, as the bench's side-by-side phase). Each round sends ``--chunk`` requests of each kind
(``/health``, REST rests-on, GraphQL ``restsOn``, as :func:`bench.run.keepalive_requests` declares them)
to one server, then to the other, the first server alternating from round to round; one httpx
client per server is kept for the whole run, as a notebook keeps its client. A chunk's server CPU
is the change of ``utime + stime`` in ``/proc/PID/stat`` over it, divided by its requests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.run import Served, child_env, keepalive_requests, neo4j_env, percentile, process_cpu_s

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the pairs and print one JSON object: per install and request, CPU ms per request
    (mean of the chunks) and p50 ms of every request, and each install's ratio to the first."""
    import httpx

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cli", action="append", required=True, metavar="NAME=PATH",
                    help="a citegraph console script (twice: the first is the reference)")
    ap.add_argument("--home", required=True, type=Path, help="the embedded store's folder (read only)")
    ap.add_argument("--neo4j", action="append", default=[], metavar="NAME",
                    help="this install serves the Neo4j of the CITEGRAPH_NEO4J_* variables instead")
    ap.add_argument("--record", required=True)
    ap.add_argument("--set", dest="set_id")
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--chunk", type=int, default=25, help="requests of each kind per server per round")
    ap.add_argument("--kinds", default="health,rest,graphql")
    args = ap.parse_args(argv)
    clis = dict(c.split("=", 1) for c in args.cli)
    calls = {k: v for k, v in keepalive_requests(args.record, args.set_id).items() if k in args.kinds.split(",")}
    cpu: dict[str, dict[str, list[float]]] = {n: {k: [] for k in calls} for n in clis}
    wall: dict[str, dict[str, list[float]]] = {n: {k: [] for k in calls} for n in clis}
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="serve-pairs-") as tmp:
        neo4j = {"uri": os.environ.get("CITEGRAPH_NEO4J_URI", ""), "user": os.environ.get("CITEGRAPH_NEO4J_USER", "neo4j"),
                 "password": os.environ.get("CITEGRAPH_NEO4J_PASSWORD", ""),
                 "database": os.environ.get("CITEGRAPH_NEO4J_DATABASE", "neo4j")}
        servers = {n: Served(Path(p), [] if n in args.neo4j else ["--home", str(args.home)], Path(tmp, f"{n}.log"),
                             env=neo4j_env(neo4j) if n in args.neo4j else child_env())
                   for n, p in clis.items()}
        try:
            for n, s in servers.items():
                if s.wait_ready(120) is None:
                    raise SystemExit(f"{n}: no 200 on /health: {s.log_tail()}")
            clients = {n: httpx.Client(base_url=f"http://127.0.0.1:{s.port}", timeout=30) for n, s in servers.items()}
            for client in clients.values():  # one untimed request of each kind
                for method, path, params, body in calls.values():
                    client.request(method, path, params=params, json=body).raise_for_status()
            for k in range(args.rounds):
                order = list(servers) if k % 2 == 0 else list(reversed(servers))
                for n in order:
                    pid, client = servers[n].proc.pid, clients[n]
                    for kind, (method, path, params, body) in calls.items():
                        before = process_cpu_s(pid)
                        for _ in range(args.chunk):
                            t = time.perf_counter()
                            client.request(method, path, params=params, json=body).raise_for_status()
                            wall[n][kind].append(time.perf_counter() - t)
                        cpu[n][kind].append((process_cpu_s(pid) - before) / args.chunk)
            load.append(os.getloadavg()[0])
            for client in clients.values():
                client.close()
        finally:
            for s in servers.values():
                s.stop()
    out: dict = {"record": args.record, "set": args.set_id, "rounds": args.rounds, "chunk": args.chunk,
                 "load": [round(x, 2) for x in load], "installs": {}}
    first = next(iter(clis))
    for n in clis:
        out["installs"][n] = {kind: {"cpu_ms": round(_ms(cpu[n][kind], statistics.fmean), 3),
                                     "p50_ms": round(_ms(wall[n][kind], _p50), 3),
                                     "cpu_vs_first": _ratio(cpu[n][kind], cpu[first][kind], statistics.fmean),
                                     "p50_vs_first": _ratio(wall[n][kind], wall[first][kind], _p50)}
                              for kind in calls}
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


def _p50(values: list[float]) -> float:
    return percentile(values, 50)


def _ms(values: list[float], of) -> float:
    return of(values) * 1000


def _ratio(values: list[float], reference: list[float], of) -> float | None:
    """``of(values) / of(reference)`` to 3 places; None when the reference is 0 (a server too
    quick for the clock's ticks)."""
    ref = of(reference)
    return round(of(values) / ref, 3) if ref else None


if __name__ == "__main__":
    raise SystemExit(main())
