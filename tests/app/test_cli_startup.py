"""The command line starts light: a read command, or ingest, loads no web framework, GraphQL library,
Neo4j driver or pydantic (``serve`` and a Neo4j store import them when they run). Each check runs the real
CLI in a fresh interpreter, against a store the real ``citegraph ingest`` wrote."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.analysis_sets import DC, DYNAMIC_CHEATSHEET
from tests.conftest import ROOT, SEEDS

HEAVY = ("fastapi", "uvicorn", "strawberry", "neo4j", "pydantic")

RUN = """
import json, sys
exec(PRELUDE)
sys.argv = ["citegraph", *json.loads(sys.argv[1])]
from app.cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
sys.stderr.write("\\nLOADED " + json.dumps(sorted(({m.split(".")[0] for m in sys.modules} | set(sys.modules)) & set(HEAVY))) + "\\n")
sys.exit(code)
"""


def citegraph(*args: str, prelude: str = "", heavy: tuple[str, ...] = HEAVY) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run ``citegraph ARGS`` in a fresh interpreter (after ``prelude``); its result and the
    packages (or modules: ``rich.traceback``) of ``heavy`` loaded when it ended."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run([sys.executable, "-c", f"HEAVY = {heavy!r}\nPRELUDE = {prelude!r}\n" + RUN,
                             json.dumps(args)],
                            capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    loaded = json.loads(result.stderr.rsplit("\nLOADED ", 1)[1])
    return result, loaded


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("home")
    result, loaded = citegraph("ingest", str(SEEDS), "--home", str(home), "--json")
    assert result.returncode == 0, result.stderr
    assert [d["document"] for d in json.loads(result.stdout)["documents"]] == [
        "tolaria/synthesis", "tolaria/workflow-report", "talorys/synthesis"]
    assert loaded == []  # ingest too
    return home


def test_rests_on_loads_no_web_graphql_or_neo4j_module(home):
    # printing JSON, not even rich (a table needs it)
    result, loaded = citegraph("rests-on", "RT-RTE-mcp-write", "--set", "tolaria", "--home", str(home), "--json",
                               heavy=(*HEAVY, "rich"))
    assert result.returncode == 0, result.stderr
    assert loaded == []
    report = json.loads(result.stdout)
    assert (report["record"], report["set"]) == ("RT-RTE-mcp-write", "tolaria")
    assert len(report["results"]) == 14 == len({r["statement"] for r in report["results"]})
    assert sum(r["direct"] for r in report["results"]) == 12


@pytest.mark.parametrize("args", [
    ["stats", "--json"],
    ["check", "--json"],
    ["verify", "--json"],
    ["render", "tolaria/synthesis", "-o", "{tmp}/synthesis.txt"],
    ["render", "--rests-on", "RT-RTE-mcp-write", "--format", "html", "-o", "{tmp}/report.html"],
    ["review", "--list", "--json"],
    ["suspects", "--json"],
    ["impact", "--repo", "{tmp}", "--to", "HEAD", "--set", "tolaria"],  # refused (not a git clone), exit 2
    ["check", str(SEEDS), "--json"],
    ["sets", "--format", "json"],  # discovery, search and export are read commands too
    ["documents", "--set", "tolaria"],
    ["records", "mcp", "--format", "csv"],
    ["search", "compare-and-swap"],
    ["rests-on", "mcp-server/vault.js", "--set", "tolaria"],
    ["export", "--set", "tolaria", "--format", "graphml", "--out", "{tmp}/tolaria.graphml"],
], ids=lambda a: " ".join(a[:2]))
def test_other_commands_load_none_either(home, tmp_path, args):
    args = [a.format(tmp=tmp_path) for a in args]
    result, loaded = citegraph(*args, "--home", str(home))
    assert result.returncode in (0, 2), result.stderr
    assert loaded == []


WRITE_PATH = ("graph.versions", "graph.analysis_changes", "logging", "gzip", "difflib", "tempfile", "csv", "typer",
              "app.errors", "queries.runs", "queries.dossier")
"""What a read of the live rows never uses: the versions' rules and their diffs, the logger (a store
warns only on a conversion or a wait for a writer), the format-1 reader's gzip, the temporary file
of an output written to a path, CSV, typer (a plain command line starts without it), the table of
exit codes (read when a command fails), and the queries of other pages (runs, dossiers)."""


def _read(*args: str, loaded_too: tuple[str, ...] = ()) -> object:
    return pytest.param(list(args), loaded_too, id=" ".join(args[:2]))


@pytest.mark.parametrize(("args", "loaded_too"), [
    _read("rests-on", "RT-RTE-mcp-write", "--set", "tolaria", "--json"),
    _read("records", "--set", "tolaria"),
    _read("stats", "--set", "tolaria"),
    _read("check", "--set", "tolaria"),
    _read("search", "compare-and-swap"),
    _read("export", "--set", "tolaria", "--format", "json"),
    _read("render", "--rests-on", "RT-RTE-mcp-write", "--set", "tolaria"),
    _read("history", "tolaria", loaded_too=("difflib", "graph.analysis_changes", "graph.versions")),  # it reads versions
])
def test_one_set_commands_import_no_write_path(home, args, loaded_too):
    result, loaded = citegraph(*args, "--home", str(home), heavy=WRITE_PATH)
    assert result.returncode == 0, result.stderr
    assert loaded == sorted(loaded_too)
    assert result.stdout


MARKDOWN_PARSING = ("markdown_it", "domain.grammar", "render.to_plaintext", "render.compose", "render.document")
"""What makes a Markdown member's plain text (markdown-it and the grammar's rules), a page, a member's own text."""


