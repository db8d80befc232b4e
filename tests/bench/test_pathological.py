"""The pathological-input phases of the benchmark: the inputs, the phases' output on
small sizes (parsing, and ingesting the write cases into each store), the flat figures and the
targets. Exact values only; no timing assertions."""

from __future__ import annotations

import pytest

from bench.pathological import CASES, WRITE_CASES, member
from bench.phases import pathological, pathological_ingest
from bench.run import (
    PATHOLOGICAL_TARGETS,
    TARGETS,
    evaluate,
    pathological_figures,
    pathological_ingest_figures,
    pathological_ingest_table,
    pathological_table,
    run_phase,
)
from graph.stores import open_embedded


def test_inputs_are_deterministic_and_grow_with_n():
    for case in CASES + WRITE_CASES:
        assert member(case.name, 40) == member(case.name, 40)
        assert len(member(case.name, 80)) > len(member(case.name, 40))
    assert member("md-links", 2).endswith(b"[RT-OBJ-a0](runtime.md#rt-obj-a0) [RT-OBJ-a1](runtime.md#rt-obj-a1)\n")
    assert member("txt-lines", 3).endswith(b"Bounded synthesis\n\nA.\nA.\nA.\n")
    assert member("txt-cites", 3).endswith(b"Bounded synthesis\n\nIt rests on RT-OBJ-x, RT-OBJ-x, RT-OBJ-x.\n")


@pytest.mark.parametrize("case, n, at_n, at_2n", [
    ("md-links", 50, {"blocks": 4, "citations": 50}, {"blocks": 4, "citations": 100}),
    ("md-ranges", 50, {"blocks": 4, "citations": 150}, {"blocks": 4, "citations": 300}),
    ("md-cell-links", 50, {"blocks": 4, "citations": 50}, {"blocks": 4, "citations": 100}),
    # heading, kinds heading, declaration, then an item and a `Part of:` field per line pair
    ("md-part-of", 50, {"blocks": 103, "citations": 50}, {"blocks": 203, "citations": 100}),
    ("txt-quotation", 50, {"blocks": 3, "citations": 1}, {"blocks": 3, "citations": 1}),
    ("txt-lines", 50, {"blocks": 51, "citations": 0}, {"blocks": 101, "citations": 0}),
    ("yaml-bomb", 9, {"refused": "runtime.md:8: malformed YAML frontmatter: aliases here expand the document by "
                                 "more than 100,000 nodes and characters"},
     {"refused": "runtime.md:8: malformed YAML frontmatter: aliases here expand the document by more than 100,000 "
                 "nodes and characters"}),
    ("yaml-deep", 2000, {"refused": "runtime.md:4: malformed YAML frontmatter: the document nests deeper than 64 "
                                    "levels"},
     {"refused": "runtime.md:4: malformed YAML frontmatter: the document nests deeper than 64 levels"}),
])
def test_the_time_phase_parses_both_sizes_in_turn(case, n, at_n, at_2n):
    path = next(c.path for c in CASES if c.name == case)
    # in a fresh interpreter, as bench/run runs it: the phase collects garbage between parses, which
    # in the test process's own heap costs seconds a case
    out = run_phase("pathological", {"case": case, "path": path, "n": n, "repeats": 3, "mode": "time"})
    assert out["outcome"] == {"n": at_n, "2n": at_2n} and "error" not in out
    assert out["bytes"] == {"n": len(member(case, n)), "2n": len(member(case, 2 * n))}
    assert [len(out[k][h]) for k in ("times", "cpu") for h in ("n", "2n")] == [3, 3, 3, 3]
    assert sorted(out["gc_cpu"]) == ["2n", "n"] and "parse_mb" not in out


def test_the_memory_phase_parses_one_size_once():
    out = pathological({"case": "txt-lines", "path": "synthesis.txt", "n": 2000, "repeats": 3, "mode": "memory"})
    assert (out["outcome"], out["bytes"], [len(out["times"]["n"])]) == (
        {"n": {"blocks": 2001, "citations": 0}}, {"n": len(member("txt-lines", 2000))}, [1])
    assert out["parse_mb"] >= 0 and out["gc_cpu"] == {}


