"""Behaviour only a real Neo4j server shows: connection errors, schema, the graph's shape in Neo4j
Browser, the closure's and reach's query plans, rests-on's round trips, and that ``clear`` leaves
foreign data alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from graph.errors import StoreUnavailable
from graph.model import DEPENDENCY_KINDS, EdgeKind
from graph.stores import cypher
from graph.store import Direction
from graph.stores.neo4j import Neo4jStore
from queries.kept import code_digest
from queries.traversal import rests_on
from tests.conftest import SEEDS, ingest_into

pytestmark = pytest.mark.neo4j


def test_unreachable_server_and_bad_uri_are_store_unavailable():
    with pytest.raises(StoreUnavailable, match="unreachable"):
        Neo4jStore.connect("bolt://127.0.0.1:1", user="neo4j", password="whatever")
    with pytest.raises(StoreUnavailable, match="cannot use Neo4j URI"):
        Neo4jStore.connect("http://127.0.0.1:7474", user="neo4j", password="whatever")


def test_wrong_password_or_database_is_store_unavailable(neo4j_server):
    if not neo4j_server.password:  # a CITEGRAPH_NEO4J_URI server without auth; scripts/test's has auth
        if os.environ.get("CITEGRAPH_REQUIRE_NEO4J") == "1":
            pytest.fail("the Neo4j server runs without authentication, so credentials cannot be tested", pytrace=False)
        pytest.skip("the server runs without authentication")
    with pytest.raises(StoreUnavailable, match="refused the credentials"):
        Neo4jStore.connect(neo4j_server.uri, user=neo4j_server.user, password=neo4j_server.password + "-wrong")
    with Neo4jStore.connect(neo4j_server.uri, user=neo4j_server.user, password=neo4j_server.password,
                            database=neo4j_server.database) as store:
        with pytest.raises(StoreUnavailable, match="no usable database"):
            Neo4jStore(store.driver, database="no-such-database").counts()
        store.close()


def test_schema_is_idempotent_and_complete(neo4j_store):
    neo4j_store.ensure_schema()
    neo4j_store.ensure_schema()
    records, _, _ = neo4j_store.driver.execute_query("SHOW CONSTRAINTS YIELD name RETURN collect(name) AS names",
                                                     database_=neo4j_store.database)
    assert {"cg_node_id", "cg_write_lock"} <= set(records[0]["names"])
    records, _, _ = neo4j_store.driver.execute_query(
        "SHOW INDEXES YIELD name, state RETURN collect([name, state]) AS indexes", database_=neo4j_store.database)
    indexes = dict(records[0]["indexes"])
    assert indexes["cg_record_record_id"] == indexes["cg_rel_cites_owner"] == "ONLINE"


def test_the_graph_reads_in_model_terms(neo4j_store):
    ingest_into(neo4j_store, SEEDS)
    records, _, _ = neo4j_store.driver.execute_query(
        "MATCH (s:Statement {id: $statement})-[c:CITES]->(r:Record {record_id: $record}) "
        "RETURN s.kind AS kind, c.form AS form, r.set_id AS set_id",
        {"statement": "tolaria/synthesis#L11", "record": "RT-RTE-mcp-write"}, database_=neo4j_store.database)
    assert [(r["kind"], r["form"], r["set_id"]) for r in records] == [("paragraph", "citation", "tolaria")]


@pytest.mark.parametrize("query", [cypher.closure, cypher.reach], ids=["closure", "reach"])
def test_closure_is_one_pruning_breadth_first_query(neo4j_store, query):
    ingest_into(neo4j_store, SEEDS)
    _, summary, _ = neo4j_store.driver.execute_query(
        "EXPLAIN " + query(DEPENDENCY_KINDS),
        {"ids": ["tolaria/RT-RTE-mcp-write", "talorys/RT-RTE-owner-chat"], "fields": {"Statement": ["kind"]},
         "whole": [], "edge_props": False},
        database_=neo4j_store.database)
    operators = []

    def walk(plan):
        operators.append(plan["operatorType"].split("@")[0])
        for child in plan.get("children", []):
            walk(child)

    walk(summary.plan)
    assert "NodeUniqueIndexSeek" in operators, operators  # start nodes by the :CgNode(id) constraint
    assert any(op.startswith("VarLengthExpand(Pruning") for op in operators), operators
    assert "Distinct" in operators, operators
    assert not any("Scan" in op for op in operators), operators


def test_rests_on_in_a_set_is_two_round_trips_without_markup(neo4j_store, monkeypatch):
    """The start record with its alias edges in one read (an alias answers through its canonical
    record, GRAMMAR §11.5: ``queries.traversal._with_canonical``), and one reach; no member markup
    travels."""
    ingest_into(neo4j_store, SEEDS)
    expected = rests_on(neo4j_store, "RT-RTE-mcp-write", set_id="tolaria")
    reads: list[tuple[str, list]] = []
    read = Neo4jStore._read

    def recording(self, query, **params):
        rows = read(self, query, **params)
        reads.append((query, rows))
        return rows

    monkeypatch.setattr(Neo4jStore, "_read", recording)
    assert rests_on(neo4j_store, "RT-RTE-mcp-write", set_id="tolaria") == expected
    assert len(expected.results) == 14
    assert [query for query, _ in reads] == [cypher.nodes_with_edges([EdgeKind.SUPERSEDED_BY]),
                                             cypher.reach(DEPENDENCY_KINDS)]
    # statements and sections travel as their shown fields: no props_json, so no markup
    [reached] = reads[1][1]  # one row holds every reached node
    assert len(reached["nodes"]) == 32
    assert [node["props_json"] for node in reached["nodes"]] == [None] * 32
    # nor the edges' props: rests-on reads their kinds and ends alone
    incoming = [edge for node in reached["nodes"] for edge in node["incoming"]]
    assert len(incoming) == 47
    assert {edge["props_json"] for edge in incoming} == {None}


def test_clear_deletes_only_citegraph_nodes(neo4j_store):
    ingest_into(neo4j_store, SEEDS)
    neo4j_store.driver.execute_query("CREATE (:Foreign {name: 'keep me'})", database_=neo4j_store.database)
    try:
        neo4j_store.clear()
        assert neo4j_store.counts()["nodes"] == 0
        records, _, _ = neo4j_store.driver.execute_query("MATCH (n:Foreign) RETURN count(n) AS n",
                                                         database_=neo4j_store.database)
        assert records[0]["n"] == 1
    finally:
        neo4j_store.driver.execute_query("MATCH (n:Foreign) DELETE n", database_=neo4j_store.database)


def test_whole_store_counts_come_from_the_count_store_unless_another_node_has_a_model_label(neo4j_store):
    """counts() reads Neo4j's count store (cypher.count_from_count_store); a foreign node carrying
    a model label (here :Record) would be counted there, so the store then scans :CgNode instead."""
    ingest_into(neo4j_store, SEEDS)
    counted = neo4j_store.counts()
    assert (counted["nodes"], counted["edges"]) == (204, 354)  # the seeds, as tests/app/test_faces.py has them
    plan = neo4j_store.driver.execute_query("EXPLAIN " + cypher.count_from_count_store(),
                                            database_=neo4j_store.database).summary.plan

    def operators(p):
        return [p["operatorType"].split("@")[0], *(o for child in p.get("children", []) for o in operators(child))]

    assert "NodeByLabelScan" not in operators(plan) and "NodeCountFromCountStore" in operators(plan)
    neo4j_store.driver.execute_query("CREATE (:Record:Foreign {name: 'not citegraph'})", database_=neo4j_store.database)
    try:
        assert neo4j_store.counts() == counted
    finally:
        neo4j_store.driver.execute_query("MATCH (n:Foreign) DELETE n", database_=neo4j_store.database)


_LOADED = """
import sys
sys.argv = ["citegraph", *sys.argv[1:]]
from app.cli import main
try:
    main()
