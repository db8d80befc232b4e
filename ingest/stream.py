"""The ingest engine: member files → analysis sets parsed, checked and written one set at a time.

:func:`ingest_paths` (files on disk), :func:`ingest_inputs` (files held in memory) and
:func:`stage_inputs` (``check PATHS``) give exactly what one assembly of the whole input
(:func:`ingest.sets.assemble`) with its sets accepted whole or refused would give (the same
report, the same error, the same graph), without holding every parsed member of the run: the
files are first grouped into analysis sets from what their first lines say (frontmatter ``run-id``,
plain-text title, manifest folders and pins), then each group is read, parsed (in the process pool
when there are many members), assembled and checked (:func:`ingest.sets.assemble_read`) and handed
to :func:`ingest.loader.ingest_stream` set by set, so memory holds one group (plus the few the pool
parses ahead), whatever the number of sets.

Exactness. A group is a connected part of the input: files are joined when they share a folder
that holds a manifest, a run-id (stated or guessed from the first lines, as
:func:`ingest.sets.guess_run_id` does), or the set their first lines name; a manifest whose folder
holds no member with a run-id is joined with every member, anywhere, of a name it pins and a
run-id (its set is voted by them). Assembling a group alone then gives what assembling the whole
input gives for its files, and each problem carries its place in the whole input's order, so the
first error and the count of the others are today's. What the grouping assumed is checked once a
group is parsed (each member's run-id and set are what its first lines said; a manifest's set came
from members beside it unless that was foreseen; each file has the bytes it had when grouped); if
not, the groups concerned are joined and the run starts again, after a rollback.

All or nothing. A store with :class:`~graph.store.SupportsBulkWrite` takes the whole run as one
transaction, parsing included: a refused set (without ``skip_invalid``) or any failure keeps nothing
of the run. A store without it (Neo4j) writes each set in its own transaction, so every group is
first parsed and checked without writing (a refusal then writes nothing, as before); the sets it
accepts are pickled to a temporary file as they come (:class:`_Spill`: memory holds one set, as
in one pass) and written from there, so each member is parsed once, and what is written is exactly
what was checked.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import pickle
import tempfile
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from collections.abc import Callable, Iterable, Iterator, Mapping

from graph.errors import CitegraphError, IngestError, ParseError, SourceSpan
from graph.model import slugify
from graph.store import GraphStore, SupportsBulkWrite
from ingest.files import input_file, member_files, no_members, no_members_error, refusal_of
from domain.grammar import member_identity, member_type_of
from ingest.loader import IngestReport, ingest_stream, ordered_report, set_id_of
from ingest.parsers.markdown import parse_markdown, read_frontmatter
from ingest.parsers.parsed import ParsedDocument
from ingest.parsers.plaintext import decode_member, plaintext_system
from ingest.sets import (
    MANIFEST_NAME,
    SKIPPED,
    InputFile,
    member_file,
    SetProblem,
    guess_run_id,
    pool_size,
    read_batch,
    read_one,
    start_worker,
    assemble_read,
    member_candidates,
    parse_manifest,
    read_manifests,
)
import contextlib

__all__ = ["ingest_paths", "ingest_inputs", "stage_inputs", "Vet", "Observer", "CHUNK", "MAX_RESTARTS"]

CHUNK = 16
"""Members a parser process takes at a time."""

MAX_RESTARTS = 3
"""Times a run starts again because input files changed while it read them, before giving up."""

Vet = Callable[[list[ParsedDocument]], None]
"""``vet(members)``: called with each accepted set's members before any of them is written; may
raise to refuse the whole input (then nothing is written)."""

Observer = Callable[[str, tuple[str, ...]], None]
"""``observe(event, names)``: ``("parse", paths)`` when a group's files are sent to be parsed,
``("load", (set_id, *paths))`` when one set's accepted members are handed to the loader."""


