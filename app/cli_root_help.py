"""``citegraph --help`` (and ``citegraph`` alone) without importing typer, click or rich.

The root help page lists every command with its one-line summary and the root options. typer
prints it by importing click, typer's rich help and rich (about 0.13 s of CPU before a line is
printed); this module draws the same page from the same declarations: the registered commands
(:data:`app.cli_registry.commands`, in the order typer lists them), each summary by
:func:`app.cli_params.summary_of` (the rule typer's listing follows), :data:`ROOT_HELP` and the
root callback's options. In a pipe the page is byte for byte typer's (tests/app/test_cli_root_help.py
compares them at many widths); on a terminal it is the same page with the same colours on its
parts. Whenever the page could come out differently from typer's (a text with rich markup, an
emoji code, a control or non-ASCII character, a width too narrow for its columns, an environment
variable that changes how rich draws), :func:`root_help` declines and typer prints it.

The layout is rich's, as typer draws the root page (``typer.rich_utils.rich_format_help``): the
usage line and the program's help padded by one column, then an ``Options`` and a ``Commands``
panel (rounded box, a table without edges inside; a command's summary wrapped by words at the
width of its column, as rich's ``divide_line`` wraps).
"""

from __future__ import annotations

import builtins
import os
import re
import sys
import typing
from typing import get_args, get_origin

from app.cli_params import Opt, summary_of
from app.cli_registry import ROOT_HELP, RICH_DECIDES, commands, console_width, root, word_breaks

__all__ = ["USAGE", "HELP_OPTION", "TYPER_DECIDES", "root_help", "page", "print_root_help"]

USAGE = "Usage: citegraph [OPTIONS] COMMAND [ARGS]..."
"""The root usage line, as click writes a group's."""

HELP_OPTION = ("--help", "Show this message and exit.")
"""click's help option of the root command, listed last among the options."""

TYPER_DECIDES = (*RICH_DECIDES, "TERMINAL_WIDTH", "PY_COLORS", "GITHUB_ACTIONS", "_TYPER_FORCE_DISABLE_TERMINAL",
                 "NO_COLOR", "TTY_INTERACTIVE")
"""Environment variables that change how typer's console draws the page (its width, colours, or
whether it draws for a terminal): with any of them set, typer prints it."""

_PLAIN = re.compile(r"[ -~]*")
"""Text drawn as it is, one column a character: printable ASCII..."""
_NOT_PLAIN = re.compile(r"\[|:\S*:")
"""... without what rich reads as markup (``[``) or as an emoji code (``:name:``)."""


_DIM, _OPTION, _USAGE, _BOLD, _RESET = "\x1b[2m", "\x1b[1;36m", "\x1b[1;33m", "\x1b[1m", "\x1b[0m"
_OPTION_WORD = re.compile(r"(?<![\w-])(--?[\w-]*\w)")
"""An option named in a summary (``--set``), coloured as typer's highlighter colours it."""


