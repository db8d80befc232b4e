"""The forms real G1 results write that the original grammar does not describe (GRAMMAR §11),
and the accounting invariant that reports the next unknown form (``unaccounted-record-id``).

Counts come from the documents themselves; line numbers are the files'. Anything stored or
traversed is asserted on both stores (the ``store`` fixture: embedded, and Neo4j when
``CITEGRAPH_NEO4J_URI`` is set)."""

from __future__ import annotations

from collections import Counter

import pytest

from graph.model import EdgeKind, Label
from graph.store import Direction
from ingest.accounting import accounted_by, unaccounted_ids
from domain.model import Status
from ingest.citations import extract_citations
from ingest.loader import block_props as props_of, ingest_parsed
from ingest.parsers.markdown import parse_markdown
from ingest.statements import status_facts
from queries.stats import stats, stats_of_set
from queries.traversal import rests_on
from queries.validation import check
from tests.analysis_sets import G1_FILES
from tests.conftest import ingest_into

AIDE2 = next(p for p in G1_FILES if p.parent.name == "AAS-2026-09-25-aide2-01")
AIDE2_SET = "AAS-2026-09-25-aide2-01"
FRAGILITY = next(p for p in G1_FILES if p.parent.name == "AAS-2026-09-25-fragility-grid-01")
FRAGILITY_SET = "AAS-2026-09-25-fragility-grid-01"

RUN = "AAS-2026-11-01-forms-01"


def result(body: str) -> bytes:
    """A minimal G1 result (one ``result.md``) whose body after the H1 (line 6) is ``body``, which
    opens with a blank line 7."""
    return (f"---\ntype: kb/types/agentic-system-analysis-result.md\nrun-id: {RUN}\nsystem: Forms\n---\n"
            f"# Forms result\n{body}").encode()


def parsed(body: str):
    return parse_markdown(result(body), "result.md")


def stored(store, body: str):
    ingest_parsed(store, [parsed(body)])
    return store


def findings(store, code: str) -> list[tuple[int, str]]:
    return [(f.line, f.message) for f in check(store, set_id=RUN).findings if f.code == code]


# -- AIDE2-01: tables declare OBJ-1..8 and BAP-1..8, statuses from the kind sentence, digest quotations


@pytest.fixture
def aide2(store):
    ingest_into(store, AIDE2)
    return store


def test_aide2_declares_its_objects_and_paths_from_its_tables(aide2):
    # result.md 146 `| ID | Source-native object | … |`, rows 148-155 OBJ-1..8; 246 `| ID | Consumer
    # | … |`, rows 248-255 BAP-1..8
    declared = {s.get("record_id"): s.get("line") for s in aide2.find_nodes(Label.SECTION, set_id=AIDE2_SET)
                if s.get("kind") == "declaration" and s.get("heading_form") == "row"}
    assert declared == {**{f"OBJ-{n}": 147 + n for n in range(1, 9)}, **{f"BAP-{n}": 247 + n for n in range(1, 9)}}
    row = aide2.get_nodes([f"{AIDE2_SET}/result#D155"])[f"{AIDE2_SET}/result#D155"]
    assert row.get("label") == "Held-out scoring script with failure-handling patch"


def test_a_declaring_row_is_no_citation_of_its_record(aide2):
    row = f"{AIDE2_SET}/result#L155"  # | OBJ-8 | Held-out scoring script … | … (§3.5, SRC-2) |
    cited = aide2.edges([row], kinds=[EdgeKind.CITES], direction=Direction.OUT)[row]
    assert sorted(e.dst.rsplit("/", 1)[1] for e in cited) == ["SRC-2"]
    declared = aide2.edges([f"{AIDE2_SET}/OBJ-8"], kinds=[EdgeKind.DECLARED_IN], direction=Direction.OUT)
    assert [e.dst for e in declared[f"{AIDE2_SET}/OBJ-8"]] == [f"{AIDE2_SET}/result#D155"]


