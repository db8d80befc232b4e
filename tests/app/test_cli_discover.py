"""Finding things on every face and the CLI's tables, formats, store line and
progress bars (items 4–6), on the seeds ingested by the real ``citegraph ingest``.

Table layout is checked through the real console script in a subprocess (piped output at 80, 100
and 160 columns) and the progress bar under a pseudo-terminal, as a user sees them."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner, Result

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from graph.model import Label
from queries.shapes import plain
from queries.traversal import rests_on
from tests.app.commands import cli_group
from tests.conftest import ROOT, SEEDS

runner = CliRunner()
CITEGRAPH = [sys.executable, "-c", "from app.script import main; main()"]
"""The command as the console script runs it (``citegraph = app.script:main``)."""
TOLARIA_ROUTES = [
    "EPI-RTE-mtime-check", "EPI-RTE-note-read", "EPI-RTE-note-search", "EPI-RTE-organized-toggle",
    "EPI-RTE-vault-register", "MEM-RTE-mcp-read", "MEM-RTE-note-withdrawal", "MEM-RTE-reference-context",
    "MEM-RTE-transcript-replay", "RT-RTE-guidance-sync", "RT-RTE-mcp-write", "RT-RTE-pi-extension",
    "RT-RTE-provider-create", "RT-RTE-workspace-send"]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    result = runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home


@pytest.fixture(scope="module")
def client(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        yield client


def run(*args: str, home: Path) -> Result:
    return runner.invoke(cli, [*args, "--home", str(home)])


def cli_data(*args: str, home: Path) -> dict:
    result = run(*args, "--format", "json", home=home)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def piped(*args: str, home, columns: int | None = None) -> subprocess.CompletedProcess:
    """``citegraph ARGS | cat``: the real console script, its output a pipe."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_") and k != "COLUMNS"}
    if columns:
        env["COLUMNS"] = str(columns)
    return subprocess.run([*CITEGRAPH, *args, "--home", str(home)], capture_output=True,
                          text=True, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, timeout=120)


# -- sets, documents, records, search on every face --------------------------------------------------


def test_sets_on_every_face(home, client):
    data = cli_data("sets", home=home)
    assert [(s["id"], s["system"], s["documents"], s["statements"], s["records"]) for s in data["data"]] == [
        ("talorys", "Talorys", ["talorys/synthesis"], 24, 38),
        ("tolaria", "Tolaria", ["tolaria/synthesis", "tolaria/workflow-report"], 54, 24)]
    assert client.get("/sets").json() == data
    assert client.get("/sets/tolaria").json() == data["data"][1]
    table = run("sets", home=home)
    assert table.stdout.splitlines()[-1] == "2 sets, 3 documents"


def test_documents_of_a_set(home, client):
    data = cli_data("documents", "--set", "tolaria", home=home)
    assert [(d["id"], d["format"], d["title"]) for d in data["data"]] == [
        ("tolaria/synthesis", "txt", "Tolaria synthesis"), ("tolaria/workflow-report", "txt", "Tolaria workflow report")]
    assert client.get("/documents", params={"set": "tolaria"}).json() == data
    assert cli_data("documents", home=home)["count"] == 3


def test_records_of_tolaria_of_kind_rte_are_exactly_its_routes(home, client, seeds_store):
    data = cli_data("records", "--set", "tolaria", "--kind", "rte", home=home)  # the kind in any case
    expected = sorted(n.get("record_id") for n in seeds_store.find_nodes(Label.RECORD, set_id="tolaria")
                      if n.get("kind") == "RTE")
    assert [r["record_id"] for r in data["data"]] == expected == TOLARIA_ROUTES
    assert {(r["set"], r["kind"]) for r in data["data"]} == {("tolaria", "RTE")}
    assert [r["citations"] for r in data["data"] if r["record_id"] == "RT-RTE-mcp-write"] == [11]
    rest = client.get("/records", params={"set": "tolaria", "kind": "RTE", "limit": 500}).json()
    assert rest["data"] == data["data"] and rest["page"]["total"] == 14
    gql = client.post("/graphql", json={"query": '{ records(set: "tolaria", kind: "RTE", first: 200) '
                                                 '{ totalCount edges { node { recordId } } } }'}).json()
    assert [e["node"]["recordId"] for e in gql["data"]["records"]["edges"]] == TOLARIA_ROUTES
    text = cli_data("records", "MCP", "--analyst", "rt", home=home)
    assert [r["id"] for r in text["data"]] == ["tolaria/RT-RTE-mcp-write"]
    gql = client.post("/graphql", json={"query": '{ records(text: "mcp") { edges { node { nodeId } } } }'}).json()
    assert [e["node"]["nodeId"] for e in gql["data"]["records"]["edges"]] == [
        "tolaria/MEM-RTE-mcp-read", "tolaria/RT-RTE-mcp-write"]


