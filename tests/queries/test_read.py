"""The read index answers domain objects by their node ids."""

from __future__ import annotations

import pytest

from domain.ids import AnalysisSetId, RecordId
from domain.model import AnalysisSet, Record
from graph.errors import AnalysisSetNotFound
from graph.model import Label
from queries.read import GraphRead


def test_an_analysis_set_is_answered_as_its_domain_object(seeds_store):
    assert GraphRead(seeds_store).analysis_set("tolaria") == AnalysisSet(AnalysisSetId("tolaria"), "system/tolaria")


@pytest.mark.parametrize("asked", ["tolarya", "tolaria/synthesis"])
def test_an_id_naming_no_analysis_set_is_refused_with_the_closest(seeds_store, asked):
    with pytest.raises(AnalysisSetNotFound, match=f"no analysis set '{asked}' in the store") as raised:
        GraphRead(seeds_store).analysis_set(asked)
    assert raised.value.hint == "did you mean tolaria? the store holds 2 sets: talorys, tolaria"


def test_nodes_are_answered_with_their_ids_and_domain_objects_decoded_once(seeds_store):
    read = GraphRead(seeds_store)
    (record,) = read.records_named("RT-RTE-mcp-write", "tolaria")
    assert (record.id, record.label, record.set_id, record.document_id) == (
        "tolaria/RT-RTE-mcp-write", Label.RECORD, "tolaria", None)
    assert record.record == Record(RecordId("RT-RTE-mcp-write"), "RT", "RTE", "mcp-write")
    assert record.record is record.record
    document = read.document("tolaria/synthesis")
    assert (document.id, document.member.role, document.member.title) == ("tolaria/synthesis", "synthesis",
                                                                          "Tolaria synthesis")
    assert read.nodes(["tolaria/RT-RTE-mcp-write", "tolaria/nowhere"])[1] is None
    assert read.nodes(["tolaria/RT-RTE-mcp-write"])[0].record == record.record  # type: ignore[union-attr]
