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

Import the driver through this module only (:mod:`graph.stores.neo4j` does).
"""

from __future__ import annotations

import sys
import types

__all__ = ["OPTIONAL_DEPS", "without_optional_deps"]

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


without_optional_deps()
