"""``citegraph impact``, ``citegraph review`` and ``citegraph suspects``: impact analysis when the analysed
source moves, and what is open of it and of changes to the analysis itself.

Registered on :data:`app.cli_registry.commands` (``app/cli.py`` imports this module). Thin: parse, open the store
and the repository, call :func:`queries.impact.impact_of` or :func:`ingest.reviews.review_suspect`,
print. A bad repository or revision exits 2 (:mod:`app.errors`); ``--fail-on-suspect`` exits 1 when
anything is flagged.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional


from app.cli_ci import BaseOpt, ReportFormatOpt, table_format, write_ci
from app.cli_params import Arg, Opt, Exit
from app.cli_registry import (HomeOpt, JsonOpt, Neo4jOpt, SetOpt, VersionOpt, at_version, commands, command_settings,
                              command_store, counted, err, handles_errors, out, print_json, shortened)

if TYPE_CHECKING:  # the commands import what they run (see app/cli_registry.py)
    from queries.impact import ImpactReport

__all__ = ["impact_cmd", "review_cmd", "suspects_cmd"]

RepoOpt = Annotated[Path, Opt("--repo", help="Top folder of a git clone of the analysed source.",
                                       file_okay=False)]


@commands.command("impact")
@handles_errors
def impact_cmd(
    repo: RepoOpt,
    to: Annotated[str, Opt("--to", help="Revision to check the sets against (hash, tag, branch; default HEAD).")] = "HEAD",
    set_id: SetOpt = None,
    source: Annotated[Optional[str], Opt("--source", help="The set's source the repository holds, e.g. SRC-1.")] = None,
    from_rev: Annotated[Optional[str], Opt("--from", help="Revision the set's paths and quotations refer to (default: the source's pinned commit).")] = None,
    fail_on_suspect: Annotated[bool, Opt("--fail-on-suspect", help="Exit 1 when any suspect is flagged.")] = False,
    version: VersionOpt = None,
    as_json: JsonOpt = False,
    fmt: ReportFormatOpt = None,
    base: BaseOpt = None,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Changed cited files, quotation drift and suspect conclusions between two source revisions
    (--version N: of the set as it was at version N). Without --set: every set whose source register
    pins the repository (by a remote's URL, owner/name, or CITEGRAPH_REPO_NAMES), each from its own
    pinned commit, ranked by conclusions affected.

    --format csv prints the suspects, one row each (node, kind, conclusion, depth, change, trigger, text);
    --format sarif, junit or github one result, testcase or annotation per suspect statement.

    Example: citegraph impact --repo ../tolaria --set tolaria --to origin/main --fail-on-suspect;
    citegraph impact --repo ../tolaria --to origin/main --format sarif > impact.sarif
    """
    from app.cli_progress import progress_bar
    from ingest.git import GitRepository
    from queries.impact import impact_of

    table = table_format(fmt, as_json)
    repository = GitRepository(repo)
    if set_id is None:
        if from_rev is not None or source is not None or version is not None:
            from typer import BadParameter

            raise BadParameter("--from, --source and --version need --set (without it each set "
                                     "pinning the repository is checked from its own pinned commit)")
        _repository_impact(repository, to, table, fmt, base, fail_on_suspect, neo4j, home)
        return
    with command_store(neo4j, home) as store, progress_bar(err, "impact", unit="steps") as advance:
        report = impact_of(at_version(store, set_id, version), repository, to_revision=to, from_revision=from_rev,
                           set_id=set_id, source_id=source,
                           progress=lambda done, total: advance(1 if done else 0, total=total))
    _emit(report, table, fmt, base, reports=(report,), text=_print_impact)
    if fail_on_suspect and report.suspects:
        raise Exit(1)


def _repository_impact(repository, to, table, fmt, base, fail_on_suspect, neo4j, home) -> None:
    """``impact`` without ``--set``: :func:`queries.impact.impact_on_repository`, printed."""
    from app.cli_progress import progress_bar
    from app.wiring import repository_names
    from queries.impact import impact_on_repository

    names = repository_names(command_settings(neo4j, home), repository)
    with command_store(neo4j, home) as store, progress_bar(err, "impact", unit="sets") as advance:
        result = impact_on_repository(store, repository, names=names, to_revision=to,
                                      progress=lambda done, total: advance(1 if done else 0, total=total))
    _emit(result, table, fmt, base, reports=result.sets, text=_print_repository_impact)
    if fail_on_suspect and any(r.suspects for r in result.sets):
        raise Exit(1)


def _emit(result, table, fmt, base, *, reports, text) -> None:
    """Write ``result`` (an ``ImpactReport`` or a ``RepositoryImpact``) as the CI format ``fmt``
    when ``table`` is None, else as JSON, as the CSV of the suspects of ``reports``, or by ``text``."""
    from app.cli_tables import TableFormat
    from queries.shapes import plain

    if table is None:
        write_ci(fmt, result, base=base)
    elif table == TableFormat.json:
        print_json(plain(result))
    elif table == TableFormat.csv:
        _suspects_csv(*reports)
    else:
        text(result)