def test_a_record_kind_or_analyst_outside_the_grammar_is_a_usage_error(home, client):
    result = run("records", "--kind", "RTX", home=home)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1:] == ["error: 'RTX' is not a record kind",
                                              "hint: did you mean RTE? a record kind is one of CMP, OBJ, RTE, CLM, ABS, BAP"]
    result = run("records", "--analyst", "xx", home=home)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1:] == ["error: 'XX' is not an analyst prefix",
                                              "hint: an analyst prefix is one of RT, MEM, EPI"]
    assert client.get("/records", params={"kind": "XYZ"}).status_code == 422


def test_search_on_every_face(home, client):
    data = cli_data("search", "compare-and-swap", home=home)
    assert [(h["rank"], h["statement"]) for h in data["hits"]] == [
        (1, "tolaria/workflow-report#L43"), (2, "tolaria/synthesis#L12")]
    assert [h["snippet"][a:b] for h in data["hits"] for a, b in h["highlights"]] == ["compare-and-swap"] * 2
    assert client.get("/search", params={"q": "compare-and-swap"}).json() == data
    gql = client.post("/graphql", json={"query": '{ search(text: "compare-and-swap") { total '
                                                 'hits { rank statement snippet highlights { start end } } } }'}).json()
    assert gql["data"]["search"] == {"total": 2, "hits": [
        {"rank": h["rank"], "statement": h["statement"], "snippet": h["snippet"],
         "highlights": [{"start": a, "end": b} for a, b in h["highlights"]]} for h in data["hits"]]}
    table = run("search", "compare-and-swap", home=home)
    assert "tolaria/workflow-report#L43" in table.stdout and table.stdout.splitlines()[-1] == "2 statements hold it"
    limited = run("search", "the", "--limit", "3", home=home)
    assert limited.stdout.splitlines()[-1] == "51 statements hold it; the best 3 shown (--limit)"
    rows = list(csv.reader(io.StringIO(run("search", "vault.js", "--format", "csv", home=home).stdout)))
    assert rows[0] == ["rank", "statement", "matches", "snippet"] and len(rows) == 7


def test_unknown_names_get_the_closest_ones_on_every_face(home, client):
    result = run("documents", "--set", "tolara", home=home)
    assert result.exit_code == 66
    assert "error: no analysis set 'tolara' in the store" in result.stderr
    assert "hint: did you mean tolaria? the store holds 2 sets: talorys, tolaria" in result.stderr
    result = run("rests-on", "RT-RTE-mcp-wrte", home=home)
    assert result.exit_code == 66 and "hint: did you mean RT-RTE-mcp-write" in result.stderr
    result = run("render", "tolaria/synthesys", home=home)
    assert result.exit_code == 66 and "did you mean tolaria/synthesis?" in result.stderr
    result = run("records", "--kind", "ROUTE", home=home)
    assert result.exit_code == 2 and "did you mean RTE? a record kind is one of CMP, OBJ, RTE, CLM, ABS, BAP" in result.stderr
    rest = client.get("/search", params={"q": "vault", "set": "Tolaria"}).json()["error"]
    assert rest["code"] == "NOT_FOUND" and rest["hint"].startswith("did you mean tolaria?")
    assert client.get("/documents/tolaria/synthesys").json()["error"]["hint"].startswith(
        "did you mean tolaria/synthesis?")
    gql = client.post("/graphql", json={"query": '{ set(id: "tolara") { id } }'}).json()
    assert gql["errors"][0]["extensions"]["hint"].startswith("did you mean tolaria?")
    gql = client.post("/graphql", json={"query": '{ search(text: "vault", set: "tolara") { total } }'}).json()
    assert gql["errors"][0]["extensions"]["code"] == "NOT_FOUND"


# -- the store in use -------------------------------------------------------------------------------


