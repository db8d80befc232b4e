"""``GET /export``: a set's graph, or the whole store's, as GraphML, node-link JSON or a CSV table
, the bytes of ``citegraph export``."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from fastapi import APIRouter, Query, Response

from app.rest.deps import SetFilter, StoreDep, in_snapshot
from graph.errors import InvalidQuery
from queries.export import graph_of
from render.export import csv_tables, graphml, node_link

router = APIRouter(tags=["export"])

_MEDIA = {"graphml": "application/graphml+xml", "json": "application/json", "csv": "text/csv; charset=utf-8"}


_EXPORTED: dict[int | str, dict[str, Any]] = {200: {"description": "The graph in the format asked (a download).", "content": {
    "application/graphml+xml": {"schema": {"type": "string"}},
    "text/csv": {"schema": {"type": "string"}},  # before JSON: generated clients read the first as text for all three
    "application/json": {"schema": {"type": "object", "description": "networkx node-link data."}}}}}


@router.get("/export", operation_id="exportGraph", response_class=Response, responses=_EXPORTED)
async def export_graph(
    store: StoreDep,
    fmt: Annotated[Literal["graphml", "json", "csv"], Query(alias="format", description="graphml, json (node-link) or csv.")],
    set_id: SetFilter = None,
    table: Annotated[Optional[Literal["nodes", "edges"]], Query(description="Which CSV table (format=csv).")] = None,
) -> Response:
    """Every node and edge of the set (or the store) with their properties, deterministic: load it
    with ``networkx.read_graphml``, ``networkx.node_link_graph`` or ``pandas.read_csv(url)``."""
    if fmt == "csv" and table is None:
        raise InvalidQuery("format=csv is two tables: add table=nodes or table=edges")
    def exported(view) -> bytes:  # read and written in the worker thread: the event loop serves meanwhile
        snapshot = graph_of(view, set_id=set_id)
        if fmt == "csv":
            return csv_tables(snapshot)[f"{table}.csv"]
        return graphml(snapshot) if fmt == "graphml" else node_link(snapshot)

    data = await in_snapshot(store, exported)
    name = f"citegraph-{set_id or 'store'}"
    filename = f"{name}-{table}.csv" if fmt == "csv" else f"{name}.graphml" if fmt == "graphml" else f"{name}.json"
    return Response(data, media_type=_MEDIA[fmt], headers={"Content-Disposition": f'attachment; filename="{filename}"'})