def _print_repository_impact(result) -> None:
    """The table face of :func:`queries.impact.impact_on_repository`: its summary, the sets it could
    not analyse, then each set's report."""
    m = result.summary
    out.print(f"Impact of {result.to_revision[:12]} on {counted(len(result.pinned), 'pinned source')} "
              f"({', '.join(result.names) or 'no remote or name: set CITEGRAPH_REPO_NAMES'}): "
              f"{counted(m.sets, 'set')} analysed, {m.unanalysed} not; {m.statements} suspect statements "
              f"({m.conclusions} conclusions)", markup=False, highlight=False)
    for p in result.unanalysed:
        out.print(f"not analysed: {p.set} ({p.source}, {p.state}): {p.reason}", markup=False, highlight=False)
    for report in result.sets:
        out.print("", markup=False, highlight=False)
        _print_impact(report)


def _suspects_csv(*reports: ImpactReport) -> None:
    from app.cli_tables import Column, TableFormat, emit

    emit(out, fmt=TableFormat.csv,
         columns=[Column(c) for c in ("node", "kind", "conclusion", "depth", "change", "trigger", "text")],
         rows=[(s.node, s.kind, s.conclusion, s.depth, s.change, s.trigger, s.text)
               for report in reports for s in report.suspects])


def _print_impact(report: ImpactReport) -> None:
    from app.cli_tables import Column, TableFormat, emit

    out.print(f"Impact on {report.set} ({report.source or 'no source node'}) "
              f"from {report.from_revision[:12]} to {report.to_revision[:12]}", markup=False, highlight=False)
    emit(out, fmt=TableFormat.table,
         title=f"Changed cited files ({len(report.changes)}; {len(report.uncited_changes)} uncited not shown)",
         columns=[Column("status"), Column("path"), Column("now"), Column("cited by", "number")],
         rows=[(c.status, c.path, c.new_path if c.renamed else "", len(c.cited_by)) for c in report.changes])
    # no path column: every reason names the file it looked in, and the table fits 100 columns boxed
    emit(out, fmt=TableFormat.table, title="Quotations at " + report.to_revision[:12],
         columns=[Column("quotation"), Column("state"), Column("why", "text")],
         rows=[(q.quotation, q.state, q.reason if q.path and q.path in q.reason else f"{q.path}: {q.reason}")
               for q in report.quotations])
    for q in report.quotations:
        if q.diff:
            out.print(f"{q.quotation} ({q.state}):", markup=False, highlight=False)
            out.print(q.diff, markup=False, highlight=False)
    statements = [s for s in report.suspects if s.kind == "statement"]
    out.print(f"Suspect statements ({len(statements)}; conclusions first, marked *)", markup=False, highlight=False)
    for s in statements:
        out.print(f"{'*' if s.conclusion else ' '} {s.node}  depth {s.depth}  {s.change}", markup=False,
                  highlight=False)
        out.print(f"      {shortened(s.text, 100)}", markup=False, highlight=False)
        if len(s.path) > 2:
            out.print(f"      via {' → '.join(s.path[1:-1])}", markup=False, highlight=False)
    for kind in ("record", "section", "document"):
        nodes = [s.node for s in report.suspects if s.kind == kind]
        out.print(f"Suspect {kind}s ({len(nodes)}): {', '.join(nodes) or 'none'}", markup=False, highlight=False)
    for s in report.reviewed:
        if (r := s.review) is None:  # a reviewed suspect carries its review
            continue
        out.print(f"cleared: {s.node} reviewed by {r.reviewer} at {r.revision[:12]} ({r.at})", markup=False,
                  highlight=False)
    m = report.summary
    out.print(f"{counted(m.changed_files, 'changed cited file')} ({m.uncited_changes} uncited); quotations: "
              f"{m.intact} intact, {m.moved} moved, {m.ambiguous} ambiguous, {m.broken} broken; suspects: "
              f"{counted(m.statements, 'statement')} ({counted(m.conclusions, 'conclusion')}, marked *), "
              f"{counted(m.records, 'record')}, {counted(m.sections, 'section')}, {counted(m.documents, 'document')}; "
              f"{m.reviewed} cleared by reviews", markup=False, highlight=False)


