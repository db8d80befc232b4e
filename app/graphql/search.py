"""GraphQL types of full-text search results: the :mod:`queries.search` result shapes, built
by :func:`app.graphql.shapes.object_type`; highlights shown as ``{start, end}`` objects."""

from __future__ import annotations

from typing import Optional

import strawberry
from strawberry.types import Info

from app.graphql.context import Context
from app.graphql.types import Statement, wrap_as
from app.graphql.shapes import object_type
from queries import search as domain

__all__ = ["SearchHit", "SearchResult"]

Ctx = Info[Context, None]


@strawberry.type(description="A character range `[start, end)` inside a snippet.")
class Highlight:
    start: int
    end: int


def _highlights(self: domain.SearchHit) -> list[Highlight]:
    return [Highlight(start=a, end=b) for a, b in self.highlights]


async def _statement_node(self: domain.SearchHit, info: Ctx) -> Optional[Statement]:
    return wrap_as(Statement, await info.context.loaders.node(self.statement))


SearchHit = object_type(
    domain.SearchHit, description="One statement holding the search text, in rank order.",
    descriptions={"statement": "Statement id, e.g. `tolaria/synthesis#L12` (for `graphNode`).",
                  "snippet": "The text around the first match, `…` where cut.",
                  "matches": "Occurrences of the search terms in the whole text."},
    overrides={"highlights": (list[Highlight], strawberry.field(resolver=_highlights,
                                                                description="Each match inside `snippet`."))},
    added={"statement_node": strawberry.field(resolver=_statement_node,
                                              description="The statement as a node (document, section, citations …).")})
SearchResult = object_type(
    domain.SearchReport, name="SearchResult",
    description="Statements holding every term of a search text, ranked: most matches first, then the "
                "shorter statement, then document order.",
    descriptions={"total": "How many statements hold it (all of them, not only `hits`)."})
