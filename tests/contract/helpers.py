"""Helpers of the contract tests: canonical JSON of any query result, a store's whole content."""

from __future__ import annotations

import dataclasses
import enum
import json
from typing import Any
from collections.abc import Mapping

from graph.model import Edge, Label, Node
from graph.store import Direction, GraphStore


def canonical(value: Any) -> str:
    """Byte-exact JSON of any query result: dataclasses field by field, nodes and edges by their
    ``to_dict``, mappings with sorted keys, sets sorted; lists and tuples keep their order."""

    def plain(v: Any) -> Any:
        if isinstance(v, (Node, Edge)):
            return v.to_dict()
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            return {f.name: plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
        if isinstance(v, enum.Enum):
            return str(v.value)
        if isinstance(v, Mapping):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (set, frozenset)):
            return sorted((plain(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v

    return json.dumps(plain(value), sort_keys=True, ensure_ascii=False)


def content(store: GraphStore) -> dict:
    """Every node (by label, sorted by id), every edge (by source, sorted) and the counts."""
    nodes = [n for label in Label for n in store.find_nodes(label)]
    out = store.edges([n.id for n in nodes], direction=Direction.OUT)
    return {"nodes": nodes, "edges": out, "counts": store.counts()}
