"""The one mapping from citegraph errors to HTTP statuses, GraphQL codes and CLI exit codes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload
from collections.abc import Callable

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
    MalformedCredentials,
    NotFound,
    OutputRefused,
    PreconditionFailed,
    QueryLimitExceeded,
    SettingsInvalid,
    SourceRepositoryError,
    StoreUnavailable,
    StoreWriteFailed,
    ValidationFailed,
)

__all__ = ["ERROR_FACES", "INTERNAL_FACE", "ErrorFace", "face_of", "hint_of", "for_clients"]


@dataclass(frozen=True, slots=True)
class ErrorFace:
    """How one error class shows on each face: HTTP ``status``, GraphQL ``code``, CLI ``exit``."""

    status: int
    code: str
    exit: int


ERROR_FACES: tuple[tuple[type[BaseException], ErrorFace], ...] = (
    (DuplicateDeclaration, ErrorFace(409, "CONFLICT", 65)),
    (NodeConflict, ErrorFace(409, "CONFLICT", 65)),
    (IngestError, ErrorFace(422, "INVALID_INPUT", 65)),
    (ValidationFailed, ErrorFace(422, "INVALID_INPUT", 65)),
    (NotFound, ErrorFace(404, "NOT_FOUND", 66)),
    (QueryLimitExceeded, ErrorFace(400, "LIMIT_EXCEEDED", 64)),
    (PreconditionFailed, ErrorFace(412, "PRECONDITION_FAILED", 65)),
    (AccessDenied, ErrorFace(403, "FORBIDDEN", 77)),
    (Unauthenticated, ErrorFace(401, "UNAUTHENTICATED", 77)),
    (MalformedCredentials, ErrorFace(400, "BAD_REQUEST", 77)),  # RFC 6750 §3.1 invalid_request
    (StoreWriteFailed, ErrorFace(503, "UNAVAILABLE", 74)),  # a full disk: EX_IOERR on the CLI
    (StoreUnavailable, ErrorFace(503, "UNAVAILABLE", 69)),
    (SettingsInvalid, ErrorFace(500, "MISCONFIGURED", 78)),  # EX_CONFIG
    (OutputRefused, ErrorFace(409, "CONFLICT", 73)),  # EX_CANTCREAT: an output over the store's own files
    (SourceRepositoryError, ErrorFace(422, "INVALID_INPUT", 2)),  # impact: bad repo or revision, exit 2
    (IncomparableSets, ErrorFace(422, "INVALID_INPUT", 2)),  # compare: sets of different systems
    (AmbiguousScope, ErrorFace(400, "BAD_REQUEST", 2)),
    (InvalidQuery, ErrorFace(422, "INVALID_INPUT", 2)),  # a malformed parameter: a usage error
    (CitegraphError, ErrorFace(400, "BAD_REQUEST", 65)),
)
"""Each citegraph error class with its face, most specific first (:func:`face_of` takes the first
row the error is an instance of)."""
INTERNAL_FACE = ErrorFace(500, "INTERNAL", 70)
"""The face of anything that is not a :class:`CitegraphError` (its message is masked)."""


def face_of(error: BaseException) -> ErrorFace:
    """The face of ``error``: the first table row whose class it is an instance of; anything that
    is not a :class:`CitegraphError` is internal (500 / ``INTERNAL`` / exit 70) and its message is
    masked by the faces."""
    for cls, face in ERROR_FACES:
        if isinstance(error, cls):
            return face
    return INTERNAL_FACE


_PARTIAL = ("To ingest a set copied in part, its members present, each absent one recorded as a "
            "manifest-missing-member finding: --partial (?partial=true, partial: true).")


def _refused(error: CitegraphError) -> str:
    """A refused input's hint: its first problem's own; that nothing was ingested; how to ingest
    the rest when sets no problem refuses are left (``data["rest"]`` members), and a set copied
    in part when a pinned member is absent."""
    skip = ("Nothing was ingested; skip invalid files to ingest the rest (--skip-invalid, ?skip_invalid=true, "
            "skipInvalid: true)." if error.data.get("rest") else "Nothing was ingested.")
    return " ".join(filter(None, [error.hint, skip, _PARTIAL if error.data.get("gap") else None]))


def _then(tail: str, sep: str = "; "):
    return lambda error: f"{error.hint}{sep}{tail}" if error.hint else tail


_ADVICE: dict[str, Callable[[CitegraphError], str]] = {
    # lower layers name the condition (``code``, ``data``); the words of the faces' input are here
    "ambiguous-set": lambda e: "pass --set with the one whose source the repository holds",
    "ambiguous-source": lambda e: "pass --source with the one the repository holds",
    "no-pinned-revision": lambda e: "pass --from REV",
    "pinned-revision-missing": lambda e: f"fetch it (git fetch origin {e.data['pinned']}), or pass --from REV",
    "not-top-level": lambda e: f"pass --repo {e.data['top']}" if e.data.get("top") else "pass the work tree's top folder",
    "unknown-suspect": lambda e: "use a node id as citegraph impact prints it, e.g. tolaria/synthesis#L29",
    "revision-not-full": lambda e: "give the 40-hex commit id, or --repo PATH to resolve it",
    "version-without-set": lambda e: "a version belongs to one set: give the set (--set / set=) with it",
    "unknown-version": lambda e: "citegraph history SET lists the versions kept",
    "no-earlier-version": lambda e: "give both versions: --from N --to M",
    "unknown-system": _then("citegraph stats lists the sets"),
    "other-system": lambda e: "citegraph runs SYSTEM lists the runs of one system",
    "unknown-set": lambda e: f"{e.hint} ({'citegraph sets lists them' if e.data.get('sets') else 'citegraph ingest PATH adds some'})",
    "unknown-record": _then("citegraph records TEXT finds records"),
    "unknown-document": _then("citegraph documents lists them"),
    "input-refused": _refused,
}


def hint_of(error: CitegraphError) -> str | None:
    """The hint every face shows with ``error``: its own, completed by the advice its ``code``
    names in the words of the faces' input (options, parameters, commands), which lower layers
    never spell.

    >>> from graph.errors import AmbiguousScope
    >>> hint_of(AmbiguousScope("which set?", code="ambiguous-set"))
    'pass --set with the one whose source the repository holds'
    >>> hint_of(CitegraphError("plain", hint="as given"))
    'as given'
    """
    advice = _ADVICE.get(error.code or "")
    return advice(error) if advice is not None else error.hint


@overload
def for_clients(text: str, home) -> str: ...


@overload
def for_clients(text: None, home) -> None: ...


def for_clients(text: str | None, home) -> str | None:
    """``text`` (an error's message or hint) as a client of the server may read it: the embedded
    store's folder ``home`` (as configured and resolved), which the CLI names, is written ``the
    store's folder``, so no answer reveals where the store lives on the server.

    >>> from pathlib import Path
    >>> for_clients("cannot read the embedded store /srv/cg/citegraph.sqlite: damaged", Path("/srv/cg"))
    "cannot read the embedded store the store's folder/citegraph.sqlite: damaged"
    """
    if not text or home is None:
        return text
    from pathlib import Path

    spellings = {str(Path(home).resolve()), str(Path(home).absolute())}
    if "/" in str(home):
        spellings.add(str(home).rstrip("/"))
    for spelling in sorted(spellings, key=len, reverse=True):
        if spelling and spelling != "/":
            text = text.replace(spelling, "the store's folder")
    return text
