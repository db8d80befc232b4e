"""The examples in the renderer's and its queries' docstrings run (STYLE §2.7: doctests too)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "queries.demo", "queries.documents", "queries.subgraphs", "queries.dossier",
    "render.document", "render.to_plaintext", "render.page", "render.compose", "render.writers", "render.ci",
    "queries.shapes", "queries.impact.repository_wide",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted > 0 or name == "render.page"
