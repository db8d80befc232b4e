"""All configuration, read from ``CITEGRAPH_*`` environment variables (and ``.env``).

Plain Python over :mod:`os.environ` and python-dotenv, not a validation framework: every CLI
command reads these settings, and importing pydantic-settings cost a command about 0.25 s of its
start-up (``bench/README.md``), more than a one-set query takes.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any
from collections.abc import Callable, Mapping

from graph.errors import SettingsInvalid

__all__ = ["Secret", "Settings", "get_settings"]

PREFIX = "CITEGRAPH_"

_ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)(:\d{1,5})?")
"""An origin as CSP ``frame-ancestors`` and CORS both take it: nothing that could end a directive."""


class Secret:
    """A password or token that never shows in a ``repr`` or a log line; read it with
    :meth:`get_secret_value`."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')" if self._value else "Secret('')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


# -- one parser per kind of value: (raw value from the environment or a keyword) -> value ---------


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be text")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None or value == "" else _text(value)


def _secret(value: Any) -> Secret:
    return value if isinstance(value, Secret) else Secret(_text(value))


def _optional_secret(value: Any) -> Secret | None:
    return None if value is None or value == "" else _secret(value)


_B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")
"""RFC 6750 §2.1 ``b64token`` (the characters of RFC 7235 §2.1 ``token68``): all a bearer token
sent in an ``Authorization`` header can be."""


def _seconds(value: Any) -> float:
    """A positive number of seconds (``5``, ``2.5``)."""
    try:
        number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float(_text(value))
    except ValueError:
        raise ValueError("must be a number of seconds") from None
    if not number > 0 or number != number or number == float("inf"):
        raise ValueError("must be a number of seconds above 0")
    return number


def _bearer_secret(value: Any) -> Secret | None:
    """A bearer token: ``b64token`` characters only, since no ``Authorization: Bearer`` header
    can carry any other (RFC 6750 §2.1)."""
    secret = _optional_secret(value)
    if secret is not None and not _B64TOKEN.fullmatch(secret.get_secret_value()):
        raise ValueError("must be a bearer token of letters, digits and - . _ ~ + / (then = padding): RFC 6750 "
                         "§2.1 allows no other character in an Authorization header")
    return secret


def _path(value: Any) -> Path:
    if not isinstance(value, (str, os.PathLike)) or str(value) == "":
        raise ValueError("must be a folder path")
    return Path(value)


def _integer(low: int, high: int | None = None, *, optional: bool) -> Callable[[Any], int | None]:
    def parse(value: Any) -> int | None:
        if optional and (value is None or value == ""):
            return None
        try:
            number = value if isinstance(value, int) and not isinstance(value, bool) else int(_text(value).strip())
        except ValueError:
            raise ValueError("must be a whole number") from None
        if number < low or (high is not None and number > high):
            raise ValueError(f"must be at least {low}" + (f" and at most {high}" if high is not None else ""))
        return number

    return parse


STORE_ALIASES = {"memory": "embedded"}
"""Deprecated ``CITEGRAPH_STORE`` values still accepted, and the store each names (``memory`` was the
embedded store's first name; existing ``.env`` files keep working)."""


def _store(value: Any) -> str | None:
    if value is None or value == "":
        return None
    value = STORE_ALIASES.get(value, value)
    if value not in ("embedded", "neo4j"):
        raise ValueError("must be embedded or neo4j")
    return value


def _list(value: Any) -> list:
    """A JSON list, or a comma/space-separated string; a list as it is."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"is not a JSON list ({exc.msg})") from None
        else:
            value = [part for part in re.split(r"[,\s]+", text) if part]
    if not isinstance(value, (list, tuple)):
        raise ValueError("must be a list")
    return list(value)


def _origins(value: Any) -> list[str]:
    """Each an origin, normalised (no trailing slash, lower case); anything else refused."""
    out = []
    for origin in _list(value):
        origin = str(origin).strip().rstrip("/")
        if not _ORIGIN.fullmatch(origin):
            raise ValueError(f"{origin!r} is not an origin: use scheme://host[:port], e.g. https://dash.example.org")
        out.append(origin.lower())
    return out


def _roots(value: Any) -> list[Path]:
    """Absolute folder paths (a relative one would depend on where the server was started)."""
    roots = [_path(v) for v in _list(value)]
    relative = [str(r) for r in roots if not r.is_absolute()]
    if relative:
        raise ValueError(f"{relative[0]!r} is not an absolute folder path (a JSON list such as "
                         f"[\"/srv/repos\"], or absolute paths separated by commas)")
    return roots


def _flag(value: Any) -> bool:
    """``true``/``1``/``yes``/``on`` or ``false``/``0``/``no``/``off`` (any case), or a bool."""
    if isinstance(value, bool):
        return value
    text = _text(value).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise ValueError("must be true or false")


def _names(value: Any) -> dict[str, list[str]]:
    """A JSON object: a clone folder (absolute) or a repository name (URL, ``owner/name``) → the
    name, or list of names, the source registers use for it."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f"is not a JSON object ({exc.msg})") from None
    if not isinstance(value, dict):
        raise ValueError('must be a JSON object such as {"/srv/clones/tolaria": "refactoringhq/tolaria"}')
    out = {}
    for key, names in value.items():
        names = [names] if isinstance(names, str) else names
        if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
            raise ValueError(f"{key!r}: the value must be a name or a list of names")
        out[str(key)] = [n.strip() for n in names]
    return out