@dataclass(slots=True)
class _Head:
    """What the first lines of one input file say, read before anything is parsed.

    ``index`` is the file's place in the input; ``digest`` the SHA-256 of the bytes read (None when
    the file is over the size limit and so not read); ``keys`` the sets the file may belong to or
    name; ``run_id`` the run-id a member parsed from it has (Markdown frontmatter); ``member``
    whether its first lines are a member's; ``pins`` the names a manifest pins."""

    index: int
    source: Path | InputFile  # a file on disk, read when needed, or one held in memory
    explicit: bool
    folder: str
    name: str
    digest: str | None
    keys: set[str] = field(default_factory=set)
    run_id: str | None = None
    member: bool = False
    pins: tuple[str, ...] = ()

    @property
    def manifest(self) -> bool:
        return self.name == MANIFEST_NAME

    @property
    def path(self) -> str:
        """The path of the file as its :class:`InputFile` names it."""
        return self.source.path if isinstance(self.source, InputFile) else str(self.source)


def _head(task: tuple[int, Path | InputFile, bool]) -> _Head:
    """Read file ``(index, source, explicit)`` and what its first lines say (see :class:`_Head`)."""
    index, source, explicit = task
    f = _input(source, explicit)
    head = _Head(index, source, explicit, f.folder, f.name,
                 None if f.data is None else hashlib.sha256(f.data).hexdigest())
    if f.data is None:
        return head
    guess = guess_run_id(f.data)
    if guess:
        head.keys.add(guess)
    if head.manifest:
        with contextlib.suppress(ParseError):
            head.pins = tuple(parse_manifest(f.data, f.path).names())
        return head
    try:
        if f.name.lower().endswith(".md"):
            text = decode_member(f.data, f.path)
            fm = read_frontmatter(text, f.path)
            data = fm.data if fm is not None else {}
            run_id = data.get("run-id")
            if run_id is not None:
                head.keys.add(str(run_id))
            mtype = member_type_of(fm.data if fm is not None else None, f.path)
            if mtype is None:
                return head
            head.member = True
            run_id = member_identity(data, mtype, f.path)[0]
            if run_id is not None:
                head.keys.add(run_id)
            system = data.get("system")
            if run_id is not None:
                head.run_id = str(run_id)
            elif system:
                head.keys.add(slugify(str(system).strip()))
            else:  # the system is named by the `# title`: rare enough to parse the member for it
                head.keys.add(set_id_of(parse_markdown(f.data, f.path, text=text, frontmatter=fm)))
        elif f.name.lower().endswith(".txt"):
            system = plaintext_system(f.data, f.path)
            head.member = True
            head.keys.add(slugify(system))
    except ParseError:
        pass
    return head


def _input(source: Path | InputFile, explicit: bool) -> InputFile:
    """One input file: one held in memory as it is, one on disk read by :func:`ingest.files.input_file`."""
    return source if isinstance(source, InputFile) else input_file(source, explicit)


class _Plan:
    """The input files grouped into connected parts (see the module docstring)."""

    def __init__(self, heads: list[_Head], weak: Iterable[int] = ()):
        self.heads = heads
        self.weak = set(weak)  # manifests (file index) whose set is voted by members elsewhere
        parent: dict[str, str] = {}

        def find(x: str) -> str:
            parent.setdefault(x, x)
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(a: str, b: str) -> None:
            parent[find(a)] = find(b)

        manifest_folders = {h.folder for h in heads if h.manifest}
        run_ids_beside = {h.folder for h in heads if h.member and h.run_id}
        for h in heads:
            node = f"file:{h.index}"
            find(node)
            for key in h.keys:
                union(node, f"set:{key}")
            if h.folder in manifest_folders:
                union(node, f"folder:{h.folder}")
        for h in heads:
            if h.manifest and h.folder not in run_ids_beside:
                self.weak.add(h.index)
        for h in heads:
            if h.manifest and h.index in self.weak:
                pinned = set(h.pins)
                for other in heads:
                    if other.run_id and other.name in pinned:
                        union(f"file:{h.index}", f"file:{other.index}")
        parts: dict[str, list[_Head]] = {}
        for h in heads:
            parts.setdefault(find(f"file:{h.index}"), []).append(h)
        # In input order of their first member, so sets are written in the order their members come.
        self.groups = sorted(parts.values(), key=lambda g: min((h.index for h in g if h.member),
                                                               default=g[0].index))

    @classmethod
    def read(cls, paths: list[Path], parser: _Parser, files: list[Path] | None = None) -> _Plan:
        """The plan of the files under ``paths`` (``files``: :func:`member_files` of them, when
        already listed)."""
        given = {p.resolve() for p in paths if p.is_file()}
        files = member_files(paths) if files is None else files
        return cls(parser.map(_head, [(n, p, p.resolve() in given) for n, p in enumerate(files)]))

    @classmethod
    def held(cls, files: list[InputFile], parser: _Parser) -> _Plan:
        """The plan of input files held in memory, in their order."""
        return cls(parser.map(_head, [(n, f, f.explicit) for n, f in enumerate(files)]))


