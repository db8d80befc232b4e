"""Store backends: the embedded store (:func:`open_embedded`) and Neo4j (:mod:`graph.stores.neo4j`)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["open_embedded"]


def open_embedded(home: Path | None):
    """The embedded store kept in folder ``home`` (``None``: in memory only, for tests and doctests).

    The one place that knows the embedded store's class and file name; the CLI, the app's wiring
    and the benchmarks all open it through here.

    Raises
    ------
    StoreUnavailable
        The store file exists but is not a readable citegraph store.
    """
    from graph.stores.memory import MemoryStore

    return MemoryStore(None if home is None else Path(home) / "graph.json.gz")