_FIELDS: dict[str, tuple[Callable[[Any], Any], Callable[[], Any]]] = {
    "store": (_store, lambda: None),
    "home": (_path, lambda: Path(".citegraph")),
    "neo4j_uri": (_optional_text, lambda: None),
    "neo4j_user": (_text, lambda: "neo4j"),
    "neo4j_password": (_secret, lambda: Secret("")),
    "neo4j_database": (_text, lambda: "neo4j"),
    "max_depth": (_integer(1, 16, optional=True), lambda: None),
    "write_token": (_bearer_secret, lambda: None),
    "read_token": (_bearer_secret, lambda: None),
    "embed_origins": (_origins, list),
    "max_body_bytes": (_integer(1024, optional=False), lambda: 16 * 1024 * 1024),
    "repo_roots": (_roots, list),
    "repo_names": (_names, dict),
    "hook_secret": (_optional_secret, lambda: None),
    "hook_fetch": (_flag, lambda: False),
    "ingest_workers": (_integer(1, optional=True), lambda: None),
    "versions_kept": (_integer(1, optional=False), lambda: 10),
    "graphql_timeout_s": (_seconds, lambda: 5.0),
}
"""Each setting: (parser of a raw value, default). The environment variable is ``CITEGRAPH_`` + the
name in upper case (matched in any case, as in ``.env``)."""


def _from_environment(environ: Mapping[str, str], env_file: Path | None) -> dict[str, str]:
    """The raw ``CITEGRAPH_*`` values by setting name: ``env_file`` first, the environment over it."""
    raw: dict[str, str] = {}
    sources: list[Mapping[str, str | None]] = []
    if env_file is not None and env_file.is_file():
        from dotenv import dotenv_values

        sources.append(dotenv_values(env_file))
    sources.append(environ)
    for source in sources:
        for key, value in source.items():
            name = key.lower().removeprefix(PREFIX.lower())
            if key.upper().startswith(PREFIX) and name in _FIELDS and value is not None:
                raw[name] = value
    return raw