def test_aide2_checks_clean_with_its_quotations_stored(aide2):
    report = check(aide2, set_id=AIDE2_SET)
    codes = Counter(f.code for f in report.findings)
    assert (codes["undeclared-record"], codes["unattributed-quotation"], codes["status-missing"]) == (0, 0, 0)
    assert report.findings == ()
    # the 12 attribution lines `> --- `kb/sources/.snapshots/…` @ `sha256:86d1…`` (140 … 236)
    quotations = sorted(aide2.find_nodes(Label.QUOTATION, set_id=AIDE2_SET), key=lambda q: q.get("line"))
    assert [q.get("line") for q in quotations] == [137, 167, 171, 177, 185, 189, 194, 204, 209, 216, 224, 234]
    assert {q.get("revision") for q in quotations} == {
        "sha256:86d1b094380280450bf2281b1e38945a4f0c2528f2b88aebdf9ea8b9a1e8da8e"}
    assert {q.get("path") for q in quotations} == {
        "kb/sources/.snapshots/aide2-recursive-self-improvement-research-agents.md"}


def test_the_routes_inherit_the_status_sentence_of_their_kind_section(aide2):
    # result.md 161: "All described route operation conclusion statuses: claimed. Implementation
    # conclusion status: uninspected." covers RTE-1..8 (163-214)
    routes = [s for s in aide2.find_nodes(Label.SECTION, set_id=AIDE2_SET)
              if s.get("kind") == "declaration" and s.get("record_id", "").startswith("RTE-")]
    assert len(routes) == 8
    assert {tuple(map(tuple, r.get("inherited_statuses"))) for r in routes} == {(
        ("described route operation conclusion status", "claimed"),
        ("Implementation conclusion status", "uninspected"))}


# -- Fragility Grid-01: proposal mappings are aliases ------------------------------------------------


@pytest.fixture
def fragility(store):
    ingest_into(store, FRAGILITY)
    return store


def test_fragility_grids_mappings_are_aliases(fragility):
    # result.md 489: "Mapped MEM-RTE-1 → RTE-6; MEM-RTE-2 → RTE-7; MEM-ABS-1 → ABS-1."
    ids = [f"{FRAGILITY_SET}/{r}" for r in ("MEM-RTE-1", "MEM-RTE-2", "MEM-ABS-1")]
    out = fragility.edges(ids, kinds=[EdgeKind.SUPERSEDED_BY], direction=Direction.OUT)
    assert {k.rsplit("/", 1)[1]: [(e.dst.rsplit("/", 1)[1], e.props.get("alias"), e.props.get("statement"))
                                  for e in es] for k, es in out.items()} == {
        "MEM-RTE-1": [("RTE-6", True, f"{FRAGILITY_SET}/result#L489")],
        "MEM-RTE-2": [("RTE-7", True, f"{FRAGILITY_SET}/result#L489")],
        "MEM-ABS-1": [("ABS-1", True, f"{FRAGILITY_SET}/result#L489")]}
    codes = Counter(f.code for f in check(fragility, set_id=FRAGILITY_SET).findings)
    assert (codes["undeclared-record"], codes["dangling-record-citation"], codes["unaccounted-record-id"]) == (0, 0, 0)


def test_rests_on_an_alias_answers_through_its_canonical_record(fragility):
    alias = rests_on(fragility, "MEM-RTE-1", set_id=FRAGILITY_SET)
    canonical = rests_on(fragility, "RTE-6", set_id=FRAGILITY_SET)
    assert alias.records == (f"{FRAGILITY_SET}/MEM-RTE-1", f"{FRAGILITY_SET}/RTE-6")
    statements = sorted(r.block.line for r in alias.results)
    assert statements == sorted(r.block.line for r in canonical.results)
    # the statements citing RTE-6 (result.md 413, 457, 506; 513 in the range `RTE-2 through RTE-7`)
    # and the mapping (489), which cites both
    assert statements == [413, 457, 489, 506, 513]


# -- item 3: the same form in a synthetic kind section, and a headerless fragment ---------------------


