"""The notebook client's former import path: ``from app.client import Client`` still works.

Write ``from citegraph import Client`` instead (:mod:`citegraph.client`): a user's own ``app.py``
shadows this module, never that one.
"""

from citegraph.client import Client, ClientError, GraphQLRequestError

__all__ = ["Client", "ClientError", "GraphQLRequestError"]
