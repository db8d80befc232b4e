"""The plain-text member parser on the three seeds (GRAMMAR §9) and on bad input."""

from __future__ import annotations

import pytest

from graph.errors import ParseError
from ingest.loader import block_props as props_of
from ingest.parsers.plaintext import parse_plaintext
from tests.conftest import SEED_SYNTHESIS, SEED_TALORYS, SEED_WORKFLOW


def parse(path):
    return parse_plaintext(path.read_bytes(), str(path))


@pytest.mark.parametrize("path", [SEED_SYNTHESIS, SEED_WORKFLOW, SEED_TALORYS])
def test_blocks_rebuild_the_file_exactly(path):
    doc = parse(path)
    assert doc.preamble + "".join(b.gap + b.markup for b in doc.blocks) + doc.trailer == path.read_text()


def test_workflow_report_headings_and_levels():
    doc = parse(SEED_WORKFLOW)
    headings = [(b.line, b.level, b.text) for b in doc.blocks if b.kind == "heading"]
    assert headings == [
        (5, 2, "Workflow account"),
        (7, 3, "Selection and evidence boundary"),
        (13, 3, "1. User request becomes an agent assignment"),
        (19, 3, "2. Tolaria delegates decisions, not just text generation"),
        (25, 3, "3. A note read supplies content and an optional conflict token"),
        (35, 3, "4. Verification can reject staleness, not establish correctness"),
        (47, 3, "5. Rejection returns control to the caller"),
        (55, 3, "6. Delivery has separate file and conversation boundaries"),
        (67, 2, "Shared records"),
        (69, 3, "Components"),
        (73, 3, "Operative objects"),
        (77, 3, "Routes"),
        (81, 3, "Claims"),
        (85, 3, "Evidenced absences"),
        (89, 3, "Behavioral-authority paths"),
        (93, 2, "Annotations"),
        (95, 4, "On RT-RTE-workspace-send"),
        (99, 4, "On RT-RTE-mcp-write"),
    ]
    assert sum(1 for b in doc.blocks if b.kind == "empty_marker") == 6
    assert [b.kind for b in doc.blocks if b.line in (97, 101)] == ["annotation_body", "annotation_body"]


def test_workflow_report_quotations():
    doc = parse(SEED_WORKFLOW)
    quotes = [(b.line, b.quotation.path) for b in doc.blocks if b.kind == "quotation"]
    assert quotes == [
        (31, "mcp-server/index.js"),
        (39, "mcp-server/vault.js"),
        (51, "mcp-server/index.js"),
        (61, "src/lib/aiAgentStreamCallbacks.ts"),
    ]
    vault = next(b for b in doc.blocks if b.line == 39)
    assert vault.quotation.text == (
        "if (expectedMtime === undefined || expectedMtime === null) return if (stat.mtimeMs === expectedMtime) return"
        "\n\nthrow new Error( Note was modified since read: expectedMtime ${expectedMtime} but on-disk mtimeMs is "
        "${stat.mtimeMs}. Re-read the note and retry., )"
    )
    assert not any(b.line == 41 for b in doc.blocks)


def test_synthesis_headings_tables_and_pin():
    doc = parse(SEED_SYNTHESIS)
    assert doc.title == "Tolaria synthesis" and doc.role == "synthesis" and doc.system == "Tolaria"
    assert [(b.level, b.text) for b in doc.blocks if b.kind == "heading"] == [
        (2, "Bounded synthesis"),
        (3, "From retained knowledge to an agent assignment"),
        (3, "From assignment to a changed note"),
        (3, "Delivery, later reliance and assessment"),
        (2, "Limitations"),
    ]
    rows = [b for b in doc.blocks if b.kind == "table_row"]
    assert len(rows) == 8 and all(props_of(b)["table"] == "limitations" for b in rows)
    assert props_of(rows[4])["cells"][0] == "Transcript retention and file updates lack established crash/concurrency guarantees."
    assert [(c.target_kind, c.target) for c in rows[4].citations] == [
        ("source", "SRC-1"), ("record", "MEM-RTE-transcript-replay"), ("record", "RT-RTE-mcp-write"),
        ("record", "EPI-RTE-mtime-check"),
    ]
    (pin,) = doc.pins
    assert (pin.source_id, pin.url, pin.commit, pin.cutoff) == (
        "SRC-1", "https://github.com/refactoringhq/tolaria", "48f2a70844c1e8005a7aa5f1499c66f7678360de", "2026-10-14")


def test_talorys_pin_and_trailing_id_lists():
    doc = parse(SEED_TALORYS)
    (pin,) = doc.pins
    assert (pin.url, pin.commit, pin.cutoff) == (
        "https://github.com/rociiu/talorys", "c5da440010402ed4c1b9789ae22eab96a8f0f379", "2026-10-15")
    para = next(b for b in doc.blocks if b.line == 6)
    assert [(c.target, c.form) for c in para.citations] == [
        ("RT-RTE-owner-chat", "citation"), ("RT-OBJ-active-runs", "citation")]
    tail = next(b for b in doc.blocks if b.line == 16)
    assert [(c.target_kind, c.target) for c in tail.citations] == [
        ("record", "MEM-RTE-memory-write"), ("record", "RT-RTE-context-window"), ("record", "RT-BAP-retained-context"),
        ("named", "profile verification"), ("named", "epistemic bounded conclusion")]


def test_citation_offsets_and_spans_point_into_the_text():
    doc = parse(SEED_WORKFLOW)
    para = next(b for b in doc.blocks if b.line == 45)
    tokens = [(c.token, c.target, para.text[c.start:c.end]) for c in para.citations]
    assert tokens[-1] == ("RT-RTE-mcp-write", "RT-RTE-mcp-write", "RT-RTE-mcp-write")
    assert [t for t, _, _ in tokens] == ["SRC-1", "mcp-server/vault.js", "mcp-server/tool-service.js", "RT-RTE-mcp-write"]
    group = para.citations[0]
    assert para.text[group.span_start:group.span_end] == para.text  # one closing group supports the paragraph
    mention = next(b for b in doc.blocks if b.line == 63).citations[0]
    assert (mention.form, mention.target) == ("mention", "RT-RTE-workspace-send")
    assert next(b for b in doc.blocks if b.line == 63).text[mention.span_start:mention.span_end] == (
        "Those limits are carried by RT-RTE-workspace-send (SRC-1, src/lib/aiAgentSession.ts, "
        "src/lib/aiAgentStreamCallbacks.ts, src-tauri/src/codex_cli.rs).")


@pytest.mark.parametrize(
    ("data", "line", "message"),
    [
        (b"", 1, "file is empty"),
        (b"\x00\x01binary", 1, "binary"),
        (b"Title\nType: agentic-system-analyses/types/agentic-system-synthesis.md\nBounded synthesis\nbad \xff byte", 4,
         "invalid UTF-8"),
        (b"Just a title\nno type line here\n", 2, "Type:"),
        (b"Title\nType: agentic-system-analyses/types/not-a-member.md\n", 2, "unknown member type"),
    ],
)
def test_bad_input_names_file_and_line(data, line, message):
    with pytest.raises(ParseError) as info:
        parse_plaintext(data, "bad.txt")
    assert info.value.source.path == "bad.txt"
    assert info.value.source.line == line
    assert message in info.value.message
