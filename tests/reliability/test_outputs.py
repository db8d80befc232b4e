"""Outputs never overwrite the store in use: ``export --out``, ``render -o`` and the CSV tables
refuse a path that is, or would replace, the embedded store's database, ``-wal`` or ``-shm``
(through a link, a relative path or a hard link too) with exit 73 naming it, and write through a
temporary file renamed over the target, so a failed write leaves the old file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from graph.stores.sqlite import SQLiteStore
from tests.conftest import SEEDS

runner = CliRunner()


@pytest.fixture
def home(tmp_path) -> Path:
    """A home holding the seeds: 2 sets (tolaria, talorys), the database open-able afterwards."""
    home = tmp_path / "home"
    result = runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home


def _sets(home: Path) -> list[str]:
    with sqlite3.connect(home / "citegraph.sqlite") as conn:
        return [row[0] for row in conn.execute("SELECT id FROM nodes WHERE label = 'AnalysisSet' ORDER BY id")]


def _refused(result, named: str) -> None:
    assert result.exit_code == 73, result.output
    assert f"refusing to write {named}" in result.stderr and "a file of the store in use" in result.stderr


def test_export_over_the_database_is_refused_and_the_store_kept(home):
    """The issue's case: ``export --format graphml --out $HOME/citegraph.sqlite --home $HOME``
    exited 0 and wrote GraphML over the database."""
    before = (home / "citegraph.sqlite").read_bytes()
    target = str(home / "citegraph.sqlite")
    result = runner.invoke(cli, ["export", "--format", "graphml", "--out", target, "--home", str(home)])
    _refused(result, target)
    assert (home / "citegraph.sqlite").read_bytes() == before
    assert _sets(home) == ["talorys", "tolaria"]


@pytest.mark.parametrize("name", ["citegraph.sqlite-wal", "citegraph.sqlite-shm"])
def test_export_over_the_wal_or_shm_is_refused_even_when_absent(home, name):
    """A closed store has no ``-wal``/``-shm``; writing one would still be read by SQLite as the
    store's own journal on its next open."""
    target = str(home / name)
    result = runner.invoke(cli, ["export", "--format", "json", "--out", target, "--home", str(home)])
    _refused(result, target)
    assert not (home / name).exists() or not (home / name).read_bytes().startswith(b"{")
    assert _sets(home) == ["talorys", "tolaria"]


def test_render_through_a_symlink_a_relative_path_or_a_hard_link_is_refused(home, tmp_path, monkeypatch):
    database = home / "citegraph.sqlite"
    before = database.read_bytes()
    link = tmp_path / "report.md"
    link.symlink_to(database)
    hard = tmp_path / "hard.md"
    os.link(database, hard)
    monkeypatch.chdir(tmp_path)
    for target in (str(link), "home/../home/citegraph.sqlite", str(hard)):
        result = runner.invoke(cli, ["render", "tolaria/synthesis", "-o", target, "--home", str(home)])
        _refused(result, target)
    assert database.read_bytes() == before
    assert _sets(home) == ["talorys", "tolaria"]


def test_csv_tables_refused_when_the_folder_or_a_table_is_a_store_file(home, tmp_path):
    database = home / "citegraph.sqlite"
    result = runner.invoke(cli, ["export", "--format", "csv", "--out", str(database), "--home", str(home)])
    _refused(result, str(database))
    tables = tmp_path / "tables"
    tables.mkdir()
    (tables / "edges.csv").symlink_to(home / "citegraph.sqlite-wal")
    result = runner.invoke(cli, ["export", "--format", "csv", "--out", str(tables), "--home", str(home)])
    _refused(result, str(tables / "edges.csv"))
    assert not (tables / "nodes.csv").exists()  # refused before anything is written
    assert _sets(home) == ["talorys", "tolaria"]


def test_an_output_elsewhere_is_written_whole_through_a_renamed_temporary_file(home, tmp_path):
    out = tmp_path / "tolaria.graphml"
    result = runner.invoke(cli, ["export", "--set", "tolaria", "--format", "graphml", "--out", str(out),
                                 "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"<graphml ") and out.read_bytes().count(b"<node ") == 126  # README: 126 nodes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "tolaria.graphml"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(home, tmp_path, monkeypatch):
    out = tmp_path / "report.md"
    out.write_bytes(b"the old report\n")

    def failing_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    result = runner.invoke(cli, ["render", "tolaria/synthesis", "-o", str(out), "--home", str(home)])
    assert result.exit_code == 74, result.output
    assert f"{out}: No space left on device" in result.stderr
    assert out.read_bytes() == b"the old report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "report.md"]


def test_the_store_still_opens_after_every_refusal(home):
    for target in ("citegraph.sqlite", "citegraph.sqlite-wal", "citegraph.sqlite-shm"):
        runner.invoke(cli, ["export", "--format", "json", "--out", str(home / target), "--home", str(home)])
    with SQLiteStore(home / "citegraph.sqlite") as store:
        assert store.counts()["AnalysisSet"] == 2
