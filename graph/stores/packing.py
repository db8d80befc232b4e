"""Property maps as the embedded store keeps them (store format 4): each node's or edge's JSON
text, deflated with a dictionary trained for its label or edge kind and kept in the file.

A packed value is a ``bytes`` of one byte, the dictionary's number (``dictionaries.id``, 1–255),
then raw deflate (zlib ``wbits`` −15) of the UTF-8 JSON with that dictionary preset; a value that
would not shrink, or whose label has no dictionary yet, stays the JSON text (``str``). Unpacking
gives back the very text packed, so what SQL builds from it (a version's digest, ``json_extract``)
is what format 3 gave. The statements' ``text`` and ``markup`` (and a field's ``value``, a row's
``cells``) repeat each other, and every row repeats its keys: deflate keeps each once, the
dictionary the keys and common words (at M, 68.5 MB of JSON take about 13 MB).

A dictionary is trained (:meth:`Packer.train`) in the write transaction that first writes at least
:data:`TRAIN_BYTES` of a label's JSON, from those rows, and is never changed after: a value names
the dictionary it was packed with, so another process finds it in the file.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

__all__ = ["Packer", "DICTIONARIES_TABLE", "TRAIN_BYTES"]

DICTIONARIES_TABLE = """CREATE TABLE IF NOT EXISTS dictionaries (
  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, zdict BLOB NOT NULL);"""
"""One row per trained dictionary: ``name`` is a node label or ``edge:KIND``."""

TRAIN_BYTES = 2_048
"""A label's JSON a write must hold before a dictionary is trained from it."""

DICTIONARY_BYTES = 16_384
"""A dictionary's size: deflate's window (what lies further back is never referred to)."""

LEVEL, MEM_LEVEL, WBITS = 3, 2, -14
"""Deflate's settings: a 16 KB window, as small a state as packs well (each value copies it)."""

RECENT_VALUES = 8_192
"""Values a packer remembers the text of, having packed them in the write under way (at most): a
write reads back what it wrote (the full-text index's triggers, the version's snapshot) without
inflating it."""

MIN_BYTES = 48
"""Shorter JSON (``{"order":3}``) is kept as text: deflate saves nothing on it."""


