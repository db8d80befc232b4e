"""All configuration, read from ``CITEGRAPH_*`` environment variables (and ``.env``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "get_settings"]


class Settings(BaseSettings):
    """citegraph settings.

    ``store``: ``memory`` (embedded, default) or ``neo4j``. ``home``: folder of the embedded store
    (``CITEGRAPH_HOME``, default ``./.citegraph``). ``neo4j_uri``/``neo4j_user``/``neo4j_password``/
    ``neo4j_database``: the Neo4j server (``CITEGRAPH_NEO4J_URI`` …); setting the URI selects Neo4j
    unless ``CITEGRAPH_STORE`` says otherwise. ``max_depth``: default traversal limit in evidence
    steps (None = unlimited). ``write_token``/``read_token``: bearer tokens for HTTP writes/reads.
    ``embed_origins``: origins allowed to frame embeddable views and call the API cross-origin.
    ``max_body_bytes``: request body limit.
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
    embed_origins: list[str] = Field(default_factory=list)
    max_body_bytes: int = Field(16 * 1024 * 1024, ge=1024)

    @model_validator(mode="after")
    def _choose_store(self) -> "Settings":
        if self.store is None:
            self.store = "neo4j" if self.neo4j_uri else "memory"
        if self.store == "neo4j" and not self.neo4j_uri:
            raise ValueError("CITEGRAPH_STORE=neo4j needs CITEGRAPH_NEO4J_URI")
        return self

    @property
    def store_file(self) -> Path:
        """The embedded store's file: ``<home>/graph.json.gz``."""
        return self.home / "graph.json.gz"


@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
