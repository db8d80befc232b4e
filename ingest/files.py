"""Finding and reading member files (paths and folders → the input files ingest reads) and the errors
of an input refused or holding no member."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from graph.errors import CitegraphError, IngestError, InputNotFound, SourceSpan
from ingest.sets import GAP, MAX_MEMBER_BYTES, InputFile, SetProblem, member_file, oversize

__all__ = ["MAX_MEMBER_BYTES", "member_files", "input_file", "refusal_of", "no_members", "no_members_error"]

NO_MEMBERS = ("no analysis-set members found in the input",
              "members are plain-text renderings (.txt) or Markdown files (.md) whose frontmatter `type:` is a "
              "member type")
"""Message and hint of the error for an input without any member."""


def no_members(paths: list[Path]) -> IngestError:
    """The error for ``paths`` holding no analysis-set member (``citegraph check PATHS`` of such a
    folder says so instead of reporting 0 errors).

    >>> str(no_members([Path("docs")]))
    'no analysis-set members found in the input: docs'
    """
    return IngestError(f"{NO_MEMBERS[0]}: {', '.join(map(str, paths))}", hint=NO_MEMBERS[1])


def refusal_of(problems: list[SetProblem], *, rest: int) -> CitegraphError:
    """The error ingest raises for the error ``problems`` of an input (in assembly order): the
    first one's, counting the others; code ``input-refused``, ``data["gap"]`` when a problem is an
    absent pinned member, ``data["rest"]`` the ``rest`` of the input's members, those of sets no
    problem refuses (the faces add how to ingest them by skipping invalid files when there are
    any, and how to ingest a partial set when there is a gap)."""
    first = problems[0].to_error()
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    own = (first.hint or "").strip()
    hint = own if own.endswith((".", "?", "!")) or not own else own + "."
    return type(first)(first.message + more, hint=hint or None, source=first.source, code="input-refused",
                       data={"gap": any(p.code == GAP for p in problems), "rest": rest})


def member_files(paths: list[Path]) -> list[Path]:
    """Files to account for: each file as given, and every file under each folder (recursively,
    sorted, following links; hidden folders such as ``.git`` are not searched, hidden files are
    listed), each once: a file reached again (the same folder twice, a folder and a file in it, a
    shell's ``DIR/**/*`` listing folders with their files, a link to a file listed) keeps its
    first place (by resolved path). Only
    members and manifests are read (:func:`ingest.sets.member_file`); every other file is named
    with the reason it is skipped.

    Raises
    ------
    InputNotFound
        A path does not exist (``no such file or folder: PATH``).
    IngestError
        A folder under a path cannot be listed (``cannot read the folder …``).
    """
    out: list[Path] = []
    seen: set[Path] = set()

    def add(file: Path) -> None:  # a file reached twice is read once, at its first place
        key = file.resolve()
        if key not in seen:
            seen.add(key)
            out.append(file)

    for path in paths:
        if path.is_dir():
            found: list[Path] = []
            for folder, dirs, names in os.walk(path, onerror=_unreadable, followlinks=True):  # as rglob walked
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                found.extend(Path(folder) / name for name in names)
            for file in sorted(found):  # a broken link too: named, as a file that cannot be read
                add(file)
        elif path.is_file():
            add(path)
        else:
            raise InputNotFound(f"no such file or folder: {path}",
                                hint="give member files or folders that exist (folders are searched recursively)")
    return out


def _unreadable(exc: OSError) -> None:
    """A folder of the input that cannot be listed is an error, never skipped in silence."""
    raise IngestError(f"cannot read the folder {exc.filename}: {exc.strerror}",
                      hint="give folders this user may read") from None


def input_file(path: Path, explicit: bool) -> InputFile:
    """One file of the input as ingest reads it: the bytes of a member or manifest (none over
    :data:`MAX_MEMBER_BYTES`, ``refusal`` says why), nothing of any other file."""
    if not member_file(path.name):
        return InputFile(str(path), None, explicit, on_disk=True)
    if not path.is_file():
        return InputFile(str(path), None, explicit, "not a regular file that can be read (a broken link?)", True)
    size = path.stat().st_size
    if size > MAX_MEMBER_BYTES:
        return InputFile(str(path), None, explicit, oversize(size), True)
    return InputFile(str(path), path.read_bytes(), explicit, on_disk=True)


def no_members_error(skipped: Sequence[tuple[str, str]] = ()) -> IngestError:
    """``no analysis-set members found in the input``; when files were skipped as no analysis
    document (``skipped``: their ``(path, reason)`` in input order), placed at the first of them,
    with its reason and the count of the others.

    >>> str(no_members_error([("notes/README.md", "no analysis document: no frontmatter")]))
    'notes/README.md:1: no analysis-set members found in the input; no analysis document: no frontmatter'
    """
    if not skipped:
        return IngestError(NO_MEMBERS[0], hint=NO_MEMBERS[1])
    more = f" (and {len(skipped) - 1} more file{'s' * (len(skipped) != 2)} skipped)" if len(skipped) > 1 else ""
    return IngestError(f"{NO_MEMBERS[0]}; {skipped[0][1]}{more}", hint=NO_MEMBERS[1],
                       source=SourceSpan(skipped[0][0], 1))
