"""The first pages a user opens, in a real browser without internet access: the start
page, Swagger UI at /docs, ReDoc at /redoc, GraphiQL opening on the mission's question, and the
embedded view at a dashboard's frame size (800×600), from a live server over the seeds while every
request to a host other than 127.0.0.1 is aborted and recorded (the test asserts there is none).

Debian's Chromium through Playwright, as in ``test_embed_browser``; screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest

from app.rest.main import create_app
from app.settings import Settings
from tests.app.test_embed_browser import ARTIFACTS, context, playwright  # noqa: F401 (fixtures)
from tests.app.test_graphiql_browser import offline  # noqa: F401 (fixture)
from tests.live_server import live_server


@pytest.fixture(scope="module")
def server(seeds_store):
    with live_server(create_app(Settings(), store=seeds_store)) as url:
        yield url


def local_only(page) -> list[str]:
    """Every URL the page requested that was not on 127.0.0.1 (data: and blob: URLs are local) and
    that the page's own policy did not stop before it was sent."""
    return [u for u in page.requested if urlsplit(u).scheme in ("http", "https", "ws", "wss")
            and urlsplit(u).hostname != "127.0.0.1" and u not in page.refused]


def visit(context, url: str, viewport: dict | None = None):  # noqa: F811
    page = context.new_page()
    if viewport:
        page.set_viewport_size(viewport)
    page.requested, page.refused = [], []
    page.on("request", lambda r: page.requested.append(r.url))
    page.on("requestfailed", lambda r: page.refused.append(r.url) if "csp" in (r.failure or "").lower() else None)
    page.problems, page.console_errors = [], []
    page.on("pageerror", lambda exc: page.problems.append(str(exc)))
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: page.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(url)
    return page


def test_swagger_ui_renders_the_api_offline(context, offline, server):  # noqa: F811
    page = visit(context, f"{server}/docs")
    page.wait_for_selector(".swagger-ui .information-container .title")
    assert page.inner_text(".swagger-ui .information-container .title").startswith("citegraph")
    page.wait_for_function("() => document.querySelectorAll('.opblock').length > 20")
    paths = page.eval_on_selector_all(".opblock-summary-path", "els => els.map(e => e.getAttribute('data-path'))")
    assert {"/search", "/export", "/sets", "/records/{record_id}/rests-on", "/source-files/{path}/rests-on"} <= set(paths)
    page.click("#operations-search-search .opblock-summary")  # opens it (tag, operationId), no request out
    page.wait_for_selector("#operations-search-search .parameters")
    page.click(".swagger-ui .auth-wrapper .authorize")  # the bearer schemes of /openapi.json
    page.wait_for_selector(".swagger-ui .dialog-ux .modal-ux")
    schemes = page.eval_on_selector_all(".swagger-ui .dialog-ux .auth-container h4",
                                        "els => els.map(e => e.innerText.trim())")
    assert [s.split()[0] for s in schemes] == ["readToken", "writeToken"], schemes
    page.screenshot(path=str(ARTIFACTS / "docs-swagger-authorize.png"))
    page.click(".swagger-ui .dialog-ux .modal-ux .close-modal")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "docs-swagger-offline.png"))
    assert offline == [] and local_only(page) == []
    assert page.problems == [] and page.console_errors == []


def test_redoc_renders_the_api_offline(context, offline, server):  # noqa: F811
    page = visit(context, f"{server}/redoc")
    page.wait_for_function("() => document.querySelectorAll('[data-section-id]').length > 20", timeout=30000)
    assert "citegraph" in page.inner_text("h1")
    assert page.locator("text=/search").count() > 0
    text = page.inner_text(".api-content")
    assert "GraphQL query or mutation" in text and "GraphQL query by GET (or GraphiQL)" in text
    assert "Handle Http" not in text
    page.screenshot(path=str(ARTIFACTS / "docs-redoc-offline.png"))
    assert offline == [] and local_only(page) == []
    assert page.refused == []  # ReDoc's menu logo comes blank from the app, not from Redocly's CDN
    assert page.problems == [] and page.console_errors == []


def test_the_start_page_leads_to_graphiql_on_the_missions_question(context, offline, server):  # noqa: F811
    page = visit(context, f"{server}/")
    assert page.inner_text("h1") == "citegraph"
    links = page.eval_on_selector_all("a", "els => els.map(e => e.getAttribute('href'))")
    assert {"/docs", "/redoc", "/sets/tolaria", "/sets/talorys", "/embed/rests-on/RT-RTE-mcp-write?set=tolaria"} <= set(links)
    page.screenshot(path=str(ARTIFACTS / "start-page-offline.png"))
    page.click("#graphiql")
    page.locator(".graphiql-query-editor .CodeMirror").wait_for(state="visible")
    editor = page.inner_text(".graphiql-query-editor")
    assert 'record: "RT-RTE-mcp-write"' in editor and 'set: "tolaria"' in editor
    page.click(".graphiql-execute-button")
    page.wait_for_function("""() => /"count":\\s*14/.test(document.querySelector('.graphiql-response')?.innerText || '')""")
    page.screenshot(path=str(ARTIFACTS / "graphiql-example-offline.png"))
    assert offline == [] and local_only(page) == []
    assert page.problems == []


