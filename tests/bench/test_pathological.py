"""The pathological-input phase of the benchmark (issue 14): the inputs, the phase's output on
small sizes, the flat figures and the targets. Exact values only; no timing assertions."""

from __future__ import annotations

import pytest

from bench.pathological import CASES, member
from bench.phases import pathological
from bench.run import PATHOLOGICAL_TARGETS, TARGETS, evaluate, pathological_figures, pathological_table


def test_inputs_are_deterministic_and_grow_with_n():
    for case in CASES:
        assert member(case.name, 40) == member(case.name, 40)
        assert len(member(case.name, 80)) > len(member(case.name, 40))
    assert member("md-links", 2).endswith(b"[RT-OBJ-a0](runtime.md#rt-obj-a0) [RT-OBJ-a1](runtime.md#rt-obj-a1)\n")
    assert member("txt-lines", 3).endswith(b"Bounded synthesis\n\nA.\nA.\nA.\n")


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
    out = pathological({"case": case, "path": path, "n": n, "repeats": 3, "mode": "time"})
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
    assert all(t.store == "parser" for t in PATHOLOGICAL_TARGETS)
    assert [t.name for t in PATHOLOGICAL_TARGETS if t.op == "<="] == [
        "md-links: parse CPU at 2n ÷ at n", "md-ranges: parse CPU at 2n ÷ at n",
        "md-cell-links: parse CPU at 2n ÷ at n", "md-part-of: parse CPU at 2n ÷ at n",
        "txt-quotation: parse CPU at 2n ÷ at n", "txt-lines: parse CPU at 2n ÷ at n",
        "txt-lines: parse memory at 2n ÷ at n"]
    assert {r["store"] for r in evaluate("S", {"embedded": {}, "_run": {}})} <= {"embedded", "_run"}