finally:
    print("loaded:", sorted(m for m in ("numpy", "pandas", "pyarrow", "graph.versions", "graph.analysis_changes",
                                        "difflib") if m in sys.modules), file=sys.stderr)
    tables = (sys.modules["neo4j.time"]._DAYS_IN_MONTH, sys.modules["neo4j._codec.packstream.v1"].PACKED_UINT_16)
    print("tables:", [type(t).__name__ for t in tables], file=sys.stderr)
"""


def test_neo4j_commands_import_neither_pandas_nor_numpy(neo4j_server, neo4j_store):
    """The driver imports its optional numpy/pandas support whenever pandas is installed (0.8 s of
    every command); graph.stores.bolt keeps it out of commands that return no DataFrame, and has
    the driver's import-time tables computed per entry (40 % of importing the driver). Nor does a
    read import the versions' rules (graph.versions, its diffs), as on the embedded store."""
    pytest.importorskip("pandas")  # installed, as with the notebook extra: without the guard it is imported
    ingest_into(neo4j_store, SEEDS)
    env = {**os.environ, "CITEGRAPH_NEO4J_USER": neo4j_server.user,
           "CITEGRAPH_NEO4J_PASSWORD": neo4j_server.password or "", "CITEGRAPH_NEO4J_DATABASE": neo4j_server.database}
    answers = {}
    for args in (["stats", "--json"], ["sets", "--format", "json"], ["rests-on", "RT-RTE-mcp-write", "--json"]):
        done = subprocess.run([sys.executable, "-c", _LOADED, *args, "--neo4j", neo4j_server.uri], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines()[-2:] == ["loaded: []", "tables: ['Table', 'Table']"]  # graph.stores.bolt
        answers[args[0]] = json.loads(done.stdout)
    assert [s["id"] for s in answers["sets"]["data"]] == ["talorys", "tolaria"]  # the two seed sets
    assert answers["stats"]["totals"]["Document"] == 3  # seeds/: three member files


def test_a_read_is_one_round_trip_and_one_record(neo4j_store):
    """Each read is one auto-commit transaction (``RUN`` and ``PULL``: no ``BEGIN``, no ``COMMIT``,
    each a round trip of its own) whose rows come back in one record (a record is a message to
    read), however many nodes, edges, counts, stamps or kept results it holds."""
    import logging

    from graph.model import Label
    from queries.stats import stats

    ingest_into(neo4j_store, SEEDS)
    stats(neo4j_store)  # keeps the per-set results that kept_results reads below
    sent: list[str] = []

    class Messages(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            words = record.getMessage().split()
            if len(words) > 2 and words[1] in ("C:", "S:"):
                sent.append(f"{words[1]} {words[2]}")

    handler, logger = Messages(), logging.getLogger("neo4j")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        records = neo4j_store.find_nodes(Label.RECORD, set_id="tolaria")
        by_id = neo4j_store.get_nodes([n.id for n in records])
        cited = neo4j_store.edges([n.id for n in records], kinds=[EdgeKind.CITES], direction=Direction.IN)
        counted = neo4j_store.counts()
        stamps = neo4j_store.set_stamps(["talorys", "tolaria"])
        kept = neo4j_store.kept_results(f"stats@{code_digest()}", stamps)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert (len(records), len(by_id), sum(map(len, cited.values())), counted["nodes"]) == (24, 24, 70, 204)
    assert sorted(stamps) == sorted(kept) == ["talorys", "tolaria"]
    assert sent == ["C: RUN", "C: PULL", "S: SUCCESS", "S: RECORD", "S: SUCCESS"] * 6


def test_set_tallies_count_what_the_contract_reads_find(neo4j_store):
    """The one-query tallies of stats and sets (cypher.SET_TALLIES) equal the six contract reads."""
    from graph.tallies import tally_by_reads

    ingest_into(neo4j_store, SEEDS)
    sets = ["talorys", "tolaria", "no-such-set"]
    assert neo4j_store.set_tallies(sets) == {s: tally_by_reads(neo4j_store, s) for s in sets}
    assert neo4j_store.set_tallies(["tolaria"])["tolaria"].documents == ("tolaria/synthesis", "tolaria/workflow-report")
