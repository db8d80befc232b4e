"""The embeddable dashboard of push-hook impact runs (``/embed/impact-runs``): the latest run of each
repository, its state, and for each set it analysed the suspect conclusions with their file and line."""

from __future__ import annotations

import html

from queries.impact import ImpactRun

from app.embed.history import report_page

__all__ = ["impact_runs_view"]


def _run_html(run: ImpactRun) -> str:
    e = html.escape
    head = (f"<h2>{e(run.repository)}</h2>\n<p class=\"cg-run\" data-state=\"{e(run.state)}\">Run {e(run.id)} "
            f"({e(run.host)} push of {e((run.after or 'HEAD')[:12])} to {e(run.ref or '?')}, received "
            f"{e(run.received_at)}): <strong>{e(run.state)}</strong></p>")
    if run.error:
        return head + f"\n<p class=\"cg-error-text\">{e(run.error)}</p>"
    if run.result is None:
        return head
    m = run.result.summary
    parts = [head, f"<p>{m.sets} set{'s' * (m.sets != 1)} analysed, {m.unanalysed} not; {m.statements} suspect "
                   f"statements, of which {m.conclusions} conclusions; {m.reviewed} cleared by reviews.</p>"]
    rows = []
    for report in run.result.sets:
        conclusions = [s for s in report.suspects if s.conclusion]
        rows.append(f"<tr><td>{e(report.set)}</td><td>{e(report.from_revision[:12])}</td>"
                    f"<td class=\"number\">{report.summary.conclusions}</td>"
                    f"<td class=\"number\">{report.summary.statements}</td>"
                    f"<td>{'<br>'.join(e(f'{s.node} ({s.change})') for s in conclusions) or 'none'}</td></tr>")
    for p in run.result.unanalysed:
        rows.append(f"<tr><td>{e(p.set)}</td><td>{e((p.commit or '')[:12])}</td><td colspan=\"3\">not analysed: "
                    f"{e(p.reason)}</td></tr>")
    if rows:
        parts.append("<table>\n<thead><tr><th>set</th><th>from</th><th>conclusions</th><th>statements</th>"
                     "<th>suspect conclusions</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>")
    return "\n".join(parts)


def impact_runs_view(runs: list[ImpactRun], base: str) -> str:
    """The page: one section per repository (its latest run), sorted by repository; a line saying
    so when no push has been received yet."""
    body = "\n".join(f"<section class=\"cg-repository\">\n{_run_html(r)}\n</section>" for r in runs) or (
        "<p>No push received yet: point a push hook of the analysed repository at POST /hooks/push.</p>")
    summary = (f"The latest impact run of {len(runs)} repositor{'y' if len(runs) == 1 else 'ies'}, made by push hooks."
               if runs else "No impact run yet.")
    return report_page(title="Impact of the latest pushes", summary=summary, selectors="", body_html=body, base=base)
