"""Finding and reading member files: paths and folders → parsed members, all or nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graph.errors import CitegraphError, IngestError, ParseError, SourceSpan
from ingest.parsers import MEMBER_SUFFIXES, parse_member
from ingest.parsers.parsed import ParsedDocument

__all__ = ["MAX_MEMBER_BYTES", "ReadResult", "member_files", "read_members"]

MAX_MEMBER_BYTES = 8 * 1024 * 1024
"""Largest member accepted (bytes); real members are under 100 KiB."""


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Parsed members in input order, and the files refused with their errors."""

    parsed: list[ParsedDocument]
    errors: list[tuple[str, CitegraphError]]


def member_files(paths: list[Path]) -> list[Path]:
    """Files to read: each file as given, and every member-suffixed file under each folder
    (recursively, sorted, hidden entries skipped).

    Raises
    ------
    IngestError
        A path does not exist.
    """
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(sorted(
                p for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in MEMBER_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            ))
        elif path.is_file():
            out.append(path)
        else:
            raise IngestError(f"no such file or folder: {path}", source=SourceSpan(str(path), 1))
    return out


def read_members(paths: list[Path], *, skip_invalid: bool = False) -> ReadResult:
    """Read and parse every member under ``paths``.

    Raises
    ------
    ParseError
        The first refused file when ``skip_invalid`` is false; the message counts the others.
    """
    parsed, errors = [], []
    for path in member_files(paths):
        try:
            size = path.stat().st_size
            if size > MAX_MEMBER_BYTES:
                raise ParseError(f"file is {size} bytes, over the {MAX_MEMBER_BYTES}-byte member limit",
                                 source=SourceSpan(str(path), 1))
            parsed.append(parse_member(path.read_bytes(), str(path)))
        except CitegraphError as exc:
            errors.append((str(path), exc))
    if errors and not skip_invalid:
        path, first = errors[0]
        more = f" (and {len(errors) - 1} more refused files)" if len(errors) > 1 else ""
        raise type(first)(first.message + more, hint=(first.hint or "") + " Nothing was ingested; "
                          "pass --skip-invalid to ingest the valid files.", source=first.source)
    return ReadResult(parsed, errors)