def test_an_exception_other_than_a_parse_error_is_reported_as_the_figure(monkeypatch):
    import ingest.parsers

    real = ingest.parsers.parse_member

    def overflow_from(size):
        def parse(data, path):
            if len(data) > size:
                raise RecursionError("maximum recursion depth exceeded")
            return real(data, path)
        return parse

    monkeypatch.setattr(ingest.parsers, "parse_member", overflow_from(5000))  # the warm-up (10 lines) passes
    out = pathological({"case": "md-part-of", "path": "runtime.md", "n": 1000, "repeats": 3})
    assert (out["error"], out["times"]) == ("RecursionError: maximum recursion depth exceeded", {"n": [], "2n": []})
    monkeypatch.setattr(ingest.parsers, "parse_member", overflow_from(0))
    out = pathological({"case": "md-part-of", "path": "runtime.md", "n": 1000, "repeats": 3})
    assert out["error"] == "RecursionError: maximum recursion depth exceeded (in the warm-up)"


def _ingested(spec: dict) -> dict:
    return pathological_ingest({"case": "txt-cites", "path": "synthesis.txt", "n": 50, "repeats": 2, "store": spec})


# System, AnalysisSet, Document, Section, Statement and the record; n citations of it
INGESTED = {"n": {"edges": 50, "nodes": 6}, "2n": {"edges": 100, "nodes": 6}}


def test_the_ingest_phase_writes_both_sizes_in_turn_and_leaves_the_store_empty(tmp_path):
    out = _ingested({"kind": "embedded", "home": str(tmp_path)})
    assert (out["outcome"], out["store"], "error" in out) == (INGESTED, "embedded", False)
    assert out["bytes"] == {"n": len(member("txt-cites", 50)), "2n": len(member("txt-cites", 100))}
    assert [len(out[k][h]) for k in ("times", "cpu") for h in ("n", "2n")] == [2, 2, 2, 2]
    with open_embedded(tmp_path) as store:
        assert store.counts()["nodes"] == 0


@pytest.mark.neo4j
def test_the_ingest_phase_on_neo4j_writes_what_the_embedded_store_writes(neo4j_server, neo4j_store):
    out = _ingested({"kind": "neo4j", "uri": neo4j_server.uri, "user": neo4j_server.user,
                     "password": neo4j_server.password, "database": neo4j_server.database})
    assert (out["outcome"], out["store"], "error" in out) == (INGESTED, "neo4j", False)
    assert neo4j_store.counts()["nodes"] == 0


def test_ingest_figures_ratios_and_verdicts():
    ok = {"n": 4000, "times": {"n": [3.1, 3.0], "2n": [6.2, 6.6]}, "cpu": {"n": [1.0, 1.0], "2n": [2.0, 2.1]},
          "outcome": {"n": {"edges": 4000, "nodes": 6}, "2n": {"edges": 8000, "nodes": 6}}}
    slow = {**ok, "times": {"n": [3.0], "2n": [12.0]}}
    stopped = {"n": 4000, "times": {"n": [3.0], "2n": []}, "cpu": {"n": [1.0], "2n": []},
               "failed": "phase pathological-ingest stopped after 600 s"}
    stores = {"embedded": pathological_ingest_figures({"txt-cites": ok}),
              "neo4j": pathological_ingest_figures({"txt-cites": slow})}
    assert (stores["embedded"]["patho_txt_cites_ingest_ratio"], stores["embedded"]["patho_txt_cites_ingest_2n_edges"]) == (
        2.067, 8000)
    assert stores["neo4j"]["patho_txt_cites_ingest_ratio"] == 4.0
    verdicts = {(r["target"], r["store"]): r["verdict"] for r in evaluate("pathological", stores, PATHOLOGICAL_TARGETS)}
    assert verdicts[("txt-cites: ingest time at 2n ÷ at n", "embedded")] == "PASS"
    assert verdicts[("txt-cites: ingest time at 2n ÷ at n", "neo4j")] == "FAIL"
    assert not any(store == "parser" and target.startswith("txt-cites") for target, store in verdicts)
    fig = pathological_ingest_figures({"txt-cites": stopped})
    assert (fig["patho_txt_cites_ingest_ratio"], fig["patho_txt_cites_ingest_ratio_note"]) == (
        float("inf"), "phase pathological-ingest stopped after 600 s")
    assert "| txt-cites: one plain-text statement citing one record n times, ingested into an empty store | neo4j | " \
        "4,000 / 8,000 citations | 3.00 / 12.00 | 4.00 |" in pathological_ingest_table(stores)


def _timed(n, cpu_n, cpu_2n, **more):
    return {"n": n, "bytes": {"n": 100, "2n": 200}, "times": {"n": [t + 0.1 for t in cpu_n], "2n": [t + 0.1 for t in cpu_2n]},
            "cpu": {"n": cpu_n, "2n": cpu_2n}, **more}


