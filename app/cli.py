"""The ``citegraph`` command line: thin commands over ``ingest/`` and ``queries/``.

Every command accepts ``--neo4j URI`` (use that Neo4j server instead of the embedded store) and
``--home DIR`` (the embedded store's folder). Errors print ``path:line: message`` and a hint, and
exit with the code from :mod:`app.errors`.

This module holds the console script (:func:`main`) and the core commands; every command module
registers on :data:`app.cli_registry.commands`, and this module imports them all (below), the only place
that does: no command module imports this one. ``app.cli.cli`` is the typer application of them all.
"""

from __future__ import annotations

import gc
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

from app.cli_ci import BaseOpt, CheckFormatOpt
from app.cli_params import Arg, Opt, Exit
from app.cli_registry import (FreshOpt, HomeOpt, JsonOpt, Neo4jOpt, RenderFormatOpt, SetOpt, VersionOpt, at_version,
                              commands, command_settings, command_store, counted, err, escape, get_settings,
                              handles_errors, out, print_json)
from app.cli_tables import FormatOpt as TableFormatOpt
from queries.limits import MAX_DEPTH

if TYPE_CHECKING:
    import socket

    from graph.store import GraphStore

# Everything else a command needs is imported inside it, so that a command loads only what it runs:
# no web framework, GraphQL or Neo4j driver unless `serve` or a Neo4j store asks for them, no parser
# for a query. tests/app/test_cli_startup.py checks it.

__all__ = ["cli", "main"]  # noqa: F822 - `cli` comes from __getattr__ below


