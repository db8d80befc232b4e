"""``POST /hooks/push`` (GitHub, GitLab and Gitea deliveries), ``GET /impact-runs`` and GraphQL
``impactRuns``, on every store: a signed push of the clone under CITEGRAPH_REPO_ROOTS (the
repository of tests/impact_repo.py, its remote naming refactoringhq/tolaria) makes one run whose
result is impact_on_repository at the pushed commit, over the knowledge base of
tests/queries/test_impact_repository.py (tolaria pinned to c0, toleria to c5, tolurio missing)."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
from fastapi.testclient import TestClient

from app.rest.main import create_app
from app.settings import Settings
from ingest.git import GitRepository
from queries.impact import impact_on_repository
from queries.shapes import plain
from tests.conftest import ingest_into
from tests.impact_repo import build_impact_repo, git
from tests.queries.test_impact_repository import knowledge_base

SECRET = "s3cret-hook"
REMOTE = "git@github.com:refactoringhq/tolaria.git"


def payload(host: str, after: str, name: str = "refactoringhq/tolaria") -> bytes:
    """A push payload in ``host``'s format (the fields citegraph reads, as the hosts send them)."""
    if host == "gitlab":
        body = {"object_kind": "push", "event_name": "push", "ref": "refs/heads/main", "after": after,
                "project": {"path_with_namespace": name, "git_http_url": f"https://gitlab.com/{name}.git",
                            "git_ssh_url": f"git@gitlab.com:{name}.git", "web_url": f"https://gitlab.com/{name}"}}
    else:
        site = "github.com" if host == "github" else "gitea.example.org"
        body = {"ref": "refs/heads/main", "before": "0" * 40, "after": after,
                "repository": {"full_name": name, "clone_url": f"https://{site}/{name}.git",
                               "ssh_url": f"git@{site}:{name}.git", "html_url": f"https://{site}/{name}"}}
    return json.dumps(body).encode("utf-8")


def headers(host: str, body: bytes, delivery: str, *, secret: str | None = SECRET, event: str = "push") -> dict:
    signature = hmac.new((secret or "").encode(), body, hashlib.sha256).hexdigest()
    if host == "github":
        out = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery}
        return {**out, "X-Hub-Signature-256": f"sha256={signature}"} if secret else out
    if host == "gitea":
        out = {"X-Gitea-Event": event, "X-Gitea-Delivery": delivery, "X-GitHub-Event": event}
        return {**out, "X-Gitea-Signature": signature} if secret else out
    out = {"X-Gitlab-Event": "Push Hook" if event == "push" else event, "X-Gitlab-Event-UUID": delivery}
    return {**out, "X-Gitlab-Token": secret} if secret else out


@pytest.fixture
def served(store, tmp_path):
    roots = tmp_path / "roots"
    built = build_impact_repo(roots / "tolaria")
    git(built.path, "remote", "add", "origin", REMOTE)
    ingest_into(store, knowledge_base(tmp_path / "kb", built))
    expected = plain(impact_on_repository(store, GitRepository(built.path), names=[REMOTE], to_revision=built["c7"]))
    settings = Settings(home=tmp_path / "home", repo_roots=[roots], hook_secret=SECRET, env_file=None)
    with TestClient(create_app(settings, store=store)) as client:
        yield client, built, expected


