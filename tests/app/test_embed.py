"""Embedded views over HTTP (no browser): the graph agrees with the rests-on query, hostile text stays
inert, the security headers and CORS follow ``CITEGRAPH_EMBED_ORIGINS``, and the page degrades to a
list, saying so in the log, when the vendored graph library is missing."""

from __future__ import annotations

import json
import logging

import html5lib
import pytest
from fastapi.testclient import TestClient

import app.embed.routes as routes
from app.embed.page import script_json
from app.rest.main import create_app
from app.settings import Settings
from graph.errors import SettingsInvalid
from graph.stores.sqlite import SQLiteStore
from queries.traversal import rests_on
from tests.conftest import ROOT, ingest_into

DASHBOARD = "https://dash.example.org"
HOSTILE = "Writes replace the note </script><script>alert(1)</script> <!-- & \u2028 (RT-RTE-x)."


@pytest.fixture(scope="module")
def client(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        yield client


@pytest.fixture(scope="module")
def framed(seeds_store):
    """An app whose embed origins name one dashboard."""
    with TestClient(create_app(Settings(embed_origins=[DASHBOARD]), store=seeds_store)) as client:
        yield client


def parse(text: str):
    return html5lib.parse(text, namespaceHTMLElements=False)


def graph_data(page: str) -> dict:
    block = parse(page).find(".//script[@id='cg-data']")
    assert block is not None and block.get("type") == "application/json"
    return json.loads(block.text)


def test_graph_twin_agrees_with_the_rests_on_query(client, seeds_store):
    graph = client.get("/embed/rests-on/RT-RTE-mcp-write/graph").json()
    report = rests_on(seeds_store, "RT-RTE-mcp-write")
    statements = [n for n in graph["nodes"] if n["kind"] == "statement"]
    assert graph["count"] == len(statements) == 14
    assert [n["id"] for n in statements] == [r.statement for r in report.results]
    assert [n for n in graph["nodes"] if n["kind"] == "record"] == [{
        "id": "tolaria/RT-RTE-mcp-write", "kind": "record", "label": "RT-RTE-mcp-write", "name": "RT-RTE-mcp-write",
        "set": "tolaria", "document": None, "record_id": "RT-RTE-mcp-write", "record_label": None, "start": True,
        "anchor": "rec-tolaria-rt-rte-mcp-write", "hops": 0}]  # the seeds declare no record: no label
    between = {n["id"]: n["kind"] for n in graph["nodes"] if n["kind"] not in ("record", "statement")}
    assert between == {"tolaria/ref/workflow-account": "named_reference", "tolaria/workflow-report#L5": "section",
                       "tolaria/workflow-report#L7": "section"}
    pairs = {(e["source"], e["target"]) for e in graph["edges"]}
    assert pairs == {(a, b) for r in report.results for a, b in zip(r.path, r.path[1:])}
    assert len(graph["edges"]) == 17
    assert client.get("/embed/rests-on/RT-RTE-mcp-write/graph", params={"direct": "true"}).json()["count"] == 12


def test_page_embeds_the_same_graph_and_the_rendered_report(client):
    response = client.get("/embed/rests-on/RT-RTE-mcp-write")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert graph_data(response.text) == client.get("/embed/rests-on/RT-RTE-mcp-write/graph").json()
    doc = parse(response.text)
    pane = doc.find(".//section[@id='cg-pane']")
    assert pane.get("data-showing") == "rests-on:RT-RTE-mcp-write"
    assert pane.find(".//h1").text == "Statements resting on RT-RTE-mcp-write"
    assert len(doc.findall(".//div[@id='cg-list']//li[@class='k-statement direct']")) == 12
    assert len(doc.findall(".//div[@id='cg-list']//li[@class='k-statement transitive']")) == 2


def test_page_has_no_inline_script_or_style_and_only_local_assets(client):
    doc = parse(client.get("/embed/rests-on/RT-RTE-mcp-write").text)
    scripts = doc.findall(".//script")
    assert [s.get("src") for s in scripts if s.get("src")] == ["/embed/static/vendor/cytoscape.min.js",
                                                                "/embed/static/embed.js"]
    assert all(s.get("src") or s.get("type") == "application/json" for s in scripts)
    assert doc.findall(".//style") == [] and [e for e in doc.iter() if e.get("style") is not None] == []
    assert all(link.get("href").startswith(("/embed/static/", "data:")) for link in doc.findall(".//link"))
    for path in ("/embed/static/vendor/cytoscape.min.js", "/embed/static/embed.js", "/embed/static/embed.css",
                 "/embed/static/cytoscape.css"):
        assert client.get(path).status_code == 200, path


def test_record_page_and_dossier_fragment(client):
    page = client.get("/embed/records/RT-RTE-mcp-write", params={"set": "tolaria"})
    assert page.status_code == 200
    pane = parse(page.text).find(".//section[@id='cg-pane']")
    assert pane.get("data-showing") == "dossier:tolaria/RT-RTE-mcp-write"
    assert pane.find(".//h1").text == "Record dossier: RT-RTE-mcp-write"
    assert graph_data(page.text)["count"] == 14
    fragment = client.get("/embed/records/RT-RTE-mcp-write/dossier", params={"set": "tolaria"})
    assert fragment.status_code == 200 and fragment.text.startswith("<h1>Record dossier: RT-RTE-mcp-write</h1>")
    assert "<html" not in fragment.text and "<style" not in fragment.text


def test_unknown_record_is_an_html_page_or_a_json_error(client):
    page = client.get("/embed/rests-on/RT-NOPE-x")
    assert page.status_code == 404 and "record RT-NOPE-x is not cited or declared" in page.text
    assert "Content-Security-Policy" in page.headers
    assert client.get("/embed/records/RT-NOPE-x").status_code == 404
    assert client.get("/embed/rests-on/RT-RTE-mcp-write", params={"set": "nope"}).status_code == 404
    twin = client.get("/embed/rests-on/RT-NOPE-x/graph")
    assert twin.status_code == 404 and twin.json()["error"]["code"] == "NOT_FOUND"


def test_hostile_text_cannot_leave_the_json_block(tmp_path):
    store = SQLiteStore(None)
    member = tmp_path / "demo.txt"
    member.write_text("Demo synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n"
                      f"Bounded synthesis\n{HOSTILE}\nReads do not check it.", encoding="utf-8")
    ingest_into(store, member)
    with TestClient(create_app(Settings(), store=store)) as client:
        text = client.get("/embed/rests-on/RT-RTE-x").text
    assert "<script>alert(1)" not in text
    assert text.count("</script>") == len(parse(text).findall(".//script"))
    (statement,) = [n for n in graph_data(text)["nodes"] if n["kind"] == "statement"]
    assert statement["text"] == HOSTILE
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in text  # in the list and the report, escaped


def test_script_json_escapes_what_html_parsers_react_to():
    out = script_json({"t": "</script><!--&\u2028"})
    assert not any(c in out for c in "<>&\u2028") and json.loads(out) == {"t": "</script><!--&\u2028"}


# -- headers ---------------------------------------------------------------------------------------


def policy(response) -> dict[str, str]:
    return {part.split()[0]: part.partition(" ")[2] for part in response.headers["content-security-policy"].split("; ")}


def test_embed_pages_default_to_no_framing_and_no_inline_script(client):
    response = client.get("/embed/rests-on/RT-RTE-mcp-write")
    csp = policy(response)
    assert csp["frame-ancestors"] == "'none'"
    assert csp["default-src"] == csp["script-src"] == csp["style-src"] == csp["connect-src"] == "'self'"
    assert csp["object-src"] == csp["base-uri"] == "'none'"
    assert "unsafe-inline" not in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "x-frame-options" not in response.headers  # it cannot list origins; the CSP decides


def test_embed_origins_may_frame_the_pages(framed):
    for path in ("/embed/rests-on/RT-RTE-mcp-write", "/embed/records/RT-RTE-mcp-write",
                 "/embed/records/RT-RTE-mcp-write/dossier"):
        assert policy(framed.get(path))["frame-ancestors"] == DASHBOARD, path


def test_every_other_response_is_unframeable_and_nosniff(client, framed):
    for c in (client, framed):
        for path in ("/health", "/records/RT-RTE-mcp-write/rests-on", "/embed/static/embed.js",
                     "/embed/rests-on/RT-RTE-mcp-write/graph", "/no-such-path"):
            response = c.get(path)
            assert response.headers["x-content-type-options"] == "nosniff", path
            assert response.headers["content-security-policy"] == "frame-ancestors 'none'", path
            assert response.headers["x-frame-options"] == "DENY", path


def test_cors_allows_only_the_embed_origins(client, framed):
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
    ok = framed.options("/graphql", headers={"Origin": DASHBOARD, **preflight})
    assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == DASHBOARD
    assert "access-control-allow-credentials" not in ok.headers
    for c, origin in ((framed, "https://evil.example"), (client, DASHBOARD)):
        refused = c.options("/graphql", headers={"Origin": origin, **preflight})
        assert refused.status_code == 400 and "access-control-allow-origin" not in refused.headers
        simple = c.get("/health", headers={"Origin": origin})
        assert simple.status_code == 200 and "access-control-allow-origin" not in simple.headers
    simple = framed.get("/records/RT-RTE-mcp-write/rests-on", headers={"Origin": DASHBOARD})
    assert simple.headers["access-control-allow-origin"] == DASHBOARD


def test_embed_origins_setting_parses_and_refuses_what_could_break_a_header(monkeypatch):
    monkeypatch.setenv("CITEGRAPH_EMBED_ORIGINS", "https://a.example, http://localhost:3000/")
    assert Settings().embed_origins == ["https://a.example", "http://localhost:3000"]
    monkeypatch.setenv("CITEGRAPH_EMBED_ORIGINS", '["https://A.example"]')
    assert Settings().embed_origins == ["https://a.example"]
    monkeypatch.delenv("CITEGRAPH_EMBED_ORIGINS")
    assert Settings().embed_origins == []
    for bad in ("https://a.example; script-src *", "*", "https://a.example/path", "javascript:alert(1)",
                "https://a.example 'unsafe-inline'"):
        with pytest.raises(SettingsInvalid, match="is not an origin"):
            Settings(embed_origins=[bad])


# -- reads and the missing library -----------------------------------------------------------------


def test_embed_reads_follow_the_read_token(seeds_store):
    with TestClient(create_app(Settings(read_token="r"), store=seeds_store)) as c:
        assert c.get("/embed/rests-on/RT-RTE-mcp-write").status_code == 401
        assert c.get("/embed/rests-on/RT-RTE-mcp-write/graph", headers={"Authorization": "Bearer x"}).status_code == 401
        assert c.get("/embed/rests-on/RT-RTE-mcp-write", headers={"Authorization": "Bearer r"}).status_code == 200
        assert c.get("/embed/static/embed.js").status_code == 200  # code, not data


def test_missing_graph_library_degrades_to_a_list_and_says_so(seeds_store, tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(routes, "VENDOR_DIR", tmp_path)
    with caplog.at_level(logging.WARNING, logger="citegraph.embed"):
        app = create_app(Settings(), store=seeds_store)
    assert any("graph library MISSING" in r.getMessage() and "scripts/vendor-js" in r.getMessage()
               for r in caplog.records)
    with TestClient(app) as c:
        doc = parse(c.get("/embed/rests-on/RT-RTE-mcp-write").text)
    assert [s.get("src") for s in doc.findall(".//script") if s.get("src")] == ["/embed/static/embed.js"]
    assert "not installed" in "".join(doc.find(".//p[@id='cg-notice']").itertext())
    assert len(doc.findall(".//div[@id='cg-list']//li")) == 1 + 14 + 3


def test_vendored_library_is_the_locked_version_and_is_logged(seeds_store, caplog):
    """``scripts/vendor-js`` (``make install``) copied exactly what ``package-lock.json`` pins."""
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    locked = lock["packages"]["node_modules/cytoscape"]["version"]
    assert routes.graph_library() == "cytoscape.min.js", "run scripts/vendor-js to vendor the graph library"
    with caplog.at_level(logging.INFO, logger="citegraph.embed"):
        create_app(Settings(), store=seeds_store)
    assert any(f"graph library cytoscape {locked} at" in r.getMessage() for r in caplog.records)