def test_an_id_table_and_its_fragment_after_a_blank_line_declare_their_rows(store):
    stored(store, "\n## Shared records\n\n### Operative objects\n\n| ID | Object |\n|---|---|\n"
                  "| OBJ-1 | Queue (SRC-1) |\n\n| OBJ-2 | Log, read by OBJ-1 |\n| OBJ-3 | Cache |\n")
    declared = {s.get("record_id"): (s.get("line"), s.get("label")) for s in store.find_nodes(Label.SECTION)
                if s.get("kind") == "declaration"}
    # line 14, then the fragment after the blank line 15: 16 and 17
    assert declared == {"OBJ-1": (14, "Queue (SRC-1)"), "OBJ-2": (16, "Log, read by OBJ-1"), "OBJ-3": (17, "Cache")}
    row = f"{RUN}/result#L16"
    cited = store.edges([row], kinds=[EdgeKind.CITES], direction=Direction.OUT)[row]
    assert [e.dst for e in cited] == [f"{RUN}/OBJ-1"]  # OBJ-2 is declared there, OBJ-1 cited
    assert check(store, set_id=RUN).findings == ()


def test_a_route_table_is_no_declaring_table():
    doc = parsed("\n## Lens outputs\n\n| Route | Function |\n|---|---|\n| RTE-1 | Search |\n")
    (row,) = [b for b in doc.blocks if b.kind == "table_row"]
    assert [c.target for c in row.citations] == ["RTE-1"]
    assert not any(b.section_kind == "declaration" for b in doc.blocks)


def test_a_mapping_table_makes_aliases():
    # the Supermemory-01 form (result.md 1179): | Specialist proposal | Canonical record |
    doc = parsed("\n## Reconciliation\n\n| Specialist proposal | Canonical record |\n|---|---|\n"
                 "| MEM-OBJ-1 | OBJ-2 |\n")
    (row,) = [b for b in doc.blocks if b.kind == "table_row"]
    assert props_of(row)["aliases"] == [["MEM-OBJ-1", "OBJ-2"]]


# -- item 4: annotations under an `### Annotations of …` subsection ---------------------------------


def test_an_annotation_under_an_annotations_subsection(store):
    stored(store, "\n## Shared records\n\n### Annotations of runtime records\n\n#### On RTE-2 — retention\n\n"
                  "Retention is bounded.\n")
    (section,) = [s for s in store.find_nodes(Label.SECTION) if s.get("kind") == "annotation"]
    assert (section.get("annotates"), section.get("label"), section.get("line")) == ("RTE-2", "retention", 12)
    body = f"{RUN}/result#L14"
    annotates = store.edges([body], kinds=[EdgeKind.ANNOTATES], direction=Direction.OUT)[body]
    assert [e.dst for e in annotates] == [f"{RUN}/RTE-2"]


# -- item 5: slash-joined IDs; dotted identifiers and host names are no files -----------------------


def test_slash_joined_ids_cite_each_record():
    text = "Both stores persist (OBJ-5/OBJ-9)."
    assert [(c.target_kind, c.target) for c in extract_citations(text)] == [("record", "OBJ-5"), ("record", "OBJ-9")]
    doc = parsed("\n## Lens outputs\n\n| Objects | Note |\n|---|---|\n| OBJ-5/OBJ-9 | kept |\n")
    (row,) = [b for b in doc.blocks if b.kind == "table_row"]
    assert [(c.target_kind, c.target) for c in row.citations] == [("record", "OBJ-5"), ("record", "OBJ-9")]


def test_dotted_identifiers_and_host_names_are_no_cited_files():
    text = "Writes go through (`json.dump`, api.example.com, SRC-1 src/store.py)."
    assert [(c.target_kind, c.target) for c in extract_citations(text) if c.target_kind != "named"] == [
        ("source", "SRC-1"), ("file", "src/store.py")]


# -- item 6: `through` between IDs of different kinds means "via" -----------------------------------


def test_statements_without_an_id_mark_path_or_group_still_cite_what_they_name():
    # extract_citations returns at once only when nothing it scans for can be there: an index line
    # or a group of names without any ID still cites
    assert extract_citations("Stop keeps the last summary: nothing to cite here.") == ()
    assert [(c.target_kind, c.target, c.form) for c in extract_citations(
        "Amended or superseded records: none; reconciliation.")] == [("named", "reconciliation", "citation")]
    assert [(c.target_kind, c.target) for c in extract_citations("Drafts stay local (boundary, Source register).")] == [
        ("named", "boundary"), ("named", "Source register")]


