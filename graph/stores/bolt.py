"""The Neo4j driver, imported without its optional numpy, pandas and pyarrow support.

The driver (5.x and 6.x) imports numpy, pandas and pyarrow in ``neo4j._optional_deps`` whenever
they are installed, so that query parameters may be numpy or pandas values and results may become
DataFrames (``Result.to_df``). citegraph uses neither: its parameters are built from JSON-shaped
Python values and its answers are decoded into :class:`~graph.model.Node` and
:class:`~graph.model.Edge`. With pandas installed (the ``notebook`` extra), those imports cost
about 0.8 s of every Neo4j command. :func:`driver_modules` puts an empty stand-in for
``neo4j._optional_deps`` in :data:`sys.modules` before the driver is first imported, so the driver
sees none of the three; where one of them is imported already (a notebook that imported pandas
first), or the driver was imported before, nothing is changed and the driver keeps its full
support.

Two more of the driver's modules spend most of an import building tables that a command rarely
reads: ``neo4j.time`` (leap years, days per year and per month for every year 1-9999: 140,000
entries, about 40 % of importing the driver) and ``neo4j._codec.packstream.v1`` (the packed and
unpacked forms of every 16-bit integer, used by the pure-Python packer that ``neo4j-rust-ext``
replaces). :func:`lazy_driver_tables` has them imported with each table as a :class:`Table`
that computes an entry, with the driver's own function, the first time it is read (every read of
them is a subscript, after the driver has checked the range). The driver's source is otherwise
unchanged; its compiled form is cached beside the driver's own (an ``opt-citegraph`` ``.pyc``).
When the source no longer holds the statements replaced (another driver version), the module is
imported as it is.

Import the driver through this module only (:mod:`graph.stores.neo4j` does).
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import marshal
import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["LAZY_TABLES", "OPTIONAL_DEPS", "Table", "lazy_driver_tables", "without_optional_deps"]

OPTIONAL_DEPS = "neo4j._optional_deps"
"""The driver's module that imports its optional numpy/pandas/pyarrow support."""

_NAMES = ("np", "pd", "pa", "pa_compute")  # what the driver's modules import from it


def without_optional_deps() -> bool:
    """Make the driver's next first import see no numpy, pandas or pyarrow.

    Returns ``True`` when the stand-in was installed (or had been), ``False`` when the driver or
    one of the three libraries was imported already, so the driver imports (or has) its own
    optional support. Idempotent; touches nothing but ``sys.modules[OPTIONAL_DEPS]``.
    """
    present = sys.modules.get(OPTIONAL_DEPS)
    if present is not None:
        return getattr(present, "__citegraph_stand_in__", False)
    if "neo4j" in sys.modules or any(name in sys.modules for name in ("numpy", "pandas", "pyarrow")):
        return False
    stand_in = types.ModuleType(OPTIONAL_DEPS, "citegraph's stand-in: no numpy, pandas or pyarrow support")
    for name in _NAMES:
        setattr(stand_in, name, None)
    vars(stand_in).update({"__all__": list(_NAMES), "__citegraph_stand_in__": True})
    sys.modules[OPTIONAL_DEPS] = stand_in
    return True


class Table(dict[Any, Any]):
    """A dict whose missing entry ``key`` is computed as ``compute(*key)`` (a tuple key) or
    ``compute(key)`` when first read, then kept. Only subscripting computes: ``in``, ``len`` and
    iteration see the entries read so far."""

    def __init__(self, compute: Callable[..., Any]):
        super().__init__()
        self._compute = compute

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self._compute(*key) if isinstance(key, tuple) else self._compute(key)
        return value


