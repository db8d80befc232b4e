"""Inputs of the history tests: the hand-made ledger set in two versions, the two
Instinctual Memory runs, and a second ledger run made from the first by renaming."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tests.conftest import CORPUS, ingest_into

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "history"
LEDGER_V1 = FIXTURES / "v1"
"""The ledger set, version 1: runtime (3 records), reconciliation, synthesis with a Limitations row."""
LEDGER_V2 = FIXTURES / "v2"
"""Version 2: one amendment added to the reconciliation, one status changed (RT-RTE-ledger-commit's
operation conclusion status uninspected → observed) and one synthesis paragraph edited (it cites
RT-RTE-ledger-commit instead of RT-RTE-ledger-append)."""
LEDGER = "AAS-2026-11-02-ledger-01"

KB = CORPUS / "commonplace" / "kb"
IM01_DIR = KB / "agentic-systems" / "reports" / "retained" / "AAS-2026-10-01-instinctual-memory-01"
IM02_DIR = KB / "work" / "analyse-agentic-system-amendments" / "rewrite-check" / "AAS-2026-09-30-instinctual-memory-02"
IM01 = "AAS-2026-10-01-instinctual-memory-01"
IM02 = "AAS-2026-09-30-instinctual-memory-02"


def sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ledger_versions(store) -> None:
    """Ingest ledger version 1, the same again (no new version), then version 2."""
    ingest_into(store, LEDGER_V1)
    ingest_into(store, LEDGER_V1)
    ingest_into(store, LEDGER_V2)


def instinctual_memory(store) -> None:
    """Ingest both Instinctual Memory runs."""
    ingest_into(store, IM01_DIR)
    ingest_into(store, IM02_DIR)


LEDGER_RUN_2 = "AAS-2026-11-03-ledger-02"

NUMBERED = {"RT-OBJ-ledger-file": "RT-OBJ-1", "RT-RTE-ledger-append": "RT-RTE-1", "RT-RTE-ledger-commit": "RT-RTE-2"}


def second_ledger_run(folder: Path, *, numbered: bool = False) -> Path:
    """Another run of the ledger system, written into ``folder`` from version 1: run-id
    :data:`LEDGER_RUN_2`; RT-RTE-ledger-commit relabelled "Write out buffered entries" and its
    evidence ``src/commit.rs`` joined by ``src/flush.rs``; with
    ``numbered``, every record ID renamed to a number (:data:`NUMBERED`), so only labels can match."""
    folder.mkdir(parents=True, exist_ok=True)
    for member in sorted(LEDGER_V1.glob("*.md")):
        text = member.read_text(encoding="utf-8").replace("AAS-2026-11-02-ledger-01", LEDGER_RUN_2)
        text = text.replace("#### RT-RTE-ledger-commit — Commit buffered entries",
                            "#### RT-RTE-ledger-commit — Write out buffered entries")
        text = text.replace("- Evidence: [SRC-1: `src/commit.rs`]", "- Evidence: [SRC-1: `src/commit.rs`; `src/flush.rs`]")
        if numbered:
            for slug, number in NUMBERED.items():
                text = re.sub(rf"(?<![\w-]){re.escape(slug)}(?![\w-])", number, text)
        (folder / member.name).write_text(text, encoding="utf-8")
    return folder
