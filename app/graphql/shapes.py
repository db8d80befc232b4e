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
from operator import attrgetter
from typing import Any, Optional, Union
from collections.abc import Callable

import strawberry

from app.graphql.pagination import keyed
from domain.wire import WireField, wire_fields

__all__ = ["object_type", "domain_fields"]

_TYPES: dict[type, type] = {}


def object_type(cls: type, *, name: str | None = None, description: str | None = None,
                descriptions: dict[str, str] | None = None, added: dict[str, Any] | None = None,
                overrides: dict[str, tuple[Any, Any]] | None = None, names: dict[str, str] | None = None,
                hidden: tuple[str, ...] = (), key: Callable[[Any], tuple] | None = None,
                repeats: bool = False, after: dict[str, str] | None = None, nullable: tuple[str, ...] = ()) -> type:
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
    (:func:`app.graphql.pagination.keyed`); ``nullable`` fields GraphQL types as nullable though
    the result always holds them. One type
    per class, so nested results must be given their type first when it is to have another name,
    a description or added fields.

    >>> from queries.impact import Occurrence
    >>> t = object_type(Occurrence, description="Occurrences of a quotation in one file.")
    >>> (t.__name__, [f.name for f in t.__strawberry_definition__.fields])
    ('Occurrence', ['path', 'count'])
    """
    if cls in _TYPES:
        return _TYPES[cls]
    namespace: dict[str, Any] = {"__annotations__": {}, "__doc__": None, "__module__": __name__}
    descriptions, overrides, names, added = descriptions or {}, overrides or {}, names or {}, added or {}
    for w in _fields(cls):
        field_name = w.attribute
        renamed = w.name if w.name != field_name else None  # a wire name, shown as written
        if field_name in hidden:
            continue
        if field_name in overrides:
            namespace["__annotations__"][field_name], namespace[field_name] = overrides[field_name]
        elif len(w.path) > 1:  # a flattened object's field: read off the object the result holds
            hint = _annotation(w.hint, nullable=field_name in nullable)
            namespace["__annotations__"][field_name] = hint
            namespace[field_name] = strawberry.field(resolver=_reader(w.read, hint), name=names.get(field_name, renamed),
                                                     description=descriptions.get(field_name))
        else:
            namespace["__annotations__"][field_name] = _annotation(w.hint, nullable=field_name in nullable)
            if renamed or field_name in descriptions or field_name in names:
                namespace[field_name] = strawberry.field(name=names.get(field_name, renamed),
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


def _fields(cls: type) -> tuple[WireField, ...]:
    """The wire fields of result dataclass ``cls`` (:func:`domain.wire.wire_fields`), or of result
    ``NamedTuple`` ``cls`` (each its own, in order)."""
    if dataclasses.is_dataclass(cls):
        return wire_fields(cls)
    return tuple(WireField(name, (name,), cls, attrgetter(name)) for name in cls._fields)  # type: ignore[attr-defined]


def domain_fields(cls: type, held: str, *, shown: tuple[str, ...] = (), names: dict[str, str] | None = None,
                  descriptions: dict[str, str] | None = None, nullable: tuple[str, ...] = (),
                  absent: bool = False) -> dict[str, tuple[Any, Any]]:
    """The GraphQL fields a node type shows of the domain dataclass ``cls`` it holds in attribute
    ``held``: Python name → (annotation, ``strawberry.field`` reading ``self.<held>.<field>``), in
    order, for the ``shown`` fields of ``cls`` (default: all, in declaration order), named as
    ``names`` says (domain name → Python name on the type: ``{"label": "field_label"}``), with
    ``descriptions`` (by domain name); ``nullable`` fields typed as nullable though ``cls`` always
    holds them, and with ``absent`` every field nullable and null when the node holds no such
    object (``held`` is None: a statement that is no field). Relation fields stay the type's own.

    >>> from domain.model import Record
    >>> list(domain_fields(Record, "record", shown=("record_id", "kind")))
    ['record_id', 'kind']
    """
    hints = typing.get_type_hints(cls)
    names, descriptions = names or {}, descriptions or {}
    out: dict[str, tuple[Any, Any]] = {}
    for name in shown or tuple(f.name for f in dataclasses.fields(cls)):
        hint = _annotation(hints[name], nullable=absent or name in nullable)
        read = _or_none(attrgetter(held), attrgetter(name)) if absent else attrgetter(f"{held}.{name}")
        out[names.get(name, name)] = (hint, strawberry.field(resolver=_reader(read, hint),
                                                             description=descriptions.get(name)))
    return out


def _or_none(get_held: Callable[[Any], Any], get: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``get`` of the object ``get_held`` reads, or None when there is none."""
    def read(node: Any) -> Any:
        held = get_held(node)
        return None if held is None else get(held)
    return read


def _reader(read: Callable[[Any], Any], hint: Any) -> Callable[..., Any]:
    """A resolver answering ``read(self)``, typed ``hint`` (a GraphQL annotation)."""

    def resolve(self: Any) -> Any:
        return read(self)

    resolve.__annotations__ = {"self": Any, "return": hint}
    return resolve


def _is_shape(hint: Any) -> bool:
    """Whether ``hint`` is a result dataclass or a result ``NamedTuple``."""
    if hasattr(hint, "__strawberry_definition__"):  # a GraphQL type already (a node type a result holds)
        return False
    return dataclasses.is_dataclass(hint) or (isinstance(hint, type) and issubclass(hint, tuple)
                                              and hasattr(hint, "_fields"))


def _annotation(hint: Any, *, nullable: bool = False) -> Any:
    """``hint`` with tuples as lists and result dataclasses (and NamedTuples) as their types;
    ``Optional`` with ``nullable``."""
    made = _graphql(hint)
    return made | None if nullable and typing.get_origin(made) not in (Union, types.UnionType) else made


def _graphql(hint: Any) -> Any:
    if isinstance(hint, typing.NewType):  # an id type (domain.ids): its GraphQL type is its base's
        return _graphql(hint.__supertype__)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if _is_shape(hint):
        return object_type(hint)
    if origin in (tuple, list):
        return types.GenericAlias(list, (_graphql(args[0]),))  # list[…] of a type made here
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1 and len(args) == 2:
            return Optional[_graphql(inner[0])]
    return hint
