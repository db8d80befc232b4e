"""Settings → objects: the only place that opens stores."""

from __future__ import annotations

from graph.store import GraphStore
from graph.stores.memory import MemoryStore

from app.settings import Settings

__all__ = ["open_store"]


def open_store(settings: Settings) -> GraphStore:
    """The store the settings select: the embedded store at ``settings.store_file``, or Neo4j.

    Raises
    ------
    StoreUnavailable
        The embedded file is unreadable, or Neo4j does not answer.
    """
    if settings.store == "neo4j":
        from graph.stores.neo4j import Neo4jStore  # imported lazily: the driver is only needed here

        return Neo4jStore.connect(
            settings.neo4j_uri or "",
            user=settings.neo4j_user,
            password=settings.neo4j_password.get_secret_value(),
            database=settings.neo4j_database,
        )
    return MemoryStore(settings.store_file)
