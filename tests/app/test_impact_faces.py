"""``citegraph impact``/``review``, ``POST /impact`` and GraphQL ``impact`` agree with impact_of."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import cli
from app.rest.main import create_app
from app.settings import Settings
from ingest.git import GitRepository
from queries.impact import impact_of
from queries.shapes import plain
from tests.conftest import SEEDS
from tests.impact_repo import ImpactRepo, build_impact_repo

runner = CliRunner()
PINNED = "48f2a70844c1e8005a7aa5f1499c66f7678360de"

GQL = """query($repo: String!, $to: String!, $from: String, $set: String) {
  impact(repo: $repo, to: $to, from: $from, set: $set) {
    set source from to
    summary { changedFiles uncitedChanges intact moved ambiguous broken statements records sections documents
              conclusions reviewed }
    changes { file path status oldPath newPath citedBy renamed }
    uncitedChanges
    quotations { quotation statement document path checkedPath text state foundIn { path count } reason
                 old { path revision startLine endLine text } new { path revision startLine endLine text } diff }
    suspects { ...S }
    reviewed { ...S }
  }
}
fragment S on Suspect { node kind set document section sectionHeading text line file order conclusion depth path edges
                        trigger change review { id node set revision reviewer at note fingerprint }
                        cause versionChange { set part node name from to digest old new } }"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> ImpactRepo:
    return build_impact_repo(tmp_path_factory.mktemp("faces") / "tolaria")


def ingested_home(tmp_path, source=SEEDS):
    home = tmp_path / "home"
    result = runner.invoke(cli, ["ingest", str(source), "--home", str(home)])
    assert result.exit_code == 0, result.output
    return home


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return ingested_home(tmp_path_factory.mktemp("impact-home"))


@pytest.fixture(scope="module")
def client(seeds_store, tmp_path_factory):
    roots = [tmp_path_factory.getbasetemp()]  # every test repository and folder lives under it
    with TestClient(create_app(Settings(repo_roots=roots), store=seeds_store)) as client:
        yield client


