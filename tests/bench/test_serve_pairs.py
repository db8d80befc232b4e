"""``bench.serve_pairs``: two servers answering kept-alive requests in turn, CPU and p50 of each."""

from __future__ import annotations

import json
import sys

from tests.bench.test_run import _FAKE_CITEGRAPH, _script


def test_pairs_give_each_install_cpu_and_p50_of_every_request_and_the_ratio_to_the_first(tmp_path, capsys):
    from bench.serve_pairs import main

    a = _script(tmp_path / "a", _FAKE_CITEGRAPH.format(python=sys.executable))
    b = _script(tmp_path / "b", _FAKE_CITEGRAPH.format(python=sys.executable))
    assert main(["--cli", f"main={a}", "--cli", f"branch={b}", "--home", str(tmp_path), "--record", "R1",
                 "--set", "A", "--rounds", "2", "--chunk", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["record"], out["set"], out["rounds"], out["chunk"], len(out["load"])) == ("R1", "A", 2, 3, 2)
    assert list(out["installs"]) == ["main", "branch"]
    for install in out["installs"].values():
        assert sorted(install) == ["graphql", "health", "rest"]
        assert all(fig["cpu_ms"] >= 0 and fig["p50_ms"] > 0 for fig in install.values())
    assert all(fig["cpu_vs_first"] in (1.0, None) and fig["p50_vs_first"] == 1.0
               for fig in out["installs"]["main"].values())


def test_an_install_named_by_neo4j_serves_the_neo4j_of_the_environment_without_home(tmp_path, capsys, monkeypatch):
    from bench.serve_pairs import main

    monkeypatch.setenv("CITEGRAPH_NEO4J_URI", "bolt://127.0.0.1:1")
    fake = _script(tmp_path / "citegraph", _FAKE_CITEGRAPH.format(python=sys.executable))  # exits 5 unless one store
    assert main(["--cli", f"embedded={fake}", "--cli", f"neo4j={fake}", "--neo4j", "neo4j", "--home", str(tmp_path),
                 "--record", "R1", "--rounds", "1", "--chunk", "2", "--kinds", "rest"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {name: sorted(figs) for name, figs in out["installs"].items()} == {"embedded": ["rest"], "neo4j": ["rest"]}
