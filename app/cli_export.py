"""``citegraph export``: a set's graph, or the whole store's, as GraphML, node-link JSON or CSV
tables.

Registered on :data:`app.cli_registry.commands` (``app/cli.py`` imports this module). Thin: open the store, take
:func:`queries.export.graph_of`, write it with :mod:`render.export`. The same bytes as ``GET /export``.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional


from app.cli_params import Opt
from app.cli_registry import (HomeOpt, Neo4jOpt, SetOpt, VersionOpt, at_version, commands, command_settings,
                              command_store, counted, err, handles_errors)

__all__ = ["ExportFormat", "export_cmd"]


class ExportFormat(str, Enum):
    """What ``citegraph export`` writes."""

    graphml = "graphml"
    json = "json"
    csv = "csv"


@commands.command("export")
@handles_errors
def export_cmd(
    fmt: Annotated[ExportFormat, Opt("--format", help="graphml (Gephi, yEd, networkx), json (node-link, networkx, d3) or csv (nodes.csv and edges.csv, pandas).", show_choices=True)],
    out_path: Annotated[Optional[Path], Opt("--out", "-o", metavar="PATH", help="File to write (a folder for csv); standard output when left out (graphml, json).")] = None,
    set_id: SetOpt = None,
    version: VersionOpt = None,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Export a set's graph, or the whole store's, with every node and edge and their properties.

    The same store gives the same bytes. Load it back with networkx.read_graphml(PATH,
    force_multigraph=True), networkx.node_link_graph(json.load(f), edges="edges") or
    pandas.read_csv(PATH/nodes.csv).

    Example: citegraph export --set tolaria --format graphml --out tolaria.graphml (--version 1: the set as it
    was at version 1)
    """
    import sys

    from app.outputs import check_output, protected_files, write_output
    from queries.export import graph_of
    from render.export import csv_tables, graphml, node_link

    if fmt == ExportFormat.csv and out_path is None:
        from typer import BadParameter

        raise BadParameter("--format csv writes two tables: give --out FOLDER", param_hint="--out")
    protected = protected_files(command_settings(neo4j, home))
    tables = ("nodes.csv", "edges.csv") if fmt == ExportFormat.csv else ()
    for target in [out_path, *(out_path / name for name in tables)] if out_path is not None else []:
        check_output(target, protected)  # before the store is read: a refused output costs nothing
    with command_store(neo4j, home) as store:
        snapshot = graph_of(at_version(store, set_id, version), set_id=set_id)
    what = f"{counted(len(snapshot.nodes), 'node')}, {counted(len(snapshot.edges), 'edge')}"
    if fmt == ExportFormat.csv and out_path is not None:  # csv without --out was refused above
        out_path.mkdir(parents=True, exist_ok=True)
        for name, data in csv_tables(snapshot).items():
            write_output(out_path / name, data, protected)
            err.print(f"wrote {counted(len(data), 'byte')} to {out_path / name}", markup=False, highlight=False)
        err.print(f"exported {what}", markup=False, highlight=False)
        return
    data = graphml(snapshot) if fmt == ExportFormat.graphml else node_link(snapshot)
    if out_path is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    write_output(out_path, data, protected)
    err.print(f"wrote {counted(len(data), 'byte')} ({fmt.value}: {what}) to {out_path}", markup=False, highlight=False)
