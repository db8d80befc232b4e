"""Where commands write their outputs (``render -o``, ``export --out`` and its CSV tables): never
over a file of the store in use, and never half-written.

One helper for every output: :func:`write_output` refuses a path that is, or would replace, one
of the store's files (its database, ``-wal``, ``-shm``, ``-journal``), compared after resolving
links and relative spelling and by file identity (a hard link), then writes to a temporary file
in the same folder and renames it over the target, so a failed write leaves the old file as it
was.
"""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Iterable

from app.settings import Settings
from graph.errors import OutputRefused
import contextlib

__all__ = ["protected_files", "check_output", "write_output"]


def protected_files(settings: Settings) -> tuple[Path, ...]:
    """The files of the store ``settings`` select that no output may replace: the embedded store's
    (:func:`graph.stores.embedded_files`); none for Neo4j, whose files are on its server."""
    if settings.store == "neo4j":
        return ()
    from graph.stores import embedded_files

    return embedded_files(settings.home)


def check_output(path: Path, protected: Iterable[Path]) -> Path:
    """``path`` resolved (links followed), when writing it replaces none of ``protected``.

    Raises
    ------
    OutputRefused
        ``path`` resolves to one of the files, or is the same file as one (a hard link, another
        mount of the folder); the message names both.
    """
    target = Path(os.path.realpath(path))
    for file in protected:
        real = Path(os.path.realpath(file))
        same = target == real
        if not same and target.exists() and real.exists():
            try:
                same = os.path.samefile(target, real)
            except OSError:
                same = False
        if same:
            raise OutputRefused(f"refusing to write {path}: it is {real}, a file of the store in use",
                                hint="write the output elsewhere; copy the store with SQLite's online backup")
    return target


def write_output(path: Path, data: bytes, protected: Iterable[Path]) -> None:
    """Write ``data`` to ``path`` (:func:`check_output` first): into a temporary file in the same
    folder, flushed to disk, then renamed over ``path`` (the file a link names, when ``path`` is
    one), keeping the mode of a file it replaces. A failure leaves any old file whole and no
    temporary file behind.

    Raises
    ------
    OutputRefused
        See :func:`check_output`.
    OSError
        The folder cannot be written (the CLI's exit 74).
    """
    import tempfile  # here: a command printing to standard output imports none

    target = check_output(path, protected)
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:  # named by the output, not by the temporary file's name
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(temporary, os.stat(target).st_mode & 0o7777)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except OSError as exc:
        _discard(temporary)
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        _discard(temporary)
        raise


def _discard(temporary: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)