@pytest.fixture(scope="module")
def dc_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("dc")
    result, _ = citegraph("ingest", *map(str, DYNAMIC_CHEATSHEET), "--home", str(home), "--json")
    assert result.returncode == 0, result.stderr
    return home


@pytest.mark.parametrize(("args", "loaded"), [
    (["render", "--set", DC], ["render.compose"]),
    (["render", f"{DC}/runtime"], ["render.document"]),  # the member's own text, rebuilt
    (["render", "--set", DC, "--format", "html"], ["domain.grammar", "markdown_it", "render.compose",
                                                   "render.to_plaintext"]),
    # a table row's note names its first cell as plain text: stored cells hold no inline syntax here
    (["render", "--rests-on", "RT-RTE-local-code", "--set", DC], ["render.compose", "render.to_plaintext"]),
], ids=lambda a: " ".join(a[1:4]).replace(DC, "DC") if a and a[0] == "render" else "")
def test_a_markdown_page_parses_only_the_markdown_it_prints_as_plain_text(dc_home, args, loaded):
    # a page written as Markdown prints the members' own Markdown; their plain text is for the
    # plain-text and HTML pages (render.compose, markdown_only)
    result, found = citegraph(*args, "--home", str(dc_home), heavy=MARKDOWN_PARSING)
    assert result.returncode == 0, result.stderr
    assert found == loaded
    assert result.stdout


@pytest.mark.parametrize(("fmt", "loaded"), [("json", []), ("csv", []), ("graphml", ["domain.model", "graph.codec"])])
def test_only_a_graphml_export_names_nodes_with_the_domain_model(home, tmp_path, fmt, loaded):
    # display labels (graph.codec, domain.model's dataclasses) are GraphML's; JSON and CSV copy the graph
    result, found = citegraph("export", "--set", "tolaria", "--format", fmt, "--out", str(tmp_path / fmt),
                              "--home", str(home), heavy=("graph.codec", "domain.model"))
    assert result.returncode == 0, result.stderr
    assert found == loaded


