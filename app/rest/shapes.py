"""REST response models built from the result dataclasses of ``queries/``, never written twice.

:func:`response_model` turns a result dataclass into the pydantic model FastAPI documents and
validates the body with: the same fields in the same order, under their wire names
(:func:`queries.shapes.wire_name`), every one required (a result always holds each key), tuples as
lists and nested result dataclasses as their own models. A route answers
``Model.model_validate(plain(result))`` or simply ``plain(result)``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from queries.shapes import wire_name

__all__ = ["response_model", "listing"]

_NAMES: dict[type, str] = {}
_ADDED: dict[type, dict[str, Any]] = {}


def response_model(cls: type, name: str | None = None, *, added: dict[str, Any] | None = None) -> type[BaseModel]:
    """The pydantic model of result dataclass ``cls``, named ``name`` in the OpenAPI schema
    (default ``<cls name>Out``), with the ``added`` fields (name → type) a REST body adds after
    the result's own (``count``); one model per class (a second call returns the first).

    >>> from queries.impact import Occurrence
    >>> model = response_model(Occurrence)
    >>> (model.__name__, list(model.model_fields))
    ('OccurrenceOut', ['path', 'count'])
    """
    if name is not None:
        _NAMES.setdefault(cls, name)
    if added is not None:
        _ADDED.setdefault(cls, added)
    return _model(cls)


def listing(item: type[BaseModel], name: str, doc: str) -> type[BaseModel]:
    """The model of a REST list body named ``name``: ``data``, a list of ``item``, and its ``count``.

    >>> from queries.impact import Occurrence
    >>> list(listing(response_model(Occurrence), "OccurrencesOut", "Occurrences.").model_fields)
    ['data', 'count']
    """
    return create_model(name, __doc__=doc, data=(list[item], ...), count=(int, ...))  # type: ignore[valid-type]


@cache
def _model(cls: type) -> type[BaseModel]:
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        annotation = _annotation(hints[f.name])
        name = wire_name(f)
        if name == f.name:
            fields[f.name] = (annotation, ...)
        else:
            fields[f"{name}_"] = (annotation, Field(alias=name))
    fields.update({k: (v, ...) for k, v in _ADDED.get(cls, {}).items()})
    return create_model(_NAMES.get(cls, f"{cls.__name__}Out"), __doc__=_summary(cls),
                        __config__=ConfigDict(populate_by_name=True), **fields)


def _annotation(hint: Any) -> Any:
    """``hint`` with tuples as lists and result dataclasses as their models."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _model(hint)
    if origin is tuple:
        return types.GenericAlias(list, (_annotation(args[0]),))  # list[…] of a type made here
    if origin in (list, set, frozenset):
        return types.GenericAlias(list, (_annotation(args[0]),))
    if origin is dict:
        return types.GenericAlias(dict, (_annotation(args[0]), _annotation(args[1])))
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1 and len(args) == 2:
            return Optional[_annotation(inner[0])]
        return Union[tuple(_annotation(a) for a in args)]
    return hint


def _summary(cls: type) -> str:
    """The first paragraph of ``cls``'s docstring, for the schema's description."""
    return (cls.__doc__ or "").strip().split("\n\n")[0]
