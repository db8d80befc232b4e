"""The retention setting: ``CITEGRAPH_VERSIONS_KEPT`` bounds the versions each set keeps,
on the store every face opens."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.settings import Settings, get_settings
from app.wiring import open_store
from graph.errors import SettingsInvalid
from tests.history_sets import LEDGER, LEDGER_V1, LEDGER_V2

runner = CliRunner()


def test_ten_versions_by_default_and_the_setting_over_it(tmp_path):
    assert Settings(environ={}, env_file=None).versions_kept == 10
    settings = Settings(environ={"CITEGRAPH_VERSIONS_KEPT": "1"}, env_file=None, home=tmp_path)
    with open_store(settings) as store:
        assert store.versions_kept == 1


def test_the_cli_keeps_as_many_as_set(tmp_path, monkeypatch):
    monkeypatch.setenv("CITEGRAPH_VERSIONS_KEPT", "1")
    get_settings.cache_clear()
    try:
        for folder in (LEDGER_V1, LEDGER_V2):
            assert runner.invoke(cli, ["ingest", str(folder), "--home", str(tmp_path)]).exit_code == 0
        result = runner.invoke(cli, ["history", LEDGER, "--json", "--home", str(tmp_path)])
        assert result.exit_code == 0, result.output
        assert [v["version"] for v in json.loads(result.stdout)["versions"]] == [2]
        old = runner.invoke(cli, ["rests-on", "RT-RTE-ledger-commit", "--set", LEDGER, "--version", "1",
                                  "--home", str(tmp_path)])
        assert old.exit_code == 66
        assert f"analysis set '{LEDGER}' has no version 1; it keeps version 2" in " ".join(old.stderr.split())
    finally:
        get_settings.cache_clear()


@pytest.mark.parametrize(("value", "message"), [
    ("0", "CITEGRAPH_VERSIONS_KEPT='0': must be at least 1"),
    ("many", "CITEGRAPH_VERSIONS_KEPT='many': must be a whole number"),
])
def test_a_bad_retention_names_the_variable(value, message):
    with pytest.raises(SettingsInvalid) as caught:
        Settings(environ={"CITEGRAPH_VERSIONS_KEPT": value}, env_file=None)
    assert str(caught.value) == message
