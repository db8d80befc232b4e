"""Settings: the environment and ``.env`` read as pydantic-settings read them before (prefix
``CITEGRAPH_``, any case, the environment over ``.env``, keyword arguments over both), each bad value
refused with the variable named, and the CLI turning that into exit 78 (EX_CONFIG)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.settings import Secret, Settings
from graph.errors import SettingsInvalid
from tests.conftest import ROOT


def test_defaults_with_nothing_set(tmp_path):
    s = Settings(environ={}, env_file=tmp_path / ".env")
    assert (s.store, s.home, s.neo4j_uri, s.neo4j_user, s.neo4j_database) == (
        "embedded", Path(".citegraph"), None, "neo4j", "neo4j")
    assert (s.max_depth, s.write_token, s.read_token, s.embed_origins, s.repo_roots, s.ingest_workers) == (
        None, None, None, [], [], None)
    assert s.max_body_bytes == 16 * 1024 * 1024
    assert s.neo4j_password.get_secret_value() == ""


def test_environment_over_env_file_over_defaults_and_keywords_over_both(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("CITEGRAPH_HOME=/from/file\nCITEGRAPH_MAX_DEPTH=3\ncitegraph_read_token=file-token\n"
                        "OTHER_HOME=/not/ours\n")
    s = Settings(environ={"CITEGRAPH_MAX_DEPTH": "5"}, env_file=env_file)
    assert s.read_token is not None
    assert (s.home, s.max_depth, s.read_token.get_secret_value()) == (Path("/from/file"), 5, "file-token")
    s = Settings(environ={"CITEGRAPH_MAX_DEPTH": "5"}, env_file=env_file, max_depth=7, home=tmp_path)
    assert (s.home, s.max_depth) == (tmp_path, 7)


def test_lists_accept_json_or_separated_text():
    s = Settings(environ={"CITEGRAPH_REPO_ROOTS": '["/a", "/b c"]',
                          "CITEGRAPH_EMBED_ORIGINS": "https://A.example/ http://localhost:3000"}, env_file=None)
    assert s.repo_roots == [Path("/a"), Path("/b c")]
    assert s.embed_origins == ["https://a.example", "http://localhost:3000"]


def test_the_neo4j_uri_selects_neo4j_unless_the_store_is_named():
    assert Settings(environ={"CITEGRAPH_NEO4J_URI": "bolt://db:7687"}, env_file=None).store == "neo4j"
    s = Settings(environ={"CITEGRAPH_NEO4J_URI": "bolt://db:7687", "CITEGRAPH_STORE": "embedded"}, env_file=None)
    assert s.store == "embedded"
    with pytest.raises(SettingsInvalid, match="CITEGRAPH_STORE=neo4j needs CITEGRAPH_NEO4J_URI"):
        Settings(environ={"CITEGRAPH_STORE": "neo4j"}, env_file=None)


@pytest.mark.parametrize(("name", "value", "message"), [
    ("CITEGRAPH_MAX_DEPTH", "deep", "CITEGRAPH_MAX_DEPTH='deep': must be a whole number"),
    ("CITEGRAPH_MAX_DEPTH", "17", "CITEGRAPH_MAX_DEPTH='17': must be at least 1 and at most 16"),
    ("CITEGRAPH_MAX_BODY_BYTES", "100", "CITEGRAPH_MAX_BODY_BYTES='100': must be at least 1024"),
    ("CITEGRAPH_INGEST_WORKERS", "0", "CITEGRAPH_INGEST_WORKERS='0': must be at least 1"),
    ("CITEGRAPH_STORE", "sqlite", "CITEGRAPH_STORE='sqlite': must be embedded or neo4j"),
    ("CITEGRAPH_REPO_ROOTS", "[oops", "CITEGRAPH_REPO_ROOTS='[oops': is not a JSON list"),
    ("CITEGRAPH_REPO_ROOTS", "notjson", "CITEGRAPH_REPO_ROOTS='notjson': 'notjson' is not an absolute folder path"),
    ("CITEGRAPH_EMBED_ORIGINS", "*", "CITEGRAPH_EMBED_ORIGINS='*': '*' is not an origin"),
])
def test_a_bad_value_names_the_variable_and_what_it_must_be(name, value, message):
    with pytest.raises(SettingsInvalid) as caught:
        Settings(environ={name: value}, env_file=None)
    assert str(caught.value).startswith(message)


def test_secrets_do_not_show(tmp_path):
    s = Settings(environ={"CITEGRAPH_WRITE_TOKEN": "s3cret", "CITEGRAPH_NEO4J_PASSWORD": "pw"}, env_file=None)
    assert "s3cret" not in repr(s) and "pw'" not in repr(s)
    assert s.write_token == Secret("s3cret") and s.neo4j_password.get_secret_value() == "pw"


def test_memory_is_the_deprecated_name_of_the_embedded_store(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("CITEGRAPH_STORE=memory\n")
    s = Settings(environ={"CITEGRAPH_NEO4J_URI": "bolt://db:7687"}, env_file=env_file)
    assert (s.store, s.replace(store="memory").store, Settings(store="memory", environ={}).store) == (
        "embedded", "embedded", "embedded")


def test_replace_parses_and_does_not_reread_the_environment(tmp_path):
    base = Settings(environ={"CITEGRAPH_NEO4J_URI": "bolt://db:7687"}, env_file=None)
    local = base.replace(home=str(tmp_path), store="embedded")
    assert (local.store, local.home, local.neo4j_uri, base.store) == ("embedded", tmp_path, "bolt://db:7687", "neo4j")
    with pytest.raises(SettingsInvalid, match="CITEGRAPH_MAX_DEPTH=0"):
        base.replace(max_depth=0)
    with pytest.raises(AttributeError):
        base.home = tmp_path


def test_the_cli_reports_a_bad_setting_and_exits_78(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEGRAPH_")}
    env.update(PYTHONPATH=str(ROOT), CITEGRAPH_MAX_DEPTH="deep", CITEGRAPH_HOME=str(tmp_path))
    result = subprocess.run([sys.executable, "-m", "app.cli", "stats"], capture_output=True, text=True,
                            cwd=tmp_path, env=env, timeout=60)
    assert result.returncode == 78
    assert "error: CITEGRAPH_MAX_DEPTH='deep': must be a whole number" in result.stderr
