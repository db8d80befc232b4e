"""Independent runs of one system: the analysis sets analysing it, and where two of them agree
.

:func:`runs_of` lists the sets of a system with their run-id, date, pinned source revisions and
cutoff. :func:`compare_runs` matches the records of two runs: by identical ID where IDs are slugs
(a slug names the thing; a number only its place in one run), otherwise by kind plus identical
normalised label, and only when that key is unique on both sides. Every other record is listed as
unmatched, with the other run's unmatched records citing the same source files as *candidates*,
ranked by overlap and never counted as matches: a wrong match is worse than none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graph.codec import analysis_set_of, member_frontmatter, source_of, system_name, system_slug
from graph.errors import IncomparableSets, SystemNotFound
from graph.model import Label, Node, slugify
from graph.store import GraphStore
from queries.documents import DocumentBlock
from queries.history import history, store_at
from queries.setview import RecordState, SetView, is_slug_id, normalised_label, read_view, status_value
from queries.names import unknown_set
from queries.shapes import wire

__all__ = [
    "RunSource",
    "Run",
    "SystemRuns",
    "runs_of",
    "Candidate",
    "StatusAgreement",
    "FieldAgreement",
    "RecordMatch",
    "UnmatchedRecord",
    "DeclaredCount",
    "FileCitation",
    "RunLimitation",
    "RunComparison",
    "compare_runs",
    "CANDIDATES_SHOWN",
]

CANDIDATES_SHOWN = 5
"""Candidates listed per unmatched record at most (the best by overlap)."""

_RUN_DATE = re.compile(r"^AAS-(\d{4}-\d{2}-\d{2})-")


@dataclass(frozen=True, slots=True)
class RunSource:
    """A source a run pins: ``source_id`` (``SRC-n``), repository ``url``, ``commit`` and ``cutoff``
    (each None when the run does not state it)."""

    source_id: str
    url: str | None
    commit: str | None
    cutoff: str | None


@dataclass(frozen=True, slots=True)
class Run:
    """One analysis set of a system.

    Attributes
    ----------
    set_id, run_id : str, str or None
        The set and its run-id (None for a set named after its system).
    date : str or None
        The run's date (``run-date`` of a member's frontmatter, else the run-id's date).
    revisions : tuple of str
        Every source revision the run is pinned to: its sources' commits and its reviewed
        boundary, distinct, sorted.
    reviewed_boundary : str or None
        The revision the members state they reviewed.
    cutoff : str or None
        The analysis cutoff (a source's, else a member's ``analysis-cutoff``).
    sources : tuple of RunSource
        By source ID.
    documents, declarations : int
        Members and declared records.
    version : int
        Its latest version number.
    """

    set_id: str = field(metadata=wire("set"))
    run_id: str | None
    date: str | None
    revisions: tuple[str, ...]
    reviewed_boundary: str | None
    cutoff: str | None
    sources: tuple[RunSource, ...]
    documents: int
    declarations: int
    version: int



@dataclass(frozen=True, slots=True)
class SystemRuns:
    """The runs of ``system`` (its slug; ``name`` as a member wrote it), by date then set id."""

    system: str
    name: str
    runs: tuple[Run, ...]


def _system(store: GraphStore, system: str) -> Node:
    slug = system.removeprefix("system/") if system.startswith("system/") else slugify(system)
    found = store.get_nodes([f"system/{slug}"]).get(f"system/{slug}")
    if found is None or found.label != Label.SYSTEM:
        raise SystemNotFound(f"no analysis set in the store analyses system {system!r}",
                             hint="systems are named by their slug, e.g. instinctual-memory", code="unknown-system")
    return found


def runs_of(store: GraphStore, system: str) -> SystemRuns:
    """The analysis sets analysing ``system`` (its name, its slug or ``system/<slug>``).

    Raises
    ------
    SystemNotFound
        No set analyses that system.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(r.set_id, r.revisions) for r in runs_of(demo_store(), "demo").runs]
    [('demo', ())]
    """
    node = _system(store, system)
    sets = [s for s in store.find_nodes(Label.ANALYSIS_SET, where={"system": node.id})]
    runs = []
    for s in sets:
        documents = store.find_nodes(Label.DOCUMENT, set_id=s.id)
        stated = analysis_set_of(s)
        sources = tuple(RunSource(src.source_id or n.id.rpartition("/")[2], src.url, src.commit, src.cutoff)
                        for n in store.find_nodes(Label.SOURCE, set_id=s.id) for src in (source_of(n),))
        frontmatter = [member_frontmatter(d) for d in documents]
        run_id = stated.run_id
        date = next((str(f["run-date"]) for f in frontmatter if f.get("run-date")), None)
        if date is None and run_id and _RUN_DATE.match(run_id):
            date = _RUN_DATE.match(run_id).group(1)  # type: ignore[union-attr]
        cutoff = next((src.cutoff for src in sources if src.cutoff), None) or next(
            (str(f["analysis-cutoff"]) for f in frontmatter if f.get("analysis-cutoff")), None)
        boundary = stated.reviewed_boundary
        revisions = tuple(sorted({r for r in (*(src.commit for src in sources), boundary) if r}))
        declarations = sum(1 for n in store.find_nodes(Label.SECTION, set_id=s.id, where={"kind": "declaration"}))
        runs.append(Run(s.id, run_id, date, revisions, boundary, cutoff, sources, len(documents), declarations,
                        history(store, s.id).latest))
    runs.sort(key=lambda r: (r.date or "", r.set_id))
    return SystemRuns(system_slug(node), system_name(node) or "", tuple(runs))


# -- comparison -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Candidate:
    """A record of the other run citing some of the same source files: its ``record_id``,
    ``label``, the ``shared`` paths and ``overlap`` (shared ÷ the files either cites)."""

    record_id: str
    label: str | None
    shared: tuple[str, ...]
    overlap: float


@dataclass(frozen=True, slots=True)
class StatusAgreement:
    """One status label of a matched record: its value in each run (None: not stated) and whether
    the values agree."""

    label: str
    a: str | None
    b: str | None
    agree: bool


@dataclass(frozen=True, slots=True)
class FieldAgreement:
    """One field label of a matched record: whether each run states it and whether the texts are
    the same."""

    label: str
    in_a: bool
    in_b: bool
    agree: bool


@dataclass(frozen=True, slots=True)
class RecordMatch:
    """Two records taken for the same thing: ``a`` and ``b`` (record IDs), ``label``, ``by`` (``id``:
    identical slug ID; ``label``: kind plus identical normalised label), their status and field
    agreement and the source files both, only ``a`` and only ``b`` cite."""

    a: str
    b: str
    kind: str
    label: str | None
    by: str
    statuses: tuple[StatusAgreement, ...]
    fields: tuple[FieldAgreement, ...]
    files_both: tuple[str, ...]
    files_only_a: tuple[str, ...]
    files_only_b: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class UnmatchedRecord:
    """A record of one run (``run`` ``a`` or ``b``) that matches none of the other's, with the
    source files it cites and its candidates (at most :data:`CANDIDATES_SHOWN`, best first)."""

    run: str
    record_id: str
    kind: str
    label: str | None
    files: tuple[str, ...]
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True, slots=True)
class DeclaredCount:
    """Records of one ``kind`` each run declares (0: that run declares none)."""

    kind: str
    a: int
    b: int


@dataclass(frozen=True, slots=True)
class FileCitation:
    """A source file and how many statements of each run cite or quote it (0: that run does not)."""

    path: str
    a: int
    b: int
    runs: str = field(init=False)
    """``both``, ``a`` or ``b``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "runs", "both" if self.a and self.b else "a" if self.a else "b")


