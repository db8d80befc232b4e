"""One measured benchmark phase per process: ``python -m bench.phases PHASE ARGS.json OUT.json``.

The harness (:mod:`bench.run`) starts every phase in a fresh interpreter and reaps it with
``os.wait4``, so each phase's peak RSS is its own (``ru_maxrss`` of that child alone). A phase reads
its arguments from a JSON file and writes its figures to another; times are wall-clock seconds from
``time.perf_counter``. Phases only use the store contract and the query functions, so the same
code measures every backend.

Store specs (``args["store"]``): ``{"kind": "embedded", "home": "FOLDER"}`` (the embedded store
in that home folder, opened with :func:`graph.stores.open_embedded`, which alone knows its files) or
``{"kind": "neo4j", "uri", "user", "password", "database"}``.
"""

from __future__ import annotations

import importlib.util
import json
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from collections.abc import Callable

from graph.model import EdgeKind, Label
from graph.store import Direction, GraphStore

__all__ = ["PHASES", "open_store", "progress", "main"]

_OUT: Path | None = None


def progress(figures: dict) -> None:
    """Write partial figures now, so a phase stopped by the harness's timeout still reports them."""
    if _OUT is not None:
        _OUT.write_text(json.dumps({**figures, "partial": True}), encoding="utf-8")


def _import_store(spec: dict[str, Any]) -> None:
    """Import the store's module ahead of opening it (so a timed open leaves the Neo4j driver's
    import out); the embedded store's own module is whatever ``open_embedded`` imports."""
    if spec["kind"] == "embedded":
        import graph.stores
    else:
        import graph.stores.neo4j  # noqa: F401  (only when a Neo4j run is asked for)


def open_store(spec: dict[str, Any]) -> GraphStore:
    """The store a spec names (see the module docstring)."""
    _import_store(spec)
    if spec["kind"] == "embedded":
        from graph.stores import open_embedded

        return open_embedded(Path(spec["home"]))
    from graph.stores.neo4j import Neo4jStore

    return Neo4jStore.connect(spec["uri"], user=spec.get("user", "neo4j"), password=spec.get("password", ""),
                              database=spec.get("database", "neo4j"))


def _member_files(corpus: Path) -> list[Path]:
    from ingest.files import member_files

    return member_files([corpus])


def parse_floor(args: dict) -> dict:
    """markdown-it-py's bare parse of every member (the parse floor): no citegraph code at all.

    The preset matches what a Markdown member parser needs at least: CommonMark plus tables.
    Files are read first, untimed; only ``MarkdownIt.parse`` is timed.
    """
    from markdown_it import MarkdownIt

    files = [p for p in _member_files(Path(args["corpus"])) if p.suffix == ".md"]
    t0 = time.perf_counter()
    texts = [p.read_text(encoding="utf-8") for p in files]
    read_s = time.perf_counter() - t0
    md = MarkdownIt("commonmark").enable("table")
    t0, c0 = time.perf_counter(), time.process_time()
    tokens = 0
    for text in texts:
        tokens += len(md.parse(text))
    parse_s, parse_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    return {"files": len(files), "bytes": sum(len(t.encode("utf-8")) for t in texts), "tokens": tokens,
            "read_s": read_s, "parse_s": parse_s, "parse_cpu_s": parse_cpu_s}


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of its children waited for, so the
    parse pool's workers count too (``time.process_time`` leaves them out)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def ingest(args: dict) -> dict:
    """``citegraph ingest CORPUS`` as the CLI runs it (:func:`ingest.pipeline.ingest_paths`): one
    analysis set at a time, read, parsed (in a process pool on a multi-core machine), pin-checked
    and written before the next; the whole run one transaction where the store offers it. Parsing
    and writing overlap, so only the total is timed."""
    from ingest.files import member_files
    from ingest.pipeline import ingest_paths

    corpus = Path(args["corpus"])
    files = member_files([corpus])
    with open_store(args["store"]) as store:
        t0, c0 = time.perf_counter(), _cpu()
        report = ingest_paths(store, [corpus], skip_invalid=True)
        t1, c1 = time.perf_counter(), _cpu()
        counts = store.counts()
    refused = [[d.path, d.error] for d in report.documents if d.status == "skipped"]
    return {
        "documents": len(report.documents) - len(refused), "refused": refused,
        "bytes": sum(f.stat().st_size for f in files), "sets": len(report.sets),
        "read_parse_s": None, "write_s": None, "seconds": t1 - t0, "counts": counts,
        "read_parse_cpu_s": None, "write_cpu_s": None, "cpu_s": c1 - c0,
    }


