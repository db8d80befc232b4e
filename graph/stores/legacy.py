"""Reading the embedded store's former file, ``graph.json.gz`` (format 1), to convert it.

Until SQLite, the embedded store was one gzip-compressed JSON document ``{"version": 1, "nodes":
[...], "edges": [...]}`` that every process loaded whole: first as a single line, later with one
node or edge per line (nodes sorted by id, edges by :meth:`~graph.model.Edge.sort_key`). This
module only reads it, element by element, for :func:`graph.stores.sqlite.migrate_legacy`.
"""

from __future__ import annotations

from typing import Any

import json
import zlib
from pathlib import Path
from collections.abc import Iterator

from graph.errors import StoreUnavailable
from graph.model import Edge, EdgeKind, Label, Node

__all__ = ["LEGACY_FILE", "read_legacy"]

LEGACY_FILE = "graph.json.gz"
"""The former store's file name in a home folder."""

_VERSION = 1
_HEAD = '{"version":%d,"nodes":[' % _VERSION
_MIDDLE = '],"edges":['
_TAIL = ']}'
_LABELS = {str(label): label for label in Label}
_KINDS = {str(kind): kind for kind in EdgeKind}


def read_legacy(path: Path) -> Iterator[Node | Edge]:
    """Every node, then every edge, of the format-1 store at ``path``, in file order.

    Memory stays about one batch of elements in the line layout; a single-line file is read whole
    (that is how it was written).

    Raises
    ------
    StoreUnavailable
        The file is not gzip or UTF-8, not a store of format 1, or damaged (a line that is not an
        element, a missing or extra comma, an unknown label or kind, an edge naming a node the file
        does not hold, a truncated end); the message names the file and, in the line layout, the
        line.
    """
    import gzip  # here: every opening of a store checks for LEGACY_FILE, only a conversion reads one

    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            head = fh.readline()
            if head.rstrip("\n") == _HEAD:
                yield from _lines(fh)
            else:
                yield from _document(json.loads(head + fh.read()), path)
    except StoreUnavailable:
        raise
    except (OSError, ValueError, KeyError, TypeError, EOFError, zlib.error) as exc:
        raise StoreUnavailable(f"cannot read the embedded store {path}: {exc}",
                               hint="the file is left as it is; remove it to start from an empty store") from exc


def _document(data: Any, path: Path) -> Iterator[Node | Edge]:
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        raise StoreUnavailable(f"{path} is not a citegraph store of format {_VERSION}")
    ids = set()
    for raw in data["nodes"]:
        node = _node(raw)
        ids.add(node.id)
        yield node
    for raw in data["edges"]:
        edge = _edge(raw)
        _check_ends(edge, ids)
        yield edge


def _lines(lines: Iterator[str]) -> Iterator[Node | Edge]:
    """Elements from line 2 on: each followed by a comma except the last of its array."""
    section, ids = "nodes", set()
    batch: list[tuple[int, str]] = []  # (file line, element JSON)

    def flush() -> Iterator[Node | Edge]:
        try:
            items = json.loads("[" + ",".join(text for _, text in batch) + "]")
        except ValueError:
            for number, text in batch:  # find the line at fault
                try:
                    json.loads(text)
                except ValueError as exc:
                    raise ValueError(f"line {number}: {exc}") from None
            raise
        for (number, _), item in zip(batch, items):
            try:
                if section == "nodes":
                    node = _node(item)
                    ids.add(node.id)
                    yield node
                else:
                    edge = _edge(item)
                    _check_ends(edge, ids)
                    yield edge
            except (KeyError, TypeError, ValueError) as exc:
                why = f"no field {exc}" if isinstance(exc, KeyError) else str(exc)
                raise ValueError(f"line {number}: {why}") from None
        batch.clear()

    last_comma = None  # whether the previous element line of this array ended with a comma
    for number, line in enumerate(lines, start=2):
        line = line.rstrip("\n")
        if line in (_MIDDLE, _TAIL) and section != "end":
            if last_comma:
                raise ValueError(f"line {number - 1}: a comma after the last element")
            yield from flush()
            if (line, section) not in ((_MIDDLE, "nodes"), (_TAIL, "edges")):
                raise ValueError(f"line {number}: unexpected {line[:40]!r}")
            section, last_comma = ("edges" if section == "nodes" else "end"), None
        elif section == "end":
            raise ValueError(f"line {number}: text after the end of the store")
        else:
            if last_comma is False:
                raise ValueError(f"line {number - 1}: no comma between two elements")
            last_comma = line.endswith(",")
            batch.append((number, line[:-1] if last_comma else line))
            if len(batch) >= 4096:
                yield from flush()
    if section != "end":
        raise ValueError("the file ends before its last line (truncated)")


def _node(data: dict[str, Any]) -> Node:
    if data["label"] not in _LABELS:
        raise ValueError(f"unknown label {data['label']!r}")
    return Node(data["id"], _LABELS[data["label"]], data.get("set_id"), data.get("document_id"),
                dict(data.get("props") or {}))


def _edge(data: dict[str, Any]) -> Edge:
    if data["kind"] not in _KINDS:
        raise ValueError(f"unknown edge kind {data['kind']!r}")
    return Edge(_KINDS[data["kind"]], data["src"], data["dst"], int(data.get("seq", 0)),
                data.get("document_id"), data.get("set_id"), dict(data.get("props") or {}))


def _check_ends(edge: Edge, ids: set[str]) -> None:
    for end in (edge.src, edge.dst):
        if end not in ids:
            raise ValueError(f"edge {edge.kind} {edge.src} -> {edge.dst} names unknown node {end}")