def test_status_words_are_found_as_the_status_pattern_finds_them():
    # status_facts looks for the words first, with STATUS_IN_PROSE's own (?i): any case, and `ſ` for `s`
    assert status_facts("Runtime CONCLUSION STATUS: observed; the rest", None, None, None) == (
        Status("Runtime CONCLUSION STATUS", "observed", None),)
    assert status_facts("Runtime conclusion \u017ftatus: wired.", None, None, None) == (
        Status("Runtime conclusion \u017ftatus", "wired", None),)
    assert status_facts("No status is stated here.", None, None, None) == ()


def test_through_between_kinds_cites_both_and_is_no_range(store):
    stored(store, "\n## Runtime account\n\nThe write reaches RTE-2 through OBJ-4.\n")
    statement = f"{RUN}/result#L10"
    cited = store.edges([statement], kinds=[EdgeKind.CITES], direction=Direction.OUT)[statement]
    assert sorted(e.dst.rsplit("/", 1)[1] for e in cited) == ["OBJ-4", "RTE-2"]
    assert findings(store, "record-range") == []


# -- item 7: the prose mapping forms ----------------------------------------------------------------


def test_prose_mappings_make_aliases(store):
    stored(store, "\n## Shared records\n\n### Routes\n\nRTE-2 — Review. Implementation conclusion status: wired.\n\n"
                  "## Reconciliation\n\nProposal mapping: MEM-OBJ-1 → the outer branch of RTE-2; "
                  "MEM-CLM-2 merged into existing RTE-2.\n\n## Runtime account\n\nThe review (RTE-2) is bounded.\n")
    out = store.edges([f"{RUN}/MEM-OBJ-1", f"{RUN}/MEM-CLM-2"], kinds=[EdgeKind.SUPERSEDED_BY], direction=Direction.OUT)
    assert {k.rsplit("/", 1)[1]: [e.dst.rsplit("/", 1)[1] for e in es] for k, es in out.items()} == {
        "MEM-OBJ-1": ["RTE-2"], "MEM-CLM-2": ["RTE-2"]}
    assert check(store, set_id=RUN).findings == ()
    # the mapping (16) and the statement citing only RTE-2 (20)
    assert [r.block.line for r in rests_on(store, "MEM-OBJ-1", set_id=RUN).results] == [16, 20]


# -- item 8: statuses ---------------------------------------------------------------------------------


def test_qualified_and_slashed_status_labels(store):
    stored(store, "\n## Shared records\n\n### Routes\n\nRTE-1 — Host run. Implementation conclusion status for host "
                  "execution: afforded. Activation/effect conclusion status: wired.\n")
    (body,) = [n for n in store.find_nodes(Label.STATEMENT) if n.get("statuses")]
    assert body.get("statuses") == [["Implementation conclusion status for host execution", "afforded"],
                                    ["Activation/effect conclusion status", "wired"]]
    assert findings(store, "status-missing") == []


def test_a_kind_sentence_covers_the_routes_under_it(store):
    stored(store, "\n## Shared records\n\n### Routes\n\nAll described route operation conclusion statuses: claimed. "
                  "Implementation conclusion status: uninspected.\n\nRTE-1 — Search. It ranks.\n\n"
                  "### Claims\n\nCLM-1 — Ranking helps.\n\n### Evidenced absences\n\n#### RTE-9 — misplaced\n")
    # the sentence covers RTE-1 (14) only: RTE-9 under `### Evidenced absences` (22) states none
    assert findings(store, "status-missing") == [(22, "route RTE-9 states no conclusion status")]
    sections = {s.get("record_id"): s.get("inherited_statuses") for s in store.find_nodes(Label.SECTION)
                if s.get("kind") == "declaration"}
    assert sections["RTE-1"] == [["described route operation conclusion status", "claimed"],
                                 ["Implementation conclusion status", "uninspected"]]
    assert sections["CLM-1"] is None  # the next kind section states none


