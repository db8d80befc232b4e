"""The one ingest engine (``ingest.stream``, behind ``ingest.pipeline``: ``citegraph ingest``, uploads,
``check PATHS``): one analysis set parsed, checked and written at a time, with exactly the report,
errors and graph of one assembly of the whole input (the reference in ``tests.whole_input``), for
files on disk and held in memory alike, and the run still all or nothing."""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
import tracemalloc
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import ingest.sets as sets
import ingest.stream as stream
from bench.generate import generate
from graph.errors import CitegraphError, IngestError
from graph.model import Label
from graph.stores import open_embedded
from ingest.loader import ingest_parsed, ingest_stream
from ingest.pipeline import ingest_files, ingest_paths, stage_paths
from tests.whole_input import read_inputs, read_members, read_sets
from tests.analysis_sets import DC, DC_ARCHIVE, DC_RETAINED, G2, G2_SET, G4, copy_set, edit, mixed_inputs
from tests.conftest import ROOT, SEED_SYNTHESIS, SEED_TALORYS, SEEDS

LABELS = list(Label)


def whole_run(store, paths, *, skip_invalid=False):
    """The path ``citegraph ingest`` took before: every member parsed, then written."""
    read = read_members(list(paths), skip_invalid=skip_invalid)
    return ingest_parsed(store, read.parsed, errors=read.errors, gaps=read.gaps, manifests=read.manifests,
                         skipped=read.skipped)


def content(store) -> tuple:
    """Everything a store holds, comparable."""
    return store.counts(), [store.find_nodes(label) for label in LABELS]


def outcome(run, store, paths, **kwargs):
    """(report or the error as (type, message, hint, source)), and what the store then holds."""
    try:
        result = run(store, paths, **kwargs)
    except CitegraphError as exc:
        result = (type(exc), exc.message, exc.hint, exc.source)
    return result, content(store)


class WithoutBulk:
    """A real embedded store seen without its ``bulk()``: each set is its own transaction, as on
    Neo4j."""

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name):
        if name == "bulk":
            raise AttributeError(name)
        return getattr(self._store, name)


def test_seeds_and_a_markdown_set_write_what_the_whole_run_path_writes():
    paths = [SEEDS, DC_RETAINED, DC_ARCHIVE]
    streamed, whole = open_embedded(None), open_embedded(None)
    report = ingest_paths(streamed, paths)
    assert report == whole_run(whole, paths)
    assert report.sets == ("tolaria", "talorys", DC)
    # the 9 members, then the Dynamic Cheatsheet's ARTIFACT.yaml, consumed by its set
    assert [d.status for d in report.documents] == ["written"] * 9 + ["manifest"]
    assert report.documents[-1].path == str(DC_RETAINED / "ARTIFACT.yaml")
    assert report.documents[-1].note == f"the manifest of set {DC}, pinning 6 members"
    counts = streamed.counts()
    assert (counts["nodes"], counts["edges"], counts["Document"], counts["Statement"], counts["CITES"]) == \
        (738, 1395, 9, 467, 646)
    assert content(streamed) == content(whole)


# Inputs that go wrong in every way set assembly knows; each is ingested both ways into a store
# that already holds the seeds, and must end the same (report, or error word for word, and store).

def _flipped_pin(tmp):
    retained, archive = copy_set(DC_RETAINED, tmp / "retained"), copy_set(DC_ARCHIVE, tmp / "archive")
    data = bytearray((archive / "runtime.md").read_bytes())
    data[500] ^= 0x01
    (archive / "runtime.md").write_bytes(bytes(data))
    return [G2, retained, archive]


def _missing_member(tmp):
    retained, archive = copy_set(DC_RETAINED, tmp / "retained"), copy_set(DC_ARCHIVE, tmp / "archive")
    (archive / "memory.md").unlink()
    return [retained, archive, G4]


def _mixed(tmp):
    return mixed_inputs(tmp)


def _declared_twice(tmp):
    retained, archive = copy_set(DC_RETAINED, tmp / "retained"), copy_set(DC_ARCHIVE, tmp / "archive")
    edit(archive, "epistemic.md", "#### EPI-OBJ-answer — Extracted final answer",
         "#### RT-OBJ-cheatsheet — Extracted final answer", manifest_folder=retained)
    return [G4, retained, archive]


def _bad_seed(tmp):
    folder = copy_set(SEEDS, tmp / "seeds")
    (folder / "zz_bad.txt").write_bytes(b"Bad member\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n\xff\xfe")
    (folder / "empty.txt").write_bytes(b"")
    return [G2, folder]


def _same_member_twice(tmp):
    (tmp / "copy.txt").write_bytes(SEED_SYNTHESIS.read_bytes() + b"\nextra paragraph.")
    return [SEED_SYNTHESIS, tmp / "copy.txt", G2]


