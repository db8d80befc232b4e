"""citegraph's public API, the one name to import: ``from citegraph import Client, __version__``.

:class:`Client` talks to a citegraph server (``citegraph serve``) and answers with networkx graphs
and pandas DataFrames (:mod:`citegraph.client`). The command line is the ``citegraph`` command;
the library behind both lives in the repository's packages (``domain``, ``graph``, ``ingest``,
``queries``, ``render``, ``app``), which are installed beside this one and are not a public API.

>>> from citegraph import Client
>>> Client("http://127.0.0.1:8000/")
Client('http://127.0.0.1:8000')
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from citegraph.client import Client, ClientError, GraphQLRequestError

__all__ = ["Client", "ClientError", "GraphQLRequestError", "__version__"]

try:
    __version__: str = version("citegraph")
    """The installed distribution's version (``0.1.0``), as ``citegraph --version`` prints it."""
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