def test_an_inline_declarations_body_ends_at_a_paragraph_opening_with_another_id(store):
    stored(store, "\n## Shared records\n\n### Routes\n\nRTE-1 — Search. Implementation conclusion status: wired.\n\n"
                  "Body of RTE-1.\n\nOBJ-2 is what RTE-1 reads; Implementation conclusion status: observed.\n")
    assert findings(store, "status-duplicate") == []  # line 16 is no longer RTE-1's body
    closing = f"{RUN}/result#L16"
    parent = store.edges([closing], kinds=[EdgeKind.CONTAINS], direction=Direction.IN)[closing]
    assert [e.src for e in parent] == [f"{RUN}/result#L10"]  # the `### Routes` kind heading
    body = f"{RUN}/result#L14"
    assert [e.src for e in store.edges([body], kinds=[EdgeKind.CONTAINS], direction=Direction.IN)[body]] == [
        f"{RUN}/result#D12"]


# -- item 9: attribution to a pinned capture's digest -------------------------------------------------


def test_a_quotation_attributed_to_a_digest_is_attributed():
    doc = parsed("\n## Runtime account\n\n> the model is fixed\n> --- `kb/sources/.snapshots/x.md` @ `sha256:86d1b094`\n")
    (quote,) = [b for b in doc.blocks if b.kind == "quotation"]
    assert (quote.quotation.path, quote.quotation.revision) == ("kb/sources/.snapshots/x.md", "sha256:86d1b094")
    assert not props_of(quote).get("unattributed")


# -- item 10: ledger headings --------------------------------------------------------------------------


def test_a_ledger_heading_cites_its_record_for_the_block_it_heads(store):
    stored(store, "\n## Lens outputs\n\n### Epistemic lens\n\n#### RTE-5 — acceptance\n\n- Keeps the grade.\n"
                  "- Also OBJ-1.\n\n#### Other\n\n- Unrelated.\n")
    answer = sorted(r.block.line for r in rests_on(store, "RTE-5", set_id=RUN).results)
    assert answer == [14, 15]  # both bullets under the heading (12), neither writes RTE-5; not line 19
    assert Counter(f.code for f in check(store, set_id=RUN).findings) == {"undeclared-record": 2}  # RTE-5, OBJ-1


# -- item 12: the accounting invariant -----------------------------------------------------------------


def test_an_unknown_form_is_reported_as_unaccounted(store):
    # a link whose anchor names no record takes OBJ-3 for a named reference: OBJ-3 is lost
    stored(store, "\n## Runtime account\n\nIt reads [see OBJ-3](result.md#runtime-account) and RTE-1.\n")
    assert findings(store, "unaccounted-record-id") == [
        (10, "OBJ-3 is neither cited, declared, aliased nor ignored here: a form the parser does not read")]
    (row,) = stats_of_set(store, RUN).sets
    assert row.unaccounted == 1


def test_quoted_code_and_declared_ids_are_accounted():
    assert unaccounted_ids("code", "OBJ-1", ()) == []
    assert unaccounted_ids("table_row", "| OBJ-1 | x |", (), {"OBJ-1"}) == []
    assert unaccounted_ids("paragraph", "MEM-OBJ-1 → OBJ-9", (), {"MEM-OBJ-1", "OBJ-9"}) == []
    assert unaccounted_ids("paragraph", "See OBJ-1.", extract_citations("See OBJ-1.")) == []


def test_every_real_document_accounts_for_every_record_id():
    from tests.analysis_sets import stage
    from tests.conftest import CORPUS

    store, _ = stage(CORPUS)
    assert [f for f in check(store).findings if f.code == "unaccounted-record-id"] == []
    assert sum(row.unaccounted for row in stats(store).sets) == 0


# -- item 11: ordinary parentheses name nothing --------------------------------------------------------


def test_prose_in_a_citation_group_is_no_named_reference():
    text = "The counts grew (about 11; RTE-1), see (workflow account, RTE-2)."
    assert [(c.target_kind, c.target) for c in extract_citations(text)] == [
        ("record", "RTE-1"), ("named", "workflow account"), ("record", "RTE-2")]


