"""What impact analysis needs from git: the :class:`SourceRepository` protocol the faces satisfy
with :class:`ingest.git.GitRepository` (``queries`` never imports ``ingest``), and its optional
``git grep`` fast path."""

from __future__ import annotations

from typing import Protocol, runtime_checkable
from collections.abc import Collection, Mapping, Sequence

__all__ = ["FileChangeLike", "SourceRepository", "SupportsContaining"]


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
