"""History and runs on every face: the CLI, REST and GraphQL give what the query
functions give, every read takes a version, and bad input (an unknown version, a version without a
set, runs of different systems) has its code on each face (``app/errors.py``)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from queries import shapes
from queries.history import diff_versions, history, store_at
from queries.runs import compare_runs, runs_of
from queries.traversal import rests_on
from tests.history_sets import IM01, IM01_DIR, IM02, IM02_DIR, LEDGER, LEDGER_V1, LEDGER_V2

runner = CliRunner()
R = "RT-RTE-ledger-commit"


def cli_run(*args: str, home) -> object:
    return runner.invoke(cli, [*args, "--home", str(home)])


def cli_json(*args: str, home) -> dict:
    result = cli_run(*args, "--json", home=home)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """An embedded store folder: the ledger set in its two versions, and both Instinctual Memory runs."""
    home = tmp_path_factory.mktemp("home")
    for folder in (LEDGER_V1, LEDGER_V2, IM01_DIR, IM02_DIR):
        result = runner.invoke(cli, ["ingest", str(folder), "--home", str(home)])
        assert result.exit_code == 0, result.output
    return home


@pytest.fixture(scope="module")
def store(home):
    store = SQLiteStore(home / "citegraph.sqlite")
    yield store
    store.close()


@pytest.fixture(scope="module")
def client(store):
    with TestClient(create_app(Settings(environ={}, env_file=None), store=store)) as client:
        yield client


def gql(client, query: str, **variables) -> dict:
    return client.post("/graphql", json={"query": query, "variables": variables}).json()


def test_history_and_diff_agree_on_every_face(home, store, client):
    expected = shapes.plain(history(store, LEDGER))
    assert [v["version"] for v in expected["versions"]] == [1, 2]
    assert cli_json("history", LEDGER, home=home) == expected
    assert client.get(f"/sets/{LEDGER}/versions").json() == expected
    data = gql(client, "query($s: String!) { versions(set: $s) { totalCount edges { node { number latest digest "
                       "members { sha256 } counts { statements citations } } } } }", s=LEDGER)
    assert data["data"]["versions"]["totalCount"] == 2
    assert [(e["node"]["number"], e["node"]["latest"], e["node"]["digest"], e["node"]["counts"])
            for e in data["data"]["versions"]["edges"]] == [
        (v["version"], v["version"] == 2, v["digest"], {"statements": v["counts"]["statements"],
                                                          "citations": v["counts"]["citations"]})
        for v in expected["versions"]]

    diff = shapes.plain(diff_versions(store, LEDGER, 1, 2))
    assert cli_json("diff", LEDGER, "--from", "1", "--to", "2", home=home) == diff
    assert client.get(f"/sets/{LEDGER}/diff", params={"from": 1, "to": 2}).json() == diff
    got = gql(client, "{ diff(set: \"%s\", from: 1, to: 2) { fromVersion toVersion unchanged "
                      "statements { change toStatement kind } restsOn { recordId gained lost fromCount toCount } } }"
              % LEDGER)["data"]["diff"]
    assert (got["fromVersion"], got["toVersion"], got["unchanged"]) == (1, 2, False)
    assert [(s["change"], s["toStatement"], s["kind"]) for s in got["statements"]] == [
        (s["change"], s["to_statement"], s["kind"]) for s in diff["statements"]]
    assert [(r["recordId"], r["gained"], r["lost"], r["fromCount"], r["toCount"]) for r in got["restsOn"]] == [
        (r["record_id"], r["gained"], r["lost"], r["from_count"], r["to_count"]) for r in diff["rests_on"]]

    text = cli_run("diff", LEDGER, home=home)
    assert text.exit_code == 0
    assert text.stdout.splitlines()[:2] == [f"Analysis set {LEDGER}: version 1 → 2",
                                            "3 members, 1 record, 3 statements changed; 3 rests-on answers moved."]
    assert "-- operation conclusion status: uninspected\n+- operation conclusion status: observed" in text.stdout


def test_every_read_takes_a_version(home, store, client):
    at_1 = shapes.plain(rests_on(store_at(store, LEDGER, 1), R, set_id=LEDGER))
    assert len(at_1["results"]) == 3 and len(rests_on(store, R, set_id=LEDGER).results) == 6
    assert cli_json("rests-on", R, "--set", LEDGER, "--version", "1", home=home) == at_1
    rest = client.get(f"/records/{R}/rests-on", params={"set": LEDGER, "version": 1}).json()
    assert rest.pop("count") == 3 and rest == at_1
    assert gql(client, "{ restsOn(record: \"%s\", set: \"%s\", version: 1) { count } }" % (R, LEDGER)) == {
        "data": {"restsOn": {"count": 3}}}
    assert gql(client, "{ restsOn(record: \"%s\", set: \"%s\") { count } }" % (R, LEDGER)) == {
        "data": {"restsOn": {"count": 6}}}
    # one request may read a set at a version beside fields naming their own versions
    mixed = gql(client, "{ restsOn(record: \"%s\", set: \"%s\", version: 1) { count } "
                        "diff(set: \"%s\") { fromVersion toVersion restsOn { recordId toCount } } "
                        "versions(set: \"%s\") { totalCount } }" % (R, LEDGER, LEDGER, LEDGER))["data"]
    assert mixed["restsOn"] == {"count": 3} and mixed["versions"] == {"totalCount": 2}
    assert (mixed["diff"]["fromVersion"], mixed["diff"]["toVersion"]) == (1, 2)
    assert [r["toCount"] for r in mixed["diff"]["restsOn"]] == [6, 3, 6]
    # nested fields read the version too: the reconciliation at version 1 has no amendment
    query = ("query($v: Int) { document(id: \"%s/reconciliation\", version: $v) { statements { totalCount } } }"
             % LEDGER)
    assert gql(client, query, v=1)["data"]["document"]["statements"]["totalCount"] == 2
    assert gql(client, query, v=None)["data"]["document"]["statements"]["totalCount"] == 3

    rendered = cli_run("render", f"{LEDGER}/reconciliation", "--version", "1", home=home)
    assert rendered.exit_code == 0 and "Amendment:" not in rendered.stdout
    assert (LEDGER_V1 / "reconciliation.md").read_text(encoding="utf-8") == rendered.stdout
    assert client.get(f"/documents/{LEDGER}/reconciliation/render", params={"version": 1}).text == rendered.stdout
    assert "Amendment:" in client.get(f"/documents/{LEDGER}/reconciliation/render").text
    assert cli_json("stats", "--set", LEDGER, "--version", "1", home=home)["totals"]["Statement"] == 38
    assert cli_json("stats", "--set", LEDGER, home=home)["totals"]["Statement"] == 39
    assert cli_json("check", "--set", LEDGER, "--version", "1", home=home)["errors"] == 0
    verified = cli_json("verify", "--set", LEDGER, "--version", "1", home=home)
    assert [r["ok"] for r in verified["results"]] == [True, True, True]


def test_runs_and_compare_agree_on_every_face(home, store, client):
    runs = shapes.plain(runs_of(store, "instinctual-memory"))
    assert [r["set"] for r in runs["runs"]] == [IM02, IM01]
    assert cli_json("runs", "instinctual-memory", home=home) == runs
    assert client.get("/systems/instinctual-memory/runs").json() == runs
    got = gql(client, "{ runs(system: \"instinctual-memory\") { edges { node { set date revisions declarations "
                      "analysisSet { runId } } } } }")["data"]["runs"]["edges"]
    assert [(e["node"]["set"], e["node"]["date"], e["node"]["declarations"], e["node"]["analysisSet"]["runId"])
            for e in got] == [(IM02, "2026-09-30", 25, IM02), (IM01, "2026-10-01", 28, IM01)]

    comparison = shapes.plain(compare_runs(store, IM01, IM02))
    assert cli_json("compare", IM01, IM02, home=home) == comparison
    assert client.get("/compare", params={"a": IM01, "b": IM02}).json() == comparison
    got = gql(client, "{ compare(a: \"%s\", b: \"%s\") { matches { a } declared { kind a b } "
                      "unmatched { run recordId candidates { recordId } } files { path runs } } }" % (IM01, IM02))
    got = got["data"]["compare"]
    assert got["matches"] == [] and len(got["unmatched"]) == 53
    assert [(d["kind"], d["a"], d["b"]) for d in got["declared"]] == [
        ("BAP", 0, 3), ("CLM", 1, 2), ("CMP", 0, 3), ("OBJ", 10, 7), ("RTE", 17, 10)]
    text = cli_run("compare", IM01, IM02, home=home)
    assert text.exit_code == 0 and text.stdout.splitlines()[1] == (
        f"Runs {IM01} (a) and {IM02} (b) of system instinctual-memory, at versions 1 and 1: 0 matched records, "
        "28 records only in a, 25 records only in b; 15 source files cited by both, 11 only by a, 5 only by b.")


@pytest.mark.parametrize("case", ["unknown-version", "version-without-set", "different-systems"])
def test_bad_input_has_its_code_on_every_face(home, client, case):
    cli_args, path, params, query, status, code, exit_code, message = {
        "unknown-version": (
            ["rests-on", R, "--set", LEDGER, "--version", "9"], f"/records/{R}/rests-on", {"set": LEDGER, "version": 9},
            '{ restsOn(record: "%s", set: "%s", version: 9) { count } }' % (R, LEDGER), 404, "NOT_FOUND", 66,
            f"analysis set '{LEDGER}' has no version 9; it keeps versions 1–2"),
        "version-without-set": (
            ["rests-on", R, "--version", "1"], f"/records/{R}/rests-on", {"version": 1},
            '{ restsOn(record: "%s", version: 1) { count } }' % R, 400, "BAD_REQUEST", 2,
            "version 1 of which analysis set?"),
        "different-systems": (
            ["compare", IM01, LEDGER], "/compare", {"a": IM01, "b": LEDGER},
            '{ compare(a: "%s", b: "%s") { system } }' % (IM01, LEDGER), 422, "INVALID_INPUT", 2,
            f"{IM01} analyses instinctual-memory but {LEDGER} analyses ledger: runs are compared only when they "
            "analyse the same system"),
    }[case]
    result = cli_run(*cli_args, home=home)
    assert result.exit_code == exit_code
    assert message in " ".join(result.stderr.split())
    response = client.get(path, params=params)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code and response.json()["error"]["message"] == message
    errors = gql(client, query)["errors"]
    assert [(e["message"], e["extensions"]["code"]) for e in errors] == [(message, code)]


def test_a_diff_of_an_unknown_version_is_not_found(home, client):
    result = cli_run("diff", LEDGER, "--from", "1", "--to", "5", home=home)
    assert result.exit_code == 66
    assert client.get(f"/sets/{LEDGER}/diff", params={"from": 1, "to": 5}).status_code == 404
    assert client.get("/sets/nope/versions").json()["error"]["code"] == "NOT_FOUND"
    assert cli_run("runs", "nope", home=home).exit_code == 66


def test_a_member_removed_since_is_read_at_the_version_that_had_it(tmp_path):
    home = tmp_path / "home"
    assert runner.invoke(cli, ["ingest", str(LEDGER_V1), "--home", str(home)]).exit_code == 0
    store = SQLiteStore(home / "citegraph.sqlite")
    store.delete_documents([f"{LEDGER}/synthesis"])  # version 2: the synthesis is gone
    store.close()
    gone = cli_run("render", f"{LEDGER}/synthesis", home=home)
    assert gone.exit_code == 66
    old = cli_run("render", f"{LEDGER}/synthesis", "--version", "1", home=home)
    assert old.exit_code == 0 and old.stdout == (LEDGER_V1 / "synthesis.md").read_text(encoding="utf-8")
    with TestClient(create_app(Settings(environ={}, env_file=None), store=SQLiteStore(home / "citegraph.sqlite"))) as c:
        assert c.get(f"/documents/{LEDGER}/synthesis/render", params={"version": 1}).text == old.stdout
        assert c.get(f"/documents/{LEDGER}/synthesis", params={"version": 1}).json()["role"] == "synthesis"
        assert c.get(f"/documents/{LEDGER}/synthesis").status_code == 404
        data = gql(c, '{ document(id: "%s/synthesis", version: 1) { role } }' % LEDGER)
        assert data == {"data": {"document": {"role": "synthesis"}}}


def test_impact_reads_a_version_of_the_set(tmp_path):
    from tests.conftest import SEEDS
    from tests.impact_repo import build_impact_repo
    from tests.queries.test_history import amended_seeds

    repo = build_impact_repo(tmp_path / "tolaria")
    both, first = tmp_path / "both", tmp_path / "first"
    amended = amended_seeds(tmp_path / "amended")
    for home, folders in ((both, (SEEDS, amended)), (first, (SEEDS,))):
        for folder in folders:
            assert runner.invoke(cli, ["ingest", str(folder), "--home", str(home)]).exit_code == 0
    args = ["impact", "--repo", str(repo.path), "--set", "tolaria", "--from", repo["c0"], "--to", repo["c7"], "--json"]
    at_1 = runner.invoke(cli, [*args, "--version", "1", "--home", str(both)])
    original = runner.invoke(cli, [*args, "--home", str(first)])
    latest = runner.invoke(cli, [*args, "--home", str(both)])
    assert at_1.exit_code == original.exit_code == latest.exit_code == 0, at_1.output
    assert json.loads(at_1.stdout) == json.loads(original.stdout)
    suspects = lambda out: {s["node"]: s["depth"] for s in json.loads(out)["suspects"]}  # noqa: E731
    assert suspects(at_1.stdout)["tolaria/synthesis#L11"] == suspects(latest.stdout)["tolaria/synthesis#L11"] == 2
    assert json.loads(at_1.stdout)["summary"] == json.loads(latest.stdout)["summary"]


def test_search_and_export_read_a_version_on_every_face(home, client):
    """The runtime's conclusion at line 51 is ``uninspected`` in version 1 only (``observed`` in 2)."""
    runtime = f"{LEDGER}/runtime"
    latest = [f"{runtime}#L37", f"{runtime}#L43", f"{runtime}#L57"]
    at_1 = [f"{runtime}#L37", f"{runtime}#L51", f"{runtime}#L43", f"{runtime}#L57"]  # ranked: shorter first

    def search_json(*args: str) -> dict:
        result = cli_run("search", "uninspected", "--set", LEDGER, *args, "--format", "json", home=home)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    found = search_json("--version", "1")
    assert [h["statement"] for h in found["hits"]] == at_1
    assert [h["statement"] for h in search_json()["hits"]] == latest
    assert client.get("/search", params={"q": "uninspected", "set": LEDGER, "version": 1}).json() == found
    assert [h["statement"] for h in client.get("/search", params={"q": "uninspected", "set": LEDGER}).json()["hits"]] == latest
    data = gql(client, "query($s: String!) { search(text: \"uninspected\", set: $s, version: 1) { total hits { statement } }"
                       " restsOn(record: \"%s\", set: $s, version: 1) { count } }" % R, s=LEDGER)
    assert data["data"]["search"] == {"total": 4, "hits": [{"statement": s} for s in at_1]}

    no_set = client.get("/search", params={"q": "uninspected", "version": 1})
    assert (no_set.status_code, no_set.json()["error"]["code"]) == (400, "BAD_REQUEST")
    unknown = client.get("/export", params={"format": "json", "set": LEDGER, "version": 9})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "NOT_FOUND")
    exported = client.get("/export", params={"format": "json", "set": LEDGER, "version": 1}).json()
    assert [n["props"]["text"] for n in exported["nodes"] if n["id"] == f"{runtime}#L51"] == ["operation conclusion status: uninspected"]
    result = runner.invoke(cli, ["export", "--set", LEDGER, "--version", "1", "--format", "json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == exported


def test_the_faces_types_are_the_results():
    """Each face's history and runs shapes come from the result dataclasses: GraphQL keeps their
    fields in order (its own additions in place), REST keys them by wire name, and a depth change is
    a triple on the JSON faces but an object on GraphQL."""
    from app.graphql.schema import schema
    from app.rest.routes.history import SetDiffOut, SetHistoryOut
    from queries.history import DepthChange

    def fields(name: str) -> list[str]:
        return list(schema._schema.get_type(name).fields)

    assert fields("SetVersion") == ["set", "number", "created", "digest", "latest", "members", "counts"]
    assert fields("SetDiff") == ["set", "fromVersion", "toVersion", "unchanged", "members", "records", "statements",
                                 "citations", "quotations", "limitations", "restsOn"]
    assert fields("DepthChange") == ["statement", "fromDepth", "toDepth"]
    assert fields("Run")[-1] == "analysisSet" and fields("RunComparison")[5] == "declared"
    assert [f.alias or n for n, f in SetHistoryOut.model_fields.items()] == ["set", "latest", "versions"]
    assert [f.alias or n for n, f in SetDiffOut.model_fields.items()][:3] == ["set", "from", "to"]
    assert shapes.plain(DepthChange("s/d#L1", 1, 2)) == ["s/d#L1", 1, 2]