def _by_set(docs: Iterable[ParsedDocument]) -> dict[str, list[ParsedDocument]]:
    """``docs`` grouped by their set, sets and members in the order they come."""
    out: dict[str, list[ParsedDocument]] = {}
    for doc in docs:
        out.setdefault(set_id_of(doc), []).append(doc)
    return out


class _Replan(Exception):
    """A group broke an assumption of the plan: start the run again with ``plan`` (None: re-read
    the files, they changed)."""

    def __init__(self, plan: _Plan | None):
        super().__init__("replan")
        self.plan = plan


class _Parser:
    """Parses groups of candidates, in a process pool when it pays (``ingest.sets._read_all``'s
    rules), a few groups ahead of the one being assembled."""

    def __init__(self, workers: int | None, candidates: int):
        self.size = pool_size(workers, candidates)
        self.pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> _Parser:
        if self.size > 1:
            try:
                self.pool = ProcessPoolExecutor(self.size, mp_context=multiprocessing.get_context("fork"),
                                                initializer=start_worker)
                self.pool.submit(int).result()  # fork the workers now, before any store transaction
            except Exception:  # noqa: BLE001 - no pool: members are parsed here, with the same result
                self.__exit__()
                self.pool = None
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def map(self, fn: Callable, items: list) -> list:
        """``[fn(item) for item in items]``, in the pool when there is one."""
        if self.pool is not None:
            try:
                return list(self.pool.map(fn, items, chunksize=4 * CHUNK))
            except Exception:  # noqa: BLE001 - redone here, where an error surfaces as it would serially
                pass
        return [fn(item) for item in items]

    @property
    def ahead(self) -> int:
        """Members parsed ahead of the group being assembled (0 without a pool)."""
        return 2 * CHUNK * self.size if self.pool is not None else 0

    def submit(self, candidates: list[tuple[InputFile, bool]]) -> list[tuple[list, Future | None]]:
        chunks = [candidates[n:n + CHUNK] for n in range(0, len(candidates), CHUNK)]
        return [(c, self.pool.submit(read_batch, c) if self.pool is not None else None) for c in chunks]

    @staticmethod
    def results(handle: list[tuple[list, Future | None]]) -> list[tuple[ParsedDocument | None, list[SetProblem]]]:
        out: list[tuple[ParsedDocument | None, list[SetProblem]]] = []
        for chunk, future in handle:
            try:
                out.extend(future.result() if future is not None else [read_one(c) for c in chunk])
            except Exception:  # noqa: BLE001 - redone here, where an error surfaces as it would serially
                out.extend(read_one(c) for c in chunk)
        return out


@dataclass
class _Read:
    """One group read from disk and sent to be parsed."""

    heads: list[_Head]
    files: list[InputFile]
    manifests: list
    manifest_problems: list
    candidates: list
    handle: list


