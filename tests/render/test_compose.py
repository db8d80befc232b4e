"""Subgraph reports: rests-on, record dossiers and whole sets."""

from __future__ import annotations

from functools import partial

import pytest

from queries.dossier import record_dossiers
from queries.subgraphs import analysis_set_report, rests_on_subgraph
from queries.traversal import rests_on
from render import Format
from render.compose import dossier_page, rests_on_page, set_page
from render.writers import write
from tests.render.conftest import DC_SET

# The 14 statements of the seeds issue, in report order (workflow report before the synthesis:
# members in set-layout order), with the heading lines printed above each one in plain text.
MCP_WRITE = [
    (("Tolaria workflow report (tolaria/workflow-report)", "Workflow account", "Selection and evidence boundary"),
     "tolaria/workflow-report#L9", "direct"),
    (("2. Tolaria delegates decisions, not just text generation",), "tolaria/workflow-report#L23", "direct"),
    (("3. A note read supplies content and an optional conflict token",), "tolaria/workflow-report#L27", "direct"),
    ((), "tolaria/workflow-report#L33", "direct"),
    (("4. Verification can reject staleness, not establish correctness",), "tolaria/workflow-report#L43", "direct"),
    ((), "tolaria/workflow-report#L45", "direct"),
    (("6. Delivery has separate file and conversation boundaries",), "tolaria/workflow-report#L57", "direct"),
    (("Annotations", "On RT-RTE-mcp-write"), "tolaria/workflow-report#L101", "direct"),
    (("Tolaria synthesis (tolaria/synthesis)", "Bounded synthesis", "From assignment to a changed note"),
     "tolaria/synthesis#L11", "direct"),
    ((), "tolaria/synthesis#L12", "direct"),
    ((), "tolaria/synthesis#L13", "direct"),
    (("Delivery, later reliance and assessment",), "tolaria/synthesis#L16", "transitive"),
    (("Limitations",), "tolaria/synthesis#L27", "transitive"),
    ((), "tolaria/synthesis#L29", "direct"),
]
WORKFLOW_PATH = ("2 evidence steps: tolaria/synthesis#{line} —cites→ named reference “workflow account” —resolves to→ "
                 "section “Workflow account” (tolaria/workflow-report) —contains→ section “Selection and evidence "
                 "boundary” —contains→ tolaria/workflow-report#L9 —cites→ RT-RTE-mcp-write")


@pytest.fixture(scope="module")
def mcp_write(seeds_store):
    return rests_on_subgraph(seeds_store, "RT-RTE-mcp-write")


@pytest.mark.parametrize("fmt", ["txt", "md", "html"])
def test_rests_on_report_matches_its_golden_file(mcp_write, golden, fmt):
    golden(f"rests-on-RT-RTE-mcp-write.{fmt}", write(rests_on_page(mcp_write), fmt))


def test_rests_on_report_holds_exactly_the_14_statements_under_their_headings(seeds_store, mcp_write):
    text = write(rests_on_page(mcp_write), Format.TXT)
    texts = {r.statement: r.block.text for r in rests_on(seeds_store, "RT-RTE-mcp-write").results}
    expected: list[str] = ["Statements resting on RT-RTE-mcp-write", "Query: rests-on RT-RTE-mcp-write (every set)",
                           "14 statements: 12 direct, 2 transitive, in 2 documents of set tolaria."]
    for headings, statement, tag in MCP_WRITE:
        expected += list(headings)
        if statement == "tolaria/synthesis#L27":
            expected += ["| limitation | affected SRC IDs and record citations | inspected boundary | conclusion "
                         "prevented | evidence that would resolve it |\n|---|---|---|---|---|\n"
                         + texts[statement] + "\n" + texts["tolaria/synthesis#L29"]]
            expected.append("[transitive] row “Wiring is not observed operation or benefit.”: "
                            + WORKFLOW_PATH.format(line="L27"))
            continue
        if statement == "tolaria/synthesis#L29":
            expected.append("[direct] row “Transcript retention and file updates lack established "
                            "crash/concurrency guarantees.”: cites RT-RTE-mcp-write")
            continue
        expected.append(texts[statement])
        if tag == "direct":
            verb = "annotates" if statement.endswith("#L101") else "cites"
            expected.append(f"[direct] {verb} RT-RTE-mcp-write")
        else:
            expected.append("[transitive] " + WORKFLOW_PATH.format(line="L16"))
    assert text == "\n\n".join([expected[0] + "\n" + expected[1] + "\n" + expected[2], *expected[3:]]) + "\n"
    assert "Talorys" not in text and "talorys" not in text


