"""Concurrent requests through real servers on both stores. No
acknowledged write is lost (two servers on one store), no read sees half of a write (one snapshot
per request), and a write racing a delete is answered truly (never 500, exactly one delete wins).

Bounded: a few hundred requests per test, on the 2-core CI machine well under a minute each."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.conftest import SEED_TALORYS, SEED_SYNTHESIS, SEED_WORKFLOW, SEEDS, ingest_into
from tests.reliability.helpers import (
    AUTH,
    child_environment,
    served,
    server_process,
    sha256,
    store_arguments,
    synthesis_of,
)

TOLARIA = [SEED_SYNTHESIS, SEED_WORKFLOW]

# -- item 3: two servers on one store lose no acknowledged write ---------------------------------------------


def test_two_servers_on_one_store_lose_no_acknowledged_put(request, store, tmp_path):
    """Two ``citegraph serve`` processes on one home (or one Neo4j), 96 creates and 48 compare-and-swap
    replacements sent to both at once: every acknowledged PUT is there afterwards, on both servers;
    the replacements of each document form one chain (no two succeed on the same ETag). The store
    decides "changed by another process" from its own transactions, not from file timestamps, so a
    filesystem's timestamp granularity cannot matter."""
    kind = request.node.callspec.params["store"]
    neo4j_server = request.getfixturevalue("neo4j_server") if kind == "neo4j" else None
    home = tmp_path / "home"
    if kind == "embedded":
        store.close()  # the servers alone use the home
    env = child_environment(neo4j_server)
    arguments = store_arguments(kind, home, neo4j_server)
    with server_process(arguments, env) as one, server_process(arguments, env) as two:
        servers = [one, two]

        def create(n: int) -> tuple[str, httpx.Response]:
            system = f"Parallel{n:03d}"
            body = synthesis_of(system, f"Created through server {n % 2}.")
            return sha256(body), httpx.put(f"{servers[n % 2]}/documents/{system.lower()}/synthesis", content=body,
                                           headers=AUTH, timeout=120)

        with ThreadPoolExecutor(6) as pool:
            created = list(pool.map(create, range(96)))
        assert [r.status_code for _, r in created] == [201] * 96, [r.text for _, r in created if r.status_code != 201]
        assert all(r.headers["etag"] == f'"{sha}"' for sha, r in created)

        chains: dict[str, list[tuple[str, str]]] = {f"shared{k}": [] for k in range(4)}  # (If-Match, new ETag)
        for _k, system in enumerate(chains):
            first = httpx.put(f"{one}/documents/{system}/synthesis", content=synthesis_of(system.title()),
                              headers=AUTH, timeout=120)
            assert first.status_code == 201
            chains[system].append(("", first.headers["etag"]))

        def replace(n: int) -> None:
            system = f"shared{n % 4}"
            server = servers[n % 2]
            for _ in range(30):  # retried on 412 with the ETag read again
                read = httpx.get(f"{server}/documents/{system}/synthesis", timeout=60)
                assert read.status_code == 200, (read.status_code, read.text)
                etag = read.headers["etag"]
                body = synthesis_of(system.title(), f"Replacement {n} through server {n % 2}.")
                done = httpx.put(f"{server}/documents/{system}/synthesis", content=body,
                                 headers={**AUTH, "If-Match": etag}, timeout=120)
                if done.status_code == 412:
                    continue
                assert done.status_code == 200, done.text
                assert done.headers["etag"] == f'"{sha256(body)}"'
                chains[system].append((etag, done.headers["etag"]))
                return
            raise AssertionError(f"replacement {n} lost 30 races in a row")

        with ThreadPoolExecutor(6) as pool:
            list(pool.map(replace, range(48)))

        for server in servers:
            listed = {d["id"]: d["sha256"] for d in httpx.get(f"{server}/documents", timeout=60).json()["data"]}
            assert {f"parallel{n:03d}/synthesis": sha for n, (sha, _) in enumerate(created)}.items() <= listed.items()
            assert len(listed) == 96 + 4
            for system, chain in chains.items():
                assert len(chain) == 1 + 12
                # one chain: every replacement names the ETag the one before it made, and the last is stored
                order = {before: after for before, after in chain[1:]}
                assert len(order) == 12, "two replacements succeeded on the same ETag"
                tag, walked = chain[0][1], 0
                while tag in order:
                    tag, walked = order[tag], walked + 1
                assert walked == 12 and f'"{listed[f"{system}/synthesis"]}"' == tag


# -- item 4: a request reads one committed state -------------------------------------------------------------

FULL = {"nodes": 204, "Document": 3, "Statement": 78}
WITHOUT_TOLARIA = {"nodes": 78, "Document": 1, "Statement": 24}
GRAPHQL = "{ sets { edges { node { nodeId documents { totalCount } statements { totalCount } } } } }"


def _torn(kind: str, response: httpx.Response) -> tuple[str | None, bool | None]:
    """(why the response shows half a write, or None; whether it shows the set tolaria)."""
    if response.status_code >= 500:
        return f"{kind}: {response.status_code} {response.text[:200]}", None
    if kind == "sets":
        listed = {s["id"]: s["documents"] for s in response.json()["data"]}
        if "tolaria" not in listed:
            return None, False
        return (None if listed["tolaria"] == ["tolaria/synthesis", "tolaria/workflow-report"]
                else f"sets: tolaria listed with {listed['tolaria']}"), True
    if kind == "rests-on":
        if response.status_code == 404:
            return None, False
        count = response.json()["count"]
        return (None if count == 14 else f"rests-on: 200 with count {count}"), True
    if kind == "stats":
        body = response.json()
        totals = {k: body["totals"][k] for k in FULL}
        sets = {s["set"]: (len(s["documents"]), s["statements"]) for s in body["sets"]}
        if totals == FULL and sets == {"talorys": (1, 24), "tolaria": (2, 54)}:
            return None, True
        if totals == WITHOUT_TOLARIA and sets == {"talorys": (1, 24)}:
            return None, False
        return f"stats: totals {totals}, sets {sets}", None
    if "errors" in response.json():
        return f"graphql: {response.json()['errors']}", None
    sets = {e["node"]["nodeId"]: (e["node"]["documents"]["totalCount"], e["node"]["statements"]["totalCount"])
            for e in response.json()["data"]["sets"]["edges"]}
    if sets == {"talorys": (1, 24)}:
        return None, False
    return (None if sets == {"talorys": (1, 24), "tolaria": (2, 54)} else f"graphql: sets {sets}"), True


