"""Read access to the analysed source's git history: revisions, renames-aware diffs, file contents.

Implements what :class:`queries.impact.SourceRepository` asks for (impact analysis when
the analysed source moves).

Why the ``git`` binary (through :mod:`subprocess`) rather than pygit2, dulwich or GitPython
---------------------------------------------------------------------------------------------
- **Same answers as the user's git.** Rename detection is a heuristic (``--find-renames``, 50 %
  similarity by default); only git itself gives exactly the renames ``git log --stat`` and code
  review tools show. dulwich has its own rename detector, pygit2 libgit2's.
- **Every repository git can read**: packs, worktrees, alternates, partial clones, SHA-256 object
  format, ``safe.directory`` checks. GitPython shells out to the same binary anyway.
- **No new dependency**, no compiled wheel (pygit2 bundles libgit2). ``git`` ≥ 2.24 is needed
  (``--end-of-options``); 2.39 is what the tests run on.
- **Cheap**: a diff is one process, and reading many files is one ``git cat-file --batch`` process.

Every command runs with ``-C <repository>``, without the caller's ``GIT_DIR``-style variables (so a
surrounding repository or hook cannot redirect it), without pagers or prompts, and with a timeout.
Revisions are passed after ``--end-of-options`` so a revision starting with ``-`` is never an option.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Collection

from graph.errors import RevisionNotFound, SourceRepositoryError

__all__ = ["FileChange", "GitRepository", "MAX_BLOB_BYTES", "TIMEOUT_SECONDS"]

MAX_BLOB_BYTES = 8 * 1024 * 1024
"""Largest file :meth:`GitRepository.read` returns (bytes); larger files read as ``None``."""

TIMEOUT_SECONDS = 120
"""Longest any one git command may run (seconds)."""

_ERE_SPECIAL = frozenset("\\^$.[(|)*+?{")  # escaped with a backslash in a POSIX extended regex
_PATTERNS_PER_LINE = 256  # fragments per alternation handed to git grep (one regex per line)
_SYMLINK_MODE = "120000"
_STATUS = {"A": "added", "M": "modified", "T": "modified", "D": "deleted", "R": "renamed"}
_ISOLATING_VARIABLES = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS", "GIT_PAGER", "PAGER",
)


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file that differs between two revisions.

    ``status`` is ``added`` (``old_path`` None), ``modified`` (content or type; both paths equal),
    ``deleted`` (``new_path`` None) or ``renamed`` (``old_path`` → ``new_path``, possibly with
    edits). Paths are repository-relative with ``/`` separators, as git prints them.
    """

    status: str
    old_path: str | None
    new_path: str | None


NAME_MAX = 255
"""Bytes a file name (one path component) may have on Linux file systems (``NAME_MAX``)."""
PATH_MAX = 4096
"""Bytes a path may have in one system call on Linux (``PATH_MAX``, the NUL included)."""


def check_path_length(path: str) -> None:
    """Refuse a repository path no file system can hold before any system call sees it.

    >>> check_path_length("/srv/" + "x" * 256)
    Traceback (most recent call last):
    ...
    graph.errors.SourceRepositoryError: repository path /srv/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…: its component xxxxxxxxxxxxxxxx… is 256 bytes, over the 255 a file name may have

    Raises
    ------
    SourceRepositoryError
        A component over :data:`NAME_MAX` bytes, or the whole over :data:`PATH_MAX` - 1 (UTF-8).
    """
    encoded = os.fsencode(path)
    shown = path if len(path) <= 40 else path[:37] + "…"
    if len(encoded) >= PATH_MAX:
        raise SourceRepositoryError(f"repository path {shown}: it is {len(encoded)} bytes, over the "
                                    f"{PATH_MAX - 1} a path may have")
    for part in encoded.split(b"/"):
        if len(part) > NAME_MAX:
            name = os.fsdecode(part)
            raise SourceRepositoryError(f"repository path {shown}: its component {name[:16]}… is {len(part)} bytes, "
                                        f"over the {NAME_MAX} a file name may have")


