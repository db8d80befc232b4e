"""XL on paper: every figure of a benchmark run projected to 100,000 members from its M → L slope.

``python -m bench.xl bench/results/DAY-M.json bench/results/DAY-L.json [DAY-S.json]`` prints a
Markdown table, one row per figure a target reads (:data:`bench.run.TARGETS`) plus the figures
that size the machine (:data:`CONTEXT`), for each store: its value at S (when given), M and L, the
slope α of log(figure) against log(members) from M to L, the figure projected to
:data:`XL_MEMBERS` members (L × (XL ÷ L)^α), its target and verdict there, and the members at
which a target that holds at L would break on that slope. Then the targets in the order they
break. The result files should come from one run (one day, one code): a slope between two codes
measures the change, not the size.

A power law through two points is what the slope is: a figure that is a fixed cost plus a linear
part bends over from α ≈ 0 towards 1 as it grows, so projections of small slopes are lower bounds.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.run import TARGETS, Target

__all__ = ["XL_MEMBERS", "HORIZON", "CONTEXT", "Projection", "slope", "project", "breaking_point", "projections", "table", "main"]

XL_MEMBERS = 100_000
"""The size projected to (issue 24, item 7)."""

HORIZON = 10_000_000
"""Members beyond which a breaking point is reported only as "beyond" (a two-point slope says
nothing that far out)."""

CONTEXT: tuple[tuple[str, str, str], ...] = (
    ("ingest wall", "ingest_s", "s"), ("ingest CPU (with the parse workers)", "ingest_cpu_s", "s"),
    ("ingest peak RSS", "rss_ingest_mb", "MB"), ("store on disk", "disk_mb", "MB"),
    ("Neo4j transaction logs", "tx_log_mb", "MB"), ("whole-store check, in process", "check_s", "s"),
    ("grep -rlF ID corpus/, whole process", "cli_grep_p50_ms", "ms"),
    ("rests-on --set --json, whole process", "cli_rests_on_p50_ms", "ms"),
    ("stats (whole store, kept), whole process", "whole_stats_p50_ms", "ms"),
    ("check (whole store, kept), whole process", "whole_check_p50_ms", "ms"),
    ("verify (whole store, kept), whole process", "whole_verify_p50_ms", "ms"),
    ("stats --fresh, whole process", "whole_stats_fresh_ms", "ms"),
    ("check --fresh, whole process", "whole_check_fresh_ms", "ms"),
    ("verify --fresh, whole process", "whole_verify_fresh_ms", "ms"),
)
"""Figures no target reads that say what XL needs of a machine: (title, figure, unit)."""


@dataclass(frozen=True, slots=True)
class Projection:
    """One figure of one store: its values by size (``None`` when absent), the M → L slope, the value
    at :data:`XL_MEMBERS`, and for a target its limit, the verdicts at L and XL and the members
    at which it breaks on that slope (``None``: it does not, or already fails at L)."""

    store: str
    title: str
    figure: str
    unit: str
    values: dict[str, float | None]
    alpha: float | None
    xl: float | None
    target: Target | None = None
    at_l: str | None = None
    at_xl: str | None = None
    breaks_at: float | None = None


def slope(n1: float, v1: float, n2: float, v2: float) -> float | None:
    """The exponent α of ``v ∝ n^α`` through (n1, v1) and (n2, v2); None when a value is not positive.

    >>> slope(1000, 2.0, 10000, 20.0)
    1.0
    >>> round(slope(1000, 5.0, 10000, 5.0), 6), slope(1000, 0.0, 10000, 1.0)
    (0.0, None)
    """
    if min(n1, v1, n2, v2) <= 0 or n1 == n2:
        return None
    return math.log(v2 / v1) / math.log(n2 / n1)


def project(n: float, v: float, alpha: float, to: float = XL_MEMBERS) -> float:
    """``v`` at ``n`` members carried to ``to`` members on the slope ``alpha``.

    >>> project(10_000, 2.0, 1.0)
    20.0
    >>> round(project(10_000, 100.0, 0.5), 1)
    316.2
    """
    return v * (to / n) ** alpha


def _holds(target: Target, value: float) -> bool:
    return value < target.limit if target.op == "<" else value <= target.limit if target.op == "<=" \
        else value >= target.limit


def breaking_point(n: float, v: float, alpha: float, target: Target) -> float | None:
    """Members at which a figure of ``v`` at ``n`` members, on the slope ``alpha``, stops meeting
    ``target``; None when it already fails at ``n`` or never breaks on that slope.

    >>> t = Target("x", "f", "<", 2.0, "s")
    >>> breaking_point(10_000, 1.0, 1.0, t), breaking_point(10_000, 1.0, -0.2, t), breaking_point(10_000, 3.0, 1.0, t)
    (20000.0, None, None)
    >>> round(breaking_point(10_000, 100.0, -0.5, Target("y", "g", ">=", 50, "×")))
    40000
    """
    if not _holds(target, v) or alpha == 0 or target.limit <= 0:
        return None
    growing_breaks = target.op in ("<", "<=")
    if (alpha > 0) != growing_breaks:
        return None
    return n * (target.limit / v) ** (1 / alpha)


def _members(result: dict) -> float:
    return float(result["corpus"].get("documents") or result["stores"]["embedded"]["documents"])


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value == value else None


def projections(results: dict[str, dict]) -> list[Projection]:
    """Every projected figure of every store found in the M and L results (``results`` keyed by size,
    S optional): the targets' figures first, in :data:`bench.run.TARGETS` order, then :data:`CONTEXT`."""
    m, l_ = results["M"], results["L"]
    nm, nl = _members(m), _members(l_)
    out: list[Projection] = []
    rows: list[tuple[str, str, str, Target | None]] = [(t.name, t.figure, t.unit, t) for t in TARGETS
                                                       if t.figure != "total_s"]
    rows += [(title, figure, unit, None) for title, figure, unit in CONTEXT]
    for store in [s for s in l_["stores"] if not s.startswith("_")]:
        for title, figure, unit, target in rows:
            if target is not None and target.store not in (None, store):
                continue
            values = {size: _number(r["stores"].get(store, {}).get(figure)) for size, r in results.items()}
            vm, vl = values.get("M"), values.get("L")
            if vl is None:
                continue
            alpha = slope(nm, vm, nl, vl) if vm is not None else None
            xl = project(nl, vl, alpha) if alpha is not None else None
            p = Projection(store, title, figure, unit, values, alpha, xl)
            if target is not None:
                breaks = breaking_point(nl, vl, alpha, target) if alpha is not None else None
                p = Projection(store, title, figure, unit, values, alpha, xl, target,
                               "PASS" if _holds(target, vl) else "FAIL",
                               None if xl is None else "PASS" if _holds(target, xl) else "FAIL", breaks)
            out.append(p)
    return out


