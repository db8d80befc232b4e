"""Push hooks: verifying and reading the push deliveries of GitHub, GitLab and Gitea, finding the
pushed repository's clone, and the log of impact runs (``POST /hooks/push``, ``GET /impact-runs``).

Signatures, as each host documents them (the shared secret is ``CITEGRAPH_HOOK_SECRET``):

- **GitHub**: ``X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>``; event ``X-GitHub-Event``,
  delivery ``X-GitHub-Delivery``.
- **Gitea** (and Forgejo): ``X-Gitea-Signature: <hex HMAC-SHA256(secret, body)>``; event
  ``X-Gitea-Event``, delivery ``X-Gitea-Delivery``. Gitea also sends GitHub's headers; its own decide.
- **GitLab**: no HMAC; ``X-Gitlab-Token`` carries the secret itself, compared in constant time;
  event ``X-Gitlab-Event`` (``Push Hook``), delivery ``X-Gitlab-Event-UUID``.

A delivery without a delivery id is identified by the SHA-256 of its body, so a replay of it is
still the same run. The run log is one SQLite file (``impact-runs.sqlite3`` in ``CITEGRAPH_HOME``),
whatever the graph store: a delivery id is unique there, so a replay never makes a second run.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, UTC
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from graph.errors import AccessDenied, InvalidQuery, SourceRepositoryError, Unauthenticated
from queries.impact import ImpactRun, RepositoryImpact, pins
from queries.shapes import plain, revived

__all__ = ["Push", "read_push", "find_clone", "RunLog", "RUN_LOG_NAME", "run_log", "latest_runs"]

RUN_LOG_NAME = "impact-runs.sqlite3"
"""File name of the run log in ``CITEGRAPH_HOME``."""


@dataclass(frozen=True, slots=True)
class Push:
    """What a push delivery says: ``host``, ``event`` (None: not a push), ``delivery`` id,
    ``repository`` (``owner/name``), ``urls`` naming it (clone, SSH and web URLs), ``ref``, ``after``."""

    host: str
    event: str | None
    delivery: str
    repository: str
    urls: tuple[str, ...]
    ref: str | None
    after: str | None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name) or headers.get(name.lower())
    return value.strip() if value else None


def _signed(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def read_push(headers: Mapping[str, str], body: bytes, *, secret: str | None) -> Push:
    """The push ``body`` describes, after checking its signature against ``secret``.

    Raises
    ------
    AccessDenied
        ``secret`` is None: hooks are off (403, code ``hooks-disabled``).
    Unauthenticated
        The signature or token is missing or wrong (401, code ``bad-signature``).
    InvalidQuery
        The host is none of GitHub, GitLab, Gitea, or the body is no JSON object naming a repository (422).
    """
    if secret is None:
        raise AccessDenied("push hooks are off", code="hooks-disabled",
                           hint="set CITEGRAPH_HOOK_SECRET to the secret the git host signs deliveries with")
    if _header(headers, "X-Gitea-Event"):
        host, event, delivery = "gitea", _header(headers, "X-Gitea-Event"), _header(headers, "X-Gitea-Delivery")
        given = _header(headers, "X-Gitea-Signature")
        good = given is not None and hmac.compare_digest(given.lower(), _signed(secret, body))
    elif _header(headers, "X-Gitlab-Event"):
        host, event, delivery = "gitlab", _header(headers, "X-Gitlab-Event"), _header(headers, "X-Gitlab-Event-UUID")
        given = _header(headers, "X-Gitlab-Token")
        good = given is not None and hmac.compare_digest(given.encode("utf-8"), secret.encode("utf-8"))
    elif _header(headers, "X-GitHub-Event"):
        host, event, delivery = "github", _header(headers, "X-GitHub-Event"), _header(headers, "X-GitHub-Delivery")
        given = _header(headers, "X-Hub-Signature-256")
        good = given is not None and hmac.compare_digest(given.lower(), "sha256=" + _signed(secret, body))
    else:
        raise InvalidQuery("not a push delivery of GitHub, GitLab or Gitea (no X-GitHub-Event, X-Gitlab-Event "
                             "or X-Gitea-Event header)", code="unknown-host")
    if not good:
        what = "token" if host == "gitlab" else "signature"
        raise Unauthenticated(f"the {host} delivery's {what} is {'wrong' if given else 'missing'}",
                              code="bad-signature", hint="the hook's secret must equal CITEGRAPH_HOOK_SECRET")
    delivery = delivery or "sha256:" + hashlib.sha256(body).hexdigest()
    if (event or "").lower() not in ("push", "push hook"):  # a ping, a tag or issue event: nothing to run
        return Push(host=host, event=None, delivery=delivery, repository="", urls=(), ref=None, after=None)
    try:
        payload = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidQuery(f"the {host} delivery's body is not JSON: {exc}", code="bad-payload") from None
    if not isinstance(payload, dict):
        raise InvalidQuery(f"the {host} delivery's body is not a JSON object", code="bad-payload")
    repo = payload.get("project" if host == "gitlab" else "repository")
    if not isinstance(repo, dict):
        raise InvalidQuery(f"the {host} delivery names no repository", code="bad-payload")
    keys = (("path_with_namespace", "git_http_url", "git_ssh_url", "web_url", "http_url", "ssh_url") if host == "gitlab"
            else ("full_name", "clone_url", "ssh_url", "html_url", "git_url"))
    urls = tuple(dict.fromkeys(str(repo[k]) for k in keys if isinstance(repo.get(k), str) and repo[k]))
    if not urls:
        raise InvalidQuery(f"the {host} delivery's repository has no name or URL", code="bad-payload")
    return Push(host=host, event=event, delivery=delivery,
                repository=str(repo.get("path_with_namespace") or repo.get("full_name") or urls[0]), urls=urls,
                ref=payload.get("ref") if isinstance(payload.get("ref"), str) else None,
                after=payload.get("after") if isinstance(payload.get("after"), str) else None)


def find_clone(settings: Any, push: Push) -> tuple[Any, list[str]] | None:
    """(GitRepository, its names) of the first clone under ``settings.repo_roots`` (a root itself, or a
    folder right inside one, sorted) that is the pushed repository (:func:`queries.impact.pins` of
    the payload's URLs against the clone's names); None when no clone is."""
    from app.wiring import repository_names
    from ingest.git import GitRepository

    for root in settings.repo_roots:
        root = Path(root)
        try:
            folders = [root, *sorted(p for p in root.iterdir() if p.is_dir())]
        except OSError:
            continue
        for folder in folders:
            if not (folder / ".git").exists() and not (folder / "HEAD").is_file():
                continue
            try:
                repo = GitRepository(folder)
            except SourceRepositoryError:
                continue
            names = repository_names(settings, repo)
            if any(pins(url, names) for url in push.urls):
                return repo, names
    return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


_COLUMNS = ("id", "delivery", "host", "repository", "ref", "after", "clone", "state", "error", "received_at",
            "finished_at", "result")


class RunLog:
    """The impact runs, in one SQLite file at ``path``; each call opens its own connection (any thread)."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def _create(self) -> None:
        """Make the file and its table (the first delivery does; reads of a missing log find no run)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY AUTOINCREMENT, delivery TEXT NOT NULL "
                       "UNIQUE, host TEXT, repository TEXT, ref TEXT, after TEXT, clone TEXT, state TEXT, error TEXT, "
                       "received_at TEXT, finished_at TEXT, result TEXT)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def claim(self, push: Push, clone: str | None) -> tuple[ImpactRun, bool]:
        """The run of ``push``'s delivery: (a new ``queued`` run, True), or (the one already stored, False)."""
        self._create()
        with closing(self._connect()) as db, db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO runs (delivery, host, repository, ref, after, clone, state, received_at) "
                "VALUES (?, ?, ?, ?, ?, ?, 'queued', ?)",
                (push.delivery, push.host, push.repository, push.ref, push.after, clone, _now()))
            created = cursor.rowcount == 1
            row = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM runs WHERE delivery = ?", (push.delivery,)).fetchone()
        return _run(row), created

    def update(self, run_id: str, *, state: str, result: RepositoryImpact | None = None,
               error: str | None = None) -> None:
        """Set a run's ``state`` (and, when finished, its ``result`` or ``error`` and ``finished_at``)."""
        finished = _now() if state in ("done", "failed") else None
        with closing(self._connect()) as db, db:
            db.execute("UPDATE runs SET state = ?, error = ?, finished_at = ?, result = ? WHERE id = ?",
                       (state, error, finished, json.dumps(plain(result)) if result is not None else None,
                        int(run_id)))

    def get(self, run_id: str) -> ImpactRun | None:
        """The run ``run_id``, None when there is none."""
        if not run_id.isdigit() or not self.path.exists():
            return None
        with closing(self._connect()) as db:
            row = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM runs WHERE id = ?", (int(run_id),)).fetchone()
        return _run(row) if row else None

    def runs(self, *, repository: str | None = None, limit: int = 50) -> list[ImpactRun]:
        """Runs, newest first (at most ``limit``), of one ``repository`` (``owner/name``) when given."""
        if not self.path.exists():
            return []
        where, args = ("WHERE lower(repository) = lower(?)", (repository,)) if repository else ("", ())
        with closing(self._connect()) as db:
            rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM runs {where} ORDER BY id DESC LIMIT ?",
                              (*args, limit)).fetchall()
        return [_run(r) for r in rows]


def latest_runs(log: RunLog) -> list[ImpactRun]:
    """The latest run of each repository (by ``repository``, case-insensitive), sorted by repository."""
    if not log.path.exists():
        return []
    with closing(log._connect()) as db:
        rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM runs WHERE id IN (SELECT max(id) FROM runs "
                          "GROUP BY lower(repository)) ORDER BY lower(repository)").fetchall()
    return [_run(r) for r in rows]


def run_log(settings: Any) -> RunLog:
    """The run log of ``settings`` (:data:`RUN_LOG_NAME` in ``CITEGRAPH_HOME``)."""
    return RunLog(Path(settings.home) / RUN_LOG_NAME)


def _run(row: tuple) -> ImpactRun:
    values = dict(zip(_COLUMNS, row))
    result = values.pop("result")
    return ImpactRun(**{**values, "id": str(values["id"])},
                     result=revived(RepositoryImpact, json.loads(result)) if result else None)
