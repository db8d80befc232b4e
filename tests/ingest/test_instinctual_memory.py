"""The real G2 Instinctual Memory set (IM-01), its G2.5 rewrite (IM-02) and the generated review:
record links whose anchor is a heading slug, ranges, statuses, ``Part of:`` and the review's body
(facts checked against the documents' own text)."""

from __future__ import annotations

from collections import Counter

import pytest

from graph.model import EdgeKind, Label
from graph.store import Direction
from domain.grammar import parse_record_id
from ingest.loader import block_props as props_of
from ingest.parsers.markdown import parse_markdown
from queries.documents import document_trees
from queries.records import citations_of
from queries.subgraphs import rests_on_subgraph
from queries.traversal import rests_on
from queries.validation import check
from render.document import rebuild, verify
from render.compose import explanation
from tests.analysis_sets import IM01, IM01_SET, IM02, IM02_SET, REVIEW, copy_set, edit, load


def parsed(path):
    return parse_markdown(path.read_bytes(), str(path))


def links(block) -> list[tuple[str, str]]:
    return [(c.target, c.member) for c in block.citations if c.form == "link" and c.target_kind == "record"]


@pytest.fixture(scope="module")
def im01():
    return load(IM01)


# -- item 1: a link labelled with a record ID cites that record ---------------------------------


def test_overview_synthesis_links_cite_the_records_their_labels_name():
    doc = parsed(IM01 / "overview.md")
    by_line = {b.line: b for b in doc.blocks}
    assert {n: links(by_line[n]) for n in (37, 39, 41, 43)} == {
        37: [("MEM-OBJ-1", "memory.md"), ("MEM-OBJ-2", "memory.md"), ("MEM-OBJ-4", "memory.md"),
             ("MEM-RTE-2", "memory.md"), ("EPI-RTE-2", "epistemic.md"), ("EPI-RTE-4", "epistemic.md")],
        39: [("RTE-1", "runtime.md"), ("RTE-2", "runtime.md"), ("MEM-RTE-4", "memory.md"),
             ("MEM-RTE-5", "memory.md"), ("MEM-RTE-7", "memory.md")],
        41: [("MEM-OBJ-3", "memory.md"), ("MEM-RTE-3", "memory.md"), ("MEM-RTE-6", "memory.md"),
             ("EPI-RTE-7", "epistemic.md")],
        43: [("MEM-RTE-2", "memory.md"), ("EPI-RTE-2", "epistemic.md"), ("EPI-RTE-3", "epistemic.md"),
             ("MEM-OBJ-4", "memory.md")],
    }
    # the anchors are heading slugs (one dash or GitHub's two); each names its label's record
    assert sum(len(links(by_line[n])) for n in (37, 39, 41, 43)) == 19
    assert all(c.anchor is None for n in (37, 39, 41, 43) for c in by_line[n].citations)
    assert not [c for b in doc.blocks for c in b.citations if c.target_kind == "named" and c.target != "reconciliation"]


def test_overview_has_no_unresolved_reference(im01):
    overview = str(IM01 / "overview.md")
    findings = [f for f in check(im01, set_id=IM01_SET).findings if f.file == overview]
    assert [f for f in findings if f.code == "unresolved-reference"] == []


def test_rests_on_mem_rte_2_includes_the_synthesis_paragraphs(im01):
    report = rests_on(im01, "MEM-RTE-2", set_id=IM01_SET)
    overview = {r.block.line for r in report.results if r.document == f"{IM01_SET}/overview" and r.direct}
    assert {37, 43} <= overview
    (first,) = [r for r in report.results if r.statement == f"{IM01_SET}/overview#L37"]
    assert first.path == (f"{IM01_SET}/overview#L37", f"{IM01_SET}/MEM-RTE-2")


