"""Stored property keys are spelled in one place: :mod:`graph.codec` (and the stores, which hold
the properties). Everywhere else data crosses the layers as domain objects, so a renamed property
is a change the codec and the type checker see, never a silent ``None``.

This scans the product folders' source (no import) for what would spell a key elsewhere:

- an ``extra`` name, parameter or attribute (the untyped bag of properties parsers once wrote);
- a literal key read on a node's properties: ``….props.get("…")``, ``….props["…"]``;
- ``.get("…")`` of a key the codec stores on a node, on a value named like a node or block.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("app", "citegraph", "domain", "graph", "ingest", "queries", "render")
SPELLERS = ("graph/codec.py", "graph/stores/")
"""Where property keys may be spelled."""

NODE_NAMES = re.compile(r"^(node|n|block|b|heading|section|record|doc|d|src|target|found\.nodes\[.*\]|nodes\[.*\]|"
                        r"sections\[.*\]|stack\[.*\].*|blocks\[.*\].*|citing\[.*\])$")
"""How the code names a graph node or a document block (what a ``.get("key")`` must not read)."""

NOT_NODES = {("app/embed/page.py", 'node.get("start")'): "a node of the subgraph answer's JSON, not a stored node"}
"""Reads the name rule takes for node reads that are none, each with what it reads."""


def _stored_keys() -> set[str]:
    """The keys :mod:`graph.codec` writes or reads: every string literal it indexes or gets."""
    tree = ast.parse((ROOT / "graph" / "codec.py").read_text(encoding="utf-8"))
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            keys.add(node.args[0].value)
        if isinstance(node, ast.Dict):
            keys.update(k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            keys.add(node.slice.value)
    return keys


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def findings(root: Path = ROOT) -> list[str]:
    """``path:line: what`` for each place outside :data:`SPELLERS` that spells a stored key."""
    keys = _stored_keys()
    out: list[tuple[str, int, str]] = []
    for path in sorted(p for folder in PRODUCT for p in (root / folder).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(SPELLERS):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            line = getattr(node, "lineno", 0)
            if ((isinstance(node, ast.Name) and node.id == "extra") or (isinstance(node, ast.arg) and node.arg == "extra")
                    or (isinstance(node, ast.Attribute) and node.attr == "extra")):
                out.append((rel, line, "`extra`"))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                    and node.args and (key := _literal(node.args[0])) is not None:
                owner = ast.unparse(node.func.value)
                read = f'{owner}.get("{key}")'
                if (owner.endswith(".props") or owner == "props" or (key in keys and NODE_NAMES.match(owner))) \
                        and (rel, read) not in NOT_NODES:
                    out.append((rel, line, read))
            elif isinstance(node, ast.Subscript) and (key := _literal(node.slice)) is not None:
                owner = ast.unparse(node.value)
                if owner.endswith(".props"):
                    out.append((rel, line, f'{owner}["{key}"]'))
    return [f"{rel}:{line}: {what}" for rel, line, what in sorted(out)]


def test_stored_keys_are_spelled_only_by_the_codec_and_the_stores():
    assert findings() == []


def test_the_scan_finds_each_way_of_spelling_a_key(tmp_path):
    (tmp_path / "queries").mkdir()
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "codec.py").write_text((ROOT / "graph" / "codec.py").read_text(encoding="utf-8"))
    (tmp_path / "queries" / "bad.py").write_text(
        "def f(node, block, extra):\n"
        "    a = block.props.get('table')\n"
        "    b = node.get('heading_form')\n"
        "    c = node.props['annotates']\n"
        "    d = {**extra}\n"
        "    e = block.extra\n"
        "    return node.get('not-a-stored-key'), {'x': 1}.get('label')\n")
    (tmp_path / "graph" / "stores").mkdir()
    (tmp_path / "graph" / "stores" / "ok.py").write_text("def g(node):\n    return node.props.get('text')\n")
    assert findings(tmp_path) == [
        "queries/bad.py:1: `extra`",
        'queries/bad.py:2: block.props.get("table")',
        'queries/bad.py:3: node.get("heading_form")',
        'queries/bad.py:4: node.props["annotates"]',
        "queries/bad.py:5: `extra`",
        "queries/bad.py:6: `extra`",
    ]
