"""One request never stalls the server (the issue: a GraphQL document with a 1 MB string literal
parsed for 11 s while ``/health`` waited): ``/health`` of a real ``citegraph serve`` process answers
within 100 ms while a 1 MB GraphQL literal, an 8 MiB upload and a whole-store export run, on both
stores."""

from __future__ import annotations

import socket
import statistics
import threading
import time
from urllib.parse import urlsplit

import httpx

from tests.conftest import SEEDS
from tests.reliability.helpers import AUTH, CHEATSHEET, child_environment, server_process, store_arguments

MIB = 1024 * 1024
HEALTH_MS = 100


class HealthProbe:
    """``GET /health`` over one kept-alive connection, timed from the request's send to the
    answer's last byte. The socket acknowledges at once (``TCP_QUICKACK``, Linux), so the time is
    the server's own, not the 40 ms a delayed acknowledgement adds when a server writes an answer's
    head and body in two small segments (which the server socket's ``TCP_NODELAY`` removes)."""

    def __init__(self, url: str):
        where = urlsplit(url)
        self.sock = socket.create_connection((where.hostname, where.port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def __call__(self) -> tuple[int, float]:
        """The status and the milliseconds it took."""
        started = time.perf_counter()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        self.sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            data += self._recv()
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(next(line.split(b":", 1)[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:")))
        while len(body) < length:
            body += self._recv()
        return int(head.split(b" ", 2)[1]), (time.perf_counter() - started) * 1000

    def _recv(self) -> bytes:
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        chunk = self.sock.recv(65536)
        assert chunk, "the server closed the connection"
        return chunk

    def close(self) -> None:
        self.sock.close()


def _heavy_requests(url: str) -> tuple[list[threading.Thread], dict[str, httpx.Response]]:
    """The three requests of the issue, sent at once: their started threads, and their answers by
    name (each filled in when its thread ends)."""
    literal = '{ search(text: "' + "a" * 1_000_000 + '") { total } }'
    upload = b"An upload of the largest size\n" + b"x" * (8 * MIB - 64) + b"\n"  # no Type line: refused after reading
    jobs = {
        "literal": lambda c: c.post("/graphql", json={"query": literal}),
        "upload": lambda c: c.post("/sets", files=[("files", ("big.txt", upload, "text/plain"))], headers=AUTH),
        "export": lambda c: c.get("/export", params={"format": "graphml"}),
    }
    answers: dict[str, httpx.Response] = {}

    def run(name):
        with httpx.Client(base_url=url, timeout=120) as client:
            answers[name] = jobs[name](client)

    threads = [threading.Thread(target=run, args=(name,)) for name in jobs]
    for thread in threads:
        thread.start()
    return threads, answers


def test_health_answers_within_100_ms_while_heavy_requests_run(request, store, tmp_path):
    kind = request.node.callspec.params["store"]
    neo4j_server = request.getfixturevalue("neo4j_server") if kind == "neo4j" else None
    if kind == "embedded":
        store.close()
    home = tmp_path / "home"
    arguments = store_arguments(kind, home, neo4j_server)
    env = child_environment(neo4j_server)
    with server_process(arguments, env) as url, httpx.Client(base_url=url, timeout=30) as client:
        for folders in ([SEEDS], CHEATSHEET):  # a store of 3 sets: the seeds' two and the Dynamic Cheatsheet set
            files = [("files", (p.name, p.read_bytes(), "text/plain")) for folder in folders
                     for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix in (".txt", ".md", ".yaml")]
            response = client.post("/sets", files=files, headers=AUTH)
            assert response.status_code in (200, 201), response.text[:300]
        probe = HealthProbe(url)
        assert probe()[0] == 200  # a warm connection: the timings below are the server's, not a handshake's
        threads, answers = _heavy_requests(url)
        latencies = []
        try:
            while any(t.is_alive() for t in threads):
                status, took = probe()
                assert status == 200
                latencies.append(took)
                time.sleep(0.02)
        finally:
            probe.close()
            for thread in threads:
                thread.join()
    assert answers["literal"].json()["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"
    assert answers["upload"].status_code == 422, answers["upload"].text[:300]
    assert answers["export"].status_code == 200 and answers["export"].content.count(b"<node ") == 738  # README: 738 nodes
    assert len(latencies) >= 3, latencies
    ordered = sorted(latencies)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    summary = f"{len(latencies)} probes: median {statistics.median(latencies):.0f} ms, 90th {p90:.0f} ms, max {max(latencies):.0f} ms"
    print(f"/health while the heavy requests ran: {summary}")
    # 100 ms is the bound of every answer on an idle machine (the literal held it 11 s). On
    # the shared 2-core machines, another process's burst or a full garbage collection of the
    # export's objects can stall the whole server ~200 ms once: the 90th percentile is held to
    # 100 ms, and no single answer may take 4 times that.
    assert p90 < HEALTH_MS and max(latencies) < 4 * HEALTH_MS, summary