def test_figures_ratios_and_verdicts():
    runs = {
        "md-links": {"time": _timed(16000, [1.1, 1.0, 1.3], [2.2, 2.1, 2.5], gc_cpu={"n": 1.2, "2n": 3.0},
                                    outcome={"n": {"blocks": 4, "citations": 16000},
                                             "2n": {"blocks": 4, "citations": 32000}}),
                     "n": {"parse_mb": 40.0}, "2n": {"parse_mb": 84.0}},
        "md-part-of": {"time": {"n": 2000, "times": {"n": [], "2n": []}, "error": "RecursionError: maximum recursion depth"}},
        "txt-lines": {"time": _timed(1, [1.0], [2.0]), "n": {"parse_mb": 100.0}, "2n": {"parse_mb": 230.0}},
        "yaml-bomb": {"time": _timed(9, [0.01], [2.5], outcome={"2n": {"refused": "x:8: aliases"}}),
                      "n": {}, "2n": {}},
        "txt-quotation": {"time": {"failed": "phase pathological stopped after 600 s", "n": 100000,
                                   "times": {"n": [0.5], "2n": []}, "cpu": {"n": [0.5], "2n": []}}},
    }
    fig = pathological_figures(runs)
    assert (fig["patho_md_links_s"], fig["patho_md_links_2n_s"], fig["patho_md_links_ratio"]) == (1.1, 2.2, 2.1)
    assert (fig["patho_md_links_gc_ratio"], fig["patho_md_links_mem_ratio"]) == (2.5, 2.1)
    assert (fig["patho_md_links_2n_n"], fig["patho_md_links_2n_outcome"]) == (32000, "4 blocks, 32000 citations")
    assert fig["patho_yaml_bomb_2n_outcome"] == "x:8: aliases"
    assert fig["patho_md_part_of_ratio"] == float("inf")
    assert fig["patho_md_part_of_ratio_note"] == "RecursionError: maximum recursion depth"
    assert (fig["patho_txt_quotation_s"], fig["patho_txt_quotation_2n_s"]) == (0.5, float("inf"))  # what it reached
    verdicts = {r["target"]: (r["verdict"], r["note"])
                for r in evaluate("pathological", {"parser": fig}, PATHOLOGICAL_TARGETS)}
    assert verdicts["md-links: parse CPU at 2n ÷ at n"] == ("PASS", None)
    assert verdicts["md-part-of: parse CPU at 2n ÷ at n"] == ("FAIL", "RecursionError: maximum recursion depth")
    assert verdicts["txt-quotation: parse CPU at 2n ÷ at n"] == ("FAIL", "phase pathological stopped after 600 s")
    assert verdicts["txt-lines: parse memory at 2n ÷ at n"] == ("FAIL", None)  # 2.3
    assert verdicts["txt-lines: parse CPU at 2n ÷ at n"] == ("PASS", None)  # exactly 2.0
    assert verdicts["yaml-bomb: refused within (at 2n)"] == ("FAIL", None)  # 2.5 s
    assert verdicts["md-ranges: parse CPU at 2n ÷ at n"] == ("SKIP", None)  # not in this run
    assert "| md-links: one line of Markdown record links (the issue's 16k) | 16,000 / 32,000 links |" in \
        pathological_table(fig)


def test_pathological_targets_stay_out_of_size_runs():
    assert not {t.figure for t in PATHOLOGICAL_TARGETS} & {t.figure for t in TARGETS}
    assert {t.store for t in PATHOLOGICAL_TARGETS if not t.name.startswith("txt-cites")} == {"parser"}
    assert [(t.name, t.store) for t in PATHOLOGICAL_TARGETS if t.name.startswith("txt-cites")] == [
        ("txt-cites: ingest time at 2n ÷ at n", "embedded"), ("txt-cites: ingest time at 2n ÷ at n", "neo4j")]
    assert [t.name for t in PATHOLOGICAL_TARGETS if t.op == "<="] == [
        "md-links: parse CPU at 2n ÷ at n", "md-ranges: parse CPU at 2n ÷ at n",
        "md-cell-links: parse CPU at 2n ÷ at n", "md-part-of: parse CPU at 2n ÷ at n",
        "txt-quotation: parse CPU at 2n ÷ at n", "txt-lines: parse CPU at 2n ÷ at n",
        "txt-lines: parse memory at 2n ÷ at n", "txt-cites: ingest time at 2n ÷ at n",
        "txt-cites: ingest time at 2n ÷ at n"]
    assert {r["store"] for r in evaluate("S", {"embedded": {}, "_run": {}})} <= {"embedded", "_run"}