def _fmt(v: float | None) -> str:
    if v is None:
        return "—"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.2f}" if abs(v) < 10 else f"{v:.1f}"


def table(found: list[Projection]) -> str:
    """The projections as Markdown: one table of every figure, then the targets that hold at L in
    the order their slopes break them."""
    sizes = [s for s in ("S", "M", "L") if any(s in p.values for p in found)]
    head = "| store | figure | " + " | ".join(sizes) + f" | α (M→L) | at {XL_MEMBERS:,} | target | L / XL | breaks at |"
    lines = [head, "|---|---|" + "---:|" * len(sizes) + "---:|---:|---|---|---:|"]
    for p in found:
        target = f"{p.target.op} {_fmt(float(p.target.limit))} {p.unit}" if p.target else ""
        verdicts = f"{p.at_l} / {p.at_xl or '—'}" if p.target else ""
        cells = " | ".join(_fmt(p.values.get(s)) for s in sizes)
        alpha = "—" if p.alpha is None else f"{p.alpha:.2f}"
        breaks = "" if p.breaks_at is None else f"{p.breaks_at:,.0f}" if p.breaks_at <= HORIZON else f"> {HORIZON:,}"
        lines.append(f"| {p.store} | {p.title} ({p.unit}) | {cells} | {alpha} | {_fmt(p.xl)} | {target} | {verdicts} "
                     f"| {breaks} |")
    breaking = sorted((p for p in found if p.breaks_at is not None and p.breaks_at <= HORIZON),
                      key=lambda p: p.breaks_at or 0)
    lines += ["", f"Targets that hold at L, in the order their M → L slopes break them (within {HORIZON:,} members):", ""]
    lines += [f"{i}. {p.store}: {p.title}: {_fmt(p.values.get('L'))} {p.unit} at L, slope {p.alpha:.2f}, "
              f"reaches {p.target.op} {_fmt(float(p.target.limit))} {p.unit} at about {p.breaks_at:,.0f} members"
              for i, p in enumerate(breaking, 1) if p.target is not None and p.alpha is not None]
    if not breaking:
        lines.append("(none breaks on its slope)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m bench.xl M.json L.json [S.json]`` (each a ``bench/run`` result file)."""
    ap = argparse.ArgumentParser(prog="python -m bench.xl", description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", type=Path, help="result files of sizes M and L (and S) of one run")
    args = ap.parse_args(argv)
    by_size: dict[str, dict] = {}
    for path in args.results:
        result = json.loads(path.read_text(encoding="utf-8"))
        by_size[result["size"]] = result
    if not {"M", "L"} <= set(by_size):
        print(f"error: need result files of sizes M and L, got {sorted(by_size)}", file=sys.stderr)
        return 2
    print(table(projections(by_size)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
