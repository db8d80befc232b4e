"""The embedded views in a real browser: Debian's Chromium, driven by Playwright for Python through its
executable path (Playwright never downloads a browser here), against a live uvicorn server.

Chromium missing: the tests skip with a loud reason, or fail when ``CITEGRAPH_REQUIRE_BROWSER=1``
(``scripts/test`` sets it; ``.ci/run`` installs Debian's ``chromium``). Screenshots go to
``test-artifacts/`` (gitignored).
"""

from __future__ import annotations

import html
import os
import shutil
from pathlib import Path
from urllib.parse import urlencode

import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from tests.conftest import CORPUS, ROOT, ingest_into
from tests.live_server import live_server

CHROMIUM = os.environ.get("CITEGRAPH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
"""Flags for this machine's closed network: no background connections, no sandbox as root."""
ARTIFACTS = ROOT / "test-artifacts"
RECORD = "tolaria/RT-RTE-mcp-write"
DC_SET = "AAS-2026-10-04-dynamic-cheatsheet-01"
DC_FOLDERS = [CORPUS / "commonplace/kb/agentic-system-analyses/retained/dynamic-cheatsheet",
              CORPUS / f"commonplace/kb/agentic-system-analyses/retained-archive/{DC_SET}"]


def _browser_missing(reason: str):
    message = f"CHROMIUM NOT AVAILABLE, browser tests not run: {reason} (apt-get install chromium)"
    if os.environ.get("CITEGRAPH_REQUIRE_BROWSER") == "1":
        pytest.fail(message + " (CITEGRAPH_REQUIRE_BROWSER=1 makes this an error)", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def playwright():
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        _browser_missing(f"no executable at {CHROMIUM}")
    from playwright.sync_api import sync_playwright  # a dev dependency: missing means a broken install

    with sync_playwright() as p:
        yield p


@pytest.fixture
def context(playwright, tmp_path):
    """A fresh Chromium profile per test (its own --user-data-dir)."""
    ctx = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
        viewport={"width": 1400, "height": 900})
    try:
        yield ctx
    finally:
        ctx.close()


def dashboard_app() -> Starlette:
    """A stand-in dashboard: ``/dash?src=URL`` is a page framing ``URL``."""

    async def dash(request):
        src = html.escape(request.query_params["src"], quote=True)
        return HTMLResponse(f'<!DOCTYPE html><title>dashboard</title><link rel="icon" href="data:,">'
                            f'<iframe id="v" width="1200" height="700" src="{src}"></iframe>')

    return Starlette(routes=[Route("/dash", dash), Route("/health", lambda request: PlainTextResponse("ok"))])


@pytest.fixture(scope="module")
def dashboard():
    """The dashboard's server, on 127.0.0.1; the same server named ``localhost`` is another origin."""
    with live_server(dashboard_app()) as url:
        yield url


@pytest.fixture(scope="module")
def server(seeds_store, dashboard):
    """The app over the seeds; ``CITEGRAPH_EMBED_ORIGINS`` names the dashboard's origin."""
    with live_server(create_app(Settings(embed_origins=[dashboard]), store=seeds_store)) as url:
        yield url


@pytest.fixture(scope="module")
def markdown_server():
    """The app over the Dynamic Cheatsheet set, whose explanation paths pass through other records."""
    store = SQLiteStore(None)
    ingest_into(store, *DC_FOLDERS)
    with live_server(create_app(Settings(), store=store)) as url:
        yield url


def open_page(context, url: str):
    """A new tab recording console errors (a CSP violation is one), script errors and failed responses."""
    page = context.new_page()
    page.problems = []
    page.on("console", lambda msg: page.problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: page.problems.append(str(exc)))
    page.on("response", lambda r: page.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(url)
    return page


def click_node(page, node_id: str) -> None:
    """A real mouse click at the node's rendered position on the canvas."""
    x, y = page.evaluate("""id => {
        const node = citegraphEmbed.cy.getElementById(id);
        const box = citegraphEmbed.cy.container().getBoundingClientRect();
        const p = node.renderedPosition();
        return [box.left + p.x, box.top + p.y];
    }""", node_id)
    page.mouse.click(x, y)


def test_rests_on_view_draws_the_graph_and_opens_dossiers(context, server):
    page = open_page(context, f"{server}/embed/rests-on/RT-RTE-mcp-write")
    page.wait_for_selector("body[data-graph=ready]")
    counts = page.evaluate("""() => {
        const cy = citegraphEmbed.cy;
        return {statements: cy.nodes('[kind = "statement"]').length,
                records: cy.nodes('[kind = "record"][?start]').map(n => n.id()),
                edges: cy.edges().length, listHidden: document.getElementById('cg-list').hidden};
    }""")
    assert counts == {"statements": 14, "records": [RECORD], "edges": 17, "listHidden": True}

    statement = "tolaria/synthesis#L16"  # transitive, through "workflow account"
    click_node(page, statement)
    page.wait_for_selector(f'#cg-details[data-node="{statement}"]')
    details = page.inner_text("#cg-details")
    assert "transitively, 2 evidence steps" in details and "workflow account" in details
    assert page.get_attribute("#cg-pane", "data-showing") == "rests-on:RT-RTE-mcp-write"
    assert page.evaluate("document.querySelector('#cg-pane-body .cg-focus').id") == "st-tolaria-synthesis-l16"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "embed-rests-on-statement.png"))

    click_node(page, RECORD)
    page.wait_for_selector(f'#cg-pane[data-showing="dossier:{RECORD}"]')
    assert page.inner_text("#cg-pane-body h1") == "Record dossier: RT-RTE-mcp-write"
    assert "Declaration and fields" in page.inner_text("#cg-pane-body")
    assert page.is_visible("#cg-pane-bar")
    page.screenshot(path=str(ARTIFACTS / "embed-rests-on.png"))

    page.click("#cg-back")
    assert page.get_attribute("#cg-pane", "data-showing") == "rests-on:RT-RTE-mcp-write"
    assert page.problems == []


