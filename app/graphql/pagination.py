"""Relay connections with key cursors: every list field pages through items in one stable order.

A cursor is the item's sort key (a tuple of strings and integers), JSON-encoded and base64'd, so a
cursor stays meaningful when items are added or removed elsewhere in the list: ``after: c`` is
"the items whose key is greater than the key in ``c``", whatever their position now.
"""

from __future__ import annotations

import base64
import binascii
import json
from bisect import bisect_left, bisect_right
from typing import Any, Protocol
from collections.abc import Callable, Iterable, Sequence

import strawberry
from strawberry import relay
from strawberry.relay.types import NodeType
from strawberry.types import Info

from graph.errors import CitegraphError, QueryLimitExceeded

__all__ = ["Keyed", "Connection", "connection_of", "keyed", "cursor_key", "encode_cursor", "decode_cursor", "page_size"]

_PREFIX = "cg:"


class Keyed(Protocol):
    """An item of a connection: ``cursor_key()`` gives its sort key, unique within the list."""

    def cursor_key(self) -> tuple: ...


_KEYS: dict[type, Callable[[Any], tuple]] = {}
_REPEATS: set[type] = set()


def keyed(cls: type, key: Callable[[Any], tuple], *, repeats: bool = False) -> None:
    """Page the instances of ``cls`` (a result dataclass a resolver returns as it is, with no
    ``cursor_key`` method of its own) by ``key(item)``; with ``repeats``, equal items (of equal
    keys) may stand in one list, and each one's key is then followed by its rank among them in
    the list (0, 1, …), so that keys stay unique."""
    _KEYS[cls] = key
    if repeats:
        _REPEATS.add(cls)


def cursor_key(item: Any) -> tuple:
    """The sort key of connection item ``item``: its type's :func:`keyed` key, else ``item.cursor_key()``."""
    key = _KEYS.get(type(item))
    return key(item) if key is not None else item.cursor_key()


def _keys(items: Sequence[Any]) -> list[tuple]:
    """The cursor key of each of ``items``, ranks added for types that repeat (see :func:`keyed`)."""
    ranks: dict[tuple, int] = {}
    out = []
    for item in items:
        key = tuple(cursor_key(item))
        if type(item) in _REPEATS:
            rank = ranks[key] = ranks.get(key, -1) + 1
            key = (*key, rank)
        out.append(key)
    return out


def encode_cursor(key: Sequence[Any]) -> str:
    """Opaque cursor of a sort key: ``base64("cg:" + JSON list)``."""
    return base64.b64encode((_PREFIX + json.dumps(list(key), separators=(",", ":"))).encode()).decode()


def decode_cursor(cursor: str) -> list:
    """Sort key inside ``cursor``.

    Raises
    ------
    CitegraphError
        ``cursor`` was not made by :func:`encode_cursor` (``BAD_REQUEST``).
    """
    try:
        text = base64.b64decode(cursor.encode(), validate=True).decode()
        if not text.startswith(_PREFIX):
            raise ValueError(text)
        key = json.loads(text[len(_PREFIX):])
        if not isinstance(key, list):
            raise ValueError(text)
        return key
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise CitegraphError(f"invalid cursor {cursor!r}",
                             hint="pass a pageInfo.endCursor or edge cursor of the same list") from None


def _comparable(key: Sequence[Any]) -> list:
    """Key as a list of (type rank, value) pairs, so a decoded cursor never fails to compare."""
    return [(0, v) if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, str(v)) for v in key]


def page_size(info: Info, first: int | None, last: int | None) -> tuple[int | None, int | None]:
    """``first``/``last`` checked against the schema's page limits; ``first`` defaults to the
    default page size when neither is given.

    Raises
    ------
    CitegraphError
        A negative ``first`` or ``last`` (``BAD_REQUEST``).
    QueryLimitExceeded
        ``first`` or ``last`` above the maximum page size (``LIMIT_EXCEEDED``); never clamped.
    """
    limits = info.schema.limits  # type: ignore[attr-defined]
    for name, value in (("first", first), ("last", last)):
        if value is None:
            continue
        if value < 0:
            raise CitegraphError(f"{name} must be >= 0, not {value}")
        if value > limits.max_page_size:
            raise QueryLimitExceeded(f"{name} must be at most {limits.max_page_size}, not {value}",
                                     hint="walk the list page by page with `after: pageInfo.endCursor`")
    if first is None and last is None:
        first = limits.default_page_size
    return first, last


@strawberry.type(description="A page of a list in a stable order: `first` (default 50, at most 200) items "
                             "`after` a cursor, or `last` items `before` one.")
class Connection(relay.Connection[NodeType]):
    total_count: int = strawberry.field(description="Number of items in the whole list (every page), after filters.")

    @classmethod
    def resolve_connection(
        cls,
        nodes: Iterable[NodeType],  # type: ignore[override]  # never async: every resolver answers a list
        *,
        info: Info,
        before: str | None = None,
        after: str | None = None,
        first: int | None = None,
        last: int | None = None,
        max_results: int | None = None,
        **kwargs: Any,
    ) -> Connection[NodeType]:
        """Slice ``nodes`` (sorted by :func:`cursor_key`, keys unique) the Relay way.

        Raises
        ------
        CitegraphError, QueryLimitExceeded
            See :func:`page_size` and :func:`decode_cursor`.
        """
        first, last = page_size(info, first, last)
        items = list(nodes)
        raw = _keys(items)
        keys = [_comparable(k) for k in raw]
        start, end = 0, len(items)
        if after is not None:
            start = bisect_right(keys, _comparable(decode_cursor(after)))
        if before is not None:
            end = max(start, bisect_left(keys, _comparable(decode_cursor(before))))
        if first is not None:
            end = min(end, start + first)
        if last is not None:
            start = max(start, end - last)
        edges = [relay.Edge(cursor=encode_cursor(key), node=n)
                 for key, n in zip(raw[start:end], items[start:end])]
        return cls(
            edges=edges,
            total_count=len(items),
            page_info=relay.PageInfo(
                has_next_page=end < len(items),
                has_previous_page=start > 0,
                start_cursor=edges[0].cursor if edges else None,
                end_cursor=edges[-1].cursor if edges else None,
            ),
        )


def connection_of(item: object) -> type[Connection[Any]]:
    """``Connection[item]`` for an ``item`` type that is not a relay node (a finding, a kept
    version, a citation): strawberry pages any object type, its type variable's bound (``Node``)
    binds only the type checker. ``item`` may be a type's name (a forward reference)."""
    return Connection[item]  # type: ignore[valid-type]  # a type made at run time, as strawberry reads it