@dataclass(frozen=True, slots=True)
class RunLimitation:
    """A Limitations row of one run: its statement id, text, the record IDs it names and whether
    the other run states the same limitation (identical normalised first cell)."""

    run: str
    statement: str
    text: str
    records: tuple[str, ...]
    shared: bool


@dataclass(frozen=True, slots=True)
class RunComparison:
    """Where runs ``a`` and ``b`` of ``system`` agree.

    Attributes
    ----------
    system : str
        The system's slug.
    a, b : Run
        The two runs (at the versions compared: ``a.version``/``b.version``).
    matches : tuple of RecordMatch
        By ``a``'s record ID.
    unmatched : tuple of UnmatchedRecord
        ``a``'s, then ``b``'s, each by record ID.
    declared : dict
        Per run (``a``, ``b``), declared records per kind (by kind); :attr:`declared_counts`
        gives them kind by kind.
    files : tuple of FileCitation
        Every source file either run cites, by path.
    limitations : tuple of RunLimitation
        ``a``'s rows, then ``b``'s, in document order.
    """

    system: str
    a: Run
    b: Run
    matches: tuple[RecordMatch, ...]
    unmatched: tuple[UnmatchedRecord, ...]
    declared: dict[str, dict[str, int]]
    files: tuple[FileCitation, ...]
    limitations: tuple[RunLimitation, ...]

    @property
    def declared_counts(self) -> tuple[DeclaredCount, ...]:
        """:attr:`declared` kind by kind: one count per kind either run declares, by kind."""
        a, b = self.declared["a"], self.declared["b"]
        return tuple(DeclaredCount(k, a.get(k, 0), b.get(k, 0)) for k in sorted(a.keys() | b.keys()))


