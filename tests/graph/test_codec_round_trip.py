"""Every field of a stored domain object survives the codec: written by its :mod:`graph.codec`
writer, read back by its reader, equal. A field added to a domain class with a default is no type
error anywhere, so this is what finds the writer and the reader that must change (or the field is
named in :data:`NOT_STORED`, with where it lives instead).

Each object is built with a distinct, non-default value in every field (from its type), so that a
field the writer drops or the reader leaves at its default fails here.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

import pytest

from domain.model import (AnalysisSet, Annotation, Declaration, Field, Member, NamedReference, Quotation, Record,
                          Section, Source, SourceFile, Statement, Status, TableRow)
from graph import codec
from graph.model import Label, Node

NODE = "set/role#L7"
"""The node id every object is stored under (what a field holding its node id reads back)."""

NOT_STORED: dict[type, dict[str, str]] = {
    Statement: {"citations": "CITES edges (codec.citation_props)", "run_on": "parse-time: split into field statements",
                "kind_statuses": "parse-time: stored on the declarations under the kind section",
                "continuation": "parse-time: joins a field's lines", "closes_record": "parse-time: ends a record body"},
    Field: {"route_ids": "parse-time: routes the field's citations"},
    TableRow: {"source_id": "parse-time: the Source register row's SRC-n names the Source node",
               "declares": "DECLARED_IN edge of the row's record", "aliases": "ALIAS_OF edges (codec.alias_props)"},
}
"""Domain fields no node property holds, per class, each with where it lives instead."""


def _value(name: str, hint: Any) -> Any:
    """A distinct non-default value of type ``hint`` for field ``name``."""
    if name in ("node", "section", "document_id", "set_id"):
        return NODE
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return _value(name, args[0])
    if typing.get_origin(hint) is tuple:
        return (Status("Conclusion status", "supported", "on review"),) if args[0] is Status else ("a", "b")
    base = getattr(hint, "__supertype__", hint)
    return {str: f"{name}-value", int: 7, bool: True}[base]


def _filled(cls: type, **fixed: Any) -> Any:
    hints = typing.get_type_hints(cls)
    skipped = NOT_STORED.get(cls, {})
    return cls(**{f.name: fixed.get(f.name, _value(f.name, hints[f.name])) for f in dataclasses.fields(cls)
                  if f.name not in skipped})


def _node(label: Label, props: dict[str, Any]) -> Node:
    return Node(NODE, label, "set", "set/role", props)


def _member_props(m: Member) -> dict[str, Any]:
    return codec.member_props(m, preamble="", trailer="", frontmatter={}, run_id=None)


Case = tuple[Any, Callable[[Any], dict[str, Any]], Label, Callable[[Node], Any]]
CASES: dict[str, Case] = {
    "Record": (_filled(Record), codec.record_props, Label.RECORD, codec.record_of),
    "Source": (_filled(Source), codec.source_props, Label.SOURCE, codec.source_of),
    "SourceFile": (_filled(SourceFile), codec.source_file_props, Label.SOURCE_FILE, codec.source_file_of),
    "NamedReference": (_filled(NamedReference), codec.named_reference_props, Label.NAMED_REFERENCE,
                       codec.named_reference_of),
    "AnalysisSet": (_filled(AnalysisSet), codec.analysis_set_props, Label.ANALYSIS_SET, codec.analysis_set_of),
    "Quotation": (_filled(Quotation), lambda q: codec.quotation_props(q, line=7), Label.QUOTATION, codec.quotation_of),
    "Member": (_filled(Member), _member_props, Label.DOCUMENT, codec.member_of),
    "Section": (_filled(Section), codec.section_props, Label.SECTION, codec.section_of),
    "Declaration": (_filled(Declaration), lambda d: codec.section_props(_filled(Section, kind="declaration"), d),
                    Label.SECTION, codec.declaration_of),
    "Annotation": (_filled(Annotation), lambda a: codec.section_props(_filled(Section, kind="annotation"),
                                                                       annotation=a),
                   Label.SECTION, codec.annotation_of),
    "Statement": (_filled(Statement), codec.statement_props, Label.STATEMENT, codec.statement_of),
    "Field": (_filled(Field), lambda f: codec.statement_props(_filled(Statement, kind="field"), f), Label.STATEMENT,
              codec.field_of),
    "TableRow": (_filled(TableRow), lambda r: codec.statement_props(_filled(Statement, kind="table_row"), row=r),
                 Label.STATEMENT, codec.table_row_of),
}


@pytest.mark.parametrize("name", CASES)
def test_every_stored_field_is_written_and_read_back(name):
    written, write, label, read = CASES[name]
    assert read(_node(label, write(written))) == written


def test_a_field_the_writer_drops_fails_the_round_trip():
    written, write, label, read = CASES["Declaration"]
    dropped = {k: v for k, v in write(written).items() if k != "heading_form"}
    assert read(_node(label, dropped)) == dataclasses.replace(written, form=None)
    assert read(_node(label, dropped)) != written