def test_every_command_names_its_store_and_stats_shows_it(home):
    where = f"embedded store in {home.resolve()}"
    for args in (["sets"], ["stats"], ["rests-on", "SRC-1"], ["verify", "--set", "tolaria"], ["check", "--set", "tolaria"]):
        result = run(*args, home=home)
        assert result.exit_code == 0, result.output
        assert result.stderr.splitlines()[0] == f"store: {where}", args
    data = cli_data("stats", home=home)
    assert data["store"] == where and [s["set"] for s in data["sets"]] == ["talorys", "tolaria"]
    assert run("stats", home=home).stdout.splitlines()[-1] == f"204 nodes, 354 edges (220 citations) in the {where}"


# -- tables that fit --------------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [None, 100, 160], ids=["80-piped", "100", "160"])
def test_rests_on_table_keeps_every_column_and_whole_ids(home, seeds_store, columns):
    result = piped("rests-on", "RT-RTE-mcp-write", "--set", "tolaria", home=home, columns=columns)
    assert result.returncode == 0, result.stderr
    width = columns or 80
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= width
    report = rests_on(seeds_store, "RT-RTE-mcp-write", set_id="tolaria")
    for r in report.results:
        assert any(r.statement in line for line in lines), r.statement  # never split
        first_words = " ".join(r.block.text.split()[:3])
        assert any(first_words in line for line in lines), first_words  # the text column is there
    assert sum("workflow-account" in line for line in lines) == 2  # the via column too
    assert lines[-1] == "14 statements: 12 direct, 2 transitive"
    grid = any(line.startswith("┏") for line in lines)
    assert grid == (width >= 100)  # a grid when the text column gets 24 characters, else blocks


def test_stats_and_ingest_tables_fit_80_columns(home, tmp_path):
    for args in (["stats"], ["sets"], ["documents"], ["records", "--set", "tolaria"], ["search", "the"]):
        result = piped(*args, home=home)
        assert result.returncode == 0, result.stderr
        rows = [line for line in result.stdout.splitlines() if str(home.resolve()) not in line]  # a path is as long as it is
        assert max(len(line) for line in rows) <= 80, args
    stats = piped("stats", home=home).stdout
    assert ("tolaria  documents 2  statements 54  records 24  record occurrences 72\n"
            "    source files 9  quotations 4  unaccounted IDs 0\n") in stats


def test_rests_on_csv_has_every_row_in_full(home, seeds_store):
    rows = list(csv.DictReader(io.StringIO(run("rests-on", "RT-RTE-mcp-write", "--format", "csv", home=home).stdout)))
    report = rests_on(seeds_store, "RT-RTE-mcp-write")
    assert [(r["statement"], r["text"], int(r["depth"])) for r in rows] == [
        (r.statement, r.block.text, r.depth) for r in report.results]
    assert run("rests-on", "RT-RTE-mcp-write", "--json", "--format", "csv", home=home).exit_code == 2


