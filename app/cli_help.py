"""The command group of ``citegraph``: help pages without clutter, and commands made when used.

Help without clutter: flags show no ``<bool>``, arguments are named in upper
case without braces (``citegraph rests-on [OPTIONS] RECORD``), and ``citegraph --version``.
:class:`TidyGroup` tidies each command's parameters the first time the command is looked up,
before click parses or prints help.

Start-up: typer turns every registered command into a click command (reading its signature and
evaluating its type hints, about 1 ms each) before it parses the command line. A
:class:`CommandApp` keeps its commands aside and :class:`TidyGroup` converts only the one that is
run; the root ``--help`` lists the others from their help text alone. And typer's help module
imports ``rich.markdown`` (with markdown-it) and ``rich.traceback``, which help in rich markup
mode never uses: :func:`defer_unused_help_imports` makes them load on first use instead (together
about 35 ms of the 0.1 s a help page costs).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from types import ModuleType
from typing import Any, ClassVar
from collections.abc import Callable, Iterator, MutableMapping

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.main import get_command_from_info, get_command_name
from typer.models import CommandFunctionType, CommandInfo

from app.cli_params import flowed
from app.cli_start import version

__all__ = ["CommandApp", "TidyGroup", "defer_unused_help_imports", "flowed", "tidy", "version"]


class _Argument(TyperArgument):
    """An argument shown as ``NAME`` (``[NAME]`` when optional, ``NAME...`` when repeated)."""

    def _usage(self) -> str:
        name = self.metavar or (self.name or "").upper()
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return name if self.required else f"[{name}]"

    def _usage_display_name(self) -> str:  # typer 0.29's usage line
        return self._usage()

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:  # typer 0.28's usage line and help
        return self._usage() if usage else (self.metavar or (self.name or "").upper())

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the argument's help says what it takes


class _Command(TyperCommand):
    """A command whose help page is printed by typer's rich help without its unused imports
    (:func:`defer_unused_help_imports`)."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        defer_unused_help_imports()
        super().format_help(ctx, formatter)


def tidy(command: Any, ctx: Any = None) -> Any:
    """``command`` with flags (``--help`` too, made for ``ctx``) shown without a type, arguments
    in upper case and its help :func:`flowed`; idempotent."""
    if command.help:
        command.help = flowed(command.help)
    params = list(command.params)
    if ctx is not None:
        help_option = command.get_help_option(ctx)  # made once per command and kept
        if help_option is not None:
            params.append(help_option)
    if type(command) is TyperCommand:
        command.__class__ = _Command
    for param in params:
        if isinstance(param, TyperOption) and (param.is_flag or param.count):
            param.metavar = ""
        elif isinstance(param, TyperArgument) and not isinstance(param, _Argument):
            if param.metavar is None:
                param.metavar = (param.name or "").upper() + ("..." if param.nargs != 1 else "")
            param.__class__ = _Argument
    return command


