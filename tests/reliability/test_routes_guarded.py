"""Every route obeys ``CITEGRAPH_READ_TOKEN`` (the issue: ``GET /`` answered 200 with every set,
system, count and the store's path), found by walking the app's route table, so a new route cannot
forget; and no answer names the store's folder on the server."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from starlette.routing import Mount

from app.embed.routes import STATIC_DIR
from app.rest.main import create_app
from app.settings import Settings
from graph.errors import StoreUnavailable
from graph.stores.sqlite import SQLiteStore
from tests.conftest import SEEDS, ingest_into

READ, WRITE = "the-read-token", "the-write-token"

ALLOWED = {
    ("GET", "/health"): "liveness for load balancers and `serve`'s own wait: `{\"status\": \"ok\"}` (the store's kind "
                        "and totals only with a token)",
    ("MOUNT", "/embed/static"): "the pages' scripts and styles and the vendored libraries: files of the package, no data",
    ("POST", "/hooks/push"): "git hosts send no bearer token: each delivery is signed with CITEGRAPH_HOOK_SECRET "
                             "(401 unsigned, 403 with no secret set) and answers only its own run",
}
"""Routes open without a token, each with why."""

SAMPLES = {"record_id": "RT-RTE-mcp-write", "set_id": "tolaria", "document_id": "tolaria/synthesis",
           "source_id": "SRC-1", "path": "mcp-server/vault.js", "system": "tolaria", "run_id": "1"}
"""A value for every path parameter, naming something the seeds hold."""
QUERIES = {"/search": "q=mcp", "/export": "format=json", "/compare": "a=tolaria&b=talorys",
           "/embed/compare": "a=tolaria", "/graphql": "query={sets{totalCount}}"}


def routes(app) -> list[tuple[str, str]]:
    """Every (method, path) the app answers, included routers flattened; a mount is ``MOUNT``."""
    found = []
    for route in app.routes:
        contexts = route.effective_route_contexts() if hasattr(route, "effective_route_contexts") else [route]
        for context in contexts:
            original = getattr(context, "original_route", context)
            path = getattr(context, "path", None) or original.path
            if isinstance(original, Mount):
                found.append(("MOUNT", path))
                continue
            methods = getattr(original, "methods", None)
            assert methods, f"a route without HTTP methods (a WebSocket?) at {path!r}: guard it or remove it"
            found += [(method, path) for method in sorted(methods - {"HEAD"})]
    return found


def concrete(path: str) -> str:
    return re.sub(r"\{(\w+)(?::path)?\}", lambda m: SAMPLES[m.group(1)], path)


@pytest.fixture
def app(store):
    ingest_into(store, SEEDS)
    return create_app(Settings(env_file=None, read_token=READ, write_token=WRITE), store=store)


def test_the_walk_finds_every_route_and_each_is_guarded_or_allowed_for_a_reason(app):
    table = routes(app)
    assert len(table) >= 40 and ("GET", "/") in table and ("GET", "/openapi.json") in table
    assert {r for r in table if r in ALLOWED} == set(ALLOWED)
    with TestClient(app) as client:
        for method, path in table:
            if (method, path) in ALLOWED:
                continue
            url = concrete(path)
            for headers in ({}, {"Authorization": "Bearer not-a-token"}):
                response = client.request(method, url, headers={"Accept": "text/html", **headers})
                assert response.status_code == 401, (method, path, headers, response.status_code, response.text[:200])
                assert response.headers["www-authenticate"].startswith("Bearer")
                assert "tolaria" not in response.text and "Tolaria" not in response.text, (method, path)
            if method == "GET":
                allowed = client.get(url + ("?" + QUERIES[path] if path in QUERIES else ""),
                                     headers={"Authorization": f"Bearer {READ}"})
                assert allowed.status_code not in (401, 403), (path, allowed.text[:200])


def test_health_is_open_but_shows_the_stores_totals_only_with_a_token(app, store):
    """A probe sends no token: it learns that the server and its store answer, nothing of what the
    store holds; the read or the write token adds the kind and the totals."""
    counts = store.counts()
    with TestClient(app) as client:
        for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic eDp5"},
                        {"Authorization": "Bearer caf\u00e9".encode("utf-8")}):
            response = client.get("/health", headers=headers)
            assert (response.status_code, response.json()) == (200, {"status": "ok"}), headers
        for token in (READ, WRITE):
            response = client.get("/health", headers={"Authorization": f"Bearer {token}"})
            assert response.json() == {"status": "ok", "store": "embedded", "nodes": counts["nodes"],
                                       "edges": counts["edges"]}
    assert counts["nodes"] == 204 and counts["edges"] == 354  # the seeds, as `citegraph stats` counts them


def test_health_without_a_read_token_configured_shows_the_totals(store):
    ingest_into(store, SEEDS)
    with TestClient(create_app(Settings(env_file=None, write_token=WRITE), store=store)) as client:
        assert client.get("/health").json() == {"status": "ok", "store": "embedded", "nodes": 204, "edges": 354}


def test_the_start_page_and_the_docs_the_issue_found_open_need_the_token(app):
    with TestClient(app) as client:
        for path in ("/", "/docs", "/redoc", "/openapi.json", "/graphql"):
            assert client.get(path, headers={"Accept": "text/html"}).status_code == 401, path
        page = client.get("/", headers={"Authorization": f"Bearer {READ}"})
        assert page.status_code == 200 and "(Tolaria): 2 documents, 54 statements, 24 records" in page.text


def test_the_open_static_files_are_only_scripts_and_styles_of_the_package():
    own = sorted(p.name for p in STATIC_DIR.iterdir() if p.is_file())
    assert own == ["cytoscape.css", "embed.css", "embed.js", "selector.js"]


def test_no_answer_names_the_store_folder(tmp_path, monkeypatch):
    home = tmp_path / "secret-home"
    store = SQLiteStore(home / "citegraph.sqlite")
    ingest_into(store, SEEDS)
    app = create_app(Settings(env_file=None, home=home, read_token=READ, write_token=WRITE), store=store)
    answers = []
    auth = {"Authorization": f"Bearer {READ}"}
    with TestClient(app) as client:
        for method, path in routes(app):
            if method == "GET":
                url = concrete(path) + ("?" + QUERIES[path] if path in QUERIES else "")
                answers += [client.get(url, headers=auth), client.get(url, headers={**auth, "Accept": "text/html"})]
        # an error of the store names its file on the CLI; a client is not told where it is
        def damaged(*args, **kwargs):
            raise StoreUnavailable(f"cannot read the embedded store {home / 'citegraph.sqlite'}: file is not a database",
                                   hint=f"the file is left as it is; move {home} away")

        monkeypatch.setattr(store, "snapshot", damaged)  # every request reads through one snapshot
        failed = [client.get("/stats", headers=auth), client.get("/embed/rests-on/RT-RTE-mcp-write", headers=auth),
                  client.post("/graphql", json={"query": "{ sets { totalCount } }"}, headers=auth)]
        assert [r.status_code for r in failed] == [503, 503, 503]  # GraphQL's context opens the snapshot first
        for response in (failed[0], failed[2]):
            assert response.json()["error"]["message"] == ("cannot read the embedded store the store's "
                                                           "folder/citegraph.sqlite: file is not a database")
            assert response.json()["error"]["hint"] == "the file is left as it is; move the store's folder away"
        answers += failed
    store.close()
    assert len(answers) >= 70
    for response in answers:
        text = response.text + " ".join(response.headers.values())
        for spelling in (str(home), str(home.resolve()), "secret-home"):
            assert spelling not in text, (response.request.url, spelling)
