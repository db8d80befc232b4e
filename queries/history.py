"""History of an analysis set: its kept versions, reading any of them, and what changed between two
.

A store keeps each changed state of a set as a version (:mod:`graph.versions`); the live graph is
the latest. :func:`store_at` gives a store in which one set reads as it was at an earlier version
(its batch materialised into an in-memory store, behind a :class:`~graph.stores.pinned.PinnedStore`),
so every query runs unchanged on every version and on both stores. :func:`diff_versions` compares
two versions member by member, record by record and statement by statement (statements are
matched by aligning each document's blocks, so a paragraph inserted above does not make every
later statement look changed), and reruns ``rests-on`` on both for each record whose evidence
changed.
"""

from __future__ import annotations

import difflib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar, cast
from collections.abc import Callable, Iterable

from graph.errors import AmbiguousScope, QueryLimitExceeded, VersionNotFound
from graph.model import Label, SetBatch
from graph.store import GraphStore, KeepsVersions
from graph.versions import SetVersion
from queries.documents import DocumentBlock
from queries.setview import SetView, read_view, status_value
from queries.shapes import wire
from queries.traversal import MAX_DEPTH, rests_on
from queries.set_history import SetHistory, history, read_set  # (apart: `citegraph history` reads no diff)

__all__ = [
    "SetHistory",
    "history",
    "read_set",
    "resolve_version",
    "store_at",
    "Cited",
    "MemberChange",
    "FieldChange",
    "StatusChange",
    "RecordChange",
    "StatementChange",
    "CitationChange",
    "QuotationChange",
    "LimitationChange",
    "DepthChange",
    "RestsOnChange",
    "SetDiff",
    "diff_versions",
]

MATERIALISED_KEPT = 8
"""Materialised versions a process keeps for reuse (least recently used dropped first)."""

_materialised: OrderedDict[tuple[str, str], GraphStore] = OrderedDict()
_batches: OrderedDict[tuple[str, str], SetBatch] = OrderedDict()
_lock = threading.Lock()


# -- versions -------------------------------------------------------------------------------------


def resolve_version(store: GraphStore, set_id: str | None, version: int | None) -> tuple[SetHistory | None, int | None]:
    """``(history, number)`` for a request naming ``version`` of ``set_id``: ``(None, None)`` when
    no version is asked; the number is the latest's when ``version`` is None.

    Raises
    ------
    AmbiguousScope
        ``version`` is given without a set.
    AnalysisSetNotFound
        ``set_id`` is not in the store.
    VersionNotFound
        The set does not keep that version.
    """
    if version is None:
        return None, None
    if set_id is None:
        raise AmbiguousScope(f"version {version} of which analysis set?",
                             code="version-without-set")
    found = history(store, set_id)
    numbers = [v.number for v in found.versions]
    if version not in numbers:
        kept = (f"version {numbers[0]}" if len(numbers) == 1 else f"versions {numbers[0]}–{numbers[-1]}")
        raise VersionNotFound(f"analysis set {set_id!r} has no version {version}; it keeps {kept}",
                              code="unknown-version")
    return found, version


def _version_batch(store: GraphStore, version: SetVersion) -> SetBatch:
    """The batch of a stored ``version``, decoded once per process (kept by content, as
    materialised stores are).

    Raises
    ------
    VersionNotFound
        Another process dropped it since its history was read.
    """
    def read() -> SetBatch:
        batch = cast("KeepsVersions", store).set_version(version.set_id, version.number)
        if batch is None:
            raise VersionNotFound(f"analysis set {version.set_id!r} no longer keeps version {version.number}")
        return batch

    return _kept(_batches, (version.set_id, version.digest), read)


def _materialise(store: GraphStore, version: SetVersion) -> GraphStore:
    """An in-memory store holding ``version`` alone, shared by every request for that content."""
    from graph.stores.sqlite import SQLiteStore

    def build() -> GraphStore:
        materialised = SQLiteStore(None, versions_kept=0)
        materialised.write_set(_version_batch(store, version))
        return materialised

    return _kept(_materialised, (version.set_id, version.digest), build, drop=lambda old: old.close())


