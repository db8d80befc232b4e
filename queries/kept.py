"""Per-set results kept in the store and reused while their set stands as it was.

Whole-store ``stats``, ``sets``, ``check`` and ``verify`` are each a union of per-set results:
every rule, count and round trip reads one analysis set's rows (its nodes and the edges whose
``set_id`` it is; the only edges between sets are a System's ``CONTAINS`` edge into the set,
which has the set's ``set_id``). :func:`per_set` computes each set's result with the same code
whatever the store, and on a store that keeps results (:class:`graph.store.KeepsSetResults`: the
embedded store and Neo4j) reads it back instead while the set's stamp is unchanged, so a whole-store command
costs what changed since it last ran, not what the store holds. A result is kept as the JSON of
:func:`queries.shapes.plain` (the faces' own shape) and read back into the same dataclass, so a
kept answer is byte for byte the fresh one (``tests/queries/test_kept.py`` checks it on every
real set and on a generated corpus).

A kept result is also tied to the code that computed it: its name carries a digest of the sources
of the packages that compute results (:data:`CODE_PACKAGES`), so a changed rule recomputes.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast
from collections.abc import Callable, Mapping, Sequence

from graph.store import GraphStore, KeepsSetResults
from queries.shapes import plain, wire_fields

__all__ = ["per_set", "code_digest", "CODE_PACKAGES", "rows_of"]

T = TypeVar("T")

CODE_PACKAGES = ("domain", "graph", "queries", "render")
"""The packages whose Python sources :func:`code_digest` covers (everything a set result is
computed by; ``ingest`` and ``app`` only write sets and show results)."""

_ROOT = Path(__file__).resolve().parent.parent
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The first 16 hex digits of the SHA-256 over the ``.py`` files of :data:`CODE_PACKAGES`
    (paths and bytes, in path order): a kept result of other code is never read."""
    h = hashlib.sha256()
    for package in CODE_PACKAGES:
        for path in sorted((_ROOT / package).rglob("*.py")):
            h.update(str(path.relative_to(_ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def per_set(store: GraphStore, name: str, set_ids: Sequence[str], compute: Callable[[str], T], *,
            encode: Callable[[T], object], decode: Callable[[object], T], fresh: bool = False,
            reusable: Callable[[T], bool] = lambda result: True,
            progress: Callable[[int, int], None] | None = None,
            compute_many: Callable[[list[str]], Mapping[str, T]] | None = None) -> dict[str, T]:
    """``compute(set_id)`` for each of ``set_ids``, or the result kept for it.

    Parameters
    ----------
    name : str
        What the result is (``check``, ``stats``…); kept under ``name@``:func:`code_digest`.
    compute : callable
        One set's result from the store; it must read only that set's rows.
    encode, decode : callable
        The result to JSON-compatible data and back (``decode(encode(r)) == r``).
    fresh : bool
        Compute every set again (and keep what was computed).
    reusable : callable
        Whether a computed result may be kept (a round trip that failed carries a diff of files on
        disk, which may change without the set changing: it is never kept).
    progress : callable, optional
        ``progress(done, total)`` after each set (units: sets).
    compute_many : callable, optional
        The results of many sets at once (a store's one query for them all): when given, it is
        called once with the sets whose result is not kept, in their order, instead of ``compute``.

    Returns
    -------
    dict
        Set id → result, in the order of ``set_ids``. On a store without
        :class:`~graph.store.KeepsSetResults` every result is computed.
    """
    keeper = store if isinstance(store, KeepsSetResults) else None
    key = f"{name}@{code_digest()}"
    stamps = keeper.set_stamps(set_ids) if keeper is not None else {}
    kept = keeper.kept_results(key, stamps) if keeper is not None and not fresh else {}
    out: dict[str, T] = {}
    computed: dict[str, tuple[int, bytes]] = {}
    many: Mapping[str, T] | None = None
    for done, set_id in enumerate(set_ids):
        if progress is not None:
            progress(done, len(set_ids))
        if set_id in kept:
            out[set_id] = decode(json.loads(kept[set_id]))
            continue
        if compute_many is not None and many is None:
            many = compute_many([s for s in set_ids if s not in kept])
        result = out[set_id] = many[set_id] if many is not None else compute(set_id)
        if set_id in stamps and reusable(result):
            computed[set_id] = (stamps[set_id], _dumps(encode(result)).encode("utf-8"))
    if progress is not None:
        progress(len(set_ids), len(set_ids))
    if computed and keeper is not None:
        keeper.keep_results(key, computed)
    return out


def rows_of(cls: type[T]) -> tuple[Callable[[Sequence[T]], object], Callable[[object], tuple[T, ...]]]:
    """``(encode, decode)`` for a tuple of result dataclasses ``cls`` whose wire fields
    (:func:`queries.shapes.wire_fields`) are scalars or tuples of scalars: :func:`queries.shapes.plain`
    of it, and back. A flattened domain object is built again from its fields on the wire (of one
    class, showing every field its constructor needs); the result's properties are not read back."""
    keys = [w for w in wire_fields(cast(type, cls)) if w.init]
    own = [(w.attribute, w.name) for w in keys if len(w.path) == 1]
    held: dict[str, tuple[type, list[tuple[str, str]]]] = {}
    for w in keys:
        if len(w.path) == 2:
            held.setdefault(w.path[0], (w.owner, []))[1].append((w.attribute, w.name))

    def value(row: dict[str, Any], key: str) -> Any:
        return tuple(row[key]) if isinstance(row[key], list) else row[key]

    def decode(rows: object) -> tuple[T, ...]:
        assert isinstance(rows, list)
        return tuple(cls(**{name: value(row, key) for name, key in own},
                         **{name: kind(**{attr: value(row, key) for attr, key in shown})
                            for name, (kind, shown) in held.items()}) for row in rows)

    return plain, decode