LAZY_TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "neo4j.time": (
        ("_IS_LEAP_YEAR = {\n    year: _is_leap_year(year) for year in range(MIN_YEAR, MAX_YEAR + 1)\n}",
         "_IS_LEAP_YEAR = _citegraph_table(_is_leap_year)"),
        ("_DAYS_IN_YEAR = {\n    year: _days_in_year(year) for year in range(MIN_YEAR, MAX_YEAR + 1)\n}",
         "_DAYS_IN_YEAR = _citegraph_table(_days_in_year)"),
        (("_DAYS_IN_MONTH = {\n    (year, month): _days_in_month(year, month)\n"
          "    for year in range(MIN_YEAR, MAX_YEAR + 1)\n    for month in range(1, 13)\n}"),
         "_DAYS_IN_MONTH = _citegraph_table(_days_in_month)"),
    ),
    "neo4j._codec.packstream.v1": (
        ('PACKED_UINT_16 = [struct_pack(">H", value) for value in range(0x10000)]',
         'PACKED_UINT_16 = _citegraph_table(lambda value: struct_pack(">H", value))'),
        ('UNPACKED_UINT_16 = {struct_pack(">H", x): x for x in range(0x10000)}',
         'UNPACKED_UINT_16 = _citegraph_table(lambda packed: struct_unpack(">H", packed)[0])'),
    ),
}
"""Per driver module, the exact statements replaced and what replaces each (its tables made
:class:`Table` s, ``_citegraph_table`` in the module's namespace)."""

_CACHE_TAG = "citegraph"  # the .pyc's optimization tag: ``__init__.cpython-311.opt-citegraph.pyc``


class _TablesLoader(importlib.machinery.SourceFileLoader):
    """The driver module's own source with :data:`LAZY_TABLES` 's statements replaced, compiled
    once into its own ``.pyc`` (stamped with the source's mtime and size, and the replacements)."""

    def __init__(self, fullname: str, path: str, replacements: Sequence[tuple[str, str]]):
        super().__init__(fullname, path)
        self._replacements = tuple(replacements)

    def get_code(self, fullname: str) -> types.CodeType | None:
        source_stat = self.path_stats(self.path)
        stamp = (importlib.util.MAGIC_NUMBER, int(source_stat["mtime"] * 1e9), source_stat.get("size"),
                 self._replacements)
        cache = importlib.util.cache_from_source(self.path, optimization=_CACHE_TAG)
        try:
            with open(cache, "rb") as kept:
                kept_stamp, code = marshal.load(kept)
            if kept_stamp == stamp and isinstance(code, types.CodeType):
                return code
        except (OSError, EOFError, ValueError, TypeError):
            pass
        text = self.get_data(self.path).decode("utf-8")
        if not all(old in text for old, _ in self._replacements):
            return super().get_code(fullname)  # another driver version: imported as it is
        for old, new in self._replacements:
            text = text.replace(old, new)
        code = compile(text, self.path, "exec", dont_inherit=True)
        partial = f"{cache}.{os.getpid()}"
        try:  # written whole under another name, then renamed: a reader never sees half of it
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            with open(partial, "wb") as out:
                marshal.dump((stamp, code), out)
            os.replace(partial, cache)
        except OSError:  # a read-only install (or a full disk) compiles on every first import
            with contextlib.suppress(OSError):
                os.unlink(partial)  # nothing half-written is left beside the driver
        return code

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__["_citegraph_table"] = Table
        super().exec_module(module)


class _TablesFinder:
    """A :data:`sys.meta_path` finder (``importlib.abc.MetaPathFinder``'s protocol; not its
    subclass, which would import ``importlib.resources``, 10-30 ms): finds the modules of
    :data:`LAZY_TABLES` as the path finder does, loaded by :class:`_TablesLoader`."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        replacements = LAZY_TABLES.get(fullname)
        if replacements is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = _TablesLoader(fullname, spec.origin, replacements)
        return spec


def lazy_driver_tables() -> bool:
    """Have the modules of :data:`LAZY_TABLES` imported with lazy tables from now on.

    Returns ``True`` when the finder is (or was already) in place, ``False`` when one of those
    modules is imported already (then the driver keeps its full tables). Idempotent.
    """
    if any(isinstance(finder, _TablesFinder) for finder in sys.meta_path):
        return True
    if any(name in sys.modules for name in LAZY_TABLES):
        return False
    sys.meta_path.insert(0, _TablesFinder())
    return True


without_optional_deps()
lazy_driver_tables()
