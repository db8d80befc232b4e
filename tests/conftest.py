"""Shared fixtures: the bundled corpus, ingested once per session, and a ``store`` per backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.stores.memory import MemoryStore
from ingest.files import read_members
from ingest.loader import ingest_parsed

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SEEDS = CORPUS / "seeds"
SEED_SYNTHESIS = SEEDS / "000_a3dd65b871acf2aa.txt"
SEED_WORKFLOW = SEEDS / "001_12342d341e774cc9.txt"
SEED_TALORYS = SEEDS / "003_68dfe0dcb1db1ebb.txt"


def ingest_into(store, *paths: Path):
    """Ingest member files/folders into ``store`` through the real loader; returns the report."""
    return ingest_parsed(store, read_members(list(paths)).parsed)


@pytest.fixture(scope="session")
def seeds_store() -> MemoryStore:
    """An in-memory store holding the three seeds (read-only for tests)."""
    store = MemoryStore(None)
    ingest_into(store, SEEDS)
    return store
