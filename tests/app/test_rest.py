"""REST reads and writes: parity with the queries, bearer tokens, ETags and compare-and-swap,
body limits, uploads; and schemathesis over the OpenAPI schema (no 5xx)."""

from __future__ import annotations

import io
import threading
import zipfile

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings as hsettings

from app.rest.main import create_app
from ingest.files import member_files
from ingest.pipeline import ingest_paths
from app.settings import Settings
from graph.model import Label
from graph.stores.sqlite import SQLiteStore
from queries.records import citations_of
from queries.shapes import plain
from tests.analysis_sets import G1_RESULTS
from tests.conftest import CORPUS, ROOT, SEED_SYNTHESIS, SEEDS
from tests.live_server import live_server

G0_FOLDER = ROOT / "tests" / "fixtures" / "g0" / "multistage-swamp"
G0_RUN = "AGS-2026-08-20-SWAMP-01"
MEM0 = G1_RESULTS / "AAS-2026-09-26-mem0-01"
TOKEN = "write-secret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
DC_FOLDERS = [
    CORPUS / "commonplace/kb/agentic-system-analyses/retained/dynamic-cheatsheet",
    CORPUS / "commonplace/kb/agentic-system-analyses/retained-archive/AAS-2026-10-04-dynamic-cheatsheet-01",
]


def seed_files() -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (p.name, p.read_bytes(), "text/plain")) for p in sorted(SEEDS.iterdir())]


@pytest.fixture
def client(store):
    with TestClient(create_app(Settings(write_token=TOKEN), store=store)) as client:
        yield client


def test_post_sets_multipart_ingests_the_seeds(client, store):
    response = client.post("/sets", files=seed_files(), headers=AUTH)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["sets"] == ["tolaria", "talorys"]
    assert [(d["document"], d["status"], d["statements"]) for d in body["documents"]] == [
        ("tolaria/synthesis", "written", 24), ("tolaria/workflow-report", "written", 30),
        ("talorys/synthesis", "written", 24)]
    assert len(store.find_nodes(Label.DOCUMENT)) == 3
    again = client.post("/sets", files=seed_files(), headers=AUTH).json()
    assert [d["status"] for d in again["documents"]] == ["unchanged"] * 3


def test_post_sets_zip_ingests_a_whole_markdown_set(client):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for folder in DC_FOLDERS:
            for path in sorted(folder.iterdir()):
                z.write(path, f"{folder.name}/{path.name}")
    response = client.post("/sets", content=buf.getvalue(), headers={**AUTH, "Content-Type": "application/zip"})
    assert response.status_code == 201, response.text
    assert response.json()["sets"] == ["AAS-2026-10-04-dynamic-cheatsheet-01"]
    assert [d["note"] for d in response.json()["documents"] if d["status"] == "manifest"] == [
        "the manifest of set AAS-2026-10-04-dynamic-cheatsheet-01, pinning 6 members"]
    assert sorted(d["document"].split("/")[1] for d in response.json()["documents"] if d["document"]) == [
        "epistemic", "memory", "memory-profile", "overview", "reconciliation", "runtime"]
    assert client.get("/check", params={"set": "AAS-2026-10-04-dynamic-cheatsheet-01"}).json()["errors"] == 0


def folder_files(*folders) -> list[tuple[str, tuple[str, bytes, str]]]:
    """Multipart fields of every file under ``folders``, each named by its path below its folder's
    parent (as ``curl -F "files=@…;filename=trials/…/result.md"`` and ``Client.ingest`` send them)."""
    return [("files", (p.relative_to(folder.parent).as_posix(), p.read_bytes(), "text/markdown"))
            for folder in folders for p in member_files([folder])]


