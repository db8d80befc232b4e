"""The history phase of the benchmark: a version diff of one set, a comparison of two
runs of one system, and rests-on on the latest version with 10 versions kept of every set.

Runs on the embedded store after the other phases (it changes the store: a second version of one
set, a second run of it, nine more versions of every set). Versions are made through the store
contract, as an ingest of an edited member makes them: one document of the set rewritten with one
statement edited and one of its citations dropped (``write_set`` of that document, the set's
derived edges kept).
"""

from __future__ import annotations

import hashlib
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from graph.codec import citation_target_kind
from graph.model import DocumentGraph, Edge, EdgeKind, Label, Node, SetBatch
from graph.store import GraphStore
from queries.history import read_set

__all__ = ["edited_version", "renamed_run", "history_phase"]


def _smallest(batch: SetBatch) -> DocumentGraph:
    return min(batch.documents, key=lambda g: (len(g.nodes) + len(g.edges), g.id))


def edited_version(store: GraphStore, set_id: str, round_: int, *, document: str | None = None) -> None:
    """Write a new version of ``set_id`` as an ingest of an edited member would: in ``document``
    (default: its smallest member) the first statement citing a record gets a sentence more
    (``round_`` makes each round's text differ) and loses its first record citation, and the
    member's SHA-256 changes."""
    full = read_set(store, set_id)
    graph = next(g for g in full.documents if g.id == document) if document else _smallest(full)
    cited = {e.src: e for e in graph.edges if e.kind == EdgeKind.CITES and citation_target_kind(e) == "record"}
    target = next((n for n in graph.nodes if n.label == Label.STATEMENT and n.id in cited), None)
    if target is None:
        target = next(n for n in graph.nodes if n.label == Label.STATEMENT)
    extra = f" Edited for the benchmark, round {round_}."
    props = {**target.props, "text": (target.get("text") or "") + extra, "markup": (target.get("markup") or "") + extra}
    nodes = tuple(Node(n.id, n.label, n.set_id, n.document_id, props) if n.id == target.id else n for n in graph.nodes)
    dropped = cited.get(target.id)
    edges = tuple(e for e in graph.edges if e is not dropped)
    doc = graph.document
    sha = hashlib.sha256(f"{doc.get('sha256')}:{round_}".encode()).hexdigest()
    document = Node(doc.id, doc.label, doc.set_id, doc.document_id, {**doc.props, "sha256": sha})
    store.write_set(SetBatch(set_id, (), (DocumentGraph(document, nodes, edges),), full.derived))


def renamed_run(store: GraphStore, set_id: str, new_id: str) -> None:
    """Write a second run of ``set_id``'s system: the same set under the id ``new_id`` (every node
    and edge of the set renamed, the System shared)."""
    full = read_set(store, set_id)

    def rid(node_id: str) -> str:
        if node_id == set_id:
            return new_id
        return new_id + node_id[len(set_id):] if node_id.startswith(set_id + "/") else node_id

    def node(n: Node) -> Node:
        props = dict(n.props)
        if n.label == Label.ANALYSIS_SET:
            props["run_id"] = new_id
        return Node(rid(n.id), n.label, rid(n.set_id) if n.set_id else None,
                    rid(n.document_id) if n.document_id else None, props)

    def edge(e: Edge) -> Edge:
        props = {k: rid(v) if isinstance(v, str) else v for k, v in e.props.items()}
        return Edge(e.kind, rid(e.src), rid(e.dst), e.seq, rid(e.document_id) if e.document_id else None,
                    rid(e.set_id) if e.set_id else None, props)

    documents = tuple(DocumentGraph(node(g.document), tuple(map(node, g.nodes)), tuple(map(edge, g.edges)))
                      for g in full.documents)
    store.write_set(SetBatch(new_id, tuple(map(node, full.shared)), documents, tuple(map(edge, full.derived))))


def _timed(fn, repeats: int) -> tuple[float, list[float]]:
    t = time.perf_counter()
    fn()
    first = time.perf_counter() - t
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return first, times


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def history_phase(args: dict[str, Any], open_store) -> dict:
    """The figures: ``diff_first_s``/``diff_s`` (first call, median of repeats), ``compare_first_s``/
    ``compare_s``, the versions added and their write time, and rests-on p50 on the latest version
    with 10 versions of every set against a copy of the store with one, timed alternately."""
    from queries.history import diff_versions
    from queries.runs import compare_runs
    from queries.traversal import rests_on

    home = Path(args["store"]["home"])
    repeats = args.get("repeats", 3)
    out: dict[str, Any] = {}
    with open_store(args["store"]) as store:
        sets = [n.id for n in store.find_nodes(Label.ANALYSIS_SET)]
        chosen = args.get("set") or sets[0]
        edited_version(store, chosen, 1)
        diff_first, diff_times = _timed(lambda: diff_versions(store, chosen, 1, 2), repeats)
        diff = diff_versions(store, chosen, 1, 2)
        out.update(set=chosen, diff_first_s=diff_first, diff_s=statistics.median(diff_times),
                   diff_statements=len(diff.statements), diff_rests_on=len(diff.rests_on),
                   diff_citations=len(diff.citations))
        second = f"{chosen}-rerun"
        renamed_run(store, chosen, second)
        compare_first, compare_times = _timed(lambda: compare_runs(store, chosen, second), repeats)
        comparison = compare_runs(store, chosen, second)
        out.update(compare_first_s=compare_first, compare_s=statistics.median(compare_times),
                   compare_matches=len(comparison.matches), compare_unmatched=len(comparison.unmatched))

    one = home.parent / f"{home.name}-one-version"
    shutil.rmtree(one, ignore_errors=True)
    shutil.copytree(home, one)  # every file (the -wal too): the store with one version per set
    out["disk_one_version_bytes"] = _size(one)
    with open_store(args["store"]) as store:
        kept = getattr(store, "versions_kept", 10)
        t, writes = time.perf_counter(), 0
        for set_id in [n.id for n in store.find_nodes(Label.ANALYSIS_SET)]:
            have = len(store.set_versions(set_id))  # type: ignore[attr-defined]
            for round_ in range(have + 1, kept + 1):
                edited_version(store, set_id, round_)
                writes += 1
        out.update(version_writes=writes, version_write_s=time.perf_counter() - t,
                   versions_per_set=min(len(store.set_versions(s)) for s in  # type: ignore[attr-defined]
                                        [n.id for n in store.find_nodes(Label.ANALYSIS_SET)]))
    out["disk_versions_bytes"] = _size(home)

    try:
        with open_store(args["store"]) as many, open_store({"kind": "embedded", "home": str(one)}) as few:
            rows = [r for r in args["records"]]
            for store in (many, few):  # warm-up, untimed
                for r in rows:
                    rests_on(store, r["record"], set_id=r["set"])
            times: dict[str, list[float]] = {"many": [], "few": []}
            for r in rows:
                per: dict[str, list[float]] = {"many": [], "few": []}
                for _ in range(repeats):
                    for name, store in (("few", few), ("many", many)):
                        t = time.perf_counter()
                        rests_on(store, r["record"], set_id=r["set"])
                        per[name].append(time.perf_counter() - t)
                for name in per:
                    times[name].append(statistics.median(per[name]) * 1000)
            out.update(rests_on_versions_p50_ms=statistics.median(times["many"]),
                       rests_on_one_version_p50_ms=statistics.median(times["few"]))
            out["rests_on_versions_ratio"] = out["rests_on_versions_p50_ms"] / out["rests_on_one_version_p50_ms"]
    finally:
        shutil.rmtree(one, ignore_errors=True)
    return out