@pytest.mark.parametrize("anchor, named", [
    ("memory.md#mem-obj-4-consolidation-checkpoint-and-dispositions", "mem-obj-4-consolidation-checkpoint-and-dispositions"),
    ("memory.md#limitations", "limitations"),
])
def test_an_anchor_naming_another_record_is_a_finding_not_a_choice(tmp_path, anchor, named):
    folder = copy_set(IM01, tmp_path / "im01")
    edit(folder, "overview.md", "[MEM-OBJ-2](memory.md#mem-obj-2-entity-fact-snapshots)", f"[MEM-OBJ-2]({anchor})")
    doc = parsed(folder / "overview.md")
    (line_37,) = [b for b in doc.blocks if b.line == 37]
    (cited,) = [c for c in line_37.citations if c.token == "MEM-OBJ-2"]
    assert (cited.target, cited.member, cited.anchor) == ("MEM-OBJ-2", "memory.md", named)
    findings = [(f.code, f.severity, f.line) for f in check(load(folder), set_id=IM01_SET).findings
                if f.file == str(folder / "overview.md") and f.severity == "error"]
    assert findings == [("link-label", "error", 37)]


# -- item 4: record ranges ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def im02():
    return load(IM02)


def test_an_en_dash_range_cites_every_record_in_it():
    doc = parsed(IM02 / "epistemic.md")
    (line_12,) = [b for b in doc.blocks if b.line == 12]
    ranged = [(c.target, c.token) for c in line_12.citations if c.form == "range"]
    assert [t for t, _ in ranged] == [
        "RT-OBJ-1", "RT-OBJ-2", "RT-OBJ-3",
        *(f"RT-RTE-{n}" for n in range(1, 8)),
        "RT-CLM-1", "RT-CLM-2",
        "RT-BAP-1", "RT-BAP-2", "RT-BAP-3",
        *(f"RT-RTE-{n}" for n in range(1, 8)),
    ]
    assert {token for t, token in ranged if t == "RT-BAP-2"} == {"RT-BAP-1–RT-BAP-3"}
    assert props_of(line_12)["record_ranges"] == [
        "RT-OBJ-1–RT-OBJ-3", "RT-RTE-1–RT-RTE-7", "RT-CLM-1–RT-CLM-2", "RT-BAP-1–RT-BAP-3", "RT-RTE-1–RT-RTE-7"]


def test_rests_on_an_interior_record_of_a_range(im02):
    report = rests_on(im02, "RT-BAP-2", set_id=IM02_SET)
    (line_12,) = [r for r in report.results if r.statement == f"{IM02_SET}/epistemic#L12"]
    assert (line_12.direct, line_12.depth, line_12.path) == (True, 1, (line_12.statement, f"{IM02_SET}/RT-BAP-2"))
    sub = rests_on_subgraph(im02, "RT-BAP-2", set_id=IM02_SET)
    assert explanation(sub.steps[line_12.statement], 1) == (
        "direct", "cites RT-BAP-2 (in the record range RT-BAP-1–RT-BAP-3)")


def test_a_through_range_in_a_limitations_cell(im01):
    report = rests_on(im01, "MEM-RTE-3", set_id=IM01_SET, direct_only=True)
    assert f"{IM01_SET}/overview#L49" in {r.statement for r in report.results}
    cited = [c for c in citations_of(im01, "MEM-RTE-3", set_id=IM01_SET) if c.statement == f"{IM01_SET}/overview#L49"]
    assert [(c.citation.form, c.citation.token) for c in cited] == [("range", "MEM-RTE-1 through MEM-RTE-7")]


def test_a_range_that_cannot_be_expanded_cites_its_ends(tmp_path):
    folder = copy_set(IM01, tmp_path / "im01")
    edit(folder, "reconciliation.md", "(EPI-OBJ-1 through EPI-OBJ-4)", "(MEM-OBJ-1 through EPI-OBJ-4)")
    doc = parsed(folder / "reconciliation.md")
    (line_24,) = [b for b in doc.blocks if b.line == 24]
    assert props_of(line_24)["unexpanded_ranges"] == [["MEM-OBJ-1 through EPI-OBJ-4", "its ends differ in analyst or kind"]]
    start = line_24.text.index("MEM-OBJ-1 through EPI-OBJ-4")
    inside = [(c.target, c.form) for c in line_24.citations if start <= c.start < start + 27]
    assert inside == [("MEM-OBJ-1", "citation"), ("EPI-OBJ-4", "citation")]
    (finding,) = [f for f in check(load(folder), set_id=IM01_SET).findings
                  if f.line == 24 and "cannot be expanded" in f.message]
    assert (finding.code, finding.severity, finding.message) == (
        "record-range", "warning", "record range 'MEM-OBJ-1 through EPI-OBJ-4' cannot be expanded exactly "
        "(its ends differ in analyst or kind): only its ends are cited")


