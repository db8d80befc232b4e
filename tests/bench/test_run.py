"""The benchmark harness's pure helpers (whole-process figures): record picking, the
changed-bytes count, the ratio to size S, the flat figures and the targets. Exact values only; no
timing assertions."""

from __future__ import annotations

import json

from bench.run import (
    changed_bytes,
    cli_records,
    evaluate,
    markdown_table,
    pair_records,
    previous_reference,
    process_figures,
    run_process,
    versus_reference,
)


def _records(n_hot: int, n_cold: int) -> list[dict]:
    return ([{"group": "hot", "set": "A", "record": f"H{i}", "citations": 100 - i} for i in range(n_hot)]
            + [{"group": "cold", "set": "B", "record": f"C{i}", "citations": 10 - i} for i in range(n_cold)])


def test_cli_records_take_the_most_cited_hot_and_the_least_cited_cold():
    picked = cli_records(_records(50, 50), 5)
    assert [r["record"] for r in picked] == ["H0", "H1", "H2", "H3", "H4", "C45", "C46", "C47", "C48", "C49"]
    assert [r["record"] for r in cli_records(_records(2, 1), 5)] == ["H0", "H1", "C0"]


def test_changed_bytes_counts_differing_blocks_growth_and_new_files(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    (before / "db").write_bytes(b"a" * 10 + b"b" * 10 + b"c" * 5)
    (after / "db").write_bytes(b"a" * 10 + b"X" + b"b" * 9 + b"c" * 5 + b"d" * 7)  # block 2 differs, 7 bytes more
    (before / "same").write_bytes(b"z" * 30)
    (after / "same").write_bytes(b"z" * 30)
    (after / "db-wal").write_bytes(b"w" * 13)
    (before / "gone").write_bytes(b"g" * 99)
    assert changed_bytes(before, after, block=10) == 10 + 7 + 13
    assert changed_bytes(after, after, block=10) == 0


def test_ratio_to_size_s_from_this_run_or_a_reason():
    s = {"figures": {"cli_rests_on_p50_ms": 400.0}, "source": "this run"}
    assert versus_reference("L", {"cli_rests_on_p50_ms": 500.0}, s) == (1.25, "S: 400 ms (this run)")
    assert versus_reference("M", {"cli_rests_on_p50_ms": 500.0}, None)[0] is None
    assert "run --size S" in versus_reference("M", {"cli_rests_on_p50_ms": 500.0}, None)[1]
    assert versus_reference("S", {"cli_rests_on_p50_ms": 400.0}, s) == (None, "size S is the reference")
    assert versus_reference("L", {}, s) == (None, "no whole-process rests-on figure at L")
    assert versus_reference("L", {"cli_rests_on_p50_ms": 1.0}, s, generated=False)[0] is None
    side = {"cli_rests_on_p50_ms": 500.0, "cli_rests_on_s_p50_ms": 250.0}  # timed beside, preferred
    assert versus_reference("M", side, s) == (2.0, "S store timed side by side in this run: 250 ms")


def test_each_record_is_paired_with_an_s_record_of_its_group():
    ref = cli_records(_records(3, 2), 5)
    paired = pair_records(cli_records(_records(5, 5), 5), ref)
    assert [r and r["record"] for r in paired] == ["H0", "H1", "H2", "H0", "H1", "C0", "C1", "C0", "C1", "C0"]
    assert pair_records(_records(1, 1), _records(1, 0)) == [_records(1, 0)[0], None]


def test_previous_reference_is_the_newest_s_file_of_the_seed_with_the_figure(tmp_path):
    def write(name: str, date: str, seed: int, ms: float | None) -> None:
        fig = {} if ms is None else {"cli_rests_on_p50_ms": ms}
        (tmp_path / name).write_text(json.dumps({"date": date, "size": "S", "seed": seed, "stores": {"embedded": fig}}))

    write("2026-11-30-S.json", "2026-11-30", 0, 300.0)
    write("2026-12-01-S.json", "2026-12-01", 0, 310.0)
    write("2026-12-02-S.json", "2026-12-02", 0, None)  # older harness: no whole-process figure
    write("2026-12-03-S.json", "2026-12-03", 1, 999.0)  # another seed
    ref = previous_reference([tmp_path, tmp_path / "absent"], 0)
    assert ref is not None
    assert ref["figures"]["cli_rests_on_p50_ms"] == 310.0
    assert "2026-12-01-S.json" in ref["source"]
    assert previous_reference([tmp_path], 7) is None


def _run(command: str, wall: float, rss: float = 50.0, **extra) -> dict:
    return {"command": command, "wall_s": wall, "cpu_s": wall / 2, "peak_rss_mb": rss, "exit": 0, **extra}


def test_process_figures_take_medians_the_largest_rss_and_ratios():
    phases = {
        "cli": {"records": 3, "mismatches": [], "runs": [
            _run("grep", 0.010), _run("grep", 0.020), _run("grep", 0.030),
            _run("rests-on", 0.040, 100), _run("rests-on", 0.060, 120), _run("rests-on", 9.0, 500, failed="boom"),
            _run("stats", 0.100), _run("rests-on@S", 0.030), _run("rests-on@S", 0.050)]},
        "add-set": {"set": {"documents": 6, "bytes": 2_000_000},
                    "store": [{"wall_s": 3.0, "cpu_s": 2.0, "peak_rss_mb": 90, "before_bytes": 10_000_000,
                               "after_bytes": 12_000_000, "changed_bytes": 2_500_000},
                              {"wall_s": 5.0, "cpu_s": 2.0, "peak_rss_mb": 95, "before_bytes": 0, "after_bytes": 0}],
                    "empty": [{"wall_s": 2.0, "cpu_s": 1.0, "peak_rss_mb": 60, "before_bytes": 0,
                               "after_bytes": 1_500_000, "changed_bytes": 1_500_000},
                              {"wall_s": 2.0, "cpu_s": 1.0, "peak_rss_mb": 60, "before_bytes": 0, "after_bytes": 0}]},
        "serve": {"ready_s": 1.5, "health_s": [0.001, 0.002, 0.003], "peak_rss_mb": 80.0, "vmhwm_mb": 79.0},
    }
    fig = process_figures(phases)
    assert fig["cli_grep_p50_ms"] == 20.0
    assert fig["cli_rests_on_p50_ms"] == 50.0  # the failed run is left out
    assert fig["cli_rests_on_rss_mb"] == 120
    assert fig["cli_rests_on_vs_grep"] == 2.5
    assert fig["cli_stats_vs_grep"] == 5.0
    assert fig["cli_rests_on_s_p50_ms"] == 40.0
    assert "cli_check_p50_ms" not in fig
    assert (fig["add_set_s"], fig["add_set_empty_s"], fig["add_set_ratio"]) == (4.0, 2.0, 2.0)
    assert (fig["add_set_grew_mb"], fig["add_set_changed_mb"], fig["add_set_empty_mb"]) == (2.0, 2.5, 1.5)
    assert fig["add_set_rss_mb"] == 95
    assert (fig["serve_ready_s"], fig["serve_health_p50_ms"], fig["serve_rss_mb"]) == (1.5, 2.0, 80.0)
    skipped = process_figures({"cli": {"skipped": "no citegraph"}})
    assert skipped["add_set_ratio_note"] == "no citegraph"


def test_whole_process_targets_at_l_and_at_m():
    fig = {"cli_rests_on_vs_grep": 2.0, "cli_rests_on_vs_s": 1.6, "add_set_ratio": 1.2, "serve_ready_s": 2.5,
           "serve_health_p50_ms": 3.0, "cli_rests_on_rss_mb": 299.0, "peak_rss_mb": 1600.0}
    rows = {r["target"]: r for r in evaluate("L", {"embedded": fig, "_run": {"total_s": 1.0}})}
    verdicts = {t: r["verdict"] for t, r in rows.items()}
    assert verdicts["rests-on process vs grep -rlF process"] == "PASS"
    assert verdicts["rests-on process vs the same at size S"] == "FAIL"
    assert verdicts["ingest one set: this store vs an empty one"] == "PASS"
    assert verdicts["serve: first /health 200 after start"] == "FAIL"
    assert verdicts["serve: /health p50"] == "PASS"
    assert verdicts["one-set query peak RSS (rests-on process)"] == "PASS"
    assert verdicts["embedded peak RSS"] == "FAIL"
    at_m = {"cli_rests_on_vs_s": None, "cli_rests_on_vs_s_note": "size S is the reference",
            "cli_rests_on_vs_grep": 44.0, "add_set_ratio": 2.5}
    rows = {r["target"]: r for r in evaluate("M", {"embedded": at_m, "_run": {"total_s": 1.0}})}
    row = rows["rests-on process vs the same at size S (target stated at L: shown, not judged)"]
    assert (row["verdict"], row["note"]) == ("SKIP", "size S is the reference")
    row = rows["rests-on process vs grep -rlF process (target stated at L: shown, not judged)"]
    assert (row["verdict"], row["figure"]) == ("INFO", 44.0)  # only the L run judges it
    assert rows["ingest one set: this store vs an empty one"]["verdict"] == "FAIL"  # stated for every size
    assert "| rests-on process ÷ the same at size S | 1.6 |" in markdown_table("L", {"embedded": fig})


def test_issue_24_targets_judge_start_up_grep_search_and_keep_alive():
    fig = {"cli_startup_cpu_p50_ms": 104.0, "cli_version_cpu_p50_ms": 151.0, "cli_rests_on_vs_grep": 0.9,
           "cli_export_vs_grep": 1.2, "search_common_cpu_s": 0.4, "search_common_rss_mb": 120.0,
           "serve_keepalive_health_p50_ms": 1.2, "serve_keepalive_rest_p50_ms": 5.5, "serve_keepalive_graphql_p50_ms": 6.1}
    verdicts = {r["target"]: r["verdict"] for r in evaluate("L", {"embedded": fig, "_run": {"total_s": 1.0}})}
    assert [verdicts[t] for t in ("citegraph --help CPU", "citegraph --version CPU")] == ["PASS", "FAIL"]
    assert verdicts["rests-on process faster than grep -rlF process"] == "PASS"
    assert verdicts["export process faster than grep -rlF process"] == "FAIL"
    assert verdicts["records process faster than grep -rlF process"] == "SKIP"  # no figure
    assert verdicts["search of a common word (the): CPU"] == "PASS"
    assert verdicts["search of a common word (the): peak RSS"] == "FAIL"
    assert [verdicts[f"serve keep-alive: {t} p50"] for t in ("/health", "REST rests-on", "GraphQL restsOn")] == [
        "PASS", "FAIL", "PASS"]
    at_m = {r["target"]: r["verdict"] for r in evaluate("M", {"embedded": fig, "_run": {"total_s": 1.0}})}
    assert at_m["search of a common word (the): CPU (target stated at L: shown, not judged)"] == "INFO"
    assert at_m["serve keep-alive: REST rests-on p50"] == "FAIL"  # stated for every size


def test_run_process_reports_the_exit_and_standard_error(tmp_path):
    out = tmp_path / "out"
    ok = run_process(["sh", "-c", "echo hello"], stdout=out)
    assert (ok["exit"], "failed" in ok, out.read_text()) == (0, False, "hello\n")
    bad = run_process(["sh", "-c", "echo oops >&2; exit 3"])
    assert bad["exit"] == 3
    assert bad["failed"].endswith("exited with 3: oops")
    assert "failed" not in run_process(["sh", "-c", "exit 1"], ok=(0, 1))
    stopped = run_process(["sleep", "30"], timeout=0.2)
    assert "stopped after 0 s" in stopped["failed"]
    missing = run_process(["/nonexistent/citegraph", "stats"])
    assert missing["exit"] == 127
    assert "bench/spawn.py: cannot run /nonexistent/citegraph" in missing["failed"]


def test_a_process_peak_rss_is_its_own_not_the_harness_pages():
    """A child forked from the harness would start with the harness's pages, and on Linux its
    ``ru_maxrss`` keeps them past ``exec``: with 300 MiB held here, ``sh`` measured over 300 MiB."""
    held = bytearray(300 * 2**20)
    held[:: 4096] = b"x" * len(held[:: 4096])  # touch every page, so they are resident
    row = run_process(["sh", "-c", "exit 0"])
    assert row["exit"] == 0
    assert 0 < row["peak_rss_mb"] < 30, row
    del held


_FAKE_SERVER = '''#!{python}
import http.server, sys
port = int(sys.argv[sys.argv.index("--port") + 1])
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{{"status": "ok"}}'
        self.send_response(200 if self.path == "/health" else 404)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Health).serve_forever()
'''


def _script(path, text):
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_serve_phase_times_health_and_always_stops_the_server(tmp_path):
    import argparse
    import sys

    from bench.run import serve_phase

    args = argparse.Namespace(serve_timeout=60, health_requests=5, phase_memory=None)
    fake = _script(tmp_path / "citegraph", _FAKE_SERVER.format(python=sys.executable))
    result = serve_phase(fake, tmp_path, args, tmp_path / "serve.log")
    assert "failed" not in result, result.get("failed")
    assert result["health"] == {"status": "ok"}
    assert (len(result["health_s"]), result["health_codes"], result["stopped_by"]) == (5, [200], "SIGTERM")
    assert result["peak_rss_mb"] > 0

    broken = _script(tmp_path / "broken", "#!/bin/sh\necho no store here; exit 3\n")
    result = serve_phase(broken, tmp_path, args, tmp_path / "broken.log")
    assert result["exit"] == 3
    assert result["failed"] == "phase serve: exited with 3: no store here"


def test_serve_phase_gives_the_servers_cpu_per_kept_alive_request(tmp_path):
    import argparse
    import sys

    from bench.run import serve_phase

    args = argparse.Namespace(serve_timeout=60, health_requests=1, phase_memory=None, keepalive_requests=3)
    fake = _script(tmp_path / "citegraph", _FAKE_CITEGRAPH.format(python=sys.executable))
    result = serve_phase(fake, tmp_path, args, tmp_path / "serve.log", {"set": "A", "record": "R1"})
    assert "failed" not in result, result.get("failed")
    assert {name: len(ts) for name, ts in result["keepalive_s"].items()} == {"health": 3, "rest": 3, "graphql": 3}
    assert sorted(result["keepalive_cpu_s"]) == ["graphql", "health", "rest"]
    assert all(v >= 0 for v in result["keepalive_cpu_s"].values()) and result["keepalive_load"] >= 0
    fig = process_figures({"serve": result})
    assert {f"serve_keepalive_{n}_cpu_ms" for n in ("health", "rest", "graphql")} | {"serve_keepalive_load"} <= set(fig)


def test_process_cpu_s_counts_every_thread_of_a_live_process(tmp_path):
    import subprocess
    import sys
    import time

    from bench.run import process_cpu_s

    burn = ("import threading, time\n"
            "def spin():\n    end = time.process_time() + 0.3\n    while time.process_time() < end: pass\n"
            "t = threading.Thread(target=spin); t.start(); t.join()\nprint('done', flush=True)\ntime.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "done\n"
        time.sleep(0.05)
        assert 0.3 <= process_cpu_s(proc.pid) < 2.0  # the 0.3 s the thread spun, plus the start
    finally:
        proc.kill()
        proc.wait()


def test_add_set_phase_ingests_into_copies_and_leaves_the_store_alone(tmp_path):
    import argparse

    from bench.run import add_set_phase

    home = tmp_path / "home"
    home.mkdir()
    (home / "db").write_bytes(b"s" * 8192)
    # a fake `citegraph ingest DIR --home H`: appends 100 bytes to H/db and writes a 10-byte H/db-wal
    fake = _script(tmp_path / "citegraph", '#!/bin/sh\nprintf "%0100d" 0 >> "$4/db"\nprintf "%010d" 0 > "$4/db-wal"\n')
    args = argparse.Namespace(add_repeats=2, phase_timeout=None, phase_memory=None)
    work = tmp_path / "work"
    work.mkdir()
    result = add_set_phase(fake, home, {"dir": str(tmp_path / "set"), "documents": 1, "bytes": 5}, work, args)
    assert "failed" not in result, result.get("failed")
    assert (home / "db").read_bytes() == b"s" * 8192 and not (home / "db-wal").exists()
    assert [(r["before_bytes"], r["after_bytes"]) for r in result["store"]] == [(8192, 8302)] * 2
    assert [(r["before_bytes"], r["after_bytes"]) for r in result["empty"]] == [(0, 110)] * 2
    assert (result["store"][0]["changed_bytes"], result["empty"][0]["changed_bytes"]) == (110, 110)
    assert sorted(p.name for p in work.iterdir()) == []
    fig = process_figures({"add-set": result})
    assert (fig["add_set_grew_mb"], fig["add_set_changed_mb"], fig["add_set_empty_mb"]) == (110e-6, 110e-6, 110e-6)


def test_issue_25_targets_judge_neo4j_beside_the_embedded_store_at_m_and_l():
    neo = {"ingest_vs_embedded": 2.4, "cli_rests_on_vs_embedded": 1.4, "cli_check_vs_embedded": 1.6,
           "serve_keepalive_rest_vs_embedded": 1.5, "serve_keepalive_health_p50_ms": 4.0, "rests_on_p50_ms": 12.0}
    for size in ("M", "L"):
        verdicts = {r["target"]: r["verdict"] for r in evaluate(size, {"neo4j": neo, "_run": {"total_s": 1.0}})}
        assert verdicts["Neo4j ingest wall ÷ embedded ingest wall"] == "FAIL"
        assert verdicts["Neo4j rests-on process ÷ embedded, side by side"] == "PASS"
        assert verdicts["Neo4j check process ÷ embedded, side by side"] == "FAIL"
        assert verdicts["Neo4j stats process ÷ embedded, side by side"] == "SKIP"  # no figure
        assert verdicts["Neo4j serve keep-alive: REST rests-on p50 ÷ embedded, side by side"] == "PASS"
        assert verdicts["Neo4j serve keep-alive: /health p50"] == "PASS"
    at_l = {r["target"]: r["verdict"] for r in evaluate("L", {"neo4j": neo, "_run": {"total_s": 1.0}})}
    assert (at_l["rests-on p50 (neo4j) at L"], at_l["rests-on p50 (neo4j)"]) == ("FAIL", "PASS")
    at_s = {r["target"]: r["verdict"] for r in evaluate("S", {"neo4j": neo, "_run": {"total_s": 1.0}})}
    assert at_s["Neo4j ingest wall ÷ embedded ingest wall (target stated at M and L: shown, not judged)"] == "INFO"
    assert not any(t.startswith("Neo4j") for t in evaluate("S", {"embedded": neo}) for t in [t["target"]])
    assert "| Neo4j ingest wall ÷ embedded ingest wall | 2.4 |" in markdown_table("M", {"neo4j": neo})


_FAKE_CITEGRAPH = '''#!{python} -S
import os, sys
args = sys.argv[1:]
neo4j = bool(os.environ.get("CITEGRAPH_NEO4J_URI"))
if neo4j == ("--home" in args):  # each process names exactly one store
    sys.exit(5)
if args[0] == "serve":
    import http.server
    port = int(args[args.index("--port") + 1])
    class Any(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        def answer(self):
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = b'{{"data": {{}}}}'
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        do_GET = do_POST = answer
        def log_message(self, *a):
            pass
    http.server.HTTPServer(("127.0.0.1", port), Any).serve_forever()
differ = os.environ.get("DIFFER") if args[0] == "rests-on" and neo4j else None
print('{{"results": [%s]}}' % (f'"{{differ}}"' if differ else ""))
'''


def test_side_by_side_phase_runs_each_command_on_both_stores_and_serves_both(tmp_path, monkeypatch):
    import argparse
    import sys

    from bench.run import PAIRED_COMMANDS, side_by_side_figures, side_by_side_phase

    monkeypatch.setenv("CITEGRAPH_NEO4J_URI", "bolt://exported.by.the.caller:7687")  # must not reach the embedded runs
    fake = _script(tmp_path / "citegraph", _FAKE_CITEGRAPH.format(python=sys.executable))
    args = argparse.Namespace(phase_timeout=60, phase_memory=None, keepalive_requests=2, serve_timeout=60)
    spec = {"uri": "bolt://127.0.0.1:1", "user": "neo4j", "password": "x"}
    records = [{"set": "A", "record": "R1"}, {"set": "B", "record": "R2"}]
    result = side_by_side_phase(fake, tmp_path, spec, records, args, tmp_path)
    assert "failed" not in result, result.get("failed")
    assert len(result["runs"]) == 2 * len(PAIRED_COMMANDS) * 2
    firsts = [result["runs"][i]["store"] for i in (0, 2 * len(PAIRED_COMMANDS))]
    assert firsts == ["embedded", "neo4j"]  # the first store alternates from one record to the next
    assert result["mismatches"] == []
    assert {store: {name: len(ts) for name, ts in kept.items()} for store, kept in result["keepalive_s"].items()} == {
        store: {"health": 6, "rest": 6, "graphql": 6} for store in ("embedded", "neo4j")}
    assert {store: sorted(cpu) for store, cpu in result["keepalive_cpu_s"].items()} == {
        store: ["graphql", "health", "rest"] for store in ("embedded", "neo4j")}
    assert all(v >= 0 for cpu in result["keepalive_cpu_s"].values() for v in cpu.values())
    fig = side_by_side_figures(result)
    assert set(fig) >= {"cli_rests_on_vs_embedded", "cli_sets_vs_embedded", "serve_keepalive_rest_vs_embedded",
                        "serve_keepalive_rest_cpu_ms", "serve_keepalive_rest_embedded_cpu_ms"}
    assert fig["cli_side_by_side_mismatches"] == 0

    monkeypatch.setenv("DIFFER", "x")
    args.keepalive_requests = 0
    result = side_by_side_phase(fake, tmp_path, spec, records[:1], args, tmp_path)
    assert result["mismatches"] == ["A/R1: rests-on --json differs between the stores"]
    assert "keepalive_s" not in result


def test_pairs_give_each_install_cpu_and_p50_of_every_request_and_the_ratio_to_the_first(tmp_path, capsys):
    import sys

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
    import sys

    from bench.serve_pairs import main

    monkeypatch.setenv("CITEGRAPH_NEO4J_URI", "bolt://127.0.0.1:1")
    fake = _script(tmp_path / "citegraph", _FAKE_CITEGRAPH.format(python=sys.executable))  # exits 5 unless one store
    assert main(["--cli", f"embedded={fake}", "--cli", f"neo4j={fake}", "--neo4j", "neo4j", "--home", str(tmp_path),
                 "--record", "R1", "--rounds", "1", "--chunk", "2", "--kinds", "rest"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {name: sorted(figs) for name, figs in out["installs"].items()} == {"embedded": ["rest"], "neo4j": ["rest"]}
