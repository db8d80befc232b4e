"""Hostile or unlucky requests to a real server are answered
with a 4xx and a stable code (or a 503 when the disk is full), never a 500, and change nothing."""

from __future__ import annotations

import io
import json
import resource
import signal
import zipfile

import httpx
import pytest

from app.settings import Settings
from graph.errors import SettingsInvalid
from graph.stores import open_embedded
from tests.conftest import SEED_SYNTHESIS, SEED_WORKFLOW, SEEDS, ingest_into
from tests.impact_repo import build_impact_repo
from tests.reliability.helpers import (
    AUTH,
    CHEATSHEET,
    child_environment,
    fingerprint,
    served,
    server_process,
)

MIB = 1024 * 1024

# -- item 8: a bearer token that is not ASCII -----------------------------------------------------------------

WRITES = [
    ("POST", "/sets", {"files": [("files", ("s.txt", b"x", "text/plain"))]}),
    ("PUT", "/documents/tolaria/synthesis", {"content": b"x"}),
    ("DELETE", "/documents/tolaria/synthesis", {}),
    ("DELETE", "/sets/tolaria", {}),
    ("POST", "/graphql", {"json": {"query": 'mutation { ingest(files: [{name: "s.txt", content: "x"}]) { sets } }'}}),
]
READS = ["/sets", "/documents", "/stats", "/check", "/records/RT-RTE-mcp-write/rests-on", "/documents/tolaria/synthesis",
         "/records/RT-RTE-mcp-write/dossier", "/embed/rests-on/RT-RTE-mcp-write/graph"]


@pytest.mark.parametrize("token", [b"caf\xe9", "café".encode(), b"\xff\xfe", "Ünïcödé-✓".encode()])
def test_a_non_ascii_bearer_token_is_malformed_credentials_on_every_protected_route(store, token):
    """RFC 6750 §2.1: a bearer token is a ``b64token`` (ASCII letters, digits, ``-._~+/``, ``=``
    padding); anything else is a malformed request, 400 with ``error="invalid_request"`` (§3.1)."""
    ingest_into(store, SEEDS)
    before = fingerprint(store)
    header = {"Authorization": b"Bearer " + token}
    with served(store) as url, httpx.Client(base_url=url, timeout=60) as client:
        for method, path, body in WRITES:
            response = client.request(method, path, headers=header, **body)
            if path == "/graphql":  # GraphQL answers 200 with the error of the mutation
                assert response.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST", response.text
                continue
            assert response.status_code == 400, (method, path, response.text)
            assert response.json()["error"]["code"] == "BAD_REQUEST"
            assert response.headers["www-authenticate"] == 'Bearer realm="citegraph", error="invalid_request"'
    with served(store, read_token="read-token") as url, httpx.Client(base_url=url, timeout=60) as client:
        for path in [*READS, "/graphql?query={sets{totalCount}}"]:
            response = client.get(path, headers=header)
            assert response.status_code == 400, (path, response.text)
            assert response.headers["www-authenticate"] == 'Bearer realm="citegraph", error="invalid_request"'
        assert client.get("/sets", headers={"Authorization": "Bearer read-token"}).status_code == 200  # still serving
    assert fingerprint(store) == before


def test_a_token_no_authorization_header_can_carry_is_refused_as_a_setting():
    """A configured token outside ``b64token`` could never be sent (RFC 6750 §2.1): the server does
    not start, and the message names the variable."""
    with pytest.raises(SettingsInvalid, match="CITEGRAPH_WRITE_TOKEN"):
        Settings(env_file=None, write_token="clé-secrète")
    with pytest.raises(SettingsInvalid, match="CITEGRAPH_READ_TOKEN"):
        Settings(env_file=None, read_token="two words")


# -- item 9: a damaged zip ---------------------------------------------------------------------------------------


def _zip_of_seeds() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in (SEED_SYNTHESIS, SEED_WORKFLOW):
            archive.write(path, f"seeds/{path.name}")
    return buffer.getvalue()


