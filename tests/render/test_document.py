"""Exact rebuild of members from their graph nodes, on every store backend."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil

import pytest

from queries.documents import document_tree, document_trees
from render.document import first_difference, rebuild, sha256_hex, verify
from tests.conftest import SEED_SYNTHESIS, SEEDS, ingest_into
from tests.render.conftest import DC_ARCHIVE, DC_MEMBERS, DC_RETAINED, DC_SET

SEED_IDS = ["talorys/synthesis", "tolaria/workflow-report", "tolaria/synthesis"]


def test_seeds_round_trip_exactly(store):
    ingest_into(store, SEEDS)
    report = verify(document_trees(store))
    assert [r.document for r in report.results] == SEED_IDS
    assert (report.documents, report.differing) == (3, 0)
    for r in report.results:
        with open(r.path, "rb") as fh:
            original = fh.read()
        assert r.expected == r.actual == hashlib.sha256(original).hexdigest()
        assert r.rebuilt_size == r.size == len(original)


def test_dynamic_cheatsheet_round_trips_exactly(store):
    ingest_into(store, DC_RETAINED, DC_ARCHIVE)
    report = verify(document_trees(store, set_id=DC_SET))
    assert [r.document for r in report.results] == [f"{DC_SET}/{m}" for m in DC_MEMBERS]
    assert [r.format for r in report.results] == ["md"] * 6
    assert report.differing == 0


def test_rebuild_never_reads_the_source_file(tmp_path):
    from graph.stores.sqlite import SQLiteStore

    copy = tmp_path / "synthesis.txt"
    shutil.copy(SEED_SYNTHESIS, copy)
    store = SQLiteStore(None)
    ingest_into(store, copy)
    copy.unlink()
    tree = document_tree(store, "tolaria/synthesis")
    assert sha256_hex(rebuild(tree)) == hashlib.sha256(SEED_SYNTHESIS.read_bytes()).hexdigest()


def test_document_can_be_named_by_its_path(seeds_store):
    tree = document_tree(seeds_store, str(SEED_SYNTHESIS))
    assert tree.id == "tolaria/synthesis"


def test_verify_reports_a_difference_with_the_first_hunk(seeds_store):
    tree = document_tree(seeds_store, "tolaria/synthesis")
    block = tree.blocks[5]
    tampered_fact = dataclasses.replace(block.block, markup=block.block.markup + " (tampered)")
    tampered_block = dataclasses.replace(block, block=tampered_fact)
    blocks = (*tree.blocks[:5], tampered_block, *tree.blocks[6:])
    tampered = type(tree)(tree.document, blocks)
    report = verify([tree, tampered], original=lambda t: SEED_SYNTHESIS.read_bytes())
    assert [r.ok for r in report.results] == [True, False] and report.differing == 1
    bad = report.results[1]
    assert bad.diff is not None and bad.diff.startswith("--- ")
    assert bad.diff.count("@@ ") == 1
    assert "-" + tree.blocks[5].block.markup in bad.diff and "+" + tampered_block.block.markup in bad.diff


def test_verify_without_the_original_says_why_there_is_no_diff(seeds_store):
    tree = document_tree(seeds_store, "tolaria/workflow-report")
    tampered = type(tree)(tree.document, tree.blocks[:-1])
    (r,) = verify([tampered], original=lambda t: None).results
    assert not r.ok and r.diff is None and r.note is not None and "not available" in r.note
    (r,) = verify([tampered], original=lambda t: b"changed since ingest").results
    assert r.diff is None and r.note is not None and "changed since ingest" in r.note


def test_first_difference_marks_a_lost_final_newline():
    diff = first_difference("a\nb\n", "a\nb", name="m")
    assert "\\ No newline at end of file" in diff


@pytest.mark.parametrize("document", SEED_IDS)
def test_blocks_are_in_document_order_without_gaps(seeds_store, document):
    tree = document_tree(seeds_store, document)
    assert [b.block.order for b in tree.blocks] == list(range(1, len(tree.blocks) + 1))
