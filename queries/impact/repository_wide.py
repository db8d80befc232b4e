"""Impact for the whole knowledge base: every set whose source register pins one repository.

:func:`impact_on_repository` finds the sources (``SRC-n`` rows of every set's register) whose URL
names the repository (see :func:`repository_identity` and :func:`pins`), runs :func:`impact_of`
for each from its own pinned commit to one revision, and ranks the reports by conclusions affected.
A source pinned to a commit the clone lacks, or pinning none, is listed in ``unanalysed``; the
others are analysed all the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Collection

from graph.codec import source_of
from graph.errors import RevisionNotFound
from graph.model import Label
from graph.store import GraphStore
from queries.impact.repository import SourceRepository
from queries.impact.results import ImpactReport
from queries.names import require_set
from queries.shapes import wire

__all__ = ["PinnedSource", "RepositorySummary", "RepositoryImpact", "repository_identity", "pins",
           "impact_on_repository"]

_SCP = re.compile(r"^(?:[\w.+-]+@)?(?P<host>[\w.-]+):(?!//)(?P<path>.+)$")   # git@host:owner/name
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$", re.I)
_NAME = re.compile(r"^[\w.-]+(?:/[\w.-]+)+$")                                 # owner/name, group/sub/name


def repository_identity(text: str) -> tuple[str | None, str] | None:
    """(host or None, path) a repository is named by, lower-cased, without ``.git`` or slashes at the ends.

    ``https://github.com/refactoringhq/tolaria``, ``git@github.com:refactoringhq/tolaria.git`` and
    ``ssh://git@github.com/refactoringhq/tolaria`` name ``("github.com", "refactoringhq/tolaria")``;
    a bare ``owner/name`` has no host. None for anything else (a local path, ``file://`` URLs).

    >>> repository_identity("git@github.com:RefactoringHQ/tolaria.git")
    ('github.com', 'refactoringhq/tolaria')
    >>> repository_identity("refactoringhq/tolaria"), repository_identity("/srv/clones/tolaria")
    ((None, 'refactoringhq/tolaria'), None)
    """
    text = text.strip()
    if text.lower().startswith("file:") or text.startswith(("/", ".", "~")):
        return None
    match = _URL.match(text) or _SCP.match(text)
    host, path = (match["host"].lower(), match["path"]) if match else (None, text)
    path = path.strip("/").removesuffix(".git").strip("/").lower()
    return (host, path) if _NAME.match(path) else None


def pins(url: str | None, names: Collection[str]) -> bool:
    """Whether a register's ``url`` names the repository known by ``names`` (remote URLs,
    ``owner/name`` spellings): the same path (``owner/name``), on the same host when both say one."""
    pinned = repository_identity(url or "")
    if pinned is None:
        return False
    for name in names:
        known = repository_identity(name)
        if known is not None and known[1] == pinned[1] and (known[0] == pinned[0] or None in (known[0], pinned[0])):
            return True
    return False


@dataclass(frozen=True, slots=True)
class PinnedSource:
    """A source of a set whose register pins the repository: ``set``, ``source`` (Source node id),
    ``url`` and ``commit`` as the register states them, ``state`` (``analysed``,
    ``missing-commit``: the clone lacks the pinned commit, ``unpinned``: the register pins no
    commit) and ``reason`` (one sentence, "" when analysed)."""

    set: str
    source: str
    url: str | None
    commit: str | None
    state: str
    reason: str


@dataclass(frozen=True, slots=True)
class RepositorySummary:
    """Counts over the analysed sets: ``sets`` analysed, ``unanalysed`` sources, and the suspects of
    all reports per kind (``statements``, ``conclusions`` among them, ``records``, ``sections``,
    ``documents``) and those ``reviewed``."""

    sets: int
    unanalysed: int
    statements: int
    conclusions: int
    records: int
    sections: int
    documents: int
    reviewed: int


@dataclass(frozen=True, slots=True)
class RepositoryImpact:
    """Answer of :func:`impact_on_repository`.

    ``names``: what the repository was matched by (sorted); ``to_revision`` (full commit id, ``to``
    on the wire); ``pinned``: every source pinning it, sorted by (set, source); ``sets``: one
    :class:`ImpactReport` per analysed source, each from its own pinned commit, ranked by
    conclusions affected, then suspect statements, then set; ``unanalysed``: the pinned sources not
    analysed, with why; ``summary``.
    """

    names: tuple[str, ...]
    to_revision: str = field(metadata=wire("to"))
    summary: RepositorySummary = field(init=False)
    pinned: tuple[PinnedSource, ...]
    sets: tuple[ImpactReport, ...]
    unanalysed: tuple[PinnedSource, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "unanalysed", tuple(p for p in self.pinned if p.state != "analysed"))
        total = {k: sum(getattr(r.summary, k) for r in self.sets)
                 for k in ("statements", "conclusions", "records", "sections", "documents", "reviewed")}
        object.__setattr__(self, "summary", RepositorySummary(sets=len(self.sets), unanalysed=len(self.unanalysed),
                                                              **total))


def impact_on_repository(
    store: GraphStore,
    repo: SourceRepository,
    *,
    names: Collection[str],
    to_revision: str = "HEAD",
    set_id: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RepositoryImpact:
    """Impact of moving the repository to ``to_revision`` on every set whose register pins it.

    ``names`` are what the repository is known by (its remote URLs, ``owner/name`` spellings, those
    a settings mapping gives); a source pins it when :func:`pins` says so. Each pinned source is
    analysed by :func:`~queries.impact.impact_of` from its pinned ``commit`` (``from_revision``
    omitted, ``source_id`` given), so each report is exactly that set's single-set impact.
    ``set_id`` narrows the search to one set. ``progress(done, total)`` counts sources.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store.
    RevisionNotFound
        ``to_revision`` is not in ``repo`` (a pinned commit missing is no error: ``unanalysed``).
    SourceRepositoryError
        ``repo`` cannot be read.
    """
    from queries.impact import impact_of

    require_set(store, set_id)
    to_commit = repo.resolve(to_revision)
    sources = sorted((s for s in store.find_nodes(Label.SOURCE, set_id=set_id) if pins(source_of(s).url, names)),
                     key=lambda s: (s.set_id or "", s.id))
    tell = progress or (lambda done, total: None)
    tell(0, len(sources))
    pinned, reports = [], []
    for n, node in enumerate(sources, start=1):
        source = source_of(node)
        common: dict[str, Any] = dict(set=node.set_id or "", source=node.id, url=source.url, commit=source.commit)
        if not source.commit:
            pinned.append(PinnedSource(**common, state="unpinned",
                                       reason=f"the register of {node.set_id} pins no commit for {source.source_id}"))
        else:
            try:
                reports.append(impact_of(store, repo, to_revision=to_commit, set_id=node.set_id,
                                         source_id=source.source_id))
                pinned.append(PinnedSource(**common, state="analysed", reason=""))
            except RevisionNotFound:
                pinned.append(PinnedSource(**common, state="missing-commit",
                                           reason=f"the clone lacks the pinned commit {source.commit} (fetch it, "
                                                  f"or clone with full history)"))
        tell(n, len(sources))
    reports.sort(key=lambda r: (-r.summary.conclusions, -r.summary.statements, r.set, r.source or ""))
    return RepositoryImpact(names=tuple(sorted(set(names))), to_revision=to_commit, pinned=tuple(pinned),
                            sets=tuple(reports))
