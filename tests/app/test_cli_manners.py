"""CLI manners: ``--version``, help pages without ``<bool>``/``{record}`` clutter,
``serve --help`` naming the environment it reads, usage errors exiting 2, a missing path reported
as "no such file", and the README's exit-code table holding every code the CLI can exit with;
every command documented in the README (the sqlite-utils pattern)."""

from __future__ import annotations

import ast
import re
from importlib.metadata import version

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.errors import INTERNAL_FACE, ERROR_FACES
from app.settings import Settings
from tests.app.commands import cli_group
from tests.conftest import ROOT, SEEDS

runner = CliRunner()
COMMANDS = sorted(cli_group().commands)
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_version():
    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"citegraph {version('citegraph')}\n"


@pytest.mark.parametrize("name", COMMANDS)
def test_help_has_no_type_clutter_and_an_example(name):
    result = runner.invoke(cli, [name, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.stdout and not re.search(r"\{[a-z_]+\}", result.stdout), result.stdout
    usage = next(line for line in result.stdout.splitlines() if "Usage:" in line)
    assert usage.split("Usage: ")[1].startswith(f"citegraph {name} [OPTIONS]")
    assert "Example: citegraph" in result.stdout


def test_usage_lines_name_arguments_in_capitals():
    assert "Usage: citegraph rests-on [OPTIONS] RECORD" in runner.invoke(cli, ["rests-on", "--help"]).stdout
    assert "Usage: citegraph ingest [OPTIONS] PATHS..." in runner.invoke(cli, ["ingest", "--help"]).stdout
    assert "Usage: citegraph records [OPTIONS] [TEXT]" in runner.invoke(cli, ["records", "--help"]).stdout
    top = runner.invoke(cli, ["--help"]).stdout
    assert "--version" in top and "<bool>" not in top


def test_serve_help_lists_the_environment_it_reads():
    text = " ".join(runner.invoke(cli, ["serve", "--help"], env={"COLUMNS": "200"}).stdout.split())
    read_by_serve = [f"CITEGRAPH_{name.upper()}" for name in Settings.__slots__ if name != "ingest_workers"]
    assert len(read_by_serve) == 17
    assert [v for v in read_by_serve if v not in text] == []
    assert "CITEGRAPH_DEBUG" in text and ".env" in text


@pytest.mark.parametrize("args", [
    ["rests-on"], ["rests-on", "X", "--max-depth", "99"], ["stats", "--bogus"], ["nope"],
    ["rests-on", "X", "--json", "--format", "csv"], ["search", " -- "], ["export", "--format", "csv"],
    ["stats", "--neo4j", "bolt://x", "--home", "/tmp"], ["render"],
], ids=lambda a: " ".join(a))
def test_usage_errors_exit_2(args, tmp_path):
    result = runner.invoke(cli, [*args] if args[0] == "nope" or "--home" in args else [*args, "--home", str(tmp_path)])
    assert result.exit_code == 2, result.output


def test_a_missing_path_is_no_such_file_without_a_line_number(tmp_path):
    missing = tmp_path / "nowhere"
    result = runner.invoke(cli, ["ingest", str(missing), "--home", str(tmp_path / "home")])
    assert result.exit_code == 66
    assert f"error: no such file or folder: {missing}\n" in result.stderr and f"{missing}:1" not in result.stderr
    result = runner.invoke(cli, ["check", str(missing)])
    assert result.exit_code == 66 and f"{missing}:1" not in result.stderr


def _readme_exit_codes() -> set[int]:
    section = README.split("## Errors and exit codes", 1)[1].split("\n## ", 1)[0]
    codes = set()
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[3] not in ("CLI exit", "---"):
            codes |= {int(n) for n in re.findall(r"\b\d+\b", cells[3])}
    return codes


def _codes_in_the_cli() -> set[int]:
    """Every code the CLI can exit with: the error table's, the literal ``Exit(n)`` of app/
    (:class:`app.cli_params.Exit`), and click's usage error (2)."""
    codes = {face.exit for _, face in ERROR_FACES} | {INTERNAL_FACE.exit, 0, 2}
    for path in (ROOT / "app").glob("cli*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = getattr(node, "func", None)
            if isinstance(node, ast.Call) and "Exit" in (getattr(called, "attr", None), getattr(called, "id", None)) \
                    and node.args and isinstance(node.args[0], ast.Constant):
                code = node.args[0].value
                assert isinstance(code, int), f"{path}:{node.lineno}: Exit({code!r}) is no exit code"
                codes.add(code)
    return codes


def test_the_readme_exit_codes_are_all_there_are():
    assert _codes_in_the_cli() == {0, 1, 2, 64, 65, 66, 69, 70, 73, 74, 77, 78, 130}
    assert _readme_exit_codes() == _codes_in_the_cli()


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_in_the_readme(name):
    assert re.search(rf"citegraph {re.escape(name)}\b", README), name
    assert cli_group().commands[name].help


def test_seeds_path_for_the_fixtures():
    assert SEEDS.is_dir()


def test_readme_commands_run_from_the_venv_in_a_fresh_shell():
    """After `make demo`, a fresh shell has no `citegraph` on its PATH: the README runs it as
    `.venv/bin/citegraph` (and Python as `.venv/bin/python`), in every console block, and the quick
    start has exactly the two commands."""
    console = "\n".join(re.findall(r"```console\n(.*?)```", README, re.S))
    commands = [line[2:] for line in console.splitlines() if line.startswith("$ ")]
    assert len(commands) > 40
    assert [c for c in commands if re.match(r"(citegraph|python3?) ", c)] == []
    quick = README.split("## Quick start", 1)[1].split("##", 1)[0]
    assert re.findall(r"(?m)^make \w+", quick) == ["make demo", "make test"]
    assert "scripts/prerequisites" in quick and "chromium" in quick.lower()


@pytest.mark.parametrize("args", [
    ["rests-on", "RT-RTE-mcp-write", "--set", "tolaria"],
    ["rests-on", "RT-RTE-mcp-write", "--set", "tolaria", "--format", "csv"],
    ["render", "--set", "tolaria", "--format", "txt"],
], ids=lambda a: " ".join(a))
def test_a_reader_that_stops_early_ends_the_command_quietly_with_0(args, tmp_path):
    """``citegraph … | head -2``: once the reader has gone, the command stops with 0 and says
    nothing (rich exits 1 on its own, and an OSError would be exit 74 "Broken pipe")."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    assert runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)]).exit_code == 0
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: every write meets a broken pipe
    run = subprocess.run([sys.executable, "-m", "app.cli", *args, "--home", str(home)], cwd=ROOT, stdout=write,
                         stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(write)
    assert (run.returncode, run.stderr) == (0, f"store: embedded store in {home}\n")


def test_serve_on_a_port_another_process_holds_exits_69_naming_it(tmp_path):
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        result = runner.invoke(cli, ["serve", "--port", str(port), "--home", str(tmp_path)])
    assert result.exit_code == 69
    assert result.stderr.splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use",
        f"hint: another process holds port {port}: stop it, or serve on another with --port"]


def test_help_flows_to_the_terminal_instead_of_breaking_at_the_docstring_lines():
    top = runner.invoke(cli, ["--help"], env={"COLUMNS": "250"}).stdout
    assert ("Counts of documents, statements, records and citations, per analysis set (--set: of one set, whose "
            "counts are then the totals), and which store holds them.") in top
    search = runner.invoke(cli, ["search", "--help"], env={"COLUMNS": "250"}).stdout
    assert ('A term written without spaces is a phrase of its words (compare-and-swap, mcp-server/vault.js); "quoted '
            'words" are one phrase; vau* matches every word it begins.') in search