def test_reads_under_set_delete_and_recreate_churn_are_never_torn(store):
    """A writer deletes the Tolaria set and ingests it again, 12 times; four readers meanwhile list
    sets, ask rests-on, stats and a GraphQL query of sets with their documents and statements.
    Every answer shows the set whole or not at all."""
    ingest_into(store, SEEDS)
    files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in TOLARIA]
    with served(store) as url:
        done = threading.Event()
        torn: list[str] = []
        seen: dict[bool, int] = {True: 0, False: 0}
        reads = {"n": 0}
        lock = threading.Lock()

        def reader(offset: int) -> None:
            requests = [
                ("sets", lambda c: c.get(f"{url}/sets")),
                ("rests-on", lambda c: c.get(f"{url}/records/RT-RTE-mcp-write/rests-on", params={"set": "tolaria"})),
                ("stats", lambda c: c.get(f"{url}/stats")),
                ("graphql", lambda c: c.post(f"{url}/graphql", json={"query": GRAPHQL})),
            ]
            with httpx.Client(timeout=60) as client:
                i = offset
                while not done.is_set():
                    kind, send = requests[i % len(requests)]
                    why, present = _torn(kind, send(client))
                    with lock:
                        reads["n"] += 1
                        if why:
                            torn.append(why)
                        elif present is not None:
                            seen[present] += 1
                    i += 1

        threads = [threading.Thread(target=reader, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        try:
            with httpx.Client(timeout=120) as writer:
                for _ in range(12):
                    assert writer.delete(f"{url}/sets/tolaria", headers=AUTH).status_code == 204
                    time.sleep(0.02)
                    assert writer.post(f"{url}/sets", files=files, headers=AUTH).status_code == 201
                    time.sleep(0.02)
        finally:
            done.set()
            for t in threads:
                t.join()
    assert torn == []
    assert seen[True] > 0 and seen[False] > 0, seen  # the reads did interleave with both states
    assert reads["n"] >= 100


# -- item 5: a write racing a delete ----------------------------------------------------------------------


def test_puts_racing_deletes_are_answered_truly(store):
    """Six clients at once, each 16 times: PUT its own version of one document, then DELETE it. Every
    PUT is 200/201 with the ETag of the body it wrote, never a 500 for a write that happened nor the
    ETag of another client's version; every DELETE 204 or 404; the document ends deleted or as one
    client's version."""
    ingest_into(store, SEEDS)
    bodies = {}

    def client(k: int) -> list[str]:
        wrong = []
        with httpx.Client(timeout=120) as http:
            for n in range(16):
                body = SEED_TALORYS.read_bytes() + f"\nClient {k}, round {n} closes the synthesis.\n".encode()
                bodies[sha256(body)] = body
                try:  # a server error drops the connection: counted as the wrong answer it is
                    put = http.put(f"{url}/documents/talorys/synthesis", content=body, headers=AUTH)
                    if put.status_code not in (200, 201) or put.headers.get("etag") != f'"{sha256(body)}"':
                        wrong.append(f"PUT {put.status_code} {put.headers.get('etag')} {put.text[:100]}")
                    deleted = http.delete(f"{url}/documents/talorys/synthesis", headers=AUTH)
                    if deleted.status_code not in (204, 404):
                        wrong.append(f"DELETE {deleted.status_code} {deleted.text[:100]}")
                except httpx.TransportError as exc:
                    wrong.append(f"{type(exc).__name__}: {exc}")
        return wrong

    with served(store) as url:
        with ThreadPoolExecutor(6) as pool:
            wrong = [w for found in pool.map(client, range(6)) for w in found]
        now = httpx.get(f"{url}/documents/talorys/synthesis")
        assert now.status_code == 404 or now.headers["etag"].strip('"') in bodies
    assert wrong == []


def test_concurrent_deletes_of_one_set_one_wins(store):
    """Eight DELETE /sets/tolaria at once, four rounds: exactly one 204 each round, the rest 404
    NOT_FOUND; the set and its documents are gone, Talorys untouched."""
    ingest_into(store, SEEDS)
    files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in TOLARIA]
    with served(store) as url:
        for _ in range(4):
            barrier = threading.Barrier(8)

            def delete(_: int) -> httpx.Response:
                barrier.wait()
                return httpx.delete(f"{url}/sets/tolaria", headers=AUTH, timeout=60)

            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(delete, range(8)))
            assert sorted(r.status_code for r in answers) == [204] + [404] * 7, [r.text for r in answers]
            assert {r.json()["error"]["message"] for r in answers if r.status_code == 404} == {
                "no analysis set 'tolaria' in the store"}
            assert [d["id"] for d in httpx.get(f"{url}/documents").json()["data"]] == ["talorys/synthesis"]
            assert httpx.post(f"{url}/sets", files=files, headers=AUTH).status_code == 201
