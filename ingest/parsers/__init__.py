"""Parsers: one file's bytes → :class:`~ingest.parsers.parsed.ParsedDocument`."""

from __future__ import annotations

from pathlib import PurePath

from graph.errors import ParseError, SourceSpan
from ingest.parsers.parsed import ParsedDocument

__all__ = ["parse_member", "MEMBER_SUFFIXES"]

MEMBER_SUFFIXES = (".txt", ".md")
"""File suffixes that hold analysis-set members."""


def parse_member(data: bytes, path: str) -> ParsedDocument:
    """Parse one member by its suffix: ``.txt`` plain-text rendering (GRAMMAR §9), ``.md`` canonical
    Markdown member (GRAMMAR §3–§7).

    Raises
    ------
    ParseError
        Unsupported suffix, or whatever the format's parser refuses.
    """
    # Imported here: the parsers import ingest.citations, which imports ingest.parsers.parsed.
    from ingest.parsers.markdown import parse_markdown
    from ingest.parsers.plaintext import parse_plaintext

    suffix = PurePath(path).suffix.lower()
    if suffix == ".txt":
        return parse_plaintext(data, path)
    if suffix == ".md":
        return parse_markdown(data, path)
    raise ParseError(f"unsupported member file type {suffix or '(none)'!r}", source=SourceSpan(path, 1),
                     hint=f"members are {', '.join(MEMBER_SUFFIXES)} files")
