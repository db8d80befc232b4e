"""The command group typer builds from the ``citegraph`` app, for tests that walk its commands."""

from __future__ import annotations

from typer.core import TyperGroup
from typer.main import get_command

from app.cli import cli


def cli_group() -> TyperGroup:
    """The ``citegraph`` command group (typer's ``get_command`` types it as any command)."""
    group = get_command(cli)
    assert isinstance(group, TyperGroup), type(group)
    return group
