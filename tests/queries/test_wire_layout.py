"""A result that holds a domain object (``domain.wire.flat``) shows its fields in its place on
every face, and a GraphQL node type shows its domain class's fields without restating them."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import strawberry

from app.graphql.types import Record
from domain.ids import RecordId
from domain.model import Citation, Quotation, Section, Statement
from domain.wire import flat, wire_fields
from queries.documents import BlockCitation, BlockQuotation, document_tree
from queries.shapes import plain, revived


def test_a_stored_citation_is_flat_on_the_wire_with_its_node_id_in_place(seeds_store):
    tree = document_tree(seeds_store, "tolaria/synthesis")
    (block,) = [b for b in tree.blocks if b.id == "tolaria/synthesis#L11"]
    second = block.citations[1]
    assert plain(second) == {
        "target_kind": "record", "target": "RT-RTE-mcp-write", "node": "tolaria/RT-RTE-mcp-write",
        "token": "RT-RTE-mcp-write", "form": "citation", "start": 474, "end": 490, "span_start": 0, "span_end": 492,
    }
    assert list(plain(second)) == ["target_kind", "target", "node", "token", "form", "start", "end", "span_start",
                                   "span_end"]
    assert revived(BlockCitation, plain(second)) == BlockCitation(
        Citation("RT-RTE-mcp-write", "record", "RT-RTE-mcp-write", "citation", 474, 490, 0, 492),
        "tolaria/RT-RTE-mcp-write")


def test_a_flat_field_shows_every_field_of_its_object_when_none_is_named():
    quoted = BlockQuotation("d#Q3", Quotation("body", "src/a.js", "3-4"))
    assert plain(quoted) == {"node": "d#Q3", "text": "body", "path": "src/a.js", "lines": "3-4", "revision": None}
    assert revived(BlockQuotation, plain(quoted)) == quoted


def test_a_node_type_shows_the_fields_of_its_domain_class_in_their_order():
    from strawberry.types.base import get_object_definition

    shown = [f.name for f in get_object_definition(Record, strict=True).fields]
    assert shown[:11] == ["_id", "graph_id", "stored", "node_id", "label", "set_id", "record_id", "analyst", "kind",
                          "slug", "analysis_set"]


@dataclass(frozen=True)
class Marked:
    """A domain class of the test's own."""

    record_id: RecordId
    weight: int
    note: str | None = None


@dataclass(frozen=True)
class Held:
    """A result holding one."""

    node: str
    marked: Marked = field(metadata=flat())


def test_a_field_added_to_a_domain_class_reaches_the_graphql_type_it_is_flattened_into():
    from app.graphql.shapes import object_type

    held_type = object_type(Held, name="HeldForTest")

    def held() -> Held:
        return Held("n1", Marked(RecordId("RT-RTE-x"), 3))

    held.__annotations__["return"] = held_type
    query = strawberry.type(type("Query", (), {"held": strawberry.field(resolver=held)}))
    schema = strawberry.Schema(query=query)
    assert "type HeldForTest {\n  node: String!\n  recordId: String!\n  weight: Int!\n  note: String\n}" in str(schema)
    result = schema.execute_sync("{ held { node recordId weight note } }")
    assert result.errors is None
    assert result.data == {"held": {"node": "n1", "recordId": "RT-RTE-x", "weight": 3, "note": None}}



def test_a_block_holds_its_section_or_statement_and_shows_it_flat(seeds_store):
    tree = document_tree(seeds_store, "tolaria/synthesis")
    heading, sub, paragraph = tree.blocks[:3]
    assert isinstance(heading.block, Section) and isinstance(paragraph.block, Statement)
    shown = {k: v for k, v in plain(heading).items() if k != "props"}
    assert shown == {
        "id": "tolaria/synthesis#L3", "document": "tolaria/synthesis", "label": "Section", "kind": "section",
        "order": 1, "line": 3, "level": 2, "text": "Bounded synthesis", "markup": "Bounded synthesis", "gap": "\n",
        "parent": "tolaria/synthesis", "citations": [], "quotation": None,
    }
    assert list(plain(paragraph)) == ["id", "document", "label", "kind", "order", "line", "level", "text", "markup",
                                      "gap", "parent", "citations", "quotation", "props"]
    assert (paragraph.label, paragraph.level, paragraph.block.order, paragraph.parent) == (
        "Statement", 0, 3, sub.id)
    assert paragraph.text.startswith("Tolaria is a Markdown knowledge-base application")


def test_a_flat_field_names_only_what_its_object_or_result_has():
    @dataclass(frozen=True)
    class Misnamed:
        quotation: Quotation = field(metadata=flat("text", "pages"))

    with pytest.raises(TypeError, match=r"Misnamed\.quotation: 'pages' is no field of what it holds"):
        wire_fields(Misnamed)


def test_a_union_held_shows_only_the_fields_its_classes_share():
    @dataclass(frozen=True)
    class Either:
        block: Section | Statement = field(metadata=flat())

    assert [w.name for w in wire_fields(Either)] == ["node", "kind", "order", "line", "markup", "gap"]


def test_kept_rows_read_a_flattened_object_back():
    from queries.kept import rows_of

    @dataclass(frozen=True)
    class Quoted:
        node: str
        quotation: Quotation = field(metadata=flat("text", "node", "path", "lines", "revision"))
        spans: tuple[int, ...] = ()

    rows = (Quoted("d#Q3", Quotation("body", "src/a.js", "3-4"), (3, 4)), Quoted("d#Q9", Quotation("x", "b.js")))
    encode, decode = rows_of(Quoted)
    data = encode(rows)
    assert data == [
        {"text": "body", "node": "d#Q3", "path": "src/a.js", "lines": "3-4", "revision": None, "spans": [3, 4]},
        {"text": "x", "node": "d#Q9", "path": "b.js", "lines": None, "revision": None, "spans": []},
    ]
    assert decode(data) == rows