class Packer:
    """The dictionaries of one database, and packing / unpacking with them.

    ``unpack`` is registered on the connection as the SQL function ``unpacked(props)``, so SQL
    reads a packed value as the JSON text (``json_extract(unpacked(props), '$.text')``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._zdicts: dict[int, bytes] = {}
        self._by_name: dict[str, tuple[bytes, zlib._Compress]] = {}  # name → (its number as one byte, its deflate)
        self._packed: dict[bytes, str] = {}  # what this packer packed lately: the text of each value

    def load(self) -> None:
        """Read the dictionaries the connection sees (none when the table is not there yet): when
        opened, and when a value names a dictionary another process has trained since."""
        conn = self._conn
        self.forget()
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'dictionaries'").fetchone():
            return
        for number, name, zdict in conn.execute("SELECT id, name, zdict FROM dictionaries"):
            self._add(number, name, bytes(zdict))

    def begin_write(self) -> None:
        """A write begins: the values packed before it are no longer remembered."""
        self._packed.clear()

    def forget(self) -> None:
        """Drop every dictionary known (after a write rolled back, undoing what it trained): a value
        read then loads them again, a write finds each in the file as it trains."""
        self._zdicts.clear()
        self._by_name.clear()

    def _add(self, number: int, name: str, zdict: bytes) -> None:
        self._zdicts[number] = zdict
        self._by_name[name] = (bytes((number,)), zlib.compressobj(LEVEL, zlib.DEFLATED, WBITS, MEM_LEVEL,
                                                        zlib.Z_DEFAULT_STRATEGY, zdict))

    def train(self, rows: Iterable[tuple[str, str]]) -> None:
        """In the connection's write transaction, train and store a dictionary for each name of ``rows``
        (``(name, json)``) that has none and at least :data:`TRAIN_BYTES` of JSON among them: the
        last :data:`DICTIONARY_BYTES` of rows taken evenly across them (deflate prefers the most
        common strings last; every row sampled is real data of that name)."""
        grouped: dict[str, list[str]] = {}
        for name, text in rows:
            if name not in self._by_name:
                grouped.setdefault(name, []).append(text)
        for name, texts in sorted(grouped.items()):
            stored = self._conn.execute("SELECT id, zdict FROM dictionaries WHERE name = ?", (name,)).fetchone()
            if stored is not None:  # trained by another process since this one loaded
                self._add(stored[0], name, bytes(stored[1]))
                continue
            if sum(map(len, texts)) < TRAIN_BYTES:
                continue
            sample = bytearray()
            for text in texts[::max(1, len(texts) // 400)]:
                sample += text.encode()
            zdict = bytes(sample[-DICTIONARY_BYTES:])
            (number,) = self._conn.execute("INSERT INTO dictionaries (name, zdict) VALUES (?, ?) RETURNING id",
                                     (name, zdict)).fetchone()
            if number > 255:
                raise sqlite3.DatabaseError(f"more than 255 property dictionaries: {name}")
            self._add(number, name, zdict)

    def pack(self, name: str, text: str) -> str | bytes:
        """``text`` (JSON) packed with ``name``'s dictionary; ``text`` itself when it has none or
        packing would not make it shorter."""
        if len(text) < MIN_BYTES:
            return text
        found = self._by_name.get(name)
        if found is None:
            return text
        mark, base = found
        data = text.encode()
        deflate = base.copy()
        packed = b"".join((mark, deflate.compress(data), deflate.flush()))
        if len(packed) >= len(data):
            return text
        if len(self._packed) >= RECENT_VALUES:
            self._packed.clear()
        self._packed[packed] = text
        return packed

    def unpack(self, value: str | bytes | None) -> str | None:
        """:meth:`text`, and SQL's NULL as it is (the SQL function ``unpacked``)."""
        return None if value is None else self.text(value)

    def decoded_later(self, value: str | bytes) -> Mapping[str, Any]:
        """The property map of a stored value, decoded (inflated and parsed) when it is first read:
        a reader that never looks at an edge's properties (a closure walking its ends) does not pay
        for them. The value's dictionary is found now, in the caller's transaction.

        Raises
        ------
        sqlite3.DatabaseError
            The value names a dictionary the file does not hold; a value that does not inflate
            raises it when first read.
        """
        return _Decoded(value, None if isinstance(value, str) else self._zdict_of(value))

    def text(self, value: str | bytes) -> str:
        """The JSON text of a stored value (:meth:`pack`'s input).

        Raises
        ------
        sqlite3.DatabaseError
            The value names a dictionary the file does not hold, or does not inflate (damage).
        """
        if isinstance(value, str):
            return value
        known = self._packed.get(value)
        if known is not None:  # the write that packed it reads it back (its versions, the full-text index)
            return known
        return _inflated(value, self._zdict_of(value))

    def _zdict_of(self, value: bytes) -> bytes:
        """The dictionary a packed value names (read from the file when this process has not yet);
        ``sqlite3.DatabaseError`` when the file lacks it."""
        if value[0] not in self._zdicts:
            self.load()
        zdict = self._zdicts.get(value[0])
        if zdict is None:
            raise sqlite3.DatabaseError(f"a packed property map names dictionary {value[0]}, which the store lacks")
        return zdict


def _inflated(value: bytes, zdict: bytes) -> str:
    """The JSON text of a value packed with ``zdict``; ``sqlite3.DatabaseError`` when it does not
    inflate (damage)."""
    try:
        inflate = zlib.decompressobj(WBITS, zdict)
        return (inflate.decompress(value[1:]) + inflate.flush()).decode()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise sqlite3.DatabaseError(f"a packed property map does not unpack: {exc}") from None


class _Decoded(Mapping[str, Any]):
    """A stored property map (JSON text, or packed with dictionary ``zdict``), decoded on first
    read and kept (:meth:`Packer.decoded_later`); compared, iterated and read as the dict it holds.
    Read from several threads at once (a cached set graph's edges are shared), each gets the map."""

    __slots__ = ("_map", "_value", "_zdict")

    def __init__(self, value: str | bytes, zdict: bytes | None) -> None:
        self._value: str | bytes | None = value
        self._zdict = zdict
        self._map: dict[str, Any] | None = None

    def _decoded(self) -> dict[str, Any]:
        found = self._map
        if found is None:
            value = self._value
            if value is None:  # another thread decoded it meanwhile: it sets the map before it drops the value
                return self._map  # type: ignore[return-value]
            if isinstance(value, bytes):
                value = _inflated(value, self._zdict or b"")
            found = self._map = json.loads(value or "{}")
            self._value = None
        return found

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._decoded().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._decoded()

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())

    def __eq__(self, other: object) -> bool:
        return self._decoded() == (other._decoded() if isinstance(other, _Decoded) else other)

    __hash__ = None  # type: ignore[assignment]  # a dict's: unhashable

    def __repr__(self) -> str:
        return repr(self._decoded())