_Made = TypeVar("_Made")
"""What a cache of :func:`_kept` holds: a set version's batch or its materialised store."""


def _kept(cache: OrderedDict[Any, Any], key: tuple[str, str], make: Callable[[], _Made],
          drop: Callable[[_Made], None] = lambda old: None) -> _Made:
    """``cache[key]``, made by ``make()`` when absent (outside the lock: it reads the store); the
    least recently used entries past :data:`MATERIALISED_KEPT` are dropped (``drop`` each)."""
    with _lock:
        found: _Made | None = cache.get(key)
        if found is not None:
            cache.move_to_end(key)
            return found
    value = make()
    with _lock:
        cache[key] = value
        while len(cache) > MATERIALISED_KEPT:
            drop(cache.popitem(last=False)[1])
    return value


def store_at(store: GraphStore, set_id: str | None, version: int | None) -> GraphStore:
    """``store`` with set ``set_id`` read at ``version``: ``store`` itself for the latest version
    (or no version asked), else a read-only :class:`~graph.stores.pinned.PinnedStore` whose set
    ``set_id`` is that version, materialised in memory (kept for reuse, by content). On a
    ``PinnedStore`` the other sets stay as it pins them and ``set_id`` is read at ``version``.

    Raises
    ------
    AmbiguousScope, AnalysisSetNotFound, VersionNotFound
        As :func:`resolve_version`.
    """
    from graph.stores.pinned import PinnedStore

    found, number = resolve_version(store, set_id, version)
    if found is None:
        return store
    assert set_id is not None and number is not None
    base, pins = (store.base, dict(store.pins)) if isinstance(store, PinnedStore) else (store, {})
    pins.pop(set_id, None)  # a view of views: the set at this version, the others as they were
    if number != found.latest:
        pins[set_id] = _materialise(base, next(v for v in found.versions if v.number == number))
    if not pins:
        return base
    return store if isinstance(store, PinnedStore) and pins == store.pins else PinnedStore(base, pins)


# -- diff -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cited:
    """One cited thing: ``kind`` (``record``, ``source``, ``file``, ``named``) and ``target`` (record
    ID, ``SRC-n``, path or reference name)."""

    kind: str
    target: str


@dataclass(frozen=True, slots=True)
class MemberChange:
    """A member ``added``, ``removed`` or ``changed`` (its SHA-256 differs)."""

    document: str
    change: str
    from_sha256: str | None
    to_sha256: str | None


@dataclass(frozen=True, slots=True)
class FieldChange:
    """A field of a record's declaration whose value changed (None: absent in that version)."""

    label: str
    from_value: str | None
    to_value: str | None


@dataclass(frozen=True, slots=True)
class StatusChange:
    """A status of a record whose value changed (None: not stated in that version)."""

    label: str
    from_value: str | None
    to_value: str | None


@dataclass(frozen=True, slots=True)
class RecordChange:
    """A record ``added``, ``removed`` or ``changed`` (its label, a status or a field); ``from_label``
    and ``to_label`` are its labels in the two versions."""

    record_id: str
    change: str
    from_label: str | None
    to_label: str | None
    statuses: tuple[StatusChange, ...] = ()
    fields: tuple[FieldChange, ...] = ()


@dataclass(frozen=True, slots=True)
class StatementChange:
    """A statement ``added``, ``removed`` or ``changed`` (its text): ids and lines in each version
    (None where it is absent), its ``kind``, its text in the later version it exists in, and for a
    changed one the unified ``diff`` of its markup."""

    document: str
    change: str
    from_statement: str | None
    to_statement: str | None
    from_line: int | None
    to_line: int | None
    kind: str
    text: str
    diff: str = ""


@dataclass(frozen=True, slots=True)
class CitationChange:
    """Citations a statement gained and lost between the versions (an added statement gains all
    of its citations, a removed one loses all), each as often as written."""

    document: str
    from_statement: str | None
    to_statement: str | None
    gained: tuple[Cited, ...]
    lost: tuple[Cited, ...]


