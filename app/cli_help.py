"""Help pages without clutter (issue #15, item 8): flags show no ``<bool>``, arguments are named in
upper case without braces (``citegraph rests-on [OPTIONS] RECORD``), and ``citegraph --version``.

:class:`TidyGroup` is the command group's class (``typer.Typer(cls=TidyGroup)``); it tidies each
command's parameters the first time the command is looked up, before click parses or prints help.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperGroup, TyperOption

__all__ = ["TidyGroup", "flowed", "tidy", "version"]


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
    for param in params:
        if isinstance(param, TyperOption) and (param.is_flag or param.count):
            param.metavar = ""
        elif isinstance(param, TyperArgument) and not isinstance(param, _Argument):
            if param.metavar is None:
                param.metavar = (param.name or "").upper() + ("..." if param.nargs != 1 else "")
            param.__class__ = _Argument
    return command


def version() -> str:
    """``citegraph <version>`` of the installed distribution."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return f"citegraph {installed('citegraph')}"
    except PackageNotFoundError:
        return "citegraph (not installed; run from a source tree)"


class TidyGroup(TyperGroup):
    """Typer's group, tidying its own help and each command's (see :func:`tidy`)."""

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        return tidy(command, ctx) if command is not None else None

    def make_context(self, info_name: Any, args: list[str], parent: Any = None, **extra: Any) -> Any:
        ctx = super().make_context(info_name, args, parent=parent, **extra)
        tidy(self, ctx)
        return ctx

    def format_help(self, ctx: Any, formatter: Any) -> None:
        tidy(self, ctx)
        super().format_help(ctx, formatter)
