"""Whole analysis sets: assembly from several folders by run-id and manifest, SHA-256 pins, all or
nothing ingest, and every fact the Dynamic Cheatsheet set's report states about it."""

from __future__ import annotations

from collections import Counter

import pytest

from graph.errors import DuplicateDeclaration, IngestError, ParseError
from graph.model import EdgeKind, Label
from graph.store import Direction
from graph.stores.sqlite import SQLiteStore
from tests.whole_input import read_members, read_sets
from ingest.loader import ingest_parsed
from queries.traversal import rests_on
from queries.validation import check
from tests.analysis_sets import (
    DC,
    DC_ARCHIVE,
    DC_RETAINED,
    DYNAMIC_CHEATSHEET,
    G2,
    G2_SET,
    G4,
    G4_SET,
    IM01,
    KB,
    copy_set,
    edit,
    load,
    stage,
)
from tests.conftest import CORPUS, SEEDS, ingest_into

BOUNDARY = "5cfe3c37e8e52b1d858d0f3df46e7f17c50991b9"


@pytest.fixture(scope="module")
def dc():
    """The Dynamic Cheatsheet set and the seeds, in one in-memory store (read-only)."""
    return load(SEEDS, *DYNAMIC_CHEATSHEET)


def statements_under(store, section_id: str) -> list:
    contained = store.edges([section_id], kinds=[EdgeKind.CONTAINS], direction=Direction.OUT)[section_id]
    return sorted(store.get_nodes([e.dst for e in contained]).values(), key=lambda n: n.get("order"))


# -- facts of the Dynamic Cheatsheet set --------------------------------------------------------------------


def test_six_members_one_set_pinned_and_verified(dc):
    docs = dc.find_nodes(Label.DOCUMENT, set_id=DC)
    assert sorted(d.get("role") for d in docs) == [
        "epistemic", "memory", "memory-profile", "overview", "reconciliation", "runtime"]
    assert {d.get("run_id") for d in docs} == {DC}
    assert {d.get("reviewed_boundary") for d in docs} == {BOUNDARY}
    assert all(d.get("pin_verified") is True and d.get("pinned_sha256") == d.get("sha256") for d in docs)
    assert {d.get("manifest") for d in docs} == {str(DC_RETAINED / "ARTIFACT.yaml")}
    analysis_set = dc.get_nodes([DC])[DC]
    assert (analysis_set.get("run_id"), analysis_set.get("reviewed_boundary")) == (DC, BOUNDARY)
    assert {d.set_id for d in dc.find_nodes(Label.DOCUMENT)} == {DC, "tolaria", "talorys"}


def test_source_register_declares_src_1(dc):
    (source,) = dc.find_nodes(Label.SOURCE, set_id=DC)
    assert (source.id, source.get("kind"), source.get("url"), source.get("commit"), source.get("declared")) == (
        f"{DC}/SRC-1", "git", "https://github.com/suzgunmirac/dynamic-cheatsheet", BOUNDARY, True)
    assert "doctrine/design: README.md" in source.get("evidence_layers")
    rows = dc.find_nodes(Label.STATEMENT, set_id=DC, where={"kind": "table_row", "table": "register"})
    assert [r.get("source_id") for r in rows] == ["SRC-1"]


def test_twenty_declarations(dc):
    declarations = dc.find_nodes(Label.SECTION, set_id=DC, where={"kind": "declaration"})
    by_member = Counter((d.document_id.split("/")[1], d.get("record_id").split("-")[1]) for d in declarations)
    assert len(declarations) == 20
    assert by_member == {("runtime", "CMP"): 1, ("runtime", "OBJ"): 2, ("runtime", "RTE"): 8, ("runtime", "BAP"): 2,
                         ("memory", "OBJ"): 1, ("epistemic", "OBJ"): 1, ("epistemic", "RTE"): 2,
                         ("epistemic", "CLM"): 3}
    memory = [d.get("record_id") for d in declarations if d.document_id == f"{DC}/memory"]
    assert memory == ["MEM-OBJ-generation-traces"]
    declared = dc.edges([f"{DC}/{d.get('record_id')}" for d in declarations], kinds=[EdgeKind.DECLARED_IN],
                        direction=Direction.OUT)
    assert sorted(e.dst for es in declared.values() for e in es) == sorted(d.id for d in declarations)
    labels = {e.src.split("/")[-1]: e.props["label"] for es in declared.values() for e in es}
    assert labels["RT-OBJ-cheatsheet"] == "Caller-carried cheatsheet"


