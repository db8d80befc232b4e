"""GraphiQL in a real browser without internet access: Debian's Chromium (Playwright, through its
executable path, as in ``test_embed_browser``) loads ``/graphql`` from a live server while every
request to a host other than 127.0.0.1 is aborted, and runs a query through the editor.

Chromium missing: skipped with a loud reason, or failed when ``CITEGRAPH_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest

from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from tests.app.test_embed_browser import ARTIFACTS, context, open_page, playwright  # noqa: F401 (fixtures)
from tests.live_server import live_server


@pytest.fixture(scope="module")
def server():
    with live_server(create_app(Settings(), store=SQLiteStore(None))) as url:
        yield url


@pytest.fixture
def offline(context):  # noqa: F811 (the imported fixture)
    """``context`` with every request to a host other than 127.0.0.1 aborted; yields the aborted URLs."""
    blocked: list[str] = []

    def route(r):
        parts = urlsplit(r.request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname != "127.0.0.1":
            blocked.append(r.request.url)
            r.abort("internetdisconnected")
        else:
            r.continue_()

    context.route("**/*", route)
    yield blocked


def test_graphiql_renders_and_runs_a_query_offline(context, offline, server):  # noqa: F811
    page = open_page(context, f"{server}/graphql?q={quote('{ __typename }', safe='')}")  # decodeURIComponent
    page.locator(".graphiql-query-editor .CodeMirror").wait_for(state="visible")  # rendered by React
    assert page.evaluate("""() => [typeof React.createElement, typeof ReactDOM.createRoot, typeof Cookies.get,
                                   typeof GraphiQL.createFetcher, typeof GraphiQLPluginExplorer.explorerPlugin]""") \
        == ["function"] * 5
    assert "{ __typename }" in page.inner_text(".graphiql-query-editor")

    page.click(".graphiql-execute-button")
    page.wait_for_function("""() => /"__typename":\\s*"Query"/.test(
        document.querySelector('.graphiql-response')?.innerText || '')""")
    result = page.inner_text(".graphiql-response")
    assert '"data"' in result and '"Query"' in result

    fetched = page.evaluate("""async () => {
        const fetcher = GraphiQL.createFetcher({url: location.href.split('?')[0]});
        const result = await fetcher({query: '{ __typename }'});
        if (!result[Symbol.asyncIterator]) return result;
        for await (const first of result) return first;  // graphiql 3: an async iterable of results
    }""")
    assert fetched == {"data": {"__typename": "Query"}}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "graphiql-offline.png"))
    assert offline == []  # nothing even tried to leave the machine
    assert page.problems == []


def test_the_cdn_fallback_page_is_blank_offline(context, offline, tmp_path, monkeypatch):  # noqa: F811
    """The control: without the vendored files the page names unpkg.com, the routing aborts those
    requests, and GraphiQL never renders (what users without internet saw before)."""
    import app.graphql.ide as ide

    monkeypatch.setattr(ide, "GRAPHIQL_DIR", tmp_path)
    with live_server(create_app(Settings(), store=SQLiteStore(None))) as url:
        page = open_page(context, f"{url}/graphql")
        page.wait_for_load_state("load")  # every (failed) script has run by now
        assert page.locator(".graphiql-query-editor").count() == 0
        assert page.inner_text("#graphiql") == "Loading..."
    assert offline and all(urlsplit(u).hostname == "unpkg.com" for u in offline), offline