def check(args: dict) -> dict:
    """``citegraph check`` over the whole store: error and warning counts per finding code."""
    from queries.shapes import plain
    from queries.validation import check as run_check

    with open_store(args["store"]) as store:
        t0 = time.perf_counter()
        report = run_check(store)
        seconds = time.perf_counter() - t0
    codes = Counter(f"{f.severity}:{f.code}" for f in report.findings)
    first = [plain(f) for f in report.findings if f.severity == "error"][:10]
    return {"seconds": seconds, "errors": report.errors, "warnings": report.warnings, "codes": dict(codes),
            "first_errors": first}


def select(args: dict) -> dict:
    """The records to query: ``hot`` most-cited and ``cold`` least-cited (at least one citation),
    counting incoming CITES edges in the store; ties broken by a seeded shuffle."""
    with open_store(args["store"]) as store:
        records = store.find_nodes(Label.RECORD)
        incoming = store.edges([r.id for r in records], kinds=[EdgeKind.CITES], direction=Direction.IN)
    rng = random.Random(args.get("seed", 0))
    rows = [(len(incoming[r.id]), r.set_id or "", r.get("record_id")) for r in records]
    rows = [r for r in rows if r[0] > 0]
    rng.shuffle(rows)
    rows.sort(key=lambda r: -r[0])
    n_hot, n_cold = args.get("hot", 50), args.get("cold", 50)
    hot = rows[:n_hot]
    cold = rows[n_hot:][-n_cold:] if len(rows) > n_hot else []
    return {
        "records": [{"group": "hot", "set": s, "record": rid, "citations": n} for n, s, rid in hot]
        + [{"group": "cold", "set": s, "record": rid, "citations": n} for n, s, rid in cold],
        "candidates": len(rows),
    }


def rests_on(args: dict) -> dict:
    """``rests_on`` for each selected record: one untimed warm-up call, then ``repeats`` timed
    calls; also the results' direct/transitive split and the member files they fall in."""
    from queries.traversal import rests_on as query

    _import_store(args["store"])  # the Neo4j driver's import is not part of opening
    t0 = time.perf_counter()
    with open_store(args["store"]) as store:
        store.get_nodes(["-"])  # first read: an embedded store that loads lazily does so here
        open_s = time.perf_counter() - t0
        repeats = args.get("repeats", 3)
        out = []
        for row in args["records"]:
            set_id = row["set"] if args.get("with_set", True) else None
            t = time.perf_counter()
            report = query(store, row["record"], set_id=set_id)
            first_s = time.perf_counter() - t
            times, cpu = [], []
            for _ in range(repeats):
                t, c = time.perf_counter(), time.process_time()
                query(store, row["record"], set_id=set_id)
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
            docs = store.get_nodes(sorted({r.document for r in report.results}))
            out.append({**row, "first_s": first_s, "times": times, "cpu": cpu, "results": len(report.results),
                        "direct": sum(1 for r in report.results if r.direct),
                        "transitive": sum(1 for r in report.results if not r.direct),
                        "paths": sorted(str(d.get("path")) for d in docs.values()),
                        "direct_paths": sorted({str(docs[r.document].get("path")) for r in report.results
                                                if r.direct and r.document in docs})})
    return {"open_s": open_s, "per_record": out}


