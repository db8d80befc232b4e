"""Parsing fast: YAML composed once (libyaml when present), members parsed in a process pool.

Every test here pins an equality: the fast path gives exactly what the plain path gives, results
and errors alike (no timings are asserted).
"""

from __future__ import annotations

import os
import pickle
import threading
from pathlib import Path

import pytest
import yaml

import ingest.sets as sets
from tests.whole_input import read_inputs
from ingest.loader import block_props as props_of
from ingest.parsers import parse_member
from ingest.parsers import yamldoc
from ingest.parsers.markdown import parse_markdown, read_frontmatter
from ingest.parsers.plaintext import decode_member
from ingest.parsers.yamldoc import load_yaml
import tests.analysis_sets as analysis_sets
from tests.analysis_sets import DC_ARCHIVE, DC_RETAINED, G2, G4
from tests.conftest import SEEDS

MALFORMED_YAML = ["a: b: c", "a: [1, 2", "a: 'x", "- a\nb: c", "a:\n\tb: c", "{a: 1", "a: *x", "? [a]\n: 1",
                  "a: !!python/object:os.system x", "--- a\n--- b"]


def _error(text: str, **kwargs) -> tuple:
    try:
        load_yaml(text, **kwargs)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return type(exc).__name__, str(exc), mark.line if mark else None
    raise AssertionError(f"{text!r} loaded")


@pytest.mark.parametrize("text", MALFORMED_YAML)
def test_yaml_errors_are_the_pure_loaders(text, monkeypatch):
    fast = _error(text, dates_as_text=True), _error(text)
    monkeypatch.setattr(yamldoc, "_FAST", {False: None, True: None})  # PyYAML without libyaml
    assert fast == (_error(text, dates_as_text=True), _error(text))


def test_yaml_data_and_lines_match_the_pure_loader(monkeypatch):
    text = ("type: t.md\nrun-date: 2026-10-04\nwhen: '2026-10-04'\nn: 012\nf: 1.5\nok: yes\nnone: ~\n"
            "m:\n  a: {records: [RT-OBJ-x]}\n  records:\n  - runtime.md#rt-obj-y\nanchor: &a [1, 2]\nalias: *a\n")

    def lines(node):
        if isinstance(node, yaml.MappingNode):
            return [(k.start_mark.line, k.value, lines(v)) for k, v in node.value]
        if isinstance(node, yaml.SequenceNode):
            return [lines(v) for v in node.value]
        return (node.start_mark.line, node.tag, node.value)

    fast = [(lines(n), d) for n, d in (load_yaml(text, dates_as_text=True), load_yaml(text))]
    monkeypatch.setattr(yamldoc, "_FAST", {False: None, True: None})
    assert fast == [(lines(n), d) for n, d in (load_yaml(text, dates_as_text=True), load_yaml(text))]
    assert fast[0][1]["run-date"] == "2026-10-04" and fast[1][1]["run-date"].year == 2026


def test_frontmatter_read_by_the_caller_parses_the_same():
    for path in sorted(SEEDS.rglob("*.md")) + sorted(G2.glob("*.md")) + sorted(G4.glob("*.md")):
        data = path.read_bytes()
        text = decode_member(data, str(path))
        fm = read_frontmatter(text, str(path))
        if fm is None or not isinstance(fm.data.get("type"), str):
            continue
        assert parse_markdown(data, str(path), text=text, frontmatter=fm) == parse_member(data, str(path))


def test_parsed_documents_pickle_whole():
    docs = [parse_member(p.read_bytes(), str(p)) for p in (DC_ARCHIVE / "runtime.md", DC_RETAINED / "overview.md")]
    assert pickle.loads(pickle.dumps(docs)) == docs
    assert all(b.citations for b in pickle.loads(pickle.dumps(docs[0])).blocks if b.kind == "table_row"
               and props_of(b).get("table") == "ledger")


@pytest.fixture
def mixed_inputs(tmp_path) -> list:
    """Good sets and every kind of per-file problem, walked from folders."""
    return read_inputs(analysis_sets.mixed_inputs(tmp_path))


def _shape(assembly: sets.Assembly) -> tuple:
    """An assembly with each problem's exception as (type, message, hint, source)."""
    problems = [(p.code, p.severity, p.path, p.line, p.message, p.set_id, p.hint,
                 None if p.error is None else (type(p.error), p.error.message, p.error.hint, p.error.source))
                for p in assembly.problems]
    return assembly.documents, assembly.manifests, problems


_PID_LOG: list[Path] = []
_READ_ONE = sets.read_one


def _logged_read_one(candidate):
    """``sets.read_one`` that appends its process id to ``_PID_LOG[0]`` (module level, so a pool
    can pickle it; forked workers inherit the log path)."""
    with _PID_LOG[0].open("a") as f:
        f.write(f"{os.getpid()}\n")
    return _READ_ONE(candidate)


def test_a_pool_assembles_exactly_what_one_process_does(mixed_inputs, monkeypatch, tmp_path):
    if not sets.sys.platform.startswith("linux"):
        pytest.skip("parser processes are forked, on Linux only")
    serial = sets.assemble(mixed_inputs)
    assert any(p.code == "malformed-frontmatter" for p in serial.problems)
    monkeypatch.setattr(sets, "PARALLEL_MIN_FILES", 2)
    log = tmp_path / "pids.log"
    monkeypatch.setattr(sets, "read_one", _logged_read_one)
    monkeypatch.setattr(f"{__name__}._PID_LOG", [log])
    pooled = sets.assemble(mixed_inputs, workers=2)
    pids = {int(line) for line in log.read_text().split()}
    if threading.active_count() == 1:  # otherwise the pool is (rightly) not used
        assert os.getpid() not in pids
    assert _shape(pooled) == _shape(serial)


def test_small_inputs_and_one_worker_stay_in_process():
    assert sets.pool_size(None, sets.PARALLEL_MIN_FILES - 1) == 1
    assert sets.pool_size(1, 10_000) == 1
    assert sets.pool_size(4, 2) == 1


def test_an_unexpected_error_in_a_worker_surfaces_as_in_one_process(mixed_inputs, monkeypatch):
    monkeypatch.setattr(sets, "PARALLEL_MIN_FILES", 2)

    def broken(data, path, **kwargs):
        raise RuntimeError(f"parser bug on {path}")

    monkeypatch.setattr(sets, "parse_markdown", broken)
    with pytest.raises(RuntimeError, match="parser bug on ") as pooled:
        sets.assemble(mixed_inputs, workers=2)
    with pytest.raises(RuntimeError) as serial:
        sets.assemble(mixed_inputs)
    assert str(pooled.value) == str(serial.value)



def _outcome(text: str) -> tuple:
    try:
        return "loaded", load_yaml(text, dates_as_text=True)[1]
    except yaml.YAMLError:
        return "refused", _error(text, dates_as_text=True)


@pytest.mark.parametrize("text", ["type: agentic-s\tstem.md\n", "records: [RT-OBJ-a, E?PI-OBJ-b]\n",
                                  "a:\n  b: [x, y]\n\ufeff     c: d\n", "a:\n  - x\n\ufeff  b: c\n"])
def test_yaml_libyaml_alone_would_read_differently_is_left_to_the_pure_loader(text, monkeypatch):
    fast = _outcome(text)
    monkeypatch.setattr(yamldoc, "_FAST", {False: None, True: None})
    assert fast == _outcome(text)
