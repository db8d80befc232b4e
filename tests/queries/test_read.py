"""The read index answers domain objects by their node ids."""

from __future__ import annotations

import pytest

from domain.ids import AnalysisSetId
from domain.model import AnalysisSet
from graph.errors import AnalysisSetNotFound
from queries.read import GraphRead


def test_an_analysis_set_is_answered_as_its_domain_object(seeds_store):
    assert GraphRead(seeds_store).analysis_set("tolaria") == AnalysisSet(AnalysisSetId("tolaria"), "system/tolaria")


@pytest.mark.parametrize("asked", ["tolarya", "tolaria/synthesis"])
def test_an_id_naming_no_analysis_set_is_refused_with_the_closest(seeds_store, asked):
    with pytest.raises(AnalysisSetNotFound, match=f"no analysis set '{asked}' in the store") as raised:
        GraphRead(seeds_store).analysis_set(asked)
    assert raised.value.hint == "did you mean tolaria? the store holds 2 sets: talorys, tolaria"
