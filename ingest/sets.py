"""Analysis-set assembly: input files → members grouped into sets, pinned by their manifests.

A set is assembled from every folder it is given (GRAMMAR §2: retained sets keep some members in
``retained/<system>/`` and others in ``retained-archive/<run-id>/``). Members are found by manifest
(``ARTIFACT.yaml``, §2.1) and by frontmatter type; they are grouped by run-id, and a manifest joins
the set of the members beside it. Each pinned member's SHA-256 is compared with its pin.

Everything that can only be known from the files is reported here as a :class:`SetProblem` with a
stable code: ``malformed-frontmatter``, ``malformed-manifest``, ``unknown-member-type``,
``not-a-member``, ``parse-error``, ``manifest-missing-member``, ``pin-mismatch``, ``unpinned-member``,
``duplicate-manifest``, ``duplicate-member``, ``duplicate-declaration``. A set with an error problem is
refused as a whole (all or nothing); the checker reports the same problems without ingesting. Every
other file of the input is accounted for too: a file that is no analysis document (a type
definition, schema or instruction of the format, a note, a tool's file, an empty file, a ``.txt``
without a ``Type:`` line: :func:`no_document`) is a problem of severity :data:`SKIPPED` whose code
says why, so each is named, never dropped; given by path or found in a
folder, a file is classified alike.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import re
import sys
import threading
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from collections.abc import Callable, Iterable, Iterator

import yaml

from graph.errors import CitegraphError, DuplicateDeclaration, IngestError, ParseError, SourceSpan
from domain.checks import Pinning
from domain.grammar import NON_MEMBER_TYPES, SKIP_REASONS, member_type_of, run_id_problem, skip_reason
from ingest.loader import set_id_of
from ingest.parsers import MEMBER_SUFFIXES, parse_member
from ingest.parsers.markdown import parse_markdown, read_frontmatter
from ingest.parsers.parsed import ParsedDocument
from ingest.parsers.plaintext import decode_member, iter_lines
from ingest.parsers.yamldoc import load_yaml

__all__ = [
    "MAX_MEMBER_BYTES",
    "oversize",
    "MANIFEST_NAME",
    "PARALLEL_MIN_FILES",
    "SET_TYPES",
    "ManifestPin",
    "Manifest",
    "parse_manifest",
    "InputFile",
    "SetProblem",
    "GAP",
    "SKIPPED",
    "member_file",
    "no_document",
    "PLAIN_TEXT_HEAD",
    "Assembly",
    "assemble",
    "guess_run_id",
    "pool_size",
    "read_one",
    "read_batch",
    "start_worker",
]

MAX_MEMBER_BYTES = 8 * 1024 * 1024
"""Largest member or manifest accepted (bytes), whichever way it comes (a file, a zip entry, a
multipart field, a PUT body, a GraphQL upload); real members are under 100 KiB."""

MANIFEST_NAME = "ARTIFACT.yaml"
"""File name of a set's manifest (GRAMMAR §2.1)."""


SKIPPED = "skipped"
"""The severity of a problem that is no error: a file found in the input that is no analysis
document, named with its reason (:func:`domain.grammar.skip_reason`); with ``strict`` it refuses
its file like an error."""


def member_file(name: str) -> bool:
    """Whether a file of this name may be a member or a manifest and so is read: ``.md``, ``.txt``
    or ``ARTIFACT.yaml``, not hidden (``.commonplace-validation-ignore``). Every other file found is
    skipped with its reason, unread."""
    return not name.startswith(".") and (name.lower().endswith(MEMBER_SUFFIXES) or name == MANIFEST_NAME)


def oversize(size: int) -> str:
    """Why a file of ``size`` bytes is refused unparsed."""
    return f"file is {size} bytes, over the {MAX_MEMBER_BYTES}-byte member limit"

SET_TYPES = (
    "agentic-system-analyses/types/agentic-system-analysis-set.md",
    "agentic-systems/types/agentic-system-analysis-set.md",
    "reports/types/agentic-system-analysis-set.md",
)
"""Manifest ``type`` values, newest first (GRAMMAR §2.1)."""

PARALLEL_MIN_FILES = 64
"""Fewest candidate members (files, manifests excluded) that :func:`assemble` parses in a process
pool when asked for more than one worker; smaller inputs are parsed in one process."""

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_RUN_ID_LINE = re.compile(r"(?m)^(?:run-id|analysis-run):[ \t]*[\"']?([^\s\"'#]+)")


@dataclass(frozen=True, slots=True)
class ManifestPin:
    """One ``members`` entry: member file ``name``, its pinned ``sha256`` (64 hex) and the 1-based
    ``line`` of the entry in the manifest."""

    name: str
    sha256: str
    line: int