class _Pass:
    """One pass over the plan's groups: read, parse, assemble and check each, then hand its
    accepted sets on (:meth:`sets`); what the whole input would have refused is collected with
    each item's place in the input's order, for :meth:`report`."""

    def __init__(self, plan: _Plan, parser: _Parser, *, skip_invalid: bool, observe: Observer | None,
                 partial: bool = False, strict: bool = False, vet: Vet | None = None, stage: bool = False):
        self.plan, self.parser, self.skip_invalid, self.partial = plan, parser, skip_invalid, partial
        self.strict, self.vet, self.stage = strict, vet, stage
        self.every_problem: list[tuple[tuple, SetProblem]] = []  # with ``stage``: all, with their order keys
        self.skipped: list[tuple[tuple, SetProblem]] = []  # files that are no analysis document
        self.manifests: list[tuple[int, str, str | None, int]] = []  # (file index, path, set, pins) consumed
        self.refused_manifests: list[tuple[int, str, str]] = []  # (file index, path, set) of refused sets
        self.observe = observe or (lambda event, names: None)
        self.problems: list[tuple[tuple, SetProblem]] = []  # error problems, with their order keys
        self.gaps: list[tuple[tuple, SetProblem]] = []  # absent pinned members of partial sets
        self.refused_docs: list[tuple[int, str, str]] = []  # (file index, path, set) of refused members
        self.accepted: list[tuple[int, str]] = []  # (file index, path) of members handed on
        self.first_doc: dict[str, int] = {}  # set → file index of its first member handed on
        self.documents = 0
        self.rest = 0  # members of sets no problem refuses: what skipping invalid files would write

    def _read(self, heads: list[_Head]) -> _Read:
        files = [_input(h.source, h.explicit) for h in heads]
        for h, f in zip(heads, files):
            digest = None if f.data is None else hashlib.sha256(f.data).hexdigest()
            if digest != h.digest:
                raise _Replan(None)
        manifests, manifest_problems = read_manifests(files)
        candidates = member_candidates(files, manifests)
        self.observe("parse", tuple(f.path for f in files))
        return _Read(heads, files, manifests, manifest_problems, candidates,
                     self.parser.submit([c for _, c in candidates]))

    def _groups(self) -> Iterator[_Read]:
        """The plan's groups read and parsing, up to :attr:`_Parser.ahead` members ahead."""
        pending: deque[_Read] = deque()
        in_flight = 0
        groups = iter(self.plan.groups)
        for heads in groups:
            pending.append(self._read(heads))
            in_flight += len(pending[-1].candidates)
            while pending and (in_flight > self.parser.ahead or not self.parser.ahead):
                done = pending.popleft()
                in_flight -= len(done.candidates)
                yield done
        while pending:
            yield pending.popleft()

    def sets(self) -> Iterator[list[ParsedDocument]]:
        """Each accepted set of each group, in order, as a list of its members.

        Raises
        ------
        CitegraphError
            After the last group, when some set is refused and ``skip_invalid`` is false: the
            first problem of the whole input, counting the others, exactly as
            :func:`ingest.files.refusal_of` words it (no set is handed on after the first refusal);
            ``no analysis-set members found`` when there were none.
        """
        failing = False
        for read in self._groups():
            origin = [h.index for h in read.heads]
            assembled = assemble_read(read.files, read.manifests, read.manifest_problems, read.candidates,
                                      self.parser.results(read.handle), origin)
            self._verify(read, assembled)
            assembly = assembled.assembly
            self.documents += len(assembly.documents)
            if self.stage:
                self.every_problem.extend(zip(assembled.keys, assembly.problems))
                yield from _by_set(assembly.documents).values()
                continue
            errors = [(k, p) for k, p in zip(assembled.keys, assembly.problems) if p.refuses(self.partial, self.strict)]
            self.skipped.extend((k, p) for k, p in zip(assembled.keys, assembly.problems)
                                if p.severity == SKIPPED and not self.strict)
            self.gaps.extend((k, p) for k, p in zip(assembled.keys, assembly.problems)
                             if p.severity == "error" and not p.refuses(self.partial))
            self.problems.extend(errors)
            refused = assembly.refused(self.partial, self.strict)
            self.rest += sum(set_id_of(doc) not in refused for doc in assembly.documents)
            if errors and not self.skip_invalid:
                failing = True
            if failing:
                continue
            listed = {p.subject for _, p in errors}  # files with a row of their own
            index = {str(h.path): h.index for h in read.heads}
            pins = {m.path: len(m.pins) for m in assembly.manifests}
            for path, set_id in assembly.manifest_sets().items():
                if set_id in refused:
                    if path not in listed:
                        self.refused_manifests.append((index[path], path, set_id))
                else:
                    self.manifests.append((index[path], path, set_id, pins[path]))
            by_set: dict[str, list[ParsedDocument]] = {}
            for doc, n in zip(assembly.documents, assembled.origins):
                set_id = set_id_of(doc)
                if set_id not in refused:
                    by_set.setdefault(set_id, []).append(doc)
                    self.accepted.append((n, doc.path))
                    self.first_doc.setdefault(set_id, n)
                elif doc.path not in listed:
                    self.refused_docs.append((n, doc.path, set_id))
            del assembled, assembly, read
            for set_id, docs in by_set.items():
                if self.vet is not None:
                    self.vet(docs)
                self.observe("load", (set_id, *(d.path for d in docs)))
                yield docs
        if self.stage:
            return
        problems = [p for _, p in sorted(self.problems, key=lambda kp: kp[0])]
        if not self.documents and not problems and not self.gaps:
            raise no_members_error([(p.path, p.message) for _, p in sorted(self.skipped, key=lambda kp: kp[0])])
        if failing:
            raise refusal_of(problems, rest=self.rest)

    def staged_problems(self) -> tuple[SetProblem, ...]:
        """With ``stage``, once :meth:`sets` is exhausted: every problem of the input, in the order
        one assembly of the whole input gives."""
        return tuple(p for _, p in sorted(self.every_problem, key=lambda kp: kp[0]))

    def _verify(self, read: _Read, assembled) -> None:
        """Raise :class:`_Replan` when the group's parse broke what the plan assumed."""
        wrong = False
        by_index = {h.index: h for h in read.heads}
        for doc, n in zip(assembled.assembly.documents, assembled.origins):
            head = by_index[n]
            natural = doc.run_id or slugify(doc.system)
            if doc.run_id != head.run_id or natural not in head.keys:
                head.run_id, wrong = doc.run_id, True
                head.keys.update(filter(None, (natural, doc.run_id)))
        unforeseen = set(assembled.weak) - self.plan.weak
        if wrong or unforeseen:  # what the first lines said was not the whole story: group again
            raise _Replan(_Plan(self.plan.heads, self.plan.weak | unforeseen))

    def report(self, loaded: IngestReport) -> IngestReport:
        """The run's report in the order one assembly of the whole input gives."""
        problems = [p for _, p in sorted(self.problems, key=lambda kp: kp[0])]
        errors: list[tuple[str, CitegraphError]] = [(p.subject, p.to_error()) for p in problems]
        errors += [(path, IngestError(f"set {set_id} was refused as a whole", source=SourceSpan(path, 1)))
                   for _, path, set_id in [*sorted(self.refused_docs), *sorted(self.refused_manifests)]]
        written = sorted(loaded.sets, key=lambda s: self.first_doc[s])
        gaps = [(p.subject, p.to_error()) for _, p in sorted(self.gaps, key=lambda kp: kp[0])]
        skipped = [(p.path, p.code, p.message) for _, p in sorted(self.skipped, key=lambda kp: kp[0])]
        manifests = [(path, set_id, pins) for _, path, set_id, pins in sorted(self.manifests)]
        return ordered_report(loaded, [path for _, path in sorted(self.accepted)], errors, written, gaps,
                              manifests, skipped)


