"""Finding things from the command line: ``citegraph sets``, ``documents``, ``records``
and ``search``.

Registered on :data:`app.cli_registry.commands` (``app/cli.py`` imports this module). Thin: open the store, call
one function of :mod:`queries.catalog`, :mod:`queries.records` or :mod:`queries.search`, print it
with :func:`app.cli_tables.emit` (``--format table|json|csv``, ``--json`` for ``--format json``; the JSON is what the REST API
answers). Unknown sets get the closest names and the list of sets (exit 66).
"""

from __future__ import annotations

from typing import Annotated, Optional


from app.cli_params import Arg, Opt
from app.cli_registry import (FreshOpt, HomeOpt, JsonOpt, Neo4jOpt, SetOpt, VersionOpt, at_version, commands, command_store, counted, handles_errors, out)
from app.cli_tables import Column, FormatOpt, Marked, VerboseOpt, chosen_format, emit
from queries.shapes import plain

__all__ = ["sets_cmd", "documents_cmd", "records_cmd", "search_cmd"]


@commands.command("sets")
@handles_errors
def sets_cmd(fmt: FormatOpt = None, as_json: JsonOpt = False, fresh: FreshOpt = False, neo4j: Neo4jOpt = None,
             home: HomeOpt = None) -> None:
    """The analysis sets in the store, with their members and sizes.

    Example: citegraph sets; citegraph sets --format csv > sets.csv
    """
    from queries.catalog import analysis_sets

    with command_store(neo4j, home) as store:
        found = analysis_sets(store, fresh=fresh)
    emit(out, fmt=chosen_format(fmt, as_json), title="Analysis sets",
         columns=[Column("set"), Column("system"), Column("documents", "number"), Column("statements", "number"),
                  Column("records", "number")],
         rows=[(s.id, s.system, len(s.documents), s.statements, s.records) for s in found],
         data={"data": [plain(s) for s in found], "count": len(found)},
         footer=[f"{counted(len(found), 'set')}, {counted(sum(len(s.documents) for s in found), 'document')}"])


@commands.command("documents")
@handles_errors
def documents_cmd(set_id: SetOpt = None, fmt: FormatOpt = None, as_json: JsonOpt = False, neo4j: Neo4jOpt = None, home: HomeOpt = None) -> None:
    """The members (documents) in the store, or of one set, with their format and title.

    Example: citegraph documents --set tolaria
    """
    from queries.catalog import documents_of

    with command_store(neo4j, home) as store:
        found = documents_of(store, set_id=set_id)
    emit(out, fmt=chosen_format(fmt, as_json), title="Documents" + (f" of {set_id}" if set_id else ""),
         columns=[Column("document"), Column("format"), Column("title", "text")],
         rows=[(d.id, d.member.format, d.member.title) for d in found],
         data={"data": [plain(d) for d in found], "count": len(found)},
         footer=[counted(len(found), "document")])


@commands.command("records")
@handles_errors
def records_cmd(
    text: Annotated[Optional[str], Arg(metavar="TEXT", help="Only records whose ID or declared label holds this text (any case).")] = None,
    set_id: SetOpt = None,
    kind: Annotated[Optional[str], Opt("--kind", help="Record kind: RTE, OBJ, CMP, CLM, ABS, BAP (any case).")] = None,
    analyst: Annotated[Optional[str], Opt("--analyst", help="RT, MEM or EPI (any case).")] = None,
    fmt: FormatOpt = None,
    as_json: JsonOpt = False,
    verbose: VerboseOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """The records in the store matching every filter: ID, set, kind, analyst, declaration, citations.

    Example: citegraph records --set tolaria --kind RTE; citegraph records mcp
    """
    from queries.records import records_of

    with command_store(neo4j, home) as store:
        found = records_of(store, set_id=set_id, kind=kind.upper() if kind else None,
                           analyst=analyst.upper() if analyst else None, text=text)
    emit(out, fmt=chosen_format(fmt, as_json), title="Records", verbose=verbose, fold=50,
         columns=[Column("record"), Column("set"), Column("declared in"), Column("citations", "number"),
                  Column("label", "text")],
         rows=[(r.record_id, r.set, r.declared_in or "", r.citations, r.label) for r in found],
         data={"data": [plain(r) for r in found], "count": len(found)},
         footer=[f"{counted(len(found), 'record')} ({sum(r.declared_in is not None for r in found)} declared)"])


@commands.command("search")
@handles_errors
def search_cmd(
    text: Annotated[str, Arg(metavar="TEXT", help='Words to find in statements: compare-and-swap, "the note", vau* (every term must occur).')],
    set_id: SetOpt = None,
    limit: Annotated[int, Opt("--limit", "-n", min=1, max=200, help="Most hits shown.")] = 20,
    version: VersionOpt = None,
    fmt: FormatOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Full-text search over statements: ranked hits, the matches highlighted, and the statement ids to pass on.

    A term written without spaces is a phrase of its words (compare-and-swap, mcp-server/vault.js);
    "quoted words" are one phrase; vau* matches every word it begins. Ranking: most matches first,
    then the shorter statement, then document order.

    Example: citegraph search compare-and-swap; citegraph search "the note" write* --set tolaria (--version 1:
    in the set as it was at version 1)
    """
    from queries.search import search

    with command_store(neo4j, home) as store:
        report = search(at_version(store, set_id, version), text, set_id=set_id, limit=limit)
    fmt = chosen_format(fmt, as_json)
    rows = [(h.rank, h.statement, h.matches, Marked(h.snippet, h.highlights)) for h in report.hits]  # matches marked
    more = f"; the best {len(report.hits)} shown (--limit)" if report.total > len(report.hits) else ""
    emit(out, fmt=fmt, title=f"Statements holding {text}" + (f" in {set_id}" if set_id else ""),
         columns=[Column("rank", "number"), Column("statement"), Column("matches", "number"), Column("snippet", "text")],
         rows=rows, data=plain(report),
         footer=[f"{counted(report.total, 'statement')} {'holds' if report.total == 1 else 'hold'} it{more}"])
