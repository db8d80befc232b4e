"""The fast start (:mod:`app.cli_start`) reads the commands' declarations as typer reads them:
for every option and argument of every fast command, the keyword arguments it finds equal those
typer calls the command with, and every command line it does not take plainly goes to typer."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from app.cli import cli
from app.cli_params import Arg, Opt, typer_params
from app.cli_registry import commands
from app.cli_start import CHECKED_WHEN_GIVEN, FAST_COMMANDS, installed_version, specs_of, parse, version
from tests.conftest import ROOT, SEEDS

runner = CliRunner()


def typer_kwargs(name: str, argv: list[str]) -> dict[str, Any]:
    """The keyword arguments typer calls command ``name`` with for ``argv``: the command's own
    declarations (as :func:`app.cli_params.typer_params` hands them to typer) on a recorder."""
    made = typer_params(commands.functions[name])
    seen: dict[str, Any] = {}

    def record(**kwargs: Any) -> None:
        seen.update(kwargs)

    record.__signature__ = made.__signature__  # type: ignore[attr-defined]
    record.__annotations__ = made.__annotations__
    app = typer.Typer(add_completion=False)
    app.command(name)(record)
    app.command("other")(lambda: None)  # two commands: a group, as citegraph's
    result = runner.invoke(app, [name, *argv])
    assert result.exit_code == 0, (name, argv, result.output)
    return seen


def _values(spec) -> list[str]:
    """Words that are valid values of a parameter, chosen from its declaration."""
    if isinstance(spec.kind, type) and issubclass(spec.kind, Enum):
        return [m.value for m in spec.kind]
    if spec.kind is int:
        low, high = spec.decl.kwargs.get("min", 1), spec.decl.kwargs.get("max")
        return [str(low)] + ([str(high)] if high is not None else ["12"])
    if spec.kind is Path:
        return ["some/folder", str(ROOT)]
    return ["tolaria", "a value with spaces", ""]


def command_lines(name: str) -> list[list[str]]:
    """Command lines (after the command's name) that use every option and argument of ``name``
    with each of its names and several values: alone, and all of them at once."""
    found = specs_of(commands.functions[name])
    assert found is not None
    specs, options, arguments = found
    required = [v for a in arguments if specs[a].required for v in _values(specs[a])[:1]]
    required += [w for o, p in options.items() if specs[p].required and o.startswith("--")
                 for w in (o, _values(specs[p])[0])]
    lines = [required]
    every: list[str] = []
    for option, param in options.items():
        spec = specs[param]
        if spec.required or set(spec.decl.kwargs) & CHECKED_WHEN_GIVEN:  # given: typer's (tested below)
            continue
        if spec.kind is bool:
            lines.append([*required, option])
            every = every if param in {options[w] for w in every if w in options} else [*every, option]
            continue
        for value in _values(spec):
            lines.append([*required, option, value])
            if option.startswith("--"):
                lines.append([*required, f"{option}={value}"])
        if param not in {options[w] for w in every if w in options}:
            every += [option, _values(spec)[0]]
    for a in arguments:
        if not specs[a].required and not specs[a].many:
            lines.append([_values(specs[a])[0], *required])
    lines.append([*required, *every])
    return lines


@pytest.mark.parametrize("name", sorted(FAST_COMMANDS))
def test_every_fast_command_is_taken_plainly(name):
    assert specs_of(commands.functions[name]) is not None
    assert parse(commands.functions[name], command_lines(name)[0]) is not None


@pytest.mark.parametrize("name", sorted(FAST_COMMANDS))
def test_the_fast_parser_reads_every_option_as_typer(name):
    lines = command_lines(name)
    assert len(lines) > 3
    for argv in lines:
        assert parse(commands.functions[name], argv) == typer_kwargs(name, argv), argv


@pytest.mark.parametrize("argv", [
    ["R", "--help"], ["R", "--bogus"], ["R", "--set", "a", "--set", "b"], ["R", "--set"], ["R", "--set", "-x"],
    ["R", "--max-depth", "0"], ["R", "--max-depth", "99"], ["R", "--max-depth", "x"], ["R", "--max-depth", "-1"],
    ["R", "--format", "bogus"], ["R", "--json=1"], ["R", "extra"], [], ["R", "--"], ["R", "-"],
])
def test_a_command_line_not_plain_goes_to_typer(argv):
    assert parse(commands.functions["rests-on"], argv) is None


def test_paths_and_checked_options_go_to_typer():
    check = commands.functions["check"]
    assert parse(check, ["--set", "tolaria"]) is not None
    assert parse(check, [str(SEEDS)]) is None  # files to read: typer checks them
    assert parse(check, ["--base", "."]) is None  # file_okay=False: typer checks it


def test_declarations_are_typer_arguments():
    opt = Opt("--limit", "-n", min=1, max=200, help="Most hits shown.")
    made = opt.to_typer()
    assert isinstance(made, typer.models.OptionInfo)
    # in Annotated, typer reads the first name where typer.Option's default goes
    assert ((made.default, *(made.param_decls or ())), made.min, made.max, made.help) == (("--limit", "-n"), 1, 200,
                                                                                    "Most hits shown.")
    assert isinstance(Arg(metavar="SET").to_typer(), typer.models.ArgumentInfo)


CITEGRAPH = [sys.executable, "-c", "from app.script import main; main()"]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("home")
    result = runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home


@pytest.mark.parametrize("args", [
    ["rests-on", "RT-RTE-mcp-write", "--set", "tolaria", "--json"],
    ["records", "--set", "tolaria", "--format", "csv"],
    ["history", "tolaria", "--json"],
    ["rests-on", "RT-RTE-mcp-write", "--json", "--format", "csv"],  # the command's usage error: typer's
    ["rests-on", "NO-SUCH-record", "--set", "tolaria"],  # exit 66
    ["check", "--set", "tolaria", "--json"],
])
def test_the_fast_start_answers_as_typer(home, args):
    fast = subprocess.run([*CITEGRAPH, *args, "--home", str(home)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    typed = runner.invoke(cli, [*args, "--home", str(home)], env={"COLUMNS": "80"}, prog_name="-c")
    assert (fast.returncode, fast.stdout) == (typed.exit_code, typed.stdout)
    assert fast.stderr == typed.stderr


def test_the_version_is_importlibs():
    from importlib.metadata import version as installed

    assert version() == f"citegraph {installed('citegraph')}"


def test_the_version_is_the_first_on_the_path_as_importlib_finds_it(tmp_path, monkeypatch):
    from importlib.metadata import version as installed

    for folder, name, text in [("a", "Citegraph-9.1.dist-info", "Name: citegraph\nVersion: 9.1\n\nbody\n"),
                               ("b", "citegraph.egg-info", "Metadata-Version: 2.1\nVersion: 9.2\n")]:
        (tmp_path / folder / name).mkdir(parents=True)
        (tmp_path / folder / name / ("METADATA" if "dist" in name else "PKG-INFO")).write_text(text)
    (tmp_path / "c").mkdir()
    for order in (["c", "a", "b"], ["b", "a"]):
        monkeypatch.setattr(sys, "path", [str(tmp_path / f) for f in order] + sys.path)
        assert installed_version("citegraph") == installed("citegraph") == {"a": "9.1", "b": "9.2"}[order[-2]]
    (tmp_path / "a" / "Citegraph-9.1.dist-info" / "METADATA").write_text("Name: citegraph\nVersion: 9.1\n  folded\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "a"), *sys.path])
    assert installed_version("citegraph") is None  # not plain: importlib reads it
