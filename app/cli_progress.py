"""Progress bars of long commands: ``ingest``, ``verify``, ``copy``, ``check`` and
``impact`` show a rich progress bar on standard error when it is a terminal, and nothing when it is
not (a pipe, a file, CI logs), so their output stays the same wherever it goes."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from collections.abc import Callable, Iterator

__all__ = ["Advance", "progress_bar"]

Advance = Callable[..., None]
"""``advance(n=1, *, total=None, what=None)``: ``n`` more units done; ``total`` (re)sets the number
of units when it becomes known, ``what`` the text beside the bar."""


@contextmanager
def progress_bar(console, description: str, *, total: int | None = None, unit: str = "") -> Iterator[Advance]:
    """A bar on ``console`` (standard error's) while the block runs, removed when it ends.

    Parameters
    ----------
    console : rich.console.Console
        Where the bar is drawn; nothing is drawn unless ``console.is_terminal``.
    description : str
        What is being done, e.g. ``"ingesting"``.
    total : int, optional
        Units of work (files, sets, documents, steps); None until known (a pulsing bar).
    unit : str
        Name of a unit, shown after the counts (``"files"``).

    Yields
    ------
    Advance
        Called as work gets done; a no-op off a terminal.
    """
    if not (sys.stderr.isatty() and console.is_terminal):  # isatty first: off a terminal rich is not even imported
        yield lambda n=1, *, total=None, what=None: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = getattr(console, "_console", None) or console  # app.cli_registry's lazy console: the rich one it made

    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    if unit:
        columns.append(TextColumn(unit))
    columns.append(TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1, *, total: int | None = None, what: str | None = None) -> None:
            bar.update(task, advance=n, total=total if total is not None else bar.tasks[0].total,
                       description=f"{description} {what}" if what else description)

        yield advance
        bar.refresh()
        time.sleep(0)  # the last frame is drawn before the bar is removed
