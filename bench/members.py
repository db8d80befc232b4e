"""The members and manifest of one generated set: overview, runtime, memory, epistemic,
reconciliation and memory-profile (G3), plus boundary and synthesis (G4), and ``ARTIFACT.yaml``
pinning them (:func:`render_set`)."""

from __future__ import annotations

import hashlib
from collections import Counter

from bench._prose import label
from bench.blocks import TYPES_FOLDER, Blocks
from bench.plan import SOURCE_IDENTITY, Record, SetPlan

__all__ = ["artifact_yaml", "render_set"]


class _Writer(Blocks):
    """Renders the members of one planned set (the pieces come from :class:`~bench.blocks.Blocks`)."""

    def runtime(self) -> str:
        here = "runtime"
        p = self.p
        head = self.frontmatter(type=f"{TYPES_FOLDER}agentic-system-runtime-report.md",
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
        head = self.frontmatter(type=f"{TYPES_FOLDER}{mtype}",
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
        head = self.frontmatter(type=f"{TYPES_FOLDER}agentic-system-epistemic-report.md",
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
        head = self.frontmatter(type=f"{TYPES_FOLDER}agentic-system-reconciliation-report.md",
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
        lines = ["---", f"type: {TYPES_FOLDER}{ptype}",
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
        head = ["---", f"type: {TYPES_FOLDER}agentic-system-analysis-overview.md",
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
        head = ["---", f"type: {TYPES_FOLDER}agentic-system-boundary.md",
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
        head = self.frontmatter(type=f"{TYPES_FOLDER}agentic-system-synthesis.md",
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
    lines = [f"type: {TYPES_FOLDER}agentic-system-analysis-set.md", "members:"]
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

