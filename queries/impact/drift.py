"""Quotation drift and changed files: the scope of a run (set, source, cited files, quotations) and
the checker that reads git once per run and decides each quotation's state (:class:`QuotationDrift`)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import cast
from collections.abc import Collection, Iterable, Sequence

from graph.codec import block_line, member_of, quotation_of, source_file_path, source_of
from graph.errors import AmbiguousScope, AnalysisSetNotFound, NodeNotFound, RevisionNotFound, SourceRepositoryError
from graph.model import EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from queries.impact.quotations import count_occurrences, quotation_fragment, quoted_lines, locate_quotation, normalise_quotation
from queries.impact.repository import FileChangeLike, SourceRepository, SupportsContaining
from queries.impact.results import ChangedFile, Occurrence, QuotationContext, QuotationDrift
from queries.names import unknown_set

_CONTEXT_LINES = 2
_MAX_REGION_LINES = 40


@dataclass(frozen=True, slots=True)
class ImpactScope:
    """What an impact question is asked of: one set, the source it pins (None: the set's only one
    is implied), the files of that source the set cites, and the set's quotations of them."""

    set_id: str
    source: Node | None
    files: dict[str, Node]           # cited path -> SourceFile node
    quotations: tuple[Node, ...]     # in document order
    quoted_by: dict[str, str]        # quotation id -> quoting statement id
    plain: dict[str, bool]           # quotation id -> its document is a plain-text rendering


