"""Result shapes declared once: the wire form of the frozen result dataclasses of ``queries/``.

A result dataclass *is* the shape every face answers with: its fields, in declaration order, are
the keys of the CLI's ``--json``, of the REST body and of the GraphQL type (camel-cased there by
strawberry). A field whose Python name cannot be the wire name (``from`` is a keyword) says its
wire name with ``field(metadata=wire("from"))`` (:mod:`domain.wire`, re-exported here, so that
``graph`` results can name theirs too). The faces build their types from the dataclass
(``app/rest/shapes.py``, ``app/graphql/shapes.py``); :func:`plain` is the one encoder to JSON.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, TypeVar

from domain.wire import WIRE, wire, wire_name

__all__ = ["WIRE", "wire", "wire_name", "plain", "revived"]

T = TypeVar("T")


def plain(value: Any) -> Any:
    """``value`` as JSON-compatible data: a result dataclass → a dict of its fields in declaration
    order under their wire names, tuples and lists → lists, dicts → dicts, recursively; other values as they are.

    >>> from dataclasses import dataclass, field
    >>> @dataclass(frozen=True)
    ... class Span:
    ...     from_line: int = field(metadata=wire("from"))
    ...     lines: tuple[int, ...] = ()
    >>> plain(Span(3, (3, 4)))
    {'from': 3, 'lines': [3, 4]}
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind in _NAMES or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return {wired: plain(getattr(value, name)) for name, wired in _names(kind)}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {wire: plain(getattr(value, name)) for name, wire in _names(type(value))}
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Types :func:`plain` returns as they are without looking further (their subclasses, such as an
enum of strings, go the general way)."""
_NAMES: dict[type, tuple[tuple[str, str], ...]] = {}
"""``(field name, wire name)`` of each result dataclass :func:`plain` has met, in declaration order."""


def _names(kind: type) -> tuple[tuple[str, str], ...]:
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple((f.name, wire_name(f)) for f in dataclasses.fields(kind))
    return names


def revived(kind: type[T], data: Any) -> T:
    """The result dataclass ``kind`` that :func:`plain` turned into ``data``: the inverse of
    :func:`plain` for result shapes (fields computed in ``__post_init__``, ``init=False``, are
    computed again, not read). Raises ``KeyError`` or ``TypeError`` for data of another shape.

    >>> from queries.impact import Occurrence
    >>> revived(Occurrence, plain(Occurrence("a.js", 2)))
    Occurrence(path='a.js', count=2)
    """
    result: T = _revived(kind, data)
    return result


def _revived(hint: Any, data: Any) -> Any:
    if data is None:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [h for h in typing.get_args(hint) if h is not type(None)]
        return _revived(options[0], data) if len(options) == 1 else data
    if origin in (tuple, list):
        item = typing.get_args(hint)[0]
        values = [_revived(item, v) for v in data]
        return tuple(values) if origin is tuple else values
    if origin is dict:
        value = typing.get_args(hint)[1]
        return {k: _revived(value, v) for k, v in data.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return hint(**{f.name: _revived(hints[f.name], data[wire_name(f)])
                       for f in dataclasses.fields(hint) if f.init})
    return data
