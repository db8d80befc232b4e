"""The graph an embedded view draws: a rests-on subgraph as nodes and edges (JSON-ready).

Nodes are the record asked about, every statement resting on it, and the intermediate nodes of
their explanation paths (named references, sections, documents, other records, quotations, source
files); edges follow the paths, from the dependent node to what it rests on. The page embeds this
dict and ``GET /embed/rests-on/{record_id}/graph`` serves it, so a notebook draws the same graph.
"""

from __future__ import annotations

from queries.reports import PathStep, RestsOnSubgraph
from queries.traversal import RestsOnResult
from render.page import anchor, record_anchor

__all__ = ["KINDS", "rests_on_graph"]

KINDS: dict[str, str] = {
    "Record": "record", "Statement": "statement", "Section": "section", "Document": "document",
    "NamedReference": "named_reference", "Quotation": "quotation", "SourceFile": "source_file",
    "Source": "source", "AnalysisSet": "analysis_set", "System": "system",
}
"""Node ``kind`` of each graph label (snake case; unknown labels become ``node``)."""


def _set_of(node_id: str) -> str:
    """Every node id but a system's starts with ``<set>/`` (:mod:`graph.model`)."""
    return node_id.partition("/")[0]


def _statement_node(r: RestsOnResult) -> dict:
    role = r.document.partition("/")[2] or r.document
    return {
        "id": r.statement, "kind": "statement", "label": f"{role} L{r.line}", "name": r.statement,
        "set": r.set, "document": r.document, "section": r.section, "section_heading": r.section_heading,
        "statement_kind": r.kind, "text": r.text, "line": r.line, "direct": r.direct, "depth": r.depth,
        "path": list(r.path), "anchor": anchor("st", r.statement),
    }


def _path_node(step: PathStep) -> dict:
    kind = KINDS.get(step.label, "node")
    node = {"id": step.node, "kind": kind, "label": step.name, "name": step.name, "set": _set_of(step.node),
            "document": step.document}
    if kind == "record":
        node["record_id"] = step.name
        node["anchor"] = record_anchor(node["set"], step.name)
    elif kind == "section":
        node["section_heading"] = step.name
        node["anchor"] = anchor("sec", step.node)
    if len(node["label"]) > 40:
        node["label"] = node["label"][:39] + "…"
    return node


def rests_on_graph(sub: RestsOnSubgraph) -> dict:
    """The nodes and edges of ``sub``.

    Returns
    -------
    dict
        ``{"record", "set", "records", "count", "nodes": [...], "edges": [...]}``. Each node has
        ``id``, ``kind`` (``record``, ``statement``, ``section``, ``named_reference``, ``document``,
        ``quotation``, ``source_file``, ``source``), ``label`` (short, for drawing), ``name``,
        ``set``, ``document`` and ``hops`` (fewest path hops to a record asked about). Records add
        ``record_id`` and ``start`` (it is a record asked about); statements add ``section``,
        ``section_heading``, ``statement_kind``, ``text``, ``line``, ``direct``, ``depth`` and
        ``path``. Each edge has ``id``, ``source`` (the dependent node), ``target`` and ``kinds``
        (edge kinds, sorted). Nodes come in order: records asked about, result statements in
        report order, then intermediate nodes by id; edges by id. ``count`` is the number of
        result statements.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> from queries.reports import rests_on_subgraph
    >>> g = rests_on_graph(rests_on_subgraph(demo_store(), "RT-RTE-x"))
    >>> [(n["id"], n["kind"], n["hops"]) for n in g["nodes"]]
    [('demo/RT-RTE-x', 'record', 0), ('demo/synthesis#L4', 'statement', 1)]
    >>> [(e["source"], e["target"], e["kinds"]) for e in g["edges"]]
    [('demo/synthesis#L4', 'demo/RT-RTE-x', ['CITES'])]
    """
    report = sub.report
    nodes: dict[str, dict] = {}
    for node_id in report.records:
        set_id, _, record_id = node_id.partition("/")
        nodes[node_id] = {"id": node_id, "kind": "record", "label": record_id, "name": record_id, "set": set_id,
                          "document": None, "record_id": record_id, "start": True,
                          "anchor": record_anchor(set_id, record_id)}
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
                intermediate[step.node] = _path_node(step)
            if i + 1 < len(steps):
                target = steps[i + 1].node
                edge_id = f"{step.node} -> {target}"
                edge = edges.setdefault(edge_id, {"id": edge_id, "source": step.node, "target": target, "kinds": []})
                edge["kinds"] = sorted({*edge["kinds"], *step.kinds})
    for node_id in sorted(intermediate):
        nodes[node_id] = intermediate[node_id]
    for node_id, node in nodes.items():
        node["hops"] = hops.get(node_id, 0)
        if node["kind"] == "record":
            node.setdefault("start", False)
    return {
        "record": report.record,
        "set": report.set,
        "records": list(report.records),
        "count": len(report.results),
        "nodes": list(nodes.values()),
        "edges": [edges[k] for k in sorted(edges)],
    }
