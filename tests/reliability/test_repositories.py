"""Impact over HTTP opens only repositories whose git data lie under
``CITEGRAPH_REPO_ROOTS``: a ``.git`` file, a worktree's common folder or an alternate object store
pointing elsewhere is refused with 403 FORBIDDEN, on REST and GraphQL, on both stores."""

from __future__ import annotations

import shutil

import httpx
import pytest

from tests.conftest import SEEDS, ingest_into
from tests.impact_repo import build_impact_repo, git
from tests.reliability.helpers import served

QUERY = "query($repo: String!, $from: String) { impact(repo: $repo, to: \"main\", from: $from, set: \"tolaria\") { to } }"


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """An allowed root holding a real clone and three folders whose git data live outside it, and a
    repository outside the root (the one they point at)."""
    base = tmp_path_factory.mktemp("roots")
    outside = build_impact_repo(base / "elsewhere" / "tolaria")
    allowed = base / "allowed"
    allowed.mkdir()
    inside = build_impact_repo(allowed / "tolaria")
    gitfile = allowed / "gitfile"  # a work tree whose .git file names the outside repository's git folder
    gitfile.mkdir()
    for item in outside.path.iterdir():
        if item.name != ".git":
            (shutil.copytree if item.is_dir() else shutil.copy)(item, gitfile / item.name)
    (gitfile / ".git").write_text(f"gitdir: {outside.path / '.git'}\n")
    relative = allowed / "relative"  # the same with a relative gitdir: line
    shutil.copytree(gitfile, relative)
    (relative / ".git").write_text("gitdir: ../../elsewhere/tolaria/.git\n")
    git(outside.path, "worktree", "add", "-q", str(allowed / "worktree"), outside["c0"])  # .git file → …/worktrees/…
    git(allowed, "clone", "-q", "--shared", str(outside.path), "shared")  # objects/info/alternates → outside
    return allowed, inside, outside


@pytest.mark.parametrize(("folder", "keeps"), [
    ("gitfile", "elsewhere/tolaria/.git"),
    ("relative", "elsewhere/tolaria/.git"),
    ("worktree", "elsewhere/tolaria/.git/worktrees/worktree"),
    ("shared", "elsewhere/tolaria/.git/objects"),
])
def test_a_repository_keeping_its_git_data_outside_the_roots_is_403(store, layout, folder, keeps):
    allowed, _inside, outside = layout
    ingest_into(store, SEEDS)
    repo = str(allowed / folder)
    expected = {"code": "FORBIDDEN",
                "message": f"repository {repo} keeps its git data in {allowed.parent / keeps}, outside the allowed roots",
                "hint": "CITEGRAPH_REPO_ROOTS must hold the repository's git folder too"}
    with served(store, repo_roots=[allowed]) as url:
        response = httpx.post(f"{url}/impact", json={"repo": repo, "set": "tolaria", "from": outside["c0"], "to": "main"},
                              timeout=120)
        assert (response.status_code, response.json()) == (403, {"error": expected})
        graphql = httpx.post(f"{url}/graphql", json={"query": QUERY, "variables": {"repo": repo, "from": outside["c0"]}},
                             timeout=120).json()
        assert [(e["extensions"]["code"], e["message"]) for e in graphql["errors"]] == [("FORBIDDEN", expected["message"])]


def test_a_repository_inside_the_roots_is_served(store, layout):
    allowed, inside, _ = layout
    ingest_into(store, SEEDS)
    with served(store, repo_roots=[allowed]) as url:
        response = httpx.post(f"{url}/impact", json={"repo": str(inside.path), "set": "tolaria", "from": inside["c0"],
                                                     "to": "main"}, timeout=120)
        assert response.status_code == 200, response.text
        assert response.json()["summary"]["changed_files"] == 4
