"""GraphiQL at ``/graphql`` from the app's own files (no CDN): strawberry's page with its unpkg.com URLs
replaced by the files ``scripts/vendor-js`` vendored from the npm registry, and strawberry's CDN page,
said so in the log, when they are missing or not the pinned ones."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import shutil

import html5lib
import pytest
from fastapi.testclient import TestClient
from strawberry.http.ides import get_graphql_ide_html

import app.graphql.ide as ide
from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from tests.conftest import ROOT

HTML = {"Accept": "text/html"}
VENDORED = "/embed/static/vendor/graphiql"
SCRIPTS = [f"{VENDORED}/react@18.2.0/umd/react.production.min.js",
           f"{VENDORED}/react-dom@18.2.0/umd/react-dom.production.min.js",
           f"{VENDORED}/js-cookie@3.0.5/dist/js.cookie.min.js",
           f"{VENDORED}/graphiql@3.8.3/graphiql.min.js",
           f"{VENDORED}/@graphiql/plugin-explorer@1.0.2/dist/index.umd.js"]
STYLES = [f"{VENDORED}/graphiql@3.8.3/graphiql.min.css",
          f"{VENDORED}/@graphiql/plugin-explorer@1.0.2/dist/style.css"]
PINNED = {"react": "18.2.0", "react-dom": "18.2.0", "js-cookie": "3.0.5", "graphiql": "3.8.3",
          "@graphiql/plugin-explorer": "1.0.2"}
"""The versions strawberry's GraphiQL page names (and package.json pins)."""


def parse(text: str):
    return html5lib.parse(text, namespaceHTMLElements=False)


def assets_of(page: str) -> tuple[list, list]:
    """The page's ``<script src>`` and stylesheet ``<link>`` elements."""
    doc = parse(page)
    return ([s for s in doc.iter("script") if s.get("src")],
            [link for link in doc.iter("link") if link.get("rel") == "stylesheet"])


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(Settings(), store=SQLiteStore(None))) as client:
        yield client


def test_graphiql_page_loads_every_script_and_style_from_the_app(client):
    assert ide.GRAPHIQL_DIR.is_dir(), "run scripts/vendor-js to vendor GraphiQL"
    response = client.get("/graphql", headers=HTML)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    scripts, styles = assets_of(response.text)
    assert [s.get("src") for s in scripts] == SCRIPTS
    assert [link.get("href") for link in styles] == STYLES
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", response.text)
    assert "unpkg.com" not in response.text
    others = [link.get("href") for link in parse(response.text).iter("link") if link.get("rel") != "stylesheet"]
    assert all(href.startswith("data:") for href in others), others  # the icon

    for element, url, kind in [(s, s.get("src"), "javascript") for s in scripts] + \
                              [(link, link.get("href"), "css") for link in styles]:
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert asset.headers["content-type"].split(";")[0] in {f"text/{kind}", f"application/{kind}"}, url
        algorithm, _, digest = element.get("integrity").partition("-")
        assert algorithm == "sha384"  # strawberry's pin: the browser checks these bytes too
        assert base64.b64encode(hashlib.sha384(asset.content).digest()).decode() == digest, url


def test_the_page_is_strawberrys_with_only_the_urls_and_the_example_changed(client):
    cdn = get_graphql_ide_html("graphiql")
    local = client.get("/graphql", headers=HTML).text
    expected = ide.with_example(re.sub(r"https://unpkg\.com/", f"{VENDORED}/", cdn), ide.example_query(None))
    assert expected is not None and expected == local  # the store is empty: the example lists the sets
    assert "parameters.q || parameters.query || EXAMPLE_QUERY" in local


def test_mounted_under_a_prefix_the_assets_follow_the_root_path():
    with TestClient(create_app(Settings(), store=SQLiteStore(None)), root_path="/cg") as c:
        scripts, styles = assets_of(c.get("/graphql", headers=HTML).text)
    assert [s.get("src") for s in scripts] == ["/cg" + url for url in SCRIPTS]
    assert [link.get("href") for link in styles] == ["/cg" + url for url in STYLES]