def ingest_paths(store: GraphStore, paths: list[Path], *, skip_invalid: bool = False, partial: bool = False,
                 workers: int | None = None, observe: Observer | None = None, strict: bool = False) -> IngestReport:
    """Ingest every member under ``paths`` into ``store``, one analysis set at a time.

    A set is taken whole or not at all; the report names every file of the input in input order
    (members written or unchanged, then files refused, absent pinned members, manifests and
    skipped files). Memory holds one set's parsed members at a time (see the module docstring).

    Parameters
    ----------
    store : GraphStore
        Where to write; with :class:`~graph.store.SupportsBulkWrite` the run is one transaction.
    paths : list of Path
        Member files and folders (see :func:`ingest.files.member_files`).
    skip_invalid : bool, default False
        Refuse the invalid files and their sets and ingest the rest, instead of raising.
    partial : bool, default False
        Ingest a set whose manifest pins absent members (a set copied in part); each absent member
        is reported ``missing``, and stays a ``manifest-missing-member`` finding of the stored set.
    strict : bool, default False
        A file that is no analysis document (a type definition, an instruction, a note) is an
        error, instead of being listed as skipped with its reason.
    workers : int or None, default None
        Processes that parse members: None for one per available CPU, 1 for this process only
        (a pool only from :data:`ingest.sets.PARALLEL_MIN_FILES` members up; the result is the same).
    observe : callable, optional
        Told what happens, as ``observe(event, names)`` (see :data:`Observer`).

    Raises
    ------
    CitegraphError
        Without ``skip_invalid``, the first error problem of the input (``ParseError`` for an
        unreadable file, ``IngestError`` for a missing or mismatched manifest pin,
        ``DuplicateDeclaration``), counting the others (:func:`ingest.files.refusal_of`); an input
        without members (:func:`ingest.files.no_members_error`); two members that are one document;
        nothing of the run is kept when the store takes it as one transaction or the inputs are
        refused.
    """
    return _replanning(*_on_disk(paths), workers, _ingest(store, skip_invalid=skip_invalid, partial=partial,
                                                          strict=strict, observe=observe))


