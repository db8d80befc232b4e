"""No module imports another module's private name (``from x import _name``): a name shared
across modules is public (with a docstring) or lives in the module that owns the concept."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ("citegraph", "domain", "graph", "ingest", "queries", "render", "app", "bench", "tests", "examples")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, node: ast.ImportFrom, path: Path) -> str:
    """The module an ``ImportFrom`` names, relative imports resolved against ``module``."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def private_cross_imports(paths: list[Path]) -> list[str]:
    """``file:line: from module import _name`` for each private name imported from another module."""
    found = []
    for path in paths:
        module = _module_name(path)
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _absolute(module, node, path)
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__") and source != module:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {source} import {alias.name}")
    return found


def _sources() -> list[Path]:
    return sorted(p for top in PACKAGES for p in (ROOT / top).rglob("*.py"))


def test_no_module_imports_another_modules_private_name():
    assert len(_sources()) > 250  # the scan sees the tree
    assert private_cross_imports(_sources()) == []


def test_the_scan_finds_a_private_cross_import(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from pkg.a import _own\n")
    (tmp_path / "pkg" / "a.py").write_text("from pkg.a import _own\nfrom .b import _helper, public\n_own = 1\n")
    (tmp_path / "pkg" / "b.py").write_text("from . import __version__\n_helper = public = 2\n")
    paths = sorted((tmp_path / "pkg").glob("*.py"))
    assert private_cross_imports(paths) == [
        "pkg/__init__.py:1: from pkg.a import _own",
        "pkg/a.py:2: from pkg.b import _helper",
    ]
