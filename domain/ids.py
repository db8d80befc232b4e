"""Typed ids: plain strings at run time, distinct names for the type checker (GRAMMAR §1).

Node ids are built from these by :mod:`graph.model` (``record_node_id`` and friends).
"""

from __future__ import annotations

from typing import NewType

__all__ = ["RecordId", "SourceId", "AnalysisSetId", "SetId", "DocumentId", "NodeId"]

RecordId = NewType("RecordId", str)
"""A record ID as written, e.g. ``RT-RTE-mcp-write`` (GRAMMAR §1.1)."""

SourceId = NewType("SourceId", str)
"""A source ID as written, e.g. ``SRC-1`` (GRAMMAR §1.2); unique within its set."""

AnalysisSetId = NewType("AnalysisSetId", str)
"""A set id: the run-id when the members carry one, else the system's slug."""

SetId = AnalysisSetId
"""Short name of :data:`AnalysisSetId`."""

DocumentId = NewType("DocumentId", str)
"""``<set>/<role>``, e.g. ``tolaria/synthesis``."""

NodeId = NewType("NodeId", str)
"""Any stored node's id (see the table in :mod:`graph.model`), e.g. ``tolaria/synthesis#L29``."""