def test_single_byte_corruptions_of_an_uploaded_zip_are_4xx_or_ingested(store):
    """140 single-byte corruptions spread over a zip of two seeds (bad CRCs, corrupt deflate data,
    broken headers and names): each upload is 422 INVALID_INPUT naming the archive, and the store
    is unchanged; or, where the flip harms nothing git-like readers check (a name in the central
    directory, a date), ingested as it reads."""
    data = _zip_of_seeds()
    positions = sorted({i * len(data) // 140 for i in range(140)})
    with served(store) as url, httpx.Client(base_url=url, timeout=60) as client:
        before = fingerprint(store)
        statuses: dict[int, int] = {}
        for i in positions:
            damaged = bytearray(data)
            damaged[i] ^= 0x55
            response = client.post("/sets", content=bytes(damaged), headers={**AUTH, "Content-Type": "application/zip"})
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code == 422:
                error = response.json()["error"]
                assert (error["code"], error["source"]["path"]) == ("INVALID_INPUT", "upload.zip"), error
                assert fingerprint(store) == before, i
            else:
                assert response.status_code in (200, 201), (i, response.status_code, response.text[:300])
                client.delete("/sets/tolaria", headers=AUTH)
                before = fingerprint(store)
        bad_crc = bytearray(data)
        bad_crc[data.index(b"seeds/000") + len("seeds/000_a3dd65b871acf2aa.txt") + 40] ^= 0x01  # inside the data
        response = client.post("/sets", files=[("files", ("seeds.zip", bytes(bad_crc), "application/zip"))], headers=AUTH)
        assert response.status_code == 422
        assert response.json()["error"]["message"].startswith("entry 'seeds/000_a3dd65b871acf2aa.txt' of the archive is damaged: ")
    assert statuses.get(422, 0) >= 120, statuses  # nearly every flip is caught, none is a 5xx


# -- item 10: a NUL character, a full disk ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def repository(tmp_path_factory):
    root = tmp_path_factory.mktemp("repos")
    return root, build_impact_repo(root / "tolaria")


@pytest.mark.parametrize(("field", "status", "code", "message"), [
    ("repo", 422, "INVALID_INPUT", "repository path {repo!r} holds a NUL character"),
    ("to", 422, "INVALID_INPUT", "revision 'ma\\x00in' holds a NUL character; no revision does"),
    ("from", 422, "INVALID_INPUT", "revision 'ma\\x00in' holds a NUL character; no revision does"),
    ("set", 404, "NOT_FOUND", None),
    ("source", 404, "NOT_FOUND", None),
])
def test_a_nul_in_any_impact_field_is_4xx(store, repository, field, status, code, message):
    root, built = repository
    ingest_into(store, SEEDS)
    body = {"repo": str(built.path), "set": "tolaria", "from": built["c0"], "to": "main"}
    body[field] = {"repo": f"{built.path}\0x", "to": "ma\0in", "from": "ma\0in", "set": "tol\0aria",
                   "source": "SRC-\0"}[field]
    with served(store, repo_roots=[root]) as url:
        response = httpx.post(f"{url}/impact", json=body, timeout=120)
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code
        if message:
            assert response.json()["error"]["message"] == message.format(repo=body["repo"])
        graphql = httpx.post(f"{url}/graphql", timeout=120, json={
            "query": "query($repo: String!, $to: String!, $from: String, $set: String, $source: String) { impact(repo: "
                     "$repo, to: $to, from: $from, set: $set, source: $source) { to } }", "variables": body})
        assert [e["extensions"]["code"] for e in graphql.json()["errors"]] == [code]


def _limited(size: int):
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


def test_a_full_disk_during_post_sets_is_503_and_keeps_the_store(tmp_path):
    """The embedded store's server on a disk that takes no file larger than 256 KiB (RLIMIT_FSIZE):
    POST /sets of a set that needs more is 503 UNAVAILABLE naming the store, the server goes on
    answering, and the store is as before."""
    home = tmp_path / "home"
    store = open_embedded(home)
    ingest_into(store, SEEDS)
    before = fingerprint(store)
    store.close()
    files = [("files", (f"{p.parent.name}/{p.name}", p.read_bytes(), "text/markdown"))
             for folder in CHEATSHEET for p in sorted(folder.iterdir())]
    with server_process(["--home", str(home)], child_environment(), preexec=_limited(256 * 1024)) as url:
        response = httpx.post(f"{url}/sets", files=files, headers=AUTH, timeout=120)
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert error["code"] == "UNAVAILABLE"
        assert error["message"].startswith("cannot write the embedded store the store's folder/citegraph.sqlite: ")
        assert str(home) not in response.text  # a client is not told where the store lives
        assert error["hint"] == "nothing of this write was kept; free disk space (or fix the disk) and retry"
        assert [s["id"] for s in httpx.get(f"{url}/sets").json()["data"]] == ["talorys", "tolaria"]
        again = httpx.post(f"{url}/sets", files=files, headers=AUTH, timeout=120)
        assert again.status_code == 503
    store = open_embedded(home)
    assert fingerprint(store) == before
    store.close()


# -- item 13: one member limit on every upload path -----------------------------------------------------------


def test_the_member_limit_holds_for_multipart_put_and_graphql_uploads(store):
    big = b"Oversized synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n" + b"A." * (6 * MIB)
    assert 8 * MIB < len(big) < 16 * MIB
    message = f"file is {len(big)} bytes, over the 8388608-byte member limit"
    with served(store) as url, httpx.Client(base_url=url, timeout=120) as client:
        before = fingerprint(store)
        posted = client.post("/sets", files=[("files", ("big.txt", big, "text/plain"))], headers=AUTH)
        assert posted.status_code == 422
        assert {k: posted.json()["error"][k] for k in ("code", "message", "source")} == {
            "code": "INVALID_INPUT", "message": message, "source": {"path": "big.txt", "line": 1}}
        put = client.put("/documents/oversized/synthesis", content=big, headers=AUTH)
        assert put.status_code == 422
        assert {k: put.json()["error"][k] for k in ("code", "message", "source")} == {
            "code": "INVALID_INPUT", "message": message, "source": {"path": "synthesis.txt", "line": 1}}
        mutation = client.post("/graphql", headers=AUTH, json={
            "query": "mutation($files: [MemberFileInput!]!) { ingest(files: $files) { sets } }",
            "variables": {"files": [{"name": "big.txt", "content": big.decode()}]}})
        errors = mutation.json()["errors"]
        assert [(e["extensions"]["code"], e["message"], e["extensions"]["source"]) for e in errors] == [
            ("INVALID_INPUT", message, {"path": "big.txt", "line": 1})]
        skipped = client.post("/sets", params={"skip_invalid": "true"}, headers=AUTH, files=[
            ("files", ("big.txt", big, "text/plain")), ("files", (SEED_SYNTHESIS.name, SEED_SYNTHESIS.read_bytes(),
                                                                   "text/plain"))])
        assert skipped.status_code == 201
        assert [(d["path"], d["status"], d["error"]) for d in skipped.json()["documents"]] == [
            (SEED_SYNTHESIS.name, "written", None), ("big.txt", "skipped", f"big.txt:1: {message}")]
        assert json.loads(json.dumps(client.get("/documents").json()["count"])) == 1
        over = client.put("/documents/oversized/synthesis", content=b"x" * (17 * MIB), headers=AUTH)
        assert over.status_code == 413 and over.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
    del before
