"""The graph an embedded view draws: a rests-on subgraph as nodes and edges (JSON-ready).

Nodes are the record asked about, every statement resting on it, and the intermediate nodes of
their explanation paths (named references, sections, documents, other records, quotations, source
files); edges follow the paths, from the dependent node to what it rests on. The page embeds this
dict and ``GET /embed/rests-on/{record_id}/graph`` serves it, so a notebook draws the same graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional, Union

from pydantic import BaseModel, Field

from queries.subgraphs import PathStep, RestsOnSubgraph
from queries.traversal import RestsOnResult
from render.labels import short_label
from render.page import anchor, record_anchor

__all__ = ["KINDS", "EDGE_STYLES", "short_label", "rests_on_graph", "GraphNodeOut", "GraphEdgeOut", "RestsOnGraphOut"]

KINDS: dict[str, str] = {
    "Record": "record", "Statement": "statement", "Section": "section", "Document": "document",
    "NamedReference": "named_reference", "Quotation": "quotation", "SourceFile": "source_file",
    "Source": "source", "AnalysisSet": "analysis_set", "System": "system",
}
"""Node ``kind`` of each graph label (snake case; unknown labels become ``node``)."""

EDGE_STYLES: tuple[str, ...] = (
    "CITES", "ANNOTATES", "QUOTES", "SUPERSEDED_BY", "RESOLVES_TO", "DECLARED_IN", "ATTRIBUTED_TO", "IN_SOURCE",
    "PART_OF", "CONTAINS",
)
"""Edge kinds in the order an edge holding several is drawn as (evidence first, structure last);
the page draws each in its own line style and lists those present in its legend."""

def _set_of(node_id: str) -> str:
    """Every node id but a system's starts with ``<set>/`` (:mod:`graph.model`)."""
    return node_id.partition("/")[0]


def _statement_node(r: RestsOnResult) -> dict:
    return {
        "id": r.statement, "kind": "statement", "label": short_label(r.block.text) or r.statement, "name": r.statement,
        "set": r.set, "document": r.document, "section": r.section, "section_heading": r.section_heading,
        "statement_kind": r.block.kind, "text": r.block.text, "line": r.block.line, "direct": r.direct, "depth": r.depth,
        "path": list(r.path), "anchor": anchor("st", r.statement),
    }


def _record_label(record_id: str, label: str | None) -> str:
    """A record's two label lines: its ID, then its declared label when it has one."""
    return f"{record_id}\n{short_label(label)}" if label else record_id


def _path_node(step: PathStep, labels: Mapping[str, str]) -> dict:
    kind = KINDS.get(step.label, "node")
    set_id = _set_of(step.node)
    node = {"id": step.node, "kind": kind, "label": short_label(step.name), "name": step.name,
            "set": set_id, "document": step.document}
    if kind == "record":
        node["record_id"] = step.name
        node["record_label"] = labels.get(step.node)
        node["label"] = _record_label(step.name, labels.get(step.node))
        node["anchor"] = record_anchor(set_id, step.name)
    elif kind == "section":
        node["section_heading"] = step.name
        node["anchor"] = anchor("sec", step.node)
    return node


def _start_node(node_id: str, kind: str, labels: Mapping[str, str]) -> dict:
    """A node asked about: a record (``<set>/<ID>``), a source (``<set>/SRC-n``) or a source file
    (``<set>/file/<path>``)."""
    set_id, _, name = node_id.partition("/")
    if kind == "source_file":
        name = name.partition("file/")[2]
        return {"id": node_id, "kind": "source_file", "label": name, "name": name, "set": set_id, "document": None,
                "path": name, "start": True}
    if kind == "source":
        return {"id": node_id, "kind": "source", "label": name, "name": name, "set": set_id, "document": None,
                "source_id": name, "start": True}
    return {"id": node_id, "kind": "record", "label": _record_label(name, labels.get(node_id)), "name": name,
            "set": set_id, "document": None, "record_id": name, "record_label": labels.get(node_id), "start": True,
            "anchor": record_anchor(set_id, name)}


def _drawn_as(kinds: list[str]) -> str:
    """The one kind an edge holding ``kinds`` is drawn as (the first of :data:`EDGE_STYLES`)."""
    return next((k for k in EDGE_STYLES if k in kinds), kinds[0] if kinds else "CITES")


