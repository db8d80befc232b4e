"""All configuration, read from ``CITEGRAPH_*`` environment variables (and ``.env``)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

__all__ = ["Settings", "get_settings"]

_ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)(:\d{1,5})?")
"""An origin as CSP ``frame-ancestors`` and CORS both take it: nothing that could end a directive."""


class Settings(BaseSettings):
    """citegraph settings.

    ``store``: ``memory`` (embedded, default) or ``neo4j``. ``home``: folder of the embedded store
    (``CITEGRAPH_HOME``, default ``./.citegraph``). ``neo4j_uri``/``neo4j_user``/``neo4j_password``/
    ``neo4j_database``: the Neo4j server (``CITEGRAPH_NEO4J_URI`` …); setting the URI selects Neo4j
    unless ``CITEGRAPH_STORE`` says otherwise. ``max_depth``: default traversal limit in evidence
    steps (None = unlimited). ``write_token``/``read_token``: bearer tokens for HTTP writes/reads.
    ``embed_origins``: origins allowed to frame embeddable views and call the API cross-origin
    (``CITEGRAPH_EMBED_ORIGINS``, comma-separated or a JSON list of ``scheme://host[:port]``; empty
    denies both).
    ``max_body_bytes``: request body limit. ``repo_roots``: folders under which ``POST /impact``
    and the GraphQL ``impact`` field may open git repositories (``CITEGRAPH_REPO_ROOTS``, a JSON
    list); empty means impact over HTTP is refused (the CLI is not restricted).
    ``ingest_workers``: processes that parse members when the CLI reads many files
    (``CITEGRAPH_INGEST_WORKERS``; unset = one per available CPU, 1 = no parser processes).
    """

    model_config = SettingsConfigDict(env_prefix="CITEGRAPH_", env_file=".env", extra="ignore")

    store: Literal["memory", "neo4j"] | None = None
    home: Path = Path(".citegraph")
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("")
    neo4j_database: str = "neo4j"
    max_depth: int | None = Field(None, ge=1, le=16)
    write_token: SecretStr | None = None
    read_token: SecretStr | None = None
    embed_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_body_bytes: int = Field(16 * 1024 * 1024, ge=1024)
    repo_roots: list[Path] = Field(default_factory=list)
    ingest_workers: int | None = Field(None, ge=1)

    @field_validator("embed_origins", mode="before")
    @classmethod
    def _parse_origins(cls, value):
        """A comma/space-separated string or a JSON list; each an origin, normalised (no trailing
        slash, lower case), anything else refused."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                value = json.loads(text)
            else:
                value = [part for part in re.split(r"[,\s]+", text) if part]
        out = []
        for origin in value or []:
            origin = str(origin).strip().rstrip("/")
            if not _ORIGIN.fullmatch(origin):
                raise ValueError(f"{origin!r} is not an origin: use scheme://host[:port], e.g. https://dash.example.org")
            out.append(origin.lower())
        return out

    @model_validator(mode="after")
    def _choose_store(self) -> "Settings":
        if self.store is None:
            self.store = "neo4j" if self.neo4j_uri else "memory"
        if self.store == "neo4j" and not self.neo4j_uri:
            raise ValueError("CITEGRAPH_STORE=neo4j needs CITEGRAPH_NEO4J_URI")
        return self

    def depth(self, asked: int | None) -> int | None:
        """The traversal limit for a request: ``asked`` when given (even 0, which the query then
        refuses), else the configured default ``max_depth``."""
        return self.max_depth if asked is None else asked



@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
