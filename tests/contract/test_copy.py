"""``graph.transfer.copy_store`` and ``citegraph copy --to URI``: a store's content moved whole."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.settings import get_settings
from graph.stores.sqlite import SQLiteStore
from graph.transfer import copy_store
from tests.conftest import SEEDS, ingest_into
from tests.contract.helpers import canonical, content


def test_copy_store_reproduces_every_node_and_edge(store):
    source = SQLiteStore(None)
    ingest_into(source, SEEDS)
    report = copy_store(source, store)
    assert report.sets == ("talorys", "tolaria") and report.documents == 3
    assert canonical(content(store)) == canonical(content(source))
    assert (report.nodes, report.edges) == (source.counts()["nodes"], source.counts()["edges"])
    again = copy_store(source, store)
    assert again == report and canonical(content(store)) == canonical(content(source))


def test_copy_store_replaces_a_set_and_drops_documents_the_source_lacks(store):
    ingest_into(store, SEEDS)
    source = SQLiteStore(None)
    ingest_into(source, SEEDS)
    source.delete_documents(["tolaria/workflow-report"])
    copy_store(source, store)
    assert canonical(content(store)) == canonical(content(source))


@pytest.mark.neo4j
def test_cli_copy_moves_an_embedded_store_into_neo4j(tmp_path, neo4j_server, neo4j_store, monkeypatch):
    embedded = SQLiteStore(tmp_path / "citegraph.sqlite")
    ingest_into(embedded, SEEDS)
    monkeypatch.setenv("CITEGRAPH_NEO4J_USER", neo4j_server.user)
    monkeypatch.setenv("CITEGRAPH_NEO4J_PASSWORD", neo4j_server.password)
    monkeypatch.setenv("CITEGRAPH_NEO4J_DATABASE", neo4j_server.database)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["copy", "--to", neo4j_server.uri, "--home", str(tmp_path), "--json"])
        assert result.exit_code == 0, result.output
        assert '"documents": 3' in result.output
        assert canonical(content(neo4j_store)) == canonical(content(SQLiteStore(tmp_path / "citegraph.sqlite")))
        rests = CliRunner().invoke(cli, ["rests-on", "RT-RTE-mcp-write", "--json", "--neo4j", neo4j_server.uri])
        local = CliRunner().invoke(cli, ["rests-on", "RT-RTE-mcp-write", "--json", "--home", str(tmp_path)])
        assert rests.exit_code == local.exit_code == 0 and rests.stdout == local.stdout
        assert rests.stderr == f"store: Neo4j at {neo4j_server.uri}, database {neo4j_server.database}\n"
        assert local.stderr == f"store: embedded store in {tmp_path.resolve()}\n"  # each names the store it used
        assert result.stderr.splitlines() == [f"store: embedded store in {tmp_path.resolve()}",
                                              f"copying to: Neo4j at {neo4j_server.uri}, database "
                                              f"{neo4j_server.database}"]
        unreachable = CliRunner().invoke(cli, ["copy", "--to", "bolt://127.0.0.1:1", "--home", str(tmp_path)])
        assert unreachable.exit_code == 69
        stats = CliRunner().invoke(cli, ["stats", "--neo4j", neo4j_server.uri])
        assert stats.stdout.splitlines()[-1].endswith(f" in Neo4j at {neo4j_server.uri}, database {neo4j_server.database}")
        if neo4j_server.password:  # a server with authentication: without credentials, say which are missing
            monkeypatch.delenv("CITEGRAPH_NEO4J_PASSWORD")
            get_settings.cache_clear()
            anonymous = CliRunner().invoke(cli, ["copy", "--to", neo4j_server.uri, "--home", str(tmp_path)])
            assert anonymous.exit_code == 69
            assert anonymous.stderr.splitlines()[1:] == [
                f"error: Neo4j ({neo4j_server.uri}) asks for credentials and none were given",
                "hint: set CITEGRAPH_NEO4J_USER (default neo4j) and CITEGRAPH_NEO4J_PASSWORD"]
    finally:
        get_settings.cache_clear()


def test_copy_store_brings_each_set_s_versions(store):
    from tests.history_sets import LEDGER, ledger_versions
    from queries.history import diff_versions, history
    from queries.shapes import plain

    source = SQLiteStore(None)
    ledger_versions(source)
    copy_store(source, store)
    assert plain(store.set_versions(LEDGER)) == plain(source.set_versions(LEDGER))
    assert plain(history(store, LEDGER)) == plain(history(source, LEDGER))
    assert plain(diff_versions(store, LEDGER, 1, 2)) == plain(diff_versions(source, LEDGER, 1, 2))
    copy_store(source, store)  # twice: the same history, not a version more
    assert [v.number for v in store.set_versions(LEDGER)] == [1, 2]


def test_copy_store_keeps_the_part_changes_and_what_rests_on_them(store):
    from queries.impact import open_suspects
    from queries.shapes import plain
    from tests.history_sets import LEDGER, ledger_versions

    source = SQLiteStore(None)
    ledger_versions(source)  # version 2 changes RT-RTE-ledger-commit's declaration (a status)
    changes = source.part_changes()
    assert [(c.part, c.node, c.from_version, c.to_version) for c in changes[LEDGER]] == [
        ("declaration", f"{LEDGER}/RT-RTE-ledger-commit", 1, 2)]
    copy_store(source, store)
    assert store.part_changes() == changes
    assert plain(open_suspects(store)) == plain(open_suspects(source))
    assert len(open_suspects(store).suspects) == 6


def test_replace_versions_refuses_what_it_cannot_keep(store):
    from graph.errors import CitegraphError
    from graph.versions import encode
    from tests.history_sets import LEDGER, ledger_versions

    ledger_versions(store)
    (first, second) = store.set_versions(LEDGER)
    blob = encode(store.set_version(LEDGER, 1))[0]
    with pytest.raises(CitegraphError, match="its blob does not hold digest"):
        store.replace_versions(LEDGER, [(second, blob)])
    with pytest.raises(CitegraphError, match="no analysis set 'nope' to give versions to"):
        store.replace_versions("nope", [])
    assert store.replace_versions(LEDGER, [(first, blob)]) == 1
    assert [v.number for v in store.set_versions(LEDGER)] == [1]
