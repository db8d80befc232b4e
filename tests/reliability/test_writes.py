"""A write never deletes or overwrites what it does not name, and a
compare-and-swap is never skipped. Each test runs on both stores; HTTP ones against a real server."""

from __future__ import annotations

import httpx
import pytest

from graph.errors import NodeConflict
from graph.model import DocumentGraph, Label, Node, SetBatch
from tests.conftest import SEEDS, ingest_into
from tests.reliability.helpers import AUTH, fingerprint, reconciliation_member, served, sha256, synthesis_of

# -- item 1: deleting a document deletes a Document node, nothing else -------------------------------------


@pytest.mark.parametrize(("path", "node_id", "label", "hint"), [
    ("tolaria", "tolaria", "AnalysisSet", "delete the set with DELETE /sets/tolaria"),
    ("tolaria/RT-RTE-mcp-write", "tolaria/RT-RTE-mcp-write", "Record", "document ids are <set>/<role>"),
    ("tolaria/synthesis%23L29", "tolaria/synthesis#L29", "Statement", "document ids are <set>/<role>"),
    ("system/tolaria", "system/tolaria", "System", "document ids are <set>/<role>"),
])
def test_delete_of_a_node_that_is_not_a_document_is_404_and_changes_nothing(store, path, node_id, label, hint):
    ingest_into(store, SEEDS)
    before = fingerprint(store)
    with served(store) as url:
        response = httpx.delete(f"{url}/documents/{path}", headers=AUTH)
        assert response.status_code == 404
        assert response.json() == {"error": {
            "code": "NOT_FOUND", "message": f"no document {node_id!r} in the store: that id is a {label}", "hint": hint}}
        assert fingerprint(store) == before
        assert httpx.get(f"{url}/records/RT-RTE-mcp-write/rests-on", params={"set": "tolaria"}).json()["count"] == 14
        listed = {s["id"]: s["documents"] for s in httpx.get(f"{url}/sets").json()["data"]}
        assert listed == {"talorys": ["talorys/synthesis"], "tolaria": ["tolaria/synthesis", "tolaria/workflow-report"]}
        assert httpx.get(f"{url}/check").json()["errors"] == 0


def test_delete_documents_ignores_ids_of_other_nodes(store):
    ingest_into(store, SEEDS)
    before = fingerprint(store)
    summary = store.delete_documents(["tolaria", "tolaria/RT-RTE-mcp-write", "tolaria/synthesis#L29",
                                      "system/tolaria", "tolaria/SRC-1"])
    assert summary.deleted == ()
    assert fingerprint(store) == before


def test_a_write_naming_a_record_as_its_document_is_refused(store):
    ingest_into(store, SEEDS)
    before = fingerprint(store)
    forged = Node("tolaria/RT-RTE-mcp-write", Label.DOCUMENT, "tolaria", "tolaria/RT-RTE-mcp-write",
                  {"role": "synthesis", "sha256": "0" * 64})
    with pytest.raises(NodeConflict, match=r"^tolaria/RT-RTE-mcp-write is a Record in the store, not a document"):
        store.write_set(SetBatch("tolaria", (), (DocumentGraph(forged, (), ()),), ()))
    with pytest.raises(NodeConflict, match=r"^tolaria/synthesis#L29 is a Statement in the store, not a document"):
        store.write_set(SetBatch("tolaria", (), (), (), replace=("tolaria/synthesis#L29",)))
    assert fingerprint(store) == before