def test_rests_on_statements_are_the_seeds_issue_ones(mcp_write):
    results = mcp_write.report.results
    assert sorted(r.statement for r in results) == sorted(s for _, s, _ in MCP_WRITE)
    by_id = {r.statement: r for r in results}
    assert by_id["tolaria/synthesis#L29"].block.text.startswith(
        "| Transcript retention and file updates lack established crash/concurrency guarantees. |")
    assert by_id["tolaria/workflow-report#L101"].block.text.startswith("Workflow role: executable content-admission handoff")
    assert by_id["tolaria/synthesis#L16"].block.text.startswith("File effects, UI actions and conversation completion")
    assert by_id["tolaria/synthesis#L27"].block.text.startswith("| Wiring is not observed operation or benefit. |")


def test_rests_on_in_markdown_keeps_heading_levels(mcp_write):
    md = write(rests_on_page(mcp_write), Format.MD)
    for line in ("# Statements resting on RT-RTE-mcp-write", "## Tolaria workflow report (tolaria/workflow-report)",
                 "### Workflow account", "#### Selection and evidence boundary", "### Annotations",
                 "##### On RT-RTE-mcp-write", "## Tolaria synthesis (tolaria/synthesis)", "### Limitations"):
        assert f"\n{line}\n" in f"\n{md}"


def test_rests_on_a_set_filter_and_an_unknown_record(seeds_store):
    from graph.errors import RecordNotFound

    page = rests_on_page(rests_on_subgraph(seeds_store, "RT-RTE-mcp-write", set_id="tolaria"))
    assert page.title == "Statements resting on RT-RTE-mcp-write in set tolaria"
    with pytest.raises(RecordNotFound):
        rests_on_subgraph(seeds_store, "RT-RTE-mcp-write", set_id="talorys")


def test_dossier_of_an_undeclared_record(seeds_store):
    (dossier,) = record_dossiers(seeds_store, "RT-RTE-mcp-write")
    assert dossier.declaration is None
    assert [(a.document, a.section and a.section.text) for a in dossier.annotations] == [
        ("tolaria/workflow-report", "On RT-RTE-mcp-write")]
    assert [b.id for b in dossier.limitations] == ["tolaria/synthesis#L29"]
    assert "mcp-server/vault.js" in dossier.source_files and dossier.sources == ("SRC-1",)
    assert len(dossier.rests_on.report.results) == 14
    text = write(dossier_page([dossier]), Format.TXT)
    for part in ("Declaration and fields\n\ncited but not declared in the ingested members",
                 "Annotations\n\nIn Tolaria workflow report (tolaria/workflow-report) › Annotations.\n\nOn RT-RTE-mcp-write\n\n"
                 "Workflow role: executable content-admission handoff",
                 "Amendments and supersessions\n\nnone", "Parts and container\n\nnone",
                 "Limitations naming it\n\nIn Tolaria synthesis (tolaria/synthesis) › Limitations.\n\n| limitation |",
                 "Everything that rests on it\n\n14 statements: 12 direct, 2 transitive."):
        assert part in text


def test_dossier_of_a_declared_markdown_record(dc_store):
    (dossier,) = record_dossiers(dc_store, "RT-OBJ-cheatsheet")
    assert dossier.declaration_document == f"{DC_SET}/runtime"
    assert dossier.declaration is not None and dossier.declaration.text.startswith("RT-OBJ-cheatsheet")
    assert [b.block.kind for b in dossier.fields] and all(not b.is_section for b in dossier.fields)
    assert [a.document for a in dossier.annotations] == [f"{DC_SET}/memory"]
    assert {q.quotation.quotation.path for q in dossier.quotations} >= {"dynamic_cheatsheet/utils/extractor.py"}
    md = write(dossier_page([dossier]), Format.MD)
    assert "### RT-OBJ-cheatsheet — Caller-carried cheatsheet" in md
    assert "- Storage substrate: Python string during the process;" in md
    assert "cited but not declared" not in md.split("## Annotations")[0]


