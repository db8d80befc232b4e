"""The registry of the ``citegraph`` commands: the command group every command module registers
on, and what the commands share (the store options, opening the store, output, error handling).

The command modules (:mod:`app.cli` and its ``cli_*.py`` modules) import this module, never each
other's commands; :mod:`app.cli` imports them all to register them, so the import graph has no
circle (an import-linter contract in ``pyproject.toml`` keeps it so). Registering imports no typer
(the declarations are :mod:`app.cli_params`'); typer and everything heavier are imported inside the
function that needs them, so that a command loads only what it runs (tests/app/test_cli_startup.py
checks it).
"""

from __future__ import annotations

import builtins
import functools
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional
from collections.abc import Callable

from app.cli_params import Exit, Opt
from app.cli_start import usage_error
from graph.errors import CitegraphError
from render import Format

if TYPE_CHECKING:
    from rich.console import Console

    from app.cli_help import CommandApp

    from app.settings import Settings
    from graph.store import GraphStore

__all__ = ["commands", "typer_app", "root", "ROOT_HELP", "console_width", "out", "err", "escape", "prints_as_is", "word_breaks", "PLAIN_OPTIONS", "RICH_DECIDES", "Table", "Neo4jOpt", "HomeOpt", "JsonOpt", "SetOpt", "FreshOpt",
           "VersionOpt", "RenderFormatOpt", "get_settings", "command_settings", "command_store", "at_version",
           "counted", "print_json", "shortened", "handles_errors"]

