"""Deterministic generator of analysis sets in canonical G3/G4 Markdown, with the source they quote.

``python -m bench.generate --size S|M|L --seed N --out DIR`` writes::

    DIR/corpus/<system-slug>/ARTIFACT.yaml   the manifest, SHA-256 pins of every member
    DIR/corpus/<system-slug>/*.md            overview, runtime, memory, epistemic, reconciliation,
                                             memory-profile (G3); + boundary, synthesis (G4)
    DIR/source/                              one git repository, a directory per system, two
                                             commits: ``base`` (reviewed by every set) and
                                             ``change`` (50 files of one set's
                                             source edited, for impact runs)
    DIR/bench-manifest.json                  what was generated: sets, record citation counts,
                                             commits, changed files, totals

Shapes are modelled on the Dynamic Cheatsheet set (``corpus/commonplace/kb/agentic-system-analyses/
retained/dynamic-cheatsheet/`` and its ``retained-archive`` members): member sizes (overview 22 KB,
runtime 27 KB, memory 27 KB, epistemic 22 KB, reconciliation 2 KB, profile 11 KB), about 13 runtime
declarations, 1–2 memory declarations with 4–6 annotations on runtime records, 6 epistemic
declarations, 17-column ledgers, 5-column Limitations tables, one 8-column source register, and
roughly 100 citations (record IDs, ``SRC-n``, code-span paths) per member. Every set is scaled by a
per-set factor drawn from a log-normal distribution.

Grammar followed (``GRAMMAR.md``): slug record IDs (§1.1) that never extend one another; G3
declarations ``#### ID — Label`` and bare-ID citations, G3 overview links
``[runtime](runtime.md#anchor)``; G4 declarations ``#### ID`` + ``Label:``, link citations whose
label is the ID; six kind headings with ``none declared in this member`` (§4.1); status fields and
the seven route fields on every route (§4.4–4.5); annotations (§4.6); ``Part of:`` (§4.7);
supersession amendments and the overview's amendment index (§4.8, §2.2 rule 6); quotations whose
text occurs exactly once in the base commit (§6); source registers and Limitations tables (§7);
manifests pinning every member (§2.1).

Determinism: every set is drawn from its own ``random.Random`` seeded with ``(seed, set index)``,
so output bytes depend only on ``--size``, ``--seed``, ``--sets`` and the absolute output path
(which boundary frontmatter and source registers name as the frozen checkout); git commits use
fixed author, committer and dates, so the commit ids are reproducible too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from bench.members import render_set
from bench.plan import (CHANGED_FILES, G4_SHARE, GENERATOR_VERSION, IMPACT_SET, SOURCE_IDENTITY, Record, SetPlan,
                        SourceFile, plan_set)

__all__ = [
    "SIZES",
    "GENERATOR_VERSION",
    "SOURCE_IDENTITY",
    "Record",
    "SourceFile",
    "SetPlan",
    "GeneratedCorpus",
    "plan_set",
    "render_set",
    "generate",
    "main",
]

SIZES: dict[str, int] = {"S": 100, "M": 1_000, "L": 10_000}
"""Target document (member) count per size."""

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "citegraph bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "citegraph bench", "GIT_COMMITTER_EMAIL": "bench@example.org",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}



# -- orchestration ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GeneratedCorpus:
    """Where a generated corpus lives and what it holds (also written as ``bench-manifest.json``)."""

    root: Path
    corpus: Path
    source: Path
    base: str
    change: str
    changed_files: tuple[str, ...]
    sets: int
    documents: int
    bytes: int
    citations: int
    seconds: float


def _width(n_sets: int) -> int:
    return max(4, len(str(max(0, n_sets - 1))))


def _write_source(args: tuple[int, int, int, str]) -> list[tuple[str, str]]:
    seed, index, width, source = args
    plan = plan_set(seed, index, width=width)
    out = []
    for f in plan.files:
        path = Path(source, f.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(f.lines) + "\n", encoding="utf-8")
        out.append((f.path, f.kind))
    return out


def _write_set(args: tuple[int, int, int, str, str, str]) -> dict:
    seed, index, width, corpus, commit, source_root = args
    plan = plan_set(seed, index, width=width)
    files, cited, citations = render_set(plan, commit, source_root)
    folder = Path(corpus, plan.slug)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    members = [n for n in files if n.endswith(".md")]
    return {
        "set": plan.run_id, "dir": f"corpus/{plan.slug}", "generation": plan.generation,
        "documents": len(members), "bytes": sum(len(files[n]) for n in members), "citations": citations,
        "records": sorted(cited.items()),
    }


def _git(source: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, **_GIT_ENV}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    done = subprocess.run(["git", "-C", str(source), *args], check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def _commit(source: Path, message: str, date: str) -> str:
    _git(source, "add", "-A")
    _git(source, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", message, date=date)
    return _git(source, "rev-parse", "HEAD")


def _edit_files(source: Path, paths: list[str], rng: random.Random) -> None:
    """The ``change`` commit: rewrite a few lines of each file and append two new ones."""
    for n, rel in enumerate(paths):
        path = source / rel
        lines = path.read_text(encoding="utf-8").splitlines()
        for i in rng.sample(range(len(lines)), min(3, len(lines))):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            lines[i] = f"{indent}changed_{n}_{i} = revised.value + {n}"
        lines += [f"appended_{n}_a = revised.extra", f"appended_{n}_b = revised.extra + {n}"]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def set_count(size: str | None = None, documents: int | None = None) -> int:
    """Sets needed for ``documents`` members (or the size's target): 40 % G4 sets of 8 members,
    60 % G3 sets of 6, so 6.8 members per set on average."""
    target = documents if documents is not None else SIZES[size or "S"]
    return max(1, round(target / (6 + 2 * G4_SHARE)))


def generate(out: Path, *, size: str = "S", seed: int = 0, sets: int | None = None, workers: int | None = None,
             force: bool = False) -> GeneratedCorpus:
    """Write a corpus of ``size`` (or exactly ``sets`` sets) for ``seed`` under ``out``.

    Parameters
    ----------
    out : Path
        Output folder; must be empty or absent unless ``force`` (then it is removed first).
    size : {"S", "M", "L"}
        Target of about 100, 1,000 or 10,000 members.
    seed : int
        Seed of every random choice.
    sets : int, optional
        Exact number of sets (overrides ``size``); small values give quick test corpora.
    workers : int, optional
        Processes writing sets in parallel (default: CPU count, at most 4). Output does not depend
        on it.

    Returns
    -------
    GeneratedCorpus
        Paths, commits and totals; the same data is in ``out/bench-manifest.json``.

    Raises
    ------
    FileExistsError
        ``out`` exists, is not empty and ``force`` is false.
    """
    started = time.perf_counter()
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        if not force:
            raise FileExistsError(f"{out} is not empty; pass force=True (--force) to replace it")
        shutil.rmtree(out)
    corpus, source = out / "corpus", out / "source"
    corpus.mkdir(parents=True)
    source.mkdir(parents=True)
    n_sets = sets if sets is not None else set_count(size)
    width = _width(n_sets)
    workers = workers or min(4, os.cpu_count() or 1)
    ctx = get_context("fork")
    with ctx.Pool(workers) as pool:
        file_lists = pool.map(_write_source, [(seed, i, width, str(source)) for i in range(n_sets)], chunksize=8)
        _git(source, "init", "-q", "-b", "main")
        base = _commit(source, "base: sources reviewed by every generated set", "2026-10-01T00:00:00+00:00")
        _git(source, "tag", "base")
        results = pool.map(_write_set, [(seed, i, width, str(corpus), base, str(source)) for i in range(n_sets)],
                           chunksize=4)
    impact_files = file_lists[IMPACT_SET]
    cited = [p for p, kind in impact_files if kind != "vendor"]
    vendor = [p for p, kind in impact_files if kind == "vendor"]
    changed = sorted(cited + vendor[: max(0, CHANGED_FILES - len(cited))])
    rng = random.Random(f"citegraph-bench-change:{seed}:{n_sets}")
    _edit_files(source, changed, rng)
    change = _commit(source, f"change: edit {len(changed)} files", "2026-10-20T00:00:00+00:00")
    _git(source, "tag", "change")
    documents = sum(r["documents"] for r in results)
    total_bytes = sum(r["bytes"] for r in results)
    citations = sum(r["citations"] for r in results)
    manifest = {
        "generator_version": GENERATOR_VERSION, "size": size if sets is None else None, "seed": seed,
        "sets": [{k: v for k, v in r.items() if k != "records"} for r in results],
        "records": [[r["set"], rid, n] for r in results for rid, n in r["records"]],
        "source": {"path": "source", "identity": SOURCE_IDENTITY, "base": base, "change": change,
                   "changed_files": changed, "impact_set": results[IMPACT_SET]["set"]},
        "totals": {"sets": n_sets, "documents": documents, "bytes": total_bytes, "citations": citations,
                   "records": sum(len(r["records"]) for r in results)},
    }
    (out / "bench-manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return GeneratedCorpus(out, corpus, source, base, change, tuple(changed), n_sets, documents, total_bytes,
                           citations, time.perf_counter() - started)


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.generate --size S --seed 0 --out /tmp/bench-S``."""
    ap = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="S", help="S ≈ 100, M ≈ 1,000, L ≈ 10,000 members")
    ap.add_argument("--sets", type=int, help="exact number of sets instead of --size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True, help="output folder (empty or absent)")
    ap.add_argument("--workers", type=int, help="parallel processes (output does not depend on it)")
    ap.add_argument("--force", action="store_true", help="replace a non-empty --out")
    args = ap.parse_args(argv)
    try:
        g = generate(args.out, size=args.size, seed=args.seed, sets=args.sets, workers=args.workers, force=args.force)
    except FileExistsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{g.sets} sets, {g.documents} documents, {g.bytes / 1e6:.1f} MB, {g.citations} citations "
          f"in {g.seconds:.1f} s → {g.corpus} (source {g.source}, base {g.base[:12]}, change {g.change[:12]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