def test_history_imports_no_diff_view_or_traversal_query(home):
    """``history`` lists the kept versions (queries.set_history): reading or comparing them
    (queries.history, with the document, set-view and traversal queries) is not imported."""
    result, loaded = citegraph("history", "tolaria", "--home", str(home),
                               heavy=("queries.history", "queries.documents", "queries.setview", "queries.traversal"))
    assert result.returncode == 0, result.stderr
    assert loaded == []
    assert "History of analysis set tolaria" in result.stdout


def test_a_check_answered_from_kept_findings_imports_no_rule(home):
    """``check --set`` of a set whose findings the store keeps reads them (queries.validation):
    the rules (queries.check_rules), the codec and the domain model are not imported, and the
    answer is the one checking afresh gives."""
    fresh, _ = citegraph("check", "--set", "tolaria", "--home", str(home), "--json", "--fresh")  # kept after it
    result, loaded = citegraph("check", "--set", "tolaria", "--home", str(home), "--json",
                               heavy=("queries.check_rules", "graph.codec", "domain.model"))
    assert (fresh.returncode, result.returncode) == (0, 0), result.stderr
    assert loaded == []
    assert result.stdout == fresh.stdout
    assert json.loads(result.stdout)["warnings"] == len(json.loads(result.stdout)["findings"]) > 0


@pytest.mark.parametrize(("args", "rich_loaded"), [
    (["records", "--set", "tolaria"], []),
    (["stats", "--set", "tolaria"], []),
    (["search", "compare-and-swap"], []),  # its snippets of printable ASCII wrapped as rich wraps them
    (["search", "compare-and-swap", "--json"], []),
    (["check", "--set", "tolaria"], []),  # 'path:5:' is printed as written (no emoji codes)
], ids=lambda a: a[0] if isinstance(a, list) and a and a[0].isalpha() else "")
def test_a_piped_table_loads_no_rich_console(home, monkeypatch, args, rich_loaded):
    """Printed to a pipe, the blocks of a table (the seeds' short ids fit a grid at 80 columns, so
    at 40) are written without rich's console (app.cli_tables), and so is a line rich prints as is."""
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "JUPYTER_COLUMNS", "JUPYTER_LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "40")
    result, loaded = citegraph(*args, "--home", str(home), heavy=("rich", "rich.console", "rich.table", "rich.text"))
    assert result.returncode == 0, result.stderr
    assert loaded == rich_loaded
    assert result.stdout


def test_serve_and_neo4j_load_what_they_need(home):
    # uvicorn.Server.run replaced by a no-op: the app is built, the port bound, nothing served
    with socket.socket() as probe:  # a port free now (serve binds it, then serves nothing)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result, loaded = citegraph("serve", "--home", str(home), "--port", str(port),
                               prelude="import uvicorn; uvicorn.Server.run = lambda *a, **k: None")
    assert result.returncode == 0, result.stderr
    assert loaded == ["fastapi", "pydantic", "strawberry", "uvicorn"]
    result, loaded = citegraph("stats", "--neo4j", "bolt://127.0.0.1:9", "--json")  # nothing listens there
    assert result.returncode == 69, result.stderr  # StoreUnavailable
    assert loaded == ["neo4j"]


HELP_UNUSED = ("markdown_it", "rich.markdown", "rich.traceback", "rich.pretty")
"""What typer's help module imports and help in rich markup mode never uses (app.cli_help)."""


def test_version_loads_no_rich_and_no_query():
    result, loaded = citegraph("--version", heavy=(*HEAVY, "rich", "queries.traversal", "graph.store"))
    assert (result.returncode, result.stdout) == (0, "citegraph 0.1.0\n")
    assert loaded == []


# the root page as typer draws it (NO_COLOR set: app.cli_root_help leaves it to typer; tests/app/test_cli_root_help.py)
TYPER_DRAWS = "import os\nos.environ['NO_COLOR'] = '1'\n"


