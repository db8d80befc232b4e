"""Safe reading of uploads: the relative paths uploaded files are named by, and zip archives (no
path traversal, no zip bombs, nothing written to disk)."""

from __future__ import annotations

import io
import lzma
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from graph.errors import IngestError, SourceSpan
from ingest.sets import MAX_MEMBER_BYTES

__all__ = ["ArchiveLimits", "read_zip", "upload_path"]

_DAMAGED = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError,
            ValueError, OverflowError, OSError, struct.error)
"""What :mod:`zipfile` raises on a damaged archive: a bad CRC or header (``BadZipFile``), corrupt
deflate or LZMA data, truncated data (``EOFError``), an unknown compression method or version
(``NotImplementedError``), an entry flagged encrypted (``RuntimeError``), offsets that point before
the start (``ValueError``) …"""


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """Bounds on an uploaded archive: ``max_files`` entries, ``max_total_bytes`` uncompressed
    bytes in all, ``max_member_bytes`` per entry, ``max_ratio`` uncompressed/compressed per entry."""

    max_files: int = 200
    max_total_bytes: int = 64 * 1024 * 1024
    max_member_bytes: int = MAX_MEMBER_BYTES
    max_ratio: float = 200.0


def upload_path(name: str, source: str, *, where: str = "the upload") -> str:
    r"""The relative path an uploaded file or zip entry is named by (``\`` read as ``/``, ``.``
    parts dropped), so a folder sent keeps its layout (``trials/AGS-2026-08-20-SWAMP-01/result.md``
    is a G0 prototype, GRAMMAR §0) and two ``result.md`` of different folders stay apart.

    Raises
    ------
    IngestError
        At ``source``: ``name`` is empty, absolute, has a ``..`` part or starts with a drive
        (``C:``), so it could name a place outside the upload.

    >>> upload_path("trials\\AGS-2026-08-20-SWAMP-01/./result.md", "request")
    'trials/AGS-2026-08-20-SWAMP-01/result.md'
    >>> upload_path("../result.md", "request")
    Traceback (most recent call last):
    graph.errors.IngestError: request:1: unsafe path '../result.md' in the upload
    """
    path = PurePosixPath(name.replace("\\", "/"))
    parts = path.parts
    if not parts or path.is_absolute() or ".." in parts or ":" in parts[0]:
        raise IngestError(f"unsafe path {name!r} in {where}", source=SourceSpan(source, 1),
                          hint=f"name each file of {where} by a relative path inside it")
    return str(path)


def read_zip(data: bytes, *, name: str = "upload.zip", limits: ArchiveLimits = ArchiveLimits()) -> list[tuple[str, bytes]]:
    """The regular files of a zip archive as ``(relative path, bytes)`` pairs, sorted by path.

    Directories are skipped, as are macOS ``__MACOSX/`` resource forks. Entries are read with a
    hard cap, so a lying header cannot make it read more than the limits.

    Raises
    ------
    IngestError
        Not a zip archive, or a damaged one (a bad CRC, corrupt compressed data, a broken header:
        the message names the entry); an absolute, ``..`` or drive path; a symbolic link; more
        entries or more uncompressed bytes than ``limits`` allow; an entry compressed more than
        ``max_ratio``.

    Examples
    --------
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("set/overview.md", "hello")
    >>> read_zip(buf.getvalue())
    [('set/overview.md', b'hello')]
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _DAMAGED as exc:
        raise IngestError(f"not a zip archive: {str(exc) or type(exc).__name__}", source=SourceSpan(name, 1)) from None
    entries = [i for i in archive.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
    if len(entries) > limits.max_files:
        raise IngestError(f"archive has {len(entries)} files, over the limit of {limits.max_files}",
                          source=SourceSpan(name, 1))
    out: list[tuple[str, bytes]] = []
    total = 0
    for info in entries:
        path = upload_path(info.filename, name, where="archive")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise IngestError(f"symbolic link {info.filename!r} in archive", source=SourceSpan(name, 1))
        if info.file_size > limits.max_member_bytes or (
            info.compress_size and info.file_size / info.compress_size > limits.max_ratio
        ):
            raise IngestError(f"entry {info.filename!r} expands too much ({info.file_size} bytes)",
                              source=SourceSpan(name, 1), hint="is this a zip bomb?")
        try:
            with archive.open(info) as fh:
                content = fh.read(limits.max_member_bytes + 1)
        except _DAMAGED as exc:
            raise IngestError(f"entry {info.filename!r} of the archive is damaged: {str(exc) or type(exc).__name__}",
                              source=SourceSpan(name, 1), hint="the archive was changed or cut short on its way; "
                              "make it again") from None
        total += len(content)
        if len(content) > limits.max_member_bytes or total > limits.max_total_bytes:
            raise IngestError(f"archive expands past {limits.max_total_bytes} bytes", source=SourceSpan(name, 1),
                              hint="is this a zip bomb?")
        out.append((path, content))
    return sorted(out)