class _Commands(MutableMapping[str, Any]):
    """A group's commands by name, in the order they were registered: a command kept aside is
    made into a click command (and tidied) the first time it is looked up."""

    def __init__(self, deferred: dict[str, CommandInfo], made: MutableMapping[str, Any],
                 make: Callable[[CommandInfo], Any]):
        self._deferred, self._made, self._make = deferred, dict(made), make

    def __getitem__(self, name: str) -> Any:
        if name not in self._made:
            self._made[name] = self._make(self._deferred[name])  # KeyError: no such command
        return self._made[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._made[name] = command

    def __delitem__(self, name: str) -> None:
        self._deferred.pop(name, None)
        self._made.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self._deferred
        yield from (name for name in self._made if name not in self._deferred)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def summary(self, name: str) -> Any:
        """The command ``name`` as its group's help lists it (name, help, panel, hidden,
        deprecated), made without reading its parameters; the command itself once it is made."""
        if name in self._made or name not in self._deferred:
            return self.get(name)
        info = self._deferred[name]
        text = inspect.getdoc(info.callback) if info.help is None else inspect.cleandoc(info.help)
        return TyperCommand(name=name, help=flowed(text) if text else text, short_help=info.short_help,
                            hidden=info.hidden, deprecated=info.deprecated, rich_help_panel=info.rich_help_panel)


class TidyGroup(TyperGroup):
    """Typer's group, tidying its own help and each command's (see :func:`tidy`); the commands of
    the :class:`CommandApp` that made it (:attr:`deferred`) are converted when looked up."""

    deferred: ClassVar[dict[str, CommandInfo]] = {}
    pretty_exceptions_short: ClassVar[bool] = True

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.commands = _Commands(self.deferred, self.commands, self._make)
        self._listing = False

    def _make(self, info: CommandInfo) -> Any:
        import copy

        from app.cli_params import typer_params

        callback = info.callback
        if callback is not None:  # its declarations as typer's (app.cli_params); the kept info unchanged
            info = copy.copy(info)
            info.callback = typer_params(callback)
        return get_command_from_info(info, pretty_exceptions_short=self.pretty_exceptions_short,
                                     rich_markup_mode=self.rich_markup_mode)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # names only: nothing is converted to list them

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing and isinstance(self.commands, _Commands):
            return self.commands.summary(cmd_name)
        command = self.commands.get(cmd_name)
        return tidy(command, ctx) if command is not None else None

    def make_context(self, info_name: Any, args: list[str], parent: Any = None, **settings: Any) -> Any:
        ctx = super().make_context(info_name, args, parent=parent, **settings)
        tidy(self, ctx)
        return ctx

    def format_help(self, ctx: Any, formatter: Any) -> None:
        tidy(self, ctx)
        defer_unused_help_imports()
        self._listing = True  # the listing needs each command's help text, not its parameters
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


class CommandApp(typer.Typer):
    """A :class:`typer.Typer` whose commands are kept aside as they are registered and made into
    click commands only when looked up (by its :class:`TidyGroup`); everything else is typer's."""

    def __init__(self, **options: Any):
        self.deferred: dict[str, CommandInfo] = {}
        group = type("TidyGroup", (TidyGroup,), {"deferred": self.deferred,
                                                 "pretty_exceptions_short": options.get("pretty_exceptions_short", True)})
        super().__init__(cls=group, **options)

    def command(self, name: str | None = None, **options: Any) -> Callable[[CommandFunctionType], CommandFunctionType]:
        register = super().command(name, **options)

        def keep_aside(fn: CommandFunctionType) -> CommandFunctionType:
            register(fn)
            info = self.registered_commands.pop()
            self.deferred[info.name or get_command_name(fn.__name__)] = info
            return fn

        return keep_aside


class _Deferred(type):
    """The class of a stand-in for ``module.name`` that imports the real class when it is called,
    asked for an attribute or used in ``isinstance``."""

    def _real(cls) -> type:
        return getattr(importlib.import_module(cls._module), cls.__name__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __getattr__(cls, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(cls._real(), attr)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._real())


class _StandIn(ModuleType):
    """A module standing in for ``rich.markdown`` or ``rich.traceback`` while ``typer.rich_utils``
    is imported: each name asked for is a :class:`_Deferred` stand-in."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Deferred(name, (), {"_module": self.__name__})


_UNUSED_BY_HELP = ("rich.markdown", "rich.traceback")


def defer_unused_help_imports() -> None:
    """Import ``typer.rich_utils`` (typer's rich help and error pages) without importing
    ``rich.markdown`` and ``rich.traceback``: while it is imported those two are stand-ins whose
    names import the real modules on first use, so a Markdown help text or a pretty traceback
    still works. Nothing is done when it is already imported; if the import fails with the
    stand-ins, it is imported plainly."""
    if "typer.rich_utils" in sys.modules:
        return
    standing_in = [name for name in _UNUSED_BY_HELP if name not in sys.modules]
    for name in standing_in:
        sys.modules[name] = _StandIn(name)
    try:
        importlib.import_module("typer.rich_utils")
    except ImportError:
        sys.modules.pop("typer.rich_utils", None)
    finally:
        for name in standing_in:
            del sys.modules[name]
    importlib.import_module("typer.rich_utils")