class Settings:
    """citegraph settings: the environment (and ``.env`` in the working folder), then the keyword
    arguments over it.

    ``store``: ``embedded`` (default; ``memory``, its deprecated name, is read as it) or ``neo4j``. ``home``: folder of the embedded store
    (``CITEGRAPH_HOME``, default ``./.citegraph``). ``neo4j_uri``/``neo4j_user``/``neo4j_password``/
    ``neo4j_database``: the Neo4j server (``CITEGRAPH_NEO4J_URI`` …); setting the URI selects Neo4j
    unless ``CITEGRAPH_STORE`` says otherwise. ``max_depth``: default traversal limit in evidence
    steps, 1–16 (None = unlimited). ``write_token``/``read_token``: bearer tokens for HTTP
    writes/reads. ``embed_origins``: origins allowed to frame embeddable views and call the API
    cross-origin (``CITEGRAPH_EMBED_ORIGINS``, comma-separated or a JSON list of
    ``scheme://host[:port]``; empty denies both). ``max_body_bytes``: request body limit, at least
    1024. ``repo_roots``: folders under which ``POST /impact`` and the GraphQL ``impact`` field may
    open git repositories (``CITEGRAPH_REPO_ROOTS``, a JSON list); empty means impact over HTTP is
    refused (the CLI is not restricted). ``repo_names``: names a clone is known by besides its
    remotes' URLs, for matching source registers in ``impact`` without ``--set``
    (``CITEGRAPH_REPO_NAMES``, a JSON object: a clone folder or a remote's URL or ``owner/name`` →
    a name or list of names, e.g. ``{"/srv/clones/tolaria": "refactoringhq/tolaria"}``).
    ``hook_secret``: the shared secret of ``POST /hooks/push`` (``CITEGRAPH_HOOK_SECRET``; unset = push
    hooks off). ``hook_fetch``: fetch the pushed clone (``git fetch``) before its impact run
    (``CITEGRAPH_HOOK_FETCH``, default false: the clone is only read). ``ingest_workers``: processes that parse members when the
    CLI reads many files (``CITEGRAPH_INGEST_WORKERS``; unset = one per available CPU, 1 = no
    parser processes). ``versions_kept``: versions of each analysis set the store keeps
    (``CITEGRAPH_VERSIONS_KEPT``, at least 1, default 10 = :data:`graph.store.VERSIONS_KEPT`),
    the oldest dropped first. ``graphql_timeout_s``: time budget of one GraphQL request, in
    seconds (``CITEGRAPH_GRAPHQL_TIMEOUT_S``, default 5), after which it stops with ``LIMIT_EXCEEDED``.

    Raises :class:`~graph.errors.SettingsInvalid` naming the variable and what it must be.

    >>> s = Settings(environ={"CITEGRAPH_NEO4J_URI": "bolt://db:7687", "CITEGRAPH_MAX_DEPTH": "4"}, env_file=None)
    >>> (s.store, s.max_depth, s.home)
    ('neo4j', 4, PosixPath('.citegraph'))
    >>> Settings(environ={"CITEGRAPH_MAX_DEPTH": "0"}, env_file=None)
    Traceback (most recent call last):
    graph.errors.SettingsInvalid: CITEGRAPH_MAX_DEPTH='0': must be at least 1 and at most 16
    """

    store: str | None
    home: Path
    neo4j_uri: str | None
    neo4j_user: str
    neo4j_password: Secret
    neo4j_database: str
    max_depth: int | None
    write_token: Secret | None
    read_token: Secret | None
    embed_origins: list[str]
    max_body_bytes: int
    repo_roots: list[Path]
    repo_names: dict[str, list[str]]
    hook_secret: Secret | None
    hook_fetch: bool
    ingest_workers: int | None
    versions_kept: int
    graphql_timeout_s: float

    __slots__ = tuple(_FIELDS)

    def __init__(self, *, environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env"),
                 **values: Any):
        unknown = sorted(values.keys() - _FIELDS.keys())
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(unknown)}")
        raw = _from_environment(os.environ if environ is None else environ, env_file)
        for name, (parse, default) in _FIELDS.items():
            if name in values:
                object.__setattr__(self, name, _parsed(name, parse, values[name]))
            elif name in raw:
                object.__setattr__(self, name, _parsed(name, parse, raw[name]))
            else:
                object.__setattr__(self, name, default())
        self._choose_store()

    def _choose_store(self) -> None:
        if self.store is None:
            object.__setattr__(self, "store", "neo4j" if self.neo4j_uri else "embedded")
        if self.store == "neo4j" and not self.neo4j_uri:
            raise SettingsInvalid("CITEGRAPH_STORE=neo4j needs CITEGRAPH_NEO4J_URI",
                                  hint="set CITEGRAPH_NEO4J_URI=bolt://host:7687, or pass --neo4j URI")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Settings are read-only: use replace()")

    def replace(self, **update: Any) -> Settings:
        """A copy with ``update`` applied (parsed like the environment's values); the environment is
        not read again. ``store`` is chosen anew from the URI unless ``update`` gives it."""
        unknown = sorted(update.keys() - _FIELDS.keys())
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(unknown)}")
        copy = object.__new__(Settings)
        for name, (parse, _) in _FIELDS.items():
            value = _parsed(name, parse, update[name]) if name in update else getattr(self, name)
            object.__setattr__(copy, name, value)
        copy._choose_store()
        return copy

    def depth(self, asked: int | None) -> int | None:
        """The traversal limit for a request: ``asked`` when given (even 0, which the query then
        refuses), else the configured default ``max_depth``."""
        return self.max_depth if asked is None else asked

    def __repr__(self) -> str:
        return "Settings(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in _FIELDS) + ")"


def _parsed(name: str, parse: Callable[[Any], Any], value: Any) -> Any:
    try:
        return parse(value)
    except ValueError as exc:
        shown = "**********" if ("token" in name or "password" in name) else value
        raise SettingsInvalid(f"{PREFIX}{name.upper()}={shown!r}: {exc}") from None


@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
