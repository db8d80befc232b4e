"""The faces (``app/``, ``render/``) read domain objects, never a stored node's properties: what a
node holds reaches them decoded by :mod:`graph.codec` inside the query layer
(:class:`queries.read.Stored`, the domain members of a :class:`queries.documents.DocumentTree`, the
query results). This scans their source (no import) for what would read a node's properties:

- an import of :mod:`graph.codec` (its readers take raw nodes) or of ``graph.model.Node``;
- an attribute ``props`` or ``properties`` (a node's or edge's stored properties);
- the raw node a :class:`~queries.read.Stored` keeps (``._node``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

FACES = ("app", "render")
DUMPS = {"render/export.py": "the graph export writes every stored property as stored (GraphML, JSON, CSV)"}
"""Face modules whose job is the stored properties themselves, each with why."""


def _imports_codec(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name == "graph.codec" for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.module == "graph.codec" or (node.module == "graph" and any(a.name == "codec" for a in node.names))
    return False


def raw_reads(root: Path = ROOT) -> list[str]:
    """``path:line: what`` for each place in a face module that reads a stored node's properties."""
    out: list[tuple[str, int, str]] = []
    for path in sorted(p for face in FACES for p in (root / face).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in DUMPS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            line = getattr(node, "lineno", 0)
            if _imports_codec(node):
                out.append((rel, line, "imports graph.codec"))
            elif isinstance(node, ast.ImportFrom) and node.module == "graph.model" \
                    and any(a.name == "Node" for a in node.names):
                out.append((rel, line, "imports graph.model.Node"))
            elif isinstance(node, ast.Attribute) and node.attr in ("props", "properties", "_node"):
                out.append((rel, line, f"reads {ast.unparse(node)}"))
    return [f"{rel}:{line}: {what}" for rel, line, what in sorted(out)]


def test_faces_read_no_stored_node_properties():
    assert raw_reads() == []


def test_the_scan_finds_each_way_of_reading_a_node(tmp_path):
    (tmp_path / "app" / "graphql").mkdir(parents=True)
    (tmp_path / "render").mkdir()
    (tmp_path / "app" / "graphql" / "bad.py").write_text(
        "from graph.codec import record_of\n"
        "from graph import codec\n"
        "import graph.codec\n"
        "from graph.model import Label, Node\n"
        "def f(node, stored, edge):\n"
        "    return node.props, edge.properties, stored._node, stored.record, Label.RECORD\n")
    (tmp_path / "render" / "export.py").write_text("def g(node):\n    return node.props\n")
    (tmp_path / "render" / "ok.py").write_text("from graph.model import Label\ndef h(stored):\n    return stored.section\n")
    assert raw_reads(tmp_path) == [
        "app/graphql/bad.py:1: imports graph.codec",
        "app/graphql/bad.py:2: imports graph.codec",
        "app/graphql/bad.py:3: imports graph.codec",
        "app/graphql/bad.py:4: imports graph.model.Node",
        "app/graphql/bad.py:6: reads edge.properties",
        "app/graphql/bad.py:6: reads node.props",
        "app/graphql/bad.py:6: reads stored._node",
    ]