@dataclass(frozen=True, slots=True)
class Manifest:
    """A parsed ``ARTIFACT.yaml``: ``path`` as given, ``type``, ``pins`` in file order, ``worker``
    (map or None), and whether it was read ``on_disk`` (its folder is a folder here, not an
    upload's)."""

    path: str
    type: str
    pins: tuple[ManifestPin, ...]
    worker: dict | None = None
    on_disk: bool = False

    @property
    def folder(self) -> str:
        """The folder holding the manifest."""
        return str(PurePosixPath(self.path.replace("\\", "/")).parent)

    def names(self) -> list[str]:
        """Pinned member file names, in manifest order."""
        return [p.name for p in self.pins]


def _gap_hint(manifest: Manifest, pin: ManifestPin, set_id: str | None) -> str:
    """What to pass for a pinned member that is not among the inputs: the folder beside the
    manifest's that holds it, when there is one on disk (a set split over ``retained/<system>/`` and
    ``retained-archive/<run-id>/``, GRAMMAR §2: a folder named ``set_id`` up to three levels
    above, holding ``pin.name`` with the pinned hash); otherwise only the file's name, never a
    folder that does not exist."""
    import pathlib

    here = pathlib.Path(manifest.folder)
    if set_id and manifest.on_disk and here.is_dir():  # an upload's folders are none of the server's
        for above in [here, *here.parents][1:4]:
            for found in sorted(above.glob(f"*/{set_id}/{pin.name}")):
                try:
                    if found.is_file() and hashlib.sha256(found.read_bytes()).hexdigest() == pin.sha256:
                        return f"pass the folder holding {pin.name} too: {found.parent}/"
                except OSError:
                    continue
    return f"pass the folder holding {pin.name} too"


def parse_manifest(data: bytes, path: str) -> Manifest:
    r"""Parse a set manifest (GRAMMAR §2.1 schema: ``type`` const, ``members`` map of file name →
    ``{sha256: <64 hex>}``, optional ``worker``).

    Raises
    ------
    ParseError
        Not UTF-8, not YAML (or YAML too deep or whose aliases expand too far,
        :mod:`ingest.parsers.yamldoc`), not a mapping, unknown ``type``, or a ``members`` entry
        without a well-formed ``sha256``; the error names the line.

    Examples
    --------
    >>> m = parse_manifest(b"type: agentic-system-analyses/types/agentic-system-analysis-set.md\n"
    ...                    b"members:\n  overview.md:\n    sha256: " + b"0" * 64 + b"\n", "s/ARTIFACT.yaml")
    >>> m.pins[0].name, m.pins[0].sha256 == "0" * 64, m.pins[0].line, m.folder
    ('overview.md', True, 3, 's')
    """
    text = decode_member(data, path)
    try:
        node, value = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ParseError(f"malformed manifest YAML: {getattr(exc, 'problem', None) or exc}",
                         source=SourceSpan(path, mark.line + 1 if mark else 1), hint=getattr(exc, "hint", None)) from None
    if not isinstance(value, dict) or not isinstance(node, yaml.MappingNode):
        raise ParseError("the manifest is not a YAML mapping", source=SourceSpan(path, 1))
    lines = {str(k.value): (k.start_mark.line + 1, v) for k, v in node.value}
    set_type = value.get("type")
    if set_type not in SET_TYPES:
        raise ParseError(f"manifest type {set_type!r} is not the analysis-set type",
                         source=SourceSpan(path, lines.get("type", (1, None))[0]),
                         hint=f"expected type: {SET_TYPES[0]}")
    members = value.get("members")
    members_node = lines.get("members", (1, None))[1]
    if not isinstance(members, dict) or not isinstance(members_node, yaml.MappingNode):
        raise ParseError("the manifest has no `members` map", source=SourceSpan(path, lines.get("members", (1,))[0]))
    pins = []
    for key, entry in members_node.value:
        line = key.start_mark.line + 1
        name = str(key.value)
        # Read the digest as written: YAML would turn an all-digit one into an int.
        sha = next((v.value for k, v in entry.value if k.value == "sha256" and isinstance(v, yaml.ScalarNode)),
                   None) if isinstance(entry, yaml.MappingNode) else None
        if not isinstance(sha, str) or not _SHA256.match(sha):
            raise ParseError(f"member {name} has no well-formed sha256 pin (64 lowercase hex digits)",
                             source=SourceSpan(path, line))
        if "/" in name or "\\" in name:
            raise ParseError(f"member {name} is not a file name in the set folder", source=SourceSpan(path, line))
        pins.append(ManifestPin(name, sha, line))
    worker = value.get("worker")
    return Manifest(path, set_type, tuple(pins), worker if isinstance(worker, dict) else None)