def test_post_sets_names_uploads_by_their_folders_so_a_g0_run_is_its_set(client, store):
    """A G0 prototype is known by its folder (GRAMMAR §0: ``trials/<run-id>/result.md``), so the
    folders of a multipart ``filename`` are kept: the upload reads as the CLI reads the folders, row
    for row, and the two ``result.md`` rows are told apart by their paths."""
    response = client.post("/sets", files=folder_files(G0_FOLDER, MEM0), headers=AUTH)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["sets"] == [G0_RUN, "AAS-2026-09-26-mem0-01"]
    assert [(d["path"], d["document"], d["status"]) for d in body["documents"]] == [
        (f"multistage-swamp/trials/{G0_RUN}/lens-memory.md", f"{G0_RUN}/lens-memory", "written"),
        (f"multistage-swamp/trials/{G0_RUN}/reconciliation.md", f"{G0_RUN}/reconciliation", "written"),
        (f"multistage-swamp/trials/{G0_RUN}/result.md", f"{G0_RUN}/result", "written"),
        ("AAS-2026-09-26-mem0-01/result.md", "AAS-2026-09-26-mem0-01/result", "written")]
    on_disk = plain(ingest_paths(SQLiteStore(None), [G0_FOLDER, MEM0]))
    assert [{**d, "path": None} for d in body["documents"]] == [{**d, "path": None} for d in on_disk["documents"]]
    assert sorted(n.id for n in store.find_nodes(Label.DOCUMENT, set_id=G0_RUN)) == [
        f"{G0_RUN}/lens-memory", f"{G0_RUN}/reconciliation", f"{G0_RUN}/result"]


@pytest.mark.parametrize("name", ["../result.md", "trials/../../result.md", "/etc/result.md", "C:/up/result.md"])
def test_post_sets_refuses_an_upload_named_outside_the_upload(client, store, name):
    response = client.post("/sets", files=[("files", (name, SEED_SYNTHESIS.read_bytes(), "text/plain"))], headers=AUTH)
    assert response.status_code == 422
    error = response.json()["error"]
    assert (error["code"], error["message"], error["source"]) == (
        "INVALID_INPUT", f"unsafe path {name!r} in the upload", {"path": "request", "line": 1})
    assert store.find_nodes(Label.DOCUMENT) == []


def test_an_uploads_folders_are_never_looked_up_on_the_server(client, store, monkeypatch):
    """An upload named by the folders of a set copied in part is refused at its manifest's pin with
    a hint naming no folder of the server's, even where the server's own folder of that name holds
    the missing member (retained/dynamic-cheatsheet/ARTIFACT.yaml:5 pins runtime.md, which is in
    the set's retained-archive folder on disk)."""
    monkeypatch.chdir(ROOT)
    retained = DC_FOLDERS[0]
    files = [("files", (p.relative_to(ROOT).as_posix(), p.read_bytes(), "text/markdown"))
             for p in member_files([retained])]
    error = client.post("/sets", files=files, headers=AUTH).json()["error"]
    assert (error["source"], error["hint"]) == (
        {"path": retained.relative_to(ROOT).as_posix() + "/ARTIFACT.yaml", "line": 5},
        "pass the folder holding runtime.md too. Nothing was ingested. To ingest a set copied in part, its members "
        "present, each absent one recorded as a manifest-missing-member finding: --partial (?partial=true, "
        "partial: true).")
    assert store.find_nodes(Label.DOCUMENT) == []


def test_bad_upload_is_422_and_stores_nothing(client, store):
    files = [*seed_files(), ("files", ("broken.txt", b"Only a title\nType: nope\n", "text/plain"))]
    response = client.post("/sets", files=files, headers=AUTH)
    assert response.status_code == 422
    error = response.json()["error"]
    assert (error["code"], error["source"]) == ("INVALID_INPUT", {"path": "broken.txt", "line": 2})
    assert store.find_nodes(Label.DOCUMENT) == []


@pytest.mark.parametrize(("headers", "status", "code"), [
    ({}, 401, "UNAUTHENTICATED"),
    ({"Authorization": "Bearer wrong"}, 401, "UNAUTHENTICATED"),  # RFC 6750 §3.1 invalid_token
    ({"Authorization": f"Basic {TOKEN}"}, 401, "UNAUTHENTICATED"),
])
def test_writes_need_the_write_token(client, headers, status, code):
    response = client.post("/sets", files=seed_files(), headers=headers)
    assert response.status_code == status and response.json()["error"]["code"] == code
    assert client.put("/documents/tolaria/synthesis", content=b"x", headers=headers).status_code == status
    assert client.delete("/documents/tolaria/synthesis", headers=headers).status_code == status


def test_writes_are_disabled_without_a_configured_token(seeds_store):
    with TestClient(create_app(Settings(), store=SQLiteStore(None))) as client:
        response = client.post("/sets", files=seed_files(), headers=AUTH)
    assert response.status_code == 403 and "CITEGRAPH_WRITE_TOKEN" in response.json()["error"]["message"]


