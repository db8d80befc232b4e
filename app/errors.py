"""The one mapping from citegraph errors to HTTP statuses, GraphQL codes and CLI exit codes."""

from __future__ import annotations

from dataclasses import dataclass

from graph.errors import (
    AccessDenied,
    Unauthenticated,
    AmbiguousScope,
    CitegraphError,
    DuplicateDeclaration,
    IncomparableSets,
    IngestError,
    NodeConflict,
    InvalidQuery,
    NotFound,
    PreconditionFailed,
    QueryLimitExceeded,
    SettingsInvalid,
    SourceRepositoryError,
    StoreUnavailable,
    StoreWriteFailed,
    ValidationFailed,
)

__all__ = ["ErrorFace", "face_of"]


@dataclass(frozen=True, slots=True)
class ErrorFace:
    """How one error class shows on each face: HTTP ``status``, GraphQL ``code``, CLI ``exit``."""

    status: int
    code: str
    exit: int


_TABLE: tuple[tuple[type[BaseException], ErrorFace], ...] = (
    (DuplicateDeclaration, ErrorFace(409, "CONFLICT", 65)),
    (NodeConflict, ErrorFace(409, "CONFLICT", 65)),
    (IngestError, ErrorFace(422, "INVALID_INPUT", 65)),
    (ValidationFailed, ErrorFace(422, "INVALID_INPUT", 65)),
    (NotFound, ErrorFace(404, "NOT_FOUND", 66)),
    (QueryLimitExceeded, ErrorFace(400, "LIMIT_EXCEEDED", 64)),
    (PreconditionFailed, ErrorFace(412, "PRECONDITION_FAILED", 65)),
    (AccessDenied, ErrorFace(403, "FORBIDDEN", 77)),
    (Unauthenticated, ErrorFace(401, "UNAUTHENTICATED", 77)),
    (StoreWriteFailed, ErrorFace(503, "UNAVAILABLE", 74)),  # a full disk: EX_IOERR on the CLI
    (StoreUnavailable, ErrorFace(503, "UNAVAILABLE", 69)),
    (SettingsInvalid, ErrorFace(500, "MISCONFIGURED", 78)),  # EX_CONFIG
    (SourceRepositoryError, ErrorFace(422, "INVALID_INPUT", 2)),  # impact: bad repo or revision, exit 2 (issue #6)
    (IncomparableSets, ErrorFace(422, "INVALID_INPUT", 2)),  # compare: sets of different systems (issue #17)
    (AmbiguousScope, ErrorFace(400, "BAD_REQUEST", 2)),
    (InvalidQuery, ErrorFace(422, "INVALID_INPUT", 2)),  # a malformed parameter: a usage error (issue #15)
    (CitegraphError, ErrorFace(400, "BAD_REQUEST", 65)),
)
_INTERNAL = ErrorFace(500, "INTERNAL", 70)


def face_of(error: BaseException) -> ErrorFace:
    """The face of ``error``: the first table row whose class it is an instance of; anything that
    is not a :class:`CitegraphError` is internal (500 / ``INTERNAL`` / exit 70) and its message is
    masked by the faces."""
    for cls, face in _TABLE:
        if isinstance(error, cls):
            return face
    return _INTERNAL