def _changed_seed(tmp):
    folder = copy_set(SEEDS, tmp / "seeds")
    workflow = folder / "001_12342d341e774cc9.txt"
    workflow.write_text(workflow.read_text() + "\n\nA new closing paragraph.")
    return [folder, G2]


def _no_members(tmp):
    (tmp / "notes").mkdir()
    (tmp / "notes" / "NOTICE.md").write_text("# Not a member\n")
    return [tmp / "notes"]


SCENARIOS = [_flipped_pin, _missing_member, _mixed, _declared_twice, _bad_seed, _same_member_twice, _changed_seed,
             _no_members]


def ingest_held(store, paths, **kwargs):
    """The files under ``paths`` ingested as an upload: held in memory."""
    return ingest_files(store, read_inputs(paths), **kwargs)


@pytest.mark.parametrize("skip_invalid", [False, True], ids=["strict", "skip-invalid"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__.strip("_"))
@pytest.mark.parametrize("bulk", [True, False], ids=["bulk", "set-by-set"])
@pytest.mark.parametrize("run", [ingest_paths, ingest_held], ids=["on-disk", "held"])
def test_every_refusal_and_report_is_the_whole_run_paths(tmp_path, run, scenario, skip_invalid, bulk):
    paths = scenario(tmp_path)
    stores = []
    for _ in range(2):
        store = open_embedded(None)
        whole_run(store, [SEEDS])
        stores.append(store if bulk else WithoutBulk(store))
    streamed = outcome(run, stores[0], paths, skip_invalid=skip_invalid)
    assert streamed == outcome(whole_run, stores[1], paths, skip_invalid=skip_invalid)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__.strip("_"))
def test_staging_writes_every_member_and_names_every_problem_of_the_whole_input(tmp_path, scenario):
    paths = scenario(tmp_path)
    staged, whole = open_embedded(None), open_embedded(None)
    assembly = read_sets(paths, workers=1)
    if not assembly.documents:
        with pytest.raises(IngestError) as staging:
            stage_paths(staged, paths, workers=1)
        with pytest.raises(IngestError) as ingesting:
            ingest_paths(whole, paths, workers=1)
        assert (str(staging.value), staging.value.hint) == (str(ingesting.value), ingesting.value.hint)
        return
    try:
        ingest_parsed(whole, list(assembly.documents))
    except IngestError as exc:  # one document given twice
        with pytest.raises(IngestError) as refused:
            stage_paths(staged, paths, workers=1)
        assert refused.value.message == exc.message and " are both document " in exc.message
        return
    def shown(problems):  # the error object itself is another instance of the same error
        return [(replace(p, error=None), type(p.error), str(p.error)) for p in problems]

    assert shown(stage_paths(staged, paths, workers=1)) == shown(assembly.problems)
    assert content(staged) == content(whole)
    assert content(staged)[0]["Document"] == len(assembly.documents)


def test_a_refused_later_set_keeps_nothing_of_the_run(tmp_path):
    home = tmp_path / "home"
    store = open_embedded(home)
    whole_run(store, [SEEDS])
    before = content(store)
    paths = _flipped_pin(tmp_path)  # G2 is fine and comes first; the Dynamic Cheatsheet set is refused
    events = []
    with pytest.raises(IngestError, match="differs from the pin e91ecc48"):
        ingest_paths(store, paths, workers=1, observe=lambda event, names: events.append((event, names[0])))
    assert ("load", G2_SET) in events  # G2 was written inside the run's transaction, then rolled back
    assert content(store) == before
    assert content(open_embedded(home)) == before
    assert store.find_nodes(Label.DOCUMENT, set_id=G2_SET) == []


def test_without_bulk_a_refused_set_is_found_before_anything_is_written(tmp_path):
    store = open_embedded(None)
    whole_run(store, [SEEDS])
    before = content(store)
    events = []
    with pytest.raises(IngestError, match="differs from the pin e91ecc48"):
        ingest_paths(WithoutBulk(store), _flipped_pin(tmp_path), workers=1,
                     observe=lambda event, names: events.append(event))
    assert events == [] and content(store) == before


