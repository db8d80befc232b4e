"""The root help page drawn without typer (app.cli_root_help) is typer's own: the same commands,
in the same order, with the same summaries and options, byte for byte in a pipe at every width
from 40 to 220 columns; and ``citegraph --help`` prints it without importing typer, click or rich."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

import app.cli  # noqa: F401  (registers every command)
from app.cli_params import summary_of
from app.cli_registry import commands
from app.cli_root_help import TYPER_DECIDES, page
from tests.app.test_cli_startup import citegraph
from tests.conftest import ROOT

WIDTHS = range(40, 221)

TYPER_PAGES = """
import contextlib, io, json, os, sys
import app.cli
from app.cli_registry import typer_app
pages = {}
for width in json.loads(sys.argv[1]):
    os.environ["COLUMNS"] = str(width)
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.suppress(SystemExit):
        typer_app()(["--help"], prog_name="citegraph")
    pages[width] = buffer.getvalue()
print(json.dumps(pages))
"""


def _typer_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in TYPER_DECIDES and not k.startswith("CITEGRAPH_")}
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.fixture(scope="module")
def typer_pages() -> dict[int, str]:
    """typer's own root help page at each of :data:`WIDTHS`, printed into a pipe."""
    result = subprocess.run([sys.executable, "-c", TYPER_PAGES, json.dumps(list(WIDTHS))], capture_output=True,
                            text=True, cwd=ROOT, env=_typer_env(), timeout=120, check=True)
    return {int(width): text for width, text in json.loads(result.stdout).items()}


def test_the_fast_page_is_typers_at_every_width(typer_pages):
    drawn = {width: page(width) for width in WIDTHS}
    assert [w for w, text in drawn.items() if text is None] == list(range(40, 50))  # too narrow: typer draws
    for width, text in drawn.items():
        if text is not None:
            assert text + "\n" == typer_pages[width], width  # click ends an asked --help with an empty line


def test_the_page_lists_every_command_and_its_summary_as_typer_does(typer_pages):
    listed = re.findall(r"^│ (\S+) +(.*?) *│$", page(1000) or "", re.M)  # wide: a summary a line
    assert [name for name, _ in listed] == ["--version", "--help", *commands.functions]
    assert [name for name, _ in listed][2:] == ["ingest", "rests-on", "stats", "check", "verify", "render", "serve",
                                                "impact", "review", "suspects", "history", "diff", "runs", "compare",
                                                "copy", "sets", "documents", "records", "search", "export"]
    assert [text for _, text in listed][2:] == [summary_of(fn) for fn in commands.functions.values()]
    assert re.findall(r"^│ (\S+) ", typer_pages[220], re.M) == [name for name, _ in listed]


def test_on_a_terminal_the_page_is_the_same_with_colours():
    styled = page(80, styled=True) or ""
    assert "\x1b[1;36mrests-on  \x1b[0m" in styled
    assert re.sub(r"\x1b\[[0-9;]*m", "", styled) == page(80)


def test_citegraph_help_loads_no_typer_click_or_rich(typer_pages):
    os.environ.pop("COLUMNS", None)
    prelude = "import os\nfor name in " + repr(TYPER_DECIDES) + ": os.environ.pop(name, None)\nos.environ['COLUMNS'] = '80'"
    result, loaded = citegraph("--help", prelude=prelude, heavy=("typer", "click", "rich"))
    assert (result.returncode, result.stdout, loaded) == (0, typer_pages[80], [])
    result, loaded = citegraph(prelude=prelude, heavy=("typer", "click", "rich"))  # `citegraph` alone: exit 2
    assert (result.returncode, result.stdout, loaded) == (2, typer_pages[80][:-1], [])


def test_an_environment_that_changes_typers_drawing_leaves_the_page_to_typer():
    prelude = "import os\nos.environ['COLUMNS'] = '80'\nos.environ['NO_COLOR'] = '1'"
    result, loaded = citegraph("--help", prelude=prelude, heavy=("typer",))
    assert (result.returncode, loaded) == (0, ["typer"])
    assert "│ rests-on   Statements that rest on RECORD" in result.stdout