def test_six_annotations_all_in_memory(dc):
    annotations = dc.find_nodes(Label.SECTION, set_id=DC, where={"kind": "annotation"})
    assert {a.document_id for a in annotations} == {f"{DC}/memory"}
    assert sorted(a.get("annotates") for a in annotations) == sorted([
        "RT-OBJ-cheatsheet", "RT-OBJ-retrieval-vectors", "RT-RTE-cumulative-update", "RT-RTE-retrieval-context",
        "RT-RTE-full-history", "RT-RTE-checkpoint-resume"])
    edges = dc.edges([a.id for a in annotations], kinds=[EdgeKind.ANNOTATES], direction=Direction.OUT)
    assert sorted(e.dst for es in edges.values() for e in es) == sorted(f"{DC}/{a.get('annotates')}" for a in annotations)


def test_twenty_six_quotations_with_their_source_paths(dc):
    quotations = dc.find_nodes(Label.QUOTATION, set_id=DC)
    assert len(quotations) == 26
    assert Counter(q.document_id.split("/")[1] for q in quotations) == {
        "runtime": 4, "memory": 10, "epistemic": 9, "overview": 3}
    attributed = dc.edges([q.id for q in quotations], kinds=[EdgeKind.ATTRIBUTED_TO], direction=Direction.OUT)
    assert all(len(attributed[q.id]) == 1 and attributed[q.id][0].dst == f"{DC}/file/{q.get('path')}"
               for q in quotations)
    assert Counter(q.get("path") for q in quotations)["run_benchmark.py"] == 11


def test_six_limitations_rows_one_register_row(dc):
    rows = dc.find_nodes(Label.STATEMENT, set_id=DC, where={"kind": "table_row"})
    tables = Counter(r.get("table") for r in rows)
    assert (tables["limitations"], tables["register"]) == (6, 1)


def test_each_route_has_seven_route_fields_and_both_statuses(dc):
    routes = [d for d in dc.find_nodes(Label.SECTION, set_id=DC, where={"kind": "declaration"})
              if "-RTE-" in d.get("record_id")]
    assert len(routes) == 10
    route_fields = ["Immediate return", "Later read-back", "Delegated visibility", "Selection predicate",
                    "Invalidation or expiry", "Activation or effect", "Evidence limits"]
    for route in routes:
        fields = [s for s in statements_under(dc, route.id) if s.get("kind") == "field"]
        labels = [f.get("label") for f in fields]
        assert all(labels.count(label) == 1 for label in route_fields), route.get("record_id")
        statuses = [tuple(x) for f in fields for x in f.get("statuses") or ()]
        assert statuses == [("implementation conclusion status", "wired"),
                            ("operation conclusion status", "uninspected")], route.get("record_id")


def test_no_amendment_and_no_unresolved_conflict(dc):
    kinds = Counter(s.get("kind") for s in dc.find_nodes(Label.STATEMENT, set_id=DC))
    assert (kinds["amendment"], kinds["conflict"]) == (0, 0)
    assert dc.counts()["SUPERSEDED_BY"] == 0 and dc.counts()["PART_OF"] == 0


def test_profile_findings_cite_records(dc):
    cites = dc.edges([f"{DC}/memory-profile"], kinds=[EdgeKind.CITES], direction=Direction.OUT)[f"{DC}/memory-profile"]
    assert len(cites) == 75 and {e.props["form"] for e in cites} == {"frontmatter"}
    assert Counter(e.dst for e in cites)[f"{DC}/RT-OBJ-cheatsheet"] == 9
    assert min(e.props["line"] for e in cites) == 16


def test_rests_on_the_cheatsheet(dc):
    report = rests_on(dc, "RT-OBJ-cheatsheet")
    assert report.records == (f"{DC}/RT-OBJ-cheatsheet",)
    assert {r.set for r in report.results} == {DC}
    annotation = f"{DC}/memory#L74"
    body = [r for r in report.results if r.section == annotation]
    assert [(r.block.kind, r.block.line, r.direct) for r in body] == [("field", n, True) for n in range(76, 83)] + [
        ("quotation", 84, True), ("quotation", 88, True)]
    (reconciliation,) = [r for r in report.results if r.document == f"{DC}/reconciliation" and r.direct]
    assert reconciliation.block.text.startswith("The runtime and memory members refer to the same caller-carried text")
    assert len(report.results) == 29


