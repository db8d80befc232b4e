"""XL on paper (bench/xl.py): slopes, projections and breaking points from result files. Exact values."""

from __future__ import annotations

import json

from bench.xl import Projection, main, projections, table


def _result(size: str, documents: int, **figures: float) -> dict:
    return {"size": size, "corpus": {"documents": documents}, "stores": {"embedded": figures, "_run": {"total_s": 1.0}}}


def test_each_target_figure_is_projected_on_its_m_to_l_slope_and_ordered_by_where_it_breaks(tmp_path, capsys):
    results = {"M": _result("M", 1_000, serve_ready_s=1.0, impact_s=0.1, ingest_s=10.0, rests_on_p50_ms=2.0),
               "L": _result("L", 10_000, serve_ready_s=1.5, impact_s=0.5, ingest_s=100.0, rests_on_p50_ms=2.0)}
    found: dict[str, Projection] = {}
    for p in projections(results):
        found.setdefault(p.figure, p)  # ingest_s is a target's (< 60 s at L) and a context figure: the target's first
    ingest = found["ingest_s"]
    assert ingest.alpha is not None and ingest.xl is not None
    assert (round(ingest.alpha, 6), round(ingest.xl, 6), ingest.at_l, ingest.at_xl) == (1.0, 1000.0, "FAIL", "FAIL")
    impact = found["impact_s"]  # 0.1 → 0.5 s: α = log10(5); < 1 s breaks at 10,000 × 2^(1/α) = 26,957
    assert impact.breaks_at is not None
    assert (impact.at_l, impact.at_xl, round(impact.breaks_at)) == ("PASS", "FAIL", 26_957)
    ready = found["serve_ready_s"]
    assert ready.xl is not None and ready.breaks_at is not None
    assert (ready.at_l, round(ready.xl, 3), round(ready.breaks_at)) == ("PASS", 2.250, 51_228)
    assert found["rests_on_p50_ms"].breaks_at is None  # flat: never breaks
    text = table(list(projections(results)))
    assert "1. embedded: impact of a 50-file change: 0.50 s at L, slope 0.70, reaches < 1.00 s at about 26,957 members" in text
    assert "2. embedded: serve: first /health 200 after start: 1.50 s at L" in text
    for size, r in results.items():
        (tmp_path / f"{size}.json").write_text(json.dumps(r))
    assert main([str(tmp_path / "M.json"), str(tmp_path / "L.json")]) == 0
    assert capsys.readouterr().out.strip() == text
    assert main([str(tmp_path / "M.json")]) == 2
