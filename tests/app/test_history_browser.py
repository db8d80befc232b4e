"""The version and comparison selectors of the embedded views in a real browser:
Debian's Chromium through Playwright, against a live server (the harness of
``tests/app/test_embed_browser.py``)."""

from __future__ import annotations

import pytest

from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from tests.app.test_embed_browser import ARTIFACTS, context, open_page, playwright  # noqa: F401 (fixtures)
from tests.history_sets import IM01, IM02, LEDGER, instinctual_memory, ledger_versions
from tests.live_server import live_server

R = "RT-RTE-ledger-commit"


@pytest.fixture(scope="module")
def history_server():
    store = SQLiteStore(None)
    ledger_versions(store)
    instinctual_memory(store)
    with live_server(create_app(Settings(environ={}, env_file=None), store=store)) as url:
        yield url


def test_the_version_selector_shows_the_graph_at_an_earlier_version(context, history_server):  # noqa: F811
    page = open_page(context, f"{history_server}/embed/rests-on/{R}?set={LEDGER}")
    page.wait_for_selector("body[data-graph=ready]")
    statements = "citegraphEmbed.cy.nodes('[kind = \"statement\"]').length"
    assert page.evaluate(statements) == 6
    options = page.eval_on_selector_all("select[name=version] option", "os => os.map(o => [o.textContent, o.selected])")
    assert [(text.split(" · ")[0], chosen) for text, chosen in options] == [("2 (latest)", True), ("1", False)]
    page.select_option("select[name=version]", index=1)
    page.wait_for_url(f"**/embed/rests-on/{R}?set={LEDGER}&version=1")
    page.wait_for_selector("body[data-graph=ready]")
    assert page.evaluate(statements) == 3
    assert page.eval_on_selector("select[name=version]", "s => s.options[s.selectedIndex].textContent").startswith("1")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "embed-rests-on-version-1.png"))
    assert page.problems == []


def test_the_history_view_shows_the_diff_and_picks_versions(context, history_server):  # noqa: F811
    page = open_page(context, f"{history_server}/embed/history/{LEDGER}")
    page.wait_for_load_state("load")
    assert page.inner_text("#cg-pane-body h1") == f"Analysis set {LEDGER}: version 1 → 2"
    text = page.inner_text("#cg-pane-body")
    assert "Rests-on answers that moved (3)" in text and "operation conclusion status: uninspected → observed" in text
    page.select_option("select[name=to]", index=1)  # to version 1: from 1 to 1, nothing changed
    page.wait_for_url(f"**/embed/history/{LEDGER}?from=1&to=1")
    assert page.inner_text("#cg-pane-body h1") == f"Analysis set {LEDGER}: version 1 → 1"
    assert page.inner_text("#cg-pane-body p.lead") == "No changes."
    assert page.problems == []


def test_the_comparison_view_picks_runs(context, history_server):  # noqa: F811
    page = open_page(context, f"{history_server}/embed/compare?a={IM01}")
    page.wait_for_load_state("load")
    assert page.inner_text("#cg-pane-body h1") == f"Comparison of {IM01} and {IM02}"
    body = page.inner_text("#cg-pane-body")
    assert "Matched records (0)" in body and "Unmatched in " + IM01 + " (28)" in body
    assert "RT-BAP-2 (2 shared)" in body  # IM-01's RTE-2 candidates
    page.screenshot(path=str(ARTIFACTS / "embed-compare.png"))
    page.select_option("select[name=a]", index=0)  # a := IM-02 (runs by date), shown as b: the two swap
    page.wait_for_url(f"**/embed/compare?a={IM02}&b={IM01}")
    assert page.inner_text("#cg-pane-body h1") == f"Comparison of {IM02} and {IM01}"
    assert "Unmatched in " + IM02 + " (25)" in page.inner_text("#cg-pane-body")
    assert page.problems == []


def test_a_page_at_an_earlier_version_opens_dossiers_at_that_version(context, history_server):  # noqa: F811
    from tests.app.test_embed_browser import click_node

    page = open_page(context, f"{history_server}/embed/records/RT-OBJ-ledger-file?set={LEDGER}&version=1")
    page.wait_for_selector("body[data-graph=ready]")
    append = f"{LEDGER}/RT-RTE-ledger-append"
    assert append in page.evaluate("citegraphEmbed.cy.nodes('[kind = \"record\"]').map(n => n.id())")
    click_node(page, append)
    page.wait_for_selector(f'#cg-pane[data-showing="dossier:{append}"]')
    assert page.inner_text("#cg-pane-body h1") == "Record dossier: RT-RTE-ledger-append"
    assert "Superseded by" not in page.inner_text("#cg-pane-body")  # the amendment came with version 2
    link = page.get_attribute('#cg-list a[href*="RT-RTE-ledger-append"]', "href")
    assert link == f"/embed/records/RT-RTE-ledger-append?set={LEDGER}&version=1"

    latest = open_page(context, f"{history_server}/embed/records/RT-OBJ-ledger-file?set={LEDGER}")
    latest.wait_for_selector("body[data-graph=ready]")
    click_node(latest, append)
    latest.wait_for_selector(f'#cg-pane[data-showing="dossier:{append}"]')
    assert "Superseded by RT-RTE-ledger-commit" in latest.inner_text("#cg-pane-body")
    assert page.problems == [] and latest.problems == []
