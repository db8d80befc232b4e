"""The pieces every member of a generated set is written from: citations, prose, tables,
declarations and annotations, the source register and Limitations tables (``Blocks``)."""

from __future__ import annotations

from collections import Counter

from bench._prose import label, sentences
from bench.plan import SOURCE_IDENTITY, Record, SetPlan, SourceFile
from domain.vocabulary import KIND_HEADINGS, ROUTE_FIELDS

TYPES_FOLDER = "agentic-system-analyses/types/"
"""The folder a generated member's ``type:`` names its type definition in."""


class Blocks:
    """Writes the pieces of one planned set's members; counts every citation it writes."""

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

