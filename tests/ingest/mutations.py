"""Hostile and unlucky edits of real members, as hypothesis strategies: truncations,
byte flips, other line breaks (CR, CR LF, CR CR LF), a byte-order mark, NUL bytes, deep nesting,
YAML aliases up to a billion laughs, huge lines, folded ``Part of:`` lines and spliced chunks.

:func:`mutated_members` draws ``(path, original bytes, edits)``; :func:`apply` replays the
edits, so a failing example prints the edits that made it (and hypothesis shrinks them)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import strategies as st

from tests.analysis_sets import DC_ARCHIVE, DC_RETAINED, IM01
from tests.conftest import SEEDS

MEMBERS: tuple[Path, ...] = (
    *sorted(SEEDS.glob("*.txt")),
    DC_RETAINED / "reconciliation.md",
    DC_RETAINED / "memory-profile.md",
    DC_ARCHIVE / "runtime.md",
    IM01 / "overview.md",
)
"""The real members that are mutated: the three plain-text seeds and four Markdown members of
G2 and G3 (frontmatter with ``records`` lists, declarations, links, tables, quotations)."""

_BREAKS = (b"\r", b"\r\n", b"\r\r\n", b"\n\r")


def _nested(kind: str, n: int) -> bytes:
    """``n`` levels of one kind of nesting, as a line (or lines) of Markdown or plain text."""
    return {
        "quote": b">" * n + b" x\n",
        "list": b"".join(b"  " * (i % 40) + b"- x\n" for i in range(n)),
        "brackets": b"[" * n + b"RT-OBJ-x" + b"]" * n + b"(runtime.md)\n",
        "parens": b"(" * n + b"RT-OBJ-x" + b")" * n + b"\n",
        "emphasis": b"*" * n + b"x" + b"*" * n + b"\n",
        "images": b"![" * n + b"x" + b"](a.png)" * n + b"\n",
        "yaml": b"d: " + b"[" * n + b"]" * n + b"\n",
        "yaml-map": b"".join(b"  " * i + b"k:\n" for i in range(min(n, 200))),
    }[kind]


def _bomb(levels: int, width: int) -> bytes:
    """A YAML alias bomb of ``levels`` levels of ``width`` aliases each (levels 1: one anchor)."""
    lines = [b"l0: &l0 [" + b", ".join([b'"lol"'] * width) + b"]"]
    for i in range(1, levels):
        lines.append(b"l%d: &l%d [" % (i, i) + b", ".join([b"*l%d" % (i - 1)] * width) + b"]")
    return b"\n".join(lines) + b"\n"


def _huge(kind: str, n: int) -> bytes:
    """One line of ``n`` repeated pieces."""
    return {
        "links": b" ".join(b"[RT-OBJ-a%d](runtime.md#rt-obj-a%d)" % (i, i) for i in range(n)),
        "groups": b"(workflow account) " * n,
        "ranges": b"RT-BAP-1 through RT-BAP-3, " * n,
        "mentions": b"RT-OBJ-x SRC-1 a/b.js " * n,
        "pipes": b"| " + b"[RT-OBJ-a](runtime.md#rt-obj-a) \\| " * n + b"|",
        "status": b"conclusion status: wired; " * n,
    }[kind] + b"\n"


def _line_starts(data: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]


def _at_line(data: bytes, where: int, piece: bytes) -> bytes:
    starts = _line_starts(data)
    pos = starts[where % len(starts)]
    return data[:pos] + piece + data[pos:]


def _in_frontmatter(data: bytes, piece: bytes) -> bytes:
    """``piece`` as the frontmatter's second line (or the file's second line when it has none)."""
    cut = data.find(b"\n") + 1 or len(data)
    return data[:cut] + piece + data[cut:]


def apply_one(data: bytes, edit: tuple) -> bytes:
    """``data`` with one edit (see :func:`edits`) made."""
    kind, *args = edit
    size = len(data)
    if kind == "truncate":
        return data[: args[0] % (size + 1)]
    if kind == "flip":
        pos, byte = args
        if not size:
            return bytes([byte])
        pos %= size
        return data[:pos] + bytes([byte]) + data[pos + 1:]
    if kind == "breaks":
        new, start, length = args
        start %= size + 1
        return data[:start] + data[start:start + length].replace(b"\n", new) + data[start + length:]
    if kind == "all-breaks":
        return data.replace(b"\n", args[0])
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "nul":
        pos = args[0] % (size + 1)
        return data[:pos] + b"\x00" + data[pos:]
    if kind == "nest":
        nest, n, where = args
        piece = _nested(nest, n)
        return _in_frontmatter(data, piece) if nest.startswith("yaml") else _at_line(data, where, piece)
    if kind == "alias":
        return _in_frontmatter(data, _bomb(*args))
    if kind == "huge":
        huge, n, where = args
        return _at_line(data, where, _huge(huge, n))
    if kind == "part-of":
        n, where = args
        return _at_line(data, where, b"".join(b"- item %d\nPart of: RT-OBJ-x\n" % i for i in range(n)))
    if kind == "splice":
        start, length, to = args
        start %= size + 1
        chunk = data[start:start + length]
        to %= size + 1
        return data[:to] + chunk + data[to:]
    raise ValueError(f"unknown edit {kind!r}")


def apply(data: bytes, edits: list[tuple]) -> bytes:
    """``data`` with every edit made, in order."""
    for edit in edits:
        data = apply_one(data, edit)
    return data


_pos = st.integers(0, 2**20)


def edits(repeat: int = 3000) -> st.SearchStrategy[tuple]:
    """One edit, as a tuple naming it and its arguments (positions are taken modulo the length);
    nesting, huge lines and ``Part of:`` runs repeat their piece at most ``repeat`` times."""
    return st.one_of(
        st.tuples(st.just("truncate"), _pos),
        st.tuples(st.just("flip"), _pos, st.integers(0, 255)),
        st.tuples(st.just("breaks"), st.sampled_from(_BREAKS), _pos, st.integers(1, 4000)),
        st.tuples(st.just("all-breaks"), st.sampled_from(_BREAKS)),
        st.tuples(st.just("bom")),
        st.tuples(st.just("nul"), _pos),
        st.tuples(st.just("nest"), st.sampled_from(["quote", "list", "brackets", "parens", "emphasis", "images",
                                                    "yaml", "yaml-map"]),
                  st.integers(1, repeat), _pos),
        st.tuples(st.just("alias"), st.integers(1, 12), st.integers(1, 12)),
        st.tuples(st.just("huge"), st.sampled_from(["links", "groups", "ranges", "mentions", "pipes", "status"]),
                  st.integers(1, repeat), _pos),
        st.tuples(st.just("part-of"), st.integers(1, max(1, repeat // 10)), _pos),
        st.tuples(st.just("splice"), _pos, st.integers(1, 2000), _pos),
    )


@st.composite
def mutated_members(draw, max_edits: int = 3, repeat: int = 3000) -> tuple[Path, bytes, list[tuple]]:
    """A real member (:data:`MEMBERS`), its bytes and one to ``max_edits`` edits of them
    (:func:`edits`, pieces repeated at most ``repeat`` times)."""
    path = draw(st.sampled_from(MEMBERS))
    return path, path.read_bytes(), draw(st.lists(edits(repeat), min_size=1, max_size=max_edits))


def line_count(data: bytes) -> int:
    """Lines of ``data`` as the parsers count them (LF, CR or CR LF ends a line)."""
    return len(_line_starts(data))