class Commands:
    """The commands as their modules register them (``@commands.command("rests-on")``), by name
    in the order registered, without typer: :func:`typer_app` hands them to typer, and the fast
    start (:mod:`app.cli_start`) runs one directly."""

    def __init__(self) -> None:
        self.functions: dict[str, Callable[..., Any]] = {}

    def command(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.functions[name] = fn
            return fn

        return register


commands = Commands()

ROOT_HELP = "Knowledge graph of agentic-system analysis documents: ingest, query, check, serve."
"""What ``citegraph --help`` says of the whole program, under its usage line."""


@functools.cache
def typer_app() -> CommandApp:
    """The typer application of every registered command (in their order) and the root options;
    made once, when a command line is not one the fast start runs (help, a usage error, the other
    commands) or a test asks for it (``app.cli.cli``)."""
    from app.cli_help import CommandApp
    from app.cli_params import typer_params

    app = CommandApp(
        name="citegraph",
        help=ROOT_HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(typer_params(root))
    for name, fn in commands.functions.items():
        app.command(name)(fn)  # made into a click command (its declarations typer's) when looked up
    return app


class _Console:
    """A rich ``Console`` made on first use: a command that prints JSON does not import rich
    (about 40 ms of start-up)."""

    def __init__(self, **options: Any):
        self._options = options
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
            # rich's own on_broken_pipe exits 1; replacing the method is its one hook
            self._console.on_broken_pipe = self._reader_gone  # type: ignore[method-assign]  # (see above)
        return getattr(self._console, name)

    def plain_width(self) -> int | None:
        """The width rich's console would print standard output at, when what it prints there is
        plain text that this process can write itself: standard output is no terminal (so rich
        draws no styles) and no variable rich reads to decide otherwise is set (``FORCE_COLOR``,
        ``TTY_COMPATIBLE``, Jupyter's); None otherwise, and once the rich console is made (it
        prints from then on). The width is rich's: ``$COLUMNS``, else the size of the first of
        standard input, output and error that is a terminal, else 80."""
        if self._console is not None or self._options != PLAIN_OPTIONS or sys.platform == "win32":
            return None
        if any(name in os.environ for name in RICH_DECIDES) or hasattr(builtins, "get_ipython"):
            return None
        stdout = sys.stdout
        isatty = getattr(stdout, "isatty", None)
        if stdout is None or isatty is None or isatty():
            return None
        return console_width()

    def line(self, text: str) -> None:
        """Print ``text`` and a newline as ``print(text, markup=False, highlight=False)`` does,
        written directly when the console's output is plain (:meth:`plain_width`) and ``text`` is
        one rich prints as it is (:func:`prints_as_is`): a command printing a few lines then never
        imports rich (about 40 ms of CPU)."""
        if self.plain_width() is not None and prints_as_is(text):
            sys.stdout.write(text + "\n")
        else:
            self.print(text, markup=False, highlight=False)

    def _reader_gone(self) -> None:
        if self._console is not None:  # made: rich calls this on the console it printed with
            self._console.quiet = True  # nothing more to print; :func:`handles_errors` ends with 0
        raise BrokenPipeError("the reader of the output has gone")


def console_width() -> int | None:
    """The width rich's console takes on this platform (not Windows): ``$COLUMNS``, else the size
    of the first of standard input, output and error that is a terminal, else 80; None when
    ``$COLUMNS`` is set to anything but a positive number (rich's own rule then decides)."""
    columns = os.environ.get("COLUMNS")
    if columns is not None:
        return int(columns) if columns.isdigit() and int(columns) > 0 else None
    for descriptor in (0, 1, 2):
        try:
            return os.get_terminal_size(descriptor).columns or 80
        except (AttributeError, ValueError, OSError):
            continue
    return 80


RICH_DECIDES = ("FORCE_COLOR", "TTY_COMPATIBLE", "JUPYTER_COLUMNS", "JUPYTER_LINES")
"""Environment variables that make rich's console draw for a terminal (or a notebook) where
standard output is none: with any of them set, rich prints."""

_NOT_AS_IS = re.compile(r"[\x00-\x1f\x7f]")
"""What rich's ``print`` may change in a string (with markup, highlighting and emoji codes off): a
control character (it drops some, expands tabs)."""


def prints_as_is(text: str) -> bool:
    """Whether rich's console (:data:`PLAIN_OPTIONS`) prints ``text`` unchanged (no control
    characters); those that are not go through rich itself."""
    return _NOT_AS_IS.search(text) is None


_WORD = re.compile(r"\s*\S+\s*")


def word_breaks(text: str, width: int) -> list[int]:
    """The offsets in ``text`` where rich wraps it at ``width`` columns when each character takes
    one column (``rich._wrap.divide_line``): before each word that does not fit on the line, and
    inside a word longer than ``width`` (folded every ``width`` characters). A line is
    ``text[a:b]`` for consecutive offsets, with its trailing spaces still on it."""
    breaks: list[int] = []
    column = 0
    for word in _WORD.finditer(text):
        start, found = word.start(), word.group()
        length = len(found.rstrip())
        if width - column >= length:
            column += len(found)
        elif length > width:  # folded
            chunks = [found[i:i + width] for i in range(0, len(found), width)]
            for i, chunk in enumerate(chunks):
                if start:
                    breaks.append(start)
                if i == len(chunks) - 1:
                    column = len(chunk)
                else:
                    start += len(chunk)
        elif column and start:
            breaks.append(start)
            column = len(found)
    return breaks


def escape(text: str) -> str:
    """``text`` with rich markup escaped (:func:`rich.markup.escape`)."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def Table(*args: Any, **kwargs: Any) -> Any:
    """A :class:`rich.table.Table`, imported when a command prints one."""
    from rich.table import Table as RichTable

    return RichTable(*args, **kwargs)


PLAIN_OPTIONS: dict[str, Any] = {"soft_wrap": True, "emoji": False}
"""Standard output's console: lines are not wrapped, and ``:name:`` is printed as written, not as
an emoji (a finding's ``x.md:100:`` is a path and a line, not rich's ``:100:``)."""

out = _Console(**PLAIN_OPTIONS)
err = _Console(stderr=True, **PLAIN_OPTIONS)


def _print_version(asked: bool) -> None:
    if asked:
        from app.cli_start import version

        sys.stdout.write(version() + "\n")  # plain: printing a line need not import rich
        raise Exit(0)


def root(
    show_version: Annotated[bool, Opt("--version", is_eager=True, callback=_print_version,
                                               help="Print the version and exit.")] = False,
) -> None:
    """Knowledge graph of agentic-system analysis documents: ingest, query, check, serve."""

Neo4jOpt = Annotated[Optional[str], Opt("--neo4j", metavar="URI", help="Use this Neo4j server (bolt:// or neo4j://) instead of the embedded store.")]
HomeOpt = Annotated[Optional[Path], Opt("--home", help="Folder of the embedded store (default $CITEGRAPH_HOME or ./.citegraph).")]
JsonOpt = Annotated[bool, Opt("--json", help="Print JSON instead of a table.")]
SetOpt = Annotated[Optional[str], Opt("--set", help="Only this analysis set (run-id or system slug).")]
FreshOpt = Annotated[bool, Opt("--fresh", help="Compute every set's part again instead of reusing what the store kept from an unchanged set.")]
VersionOpt = Annotated[Optional[int], Opt("--version", min=1, metavar="N", help="Read version N of the set (citegraph history SET lists them; default: the latest).")]


def get_settings() -> Settings:
    """The process's settings (:func:`app.settings.get_settings`, imported when first needed)."""
    from app.settings import get_settings as process_settings

    return process_settings()


def command_settings(neo4j: str | None, home: Path | None) -> Settings:
    """The process settings with the command's store options applied: ``--neo4j URI`` selects that
    server, ``--home DIR`` selects the embedded store in DIR (even when CITEGRAPH_NEO4J_URI is set)."""
    base = get_settings()
    update: dict[str, Any] = {}
    if neo4j and home:
        from typer import BadParameter

        raise BadParameter("--neo4j and --home choose different stores; give one")
    if neo4j:
        update.update(neo4j_uri=neo4j, store="neo4j")
    if home:
        update.update(home=home, store="embedded")
    return base.replace(**update) if update else base


def command_store(neo4j: str | None, home: Path | None, *, reads: bool = True) -> GraphStore:
    """The store the options and settings select, opened; its location is said on stderr ,
    and, for a command that ``reads`` it, a ``note:`` line when it is absent or holds no analysis set
    (:func:`app.wiring.empty_store_note`). Standard output and the exit code stay the command's."""
    from app.wiring import empty_store_note, open_store, store_location

    store = open_store(command_settings(neo4j, home))
    sys.stderr.write(f"store: {store_location(store)}\n")  # plain text: a --json command need not import rich
    note = empty_store_note(store) if reads else None
    if note:
        sys.stderr.write(f"note: {note}\n")
    sys.stderr.flush()
    return store


def at_version(store: GraphStore, set_id: str | None, version: int | None) -> GraphStore:
    """``store`` with ``set_id`` read at ``version`` (:func:`queries.history.store_at`); ``store``
    itself when no version is asked. Closing the result closes ``store``."""
    if version is None:
        return store
    from queries.history import store_at

    return store_at(store, set_id, version)


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``counted(1, "statement")`` is ``1 statement``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that what is still buffered for a reader that has
    gone is dropped at exit instead of failing again (the recipe of Python's signal docs)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def handles_errors(fn: Callable) -> Callable:
    """Turn a :class:`CitegraphError` into ``path:line: message`` on stderr and its exit code; an
    operating-system error (a file that cannot be written) into exit 74 (``EX_IOERR``), except a
    reader that closed standard output early (``| head``), which ends the command quietly with 0; Ctrl-C into
    ``interrupted`` and exit 130; anything else into ``internal error`` and exit 70 (set
    ``CITEGRAPH_DEBUG=1`` for the traceback). The README's table lists every exit code."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            result = fn(*args, **kwargs)
            sys.stdout.flush()  # here, so that a reader gone (`| head`) is seen below, not by click (exit 1)
            return result
        except BrokenPipeError:  # the reader took what it wanted (`| head -2`): not an error
            _silence_stdout()
            raise Exit(0) from None
        except CitegraphError as exc:
            from app.errors import face_of, hint_of  # the table of exit codes, read when a command fails

            err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
            hint = hint_of(exc)
            if hint:
                err.print(f"hint: {hint.strip()}", highlight=False, markup=False)
            raise Exit(face_of(exc).exit) from None
        except OSError as exc:
            err.print(f"[bold red]error:[/] {escape(exc.filename or '')}: {escape(exc.strerror or str(exc))}",
                      highlight=False)
            raise Exit(74) from None
        except KeyboardInterrupt:  # Ctrl-C: what a write had not committed is rolled back
            err.print("interrupted", markup=False, highlight=False)
            raise Exit(130) from None
        except Exception as exc:
            if usage_error(exc) or os.environ.get("CITEGRAPH_DEBUG"):
                raise
            from app.errors import face_of

            err.print(f"[bold red]internal error:[/] {escape(repr(exc))} (CITEGRAPH_DEBUG=1 shows the traceback)",
                      highlight=False)
            raise Exit(face_of(exc).exit) from None

    return wrapper


def shortened(text: str, width: int = 80) -> str:
    """``text`` cut to ``width`` characters, the last one ``…`` when it was longer."""
    return text if len(text) <= width else text[: width - 1] + "…"



RenderFormatOpt = Annotated[Optional[Format], Opt("--format", "-f", help="md, txt or html (documents default to their own format, reports to md).")]