# -- item 5: statuses ----------------------------------------------------------------------------


def test_a_status_is_its_leading_term_and_keeps_its_qualifier():
    doc = parsed(IM02 / "runtime.md")
    by_line = {b.line: b for b in doc.blocks}
    # colon-less label inside a field (GRAMMAR §4.4 observed deviation), and a trailing qualifier
    assert props_of(by_line[108])["statuses"] == [["implementation conclusion status", "wired", "for context output"]]
    assert props_of(by_line[115])["statuses"] == [["implementation conclusion status", "wired"]]
    assert props_of(by_line[153])["statuses"] == [["Conclusion status", "wired", "for implementation behavior"]]
    assert props_of(by_line[157])["statuses"] == [["Conclusion status", "wired", "from implementation"]]


def test_rewrite_statuses_are_findings_only_where_missing(im02):
    findings = [(f.code, f.severity, f.file.rsplit("/", 1)[1], f.line) for f in check(im02, set_id=IM02_SET).findings
                if f.code.startswith("status-")]
    # RT-RTE-1..7 state `implementation conclusion status`, except RT-RTE-6 and RT-RTE-7, which write
    # `file write is `wired`` and `config writes are `wired`` (runtime.md:142, 147): no status label.
    # The epistemic routes state none. Numbered IDs: warnings.
    assert findings == [
        ("status-missing", "warning", "epistemic.md", 95), ("status-missing", "warning", "epistemic.md", 123),
        ("status-missing", "warning", "epistemic.md", 138),
        ("status-missing", "warning", "runtime.md", 138), ("status-missing", "warning", "runtime.md", 144),
    ]


def test_a_missing_status_on_a_numbered_g2_route_is_a_warning(im01):
    findings = [(f.code, f.severity, f.line) for f in check(im01, set_id=IM01_SET).findings
                if f.code == "status-missing" and f.file == str(IM01 / "runtime.md")]
    assert findings == [("status-missing", "warning", 44), ("status-missing", "warning", 57),
                        ("status-missing", "warning", 70)]


# -- item 3: a column-0 `Part of:` line is one wherever it stands --------------------------------


def test_rewrite_records_parts_and_quotations(im02):
    docs = [parsed(IM02 / name) for name in ("runtime.md", "epistemic.md")]
    declarations = [props_of(b)["record_id"] for d in docs for b in d.blocks if b.section_kind == "declaration"]
    assert len(declarations) == 25
    assert Counter(parse_record_id(r).kind for r in declarations) == {
        "CMP": 3, "OBJ": 7, "RTE": 10, "CLM": 2, "BAP": 3}
    parts = [(b.line, props_of(b)["part_of"]) for d in docs for b in d.blocks if props_of(b).get("part_of")]
    assert parts == [(73, "RT-OBJ-2"), (79, "RT-OBJ-2"), (89, "RT-OBJ-3"), (97, "RT-RTE-4")]
    assert sum(b.kind == "quotation" for d in docs for b in d.blocks) == 9
    edges = im02.edges([f"{IM02_SET}/EPI-OBJ-1", f"{IM02_SET}/EPI-RTE-1"], kinds=[EdgeKind.PART_OF],
                       direction=Direction.OUT)
    assert {k.rsplit("/", 1)[1]: [e.dst.rsplit("/", 1)[1] for e in es] for k, es in edges.items()} == {
        "EPI-OBJ-1": ["RT-OBJ-2"], "EPI-RTE-1": ["RT-RTE-4"]}


