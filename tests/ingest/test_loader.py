"""Loading the seeds into the graph: the seeds issue's facts, idempotency, replacement, bad input."""

from __future__ import annotations

import shutil

import pytest

from graph.errors import ParseError
from graph.model import EdgeKind, Label
from graph.store import Direction
from graph.stores.sqlite import SQLiteStore
from tests.whole_input import read_members
from ingest.loader import ingest_parsed
from queries.stats import stats
from tests.conftest import SEED_SYNTHESIS, SEED_WORKFLOW, SEEDS, ingest_into

TOLARIA_FILES = (
    "mcp-server/index.js", "mcp-server/tool-service.js", "mcp-server/vault.js", "src-tauri/src/codex_cli.rs",
    "src/lib/aiAgentConversation.ts", "src/lib/aiAgentSession.ts", "src/lib/aiAgentStreamCallbacks.ts",
    "src/utils/ai-agent.ts", "src/utils/streamAiAgent.ts",
)


def record_occurrences(store, document_id: str) -> int:
    """Record-ID occurrences in one document: record citations plus annotation headings."""
    statements = [n.id for n in store.find_nodes(Label.STATEMENT, document_id=document_id)]
    cites = store.edges(statements, kinds=[EdgeKind.CITES], direction=Direction.OUT)
    headings = store.find_nodes(Label.SECTION, document_id=document_id, where={"kind": "annotation"})
    return sum(1 for es in cites.values() for e in es if e.props["target_kind"] == "record") + len(headings)


def test_documents_and_sets(seeds_store):
    docs = seeds_store.find_nodes(Label.DOCUMENT)
    assert [(d.id, d.set_id, d.get("role")) for d in docs] == [
        ("talorys/synthesis", "talorys", "synthesis"),
        ("tolaria/synthesis", "tolaria", "synthesis"),
        ("tolaria/workflow-report", "tolaria", "workflow-report"),
    ]
    assert [s.id for s in seeds_store.find_nodes(Label.ANALYSIS_SET)] == ["talorys", "tolaria"]
    assert [s.id for s in seeds_store.find_nodes(Label.SYSTEM)] == ["system/talorys", "system/tolaria"]


def test_record_counts_per_set(seeds_store):
    by_set = {s.set: s for s in stats(seeds_store).sets}
    assert (by_set["tolaria"].records, by_set["tolaria"].record_occurrences) == (24, 72)
    assert (by_set["talorys"].records, by_set["talorys"].record_occurrences) == (38, 58)
    assert record_occurrences(seeds_store, "tolaria/synthesis") == 57
    assert record_occurrences(seeds_store, "tolaria/workflow-report") == 15
    tolaria = {r.get("record_id") for r in seeds_store.find_nodes(Label.RECORD, set_id="tolaria")}
    talorys = {r.get("record_id") for r in seeds_store.find_nodes(Label.RECORD, set_id="talorys")}
    assert not tolaria & talorys


def test_source_files_and_quotations(seeds_store):
    assert stats(seeds_store).sets[1].source_files == TOLARIA_FILES
    assert seeds_store.find_nodes(Label.SOURCE_FILE, set_id="talorys") == []
    quotes = seeds_store.find_nodes(Label.QUOTATION, document_id="tolaria/workflow-report")
    assert sorted(q.get("path") for q in quotes) == [
        "mcp-server/index.js", "mcp-server/index.js", "mcp-server/vault.js", "src/lib/aiAgentStreamCallbacks.ts"]
    attributed = seeds_store.edges([q.id for q in quotes], kinds=[EdgeKind.ATTRIBUTED_TO], direction=Direction.OUT)
    assert {q.id: attributed[q.id][0].dst for q in quotes}["tolaria/workflow-report#Q39"] == "tolaria/file/mcp-server/vault.js"
    in_source = seeds_store.edges(["tolaria/file/mcp-server/vault.js"], kinds=[EdgeKind.IN_SOURCE], direction=Direction.OUT)
    assert [e.dst for e in in_source["tolaria/file/mcp-server/vault.js"]] == ["tolaria/SRC-1"]


def test_source_pins(seeds_store):
    pins = {s.id: (s.get("url"), s.get("commit"), s.get("cutoff")) for s in seeds_store.find_nodes(Label.SOURCE)}
    assert pins == {
        "talorys/SRC-1": ("https://github.com/rociiu/talorys", "c5da440010402ed4c1b9789ae22eab96a8f0f379", "2026-10-15"),
        "tolaria/SRC-1": ("https://github.com/refactoringhq/tolaria", "48f2a70844c1e8005a7aa5f1499c66f7678360de",
                          "2026-10-14"),
    }


