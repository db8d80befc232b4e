"""Impact analysis: what a move of the analysed source does to an analysis set's evidence.

Issue #6. Given a repository holding the set's source (``SRC-n``) and two revisions, ``--from``
(the revision the set's paths and quotations refer to: by default the source's pinned ``commit``)
and ``--to``, :func:`impact_of` answers:

1. **Changed files**: files added, modified, deleted or renamed between the revisions (git rename
   detection) that the set cites: by citation, mention or quotation attribution (every
   ``SourceFile`` node of the set attached to the source). A renamed file keeps its citations and is
   flagged ``renamed`` (old → new); its quotations are looked for under the new path.
2. **Quotation drift**: each quotation is checked against the content at ``--to`` (see
   :func:`normalise_quotation` and :class:`QuotationDrift` for the exact rules). No fuzzy matching.
3. **Suspects**: every statement, record (declaration), section and document that *rests on* a
   changed file or a non-intact quotation, by the rests-on semantics of :mod:`queries.traversal`
   generalised from records to start nodes that are ``SourceFile`` and ``Quotation`` nodes: one
   ``store.closure`` over :data:`~graph.model.DEPENDENCY_KINDS`, then :func:`~queries.traversal.explain`.
4. **Reviews**: a suspect reviewed at revision R (:func:`review_suspect`) is not flagged again
   unless its evidence changed after R; see :func:`impact_of`, Notes.

Git access is injected: ``queries`` never imports ``ingest``; the faces pass an
:class:`ingest.git.GitRepository`, which satisfies :class:`SourceRepository`, and tests may pass any
object that does.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Callable, Collection, Iterable, Mapping, Protocol, Sequence, runtime_checkable

from graph.errors import (
    AmbiguousScope,
    AnalysisSetNotFound,
    CitegraphError,
    NodeNotFound,
    RevisionNotFound,
    SourceRepositoryError,
)
from graph.model import DEPENDENCY_KINDS, EdgeKind, Label, Node, review_node_id
from graph.store import Direction, GraphStore
from queries.names import require_set, unknown_set
from queries.traversal import explain

__all__ = [
    "FILE_STATUSES",
    "QUOTATION_STATES",
    "SUSPECT_KINDS",
    "FileChangeLike",
    "SourceRepository",
    "SupportsContaining",
    "ChangedFile",
    "Occurrence",
    "QuotationContext",
    "QuotationDrift",
    "Review",
    "Suspect",
    "ImpactSummary",
    "ImpactReport",
    "normalise_quotation",
    "impact_of",
    "review_suspect",
    "reviews_of",
]

FILE_STATUSES = ("added", "modified", "deleted", "renamed")
"""Statuses of a changed file, as :class:`FileChangeLike` reports them."""

QUOTATION_STATES = ("intact", "moved", "ambiguous", "broken")
"""States of a quotation at ``--to`` (see :class:`QuotationDrift`)."""

SUSPECT_KINDS = {Label.STATEMENT: "statement", Label.RECORD: "record", Label.SECTION: "section",
                 Label.DOCUMENT: "document"}
"""Labels that can be suspects, and the kind name each is reported under (also their sort rank)."""

_KIND_RANK = {kind: rank for rank, kind in enumerate(SUSPECT_KINDS.values())}
_CONTEXT_LINES = 2
_MAX_REGION_LINES = 40
_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_MARKERS = re.compile(r"^(?:[ \t]*>)+", re.MULTILINE)
_NOT_IN_FRAGMENT = re.compile(r"[\s\x00\ufffd\ud800-\udfff]+")
_MAX_FRAGMENT = 64


# -- what impact needs from git ------------------------------------------------------------------


class FileChangeLike(Protocol):
    """One changed file: ``status`` in :data:`FILE_STATUSES`, ``old_path`` (None when added) and
    ``new_path`` (None when deleted)."""

    @property
    def status(self) -> str: ...

    @property
    def old_path(self) -> str | None: ...

    @property
    def new_path(self) -> str | None: ...


class SourceRepository(Protocol):
    """Read access to a source's history; :class:`ingest.git.GitRepository` implements it.

    Every method raises :class:`~graph.errors.RevisionNotFound` for a revision the repository
    does not hold and :class:`~graph.errors.SourceRepositoryError` when it cannot be read.
    """

    def resolve(self, revision: str) -> str:
        """The full commit id ``revision`` names."""

    def changes(self, old: str, new: str) -> Sequence[FileChangeLike]:
        """Files differing between ``old`` and ``new``, renames detected."""

    def read(self, revision: str, paths: Collection[str]) -> Mapping[str, str | None]:
        """Text of each path at ``revision`` (None when absent or binary), every asked path a key."""

    def files(self, revision: str) -> Sequence[str]:
        """Every file path at ``revision``."""

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether ``ancestor`` is ``descendant`` or one of its ancestors."""


@runtime_checkable
class SupportsContaining(Protocol):
    """An optional fast path: a repository that can name the files that may contain a string
    without reading every file (:class:`ingest.git.GitRepository`, with ``git grep``). The search
    for moved quotations uses it when present and gives the same answers without it."""

    def containing(self, revision: str, fragments: Collection[str], *, skip: str = "") -> Collection[str]:
        """Paths at ``revision`` including every file whose :meth:`SourceRepository.read` text
        contains one of ``fragments`` (non-empty, no line breaks), also where characters of
        ``skip`` sit between a fragment's characters; other paths may be included."""


