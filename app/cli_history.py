"""``citegraph history``, ``diff``, ``runs`` and ``compare``: versions of a set and the
independent runs of a system.

Registered on :data:`app.cli_registry.commands` (``app/cli.py`` imports this module). Thin: open the store, call
:mod:`queries.history` or :mod:`queries.runs`, print the page of :mod:`render.history` (plain
text by default, ``--format md|html``) or the result's JSON (``--json``).
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Optional
from collections.abc import Callable


from app.cli_params import Arg, Opt
from app.cli_registry import (HomeOpt, JsonOpt, Neo4jOpt, RenderFormatOpt, commands, command_settings, command_store,
                              handles_errors, print_json)

__all__ = ["history_cmd", "diff_cmd", "runs_cmd", "compare_cmd"]


def _show(result: Any, page: Callable[[Any], Any], fmt: Any, as_json: bool) -> None:
    from render import Format
    from render.writers import write

    if as_json:
        from queries.shapes import plain

        print_json(plain(result))
        return
    text = write(page(result), fmt or Format.TXT)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


@commands.command("history")
@handles_errors
def history_cmd(
    set_id: Annotated[str, Arg(metavar="SET", help="Analysis set (run-id or system slug).")],
    fmt: RenderFormatOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """The kept versions of SET, newest first: number, ingest time, members' SHA-256, counts.

    Every changed re-ingest of a set keeps the previous version (CITEGRAPH_VERSIONS_KEPT, default 10).
    Example: citegraph history tolaria
    """
    from queries.set_history import history
    from render.history import history_page

    with command_store(neo4j, home) as store:
        result = history(store, set_id)
    _show(result, history_page, fmt, as_json)


@commands.command("diff")
@handles_errors
def diff_cmd(
    set_id: Annotated[str, Arg(metavar="SET", help="Analysis set (run-id or system slug).")],
    from_version: Annotated[Optional[int], Opt("--from", min=1, metavar="N", help="Earlier version (default: the one before --to).")] = None,
    to_version: Annotated[Optional[int], Opt("--to", min=1, metavar="M", help="Later version (default: the latest).")] = None,
    max_depth: Annotated[Optional[int], Opt("--max-depth", min=1, max=16, help="Maximum evidence steps of the rests-on answers compared.")] = None,
    fmt: RenderFormatOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """What changed in SET between two versions: members, records, statements (with a unified
    diff), citations, quotations, Limitations rows and the rests-on answers that moved.

    Example: citegraph diff tolaria --from 1 --to 2
    """
    from queries.history import diff_versions
    from render.history import diff_page

    with command_store(neo4j, home) as store:
        result = diff_versions(store, set_id, from_version, to_version,
                               max_depth=command_settings(neo4j, home).depth(max_depth))
    _show(result, diff_page, fmt, as_json)


@commands.command("runs")
@handles_errors
def runs_cmd(
    system: Annotated[str, Arg(metavar="SYSTEM", help="System name or slug, e.g. instinctual-memory.")],
    fmt: RenderFormatOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """The analysis sets analysing SYSTEM: run-id, date, pinned source revisions, cutoff.

    Example: citegraph runs instinctual-memory
    """
    from queries.runs import runs_of
    from render.history import runs_page

    with command_store(neo4j, home) as store:
        result = runs_of(store, system)
    _show(result, runs_page, fmt, as_json)


@commands.command("compare")
@handles_errors
def compare_cmd(
    set_a: Annotated[str, Arg(metavar="SET_A", help="One run (analysis set).")],
    set_b: Annotated[str, Arg(metavar="SET_B", help="Another run of the same system.")],
    version_a: Annotated[Optional[int], Opt("--version-a", min=1, metavar="N", help="Version of SET_A (default: the latest).")] = None,
    version_b: Annotated[Optional[int], Opt("--version-b", min=1, metavar="N", help="Version of SET_B (default: the latest).")] = None,
    fmt: RenderFormatOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Where two runs of one system agree: records matched by slug ID or by kind and label (others
    unmatched, with candidates that cite the same source files), status and field agreement,
    source files per run, each run's Limitations.

    Example: citegraph compare AAS-2026-10-01-instinctual-memory-01 AAS-2026-09-30-instinctual-memory-02
    """
    from queries.runs import compare_runs
    from render.history import comparison_page

    with command_store(neo4j, home) as store:
        result = compare_runs(store, set_a, set_b, version_a=version_a, version_b=version_b)
    _show(result, comparison_page, fmt, as_json)
