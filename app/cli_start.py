"""The fast start of ``citegraph``: a one-set command line runs without importing typer.

typer (with its click) costs more to import than a one-set query costs to answer. When the
command line is one of :data:`FAST_COMMANDS` given plainly (known options, each once, values
that need no more than typer's own conversion), :func:`parse` reads the command's declarations
(:mod:`app.cli_params`, the same ones typer reads) and :func:`app.cli.main` runs the command directly. Anything else
(``--help``, a usage error, an option value starting with ``-``, a short option with its value
attached, any other command) goes to typer, which prints and exits exactly as it always did; so
does a usage error a command raises itself (``--json`` with ``--format csv``), which every
command raises before it writes anything. tests/app/test_cli_start.py proves the two parsers
agree on every option of every fast command.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin
from collections.abc import Callable

__all__ = ["CHECKED_WHEN_GIVEN", "FAST_COMMANDS", "Spec", "installed_version", "parse", "specs_of", "usage_error", "version"]

FAST_COMMANDS = frozenset({"rests-on", "records", "stats", "check", "render", "export", "history", "search",
                           "documents", "sets"})
"""The commands started without typer when their command line is plain: the read commands."""

_UNDERSTOOD = frozenset({"help", "metavar", "min", "max", "show_choices"})
"""Declaration keywords the fast parser applies as typer does (the others: typer parses)."""
CHECKED_WHEN_GIVEN = frozenset({"file_okay", "dir_okay"})
"""Keywords that only check a value given: such an option given goes to typer."""


def version() -> str:
    """``citegraph <version>`` of the installed distribution, as :func:`importlib.metadata.version`
    finds it: the first ``citegraph`` metadata folder on ``sys.path`` (:func:`installed_version`),
    else importlib's own search."""
    found = installed_version("citegraph")
    if found is None:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as installed

        try:
            found = installed("citegraph")
        except PackageNotFoundError:
            return "citegraph (not installed; run from a source tree)"
    return f"citegraph {found}"


def installed_version(name: str) -> str | None:
    """The ``Version`` of distribution ``name`` from the first ``NAME-*.dist-info`` or
    ``NAME*.egg-info`` folder of the ``sys.path`` folders, in their order and their listing's (the
    search of :class:`importlib.metadata.MetadataPathFinder`), read without importlib.metadata, which
    indexes every installed distribution (about 30 ms of imports and 40 ms of search). None when a
    path entry is no folder (a zip), another finder could answer, or the metadata is not plain."""
    import importlib.machinery

    if any(getattr(f, "find_distributions", None) is not None and f is not importlib.machinery.PathFinder
           for f in sys.meta_path):
        return None
    wanted = name.lower().replace("-", "_")
    for entry in sys.path:
        folder = entry or "."
        if folder.lower().endswith(".egg"):
            return None  # an egg's EGG-INFO: importlib reads it
        try:
            names = os.listdir(folder)
        except NotADirectoryError:
            return None  # a zip archive on the path: importlib reads it
        except OSError:
            continue
        for child in names:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")) \
                    and low.rpartition(".")[0].partition("-")[0].replace("-", "_").replace(".", "_") == wanted:
                return _version_header(os.path.join(folder, child))
    return None


def _version_header(folder: str) -> str | None:
    """The ``Version:`` header of the ``METADATA`` (or ``PKG-INFO``) file in ``folder``; None when
    there is no such file or header, or the header is folded."""
    for file in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, file), encoding="utf-8") as handle:
                for line in handle:
                    if line in ("\n", "\r\n"):
                        return None
                    key, colon, value = line.partition(":")
                    if colon and key.lower() == "version":
                        value = value.lstrip(" \t").rstrip("\r\n")  # as the email parser reads a header
                        following = next(handle, "")
                        return None if following[:1] in (" ", "\t") or not value else value
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return None
        return None
    return None


class Spec:
    """One parameter as the fast parser reads it: its declaration, value type, and default."""

    __slots__ = ("decl", "default", "kind", "many", "required")

    def __init__(self, decl: Any, kind: Any, many: bool, default: Any, required: bool):
        self.decl, self.kind, self.many, self.default, self.required = decl, kind, many, default, required