def test_named_references_resolve_within_their_set(seeds_store):
    refs = seeds_store.find_nodes(Label.NAMED_REFERENCE)
    resolved = seeds_store.edges([r.id for r in refs], kinds=[EdgeKind.RESOLVES_TO], direction=Direction.OUT)
    assert {r: [e.dst for e in es] for r, es in resolved.items() if es} == {
        "tolaria/ref/workflow-account": ["tolaria/workflow-report#L5"]}
    assert resolved["talorys/ref/workflow-account"] == []
    assert len(refs) == 13


def test_reingesting_unchanged_documents_changes_nothing(tmp_path):
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    ingest_into(store, SEEDS)
    def files():
        return {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.endswith("-shm")}  # and WAL
    before = files()
    report = ingest_into(store, SEEDS)
    assert [d.status for d in report.documents] == ["unchanged"] * 3 and report.sets == ()
    assert files() == before


def test_changed_document_is_replaced_whole(tmp_path):
    folder = tmp_path / "seeds"
    shutil.copytree(SEEDS, folder)
    store = SQLiteStore(None)
    ingest_into(store, folder)
    workflow = folder / SEED_WORKFLOW.name
    text = workflow.read_text()
    # Drop the annotation on RT-RTE-mcp-write (its heading and body, the file's last lines).
    workflow.write_text(text[: text.index("\n\nOn RT-RTE-mcp-write")])
    report = ingest_into(store, folder)
    assert [(d.document, d.status) for d in report.documents if d.status == "written"] == [
        ("tolaria/workflow-report", "written")]
    assert store.get_nodes(["tolaria/workflow-report#L101", "tolaria/workflow-report#L99"]) == {}
    assert len(store.find_nodes(Label.STATEMENT, document_id="tolaria/workflow-report")) == 29
    # The synthesis and its resolution of "workflow account" survive the replacement.
    refs = store.edges(["tolaria/ref/workflow-account"], kinds=[EdgeKind.RESOLVES_TO], direction=Direction.OUT)
    assert [e.dst for e in refs["tolaria/ref/workflow-account"]] == ["tolaria/workflow-report#L5"]


def test_persisted_store_reopens_identically(tmp_path):
    path = tmp_path / "store" / "citegraph.sqlite"
    store = SQLiteStore(path)
    ingest_into(store, SEEDS)
    again = SQLiteStore(path)
    assert again.counts() == store.counts()
    assert again.find_nodes(Label.STATEMENT) == store.find_nodes(Label.STATEMENT)
    assert sorted(p.name for p in path.parent.iterdir()) == [  # no temporary file
        "citegraph.sqlite", "citegraph.sqlite-shm", "citegraph.sqlite-wal"]
    store.close(), again.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["citegraph.sqlite"]  # the last close folds the WAL in


def test_folder_with_one_bad_file_ingests_nothing(tmp_path):
    folder = tmp_path / "in"
    shutil.copytree(SEEDS, folder)
    (folder / "zz_bad.txt").write_bytes(b"Bad member\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n\xff\xfe")
    store = SQLiteStore(tmp_path / "citegraph.sqlite")
    with pytest.raises(ParseError) as info:
        ingest_parsed(store, read_members([folder]).parsed)
    assert info.value.source.path.endswith("zz_bad.txt") and info.value.source.line == 3
    assert store.counts()["nodes"] == 0 and not (tmp_path / "citegraph.sqlite").exists()


def test_skip_invalid_ingests_the_rest(tmp_path):
    folder = tmp_path / "in"
    shutil.copytree(SEEDS, folder)
    (folder / "broken.txt").write_bytes(b"Title\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n\xff")
    read = read_members([folder], skip_invalid=True)
    report = ingest_parsed(SQLiteStore(None), read.parsed, errors=read.errors)
    assert [(d.status, d.document) for d in report.documents] == [
        ("written", "tolaria/synthesis"), ("written", "tolaria/workflow-report"), ("written", "talorys/synthesis"),
        ("skipped", None)]
    assert report.documents[-1].error.endswith("broken.txt:3: invalid UTF-8 at byte 70")  # "Title\n" is 6 bytes, the Type: line 64


def test_same_document_twice_in_one_run_is_refused(tmp_path):
    (tmp_path / "copy.txt").write_bytes(SEED_SYNTHESIS.read_bytes() + b"\nextra paragraph.")
    with pytest.raises(Exception, match="both document tolaria/synthesis"):
        ingest_parsed(SQLiteStore(None), read_members([SEED_SYNTHESIS, tmp_path / "copy.txt"]).parsed)
