"""Settings → objects: the only place that opens stores."""

from __future__ import annotations

from pathlib import Path

from graph.errors import AccessDenied, SourceRepositoryError
from graph.store import GraphStore
from graph.stores import open_embedded

from app.settings import Settings

__all__ = ["open_store", "allowed_repository"]


def open_store(settings: Settings) -> GraphStore:
    """The store the settings select: the embedded store in ``settings.home``, or Neo4j.

    Raises
    ------
    StoreUnavailable
        The embedded store's file is not a readable citegraph store, or Neo4j does not answer.
    """
    if settings.store == "neo4j":
        from graph.stores.neo4j import Neo4jStore  # imported lazily: the driver is only needed here

        return Neo4jStore.connect(
            settings.neo4j_uri or "",
            user=settings.neo4j_user,
            password=settings.neo4j_password.get_secret_value(),
            database=settings.neo4j_database,
            versions_kept=settings.versions_kept,
        )
    return open_embedded(settings.home, versions_kept=settings.versions_kept)


def allowed_repository(settings: Settings, path: str) -> Path:
    """``path`` resolved, when it lies under one of ``settings.repo_roots`` (HTTP faces only).

    Raises
    ------
    AccessDenied
        No roots are configured, or ``path`` (after resolving ``..`` and links) is outside them.
    SourceRepositoryError
        ``path`` holds a NUL character (no file name does).
    """
    if "\0" in path:  # no file name holds one; Path.resolve would raise ValueError
        raise SourceRepositoryError(f"repository path {path!r} holds a NUL character")
    resolved = Path(path).resolve()
    roots = [Path(r).resolve() for r in settings.repo_roots]
    if not roots:
        raise AccessDenied("impact over HTTP is disabled", hint="set CITEGRAPH_REPO_ROOTS to the folders "
                           "that hold the analysed repositories, e.g. '[\"/srv/repos\"]'")
    if not any(resolved == root or root in resolved.parents for root in roots):
        raise AccessDenied(f"repository {path} is outside the allowed roots",
                           hint="CITEGRAPH_REPO_ROOTS lists the folders impact may open")
    return resolved
