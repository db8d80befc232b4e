"""ingest.git: revisions, rename-aware diffs and file reads over a real repository built in the test."""

from __future__ import annotations

import pytest

from app.errors import hint_of
from graph.errors import RevisionNotFound, SourceRepositoryError
from ingest.git import FileChange, GitRepository
from tests.impact_repo import ImpactRepo, build_impact_repo, git


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> ImpactRepo:
    return build_impact_repo(tmp_path_factory.mktemp("git") / "tolaria")


@pytest.fixture(scope="module")
def repo(built) -> GitRepository:
    return GitRepository(built.path)


def test_resolve_full_short_symbolic_and_relative_revisions(built, repo):
    assert repo.resolve(built["c0"]) == built["c0"]
    assert repo.resolve(built["c0"][:9]) == built["c0"]
    assert repo.resolve("main") == built["c7"]
    assert repo.resolve("vault-only") == built["vault_only"]
    assert repo.resolve("main~7") == built["c0"]


@pytest.mark.parametrize("revision", ["nope", "-h", "--all", "0" * 40, " ", ""])
def test_unknown_revisions_are_refused(repo, revision):
    with pytest.raises(RevisionNotFound):
        repo.resolve(revision)


def test_changes_detect_added_modified_deleted_and_renamed(built, repo):
    assert repo.changes(built["c2"], built["c3"]) == [
        FileChange("added", None, "mcp-server/mtime-guard.js"),
        FileChange("modified", "mcp-server/vault.js", "mcp-server/vault.js"),
    ]
    assert repo.changes(built["c4"], built["c5"]) == [FileChange("renamed", "mcp-server/index.js", "mcp-server/server.js")]
    assert repo.changes(built["c5"], built["c6"]) == [FileChange("deleted", "src/lib/aiAgentSession.ts", None)]
    assert repo.changes(built["c0"], built["c0"]) == []
    # Renames are found across several commits even with edits on the way (c4 edited index.js).
    assert FileChange("renamed", "mcp-server/index.js", "mcp-server/server.js") in repo.changes(built["c0"], built["c7"])


def test_read_files_at_a_revision(built, repo):
    texts = repo.read(built["c0"], ["mcp-server/vault.js", "mcp-server/server.js", "src", "README.md"])
    assert "if (stat.mtimeMs === expectedMtime) return" in texts["mcp-server/vault.js"]
    assert texts["mcp-server/server.js"] is None  # not there yet
    assert texts["src"] is None  # a folder is not a file
    assert texts["README.md"] == "# Tolaria\n\nA Markdown knowledge base.\n"
    assert repo.read(built["c5"], ["mcp-server/server.js"])["mcp-server/server.js"].count("isError: true") == 2


def test_read_skips_binary_files_and_keeps_odd_names(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.name", "t")
    git(tmp_path, "config", "user.email", "t@example.org")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    (tmp_path / "with space é.txt").write_text("ok\n", encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "one")
    repo = GitRepository(tmp_path)
    assert repo.files("HEAD") == ["blob.bin", "with space é.txt"]
    assert repo.read("HEAD", ["blob.bin", "with space é.txt", "missing file"]) == {
        "blob.bin": None, "with space é.txt": "ok\n", "missing file": None}


def test_files_and_ancestry(built, repo):
    assert "mcp-server/mtime-guard.js" in repo.files(built["c3"])
    assert "mcp-server/mtime-guard.js" not in repo.files(built["c2"])
    assert repo.is_ancestor(built["c3"], built["c7"]) and repo.is_ancestor(built["c3"], built["c3"])
    assert not repo.is_ancestor(built["c7"], built["c3"])
    assert not repo.is_ancestor(built["c3"], built["vault_only"])  # another branch


def test_not_a_repository(tmp_path):
    with pytest.raises(SourceRepositoryError, match="is not a git repository"):
        GitRepository(tmp_path)
    with pytest.raises(SourceRepositoryError, match="is not a folder"):
        GitRepository(tmp_path / "missing")


def test_a_folder_inside_a_work_tree_is_refused(built):
    with pytest.raises(SourceRepositoryError, match="not the top level") as info:
        GitRepository(built.path / "mcp-server")
    assert info.value.data == {"top": str(built.path.resolve())}
    assert hint_of(info.value) == f"pass --repo {built.path.resolve()}"  # the faces name the option


def test_caller_git_variables_do_not_redirect_it(built, monkeypatch, tmp_path):
    monkeypatch.setenv("GIT_DIR", str(tmp_path))
    assert GitRepository(built.path).resolve("main") == built["c7"]


def test_a_bare_clone_works(built, tmp_path):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(built.path), str(bare))
    repo = GitRepository(bare)
    assert repo.resolve("main") == built["c7"]
    assert repo.changes(built["c4"], built["c5"]) == [FileChange("renamed", "mcp-server/index.js", "mcp-server/server.js")]