def test_graphiql_reads_follow_the_read_token():
    with TestClient(create_app(Settings(read_token="r"), store=SQLiteStore(None))) as c:
        assert c.get("/graphql", headers=HTML).status_code == 401
        assert c.get("/graphql", headers={**HTML, "Authorization": "Bearer x"}).status_code == 401
        page = c.get("/graphql", headers={**HTML, "Authorization": "Bearer r"})
        assert page.status_code == 200 and [s.get("src") for s in assets_of(page.text)[0]] == SCRIPTS
        assert c.get(SCRIPTS[0]).status_code == 200  # code, not data: like /embed/static
        assert c.post("/graphql", json={"query": "{ __typename }"}).status_code == 401
        assert c.post("/graphql", json={"query": "{ __typename }"},
                      headers={"Authorization": "Bearer r"}).json() == {"data": {"__typename": "Query"}}


def test_vendored_versions_are_the_locked_ones_strawberry_names():
    """``scripts/vendor-js`` copied what ``package-lock.json`` pins, and those are the versions in
    strawberry's page (a strawberry upgrade that changes them fails here: bump package.json)."""
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["dependencies"]
    vendored = json.loads((ide.VENDOR_DIR / "versions.json").read_text(encoding="utf-8"))
    named = dict(re.findall(r"https://unpkg\.com/((?:@[^/@]+/)?[^/@]+)@([^/]+)/", get_graphql_ide_html("graphiql")))
    assert named == PINNED
    for package, version in PINNED.items():
        assert manifest[package] == lock[f"node_modules/{package}"]["version"] == vendored[package] == version
        assert (ide.GRAPHIQL_DIR / f"{package}@{version}" / "LICENSE").is_file()


def test_missing_files_fall_back_to_the_cdn_page_and_say_so(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(ide, "GRAPHIQL_DIR", tmp_path)
    with caplog.at_level(logging.INFO, logger="citegraph.graphql"):
        app = create_app(Settings(), store=SQLiteStore(None))
    warnings = [r.getMessage() for r in caplog.records if r.name == "citegraph.graphql"]
    assert len(warnings) == 1 and "vendored files MISSING" in warnings[0] and "scripts/vendor-js" in warnings[0]
    assert f"missing {tmp_path}/react@18.2.0/umd/react.production.min.js" in warnings[0]
    with TestClient(app) as c:
        assert c.get("/graphql", headers=HTML).text == ide.with_example(get_graphql_ide_html("graphiql"),
                                                                        ide.example_query(None))
        assert c.post("/graphql", json={"query": "{ __typename }"}).json() == {"data": {"__typename": "Query"}}


def test_a_file_that_is_not_the_pinned_one_falls_back_to_the_cdn_page(tmp_path, monkeypatch, caplog):
    copy = tmp_path / "graphiql"
    shutil.copytree(ide.GRAPHIQL_DIR, copy)
    (copy / "js-cookie@3.0.5/dist/js.cookie.min.js").write_text("/* not js-cookie */\n", encoding="utf-8")
    monkeypatch.setattr(ide, "GRAPHIQL_DIR", copy)
    with caplog.at_level(logging.WARNING, logger="citegraph.graphql"):
        app = create_app(Settings(), store=SQLiteStore(None))
    assert any(f"{copy}/js-cookie@3.0.5/dist/js.cookie.min.js does not match the sha384 hash" in r.getMessage()
               for r in caplog.records)
    with TestClient(app) as c:
        assert "https://unpkg.com/js-cookie@3.0.5/" in c.get("/graphql", headers=HTML).text


def test_local_page_refuses_urls_on_other_hosts(tmp_path):
    page, problems = ide.local_graphiql('<link rel="stylesheet" href="https://cdn.example/x.css">', tmp_path)
    assert page is None and problems == ["https://cdn.example/x.css is not on https://unpkg.com/"]
