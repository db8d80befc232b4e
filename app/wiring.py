"""Settings → objects: the only place that opens stores."""

from __future__ import annotations

from pathlib import Path

from graph.errors import AccessDenied, SourceRepositoryError
from graph.store import GraphStore
from graph.stores import open_embedded

from app.settings import Settings

__all__ = ["open_store", "store_location", "allowed_repository"]


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
        )
    return open_embedded(settings.home)


def store_location(store: GraphStore) -> str:
    """Which store ``store`` is, for people: ``embedded store in /abs/home`` (``in memory`` for a
    throw-away one) or ``Neo4j at bolt://host:7687, database neo4j`` (the URI without credentials).

    >>> from graph.stores import open_embedded
    >>> store_location(open_embedded(None))
    'embedded store in memory'
    """
    path = getattr(store, "path", None)
    if hasattr(store, "driver"):
        uri = _without_credentials(getattr(store, "uri", None) or "(URI unknown)")
        return f"Neo4j at {uri}, database {getattr(store, 'database', 'neo4j')}"
    if path is None:
        return "embedded store in memory"
    return f"embedded store in {Path(path).resolve().parent}"


def _without_credentials(uri: str) -> str:
    """``uri`` with any ``user:password@`` taken out.

    >>> _without_credentials("neo4j+s://ada:secret@db.example.org:7687")
    'neo4j+s://db.example.org:7687'
    """
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return uri
    netloc, slash, tail = rest.partition("/")
    return f"{scheme}://{netloc.rpartition('@')[2]}{slash}{tail}"


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
