"""Finding and reading member files: paths and folders → parsed members of whole sets, all or nothing."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from graph.errors import CitegraphError, IngestError, InputNotFound, SourceSpan
from ingest.loader import set_id_of
from ingest.parsers.parsed import ParsedDocument
from ingest.sets import (GAP, MAX_MEMBER_BYTES, SKIPPED, Assembly, InputFile, SetProblem, assemble,
                         member_file, oversize)

__all__ = ["MAX_MEMBER_BYTES", "ReadResult", "member_files", "input_file", "read_inputs", "read_sets", "read_members",
           "accept", "no_members", "no_members_error"]

@dataclass(frozen=True, slots=True)
class ReadResult:
    """Parsed members in input order, the files refused with their errors, (with ``partial``)
    the gaps: each pinned member that is absent, where its manifest expects it, with its error;
    the manifests consumed ``(path, set or None, pins)``; and the files skipped as no analysis
    document ``(path, reason, note)``. Together they name every file of the input."""

    parsed: list[ParsedDocument]
    errors: list[tuple[str, CitegraphError]]
    gaps: list[tuple[str, CitegraphError]] = field(default_factory=list)
    manifests: list[tuple[str, str | None, int]] = field(default_factory=list)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)


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


def refusal_of(problems: list[SetProblem]) -> CitegraphError:
    """The error ingest raises for the error ``problems`` of an input (in assembly order): the
    first one's, counting the others; code ``input-refused``, ``data["gap"]`` when a problem is an
    absent pinned member (the faces add how to skip invalid files, or to ingest a partial set)."""
    first = problems[0].to_error()
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    own = (first.hint or "").strip()
    hint = own if own.endswith((".", "?", "!")) or not own else own + "."
    return type(first)(first.message + more, hint=hint or None, source=first.source, code="input-refused",
                       data={"gap": any(p.code == GAP for p in problems)})


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
            found = []
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


def read_inputs(paths: list[Path]) -> list[InputFile]:
    """Every file :func:`member_files` finds (:func:`input_file`); a file given by path is
    ``explicit``.

    Raises
    ------
    IngestError
        A path does not exist.
    """
    given = {p.resolve() for p in paths if p.is_file()}
    return [input_file(path, path.resolve() in given) for path in member_files(paths)]


def read_sets(paths: list[Path], *, workers: int | None = None) -> Assembly:
    """Read every file under ``paths`` and assemble analysis sets (see :func:`ingest.sets.assemble`),
    refusing nothing: the checker reports the problems, ingest refuses on them.

    ``workers`` is the number of processes that parse members (None: one per available CPU, 1:
    this process only); a pool is only used for many members (``assemble``'s ``workers``)."""
    return assemble(read_inputs(paths), workers=workers)


def read_members(paths: list[Path], *, skip_invalid: bool = False, partial: bool = False,
                 workers: int | None = None, strict: bool = False) -> ReadResult:
    """Read, parse and assemble every member under ``paths``; a set is taken whole or not at all.

    Parameters
    ----------
    paths : list of Path
        Member files and folders (see :func:`member_files`).
    skip_invalid : bool, default False
        Refuse the invalid files and their sets and return the rest, instead of raising.
    partial : bool, default False
        A set whose manifest pins members that are absent (a set copied in part) is not refused:
        its members present are returned, and each absent one is a gap (``ReadResult.gaps``).
    strict : bool, default False
        A file that is no analysis document (a type definition, an instruction, a note) is an
        error, instead of being listed as skipped with its reason.
    workers : int or None, default None
        Processes that parse members: None for one per available CPU, 1 for this process only.
        A pool is used only from :data:`ingest.sets.PARALLEL_MIN_FILES` members up; the result
        is the same either way.

    Returns
    -------
    ReadResult
        Members of the sets without error problems, in input order; with ``skip_invalid`` the
        refused files (a problem's own file, each absent member where its manifest expects it, and
        every member of a refused set) with their errors.

    Raises
    ------
    CitegraphError
        The first error problem when ``skip_invalid`` is false (``ParseError`` for unreadable files,
        ``IngestError`` for a missing or mismatched manifest pin, ``DuplicateDeclaration``); the
        message counts the others.
    """
    return accept(read_sets(paths, workers=workers), skip_invalid=skip_invalid, partial=partial, strict=strict)


def accept(assembly: Assembly, *, skip_invalid: bool = False, partial: bool = False,
           strict: bool = False) -> ReadResult:
    """The members of ``assembly`` that may be ingested: every set without a problem refusing it
    (:meth:`ingest.sets.SetProblem.refuses`; with ``partial`` an absent pinned member is a gap;
    with ``strict`` a file that is no analysis document is an error too, else it is listed as
    skipped with its reason).

    For any face that has files as bytes rather than paths (an uploaded archive):
    ``accept(assemble(InputFile(path, data) for path, data in read_zip(upload)))``.

    Raises
    ------
    CitegraphError
        As :func:`read_members`.
    """
    problems = [p for p in assembly.problems if p.refuses(partial, strict)]
    gaps = [(p.subject, p.to_error()) for p in assembly.problems if p.severity == "error" and not p.refuses(partial)]
    skips = [p for p in assembly.problems if p.severity == SKIPPED and not strict]
    if not assembly.documents and not problems and not gaps:
        raise no_members_error([(p.path, p.message) for p in skips])
    if problems and not skip_invalid:
        raise refusal_of(problems)
    refused = assembly.refused(partial, strict)
    errors: list[tuple[str, CitegraphError]] = [(p.subject, p.to_error()) for p in problems]
    listed = {p.subject for p in problems}  # files with a row of their own (an absent member's: beside its manifest)
    parsed = []
    for doc in assembly.documents:
        set_id = set_id_of(doc)
        if set_id not in refused:
            parsed.append(doc)
        elif doc.path not in listed:
            errors.append((doc.path, IngestError(f"set {set_id} was refused as a whole",
                                                 source=SourceSpan(doc.path, 1))))
    pins = {m.path: len(m.pins) for m in assembly.manifests}
    manifests = [(path, set_id, pins[path]) for path, set_id in assembly.manifest_sets().items()
                 if set_id not in refused]
    errors += [(path, IngestError(f"set {set_id} was refused as a whole", source=SourceSpan(path, 1)))
               for path, set_id in assembly.manifest_sets().items() if set_id in refused and path not in listed]
    return ReadResult(parsed, errors, gaps, manifests, [(p.path, p.code, p.message) for p in skips])


def no_members_error(skipped: list[tuple[str, str]] = ()) -> IngestError:
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
