"""A Markdown member's frontmatter: the YAML at the top, its keys' lines, its ``records``
citations (GRAMMAR §3.7) and the source it pins (§3.1, §7).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from collections.abc import Iterator

import yaml

from domain.grammar import RECORD_ID, MemberType, anchor_record
from domain.model import Citation, Source
from graph.errors import ParseError, SourceSpan
from ingest.parsers.plaintext import iter_lines
from ingest.parsers.yamldoc import load_yaml

__all__ = ["Frontmatter", "read_frontmatter", "frontmatter_records", "frontmatter_pins", "frontmatter_citation"]


def _plain_value(value: Any) -> Any:
    """A YAML value as JSON-compatible data: string keys, lists for sequences, text for the rest."""
    if isinstance(value, dict):
        return {str(k): _plain_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_value(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    return str(value)


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """A member's YAML frontmatter.

    ``data`` is the mapping as JSON-compatible values; ``lines`` maps each top-level key to its
    1-based file line; ``node`` is the composed YAML node (for line numbers deeper down); ``end`` is
    the character offset just after the closing ``---`` line's text and ``end_line`` its line.
    """

    data: dict[str, Any]
    lines: dict[str, int]
    node: Any
    end: int
    end_line: int


def read_frontmatter(text: str, path: str) -> Frontmatter | None:
    """The YAML frontmatter at the top of ``text``, or None when the text does not open with ``---``.

    Parameters
    ----------
    text : str
        The member's text.
    path : str
        Shown in errors.

    Returns
    -------
    Frontmatter or None

    Raises
    ------
    ParseError
        The frontmatter is never closed, is not valid YAML (the error names the YAML's line in the
        file), nests deeper than 64 levels or has aliases that would expand it by more than
        100,000 nodes and characters (:mod:`ingest.parsers.yamldoc`, naming the line), or is not
        a mapping.

    Examples
    --------
    >>> fm = read_frontmatter("---\\ntype: t.md\\nrun-date: 2026-10-04\\n---\\n# T\\n", "m.md")
    >>> fm.data, fm.lines, fm.end_line
    ({'type': 't.md', 'run-date': '2026-10-04'}, {'type': 2, 'run-date': 3}, 4)
    """
    lines, starts = _head_lines(text)
    if lines[0] != "---":
        return None
    close = next((k for k in range(1, len(lines)) if lines[k] in ("---", "...")), None)
    if close is None:
        raise ParseError("the frontmatter opened on line 1 is never closed", source=SourceSpan(path, 1),
                         hint="close the YAML frontmatter with a `---` line")
    body = "\n".join(lines[1:close])
    try:
        # Dates stay the strings written, so quoted and unquoted dates read the same and the
        # frontmatter stays JSON-compatible (GRAMMAR §3.2, §10).
        node, data = load_yaml(body, dates_as_text=True)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParseError(f"malformed YAML frontmatter: {problem}", source=SourceSpan(path, line),
                         hint=getattr(exc, "hint", None)
                         or "quote values that contain `: ` or start with a special character") from None
    if data is None:
        data, node = {}, None
    if not isinstance(data, dict):
        raise ParseError("the frontmatter is not a YAML mapping", source=SourceSpan(path, 2))
    key_lines = {}
    if isinstance(node, yaml.MappingNode):
        key_lines = {str(k.value): k.start_mark.line + 2 for k, _ in node.value}
    end = starts[close] + len(lines[close])
    return Frontmatter(_plain_value(data), key_lines, node, end, close + 1)


def _head_lines(text: str) -> tuple[list[str], list[int]]:
    """The lines of ``text`` and their offsets (as :func:`~ingest.parsers.plaintext.split_lines`
    gives them) through its first ``---``/``...`` line after line 1 when line 1 is ``---``, else
    line 1 alone: only what the frontmatter spans is split, however long the member."""
    lines, starts = [], []
    for line, start in iter_lines(text):
        lines.append(line)
        starts.append(start)
        if (len(lines) == 1 and line != "---") or (len(lines) > 1 and line in ("---", "...")):
            break
    return lines, starts


def frontmatter_records(node: Any) -> Iterator[tuple[str, int]]:
    """Every entry of every ``records`` list in a composed frontmatter, with its 1-based file line
    (the memory profile's ``memory-comparison``, GRAMMAR §3.7), in document order.

    >>> fm = read_frontmatter("---\\nm:\\n  a: {records: [RT-OBJ-x]}\\n  records:\\n  - runtime.md#rt-obj-y\\n---\\n", "p.md")
    >>> list(frontmatter_records(fm.node))
    [('RT-OBJ-x', 3), ('runtime.md#rt-obj-y', 5)]
    """
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == "records" and isinstance(value, yaml.SequenceNode):
                for item in value.value:
                    if isinstance(item, yaml.ScalarNode) and item.value.strip():
                        yield item.value.strip(), item.start_mark.line + 2
            else:
                yield from frontmatter_records(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from frontmatter_records(item)


def frontmatter_pins(data: dict, mtype: MemberType) -> tuple[Source, ...]:
    """The boundary's (or an overview's) frontmatter ``source`` as the pin of ``SRC-1`` (GRAMMAR §3.1,
    §7: the register row equals it)."""
    source = data.get("source")
    if mtype.role not in ("boundary", "overview") or not isinstance(source, dict):
        return ()
    return (Source("SRC-1", url=_str(source.get("identity")), commit=_str(source.get("revision")),
                   kind=_str(source.get("kind"))),)


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def frontmatter_citation(value: str, line: int) -> Citation | None:
    """A ``records`` entry: a bare record ID or ``member.md#anchor`` (GRAMMAR §3.7)."""
    member = None
    record = value
    if "#" in value:
        member, _, anchor = value.partition("#")
        record = anchor_record(anchor) or anchor
        member = PurePosixPath(member).name or None
    kind = "record" if RECORD_ID.fullmatch(record) else "named"
    return Citation(value, kind, record, "frontmatter", 0, len(value), 0, len(value), member=member, line=line)