# -- results -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """A cited source file that changed between ``--from`` and ``--to``.

    ``file`` is the SourceFile node id and ``path`` the path as the set cites it; ``status`` one of
    :data:`FILE_STATUSES`; ``old_path``/``new_path`` as git reports them (``renamed``: old → new,
    the citations stay attached to the cited ``path``); ``cited_by`` the statements citing it and
    the quotations attributed to it (node ids in document order).
    """

    file: str
    path: str
    status: str
    old_path: str | None
    new_path: str | None
    cited_by: tuple[str, ...]

    @property
    def renamed(self) -> bool:
        """The file was renamed (``old_path`` → ``new_path``), possibly with edits."""
        return self.status == "renamed"

    def describe(self) -> str:
        """``modified mcp-server/vault.js``, ``renamed mcp-server/index.js → mcp-server/server.js``."""
        if self.renamed:
            return f"renamed {self.old_path} → {self.new_path}"
        return f"{self.status} {self.path}"


@dataclass(frozen=True, slots=True)
class Occurrence:
    """``count`` occurrences of a quotation in the file at ``path``."""

    path: str
    count: int


@dataclass(frozen=True, slots=True)
class QuotationContext:
    """Where a quotation's text sits in one file version: ``path`` at ``revision`` (full commit id),
    1-based inclusive ``start_line``..``end_line``, and those lines' ``text``."""

    path: str
    revision: str
    start_line: int
    end_line: int
    text: str


@dataclass(frozen=True, slots=True)
class QuotationDrift:
    """The state at ``--to`` of one quotation of the set.

    ``quotation`` (node id), ``statement`` (the quoting statement), ``document``, ``path`` (the
    attributed path as cited), ``checked_path`` (that file at ``--to`` after a rename; None when it
    was deleted), ``text`` (the quotation as stored).

    ``state`` is decided on :func:`normalise_quotation` forms of the quotation and of every file:

    - ``intact``: it occurs exactly once in the attributed file (at ``checked_path``);
    - ``ambiguous``: more than once there; or not there and more than once in other files;
    - ``moved``: not there, and exactly once in exactly one other file (``found_in``);
    - ``broken``: nowhere in the repository at ``--to``.

    ``found_in``: each file holding it at ``--to`` with its occurrence count, sorted by path.
    ``reason`` says why in one sentence. For ``moved`` and ``broken``: ``old`` is where it sat in
    the attributed file at ``--from`` (None when it did not occur there either), ``new`` where it
    sits now (moved) or the region that replaced it (broken; None when the file is gone), and
    ``diff`` a unified diff of the two regions with two lines of context ("" for intact and
    ambiguous quotations).
    """

    quotation: str
    statement: str | None
    document: str
    path: str
    checked_path: str | None
    text: str
    state: str
    found_in: tuple[Occurrence, ...]
    reason: str
    old: QuotationContext | None = None
    new: QuotationContext | None = None
    diff: str = ""

    def describe(self) -> str:
        """``broken quotation of src/lib/aiAgentStreamCallbacks.ts`` and the like."""
        where = f" (now in {self.found_in[0].path})" if self.state == "moved" else ""
        return f"{self.state} quotation of {self.path}{where}"


@dataclass(frozen=True, slots=True)
class Review:
    """A suspect reviewed at a source revision: ``id`` (``review/<node>@<revision>``), ``node``,
    ``set``, ``revision`` (full commit id), ``reviewer``, ``at`` (UTC ISO 8601), ``note`` (or None),
    ``fingerprint`` (SHA-256 of the node's content when reviewed)."""

    id: str
    node: str
    set: str
    revision: str
    reviewer: str
    at: str
    note: str | None
    fingerprint: str

    @classmethod
    def from_node(cls, node: Node) -> "Review":
        """The review a Review node holds."""
        p = node.props
        return cls(id=node.id, node=p["node"], set=node.set_id or "", revision=p["revision"],
                   reviewer=p.get("reviewer") or "", at=p.get("at") or "", note=p.get("note"),
                   fingerprint=p.get("fingerprint") or "")


@dataclass(frozen=True, slots=True)
class Suspect:
    """A node resting on changed evidence.

    ``node`` (id), ``kind`` (``statement``|``record``|``section``|``document``), ``set``,
    ``document`` (None for records), ``section`` and ``section_heading`` (innermost section of a
    statement, else None), ``text`` (statement text, section heading, document title or record ID),
    ``line`` (None for documents and records), ``order`` (document order, 0 when none),
    ``conclusion`` (a statement of a synthesis member or a row of a ``Limitations`` table),
    ``depth`` (evidence steps to the trigger, 1 = cites it or quotes it directly), ``path`` (node
    ids from the suspect to the trigger), ``edges`` (edge kinds along it), ``trigger`` (the
    changed SourceFile or drifted Quotation node id the path ends at), ``change`` (what happened
    to it, e.g. ``modified mcp-server/vault.js``) and ``review`` (the review that clears it, only in
    :attr:`ImpactReport.reviewed`).
    """

    node: str
    kind: str
    set: str
    document: str | None
    section: str | None
    section_heading: str | None
    text: str
    line: int | None
    order: int
    conclusion: bool
    depth: int
    path: tuple[str, ...]
    edges: tuple[str, ...]
    trigger: str
    change: str
    review: Review | None = None

    def sort_key(self) -> tuple:
        """Conclusions first, then statements, records, sections, documents; then document order."""
        return (not self.conclusion, _KIND_RANK[self.kind], self.set, self.document or "", self.order, self.node)


@dataclass(frozen=True, slots=True)
class ImpactSummary:
    """Counts: cited ``changed_files`` and ``uncited_changes``; quotations per state; flagged
    suspects per kind, of which ``conclusions``; and ``reviewed`` suspects cleared by a review."""

    changed_files: int
    uncited_changes: int
    intact: int
    moved: int
    ambiguous: int
    broken: int
    statements: int
    records: int
    sections: int
    documents: int
    conclusions: int
    reviewed: int


