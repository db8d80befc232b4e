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
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from bench._prose import NAME_WORDS, SYSTEM_WORDS, label, sentences
from domain.grammar import KIND_HEADINGS, ROUTE_FIELDS

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

GENERATOR_VERSION = 2
"""Bumped whenever output bytes change for the same arguments."""

SIZES: dict[str, int] = {"S": 100, "M": 1_000, "L": 10_000}
"""Target document (member) count per size."""

SOURCE_IDENTITY = "https://git.example.org/citegraph-bench/sources"
"""Identity of the generated source repository, as registered by every set (SRC-1)."""

CHANGED_FILES = 50
"""Files edited by the ``change`` commit (issue 8: impact of a 50-file change)."""

IMPACT_SET = 0
"""Index of the set whose source the ``change`` commit edits: all its cited files, plus files of
its uncited ``vendor/`` folder (only this set has one) up to :data:`CHANGED_FILES`."""

_G4_SHARE = 0.4
_MEMBER_OF = {"RT": "runtime", "MEM": "memory", "EPI": "epistemic"}
_TYPES = "agentic-system-analyses/types/"
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "citegraph bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "citegraph bench", "GIT_COMMITTER_EMAIL": "bench@example.org",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}


# -- plan ------------------------------------------------------------------------------------


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
        return (("boundary",) + base + ("synthesis",)) if self.generation == 4 else base


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
    generation = 4 if rng.random() < _G4_SHARE else 3
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


# -- rendering -------------------------------------------------------------------------------


