"""Differential tests: the same corpus in the embedded store and in Neo4j answers every query with
byte-identical JSON. Then Neo4j-only behaviour: atomic writes under injected failures
and concurrent replacements.

The corpora are the three seeds and the Dynamic Cheatsheet set (Markdown members; that part skips
while ``ingest.parsers.markdown`` does not exist).
"""

from __future__ import annotations

import dataclasses
import threading
from functools import partial
from operator import methodcaller
from pathlib import Path
from typing import Any
from collections.abc import Callable, Mapping

import pytest

from app.rendering import verify_sets
from graph.errors import CitegraphError
from graph.model import DEPENDENCY_KINDS, EVIDENCE_KINDS, Edge, Label
from graph.store import Direction, GraphStore
from graph.stores.sqlite import SQLiteStore
from graph.stores.neo4j import Neo4jStore
from tests.whole_input import read_members
from ingest.loader import build_set_batch, ingest_parsed
from ingest.parsers import parse_member
from queries.catalog import analysis_sets
from queries.documents import document_trees
from queries.dossier import record_dossiers
from queries.kept import code_digest
from queries.subgraphs import analysis_set_report, rests_on_subgraph
from queries.stats import stats
from queries.traversal import generic_reach, reach, rests_on
from queries.validation import check
from tests.conftest import CORPUS, SEED_SYNTHESIS, SEEDS, fresh_neo4j_store, ingest_into
from tests.contract.helpers import canonical, content

pytestmark = pytest.mark.neo4j

KB = CORPUS / "commonplace" / "kb" / "agentic-system-analyses"
DYNAMIC_CHEATSHEET = [KB / "retained" / "dynamic-cheatsheet",
                      KB / "retained-archive" / "AAS-2026-10-04-dynamic-cheatsheet-01"]


def answer(fn: Callable[[], Any]) -> str:
    """The canonical JSON of ``fn()``, or of the citegraph error it raises (errors must agree too)."""
    try:
        return canonical(fn())
    except CitegraphError as exc:
        return canonical({"error": type(exc).__name__, "message": exc.message, "hint": exc.hint})


def _dynamic_cheatsheet() -> list:
    return read_members(DYNAMIC_CHEATSHEET).parsed


@pytest.fixture(scope="module", params=["seeds", "dynamic-cheatsheet"])
def pair(request, neo4j_session_store) -> tuple[SQLiteStore, Neo4jStore]:
    """(embedded, neo4j) holding the same corpus, ingested through the real loader."""
    parsed = read_members([SEEDS]).parsed if request.param == "seeds" else _dynamic_cheatsheet()
    embedded, neo4j = SQLiteStore(None), fresh_neo4j_store(neo4j_session_store)
    for store in (embedded, neo4j):
        ingest_parsed(store, parsed)
    return embedded, neo4j


Question = Callable[[GraphStore], Any]
"""One query asked of a store; its answer (or citegraph error) is compared across the two stores."""


def differences(pair: tuple[SQLiteStore, Neo4jStore], questions: Mapping[str, Question]) -> list[str]:
    embedded, neo4j = pair
    return [name for name, ask in questions.items() if answer(lambda: ask(embedded)) != answer(lambda: ask(neo4j))]


def record_ids(store: GraphStore) -> list[tuple[str, str | None]]:
    return [(r.get("record_id"), r.set_id) for r in store.find_nodes(Label.RECORD)]


def test_the_stores_hold_the_same_graph(pair):
    embedded, neo4j = pair
    assert embedded.counts()["nodes"] > 0
    assert embedded.counts() == neo4j.counts()
    for label in Label:
        assert answer(lambda: embedded.find_nodes(label)) == answer(lambda: neo4j.find_nodes(label)), label
    ids = [n.id for label in Label for n in embedded.find_nodes(label)]
    for direction in Direction:
        assert answer(lambda: embedded.edges(ids, direction=direction)) == \
            answer(lambda: neo4j.edges(ids, direction=direction)), direction


