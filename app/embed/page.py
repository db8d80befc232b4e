"""The embedded page as HTML: the graph data as a safe JSON block, a plain list of the graph's nodes
(what the page shows without the graph library or without scripts), and the rendered dossier or
rests-on report for the pane, all filled into ``templates/page.html``.

Everything from the store is escaped here; the page carries no inline script or style, so its
Content-Security-Policy can forbid both.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from string import Template
from urllib.parse import quote, urlencode

__all__ = ["TEMPLATE", "script_json", "main_of", "node_list", "legend", "embed_page", "error_page"]

TEMPLATE = Template((Path(__file__).parent / "templates" / "page.html").read_text(encoding="utf-8"))
"""The page skeleton (``string.Template``; every value is escaped before it is substituted)."""

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(value: object) -> str:
    """``value`` as JSON that is safe inside ``<script type="application/json">``: ``<``, ``>``,
    ``&`` and the JavaScript line separators are written as ``\\u`` escapes, so text such as
    ``</script>`` or ``<!--`` cannot end the block or change how it is parsed.

    >>> script_json({"text": "</script><script>alert(1)</script>"})
    '{"text":"\\\\u003c/script\\\\u003e\\\\u003cscript\\\\u003ealert(1)\\\\u003c/script\\\\u003e"}'
    >>> json.loads(script_json({"t": "a & b <!--"})) == {"t": "a & b <!--"}
    True
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in _JSON_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def main_of(page_html: str) -> str:
    """The content of the ``<main>`` element of a page written by :func:`render.writers.write_html`
    (its inline ``<style>`` stays behind: the embedded page styles the pane from its own CSS).

    >>> main_of("<html><style>x</style><main>\\n<h1>T</h1>\\n</main></html>")
    '<h1>T</h1>'
    """
    start = page_html.index("<main>") + len("<main>")
    end = page_html.rindex("</main>")
    return page_html[start:end].strip("\n")


def record_href(base: str, record_id: str, set_id: str | None, version: int | None = None) -> str:
    """The embedded dossier page of a record: ``{base}/embed/records/{record_id}?set={set_id}``
    (with ``&version=N`` when the page shows that version of the set).

    >>> record_href("", "RT-RTE-mcp-write", "tolaria")
    '/embed/records/RT-RTE-mcp-write?set=tolaria'
    >>> record_href("", "RT-RTE-mcp-write", "tolaria", 1)
    '/embed/records/RT-RTE-mcp-write?set=tolaria&version=1'
    """
    params = {"set": set_id} if set_id else {}
    if set_id and version is not None:
        params["version"] = str(version)
    query = f"?{urlencode(params)}" if params else ""
    return f"{base}/embed/records/{quote(record_id, safe='')}{query}"


def node_list(graph: dict, base: str, version_of: tuple[str, int] | None = None) -> str:
    """The graph's nodes as nested HTML lists: the records asked about, the statements resting on
    them (each linked to its place in the pane, with its text) and the nodes between; record links
    keep ``version_of`` (set, version) for that set's records."""
    e = html.escape

    def href(node: dict) -> str:
        version = version_of[1] if version_of and node["set"] == version_of[0] else None
        return record_href(base, node["record_id"], node["set"], version)

    starts, statements, between = [], [], []
    for node in graph["nodes"]:
        if node["kind"] == "record" and node.get("start"):
            starts.append(f'<li class="k-record"><a href="{e(href(node))}">'
                          f'{e(node["record_id"])}</a> <span class="set">({e(node["set"])})</span></li>')
        elif node.get("start"):
            starts.append(f'<li class="k-{e(node["kind"])}">{e(node["name"])} '
                          f'<span class="kind">{e(node["kind"].replace("_", " "))}</span> '
                          f'<span class="set">({e(node["set"])})</span></li>')
        elif node["kind"] == "statement":
            how = "direct" if node["direct"] else f"transitive, depth {node['depth']}"
            statements.append(f'<li class="k-statement {"direct" if node["direct"] else "transitive"}">'
                              f'<a href="#{e(node["anchor"])}">{e(node["document"])} line {node["line"]}</a> '
                              f'<span class="how">({e(how)})</span> {e(node["text"])}</li>')
        elif node["kind"] == "record":
            between.append(f'<li class="k-record"><a href="{e(href(node))}">'
                           f'{e(node["record_id"])}</a> <span class="kind">record</span></li>')
        else:
            between.append(f'<li class="k-{e(node["kind"])}">{e(node["name"])} '
                           f'<span class="kind">{e(node["kind"].replace("_", " "))}</span></li>')
    asked = {"source": "Source", "source_file": "Source file"}.get(graph.get("kind", "record"), "Record")
    parts = [f'<h2>{asked}</h2>\n<ul>{"".join(starts)}</ul>',
             f'<h2>Statements resting on it ({len(statements)})</h2>\n<ol>{"".join(statements)}</ol>']
    if between:
        parts.append(f'<h2>On the explanation paths</h2>\n<ul>{"".join(between)}</ul>')
    return "\n".join(parts)


