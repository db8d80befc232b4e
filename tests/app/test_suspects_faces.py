"""``citegraph suspects``, ``GET /suspects`` and GraphQL ``suspects`` give what
:func:`queries.impact.open_suspects` gives: after a re-ingest of the ledger set with one changed
declaration, the six statements resting on that record in both runs, until reviewed (through
``citegraph review`` at the version's digest)."""

from __future__ import annotations

import json
import shutil

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from queries.impact import open_suspects
from queries.shapes import plain
from tests.app.test_impact_faces import camel
from tests.history_sets import LEDGER, LEDGER_RUN_2, LEDGER_V1, second_ledger_run

runner = CliRunner()
R = "RT-RTE-ledger-commit"


GQL = """query($set: String) { suspects(set: $set) { set sourceChange analysisChange suspects {
  node kind set document section sectionHeading text line file order conclusion depth path edges trigger change
  review { id node set revision reviewer at note fingerprint }
  cause versionChange { set part node name from to digest old new } } } }"""


def cli_run(*args: str, home):
    result = runner.invoke(cli, [*args, "--home", str(home)])
    assert result.exit_code == 0, result.output
    return result


def test_every_face_lists_the_analysis_change_suspects_until_reviewed(tmp_path):
    home, ledger = tmp_path / "home", shutil.copytree(LEDGER_V1, tmp_path / "ledger")
    for folder in (ledger, second_ledger_run(tmp_path / "run2")):
        cli_run("ingest", str(folder), home=home)
    assert json.loads(cli_run("suspects", "--json", home=home).stdout) == {
        "set": None, "suspects": [], "source_change": 0, "analysis_change": 0}
    runtime = ledger / "runtime.md"
    runtime.write_text(runtime.read_text(encoding="utf-8").replace(
        "- Later read-back: readers see committed entries.", "- Later read-back: readers see committed entries once flushed."),
        encoding="utf-8")
    cli_run("ingest", str(ledger), home=home)

    got = json.loads(cli_run("suspects", "--json", home=home).stdout)
    store = SQLiteStore(home / "citegraph.sqlite")
    try:
        assert got == plain(open_suspects(store))
        digest = store.set_versions(LEDGER)[-1].digest
        with TestClient(create_app(Settings(environ={}, env_file=None), store=store)) as client:
            assert client.get("/suspects").json() == got
            gql = client.post("/graphql", json={"query": GQL}).json()
            assert gql["data"]["suspects"] == camel(got)
            only = client.get("/suspects", params={"set": LEDGER_RUN_2}).json()
    finally:
        store.close()
    assert (got["source_change"], got["analysis_change"]) == (0, 6)
    assert [(s["node"], s["conclusion"], s["depth"], s["cause"]) for s in got["suspects"]] == [
        (f"{LEDGER}/synthesis#L18", True, 1, "analysis-change"),
        (f"{LEDGER_RUN_2}/synthesis#L18", True, 1, "analysis-change"),
        (f"{LEDGER}/reconciliation#L14", False, 1, "analysis-change"),
        (f"{LEDGER}/runtime#L14", False, 1, "analysis-change"),
        (f"{LEDGER_RUN_2}/reconciliation#L14", False, 1, "analysis-change"),
        (f"{LEDGER_RUN_2}/runtime#L14", False, 1, "analysis-change")]
    assert {(s["version_change"]["part"], s["version_change"]["node"], s["version_change"]["from"],
             s["version_change"]["to"], s["version_change"]["digest"]) for s in got["suspects"]} == {
        ("declaration", f"{LEDGER}/{R}", 1, 2, digest)}
    assert [s["node"] for s in only["suspects"]] == [
        f"{LEDGER_RUN_2}/synthesis#L18", f"{LEDGER_RUN_2}/reconciliation#L14", f"{LEDGER_RUN_2}/runtime#L14"]

    text = cli_run("suspects", "--set", LEDGER_RUN_2, home=home).stdout
    assert f"review at {digest}" in text and "once flushed." in text.split("now: ")[1].splitlines()[0]
    assert text.rstrip().endswith("3 open suspects: 0 source-change, 3 analysis-change")
    for s in only["suspects"]:
        cli_run("review", s["node"], "--at", digest, "--by", "ada", home=home)
    assert json.loads(cli_run("suspects", "--set", LEDGER_RUN_2, "--json", home=home).stdout)["suspects"] == []
    assert json.loads(cli_run("suspects", "--json", home=home).stdout)["analysis_change"] == 3
    failing = runner.invoke(cli, ["suspects", "--fail-on-suspect", "--home", str(home)])
    assert failing.exit_code == 1, failing.output