def test_read_token_guards_reads(seeds_store):
    with TestClient(create_app(Settings(read_token="r", write_token=TOKEN), store=seeds_store)) as client:
        assert client.get("/documents").status_code == 401
        assert client.get("/documents", headers={"Authorization": "Bearer nope"}).status_code == 401
        assert client.get("/documents", headers={"Authorization": "Bearer r"}).json()["count"] == 3
        assert client.get("/documents", headers=AUTH).json()["count"] == 3
        query = {"query": "{ documents { totalCount } }"}
        assert client.post("/graphql", json=query).status_code == 401
        assert client.post("/graphql", json=query, headers={"Authorization": "Bearer r"}).json() == {
            "data": {"documents": {"totalCount": 3}}}
        assert client.get("/health").status_code == 200


def test_etag_and_compare_and_swap(client):
    text = SEED_SYNTHESIS.read_bytes()
    created = client.put("/documents/tolaria/synthesis", content=text, headers={**AUTH, "If-None-Match": "*"})
    assert created.status_code == 201, created.text
    etag = created.headers["etag"]
    assert client.get("/documents/tolaria/synthesis").headers["etag"] == etag
    assert client.put("/documents/tolaria/synthesis", content=text,
                      headers={**AUTH, "If-None-Match": "*"}).status_code == 412
    changed = text + b"\nA new closing paragraph (RT-RTE-mcp-write)."
    stale = client.put("/documents/tolaria/synthesis", content=changed, headers={**AUTH, "If-Match": '"0000"'})
    assert stale.status_code == 412 and stale.json()["error"]["code"] == "PRECONDITION_FAILED"
    replaced = client.put("/documents/tolaria/synthesis", content=changed, headers={**AUTH, "If-Match": etag})
    assert replaced.status_code == 200 and replaced.headers["etag"] != etag
    assert client.delete("/documents/tolaria/synthesis", headers={**AUTH, "If-Match": etag}).status_code == 412
    assert client.delete("/documents/tolaria/synthesis",
                         headers={**AUTH, "If-Match": replaced.headers["etag"]}).status_code == 204
    assert client.get("/documents/tolaria/synthesis").status_code == 404


def test_put_must_name_its_own_document(client):
    response = client.put("/documents/talorys/synthesis", content=SEED_SYNTHESIS.read_bytes(), headers=AUTH)
    assert response.status_code == 422
    assert response.json()["error"]["message"] == "the body is document tolaria/synthesis, not talorys/synthesis"


def test_a_refused_put_gives_no_hint_to_skip_invalid_files(client):
    """One member is the whole input: skipping it would write nothing, so the hint does not offer it."""
    text = SEED_SYNTHESIS.read_bytes().replace(b"Bounded synthesis", b"Bounded \xffsynthesis", 1)
    response = client.put("/documents/tolaria/synthesis", content=text, headers=AUTH)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["hint"] == "members are UTF-8 text; re-save the file as UTF-8. Nothing was ingested."