@commands.command("review")
@handles_errors
def review_cmd(
    node: Annotated[Optional[str], Arg(help="Suspect node id as impact prints it, e.g. tolaria/synthesis#L29.")] = None,
    at: Annotated[Optional[str], Opt("--at", help="Source revision the node was reviewed against (a full commit id, or any revision with --repo).")] = None,
    note: Annotated[Optional[str], Opt("--note", help="Free-text note.")] = None,
    by: Annotated[Optional[str], Opt("--by", help="Reviewer (default: your login name).")] = None,
    repo: Annotated[Optional[Path], Opt("--repo", help="Resolve --at in this git repository.", file_okay=False)] = None,
    list_: Annotated[bool, Opt("--list", help="List the stored reviews instead.")] = False,
    set_id: SetOpt = None,
    as_json: JsonOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Record that a suspect was reviewed at a source revision, or list reviews (--list).

    Later impact runs whose --to is at or after that revision do not flag the node again unless its
    evidence changes after it.

    Example: citegraph review tolaria/synthesis#L29 --at 48f2a70844c1e8005a7aa5f1499c66f7678360de --note "still holds"
    """
    from ingest.git import GitRepository
    from ingest.reviews import review_suspect
    from queries.impact import Review, reviews_of
    from queries.shapes import plain

    if list_:
        reviewed = None
    elif node is None or at is None:
        from typer import BadParameter

        raise BadParameter("give NODE and --at REV, or --list")
    else:
        reviewed = (node, at)
    repository = GitRepository(repo) if repo is not None and not list_ else None
    with command_store(neo4j, home) as store:
        if reviewed is None:
            reviews = reviews_of(store, set_id=set_id, node_id=node)
        else:
            node_id, revision = reviewed
            reviewer = by or _login_name()
            reviews = (Review.from_node(review_suspect(store, node_id, revision=revision, reviewer=reviewer, note=note,
                                                       repo=repository)),)
    if as_json:
        print_json([plain(r) for r in reviews])
        return
    if list_:
        out.print(counted(len(reviews), "review"), markup=False, highlight=False)
    for r in reviews:
        note = f": {r.note}" if r.note else ""
        out.print(f"{'' if list_ else 'recorded: '}{r.node} reviewed at {r.revision[:12]} by {r.reviewer} ({r.at}){note}",
                  markup=False, highlight=False)


@commands.command("suspects")
@handles_errors
def suspects_cmd(
    set_id: SetOpt = None,
    fail_on_suspect: Annotated[bool, Opt("--fail-on-suspect", help="Exit 1 when any suspect is open.")] = False,
    as_json: JsonOpt = False,
    neo4j: Neo4jOpt = None,
    home: HomeOpt = None,
) -> None:
    """Suspects no review has cleared, of both causes: source-change (the latest push-hook impact
    run of each repository) and analysis-change (a new version of a set changed a record's
    declaration, a quotation or a source pin that a statement rests on, in any set). Review one with
    citegraph review NODE --at REV, REV as listed.

    Example: citegraph suspects --set tolaria --json
    """
    from app.hooks import latest_runs, run_log
    from queries.impact import open_suspects
    from queries.shapes import plain

    runs = latest_runs(run_log(command_settings(neo4j, home)))
    store = command_store(neo4j, home)
    try:
        found = open_suspects(store, set_id=set_id, runs=runs)
    finally:
        store.close()
    if as_json:
        print_json(plain(found))
    else:
        for s in found.suspects:
            change = s.version_change
            at = change.digest if change is not None else _run_revision(runs, s)
            out.print(f"{'*' if s.conclusion else ' '} {s.node}  {s.cause}  depth {s.depth}  {s.change}",
                      markup=False, highlight=False)
            out.print(f"      {shortened(s.text, 100)}", markup=False, highlight=False)
            if change is not None:
                was, now = _difference(change.old, change.new)
                out.print(f"      was: {was}", markup=False, highlight=False)
                out.print(f"      now: {now}", markup=False, highlight=False)
            out.print(f"      review at {at}", markup=False, highlight=False)
        out.print(f"{counted(len(found.suspects), 'open suspect')}: {found.source_change} source-change, "
                  f"{found.analysis_change} analysis-change", markup=False, highlight=False)
    if fail_on_suspect and found.suspects:
        raise Exit(1)


def _difference(old: str | None, new: str | None, context: int = 30) -> tuple[str, str]:
    """Where ``old`` and ``new`` differ, each with ``context`` characters around it on one line
    (``(none)`` for a missing side): ``…a later commit reads …`` → ``…a later flush reads …``."""
    if old is None or new is None:
        return shortened(" ".join((old or "(none)").split()), 90), shortened(" ".join((new or "(none)").split()), 90)
    old, new = " ".join(old.split()), " ".join(new.split())
    start = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    end = 0
    while end < min(len(old), len(new)) - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1

    def cut(text: str) -> str:
        head = max(0, start - context)
        tail = min(len(text), len(text) - end + context)
        return f"{'…' if head else ''}{text[head:tail]}{'…' if tail < len(text) else ''}"

    return shortened(cut(old), 90), shortened(cut(new), 90)


def _run_revision(runs, suspect) -> str:
    """The ``to`` revision of the run report a source-change ``suspect`` comes from."""
    for run in runs:
        for report in run.result.sets if run.result is not None else ():
            if suspect in report.suspects:
                return report.to_revision
    return "?"


def _login_name() -> str:
    """Who reviews when ``--by`` is not given: the login name (``$LOGNAME``, ``$USER``, … then the
    password database, as :func:`getpass.getuser` finds it), else ``unknown``."""
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
