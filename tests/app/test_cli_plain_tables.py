"""A table printed where standard output is no terminal (a pipe, a file) is written without rich's
console (app.cli_tables, app.cli_registry): these tests hold it to the bytes rich's console prints
for the same rows, at widths that make blocks and grids, with the cells rich changes (control
characters, emoji codes, tabs, wide characters) and search's highlighted snippets."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text

from app.cli_registry import PLAIN_OPTIONS, RICH_DECIDES, out, prints_as_is
from app.cli_tables import Column, Marked, TableFormat, emit

_Console = type(out)  # standard output's console: rich's, made on first use

RECORDS = [Column("record"), Column("set"), Column("declared in"), Column("citations", "number"), Column("label", "text")]
SEARCH = [Column("rank", "number"), Column("statement"), Column("matches", "number"), Column("snippet", "text")]
STATS = [Column("set"), *(Column(c, "number") for c in ("documents", "statements", "records", "record occurrences",
                                                         "source files", "quotations", "unaccounted IDs"))]
LONG = ("The retrieval step ranks the dense vectors when the flag is set, and the evidence for this step "
        "is kept with the records named in the register; ") * 3


def _snippet(text: str, *spans: tuple[int, int]) -> Marked:
    return Marked(text, spans)


def _styled(text: str, *spans: tuple[int, int]) -> Text:
    snippet = Text(text)
    for start, end in spans:
        snippet.stylize("bold reverse", start, end)
    return snippet


CASES: dict[str, tuple[list[Column], Callable[[], list[tuple[Any, ...]]]]] = {
    "records": (RECORDS, lambda: [
        ("EPI-ABS-policy-answer1336", "AAS-2026-10-19-tundra-marlin-1336-01", "AAS-2026-10-19-tundra-marlin-1336-01/epistemic#L198",
         7, "Rolling review archive signal"),
        ("RT-RTE-x", "tolaria", None, 0, LONG),
        ("RT-RTE-y", "tolaria", "tolaria/synthesis#L1", 12, "  spaced\tout\nover lines  "),
        ("RT-RTE-z", "tolaria", "", 3, "accents: café, naïve; wide: 漢字漢字 " * 4),
        ("RT-RTE-w", "tolaria", "t#L2", 1, ""),
        ("RT-RTE-v", "tolaria", "t#L4", 2, "the :thumbs_up: code, a bell\x07 and a return\r in a text cell"),
    ]),
    "records, changed by rich": (RECORDS, lambda: [
        ("RT-RTE-x", "tolaria", None, 0, LONG),
        ("RT-RTE-bell\x07", "tolaria", "t#L3", 1, "a bell"),
        ("RT-RTE-v", "tol:100:aria", "t#L4", 2, "an emoji code in an id, with a\ttab"),
    ]),
    "search": (SEARCH, lambda: [
        (1, "AAS-1/memory#L22", 1, _snippet("…sandbox.py | RT-RTE-evaluate-model1336, RT-RTE-caller-expire1336 | " + LONG,
                                           (44, 68))),
        (2, "AAS-1/reconciliation#L12", 2, _snippet("…step is kept with RT-RTE-index-cache1336, the note", (46, 54), (5, 9))),
        (3, "AAS-1/epistemic#L12", 1, _snippet("x" * 300, (200, 210))),
    ]),
    "search, marked by the caller": (SEARCH, lambda: [
        (1, "AAS-1/memory#L22", 1, _styled("…sandbox.py | RT-RTE-evaluate-model1336 | " + LONG, (20, 40))),
        (2, "AAS-1/memory#L23", 1, _snippet("a mark " * 60, (-10, -2), (5, 3), (400, 900), (1, 1000))),
        (3, "AAS-1/memory#L24", 1, _snippet("a\rreturn and a bell\x07 dropped as rich drops them " * 3, (2, 8))),
    ]),
    "search, changed by rich": (SEARCH, lambda: [
        (1, "AAS-1/epistemic#L12", 1, _snippet("x" * 300, (200, 210))),
        (4, "AAS-1/epistemic#L13", 1, _snippet("a\ttab and\x1b an escape", (0, 1))),
    ]),
    "stats": (STATS, lambda: [
        ("AAS-2026-10-19-tundra-marlin-1336-01", 8, 362, 19, 332, 10, 29, 0),
        ("tolaria", 3, 1, 2, 3, 4, 5, 6),
    ]),
    "short": ([Column("set"), Column("documents", "number")], lambda: [("tolaria", 3), ("talorys", 1)]),
}


@pytest.fixture
def piped(monkeypatch):
    """Standard output is no terminal (pytest captures it) and rich's own variables are unset."""
    for name in RICH_DECIDES:
        monkeypatch.delenv(name, raising=False)

    def at(width: int) -> None:
        monkeypatch.setenv("COLUMNS", str(width))

    return at