def test_rests_on_every_record(pair):
    embedded, _ = pair
    questions: dict[str, Question] = {}
    for record_id, set_id in record_ids(embedded):
        for direct in (False, True):
            questions[f"{record_id} direct={direct}"] = \
                partial(rests_on, record_id=record_id, direct_only=direct)
            questions[f"{record_id} set={set_id} direct={direct}"] = \
                partial(rests_on, record_id=record_id, set_id=set_id, direct_only=direct)
        questions[f"{record_id} max_depth=1"] = partial(rests_on, record_id=record_id, max_depth=1)
    questions["unknown record"] = lambda s: rests_on(s, "RT-RTE-not-there")
    questions["unknown set"] = lambda s: rests_on(s, "RT-RTE-mcp-write", set_id="nope")
    for set_id in {k for _, k in record_ids(embedded)}:  # ids naming a Source and a Document of the set
        questions[f"SRC-1 in {set_id}"] = partial(rests_on, record_id="SRC-1", set_id=set_id)
        questions[f"synthesis in {set_id}"] = partial(rests_on, record_id="synthesis", set_id=set_id)
    assert len(questions) > 10
    assert differences(pair, questions) == []


def test_stats_and_check(pair):
    embedded, _ = pair
    questions = {"stats": lambda s: stats(s), "check": lambda s: check(s),
                 "check unknown set": lambda s: check(s, set_id="nope")}
    for analysis_set in embedded.find_nodes(Label.ANALYSIS_SET):
        questions[f"check {analysis_set.id}"] = partial(check, set_id=analysis_set.id)
    assert differences(pair, questions) == []


def test_kept_whole_store_answers_are_neo4js(pair):
    """Both stores answer from the per-set results they kept (queries.kept): the answers are the
    same, and the same as --fresh."""
    embedded, neo4j = pair
    sets = sorted(s.id for s in embedded.find_nodes(Label.ANALYSIS_SET))
    questions = {"stats": lambda s: stats(s), "sets": lambda s: analysis_sets(s), "check": lambda s: check(s),
                 "verify": lambda s: verify_sets(s, sets)}
    assert differences(pair, questions) == []  # the first asks compute and keep
    for store in (embedded, neo4j):
        assert store.kept_results(f"check@{code_digest()}", store.set_stamps(sets)).keys() == set(sets)
    assert differences(pair, questions) == []  # now read back from the kept results
    assert [answer(lambda: ask(embedded)) for ask in questions.values()] == \
        [answer(lambda: ask(neo4j, fresh=True)) for ask in (
            lambda s, fresh: stats(s, fresh=fresh), lambda s, fresh: analysis_sets(s, fresh=fresh),
            lambda s, fresh: check(s, fresh=fresh), lambda s, fresh: verify_sets(s, sets, fresh=fresh))]


def test_find_nodes_for_every_label_and_set(pair):
    embedded, _ = pair
    sets = [s.id for s in embedded.find_nodes(Label.ANALYSIS_SET)]
    documents = [d.id for d in embedded.find_nodes(Label.DOCUMENT)]
    questions: dict[str, Question] = {}
    for label in Label:
        questions[str(label)] = methodcaller("find_nodes", label)
        for set_id in sets:
            questions[f"{label} in {set_id}"] = methodcaller("find_nodes", label, set_id=set_id)
        for doc_id in documents:
            questions[f"{label} of {doc_id}"] = methodcaller("find_nodes", label, document_id=doc_id)
    questions["annotation sections"] = lambda s: s.find_nodes(Label.SECTION, where={"kind": "annotation"})
    questions["table rows"] = lambda s: s.find_nodes(Label.STATEMENT, where={"kind": "table_row"})
    questions["null run ids"] = lambda s: s.find_nodes(Label.ANALYSIS_SET, where={"run_id": None})
    assert differences(pair, questions) == []


def test_closure_of_every_record_and_of_all_at_once(pair):
    embedded, _ = pair
    records = [r.id for r in embedded.find_nodes(Label.RECORD)]
    questions: dict[str, Question] = {f"closure {r}": methodcaller("closure", [r], kinds=DEPENDENCY_KINDS) for r in records}
    questions["all records"] = lambda s: s.closure(records, kinds=DEPENDENCY_KINDS)
    questions["all records, evidence only"] = lambda s: s.closure(records, kinds=EVIDENCE_KINDS)
    documents = [d.id for d in embedded.find_nodes(Label.DOCUMENT)]
    questions["documents"] = lambda s: s.closure(documents, kinds=DEPENDENCY_KINDS)
    assert differences(pair, questions) == []


