"""The Markdown member parser: byte-exact blocks, frontmatter, records, citations and quotations,
on the real Dynamic Cheatsheet members and on hand-written G2/G4 fixtures (GRAMMAR §3–§7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.errors import ParseError
from ingest.loader import block_props as props_of
from ingest.parsers import parse_member
from ingest.parsers.markdown import parse_markdown, read_frontmatter
from queries.documents import document_trees
from tests.analysis_sets import DC, DC_ARCHIVE, DC_FILES, DC_RETAINED, DYNAMIC_CHEATSHEET, G2, G4, load

FIXTURE_FILES = sorted(G2.glob("*.md")) + sorted(G4.glob("*.md"))

BASE = {"kind", "text", "markup", "gap", "order", "line"}
"""The properties every stored statement has: the rest are what its kind and flaws state."""


def parsed(path: Path):
    return parse_markdown(path.read_bytes(), str(path))


def blocks_at(doc, *lines: int):
    by_line = {b.line: b for b in doc.blocks}
    return [by_line[n] for n in lines]


def cites(block) -> list[tuple]:
    return [(c.target_kind, c.target, c.form, c.member) for c in block.citations]


@pytest.mark.parametrize("path", DC_FILES + FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_blocks_rebuild_the_file_byte_for_byte(path):
    data = path.read_bytes()
    doc = parse_markdown(data, str(path))
    rebuilt = doc.preamble + "".join(b.gap + b.markup for b in doc.blocks) + doc.trailer
    assert rebuilt.encode("utf-8") == data
    assert all(not b.gap.strip() for b in doc.blocks)  # gaps are whitespace only
    assert doc.trailer == "\n"


def test_stored_documents_rebuild_the_six_members():
    store = load(*DYNAMIC_CHEATSHEET)
    trees = document_trees(store, set_id=DC)
    originals = {p.name: p.read_text() for p in DC_FILES}
    assert len(trees) == 6
    for tree in trees:
        text = (tree.document.get("preamble") + "".join(b.block.gap + b.block.markup for b in tree.blocks)
                + tree.document.get("trailer"))
        assert text == originals[tree.document.get("file_name")]


def test_overview_frontmatter_title_and_preamble():
    doc = parsed(DC_RETAINED / "overview.md")
    assert (doc.format, doc.role, doc.title, doc.system) == (
        "md", "overview", "dynamic-cheatsheet agentic-system analysis", "dynamic-cheatsheet")
    assert (doc.run_id, doc.reviewed_boundary) == (DC, "5cfe3c37e8e52b1d858d0f3df46e7f17c50991b9")
    # Quoted and unquoted dates both stay the strings written.
    assert (doc.frontmatter["run-date"], doc.frontmatter["analysis-cutoff"]) == ("2026-10-04", "2026-10-04")
    assert doc.identity.line_of("reviewed-boundary") == 10
    assert doc.preamble.endswith("---\n\n# dynamic-cheatsheet agentic-system analysis")
    assert (doc.blocks[0].kind, doc.blocks[0].section_kind, doc.blocks[0].line, doc.blocks[0].gap) == (
        "heading", "section", 18, "\n\n")
    assert [b.text for b in doc.blocks if b.section_kind == "section"] == [
        "Boundary and evidence", "Source register", "Bounded synthesis", "Limitations", "Verification and blockers"]


def test_overview_source_register_and_limitations():
    doc = parsed(DC_RETAINED / "overview.md")
    (pin,) = doc.pins
    assert (pin.source_id, pin.kind, pin.url, pin.commit, pin.declared) == (
        "SRC-1", "git", "https://github.com/suzgunmirac/dynamic-cheatsheet",
        "5cfe3c37e8e52b1d858d0f3df46e7f17c50991b9", True)
    assert pin.evidence_layers.startswith("implementation: run_benchmark.py, dynamic_cheatsheet/language_model.py")
    rows = [b for b in doc.blocks if b.kind == "table_row"]
    assert [props_of(b)["table"] for b in rows].count("limitations") == 6
    assert [props_of(b)["table"] for b in rows].count("register") == 1
    (limitation,) = blocks_at(doc, 79)
    assert cites(limitation) == [("source", "SRC-1", "citation", None),
                                 ("record", "RT-RTE-local-code", "citation", None),
                                 ("record", "RT-BAP-local-python", "citation", None)]


def test_record_anchor_links_cite_records_not_member_names():
    doc = parsed(DC_RETAINED / "overview.md")
    (synthesis, index) = blocks_at(doc, 63, 57)
    assert cites(synthesis) == [
        ("record", "RT-RTE-cumulative-update", "link", "runtime.md"),
        ("record", "RT-RTE-retrieval-context", "link", "runtime.md"),
        ("record", "RT-RTE-full-history", "link", "runtime.md"),
        ("record", "RT-RTE-checkpoint-resume", "link", "runtime.md"),
        ("record", "MEM-OBJ-generation-traces", "link", "memory.md"),
    ]
    first = synthesis.citations[0]
    assert synthesis.text[first.start:first.end] == "runtime"
    assert synthesis.text.endswith("(runtime, runtime, runtime, runtime; memory)")
    assert cites(index) == [("named", "reconciliation", "link", "reconciliation.md")]


def test_runtime_declarations_fields_and_statuses():
    doc = parsed(DC_ARCHIVE / "runtime.md")
    declarations = [b for b in doc.blocks if b.section_kind == "declaration"]
    assert [(props_of(b)["record_id"], props_of(b)["label"], b.line) for b in declarations][:3] == [
        ("RT-CMP-configured-model", "Configured provider model", 48),
        ("RT-OBJ-cheatsheet", "Caller-carried cheatsheet", 60),
        ("RT-OBJ-retrieval-vectors", "Precomputed retrieval vectors", 67),
    ]
    assert len(declarations) == 13
    route = [b for b in doc.blocks if 95 < b.line < 113]
    assert [b.kind for b in route] == ["field"] * 15
    assert [props_of(b)["label"] for b in route][:7] == [
        "Endpoints and progression", "Owner", "Context/state/action effects",
        "implementation conclusion status", "operation conclusion status", "Immediate return", "Later read-back"]
    assert [props_of(b)["statuses"] for b in route if "statuses" in props_of(b)] == [
        [["implementation conclusion status", "wired"]], [["operation conclusion status", "uninspected"]]]
    evidence = route[-1]
    assert cites(evidence) == [("source", "SRC-1", "citation", None)] + [
        ("file", p, "citation", None) for p in (
            "dynamic_cheatsheet/language_model.py", "dynamic_cheatsheet/utils/extractor.py",
            "prompts/curator_prompt_for_dc_cumulative.txt", "run_benchmark.py")]
    assert [(b.kind, b.text) for b in blocks_at(doc, 219, 245)] == [
        ("empty_marker", "none declared in this member"), ("paragraph", "none")]


def test_parenthetical_prose_is_not_a_named_reference():
    doc = parsed(DC_ARCHIVE / "runtime.md")
    (field,) = blocks_at(doc, 51)
    assert field.text.startswith("Representational form: distributed-parametric (provider model weights);")
    assert field.citations == ()


def test_quotations_keep_path_and_body_and_cite_only_the_file():
    doc = parsed(DC_ARCHIVE / "memory.md")
    quotes = [b for b in doc.blocks if b.kind == "quotation"]
    assert len(quotes) == 10
    second = quotes[1]
    assert (second.line, second.quotation.path, second.quotation.lines, second.quotation.revision) == (
        88, "dynamic_cheatsheet/utils/extractor.py", None, None)
    assert second.quotation.text.splitlines()[:2] == ['if "<cheatsheet>" in response:', "    try:"]
    assert second.markup.splitlines()[-1] == "> --- `dynamic_cheatsheet/utils/extractor.py`"
    assert cites(second) == [("file", "dynamic_cheatsheet/utils/extractor.py", "quotation", None)]
    assert second.text.endswith(" --- dynamic_cheatsheet/utils/extractor.py")
    epistemic = parsed(DC_ARCHIVE / "epistemic.md")
    assert sum(b.kind == "quotation" for b in epistemic.blocks) == 9
    # `> * **Persistent Memory**: …` is quoted text: no list item, no citation.
    (readme,) = blocks_at(epistemic, 144)
    assert (readme.kind, cites(readme)) == ("quotation", [("file", "README.md", "quotation", None)])


def test_annotations_and_their_fields():
    doc = parsed(DC_ARCHIVE / "memory.md")
    annotations = [b for b in doc.blocks if b.section_kind == "annotation"]
    assert [(props_of(b)["annotates"], b.line) for b in annotations] == [
        ("RT-OBJ-cheatsheet", 74), ("RT-OBJ-retrieval-vectors", 99), ("RT-RTE-cumulative-update", 114),
        ("RT-RTE-retrieval-context", 130), ("RT-RTE-full-history", 151), ("RT-RTE-checkpoint-resume", 161)]
    body = [b for b in doc.blocks if 74 < b.line < 99]
    assert [b.kind for b in body] == ["field"] * 7 + ["quotation"] * 2
    assert "statuses" not in props_of(body[0])  # statuses are only read inside declarations


def test_memory_profile_records_are_frontmatter_citations():
    doc = parsed(DC_RETAINED / "memory-profile.md")
    fm = doc.frontmatter_citations
    assert len(fm) == 75
    assert {c.form for c in fm} == {"frontmatter"} and {c.target_kind for c in fm} == {"record"}
    assert [(c.target, c.line) for c in fm[:3]] == [
        ("RT-RTE-checkpoint-resume", 16), ("RT-OBJ-cheatsheet", 20), ("MEM-OBJ-generation-traces", 20)]
    assert sum(c.target == "RT-OBJ-cheatsheet" for c in fm) == 9
    assert doc.frontmatter["memory-comparison"]["axes"]["trace_learning"]["values"] == ["yes"]


# -- G2 fixture -------------------------------------------------------------------------------


def test_g2_numeric_ids_bold_bullets_and_run_on_prose():
    doc = parsed(G2 / "runtime.md")
    assert [(props_of(b)["record_id"], props_of(b)["label"]) for b in doc.blocks if b.section_kind == "declaration"] == [
        ("CMP-1", "Configured chat-completion extractor"), ("OBJ-1", "Journal entries"),
        ("RTE-3", "Consolidate journal into facts"), ("RTE-4", "Prune stale facts"), ("BAP-1", "Fact injection")]
    (identity, status, readback) = blocks_at(doc, 22, 37, 38)
    assert (identity.kind, props_of(identity)["label"], props_of(identity)["value"], props_of(identity)["form"]) == (
        "field", "Source-native identity", "Extractor in src/extract.rs.", "bold")
    assert props_of(status)["statuses"] == [["Implementation conclusion status", "wired"],
                                        ["Operation conclusion status", "uninspected"]]
    assert (props_of(readback)["label"], props_of(readback)["value"]) == ("Later read-back", "None.")
    (run_on, prose_status) = blocks_at(doc, 30, 46)
    assert props_of(run_on)["fields"] == [["Source-native identity", "Journal rows."],
                                      ["Representational form", "natural-language text."],
                                      ["Storage substrate", "SQLite file."]]
    assert props_of(prose_status)["statuses"] == [["Implementation conclusion status", "wired"],
                                              ["operation conclusion status", "uninspected"]]


def test_g2_quotation_with_line_range_and_revision():
    doc = parsed(G2 / "runtime.md")
    (quote,) = blocks_at(doc, 40)
    assert quote.quotation.path == "src/ops.rs"
    assert (quote.quotation.lines, quote.quotation.revision) == ("270-275", "6acb13dc35765bf5ccfc87e445dd09c480f1c28a")
    assert quote.quotation.text == "fn consolidate(&self) {\n    let statement = self.db.prepare(SQL)?;"
    assert cites(quote) == [("file", "src/ops.rs", "quotation", None)]


def test_g2_whole_member_links_and_bare_sources():
    doc = parsed(G2 / "overview.md")
    (synthesis,) = blocks_at(doc, 33)
    assert cites(synthesis) == [
        ("record", "RTE-3", "link", "runtime.md"), ("record", "BAP-1", "link", "runtime.md"),
        ("record", "EPI-RTE-1", "link", "epistemic.md"),
        ("named", "memory", "link", "memory.md"), ("record", "OBJ-1", "link", None)]
    assert [p.source_id for p in doc.pins] == ["SRC-1", "SRC-2"]
    assert doc.frontmatter["inputs-commit"] is None and doc.frontmatter["analysis-cutoff"] == "2026-09-30"
    runtime = parsed(G2 / "runtime.md")
    (evidence,) = blocks_at(runtime, 61)
    assert cites(evidence) == [("record", "RTE-3", "mention", None), ("source", "SRC-1", "citation", None),
                               ("file", "src/prompt.rs", "citation", None)]


def test_g2_inline_json_frontmatter_and_quote_inside_a_bullet():
    doc = parsed(G2 / "memory.md")
    assert doc.frontmatter["memory-comparison"]["axes"]["storage_substrate"]["values"] == ["files"]
    assert [(c.target, c.line) for c in doc.frontmatter_citations] == [("OBJ-1", 8), ("MEM-OBJ-1", 8)]
    body = [b for b in doc.blocks if 52 < b.line < 61]
    assert [(b.kind, b.line) for b in body] == [("field", 54), ("field", 55), ("quotation", 57), ("field", 59)]
    assert body[2].quotation.path == "prompts/leaf.txt" and body[2].gap == "\n\n"
    assert body[3].gap == "\n" and props_of(body[3])["label"] == "Write agency"


def test_g2_route_id_ledger_and_escaped_pipes():
    doc = parsed(G2 / "epistemic.md")
    ledger = blocks_at(doc, 22, 23, 24, 25)
    assert [(b.kind, props_of(b)["label"], props_of(b)["value"]) for b in ledger] == [
        ("field", "Route ID", "RTE-3; EPI-RTE-1"), ("field", "Route function", "content transformation"),
        ("field", "Architectural status", "implemented"),
        ("field", "Evidence source ID and local anchor", "SRC-1 src/ops.rs")]
    assert props_of(ledger[0])["route_ids"] == ["RTE-3", "EPI-RTE-1"]
    (row,) = blocks_at(doc, 18)
    assert props_of(row)["table"] == "inventory"
    assert props_of(row)["cells"][1] == "Fact text | summary"
    assert row.text.startswith("| EPI-OBJ-1 | Fact text \\| summary |")


def test_g2_value_amendments():
    doc = parsed(G2 / "reconciliation.md")
    amendments = [b for b in doc.blocks if b.kind == "amendment"]
    assert [(props_of(b)["amends"], props_of(b).get("supersedes")) for b in amendments] == [("RTE-4", None), ("CMP-1", None)]


def test_g2_mismatch_marker_is_not_an_id():
    doc = parsed(G2 / "overview.md")
    (marker,) = blocks_at(doc, 45)
    assert marker.citations == () and "malformed_ids" not in props_of(marker)


# -- G4 fixture -------------------------------------------------------------------------------


def test_g4_bare_heading_takes_its_label_line():
    doc = parsed(G4 / "runtime.md")
    declarations = [b for b in doc.blocks if b.section_kind == "declaration"]
    assert [(props_of(b)["record_id"], props_of(b)["label"], props_of(b)["heading_form"]) for b in declarations] == [
        ("RT-OBJ-store", "Note store", "bare"), ("RT-OBJ-blob", "Blob store", "bare"),
        ("RT-RTE-index-write", "Index write", "bare")]
    (label,) = blocks_at(doc, 33)
    assert (label.kind, props_of(label)["label"], props_of(label)["value"]) == ("field", "Label", "Note store")


def test_g4_links_blob_attribution_and_fenced_code():
    doc = parsed(G4 / "runtime.md")
    (prose, quote, code) = blocks_at(doc, 12, 14, 18)
    assert cites(prose) == [("record", "RT-RTE-index-write", "link", "runtime.md"),
                            ("record", "RT-OBJ-store", "link", "runtime.md"),
                            ("source", "SRC-1", "citation", None), ("file", "src/store.ts", "citation", None)]
    q = quote.quotation
    assert (q.path, q.lines, q.revision) == ("src/store.ts", "10-12", "0123456789abcdef0123456789abcdef01234567")
    assert (code.kind, code.citations, props_of(code).keys() - BASE) == ("code", (), set())
    assert code.text == "#### RT-RTE-fenced\nRT-XYZ-bad is only an example."
    assert all(props_of(b).get("record_id") != "RT-RTE-fenced" for b in doc.blocks)


def test_g4_part_of_link_and_annotation_link_heading():
    doc = parsed(G4 / "memory.md")
    (heading, label, part_of) = blocks_at(doc, 27, 29, 30)
    assert (props_of(heading)["record_id"], props_of(heading)["label"]) == ("MEM-OBJ-index", "Search index")
    assert (label.gap, part_of.gap) == ("\n\n", "\n")  # one paragraph, one block per line
    assert (props_of(part_of)["label"], props_of(part_of)["part_of"]) == ("Part of", "RT-OBJ-store")
    assert cites(part_of) == [("record", "RT-OBJ-store", "link", "runtime.md")]
    (annotation, quote) = blocks_at(doc, 68, 73)
    assert (annotation.section_kind, props_of(annotation)["annotates"], annotation.text) == (
        "annotation", "RT-RTE-index-write", "On RT-RTE-index-write")
    assert (quote.quotation.path, quote.quotation.lines, quote.quotation.revision) == ("src/index.ts", "4", "0123456")


def test_g4_supersession_amendments():
    doc = parsed(G4 / "reconciliation.md")
    amendments = [b for b in doc.blocks if b.kind == "amendment"]
    assert [props_of(b)["supersedes"] for b in amendments] == [
        [("MEM-RTE-reindex", "RT-RTE-index-write")],
        [("RT-OBJ-blob", "RT-OBJ-store"), ("RT-OBJ-blob", "MEM-OBJ-index")]]
    assert [props_of(b)["amends"] for b in amendments] == ["MEM-RTE-reindex", "RT-OBJ-blob"]


def test_g4_profile_anchor_records_and_boundary_source():
    doc = parsed(G4 / "memory-profile.md")
    assert [(c.target, c.member, c.line) for c in doc.frontmatter_citations] == [
        ("RT-OBJ-store", "runtime.md", 19), ("MEM-OBJ-index", "memory.md", 19), ("RT-OBJ-store", "runtime.md", 21),
        ("RT-OBJ-store", "runtime.md", 23), ("MEM-OBJ-index", "memory.md", 23)]
    boundary = parsed(G4 / "boundary.md")
    assert [(p.source_id, p.url, p.declared) for p in boundary.pins] == [
        ("SRC-1", "https://github.com/example/fixture-four", False),
        ("SRC-1", "https://github.com/example/fixture-four", True)]
    assert boundary.frontmatter["source"]["sha256"] is None


def test_verification_role_comes_from_the_file_name():
    assert parsed(G4 / "record-verification.md").role == "record-verification"
    data = (G4 / "record-verification.md").read_bytes()
    assert parse_markdown(data, "x/synthesis-verification.md").role == "synthesis-verification"
    assert parse_member(data, "x/profile-verification.md").role == "profile-verification"


def test_quoted_text_yields_no_citation_or_finding():
    text = (b"---\ntype: agentic-system-analyses/types/agentic-system-reconciliation-report.md\n---\n\n# T\n\n"
            b"## Reconciliation\n\n> RT-XYZ-bad and SRC-1 through SRC-3 and RT-OBJ-x\n> --- `a/b.py`\n")
    (_, quote) = parse_markdown(text, "reconciliation.md").blocks
    assert cites(quote) == [("file", "a/b.py", "quotation", None)] and props_of(quote).keys() - BASE == set()


# -- refused input ----------------------------------------------------------------------------


@pytest.mark.parametrize("text, line, message", [
    (b"---\ntype: x\ndescription: a: b\n---\n# T\n", 3, "malformed YAML frontmatter"),
    (b"---\ntype: agentic-system-analyses/types/agentic-system-runtime-notes.md\n---\n# T\n", 2,
     "unknown member type"),
    (b"---\ndescription: d\n---\n# T\n", 2, "no `type`"),
    (b"---\ntype: agentic-system-analyses/types/agentic-system-runtime-report.md\n---\n\n## A\n", 5,
     "`# title`"),  # where the title belongs: the first line of text after the frontmatter, not the blank one
    (b"---\ntype: agentic-system-analyses/types/agentic-system-runtime-report.md\n---\n", 4, "`# title`"),
    (b"# T\n\n## A\n", 1, "YAML frontmatter"),
    (b"---\ntype: x\n# T\n", 1, "never closed"),
    (b"---\n- a\n- b\n---\n# T\n", 2, "not a YAML mapping"),
    (b"---\ntype: x\nresult-disposition: &a [*a]\n---\n# T\n", 3, "an alias is used inside the node it names"),
    (b"---\ntype: x\nd: " + b"[" * 65 + b"]" * 65 + b"\n---\n# T\n", 3, "nests deeper than 64 levels"),
    # refused at level 65, on the line of `d:` (not a RecursionError reported on line 2)
    (b"---\ntype: x\nd: " + b"[" * 3000 + b"]" * 3000 + b"\n---\n# T\n", 3, "nests deeper than 64 levels"),
])
def test_refused_members_name_file_and_line(text, line, message):
    with pytest.raises(ParseError) as info:
        parse_markdown(text, "runtime.md")
    assert message in info.value.message
    assert info.value.source is not None
    assert (info.value.source.path, info.value.source.line) == ("runtime.md", line)


def test_frontmatter_reader_leaves_plain_markdown_alone():
    assert read_frontmatter("# Attribution\n", "NOTICE.md") is None


@pytest.mark.parametrize("breaker", ["\x85", "\u2028", "\u2029"])
def test_characters_yaml_alone_counts_as_line_breaks_do_not_shift_frontmatter_lines(breaker):
    text = f'---\ntype: t.md\na: "x{breaker}y"\nb: 2\nc: [\n---\n# T\n'
    with pytest.raises(ParseError) as info:
        read_frontmatter(text, "m.md")
    assert info.value.source is not None
    assert info.value.source.line == 5  # the open flow sequence, as without the breaker
    fm = read_frontmatter(text.replace("c: [", "c: 3"), "m.md")
    assert fm is not None and fm.lines == {"type": 2, "a": 3, "b": 4, "c": 5}
