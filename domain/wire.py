"""Wire names and layout of result fields: the keys a result dataclass has on every face.

A result dataclass's field whose Python name cannot be its wire name (``from`` is a keyword, or the
attribute is ``set_id`` but every face says ``set``) says its wire name with
``field(metadata=wire("from"))``. A result that adds where a domain object sits (its node id, the
citing statement) holds that object in a field marked ``field(metadata=flat(…))``: on the wire the
object's fields stand in that field's place, so that the result never restates them and its JSON
keeps one flat shape. Here, on the ground floor, so that ``graph`` results
(:class:`graph.versions.SetVersion`) name their fields as ``queries`` results do;
:func:`wire_fields` is the one reading of both marks, for :func:`queries.shapes.plain` and the faces.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from functools import cache
from operator import attrgetter
from typing import Any
from collections.abc import Callable

__all__ = ["WIRE", "FLAT", "wire", "flat", "wire_name", "WireField", "wire_fields"]

WIRE = "citegraph.wire"
"""Key of a field's metadata naming it on the wire."""
FLAT = "citegraph.flat"
"""Key of a field's metadata flattening the domain object it holds (:func:`flat`)."""


def wire(name: str) -> dict[str, str]:
    """Field metadata naming the field ``name`` on every face: ``field(metadata=wire("from"))``."""
    return {WIRE: name}


def flat(*shown: str) -> dict[str, tuple[str, ...]]:
    """Field metadata flattening the domain dataclass the field holds into the result holding it:
    on every face the field is no key of its own, its object's fields stand in its place instead,
    only the ``shown`` ones and in that order when named (else all, in declaration order). A name
    in ``shown`` that is another field or a property of the holding result places that field or
    property there, so that a node id can stand between two of the object's fields:
    ``citation: Citation = field(metadata=flat("target_kind", "target", "node", "token"))``. The
    field may hold one of several domain classes (``Section | Statement``): it then shows only the
    fields every one of them has, with one type, and the holding result's properties (what
    differs between the classes, read one way)."""
    return {FLAT: shown}


def wire_name(f: dataclasses.Field[Any]) -> str:
    """The name field ``f`` has on the wire: its :func:`wire` name, else its own."""
    name: str = f.metadata.get(WIRE, f.name)
    return name


@dataclass(frozen=True, slots=True)
class WireField:
    """One key of a result's wire form: its ``name`` on the wire; the ``path`` of attribute names
    reading its value off the result (one name, or a flattened field's and then its object's); the
    class ``owner`` declaring the last of them (the result, or the flattened object's class, whose
    type hints give its type); ``read``, the value off a result; ``init``, whether ``owner``'s
    constructor takes it (a field computed in ``__post_init__`` is not taken)."""

    name: str
    path: tuple[str, ...]
    owner: type
    read: Callable[[Any], Any]
    init: bool = True

    @property
    def attribute(self) -> str:
        """The Python name of the field on its ``owner``."""
        return self.path[-1]

    @property
    def hint(self) -> Any:
        """The field's type, resolved (``typing.get_type_hints`` of ``owner``, or of the getter of
        ``owner``'s property)."""
        shown = getattr(self.owner, self.attribute, None)
        if isinstance(shown, property):
            return typing.get_type_hints(shown.fget)["return"]
        return typing.get_type_hints(self.owner)[self.attribute]


@cache
def wire_fields(cls: type) -> tuple[WireField, ...]:
    """The wire keys of result dataclass ``cls``, in order: each field under its wire name, a
    :func:`flat` field replaced by its object's (shown) fields.

    >>> from queries.documents import BlockCitation
    >>> [(w.name, ".".join(w.path)) for w in wire_fields(BlockCitation)][:4]
    [('target_kind', 'citation.target_kind'), ('target', 'citation.target'), ('node', 'node'), ('token', 'citation.token')]
    """
    own = {f.name: f for f in dataclasses.fields(cls)}
    placed = {name for f in own.values() for name in f.metadata.get(FLAT, ()) if name in own}
    out: list[WireField] = []
    for f in own.values():
        if FLAT not in f.metadata:
            if f.name not in placed:
                out.append(WireField(wire_name(f), (f.name,), cls, attrgetter(f.name), f.init))
            continue
        held, inner = _held(cls, f.name)
        for name in f.metadata[FLAT] or tuple(inner):
            if name in inner:
                g = inner[name]
                out.append(WireField(wire_name(g), (f.name, name), held, attrgetter(f"{f.name}.{name}"), g.init))
            elif name in own:
                g = own[name]
                out.append(WireField(wire_name(g), (name,), cls, attrgetter(name), g.init))
            elif isinstance(getattr(cls, name, None), property):
                out.append(WireField(name, (name,), cls, attrgetter(name), init=False))
            else:
                raise TypeError(f"{cls.__name__}.{f.name}: {name!r} is no field of what it holds, "
                                f"nor a field or property of {cls.__name__}")
    return tuple(out)


def _held(cls: type, name: str) -> tuple[type, dict[str, dataclasses.Field[Any]]]:
    """The domain class field ``name`` of ``cls`` holds (the first, for a union) and the fields
    it shows: every field of one class; of a union, those every class has with one type."""
    hint = typing.get_type_hints(cls)[name]
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    first = options[0]
    shared = {g.name: g for g in dataclasses.fields(first)}
    for other in options[1:]:
        theirs, hints = typing.get_type_hints(other), typing.get_type_hints(first)
        shared = {n: g for n, g in shared.items() if n in theirs and theirs[n] == hints[n]}
    return first, shared
