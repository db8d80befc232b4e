"""Embeddable views of history: a version selector on the graph pages, the diff of two versions of
a set (``/embed/history/{set_id}``) and the comparison of two runs (``/embed/compare``), each with
selectors.

A selector is a ``<select data-navigate>`` whose options are the URLs of the choices
(``static/selector.js`` follows the one chosen), with the same choices as plain links inside
``<noscript>``: the pages' policy forbids forms (``form-action 'none'``) and inline script.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from urllib.parse import quote, urlencode

from graph.errors import CitegraphError, VersionNotFound
from graph.store import GraphStore
from queries.history import SetHistory, diff_versions, history
from queries.runs import compare_runs, runs_of
from queries.read import GraphRead
from render import Format
from render.history import comparison_page, diff_page
from render.writers import write

from app.embed.page import main_of

__all__ = ["selector", "version_selector", "report_page", "history_view", "compare_view"]


def selector(label: str, name: str, options: list[tuple[str, str, bool]]) -> str:
    """A labelled navigating ``<select>`` of ``(text, url, selected)`` options, with the same
    choices as links in ``<noscript>``.

    >>> print(selector("Version", "version", [("1", "/a?version=1", False), ("2 (latest)", "/a", True)]))
    <label class="cg-select">Version <select name="version" data-navigate><option value="/a?version=1">1</option><option value="/a" selected>2 (latest)</option></select></label><noscript> <a href="/a?version=1">1</a> <strong>2 (latest)</strong></noscript>
    """
    e = html.escape
    opts = "".join(f'<option value="{e(url)}"{" selected" if chosen else ""}>{e(text)}</option>'
                   for text, url, chosen in options)
    links = "".join(f" <strong>{e(text)}</strong>" if chosen else f' <a href="{e(url)}">{e(text)}</a>'
                    for text, url, chosen in options)
    return (f'<label class="cg-select">{e(label)} <select name="{e(name)}" data-navigate>{opts}</select></label>'
            f"<noscript>{links}</noscript>")


def _url(path: str, params: Mapping[str, object]) -> str:
    query = urlencode({k: v for k, v in params.items() if v not in (None, "", False)})
    return f"{path}?{query}" if query else path


def version_selector(found: SetHistory, current: int | None, path: str, params: dict[str, object]) -> str:
    """The version selector of a graph page: one option per kept version of the set, newest first,
    each the page's URL (``path`` with ``params``) at that version (the latest without one)."""
    chosen = found.latest if current is None else current
    options = [(f"{v.number}" + (" (latest)" if v.number == found.latest else "") +
                (f" · {v.created[:10]}" if v.created else ""),
                _url(path, {**params, "version": None if v.number == found.latest else v.number}),
                v.number == chosen) for v in reversed(found.versions)]
    return (f'<nav class="cg-selector" aria-label="Versions of {html.escape(found.set_id)}">'
            f"{selector(f'Version of {found.set_id}', 'version', options)}</nav>")


def report_page(*, title: str, summary: str, selectors: str, body_html: str, base: str) -> str:
    """A whole embeddable report page (no graph): heading, summary, selectors, the report."""
    e = html.escape
    static = f"{base}/embed/static"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"referrer\" content=\"same-origin\">\n<link rel=\"icon\" href=\"data:,\">\n"
            f"<title>{e(title)}</title>\n<link rel=\"stylesheet\" href=\"{e(static)}/embed.css\">\n"
            f"<script src=\"{e(static)}/selector.js\" defer></script>\n</head>\n"
            f"<body class=\"cg-report\" data-base=\"{e(base)}\">\n<header class=\"cg-bar\">\n<h1>{e(title)}</h1>\n"
            f"<p>{e(summary)}</p>\n{selectors}\n</header>\n<section id=\"cg-pane\" class=\"cg-pane\">\n"
            f"<div id=\"cg-pane-body\" class=\"pane\">\n{body_html}\n</div>\n</section>\n</body>\n</html>\n")


