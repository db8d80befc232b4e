"""Rendering: query results → text or bytes. Never touches a store (STYLE §2.1).

- :mod:`render.document`: exact rebuild of a member from its graph nodes, and round-trip checks.
- :mod:`render.to_plaintext`: Markdown members → plain text in the style of the seeds (GRAMMAR §9);
  the opposite job of :mod:`ingest.parsers.plaintext`, which parses plain-text members.
- :mod:`render.page`: a small format-neutral page model; :mod:`render.compose` builds pages from
  query results (documents, rests-on, dossiers, whole sets); :mod:`render.writers` writes a page as
  Markdown, plain text or one self-contained HTML page.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Format", "MEDIA_TYPES"]


class Format(StrEnum):
    """Output formats: Markdown, plain text (the seeds' style), self-contained HTML."""

    MD = "md"
    TXT = "txt"
    HTML = "html"


MEDIA_TYPES: dict[Format, str] = {
    Format.MD: "text/markdown; charset=utf-8",
    Format.TXT: "text/plain; charset=utf-8",
    Format.HTML: "text/html; charset=utf-8",
}
"""Media type of each format (UTF-8 always)."""
