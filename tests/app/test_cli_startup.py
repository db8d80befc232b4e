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
sys.stderr.write("\\nLOADED " + json.dumps(sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))) + "\\n")
sys.exit(code)
"""


def citegraph(*args: str, prelude: str = "", heavy: tuple[str, ...] = HEAVY) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run ``citegraph ARGS`` in a fresh interpreter (after ``prelude``); its result and the
    packages of ``heavy`` loaded when it ended."""
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
    ["impact", "--repo", "{tmp}", "--to", "HEAD", "--set", "tolaria"],  # refused (not a git clone), exit 2
    ["check", str(SEEDS), "--json"],
    ["sets", "--format", "json"],  # issue #15: discovery, search and export are read commands too
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