# -- assembling sets --------------------------------------------------------------------------


def test_walking_the_corpus_skips_non_members_each_with_its_reason():
    assembly = read_sets([CORPUS])
    paths = [d.path for d in assembly.documents]
    # 3 seeds; Markdown: Dynamic Cheatsheet 6, Instinctual Memory 01 5, its rewrite 2, an October review,
    # six September reviews, 5 G1 results
    assert len(paths) == 28 and sum(p.endswith(".md") for p in paths) == 25
    assert not any("/types/" in p or "/instructions/" in p or p.endswith("NOTICE.md") for p in paths)
    # kb/agentic-system-analyses/types/ holds 14 type definitions and their 14 schemas, instructions/ 3
    # notes; NOTICE.md has no frontmatter, retained-archive/.commonplace-validation-ignore is hidden
    assert {p.severity for p in assembly.problems} == {"skipped"}
    assert Counter(p.code for p in assembly.problems) == {"type-definition": 28, "instruction": 3, "not-a-document": 2}
    assert sorted(p.path.rsplit("/", 1)[1] for p in assembly.problems if p.code == "not-a-document") == [
        ".commonplace-validation-ignore", "NOTICE.md"]
    assert [m.path for m in assembly.manifests] == [
        str(DC_RETAINED / "ARTIFACT.yaml"), str(IM01 / "ARTIFACT.yaml")]


def test_members_of_one_set_come_from_two_folders():
    assembly = read_sets([DC_ARCHIVE, DC_RETAINED])
    assert {(d.set_id, d.pinning is not None and d.pinning.verified) for d in assembly.documents} == {(DC, True)}
    assert [d.identity and d.identity.file_name for d in assembly.documents] == [
        "epistemic.md", "memory.md", "runtime.md", "memory-profile.md", "overview.md", "reconciliation.md"]


def test_a_non_member_given_by_path_is_skipped_as_in_a_folder_and_refused_when_strict():
    runtime_type = KB / "types" / "agentic-system-runtime-report.md"
    given = read_members([SEEDS, CORPUS / "commonplace" / "NOTICE.md", runtime_type])
    assert given.skipped == [
        (str(CORPUS / "commonplace" / "NOTICE.md"), "not-a-document", "no analysis document: no frontmatter"),
        (str(runtime_type), "type-definition", "a type definition of the format (type 'types/type-spec.md')")]
    assert given.skipped == [s for s in read_members([CORPUS]).skipped if s[0] in {p for p, _, _ in given.skipped}]
    with pytest.raises(IngestError, match=r"no analysis-set members found in the input; a type definition"):
        read_members([runtime_type])
    with pytest.raises(ParseError, match="type definition of the format"):
        read_members([SEEDS, runtime_type], strict=True)


@pytest.fixture
def seeded(tmp_path):
    """A persisted store holding the seeds, to prove refused sets leave it intact."""
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    ingest_into(store, SEEDS)
    return store


def assert_intact(store) -> None:
    assert {d.set_id for d in store.find_nodes(Label.DOCUMENT)} == {"tolaria", "talorys"}
    assert len(rests_on(store, "RT-RTE-mcp-write").results) > 0
    assert store.find_nodes(Label.DOCUMENT, set_id=DC) == []


def dc_copy(tmp_path):
    retained = copy_set(DC_RETAINED, tmp_path / "retained")
    archive = copy_set(DC_ARCHIVE, tmp_path / "archive")
    return retained, archive


def test_flipping_one_byte_refuses_the_set(tmp_path, seeded):
    retained, archive = dc_copy(tmp_path)
    data = bytearray((archive / "runtime.md").read_bytes())
    data[500] ^= 0x01  # one ASCII letter changes case
    (archive / "runtime.md").write_bytes(bytes(data))
    with pytest.raises(IngestError) as info:
        ingest_parsed(seeded, read_members([retained, archive]).parsed)
    assert info.value.source is not None
    assert (info.value.source.path, info.value.source.line) == (str(archive / "runtime.md"), 1)
    assert "differs from the pin e91ecc48" in info.value.message
    assert f"at {retained / 'ARTIFACT.yaml'}:5" in info.value.message
    assert_intact(seeded)
    assert_intact(SQLiteStore(seeded.path))