def test_set_report_has_every_member_and_a_record_index(dc_store):
    report = analysis_set_report(dc_store, DC_SET)
    assert [t.document.get("role") for t in report.documents] == [
        "overview", "runtime", "memory", "epistemic", "reconciliation", "memory-profile"]
    text = write(set_page(report), Format.TXT)
    index = text.split("\n\nRecord index\n\n", 1)[1].splitlines()
    assert [line.split(":")[0] for line in index] == sorted(e.record_id for e in report.records)
    # Each clause is followed by its own links: the annotation's section is not among the 11 statements.
    cheatsheet = next(line for line in index if line.startswith("RT-OBJ-cheatsheet:"))
    citing = ", ".join(f"{DC_SET}/{at}" for at in (
        "overview#L90", "overview#L92", "overview#L110", "memory#L25", "memory#L199", "epistemic#L31", "epistemic#L40",
        "epistemic#L45", "epistemic#L89", "epistemic#L142", "reconciliation#L12"))
    assert cheatsheet == (
        f"RT-OBJ-cheatsheet: declared in Dynamic Cheatsheet runtime report ({DC_SET}/runtime) › Shared records › "
        f"Operative objects ({DC_SET}/runtime#L60); annotated in Dynamic Cheatsheet memory report ({DC_SET}/memory) › "
        f"Annotations ({DC_SET}/memory#L74); cited by 11 statements ({citing}).")
    md = write(set_page(report), Format.MD)
    assert md.startswith(f"# Dynamic Cheatsheet analysis set {DC_SET}\n\nAnalysis set {DC_SET} of Dynamic Cheatsheet: "
                         f"6 members, {len(report.records)} records.\n")
    assert "## Record index" in md


def test_seeds_set_index_says_records_are_not_declared(seeds_store):
    text = write(set_page(analysis_set_report(seeds_store, "tolaria")), Format.TXT)
    assert "RT-RTE-mcp-write: cited but not declared in the ingested members; annotated in Tolaria workflow report" in text


def test_compose_are_the_same_on_every_store(store, seeds_store):
    from app.rendering import render_request
    from tests.conftest import SEEDS, ingest_into

    ingest_into(store, SEEDS)
    for render in (partial(render_request, rests_on="RT-RTE-mcp-write"),
                   partial(render_request, record="RT-RTE-workspace-send", fmt="html"),
                   partial(render_request, set_id="tolaria", fmt="txt"),
                   partial(render_request, document="talorys/synthesis", fmt="html")):
        assert render(store).text == render(seeds_store).text


def test_a_page_composed_for_markdown_alone_writes_the_same_markdown(dc_store, seeds_store):
    # its plain forms (only the text and HTML writers print them) are left out, its Markdown is the same
    report = analysis_set_report(dc_store, DC_SET)
    pages = [partial(set_page, report), partial(set_page, analysis_set_report(seeds_store, "tolaria"))]
    for store, rid in [(dc_store, e.record_id) for e in report.records] + [(seeds_store, "RT-RTE-mcp-write")]:
        pages.append(partial(rests_on_page, rests_on_subgraph(store, rid)))
        pages.append(partial(dossier_page, record_dossiers(store, rid)))
    notes = 0  # two sets, the 20 records of the Dynamic Cheatsheet set and RT-RTE-mcp-write of the seeds
    for compose in pages:
        full, markdown_only = compose(), compose(markdown_only=True)
        assert write(markdown_only, Format.MD) == write(full, Format.MD)
        notes += sum(1 for line in write(full, Format.MD).splitlines() if line.startswith("**direct**: row “"))
        for fmt in (Format.TXT, Format.HTML):
            with pytest.raises(ValueError, match="Markdown alone"):
                write(markdown_only, fmt)
    assert (len(pages), notes) == (44, 134)  # table rows' notes name their first cell as plain text