def _matches(a: SetView, b: SetView) -> list[tuple[RecordState, RecordState, str]]:
    out = []
    matched_a: set[str] = set()
    matched_b: set[str] = set()
    for record_id in sorted(a.records.keys() & b.records.keys()):
        if is_slug_id(record_id):
            out.append((a.records[record_id], b.records[record_id], "id"))
            matched_a.add(record_id)
            matched_b.add(record_id)

    def keyed(view: SetView, taken: set[str]) -> dict[tuple[str, str], list[RecordState]]:
        keys: dict[tuple[str, str], list[RecordState]] = {}
        for r in view.records.values():
            label = normalised_label(r.label)
            if r.record_id not in taken and label is not None:
                keys.setdefault((r.kind, label), []).append(r)
        return keys

    ka, kb = keyed(a, matched_a), keyed(b, matched_b)
    for key in sorted(ka.keys() & kb.keys()):
        if len(ka[key]) == 1 and len(kb[key]) == 1:
            out.append((ka[key][0], kb[key][0], "label"))
    return sorted(out, key=lambda m: m[0].record_id)


def _agreement(ra: RecordState, rb: RecordState, by: str) -> RecordMatch:
    sa = {s[0].casefold(): (s[0], status_value(s)) for s in ra.statuses}
    sb = {s[0].casefold(): (s[0], status_value(s)) for s in rb.statuses}
    statuses = tuple(StatusAgreement((sa.get(k) or sb[k])[0], sa[k][1] if k in sa else None,
                                     sb[k][1] if k in sb else None,
                                     k in sa and k in sb and sa[k][1].casefold() == sb[k][1].casefold())
                     for k in dict.fromkeys([*sa, *sb]))
    fa = {label.casefold(): (label, " ".join(value.split())) for label, value in ra.fields}
    fb = {label.casefold(): (label, " ".join(value.split())) for label, value in rb.fields}
    fields = tuple(FieldAgreement((fa.get(k) or fb[k])[0], k in fa, k in fb, k in fa and k in fb and fa[k][1] == fb[k][1])
                   for k in dict.fromkeys([*fa, *fb]))
    files_a, files_b = set(ra.files), set(rb.files)
    return RecordMatch(ra.record_id, rb.record_id, ra.kind, ra.label or rb.label, by, statuses, fields,
                       tuple(sorted(files_a & files_b)), tuple(sorted(files_a - files_b)),
                       tuple(sorted(files_b - files_a)))


def _candidates(record: RecordState, others: list[RecordState]) -> tuple[Candidate, ...]:
    mine = set(record.files)
    found = []
    for other in others:
        shared = mine & set(other.files)
        if shared:
            found.append(Candidate(other.record_id, other.label, tuple(sorted(shared)),
                                   round(len(shared) / len(mine | set(other.files)), 3)))
    found.sort(key=lambda c: (-len(c.shared), -c.overlap, c.record_id))
    return tuple(found[:CANDIDATES_SHOWN])


