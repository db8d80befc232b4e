"""``citegraph copy --to URI``: move the embedded store's content into Neo4j.

Registered on :data:`app.cli_registry.commands` (``app/cli.py`` imports this module). Thin: open both stores
through :func:`app.wiring.open_store`, call :func:`graph.transfer.copy_store`, print.
"""

from __future__ import annotations

from typing import Annotated


from app.cli_params import Opt
from app.cli_registry import HomeOpt, JsonOpt, commands, command_settings, counted, err, handles_errors, out, print_json

__all__ = ["copy_cmd"]


@commands.command("copy")
@handles_errors
def copy_cmd(
    to: Annotated[str, Opt("--to", metavar="URI", help="Neo4j server to copy into (bolt://, neo4j:// or neo4j+s://); user, password and database from CITEGRAPH_NEO4J_USER/_PASSWORD/_DATABASE.")],
    as_json: JsonOpt = False,
    home: HomeOpt = None,
) -> None:
    """Copy everything in the embedded store (--home) into Neo4j, one atomic write per analysis set.

    Sets already in Neo4j are replaced by the embedded version; sets only in Neo4j are left alone;
    copying twice changes nothing. Example: citegraph copy --to bolt://localhost:7687
    """
    from app.cli_progress import progress_bar
    from app.wiring import open_store, store_location
    from graph.transfer import copy_store

    settings = command_settings(None, home)
    with open_store(settings.replace(store="embedded")) as source:
        err.print(f"store: {store_location(source)}", markup=False, highlight=False)
        with open_store(settings.replace(store="neo4j", neo4j_uri=to)) as target:
            err.print(f"copying to: {store_location(target)}", markup=False, highlight=False)
            with progress_bar(err, "copying", unit="sets") as advance:
                report = copy_store(source, target, progress=lambda done, total: advance(1 if done else 0, total=total))
    if as_json:
        print_json({"sets": list(report.sets), "documents": report.documents, "reviews": report.reviews,
                     "nodes": report.nodes, "edges": report.edges})
        return
    out.print(f"copied {counted(len(report.sets), 'set')} ({counted(report.documents, 'document')}, "
              f"{counted(report.reviews, 'review')}) to {to}; "
              f"it now holds {counted(report.nodes, 'node')} and {counted(report.edges, 'edge')}", markup=False,
              highlight=False)
