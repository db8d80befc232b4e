"""GraphQL type of full-text search results (:mod:`queries.search`, issue #15), ``from_domain``."""

from __future__ import annotations

from typing import Optional

import strawberry
from strawberry.types import Info

from app.graphql.context import Context
from app.graphql.types import Statement, wrap
from queries.search import SearchReport

__all__ = ["SearchHit", "SearchResult"]

Ctx = Info[Context, None]


@strawberry.type(description="A character range `[start, end)` inside a snippet.")
class Highlight:
    start: int
    end: int


@strawberry.type(description="One statement holding the search text, in rank order.")
class SearchHit:
    rank: int
    statement: str = strawberry.field(description="Statement id, e.g. `tolaria/synthesis#L12` (for `graphNode`).")
    set: str
    document: str
    section: Optional[str]
    section_heading: Optional[str]
    kind: str
    line: int
    text: str
    snippet: str = strawberry.field(description="The text around the first match, `…` where cut.")
    highlights: list[Highlight] = strawberry.field(description="Each match inside `snippet`.")
    matches: int = strawberry.field(description="Occurrences of the search terms in the whole text.")

    @strawberry.field(description="The statement as a node (document, section, citations …).")
    async def statement_node(self, info: Ctx) -> Optional[Statement]:
        return wrap(await info.context.loaders.node(self.statement))


@strawberry.type(description="Statements holding every term of a search text, ranked: most matches first, then the "
                             "shorter statement, then document order.")
class SearchResult:
    query: str
    set: Optional[str]
    total: int = strawberry.field(description="How many statements hold it (all of them, not only `hits`).")
    hits: list[SearchHit]

    @classmethod
    def from_domain(cls, report: SearchReport) -> "SearchResult":
        return cls(query=report.query, set=report.set, total=report.total, hits=[
            SearchHit(rank=h.rank, statement=h.statement, set=h.set, document=h.document, section=h.section,
                      section_heading=h.section_heading, kind=h.kind, line=h.line, text=h.text, snippet=h.snippet,
                      highlights=[Highlight(start=a, end=b) for a, b in h.highlights], matches=h.matches)
            for h in report.hits])