def test_a_long_ingest_folds_its_table_and_ends_with_one_total_line(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    seed = (SEEDS / "003_68dfe0dcb1db1ebb.txt").read_text(encoding="utf-8")
    for n in range(25):  # the Talorys synthesis about 25 systems: 25 sets of one member
        (folder / f"m{n:02}.txt").write_text(seed.replace("Talorys synthesis", f"Sys{n:02} synthesis", 1),
                                             encoding="utf-8")
    result = runner.invoke(cli, ["ingest", str(folder), "--home", str(tmp_path / "home")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "… and 5 more rows (--verbose shows them all, --format csv lists them)" in lines
    assert lines[-1].startswith("25 documents in 25 sets: 25 written, 0 unchanged, 0 skipped; ")
    verbose = runner.invoke(cli, ["ingest", str(folder), "--home", str(tmp_path / "home"), "--verbose"])
    assert sum("unchanged" in line for line in verbose.stdout.splitlines()) == 25 + 1  # every row, then the total


# -- progress bars ----------------------------------------------------------------------------------


def _on_a_terminal(args: list[str], extra_env: dict | None = None) -> tuple[int, str, str]:
    """Run ``citegraph ARGS`` with standard error on a pseudo-terminal, standard output on a pipe."""
    main, secondary = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    proc = subprocess.Popen([*CITEGRAPH, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=secondary,
                            env={**env, "PYTHONPATH": str(ROOT), "TERM": "xterm", "COLUMNS": "100", **(extra_env or {})})
    os.close(secondary)
    assert proc.stdout is not None  # stdout=PIPE
    seen = b""
    while True:
        ready, _, _ = select.select([main], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    stdout = proc.stdout.read().decode()
    proc.wait(timeout=60)
    os.close(main)
    return proc.returncode, stdout, seen.decode(errors="replace")


def test_progress_bars_on_a_terminal_and_none_in_a_pipe(tmp_path):
    home = tmp_path / "home"
    code, stdout, terminal = _on_a_terminal(["ingest", str(SEEDS), "--home", str(home)])
    assert code == 0 and "3 documents in 2 sets: 3 written" in stdout
    assert "ingesting" in terminal and "3/3" in terminal and "files" in terminal  # the bar, drawn then removed
    code, _, terminal = _on_a_terminal(["verify", "--home", str(home)])
    assert code == 0 and "verifying" in terminal and "sets" in terminal
    code, _, terminal = _on_a_terminal(["check", "--home", str(home)])
    assert code == 0 and "checking" in terminal and "sets" in terminal
    for args in (["ingest", str(SEEDS)], ["verify"], ["check"]):
        result = piped(*args, home=home)
        assert result.returncode == 0
        assert result.stderr == f"store: embedded store in {home.resolve()}\n", args  # no bar off a terminal


def test_impact_shows_progress_on_a_terminal(tmp_path):
    from tests.impact_repo import build_impact_repo

    repo = tmp_path / "tolaria"
    build_impact_repo(repo)
    home = tmp_path / "home"
    assert runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)]).exit_code == 0
    args = ["impact", "--repo", str(repo), "--set", "tolaria", "--from", "53cb39d", "--to", "main", "--home", str(home)]
    code, stdout, terminal = _on_a_terminal(args)
    assert code == 0 and stdout.splitlines()[0] == "Impact on tolaria (tolaria/SRC-1) from 53cb39d5a153 to e0a4eb677245"
    assert "impact" in terminal and "8/8" in terminal and "steps" in terminal  # 4 steps and 4 quotations
    result = piped(*args[:-2], home=home)
    assert result.returncode == 0 and result.stderr == f"store: embedded store in {home.resolve()}\n"
    rows = list(csv.DictReader(io.StringIO(piped(*args[:-2], "--format", "csv", home=home).stdout)))
    assert len([r for r in rows if r["kind"] == "statement"]) == 18 and rows[0]["conclusion"] == "True"


@pytest.mark.neo4j
def test_copy_shows_progress_on_a_terminal(tmp_path, neo4j_server, neo4j_store):
    home = tmp_path / "home"
    assert runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)]).exit_code == 0
    code, stdout, terminal = _on_a_terminal(
        ["copy", "--to", neo4j_server.uri, "--home", str(home)],
        {"CITEGRAPH_NEO4J_USER": neo4j_server.user, "CITEGRAPH_NEO4J_PASSWORD": neo4j_server.password or "",
         "CITEGRAPH_NEO4J_DATABASE": neo4j_server.database})
    assert code == 0 and "copied 2 sets (3 documents, 0 reviews)" in stdout
    assert "copying" in terminal and "2/2" in terminal and "sets" in terminal


def test_rests_on_a_file_or_a_source_from_the_cli(home, seeds_store):
    data = cli_data("rests-on", "mcp-server/vault.js", "--set", "tolaria", home=home)
    assert (data["kind"], data["records"], len(data["results"])) == (
        "source_file", ["tolaria/file/mcp-server/vault.js"], 10)
    assert data == plain(rests_on(seeds_store, "mcp-server/vault.js", set_id="tolaria", kind="source_file"))
    data = cli_data("rests-on", "SRC-1", home=home)
    assert (data["kind"], data["records"], len(data["results"])) == ("source", ["talorys/SRC-1", "tolaria/SRC-1"], 38)
    missing = run("rests-on", "mcp-server/vault.jss", home=home)
    assert missing.exit_code == 66
    assert "and it is no source ID or cited file either" in missing.stderr
    assert "hint: did you mean mcp-server/vault.js" in missing.stderr


@pytest.mark.parametrize("args", [["history", "tolara"], ["diff", "tolara"], ["stats", "--set", "tolara"],
                                  ["compare", "tolara", "talorys"], ["review", "--list", "--set", "tolara"]],
                         ids=lambda a: " ".join(a))
def test_history_runs_stats_and_reviews_name_the_closest_set(args, home):
    result = run(*args, home=home)
    assert result.exit_code == 66
    assert result.stderr.splitlines()[1:] == [
        "error: no analysis set 'tolara' in the store",
        "hint: did you mean tolaria? the store holds 2 sets: talorys, tolaria (citegraph sets lists them)"]


