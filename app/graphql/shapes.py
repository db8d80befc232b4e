"""GraphQL types built from the result dataclasses of ``queries/``, never written twice.

:func:`object_type` turns a result dataclass into a strawberry type with the same fields in the
same order (camel-cased by strawberry; a field with a wire name, :func:`queries.shapes.wire`, is
exposed under it), tuples as lists and nested result dataclasses as their own types. Resolvers
return the query's result object itself: strawberry reads each field off it by its Python name.
A result ``NamedTuple`` (a triple on the JSON faces) is a type with its named fields too.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Optional, Union
from collections.abc import Callable, Mapping

import strawberry

from app.graphql.pagination import keyed
from queries.shapes import WIRE

__all__ = ["object_type"]

_TYPES: dict[type, type] = {}


def object_type(cls: type, *, name: str | None = None, description: str | None = None,
                descriptions: dict[str, str] | None = None, added: dict[str, Any] | None = None,
                overrides: dict[str, tuple[Any, Any]] | None = None, names: dict[str, str] | None = None,
                hidden: tuple[str, ...] = (), key: Callable[[Any], tuple] | None = None,
                repeats: bool = False, after: dict[str, str] | None = None) -> type:
    """The strawberry type of result dataclass ``cls``, named ``name`` (default: the class name),
    with field ``descriptions`` (Python name → text) and ``added`` fields after the result's own
    (name → ``strawberry.field(resolver=…)``; a resolver's ``self`` is the result object), or
    right after the field ``after`` names (added name → Python name of a result field), and
    ``overrides`` of fields GraphQL shows in another form, in their place (name → (type,
    ``strawberry.field(resolver=…)``): a pair as an object with named ends) and GraphQL ``names``
    of fields (Python name → GraphQL name as written: ``{"node": "nodeId"}``; the other faces
    keep the field's own or wire name); ``hidden`` fields GraphQL does not show (what other
    faces or renderers read: a block's ``gap``); ``key``, for a type a Relay connection pages, the
    cursor key of a result object, and ``repeats`` when equal objects may stand in one list
    (:func:`app.graphql.pagination.keyed`). One type
    per class, so nested results must be given their type first when it is to have another name,
    a description or added fields.

    >>> from queries.impact import Occurrence
    >>> t = object_type(Occurrence, description="Occurrences of a quotation in one file.")
    >>> (t.__name__, [f.name for f in t.__strawberry_definition__.fields])
    ('Occurrence', ['path', 'count'])
    """
    if cls in _TYPES:
        return _TYPES[cls]
    hints = typing.get_type_hints(cls)
    namespace: dict[str, Any] = {"__annotations__": {}, "__doc__": None, "__module__": __name__}
    descriptions, overrides, names, added = descriptions or {}, overrides or {}, names or {}, added or {}
    for field_name, metadata in _fields(cls):
        if field_name in hidden:
            continue
        if field_name in overrides:
            namespace["__annotations__"][field_name], namespace[field_name] = overrides[field_name]
        else:
            namespace["__annotations__"][field_name] = _annotation(hints[field_name])
            if WIRE in metadata or field_name in descriptions or field_name in names:
                namespace[field_name] = strawberry.field(name=names.get(field_name, metadata.get(WIRE)),
                                                         description=descriptions.get(field_name))
        for placed in (n for n, follows in (after or {}).items() if follows == field_name):
            # strawberry orders fields as annotated: a resolver field annotated here keeps this place
            namespace["__annotations__"][placed] = added[placed].base_resolver.type_annotation
    namespace.update(added)
    made = strawberry.type(type(name or cls.__name__, (), namespace), name=name or cls.__name__,
                           description=description)
    _TYPES[cls] = made
    if key is not None:
        keyed(cls, key, repeats=repeats)
    return made


def _fields(cls: type) -> list[tuple[str, Mapping[str, Any]]]:
    """``(name, metadata)`` of each field of result dataclass ``cls``, or of result ``NamedTuple``
    ``cls`` (no metadata), in order."""
    if dataclasses.is_dataclass(cls):
        return [(f.name, f.metadata) for f in dataclasses.fields(cls)]
    return [(name, {}) for name in cls._fields]  # type: ignore[attr-defined]


def _is_shape(hint: Any) -> bool:
    """Whether ``hint`` is a result dataclass or a result ``NamedTuple``."""
    return dataclasses.is_dataclass(hint) or (isinstance(hint, type) and issubclass(hint, tuple)
                                              and hasattr(hint, "_fields"))


def _annotation(hint: Any) -> Any:
    """``hint`` with tuples as lists and result dataclasses (and NamedTuples) as their types."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if _is_shape(hint):
        return object_type(hint)
    if origin in (tuple, list):
        return types.GenericAlias(list, (_annotation(args[0]),))  # list[…] of a type made here
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1 and len(args) == 2:
            return Optional[_annotation(inner[0])]
    return hint