def test_a_ledger_heading_in_plain_text_cites_as_in_markdown(store):
    from ingest.parsers.plaintext import parse_plaintext
    from queries.documents import document_tree
    from render.to_plaintext import plaintext_of

    stored(store, "\n## Lens outputs\n\n### Epistemic lens\n\n#### RTE-5 — acceptance\n\n- Keeps the grade.\n"
                  "- Also OBJ-1.\n\n#### Other\n\n- Unrelated.\n")
    text = plaintext_of(document_tree(store, f"{RUN}/result"))
    plain = parse_plaintext(text.encode(), "result.txt")
    cited = [(b.text, sorted(c.target for c in b.citations)) for b in plain.blocks if b.kind != "heading"]
    assert cited == [("Keeps the grade.", ["RTE-5"]), ("Also OBJ-1.", ["OBJ-1", "RTE-5"]), ("Unrelated.", [])]


# -- fresh-user B1, B2, A6: the looser shape, misread tokens, ignored spans, mixed en-dash ranges ---


def test_every_record_id_shaped_token_no_rule_reads_is_unaccounted(store):
    # the fresh user's forms (/tmp/fu-docs …/AAS-2026-09-28-acme-01/result.md 107, 114), one a line
    stored(store, "\n## Bounded synthesis\n\nRenamed RTE-2a, RTE-02b and RTE-9x.\n\nAudit: Rte-4, RTE_5, CMP\u20112.\n\n"
                  "Escaped RTE&#8209;2 in plain text.\n\n## Limitations\n\n| limitation | affected IDs |\n|---|---|\n"
                  "| Unnumbered | RTE-9x, SRC-1 |\n")
    unaccounted = [(line, message.split(" ", 1)[0]) for line, message in findings(store, "unaccounted-record-id")]
    # line 10 the three suffixed IDs; 12 case, `_`, U+2011; 14 `RTE‑2` (markdown-it decodes the
    # entity to U+2011); 20 the Limitations cell
    assert unaccounted == [(10, "RTE-2a"), (10, "RTE-02b"), (10, "RTE-9x"), (12, "Rte-4"), (12, "RTE_5"),
                           (12, "CMP\u20112"), (14, "RTE\u20112"), (20, "RTE-9x")]
    (row,) = stats_of_set(store, RUN).sets
    assert row.unaccounted == 8


def test_subsection_numbers_and_shorthand_lists_cite_nothing_they_do_not_name():
    text = "Split into RTE-2.1 and RTE-2.2; later OBJ-1,2,3 and RTE-1&2, then RTE-2."
    cited = [c.target for c in extract_citations(text) if c.target_kind == "record"]
    assert cited == ["OBJ-1", "RTE-1", "RTE-2"]  # the last RTE-2 only: `RTE-2.1` is no citation of it
    assert unaccounted_ids("paragraph", text, extract_citations(text)) == [
        "RTE-2.1", "RTE-2.2", "OBJ-1,2,3", "RTE-1&2"]
    # plain text keeps an entity no Markdown parser decoded; a mismatch marker is no record ID shape
    text = "Escaped RTE&#8209;2 and RTE&#x2011;3 beside EPI-M1."
    assert unaccounted_ids("paragraph", text, extract_citations(text)) == ["RTE&#8209;2", "RTE&#x2011;3"]


def test_ids_in_an_html_comment_or_a_url_are_ignored_occurrences():
    doc = parsed("\n## Bounded synthesis\n\nA comment <!-- RTE-2 --> and an autolink <https://example.org/RTE-1> "
                 "and https://example.org/OBJ-1, then OBJ-2.\n")
    (block,) = [b for b in doc.blocks if b.kind == "paragraph"]
    assert [c.target for c in block.citations if c.target_kind == "record"] == ["OBJ-2"]
    assert unaccounted_ids(block.kind, block.text, block.citations, *accounted_by(block)) == []