def test_reach_pushdown_equals_the_generic_path(pair):
    """Neo4j's one-query ``reach`` equals ``closure`` + ``get_nodes`` on either store, for light
    fields (what rests-on asks) and for heavy and odd ones (markup, maps, None, absent keys)."""
    embedded, neo4j = pair
    records = [r.id for r in embedded.find_nodes(Label.RECORD)]
    light = {Label.STATEMENT: ("kind", "text", "line", "order"), Label.SECTION: ("heading",)}
    heavy = {label: ("markup", "text", "heading", "frontmatter", "run_id", "record_id", "cells", "statuses",
                     "preamble", "missing") for label in Label}
    starts = {f"record {r}": [r] for r in records} | {"all records": records, "none": ["nope"]}
    for fields in (light, heavy):
        for name, ids in starts.items():
            expected = canonical(generic_reach(embedded, ids, kinds=DEPENDENCY_KINDS, fields=fields))
            assert canonical(neo4j.reach(ids, kinds=DEPENDENCY_KINDS, fields=fields)) == expected, name
            assert canonical(generic_reach(neo4j, ids, kinds=DEPENDENCY_KINDS, fields=fields)) == expected, name
            assert canonical(reach(embedded, ids, kinds=DEPENDENCY_KINDS, fields=fields)) == expected, name
            bare = canonical(generic_reach(embedded, ids, kinds=DEPENDENCY_KINDS, fields=fields, edge_props=False))
            for store in pair:
                assert canonical(reach(store, ids, kinds=DEPENDENCY_KINDS, fields=fields, edge_props=False)) == bare, name


def test_later_queries_agree_too(pair):
    """Document trees, dossiers, set reports and rests-on subgraphs: identical on both stores."""
    embedded, _ = pair
    sets = [s.id for s in embedded.find_nodes(Label.ANALYSIS_SET)]
    records = record_ids(embedded)
    questions: dict[str, Question] = {"document trees": lambda s: document_trees(s)}
    questions.update({f"dossier {r}": partial(record_dossiers, record_id=r) for r, _ in records})
    questions.update({f"report {k}": partial(analysis_set_report, set_id=k) for k in sets})
    questions.update({f"subgraph {r}": partial(rests_on_subgraph, record_id=r) for r, _ in records})
    assert differences(pair, questions) == []


def test_deleting_a_member_then_its_set_leaves_the_same_graph_on_both_stores(neo4j_store):
    """What goes with a document and with a set's last document (orphaned shared nodes, the set,
    its System) is decided once (:func:`graph.writes.collected`): both stores keep the same graph."""
    embedded = SQLiteStore(None)
    parsed = read_members([SEEDS]).parsed
    for store in (embedded, neo4j_store):
        ingest_parsed(store, parsed)
    for store in (embedded, neo4j_store):
        assert store.delete_documents(["tolaria/workflow-report"]).deleted == ("tolaria/workflow-report",)
    assert canonical(content(embedded)) == canonical(content(neo4j_store))
    counts = embedded.counts()
    assert (counts["nodes"], counts["edges"], counts["SourceFile"], counts["Record"]) == (140, 221, 0, 60)
    assert {r.id for r in embedded.find_nodes(Label.RECORD, set_id="tolaria")} >= {"tolaria/RT-RTE-mcp-write"}
    assert not embedded.get_nodes(["tolaria/RT-BAP-tool-executor", "tolaria/RT-OBJ-agent-prompt"])
    for store in (embedded, neo4j_store):
        assert store.delete_documents([], sets=["tolaria"]).deleted == ("tolaria/synthesis",)
    assert canonical(content(embedded)) == canonical(content(neo4j_store))
    assert [n.id for n in neo4j_store.find_nodes(Label.ANALYSIS_SET)] == ["talorys"]
    assert [n.id for n in neo4j_store.find_nodes(Label.SYSTEM)] == ["system/talorys"]
    assert (embedded.counts()["nodes"], embedded.counts()["edges"]) == (78, 108)


