"""Converting a store of the former format (one gzip JSON file, written by the code before SQLite)."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from graph.errors import StoreUnavailable
from graph.model import Label
from graph.stores import open_embedded
from queries import shapes
from queries.documents import document_trees
from queries.stats import stats
from queries.traversal import rests_on
from queries.validation import check
from render.document import verify
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "legacy-store"
ANSWERS = json.loads((FIXTURE / "answers.json").read_text())


def plain(value) -> object:
    return json.loads(json.dumps(value, default=str))


@pytest.fixture
def home(tmp_path) -> Path:
    """A home holding only the former store file."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(FIXTURE / "graph.json.gz", home / "graph.json.gz")
    return home


def test_every_query_answers_as_the_former_store_did(home):
    store = open_embedded(home)
    assert store.counts() == ANSWERS["counts"] and store.counts()["nodes"] == 738
    answered = plain(shapes.plain(stats(store)))
    for row in answered["sets"]:
        assert row.pop("unaccounted") == 0  # unaccounted record IDs, not in the former answers
    assert answered == ANSWERS["stats"]
    records = store.find_nodes(Label.RECORD)
    assert len(records) == len(ANSWERS["rests_on"]) == 82
    for record in records:
        answer = shapes.plain(rests_on(store, record.get("record_id"), set_id=record.set_id))
        assert answer.pop("kind") == "record"  # what the answer starts from, not in the former answers
        for result in answer["results"]:
            assert isinstance(result.pop("order"), int)  # document order, not in the former answers
        assert plain(answer) == ANSWERS["rests_on"][record.id], record.id
    assert plain(shapes.plain(check(store))) == ANSWERS["check"]
    assert plain(shapes.plain(verify(document_trees(store)))) == ANSWERS["verify"]
    assert ANSWERS["verify"]["documents"] == 9 and ANSWERS["verify"]["differing"] == 0


def test_the_former_file_is_left_alone_and_converted_once(home):
    original = (home / "graph.json.gz").read_bytes()
    open_embedded(home).close()
    assert (home / "graph.json.gz").read_bytes() == original
    assert sorted(p.name for p in home.iterdir()) == [".convert.lock", "citegraph.sqlite", "graph.json.gz"]
    store = open_embedded(home)
    store.delete_documents(["tolaria/synthesis"])
    assert open_embedded(home).counts()["Document"] == 8  # the new store is used, not converted again


def test_two_processes_opening_it_at_once_convert_it_once(home):
    code = textwrap.dedent("""
        import sys
        from pathlib import Path
        from graph.stores import open_embedded
        print(open_embedded(Path(sys.argv[1])).counts()["nodes"])
    """)
    runs = [subprocess.Popen([sys.executable, "-c", code, str(home)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [r.communicate(timeout=120) for r in runs]
    assert [out for out, _ in outputs] == ["738\n", "738\n"]
    assert sum("converted the embedded store" in err for _, err in outputs) == 1


def test_a_file_written_as_a_single_json_document_converts_too(home):
    document = json.loads(gzip.decompress((home / "graph.json.gz").read_bytes()))
    (home / "graph.json.gz").write_bytes(gzip.compress(json.dumps(document).encode("utf-8")))
    assert open_embedded(home).counts() == ANSWERS["counts"]


def _damage(lines: list[str], how: str) -> tuple[list[str], str]:
    """``lines`` of the former file damaged one way, and the message expected for it."""
    first_edge = lines.index('],"edges":[') + 1
    if how == "truncated":
        return lines[:-5], "the file ends before its last line (truncated)"
    if how == "text after the end":
        return [*lines, "]}"], f"line {len(lines) + 1}: text after the end of the store"
    if how == "broken line":
        return [*lines[:199], '{"id":broken,', *lines[200:]], "line 200: Expecting value: line 1 column 7"
    if how == "missing comma":
        return [*lines[:4], lines[4].rstrip(","), *lines[5:]], "line 5: no comma between two elements"
    if how == "comma after the last":
        return [*lines[:first_edge - 2], lines[first_edge - 2] + ",", *lines[first_edge - 1:]], (
            f"line {first_edge - 1}: a comma after the last element")
    if how == "unknown label":
        return [*lines[:1], lines[1].replace('"label":"AnalysisSet"', '"label":"Nope"'), *lines[2:]], (
            "line 2: unknown label 'Nope'")
    assert how == "dangling edge"  # the first node is gone, and the first edge leaves it
    gone = "AAS-2026-10-04-dynamic-cheatsheet-01"
    return [lines[0], *lines[2:]], (
        f"line {first_edge}: edge CONTAINS {gone} -> {gone}/epistemic names unknown node {gone}")


@pytest.mark.parametrize("how", ["truncated", "text after the end", "broken line", "missing comma",
                                 "comma after the last", "unknown label", "dangling edge"])
def test_a_damaged_former_file_is_refused_naming_file_and_line(home, how):
    path = home / "graph.json.gz"
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    assert lines[1].startswith('{"id":"AAS-2026-10-04-dynamic-cheatsheet-01","label":"AnalysisSet"')
    damaged, message = _damage(lines, how)
    path.write_bytes(gzip.compress("\n".join(damaged).encode("utf-8")))
    before = path.read_bytes()
    with pytest.raises(StoreUnavailable) as caught:
        open_embedded(home)
    assert str(caught.value).startswith(f"cannot read the embedded store {path}: {message}")
    assert path.read_bytes() == before  # nothing overwritten, nothing half-made beside it
    assert sorted(p.name for p in home.iterdir()) == [".convert.lock", "graph.json.gz"]