@commands.command("ingest")
@handles_errors
def ingest_cmd(
    paths: Annotated[list[Path], Arg(metavar="PATHS...", help="Member files or folders (searched recursively).")],
    skip_invalid: Annotated[bool, Opt("--skip-invalid", help="Ingest the valid files and list the refused ones.")] = False,
    strict: Annotated[bool, Opt("--strict", help="A file that is no analysis document (a type definition, an instruction, a note) is an error, instead of being listed as skipped with its reason.")] = False,
    partial: Annotated[bool, Opt("--partial", help="Ingest a set copied in part: the members its manifest pins that are absent are listed as missing, and stay manifest-missing-member findings of `citegraph check`.")] = False,
    as_json: JsonOpt = False,
    fmt: TableFormatOpt = None,
    verbose: Annotated[bool, Opt("--verbose", "-v", help="List every document, however many.")] = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Ingest analysis-set members; each set is written all or nothing.

    Every file is named: written, unchanged, a manifest, or skipped with its reason (a type
    definition, an instruction, a note: --strict makes these errors). Ends with one total line;
    past 20 documents the table is folded (--verbose lists them all).

    Example: citegraph ingest corpus/seeds; citegraph ingest --partial copied/AAS-2026-10-01-instinctual-memory-01
    """
    import time

    from app.cli_progress import progress_bar
    from app.cli_tables import Column, chosen_format, emit
    from ingest.files import member_files
    from ingest.pipeline import ingest_paths
    from ingest.sets import MANIFEST_NAME, member_file
    from queries.shapes import plain

    fmt = chosen_format(fmt, as_json)
    started = time.monotonic()
    with command_store(neo4j, home, reads=False) as store:
        members = sum(member_file(p.name) and p.name != MANIFEST_NAME for p in member_files(paths))
        with progress_bar(err, "ingesting", total=members, unit="files") as advance:
            def observe(event: str, names: tuple[str, ...]) -> None:
                if event == "load":
                    advance(len(names) - 1, what=names[0])

            report = ingest_paths(store, paths, skip_invalid=skip_invalid, partial=partial, strict=strict,
                                  workers=get_settings().ingest_workers, observe=observe)
    rows = report.documents
    docs = [d for d in _files(rows).values() if not _manifest(d) and d.reason is None]
    status = {s: sum(d.status == s for d in docs) for s in ("written", "unchanged", "skipped", "missing")}
    touched = {d.document.split("/", 1)[0] for d in docs if d.document and d.status != "skipped"}  # written or not
    total = (f"{counted(len(docs), 'document')} in {counted(len(touched), 'set')}: "
             f"{status['written']} written, "
             f"{status['unchanged']} unchanged, {status['skipped']} skipped"
             f"{', ' + str(status['missing']) + ' missing' if status['missing'] else ''}; "
             f"{counted(sum(d.sections for d in docs), 'section')}, {counted(sum(d.statements for d in docs), 'statement')}, "
             f"{counted(sum(d.records for d in docs), 'record')}, {counted(sum(d.citations for d in docs), 'citation')}"
             f"{_other_files(rows)} ({time.monotonic() - started:.1f} s)")
    emit(out, fmt=fmt, title="Ingested", fold=20, verbose=verbose,
         columns=[Column("document"), Column("status"), Column("sections", "number"), Column("statements", "number"),
                  Column("records", "number"), Column("citations", "number")],
         rows=[(d.document or d.path,
                f"{d.status} ({d.reason})" if d.reason else d.status, d.sections, d.statements, d.records,
                d.citations) for d in rows],
         data=plain(report), footer=[total])
    for d in rows:
        if d.status in ("skipped", "missing"):
            err.print(f"{d.status} {d.path}: {d.error or d.note}", markup=False, highlight=False)


def _files(rows) -> dict:
    """Each file of an ingest report's rows once, by path (its first row: a file refused for two
    problems has a row for each)."""
    first: dict = {}
    for d in rows:
        first.setdefault(d.path, d)
    return first


def _manifest(row) -> bool:
    """Whether an ingest report's row is a set's manifest: consumed, or of a refused set."""
    from ingest.sets import MANIFEST_NAME

    return row.status == "manifest" or row.path.replace("\\", "/").rsplit("/", 1)[-1] == MANIFEST_NAME


def _other_files(rows) -> str:
    """The total line's account of the files that are no document: ``; 59 files: 2 manifests, 32
    skipped as no analysis document (28 type definitions, 3 instructions, 1 other)`` (files: every
    file named but the ``missing`` ones, which are absent), or ``""`` when there are none."""
    from domain.grammar import SKIP_REASONS

    rows = list(_files(rows).values())
    manifests = sum(_manifest(d) for d in rows)
    reasons = Counter(d.reason for d in rows if d.reason is not None)
    if not manifests and not reasons:
        return ""
    names = {"type-definition": ("type definition", "type definitions"), "instruction": ("instruction", "instructions"),
             "unsupported-generation": ("unsupported generation", "unsupported generations"),
             "not-a-document": ("other", "others")}
    parts = [f"{n} {names.get(r, (r, r))[n != 1]}"
             for r, n in sorted(reasons.items(), key=lambda rn: list(SKIP_REASONS).index(rn[0]))]
    skipped = f"{sum(reasons.values())} skipped as no analysis document ({', '.join(parts)})" if reasons else ""
    listed = ", ".join(filter(None, [counted(manifests, "manifest") if manifests else "", skipped]))
    return f"; {counted(sum(d.status != 'missing' for d in rows), 'file')}: {listed}"


@commands.command("rests-on")
@handles_errors
def rests_on_cmd(
    record: Annotated[str, Arg(help="Record ID (RT-RTE-mcp-write), source ID (SRC-1) or cited file path (mcp-server/vault.js).")],
    set_id: SetOpt = None,
    direct: Annotated[bool, Opt("--direct", help="Only statements citing or annotating the record themselves.")] = False,
    max_depth: Annotated[Optional[int], Opt("--max-depth", min=1, max=MAX_DEPTH, help="Maximum evidence steps.")] = None,
    version: VersionOpt = None,
    as_json: JsonOpt = False,
    fmt: TableFormatOpt = None,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Statements that rest on RECORD (a record, a source or a cited source file), with the citation path explaining each.

    Example: citegraph rests-on RT-RTE-mcp-write --set tolaria; citegraph rests-on mcp-server/vault.js --set tolaria
    (--version 1: as the set was at version 1)
    """
    from app.cli_tables import Column, chosen_format, emit
    from queries.shapes import plain
    from queries.traversal import rests_on

    fmt = chosen_format(fmt, as_json)
    with command_store(neo4j, home) as store:
        report = rests_on(at_version(store, set_id, version), record, set_id=set_id, direct_only=direct,
                          max_depth=command_settings(neo4j, home).depth(max_depth), kind=None)
    rows = []
    for r in report.results:
        via = "direct" if r.direct else r.path[1].rsplit("/", 1)[-1]
        rows.append((r.statement, via, r.depth, r.block.text))
    direct_n = sum(r.direct for r in report.results)
    emit(out, fmt=fmt, title=f"Statements resting on {record}" + (f" in {set_id}" if set_id else ""),
         columns=[Column("statement"), Column("via"), Column("depth", "number"), Column("text", "text")],
         rows=rows, data=plain(report),
         footer=[f"{counted(len(report.results), 'statement')}: {direct_n} direct, "
                 f"{len(report.results) - direct_n} transitive"])