def test_part_of_directly_after_a_bullet_is_a_part_of_line(tmp_path):
    folder = copy_set(IM02, tmp_path / "im02")
    edit(folder, "epistemic.md", "statements\n\nPart of: RT-OBJ-2\n\nIdentity: propositions",
         "statements\n\n- Raw versus derived: proposals are derived from journal events.\nPart of: RT-OBJ-2\n"
         "\nIdentity: propositions", pin=False)
    doc = parsed(folder / "epistemic.md")
    data = (folder / "epistemic.md").read_text()
    assert doc.preamble + "".join(b.gap + b.markup for b in doc.blocks) + doc.trailer == data
    by_line = {b.line: b for b in doc.blocks}
    assert (by_line[73].kind, props_of(by_line[73])["label"], by_line[73].markup) == (
        "field", "Raw versus derived", "- Raw versus derived: proposals are derived from journal events.")
    assert (by_line[74].kind, props_of(by_line[74])["form"], props_of(by_line[74])["part_of"]) == ("field", "line", "RT-OBJ-2")
    store = load(folder)
    (edge,) = store.edges([f"{IM02_SET}/EPI-OBJ-1"], kinds=[EdgeKind.PART_OF],
                          direction=Direction.OUT)[f"{IM02_SET}/EPI-OBJ-1"]
    assert (edge.dst, edge.props["statement"]) == (f"{IM02_SET}/RT-OBJ-2", f"{IM02_SET}/epistemic#L74")
    assert not [f for f in check(store, set_id=IM02_SET).findings if f.code.startswith("part-of")]


def test_part_of_on_the_next_line_of_a_prose_paragraph(tmp_path):
    folder = copy_set(IM02, tmp_path / "im02")
    edit(folder, "epistemic.md", "statements\n\nPart of: RT-OBJ-2\n\nIdentity: propositions",
         "statements\n\nThe extraction-produced subset, as stated below.\nPart of: RT-OBJ-2\n\nIdentity: propositions",
         pin=False)
    by_line = {b.line: b for b in parsed(folder / "epistemic.md").blocks}
    assert (by_line[73].kind, by_line[73].text) == ("paragraph", "The extraction-produced subset, as stated below.")
    assert props_of(by_line[74])["part_of"] == "RT-OBJ-2"


# -- item 2: the generated review's body ---------------------------------------------------------

REVIEWED = "AAS-2026-10-02-instinctual-memory-01"


def test_the_review_body_is_statements_with_their_citations():
    doc = parsed(REVIEW)
    assert (doc.role, doc.run_id, doc.reviewed_boundary, doc.system) == (
        "generated-review", REVIEWED, "6acb13dc35765bf5ccfc87e445dd09c480f1c28a", "instinctual-memory")
    assert doc.preamble.endswith("---\n\n# instinctual-memory")
    body = [(b.line, b.kind) for b in doc.blocks if b.line < 26]
    assert body == [(14, "paragraph"), (16, "paragraph"), (18, "paragraph"), (20, "paragraph"), (22, "paragraph"),
                    (24, "paragraph")]
    by_line = {b.line: b for b in doc.blocks}
    assert by_line[14].text.startswith("Evidence basis: code-grounded analysis of https://github.com/jasonkneen/")
    # links into the reviewed set's folder (../reports/retained/<run>/runtime.md#…) name its members
    assert links(by_line[16]) == [("OBJ-1", "runtime.md"), ("OBJ-2", "runtime.md"), ("RTE-1", "runtime.md"),
                                  ("RTE-2", "runtime.md"), ("RTE-3", "runtime.md"), ("ABS-1", "runtime.md")]
    assert links(by_line[24]) == [("RTE-2", "memory.md"), ("MEM-RTE-6", "memory.md"), ("EPI-RTE-3", "epistemic.md"),
                                  ("CLM-1", "epistemic.md")]
    assert [b.line for b in doc.blocks if b.kind == "table_row"] == [30, 31, 32, 33]


