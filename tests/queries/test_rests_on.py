"""Rests-on over the seeds: the facts of the seeds issue, explanation paths and limits."""

from __future__ import annotations

import pytest

from graph.errors import AnalysisSetNotFound, QueryLimitExceeded, RecordNotFound
from graph.model import EdgeKind
from graph.store import Direction
from queries.traversal import rests_on

MCP_WRITE_DIRECT = [
    "tolaria/synthesis#L11", "tolaria/synthesis#L12", "tolaria/synthesis#L13", "tolaria/synthesis#L29",
    "tolaria/workflow-report#L9", "tolaria/workflow-report#L23", "tolaria/workflow-report#L27",
    "tolaria/workflow-report#L33", "tolaria/workflow-report#L43", "tolaria/workflow-report#L45",
    "tolaria/workflow-report#L57", "tolaria/workflow-report#L101",
]
MCP_WRITE_TRANSITIVE = ["tolaria/synthesis#L16", "tolaria/synthesis#L27"]


def test_mcp_write_has_12_direct_and_2_transitive_statements(seeds_store):
    report = rests_on(seeds_store, "RT-RTE-mcp-write")
    assert report.records == ("tolaria/RT-RTE-mcp-write",)
    assert [r.statement for r in report.results if r.direct] == MCP_WRITE_DIRECT
    assert [r.statement for r in report.results if not r.direct] == MCP_WRITE_TRANSITIVE
    assert all(r.set == "tolaria" for r in report.results)


def test_mcp_write_named_statements(seeds_store):
    by_id = {r.statement: r for r in rests_on(seeds_store, "RT-RTE-mcp-write").results}
    row = by_id["tolaria/synthesis#L29"]
    assert (row.block.kind, row.section_heading) == ("table_row", "Limitations")
    assert row.block.text.startswith("| Transcript retention and file updates lack established crash/concurrency guarantees. |")
    body = by_id["tolaria/workflow-report#L101"]
    assert (body.block.kind, body.section_heading) == ("annotation_body", "On RT-RTE-mcp-write")
    assert body.block.text.startswith("Workflow role: executable content-admission handoff")
    assert by_id["tolaria/synthesis#L16"].block.text.startswith("File effects, UI actions and conversation completion")
    assert by_id["tolaria/synthesis#L27"].block.text.startswith("| Wiring is not observed operation or benefit. |")


def test_transitive_paths_go_through_the_workflow_account(seeds_store):
    by_id = {r.statement: r for r in rests_on(seeds_store, "RT-RTE-mcp-write").results}
    assert by_id["tolaria/synthesis#L16"].path == (
        "tolaria/synthesis#L16", "tolaria/ref/workflow-account", "tolaria/workflow-report#L5",
        "tolaria/workflow-report#L7", "tolaria/workflow-report#L9", "tolaria/RT-RTE-mcp-write",
    )
    assert by_id["tolaria/synthesis#L16"].depth == 2
    assert by_id["tolaria/synthesis#L27"].path[1:] == by_id["tolaria/synthesis#L16"].path[1:]
    assert {(r.depth, len(r.path)) for r in by_id.values() if r.direct} == {(1, 2)}


def test_owner_chat_is_talorys_only(seeds_store):
    report = rests_on(seeds_store, "RT-RTE-owner-chat")
    assert [(r.statement, r.direct) for r in report.results] == [
        ("talorys/synthesis#L6", True), ("talorys/synthesis#L26", True)]
    assert report.results[0].block.text.startswith("An authenticated owner submits a browser chat request")
    assert report.results[1].block.text.startswith("| Static wiring, not exercised operation or benefit |")


def test_workflow_account_does_not_resolve_in_talorys(seeds_store):
    # Talorys cites "workflow account" but has no workflow report: nothing flows across sets.
    report = rests_on(seeds_store, "RT-RTE-action-approval")
    assert [r.statement for r in report.results] == ["talorys/synthesis#L18", "talorys/synthesis#L31"]
    assert all(r.direct for r in report.results)


def test_direct_only_and_max_depth(seeds_store):
    direct = rests_on(seeds_store, "RT-RTE-mcp-write", direct_only=True)
    assert [r.statement for r in direct.results] == MCP_WRITE_DIRECT
    assert rests_on(seeds_store, "RT-RTE-mcp-write", max_depth=1).results == direct.results
    assert len(rests_on(seeds_store, "RT-RTE-mcp-write", max_depth=2).results) == 14


def test_set_filter(seeds_store):
    assert len(rests_on(seeds_store, "RT-RTE-mcp-write", set_id="tolaria").results) == 14
    with pytest.raises(RecordNotFound):
        rests_on(seeds_store, "RT-RTE-mcp-write", set_id="talorys")
    with pytest.raises(AnalysisSetNotFound):
        rests_on(seeds_store, "RT-RTE-mcp-write", set_id="nope")


@pytest.mark.parametrize("depth", [0, 17])
def test_depth_limits(seeds_store, depth):
    with pytest.raises(QueryLimitExceeded):
        rests_on(seeds_store, "RT-RTE-mcp-write", max_depth=depth)


def test_unknown_record(seeds_store):
    with pytest.raises(RecordNotFound, match="RT-RTE-nope"):
        rests_on(seeds_store, "RT-RTE-nope")


def test_a_record_id_naming_another_node_in_the_set_is_not_found(seeds_store):
    # with a set the record is read by its node id <set>/<record id>; tolaria/SRC-1 is a Source
    # and tolaria/synthesis a Document, so neither is a record
    with pytest.raises(RecordNotFound, match="SRC-1 is not cited or declared in set 'tolaria'") as source:
        rests_on(seeds_store, "SRC-1", set_id="tolaria")
    assert source.value.hint is not None and source.value.hint.startswith("SRC-n is a source ID")
    with pytest.raises(RecordNotFound, match="synthesis is not cited or declared in set 'tolaria'"):
        rests_on(seeds_store, "synthesis", set_id="tolaria")
    with pytest.raises(AnalysisSetNotFound, match="no analysis set 'nope'"):
        rests_on(seeds_store, "SRC-1", set_id="nope")


def test_sections_and_fields_agree_with_the_stored_nodes(seeds_store):
    """Innermost sections come from the closure's CONTAINS edges and the fields from projected
    nodes: both agree with a direct read of the store, at every depth limit."""
    for options in ({}, {"direct_only": True}, {"max_depth": 1}, {"max_depth": 2}):
        for result in rests_on(seeds_store, "RT-RTE-mcp-write", **options).results:
            parent = seeds_store.edges([result.statement], kinds=[EdgeKind.CONTAINS],
                                       direction=Direction.IN)[result.statement][0].src
            assert result.section == (parent if "#" in parent else None)
            if result.section is not None:
                assert result.section_heading == seeds_store.get_nodes([parent])[parent].get("heading")
            stored = seeds_store.get_nodes([result.statement])[result.statement]
            assert (result.block.kind, result.block.text, result.block.line, result.block.order) == (
                stored.get("kind"), stored.get("text"), stored.get("line"), stored.get("order"))