@dataclass(frozen=True, slots=True)
class InputFile:
    """One input: ``path`` as given, raw ``data`` (None when refused before reading, with
    ``refusal`` saying why), whether the path was given ``explicit``-ly rather than found by
    walking a folder, and whether it is a file ``on_disk`` here (else uploaded bytes: their
    folders are never looked up on this machine)."""

    path: str
    data: bytes | None
    explicit: bool = False
    refusal: str | None = None
    on_disk: bool = False

    @property
    def name(self) -> str:
        """The file name."""
        return PurePosixPath(self.path.replace("\\", "/")).name

    @property
    def folder(self) -> str:
        """The folder holding the file."""
        return str(PurePosixPath(self.path.replace("\\", "/")).parent)


GAP = "manifest-missing-member"
"""The code of a pinned member that is absent: a gap, which ``partial`` ingest records instead of
refusing the set."""

_ERRORS = {"duplicate-declaration": DuplicateDeclaration, "manifest-missing-member": IngestError,
           "pin-mismatch": IngestError, "unpinned-member": IngestError, "duplicate-manifest": IngestError,
           "duplicate-member": IngestError}


@dataclass(frozen=True, slots=True)
class SetProblem:
    """A problem found while reading files and assembling sets.

    ``code`` is stable (see the module docstring), ``severity`` ``error``, ``warning`` or
    :data:`SKIPPED` (``code`` then says why, :data:`domain.grammar.SKIP_REASONS`), ``path``
    and ``line`` where it is (``line`` 0 for a whole file), ``set_id`` the set it refuses (None when
    the file's set is unknown: only that file is refused), ``error`` the parser's own exception,
    ``member`` the pinned file name a ``manifest-missing-member`` problem is about.
    """

    code: str
    severity: str
    path: str
    line: int
    message: str
    set_id: str | None = None
    hint: str | None = None
    error: CitegraphError | None = None
    member: str | None = None

    @property
    def subject(self) -> str:
        """The file the problem is about: a missing member where its manifest expects it (beside
        the manifest), else ``path``."""
        if self.member is None:
            return self.path
        return str(PurePosixPath(self.path.replace("\\", "/")).parent / self.member)

    def refuses(self, partial: bool = False, strict: bool = False) -> bool:
        """Whether the problem refuses its set: every error, except, for a partial set (``partial``:
        a set copied in part), a pinned member that is absent, which is a gap to record instead;
        with ``strict`` also a skipped file (:data:`SKIPPED`)."""
        if self.severity == SKIPPED:
            return strict
        return self.severity == "error" and not (partial and self.code == GAP)

    def to_error(self) -> CitegraphError:
        """The problem as the exception ingest raises: the parser's own, or one named by the code."""
        if self.error is not None:
            return self.error
        cls = _ERRORS.get(self.code, ParseError)
        return cls(self.message, hint=self.hint, source=SourceSpan(self.path, max(self.line, 1)))


@dataclass(frozen=True, slots=True)
class Assembly:
    """Members in input order, each placed in its set (``set_id``) and, when its set has a manifest,
    carrying its :class:`~domain.checks.Pinning` (the manifest's path, its pins, the member's
    pinned SHA-256 — None when unpinned — and whether its bytes match); the manifests read; every
    problem found."""

    documents: tuple[ParsedDocument, ...]
    manifests: tuple[Manifest, ...]
    problems: tuple[SetProblem, ...]

    @property
    def refused_sets(self) -> frozenset[str]:
        """Sets with at least one error problem: none of their members may be ingested."""
        return self.refused()

    def refused(self, partial: bool = False, strict: bool = False) -> frozenset[str]:
        """Sets with a problem that refuses them (:meth:`SetProblem.refuses`)."""
        return frozenset(p.set_id for p in self.problems if p.refuses(partial, strict) and p.set_id)

    def manifest_sets(self) -> dict[str, str | None]:
        """Each manifest read (path) → the set it was placed in, None when no member joined it."""
        placed = {d.pinning.manifest: _set_of(d) for d in self.documents if d.pinning and d.pinning.manifest}
        return {m.path: placed.get(m.path) for m in self.manifests}

    def accepted(self, partial: bool = False) -> tuple[ParsedDocument, ...]:
        """Members of sets that are not refused."""
        refused = self.refused(partial)
        return tuple(d for d in self.documents if _set_of(d) not in refused)


def _set_of(doc: ParsedDocument) -> str:
    return set_id_of(doc)


def guess_run_id(data: bytes | None) -> str | None:
    r"""The ``run-id:`` (a generated review's ``analysis-run:``) a file states in its first lines,
    read without YAML (for unparseable files); lines end at LF, CR LF or CR, as the parsers read
    them.

    >>> guess_run_id(b"---\rtype: x\rrun-id: AAS-2026-10-04-x-01\r: broken\r---\r")
    'AAS-2026-10-04-x-01'
    """
    if not data:
        return None
    head = data[:4096].decode("utf-8", "replace")
    m = _RUN_ID_LINE.search(head.replace("\r", "\n") if "\r" in head else head)
    return m.group(1) if m else None