def test_the_review_is_in_the_set_it_reviews_and_rebuilds_exactly():
    store = load(REVIEW)
    (document,) = store.find_nodes(Label.DOCUMENT)
    assert (document.id, document.set_id) == (f"{REVIEWED}/generated-review", REVIEWED)
    (tree,) = document_trees(store)
    assert rebuild(tree).encode() == REVIEW.read_bytes()
    report = rests_on(store, "RTE-2", set_id=REVIEWED, direct_only=True)
    assert [r.block.line for r in report.results] == [16, 18, 24, 31, 33]


def test_the_review_joins_the_reviewed_set_when_it_is_ingested(tmp_path):
    folder = copy_set(IM01, tmp_path / "retained" / IM01_SET)
    review = tmp_path / "reviews" / "instinctual-memory.md"
    review.parent.mkdir()
    review.write_text(REVIEW.read_text().replace(REVIEWED, IM01_SET))
    store = load(folder, review)
    documents = {d.get("role"): d.set_id for d in store.find_nodes(Label.DOCUMENT)}
    assert documents == {role: IM01_SET for role in (
        "overview", "runtime", "memory", "epistemic", "reconciliation", "generated-review")}
    identity = {"run-id-mismatch", "boundary-mismatch", "unpinned-member", "pin-mismatch"}
    assert not [f for f in check(store, set_id=IM01_SET).findings if f.code in identity]


# -- IM-01 as a whole ----------------------------------------------------------------------------


def test_im01_records_annotations_amendments_quotations_and_limitations(im01):
    sections = im01.find_nodes(Label.SECTION, set_id=IM01_SET)
    declared = [s.get("record_id") for s in sections if s.get("kind") == "declaration"]
    assert len(declared) == 28
    assert Counter(parse_record_id(r).kind for r in declared) == {"OBJ": 10, "RTE": 17, "CLM": 1}
    assert sorted(s.get("annotates") for s in sections if s.get("kind") == "annotation") == [
        "OBJ-1", "RTE-1", "RTE-2", "RTE-3"]
    statements = im01.find_nodes(Label.STATEMENT, set_id=IM01_SET)
    amendments = sorted(tuple(map(tuple, s.get("supersedes"))) for s in statements if s.get("kind") == "amendment")
    assert amendments == [(("EPI-OBJ-1", "MEM-OBJ-1"),), (("EPI-OBJ-2", "MEM-OBJ-2"),), (("EPI-OBJ-4", "MEM-OBJ-3"),)]
    assert im01.counts(set_id=IM01_SET)["SUPERSEDED_BY"] == 3
    assert len(im01.find_nodes(Label.QUOTATION, set_id=IM01_SET)) == 15
    limitations = [s for s in statements if s.get("kind") == "table_row" and s.get("table") == "limitations"]
    assert sorted(s.get("line") for s in limitations) == [49, 50, 51]


def test_im01_pins_verify_and_members_rebuild_exactly(im01):
    documents = im01.find_nodes(Label.DOCUMENT, set_id=IM01_SET)
    assert sorted((d.get("file_name"), d.get("pin_verified")) for d in documents) == [
        (name, True) for name in ("epistemic.md", "memory.md", "overview.md", "reconciliation.md", "runtime.md")]
    report = verify(document_trees(im01, set_id=IM01_SET))
    assert (report.documents, report.differing) == (5, 0)


def test_part_of_in_an_annotation_is_a_finding(tmp_path):
    folder = copy_set(IM01, tmp_path / "im01")
    edit(folder, "memory.md", "- Storage substrate: local journal files plus bare Git memory repository and related "
         "retained state files.\n", "- Storage substrate: local journal files plus bare Git memory repository and "
         "related retained state files.\nPart of: MEM-OBJ-1\n")
    by_line = {b.line: b for b in parsed(folder / "memory.md").blocks}
    assert (by_line[273].kind, "part_of" in props_of(by_line[273]), props_of(by_line[273])["part_of_malformed"]) == (
        "field", False, "`Part of: MEM-OBJ-1` in an annotation, which adds no `Part of:`")
    findings = [(f.code, f.line) for f in check(load(folder), set_id=IM01_SET).findings if f.code.startswith("part-of")]
    assert findings == [("part-of-malformed", 273)]