def fetch_clone(repo: GitRepository) -> None:
    """``git fetch --all --prune --quiet`` in ``repo``'s clone: the one write impact ever makes to a
    clone, and only when ``CITEGRAPH_HOOK_FETCH`` asks for it (push hooks). Credentials and network
    are git's own (no prompt: ``GIT_TERMINAL_PROMPT=0``).

    Raises
    ------
    SourceRepositoryError
        git fails or takes longer than :data:`TIMEOUT_SECONDS`.
    """
    repo._run("fetch", "--all", "--prune", "--quiet")


class GitRepository:
    """A git repository read through the ``git`` binary; nothing here writes to it.

    Parameters
    ----------
    path : Path
        The repository's top-level folder (a work tree) or a bare repository. A folder *inside* a
        work tree is refused: its paths would not be the repository-relative paths analyses cite.
    git : str, default "git"
        The git executable (looked up on ``PATH``).

    Raises
    ------
    SourceRepositoryError
        ``path`` does not exist, is not a git repository (or not its top level), or no ``git``
        binary is installed.

    Examples
    --------
    >>> import tempfile
    >>> GitRepository(Path(tempfile.mkdtemp()))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graph.errors.SourceRepositoryError: /... is not a git repository
    """

    def __init__(self, path: Path, *, git: str = "git"):
        self.path = Path(path)
        self._git = shutil.which(git)
        if self._git is None:
            raise SourceRepositoryError(f"no {git!r} executable found on PATH",
                                        hint="install git 2.24 or later")
        check_path_length(str(self.path))
        try:
            folder = self.path.is_dir()
        except OSError as exc:  # a loop of links, a folder this user may not search
            raise SourceRepositoryError(f"cannot open the repository {self.path}: {exc.strerror}") from None
        if not folder:
            raise SourceRepositoryError(f"{self.path} is not a folder", hint="pass the repository's top-level folder")
        self._commits: set[str] = set()  # full commit ids already verified (they never change)
        self._trees: dict[str, list[tuple[str, str]]] = {}  # commit -> (mode, path) of every file
        self._env = {k: v for k, v in os.environ.items() if k not in _ISOLATING_VARIABLES}
        self._env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
        bare = self._run("rev-parse", "--is-bare-repository", check=False)
        if bare.returncode != 0:
            raise SourceRepositoryError(f"{self.path} is not a git repository",
                                        hint="pass the folder holding the source's clone (git clone URL PATH)")
        if bare.stdout.strip() != b"true":
            top = self._run("rev-parse", "--show-toplevel", check=False).stdout.decode("utf-8", "replace").strip()
            if not top or Path(top).resolve() != self.path.resolve():
                where = f"inside the git repository {top}" if top else "inside a git folder"
                raise SourceRepositoryError(f"{self.path} is {where}, not the top level of a work tree",
                                            code="not-top-level", data={"top": top})

    def __repr__(self) -> str:
        return f"GitRepository({str(self.path)!r})"

    # -- plumbing --------------------------------------------------------------------------------

    def _run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess:
        """Run ``git -C <path> <args>``; a non-zero exit raises SourceRepositoryError when ``check``."""
        command = [self._git or "git", "-C", str(self.path), "-c", "core.quotepath=off", *args]
        try:
            done = subprocess.run(command, input=stdin, capture_output=True, env=self._env,
                                  timeout=TIMEOUT_SECONDS, check=False)
        except subprocess.TimeoutExpired as exc:
            raise SourceRepositoryError(f"git {args[0]} took longer than {TIMEOUT_SECONDS} s in {self.path}") from exc
        except OSError as exc:
            raise SourceRepositoryError(f"cannot run git in {self.path}: {exc}") from exc
        except ValueError as exc:  # an argument holding a NUL character: no process can take it
            raise SourceRepositoryError(f"cannot run git in {self.path}: {exc}",
                                        hint="no revision or path holds a NUL character") from None
        if check and done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SourceRepositoryError(f"git {args[0]} failed in {self.path}: {message[-1] if message else done.returncode}")
        return done

    def remote_urls(self) -> list[str]:
        """The URL of every remote (``remote.<name>.url`` of git's configuration), sorted; [] when
        the clone has none."""
        done = self._run("config", "--get-regexp", r"^remote\..*\.url$", check=False)
        lines = done.stdout.decode("utf-8", "replace").splitlines() if done.returncode == 0 else []
        return sorted({line.split(" ", 1)[1].strip() for line in lines if " " in line})

    # -- the SourceRepository protocol -----------------------------------------------------------

    def resolve(self, revision: str) -> str:
        """The full commit id ``revision`` names (a hash, abbreviated hash, tag, branch, ``HEAD~2``).

        Raises
        ------
        RevisionNotFound
            ``revision`` is empty, holds a NUL character or names no commit of this repository.
        """
        if revision in self._commits:
            return revision
        if not revision or not revision.strip():
            raise RevisionNotFound("an empty revision names no commit")
        if "\0" in revision:
            raise RevisionNotFound(f"revision {revision!r} holds a NUL character; no revision does")
        done = self._run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}", check=False)
        if done.returncode != 0:
            raise RevisionNotFound(f"revision {revision!r} is not a commit of {self.path}",
                                   hint="fetch it (git fetch origin), or check the spelling")
        commit = done.stdout.decode("ascii").strip()
        self._commits.add(commit)
        return commit

    def changes(self, old: str, new: str) -> list[FileChange]:
        """Files that differ between commits ``old`` and ``new``, renames detected (``--find-renames``,
        git's default 50 % similarity; copies are reported as added). Sorted by (new or old) path.

        Raises
        ------
        RevisionNotFound
            Either revision names no commit.
        """
        old, new = self.resolve(old), self.resolve(new)
        done = self._run("diff", "--name-status", "-z", "--find-renames", "--no-ext-diff", "--no-textconv",
                         "--end-of-options", old, new)
        fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        out: list[FileChange] = []
        i = 0
        while i < len(fields) and fields[i]:
            code = fields[i][0]
            if code in ("R", "C"):
                old_path, new_path = fields[i + 1], fields[i + 2]
                out.append(FileChange("renamed", old_path, new_path) if code == "R"
                           else FileChange("added", None, new_path))
                i += 3
                continue
            path = fields[i + 1]
            status = _STATUS.get(code, "modified")
            out.append(FileChange(status, None if status == "added" else path, None if status == "deleted" else path))
            i += 2
        return sorted(out, key=lambda c: (c.new_path or c.old_path or "", c.old_path or ""))

    def read(self, revision: str, paths: Collection[str]) -> dict[str, str | None]:
        """The text of each of ``paths`` at ``revision``, with one ``git cat-file --batch`` process.

        Returns
        -------
        dict[str, str | None]
            Keyed by every asked path: the content decoded as UTF-8 (invalid bytes replaced), or
            ``None`` when the path is absent at ``revision``, is not a regular file, holds a NUL
            byte (binary) or is over :data:`MAX_BLOB_BYTES`.

        Raises
        ------
        RevisionNotFound
            ``revision`` names no commit.
        """
        commit = self.resolve(revision)
        asked = [p for p in dict.fromkeys(paths) if p and "\n" not in p]
        out: dict[str, str | None] = {p: None for p in paths}
        if not asked:
            return out
        request = "".join(f"{commit}:{p}\n" for p in asked).encode("utf-8", "surrogateescape")
        data = self._run("cat-file", "--batch", stdin=request).stdout
        pos = 0
        for path in asked:
            end = data.index(b"\n", pos)
            header = data[pos:end].split(b" ")
            pos = end + 1
            if not _found(header):  # "<rev>:<path> missing", "ambiguous", …: no content follows
                continue
            size = int(header[2])
            blob = data[pos:pos + size]
            pos += size + 1
            if header[1] != b"blob" or size > MAX_BLOB_BYTES or b"\0" in blob:
                continue
            out[path] = blob.decode("utf-8", "replace")
        return out

    def files(self, revision: str) -> list[str]:
        """Every file path at ``revision`` (recursively), sorted.

        Raises
        ------
        RevisionNotFound
            ``revision`` names no commit.
        """
        return [path for _, path in self._tree(revision)]

    def containing(self, revision: str, fragments: Collection[str], *, skip: str = "") -> set[str]:
        """Paths at ``revision`` whose text may contain one of ``fragments``, with one ``git grep``.

        A prefilter for searching the whole tree: every path whose :meth:`read` text contains a
        fragment, possibly with characters of ``skip`` between any two of its characters, is
        included (more may be: binary files, symbolic links, which ``git grep`` does not search,
        and files over :data:`MAX_BLOB_BYTES`). Fragments are matched byte for byte on their UTF-8
        form, so a caller wanting exact equivalence with :meth:`read` keeps U+FFFD (what invalid
        bytes decode to) out of them.

        Parameters
        ----------
        revision : str
            The commit whose tree is searched.
        fragments : Collection[str]
            Non-empty strings without line breaks (``git grep`` matches line by line).
        skip : str, default ""
            Characters (no line breaks) that may be interleaved with a fragment's characters in
            the file, e.g. the backticks a plain-text rendering drops.

        Returns
        -------
        set[str]
            Repository-relative paths, as :meth:`files` spells them; empty for no fragments.

        Raises
        ------
        ValueError
            A fragment is empty, or a fragment or ``skip`` holds a line break.
        RevisionNotFound
            ``revision`` names no commit.

        Examples
        --------
        >>> import subprocess, tempfile
        >>> top = Path(tempfile.mkdtemp())
        >>> _ = (top / "a.js").write_text("throw new Error(`Note was modified`)\\n")
        >>> _ = (top / "b.txt").write_text("nothing here\\n")
        >>> for c in (["init", "-q"], ["add", "."], ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "c0"]):
        ...     _ = subprocess.run(["git", "-C", str(top), *c], check=True)
        >>> repo = GitRepository(top)
        >>> sorted(repo.containing("HEAD", ["Notewas"])), sorted(repo.containing("HEAD", ["Error(Note"], skip="`"))
        ([], ['a.js'])
        """
        commit = self.resolve(revision)
        fragments = sorted(set(fragments))
        if any(not f or "\n" in f or "\r" in f for f in fragments) or "\n" in skip or "\r" in skip:
            raise ValueError("fragments must be non-empty and hold no line break; skip no line break")
        links = {path for mode, path in self._tree(commit) if mode == _SYMLINK_MODE}
        if not fragments:
            return set()
        between = "(" + "|".join(_ere(c) for c in dict.fromkeys(skip)) + ")*" if skip else ""
        patterns = [between.join(_ere(c) for c in f) for f in fragments]
        lines = ["|".join(patterns[i:i + _PATTERNS_PER_LINE]) for i in range(0, len(patterns), _PATTERNS_PER_LINE)]
        # no --end-of-options: git grep before 2.43 takes it for a revision; commit is a full hex id
        done = self._run("grep", "-l", "-z", "-E", "--no-color", "--no-textconv", "--no-recurse-submodules",
                         "-f", "-", commit, "--",
                         stdin="".join(f"{line}\n" for line in lines).encode("utf-8"), check=False)
        if done.returncode not in (0, 1):  # 1: no match
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SourceRepositoryError(f"git grep failed in {self.path}: {message[-1] if message else done.returncode}")
        prefix = f"{commit}:"
        found = {p[len(prefix):] if p.startswith(prefix) else p
                 for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p}
        return found | links

    def _tree(self, revision: str) -> list[tuple[str, str]]:
        """(mode, path) of every file at ``revision``, sorted by path; cached per commit."""
        commit = self.resolve(revision)
        if commit not in self._trees:
            done = self._run("ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit)
            entries = []
            for line in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
                if line:
                    meta, _, path = line.partition("\t")
                    entries.append((meta.split(" ", 1)[0], path))
            self._trees[commit] = sorted(entries, key=lambda e: e[1])
        return self._trees[commit]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether commit ``ancestor`` is ``descendant`` or one of its ancestors.

        Raises
        ------
        RevisionNotFound
            Either revision names no commit.
        """
        a, d = self.resolve(ancestor), self.resolve(descendant)
        done = self._run("merge-base", "--is-ancestor", a, d, check=False)
        if done.returncode not in (0, 1):
            raise SourceRepositoryError(f"git merge-base failed in {self.path}: "
                                        f"{done.stderr.decode('utf-8', 'replace').strip()}")
        return done.returncode == 0


def _ere(char: str) -> str:
    """``char`` as a POSIX extended regular expression matching exactly it."""
    return "\\" + char if char in _ERE_SPECIAL else char


def _found(header: list[bytes]) -> bool:
    """Whether a ``cat-file --batch`` header line is ``<object id> <type> <size>`` (content follows)."""
    return (len(header) == 3 and header[2].isdigit() and bool(header[0])
            and all(c in b"0123456789abcdef" for c in header[0]))
