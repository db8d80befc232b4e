"""Fixtures for the renderer tests: the Dynamic Cheatsheet set (Markdown members, G3) ingested once,
golden files under ``tests/corpus/expected/`` and an HTML parser."""

from __future__ import annotations

import os

import pytest

from graph.stores.sqlite import SQLiteStore
from tests.conftest import CORPUS, ROOT, ingest_into

ANALYSES = CORPUS / "commonplace" / "kb" / "agentic-system-analyses"
DC_RETAINED = ANALYSES / "retained" / "dynamic-cheatsheet"
DC_ARCHIVE = ANALYSES / "retained-archive" / "AAS-2026-10-04-dynamic-cheatsheet-01"
DC_SET = "AAS-2026-10-04-dynamic-cheatsheet-01"
DC_MEMBERS = ("overview", "runtime", "memory", "epistemic", "reconciliation", "memory-profile")
EXPECTED = ROOT / "tests" / "corpus" / "expected"


@pytest.fixture(scope="session")
def dc_store() -> SQLiteStore:
    """An in-memory store holding the six Dynamic Cheatsheet members (read-only for tests)."""
    store = SQLiteStore(None)
    ingest_into(store, DC_RETAINED, DC_ARCHIVE)
    return store


@pytest.fixture
def golden():
    """``golden(name, text)`` asserts ``text`` equals ``tests/corpus/expected/<name>``; with
    ``CITEGRAPH_REGEN_GOLDEN=1`` it (re)writes the file instead, to be read by eye before committing."""

    def check(name: str, text: str) -> None:
        path = EXPECTED / name
        if os.environ.get("CITEGRAPH_REGEN_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        assert path.exists(), f"missing golden file {path}; run with CITEGRAPH_REGEN_GOLDEN=1"
        assert text == path.read_bytes().decode("utf-8"), f"{name} differs from its golden file"

    return check


def parse_html(text: str):
    """Parse ``text`` with html5lib in strict mode (a parse error raises); returns the etree root."""
    import html5lib

    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    return parser.parse(text)
