"""The ground floor: the analysis-set grammar, typed ids and the model's concepts as frozen objects.

``domain`` does no I/O and imports no other citegraph package (checked by the import-linter
contract in ``pyproject.toml``); ``ingest``, ``graph``, ``queries``, ``render`` and ``bench`` build
on it. :mod:`domain.grammar` holds the rules of ``GRAMMAR.md``, :mod:`domain.ids` the typed ids and
:mod:`domain.model` one frozen type per concept and :mod:`domain.wire` the wire names of result
fields; :mod:`graph.codec` maps the concepts onto stored nodes and edges.
"""