@pytest.mark.parametrize("path", ["/sets/tolara/versions", "/sets/tolara/diff", "/compare?a=tolara&b=talorys"])
def test_history_routes_name_the_closest_set(path, client):
    error = client.get(path).json()["error"]
    assert (error["code"], error["hint"]) == (
        "NOT_FOUND", "did you mean tolaria? the store holds 2 sets: talorys, tolaria (citegraph sets lists them)")


def test_a_clipped_snippet_never_cuts_a_match_in_two():
    from rich.text import Text

    from app.cli_tables import TEXT_LINES, clip_cell

    width = 20
    room = int(width * TEXT_LINES * 0.9)
    text = Text("x" * (room - 3) + " the note and more words after it")
    text.stylize("bold reverse", room - 2, room + 6)  # "the note", across the cut
    clipped = clip_cell(text, width)
    assert clipped.plain == "x" * (room - 3) + "…"
    assert clip_cell(Text("y" * (room + 10)), width).plain == "y" * (room - 1) + "…"


def test_every_table_command_takes_json_as_format_json(home):
    """The README: ``--json`` is ``--format json`` on every command printing a table (``--format
    table|json|csv``); it prints the same bytes."""
    group = cli_group()
    table_commands = sorted(
        name for name, command in group.commands.items()
        if any("--format" in p.opts and {"table", "json", "csv"} <= set(getattr(p.type, "choices", ()))
               for p in command.params))
    without_json = [name for name in table_commands
                    if not any("--json" in p.opts for p in group.commands[name].params)]
    assert table_commands == ["documents", "impact", "ingest", "records", "rests-on", "search", "sets", "stats"]
    assert without_json == []
    for args in (["sets"], ["documents", "--set", "tolaria"], ["records", "--set", "tolaria", "--kind", "RTE"],
                 ["search", "compare-and-swap"]):
        flag, fmt = run(*args, "--json", home=home), run(*args, "--format", "json", home=home)
        assert (flag.exit_code, flag.stdout) == (0, fmt.stdout)
    assert [r["record_id"] for r in json.loads(run("records", "--set", "tolaria", "--kind", "RTE", "--json",
                                                   home=home).stdout)["data"]] == TOLARIA_ROUTES


def test_a_command_run_where_there_is_no_store_says_so_on_stderr_and_keeps_its_output(tmp_path, home):
    """From another folder, ``./.citegraph`` is absent: ``sets`` still prints 0 sets (the same JSON
    shape, exit 0), and standard error names the folder and how to choose another store."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    run_there = subprocess.run([*CITEGRAPH, "sets", "--json"], cwd=elsewhere, env=env, capture_output=True,
                               text=True, timeout=60)
    assert (run_there.returncode, json.loads(run_there.stdout)) == (0, {"data": [], "count": 0})
    assert run_there.stderr.splitlines() == [
        f"store: embedded store in {elsewhere / '.citegraph'}",
        f"note: there is no store in {elsewhere / '.citegraph'} (citegraph.sqlite is absent), so this answers "
        "from an empty store; choose another store with --home DIR or CITEGRAPH_HOME=DIR (default: ./.citegraph "
        "of the current folder), or ingest into this one with citegraph ingest PATHS"]
    assert not (elsewhere / ".citegraph").exists()  # reading made no store

    empty = tmp_path / "empty"  # a store that exists and holds nothing: every set deleted
    assert run("ingest", str(SEEDS / "000_a3dd65b871acf2aa.txt"), home=empty).exit_code == 0
    from graph.stores import open_embedded
    with open_embedded(empty) as store:
        store.delete_documents([d.id for d in store.find_nodes(Label.DOCUMENT)])
    stats = run("stats", "--json", home=empty)
    assert stats.exit_code == 0 and json.loads(stats.stdout)["sets"] == []
    assert stats.stderr.splitlines()[1] == (
        f"note: the embedded store in {empty} holds no analysis sets; choose another store with --home DIR or "
        "CITEGRAPH_HOME=DIR (default: ./.citegraph of the current folder), or ingest some with citegraph ingest PATHS")

    populated = run("sets", "--json", home=home)  # a store holding sets: only the store line
    assert populated.stderr == f"store: embedded store in {home}\n"
    written = run("ingest", str(SEEDS), home=tmp_path / "new")  # ingest into a new store: no note
    assert written.exit_code == 0 and "note:" not in written.stderr