def impact(args: dict) -> dict:
    """``impact_of`` for the ``change`` commit (50 edited files of the impact set's source): one
    first call (cold git reads) and ``repeats`` timed repeats; the report's summary counts."""
    if importlib.util.find_spec("queries.impact") is None:
        return {"skipped": "queries/impact does not exist"}
    from ingest.git import GitRepository
    from queries.impact import impact_of
    from queries.shapes import plain

    with open_store(args["store"]) as store:
        repo = GitRepository(Path(args["source"]))
        t0 = time.perf_counter()
        report = impact_of(store, repo, from_revision=args["base"], to_revision=args["change"], set_id=args["set"])
        first_s = time.perf_counter() - t0
        times = []
        for _ in range(args.get("repeats", 2)):
            t0 = time.perf_counter()
            impact_of(store, GitRepository(Path(args["source"])), from_revision=args["base"],
                      to_revision=args["change"], set_id=args["set"])
            times.append(time.perf_counter() - t0)
    summary = plain(report)["summary"]
    return {"first_s": first_s, "times": times, "seconds": sorted(times)[len(times) // 2] if times else first_s,
            "summary": summary}


def verify(args: dict) -> dict:
    """``citegraph verify`` over the whole store: rebuild every member from its nodes and compare
    SHA-256 with the ingested bytes; set by set to bound memory."""
    from queries.documents import document_trees
    from render.document import verify as run_verify

    with open_store(args["store"]) as store:
        t0 = time.perf_counter()
        sets = [n.id for n in store.find_nodes(Label.ANALYSIS_SET)]
        documents = differing = size = 0
        for set_id in sets:
            report = run_verify(document_trees(store, set_id=set_id))
            documents += len(report.results)
            differing += report.differing
            size += sum(r.size for r in report.results)
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, "documents": documents, "differing": differing, "bytes": size}


def history(args: dict) -> dict:
    """History on the embedded store: a version diff of one set, a comparison of two runs, and
    rests-on with 10 versions of every set against one (:func:`bench.history.history_phase`)."""
    from bench.history import history_phase

    return history_phase(args, open_store)


