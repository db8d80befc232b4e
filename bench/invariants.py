"""Structural invariants of a generated corpus, checked without any citegraph parser.

``python -m bench.invariants DIR`` (``DIR`` as written by :mod:`bench.generate`) prints every
violation and exits 1 if there is one. The checks restate the set rules of ``GRAMMAR.md`` on the
generator's canonical output, using markdown-it-py (CommonMark + tables) and PyYAML as independent
readers; only the vocabularies (record-ID form, status terms, route fields) come from
:mod:`domain.grammar`, so a rule is written once:

- manifest (§2.1, §2.2 rule 1): ``ARTIFACT.yaml`` pins every ``*.md`` of the folder with its SHA-256;
- frontmatter (§3): valid YAML, ``type`` names a member type, run identity equal across members;
- Markdown: one H1; markdown-it finds exactly the headings, tables and block quotes the line scan
  finds, so no construct is swallowed by another; every table row has the header's cell count;
- records (§1.1, §4): declarations only under ``## Shared records``, of the member's prefix, unique
  in the set, none extending another; every route has valid status fields and the seven route
  fields exactly once; ``Part of:`` names one other declared record;
- citations (§2.2 rule 3): every record ID outside quotations resolves to a declaration of the set;
  G4 links carry the ID as label and point at the declaring member's anchor; annotations target a
  record declared by another member; profile references resolve (§2.2 rule 10);
- amendments (§4.8, §2.2 rule 6): the overview's index line equals the reconciliation's supersessions;
- quotations (§6): the attributed file exists at the base commit and the passage occurs there exactly
  once under whitespace normalisation;
- G4 source register (§7): kind, identity and revision cells equal the boundary's ``source``.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from domain.grammar import RECORD_ID_STRICT
from domain.vocabulary import ROUTE_FIELDS, STATUS_VALUES

__all__ = ["check_corpus", "check_set", "main"]

_ID = RECORD_ID_STRICT.pattern
_ID_TOKEN = re.compile(r"(?<![\w-])(?:RT|MEM|EPI)-[A-Z]+-[\w-]*(?![\w-])")
_DECL_G3 = re.compile(rf"^#### ({_ID}) — \S.*$")
_DECL_G4 = re.compile(rf"^#### ({_ID})$")
_ANNOT_G3 = re.compile(rf"^#### On ({_ID}) — \S.*$")
_ANNOT_G4 = re.compile(rf"^#### On \[({_ID})\]\(([a-z-]+)\.md#([a-z0-9-]+)\)$")
_LINK = re.compile(r"\[([^\[\]]+)\]\(([^()\s]*)\)")
_STATUS = re.compile(r"(?im)^(?:- )?((?:[\w-]+ )*conclusion status):[ \t]*([^\n]*)$")
_PREFIX = {"runtime": "RT", "memory": "MEM", "epistemic": "EPI"}
_TYPES = {
    "agentic-system-analysis-overview": "overview", "agentic-system-runtime-report": "runtime",
    "agent-memory-analysis-report": "memory", "agentic-system-memory-report": "memory",
    "agentic-system-epistemic-report": "epistemic", "agentic-system-reconciliation-report": "reconciliation",
    "agent-memory-profile": "memory-profile", "agentic-system-memory-profile": "memory-profile",
    "agentic-system-boundary": "boundary", "agentic-system-synthesis": "synthesis",
}
_MD = MarkdownIt("commonmark").enable("table")


def _split_frontmatter(text: str) -> tuple[dict, str, int]:
    if not text.startswith("---\n"):
        raise ValueError("no frontmatter")
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]) or {}, text[end + 5:], text[: end + 5].count("\n")


def _prose_lines(body: str) -> list[tuple[int, str]]:
    """Lines outside quotations and fences, with 0-based line numbers."""
    out, fence = [], None
    for n, line in enumerate(body.split("\n")):
        m = re.match(r"^\s*(`{3,}|~{3,})", line)
        if m:
            fence = None if fence else m[1]
            continue
        if fence or line.lstrip().startswith(">"):
            continue
        out.append((n, line))
    return out


@lru_cache(maxsize=4096)
def _base_file(source: str, commit: str, path: str) -> str | None:
    done = subprocess.run(["git", "-C", source, "show", f"{commit}:{path}"], capture_output=True)
    return done.stdout.decode("utf-8") if done.returncode == 0 else None


def _norm(text: str) -> str:
    return " ".join(text.split())


def check_set(folder: Path, *, source: Path, base: str) -> list[str]:
    """Violations in one set folder (empty when it is valid)."""
    errs: list[str] = []
    name = folder.name

    def err(msg: str) -> None:
        errs.append(f"{name}: {msg}")

    try:
        manifest = yaml.safe_load((folder / "ARTIFACT.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        return [f"{name}: ARTIFACT.yaml unreadable: {exc}"]
    pins = {k: v["sha256"] for k, v in (manifest.get("members") or {}).items()}
    present = sorted(p.name for p in folder.iterdir())
    if set(present) - set(pins) - {"ARTIFACT.yaml"}:
        err(f"unpinned files {sorted(set(present) - set(pins) - {'ARTIFACT.yaml'})}")
    if manifest.get("type") != "agentic-system-analyses/types/agentic-system-analysis-set.md":
        err("manifest type")
    members: dict[str, tuple[dict, str, int]] = {}
    for fname, digest in pins.items():
        data = (folder / fname).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            err(f"{fname}: pin mismatch")
        text = data.decode("utf-8")
        try:
            fm, body, offset = _split_frontmatter(text)
        except (ValueError, yaml.YAMLError) as exc:
            err(f"{fname}: frontmatter: {exc}")
            continue
        tname = str(fm.get("type", "")).removeprefix("agentic-system-analyses/types/").removesuffix(".md")
        role = _TYPES.get(tname)
        if role is None or f"{role}.md" != fname:
            err(f"{fname}: type {fm.get('type')!r} does not name this role")
            continue
        members[role] = (fm, body, offset)
    if not members:
        return errs
    g4 = "boundary" in members
    run_ids = {fm.get("run-id") for fm, _, _ in members.values()}
    bounds = {str(fm.get("reviewed-boundary")) for fm, _, _ in members.values()}
    if len(run_ids) != 1 or len(bounds) != 1:
        err(f"identity differs across members: {run_ids} {bounds}")
    if bounds != {base}:
        err(f"reviewed-boundary {bounds} is not the base commit {base}")

    declared: dict[str, str] = {}
    kinds: set[str] = set()
    for role, (_fm, body, _) in members.items():
        lines = body.split("\n")
        # Markdown well-formedness: markdown-it agrees with the line scan.
        tokens = _MD.parse(body)
        h_md = [t.markup for t in tokens if t.type == "heading_open"]
        h_scan = [ln.split(" ", 1)[0] for _, ln in _prose_lines(body) if re.match(r"^#{1,6} ", ln)]
        if h_md != h_scan:
            err(f"{role}: markdown-it headings {len(h_md)} != scanned {len(h_scan)}")
        if h_scan.count("#") != 1:
            err(f"{role}: {h_scan.count('#')} H1 headings")
        tables_md = sum(1 for t in tokens if t.type == "table_open")
        tables_scan = sum(1 for i, ln in enumerate(lines) if ln.startswith("|") and (i == 0 or not lines[i - 1].startswith("|")))
        if tables_md != tables_scan:
            err(f"{role}: markdown-it tables {tables_md} != scanned {tables_scan}")
        quotes_md = sum(1 for t in tokens if t.type == "blockquote_open" and t.level == 0)
        attributions = [i for i, ln in enumerate(lines) if re.match(r"^>\s*---\s+`[^`]+`\s*$", ln)]
        if quotes_md != len(attributions):
            err(f"{role}: markdown-it block quotes {quotes_md} != attributions {len(attributions)}")
        if role == "memory-profile" and attributions:
            err("memory-profile quotes")
        for i, ln in enumerate(lines):
            if ln.startswith("|") and (i == 0 or not lines[i - 1].startswith("|")):
                width = ln.count(" | ") + 1
                j = i
                while j < len(lines) and lines[j].startswith("|"):
                    cells = re.split(r"(?<!\\)\|", lines[j].strip()[1:-1])
                    if len(cells) != width:
                        err(f"{role}: table row at line {j + 1} has {len(cells)} cells, header {width}")
                    j += 1
        # Quotations resolve exactly once in the base commit.
        for i in attributions:
            path = re.match(r"^>\s*---\s+`([^`]+)`", lines[i])[1]
            j = i
            while j > 0 and lines[j - 1].startswith(">"):
                j -= 1
            passage = _norm(" ".join(ln[2:] if ln.startswith("> ") else ln[1:] for ln in lines[j:i]))
            text = _base_file(str(source), base, path)
            if text is None:
                err(f"{role}: quotation of {path}, absent at base")
            elif _norm(text).count(passage) != 1:
                err(f"{role}: quotation from {path} occurs {_norm(text).count(passage)} times: {passage[:60]!r}")
        # Declarations.
        section = None
        prefix = _PREFIX.get(role)
        for n, ln in _prose_lines(body):
            if ln.startswith("## "):
                section = ln[3:]
            m = (_DECL_G4 if g4 else _DECL_G3).match(ln)
            if not m:
                continue
            rid = m[1]
            if section != "Shared records":
                err(f"{role}: declaration {rid} outside Shared records")
            if prefix is None or not rid.startswith(prefix + "-"):
                err(f"{role}: declares {rid}")
            if rid in declared:
                err(f"{rid} declared by {declared[rid]} and {role}")
            declared[rid] = role
            kinds.add(rid.split("-")[1])
            if g4:
                following = next((x for x in lines[n + 1:] if x.strip()), "")
                if not following.startswith("Label: "):
                    err(f"{role}: {rid} has no Label: line")
    missing = {"CMP", "OBJ", "RTE", "CLM", "ABS", "BAP"} - kinds
    if missing:
        err(f"no declaration of kinds {sorted(missing)}")
    ids = sorted(declared)
    for a in ids:
        for b in ids:
            if b.startswith(a + "-"):
                err(f"{b} extends {a}")

    for role, (_fm, body, _) in members.items():
        prose = _prose_lines(body)
        text = "\n".join(ln for _, ln in prose)
        for token in set(_ID_TOKEN.findall(text)):
            if token not in declared:
                err(f"{role}: unresolved or malformed record token {token}")
        if g4:
            for label, target in _LINK.findall(text):
                if not re.fullmatch(_ID, label):
                    continue
                member, _, anchor = target.partition("#")
                member = member.removesuffix(".md") or role
                if declared.get(label) != member or anchor != label.lower():
                    err(f"{role}: link [{label}]({target}) does not point at its declaration")
        for _n, ln in prose:
            m = (_ANNOT_G4 if g4 else _ANNOT_G3).match(ln)
            if ln.startswith("#### On ") and not m:
                err(f"{role}: malformed annotation heading {ln!r}")
            if m and declared.get(m[1]) in (None, role):
                err(f"{role}: annotation on {m[1]} declared by {declared.get(m[1])}")
        # Records' own fields.
        blocks = re.split(r"(?m)^(?=#{1,4} )", body)
        for block in blocks:
            head = block.split("\n", 1)[0]
            m = (_DECL_G4 if g4 else _DECL_G3).match(head)
            if not m:
                continue
            rid = m[1]
            part = [ln for ln in block.split("\n") if re.match(r"^[ \t]*(?:- )?Part of:", ln)]
            if len(part) > 1 or (part and not part[0].startswith("Part of: ")):
                err(f"{rid}: malformed Part of")
            if part:
                named = _ID_TOKEN.findall(part[0])
                if len(set(named)) != 1 or named[0] == rid or named[0] not in declared:
                    err(f"{rid}: Part of names {named}")
            fields = _STATUS.findall("\n".join(ln for ln in block.split("\n") if not ln.startswith(">")))
            for label, value in fields:
                if value.strip().strip("`") not in STATUS_VALUES:
                    err(f"{rid}: {label}: {value!r}")
            if "-RTE-" not in rid:
                continue
            if not fields:
                err(f"{rid}: no conclusion status")
            for fname in ROUTE_FIELDS:
                values = re.findall(rf"(?m)^- {re.escape(fname)}:[ \t]*([^\n]*)$", block)
                if len(values) != 1 or not values[0].strip():
                    err(f"{rid}: route field {fname} x{len(values)}")
                elif re.match(r"(?i)^(inapplicable|uninspected)\b", values[0]) and not re.fullmatch(
                        r"(inapplicable|uninspected) — \S.*", values[0].strip()):
                    err(f"{rid}: {fname} uncertainty form")

    # Amendments and the overview index.
    rec = members.get("reconciliation")
    if rec:
        paras = re.split(r"\n[ \t]*\n", rec[1])
        old = sorted({_ID_TOKEN.search(p)[0] for p in paras if p.startswith("Amendment:")})
        expected = f"Amended or superseded records: {', '.join(old) or 'none'}; [reconciliation](reconciliation.md)."
        ov = members.get("overview")
        if ov and expected not in ov[1].split("\n"):
            err(f"overview amendment index is not {expected!r}")
    # Profile references.
    prof = members.get("memory-profile")
    if prof:
        refs: list[str] = []

        def walk(node: object) -> None:
            if isinstance(node, dict):
                for k, v in node.items():
                    if k == "records":
                        refs.extend(v)
                    else:
                        walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        walk(prof[0].get("memory-comparison"))
        for ref in refs:
            if g4:
                member, _, anchor = ref.partition("#")
                rid = next((r for r in declared if r.lower() == anchor), None)
                if rid is None or f"{declared[rid]}.md" != member:
                    err(f"memory-profile: reference {ref} does not resolve")
            elif declared.get(ref) not in ("runtime", "memory", "epistemic"):
                err(f"memory-profile: reference {ref} does not resolve")
    # G4 register against the boundary's source.
    if g4:
        fm, body, _ = members["boundary"]
        src = fm.get("source") or {}
        row = next((ln for ln in body.split("\n") if re.match(r"^\|\s*SRC-1\s*\|", ln)), None)
        if row is None:
            err("boundary: no SRC-1 register row")
        else:
            cells = [c.strip().replace("`", "") for c in row.strip()[1:-1].split("|")]
            if cells[1] != src.get("kind") or not cells[2].startswith(str(src.get("identity"))) \
                    or cells[3] != str(src.get("revision")):
                err("boundary: register row disagrees with frontmatter source")
    return errs


def check_corpus(root: Path) -> list[str]:
    """Violations in every set of a generated corpus at ``root`` (empty when all hold)."""
    root = Path(root)
    manifest = json.loads((root / "bench-manifest.json").read_text(encoding="utf-8"))
    base = manifest["source"]["base"]
    source = root / manifest["source"]["path"]
    errs: list[str] = []
    for entry in manifest["sets"]:
        errs.extend(check_set(root / entry["dir"], source=source, base=base))
    return errs


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.invariants DIR``: print violations, exit 1 if any."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m bench.invariants DIR", file=sys.stderr)
        return 2
    errs = check_corpus(Path(args[0]))
    for e in errs:
        print(e)
    print(f"{len(errs)} violations", file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    raise SystemExit(main())