@commands.command("stats")
@handles_errors
def stats_cmd(set_id: SetOpt = None, version: VersionOpt = None, as_json: JsonOpt = False, fmt: TableFormatOpt = None,
              fresh: FreshOpt = False, neo4j: Neo4jOpt = None, home: HomeOpt = None) -> None:
    """Counts of documents, statements, records and citations, per analysis set (--set: of one set,
    whose counts are then the totals), and which store holds them.

    Example: citegraph stats --json; citegraph stats --set tolaria --version 1
    """
    from app.cli_tables import Column, chosen_format, emit
    from app.wiring import store_location, store_place
    from queries.shapes import plain
    from queries.stats import stats, stats_of_set

    fmt = chosen_format(fmt, as_json)
    with command_store(neo4j, home) as store:
        view = at_version(store, set_id, version)
        result = stats(view, fresh=fresh) if set_id is None else stats_of_set(view, set_id)
        where, place = store_location(store), store_place(store)
    t = result.totals
    emit(out, fmt=fmt, title=f"Analysis sets in {place}",
         columns=[Column("set"), *(Column(c, "number") for c in ("documents", "statements", "records",
                                                                  "record occurrences", "source files", "quotations",
                                                                  "unaccounted IDs"))],
         rows=[(s.set, len(s.documents), s.statements, s.records, s.record_occurrences, len(s.source_files),
                s.quotations, s.unaccounted) for s in result.sets],
         data={"store": where, **plain(result)},
         footer=[f"{counted(t['nodes'], 'node')}, {counted(t['edges'], 'edge')} ({counted(t['CITES'], 'citation')}) "
                 f"in {place}"])


