"""The options and arguments of the ``citegraph`` commands, declared once and without typer.

A command's parameter is written ``Annotated[T, Opt("--set", help=...)]`` (or ``Arg(...)``) with
exactly typer's arguments: typer receives ``typer.Option(*args, **kwargs)`` of the same
declaration when the command is made (:func:`typer_params`), and the fast start of the one-set
commands (:mod:`app.cli_start`) parses the command line with it without importing typer.
"""

from __future__ import annotations

from typing import Annotated, Any, get_args, get_origin
from collections.abc import Callable

__all__ = ["Param", "Opt", "Arg", "Exit", "typer_params"]


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