def test_a_manifest_naming_a_missing_file_refuses_the_set(tmp_path, seeded):
    retained, archive = dc_copy(tmp_path)
    (archive / "memory.md").unlink()
    with pytest.raises(IngestError) as info:
        ingest_parsed(seeded, read_members([retained, archive]).parsed)
    assert "pins memory.md, which is not among the inputs" in info.value.message
    assert info.value.source is not None
    assert (info.value.source.path, info.value.source.line) == (str(retained / "ARTIFACT.yaml"), 7)
    assert_intact(seeded)


def test_a_member_the_manifest_does_not_pin_refuses_the_set(tmp_path, seeded):
    """Closed membership (GRAMMAR §2.2 rule 1): ingest refuses what check reports as an error."""
    folder = copy_set(IM01, tmp_path / "im01")
    manifest = folder / "ARTIFACT.yaml"
    lines = manifest.read_text().splitlines(keepends=True)
    manifest.write_text("".join(lines[:6] + lines[8:]))  # memory.md's pin (lines 7-8) dropped
    with pytest.raises(IngestError) as info:
        ingest_parsed(seeded, read_members([folder]).parsed)
    assert info.value.message == f"memory.md is not pinned by {manifest}"
    assert info.value.hint == "pin memory.md in the manifest (its SHA-256) or move it out of the set's folder."
    assert info.value.source is not None
    assert (info.value.source.path, info.value.source.line) == (str(folder / "memory.md"), 1)
    assert_intact(seeded)
    store, problems = stage(folder)
    assert [(f.code, f.file, f.line, f.message) for f in check(store, problems=problems).findings
            if f.severity == "error"] == [("unpinned-member", str(folder / "memory.md"), 0, info.value.message)]


def test_malformed_yaml_refuses_the_set(tmp_path, seeded):
    retained, archive = dc_copy(tmp_path)
    edit(archive, "epistemic.md", 'description: "Epistemic routes', 'description: Epistemic: routes', pin=False)
    with pytest.raises(ParseError) as info:
        ingest_parsed(seeded, read_members([retained, archive]).parsed)
    assert "malformed YAML frontmatter" in info.value.message
    assert info.value.source is not None
    assert (info.value.source.path, info.value.source.line) == (str(archive / "epistemic.md"), 3)
    assert_intact(seeded)


def test_an_unknown_member_type_refuses_the_set(tmp_path, seeded):
    retained, archive = dc_copy(tmp_path)
    edit(archive, "runtime.md", "agentic-system-runtime-report.md", "agentic-system-runtime-notes.md", pin=False)
    with pytest.raises(ParseError) as info:
        ingest_parsed(seeded, read_members([retained, archive]).parsed)
    assert "unknown member type" in info.value.message
    assert info.value.source is not None
    assert (info.value.source.path, info.value.source.line) == (str(archive / "runtime.md"), 2)
    assert_intact(seeded)


def test_two_members_declaring_one_id_refuse_the_set(tmp_path, seeded):
    retained, archive = dc_copy(tmp_path)
    edit(archive, "epistemic.md", "#### EPI-OBJ-answer — Extracted final answer",
         "#### RT-OBJ-cheatsheet — Extracted final answer", manifest_folder=retained)
    with pytest.raises(DuplicateDeclaration) as info:
        ingest_parsed(seeded, read_members([retained, archive]).parsed)
    assert f"RT-OBJ-cheatsheet is declared again; first declared at {archive / 'epistemic.md'}:84" in info.value.message
    assert info.value.source is not None
    assert (info.value.source.path, info.value.source.line) == (str(archive / "runtime.md"), 60)
    assert_intact(seeded)


def test_skip_invalid_ingests_the_other_sets(tmp_path):
    retained, archive = dc_copy(tmp_path)
    (archive / "memory.md").unlink()
    read = read_members([retained, archive, SEEDS], skip_invalid=True)
    store = SQLiteStore(None)
    report = ingest_parsed(store, read.parsed, errors=read.errors)
    assert set(report.sets) == {"tolaria", "talorys"}
    skipped = [d.path.removeprefix(f"{tmp_path}/") for d in report.documents if d.status == "skipped"]
    # the absent member where its manifest pins it, the five members of the refused set and its manifest
    assert skipped == ["retained/memory.md", "retained/memory-profile.md", "retained/overview.md",
                       "retained/reconciliation.md", "archive/epistemic.md", "archive/runtime.md",
                       "retained/ARTIFACT.yaml"]
    assert store.find_nodes(Label.DOCUMENT, set_id=DC) == []