@pytest.mark.parametrize("width", [30, 60, 80, 100, 160, 240])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("title", ["Records", "Statements holding the :100: note", None])
@pytest.mark.parametrize("footer", [["19 records (19 declared)"], ["at\ttab", "x.md:100: error"]])
def test_a_piped_table_is_the_bytes_rich_prints(piped, capsys, width, case, title, footer):
    columns, rows = CASES[case]
    piped(width)
    console = _Console(**PLAIN_OPTIONS)
    emit(console, fmt=TableFormat.table, columns=columns, rows=rows(), title=title, footer=footer, fold=3)
    written = capsys.readouterr().out
    drawn = io.StringIO()
    emit(Console(file=drawn, width=width, **PLAIN_OPTIONS), fmt=TableFormat.table, columns=columns, rows=rows(),
         title=title, footer=footer, fold=3)
    assert written == drawn.getvalue()
    assert written
    if "changed" not in case and prints_as_is(title or "") and all(prints_as_is(line) for line in footer):
        assert (console._console is None) == ("┃" not in written)  # blocks are written without rich's console


def test_a_plain_table_makes_no_rich_console(piped, capsys):
    piped(80)
    console = _Console(**PLAIN_OPTIONS)
    columns, rows = CASES["stats"]
    emit(console, fmt=TableFormat.table, columns=columns, rows=rows(), title="Analysis sets", footer=["2 sets"])
    assert console._console is None
    assert capsys.readouterr().out.splitlines() == [
        "Analysis sets",
        "AAS-2026-10-19-tundra-marlin-1336-01  documents 8  statements 362  records 19",
        "    record occurrences 332  source files 10  quotations 29  unaccounted IDs 0",
        "tolaria  documents 3  statements 1  records 2  record occurrences 3",
        "    source files 4  quotations 5  unaccounted IDs 6",
        "2 sets"]


@pytest.mark.parametrize("text", ["0 errors, 0 warnings", "tolaria/synthesis.md:12: error: [code] a message",
                                  "x.md:100: error: [code] :thumbs_up:", "a\ttab", "a\rreturn", "[bold]not markup[/]",
                                  "café 漢字", ""])
def test_a_line_is_what_rich_prints(piped, capsys, text):
    piped(80)
    _Console(**PLAIN_OPTIONS).line(text)
    drawn = io.StringIO()
    Console(file=drawn, width=80, **PLAIN_OPTIONS).print(text, markup=False, highlight=False)
    assert capsys.readouterr().out == drawn.getvalue()


def test_what_rich_would_change_is_left_to_rich():
    assert prints_as_is("0 errors, 0 warnings")
    assert prints_as_is("tolaria/synthesis.md: error")
    assert prints_as_is("x.md:100: error")  # emoji codes are off: rich prints ':100:' as written
    assert not prints_as_is("a\ttab")
    assert not prints_as_is("a\x07bell")


@pytest.mark.parametrize("variable", RICH_DECIDES)
def test_a_variable_rich_reads_or_a_terminal_leaves_printing_to_rich(piped, monkeypatch, variable):
    piped(80)
    assert _Console(**PLAIN_OPTIONS).plain_width() == 80
    monkeypatch.setenv(variable, "1")
    assert _Console(**PLAIN_OPTIONS).plain_width() is None
    monkeypatch.delenv(variable)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert _Console(**PLAIN_OPTIONS).plain_width() is None


def _words(seed: int) -> list[str]:
    import random

    pick = random.Random(seed)
    pool = ["a", "the", "compare-and-swap", "mcp-server/vault.js", "x" * 70, "y" * 150, "…", "RT-RTE-caller-expire1336",
            "  ", "word.", "(note)"]
    return [" ".join(pick.choice(pool) for _ in range(pick.randint(1, 60))) for _ in range(12)]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("width", [24, 41, 80, 97])
def test_wrapped_text_cells_are_rich_s_lines(piped, capsys, seed, width):
    """Text cells of many lengths and words (some longer than a line) wrap as rich wraps them."""
    piped(width)
    texts = _words(seed)
    rows = lambda: [(f"R{i}", "x" * (width // 2), i, Marked(t, [(i, i + 9)]) if i % 2 else t)  # noqa: E731
                    for i, t in enumerate(texts)]
    columns = [Column("record"), Column("set"), Column("n", "number"), Column("text", "text")]
    console = _Console(**PLAIN_OPTIONS)
    emit(console, fmt=TableFormat.table, columns=columns, rows=rows())
    written = capsys.readouterr().out
    drawn = io.StringIO()
    emit(Console(file=drawn, width=width, **PLAIN_OPTIONS), fmt=TableFormat.table, columns=columns, rows=rows())
    assert written == drawn.getvalue()
    assert console._console is None or "┃" in written


def test_a_marked_cell_s_plain_text_is_rich_s():
    every = "".join(map(chr, range(128))) + "…é漢"
    assert Marked(every).plain == Text(every).plain
    assert Marked("abcdef", [(1, 3), (-2, -1), (4, 2), (9, 12), (2, 99)]).spans() == [
        (s.start, s.end) for s in _styled("abcdef", (1, 3), (-2, -1), (4, 2), (9, 12), (2, 99)).spans]


def test_an_emoji_code_is_printed_as_written(capsys, monkeypatch):
    """``x.md:100:`` in a finding is a path and a line: standard output's console, plain or rich,
    prints it as written, never rich's 💯 (a terminal, so rich's console draws it)."""
    console = _Console(**PLAIN_OPTIONS)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich decides: its console prints
    console.line("x.md:100: error: [code] :thumbs_up:")
    assert console._console is not None
    assert "x.md:100: error: [code] :thumbs_up:" in capsys.readouterr().out
