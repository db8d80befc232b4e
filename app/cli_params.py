"""The options and arguments of the ``citegraph`` commands, declared once and without typer, and
how a command's help text is read (:func:`flowed`, :func:`summary_of`).

A command's parameter is written ``Annotated[T, Opt("--set", help=...)]`` (or ``Arg(...)``) with
exactly typer's arguments: typer receives ``typer.Option(*args, **kwargs)`` of the same
declaration when the command is made (:func:`typer_params`), and the fast start of the one-set
commands (:mod:`app.cli_start`) parses the command line with it without importing typer.
"""

from __future__ import annotations

from typing import Annotated, Any, get_args, get_origin
from collections.abc import Callable

__all__ = ["Param", "Opt", "Arg", "Exit", "typer_params", "flowed", "summary_of"]


class Param:
    """One parameter's declaration: the positional and keyword arguments of ``typer.Option`` or
    ``typer.Argument``, kept as given."""

    __slots__ = ("args", "kwargs")
    maker = ""

    def __init__(self, *args: Any, **kwargs: Any):
        self.args, self.kwargs = args, kwargs

    def __repr__(self) -> str:
        return f"{type(self).__name__}(*{self.args!r}, **{self.kwargs!r})"

    def to_typer(self) -> Any:
        """The typer declaration (``typer.Option`` or ``typer.Argument``) of the same arguments."""
        import typer

        return getattr(typer, self.maker)(*self.args, **self.kwargs)


class Opt(Param):
    """An option: ``typer.Option``'s arguments (its names first: ``"--max-depth"``, ``"-n"``)."""

    __slots__ = ()
    maker = "Option"


class Arg(Param):
    """A positional argument: ``typer.Argument``'s arguments."""

    __slots__ = ()
    maker = "Argument"


class Exit(SystemExit):
    """Ends a command with an exit code (``raise Exit(1)``), with or without typer running it:
    click lets a ``SystemExit`` through as typer's own ``Exit`` ends, with the same code."""


def _typer_hint(hint: Any) -> Any:
    if get_origin(hint) is Annotated:
        base, *extras = get_args(hint)
        extras = [e.to_typer() if isinstance(e, Param) else e for e in extras]
        return Annotated[(base, *extras)]
    return hint


def typer_params(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as typer reads a command: a function calling it whose signature and type hints hold
    each :class:`Param` as the typer declaration of the same arguments (typer evaluates the hints
    of the function it is given; ``fn``'s own are left as they are)."""
    import functools
    import inspect
    import typing

    hints = {name: _typer_hint(h) for name, h in typing.get_type_hints(fn, include_extras=True).items()}
    signature = inspect.signature(fn)
    parameters = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()]

    @functools.wraps(fn, assigned=("__module__", "__name__", "__qualname__", "__doc__"), updated=())
    def command(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    command.__signature__ = signature.replace(parameters=parameters,  # type: ignore[attr-defined]
                                              return_annotation=hints.get("return", signature.return_annotation))
    command.__annotations__ = hints
    return command


def flowed(text: str) -> str:
    """``text`` with each paragraph's lines joined, so that help flows to the terminal's width
    instead of breaking where the docstring's source lines break (typer's rich help keeps them);
    a paragraph opening with ``\\b`` is kept as it is (click's mark for verbatim text).

    >>> flowed("Counts per set (--set: of one\\n    set).\\n\\nExample: citegraph stats")
    'Counts per set (--set: of one set).\\n\\nExample: citegraph stats'
    """
    paragraphs = text.split("\n\n")
    return "\n\n".join(p if p.lstrip().startswith("\b") else " ".join(line.strip() for line in p.splitlines())
                       for p in paragraphs)


def summary_of(fn: Callable[..., Any]) -> str:
    """The help text of command function ``fn`` as the root help lists it: its docstring
    (:func:`inspect.getdoc`) :func:`flowed`, the first paragraph (typer's rule)."""
    import inspect

    text = inspect.getdoc(fn) or ""
    return inspect.cleandoc(flowed(text)).split("\n\n")[0].strip()
