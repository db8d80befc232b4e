"""The start page and the API docs over HTTP; the same pages in a browser without
internet access are ``test_offline_browser``'s."""

from __future__ import annotations

import logging
import re

import pytest
from fastapi.testclient import TestClient

import app.rest.docs as docs
from app.rest.main import create_app
from app.settings import Settings
from graph.stores.sqlite import SQLiteStore
from tests.app.test_embed import parse

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def client(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        yield client


def test_the_start_page_links_everything_a_new_user_needs(client):
    response = client.get("/")
    assert response.status_code == 200 and "script-src 'self'" in response.headers["content-security-policy"]
    doc = parse(response.text)
    assert doc.findall(".//script") == []
    links = [a.get("href") for a in doc.iter("a")]
    assert links[1:4] == ["/docs", "/redoc", "/openapi.json"]
    assert links[0].startswith("/graphql?query=%23%20What%20rests%20on%20RT-RTE-mcp-write%3F")
    assert "/embed/rests-on/RT-RTE-mcp-write?set=tolaria" in links
    sets = doc.find(".//ul[@id='sets']")
    assert ["".join(li.itertext()).split(" — ")[0] for li in sets.findall("li")] == [
        "talorys (Talorys): 1 document, 24 statements, 38 records",
        "tolaria (Tolaria): 2 documents, 54 statements, 24 records"]
    assert "Serving the embedded store." in " ".join("".join(doc.find(".//p").itertext()).split())


def test_a_large_store_lists_the_first_sets_and_links_the_rest(client, monkeypatch):
    monkeypatch.setattr(docs, "START_SETS", 1)
    sets = parse(client.get("/").text).find(".//ul[@id='sets']")
    assert "".join(sets.findall("li")[-1].itertext()) == "… and 1 more: all 2 sets (citegraph sets)"


def test_an_empty_store_says_how_to_fill_it():
    with TestClient(create_app(Settings(), store=SQLiteStore(None))) as client:
        page = client.get("/").text
    assert "citegraph ingest corpus/seeds" in page and "embed/rests-on" not in page


@pytest.mark.parametrize("path, assets", [
    ("/docs", ["/embed/static/vendor/swagger-ui/swagger-ui.css", "/embed/static/vendor/swagger-ui/favicon-32x32.png",
               "/embed/static/vendor/swagger-ui/swagger-ui-bundle.js"]),
    ("/redoc", ["/embed/static/vendor/swagger-ui/favicon-32x32.png", "/redoc/redoc.standalone.js"]),
])
def test_the_docs_load_only_the_vendored_assets(client, path, assets):
    response = client.get(path)
    assert response.status_code == 200
    found = re.findall(r"""(?:src|href)="([^"]+)\"""", response.text)
    assert found == assets and "fonts.googleapis" not in response.text
    assert response.headers["content-security-policy"] == docs.DOCS_POLICY
    for asset in assets:
        assert client.get(asset).status_code == 200, asset
    assert '"validatorUrl": null' in response.text or path == "/redoc"  # no online validator badge


def test_redoc_is_served_without_its_cdn_logo(client):
    vendored = (docs.VENDOR_DIR / docs.REDOC_FILE).read_bytes()
    served = client.get("/redoc/redoc.standalone.js")
    assert served.status_code == 200 and served.headers["content-type"] == "text/javascript; charset=utf-8"
    assert vendored.count(docs.REDOC_LOGO.encode()) == 1 and docs.REDOC_LOGO.encode() not in served.content
    assert served.content == vendored.replace(docs.REDOC_LOGO.encode(), docs.BLANK_IMAGE.encode())


def test_missing_assets_fall_back_to_the_cdn_and_say_so(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(docs, "VENDOR_DIR", tmp_path)
    with caplog.at_level(logging.WARNING, logger="citegraph"):
        app = create_app(Settings(), store=SQLiteStore(None))
    assert any("API docs: Swagger UI / ReDoc files MISSING" in r.getMessage() for r in caplog.records)
    with TestClient(app) as client:
        assert "cdn.jsdelivr.net/npm/swagger-ui-dist@5" in client.get("/docs").text
        redoc = client.get("/redoc")
        assert "cdn.jsdelivr.net/npm/redoc@2" in redoc.text
        assert redoc.headers["content-security-policy"] == "frame-ancestors 'none'"  # the CDN page: no asset policy