class _Writer:
    """Renders the members of one planned set; counts every citation it writes."""

    def __init__(self, plan: SetPlan, commit: str, source_root: str):
        self.p = plan
        self.rng = plan.rng
        self.commit = commit
        self.source_root = source_root
        self.g4 = plan.generation == 4
        self.cited: Counter[str] = Counter()
        self.citations = 0
        self.code_files = [f for f in plan.files if f.kind == "code"]
        self.doc_files = [f for f in plan.files if f.kind in ("doc", "prompt")]
        self.cited_files = self.code_files + self.doc_files

    # citations ------------------------------------------------------------------------------

    def rec(self, r: Record, here: str) -> str:
        """A record citation written from member ``here``: bare (G3) or a link labelled by the ID (G4)."""
        self.cited[r.id] += 1
        self.citations += 1
        if not self.g4:
            return r.id
        target = "" if r.member == here else f"{r.member}.md"
        return f"[{r.id}]({target}#{r.anchor})"

    def recs(self, rs: list[Record], here: str, sep: str = ", ") -> str:
        return sep.join(self.rec(r, here) for r in rs)

    def member_link(self, r: Record) -> str:
        """G3 overview form: ``[runtime](runtime.md#rt-rte-x)``."""
        self.cited[r.id] += 1
        self.citations += 1
        return f"[{r.member}]({r.member}.md#{r.anchor})"

    def paths(self, k: int, files: list[SourceFile] | None = None) -> list[str]:
        pool = files or self.code_files
        return [f.path for f in self.rng.sample(pool, min(k, len(pool)))]

    def src(self, k: int | None = None, files: list[SourceFile] | None = None) -> str:
        """``[SRC-1: `a.py`; `b.py`]`` closing a paragraph (GRAMMAR §5)."""
        chosen = self.paths(k if k is not None else self.rng.randint(1, 4), files)
        self.citations += 1 + len(chosen)
        return "[SRC-1: " + "; ".join(f"`{p}`" for p in chosen) + "]"

    def code(self, files: list[SourceFile] | None = None) -> str:
        path = self.paths(1, files)[0]
        self.citations += 1
        return f"`{path}`"

    def some(self, member: str | None = None, k: int = 2, kinds: tuple[str, ...] | None = None) -> list[Record]:
        pool = self.p.all_records if member is None else self.p.declared(member)
        if kinds:
            pool = [r for r in pool if r.kind in kinds] or pool
        return self.rng.sample(pool, min(k, len(pool)))

    # text pieces ----------------------------------------------------------------------------

    def prose(self, lo: int, hi: int) -> str:
        return sentences(self.rng, max(1, round(self.rng.randint(lo, hi) * self.p.scale)))

    def mention(self, here: str, k: int = 2, member: str | None = None) -> str:
        rs = self.some(member, k)
        forms = (
            "The same behaviour is recorded by {}.",
            "This account rests on {}.",
            "Compare {} for the state this path carries.",
            "The evidence for this step is kept with {}.",
        )
        return self.rng.choice(forms).format(self.recs(rs, here, " and " if len(rs) == 2 else ", "))

    def paragraph(self, here: str, *, refs: int = 1, src: bool = True, lo: int = 3, hi: int = 6) -> str:
        parts = [self.prose(lo, hi)]
        for _ in range(refs):
            parts.append(self.mention(here, self.rng.randint(2, 3)))
        if self.rng.random() < 0.35:
            parts.append(f"The path {self.code()} holds the relevant code.")
        text = " ".join(parts)
        return f"{text} {self.src()}" if src else text

    def quote(self, files: list[SourceFile] | None = None) -> str:
        """A quotation block whose text occurs exactly once in the base commit (GRAMMAR §6)."""
        f = self.rng.choice(files or self.code_files)
        n = 1 if f.kind != "code" else self.rng.choice((1, 1, 2, 3))
        start = self.rng.randrange(0, len(f.lines) - n + 1)
        body = "\n".join(f"> {line}" for line in f.lines[start:start + n])
        self.citations += 1
        return f"{body}\n> --- `{f.path}`"

    def frontmatter(self, **fields: str) -> str:
        return "---\n" + "".join(f"{k}: {v}\n" for k, v in fields.items()) + "---\n"

    def declaration_heading(self, r: Record) -> str:
        if self.g4:
            return f"#### {r.id}\n\nLabel: {r.label}"
        return f"#### {r.id} — {r.label}"

    def annotation_heading(self, r: Record, here: str) -> str:
        self.cited[r.id] += 1
        self.citations += 1
        if self.g4:
            return f"#### On [{r.id}]({r.member}.md#{r.anchor})"
        return f"#### On {r.id} — {r.label}"

    def part_of(self, r: Record, here: str) -> str:
        target = next(x for x in self.p.all_records if x.id == self.p.part_of[r.id])
        return f"Part of: {self.rec(target, here)}"

    def table(self, header: tuple[str, ...], rows: list[list[str]]) -> str:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        out.extend("| " + " | ".join(row) + " |" for row in rows)
        return "\n".join(out)

    def short(self) -> str:
        return sentences(self.rng, 1)

    # records --------------------------------------------------------------------------------

    def declaration(self, r: Record, here: str) -> str:
        out = [self.declaration_heading(r), ""]
        if r.id in self.p.part_of:
            out += [self.part_of(r, here), ""]
        f: list[str] = []
        s = self.short
        if r.kind in ("CMP", "OBJ"):
            f += [f"- Source-native identity: {s()}", f"- Representational form: {s()}",
                  f"- Storage substrate: {s()}"]
            if r.kind == "CMP":
                f += [f"- Parameters change during operation: {s()}", f"- Exact version pinned: no. {s()}",
                      f"- Mutable endpoint may resolve to another model: {s()}"]
            if self.rng.random() < 0.4:
                other = self.some(None, 1, (r.kind,))[0]
                if other.id != r.id:
                    f.append(f"- Possible duplicate comparison: {self.rec(other, here)} is the closest "
                             f"supplied record but denotes a distinct object. {s()}")
        elif r.kind == "RTE":
            f += [f"- Endpoints and progression: {s()}", f"- Owner: {s()}",
                  f"- Context/state/action effects: {s()}",
                  "- implementation conclusion status: " + self.rng.choice(("wired", "wired", "afforded", "observed")),
                  "- operation conclusion status: " + self.rng.choice(("uninspected", "uninspected", "claimed"))]
            for name in ROUTE_FIELDS:
                if name in ("Later read-back", "Invalidation or expiry") and self.rng.random() < 0.25:
                    f.append(f"- {name}: {self.rng.choice(('inapplicable', 'uninspected'))} — {s()}")
                else:
                    f.append(f"- {name}: {s()}")
            if self.rng.random() < 0.5:
                f.append(f"- Trigger, proposed change, admission, rejection and recovery: {self.prose(2, 3)}")
            if self.rng.random() < 0.5:
                f.append(f"- Guidance and persistence: {self.prose(1, 3)} "
                         f"See {self.recs(self.some(None, 2), here, ' and ')}.")
            if self.rng.random() < 0.4:
                f.append(f"- Decision roles: {self.prose(1, 2)}")
        elif r.kind == "CLM":
            f += [f"- Claimed operation: {s()}", f"- Source: {self.src(1, self.doc_files)}",
                  f"- Closest supplied IDs and distinct identity: none; "
                  f"{self.rec(self.some('runtime', 1)[0], here)} is a mechanism, not this design claim."]
        elif r.kind == "ABS":
            f += [f"- Searched boundary and query: {s()}", "- absence conclusion status: absent",
                  f"- Conclusion supported: {s()}", f"- Conclusion prevented: {s()}"]
        elif r.kind == "BAP":
            f += [f"- Consumer: {s()}", f"- Channel: {s()}", f"- Force: {s()}", f"- Horizon: {s()}"]
        f.append(f"- Evidence: {self.src()}")
        out.append("\n".join(f))
        if r.kind == "CLM" or self.rng.random() < (0.35 if r.kind == "RTE" else 0.15):
            out += ["", self.quote(self.doc_files if r.kind == "CLM" else None)]
        return "\n".join(out)

    def shared_records(self, here: str, *, keep_empty: bool = True) -> str:
        out = ["## Shared records"]
        for kind, heading in KIND_HEADINGS:
            declared = self.p.declared(here, kind)
            if not declared and not keep_empty:
                continue
            out += ["", f"### {heading}", ""]
            if declared:
                out.append("\n\n".join(self.declaration(r, here) for r in declared))
            else:
                out.append("none declared in this member")
        return "\n".join(out)

    def annotations(self, here: str) -> str:
        targets = self.p.annotations.get(here, [])
        out = ["## Annotations", ""]
        if not targets:
            out.append("none")
            return "\n".join(out)
        blocks = []
        for r in targets:
            lines = [self.annotation_heading(r, here), ""]
            items = [f"- Storage substrate: {self.prose(1, 2)}", f"- Representational form: {self.short()}",
                     f"- Lineage: {self.prose(2, 4)}",
                     f"- Memory consumers and behavioral authority: {self.prose(2, 3)}",
                     f"- Raw versus derived material: {self.prose(1, 3)} "
                     f"Compare {self.recs(self.some(None, 2), here, ' and ')}.",
                     f"- Write agency, curation, trace learning and source: {self.prose(2, 4)}",
                     f"- Read-back trigger, selector inputs, selected retained parts, budget, persistence, "
                     f"delivery, later consumer, status and limits: {self.prose(3, 5)} {self.src()}"]
            lines.append("\n".join(items))
            for _ in range(self.rng.randint(1, 3)):
                lines += ["", self.quote()]
            blocks.append("\n".join(lines))
        out.append("\n\n".join(blocks))
        return "\n".join(out)

    def section_paragraphs(self, here: str, n: int, *, quotes: float = 0.3) -> list[str]:
        out = []
        for _ in range(max(1, round(n * self.p.scale))):
            out.append(self.paragraph(here, refs=self.rng.randint(1, 2)))
            if self.rng.random() < quotes:
                out.append(self.quote())
        return out

    def coverage_table(self, here: str) -> str:
        rows = []
        for f in self.rng.sample(self.cited_files, min(len(self.cited_files), self.rng.randint(4, 7))):
            rs = self.some(None, self.rng.randint(1, 2), ("RTE", "OBJ"))
            self.citations += 1
            rows.append([label(self.rng, 3), f"`{f.path}`", self.recs(rs, here, ", "), self.short()])
        return self.table(("Entry point or operation", "Source path", "Coverage", "Scope limit"), rows)

    def identity(self) -> dict[str, str]:
        return {"run-id": self.p.run_id, "reviewed-boundary": f'"{self.commit}"'}

    def register_row(self) -> str:
        layer_paths = ", ".join(f"`{p}`" for p in self.paths(4))
        anchors = "; ".join(f"`{p}`" for p in self.paths(6))
        docs = ", ".join(f"`{f.path}`" for f in self.doc_files)
        self.citations += 1 + 4 + 6 + len(self.doc_files)
        cells = ["SRC-1", "git", f"`{SOURCE_IDENTITY}` (access root: `{self.source_root}`)", f"`{self.commit}`",
                 f"implementation: {layer_paths}; doctrine/design: {docs}", self.prose(2, 4), anchors,
                 self.prose(1, 3)]
        header = ("Source ID", "Kind", "Identity/location", "Revision or capture", "Evidence layer",
                  "Inspected scope", "Citation anchors", "Access gaps and conclusion prevented")
        return self.table(header, [cells])

    def amendment_index(self) -> str:
        ids = sorted(old.id for old, _ in self.p.supersessions)
        return f"Amended or superseded records: {', '.join(ids) or 'none'}; [reconciliation](reconciliation.md)."

    def limitations(self, here: str, n: int) -> str:
        rows = []
        for _ in range(max(2, round(n * self.p.scale))):
            rs = self.some(None, self.rng.randint(2, 4))
            cited = "SRC-1; " + "; ".join(self.rec(r, here) for r in rs)
            self.citations += 1
            rows.append([self.short(), cited, self.short(), self.short(), self.short()])
        header = ("limitation", "affected source, record, or route IDs", "inspected boundary",
                  "conclusion prevented", "evidence that would resolve it")
        return self.table(header, rows)

    # members --------------------------------------------------------------------------------

    def runtime(self) -> str:
        here = "runtime"
        p = self.p
        head = self.frontmatter(type=f"{_TYPES}agentic-system-runtime-report.md",
                                description=f'"Runtime baseline of {p.system}: invocation, state carry-forward and limits"',
                                **self.identity())
        out = [head, f"# {p.system} runtime report", "", "## Runtime account", ""]
        for _ in range(self.rng.randint(2, 3)):
            out += [f"### {label(self.rng, 3)}", ""]
            out += ["\n\n".join(self.section_paragraphs(here, self.rng.randint(2, 4), quotes=0.5)), ""]
        out += [self.shared_records(here), "", self.annotations(here)]
        return "\n".join(out) + "\n"

    def memory(self) -> str:
        here = "memory"
        p = self.p
        mtype = "agentic-system-memory-report.md" if self.g4 else "agent-memory-analysis-report.md"
        head = self.frontmatter(type=f"{_TYPES}{mtype}",
                                description=f'"Memory mechanisms of {p.system} across carried text, traces and checkpoints"',
                                **{"run-id": p.run_id, "source-identity": SOURCE_IDENTITY,
                                   "reviewed-boundary": f'"{self.commit}"', "report-status": "complete"})
        out = [head, f"# {p.system} memory report", "", "## Boundary and evidence", "",
               self.paragraph(here, refs=1), "", self.coverage_table(here), "", self.paragraph(here, refs=0), "",
               "## Core ideas", "", "\n\n".join(self.section_paragraphs(here, 3, quotes=0.1)), "",
               self.shared_records(here), "", self.annotations(here), ""]
        for title, n in (("Write side", 2), ("Read-back", 2), ("Integration issues", 1),
                         ("Limitations and checks", 2)):
            out += [f"## {title}", "", "\n\n".join(self.section_paragraphs(here, n, quotes=0.15)), ""]
        return "\n".join(out).rstrip("\n") + "\n"

    def epistemic(self) -> str:
        here = "epistemic"
        p = self.p
        head = self.frontmatter(type=f"{_TYPES}agentic-system-epistemic-report.md",
                                description=f'"Epistemic routes of {p.system} at the frozen repository commit"',
                                **self.identity())
        out = [head, f"# {p.system} epistemic report", "", "## Source-and-claim boundary", "",
               self.paragraph(here, refs=1), "", self.paragraph(here, refs=1), "", self.coverage_table(here), "",
               "## Epistemic-object inventory", ""]
        objs = self.p.declared("runtime", "OBJ") + self.p.declared("epistemic", "OBJ")
        rows = []
        for r in objs:
            rows.append([self.rec(r, here), self.short(), self.short(), f"SRC-1 {self.code()}", self.short()])
            self.citations += 1
        out += [self.table(("Object ID", "Candidate truth-apt content or none", "Claimed role",
                            "Evidence source ID and local anchor", "Gap/limit"), rows), "",
                "## Authority-route ledger", ""]
        routes = self.p.declared("runtime", "RTE") + self.p.declared("epistemic", "RTE")
        functions = ("content transformation", "check/evidence production", "retention",
                     "operational admission/selection/consumption", "lineage/freshness/recovery")
        relations = ("no content change", "truth-apt transformation: indeterminate",
                     "truth-apt transformation: non-ampliative reshaping")
        claims = self.p.declared("epistemic", "CLM")
        rows = []
        for r in self.rng.sample(routes, min(len(routes), max(3, round(5 * p.scale)))):
            obj = self.some(None, 1, ("OBJ",))[0]
            clm = self.rec(self.rng.choice(claims), here) if claims and self.rng.random() < 0.5 else "none"
            self.citations += 2
            rows.append([self.rec(r, here), self.rng.choice(functions), "implemented", self.rec(obj, here),
                         self.rng.choice(relations), self.short(), self.short(), self.short(), self.short(),
                         self.short(), self.short(), self.short(), self.short(),
                         f"SRC-1 {self.code()}; {self.code()}", clm, "none", self.short()])
        header = ("Route ID", "Route function", "Architectural status", "Object/candidate ID",
                  "Content/update relation", "Transition or check target", "Evaluator/condition and domain",
                  "Activation and timing", "Possible or observed result", "Implemented force",
                  "Epistemic authority and scope", "Operational authority: behavior permitted, blocked, or changed",
                  "Behavioral-authority path: consumer, channel, force, horizon",
                  "Evidence source ID and local anchor", "Claim IDs or none", "Mismatch marker or none", "Gap/limit")
        out += [self.table(header, rows), "", "Quotes supporting the material findings:", ""]
        out += ["\n\n".join(self.quote() for _ in range(self.rng.randint(1, 3))), "",
                "## System-claim versus route comparison", ""]
        rows = []
        for c in claims:
            rs = self.some("runtime", 2, ("RTE",))
            self.citations += 2
            rows.append([self.rec(c, here), self.short(), f"SRC-1 {self.code(self.doc_files)}; doctrine/design",
                         self.short(), self.recs(rs, here, "; "), "none supplied", self.short(), self.short(),
                         "unknown"])
        header = ("Claim ID", "Claimed operation or warrant", "Claim source ID/anchor and evidence layer",
                  "Doctrine/design support", "Implemented route IDs", "Observed-run support",
                  "Causal support and design limits", "Supported conclusion", "Mismatch/unknown")
        out += [self.table(header, rows), "", "## Bounded conclusion", "", self.paragraph(here, refs=2), "",
                self.shared_records(here, keep_empty=False)]
        if self.p.annotations.get("epistemic"):
            out += ["", self.annotations(here)]
        return "\n".join(out) + "\n"

    def reconciliation(self) -> str:
        here = "reconciliation"
        p = self.p
        head = self.frontmatter(type=f"{_TYPES}agentic-system-reconciliation-report.md",
                                description=f"Reconciliation of {p.slug} records at {self.commit}",
                                **{"run-id": p.run_id, "reviewed-boundary": self.commit})
        out = [head, f"# {p.slug} reconciliation", "", "## Reconciliation", ""]
        paras = [self.paragraph(here, refs=2, src=False, lo=2, hi=4) for _ in range(self.rng.randint(2, 4))]
        for old, new in p.supersessions:
            paras.append(f"Amendment: {self.rec(old, here)} is superseded by {self.rec(new, here)}. "
                         f"{self.prose(1, 2)} Affected findings: {self.recs(self.some('epistemic', 1), here)}.")
        out.append("\n\n".join(paras))
        return "\n".join(out) + "\n"

    def _profile_refs(self, rs: list[Record]) -> str:
        self.citations += len(rs)
        for r in rs:
            self.cited[r.id] += 1
        items = [f"{r.member}.md#{r.anchor}" if self.g4 else r.id for r in rs]
        return "[" + ", ".join(items) + "]"

    def memory_comparison(self) -> list[str]:
        axes = {
            "storage_substrate": ("files", "in-memory", "repo", "database"),
            "representational_form": ("natural-language", "parametric", "structured"),
            "lineage": ("authored", "imported", "trace-extracted"),
            "behavioral_authority": ("knowledge", "learning", "ranking", "routing"),
            "write_agency": ("automatic", "manual"),
            "curation_operations": ("consolidate", "dedup", "evolve", "synthesize"),
            "read_back_direction": ("pull", "push"),
            "read_back_signal": ("coarse", "inferred-embedding"),
            "trace_learning": ('"yes"', '"no"'),
            "trace_source": ("session-logs", "tool-traces"),
        }
        bases = ("wired", "wired", "afforded", "claimed")
        pool = [r for r in self.p.all_records if r.kind in ("OBJ", "RTE", "CMP")]
        lines = ["memory-comparison:"]
        if self.g4:
            lines.append("  version: 2")
        lines.append(f'  scope: "{self.short()}"')
        lines.append("  axes:")
        for axis, vocab in axes.items():
            values = sorted(self.rng.sample(vocab, self.rng.randint(1, min(2, len(vocab)))))
            lines.append(f"    {axis}:")
            lines.append("      assessment: known")
            if self.g4:
                lines.append("      units:")
                lines.append(f'        - scope: "{self.short()}"')
                lines.append("          assessment: known")
                lines.append("          findings:")
                for v in values:
                    lines.append(f"            - value: {v}")
                    lines.append(f"              basis: {self.rng.choice(bases)}")
                    lines.append(f"              records: {self._profile_refs(self.rng.sample(pool, 2))}")
                    lines.append(f'              note: "{self.short()}"')
                lines.append(f"          records: {self._profile_refs(self.rng.sample(pool, 3))}")
                lines.append(f'          note: "{self.short()}"')
            else:
                lines.append(f"      values: [{', '.join(values)}]")
                lines.append("      evidence:")
                for v in values:
                    lines.append(f"        {v}:")
                    lines.append(f"          basis: {self.rng.choice(bases)}")
                    lines.append(f"          records: {self._profile_refs(self.rng.sample(pool, 2))}")
                    lines.append(f'          note: "{self.short()}"')
            lines.append(f"      records: {self._profile_refs(self.rng.sample(pool, min(len(pool), 4)))}")
            lines.append(f'      note: "{self.short()}"')
        return lines

    def memory_profile(self) -> str:
        here = "memory-profile"
        p = self.p
        ptype = "agentic-system-memory-profile.md" if self.g4 else "agent-memory-profile.md"
        lines = ["---", f"type: {_TYPES}{ptype}",
                 f'description: "Memory profile of {p.system}: carried text, traces and checkpoints"',
                 f"run-id: {p.run_id}", f"source-identity: {SOURCE_IDENTITY}", f'reviewed-boundary: "{self.commit}"']
        lines += self.memory_comparison()
        lines.append("---")
        out = ["\n".join(lines) + "\n", f"# {p.system} memory profile", "", "## Comparison rationale", ""]
        paras = [self.paragraph(here, refs=2, src=False, lo=4, hi=7) for _ in range(self.rng.randint(3, 4))]
        out.append("\n\n".join(paras))
        return "\n".join(out) + "\n"

    def bounded_synthesis(self, here: str, n: int) -> list[str]:
        paras = []
        for _ in range(max(2, round(n * self.p.scale))):
            rs = self.some("runtime", self.rng.randint(1, 4))
            others = self.some("memory", 1) + self.some("epistemic", self.rng.randint(0, 2))
            if self.g4:
                cites = "(" + "; ".join([self.recs(rs, here), self.recs(others, here)]) + ")"
            else:
                cites = "(" + ", ".join(self.member_link(r) for r in rs) + "; " + \
                        "; ".join(self.member_link(r) for r in others) + ")"
            paras.append(f"{self.prose(3, 6)} {cites}")
        return paras

    def verification(self, here: str) -> list[str]:
        out = []
        for title in ("Record verification", "Profile verification", "Synthesis verification"):
            out += [f"### {title}", ""]
            paras = []
            for _ in range(max(1, round(self.rng.randint(2, 3) * self.p.scale))):
                rs = self.some(None, self.rng.randint(3, 6))
                paras.append(f"{self.prose(3, 5)} Checked {self.recs(rs, here)}. {self.prose(1, 2)}")
            out += ["\n\n".join(paras), ""]
        out += ["### Deterministic validation", "",
                f"`commonplace-validate {self.p.slug} --full` runs after the manifest is written, over every "
                "member, the manifest and the set's cross-member checks.", "", "### Blockers", "", "none"]
        return out

    def overview(self) -> str:
        here = "overview"
        p = self.p
        head = ["---", f"type: {_TYPES}agentic-system-analysis-overview.md",
                f"description: {p.system} carries model-proposed text into later prompts; code wires these paths "
                "but does not establish their benefit.",
                f"run-id: {p.run_id}", f"system: {p.slug}", f"run-date: '{p.run_date}'",
                "result-disposition: complete", "target-class: memory/knowledge/context-engineering system",
                "boundary-kind: whole-system", f"reviewed-boundary: {self.commit}",
                f"analysis-cutoff: '{p.run_date}'", "evidence-tier: code-grounded",
                f"inputs-commit: {hashlib.sha1(f'inputs:{p.seed}'.encode()).hexdigest()}", "---", ""]
        out = ["\n".join(head), f"# {p.slug} agentic-system analysis", ""]
        if self.g4:
            out += ["## Boundary and evidence", "",
                    f"The frozen boundary, source register and coverage are in [boundary](boundary.md); the bounded "
                    f"synthesis and its limitations are in [synthesis](synthesis.md). {self.prose(2, 3)} "
                    f"{self.mention(here, 2)}", "", "## Members", ""]
            out += [f"- [{m}]({m}.md)" for m in p.members if m != "overview"]
            out += ["", self.amendment_index(), "", "## Verification and blockers", ""]
            out += self.verification(here)
            return "\n".join(out) + "\n"
        out += ["## Boundary and evidence", ""]
        out += ["\n\n".join(self.section_paragraphs(here, 2, quotes=0.0)), ""]
        rows = [[f"`{f.path}`", self.rng.choice(("Included", "Included", "Excluded")), self.prose(1, 2)]
                for f in self.cited_files]
        self.citations += len(rows)
        out += [self.table(("Top-level tracked path", "Boundary", "Role and coverage"), rows), "",
                self.prose(2, 3), "", "\n\n".join(self.quote() for _ in range(self.rng.randint(2, 3))), "",
                "## Source register", "", self.register_row(), "", self.amendment_index(), "",
                "## Bounded synthesis", "", "\n\n".join(self.bounded_synthesis(here, 4)), "",
                "## Limitations", "", self.limitations(here, 6), "",
                "## Verification and blockers", ""]
        out += self.verification(here)
        return "\n".join(out) + "\n"

    def boundary(self) -> str:
        p = self.p
        head = ["---", f"type: {_TYPES}agentic-system-boundary.md",
                f'description: "{p.system} at {self.commit}"', f"run-id: {p.run_id}",
                "result-disposition: complete", 'target-class: "memory/knowledge/context-engineering system"',
                "boundary-kind: whole-system", f'reviewed-boundary: "{self.commit}"',
                f'analysis-cutoff: "{p.run_date}"', "evidence-tier: code-grounded", "source:", "  kind: git",
                f"  identity: {SOURCE_IDENTITY}", f'  revision: "{self.commit}"', f"  path: {self.source_root}",
                "  sha256: null", "---", ""]
        rows = [[f"`{f.path}`", self.rng.choice(("Included", "Included", "Excluded")), self.prose(1, 2)]
                for f in self.cited_files]
        self.citations += len(rows)
        out = ["\n".join(head), f"# {p.system} boundary", "", "## Boundary and evidence", "",
               "\n\n".join(self.prose(4, 7) + " " + self.src() for _ in range(self.rng.randint(2, 3))), "",
               self.table(("Top-level tracked path", "Boundary", "Role and coverage"), rows), "",
               self.prose(2, 3), "", "\n\n".join(self.quote() for _ in range(self.rng.randint(2, 3))), "",
               "## Source register", "", self.register_row()]
        return "\n".join(out) + "\n"

    def synthesis(self) -> str:
        here = "synthesis"
        p = self.p
        head = self.frontmatter(type=f"{_TYPES}agentic-system-synthesis.md",
                                description=f'"{p.system} carries model-proposed text and prior answers into later '
                                            'prompts; code wires these paths but does not establish their benefit."',
                                **self.identity())
        out = [head, f"# {p.system} synthesis", "", "## Bounded synthesis", ""]
        for _ in range(self.rng.randint(1, 2)):
            out += [f"### {label(self.rng, 4)}", "", "\n\n".join(self.bounded_synthesis(here, 3)), ""]
        out += ["## Limitations", "", self.limitations(here, 5)]
        return "\n".join(out) + "\n"

    def members(self) -> dict[str, str]:
        """Member file name → text, in manifest order."""
        render = {"overview": self.overview, "runtime": self.runtime, "memory": self.memory,
                  "epistemic": self.epistemic, "reconciliation": self.reconciliation,
                  "memory-profile": self.memory_profile, "boundary": self.boundary, "synthesis": self.synthesis}
        # Render the members that others summarise first, so overview verification sees every record.
        order = [m for m in self.p.members if m != "overview"] + ["overview"]
        texts = {m: render[m]() for m in order}
        return {f"{m}.md": texts[m] for m in self.p.members}


def artifact_yaml(members: dict[str, bytes]) -> str:
    """The manifest: type plus a SHA-256 pin per member, in member order (GRAMMAR §2.1)."""
    lines = [f"type: {_TYPES}agentic-system-analysis-set.md", "members:"]
    for name, data in members.items():
        lines += [f"  {name}:", f"    sha256: {hashlib.sha256(data).hexdigest()}"]
    return "\n".join(lines) + "\n"


def render_set(plan: SetPlan, commit: str, source_root: str) -> tuple[dict[str, bytes], Counter[str], int]:
    """The files of one set (name → bytes, ARTIFACT.yaml included), per-record citation counts,
    and the number of citations written (records, sources, paths, quotation attributions)."""
    w = _Writer(plan, commit, source_root)
    members = {name: text.encode("utf-8") for name, text in w.members().items()}
    files = dict(members)
    files["ARTIFACT.yaml"] = artifact_yaml(members).encode("utf-8")
    for r in plan.all_records:
        w.cited.setdefault(r.id, 0)
    return files, w.cited, w.citations


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
    return max(1, round(target / (6 + 2 * _G4_SHARE)))


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