# -- Neo4j only: atomicity -------------------------------------------------------------------------


def snapshot(store: GraphStore) -> str:
    return canonical({"content": content(store), "rests_on": rests_on(store, "RT-RTE-mcp-write")})


def edited(path: Path, insert_after_line: int, text: str) -> bytes:
    """The member at ``path`` with ``text`` inserted after a line: later lines (and ids) move."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join([*lines[:insert_after_line], text, *lines[insert_after_line:]]).encode("utf-8")


def test_a_write_failing_half_way_leaves_the_previous_version(neo4j_store, monkeypatch):
    ingest_into(neo4j_store, SEEDS)
    before = snapshot(neo4j_store)
    changed = parse_member(edited(SEED_SYNTHESIS, 8, "An inserted paragraph (SRC-1; RT-RTE-mcp-write).\n"),
                           str(SEED_SYNTHESIS))

    def fail(*args, **kwargs):
        raise RuntimeError("injected failure after the old document was deleted and the new one written")

    # the old version is deleted, shared nodes, the new nodes and edges are written, then: boom
    monkeypatch.setattr(Neo4jStore, "_replace_derived_step", fail)
    with pytest.raises(RuntimeError, match="injected failure"):
        ingest_parsed(neo4j_store, [changed])
    assert snapshot(neo4j_store) == before
    monkeypatch.undo()
    ingest_parsed(neo4j_store, [changed])
    assert snapshot(neo4j_store) != before


def test_a_batch_naming_an_unknown_node_leaves_the_previous_version(neo4j_store):
    ingest_into(neo4j_store, SEEDS)
    before = snapshot(neo4j_store)
    changed = parse_member(edited(SEED_SYNTHESIS, 8, "Another paragraph.\n"), str(SEED_SYNTHESIS))
    batch = build_set_batch(neo4j_store, "tolaria", [changed])
    doc = batch.documents[0]
    broken = dataclasses.replace(doc, edges=(*doc.edges, Edge(doc.edges[-1].kind, doc.edges[-1].src, "tolaria/NOT-THERE", 99, doc.id, "tolaria", {})))
    with pytest.raises(CitegraphError, match="unknown node tolaria/NOT-THERE"):
        neo4j_store.write_set(dataclasses.replace(batch, documents=(broken,)))
    assert snapshot(neo4j_store) == before


def test_concurrent_replacements_of_one_document_end_with_one_complete_version(neo4j_store):
    ingest_into(neo4j_store, SEEDS)
    # Two versions whose statements sit on different lines: a mix would show as ids of both.
    versions = {
        "early": parse_member(edited(SEED_SYNTHESIS, 4, "Early insert.\nAnd a second one.\n"), str(SEED_SYNTHESIS)),
        "late": parse_member(edited(SEED_SYNTHESIS, 20, "Late insert (SRC-1; RT-RTE-mcp-write).\n"), str(SEED_SYNTHESIS)),
    }
    expected = {}
    for name, parsed in versions.items():
        reference = SQLiteStore(None)
        ingest_into(reference, SEEDS)
        ingest_parsed(reference, [parsed])
        expected[name] = snapshot(reference)
    assert len(set(expected.values())) == len(versions)
    for _ in range(3):
        barrier = threading.Barrier(len(versions))
        errors: list[BaseException] = []

        def write(parsed):
            try:
                batch = build_set_batch(neo4j_store, "tolaria", [parsed])
                barrier.wait()
                neo4j_store.write_set(batch)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(p,)) for p in versions.values()]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors
        assert snapshot(neo4j_store) in expected.values()


def test_writes_split_into_many_unwind_batches_store_the_same(neo4j_store, monkeypatch):
    import graph.stores.neo4j as neo4j_module

    monkeypatch.setattr(neo4j_module, "BATCH_ROWS", 7)
    ingest_into(neo4j_store, SEEDS)
    reference = SQLiteStore(None)
    ingest_into(reference, SEEDS)
    assert canonical(content(neo4j_store)) == canonical(content(reference))
