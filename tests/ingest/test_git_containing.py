"""ingest.git.GitRepository.containing: the ``git grep`` prefilter for moved-quotation searches."""

from __future__ import annotations

import os

import pytest

from graph.errors import RevisionNotFound
from ingest.git import GitRepository
from tests.impact_repo import git

FILES: dict[str, bytes] = {
    "src/plain.js": b"throw new Error(\n  `Note was modified`,\n)\n",
    "src/ticks.md": b"call `f`(`x`) now\n",
    "src/regex.txt": b"a.c [x] (y) {z} a|b ^s$ q? p+ r* back\\slash\n",
    "src/abc.txt": b"abc xyz yy z\n",
    "src/utf8.txt": "café crème\n".encode(),
    "src/invalid.txt": b"caf\xc3\xa9\xff tail\n",
    "with space é/odd\tname.txt": b"odd name content\n",
    "blob.bin": b"\0binary needle_word\n",
    "big/other.txt": b"nothing to see\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> GitRepository:
    top = tmp_path_factory.mktemp("grep")
    git(top, "init", "-q")
    for path, data in FILES.items():
        target = top / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    os.symlink("target-with-needle_word", top / "link")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "one")
    return GitRepository(top)


def test_fixed_fragments_are_found_byte_for_byte(repo):
    assert repo.containing("HEAD", ["modified`,"]) >= {"src/plain.js"}
    assert "src/plain.js" not in repo.containing("HEAD", ["Error(Note"])  # a line break between
    assert repo.containing("HEAD", ["crème"]) >= {"src/utf8.txt"}
    assert repo.containing("HEAD", ["café"]) >= {"src/utf8.txt", "src/invalid.txt"}  # next to an invalid byte
    assert repo.containing("HEAD", ["tail"]) >= {"src/invalid.txt"}


def test_skipped_characters_may_sit_between_a_fragments_characters(repo):
    assert "src/ticks.md" in repo.containing("HEAD", ["f(x)"], skip="`")
    assert "src/ticks.md" not in repo.containing("HEAD", ["f(x)"])
    assert "src/ticks.md" in repo.containing("HEAD", ["f(x)"], skip="`)(")
    assert "src/plain.js" in repo.containing("HEAD", ["modified,"], skip="`")
    assert "src/plain.js" not in repo.containing("HEAD", ["modified;"], skip="`")


@pytest.mark.parametrize("fragment, holder", [
    ("a.c", "src/regex.txt"), ("[x]", "src/regex.txt"), ("(y)", "src/regex.txt"), ("{z}", "src/regex.txt"),
    ("a|b", "src/regex.txt"), ("^s$", "src/regex.txt"), ("q?", "src/regex.txt"), ("p+", "src/regex.txt"),
    ("r*", "src/regex.txt"), ("back\\slash", "src/regex.txt"),
])
def test_regex_characters_match_literally(repo, fragment, holder):
    for skip in ("", "`"):
        found = repo.containing("HEAD", [fragment], skip=skip)
        assert holder in found
        assert "src/abc.txt" not in found  # "a.c" is not "abc", "a|b" not "a" or "b", "r*" not "" …


def test_many_fragments_at_once_give_the_union(repo):
    single = [repo.containing("HEAD", [f]) for f in ("crème", "tail", "odd")]
    assert repo.containing("HEAD", ["crème", "tail", "odd"]) == set().union(*single)
    assert "with space é/odd\tname.txt" in single[2]  # spelled as files() spells it
    assert "with space é/odd\tname.txt" in repo.files("HEAD")


def test_symbolic_links_and_binary_files(repo):
    # git grep does not search symbolic links, but read() returns their target: always included
    assert "link" in repo.containing("HEAD", ["nowhere-at-all"])
    assert repo.read("HEAD", ["link"])["link"] == "target-with-needle_word"
    assert repo.containing("HEAD", ["nowhere-at-all"]) == {"link"}
    # a binary file may be named (read() gives None for it, so callers count nothing there)
    assert repo.read("HEAD", ["blob.bin"])["blob.bin"] is None


def test_edge_cases(repo):
    assert repo.containing("HEAD", []) == set()
    with pytest.raises(ValueError):
        repo.containing("HEAD", [""])
    with pytest.raises(ValueError):
        repo.containing("HEAD", ["two\nlines"])
    with pytest.raises(ValueError):
        repo.containing("HEAD", ["x"], skip="\n")
    with pytest.raises(RevisionNotFound):
        repo.containing("no-such-revision", ["x"])
    assert repo.containing("HEAD", ["-e"]) is not None  # a fragment is never taken for an option