def test_graphiql_at_1280px_is_titled_and_its_example_clears_the_toolbar(context, offline, server):  # noqa: F811
    """Every line of the opening query (comments included) ends left of the editor's toolbar (run,
    prettify, merge, copy) in a 1280×800 window; the tab is citegraph's."""
    page = visit(context, f"{server}/graphql", viewport={"width": 1280, "height": 800})
    page.locator(".graphiql-query-editor .CodeMirror").wait_for(state="visible")
    assert page.title() == "citegraph GraphiQL"
    layout = page.evaluate("""() => {
        const toolbar = document.querySelector('.graphiql-query-editor ~ .graphiql-toolbar, .graphiql-toolbar')
            .getBoundingClientRect();  // the query editor's buttons
        const lines = [...document.querySelectorAll('.graphiql-query-editor .CodeMirror-line')].map(line => {
            const range = document.createRange();
            range.selectNodeContents(line);
            const boxes = [...range.getClientRects()];
            return [line.innerText, boxes.length ? Math.max(...boxes.map(b => b.right)) : 0];
        });
        return {toolbarLeft: toolbar.left, lines};
    }""")
    texts = [text for text, _ in layout["lines"]]
    assert texts[:4] == ["# What rests on RT-RTE-mcp-write? Every statement", "# resting on the record, with the citation path",
                         "# that explains it. Run it with ▶ or Ctrl-Enter;", "# the Docs pane lists every field."]
    over = [(text, right) for text, right in layout["lines"] if right > layout["toolbarLeft"]]
    assert over == [], (layout["toolbarLeft"], over)
    page.screenshot(path=str(ARTIFACTS / "graphiql-1280.png"))
    assert offline == [] and local_only(page) == []
    assert page.problems == [] and page.console_errors == []


def test_graphiql_opens_on_the_query_of_the_url(context, offline, server):  # noqa: F811
    page = visit(context, f"{server}/graphql?query={quote('{ sets { totalCount } }', safe='')}")
    page.locator(".graphiql-query-editor .CodeMirror").wait_for(state="visible")
    assert "{ sets { totalCount } }" in page.inner_text(".graphiql-query-editor")
    page.click(".graphiql-execute-button")
    page.wait_for_function("""() => /"totalCount":\\s*2/.test(document.querySelector('.graphiql-response')?.innerText || '')""")
    assert offline == [] and page.problems == []


@pytest.mark.parametrize("target, statements, start_kind", [
    ("RT-RTE-mcp-write", 14, "record"), ("mcp-server/vault.js", 10, "source_file"), ("SRC-1", 29, "source")])
def test_the_embedded_view_reads_in_an_800x600_frame(context, offline, server, target, statements, start_kind):  # noqa: F811
    page = visit(context, f"{server}/embed/rests-on/{target}?set=tolaria", viewport={"width": 800, "height": 600})
    page.wait_for_selector("body[data-graph=ready]")
    shown = page.evaluate("""() => {
        const cy = citegraphEmbed.cy;
        const start = cy.nodes('[?start]');
        return {statements: cy.nodes('[kind = "statement"]').length, start: start.map(n => n.data('kind')),
                labels: cy.nodes('[kind = "statement"]').map(n => [n.data('label'), n.data('text')]),
                edgeLabels: cy.edges().filter(e => e.style('label')).length,
                fontPx: citegraphEmbed.labelScale(),
                styles: [...new Set(cy.edges().map(e => e.data('drawn_as') + ':' + e.style('line-style')))].sort()};
    }""")
    assert shown["statements"] == statements and shown["start"] == [start_kind]
    for label, text in shown["labels"]:  # the first words of the statement, not a line number
        words = label.rstrip("…").split()
        assert words and " ".join(text.strip("| ").split()).replace(" | ", " · ").startswith(" ".join(words)), label
    assert shown["edgeLabels"] == 0  # kinds are line styles, named by the legend
    assert shown["fontPx"] >= 9.5, shown["fontPx"]  # labels drawn at least about 10 px on screen
    assert "CITES:solid" in shown["styles"] and "RESOLVES_TO:dashed" in shown["styles"]
    legend = page.inner_text("#cg-legend")
    assert "cites" in legend and "resolves to" in legend and page.is_visible("#cg-legend")
    name = target.replace("/", "_")
    page.screenshot(path=str(ARTIFACTS / f"embed-800x600-{name}.png"))
    assert offline == [] and local_only(page) == []
    assert page.problems == []