def rests_on_graph(sub: RestsOnSubgraph) -> dict:
    """The nodes and edges of ``sub``.

    Returns
    -------
    dict
        ``{"record", "kind", "set", "records", "count", "edge_kinds", "nodes": [...], "edges": [...]}``.
        Each node has ``id``, ``kind`` (``record``, ``statement``, ``section``, ``named_reference``,
        ``document``, ``quotation``, ``source_file``, ``source``), ``label`` (for drawing: a
        statement's first words, a record's ID and declared label on two lines, a heading, a
        name; at most :data:`render.labels.LABEL_CHARS` characters a line), ``name``, ``set``, ``document``,
        ``hops`` (fewest path hops to a node asked about) and ``start`` (it is a node asked about:
        the record, source or source file ``kind`` names). Records add ``record_id`` and
        ``record_label`` (declared label or None); statements add ``section``,
        ``section_heading``, ``statement_kind``, ``text``, ``line``, ``direct``, ``depth`` and
        ``path``. Each edge has ``id``, ``source`` (the dependent node), ``target``, ``kinds``
        (edge kinds, sorted) and ``drawn_as`` (the kind whose line style it has,
        :data:`EDGE_STYLES`); ``edge_kinds`` lists the drawn kinds present, in that order. Nodes
        come in order: the nodes asked about, result statements in report order, then
        intermediate nodes by id; edges by id. ``count`` is the number of result statements.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> from queries.subgraphs import rests_on_subgraph
    >>> g = rests_on_graph(rests_on_subgraph(demo_store(), "RT-RTE-x"))
    >>> [(n["id"], n["kind"], n["hops"]) for n in g["nodes"]]
    [('demo/RT-RTE-x', 'record', 0), ('demo/synthesis#L4', 'statement', 1)]
    >>> [(e["source"], e["target"], e["kinds"], e["drawn_as"]) for e in g["edges"]]
    [('demo/synthesis#L4', 'demo/RT-RTE-x', ['CITES'], 'CITES')]
    >>> [n["label"] for n in g["nodes"]]
    ['RT-RTE-x', 'Writes replace the note…']
    """
    report = sub.report
    nodes: dict[str, dict] = {}
    for node_id in report.records:
        nodes[node_id] = _start_node(node_id, report.kind, sub.labels)
    for r in report.results:
        nodes[r.statement] = _statement_node(r)
    intermediate: dict[str, dict] = {}
    edges: dict[str, dict] = {}
    hops: dict[str, int] = {node_id: 0 for node_id in report.records}
    for r in report.results:
        steps = sub.steps.get(r.statement) or tuple(PathStep(n, "", n, None, ()) for n in r.path)
        for i, step in enumerate(steps):
            hops[step.node] = min(hops.get(step.node, len(steps)), len(steps) - 1 - i)
            if step.node not in nodes and step.node not in intermediate:
                intermediate[step.node] = _path_node(step, sub.labels)
            if i + 1 < len(steps):
                target = steps[i + 1].node
                edge_id = f"{step.node} -> {target}"
                edge = edges.setdefault(edge_id, {"id": edge_id, "source": step.node, "target": target, "kinds": []})
                edge["kinds"] = sorted({*edge["kinds"], *step.kinds})
    for node_id in sorted(intermediate):
        nodes[node_id] = intermediate[node_id]
    for node_id, node in nodes.items():
        node["hops"] = hops.get(node_id, 0)
        node.setdefault("start", False)
    for edge in edges.values():
        edge["drawn_as"] = _drawn_as(edge["kinds"])
    drawn = {e["drawn_as"] for e in edges.values()}
    return {
        "record": report.record,
        "kind": report.kind,
        "set": report.set,
        "records": list(report.records),
        "count": len(report.results),
        "edge_kinds": [k for k in EDGE_STYLES if k in drawn],
        "nodes": list(nodes.values()),
        "edges": [edges[k] for k in sorted(edges)],
    }


class GraphNodeOut(BaseModel):
    """A node of :func:`rests_on_graph`: the fields every node has, then those of its ``kind``
    (absent on other kinds)."""

    id: str
    kind: str = Field(description="record, statement, section, named_reference, document, quotation, source_file, "
                                  "source …")
    label: str = Field(description="What the graph draws (lines of at most 34 characters).")
    name: str
    set: str
    document: Optional[str]
    hops: int = Field(description="Fewest path hops to a node asked about.")
    start: bool = Field(description="A node asked about.")
    anchor: Optional[str] = Field(None, description="Its anchor in the rendered report (records, statements, sections).")
    record_id: Optional[str] = None
    record_label: Optional[str] = None
    source_id: Optional[str] = None
    section: Optional[str] = None
    section_heading: Optional[str] = None
    statement_kind: Optional[str] = None
    text: Optional[str] = None
    line: Optional[int] = None
    direct: Optional[bool] = None
    depth: Optional[int] = None
    path: Optional[Union[list[str], str]] = Field(None, description="A statement's explanation path (node ids); a "
                                                                    "source file's path.")


class GraphEdgeOut(BaseModel):
    """An edge of :func:`rests_on_graph`, from the dependent node to what it rests on."""

    id: str
    source: str
    target: str
    kinds: list[str]
    drawn_as: str = Field(description="The kind whose line style it has (EDGE_STYLES).")


class RestsOnGraphOut(BaseModel):
    """``GET /embed/rests-on/{record_id}/graph``: :func:`rests_on_graph`."""

    record: str
    kind: str = Field(description="record, source or source_file: what was asked about.")
    set: Optional[str]
    records: list[str]
    count: int = Field(description="Result statements.")
    edge_kinds: list[str]
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
