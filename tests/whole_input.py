"""The whole-input reading ingest once had beside its one engine, kept here as the reference the
engine (:mod:`ingest.stream`, behind :mod:`ingest.pipeline`) is compared against: every file read,
one assembly of the whole input (:func:`ingest.sets.assemble`), then the sets accepted whole or
refused. The tests write parsed members with :func:`ingest.loader.ingest_parsed`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from graph.errors import CitegraphError, IngestError, SourceSpan
from ingest.files import input_file, member_files, no_members_error, refusal_of
from ingest.loader import set_id_of
from ingest.parsers.parsed import ParsedDocument
from ingest.sets import SKIPPED, Assembly, InputFile, assemble

__all__ = ["ReadResult", "read_inputs", "read_sets", "read_members", "accept"]


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


def read_inputs(paths: list[Path]) -> list[InputFile]:
    """Every file :func:`ingest.files.member_files` finds (:func:`ingest.files.input_file`); a file given by path is
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
        Member files and folders (see :func:`ingest.files.member_files`).
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
        refused = assembly.refused(partial, strict)
        raise refusal_of(problems, rest=sum(set_id_of(d) not in refused for d in assembly.documents))
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
