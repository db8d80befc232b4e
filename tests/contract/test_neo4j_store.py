"""Behaviour only a real Neo4j server shows: connection errors, schema, the graph's shape in Neo4j
Browser, the closure's query plan, and that ``clear`` leaves foreign data alone."""

from __future__ import annotations

import pytest

from graph.errors import StoreUnavailable
from graph.model import DEPENDENCY_KINDS
from graph.stores import cypher
from graph.stores.neo4j import Neo4jStore
from tests.conftest import SEEDS, ingest_into

pytestmark = pytest.mark.neo4j


def test_unreachable_server_and_bad_uri_are_store_unavailable():
    with pytest.raises(StoreUnavailable, match="unreachable"):
        Neo4jStore.connect("bolt://127.0.0.1:1", user="neo4j", password="whatever")
    with pytest.raises(StoreUnavailable, match="cannot use Neo4j URI"):
        Neo4jStore.connect("http://127.0.0.1:7474", user="neo4j", password="whatever")


def test_wrong_password_or_database_is_store_unavailable(neo4j_server):
    if not neo4j_server.password:
        pytest.skip("the server runs without authentication")
    with pytest.raises(StoreUnavailable, match="refused the credentials"):
        Neo4jStore.connect(neo4j_server.uri, user=neo4j_server.user, password=neo4j_server.password + "-wrong")
    store = Neo4jStore.connect(neo4j_server.uri, user=neo4j_server.user, password=neo4j_server.password,
                               database=neo4j_server.database)
    try:
        with pytest.raises(StoreUnavailable, match="no usable database"):
            Neo4jStore(store.driver, database="no-such-database").counts()
    finally:
        store.close()
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


def test_closure_is_one_pruning_breadth_first_query(neo4j_store):
    ingest_into(neo4j_store, SEEDS)
    _, summary, _ = neo4j_store.driver.execute_query(
        "EXPLAIN " + cypher.closure(DEPENDENCY_KINDS), {"ids": ["tolaria/RT-RTE-mcp-write"]},
        database_=neo4j_store.database)
    operators = []

    def walk(plan):
        operators.append(plan["operatorType"].split("@")[0])
        for child in plan.get("children", []):
            walk(child)

    walk(summary.plan)
    assert any(op.startswith("VarLengthExpand(Pruning") for op in operators), operators
    assert "Distinct" in operators, operators


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