@pytest.mark.parametrize("first, second, message", [
    ("Synthesis", "System",  # set `synthesis` has the System node system/synthesis; set `system` documents it
     "system/synthesis is a System in the store, not a document: it is neither replaced nor deleted"),
    ("System", "Synthesis",  # document system/synthesis first; then a system whose node would have its id
     "system/synthesis is a Document of system/synthesis in the store; set synthesis cannot write a System "
     "under that id"),
])
def test_a_set_whose_name_spells_another_nodes_id_is_409_and_changes_nothing(store, first, second, message):
    with served(store) as url:
        created = httpx.put(f"{url}/documents/{first.lower()}/synthesis", content=synthesis_of(first), headers=AUTH)
        assert created.status_code == 201, created.text
        before = fingerprint(store)
        refused = httpx.put(f"{url}/documents/{second.lower()}/synthesis", content=synthesis_of(second),
                            headers=AUTH)
        assert refused.status_code == 409
        assert (refused.json()["error"]["code"], refused.json()["error"]["message"]) == ("CONFLICT", message)
        assert fingerprint(store) == before
        assert [s["id"] for s in httpx.get(f"{url}/sets").json()["data"]] == [first.lower()]


# -- item 2: a run-id names one set, so it cannot hold what separates ids ----------------------------------


@pytest.mark.parametrize(("run_id", "why"), [
    ("team/AAS-2026-10-04-x-01", "holds '/'"),
    ("AAS-2026-10-04-x-01#L3", "holds '#'"),
    ("set:AAS-2026-10-04-x-01", "holds ':'"),
    ("-AAS-2026-10-04-x-01", "starts with '-'"),
])
def test_a_run_id_that_could_spell_another_id_is_refused_on_every_put(store, run_id, why):
    member = reconciliation_member(run_id)
    with served(store) as url:
        before = fingerprint(store)
        for headers in ({}, {"If-None-Match": "*"}, {"If-Match": '"' + "0" * 64 + '"'}):
            response = httpx.put(f"{url}/documents/{run_id}/reconciliation", params={"name": "reconciliation.md"},
                                 content=member, headers={**AUTH, **headers})
            assert response.status_code == 422, response.text
            error = response.json()["error"]
            assert error["code"] == "INVALID_INPUT"
            assert error["message"] == (f"run-id {run_id!r} {why}; a run-id is ASCII letters, digits, '.', '_' and '-' "
                                        f"(it names the set in every node id)")
            assert error["source"] == {"path": "reconciliation.md", "line": 3}
        assert fingerprint(store) == before
        posted = httpx.post(f"{url}/sets", files=[("files", ("reconciliation.md", member, "text/markdown"))],
                            headers=AUTH)
        assert posted.status_code == 422 and posted.json()["error"]["source"]["line"] == 3
        assert fingerprint(store) == before


def test_preconditions_hold_for_a_markdown_member_with_a_run_id(store):
    run_id = "AAS-2026-10-04-x-01"
    url_path = f"/documents/{run_id}/reconciliation"
    first, second = reconciliation_member(run_id), reconciliation_member(run_id, amendment="RT-OBJ-c is superseded "
                                                                                            "by EPI-OBJ-d")
    with served(store) as url:
        params = {"name": "reconciliation.md"}
        created = httpx.put(url + url_path, params=params, content=first, headers={**AUTH, "If-None-Match": "*"})
        assert (created.status_code, created.headers["etag"]) == (201, f'"{sha256(first)}"')
        again = httpx.put(url + url_path, params=params, content=second, headers={**AUTH, "If-None-Match": "*"})
        assert again.status_code == 412 and again.json()["error"]["code"] == "PRECONDITION_FAILED"
        stale = httpx.put(url + url_path, params=params, content=second,
                          headers={**AUTH, "If-Match": '"' + "0" * 64 + '"'})
        assert stale.status_code == 412 and stale.json()["error"]["message"] == (
            f"document {run_id}/reconciliation is at {sha256(first)}, not the expected {'0' * 64}")
        assert httpx.get(url + url_path).headers["etag"] == f'"{sha256(first)}"'
        replaced = httpx.put(url + url_path, params=params, content=second, headers={**AUTH, "If-Match": f'"{sha256(first)}"'})
        assert (replaced.status_code, replaced.headers["etag"]) == (200, f'"{sha256(second)}"')