def test_a_numbered_id_opening_a_compound_modifier_is_cited():
    # mem0-01 result.md 615: `RTE-1-generated OBJ-1 and RTE-3-generated OBJ-2`
    text = "RTE-1-generated OBJ-1 and RTE-3-generated OBJ-2 reside in one collection."
    assert [c.target for c in extract_citations(text)] == ["RTE-1", "OBJ-1", "RTE-3", "OBJ-2"]
    assert unaccounted_ids("paragraph", text, extract_citations(text)) == []


def test_g0_proposal_ids_are_records(store):
    from ingest.pipeline import ingest_paths
    from tests.ingest.test_knowledge_base import G0, G0_RUN

    ingest_paths(store, [G0])
    # lens-memory.md 10 declares MEM-1 in its `| ID | Proposal | Basis |` table (the declaring row
    # is no citation of it); reconciliation.md 3 and result.md 28 cite it
    declared = {s.get("record_id"): s.get("line") for s in store.find_nodes(Label.SECTION, set_id=G0_RUN)
                if s.get("kind") == "declaration"}
    assert declared["MEM-1"] == 10
    assert sorted(r.statement for r in rests_on(store, "MEM-1", set_id=G0_RUN).results) == [
        f"{G0_RUN}/reconciliation#L3", f"{G0_RUN}/result#L28"]
    record = store.get_nodes([f"{G0_RUN}/MEM-1"])[f"{G0_RUN}/MEM-1"]
    assert (record.get("analyst"), record.get("kind"), record.get("slug")) == ("MEM", "proposal", "1")
    assert extract_citations("EPI-M1 is a mismatch marker.") == ()
    doc = parsed("\n## Reconciliation\n\nKept [MEM-1](#mem-1).\n")  # a link to its anchor, lower(ID)
    (block,) = [b for b in doc.blocks if b.kind == "paragraph"]
    assert [(c.target, c.form, c.anchor) for c in block.citations] == [("MEM-1", "link", None)]


def test_a_mixed_kind_en_dash_range_cites_its_ends_with_a_warning(store):
    stored(store, "\n## Runtime account\n\nA mixed range RTE-1–OBJ-3, and CMP-1 through RTE-3 (via).\n")
    statement = f"{RUN}/result#L10"
    cited = store.edges([statement], kinds=[EdgeKind.CITES], direction=Direction.OUT)[statement]
    assert sorted(e.dst.rsplit("/", 1)[1] for e in cited) == ["CMP-1", "OBJ-3", "RTE-1", "RTE-3"]
    assert findings(store, "record-range") == [
        (10, "record range 'RTE-1–OBJ-3' cannot be expanded exactly (its ends differ in analyst or kind): "
             "only its ends are cited")]


# -- fresh-user B5: a G0 route table's Status column states the route's status ---------------------


def test_a_status_column_states_the_status_of_the_route_its_row_declares(store):
    from ingest.parsers.plaintext import parse_plaintext
    from ingest.pipeline import ingest_paths
    from queries.documents import document_tree
    from render.to_plaintext import plaintext_of
    from tests.ingest.test_knowledge_base import G0, G0_RUN

    ingest_paths(store, [G0])
    # result.md 21 `| ID | Route | Status |`, 23 `| RTE-01 | Task loop writes a summary through `CMP-02` | wired |`
    row = store.get_nodes([f"{G0_RUN}/result#L23"])[f"{G0_RUN}/result#L23"]
    assert row.get("statuses") == [["Status", "wired"]]
    assert [f for f in check(store, set_id=G0_RUN).findings if f.code.startswith("status")] == []
    text = plaintext_of(document_tree(store, f"{G0_RUN}/result"))
    (plain,) = [b for b in parse_plaintext(text.encode(), "result.txt").blocks if props_of(b).get("declares") == "RTE-01"]
    assert props_of(plain)["statuses"] == [["Status", "wired"]]


def test_a_status_column_outside_the_vocabulary_is_refused(store):
    stored(store, "\n## Routes\n\n| ID | Route | Status |\n|---|---|---|\n| RTE-01 | Loop | planned |\n")
    assert findings(store, "status-value") == [
        (12, "RTE-01: Status 'planned' is not one of absent, afforded, causally supported, claimed, "
             "inapplicable, observed, uninspected, wired")]
    assert findings(store, "status-missing") == []