def history_view(store: GraphStore, set_id: str, from_version: int | None, to_version: int | None,
                 base: str) -> str:
    """The page of ``/embed/history/{set_id}``: the diff of two versions (default: the latest and
    the one before it) under a *from* and a *to* selector; a set with one version says so."""
    found = history(store, set_id)
    path = f"{base}/embed/history/{quote(set_id, safe='')}"
    to_number = found.latest if to_version is None else to_version
    numbers = [v.number for v in found.versions]
    earlier = [n for n in numbers if n < to_number]
    from_number = from_version if from_version is not None else (earlier[-1] if earlier else to_number)

    def options(side: str) -> list[tuple[str, str, bool]]:
        out = []
        for v in reversed(found.versions):
            pick = {"from": from_number, "to": to_number} | {side: v.number}
            out.append((f"{v.number}" + (" (latest)" if v.number == found.latest else ""), _url(path, pick),
                        v.number == (from_number if side == "from" else to_number)))
        return out

    selectors = (f'<nav class="cg-selector" aria-label="Versions to compare">{selector("From version", "from", options("from"))} '
                 f'{selector("to version", "to", options("to"))}</nav>')
    if from_number == to_number and from_version is None:
        if to_number not in numbers:
            raise VersionNotFound(f"analysis set {set_id!r} has no version {to_number}")
        body = f"<p>Analysis set {html.escape(set_id)} keeps one version only: nothing to compare yet.</p>"
        summary = f"{len(numbers)} version kept."
    else:
        result = diff_versions(store, set_id, from_number, to_number)
        body = main_of(write(diff_page(result), Format.HTML))
        summary = (f"{len(numbers)} versions kept; showing what changed from version {from_number} to {to_number}.")
    return report_page(title=f"History of {set_id}", summary=summary, selectors=selectors, body_html=body, base=base)


def compare_view(store: GraphStore, a: str, b: str | None, base: str) -> str:
    """The page of ``/embed/compare?a=…&b=…``: the comparison of two runs under two selectors
    listing the runs of their system (``b`` defaults to the other run when the system has two;
    choosing on one side the run shown on the other swaps them).

    Raises
    ------
    IncomparableSets, AnalysisSetNotFound
        As :func:`queries.runs.compare_runs`.
    """
    found = runs_of(store, GraphRead(store).analysis_set(a).system)
    others = [r.set_id for r in found.runs if r.set_id != a]
    if b is None:
        if not others:
            raise CitegraphError(f"{a} is the only run of system {found.system}: nothing to compare it with")
        b = others[0]
    path = f"{base}/embed/compare"

    def options(side: str) -> list[tuple[str, str, bool]]:
        """Each run on ``side``; choosing the other side's run swaps the two."""
        pick = {"a": a, "b": b}
        other = "b" if side == "a" else "a"
        out = []
        for r in found.runs:
            chosen = pick | {side: r.set_id}
            if r.set_id == pick[other] and r.set_id != pick[side]:
                chosen[other] = pick[side]
            out.append((f"{r.set_id} ({r.date or 'undated'})", _url(path, chosen), r.set_id == pick[side]))
        return out

    result = compare_runs(store, a, b)
    selectors = (f'<nav class="cg-selector" aria-label="Runs to compare">{selector("Run a", "a", options("a"))} '
                 f'{selector("run b", "b", options("b"))}</nav>')
    summary = (f"{len(found.runs)} runs of {found.name or found.system}: {len(result.matches)} records matched, "
               f"{sum(u.run == 'a' for u in result.unmatched)} only in a, {sum(u.run == 'b' for u in result.unmatched)} only in b.")
    return report_page(title=f"Runs of {found.name or found.system} compared", summary=summary, selectors=selectors,
                       body_html=main_of(write(comparison_page(result), Format.HTML)), base=base)