@pytest.mark.parametrize("args", [["--help"], ["rests-on", "--help"]], ids=" ".join)
def test_help_pages_load_rich_but_not_its_markdown_or_tracebacks(args):
    result, loaded = citegraph(*args, prelude=TYPER_DRAWS, heavy=(*HEAVY, *HELP_UNUSED, "rich.console"))
    assert result.returncode == 0, result.stderr
    assert loaded == ["rich.console"]
    # the same bytes as typer's help module prints when imported the ordinary way, all of rich loaded
    plain, loaded = citegraph(*args, prelude=TYPER_DRAWS + "import typer.rich_utils", heavy=HELP_UNUSED)
    assert loaded == sorted(HELP_UNUSED)
    assert result.stdout == plain.stdout
    assert "│ rests-on " in result.stdout or "RECORD" in result.stdout


def test_the_root_help_lists_every_command_without_making_them():
    # each command listed with its help's first sentence, in the order registered; none converted
    # (reading a command's parameters evaluates its type hints: about 1 ms each)
    prelude = ("import sys, typer.main as m; real = m.get_command_from_info\n"
               "def counting(info, **k):\n    sys.stderr.write('MADE ' + info.name + '\\n'); return real(info, **k)\n"
               "m.get_command_from_info = counting\n")
    result, _ = citegraph("--help", prelude=TYPER_DRAWS + prelude)
    assert result.returncode == 0, result.stderr
    assert "MADE " not in result.stderr
    from app.cli import cli

    names = list(cli.deferred)
    assert names == ["ingest", "rests-on", "stats", "check", "verify", "render", "serve", "impact", "review", "suspects",
                     "history", "diff", "runs", "compare", "copy", "sets", "documents", "records", "search", "export"]
    listed = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("│ ") and line[2] != " "
              and not line.startswith("│ --")]
    assert listed == names
    result, _ = citegraph("records", "--help", prelude=prelude)
    assert [line for line in result.stderr.splitlines() if line.startswith("MADE ")] == ["MADE records"]


def test_a_deferred_help_import_is_the_real_class_when_used():
    code = ("from app.cli_help import defer_unused_help_imports\n"
            "defer_unused_help_imports()\n"
            "import sys, typer.rich_utils as r\n"
            "assert 'rich.markdown' not in sys.modules and 'rich.traceback' not in sys.modules\n"
            "from rich.markdown import Markdown\n"
            "m = r._make_rich_text(text='*x*', style='', markup_mode='markdown')\n"
            "assert type(m) is Markdown and isinstance(m, r.Markdown)\n"
            "from rich.traceback import Traceback\n"
            "assert r.Traceback.from_exception == Traceback.from_exception\n"
            "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr


def test_the_console_script_leaves_its_objects_to_the_process_end():
    """Once the command is over, succeeded or failed, main() freezes every object (gc.freeze), so the
    interpreter's shutdown does not walk them all for cycles (a sixth of a Neo4j command's CPU)."""
    code = ("import gc, sys\n"
            "sys.argv = ['citegraph', *sys.argv[1:]]\n"
            "from app.cli import main\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as exc:\n"
            "    print('exit', exc.code)\n"
            "print('frozen', gc.get_freeze_count() > 5000, 'tracked', len(gc.get_objects()) < 10)\n")
    for args, first in ((["--version"], "citegraph "), (["no-such-command"], "exit 2")):
        result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT,
                                timeout=60)
        lines = result.stdout.splitlines()
        assert len(lines) == 2 and lines[0].startswith(first), result.stderr
        assert lines[1] == "frozen True tracked True"


def test_the_console_script_imports_the_cli_with_fewer_young_collections():
    """``citegraph`` is :func:`app.script.main`: the youngest generation's threshold is raised
    before ``app.cli`` is imported (none of its 30–50 collections per command freed anything)."""
    from importlib.metadata import entry_points

    assert entry_points(group="console_scripts")["citegraph"].value == "app.script:main"
    probe = ("import gc, sys\n"
             "sys.argv = ['citegraph', '--version']\n"
             "from app.script import main\n"
             "main()\n"
             "print(gc.get_threshold(), 'app.cli' in sys.modules)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "citegraph 0.1.0\n(50000, 10, 10) True\n"