@dataclass(frozen=True, slots=True)
class ImpactReport:
    """Answer of :func:`impact_of`.

    ``set`` and ``source`` (Source node id, or None for a set without one) as analysed;
    ``from_revision`` and ``to_revision`` (full commit ids); ``changes`` (cited changed files,
    sorted by path); ``uncited_changes`` (paths of the other changed files, sorted); ``quotations``
    (every quotation of the set in scope, in document order); ``suspects`` (flagged, sorted by
    :meth:`Suspect.sort_key`); ``reviewed`` (suspects a review clears, same order); ``summary``.
    """

    set: str
    source: str | None
    from_revision: str
    to_revision: str
    changes: tuple[ChangedFile, ...]
    uncited_changes: tuple[str, ...]
    quotations: tuple[QuotationDrift, ...]
    suspects: tuple[Suspect, ...]
    reviewed: tuple[Suspect, ...]
    summary: ImpactSummary = field(init=False)

    def __post_init__(self) -> None:
        states = {s: sum(q.state == s for q in self.quotations) for s in QUOTATION_STATES}
        kinds = {k: sum(s.kind == k for s in self.suspects) for k in SUSPECT_KINDS.values()}
        object.__setattr__(self, "summary", ImpactSummary(
            changed_files=len(self.changes), uncited_changes=len(self.uncited_changes), **states,
            statements=kinds["statement"], records=kinds["record"], sections=kinds["section"],
            documents=kinds["document"], conclusions=sum(s.conclusion for s in self.suspects),
            reviewed=len(self.reviewed)))

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form with the field names above (``from``/``to`` for the revisions);
        the REST body and ``citegraph impact --json`` are exactly this."""
        return {
            "set": self.set, "source": self.source, "from": self.from_revision, "to": self.to_revision,
            "summary": _plain(self.summary),
            "changes": [{**_plain(c), "renamed": c.renamed} for c in self.changes],
            "uncited_changes": list(self.uncited_changes),
            "quotations": [_plain(q) for q in self.quotations],
            "suspects": [_plain(s) for s in self.suspects],
            "reviewed": [_plain(s) for s in self.reviewed],
        }


def _plain(value: Any) -> Any:
    """Dataclasses → dicts, tuples → lists, recursively."""
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


# -- quotation matching --------------------------------------------------------------------------


def normalise_quotation(text: str, *, plain: bool) -> str:
    """The form quotations and files are compared in: whitespace runs become one space, ends are
    stripped; for ``plain`` (quotations of plain-text renderings) backticks and line-initial ``>``
    markers are dropped first, since the rendering drops them (GRAMMAR §9). Both the quotation and
    the file are normalised the same way; nothing else is forgiven.

    Parameters
    ----------
    text : str
        A quotation body or a whole file.
    plain : bool
        Also drop what plain-text renderings drop (the quoting document's ``format`` is ``txt``).

    Returns
    -------
    str

    Examples
    --------
    >>> normalise_quotation("    throw new Error(\\n      `Note was modified`,\\n    )", plain=True)
    'throw new Error( Note was modified, )'
    >>> normalise_quotation("> a => b\\n>\\n> c", plain=True)
    'a => b c'
    >>> normalise_quotation("text: `x`", plain=False)
    'text: `x`'

    References
    ----------
    .. [1] GRAMMAR §6 (quote text occurs exactly once under whitespace normalisation) and §9
       (plain-text rendering: backticks, ``>`` markers and line breaks vanish).
    """
    if plain:
        text = _MARKERS.sub("", text).replace("`", "")
    return " ".join(text.split())


def _normalise_with_index(text: str, plain: bool) -> tuple[str, list[int]]:
    """:func:`normalise_quotation` plus, for each output character, its offset in ``text``."""
    dropped = bytearray(len(text))
    if plain:
        for m in _MARKERS.finditer(text):
            dropped[m.start():m.end()] = b"\1" * (m.end() - m.start())
        for i, ch in enumerate(text):
            if ch == "`":
                dropped[i] = 1
    out: list[str] = []
    index: list[int] = []
    space = -1
    for i, ch in enumerate(text):
        if dropped[i]:
            continue
        if ch.isspace():
            if out and space < 0:
                space = i
            continue
        if space >= 0:
            out.append(" ")
            index.append(space)
            space = -1
        out.append(ch)
        index.append(i)
    return "".join(out), index


def _count(haystack: str, needle: str) -> int:
    """Occurrences of ``needle`` in ``haystack``, overlapping ones included."""
    n, i = 0, haystack.find(needle)
    while i >= 0:
        n += 1
        i = haystack.find(needle, i + 1)
    return n


def _fragment(needle: str) -> str | None:
    """A piece of the normalised ``needle`` that the text of every file whose normalised form
    contains ``needle`` holds too, with at most backticks between its characters; None if none.

    :func:`normalise_quotation` only turns whitespace runs into one space and, for ``plain``, drops
    backticks and line-initial ``>`` markers. A marker follows a line break, which is whitespace,
    so inside a run of non-space characters of a normalised file only backticks were dropped:
    each space-free piece of the needle occurs in the file's text, backticks aside. The piece also
    avoids U+FFFD (invalid bytes decode to it, so it says nothing about the file's bytes), NUL and
    lone surrogates (which no text a repository reads holds, so leaving them out only widens the
    search). Which piece is chosen only changes how many files are read: the longest, with digits
    and punctuation counting double (they make a piece rarer than a common word of that length),
    cut to :data:`_MAX_FRAGMENT` characters.

    >>> _fragment("throw new Error( Note was modified, )")
    'modified,'
    >>> _fragment("Note 0.9.5: keeps the retrieve step")
    '0.9.5:'
    >>> _fragment("\\ufffd") is None
    True
    """
    best = max(_NOT_IN_FRAGMENT.split(needle), key=lambda piece: len(piece) + sum(not c.isalpha() for c in piece))
    return best[:_MAX_FRAGMENT] or None


def _locate(text: str, needle: str, plain: bool) -> tuple[int, int] | None:
    """1-based first and last line of the first occurrence of normalised ``needle`` in ``text``."""
    norm, index = _normalise_with_index(text, plain)
    i = norm.find(needle) if needle else -1
    if i < 0:
        return None
    start, end = index[i], index[i + len(needle) - 1]
    return text.count("\n", 0, start) + 1, text.count("\n", 0, end) + 1


def _lines(text: str, start: int, end: int) -> str:
    return "\n".join(text.splitlines()[start - 1:end])


# -- scope ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Scope:
    set_id: str
    source: Node | None
    files: dict[str, Node]           # cited path -> SourceFile node
    quotations: tuple[Node, ...]     # in document order
    quoted_by: dict[str, str]        # quotation id -> quoting statement id
    plain: dict[str, bool]           # quotation id -> its document is a plain-text rendering


def _scope(store: GraphStore, set_id: str | None, source_id: str | None) -> _Scope:
    """The set, its source, the files attached to that source and their quotations."""
    if set_id is None:
        sets = [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
        if not sets:
            raise AnalysisSetNotFound("the store holds no analysis set", hint="ingest one first")
        if len(sets) > 1:
            raise AmbiguousScope(f"the store holds {len(sets)} analysis sets: {', '.join(sets)}",
                                 hint="pass --set with the one whose source the repository holds")
        set_id = sets[0]
    elif not store.get_nodes([set_id]):
        raise unknown_set(store, set_id)
    sources = store.find_nodes(Label.SOURCE, set_id=set_id)
    if source_id is not None:
        source = next((s for s in sources if s.get("source_id") == source_id), None)
        if source is None:
            raise NodeNotFound(f"set {set_id} has no source {source_id}",
                               hint=f"its sources: {', '.join(s.get('source_id') for s in sources) or 'none'}")
    elif len(sources) > 1:
        raise AmbiguousScope(f"set {set_id} has {len(sources)} sources: "
                             f"{', '.join(s.get('source_id') for s in sources)}",
                             hint="pass --source with the one the repository holds")
    else:
        source = sources[0] if sources else None
    files = store.find_nodes(Label.SOURCE_FILE, set_id=set_id)
    if source is not None:
        attached = store.edges([f.id for f in files], kinds=[EdgeKind.IN_SOURCE], direction=Direction.OUT)
        files = [f for f in files
                 if any(e.dst == source.id for e in attached[f.id]) or (not attached[f.id] and len(sources) == 1)]
    by_path = {f.get("path"): f for f in files}
    quotations = [q for q in store.find_nodes(Label.QUOTATION, set_id=set_id) if q.get("path") in by_path]
    quotations.sort(key=lambda q: (q.document_id or "", q.get("line") or 0))
    quoting = store.edges([q.id for q in quotations], kinds=[EdgeKind.QUOTES], direction=Direction.IN)
    documents = store.get_nodes(sorted({q.document_id for q in quotations if q.document_id}))
    return _Scope(
        set_id=set_id, source=source, files=by_path, quotations=tuple(quotations),
        quoted_by={q.id: quoting[q.id][0].src for q in quotations if quoting[q.id]},
        plain={q.id: documents.get(q.document_id) is None or documents[q.document_id].get("format") != "md"
               for q in quotations},
    )


# -- the checker: git reads, cached per run -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcome:
    state: str
    found_in: tuple[Occurrence, ...]
    checked_path: str | None
    reason: str


class _Checker:
    """Quotation checks and change sets for one scope, with every git read cached."""

    def __init__(self, repo: SourceRepository, scope: _Scope):
        self.repo = repo
        self.scope = scope
        self._texts: dict[tuple[str, str], str | None] = {}
        self._norms: dict[tuple[str, str, bool], str | None] = {}
        self._files: dict[str, list[str]] = {}
        self._read_all: set[str] = set()
        self._candidates: dict[str, tuple[set[str], set[str]]] = {}  # revision -> (fragments, paths)
        self._changes: dict[tuple[str, str], Sequence[FileChangeLike]] = {}

    def changes(self, old: str, new: str) -> Sequence[FileChangeLike]:
        if (old, new) not in self._changes:
            self._changes[old, new] = () if old == new else self.repo.changes(old, new)
        return self._changes[old, new]

    def texts(self, revision: str, paths: Iterable[str]) -> dict[str, str | None]:
        paths = list(dict.fromkeys(paths))
        missing = [p for p in paths if (revision, p) not in self._texts]
        if missing:
            for path, text in self.repo.read(revision, missing).items():
                self._texts[revision, path] = text
        return {p: self._texts.get((revision, p)) for p in paths}

    def norm(self, revision: str, path: str, plain: bool) -> str | None:
        key = (revision, path, plain)
        if key not in self._norms:
            text = self.texts(revision, [path])[path]
            self._norms[key] = None if text is None else normalise_quotation(text, plain=plain)
        return self._norms[key]

    def paths(self, revision: str) -> list[str]:
        """Every file path at ``revision``, in ``repo.files`` order."""
        if revision not in self._files:
            self._files[revision] = list(self.repo.files(revision))
        return self._files[revision]

    def all_files(self, revision: str) -> list[str]:
        """:meth:`paths`, with every file read (one batch read for the whole tree)."""
        if revision not in self._read_all:
            self.texts(revision, self.paths(revision))
            self._read_all.add(revision)
        return self.paths(revision)

    def candidates(self, base: str, revision: str, fragment: str) -> set[str]:
        """Paths at ``revision`` that may hold a text containing ``fragment`` (see :func:`_fragment`).

        The first call at ``revision`` asks ``repo.containing`` once for the fragments of every
        quotation of the scope missing from its own file there, so the tree is searched once per
        revision however many quotations moved or broke; a fragment outside that batch costs one
        more search. Each path returned may hold any of the fragments searched, so callers still
        count exactly.
        """
        if revision not in self._candidates:
            moves = self.moves(base, revision)
            fragments: set[str] = set()
            for q in self.scope.quotations:
                plain = self.scope.plain[q.id]
                needle = normalise_quotation(q.get("text") or "", plain=plain)
                checked = moves.get(q.get("path"), q.get("path"))
                here = self.norm(revision, checked, plain) if checked else None
                if needle and (here is None or needle not in here) and (f := _fragment(needle)):
                    fragments.add(f)
            self._candidates[revision] = fragments, self._containing(revision, fragments)
        fragments, paths = self._candidates[revision]
        if fragment not in fragments:
            fragments.add(fragment)
            paths |= self._containing(revision, [fragment])
        return paths

    def _containing(self, revision: str, fragments: Collection[str]) -> set[str]:
        # backticks may sit inside a word plain renderings dropped them from (and for markdown
        # quotations allowing them only widens the search)
        return set(self.repo.containing(revision, sorted(fragments), skip="`")) if fragments else set()

    def elsewhere(self, needle: str, plain: bool, checked: str | None, base: str,
                  revision: str) -> list[Occurrence]:
        """Every file but ``checked`` holding ``needle`` at ``revision``, with its count, in
        ``repo.files`` order: all files are read, or with :class:`SupportsContaining` only those
        the repository names as possibly holding :func:`_fragment` of ``needle``."""
        fragment = _fragment(needle) if isinstance(self.repo, SupportsContaining) else None
        if fragment is None:
            paths = self.all_files(revision)
        else:
            possible = self.candidates(base, revision, fragment)
            paths = [p for p in self.paths(revision) if p in possible]
            self.texts(revision, paths)  # one batch read
        found = []
        for other in paths:
            if other == checked:
                continue
            text = self.norm(revision, other, plain)
            k = _count(text, needle) if text else 0
            if k:
                found.append(Occurrence(other, k))
        return found

    def moves(self, old: str, new: str) -> dict[str, str | None]:
        """Cited path → its path at ``new`` (None: deleted), for the cited paths renamed or deleted."""
        out: dict[str, str | None] = {}
        for c in self.changes(old, new):
            if c.old_path in self.scope.files and c.status in ("renamed", "deleted"):
                out[c.old_path] = c.new_path if c.status == "renamed" else None
        return out

    def prefetch(self, base: str, revision: str) -> None:
        """Read every quoted file at ``revision`` (following renames from ``base``) in one batch."""
        moves = self.moves(base, revision)
        quoted = dict.fromkeys(q.get("path") for q in self.scope.quotations)
        self.texts(revision, [p for p in (moves.get(q, q) for q in quoted) if p])

    def outcome(self, quotation: Node, base: str, revision: str) -> _Outcome:
        """State of ``quotation`` (whose path refers to ``base``) at ``revision``."""
        plain = self.scope.plain[quotation.id]
        needle = normalise_quotation(quotation.get("text") or "", plain=plain)
        path = quotation.get("path")
        checked = self.moves(base, revision).get(path, path)
        if not needle:
            return _Outcome("broken", (), checked, "the quotation is empty")
        here = self.norm(revision, checked, plain) if checked else None
        n = _count(here, needle) if here is not None else 0
        where = f"{checked}" + (f" (renamed from {path})" if checked != path else "")
        if n == 1:
            return _Outcome("intact", (Occurrence(checked, 1),), checked, f"occurs once in {where}")
        if n > 1:
            return _Outcome("ambiguous", (Occurrence(checked, n),), checked, f"occurs {n} times in {where}")
        found = self.elsewhere(needle, plain, checked, base, revision)
        total = sum(o.count for o in found)
        gone = f"{path} was deleted" if checked is None else (
            f"{where} no longer exists" if here is None else f"not in {where}")
        if total == 0:
            return _Outcome("broken", (), checked, f"{gone}, nor anywhere else in the repository")
        if total == 1:
            return _Outcome("moved", tuple(found), checked, f"{gone}; occurs once in {found[0].path}")
        return _Outcome("ambiguous", tuple(found), checked,
                        f"{gone}; occurs {total} times in {', '.join(o.path for o in found)}")

    def drift(self, quotation: Node, base: str, revision: str) -> QuotationDrift:
        """:meth:`outcome` as a result, with old/new context and a diff for moved and broken."""
        o = self.outcome(quotation, base, revision)
        drift = QuotationDrift(
            quotation=quotation.id, statement=self.scope.quoted_by.get(quotation.id),
            document=quotation.document_id or "", path=quotation.get("path"), checked_path=o.checked_path,
            text=quotation.get("text") or "", state=o.state, found_in=o.found_in, reason=o.reason)
        if o.state not in ("moved", "broken"):
            return drift
        plain = self.scope.plain[quotation.id]
        needle = normalise_quotation(drift.text, plain=plain)
        old_text = self.texts(base, [drift.path])[drift.path]
        old_at = _locate(old_text, needle, plain) if old_text is not None and needle else None
        old = QuotationContext(drift.path, base, *old_at, _lines(old_text, *old_at)) if old_at else None
        new = None
        if o.state == "moved":
            new_path = o.found_in[0].path
            new_text = self.texts(revision, [new_path])[new_path] or ""
            new_at = _locate(new_text, needle, plain)
            if new_at:
                new = QuotationContext(new_path, revision, *new_at, _lines(new_text, *new_at))
        elif old is not None and o.checked_path is not None:
            new_text = self.texts(revision, [o.checked_path])[o.checked_path]
            if new_text is not None:
                start, end = _replacing_region(old_text or "", new_text, old.start_line, old.end_line)
                new = QuotationContext(o.checked_path, revision, start, end, _lines(new_text, start, end))
        diff = _diff(old, new, old_text, self.texts(revision, [new.path])[new.path] if new else None,
                     o.checked_path, revision) if old else ""
        if old is None:
            drift = replace(drift, reason=f"{drift.reason}; it did not occur in {drift.path} at {base[:12]} either")
        return replace(drift, old=old, new=new, diff=diff)


def _replacing_region(old_text: str, new_text: str, start: int, end: int) -> tuple[int, int]:
    """1-based line range of ``new_text`` that replaced lines ``start``..``end`` of ``old_text``
    (difflib opcodes; an empty replacement gives the line where the removed lines were)."""
    old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
    s0, e0 = start - 1, end  # 0-based, end exclusive
    lo, hi = len(new_lines), 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if i1 == i2:  # an insertion counts when it lands strictly inside the region
            if not s0 < i1 < e0:
                continue
            ja, jb = j1, j2
        else:
            a, b = max(s0, i1), min(e0, i2)
            if a >= b:
                continue
            ja, jb = (j1 + (a - i1), j1 + (b - i1)) if tag == "equal" else (j1, j2)
        lo, hi = min(lo, ja), max(hi, jb)
    if lo >= len(new_lines) and hi == 0:  # nothing left at all
        line = max(1, min(start, len(new_lines)))
        return line, line
    hi = min(max(hi, lo + 1), lo + _MAX_REGION_LINES)
    return lo + 1, hi


def _diff(old: QuotationContext, new: QuotationContext | None, old_text: str | None, new_text: str | None,
          checked_path: str | None, revision: str) -> str:
    """Unified diff of the old region and the new one, each with :data:`_CONTEXT_LINES` around."""
    def excerpt(text: str | None, start: int, end: int) -> list[str]:
        lines = (text or "").splitlines()
        return lines[max(0, start - 1 - _CONTEXT_LINES):end + _CONTEXT_LINES]

    a = excerpt(old_text, old.start_line, old.end_line)
    b = excerpt(new_text, new.start_line, new.end_line) if new else []
    first = max(1, old.start_line - _CONTEXT_LINES)
    tofile = (f"b/{new.path}@{new.revision[:12]}:{max(1, new.start_line - _CONTEXT_LINES)}" if new
              else f"b/{checked_path or old.path}@{revision[:12]} (gone)")
    return "\n".join(difflib.unified_diff(a, b, f"a/{old.path}@{old.revision[:12]}:{first}", tofile,
                                          n=max(len(a), len(b)), lineterm=""))


# -- the query -----------------------------------------------------------------------------------


def _from_revision(repo: SourceRepository, scope: _Scope, from_revision: str | None) -> str:
    if from_revision is not None:
        return repo.resolve(from_revision)
    pinned = scope.source.get("commit") if scope.source is not None else None
    if not pinned:
        raise SourceRepositoryError(f"{_what_pins(scope)} pins no source revision", hint="pass --from REV")
    try:
        return repo.resolve(pinned)
    except RevisionNotFound as exc:
        raise RevisionNotFound(f"the pinned revision of {_what_pins(scope)} is missing: {exc.message}",
                               hint=f"fetch it (git fetch origin {pinned}), or pass --from REV") from exc


def _what_pins(scope: _Scope) -> str:
    """The node that pins the source revision, for messages."""
    return scope.source.id if scope.source is not None else f"set {scope.set_id}"


def _delta(checker: _Checker, old: str, new: str) -> tuple[list[ChangedFile], list[str]]:
    """Cited changed files (``cited_by`` left empty) and uncited changed paths between two commits."""
    files = checker.scope.files
    changed, uncited = [], []
    for c in checker.changes(old, new):
        hits = [p for p in dict.fromkeys((c.old_path, c.new_path)) if p in files]
        if not hits:
            uncited.append(c.new_path or c.old_path or "")
        for path in hits:
            changed.append(ChangedFile(files[path].id, path, c.status, c.old_path, c.new_path, ()))
    changed.sort(key=lambda c: (c.path, c.status))
    return changed, sorted(uncited)


def _node_order(node_id: str) -> tuple[str, int, str]:
    """Document, then line number, so ``#L9`` precedes ``#L11`` (as in :func:`~queries.traversal.explain`)."""
    head, _, tail = node_id.partition("#")
    digits = tail[1:] if tail[:1] in ("L", "Q", "D") else ""
    return (head, int(digits) if digits.isdigit() else -1, tail)


def _fingerprint(node: Node) -> str:
    """SHA-256 of what a review vouches for: the node's id, label and content (statement text,
    section heading, document bytes' hash, record ID)."""
    content = {Label.STATEMENT: "text", Label.SECTION: "heading", Label.DOCUMENT: "sha256",
               Label.RECORD: "record_id"}.get(node.label, "text")
    data = json.dumps([node.id, str(node.label), node.get(content)], ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _suspects(store: GraphStore, triggers: Mapping[str, str]) -> tuple[list[Suspect], dict[str, Node]]:
    """Every suspect resting on a ``triggers`` key (start node id → change description)."""
    if not triggers:
        return [], {}
    starts = sorted(triggers)
    best = explain(store.closure(starts, kinds=DEPENDENCY_KINDS), starts)
    nodes = store.get_nodes([n for n in best if n not in triggers])
    statements = [n.id for n in nodes.values() if n.label == Label.STATEMENT]
    parents = store.edges(statements, kinds=[EdgeKind.CONTAINS], direction=Direction.IN)
    parent_of = {s: next((e.src for e in es if "#" in e.src), None) for s, es in parents.items()}
    extra = {p for p in parent_of.values() if p and p not in nodes}
    extra |= {n.document_id for n in nodes.values() if n.document_id and n.document_id not in nodes}
    context = {**nodes, **store.get_nodes(sorted(extra))}
    out = []
    for node_id, node in nodes.items():
        kind = SUSPECT_KINDS.get(node.label)
        if kind is None:
            continue
        why = best[node_id]
        section = parent_of.get(node_id)
        heading = context[section].get("heading") if section in context else None
        document = context.get(node.document_id) if node.document_id else None
        conclusion = node.label == Label.STATEMENT and (
            (document is not None and document.get("role") == "synthesis")
            or (node.get("kind") == "table_row" and heading == "Limitations"))
        text = {Label.STATEMENT: node.get("text"), Label.SECTION: node.get("heading"),
                Label.DOCUMENT: node.get("title"), Label.RECORD: node.get("record_id")}[node.label]
        out.append(Suspect(
            node=node_id, kind=kind, set=node.set_id or "", document=node.document_id, section=section,
            section_heading=heading, text=text or "", line=node.get("line"), order=node.get("order") or 0,
            conclusion=conclusion, depth=why.depth, path=why.path, edges=why.edges, trigger=why.path[-1],
            change=triggers[why.path[-1]]))
    out.sort(key=Suspect.sort_key)
    return out, nodes


def impact_of(
    store: GraphStore,
    repo: SourceRepository,
    *,
    to_revision: str,
    from_revision: str | None = None,
    set_id: str | None = None,
    source_id: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImpactReport:
    """What moving the analysed source from ``from_revision`` to ``to_revision`` does to a set.

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    repo : SourceRepository
        The source's repository, e.g. ``ingest.git.GitRepository(Path("../tolaria"))``.
    to_revision : str
        Revision to check against (any spelling ``repo.resolve`` accepts).
    from_revision : str, optional
        Revision the set's paths and quotations refer to; default: the source's pinned ``commit``.
    set_id : str, optional
        The analysis set; may be omitted when the store holds exactly one.
    source_id : str, optional
        ``SRC-n`` of the set's source the repository holds; may be omitted when the set has at
        most one source (with none, every cited file of the set is in scope).
    progress : callable, optional
        ``progress(done, total)`` as the run goes (units: steps; the diff, the reads of the
        quoted files, one per quotation checked, the suspects and the reviews).

    Returns
    -------
    ImpactReport
        Cited changed files, the drift of every quotation in scope, suspects with depth, path and
        trigger (conclusions first), suspects cleared by reviews, and a summary.

    Raises
    ------
    AnalysisSetNotFound, NodeNotFound
        ``set_id`` or ``source_id`` is not in the store.
    AmbiguousScope
        ``set_id`` (``source_id``) is omitted and the store (set) holds several.
    RevisionNotFound
        A revision, or the pinned commit when ``from_revision`` is omitted, is not in ``repo``.
    SourceRepositoryError
        ``repo`` cannot be read, or ``from_revision`` is omitted and the source pins no commit.

    Notes
    -----
    Suspects: the start nodes are the changed cited SourceFiles and the non-intact Quotations;
    everything that reaches a start along :data:`~graph.model.DEPENDENCY_KINDS` rests on it, with
    the best explanation of :func:`~queries.traversal.explain` (a quotation statement reaches its
    Quotation through QUOTES and its file through CITES ``form=quotation``). One ``store.closure``
    call for the run. Git: one diff, and one batch read of the quoted files per revision; quotations
    missing from their attributed files cost one search of the tree at ``to_revision`` (once per
    run): with a ``repo`` offering :class:`SupportsContaining` (``git grep``), a read of the files
    it names, else a batch read of the whole tree.

    Reviews: a suspect S with a review at revision R is moved from ``suspects`` to ``reviewed``
    when all of these hold:

    1. the review's fingerprint equals S's current one (S's text is what was reviewed);
    2. R is a commit of ``repo`` and R is ``to_revision`` or one of its ancestors (a review counts
       for every later run whose ``--to`` is at or after R, whatever ``--from`` is);
    3. S's evidence did not change after R: S rests on none of the changed cited files between R
       and ``to_revision``, and on none of the non-intact quotations whose outcome (state and the
       files holding it) at ``to_revision`` differs from its outcome at R.

    A review at a revision unknown to ``repo`` or on another branch therefore never hides a
    suspect. One more ``closure`` per distinct review revision that has to be checked.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> class Repo:  # the demo set cites no file; a repository with nothing changed
    ...     def resolve(self, revision): return revision * 40
    ...     def changes(self, old, new): return []
    ...     def read(self, revision, paths): return {p: None for p in paths}
    ...     def files(self, revision): return []
    ...     def is_ancestor(self, a, b): return True
    >>> report = impact_of(demo_store(), Repo(), from_revision="a", to_revision="b")
    >>> (report.from_revision[:3], report.to_revision[:3], report.suspects)
    ('aaa', 'bbb', ())
    """
    scope = _scope(store, set_id, source_id)
    steps = 4 + len(scope.quotations)
    tell = progress or (lambda done, total: None)
    tell(0, steps)
    to_commit = repo.resolve(to_revision)
    base = _from_revision(repo, scope, from_revision)
    checker = _Checker(repo, scope)
    changed, uncited = _delta(checker, base, to_commit)
    tell(1, steps)
    citing = store.edges([c.file for c in changed], kinds=[EdgeKind.CITES, EdgeKind.ATTRIBUTED_TO],
                         direction=Direction.IN)
    changed = [replace(c, cited_by=tuple(sorted({e.src for e in citing[c.file]}, key=_node_order)))
               for c in changed]
    checker.prefetch(base, to_commit)
    checker.prefetch(base, base)  # for the old context of moved and broken quotations
    tell(2, steps)
    drift = []
    for n, q in enumerate(scope.quotations):
        drift.append(checker.drift(q, base, to_commit))
        tell(3 + n, steps)
    triggers = {c.file: c.describe() for c in changed}
    triggers.update({q.quotation: q.describe() for q in drift if q.state != "intact"})
    suspects, nodes = _suspects(store, triggers)
    tell(steps - 1, steps)
    flagged, reviewed = _apply_reviews(store, checker, scope, base, to_commit, drift, suspects, nodes)
    tell(steps, steps)
    return ImpactReport(
        set=scope.set_id, source=scope.source.id if scope.source is not None else None,
        from_revision=base, to_revision=to_commit, changes=tuple(changed), uncited_changes=tuple(uncited),
        quotations=tuple(drift), suspects=tuple(flagged), reviewed=tuple(reviewed))


def _apply_reviews(store: GraphStore, checker: _Checker, scope: _Scope, base: str, to_commit: str,
                   drift: list[QuotationDrift], suspects: list[Suspect],
                   nodes: Mapping[str, Node]) -> tuple[list[Suspect], list[Suspect]]:
    """Split ``suspects`` into flagged and cleared by a review (rules in :func:`impact_of`)."""
    if not suspects:
        return [], []
    by_node: dict[str, list[Review]] = {}
    for node in store.find_nodes(Label.REVIEW, set_id=scope.set_id):
        review = Review.from_node(node)
        by_node.setdefault(review.node, []).append(review)
    if not by_node:
        return suspects, []
    resolved: dict[str, str | None] = {}
    rests_since: dict[str, set[str]] = {}
    at_to = {q.quotation: (q.state, q.found_in) for q in drift}
    quotations = {q.id: q for q in scope.quotations}

    def changed_since(commit: str) -> set[str]:
        """Nodes resting on evidence that changed between ``commit`` and ``to_commit``."""
        if commit not in rests_since:
            files, _ = _delta(checker, commit, to_commit)
            starts = {c.file: c.describe() for c in files}
            checker.prefetch(base, commit)
            for q in drift:
                if q.state == "intact":
                    continue
                then = checker.outcome(quotations[q.quotation], base, commit)
                if (then.state, then.found_in) != at_to[q.quotation]:
                    starts[q.quotation] = q.describe()
            rests_since[commit] = {s.node for s in _suspects(store, starts)[0]}
        return rests_since[commit]

    flagged, cleared = [], []
    for suspect in suspects:
        clearing = None
        for review in sorted(by_node.get(suspect.node, ()), key=lambda r: r.at, reverse=True):
            if review.fingerprint != _fingerprint(nodes[suspect.node]):
                continue
            if review.revision not in resolved:
                try:
                    resolved[review.revision] = checker.repo.resolve(review.revision)
                except RevisionNotFound:
                    resolved[review.revision] = None
            commit = resolved[review.revision]
            if commit is None or not checker.repo.is_ancestor(commit, to_commit):
                continue
            if suspect.node not in changed_since(commit):
                clearing = review
                break
        if clearing is None:
            flagged.append(suspect)
        else:
            cleared.append(replace(suspect, review=clearing))
    return flagged, cleared


# -- reviews -------------------------------------------------------------------------------------


def review_suspect(
    store: GraphStore,
    node_id: str,
    *,
    revision: str,
    reviewer: str,
    note: str | None = None,
    at: datetime | None = None,
    repo: SourceRepository | None = None,
) -> Review:
    """Record in the graph that ``node_id`` was reviewed against the source at ``revision``.

    Parameters
    ----------
    store : GraphStore
        Where the Review node is written (:meth:`~graph.store.GraphStore.put_reviews`).
    node_id : str
        A statement, record, section or document node id, as :func:`impact_of` reports suspects
        (``tolaria/synthesis#L29``).
    revision : str
        The source revision the reviewer checked the node against. Without ``repo`` it must be a
        full commit id (40 or 64 hex digits), so that a branch name that later moves is never
        stored; with ``repo`` any spelling is resolved to one.
    reviewer : str
        Who reviewed.
    note : str, optional
        Free text.
    at : datetime, optional
        When; default now. Stored as UTC ISO 8601 (seconds).
    repo : SourceRepository, optional
        Resolves and checks ``revision``.

    Returns
    -------
    Review
        As stored; reviewing the same node at the same revision again replaces the earlier review.

    Raises
    ------
    NodeNotFound
        ``node_id`` is not in the store.
    CitegraphError
        ``node_id`` is not a statement, record, section or document, or ``revision`` is not a full
        commit id and no ``repo`` is given.
    RevisionNotFound
        ``repo`` does not hold ``revision``.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> store = demo_store()
    >>> r = review_suspect(store, "demo/synthesis#L4", revision="a" * 40, reviewer="ada",
    ...                    at=datetime(2026, 10, 20, 9, 30, tzinfo=timezone.utc))
    >>> (r.id[:30], r.at, [x.node for x in reviews_of(store)])
    ('review/demo/synthesis#L4@aaaaa', '2026-10-20T09:30:00+00:00', ['demo/synthesis#L4'])
    """
    node = store.get_nodes([node_id]).get(node_id)
    if node is None:
        raise NodeNotFound(f"no node {node_id!r} in the store",
                           hint="use a node id as citegraph impact prints it, e.g. tolaria/synthesis#L29")
    if node.label not in SUSPECT_KINDS:
        raise CitegraphError(f"{node_id} is a {node.label}; only statements, records, sections and documents "
                             "are reviewed")
    if repo is not None:
        revision = repo.resolve(revision)
    elif not _HEX.fullmatch(revision):
        raise CitegraphError(f"revision {revision!r} is not a full commit id",
                             hint="give the 40-hex commit id, or --repo PATH to resolve it")
    when = (at or datetime.now(timezone.utc)).astimezone(timezone.utc).isoformat(timespec="seconds")
    review = Node(review_node_id(node.id, revision), Label.REVIEW, node.set_id, None, {
        "node": node.id, "revision": revision, "reviewer": reviewer, "at": when, "note": note,
        "fingerprint": _fingerprint(node)})
    store.put_reviews([review])
    return Review.from_node(review)


def reviews_of(store: GraphStore, *, set_id: str | None = None, node_id: str | None = None) -> tuple[Review, ...]:
    """Stored reviews (of one set and/or one node when given), sorted by (set, node, at, revision).

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store (the hint names the closest sets)."""
    require_set(store, set_id)
    where = {"node": node_id} if node_id is not None else None
    found = [Review.from_node(n) for n in store.find_nodes(Label.REVIEW, set_id=set_id, where=where)]
    return tuple(sorted(found, key=lambda r: (r.set, r.node, r.at, r.revision)))
