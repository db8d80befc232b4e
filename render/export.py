"""A graph snapshot (:class:`queries.export.GraphSnapshot`) written in the formats graph and notebook
users load: GraphML (Gephi, yEd, ``networkx.read_graphml``), node-link JSON
(``networkx.node_link_graph``, d3) and CSV tables (pandas, spreadsheets).

Deterministic: the same store gives the same bytes (nodes by id, edges by (src, kind, dst, seq,
owner), attributes by name, no timestamps), whichever backend holds it.

Layout
------
Every node keeps its graph id and ``label`` (model label), ``set_id`` and ``document_id`` (absent
when None); every edge its ``kind``, ``seq``, ``set_id`` and ``document_id``, and the networkx key
``<kind>:<owner>:<seq>`` (owner: the owning document, or ``set:<set>`` for derived edges), so
parallel edges stay apart. Properties:

- node-link JSON: ``props``, the exact property map (nested lists and maps included);
- GraphML and CSV: ``props_json``, the exact map as JSON text (the source of truth on reading
  back), and beside it, for reading in Gephi, yEd or a spreadsheet, each property that is a string,
  number or boolean under its own name, unless the name is one of the fields above (a Markdown
  field's ``label`` lives in ``props_json`` only). GraphML keeps such a column only when it has one
  type everywhere (GraphML types a key once).

GraphML follows its schema (``tests/fixtures/graphml/graphml.xsd``; the tests validate every export
against it): ids there are XML name tokens, which citegraph's ids (``tolaria/synthesis#L11``) are
not, and edge ids are unique in the document. So a GraphML node's id is ``n0``, ``n1``, … and an
edge's ``e0``, ``e1``, … in the snapshot's order (stable: the same store gives the same ids), and
the graph ids are attributes: a node's ``node_id``, an edge's ``edge_key`` (``<kind>:<owner>:<seq>``).
``label`` is what Gephi shows on a node (yEd after *Edit › Properties Mapper*, ``label`` to the
node label): :func:`display_label`, a statement's first words, a record's ID and declared label, a
heading, a path; an edge's ``label`` is its kind. The model label is ``model_label``.
"""

from __future__ import annotations

import io
import json
from typing import Any
from collections.abc import Iterable

from graph.model import Edge, EdgeKind, Label, Node
from graph.writes import edge_owner
from render.labels import short_label

__all__ = ["EXPORT_FORMATS", "edge_key", "display_label", "graphml", "node_link", "csv_tables", "indented_json"]

EXPORT_FORMATS = ("graphml", "json", "csv")
"""What :func:`graphml`, :func:`node_link` and :func:`csv_tables` write."""

_NODE_FIELDS = ("label", "set_id", "document_id", "props_json")
_EDGE_FIELDS = ("kind", "seq", "set_id", "document_id", "props_json")
_NODE_RESERVED = frozenset({"id", "props", "node_id", "model_label", *_NODE_FIELDS})
_EDGE_RESERVED = frozenset({"id", "key", "source", "target", "src", "dst", "props", "edge_key", "label",
                            *_EDGE_FIELDS})


def edge_key(edge: Edge) -> str:
    """The networkx key of ``edge`` among the edges between its two nodes: ``CITES:tolaria/synthesis:0``."""
    return f"{edge.kind.value}:{edge_owner(edge)}:{edge.seq}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class _Unusual(Exception):
    """A value :func:`indented_json` leaves to ``json.dumps``."""