def _kind(base: Any) -> tuple[Any, bool] | None:
    """The value type of a parameter's type hint (``str``, ``int``, ``bool``, ``Path`` or an
    ``Enum``) and whether it takes many values (``list[...]``); None for any other type."""
    if get_origin(base) is Union:
        inner = [a for a in get_args(base) if a is not type(None)]
        if len(inner) != 1:
            return None
        base = inner[0]
    many = get_origin(base) is list
    if many:
        (base,) = get_args(base)
    if base in (str, int, bool, Path) or (isinstance(base, type) and issubclass(base, Enum)):
        return base, many
    return None


def specs_of(fn: Callable[..., Any]) -> tuple[dict[str, Spec], dict[str, str], list[str]] | None:
    """The parameters of command ``fn`` by name, its option names (``--set``, ``-n``) to parameter
    names, and its arguments in order; None when a declaration is one the fast parser leaves to typer."""
    import inspect
    import typing

    from app.cli_params import Arg, Opt, Param

    hints = typing.get_type_hints(fn, include_extras=True)
    specs: dict[str, Spec] = {}
    options: dict[str, str] = {}
    arguments: list[str] = []
    for p in inspect.signature(fn).parameters.values():
        hint = hints.get(p.name)
        if get_origin(hint) is not Annotated:
            return None
        base, *extras = get_args(hint)
        decls = [e for e in extras if isinstance(e, Param)]
        kind = _kind(base)
        if len(decls) != 1 or kind is None or set(decls[0].kwargs) - _UNDERSTOOD - CHECKED_WHEN_GIVEN:
            return None
        decl = decls[0]
        required = p.default is inspect.Parameter.empty
        specs[p.name] = Spec(decl, kind[0], kind[1], None if required else p.default, required)
        if isinstance(decl, Opt):
            if kind[1] or not decl.args or any(not n.startswith("-") or "/" in n for n in decl.args):
                return None
            options.update(dict.fromkeys(decl.args, p.name))
        elif isinstance(decl, Arg) and not decl.args:
            arguments.append(p.name)
        else:
            return None
    return specs, options, arguments


def _value(spec: Spec, raw: str) -> Any:
    """``raw`` converted as typer converts it for ``spec``; None when typer would refuse it or
    check more (typer then reports it)."""
    if set(spec.decl.kwargs) & CHECKED_WHEN_GIVEN:
        return None
    kind = spec.kind
    if kind is str:
        return raw
    if kind is int:
        if not (raw.isascii() and raw.isdigit()):
            return None
        n = int(raw)
        low, high = spec.decl.kwargs.get("min"), spec.decl.kwargs.get("max")
        return None if (low is not None and n < low) or (high is not None and n > high) else n
    if kind is Path:
        if os.path.exists(raw) and not os.access(raw, os.R_OK):  # click's Path is readable=True
            return None
        return Path(raw)
    if issubclass(kind, Enum):
        return next((m for m in kind if m.value == raw), None)
    return None


def parse(fn: Callable[..., Any], argv: list[str]) -> dict[str, Any] | None:
    """The keyword arguments typer would call command ``fn`` with for ``argv`` (the words after
    the command's name), or None when the command line is not plain (see the module's text)."""
    found = specs_of(fn)
    if found is None:
        return None
    specs, options, arguments = found
    given: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word.startswith("-"):
            name, eq, attached = word.partition("=") if word.startswith("--") else (word, "", "")
            target = options.get(name)
            if target is None or target in given:
                return None
            spec = specs[target]
            if spec.kind is bool:
                if eq:
                    return None
                given[target] = True
            else:
                if not eq:
                    i += 1
                    if i == len(argv):
                        return None
                    attached = argv[i]
                if attached.startswith("-"):
                    return None
                value = _value(spec, attached)
                if value is None:
                    return None
                given[target] = value
        else:
            positional.append(word)
        i += 1
    for name in arguments:
        spec = specs[name]
        if spec.many:
            if positional:  # paths to read: typer checks and converts them
                return None
            continue
        if positional:
            value = _value(spec, positional.pop(0))
            if value is None:
                return None
            given[name] = value
    if positional:
        return None
    if any(spec.required and name not in given for name, spec in specs.items()):
        return None
    return {name: given.get(name, spec.default) for name, spec in specs.items()}


def usage_error(exc: BaseException) -> bool:
    """Whether ``exc`` is typer's or click's (a usage error, ``Exit``, ``Abort``), which click reports itself."""
    return type(exc).__module__.split(".", 1)[0] in ("typer", "click")
