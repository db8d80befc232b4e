"""A tiny hand-built analysis set for doctests: one plain-text synthesis member of set ``demo``.

::

    Demo synthesis
    Type: agentic-system-analyses/types/agentic-system-synthesis.md
    Bounded synthesis
    Writes replace the note (RT-RTE-x).
    Reads do not check it.

The member is built as nodes and edges directly (``queries`` does not import ``ingest``), exactly
as the loader would store it, so rebuilding it from ``preamble``, ``gap`` and ``markup`` gives
:data:`DEMO_TEXT` back.
"""

from __future__ import annotations

import hashlib
from typing import Any

from graph.model import DocumentGraph, Edge, EdgeKind, Label, Node, SetBatch
from graph.stores.sqlite import SQLiteStore

__all__ = ["DEMO_TEXT", "demo_store"]

DEMO_TEXT = (
    "Demo synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md\n"
    "Bounded synthesis\nWrites replace the note (RT-RTE-x).\nReads do not check it."
)
"""The demo member's exact text (no trailing newline, like the seeds)."""


def demo_store() -> SQLiteStore:
    """An in-memory store holding the demo member (see the module docstring).

    >>> sorted(n.id for n in demo_store().find_nodes(Label.STATEMENT))
    ['demo/synthesis#L4', 'demo/synthesis#L5']
    """
    set_id, doc_id = "demo", "demo/synthesis"
    data = DEMO_TEXT.encode("utf-8")
    preamble = "Demo synthesis\nType: agentic-system-analyses/types/agentic-system-synthesis.md"
    document = Node(doc_id, Label.DOCUMENT, set_id, doc_id, {
        "role": "synthesis", "title": "Demo synthesis",
        "member_type": "agentic-system-analyses/types/agentic-system-synthesis.md", "format": "txt",
        "path": "demo.txt", "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
        "preamble": preamble, "trailer": "", "frontmatter": {}, "run_id": None,
    })
    section = Node(f"{doc_id}#L3", Label.SECTION, set_id, doc_id, {
        "heading": "Bounded synthesis", "level": 2, "order": 1, "line": 3, "kind": "section",
        "markup": "Bounded synthesis", "gap": "\n"})
    writes = Node(f"{doc_id}#L4", Label.STATEMENT, set_id, doc_id, {
        "kind": "paragraph", "text": "Writes replace the note (RT-RTE-x).", "markup": "Writes replace the note (RT-RTE-x).",
        "gap": "\n", "order": 2, "line": 4})
    reads = Node(f"{doc_id}#L5", Label.STATEMENT, set_id, doc_id, {
        "kind": "paragraph", "text": "Reads do not check it.", "markup": "Reads do not check it.",
        "gap": "\n", "order": 3, "line": 5})
    record = Node("demo/RT-RTE-x", Label.RECORD, set_id, None,
                  {"record_id": "RT-RTE-x", "analyst": "RT", "kind": "RTE", "slug": "x"})
    system = Node("system/demo", Label.SYSTEM, None, None, {"name": "Demo", "slug": "demo"})
    analysis_set = Node(set_id, Label.ANALYSIS_SET, set_id, None,
                        {"system": "system/demo", "run_id": None, "reviewed_boundary": None})

    def owned(kind: EdgeKind, src: str, dst: str, **props: Any) -> Edge:
        return Edge(kind, src, dst, 0, doc_id, set_id, props)

    edges = (
        owned(EdgeKind.CONTAINS, set_id, doc_id, order=0),
        owned(EdgeKind.CONTAINS, doc_id, section.id, order=1),
        owned(EdgeKind.CONTAINS, section.id, writes.id, order=2),
        owned(EdgeKind.CONTAINS, section.id, reads.id, order=3),
        owned(EdgeKind.CITES, writes.id, record.id, form="citation", token="RT-RTE-x", target_kind="record",
              start=25, end=33, span_start=0, span_end=35),
    )
    store = SQLiteStore(None)
    store.write_set(SetBatch(
        set_id, (system, analysis_set, record),
        (DocumentGraph(document, (section, writes, reads), edges),),
        (Edge(EdgeKind.CONTAINS, "system/demo", set_id, 0, None, set_id, {"order": 0}),),
    ))
    return store