def indented_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)``, the same text.

    The standard library indents with its pure-Python encoder (its C encoder writes no line
    breaks), which takes about half of a set's node-link export; this writes the same layout in
    one recursive pass, strings escaped by the same C function (``json.encoder.encode_basestring``).
    A value it does not write the same way as ``json.dumps`` (a key that is not a string, a float
    that is not finite, a type JSON has no form for) is handed to ``json.dumps`` whole.

    >>> value = {"b": [1, 2.5, None, True, {}], "a": {"é": "x'y"}, "c": []}
    >>> indented_json(value) == json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)
    True
    """
    from json.encoder import encode_basestring as quoted  # the C escaper json.dumps uses (ensure_ascii=False)

    chunks: list[str] = []
    append = chunks.append

    def scalar(o: Any) -> str:
        if isinstance(o, str):
            return quoted(o)
        if o is None:
            return "null"
        if o is True:
            return "true"
        if o is False:
            return "false"
        if isinstance(o, int):
            return int.__repr__(o)
        if isinstance(o, float) and o - o == 0:  # finite (json.dumps writes NaN and Infinity its own way)
            return float.__repr__(o)
        raise _Unusual

    def write(o: Any, pad: str) -> None:
        kind = type(o)
        if kind is str:
            append(quoted(o))
        elif isinstance(o, dict):
            if not o:
                append("{}")
                return
            inner, sep = ",\n" + pad + " ", "{\n" + pad + " "
            for k, v in sorted(o.items()):  # keys that do not sort raise TypeError, as in json.dumps
                if type(k) is not str:
                    raise _Unusual
                kind = type(v)
                if kind is str:
                    append(sep + quoted(k) + ": " + quoted(v))
                elif kind is int:
                    append(sep + quoted(k) + ": " + int.__repr__(v))
                else:
                    append(sep + quoted(k) + ": ")
                    write(v, pad + " ")
                sep = inner
            append("\n" + pad + "}")
        elif isinstance(o, (list, tuple)):
            if not o:
                append("[]")
                return
            inner, sep = ",\n" + pad + " ", "[\n" + pad + " "
            for v in o:
                if type(v) is str:
                    append(sep + quoted(v))
                else:
                    append(sep)
                    write(v, pad + " ")
                sep = inner
            append("\n" + pad + "]")
        else:
            append(scalar(o))

    try:
        write(value, "")
    except _Unusual:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)
    return "".join(chunks)


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) and value is not None


def _node_fields(node: Node) -> dict[str, Any]:
    out: dict[str, Any] = {"label": node.label.value}
    if node.set_id is not None:
        out["set_id"] = node.set_id
    if node.document_id is not None:
        out["document_id"] = node.document_id
    return out


def _edge_fields(edge: Edge) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": edge.kind.value, "seq": edge.seq}
    if edge.set_id is not None:
        out["set_id"] = edge.set_id
    if edge.document_id is not None:
        out["document_id"] = edge.document_id
    return out


def _typed_columns(items: Iterable, reserved: frozenset[str]) -> set[str]:
    """Property names holding scalars of one Python type across ``items`` (GraphML types a key once)."""
    types: dict[str, set[type]] = {}
    for item in items:
        for k, v in item.props.items():
            if k not in reserved:
                types.setdefault(k, set()).add(type(v) if _scalar(v) else object)
    return {k for k, found in types.items() if len(found) == 1 and object not in found}


def display_label(node: Node, declared: dict[str, str] | None = None) -> str:
    """The words a graph tool shows on ``node``: a statement's or quotation's first words, a
    section's heading, a document's title, a record's ID (and ``declared`` label, by node id), a
    source's ID, a file's path, a name; the node id when it has none of these.

    >>> display_label(Node("t/a#L4", Label.STATEMENT, "t", "t/a", {"text": "Writes replace the note on save, always"}))
    'Writes replace the note on save…'
    >>> display_label(Node("t/RT-RTE-x", Label.RECORD, "t", None, {"record_id": "RT-RTE-x"}), {"t/RT-RTE-x": "MCP write"})
    'RT-RTE-x: MCP write'
    """
    from graph.codec import block_text, node_name, record_id_of, system_name  # GraphML's labels: with domain.model

    if node.label in (Label.STATEMENT, Label.QUOTATION):
        words = short_label(block_text(node))
    elif node.label in (Label.SECTION, Label.DOCUMENT):
        words = short_label(str(node_name(node) or ""))
    elif node.label == Label.RECORD:
        record_id, label = record_id_of(node) or node.id, (declared or {}).get(node.id)
        words = f"{record_id}: {short_label(label)}" if label else record_id
    elif node.label in (Label.SOURCE, Label.SOURCE_FILE, Label.NAMED_REFERENCE):
        words = str(node_name(node) or "")
    elif node.label == Label.SYSTEM:
        words = system_name(node) or ""
    else:
        words = ""
    return words or node.id


def graphml(snapshot) -> bytes:
    """The snapshot as GraphML (UTF-8) valid against the GraphML schema, read back with
    ``networkx.read_graphml(path, force_multigraph=True)`` or igraph's ``Graph.Read_GraphML``:
    ids ``n0…``/``e0…``, the graph ids as ``node_id``/``edge_key``, a display ``label``, the model
    label as ``model_label`` and the fields of the module docstring, typed."""
    import networkx as nx

    from graph.codec import declaration_label  # with domain.model: the JSON and CSV exports import neither

    declared = {e.src: label for e in snapshot.edges
                if e.kind == EdgeKind.DECLARED_IN and (label := declaration_label(e))}
    ids = {n.id: f"n{i}" for i, n in enumerate(snapshot.nodes)}
    node_cols = _typed_columns(snapshot.nodes, _NODE_RESERVED)
    edge_cols = _typed_columns(snapshot.edges, _EDGE_RESERVED)
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()  # nodes by their GraphML ids (n0, n1, …)
    graph.graph["citegraph"] = "store" if snapshot.set is None else f"set {snapshot.set}"
    for n in snapshot.nodes:
        attrs = {k: v for k, v in _node_fields(n).items() if k != "label"}
        attrs.update(node_id=n.id, model_label=n.label.value, label=display_label(n, declared),
                     props_json=_json(dict(n.props)))
        attrs.update({k: v for k, v in n.props.items() if k in node_cols})
        graph.add_node(ids[n.id], **dict(sorted(attrs.items())))
    for i, e in enumerate(snapshot.edges):
        attrs = _edge_fields(e)
        attrs.update(edge_key=edge_key(e), label=e.kind.value, props_json=_json(dict(e.props)))
        attrs.update({k: v for k, v in e.props.items() if k in edge_cols})
        graph.add_edge(ids[e.src], ids[e.dst], key=f"e{i}", **dict(sorted(attrs.items())))
    return ("\n".join(nx.generate_graphml(graph, prettyprint=True)) + "\n").encode("utf-8")


def node_link(snapshot) -> bytes:
    """The snapshot as node-link JSON (UTF-8), read back with ``networkx.node_link_graph(data,
    edges="edges")``: ``{"directed", "multigraph", "graph", "nodes": [{"id", "label", "set_id",
    "document_id", "props"}], "edges": [{"source", "target", "key", "kind", "seq", …, "props"}]}``.

    The bytes of ``networkx.node_link_data`` of the snapshot's ``MultiDiGraph`` (tests check it),
    built without networkx (importing it costs a command about 0.1 s): nodes in the order added, a
    node an edge names first added after them; edges grouped by source in node order, then by
    target in the order first reached, then by key in the order added; a repeated node or edge
    key merges its attributes."""
    nodes: dict[str, dict[str, Any]] = {}
    for n in snapshot.nodes:
        nodes.setdefault(n.id, {}).update({**_node_fields(n), "props": dict(n.props)})
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for e in snapshot.edges:
        for end in (e.src, e.dst):
            if end not in nodes:
                nodes[end] = {}
                out[end] = {}
        keyed = out.setdefault(e.src, {}).setdefault(e.dst, {})
        keyed.setdefault(edge_key(e), {}).update({**_edge_fields(e), "props": dict(e.props)})
    data = {
        "directed": True, "multigraph": True,
        "graph": {"citegraph": "store" if snapshot.set is None else f"set {snapshot.set}"},
        "nodes": [{**attrs, "id": node_id} for node_id, attrs in nodes.items()],
        "edges": [{**attrs, "source": src, "target": dst, "key": key}
                  for src in nodes for dst, keyed in out.get(src, {}).items() for key, attrs in keyed.items()],
    }
    return (indented_json(data) + "\n").encode("utf-8")


def csv_tables(snapshot) -> dict[str, bytes]:
    """The snapshot as two CSV tables (UTF-8, a header row, one row per node or edge):
    ``nodes.csv`` (``id, label, set_id, document_id``, the scalar properties by name, ``props_json``)
    and ``edges.csv`` (``src, kind, dst, seq, key, set_id, document_id``, the scalar properties,
    ``props_json``). Empty cells are absent values; ``pandas.read_csv`` loads each."""
    import csv  # here: the JSON and GraphML exports import none

    def table(header: list[str], rows: Iterable[list]) -> bytes:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return buffer.getvalue().encode("utf-8")

    def scalars(items, reserved: frozenset[str]) -> list[str]:
        return sorted({k for item in items for k, v in item.props.items() if k not in reserved and _scalar(v)})

    def cell(value: Any) -> Any:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return value

    node_cols, edge_cols = scalars(snapshot.nodes, _NODE_RESERVED), scalars(snapshot.edges, _EDGE_RESERVED)
    nodes = table(["id", "label", "set_id", "document_id", *node_cols, "props_json"], (
        [n.id, n.label.value, cell(n.set_id), cell(n.document_id),
         *(cell(n.props.get(k)) if _scalar(n.props.get(k)) else "" for k in node_cols), _json(dict(n.props))]
        for n in snapshot.nodes))
    edges = table(["src", "kind", "dst", "seq", "key", "set_id", "document_id", *edge_cols, "props_json"], (
        [e.src, e.kind.value, e.dst, e.seq, edge_key(e), cell(e.set_id), cell(e.document_id),
         *(cell(e.props.get(k)) if _scalar(e.props.get(k)) else "" for k in edge_cols), _json(dict(e.props))]
        for e in snapshot.edges))
    return {"nodes.csv": nodes, "edges.csv": edges}