def ingest_inputs(store: GraphStore, files: Iterable[InputFile], *, skip_invalid: bool = False,
                  partial: bool = False, strict: bool = False, expect: Mapping[str, str | None] | None = None,
                  vet: Vet | None = None, workers: int | None = 1) -> IngestReport:
    """Ingest member files held in memory (an upload), one analysis set at a time, exactly as
    :func:`ingest_paths` ingests files on disk. ``expect`` maps document ids to the SHA-256 each
    must have when written (None: must not exist), checked by the store atomically with the write;
    ``vet`` (see :data:`Vet`) sees each accepted set before anything of it is written. ``workers``
    defaults to 1: parsed here, no process forked (a server's threads must not be forked).

    Raises
    ------
    CitegraphError
        As :func:`ingest_paths`, or what ``vet`` raises; nothing is written then.
    PreconditionFailed
        An ``expect`` item does not match the stored document.
    """
    files = list(files)
    candidates = sum(member_file(f.name) and f.name != MANIFEST_NAME for f in files)
    return _replanning(lambda parser: _Plan.held(files, parser), candidates, workers,
                       _ingest(store, skip_invalid=skip_invalid, partial=partial, strict=strict, expect=expect, vet=vet))


def stage_inputs(store: GraphStore, paths: list[Path], *, workers: int | None = None) -> tuple[SetProblem, ...]:
    """Write every member under ``paths`` into ``store``, refused sets included, one set at a
    time; every problem of the input, in the order one assembly of the whole input gives.

    Raises
    ------
    IngestError
        ``paths`` hold no analysis-set member and no problem but skipped files: placed at the
        first file skipped, with its reason, as ingest says it (:func:`ingest.files.no_members_error`),
        or naming ``paths`` when they hold no file (:func:`ingest.files.no_members`); two members are one document (``<set>/<role>``).
    """
    def stage(plan: _Plan, parser: _Parser) -> tuple[SetProblem, ...]:
        run = _Pass(plan, parser, skip_invalid=True, observe=None, stage=True)
        ingest_stream(store, run.sets())
        problems = run.staged_problems()
        if not run.documents and all(p.severity == SKIPPED for p in problems):  # worded as ingest words it
            raise no_members_error([(p.path, p.message) for p in problems]) if problems else no_members(paths)
        return problems

    return _replanning(*_on_disk(paths), workers, stage)


