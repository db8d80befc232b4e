"""HTML pages: well-formed (html5lib, strict), self-contained, unique anchors, links that resolve,
all document text escaped."""

from __future__ import annotations

from collections import Counter

import pytest

from app.rendering import render_request
from graph.stores.sqlite import SQLiteStore
from tests.conftest import ingest_into
from tests.render.conftest import DC_SET, parse_html

SEEDS_PAGES = [
    {"rests_on": "RT-RTE-mcp-write"}, {"record": "RT-RTE-mcp-write"}, {"record": "RT-RTE-workspace-send"},
    {"set_id": "tolaria"}, {"set_id": "talorys"}, {"document": "tolaria/workflow-report"},
]
DC_PAGES = [
    {"rests_on": "RT-RTE-cumulative-update"}, {"record": "RT-OBJ-cheatsheet"}, {"set_id": DC_SET},
    {"document": f"{DC_SET}/memory"}, {"document": f"{DC_SET}/overview"},
]


def _check_page(text: str) -> dict[str, int]:
    """Parse strictly, check self-containment, unique ids and resolving in-page links; returns the
    count of each record anchor."""
    root = parse_html(text)
    assert root.find("head/style") is not None and root.find("head/meta[@charset='utf-8']") is not None
    for tag in ("script", "link", "img", "iframe", "object"):
        assert root.findall(f".//{tag}") == [], f"<{tag}> on a self-contained page"
    ids = Counter(e.get("id") for e in root.iter() if e.get("id"))
    assert [i for i, n in ids.items() if n > 1] == []
    hrefs = [e.get("href") for e in root.iter("a")]
    assert all(h.startswith("#") for h in hrefs), "a link leaves the page"
    assert [h for h in hrefs if h[1:] not in ids] == []
    return {i: n for i, n in ids.items() if i.startswith("rec-")}


@pytest.mark.parametrize("request_", SEEDS_PAGES, ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items()))
def test_seeds_pages_parse_with_unique_record_anchors(seeds_store, request_):
    records = _check_page(render_request(seeds_store, fmt="html", **request_).text)
    assert records and set(records.values()) == {1}


@pytest.mark.parametrize("request_", DC_PAGES, ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items()))
def test_markdown_set_pages_parse_with_unique_record_anchors(dc_store, request_):
    records = _check_page(render_request(dc_store, fmt="html", **request_).text)
    assert records and set(records.values()) == {1}


def test_set_page_anchors_every_record_once_and_links_records(dc_store):
    from queries.subgraphs import analysis_set_report

    text = render_request(dc_store, set_id=DC_SET, fmt="html").text
    records = _check_page(text)
    report = analysis_set_report(dc_store, DC_SET)
    assert len(records) == len(report.records)
    root = parse_html(text)
    links = [a for a in root.iter("a") if a.get("class") == "rec"]
    assert {a.get("href")[1:] for a in links} <= set(records)
    assert len(links) > len(records)


def test_rests_on_page_marks_direct_and_transitive(seeds_store):
    root = parse_html(render_request(seeds_store, rests_on="RT-RTE-mcp-write", fmt="html").text)
    notes = [p.get("class") for p in root.iter("p") if (p.get("class") or "").startswith("note")]
    assert Counter(notes) == {"note direct": 12, "note transitive": 2}
    assert root.find(".//li[@id='rec-tolaria-rt-rte-mcp-write']") is not None


HOSTILE = """Hostile synthesis
Type: agentic-system-analyses/types/agentic-system-synthesis.md
Bounded synthesis
An injected <script>alert("x")</script> tag & an <img src=x onerror=alert(1)> stay text (RT-RTE-evil, SRC-1).
Limitations
| limitation | affected SRC IDs and record citations | inspected boundary | conclusion prevented | evidence that would resolve it |
|---|---|---|---|---|
| <b>bold</b> "quoted" | SRC-1; RT-RTE-evil | a | b | c |"""


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("hostile") / "hostile.txt"
    path.write_text(HOSTILE, encoding="utf-8")
    store = SQLiteStore(None)
    ingest_into(store, path)
    return store


@pytest.mark.parametrize("request_", [
    {"document": "hostile/synthesis"}, {"rests_on": "RT-RTE-evil"}, {"record": "RT-RTE-evil"}, {"set_id": "hostile"},
], ids=["document", "rests-on", "dossier", "set"])
def test_document_text_is_escaped(hostile_store, request_):
    text = render_request(hostile_store, fmt="html", **request_).text
    root = parse_html(text)
    assert root.findall(".//script") == [] and root.findall(".//img") == [] and root.findall(".//b") == []
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert 'alert("x")' in "".join(root.itertext())
    _check_page(text)


def test_markdown_and_text_reports_keep_hostile_text_verbatim(hostile_store):
    text = render_request(hostile_store, rests_on="RT-RTE-evil", fmt="txt").text
    assert 'An injected <script>alert("x")</script> tag' in text