@pytest.mark.parametrize("host", ["github", "gitlab", "gitea"])
def test_a_signed_push_makes_one_run_and_a_replay_no_other(served, host):
    client, built, expected = served
    body = payload(host, built["c7"])
    answer = client.post("/hooks/push", content=body, headers=headers(host, body, f"{host}-delivery-1"))
    assert answer.status_code == 202, answer.text
    run = answer.json()
    assert (run["host"], run["repository"], run["ref"], run["after"], run["clone"], run["state"]) == (
        host, "refactoringhq/tolaria", "refs/heads/main", built["c7"], str(built.path), "queued")
    done = client.get(f"/impact-runs/{run['id']}").json()  # the background task ran after the response
    assert (done["state"], done["error"]) == ("done", None)
    assert done["result"] == expected
    assert [(s["set"], s["summary"]["statements"]) for s in done["result"]["sets"]] == [("tolaria", 18), ("toleria", 15)]
    assert [p["set"] for p in done["result"]["unanalysed"]] == ["tolurio"]

    replay = client.post("/hooks/push", content=body, headers=headers(host, body, f"{host}-delivery-1"))
    assert (replay.status_code, replay.json()["id"]) == (200, run["id"])
    listed = client.get("/impact-runs").json()
    assert listed["count"] == 1 and [r["id"] for r in listed["data"]] == [run["id"]]
    gql = client.post("/graphql", json={"query": "{ impactRuns { id host state result { summary { sets statements } } } }"})
    assert gql.json()["data"]["impactRuns"] == [
        {"id": run["id"], "host": host, "state": "done", "result": {"summary": {"sets": 2, "statements": 33}}}]


@pytest.mark.parametrize("host", ["github", "gitlab", "gitea"])
def test_unsigned_or_wrongly_signed_deliveries_are_refused_and_store_nothing(served, host):
    client, built, _ = served
    body = payload(host, built["c7"])
    unsigned = client.post("/hooks/push", content=body, headers=headers(host, body, "d-unsigned", secret=None))
    assert unsigned.status_code == 401 and "missing" in unsigned.json()["error"]["message"]
    wrong = client.post("/hooks/push", content=body, headers=headers(host, body, "d-wrong", secret="not-it"))
    assert wrong.status_code == 401 and "wrong" in wrong.json()["error"]["message"]
    assert client.get("/impact-runs").json()["count"] == 0


def test_deliveries_without_id_other_events_and_other_repositories(served):
    client, built, _ = served
    body = payload("github", built["c7"])
    no_id = {k: v for k, v in headers("github", body, "x").items() if k != "X-GitHub-Delivery"}
    first, again = (client.post("/hooks/push", content=body, headers=no_id) for _ in range(2))
    assert (first.status_code, again.status_code) == (202, 200)
    assert first.json()["delivery"] == "sha256:" + hashlib.sha256(body).hexdigest() == again.json()["delivery"]
    ping = client.post("/hooks/push", content=b"{}", headers=headers("github", b"{}", "p", event="ping"))
    assert ping.status_code == 204
    other = payload("github", built["c7"], name="someone/else")
    run = client.post("/hooks/push", content=other, headers=headers("github", other, "d-other")).json()
    failed = client.get(f"/impact-runs/{run['id']}").json()
    assert (failed["state"], failed["clone"]) == ("failed", None)
    assert failed["error"].startswith("no clone of someone/else under CITEGRAPH_REPO_ROOTS")
    assert client.get("/impact-runs", params={"repository": "someone/else"}).json()["count"] == 1
    assert client.get("/impact-runs/999").status_code == 404
    bad = b"not json"
    assert client.post("/hooks/push", content=bad, headers=headers("github", bad, "d-bad")).status_code == 422


def test_hooks_are_off_without_a_secret(store, tmp_path):
    with TestClient(create_app(Settings(home=tmp_path / "home", env_file=None), store=store)) as client:
        body = payload("github", "a" * 40)
        off = client.post("/hooks/push", content=body, headers=headers("github", body, "d"))
    assert off.status_code == 403 and off.json()["error"]["message"] == "push hooks are off"


def test_the_dashboard_shows_the_latest_run_of_each_repository(served):
    client, built, _expected = served
    empty = client.get("/embed/impact-runs")
    assert empty.status_code == 200 and "No push received yet" in empty.text
    for n, after in enumerate((built["c3"], built["c7"]), start=1):
        body = payload("github", after)
        client.post("/hooks/push", content=body, headers=headers("github", body, f"d{n}"))
    page = client.get("/embed/impact-runs")
    assert page.status_code == 200 and "frame-ancestors" in page.headers["content-security-policy"]
    assert page.text.count('<section class="cg-repository">') == 1  # two runs of one repository: the latest shown
    assert f"Run 2 (github push of {built['c7'][:12]} to refs/heads/main" in page.text
    assert "2 sets analysed, 1 not; 33 suspect statements, of which 8 conclusions" in page.text
    # the explanation each conclusion's best path ends at: tolaria (from c0) through the rename, toleria (from c5) vault.js
    assert "<td>tolaria/synthesis#L11 (renamed mcp-server/index.js → mcp-server/server.js)<br>" in page.text
    assert "<td>toleria/synthesis#L11 (modified mcp-server/vault.js)<br>" in page.text
    assert "not analysed: the clone lacks the pinned commit 48f2a70844c1e8005a7aa5f1499c66f7678360de" in page.text