_NODE_LEGEND = (
    ("record", "k-record", "record"), ("statement", "k-statement direct", "statement, direct"),
    ("statement", "k-statement transitive", "statement, transitive"), ("section", "k-section", "section"),
    ("named_reference", "k-named_reference", "named reference"), ("document", "k-document", "document"),
    ("quotation", "k-quotation", "quotation"), ("source_file", "k-source_file", "source file"),
    ("source", "k-source", "source"),
)

_EDGE_WORDS = {
    "CITES": "cites", "ANNOTATES": "annotates", "QUOTES": "quotes", "SUPERSEDED_BY": "superseded by",
    "RESOLVES_TO": "resolves to", "DECLARED_IN": "declared in", "ATTRIBUTED_TO": "attributed to",
    "IN_SOURCE": "in source", "PART_OF": "part of", "CONTAINS": "contains",
}


def legend(graph: dict) -> str:
    """The legend of the kinds of nodes and edges the graph holds: a swatch and a name each, node
    colours and shapes first, then each edge kind's line style (``graph["edge_kinds"]``).

    >>> legend({"nodes": [{"kind": "record"}], "edge_kinds": ["CITES"]}).splitlines()
    ['<li class="k-record">record</li>', '<li class="e-CITES">cites</li>']
    """
    kinds = {n["kind"] for n in graph["nodes"]}
    direct = {bool(n.get("direct")) for n in graph["nodes"] if n["kind"] == "statement"}
    items = []
    for kind, cls, words in _NODE_LEGEND:
        if kind not in kinds or (kind == "statement" and (("direct" in cls) not in direct)):
            continue
        items.append(f'<li class="{cls}">{html.escape(words)}</li>')
    items += [f'<li class="e-{html.escape(k)}">{html.escape(_EDGE_WORDS.get(k, k.lower()))}</li>'
              for k in graph.get("edge_kinds", ())]
    return "\n".join(items)


def embed_page(*, title: str, summary: str, mode: str, graph: dict, pane_html: str, pane_showing: str,
               base: str, library: str | None, selector: str = "", version_of: tuple[str, int] | None = None) -> str:
    """The whole page.

    Parameters
    ----------
    title, summary : str
        Heading and one line under it (plain text).
    mode : str
        ``rests-on`` or ``record``: what the pane shows first.
    graph : dict
        From :func:`app.embed.subgraph.rests_on_graph`.
    pane_html : str
        Already-rendered, escaped HTML for the pane (:func:`main_of` of a rendering).
    pane_showing : str
        What the pane shows, e.g. ``rests-on:RT-RTE-mcp-write`` (``data-showing``, for scripts).
    base : str
        The app's root path (``""`` unless mounted under a prefix).
    library : str or None
        File name of the vendored graph library under ``/embed/static/vendor/``, or None when it
        is missing: the page then shows the list and says why.
    selector : str, optional
        Already-escaped HTML of a version selector (:func:`app.embed.history.version_selector`).
    version_of : (str, int), optional
        The set and earlier version the page shows: record links and the dossiers the page loads
        keep it.
    """
    e = html.escape
    static = f"{base}/embed/static"
    scripts = [f'<script src="{e(static)}/embed.js" defer></script>']
    notice = ""
    if library:
        scripts.insert(0, f'<script src="{e(static)}/vendor/{e(library)}" defer></script>')
    else:
        notice = ('<p class="cg-notice" id="cg-notice">The graph library is not installed on this server '
                  '(run <code>scripts/vendor-js</code>), so the graph is shown as a list.</p>')
    return TEMPLATE.substitute(
        title=e(title), heading=e(title), summary=e(summary), mode=e(mode), base=e(base), static=e(static),
        scripts="\n".join(scripts), notice=notice, node_list=node_list(graph, base, version_of), pane=pane_html,
        legend=legend(graph),
        showing=e(pane_showing), data=script_json(graph), selector=selector,
        version_set=e(version_of[0]) if version_of else "", version=str(version_of[1]) if version_of else "",
    )


def error_page(status: int, code: str, message: str, hint: str | None, base: str) -> str:
    """A small page for a view that cannot be shown (unknown record or set, bad depth)."""
    e = html.escape
    hint_html = f"<p>{e(hint)}</p>" if hint else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{status} {e(code)}</title>\n<link rel=\"stylesheet\" href=\"{e(base)}/embed/static/embed.css\">\n"
            f"</head>\n<body class=\"cg-error\">\n<h1>{e(message)}</h1>\n{hint_html}\n"
            f"<p class=\"code\">{status} {e(code)}</p>\n</body>\n</html>\n")
