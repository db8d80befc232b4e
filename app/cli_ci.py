"""``--format sarif|junit|github`` of ``citegraph impact`` and ``citegraph check``: the formats CI
reads, written by :mod:`render.ci` (SARIF 2.1.0, JUnit XML, GitHub workflow annotations)."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

from app.cli_params import Opt
from app.cli_tables import TableFormat

__all__ = ["ReportFormat", "ReportFormatOpt", "CheckFormat", "CheckFormatOpt", "BaseOpt", "CI_FORMATS", "table_format", "write_ci"]


class ReportFormat(str, Enum):
    """What ``impact`` and ``check`` print: the table formats, or one that CI reads."""

    table = "table"
    json = "json"
    csv = "csv"
    sarif = "sarif"
    junit = "junit"
    github = "github"


class CheckFormat(str, Enum):
    """What ``check`` prints: its findings (``table``), ``json``, or one that CI reads (no ``csv``)."""

    table = "table"
    json = "json"
    sarif = "sarif"
    junit = "junit"
    github = "github"


CI_FORMATS = ("sarif", "junit", "github")

ReportFormatOpt = Annotated[Optional[ReportFormat], Opt(
    "--format", help="table (default), json (the REST body), csv, or for CI: sarif (SARIF 2.1.0, for code "
                     "scanning), junit (JUnit XML) or github (workflow annotations).", show_choices=True)]
CheckFormatOpt = Annotated[Optional[CheckFormat], Opt(
    "--format", help="table (default), json (the REST body), or for CI: sarif (SARIF 2.1.0, for code scanning), "
                     "junit (JUnit XML) or github (workflow annotations).", show_choices=True)]
BaseOpt = Annotated[Optional[Path], Opt(
    "--base", help="Folder the paths of sarif, junit and github output are relative to (default: the current "
                   "folder, the checkout a CI job runs in).", file_okay=False)]


def table_format(fmt: ReportFormat | CheckFormat | None, as_json: bool) -> TableFormat | None:
    """The :class:`TableFormat` asked for, or None when ``fmt`` is a CI format.

    Raises
    ------
    typer.BadParameter
        ``--json`` with another ``--format`` (exit 2).
    """
    from app.cli_tables import chosen_format

    if fmt is not None and fmt.value in CI_FORMATS:
        if as_json:
            from typer import BadParameter

            raise BadParameter(f"--json and --format {fmt.value} ask for different outputs; give one")
        return None
    return chosen_format(TableFormat(fmt.value) if fmt is not None else None, as_json)


def write_ci(fmt: ReportFormat | CheckFormat, report: Any, *, base: Path | None) -> None:
    """Write ``report`` (an ImpactReport, RepositoryImpact or CheckReport) to standard output as ``fmt``."""
    from importlib.metadata import PackageNotFoundError, version

    from queries.impact import ImpactReport, RepositoryImpact
    from render import ci

    base = base or Path.cwd()
    impact = isinstance(report, (ImpactReport, RepositoryImpact))
    if fmt.value == "sarif":
        try:
            tool_version = version("citegraph")
        except PackageNotFoundError:
            tool_version = "0"
        text = (ci.impact_sarif if impact else ci.check_sarif)(report, base=base, tool_version=tool_version)
    elif fmt.value == "junit":
        text = (ci.impact_junit if impact else ci.check_junit)(report, base=base)
    else:
        text = (ci.impact_annotations if impact else ci.check_annotations)(report, base=base)
    sys.stdout.write(text)
    sys.stdout.flush()