def test_reingesting_the_set_changes_nothing(dc):
    report = ingest_parsed(dc, read_members(DYNAMIC_CHEATSHEET).parsed)
    assert {d.status for d in report.documents} == {"unchanged"} and report.sets == ()


# -- hand-written generations -----------------------------------------------------------------


def test_g2_set_graph():
    store = load(G2)
    docs = store.find_nodes(Label.DOCUMENT, set_id=G2_SET)
    assert len(docs) == 5 and all(d.get("pin_verified") for d in docs)
    records = {r.get("record_id"): r for r in store.find_nodes(Label.RECORD, set_id=G2_SET)}
    assert (records["RTE-3"].get("analyst"), records["RTE-3"].get("kind"), records["RTE-3"].get("slug")) == (None, "RTE", "3")
    declared = store.edges([r.id for r in records.values()], kinds=[EdgeKind.DECLARED_IN], direction=Direction.OUT)
    assert sorted(k.split("/")[-1] for k, es in declared.items() if es) == [
        "BAP-1", "CMP-1", "EPI-OBJ-1", "EPI-RTE-1", "MEM-OBJ-1", "OBJ-1", "RTE-3", "RTE-4"]
    amendments = store.find_nodes(Label.STATEMENT, set_id=G2_SET, where={"kind": "amendment"})
    assert [a.get("amends") for a in amendments] == ["RTE-4", "CMP-1"]
    assert store.counts()["SUPERSEDED_BY"] == 0
    sources = {s.get("source_id"): s.get("declared") for s in store.find_nodes(Label.SOURCE, set_id=G2_SET)}
    assert sources == {"SRC-1": True, "SRC-2": True}
    annotated = store.edges([f"{G2_SET}/OBJ-1"], kinds=[EdgeKind.ANNOTATES], direction=Direction.IN)[f"{G2_SET}/OBJ-1"]
    assert [e.src.split("#")[1] for e in annotated] == ["L52", "L54", "L55", "L57", "L59"]


def test_g4_set_graph_supersession_and_part_of():
    store = load(G4)
    assert len(store.find_nodes(Label.DOCUMENT, set_id=G4_SET)) == 8
    superseded = store.edges([f"{G4_SET}/MEM-RTE-reindex", f"{G4_SET}/RT-OBJ-blob"], kinds=[EdgeKind.SUPERSEDED_BY],
                             direction=Direction.OUT)
    assert {k.split("/")[-1]: sorted(e.dst.split("/")[-1] for e in es) for k, es in superseded.items()} == {
        "MEM-RTE-reindex": ["RT-RTE-index-write"], "RT-OBJ-blob": ["MEM-OBJ-index", "RT-OBJ-store"]}
    part = store.edges([f"{G4_SET}/MEM-OBJ-index"], kinds=[EdgeKind.PART_OF], direction=Direction.OUT)
    assert [(e.dst, e.props["statement"]) for e in part[f"{G4_SET}/MEM-OBJ-index"]] == [
        (f"{G4_SET}/RT-OBJ-store", f"{G4_SET}/memory#L30")]
    roles = sorted(d.get("role") for d in store.find_nodes(Label.DOCUMENT, set_id=G4_SET))
    assert roles == ["boundary", "epistemic", "memory", "memory-profile", "overview", "reconciliation",
                     "record-verification", "runtime"]
    resolved = store.edges([f"{G4_SET}/ref/record-verification", f"{G4_SET}/ref/boundary"],
                           kinds=[EdgeKind.RESOLVES_TO], direction=Direction.OUT)
    assert [e.dst for es in resolved.values() for e in es] == [f"{G4_SET}/record-verification", f"{G4_SET}/boundary"]


def test_citing_a_superseded_record_rests_on_its_successor():
    store = load(G4)
    report = rests_on(store, "RT-RTE-index-write")
    (write_side,) = [r for r in report.results if r.statement == f"{G4_SET}/memory#L78"]
    assert write_side.path == (f"{G4_SET}/memory#L78", f"{G4_SET}/MEM-RTE-reindex", f"{G4_SET}/RT-RTE-index-write")
    assert (write_side.depth, write_side.direct) == (2, False)