def _plain(text: str) -> bool:
    return _PLAIN.fullmatch(text) is not None and _NOT_PLAIN.search(text) is None


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` wrapped by words at ``width`` columns as rich wraps a paragraph of one-column
    characters (:func:`app.cli_registry.word_breaks`), each line without its trailing spaces."""
    breaks = word_breaks(text, width)
    return [text[a:b].rstrip() for a, b in zip([0, *breaks], [*breaks, len(text)])]


def _root_options() -> list[tuple[str, str]]:
    """The root options (name, help) as the Options panel lists them: the root callback's, then
    ``--help``; only long flags, which the panel shows in one column (anything else: :func:`page`
    declines)."""
    options = []
    hints = typing.get_type_hints(root, include_extras=True)
    hints.pop("return", None)
    for hint in hints.values():
        declared = [d for d in get_args(hint)[1:] if isinstance(d, Opt)] if get_origin(hint) is typing.Annotated else []
        if get_args(hint)[:1] != (bool,) or len(declared) != 1 or len(declared[0].args) != 1 \
                or not declared[0].args[0].startswith("--") or declared[0].kwargs.get("hidden"):
            raise ValueError("a root option the fast help does not draw")
        options.append((declared[0].args[0], declared[0].kwargs.get("help") or ""))
    return [*options, HELP_OPTION]


def page(width: int, *, styled: bool = False) -> str | None:
    """The root help page at ``width`` columns, as typer's rich help prints it (``styled``: with
    the colours it uses on a terminal); None when it might not be typer's (see the module)."""
    try:
        options = _root_options()
    except ValueError:
        return None
    listed = [(name, summary_of(fn)) for name, fn in commands.functions.items()]
    texts = [ROOT_HELP, *(t for o in options for t in o), *(t for c in listed for t in c)]
    if not all(_plain(t) for t in texts) or "\n" in ROOT_HELP:
        return None
    inner = width - 4  # the panels' tables: between "│ " and " │"
    option_column = max(len(name) for name, _ in options) + 1
    help_at = option_column + 9  # four empty columns of two, and the help's left padding
    name_column = max(len(name) for name, _ in listed) + 1
    summary_width = inner - name_column - 1
    if width < 40 or any(len(h) > inner - help_at for _, h in options) or summary_width < 20 \
            or any(len(line) > width - 2 for line in (USAGE, *_wrapped(ROOT_HELP, width - 2))):
        return None

    def dim(text: str) -> str:
        return f"{_DIM}{text}{_RESET}" if styled else text

    def panel(title: str, rows: list[str]) -> list[str]:
        top = [dim("╭─"), dim(f" {title} "), dim("─" * (width - 4 - len(title) - 1) + "╮")] if styled \
            else ["╭─", f" {title} ", "─" * (width - 4 - len(title) - 1) + "╮"]
        return ["".join(top), *(f"{dim('│')} {row} {dim('│')}" for row in rows), dim("╰" + "─" * (width - 2) + "╯")]

    def option(name: str) -> str:
        return f"{_OPTION}-{_RESET}{_OPTION}{name[1:]}{_RESET}" if styled else name

    def summary_line(text: str, width: int) -> str:
        padded = text.ljust(width)
        return _OPTION_WORD.sub(lambda m: f"{_OPTION}{m.group(1)}{_RESET}", padded) if styled else padded

    blank = " " * width
    usage = USAGE.ljust(width - 2)
    lines = [f"{_BOLD}{blank}{_RESET}" if styled else blank,
             f"{_BOLD} {_RESET}{_USAGE}Usage: {_RESET}{_BOLD}{usage[7:]}{_RESET}{_BOLD} {_RESET}" if styled
             else f" {usage} ",
             f"{_BOLD}{blank}{_RESET}" if styled else blank,
             *(f" {line.ljust(width - 2)} " for line in _wrapped(ROOT_HELP, width - 2)),
             blank]
    lines += panel("Options", [option(name) + " " * (help_at - len(name)) + h.ljust(inner - help_at)
                               for name, h in options])
    rows = []
    for name, text in listed:
        for i, line in enumerate(_wrapped(text, summary_width)):
            label = (name if i == 0 else "").ljust(name_column)
            rows.append(f"{_OPTION}{label}{_RESET} {summary_line(line, summary_width)}" if styled
                        else f"{label} {line.ljust(summary_width)}")
    lines += panel("Commands", rows)
    return "\n".join(lines) + "\n"


def root_help() -> str | None:
    """The root help page as typer would print it to this process's standard output (its width,
    and colours when it is a terminal); None when typer should print it (see the module)."""
    if sys.platform == "win32" or hasattr(builtins, "get_ipython") or any(name in os.environ for name in TYPER_DECIDES):
        return None
    isatty = getattr(sys.stdout, "isatty", None)
    if isatty is None:
        return None
    styled = bool(isatty())
    if styled and os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return None
    width = console_width()
    return page(width, styled=styled) if width is not None else None


def print_root_help(*, asked: bool) -> bool:
    """Print the root help page (:func:`root_help`) and the empty line click ends an asked
    ``--help`` with (``asked``; ``citegraph`` alone prints the page only); False, printing
    nothing, when typer should print it."""
    text = root_help()
    if text is None:
        return False
    sys.stdout.write(text + ("\n" if asked else ""))
    return True