def _on_disk(paths: list[Path]) -> tuple[Callable[[_Parser], _Plan], int]:
    """The planner of the files under ``paths`` (listed once, again when they changed) and the
    number of candidate members among them."""
    paths = list(paths)
    listed = member_files(paths)
    files: list[Path] | None = listed  # None once read: a replan lists them again
    candidates = sum(member_file(p.name) and p.name != MANIFEST_NAME for p in listed)

    def plan(parser: _Parser) -> _Plan:
        nonlocal files
        read, files = _Plan.read(paths, parser, files), None
        return read

    return plan, candidates


T = TypeVar("T")


def _replanning(plan_of: Callable[[_Parser], _Plan], candidates: int, workers: int | None,
                work: Callable[[_Plan, _Parser], T]) -> T:
    """``work(plan, parser)`` on the input's plan (``plan_of``), again on a new plan when a group
    broke it (see the module docstring); the input re-read when its files changed, at most
    :data:`MAX_RESTARTS` times."""
    plan: _Plan | None = None
    restarts = 0
    with _Parser(workers, candidates) as parser:
        while True:
            if plan is None:
                plan = plan_of(parser)
            try:
                return work(plan, parser)
            except _Replan as again:
                if again.plan is None:
                    restarts += 1
                    if restarts > MAX_RESTARTS:
                        raise IngestError("the input files kept changing while they were ingested",
                                          hint="ingest them again once they are written") from None
                plan = again.plan


def _ingest(store: GraphStore, *, skip_invalid: bool, partial: bool, strict: bool, observe: Observer | None = None,
            expect: Mapping[str, str | None] | None = None,
            vet: Vet | None = None) -> Callable[[_Plan, _Parser], IngestReport]:
    """The work of an ingest run on one plan: without one transaction for the run, every set is
    checked (and vetted) before the first write; then each is read, parsed, checked and written."""
    def work(plan: _Plan, parser: _Parser) -> IngestReport:
        if not isinstance(store, SupportsBulkWrite):  # check everything before the first write
            with _Spill(observe) as spill:
                checked = _Pass(plan, parser, skip_invalid=skip_invalid, observe=spill.observe, partial=partial,
                                strict=strict, vet=vet)
                for docs in checked.sets():
                    spill.put(docs)
                return checked.report(ingest_stream(store, spill.sets(), expect=expect))
        run = _Pass(plan, parser, skip_invalid=skip_invalid, observe=observe, partial=partial, strict=strict,
                    vet=vet)
        return run.report(ingest_stream(store, run.sets(), expect=expect))

    return work


class _Spill:
    """The sets a checking :class:`_Pass` accepts, pickled to a temporary file as they come, with
    the pass's observer events, then handed on again in the same order by :meth:`sets` (events
    replayed as they were sent, a ``load`` event just before its set), so that a store writing set
    by set writes every set parsed once, after all are checked. Memory holds one set at a time.
    Measured at M: pickling and unpickling a set costs a small part of parsing it again (see
    bench/README.md, issue 25 item 1). The file goes when the block is left."""

    def __init__(self, observe: Observer | None):
        self._observe = observe
        self._events: list[tuple[str, tuple[str, ...]]] = []
        self._file = tempfile.TemporaryFile(prefix="citegraph-ingest-")  # noqa: SIM115 - closed by __exit__

    def __enter__(self) -> _Spill:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def observe(self, event: str, names: tuple[str, ...]) -> None:
        """The checking pass's :data:`Observer`: kept to replay."""
        self._events.append((event, names))

    def put(self, docs: list[ParsedDocument]) -> None:
        """Keep one accepted set (the pass sent its ``load`` event just before)."""
        pickle.dump(docs, self._file, protocol=pickle.HIGHEST_PROTOCOL)

    def sets(self) -> Iterator[list[ParsedDocument]]:
        """The kept sets in the order put, each after the events sent before it."""
        self._file.seek(0)
        observe = self._observe or (lambda event, names: None)
        for event, names in self._events:
            observe(event, names)
            if event == "load":
                yield pickle.load(self._file)