@dataclass(frozen=True, slots=True)
class QuotationChange:
    """A quotation ``added``, ``removed`` or ``changed`` (its text, path, lines or revision)."""

    document: str
    change: str
    from_statement: str | None
    to_statement: str | None
    from_path: str | None
    to_path: str | None
    from_text: str | None
    to_text: str | None


@dataclass(frozen=True, slots=True)
class LimitationChange:
    """A Limitations row ``added``, ``removed`` or ``changed`` (its text)."""

    document: str
    change: str
    from_statement: str | None
    to_statement: str | None
    from_text: str | None
    to_text: str | None


class DepthChange(NamedTuple):
    """A statement resting on a record in both versions at another depth: its id in the later
    version, and its depth (evidence steps) before and after. A triple on the JSON faces
    (``[statement, from, to]``), an object on GraphQL."""

    statement: str
    from_depth: int
    to_depth: int


@dataclass(frozen=True, slots=True)
class RestsOnChange:
    """How the ``rests-on`` answer of a record whose evidence changed moved: statements that rest on
    it only in the later version (``gained``, their ids there), only in the earlier (``lost``),
    or in both at another depth (``deeper`` and ``shallower``), and the answer sizes in each."""

    record_id: str
    gained: tuple[str, ...]
    lost: tuple[str, ...]
    from_count: int
    to_count: int
    deeper: tuple[DepthChange, ...] = ()
    shallower: tuple[DepthChange, ...] = ()


@dataclass(frozen=True, slots=True)
class SetDiff:
    """What changed in ``set_id`` from version ``from_version`` to ``to_version``; each list in
    document order (records by ID)."""

    set_id: str = field(metadata=wire("set"))
    from_version: int = field(metadata=wire("from"))
    to_version: int = field(metadata=wire("to"))
    members: tuple[MemberChange, ...]
    records: tuple[RecordChange, ...]
    statements: tuple[StatementChange, ...]
    citations: tuple[CitationChange, ...]
    quotations: tuple[QuotationChange, ...]
    limitations: tuple[LimitationChange, ...]
    rests_on: tuple[RestsOnChange, ...]

    @property
    def unchanged(self) -> bool:
        """True when the two versions state the same."""
        return not (self.members or self.records or self.statements or self.citations or self.quotations
                    or self.limitations or self.rests_on)



_MATCH_RATIO = 0.5
"""How alike (difflib ratio of their markup's words) two blocks of one kind must be to count as one
block edited rather than one removed and another added."""


def _key(block: DocumentBlock) -> tuple[str, str, str]:
    return (block.label, block.block.kind, block.block.markup or block.text)