def _run(store: GraphStore, set_id: str, version: int) -> Run:
    node = store.get_nodes([set_id]).get(set_id)
    system = analysis_set_of(node).system if node is not None else ""
    for run in runs_of(store, system).runs:
        if run.set_id == set_id:
            return Run(run.set_id, run.run_id, run.date, run.revisions, run.reviewed_boundary, run.cutoff,
                       run.sources, run.documents, run.declarations, version)
    raise unknown_set(store, set_id)  # pragma: no cover - system checked


def compare_runs(store: GraphStore, set_a: str, set_b: str, *, version_a: int | None = None,
                 version_b: int | None = None) -> RunComparison:
    """Where runs ``set_a`` and ``set_b`` of one system agree (each at its latest version, or the
    one given).

    Returns
    -------
    RunComparison
        Matched records (by slug ID, else by kind plus normalised label unique on both sides) with
        status and field agreement and the files each cites; every other record as unmatched with
        its candidates; per source file the runs citing it; each run's Limitations rows.

    Raises
    ------
    AnalysisSetNotFound
        Either set is not in the store.
    IncomparableSets
        The two are one set, or they analyse different systems.
    VersionNotFound
        A version given is not kept.
    """
    nodes = store.get_nodes([set_a, set_b])  # one batched read: the checks and the systems below
    for set_id in (set_a, set_b):
        if set_id not in nodes or nodes[set_id].label != Label.ANALYSIS_SET:
            raise unknown_set(store, set_id)
    if set_a == set_b:
        raise IncomparableSets(f"{set_a} is compared with itself", hint="compare two runs, or diff two versions of one")
    system_a, system_b = analysis_set_of(nodes[set_a]).system, analysis_set_of(nodes[set_b]).system
    if system_a != system_b:
        raise IncomparableSets(
            f"{set_a} analyses {str(system_a).removeprefix('system/')} but {set_b} analyses "
            f"{str(system_b).removeprefix('system/')}: runs are compared only when they analyse the same system",
            code="other-system")
    number_a = version_a if version_a is not None else history(store, set_a).latest
    number_b = version_b if version_b is not None else history(store, set_b).latest
    view_a = read_view(store_at(store, set_a, version_a), set_a)
    view_b = read_view(store_at(store, set_b, version_b), set_b)
    matched = _matches(view_a, view_b)
    taken_a = {ra.record_id for ra, _, _ in matched}
    taken_b = {rb.record_id for _, rb, _ in matched}
    rest_a = [r for r in view_a.records.values() if r.record_id not in taken_a]
    rest_b = [r for r in view_b.records.values() if r.record_id not in taken_b]
    unmatched = [UnmatchedRecord("a", r.record_id, r.kind, r.label, r.files, _candidates(r, rest_b)) for r in rest_a]
    unmatched += [UnmatchedRecord("b", r.record_id, r.kind, r.label, r.files, _candidates(r, rest_a)) for r in rest_b]
    declared: dict[str, dict[str, int]] = {}
    for side, view in (("a", view_a), ("b", view_b)):
        counts: dict[str, int] = {}
        for r in view.records.values():
            if r.declaration:
                counts[r.kind] = counts.get(r.kind, 0) + 1
        declared[side] = dict(sorted(counts.items()))
    cited_a, cited_b = view_a.file_citations(), view_b.file_citations()
    files = tuple(FileCitation(p, cited_a.get(p, 0), cited_b.get(p, 0)) for p in sorted(cited_a.keys() | cited_b.keys()))

    def first_cell(block: DocumentBlock) -> str:
        cells = (block.row.cells if block.row is not None else ()) or [block.text]
        return normalised_label(str(cells[0])) or ""

    rows = {"a": view_a.limitations(), "b": view_b.limitations()}
    heads = {side: {first_cell(b) for _, b in found} for side, found in rows.items()}
    limitations = tuple(
        RunLimitation(side, b.id, b.text, b.cited_records(), first_cell(b) in heads["b" if side == "a" else "a"])
        for side in ("a", "b") for _, b in rows[side])
    return RunComparison(
        str(system_a).removeprefix("system/"), _run(store, set_a, number_a), _run(store, set_b, number_b),
        tuple(_agreement(ra, rb, by) for ra, rb, by in matched), tuple(unmatched), declared, files, limitations)