def test_concurrent_if_match_writers_exactly_one_wins(store):
    """Two writers holding the same ETag race through a real server: one 2xx, one 412."""
    text = SEED_SYNTHESIS.read_bytes()
    app = create_app(Settings(write_token=TOKEN), store=store)
    with live_server(app) as url:
        etag = httpx.put(f"{url}/documents/tolaria/synthesis", content=text, headers=AUTH, timeout=60).headers["etag"]
        barrier, results = threading.Barrier(2), {}

        def writer(n: int) -> None:
            body = text + f"\nWriter {n} adds this closing paragraph (RT-RTE-mcp-write).".encode()
            barrier.wait()
            results[n] = httpx.put(f"{url}/documents/tolaria/synthesis", content=body,
                                   headers={**AUTH, "If-Match": etag}, timeout=60)

        threads = [threading.Thread(target=writer, args=(n,)) for n in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(r.status_code for r in results.values())
        assert statuses == [200, 412], [r.text for r in results.values()]
        winner = next(n for n, r in results.items() if r.status_code == 200)
        final = httpx.get(f"{url}/documents/tolaria/synthesis").headers["etag"]
        assert final == results[winner].headers["etag"]
    paragraphs = [n.get("text") for n in store.find_nodes(Label.STATEMENT, document_id="tolaria/synthesis")
                  if n.get("text", "").startswith("Writer ")]
    assert paragraphs == [f"Writer {winner} adds this closing paragraph (RT-RTE-mcp-write)."]


def test_body_limit(store):
    with TestClient(create_app(Settings(write_token=TOKEN, max_body_bytes=4096), store=store)) as client:
        response = client.put("/documents/tolaria/synthesis", content=b"x" * 5000, headers=AUTH)
    assert response.status_code == 413 and response.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"


def test_read_parity_with_queries(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        records = client.get("/records", params={"set": "tolaria", "kind": "RTE", "limit": 5}).json()
        assert records["page"] == {"offset": 0, "limit": 5, "total": 14}
        assert [r["record_id"] for r in records["data"]] == [
            "EPI-RTE-mtime-check", "EPI-RTE-note-read", "EPI-RTE-note-search", "EPI-RTE-organized-toggle",
            "EPI-RTE-vault-register"]
        nxt = client.get("/records", params={"set": "tolaria", "kind": "RTE", "limit": 5, "offset": 5}).json()
        assert len(nxt["data"]) == 5 and not {r["id"] for r in nxt["data"]} & {r["id"] for r in records["data"]}
        assert client.get("/records", params={"analyst": "MEM", "q": "vault"}).json()["page"]["total"] == 1
        cites = client.get("/records/RT-RTE-mcp-write/citations").json()
        assert cites == {"data": [plain(c) for c in citations_of(seeds_store, "RT-RTE-mcp-write")], "count": 11}
        one = client.get("/records/RT-RTE-mcp-write").json()
        assert [(r["id"], r["declared_in"], r["citations"]) for r in one] == [("tolaria/RT-RTE-mcp-write", None, 11)]
        unknown = client.get("/records/rt-rte-mcp-write")
        assert unknown.status_code == 404 and unknown.json()["error"]["hint"].startswith("did you mean RT-RTE-mcp-write")
        sets = client.get("/sets").json()
        assert [(s["id"], s["documents"]) for s in sets["data"]] == [
            ("talorys", ["talorys/synthesis"]), ("tolaria", ["tolaria/synthesis", "tolaria/workflow-report"])]
        assert client.get("/sets/nope").status_code == 404
        assert client.get("/stats").json()["totals"]["Document"] == 3
        assert client.get("/check").json()["warnings"] == 74
        assert client.get("/openapi.json").json()["info"]["title"] == "citegraph"


def test_rests_on_answers_the_bytes_its_response_model_writes(seeds_store):
    """The rests-on routes answer pre-encoded JSON: byte for byte what FastAPI's response model
    (validated, then serialised) writes, for every record of the seeds, its source and a file."""
    from app.rest.schemas import RestsOnOut, rests_on_body
    from graph.codec import record_of
    from queries.traversal import rests_on

    def modelled(report) -> bytes:
        return RestsOnOut.model_validate(rests_on_body(report)).model_dump_json(by_alias=True).encode()

    records = sorted({(n.set_id, record_of(n).record_id) for n in seeds_store.find_nodes(Label.RECORD)})
    assert len(records) == 62
    non_ascii = 0
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        for set_id, record_id in records:
            answer = client.get(f"/records/{record_id}/rests-on", params={"set": set_id})
            assert answer.headers["content-type"] == "application/json"
            assert answer.content == modelled(rests_on(seeds_store, record_id, set_id=set_id))
            non_ascii += not answer.content.isascii()
        source = client.get("/sources/SRC-1/rests-on")
        assert source.content == modelled(rests_on(seeds_store, "SRC-1", kind="source"))
    assert non_ascii > 0  # some texts hold dashes, quotes or arrows: written as UTF-8, not escaped


def _schemathesis_cases():
    import schemathesis

    app = create_app(Settings(write_token=TOKEN), store=_fuzz_store())
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def _fuzz_store() -> SQLiteStore:
    from tests.conftest import ingest_into

    store = SQLiteStore(None)
    ingest_into(store, SEEDS)
    return store


schema = _schemathesis_cases()


@schema.parametrize()
@hsettings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_openapi_no_server_errors(case):
    response = case.call()
    assert response.status_code < 500, (case.method, case.formatted_path if hasattr(case, "formatted_path") else case.path,
                                        response.text[:500])