def align(old: list[DocumentBlock], new: list[DocumentBlock]) -> list[tuple[DocumentBlock | None, DocumentBlock | None]]:
    """Pairs of blocks of one document across two versions, in order: equal blocks paired, then
    within each replaced run a block paired with the first later block of its label and kind that
    is at least :data:`_MATCH_RATIO` alike (an edit); the rest as ``(old, None)`` removed and
    ``(None, new)`` added."""
    out: list[tuple[DocumentBlock | None, DocumentBlock | None]] = []
    matcher = difflib.SequenceMatcher(None, [_key(b) for b in old], [_key(b) for b in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(zip(old[i1:i2], new[j1:j2]))
            continue
        start = j1
        for a in old[i1:i2]:
            hit = None
            for j in range(start, j2):
                b = new[j]
                if (b.label, b.block.kind) == (a.label, a.block.kind) and _alike(a, b):
                    hit = j
                    break
            if hit is None:
                out.append((a, None))
                continue
            out.extend((None, b) for b in new[start:hit])
            out.append((a, new[hit]))
            start = hit + 1
        out.extend((None, b) for b in new[start:j2])
    return out


def _alike(a: DocumentBlock, b: DocumentBlock) -> bool:
    """Whether two blocks' markup are at least :data:`_MATCH_RATIO` alike, word by word."""
    matcher = difflib.SequenceMatcher(None, (a.block.markup or a.text).split(), (b.block.markup or b.text).split(),
                                      autojunk=False)
    return matcher.real_quick_ratio() >= _MATCH_RATIO and matcher.quick_ratio() >= _MATCH_RATIO \
        and matcher.ratio() >= _MATCH_RATIO


def _cited(block: DocumentBlock | None) -> list[Cited]:
    return [] if block is None else [Cited(c.citation.target_kind, c.citation.target) for c in block.citations]


def _minus(a: list[Cited], b: list[Cited]) -> tuple[Cited, ...]:
    rest = list(b)
    out = []
    for x in a:
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return tuple(out)


def _unified(old: DocumentBlock, new: DocumentBlock) -> str:
    """The unified diff of two blocks' markup, named by their ids, one line per line."""
    lines = difflib.unified_diff((old.block.markup or old.text).splitlines(),
                                 (new.block.markup or new.text).splitlines(), fromfile=old.id, tofile=new.id, n=1,
                                 lineterm="")
    return "\n".join(lines) + "\n"


def _quotation_of(block: DocumentBlock | None) -> tuple[Any, ...] | None:
    q = block.quotation.quotation if block is not None and block.quotation is not None else None
    return None if q is None else (q.text, q.path, q.lines, q.revision)


def _is_limitation(block: DocumentBlock | None) -> bool:
    return (block is not None and block.block.kind == "table_row" and block.row is not None
            and block.row.table == "limitations")


def _record_changes(old: SetView, new: SetView) -> list[RecordChange]:
    """Records added, removed or changed; a record's statuses and fields are compared when its
    declaration lies in a member read (a changed one) in either version."""
    out = []
    for record_id in sorted(old.records.keys() | new.records.keys()):
        a, b = old.records.get(record_id), new.records.get(record_id)
        if a is None or b is None:
            out.append(RecordChange(record_id, "added" if a is None else "removed",
                                    a.label if a else None, b.label if b else None))
            continue
        read = {t.id for t in (*old.trees, *new.trees)}
        if a.document not in read and b.document not in read:
            if a.label != b.label:
                out.append(RecordChange(record_id, "changed", a.label, b.label))
            continue
        statuses = []
        before = {s[0]: status_value(s) for s in a.statuses}
        after = {s[0]: status_value(s) for s in b.statuses}
        for label in dict.fromkeys([*before, *after]):
            if before.get(label) != after.get(label):
                statuses.append(StatusChange(label, before.get(label), after.get(label)))
        fields = []
        fa, fb = dict(a.fields), dict(b.fields)
        for label in dict.fromkeys([*fa, *fb]):
            if fa.get(label) != fb.get(label):
                fields.append(FieldChange(label, fa.get(label), fb.get(label)))
        if a.label != b.label or statuses or fields:
            out.append(RecordChange(record_id, "changed", a.label, b.label, tuple(statuses), tuple(fields)))
    return out


def diff_versions(store: GraphStore, set_id: str, from_version: int | None = None, to_version: int | None = None,
                  *, max_depth: int | None = None) -> SetDiff:
    """What changed in ``set_id`` from ``from_version`` to ``to_version``.

    Parameters
    ----------
    store : GraphStore
        Any store keeping versions (:class:`~graph.store.KeepsVersions`).
    set_id : str
        The analysis set.
    from_version, to_version : int, optional
        Version numbers; ``to_version`` defaults to the latest, ``from_version`` to the kept
        version before ``to_version``. Either order is allowed.
    max_depth : int, optional
        Evidence-step limit of the rests-on answers compared (1..16; None: unlimited).

    Returns
    -------
    SetDiff
        Members added, removed or changed (SHA-256); records added, removed or with a changed
        label, status or field; statements added, removed or with changed text (matched across
        versions by :func:`align`, with a unified diff); per statement the citations gained and
        lost; quotations and Limitations rows added, removed or changed; and, for every record
        whose evidence changed (it is added, removed or changed, or cited, annotated or declared
        by a statement that changed), the rests-on answers gained, lost, or reached at another
        depth.

    Raises
    ------
    AnalysisSetNotFound
        No such set.
    VersionNotFound
        A version is not kept, or ``from_version`` is omitted and there is no earlier one.
    QueryLimitExceeded
        ``max_depth`` outside 1..16.
    """
    if max_depth is not None and not 1 <= max_depth <= MAX_DEPTH:
        raise QueryLimitExceeded(f"max_depth must be between 1 and {MAX_DEPTH} evidence steps, not {max_depth}")
    found = history(store, set_id)
    numbers = [v.number for v in found.versions]
    to_number = found.latest if to_version is None else to_version
    if from_version is None:
        earlier = [n for n in numbers if n < to_number]
        if not earlier:
            raise VersionNotFound(f"analysis set {set_id!r} keeps no version before version {to_number}",
                                  code="no-earlier-version")
        from_version = earlier[-1]
    old_store = store_at(store, set_id, from_version)
    new_store = store_at(store, set_id, to_number)
    before = {v.number: v for v in found.versions}
    members = []
    old_members = {m.document: m.sha256 for m in before[from_version].members}
    new_members = {m.document: m.sha256 for m in before[to_number].members}
    changed = _changed_documents(store, found, from_version, to_number)
    # a member whose nodes and edges are the same in both versions has nothing to align: only the others are read
    old, new = read_view(old_store, set_id, documents=changed), read_view(new_store, set_id, documents=changed)
    for document in sorted(old_members.keys() | new_members.keys()):
        was, now = old_members.get(document), new_members.get(document)
        if document not in old_members:
            members.append(MemberChange(document, "added", None, now))
        elif document not in new_members:
            members.append(MemberChange(document, "removed", was, None))
        elif was != now:
            members.append(MemberChange(document, "changed", was, now))

    records = _record_changes(old, new)
    statements: list[StatementChange] = []
    citations: list[CitationChange] = []
    quotations: list[QuotationChange] = []
    limitations: list[LimitationChange] = []
    moved: dict[str, str] = {}  # statement id in the old version -> its id in the new one
    old_declaring, new_declaring = _declaring(old), _declaring(new)
    touched: set[str] = {r.record_id for r in records}
    old_trees = {t.id: t for t in old.trees}
    new_trees = {t.id: t for t in new.trees}
    for document in sorted(old_trees.keys() | new_trees.keys(),
                           key=lambda d: [t.id for t in (*new.trees, *old.trees)].index(d)):
        a_blocks = list(old_trees[document].blocks) if document in old_trees else []
        b_blocks = list(new_trees[document].blocks) if document in new_trees else []
        for a, b in align(a_blocks, b_blocks):
            if a is not None and b is not None:
                moved[a.id] = b.id
            block = b or a
            assert block is not None
            same_text = a is not None and b is not None and _key(a) == _key(b)
            if block.label == Label.STATEMENT and not same_text:
                change = "added" if a is None else "removed" if b is None else "changed"
                statements.append(StatementChange(
                    document, change, a.id if a else None, b.id if b else None, a.block.line if a else None,
                    b.block.line if b else None, block.block.kind, block.text,
                    _unified(a, b) if change == "changed" else ""))  # type: ignore[arg-type]
            gained, lost = _minus(_cited(b), _cited(a)), _minus(_cited(a), _cited(b))
            if gained or lost:
                citations.append(CitationChange(document, a.id if a else None, b.id if b else None, gained, lost))
            if not same_text or gained or lost:
                for c in (*_cited(a), *_cited(b)):
                    if c.kind == "record":
                        touched.add(c.target)
                for side, declaring in ((a, old_declaring), (b, new_declaring)):
                    if side is not None and side.id in declaring:
                        touched.add(declaring[side.id])
            qa, qb = _quotation_of(a), _quotation_of(b)
            if qa != qb:
                change = "added" if qa is None else "removed" if qb is None else "changed"
                quotations.append(QuotationChange(document, change, a.id if a and qa else None,
                                                  b.id if b and qb else None,
                                                  qa[1] if qa else None, qb[1] if qb else None,
                                                  qa[0] if qa else None, qb[0] if qb else None))
            la, lb = _is_limitation(a), _is_limitation(b)
            if (la or lb) and not (a and b and la and lb and a.text == b.text):
                change = "added" if not la else "removed" if not lb else "changed"
                limitations.append(LimitationChange(document, change, a.id if a and la else None,
                                                    b.id if b and lb else None,
                                                    a.text if a and la else None, b.text if b and lb else None))
    touched |= _annotated_by_changed(old, new, statements)

    def image(statement: str) -> str | None:
        """A statement's id in the later version: itself in an unchanged member, else as aligned."""
        if statement.partition("#")[0] not in changed:
            return statement
        return moved.get(statement)

    rests = []
    for record_id in sorted(touched):
        before_ids = _rests_on_ids(old_store, old, record_id, set_id, max_depth)
        after_ids = _rests_on_ids(new_store, new, record_id, set_id, max_depth)
        images = {image(x): depth for x, depth in before_ids.items()}
        gained_ids = tuple(s for s in after_ids if s not in images)
        lost_ids = tuple(s for s in before_ids if image(s) not in after_ids)
        deeper = tuple(DepthChange(s, images[s], d) for s, d in after_ids.items() if s in images and d > images[s])
        shallower = tuple(DepthChange(s, images[s], d) for s, d in after_ids.items() if s in images and d < images[s])
        if gained_ids or lost_ids or deeper or shallower:
            rests.append(RestsOnChange(record_id, gained_ids, lost_ids, len(before_ids), len(after_ids), deeper,
                                       shallower))
    return SetDiff(set_id, from_version, to_number, tuple(members), tuple(records), tuple(statements),
                   tuple(citations), tuple(quotations), tuple(limitations), tuple(rests))


def _changed_documents(store: GraphStore, found: SetHistory, a: int, b: int) -> set[str]:
    """Members whose document graph (nodes and edges) differs between versions ``a`` and ``b``,
    from the versions' batches (the live graph's for a set without stored versions)."""
    graphs = []
    for number in (a, b):
        version = next(v for v in found.versions if v.number == number)
        stored = hasattr(store, "set_version") and bool(store.set_versions(found.set_id))  # type: ignore[attr-defined]
        batch = _version_batch(store, version) if stored else read_set(store, found.set_id)
        graphs.append({g.id: g for g in batch.documents})
    old, new = graphs
    return {d for d in old.keys() | new.keys() if old.get(d) != new.get(d)}


def _declaring(view: SetView) -> dict[str, str]:
    """Block id → the record whose declaration holds it, for the members the view read."""
    out: dict[str, str] = {}
    trees = {t.id: t for t in view.trees}
    for record in view.records.values():
        if record.declaration and record.declaration in view.blocks:
            tree = trees[view.blocks[record.declaration][0]]
            inside = {record.declaration}
            for block in tree.blocks:
                if block.id in inside or block.parent in inside:
                    inside.add(block.id)
                    out[block.id] = record.record_id
    return out


def _annotated_by_changed(old: SetView, new: SetView, statements: Iterable[StatementChange]) -> set[str]:
    """Records annotated by a changed, added or removed statement (its annotation heading's record)."""
    out: set[str] = set()
    for change in statements:
        for view, block_id in ((old, change.from_statement), (new, change.to_statement)):
            if block_id is None or block_id not in view.blocks:
                continue
            document, block = view.blocks[block_id]
            tree = next(t for t in view.trees if t.id == document)
            for heading in tree.headings(block.id):
                if heading.annotation is not None and heading.annotation.annotates:
                    out.add(heading.annotation.annotates)
    return out


def _rests_on_ids(store: GraphStore, view: SetView, record_id: str, set_id: str,
                  max_depth: int | None) -> dict[str, int]:
    """Statement id → depth of each statement resting on ``record_id`` (in document order)."""
    if record_id not in view.records:
        return {}
    return {r.statement: r.depth for r in rests_on(store, record_id, set_id=set_id, max_depth=max_depth).results}