def test_a_document_id_repeated_in_a_later_group_keeps_nothing_of_the_run(tmp_path):
    store = open_embedded(tmp_path / "home")
    before = content(store)
    (tmp_path / "copy.txt").write_bytes(SEED_SYNTHESIS.read_bytes() + b"\nextra paragraph.")
    seeds = read_members([SEEDS]).parsed
    (again,) = read_members([tmp_path / "copy.txt"]).parsed
    groups = [[d for d in seeds if d.system == "Tolaria"], [d for d in seeds if d.system != "Tolaria"], [again]]
    with pytest.raises(IngestError, match="both document tolaria/synthesis"):
        ingest_stream(store, iter(groups))
    assert content(store) == before and content(open_embedded(tmp_path / "home")) == before


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Six generated sets (44 files), one folder each with its manifest."""
    return generate(tmp_path_factory.mktemp("gen") / "c", sets=6, seed=5, workers=1).corpus


@pytest.fixture(scope="module")
def whole(corpus) -> tuple:
    """What one assembly of the whole corpus stores: the reference both streaming runs must equal."""
    store = open_embedded(None)
    whole_run(store, [corpus])
    return content(store)


def test_each_set_is_parsed_just_before_it_is_written(corpus, whole):
    events = []
    store = open_embedded(None)
    report = ingest_paths(store, [corpus], workers=1, observe=lambda event, names: events.append((event, names)))
    folders = sorted(p for p in corpus.iterdir() if p.is_dir())
    assert len(report.sets) == 6 == len(folders)
    assert [e for e, _ in events] == ["parse", "load"] * 6  # strictly alternating: one set in memory
    for (_, parsed), (_, (set_id, *loaded)) in zip(events[::2], events[1::2]):
        assert len({Path(p).parent for p in parsed}) == 1  # one folder, one set
        assert sorted(loaded) == sorted(p for p in parsed if p.endswith(".md"))
        assert {d.set_id for d in store.find_nodes(Label.DOCUMENT, set_id=set_id)} == {set_id}
    assert content(store) == whole


def test_without_bulk_each_member_is_parsed_once_with_the_events_of_a_bulk_run(corpus, whole, monkeypatch):
    """A store writing set by set (Neo4j) checks every set before its first write, then writes the
    sets that check kept (``ingest.stream._Spill``), not a second parse: each member file is
    parsed once, the observer sees what it sees on a store writing the run in one transaction,
    and the graph is the same."""
    bulk_events: list[tuple[str, tuple[str, ...]]] = []
    ingest_paths(open_embedded(None), [corpus], workers=1, observe=lambda event, names: bulk_events.append((event, names)))
    parsed: list[str] = []
    real = stream.read_one

    def counted(candidate):
        parsed.append(candidate[0].path)
        return real(candidate)

    monkeypatch.setattr(stream, "read_one", counted)
    events: list[tuple[str, tuple[str, ...]]] = []
    store = open_embedded(None)
    report = ingest_paths(WithoutBulk(store), [corpus], workers=1, observe=lambda event, names: events.append((event, names)))
    assert len(report.sets) == 6 and len(parsed) == len(set(parsed)) == 38  # 44 files, 6 of them manifests
    assert events == bulk_events
    assert content(store) == whole


def pooled(corpus: Path | str) -> tuple[list[str], int, tuple]:
    """Ingest ``corpus`` with two parser processes taking chunks of two files: (the first and last
    event, the most files parsed ahead of the writer, what the store then holds)."""
    saved = sets.PARALLEL_MIN_FILES, stream.CHUNK
    sets.PARALLEL_MIN_FILES, stream.CHUNK = 2, 2
    try:
        events: list[tuple[str, int]] = []
        store = open_embedded(None)
        ingest_paths(store, [Path(corpus)], workers=2,
                     observe=lambda event, names: events.append((event, len(names) - 1)))
    finally:
        sets.PARALLEL_MIN_FILES, stream.CHUNK = saved
    ahead, most = 0, 0
    for event, n in events:
        ahead += n if event == "parse" else -n
        most = max(most, ahead)
    return [events[0][0], events[-1][0]], most, content(store)


def test_a_parser_pool_runs_a_bounded_way_ahead(corpus, whole):
    if not sets.sys.platform.startswith("linux"):
        pytest.skip("parser processes are forked on Linux only")
    if threading.active_count() > 1:  # ingest never forks beside a thread: run it in a process with none
        code = ("import pickle, sys; from tests.ingest.test_streaming import pooled; "
                "sys.stdout.buffer.write(pickle.dumps(pooled(sys.argv[1])))")
        run = subprocess.run([sys.executable, "-c", code, str(corpus)], cwd=ROOT, capture_output=True, timeout=300)
        assert run.returncode == 0, run.stderr.decode()
        ends, most, held = pickle.loads(run.stdout)
    else:
        ends, most, held = pooled(corpus)
    assert ends == ["parse", "load"]
    assert most <= 2 * 2 * 2 + 8  # the pool's look-ahead (2 × chunk × workers) plus one set
    assert held == whole


def test_peak_memory_is_one_set_not_the_run(tmp_path):
    """Sets of one size (copies of a seed, each naming its own system): the whole-run path's peak
    grows with their number, the streaming one's stays that of one set (plus a few hundred bytes
    of bookkeeping per file)."""
    seed = SEED_TALORYS.read_text()

    def copies(n: int) -> Path:
        folder = tmp_path / f"x{n}"
        folder.mkdir()
        for k in range(n):
            (folder / f"{k:03}.txt").write_text(seed.replace("Talorys synthesis", f"Talorys{k} synthesis", 1))
        return folder

    def peak(run, folder: Path) -> int:
        # without versions: each write's encoding of its set (zlib state, about 0.4 MB here) is one
        # set's constant on every path, which the bench measures; this measures what the run holds.
        # Another set is written first, so the store's property dictionaries (their deflate state,
        # about 75 KB each) are made before the run, as in any store that holds a set
        store = open_embedded(None, versions_kept=0)
        ingest_paths(store, [SEED_SYNTHESIS], workers=1)
        tracemalloc.start()
        try:
            report = run(store, [folder])
            assert len(report.sets) == len(list(folder.iterdir()))
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    streaming = lambda store, paths: ingest_paths(store, paths, workers=1)  # noqa: E731
    few, many = copies(10), copies(40)
    peak(streaming, few)  # the first run in a process also fills caches (compiled patterns, parsers)
    whole_many, streaming_many = peak(whole_run, many), peak(streaming, many)
    assert whole_many > 3 * peak(whole_run, few)
    assert streaming_many < 1.5 * peak(streaming, few)
    assert streaming_many < whole_many / 5


def test_unchanged_members_are_read_from_their_own_set(tmp_path):
    store = open_embedded(None)
    whole_run(store, [SEEDS, G2])
    calls: list[tuple[Any, ...]] = []  # (method, its arguments)

    class Watched(WithoutBulk):
        def find_nodes(self, label, **kwargs):
            calls.append(("find_nodes", label, kwargs.get("set_id")))
            return self._store.find_nodes(label, **kwargs)

        def get_nodes(self, ids):
            calls.append(("get_nodes", tuple(sorted(ids))))
            return self._store.get_nodes(ids)

    report = ingest_paths(Watched(store), [G2])
    assert {d.status for d in report.documents} == {"unchanged", "manifest"} and report.sets == ()
    assert all(c[0] != "find_nodes" or c[2] is not None for c in calls)  # never every document of the store
    assert ("get_nodes", tuple(sorted(f"{G2_SET}/{d.role}" for d in read_members([G2]).parsed))) in calls


@pytest.mark.parametrize("skip_invalid", [False, True], ids=["strict", "skip-invalid"])
def test_a_manifest_voted_into_a_set_elsewhere_is_grouped_again(tmp_path, skip_invalid):
    """Every member beside the G2 manifest states its run-id but has lost its `# title`, so none
    parses: the manifest's set is then voted by members of the names it pins anywhere in the input
    (the Dynamic Cheatsheet's), which the grouping by first lines did not foresee. The group's
    assembly says so, the run is grouped again (after a rollback), and ends as the whole run does."""
    g2 = copy_set(G2, tmp_path / "g2")
    for member in g2.glob("*.md"):
        lines = member.read_text().split("\n")
        member.write_text("\n".join(line for line in lines if not line.startswith("# ")))
    paths = [g2, DC_RETAINED, DC_ARCHIVE, SEEDS]
    parsed = []
    observed = lambda event, names: parsed.extend(names) if event == "parse" else None  # noqa: E731
    streamed = outcome(lambda *a, **k: ingest_paths(*a, observe=observed, workers=1, **k), open_embedded(None),
                       paths, skip_invalid=skip_invalid)
    assert streamed == outcome(whole_run, open_embedded(None), paths, skip_invalid=skip_invalid)
    assert parsed.count(str(g2 / "ARTIFACT.yaml")) == 2  # grouped alone, then with the set that votes for it


def test_a_file_changed_while_the_run_reads_starts_the_run_again(tmp_path):
    folder = copy_set(SEEDS, tmp_path / "seeds")
    talorys = folder / SEED_TALORYS.name
    parsed = []

    def observe(event, names):
        if event == "parse":
            parsed.append(names)
            if len(parsed) == 1:  # after the plan, before the talorys group is read
                talorys.write_text(talorys.read_text() + "\n\nA paragraph added while the run reads.")

    store = open_embedded(None)
    report = ingest_paths(store, [folder], workers=1, observe=observe)
    whole = open_embedded(None)
    assert report == whole_run(whole, [folder]) and content(store) == content(whole)
    assert [len(names) for names in parsed] == [2, 2, 1]  # tolaria, then (grouped again) tolaria and talorys
    assert any("added while the run reads" in n.get("text", "") for n in store.find_nodes(Label.STATEMENT))
