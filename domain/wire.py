"""Wire names of result fields: the name a field of a result dataclass has on every face.

A result dataclass's field whose Python name cannot be its wire name (``from`` is a keyword, or the
attribute is ``set_id`` but every face says ``set``) says its wire name with
``field(metadata=wire("from"))``. Here, on the ground floor, so that ``graph`` results
(:class:`graph.versions.SetVersion`) name their fields as ``queries`` results do;
:func:`queries.shapes.plain` and the faces read it.
"""

from __future__ import annotations

from typing import Any

import dataclasses

__all__ = ["WIRE", "wire", "wire_name"]

WIRE = "citegraph.wire"
"""Key of a field's metadata naming it on the wire."""


def wire(name: str) -> dict[str, str]:
    """Field metadata naming the field ``name`` on every face: ``field(metadata=wire("from"))``."""
    return {WIRE: name}


def wire_name(f: dataclasses.Field[Any]) -> str:
    """The name field ``f`` has on the wire: its :func:`wire` name, else its own."""
    name: str = f.metadata.get(WIRE, f.name)
    return name