def test_the_clone_is_fetched_only_when_configured(store, tmp_path):
    upstream = build_impact_repo(tmp_path / "upstream")
    clone = tmp_path / "roots" / "tolaria"
    git(tmp_path, "clone", "-q", str(upstream.path), str(clone))
    ingest_into(store, knowledge_base(tmp_path / "kb", upstream))
    (upstream.path / "README.md").write_text("# Tolaria\n\nmoved on\n", encoding="utf-8")
    git(upstream.path, "commit", "-qam", "a commit the clone lacks")
    pushed = git(upstream.path, "rev-parse", "HEAD")
    common = dict(home=tmp_path / "home", repo_roots=[tmp_path / "roots"], hook_secret=SECRET, env_file=None,
                  repo_names={str(clone): "refactoringhq/tolaria"})  # its remote is a folder: the mapping names it
    body = payload("gitea", pushed)
    with TestClient(create_app(Settings(**common), store=store)) as client:
        run = client.post("/hooks/push", content=body, headers=headers("gitea", body, "f1")).json()
        failed = client.get(f"/impact-runs/{run['id']}").json()
    assert failed["state"] == "failed" and f"revision '{pushed}' is not a commit of" in failed["error"]
    with TestClient(create_app(Settings(**common, hook_fetch=True), store=store)) as client:
        run = client.post("/hooks/push", content=body, headers=headers("gitea", body, "f2")).json()
        done = client.get(f"/impact-runs/{run['id']}").json()
    assert (done["state"], done["result"]["to"]) == ("done", pushed)
    assert [(s["set"], s["from"]) for s in done["result"]["sets"]] == [("tolaria", upstream["c0"]),
                                                                      ("toleria", upstream["c5"])]


def test_suspects_lists_what_the_latest_run_flagged_until_reviewed(served, store):
    from ingest.reviews import review_suspect

    client, built, expected = served
    assert client.get("/suspects").json() == {"set": None, "suspects": [], "source_change": 0, "analysis_change": 0}
    body = payload("github", built["c7"])
    client.post("/hooks/push", content=body, headers=headers("github", body, "d-suspects"))
    flagged = [s for report in expected["sets"] for s in report["suspects"]]
    listed = client.get("/suspects").json()
    assert (listed["source_change"], listed["analysis_change"]) == (len(flagged), 0) == (59, 0)
    assert sorted(s["node"] for s in listed["suspects"]) == sorted(s["node"] for s in flagged)
    assert {s["cause"] for s in listed["suspects"]} == {"source-change"}
    only = client.get("/suspects", params={"set": "toleria"}).json()
    assert only["source_change"] == len(expected["sets"][1]["suspects"]) and {s["set"] for s in only["suspects"]} == {"toleria"}
    node = flagged[0]["node"]
    review_suspect(store, node, revision=built["c5"], reviewer="ada")  # not the run's revision: still open
    assert client.get("/suspects").json()["source_change"] == 59
    review_suspect(store, node, revision=built["c7"], reviewer="ada")
    after = client.get("/suspects").json()
    assert after["source_change"] == 58 and node not in [s["node"] for s in after["suspects"] if s["set"] == flagged[0]["set"]]
    gql = client.post("/graphql", json={"query": "{ suspects { sourceChange analysisChange suspects { node cause } } }"}).json()
    assert gql["data"]["suspects"]["sourceChange"] == 58 and gql["data"]["suspects"]["analysisChange"] == 0
    assert client.get("/suspects", params={"set": "nope"}).status_code == 404
