"""Pathological inputs for the parsers, each built at a size ``n``.

Each case is one member whose cost once grew faster than its size (or without bound): one line of
Markdown links, a paragraph of record ranges, a table cell of links, ``Part of:`` lines folded into
one list, a plain-text quotation after many lines, many plain-text lines, and two YAML documents
that are refused (an alias bomb, deep flow nesting). :func:`member` builds a case's bytes; the
``pathological`` phase of :mod:`bench.phases` parses them at ``n`` and ``2n`` in fresh processes.
The :data:`WRITE_CASES` are ingested whole instead, into an empty store of each kind (the
``pathological-ingest`` phase): one statement citing one record ``n`` times, whose ``n`` parallel
edges Neo4j once wrote in time quadratic in ``n``.

>>> member("md-links", 2)[-68:]
b'[RT-OBJ-a0](runtime.md#rt-obj-a0) [RT-OBJ-a1](runtime.md#rt-obj-a1)\\n'
>>> [member("txt-lines", n).count(b"\\n") for n in (10, 20)]
[15, 25]
>>> member("txt-cites", 3)[-42:]
b'It rests on RT-OBJ-x, RT-OBJ-x, RT-OBJ-x.\\n'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CASES", "WRITE_CASES", "Case", "member"]

_RUNTIME = (b"---\ntype: agentic-system-analyses/types/agentic-system-runtime-report.md\n"
            b"run-id: AAS-2026-10-04-bench-01\n---\n\n# Bench runtime report\n\n## Shared records\n\n"
            b"### Operative objects\n\n#### RT-OBJ-a \xe2\x80\x94 A\n\n")
_SYNTHESIS = (b"Bench synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n\n"
              b"Bounded synthesis\n\n")


def _bomb(levels: int, width: int = 9) -> bytes:
    lines = [b'a0: &a0 ["lol"' + b', "lol"' * (width - 1) + b"]"]
    lines += [b"a%d: &a%d [" % (i, i) + b", ".join([b"*a%d" % (i - 1)] * width) + b"]" for i in range(1, levels)]
    return b"\n".join(lines) + b"\n"


def _with_frontmatter(yaml_lines: bytes) -> bytes:
    return _RUNTIME.replace(b"run-id: AAS-2026-10-04-bench-01\n", b"run-id: AAS-2026-10-04-bench-01\n" + yaml_lines)


@dataclass(frozen=True, slots=True)
class Case:
    """One pathological input: ``name``, the member's file ``path`` (its suffix picks the parser),
    ``n`` the size measured (and ``2n``), ``unit`` what ``n`` counts, and whether it is ``refused``
    (a ParseError is the expected outcome; its time is a figure, not a ratio)."""

    name: str
    path: str
    n: int
    unit: str
    what: str
    refused: bool = False


CASES: tuple[Case, ...] = (
    Case("md-links", "runtime.md", 16_000, "links", "one line of Markdown record links (the issue's 16k)"),
    Case("md-ranges", "runtime.md", 10_000, "ranges", "one paragraph of record ranges `RT-BAP-1 through RT-BAP-3`"),
    Case("md-cell-links", "runtime.md", 4_000, "links", "one table cell of record links and escaped pipes"),
    Case("md-part-of", "runtime.md", 2_000, "lines", "`Part of:` lines folded into one list of a declaration"),
    Case("txt-quotation", "synthesis.txt", 100_000, "lines", "a plain-text quotation after lines of prose"),
    Case("txt-lines", "synthesis.txt", 250_000, "lines", "lines of `A.` (2n: 1.5 MB, the issue's memory case)"),
    Case("yaml-bomb", "runtime.md", 9, "levels", "frontmatter alias bomb, 9 aliases per level", refused=True),
    Case("yaml-deep", "runtime.md", 20_000, "levels", "frontmatter flow nesting (libyaml refuses, pure parser)",
         refused=True),
)
"""The cases, in the order they are measured."""

WRITE_CASES: tuple[Case, ...] = (
    Case("txt-cites", "synthesis.txt", 4_000, "citations",
         "one plain-text statement citing one record n times, ingested into an empty store"),
)
"""The cases ingested into each store (Neo4j wrote n citations of one record by one
statement in time quadratic in n)."""


def member(name: str, n: int) -> bytes:
    """The bytes of case ``name`` at size ``n`` (deterministic)."""
    if name == "md-links":
        return _RUNTIME + b" ".join(b"[RT-OBJ-a%d](runtime.md#rt-obj-a%d)" % (i, i) for i in range(n)) + b"\n"
    if name == "md-ranges":
        return _RUNTIME + b"RT-BAP-1 through RT-BAP-3, " * n + b"\n"
    if name == "md-cell-links":
        return (_RUNTIME.replace(b"#### RT-OBJ-a \xe2\x80\x94 A\n\n", b"") + b"| a | b |\n|---|---|\n| x | "
                + b"[RT-OBJ-c](runtime.md#rt-obj-c) \\| " * n + b"|\n")
    if name == "md-part-of":
        return _RUNTIME + b"".join(b"- item %d\nPart of: RT-OBJ-b\n" % i for i in range(n))
    if name == "txt-quotation":
        return _SYNTHESIS + b"It says:\n" + b"A.\n" * n + b"the end --- a/b.js\n"
    if name == "txt-lines":
        return _SYNTHESIS + b"A.\n" * n
    if name == "txt-cites":
        return _SYNTHESIS + b"It rests on " + b"RT-OBJ-x, " * (n - 1) + b"RT-OBJ-x.\n"
    if name == "yaml-bomb":
        return _with_frontmatter(_bomb(n))
    if name == "yaml-deep":
        return _with_frontmatter(b"d: " + b"[" * n + b"]" * n + b"\n")
    raise ValueError(f"unknown case {name!r}")
