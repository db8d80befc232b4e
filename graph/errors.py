"""One error hierarchy for citegraph; the faces in ``app/`` translate it in one place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping

__all__ = [
    "SourceSpan",
    "CitegraphError",
    "IngestError",
    "ParseError",
    "UnresolvedCitation",
    "NotFound",
    "RecordNotFound",
    "AnalysisSetNotFound",
    "DocumentNotFound",
    "NodeNotFound",
    "InputNotFound",
    "DuplicateDeclaration",
    "ValidationFailed",
    "QueryLimitExceeded",
    "SettingsInvalid",
    "StoreUnavailable",
    "StoreWriteFailed",
    "NodeConflict",
    "PreconditionFailed",
    "AmbiguousScope",
    "InvalidQuery",
    "SourceRepositoryError",
    "RevisionNotFound",
    "VersionNotFound",
    "SystemNotFound",
    "IncomparableSets",
    "OutputRefused",
    "MalformedCredentials",
]


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """A place in an input file: ``path`` as given, 1-based ``line`` and ``col``."""

    path: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class CitegraphError(Exception):
    """Base of every error citegraph raises on purpose.

    Parameters
    ----------
    message : str
        What went wrong, in one sentence.
    hint : str, optional
        What the user can do about it.
    source : SourceSpan, optional
        Where in an input file the problem is.
    code : str, optional
        Stable name of a condition whose advice names a face's input (an option, a parameter, a
        command), e.g. ``"ambiguous-set"``: lower layers never spell flags or parameters, the faces
        turn ``code`` and ``data`` into the words of their own input (:func:`app.errors.hint_of`).
    data : mapping, optional
        Values that advice needs (``{"top": "/src/tolaria"}``); JSON-compatible.
    """

    def __init__(self, message: str, *, hint: str | None = None, source: SourceSpan | None = None,
                 code: str | None = None, data: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.source = source
        self.code = code
        self.data: dict[str, Any] = dict(data or {})

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.message}"


class IngestError(CitegraphError):
    """Raised when an input cannot be ingested; nothing from that run is stored."""


class ParseError(IngestError):
    """Raised when a file is not a readable analysis-set member (encoding, title, type, structure)."""


class UnresolvedCitation(IngestError):
    """Raised when a citation must resolve for the input to make sense and does not."""


class NotFound(CitegraphError):
    """Raised when an asked-for object is not in the store."""


class RecordNotFound(NotFound):
    """Raised when no analysis set in scope holds a record with the asked-for ID."""


class AnalysisSetNotFound(NotFound):
    """Raised when the asked-for analysis set is not in the store."""


class DocumentNotFound(NotFound):
    """Raised when the asked-for document (``<set>/<role>``) is not in the store."""


class NodeNotFound(NotFound):
    """Raised when an asked-for graph node id is not in the store."""


class InputNotFound(NotFound):
    """Raised when a file or folder given as input does not exist."""


class DuplicateDeclaration(IngestError):
    """Raised when one analysis set would declare the same record twice."""


class ValidationFailed(CitegraphError):
    """Raised when a set fails validation with errors; ``findings`` holds them all."""

    def __init__(self, message: str, findings: list[Any], **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.findings = findings


class QueryLimitExceeded(CitegraphError):
    """Raised when a query asks for more than the configured limits allow (depth, page size)."""


class SettingsInvalid(CitegraphError):
    """Raised when a setting (a ``CITEGRAPH_*`` variable, ``.env`` line or option) has a value it
    cannot take; the message names the variable and what it must be."""


class StoreUnavailable(CitegraphError):
    """Raised when the store cannot be reached (Neo4j down, transient failure after retries)."""


class StoreWriteFailed(StoreUnavailable):
    """Raised when the store's storage refuses a write (a full disk, an I/O error); nothing of the
    write is kept, and the store answers reads as before it."""


class NodeConflict(CitegraphError):
    """Raised when a write would replace or delete a node under an id that names a node of another
    kind or owner (a document id that is a record's, a set named like another node); nothing is
    written."""


class Unauthenticated(CitegraphError):
    """Raised when a request that needs a bearer token carries none."""


class MalformedCredentials(CitegraphError):
    """Raised when a request's ``Authorization`` header is not well-formed credentials (RFC 6750
    §2.1, RFC 7235 §4.2), or the request carries several."""


class AccessDenied(CitegraphError):
    """Raised when a request asks for something the configuration does not allow (a repository
    outside the allowed roots)."""


class PreconditionFailed(CitegraphError):
    """Raised when a conditional write's expected version (ETag) no longer matches the store."""


class AmbiguousScope(CitegraphError):
    """Raised when a query needs one analysis set or source, none was named, and several match."""


class InvalidQuery(CitegraphError):
    """Raised when a query's own input is malformed: a search text without a word, a bad export
    format, an unknown record kind or analyst filter."""


class SourceRepositoryError(CitegraphError):
    """Raised when the analysed source's repository cannot be read: not a git repository, no ``git``
    binary, a failing git command."""


class RevisionNotFound(SourceRepositoryError):
    """Raised when a revision (given, or a source's pinned commit) is not in the repository."""


class VersionNotFound(NotFound):
    """Raised when an asked-for version of an analysis set is not kept (never written, or dropped
    by retention)."""


class SystemNotFound(NotFound):
    """Raised when no analysis set in the store analyses the asked-for system."""


class IncomparableSets(CitegraphError):
    """Raised when two analysis sets are compared that do not analyse the same system (or are one set)."""


class OutputRefused(CitegraphError):
    """Raised when a command's output path is, or would replace, a file of the store in use (its
    database, ``-wal`` or ``-shm``, also through a link or another spelling of the path); nothing
    is written."""
