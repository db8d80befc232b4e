"""A repository path no file system can hold is the client's error, never a 500 (the issue:
``POST /impact`` / GraphQL ``impact`` with a component over 255 bytes or a path over 4,096 raised
``OSError: File name too long`` in ``ingest/git.py``): 422 ``INVALID_INPUT`` naming the problem, on
REST, GraphQL and the CLI, on both stores, with reads open."""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from app.cli import cli
from tests.conftest import SEEDS, ingest_into
from tests.reliability.helpers import served

QUERY = 'query($repo: String!) { impact(repo: $repo, to: "main", set: "tolaria") { to } }'


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "repos"
    root.mkdir()
    return root


def _cases(root):
    component = "x" * 256                                       # one byte over NAME_MAX
    deep = "/".join(["y" * 200] * 21)                             # 21 × 201 bytes: over PATH_MAX
    return [
        (str(root / component), "its component xxxxxxxxxxxxxxxx… is 256 bytes, over the 255 a file name may have"),
        (str(root / ("é" * 128)), "is 256 bytes, over the 255 a file name may have"),   # 128 × 2 UTF-8 bytes
        (f"{root}/{deep}", f"it is {len(str(root)) + 1 + len(deep)} bytes, over the 4095 a path may have"),
    ]


def test_long_repository_paths_are_422_naming_the_problem(store, root):
    ingest_into(store, SEEDS)
    with served(store, repo_roots=[root]) as url, httpx.Client(base_url=url, timeout=60) as client:
        for repo, problem in _cases(root):
            response = client.post("/impact", json={"repo": repo, "set": "tolaria", "to": "main"})
            assert response.status_code == 422, (repo[-40:], response.text)
            assert response.json()["error"]["code"] == "INVALID_INPUT"
            assert problem in response.json()["error"]["message"]
            graphql = client.post("/graphql", json={"query": QUERY, "variables": {"repo": repo}})
            assert graphql.status_code == 200
            (error,) = graphql.json()["errors"]
            assert error["extensions"]["code"] == "INVALID_INPUT" and problem in error["message"]
        assert client.get("/health").status_code == 200


def test_the_cli_names_the_problem_with_exit_2(tmp_path, root):
    home = tmp_path / "home"
    runner = CliRunner()
    assert runner.invoke(cli, ["ingest", str(SEEDS), "--home", str(home)]).exit_code == 0
    for repo, problem in _cases(root):
        result = runner.invoke(cli, ["impact", "--repo", repo, "--set", "tolaria", "--to", "main", "--home", str(home)])
        assert result.exit_code == 2, result.output
        assert problem in result.stderr
