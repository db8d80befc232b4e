"""The plan of one generated analysis set: every random draw made before any text is written.

A set's system, records, source files and shape come from its own ``random.Random`` seeded with
``(seed, set index)`` (:func:`plan_set`); :mod:`bench.members` then writes the members from the plan.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from bench._prose import NAME_WORDS, SYSTEM_WORDS, label
from domain.vocabulary import KIND_HEADINGS

__all__ = [
    "GENERATOR_VERSION",
    "SOURCE_IDENTITY",
    "CHANGED_FILES",
    "IMPACT_SET",
    "G4_SHARE",
    "Record",
    "SourceFile",
    "SetPlan",
    "plan_set",
]

GENERATOR_VERSION = 2
"""Bumped whenever output bytes change for the same arguments."""

SOURCE_IDENTITY = "https://git.example.org/citegraph-bench/sources"
"""Identity of the generated source repository, as registered by every set (SRC-1)."""

CHANGED_FILES = 50
"""Files edited by the ``change`` commit (impact of a 50-file change)."""

IMPACT_SET = 0
"""Index of the set whose source the ``change`` commit edits: all its cited files, plus files of
its uncited ``vendor/`` folder (only this set has one) up to :data:`CHANGED_FILES`."""

G4_SHARE = 0.4
"""Share of sets written in G4 (8 members); the rest are G3 (6 members)."""

_MEMBER_OF = {"RT": "runtime", "MEM": "memory", "EPI": "epistemic"}




@dataclass(frozen=True, slots=True)
class Record:
    """A declared record: ``id`` such as ``RT-RTE-cache-sheet0017``, analyst, kind and label."""

    id: str
    analyst: str
    kind: str
    label: str

    @property
    def member(self) -> str:
        """Role of the declaring member (``runtime``, ``memory``, ``epistemic``)."""
        return _MEMBER_OF[self.analyst]

    @property
    def anchor(self) -> str:
        """The renderer anchor: the lowercased ID (GRAMMAR §1.1)."""
        return self.id.lower()


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of a system's source tree: commit-relative ``path`` and its ``lines`` (each
    unique across the whole repository, so any run of lines is a quotable passage)."""

    path: str
    lines: tuple[str, ...]
    kind: str  # code | doc | prompt


@dataclass(slots=True)
class SetPlan:
    """Everything drawn for one analysis set before any text is written."""

    index: int
    seed: int
    system: str
    slug: str
    run_id: str
    run_date: str
    generation: int
    scale: float
    records: dict[str, list[Record]]
    part_of: dict[str, str]
    supersessions: list[tuple[Record, Record]]
    annotations: dict[str, list[Record]]
    files: tuple[SourceFile, ...]
    rng: random.Random = field(repr=False)

    def declared(self, member: str, kind: str | None = None) -> list[Record]:
        """Records declared by ``member`` (of ``kind``), in declaration order."""
        return [r for r in self.records.get(member, ()) if kind is None or r.kind == kind]

    @property
    def all_records(self) -> list[Record]:
        """Every declared record of the set."""
        return [r for m in ("runtime", "memory", "epistemic") for r in self.records.get(m, ())]

    @property
    def members(self) -> tuple[str, ...]:
        """Member roles in manifest order."""
        base = ("overview", "runtime", "memory", "epistemic", "reconciliation", "memory-profile")
        return (("boundary", *base, "synthesis")) if self.generation == 4 else base


def _set_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"citegraph-bench:{GENERATOR_VERSION}:{seed}:{index}")


def _code_lines(rng: random.Random, idx: int, f: int, n: int) -> tuple[str, ...]:
    words = NAME_WORDS
    out = []
    indent = ""
    for k in range(n):
        a, b, c = rng.choice(words), rng.choice(words), rng.choice(words)
        form = rng.random()
        tag = f"{idx}_{f}_{k}"
        if form < 0.12 and indent == "":
            out.append(f"def {a}_{b}_{tag}:")
            indent = "    "
        elif form < 0.22:
            out.append(f"{indent}if {a}_{tag} is None:")
            out.append(f"{indent}    {b}_{tag} = {c}.{a}")
        elif form < 0.3 and indent:
            out.append(f"{indent}return {a}_{b}_{tag}")
            indent = ""
        else:
            out.append(f"{indent}{a}_{tag} = {b}.{c} + {a}_{b}")
    return tuple(out)


def _doc_lines(rng: random.Random, idx: int, f: int, n: int, system: str) -> tuple[str, ...]:
    out = []
    for k in range(n):
        a, b = rng.choice(NAME_WORDS), rng.choice(NAME_WORDS)
        out.append(f"Note {idx}.{f}.{k}: {system} keeps the {a} {b} step for later runs.")
    return tuple(out)


