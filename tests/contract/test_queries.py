"""Query-level facts of the seeds issue, on every backend (``store`` is embedded, then Neo4j)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.errors import AnalysisSetNotFound, RecordNotFound
from graph.model import EdgeKind, Label
from graph.store import Direction
from queries.stats import stats
from queries.traversal import rests_on
from queries.validation import check
from tests.conftest import SEEDS, ingest_into

MCP_WRITE_DIRECT = [
    "tolaria/synthesis#L11", "tolaria/synthesis#L12", "tolaria/synthesis#L13", "tolaria/synthesis#L29",
    "tolaria/workflow-report#L9", "tolaria/workflow-report#L23", "tolaria/workflow-report#L27",
    "tolaria/workflow-report#L33", "tolaria/workflow-report#L43", "tolaria/workflow-report#L45",
    "tolaria/workflow-report#L57", "tolaria/workflow-report#L101",
]
MCP_WRITE_TRANSITIVE = ["tolaria/synthesis#L16", "tolaria/synthesis#L27"]


@pytest.fixture
def seeds(store):
    """``store`` (each backend) holding the three seeds."""
    ingest_into(store, SEEDS)
    return store


def test_mcp_write_rests_on_12_direct_and_2_transitive_statements(seeds):
    report = rests_on(seeds, "RT-RTE-mcp-write")
    assert report.records == ("tolaria/RT-RTE-mcp-write",)
    assert [r.statement for r in report.results if r.direct] == MCP_WRITE_DIRECT
    assert [r.statement for r in report.results if not r.direct] == MCP_WRITE_TRANSITIVE
    by_id = {r.statement: r for r in report.results}
    for statement in MCP_WRITE_TRANSITIVE:
        assert by_id[statement].path[1] == "tolaria/ref/workflow-account"
        assert by_id[statement].depth == 2
    assert [r.statement for r in rests_on(seeds, "RT-RTE-mcp-write", direct_only=True).results] == MCP_WRITE_DIRECT


def test_owner_chat_rests_in_talorys_only(seeds):
    report = rests_on(seeds, "RT-RTE-owner-chat")
    assert [(r.statement, r.direct) for r in report.results] == [
        ("talorys/synthesis#L6", True), ("talorys/synthesis#L26", True)]


def test_unknown_record_and_set(seeds):
    with pytest.raises(RecordNotFound):
        rests_on(seeds, "RT-RTE-not-there")
    with pytest.raises(AnalysisSetNotFound):
        rests_on(seeds, "RT-RTE-mcp-write", set_id="nope")


def test_stats_and_check_of_the_seeds(seeds):
    result = stats(seeds)
    assert [s.set for s in result.sets] == ["talorys", "tolaria"]
    assert result.totals["Document"] == 3 and result.totals["nodes"] > 0
    assert check(seeds).errors == 0


def test_deleting_a_member_removes_what_rests_on_it(seeds):
    seeds.delete_documents(["tolaria/workflow-report"])
    report = rests_on(seeds, "RT-RTE-mcp-write")
    assert [r.statement for r in report.results] == [s for s in MCP_WRITE_DIRECT if s.startswith("tolaria/synthesis")]


def _citing(n: int) -> bytes:
    """A plain-text synthesis of set ``many`` whose one statement cites RT-OBJ-x ``n`` times: ``It
    rests on RT-OBJ-x, RT-OBJ-x, …, RT-OBJ-x.`` (citation i at character 12 + 10 i)."""
    return (b"Many synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n\n"
            b"Bounded synthesis\n\nIt rests on " + b"RT-OBJ-x, " * (n - 1) + b"RT-OBJ-x.\n")


def test_a_statement_citing_one_record_4000_times_has_4000_edges(store, tmp_path: Path):
    """Each citation of a record is its own edge, however many of them one
    statement makes (the Neo4j store wrote them in time quadratic in their number, see
    bench/README.md), and replacing the member replaces them all."""
    member = tmp_path / "synthesis.txt"
    for n in (4000, 2500):  # then the member again, with fewer citations
        member.write_bytes(_citing(n))
        ingest_into(store, member)
        (statement,) = store.find_nodes(Label.STATEMENT)
        cites = store.edges([statement.id], kinds=[EdgeKind.CITES], direction=Direction.OUT)[statement.id]
        assert store.counts()["CITES"] == len(cites) == n
        assert [(e.dst, e.seq, e.document_id, e.props["start"]) for e in cites] == [
            ("many/RT-OBJ-x", i, "many/synthesis", 12 + 10 * i) for i in range(n)]
        incoming = store.edges(["many/RT-OBJ-x"], direction=Direction.IN)["many/RT-OBJ-x"]
        assert [e.to_dict() for e in incoming] == [e.to_dict() for e in cites]
        report = rests_on(store, "RT-OBJ-x")
        assert report.records == ("many/RT-OBJ-x",)
        assert [(r.statement, r.direct, r.depth, r.path) for r in report.results] == [
            ("many/synthesis#L6", True, 1, ("many/synthesis#L6", "many/RT-OBJ-x"))]