def test_record_view_shows_the_dossier_beside_the_graph(context, server):
    page = open_page(context, f"{server}/embed/records/RT-RTE-mcp-write?set=tolaria")
    page.wait_for_selector("body[data-graph=ready]")
    assert page.evaluate("citegraphEmbed.cy.nodes('[kind = \"statement\"]').length") == 14
    assert page.get_attribute("#cg-pane", "data-showing") == f"dossier:{RECORD}"
    assert page.inner_text("#cg-pane-body h1") == "Record dossier: RT-RTE-mcp-write"
    assert page.problems == []


def test_clicking_another_record_on_a_path_opens_its_dossier(context, markdown_server):
    page = open_page(context, f"{markdown_server}/embed/rests-on/RT-RTE-checkpoint-resume?set={DC_SET}")
    page.wait_for_selector("body[data-graph=ready]")
    other = f"{DC_SET}/EPI-RTE-answer-extraction"
    nodes = page.evaluate("""() => citegraphEmbed.cy.nodes('[kind = "record"]').map(n => [n.id(), n.data('start')])""")
    assert sorted(nodes) == [[other, False], [f"{DC_SET}/RT-RTE-checkpoint-resume", True]]
    assert page.evaluate("citegraphEmbed.cy.nodes('[kind = \"statement\"]').length") == 24
    click_node(page, other)
    page.wait_for_selector(f'#cg-pane[data-showing="dossier:{other}"]')
    assert page.inner_text("#cg-pane-body h1") == "Record dossier: EPI-RTE-answer-extraction"
    page.screenshot(path=str(ARTIFACTS / "embed-rests-on-markdown-set.png"))
    assert page.problems == []


def test_without_the_graph_library_the_page_is_a_working_list(context, server, monkeypatch):
    import app.embed.routes as routes

    monkeypatch.setattr(routes, "graph_library", lambda: None)
    page = open_page(context, f"{server}/embed/rests-on/RT-RTE-mcp-write")
    page.wait_for_load_state("load")
    assert page.is_visible("#cg-notice") and "not installed" in page.inner_text("#cg-notice")
    assert page.is_hidden("#cg-graph")
    assert page.locator("#cg-list li.k-statement").count() == 14
    page.click("#cg-list li.k-record a")
    page.wait_for_url("**/embed/records/RT-RTE-mcp-write?set=tolaria")
    assert page.inner_text("#cg-pane-body h1") == "Record dossier: RT-RTE-mcp-write"
    assert page.problems == []


@pytest.mark.parametrize("allowed", [True, False], ids=["configured-origin", "other-origin"])
def test_only_configured_origins_can_frame_the_view(context, server, dashboard, allowed):
    host = dashboard if allowed else dashboard.replace("127.0.0.1", "localhost")
    page = open_page(context, f"{host}/dash?" + urlencode({"src": f"{server}/embed/rests-on/RT-RTE-mcp-write"}))
    page.wait_for_load_state("load")
    frame = page.frame_locator("#v")
    if allowed:
        frame.locator("body[data-graph=ready]").wait_for(state="attached")
        assert frame.locator("#cg-pane-body h1").inner_text() == "Statements resting on RT-RTE-mcp-write"
        assert page.problems == []
    else:
        for _ in range(200):  # the refusal is reported on the console, once the response has arrived
            if any("frame-ancestors" in problem for problem in page.problems):
                break
            page.wait_for_timeout(50)
        assert any("frame-ancestors" in problem for problem in page.problems), page.problems
        assert frame.locator("#cg-pane").count() == 0
