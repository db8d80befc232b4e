"""Markdown analysis sets for tests: the real Dynamic Cheatsheet set, the real G2 Instinctual Memory
set (IM-01), its G2.5 rewrite (IM-02), a generated review and three G1 results, the hand-written G2
and G4 fixture sets, and helpers that copy a set and change one member (re-pinning its manifest)."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from graph.stores.sqlite import SQLiteStore
from tests.whole_input import read_members, read_sets
from ingest.loader import ingest_parsed
from tests.conftest import CORPUS, SEEDS

KB = CORPUS / "commonplace" / "kb" / "agentic-system-analyses"
DC_RETAINED = KB / "retained" / "dynamic-cheatsheet"
DC_ARCHIVE = KB / "retained-archive" / "AAS-2026-10-04-dynamic-cheatsheet-01"
DYNAMIC_CHEATSHEET = [DC_RETAINED, DC_ARCHIVE]
DC = "AAS-2026-10-04-dynamic-cheatsheet-01"
DC_FILES = [DC_RETAINED / "overview.md", DC_RETAINED / "reconciliation.md", DC_RETAINED / "memory-profile.md",
            DC_ARCHIVE / "runtime.md", DC_ARCHIVE / "memory.md", DC_ARCHIVE / "epistemic.md"]

COMMONPLACE = CORPUS / "commonplace" / "kb"
IM01 = COMMONPLACE / "agentic-systems" / "reports" / "retained" / "AAS-2026-10-01-instinctual-memory-01"
IM01_SET = "AAS-2026-10-01-instinctual-memory-01"
IM02 = (COMMONPLACE / "work" / "analyse-agentic-system-amendments" / "rewrite-check"
        / "AAS-2026-09-30-instinctual-memory-02")
IM02_SET = "AAS-2026-09-30-instinctual-memory-02"
REVIEW = COMMONPLACE / "agentic-systems" / "reviews" / "instinctual-memory-luna-repair.md"
G1_RESULTS = COMMONPLACE / "reports" / "retained" / "agentic-system-analysis"
G1_FILES = sorted(G1_RESULTS.glob("*/result.md"))

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "grammar"
G2 = FIXTURES / "g2"
G2_SET = "AAS-2026-09-30-fixture-two-01"
G4 = FIXTURES / "g4"
G4_SET = "AAS-2026-10-10-fixture-four-01"


def load(*paths: Path) -> SQLiteStore:
    """A fresh in-memory store holding the sets under ``paths``, ingested the strict way."""
    store = SQLiteStore(None)
    ingest_parsed(store, read_members(list(paths)).parsed)
    return store


def stage(*paths: Path) -> tuple[SQLiteStore, tuple]:
    """What ``citegraph check PATH…`` does: assemble without refusing, load everything that parsed
    into a throwaway store; returns (store, problems)."""
    assembly = read_sets(list(paths))
    store = SQLiteStore(None)
    ingest_parsed(store, list(assembly.documents))
    return store, assembly.problems


def copy_set(source: Path, target: Path) -> Path:
    """Copy a set folder to ``target`` and return it."""
    shutil.copytree(source, target)
    return target


def repin(folder: Path, name: str, manifest_folder: Path | None = None) -> None:
    """Rewrite the manifest pin of member ``name`` in ``folder`` to the file's current SHA-256 (the
    manifest is in ``manifest_folder``, by default the same folder)."""
    manifest = (manifest_folder or folder) / "ARTIFACT.yaml"
    digest = hashlib.sha256((folder / name).read_bytes()).hexdigest()
    text, n = re.subn(rf"(\n  {re.escape(name)}:\n    sha256: )[0-9a-f]{{64}}", rf"\g<1>{digest}", manifest.read_text())
    assert n == 1, f"{name} is not pinned in {manifest}"
    manifest.write_text(text)


def edit(folder: Path, name: str, old: str, new: str, *, pin: bool = True, count: int = 1,
         manifest_folder: Path | None = None) -> None:
    """Replace ``old`` (which must occur ``count`` times) by ``new`` in member ``name``, then re-pin
    it unless ``pin`` is false (so only the intended rule can fire)."""
    path = folder / name
    text = path.read_text()
    assert text.count(old) == count, (name, old, text.count(old))
    path.write_text(text.replace(old, new))
    if pin:
        repin(folder, name, manifest_folder)


def mixed_inputs(tmp: Path) -> list[Path]:
    """Folders under ``tmp`` holding good sets and every kind of per-file problem: a Dynamic
    Cheatsheet set with an unparsable frontmatter value and a wrong member type, the seeds, the G2
    and G4 fixtures, and a folder of an empty, a binary, a Latin-1 and an unreadable-manifest file."""
    retained, archive = copy_set(DC_RETAINED, tmp / "retained"), copy_set(DC_ARCHIVE, tmp / "archive")
    edit(archive, "epistemic.md", 'description: "Epistemic routes', 'description: Epistemic: routes', pin=False)
    edit(archive, "runtime.md", "agentic-system-runtime-report.md", "agentic-system-runtime-notes.md", pin=False)
    broken = tmp / "broken"
    broken.mkdir()
    (broken / "empty.md").write_bytes(b"")
    (broken / "binary.txt").write_bytes(b"Title\n\x00\x01")
    (broken / "latin1.md").write_bytes("---\ntype: caf\xe9\n---\n".encode("latin-1"))
    (broken / "ARTIFACT.yaml").write_text("type: [unclosed\n")
    return [retained, archive, SEEDS, G2, G4, broken]