def camel(value):
    """``plain`` keys as GraphQL names them (``old_path`` → ``oldPath``)."""
    if isinstance(value, dict):
        return {re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value


def cli_impact(*args, home, code=0):
    result = runner.invoke(cli, ["impact", *args, "--home", str(home)])
    assert result.exit_code == code, result.output
    return result


def test_every_face_agrees_with_the_query(built, home, client, seeds_store):
    expected = plain(impact_of(seeds_store, GitRepository(built.path), to_revision=built["c3"],
                               from_revision=built["c0"], set_id="tolaria"))
    assert expected["summary"]["statements"] == 13 and expected["summary"]["moved"] == 1

    got = cli_impact("--repo", str(built.path), "--set", "tolaria", "--from", built["c0"], "--to", built["c3"],
                     "--json", home=home)
    assert json.loads(got.stdout) == expected

    rest = client.post("/impact", json={"repo": str(built.path), "set": "tolaria", "from": built["c0"],
                                        "to": built["c3"]})
    assert rest.status_code == 200, rest.text
    assert rest.json() == expected

    gql = client.post("/graphql", json={"query": GQL, "variables": {
        "repo": str(built.path), "to": built["c3"], "from": built["c0"], "set": "tolaria"}}).json()
    assert "errors" not in gql, gql
    assert gql["data"]["impact"] == camel(expected)


def test_from_defaults_to_the_pinned_commit_on_every_face(built, tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for seed in SEEDS.iterdir():
        (seeds / seed.name).write_text(seed.read_text(encoding="utf-8").replace(PINNED, built["c0"]), encoding="utf-8")
    home = ingested_home(tmp_path, seeds)
    got = json.loads(cli_impact("--repo", str(built.path), "--set", "tolaria", "--to", "main", "--json",
                                home=home).stdout)
    assert (got["from"], got["to"], got["source"]) == (built["c0"], built["c7"], "tolaria/SRC-1")
    with TestClient(create_app(Settings(home=home, repo_roots=[tmp_path.parent.parent]))) as client:
        assert client.post("/impact", json={"repo": str(built.path), "set": "tolaria", "to": "main"}).json() == got
        gql = client.post("/graphql", json={"query": GQL, "variables": {"repo": str(built.path), "to": "main",
                                                                          "set": "tolaria"}}).json()
        assert gql["data"]["impact"] == camel(got)


def test_fail_on_suspect(built, home):
    common = ["--repo", str(built.path), "--set", "tolaria", "--from", built["c0"], "--fail-on-suspect", "--json"]
    flagged = cli_impact(*common, "--to", built["c3"], home=home, code=1)
    assert json.loads(flagged.stdout)["summary"]["statements"] == 13
    clean = cli_impact(*common, "--to", built["c1"], home=home, code=0)
    assert json.loads(clean.stdout)["suspects"] == []


def test_text_output(built, home):
    out = cli_impact("--repo", str(built.path), "--set", "tolaria", "--from", built["c0"], "--to", built["c3"],
                     home=home).stdout
    assert f"Impact on tolaria (tolaria/SRC-1) from {built['c0'][:12]} to {built['c3'][:12]}" in out
    assert "tolaria/workflow-report#Q39 (moved):" in out
    assert "+      action.status === 'pending' ? { ...action, status: 'completed' as const } : action" in out
    assert out.rstrip().endswith(
        "2 changed cited files (2 uncited); quotations: 2 intact, 1 moved, 0 ambiguous, 1 broken; suspects: "
        "13 statements (4 conclusions, marked *), 0 records, 10 sections, 2 documents; 0 cleared by reviews")


@pytest.mark.parametrize(("args", "message"), [
    (["--repo", "{tmp}", "--to", "main"], "is not a git repository"),
    (["--repo", "{repo}", "--to", "nope", "--from", "main"], "revision 'nope' is not a commit of"),
    (["--repo", "{repo}", "--to", "main"], f"the pinned revision of tolaria/SRC-1 is missing: revision '{PINNED}'"),
])
def test_bad_repository_or_revision_exits_2(built, home, tmp_path, args, message):
    args = [a.format(tmp=tmp_path, repo=built.path) for a in args]
    result = cli_impact(*args, "--set", "tolaria", home=home, code=2)
    assert message in result.stderr and result.stdout == ""


def test_without_set_every_pinned_set_is_checked(built, home):
    """Without --set impact answers for every set pinning the repository (tests/app/test_impact_repository_faces.py);
    this clone has no remote and no CITEGRAPH_REPO_NAMES entry, so none does, and the set options need --set."""
    result = cli_impact("--repo", str(built.path), "--to", "main", home=home)
    assert result.stdout.startswith(f"Impact of {built['c7'][:12]} on 0 pinned sources (no remote or name: set "
                                    "CITEGRAPH_REPO_NAMES)")
    refused = cli_impact("--repo", str(built.path), "--source", "SRC-1", home=home, code=2)
    assert "--from, --source and --version need --set" in refused.output


def test_bad_input_over_http(built, client, tmp_path):
    rest = client.post("/impact", json={"repo": str(tmp_path), "set": "tolaria", "to": "main"})
    assert rest.status_code == 422 and rest.json()["error"]["code"] == "INVALID_INPUT"
    assert "is not a git repository" in rest.json()["error"]["message"]
    pinned = client.post("/impact", json={"repo": str(built.path), "set": "tolaria", "to": "main"})
    assert pinned.status_code == 422 and "pinned revision" in pinned.json()["error"]["message"]
    gql = client.post("/graphql", json={"query": GQL, "variables": {"repo": str(built.path), "to": "nope",
                                                                      "set": "tolaria"}}).json()
    assert gql["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
    assert gql["errors"][0]["message"].startswith("revision 'nope' is not a commit of")


def test_review_then_impact(built, tmp_path):
    home = ingested_home(tmp_path)
    node = "tolaria/workflow-report#L43"
    result = runner.invoke(cli, ["review", node, "--at", "main~4", "--repo", str(built.path), "--by", "ada",
                                 "--note", "guard moved, text holds", "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    (review,) = json.loads(result.stdout)
    assert (review["node"], review["revision"], review["reviewer"], review["note"]) == (
        node, built["c3"], "ada", "guard moved, text holds")

    run = ["--repo", str(built.path), "--set", "tolaria", "--from", built["c0"], "--json"]
    later = json.loads(cli_impact(*run, "--to", built["c5"], home=home).stdout)
    assert [s["node"] for s in later["reviewed"]] == [node]
    assert later["reviewed"][0]["review"]["reviewer"] == "ada"
    assert node not in [s["node"] for s in later["suspects"]]
    again = json.loads(cli_impact(*run, "--to", built["c7"], home=home).stdout)
    assert node in [s["node"] for s in again["suspects"]] and again["reviewed"] == []

    listed = runner.invoke(cli, ["review", "--list", "--json", "--home", str(home)])
    assert listed.exit_code == 0
    assert [(r["node"], r["revision"]) for r in json.loads(listed.stdout)] == [(node, built["c3"])]


def test_review_input_errors(tmp_path, built):
    home = ingested_home(tmp_path)
    usage = runner.invoke(cli, ["review", "--home", str(home)])
    assert usage.exit_code == 2 and "give NODE and --at REV, or --list" in usage.output
    branch = runner.invoke(cli, ["review", "tolaria/synthesis#L29", "--at", "main", "--home", str(home)])
    assert branch.exit_code == 65 and "'main' is not a full commit id" in branch.stderr
    missing = runner.invoke(cli, ["review", "tolaria/synthesis#L999", "--at", built["c0"], "--home", str(home)])
    assert missing.exit_code == 66 and "no node 'tolaria/synthesis#L999'" in missing.stderr
    bad_repo = runner.invoke(cli, ["review", "tolaria/synthesis#L29", "--at", "main", "--repo", str(tmp_path),
                                   "--home", str(home)])
    assert bad_repo.exit_code == 2 and "is not a git repository" in bad_repo.stderr


def test_impact_over_http_only_opens_allowed_repositories(built, seeds_store, tmp_path):
    with TestClient(create_app(Settings(), store=seeds_store)) as closed:
        refused = closed.post("/impact", json={"repo": str(built.path), "set": "tolaria", "to": "main"})
        gql = closed.post("/graphql", json={"query": GQL, "variables": {"repo": str(built.path), "to": "main",
                                                                          "set": "tolaria"}}).json()
    assert gql["errors"][0]["extensions"]["code"] == "FORBIDDEN" and gql["data"] is None
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"
    assert refused.json()["error"]["message"] == "impact over HTTP is disabled"
    with TestClient(create_app(Settings(repo_roots=[tmp_path]), store=seeds_store)) as narrow:
        outside = narrow.post("/impact", json={"repo": str(built.path), "set": "tolaria", "to": "main"})
        escape = narrow.post("/impact", json={"repo": f"{tmp_path}/../..", "set": "tolaria", "to": "main"})
        nul = narrow.post("/impact", json={"repo": f"{tmp_path}/a\u0000b", "set": "tolaria", "to": "main"})
    assert nul.status_code == 422 and nul.json()["error"]["code"] == "INVALID_INPUT"  # was a 500 (ValueError)
    assert nul.json()["error"]["message"] == f"repository path '{tmp_path}/a\\x00b' holds a NUL character"
    assert outside.status_code == escape.status_code == 403
    assert "is outside the allowed roots" in outside.json()["error"]["message"]


def test_the_quotation_table_is_boxed_at_100_columns_as_the_readme_shows_it(built, home):
    """``impact`` on a 100-column terminal: the quotation table is a grid (no path column, every
    reason names its file), line for line the README's."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "COLUMNS": "100"}
    run = subprocess.run([sys.executable, "-c", "from app.cli import main; main()", "impact", "--repo", str(built.path),
                          "--set", "tolaria", "--from", "53cb39d", "--to", "main", "--home", str(home)],
                         capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    lines = run.stdout.splitlines()
    start = lines.index("Quotations at e0a4eb677245")
    table = lines[start:start + 13]
    assert table[1].startswith("┏") and table[-1].startswith("└") and max(map(len, table)) == 100
    readme = (ROOT / "README.md").read_text().splitlines()
    at = readme.index("Quotations at e0a4eb677245")
    assert table == readme[at:at + 13]
