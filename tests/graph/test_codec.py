"""graph.codec reads back what the loader wrote: table rows, fields and named references (the facts
the GraphQL node types read), with the defaults of a node that lacks their keys."""

from __future__ import annotations

import pytest

from domain.model import Field, NamedReference, TableRow
from graph.codec import field_of, named_reference_of, statement_of, table_row_of
from graph.model import Label, Node
from graph.stores.sqlite import SQLiteStore
from tests.conftest import ROOT, ingest_into

G2 = ROOT / "tests" / "fixtures" / "grammar" / "g2"


@pytest.fixture(scope="module")
def g2_statements() -> list[Node]:
    store = SQLiteStore(None)
    ingest_into(store, G2)
    return store.find_nodes(Label.STATEMENT)


def test_table_rows_are_the_header_and_row_statements_with_their_cells(g2_statements):
    rows = {n.id: table_row_of(n) for n in g2_statements}
    assert {statement_of(n).kind for n in g2_statements if rows[n.id] is not None} == {"table_header", "table_row"}
    assert {r.table for r in rows.values() if r is not None} == {"limitations", "register", "inventory"}
    assert all(r.cells and all(isinstance(c, str) for c in r.cells) for r in rows.values() if r is not None)
    header = next(n for n in g2_statements if statement_of(n).kind == "table_header")
    header_row = rows[header.id]
    assert header_row is not None and header_row.cells == tuple(c.strip() for c in statement_of(header).text.strip("|").split("|"))


def test_fields_are_the_field_statements(g2_statements):
    fields = [(statement_of(n), field_of(n)) for n in g2_statements]
    assert {s.kind for s, f in fields if f is not None} == {"field"}
    assert Field("Architectural status", "implemented", "line") in {f for _, f in fields}


def test_a_node_without_the_keys_reads_the_defaults():
    bare = Node("s/d#L1", Label.STATEMENT, "s", "s/d", {})
    assert table_row_of(bare) is None and field_of(bare) is None
    assert table_row_of(Node("s/d#L2", Label.STATEMENT, "s", "s/d", {"cells": ["a", 1]})) == TableRow(None, ("a", "1"))
    assert field_of(Node("s/d#L3", Label.STATEMENT, "s", "s/d", {"kind": "field"})) == Field("", "")
    assert named_reference_of(Node("s/ref/x", Label.NAMED_REFERENCE, "s", None, {})) == NamedReference("", "")
    assert named_reference_of(Node("s/ref/x", Label.NAMED_REFERENCE, "s", None, {"name": "X y", "slug": "x-y"})) \
        == NamedReference("X y", "x-y")
