"""Store backends: the embedded store (:func:`open_embedded`, SQLite) and Neo4j (:mod:`graph.stores.neo4j`)."""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

    from graph.stores.sqlite import SQLiteStore

__all__ = ["open_embedded", "embedded_files", "store_log"]


def store_log() -> logging.Logger:
    """The ``citegraph`` logger, on which the stores warn (a conversion, a wait for another
    writer); :mod:`logging` is imported when there is something to say, so a read imports none."""
    import logging

    return logging.getLogger("citegraph")


def embedded_files(home: Path) -> tuple[Path, ...]:
    """The files of the embedded store kept in folder ``home``: its database and the ``-wal``,
    ``-shm`` and ``-journal`` files SQLite keeps beside it (which may not exist at the moment).

    >>> [p.name for p in embedded_files(Path("h"))]
    ['citegraph.sqlite', 'citegraph.sqlite-wal', 'citegraph.sqlite-shm', 'citegraph.sqlite-journal']
    """
    from graph.stores.sqlite import STORE_FILE

    database = Path(home) / STORE_FILE
    return (database, *(database.with_name(database.name + tail) for tail in ("-wal", "-shm", "-journal")))


def open_embedded(home: Path | None, *, versions_kept: int | None = None) -> SQLiteStore:
    """The embedded store kept in folder ``home`` (``None``: in memory only, for tests and doctests),
    keeping ``versions_kept`` versions of each set (default :data:`graph.store.VERSIONS_KEPT`).

    The one place that knows the embedded store's class and file name
    (:data:`graph.stores.sqlite.STORE_FILE`); the CLI, the app's wiring and the benchmarks all open
    it through here. A home that holds only the former store file (``graph.json.gz``, format 1) is
    converted first, under a lock so that one process converts and the others wait for it; the
    former file is left in place, untouched.

    Raises
    ------
    StoreUnavailable
        The store file exists but is not a readable citegraph store, or the former file cannot be
        converted; the message names the file, and nothing is overwritten.
    """
    from graph.stores.legacy import LEGACY_FILE
    from graph.errors import StoreUnavailable
    from graph.store import VERSIONS_KEPT
    from graph.stores.sqlite import STORE_FILE, SQLiteStore, migrate_legacy

    kept = VERSIONS_KEPT if versions_kept is None else versions_kept
    if home is None:
        return SQLiteStore(None, versions_kept=kept)
    home = Path(home)
    target, legacy = home / STORE_FILE, home / LEGACY_FILE
    if legacy.is_file() and _absent(target):
        try:
            lock = open(home / ".convert.lock", "a")  # noqa: SIM115 - opened apart: only its OSError names the folder
        except OSError as exc:
            raise StoreUnavailable(f"cannot convert the embedded store {legacy} to {target}: {exc.strerror}",
                                   hint="run citegraph once as a user who may write that folder") from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _absent(target):
                for stale in home.glob(f".{STORE_FILE}.converting-*"):  # left by a converter that was killed
                    stale.unlink(missing_ok=True)
                counts = migrate_legacy(legacy, target)
                store_log().warning("converted the embedded store %s to %s (%d nodes, %d edges); the old file is "
                            "left as it was and may be removed", legacy, target, counts["nodes"], counts["edges"])
    return SQLiteStore(target, versions_kept=kept)


def _absent(target: Path) -> bool:
    """No store at ``target`` yet (an empty file is none: SQLite makes one before its first page)."""
    return not target.exists() or target.stat().st_size == 0
