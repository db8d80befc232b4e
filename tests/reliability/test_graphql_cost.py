"""A GraphQL query costs what its fields return. Lists are counted at the size
they may return before the query runs, and at the size they did return while it runs, so no query
can ask for hundreds of renderings under the cost limit. On both stores."""

from __future__ import annotations

import asyncio

import httpx

from app.graphql.context import Context
from app.graphql.limits import GraphQLLimits
from app.graphql.schema import build_schema
from app.settings import Settings
from tests.conftest import SEEDS, ingest_into
from tests.reliability.helpers import served

RENDERING = 'restsOn(record: "RT-RTE-mcp-write") { count results { statementNode { document { render } } } }'


def test_twenty_aliases_of_a_rendering_query_are_refused_before_they_run(store):
    ingest_into(store, SEEDS)
    attack = "{ " + " ".join(f"a{i}: {RENDERING}" for i in range(20)) + " }"
    with served(store) as url:
        refused = httpx.post(f"{url}/graphql", json={"query": attack}, timeout=60).json()
        assert "data" not in refused  # refused before it runs: a request error (GraphQL spec, Response)
        assert [e["extensions"]["code"] for e in refused["errors"]] == ["LIMIT_EXCEEDED"]
        assert refused["errors"][0]["message"].startswith("'anonymous' costs 51000; at most 10000 is allowed")
        one = httpx.post(f"{url}/graphql", json={"query": "{ " + RENDERING + " }"}, timeout=60).json()
        assert "errors" not in one
        renders = [r["statementNode"]["document"]["render"] for r in one["data"]["restsOn"]["results"]]
        assert one["data"]["restsOn"]["count"] == len(renders) == 14
        assert {len(r.encode()) for r in renders} == {14271, 10952}  # the two Tolaria members, byte for byte


def test_a_list_that_returns_more_than_estimated_is_stopped_as_it_runs(store):
    """Estimated with one item per list (50 + 1 × 50 = 100 of 800), the query returns 14 results,
    each rendering a whole member: 50 + 14 + 14 × 50 = 764 before the renderings return, then 10 or
    13 more for each KiB-sized text returned, so the measure passes 800 after two or three and the
    renderings still to come fail, their work dropped."""
    ingest_into(store, SEEDS)
    schema = build_schema(GraphQLLimits(list_size=1, max_cost=800))
    result = asyncio.run(schema.execute("{ " + RENDERING + " }", context_value=Context(store, Settings(env_file=None))))
    assert result.errors, result.data
    assert {e.extensions["code"] for e in result.errors} == {"LIMIT_EXCEEDED"}
    assert all(e.message.startswith("the query cost more than 800 as it ran (stopped at render)") for e in result.errors)
    rendered = [r for r in result.data["restsOn"]["results"] if r["statementNode"]["document"] is not None]
    assert 0 < len(rendered) < 14
    assert len(result.errors) == 14 - len(rendered)


def test_estimated_list_cost_scales_with_what_the_list_holds(store):
    ingest_into(store, SEEDS)
    schema = build_schema(GraphQLLimits(max_cost=2600))
    context = Context(store, Settings(env_file=None))
    fits = asyncio.run(schema.execute("{ " + RENDERING + " }", context_value=context))  # 50 + 50 × 50 = 2550
    assert not fits.errors
    two = "{ a: " + RENDERING + " b: restsOn(record: \"RT-RTE-mcp-write\") { count } }"  # 2550 + 50
    assert not asyncio.run(schema.execute(two, context_value=Context(store, Settings(env_file=None)))).errors
    three = two[:-1] + " c: restsOn(record: \"RT-RTE-mcp-write\") { count } }"  # 2650
    refused = asyncio.run(schema.execute(three, context_value=Context(store, Settings(env_file=None))))
    assert [e.message.split(";")[0] for e in refused.errors] == ["'anonymous' costs 2650"]