PLAIN_TEXT_HEAD = 4
"""Lines of a ``.txt`` file searched for its ``Type:`` line: a plain-text member names its type on
line 2 or 3 (GRAMMAR §9; the parser reads the first non-blank line of 2–4)."""


def no_document(f: InputFile, named: bool) -> str | None:
    """Why a ``.md`` or ``.txt`` file of the input is no analysis document before it is parsed, or
    None when it may be one (and so is read, its errors refusing its set).

    No analysis document: an empty file (nothing but white space, a byte-order mark aside), and a
    ``.txt`` none of whose first :data:`PLAIN_TEXT_HEAD` lines starts with ``Type:`` (a stray
    ``readme.txt``). A file claims to be a member, and stays an error when broken, if a manifest
    pins it (``named``), if its place names it (an empty ``trials/<run-id>/result.md``, GRAMMAR §0),
    or if it cannot be decoded (its ``Type:`` line cannot be looked for).

    >>> no_document(InputFile("notes/placeholder.md", b"\\n \\n"), False)
    'no analysis document: an empty file'
    >>> no_document(InputFile("notes/readme.txt", b"Notes\\nnothing here\\n"), False)
    'no analysis document: no line of its first 4 starts with `Type:` (a plain-text member names its type there)'
    >>> no_document(InputFile("seeds/x.txt", b"Tolaria\\nType: types/x.md\\n"), False) is None
    True
    """
    if named or f.data is None:
        return None
    if not f.data.removeprefix(b"\xef\xbb\xbf").strip():
        return None if member_type_of(None, f.path) else f"{SKIP_REASONS['not-a-document']}: an empty file"
    if not f.name.lower().endswith(".txt"):
        return None
    try:
        text = decode_member(f.data, f.path)
    except ParseError:
        return None
    head = [line for line, _ in zip(iter_lines(text), range(PLAIN_TEXT_HEAD))]
    if any(line.startswith("Type:") for line, _ in head):
        return None
    return (f"{SKIP_REASONS['not-a-document']}: no line of its first {PLAIN_TEXT_HEAD} starts with `Type:` "
            "(a plain-text member names its type there)")


def _read_member(f: InputFile, named: bool, problems: list[SetProblem]) -> ParsedDocument | None:
    """Parse one candidate member, or record why not (a file that is no member: a :data:`SKIPPED`
    problem with its reason). Every input passes here, so here the member limit
    (:data:`MAX_MEMBER_BYTES`) and the run-id rule (:func:`domain.grammar.run_id_problem`) hold
    for every face."""
    if not member_file(f.name):
        code, why = skip_reason(f.name, f.folder, None)
        if named:
            problems.append(SetProblem("not-a-member", "error", f.path, 1, f"not an analysis-set member: {why}"))
        else:
            problems.append(SetProblem(code, SKIPPED, f.path, 0, why))
        return None
    if f.data is None:
        problems.append(SetProblem("parse-error", "error", f.path, 1, f.refusal or "file was not read"))
        return None
    if len(f.data) > MAX_MEMBER_BYTES:
        problems.append(SetProblem("parse-error", "error", f.path, 1, oversize(len(f.data)),
                                   hint="a member is a report of at most a few hundred KiB"))
        return None
    not_document = no_document(f, named)
    if not_document is not None:
        problems.append(SetProblem("not-a-document", SKIPPED, f.path, 0, not_document))
        return None
    fm = None
    if f.name.lower().endswith(".md"):
        try:
            text = decode_member(f.data, f.path)
            fm = read_frontmatter(text, f.path)
        except ParseError as exc:
            code = "malformed-frontmatter" if "frontmatter" in exc.message else "parse-error"
            problems.append(SetProblem(code, "error", f.path, exc.source.line if exc.source else 1, exc.message,
                                       guess_run_id(f.data), exc.hint, exc))
            return None
        mtype = member_type_of(fm.data if fm is not None else None, f.path)
        if mtype is None:
            type_path = fm.data.get("type") if fm is not None else None
            run_id = fm.data.get("run-id") if fm is not None else None
            line = fm.lines.get("type", 2) if fm is not None else 1
            type_name = PurePosixPath(type_path).stem if isinstance(type_path, str) else None
            code, why = skip_reason(f.name, f.folder, fm.data if fm is not None else None)
            if fm is None and named:  # a manifest pins it: it was meant to be a member
                problems.append(SetProblem("not-a-member", "error", f.path, 1,
                                           "not an analysis-set member: no YAML frontmatter",
                                           hint="members open with `---` frontmatter naming their `type`"))
            elif named or (run_id is not None and type_name not in NON_MEMBER_TYPES):
                # pinned, or it states a run: an analysis document that cannot be read is no silent skip
                if not isinstance(type_path, str):
                    problems.append(SetProblem("unknown-member-type", "error", f.path, line,
                                               "the frontmatter has no `type`", str(run_id) if run_id else None))
                elif type_name in NON_MEMBER_TYPES:
                    problems.append(SetProblem("not-a-member", "error", f.path, line,
                                               f"not an analysis-set member: its type is {type_path!r}"))
                else:
                    problems.append(SetProblem(
                        "unknown-member-type", "error", f.path, line, f"unknown member type {type_path!r}",
                        str(run_id) if run_id is not None else None,
                        "expected an agentic-system analysis member type such as "
                        "agentic-system-analyses/types/agentic-system-runtime-report.md"))
            else:
                problems.append(SetProblem(code, SKIPPED, f.path, 0, why))
            return None
    try:
        if fm is not None:  # a Markdown member: its text and frontmatter are read once, above
            doc = parse_markdown(f.data, f.path, text=text, frontmatter=fm)
        else:
            doc = parse_member(f.data, f.path)
    except ParseError as exc:
        problems.append(SetProblem("parse-error", "error", f.path, exc.source.line if exc.source else 1, exc.message,
                                   guess_run_id(f.data), exc.hint, exc))
        return None
    problem = run_id_problem(doc.run_id) if doc.run_id is not None else None
    if problem is not None:
        problems.append(SetProblem("malformed-frontmatter", "error", f.path,
                                   fm.lines.get("run-id", 2) if fm is not None else 1,
                                   f"run-id {doc.run_id!r} {problem}",
                                   hint="a run-id looks like AAS-2026-10-04-<system>-01 (GRAMMAR §1.2)"))
        return None
    return doc


