"""Settings → objects: the only place that opens stores."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from graph.errors import AccessDenied, SourceRepositoryError
from graph.store import GraphStore
from graph.stores import open_embedded

from app.settings import Settings

if TYPE_CHECKING:
    from ingest.git import GitRepository

__all__ = ["open_store", "open_throwaway_store", "store_location", "store_place", "store_kind", "allowed_repository", "git_folders"]


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


def open_throwaway_store() -> GraphStore:
    """An embedded store in memory that keeps no versions, for checking files without ingesting
    them (``citegraph check PATHS``); it is gone when closed or dropped.

    >>> open_throwaway_store().counts()["Document"]
    0
    """
    return open_embedded(None, versions_kept=0)


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


def store_place(store: GraphStore) -> str:
    """:func:`store_location` as a phrase to follow ``in`` or begin a sentence: ``the embedded store
    in /abs/home``, but ``Neo4j at bolt://host:7687, database neo4j`` (a name takes no article).

    >>> from graph.stores import open_embedded
    >>> store_place(open_embedded(None))
    'the embedded store in memory'
    """
    where = store_location(store)
    return where if hasattr(store, "driver") else f"the {where}"


def empty_store_note(store: GraphStore) -> str | None:
    """What to tell a reader whose store holds nothing, ``None`` when it holds an analysis set.

    A command run from another folder opens ``./.citegraph`` there, which is absent or empty; this
    says so with the store's place and how to choose another (``--home``, ``CITEGRAPH_HOME``; for
    Neo4j ``--neo4j``, ``CITEGRAPH_NEO4J_URI``). One cheap count (:meth:`GraphStore.counts`).

    >>> from graph.stores import open_embedded
    >>> print(empty_store_note(open_embedded(None)))
    the embedded store in memory holds no analysis sets; ingest some with citegraph ingest PATHS
    """
    path = getattr(store, "path", None)
    if hasattr(store, "driver"):
        choose = "choose another server with --neo4j URI or CITEGRAPH_NEO4J_URI"
    else:
        choose = "choose another store with --home DIR or CITEGRAPH_HOME=DIR (default: ./.citegraph of the current folder)"
    if path is not None and not Path(path).exists():
        return (f"there is no store in {Path(path).resolve().parent} ({Path(path).name} is absent), so this answers "
                f"from an empty store; {choose}, or ingest into this one with citegraph ingest PATHS")
    if store.counts().get("AnalysisSet", 0):
        return None
    where = store_place(store)
    if path is None and not hasattr(store, "driver"):
        return f"{where} holds no analysis sets; ingest some with citegraph ingest PATHS"
    return f"{where} holds no analysis sets; {choose}, or ingest some with citegraph ingest PATHS"


def store_kind(store: GraphStore) -> str:
    """Which store ``store`` is, for a client of the server: its kind, never its folder or host
    (``embedded store``, ``Neo4j database neo4j``).

    >>> from graph.stores import open_embedded
    >>> store_kind(open_embedded(None))
    'embedded store'
    """
    if hasattr(store, "driver"):
        return f"Neo4j database {getattr(store, 'database', 'neo4j')}"
    return "embedded store"


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


def repository_names(settings: Settings, repo: GitRepository) -> list[str]:
    """What ``repo`` is known by, for :func:`queries.impact.impact_on_repository`: its remotes' URLs,
    plus the names ``settings.repo_names`` gives its folder or any of those URLs."""
    from queries.impact import repository_identity

    names = list(repo.remote_urls())
    known = {repository_identity(n) for n in names} - {None}
    folder = repo.path.resolve()
    for key, mapped in settings.repo_names.items():
        identity = repository_identity(key)
        if (identity is not None and identity in known) or (identity is None and Path(key).resolve() == folder):
            names.extend(mapped)
    return sorted(set(names))


def allowed_repository(settings: Settings, path: str) -> Path:
    """``path`` resolved, when it and every folder git would read the repository from lie under
    one of ``settings.repo_roots`` (HTTP faces only; see :func:`git_folders`).

    Raises
    ------
    AccessDenied
        No roots are configured, or ``path`` (after resolving ``..`` and links) is outside them, or
        the repository keeps its data outside them (a ``.git`` file's ``gitdir:``, a worktree's
        ``commondir``, an object store's ``alternates``).
    SourceRepositoryError
        ``path`` holds a NUL character (no file name does), a component over 255 bytes or is over
        4,095 (:func:`ingest.git.check_path_length`), or the OS refuses it (a loop of links).
    """
    from ingest.git import check_path_length

    if "\0" in path:  # no file name holds one; Path.resolve would raise ValueError
        raise SourceRepositoryError(f"repository path {path!r} holds a NUL character")
    roots = [Path(r).resolve() for r in settings.repo_roots]
    if not roots:
        raise AccessDenied("impact over HTTP is disabled", hint="set CITEGRAPH_REPO_ROOTS to the folders "
                           "that hold the analysed repositories, e.g. '[\"/srv/repos\"]'")
    check_path_length(path)
    try:
        resolved = Path(path).resolve()
        folders = git_folders(resolved)
    except OSError as exc:  # every OS error on a client's path is the client's: a 4xx naming it
        raise SourceRepositoryError(f"repository path {path}: {exc.strerror or exc}") from None
    if not _under(resolved, roots):
        raise AccessDenied(f"repository {path} is outside the allowed roots",
                           hint="CITEGRAPH_REPO_ROOTS lists the folders impact may open")
    for folder in folders:
        if not _under(folder, roots):
            raise AccessDenied(f"repository {path} keeps its git data in {folder}, outside the allowed roots",
                               hint="CITEGRAPH_REPO_ROOTS must hold the repository's git folder too")
    return resolved


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


MAX_ALTERNATES_DEPTH = 5
"""How deep git follows ``objects/info/alternates`` (git's own limit), and so :func:`git_folders`."""


def git_folders(top: Path) -> list[Path]:
    """Every folder git reads the repository at ``top`` from, resolved, in the order found: its git
    folder (``top/.git``; the folder a ``.git`` *file* names on its ``gitdir:`` line, as in a
    worktree or a submodule; ``top`` itself for a bare repository), the common folder a
    ``commondir`` file names (a worktree's main repository), and each object store listed in an
    ``objects/info/alternates`` file (followed :data:`MAX_ALTERNATES_DEPTH` deep). A pointer that
    cannot be read is skipped: git then cannot open the repository either.

    Examples
    --------
    >>> import tempfile
    >>> top = Path(tempfile.mkdtemp()).resolve()
    >>> _ = (top / ".git").write_text("gitdir: /srv/elsewhere/.git/worktrees/x\\n")
    >>> [str(p) for p in git_folders(top)]
    ['/srv/elsewhere/.git/worktrees/x']
    """
    dot = top / ".git"
    if dot.is_file():
        try:
            first = dot.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
        except OSError:
            return []
        if not first or not first[0].startswith("gitdir:"):
            return []
        git_dir = (top / first[0].removeprefix("gitdir:").strip()).resolve()
    else:
        git_dir = dot.resolve() if dot.exists() else top
    found = [git_dir]
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        common = ""
    if common:
        found.append((git_dir / common).resolve())
    stores = [folder / "objects" for folder in found]
    for _ in range(MAX_ALTERNATES_DEPTH):
        more = []
        for objects in stores:
            try:
                lines = (objects / "info" / "alternates").read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                if line.strip() and not line.startswith("#"):
                    alternate = (objects / line.strip().strip('"')).resolve()
                    if alternate not in found:
                        found.append(alternate)
                        more.append(alternate)
        stores = more
    return found