def pathological(args: dict) -> dict:
    """Parse one pathological input (:mod:`bench.pathological`: ``case``, as file ``path``) at size
    ``n`` and at ``2n``, after an untimed warm-up on the case at ``n // 100``.

    ``mode`` ``time``: ``repeats`` rounds, each parsing both sizes (in turn ``n`` first, then
    ``2n`` first), with Python's cyclic collector paused, as ``citegraph ingest`` parses
    (:func:`ingest.sets.assemble`); then each size once with the collector running, as the server
    parses. Both sizes in one process, alternating, so a change of load on a shared machine
    falls on both. ``mode`` ``memory``: one parse of size ``n`` only, and how far it raised this
    process's peak RSS (the input's bytes are built before, so they are not counted); the harness
    starts one such process per size.

    Returns wall and CPU seconds per size (``times``/``cpu``: ``{"n": [...], "2n": [...]}``,
    ``gc_times``/``gc_cpu`` for the parses with the collector), the input ``bytes`` per size and
    the outcome (``blocks`` and ``citations``, or ``refused`` for a ParseError); any other exception
    is reported as ``error`` (its type and message), and the run stops there."""
    import gc

    from bench.pathological import member
    from graph.errors import ParseError
    from ingest.parsers import parse_member

    def parse(data: bytes) -> dict:
        try:
            doc = parse_member(data, args["path"])
        except ParseError as exc:
            return {"refused": str(exc)}
        return {"blocks": len(doc.blocks), "citations": sum(len(b.citations) for b in doc.blocks)}

    n, mode = args["n"], args.get("mode", "time")
    sizes = {"n": n} if mode == "memory" else {"n": n, "2n": 2 * n}
    data = {half: member(args["case"], size) for half, size in sizes.items()}
    out: dict[str, Any] = {"case": args["case"], "mode": mode, "n": n, "bytes": {h: len(d) for h, d in data.items()},
                           "times": {h: [] for h in data}, "cpu": {h: [] for h in data}, "gc_times": {}, "gc_cpu": {}}
    try:
        parse(member(args["case"], max(1, n // 100)))
    except Exception as exc:  # noqa: BLE001 - as below
        out["error"] = f"{type(exc).__name__}: {str(exc)[:200]} (in the warm-up)"
        return out
    gc.collect()
    before = out["rss_before_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rounds = [list(data) if k % 2 == 0 else list(data)[::-1] for k in range(args.get("repeats", 3))]
    if mode == "memory":
        rounds = [["n"]]
    runs = [(half, False) for halves in rounds for half in halves]
    runs += [(half, True) for half in data] if mode == "time" else []
    for half, collector in runs:
        if not collector:
            gc.disable()
        t, c = time.perf_counter(), time.process_time()
        try:
            outcome = parse(data[half])
        except Exception as exc:  # noqa: BLE001 - the figure is which exception a pathological input raises
            out["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            break
        finally:
            gc.enable()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        if collector:
            out["gc_times"][half], out["gc_cpu"][half] = wall, cpu
        else:
            out["times"][half].append(wall)
            out["cpu"][half].append(cpu)
        if mode == "memory":
            out["parse_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
        out.setdefault("outcome", {})[half] = outcome
        del outcome
        gc.collect()
        progress(out)
    return out


def pathological_ingest(args: dict) -> dict:
    """Ingest one pathological member (:data:`bench.pathological.WRITE_CASES`: ``case``, as file
    ``path``) into the store ``store`` (a spec, see the module docstring; it must start empty) at
    size ``n`` and at ``2n``, after an untimed warm-up on the case at ``n // 100``.

    ``repeats`` rounds, each ingesting both sizes (in turn ``n`` first, then ``2n`` first), so a
    change of load on a shared machine falls on both; each ingest is :func:`ingest.pipeline.ingest_paths`
    of the one member into the empty store, timed whole (read, parse, write), and the member is
    deleted again (``delete_documents``, untimed), which leaves the store empty.

    Returns wall and CPU seconds of this process per size (``times``/``cpu``: ``{"n": [...],
    "2n": [...]}``; the store's own work is in the wall time only for Neo4j), the input ``bytes`` per
    size and the ``outcome`` per size: ``edges`` (the store's CITES edges after the ingest) and
    ``nodes``. An exception is reported as ``error`` (its type and message), and the run stops
    there."""
    import tempfile

    from bench.pathological import member
    from ingest.pipeline import ingest_paths

    n = args["n"]
    data = {"n": member(args["case"], n), "2n": member(args["case"], 2 * n)}
    out: dict[str, Any] = {"case": args["case"], "store": args["store"]["kind"], "n": n,
                           "bytes": {h: len(d) for h, d in data.items()},
                           "times": {h: [] for h in data}, "cpu": {h: [] for h in data}}
    with open_store(args["store"]) as store, tempfile.TemporaryDirectory(prefix="bench-patho-") as tmp:
        file = Path(tmp) / args["path"]

        def ingest(content: bytes) -> dict:
            file.write_bytes(content)
            t, c = time.perf_counter(), time.process_time()
            (document,) = ingest_paths(store, [file], workers=1).documents
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            counts = store.counts()
            store.delete_documents([document.document])
            return {"wall": wall, "cpu": cpu, "edges": counts[str(EdgeKind.CITES)], "nodes": counts["nodes"]}

        try:
            ingest(member(args["case"], max(1, n // 100)))
        except Exception as exc:  # noqa: BLE001 - as below
            out["error"] = f"{type(exc).__name__}: {str(exc)[:200]} (in the warm-up)"
            return out
        rounds = [list(data) if k % 2 == 0 else list(data)[::-1] for k in range(args.get("repeats", 3))]
        for half in (h for halves in rounds for h in halves):
            try:
                got = ingest(data[half])
            except Exception as exc:  # noqa: BLE001 - the figure is which exception the write raises
                out["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
                break
            out["times"][half].append(got.pop("wall"))
            out["cpu"][half].append(got.pop("cpu"))
            out.setdefault("outcome", {})[half] = got
            progress(out)
    return out


PHASES: dict[str, Callable[[dict], dict]] = {
    "parse-floor": parse_floor, "ingest": ingest, "check": check, "select": select, "rests-on": rests_on,
    "impact": impact, "verify": verify, "history": history, "pathological": pathological,
    "pathological-ingest": pathological_ingest,
}
"""Phase name → function(args) → figures."""


def main(argv: list[str] | None = None) -> int:
    """Run one phase: ``python -m bench.phases PHASE ARGS.json OUT.json``."""
    global _OUT
    name, args_path, out_path = (sys.argv[1:] if argv is None else argv)
    args = json.loads(Path(args_path).read_text(encoding="utf-8"))
    _OUT = Path(out_path)
    result = PHASES[name](args)
    Path(out_path).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