def impact_scope(store: GraphStore, set_id: str | None, source_id: str | None) -> ImpactScope:
    """The set, its source, the files attached to that source and their quotations."""
    if set_id is None:
        sets = [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
        if not sets:
            raise AnalysisSetNotFound("the store holds no analysis set", hint="ingest one first")
        if len(sets) > 1:
            raise AmbiguousScope(f"the store holds {len(sets)} analysis sets: {', '.join(sets)}",
                                 code="ambiguous-set")
        set_id = sets[0]
    elif not store.get_nodes([set_id]):
        raise unknown_set(store, set_id)
    sources = store.find_nodes(Label.SOURCE, set_id=set_id)
    if source_id is not None:
        source = next((s for s in sources if source_of(s).source_id == source_id), None)
        if source is None:
            raise NodeNotFound(f"set {set_id} has no source {source_id}",
                               hint=f"its sources: {', '.join(source_of(s).source_id for s in sources) or 'none'}")
    elif len(sources) > 1:
        raise AmbiguousScope(f"set {set_id} has {len(sources)} sources: "
                             f"{', '.join(source_of(s).source_id for s in sources)}",
                             code="ambiguous-source")
    else:
        source = sources[0] if sources else None
    files = store.find_nodes(Label.SOURCE_FILE, set_id=set_id)
    if source is not None:
        attached = store.edges([f.id for f in files], kinds=[EdgeKind.IN_SOURCE], direction=Direction.OUT)
        files = [f for f in files
                 if any(e.dst == source.id for e in attached[f.id]) or (not attached[f.id] and len(sources) == 1)]
    by_path = {source_file_path(f): f for f in files}
    quotations = [q for q in store.find_nodes(Label.QUOTATION, set_id=set_id) if quotation_of(q).path in by_path]
    quotations.sort(key=lambda q: (q.document_id or "", block_line(q)))
    quoting = store.edges([q.id for q in quotations], kinds=[EdgeKind.QUOTES], direction=Direction.IN)
    documents = store.get_nodes(sorted({q.document_id for q in quotations if q.document_id}))
    return ImpactScope(
        set_id=set_id, source=source, files=by_path, quotations=tuple(quotations),
        quoted_by={q.id: quoting[q.id][0].src for q in quotations if quoting[q.id]},
        plain={q.id: (d := documents.get(q.document_id or "")) is None or member_of(d).format != "md"
               for q in quotations},
    )


# -- the checker: git reads, cached per run -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Outcome:
    state: str
    found_in: tuple[Occurrence, ...]
    checked_path: str | None
    reason: str


class DriftChecker:
    """Quotation checks and change sets for one scope, with every git read cached."""

    def __init__(self, repo: SourceRepository, scope: ImpactScope):
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
        """Paths at ``revision`` that may hold a text containing ``fragment`` (see :func:`quotation_fragment`).

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
                quoted = quotation_of(q)
                needle = normalise_quotation(quoted.text, plain=plain)
                checked = moves.get(quoted.path, quoted.path)
                here = self.norm(revision, checked, plain) if checked else None
                if needle and (here is None or needle not in here) and (f := quotation_fragment(needle)):
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
        repo = cast(SupportsContaining, self.repo)  # only asked when it does (see _candidates)
        return set(repo.containing(revision, sorted(fragments), skip="`")) if fragments else set()

    def elsewhere(self, needle: str, plain: bool, checked: str | None, base: str,
                  revision: str) -> list[Occurrence]:
        """Every file but ``checked`` holding ``needle`` at ``revision``, with its count, in
        ``repo.files`` order: all files are read, or with :class:`SupportsContaining` only those
        the repository names as possibly holding :func:`quotation_fragment` of ``needle``."""
        fragment = quotation_fragment(needle) if isinstance(self.repo, SupportsContaining) else None
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
            k = count_occurrences(text, needle) if text else 0
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
        quoted = dict.fromkeys(quotation_of(q).path for q in self.scope.quotations)
        self.texts(revision, [p for p in (moves.get(q, q) for q in quoted) if p])

    def outcome(self, quotation: Node, base: str, revision: str) -> _Outcome:
        """State of ``quotation`` (whose path refers to ``base``) at ``revision``."""
        plain = self.scope.plain[quotation.id]
        quoted = quotation_of(quotation)
        needle = normalise_quotation(quoted.text, plain=plain)
        path = quoted.path
        checked = self.moves(base, revision).get(path, path)
        if not needle:
            return _Outcome("broken", (), checked, "the quotation is empty")
        here = self.norm(revision, checked, plain) if checked else None
        n = count_occurrences(here, needle) if here is not None else 0
        where = f"{checked}" + (f" (renamed from {path})" if checked != path else "")
        if checked is not None and n == 1:
            return _Outcome("intact", (Occurrence(checked, 1),), checked, f"occurs once in {where}")
        if checked is not None and n > 1:
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
        o, quoted = self.outcome(quotation, base, revision), quotation_of(quotation)
        drift = QuotationDrift(
            quotation=quotation.id, statement=self.scope.quoted_by.get(quotation.id),
            document=quotation.document_id or "", path=quoted.path, checked_path=o.checked_path,
            text=quoted.text, state=o.state, found_in=o.found_in, reason=o.reason)
        if o.state not in ("moved", "broken"):
            return drift
        plain = self.scope.plain[quotation.id]
        needle = normalise_quotation(drift.text, plain=plain)
        old_text = self.texts(base, [drift.path])[drift.path]
        old_at = locate_quotation(old_text, needle, plain) if old_text is not None and needle else None
        old = (QuotationContext(drift.path, base, *old_at, quoted_lines(old_text, *old_at))
               if old_at and old_text is not None else None)
        new = None
        if o.state == "moved":
            new_path = o.found_in[0].path
            new_text = self.texts(revision, [new_path])[new_path] or ""
            new_at = locate_quotation(new_text, needle, plain)
            if new_at:
                new = QuotationContext(new_path, revision, *new_at, quoted_lines(new_text, *new_at))
        elif old is not None and o.checked_path is not None:
            checked_text = self.texts(revision, [o.checked_path])[o.checked_path]
            if checked_text is not None:
                start, end = _replacing_region(old_text or "", checked_text, old.start_line, old.end_line)
                new = QuotationContext(o.checked_path, revision, start, end, quoted_lines(checked_text, start, end))
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


def base_revision(repo: SourceRepository, scope: ImpactScope, from_revision: str | None) -> str:
    """The full commit to compare from: ``from_revision`` resolved in ``repo``, else the commit
    the scope's source pins.

    Raises
    ------
    SourceRepositoryError
        No ``from_revision`` and the source pins none (``no-pinned-revision``).
    RevisionNotFound
        The revision is not in ``repo`` (``pinned-revision-missing`` for the pinned one)."""
    if from_revision is not None:
        return repo.resolve(from_revision)
    pinned = source_of(scope.source).commit if scope.source is not None else None
    if not pinned:
        raise SourceRepositoryError(f"{_what_pins(scope)} pins no source revision", code="no-pinned-revision")
    try:
        return repo.resolve(pinned)
    except RevisionNotFound as exc:
        raise RevisionNotFound(f"the pinned revision of {_what_pins(scope)} is missing: {exc.message}",
                               code="pinned-revision-missing", data={"pinned": pinned}) from exc


def _what_pins(scope: ImpactScope) -> str:
    """The node that pins the source revision, for messages."""
    return scope.source.id if scope.source is not None else f"set {scope.set_id}"


def file_delta(checker: DriftChecker, old: str, new: str) -> tuple[list[ChangedFile], list[str]]:
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