def _files(rng: random.Random, idx: int, slug: str, system: str, scale: float) -> tuple[SourceFile, ...]:
    files = [SourceFile(f"{slug}/README.md", _doc_lines(rng, idx, 0, rng.randint(25, 45), system), "doc")]
    pkg = rng.choice(("core", "engine", "runtime", "agent", "memory", "pipeline"))
    modules = rng.sample(NAME_WORDS, max(4, round(rng.randint(6, 10) * min(scale, 1.4))))
    for f, mod in enumerate(modules, start=1):
        sub = f"{pkg}/utils" if f % 4 == 0 else pkg
        files.append(SourceFile(f"{slug}/{sub}/{mod}.py", _code_lines(rng, idx, f, rng.randint(35, 70)), "code"))
    base = len(files)
    for j, name in enumerate(rng.sample(("generator", "curator", "planner", "reviewer"), 2)):
        files.append(SourceFile(f"{slug}/prompts/{name}_prompt.txt",
                                _doc_lines(rng, idx, base + j, rng.randint(15, 30), system), "prompt"))
    if idx == IMPACT_SET:
        base = len(files)
        files.extend(SourceFile(f"{slug}/vendor/lib_{k:02d}.py", _code_lines(rng, idx, base + k, 20), "vendor")
                     for k in range(CHANGED_FILES))
    return tuple(files)


def plan_set(seed: int, index: int, *, width: int = 4) -> SetPlan:
    """Draw set ``index`` of the corpus for ``seed`` (pure: same arguments, same plan).

    ``width`` is the zero-padded width of the set number carried by record slugs, fixed per
    corpus so no record ID is a substring of another (``grep -F`` stays exact).
    """
    rng = _set_rng(seed, index)
    scale = min(2.0, max(0.5, math.exp(rng.gauss(0.0, 0.25))))
    w1, w2 = rng.sample(SYSTEM_WORDS, 2)
    system = f"{w1} {w2} {index}"
    slug = f"{w1.lower()}-{w2.lower()}-{index}"
    run_date = f"2026-10-{rng.randint(1, 28):02d}"
    run_id = f"AAS-{run_date}-{slug}-01"
    generation = 4 if rng.random() < G4_SHARE else 3
    code = f"{index:0{width}d}"
    pairs = [(a, b) for a in NAME_WORDS for b in NAME_WORDS if a != b]
    picked = iter(rng.sample(pairs, 80))

    def make(analyst: str, kind: str) -> Record:
        a, b = next(picked)
        return Record(f"{analyst}-{kind}-{a}-{b}{code}", analyst, kind, label(rng, rng.randint(2, 4)))

    def some(lo: int, hi: int) -> int:
        return max(lo, round(rng.randint(lo, hi) * scale))

    counts = {
        "RT": {"CMP": some(1, 2), "OBJ": some(2, 3), "RTE": some(5, 9), "CLM": rng.randint(0, 1),
               "ABS": rng.randint(0, 1), "BAP": some(1, 3)},
        "MEM": {"CMP": 0, "OBJ": rng.randint(1, 2), "RTE": rng.randint(0, 1), "CLM": 0,
                "ABS": rng.randint(0, 1), "BAP": 0},
        "EPI": {"CMP": 0, "OBJ": rng.randint(1, 2), "RTE": rng.randint(2, 3), "CLM": rng.randint(2, 4),
                "ABS": rng.randint(0, 1), "BAP": rng.randint(0, 1)},
    }
    if not (counts["RT"]["ABS"] or counts["MEM"]["ABS"] or counts["EPI"]["ABS"]):
        counts["EPI"]["ABS"] = 1  # every set declares all six kinds
    records = {
        _MEMBER_OF[a]: [make(a, kind) for kind, _ in KIND_HEADINGS for _ in range(counts[a][kind])]
        for a in ("RT", "MEM", "EPI")
    }
    part_of: dict[str, str] = {}
    rt_cmp = [r for r in records["runtime"] if r.kind == "CMP"]
    for r in records["runtime"]:
        if r.kind == "OBJ" and rng.random() < 0.4:
            part_of[r.id] = rng.choice(rt_cmp).id
    supersessions: list[tuple[Record, Record]] = []
    if rng.random() < 0.35:
        for old in records["memory"] + records["epistemic"]:
            successors = [r for r in records["runtime"] if r.kind == old.kind]
            if successors and len(supersessions) < 2 and rng.random() < 0.5:
                supersessions.append((old, rng.choice(successors)))
    rt_targets = [r for r in records["runtime"] if r.kind in ("OBJ", "RTE")]
    annotations = {
        "memory": rng.sample(rt_targets, min(len(rt_targets), rng.randint(4, 6))),
        "epistemic": rng.sample(rt_targets, min(len(rt_targets), rng.randint(0, 2))),
    }
    files = _files(rng, index, slug, system, scale)
    return SetPlan(index, seed, system, slug, run_id, run_date, generation, scale, records, part_of,
                   supersessions, annotations, files, rng)