def read_one(candidate: tuple[InputFile, bool]) -> tuple[ParsedDocument | None, list[SetProblem]]:
    """One candidate member parsed (see :func:`_read_member`), with the problems it found."""
    problems: list[SetProblem] = []
    return _read_member(candidate[0], candidate[1], problems), problems


def read_batch(candidates: list[tuple[InputFile, bool]]) -> list[tuple[ParsedDocument | None, list[SetProblem]]]:
    """:func:`read_one` over a few candidates (what one task of a parser process does)."""
    return [read_one(c) for c in candidates]


def pool_size(workers: int | None, files: int) -> int:
    """Processes to parse ``files`` candidate members with (1: none, parse here)."""
    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if workers <= 1 or files < PARALLEL_MIN_FILES or not sys.platform.startswith("linux") \
            or threading.active_count() > 1:  # forking a process with threads running is unsafe
        return 1
    return min(workers, files)


def _read_all(candidates: list[tuple[InputFile, bool]],
              workers: int | None) -> list[tuple[ParsedDocument | None, list[SetProblem]]]:
    """:func:`read_one` over ``candidates``, in their order, in a process pool when it pays.

    Parsing is independent per member, so the pool only changes where it runs: results come back
    in input order, and if anything unexpected goes wrong in the pool (a worker dies, a parser bug
    raises) every member is parsed again here, so the outcome (result or exception) is exactly
    the one-process outcome."""
    size = pool_size(workers, len(candidates))
    with _collector_paused():
        if size > 1:
            chunk = max(1, min(16, len(candidates) // (size * 8)))
            try:
                with ProcessPoolExecutor(size, mp_context=multiprocessing.get_context("fork"),
                                         initializer=start_worker) as pool:
                    return list(pool.map(read_one, candidates, chunksize=chunk))
            except Exception:  # noqa: BLE001 - redone below, where an error surfaces as it would serially
                pass
        return [read_one(c) for c in candidates]


def start_worker() -> None:
    """Set up a forked parser process: its collector stays off (see :func:`_collector_paused`;
    the process only parses, and ends with the pool)."""
    gc.disable()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while parsed members pile up, when no other thread
    runs (the collector is process-wide). Parsing makes almost no reference cycles, but each
    collection of the oldest generation walks every object built so far: about a sixth of parse
    time, and most of the time spent unpickling results from a pool."""
    if threading.active_count() > 1 or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def assemble(files: Iterable[InputFile], *, workers: int | None = 1) -> Assembly:
    """Group input files into analysis sets.

    Parameters
    ----------
    files : iterable of InputFile
        Every file of the input, in input order: members (``.md``, ``.txt``), manifests
        (``ARTIFACT.yaml``) and any other. A file that is no member — ``NOTICE.md``, type
        definitions, schemas, instructions — is a :data:`SKIPPED` problem naming why, whether
        given by path or found in a folder; one a manifest pins is a ``not-a-member`` error.
    workers : int or None, default 1
        Processes that parse members: 1 parses in this process; None picks one per available CPU.
        More than one is only used for at least :data:`PARALLEL_MIN_FILES` members, on Linux
        (``fork``), with no other thread running; the result is the same either way.

    Returns
    -------
    Assembly
        Members in input order with their set and pins, and every problem found.

    Notes
    -----
    Set rules (GRAMMAR §2, §2.1): a manifest belongs to the set (run-id) of the members beside it,
    or, with none beside it, to the run-id of the members it names. Each pinned name is looked up
    beside the manifest first, then among members of that run-id in other folders; a pinned member
    joins the manifest's set even if its own run-id disagrees (the checker reports that). A name
    found nowhere is ``manifest-missing-member``; a digest that differs is ``pin-mismatch``
    (SHA-256 over the raw bytes). Two members with one role in one set are ``duplicate-member``; an
    ID declared twice in one set is ``duplicate-declaration``.

    Examples
    --------
    >>> assemble([]).documents
    ()
    """
    files = list(files)
    manifests, manifest_problems = read_manifests(files)
    candidates = member_candidates(files, manifests)
    results = _read_all([c for _, c in candidates], workers)
    return assemble_read(files, manifests, manifest_problems, candidates, results).assembly


def read_manifests(files: list[InputFile]) -> tuple[list[Manifest], list[tuple[int, SetProblem]]]:
    """The manifests among ``files`` (in order), and each unreadable one's ``malformed-manifest``
    problem with the file's index in ``files``."""
    manifests: list[Manifest] = []
    problems: list[tuple[int, SetProblem]] = []
    for n, f in enumerate(files):
        if f.name == MANIFEST_NAME:
            try:
                if f.data is None:
                    raise ParseError(f.refusal or "file was not read", source=SourceSpan(f.path, 1))
                manifests.append(replace(parse_manifest(f.data, f.path), on_disk=f.on_disk))
            except ParseError as exc:
                problems.append((n, SetProblem("malformed-manifest", "error", f.path,
                                               exc.source.line if exc.source else 1, exc.message, None, exc.hint,
                                               exc)))
    return manifests, problems


def member_candidates(files: list[InputFile], manifests: list[Manifest]) -> list[tuple[int, tuple[InputFile, bool]]]:
    """Every file of ``files`` that is not a manifest, with its index in ``files`` and whether a
    manifest beside it names it (what :func:`read_one` takes)."""
    named_here = {(m.folder, name) for m in manifests for name in m.names()}
    return [(n, (f, (f.folder, f.name) in named_here)) for n, f in enumerate(files) if f.name != MANIFEST_NAME]


@dataclass(frozen=True, slots=True)
class Assembled:
    """:func:`assemble_read`'s answer: the ``assembly``; for each of its problems, ``keys`` giving
    its place in the order :func:`assemble` reports problems in (phase, index of the file it comes
    from, position), so problems of separately assembled groups of files merge into exactly the
    order one assembly of all of them gives; for each document, the index of its file
    (``origins``); and the indices of the manifests whose set no member beside them named
    (``weak``: their set was voted by members elsewhere, so it depends on files outside the
    group)."""

    assembly: Assembly
    keys: tuple[tuple[int, int, int], ...]
    origins: tuple[int, ...]
    weak: tuple[int, ...]


def assemble_read(files: list[InputFile], manifests: list[Manifest],
                  manifest_problems: list[tuple[int, SetProblem]],
                  candidates: list[tuple[int, tuple[InputFile, bool]]],
                  results: list[tuple[ParsedDocument | None, list[SetProblem]]],
                  origin: list[int] | None = None) -> Assembled:
    """:func:`assemble` once the members are parsed: ``manifests`` and ``manifest_problems`` from
    :func:`read_manifests`, ``candidates`` from :func:`member_candidates`, ``results`` the
    :func:`read_one` answer for each candidate. ``origin`` maps an index in ``files`` to the
    index reported in :class:`Assembled` (default: the same), for a group cut out of a larger
    input."""
    origin = origin if origin is not None else list(range(len(files)))
    problems: list[SetProblem] = []
    keys: list[tuple[int, int, int]] = []

    def tag(phase: int, index: int) -> None:
        while len(keys) < len(problems):
            keys.append((phase, origin[index], len(keys)))

    for n, problem in manifest_problems:
        problems.append(problem)
        tag(0, n)
    manifest_index = [n for n, f in enumerate(files) if f.name == MANIFEST_NAME
                      and n not in {i for i, _ in manifest_problems}]
    docs: list[ParsedDocument] = []
    doc_origin: list[int] = []
    unparsed: dict[tuple[str, str], InputFile] = {}
    for (n, (f, _)), (doc, found) in zip(candidates, results):
        problems.extend(found)
        tag(1, n)
        if doc is None:
            unparsed[(f.folder, f.name)] = f
        else:
            docs.append(doc)
            doc_origin.append(n)
    weak: list[int] = []
    docs, folder_sets = _pin(docs, manifests, unparsed, problems,
                             lambda k: tag(2, manifest_index[k]), lambda k: weak.append(origin[manifest_index[k]]))
    for n, p in enumerate(problems):
        folder = str(PurePosixPath(p.path.replace("\\", "/")).parent)
        if p.set_id is None and folder in folder_sets:
            problems[n] = replace(p, set_id=folder_sets[folder])
    docs, doc_origin = _unique_members(docs, doc_origin, problems, lambda n: tag(3, n))
    _unpinned(docs, doc_origin, problems, lambda n: tag(3, n))
    _duplicate_declarations(docs, doc_origin, problems, lambda n: tag(4, n))
    return Assembled(Assembly(tuple(docs), tuple(manifests), tuple(problems)), tuple(keys),
                     tuple(origin[n] for n in doc_origin), tuple(weak))


def _folder(doc: ParsedDocument) -> str:
    return str(PurePosixPath(doc.path.replace("\\", "/")).parent)


def _file_name(doc: ParsedDocument) -> str:
    return (doc.identity and doc.identity.file_name) or PurePosixPath(doc.path.replace("\\", "/")).name


def _pin(docs: list[ParsedDocument], manifests: list[Manifest], unparsed: dict[tuple[str, str], InputFile],
         problems: list[SetProblem], done: Callable[[int], None] = lambda k: None,
         weak: Callable[[int], None] = lambda k: None) -> tuple[list[ParsedDocument], dict[str, str]]:
    """Place each manifest in a set and pin the members it names (see :func:`assemble`).

    ``done(k)`` is called after manifest ``k`` added its problems; ``weak(k)`` when no member beside
    manifest ``k`` states a run-id, so its set was voted by members elsewhere (or guessed)."""
    folder_sets: dict[str, str] = {}
    set_manifest: dict[str, Manifest] = {}
    placed: dict[int, ParsedDocument] = {}
    # Each member's folder and file name, worked out once; members by (folder, name) and by
    # (run-id, name), in input order, so each pin is found without scanning every member.
    file_names = [_file_name(d) for d in docs]
    by_folder: dict[str, list[int]] = {}
    by_place: dict[tuple[str, str], list[int]] = {}
    by_run: dict[tuple[str | None, str], list[int]] = {}
    for n, (doc, name) in enumerate(zip(docs, file_names)):
        folder = _folder(doc)
        by_folder.setdefault(folder, []).append(n)
        by_place.setdefault((folder, name), []).append(n)
        by_run.setdefault((doc.run_id, name), []).append(n)
    # Members that failed to parse are still found by a pin, beside the manifest or (by the run-id
    # their text names) in another folder of the set, so the pin reports their bytes, not absence.
    unparsed_by_run: dict[tuple[str | None, str], InputFile] = {}  # keyed as by_run
    for (_, name), f in unparsed.items():
        run_id = guess_run_id(f.data)
        if run_id:
            unparsed_by_run.setdefault((run_id, name), f)
    for k, manifest in enumerate(manifests):
        here = manifest.folder
        names = set(manifest.names())
        beside = [(docs[n], file_names[n]) for n in by_folder.get(here, ())]
        votes = Counter(d.run_id for d, name in beside if d.run_id and name in names) or \
            Counter(d.run_id for d, _ in beside if d.run_id)
        if not votes:
            weak(k)
            votes = Counter(d.run_id for d, name in zip(docs, file_names) if d.run_id and name in names)
        set_id = votes.most_common(1)[0][0] if votes else None
        if set_id is None:
            set_id = next((r for r in (guess_run_id(f.data) for (folder, _), f in unparsed.items()
                                       if folder == here) if r), None)
        if set_id is not None:
            folder_sets[here] = set_id
            if set_id in set_manifest:
                problems.append(SetProblem("duplicate-manifest", "error", manifest.path, 1,
                                           f"set {set_id} already has the manifest {set_manifest[set_id].path}",
                                           set_id))
                done(k)
                continue
            set_manifest[set_id] = manifest
        for pin in manifest.pins:
            index = next((n for n in by_place.get((here, pin.name), ()) if n not in placed), None)
            if index is None:
                index = next((n for n in by_run.get((set_id, pin.name), ()) if n not in placed), None)
            if index is None:
                raw = unparsed.get((here, pin.name)) or unparsed_by_run.get((set_id, pin.name))
                if raw is not None and raw.data is not None:
                    if hashlib.sha256(raw.data).hexdigest() != pin.sha256:
                        problems.append(_mismatch(raw.path, hashlib.sha256(raw.data).hexdigest(), manifest, pin, set_id))
                    continue
                problems.append(SetProblem(
                    GAP, "error", manifest.path, pin.line,
                    f"the manifest pins {pin.name}, which is not among the inputs", set_id,
                    _gap_hint(manifest, pin, set_id),
                    member=pin.name))
                continue
            doc = docs[index]
            verified = doc.sha256 == pin.sha256
            placed[index] = replace(doc, set_id=set_id, pinning=_pinning(manifest, pin.sha256, verified))
            if not verified:
                problems.append(_mismatch(doc.path, doc.sha256, manifest, pin, set_id))
        done(k)
    out = []
    for n, doc in enumerate(docs):
        doc = placed.get(n, doc)
        # a projection (the generated review) is published outside the set folder, unpinned (GRAMMAR §3.11)
        if n not in placed and _set_of(doc) in set_manifest and not (doc.identity and doc.identity.projection):
            doc = replace(doc, pinning=_pinning(set_manifest[_set_of(doc)], None, None))
        out.append(doc)
    return out, folder_sets


def _unpinned(docs: list[ParsedDocument], origin: list[int], problems: list[SetProblem],
              done: Callable[[int], None] = lambda n: None) -> None:
    """A member its set's manifest does not pin (a generated review aside, §3.11): membership is
    closed once a manifest pins any member (GRAMMAR §2.2 rule 1), so its set is refused; ``done(i)``
    is called after the member of file ``i`` added its problem."""
    for doc, n in zip(docs, origin):
        if doc.pinning is not None and doc.pinning.sha256 is None:
            name = _file_name(doc)
            problems.append(SetProblem(
                "unpinned-member", "error", doc.path, 0, f"{name} is not pinned by {doc.pinning.manifest}",
                _set_of(doc), f"pin {name} in the manifest (its SHA-256) or move it out of the set's folder"))
            done(n)


def _pinning(manifest: Manifest, sha256: str | None, verified: bool | None) -> Pinning:
    """How ``manifest`` pins a member of its set: its path, each pin (file name, line), the
    member's pinned ``sha256`` (None: unpinned) and whether its bytes match (``verified``)."""
    return Pinning(manifest.path, tuple((p.name, p.line) for p in manifest.pins), sha256, verified)


def _mismatch(path: str, actual: str, manifest: Manifest, pin: ManifestPin, set_id: str | None) -> SetProblem:
    return SetProblem(
        "pin-mismatch", "error", path, 0,
        f"SHA-256 {actual} differs from the pin {pin.sha256} at {manifest.path}:{pin.line}", set_id,
        "the member changed after the set was frozen; restore it or publish a new run")


def _pinned(doc: ParsedDocument) -> bool:
    """Whether its set's manifest pins ``doc`` by SHA-256."""
    return doc.pinning is not None and bool(doc.pinning.sha256)


def _unique_members(docs: list[ParsedDocument], origin: list[int], problems: list[SetProblem],
                    done: Callable[[int], None] = lambda n: None) -> tuple[list[ParsedDocument], list[int]]:
    """Keep one member per role and set (the pinned one when there is one); the others are
    ``duplicate-member``. ``origin`` is each member's file index, kept beside the members kept;
    ``done(i)`` is called after the member of file ``i`` added its problems."""
    keep: dict[tuple[str, str], ParsedDocument] = {}
    for doc in docs:
        key = (_set_of(doc), doc.role)
        if key not in keep or (_pinned(doc) and not _pinned(keep[key])):
            keep[key] = doc
    out, out_origin = [], []
    for doc, n in zip(docs, origin):
        key = (_set_of(doc), doc.role)
        if keep[key] is doc:
            out.append(doc)
            out_origin.append(n)
            continue
        problems.append(SetProblem(
            "duplicate-member", "error", doc.path, 1,
            f"{doc.path} and {keep[key].path} are both document {key[0]}/{key[1]}", key[0],
            "ingest one version of each member"))
        done(n)
    return out, out_origin


def _duplicate_declarations(docs: list[ParsedDocument], origin: list[int], problems: list[SetProblem],
                            done: Callable[[int], None] = lambda n: None) -> None:
    """An ID declared twice in one set, across members or within one (GRAMMAR §2.2 rule 2);
    ``done(i)`` is called after the member of file ``i`` added its problems."""
    first: dict[tuple[str, str], tuple[str, int]] = {}
    for doc, n in zip(docs, origin):
        for block in doc.blocks:
            if block.section_kind != "declaration" or block.declaration is None:
                continue
            key = (_set_of(doc), block.declaration.record_id)
            if key in first:
                path, line = first[key]
                problems.append(SetProblem(
                    "duplicate-declaration", "error", doc.path, block.line,
                    f"{key[1]} is declared again; first declared at {path}:{line}", key[0],
                    "declare each record once; other members annotate it"))
            else:
                first[key] = (doc.path, block.line)
        done(n)