@commands.command("check")
@handles_errors
def check_cmd(
    paths: Annotated[Optional[list[Path]], Arg(help="Check these member files or folders without ingesting them (default: the stored sets).")] = None,
    set_id: SetOpt = None,
    version: VersionOpt = None,
    as_json: JsonOpt = False,
    fmt: CheckFormatOpt = None,
    base: BaseOpt = None,
    fresh: FreshOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Validate the stored sets, or the sets in PATHS without ingesting them; exit 1 on any error.

    Warnings do not fail; PATHS holding no analysis-set member exit 65. --format sarif, junit or
    github writes one result, testcase or annotation per finding (for CI).

    Example: citegraph check --set tolaria --json; citegraph check retained/dynamic-cheatsheet retained-archive/AAS-…
    """
    from app.cli_ci import table_format, write_ci
    from app.cli_progress import progress_bar
    from app.cli_tables import TableFormat
    from queries.validation import check

    table = table_format(fmt, as_json)
    if paths and version is not None:
        from typer import BadParameter

        raise BadParameter("--version reads a stored set; files given as PATHS have no versions")
    if paths:
        from app.wiring import open_throwaway_store
        from ingest.pipeline import stage_paths

        # parse and assemble, then check in a throwaway store
        store: GraphStore = open_throwaway_store()
        problems = stage_paths(store, paths, workers=get_settings().ingest_workers)
        with progress_bar(err, "checking", unit="sets") as advance:
            report = check(store, set_id=set_id, problems=problems,
                           progress=lambda done, total: advance(0 if not done else 1, total=total))
    else:
        with command_store(neo4j, home) as store, progress_bar(err, "checking", unit="sets") as advance:
            report = check(at_version(store, set_id, version), set_id=set_id, fresh=fresh,
                           progress=lambda done, total: advance(0 if not done else 1, total=total))
    if table is None:
        assert fmt is not None  # table_format answers None only for a CI format
        write_ci(fmt, report, base=base)
    elif table == TableFormat.json:
        from queries.shapes import plain

        print_json(plain(report))
    else:
        for f in report.findings:
            where = f"{f.file}:{max(f.line, 1)}: " if f.file else ""  # a whole file's finding at line 1, as ingest
            out.line(f"{where}{f.severity}: [{f.code}] {f.message}")
        skipped = f", {counted(report.skipped, 'file')} skipped" if report.skipped else ""
        out.line(f"{counted(report.errors, 'error')}, {counted(report.warnings, 'warning')}{skipped}")
    if report.errors:
        raise Exit(1)


@commands.command("verify")
@handles_errors
def verify_cmd(set_id: SetOpt = None, version: VersionOpt = None, as_json: JsonOpt = False, fresh: FreshOpt = False,
               neo4j: Neo4jOpt = None, home: HomeOpt = None) -> None:
    """Rebuild every stored document from its graph nodes; exit 1 if any SHA-256 differs from the original's.

    The first differing hunk is shown when the original file is still at its ingested path.

    Example: citegraph verify --set tolaria
    """
    from app.cli_progress import progress_bar
    from app.rendering import verify_sets
    from graph.model import Label
    from queries.names import require_set
    from render.document import VerifyReport

    with command_store(neo4j, home) as store:
        view = at_version(store, set_id, version)
        require_set(view, set_id)
        sets = [set_id] if set_id is not None else [s.id for s in view.find_nodes(Label.ANALYSIS_SET)]
        with progress_bar(err, "verifying", unit="sets") as advance:
            results = verify_sets(view, sets, fresh=fresh,
                                  progress=lambda done, total: advance(0 if not done else 1, total=total))
    report = VerifyReport(tuple(results))  # sets in id order, then role order: document_trees' order
    if as_json:
        from queries.shapes import plain

        print_json(plain(report))
    else:
        for r in report.results:
            status = "ok" if r.ok else "DIFFERS"
            out.print(f"{status:8} {r.document}  {r.actual[:12]}  {r.rebuilt_size} bytes  ({r.format}, {r.path})",
                      markup=False, highlight=False)
            if not r.ok:
                out.print(f"         stored sha256 {r.expected}, rebuilt {r.actual} ({r.size} → {r.rebuilt_size} bytes)",
                          markup=False, highlight=False)
                if r.diff:
                    sys.stdout.write(r.diff)
                elif r.note:
                    out.print(f"         {r.note}", markup=False, highlight=False)
        out.print(f"{counted(report.documents, 'document')}, {report.differing} differ", markup=False,
                  highlight=False)
    if report.differing:
        raise Exit(1)


@commands.command("render")
@handles_errors
def render_cmd(
    document: Annotated[Optional[str], Arg(help="Document id (e.g. tolaria/synthesis) or the path it was ingested from.")] = None,
    fmt: RenderFormatOpt = None,
    rests_on_id: Annotated[Optional[str], Opt("--rests-on", metavar="ID", help="Report the statements resting on this record.")] = None,
    record: Annotated[Optional[str], Opt("--record", metavar="ID", help="Report this record's dossier.")] = None,
    set_id: SetOpt = None,
    max_depth: Annotated[Optional[int], Opt("--max-depth", min=1, max=MAX_DEPTH, help="Maximum evidence steps of rests-on parts.")] = None,
    version: VersionOpt = None,
    output: Annotated[Optional[Path], Opt("--output", "-o", help="Write to this file instead of standard output.")] = None,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Render a document from the graph, or a report of a subgraph (--rests-on, --record, --set).

    --rests-on ID: the statements resting on a record; --record ID: its dossier; --set S alone: the
    whole set with its record index.

    Example: citegraph render --rests-on RT-RTE-mcp-write --format html -o rests-on.html
    """
    from app.rendering import render_request, set_of_request

    with command_store(neo4j, home) as store:
        view = at_version(store, set_of_request(store, document, set_id) if version is not None else set_id, version)
        rendered = render_request(view, document=document, rests_on=rests_on_id, record=record, set_id=set_id,
                                  fmt=fmt, max_depth=command_settings(neo4j, home).depth(max_depth))
    data = rendered.text.encode("utf-8")
    if output is not None:
        from app.outputs import protected_files, write_output

        write_output(output, data, protected_files(command_settings(neo4j, home)))
        err.print(f"wrote {counted(len(data), 'byte')} ({rendered.format}) to {output}", markup=False, highlight=False)
        return
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        sys.stdout.write(rendered.text)


@commands.command("serve")
@handles_errors
def serve_cmd(
    host: Annotated[str, Opt(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, Opt(help="TCP port.", min=1, max=65535)] = 8000,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Serve the REST API, GraphQL (with GraphiQL), the API docs and the embeddable views over HTTP.

    The start page (/) links GraphiQL, the API docs (/docs, /redoc), the sets and an example embed.

    Environment variables it reads (also from a .env file in the working folder):
    CITEGRAPH_HOME: the embedded store's folder (default ./.citegraph);
    CITEGRAPH_NEO4J_URI: serve from this Neo4j server instead;
    CITEGRAPH_NEO4J_USER, CITEGRAPH_NEO4J_PASSWORD, CITEGRAPH_NEO4J_DATABASE;
    CITEGRAPH_STORE: embedded or neo4j, to choose the store explicitly (memory: the deprecated name of embedded);
    CITEGRAPH_READ_TOKEN: bearer token every read needs (reads open without);
    CITEGRAPH_WRITE_TOKEN: bearer token writes need (writes off without);
    CITEGRAPH_EMBED_ORIGINS: origins that may frame the views and call the API;
    CITEGRAPH_REPO_ROOTS: folders impact over HTTP may open (a JSON list, or absolute paths separated by commas);
    CITEGRAPH_REPO_NAMES: names a clone is known by besides its remotes (a JSON object: folder or URL to owner/name);
    CITEGRAPH_HOOK_SECRET: shared secret of POST /hooks/push (push hooks off without);
    CITEGRAPH_HOOK_FETCH: git fetch the pushed clone before its impact run (default false);
    CITEGRAPH_MAX_DEPTH: default traversal limit in evidence steps;
    CITEGRAPH_MAX_BODY_BYTES: request body limit (default 16 MiB);
    CITEGRAPH_VERSIONS_KEPT: versions of each analysis set the store keeps (default 10);
    CITEGRAPH_GRAPHQL_TIMEOUT_S: time budget of one GraphQL request in seconds (default 5);
    CITEGRAPH_DEBUG: show tracebacks of internal errors.

    Example: citegraph serve --port 8000
    """
    import uvicorn

    from app.rest.main import create_app
    from app.wiring import empty_store_note, open_store, store_place

    settings = command_settings(neo4j, home)
    base = f"http://{host}:{port}"
    with open_store(settings) as store:
        where, note = store_place(store), empty_store_note(store)
    listening = listening_socket(host, port)
    if note:
        err.print(f"note: {note}", markup=False, highlight=False)
    out.print(f"citegraph serving {where} at {base}/", markup=False, highlight=False)
    out.print(f"  GraphiQL:  {base}/graphql", markup=False, highlight=False)
    out.print(f"  API docs:  {base}/docs (Swagger UI), {base}/redoc", markup=False, highlight=False)
    import gc

    app = create_app(settings)
    sys.setswitchinterval(SERVE_SWITCH_INTERVAL_S)
    gc.freeze()  # what start-up made lives as long as the server: no full collection walks it again
    uvicorn.Server(uvicorn.Config(app, log_level="info", http=SERVE_HTTP, loop="auto")).run(sockets=[listening])


SERVE_HTTP = "httptools"
"""The HTTP/1.1 implementation ``serve`` runs: httptools parses in C where uvicorn's default without
it, h11, is pure Python; with ``loop="auto"`` uvicorn runs its event loop on uvloop (a dependency
except on Windows, which it does not support). Together they take about 0.4 ms of CPU off each
kept-alive request (``/health`` 1.55 -> 1.12 ms at load 10; bench/README.md, "Serve on httptools
and uvloop"). The bodies are the same bytes; a ``Connection: close`` header is written in lower case."""

SERVE_SWITCH_INTERVAL_S = 0.0005
"""How often (s) a thread holding the GIL hands it over while ``serve`` runs (Python's default is
0.005): CPU-heavy requests run in worker threads, and the event loop, which answers every other
request, waits at most this long for its turn each time it wakes (``/health`` stays under 100 ms
during an export or an 8 MiB upload)."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` for the server to accept on; a port another process
    holds (or one not allowed) ends the command with exit 69 (``EX_UNAVAILABLE``; uvicorn exits 3).

    It is made with protocol ``IPPROTO_TCP``, as ``getaddrinfo`` gives it: asyncio sets
    ``TCP_NODELAY`` only on accepted sockets of that protocol, and without it every small response
    on a kept-alive connection waits about 40 ms for the client's delayed ACK (Nagle). The listener
    carries ``TCP_NODELAY`` too, which Linux passes on to the sockets it accepts."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
    listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        err.print(f"[bold red]error:[/] cannot listen on {escape(host)}:{port}: {escape(exc.strerror or str(exc))}",
                  highlight=False)
        err.print(f"hint: another process holds port {port}: stop it, or serve on another with --port",
                  markup=False, highlight=False)
        raise Exit(69) from None
    listening.set_inheritable(True)
    return listening


# The command modules, in the order `citegraph --help` lists their commands (after the ones above).
import app.cli_impact  # noqa: E402  (registers `impact` and `review`)
import app.cli_history  # noqa: E402  (registers `history`, `diff`, `runs` and `compare`)
import app.cli_copy  # noqa: E402  (registers `copy`)
import app.cli_discover  # noqa: E402  (registers `sets`, `documents`, `records`, `search`)
import app.cli_export  # noqa: E402,F401  (registers `export`)


def main() -> None:
    """Console-script entry point: a plain command line of a read command (:data:`app.cli_start.FAST_COMMANDS`),
    ``--version`` alone and the root help page (:mod:`app.cli_root_help`) run without importing typer; anything else, or a usage error such a
    command raises (before it writes anything), goes to typer.

    When the command is over (however it ends), every object the process still holds is left to
    the process's end (:func:`gc.freeze`): the interpreter's shutdown then no longer walks them
    all looking for cycles, which cost a Neo4j command, with the driver's 190 modules loaded,
    about a sixth of its CPU (bench/README.md, branch ``neo4j-proc``). Nothing is lost: an object
    still alive at exit is not promised its ``__del__``, and ``atexit`` handlers and
    :func:`weakref.finalize` callbacks still run."""
    try:
        _run_command()
    finally:
        gc.freeze()


def _run_command() -> None:
    """:func:`main`'s command line, run."""
    from app.cli_registry import typer_app
    from app.cli_start import FAST_COMMANDS, parse, usage_error, version

    words = sys.argv[1:]
    if words == ["--version"]:
        sys.stdout.write(version() + "\n")
        return
    if words in (["--help"], []):  # the root help page, drawn without typer when it is plain
        from app.cli_root_help import print_root_help

        if print_root_help(asked=bool(words)):
            if not words:
                raise Exit(2)  # as typer ends `citegraph` alone: usage, exit 2
            return
    if words and words[0] in FAST_COMMANDS:
        fn = commands.functions[words[0]]
        kwargs = parse(fn, words[1:])
        if kwargs is not None:
            try:
                fn(**kwargs)
            except Exception as exc:
                if not usage_error(exc):
                    raise
            else:
                return
    typer_app()()


def __getattr__(name: str) -> Any:
    """``cli``: the typer application of every command (:func:`app.cli_registry.typer_app`)."""
    if name == "cli":
        from app.cli_registry import typer_app

        return typer_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":  # `python -m app.cli`: run the imported module, where every command is registered
    from app.cli import main as registered_main

    registered_main()
