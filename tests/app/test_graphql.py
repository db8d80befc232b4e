"""The GraphQL face: the schema answers the seeds' questions exactly on every store,
lists page stably, DataLoaders keep store calls bounded, and hostile queries are refused with codes."""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.graphql.limits import GraphQLLimits, ValidDocuments
from app.graphql.schema import Context, build_schema, schema
from app.rest.main import create_app
from app.settings import Settings
from graph.model import EdgeKind, Label
from graph.store import Direction
from queries.documents import document_trees
from queries.dossier import record_dossiers
from queries.traversal import rests_on
from tests.analysis_sets import G4, G4_SET, load
from tests.conftest import SEEDS, ingest_into

MISSION_DIRECT = ["tolaria/synthesis#L11", "tolaria/synthesis#L12", "tolaria/synthesis#L13", "tolaria/synthesis#L29",
                  "tolaria/workflow-report#L9", "tolaria/workflow-report#L23", "tolaria/workflow-report#L27",
                  "tolaria/workflow-report#L33", "tolaria/workflow-report#L43", "tolaria/workflow-report#L45",
                  "tolaria/workflow-report#L57", "tolaria/workflow-report#L101"]
MISSION_TRANSITIVE = ["tolaria/synthesis#L16", "tolaria/synthesis#L27"]
"""The seeds issue's answer to "what rests on RT-RTE-mcp-write": 12 direct, 2 transitive statements."""


def run(store, query: str, variables: dict | None = None, *, graphql_schema=schema) -> tuple[dict | None, list[dict]]:
    """Execute ``query`` on ``store`` with a fresh context: (data, errors as ``{message, code, …}``)."""
    result = asyncio.run(graphql_schema.execute(query, variable_values=variables,
                                                context_value=Context(store, Settings())))
    return result.data, [{"message": e.message, **(e.extensions or {})} for e in result.errors or ()]


def ok(store, query: str, variables: dict | None = None, **kwargs) -> dict:
    data, errors = run(store, query, variables, **kwargs)
    assert not errors and data is not None, errors
    return data


def codes(store, query: str, variables: dict | None = None, **kwargs) -> list[str]:
    data, errors = run(store, query, variables, **kwargs)
    assert errors, data
    return [e["code"] for e in errors]


def walk(connection: dict) -> list:
    return [edge["node"] for edge in connection["edges"]]


@pytest.fixture
def seeded(store):
    """The ``store`` fixture (embedded, Neo4j) holding the three seeds."""
    ingest_into(store, SEEDS)
    return store


def doubled_seeds(tmp_path: Path) -> Path:
    """A copy of the seeds whose systems are renamed (``Tolariax``, ``Talorysx``): two more sets with
    the same records, so ingesting both folders doubles the data."""
    folder = tmp_path / "doubled"
    folder.mkdir()
    for seed in SEEDS.iterdir():
        title, _, rest = seed.read_text(encoding="utf-8").partition("\n")
        (folder / seed.name).write_text(title.replace("Tolaria", "Tolariax").replace("Talorys", "Talorysx") + "\n" + rest,
                                        encoding="utf-8")
    return folder


# -- answers on the seeds ----------------------------------------------------------------------------

def test_mission_question(seeded):
    data = ok(seeded, """{ restsOn(record: "RT-RTE-mcp-write") { count records results { statement direct depth } } }""")
    got = data["restsOn"]
    assert got["count"] == 14 and got["records"] == ["tolaria/RT-RTE-mcp-write"]
    assert sorted(r["statement"] for r in got["results"] if r["direct"]) == sorted(MISSION_DIRECT)
    assert sorted(r["statement"] for r in got["results"] if not r["direct"]) == sorted(MISSION_TRANSITIVE)
    assert {r["depth"] for r in got["results"] if not r["direct"]} == {2}
    assert [r["statement"] for r in got["results"]] == [r.statement for r in rests_on(seeded, "RT-RTE-mcp-write").results]


def test_mission_question_through_the_record(seeded):
    data = ok(seeded, """{ record(id: "RT-RTE-mcp-write") { restsOn { results { statement
        statementNode { nodeId kind document { nodeId } } } } } }""")
    results = data["record"]["restsOn"]["results"]
    assert sorted(r["statement"] for r in results) == sorted(MISSION_DIRECT + MISSION_TRANSITIVE)
    assert all(r["statementNode"]["nodeId"] == r["statement"] for r in results)
    assert {r["statementNode"]["document"]["nodeId"] for r in results} == {"tolaria/synthesis", "tolaria/workflow-report"}


def test_sets_documents_sections_statements(seeded):
    """Three nested connections answer exactly what the stored document trees hold."""
    data = ok(seeded, """{ sets(first: 5) { edges { node { nodeId system
        documents(first: 5) { edges { node { nodeId role
          sections(first: 20) { totalCount edges { node { nodeId heading
            statements(first: 12) { totalCount edges { node { nodeId text } } } } } } } } } } } } }""")
    sets = walk(data["sets"])
    assert [(s["nodeId"], s["system"]) for s in sets] == [("talorys", "Talorys"), ("tolaria", "Tolaria")]
    assert [[d["nodeId"] for d in walk(s["documents"])] for s in sets] == [
        ["talorys/synthesis"], ["tolaria/synthesis", "tolaria/workflow-report"]]
    trees = {t.id: t for t in document_trees(seeded)}
    for s in sets:
        for d in walk(s["documents"]):
            tree = trees[d["nodeId"]]
            sections = [b for b in tree.blocks if b.is_section]
            assert d["sections"]["totalCount"] == len(sections)
            got = walk(d["sections"])
            assert [(x["nodeId"], x["heading"]) for x in got] == [(b.id, b.text) for b in sections]
            for section in got:
                expected = [(b.id, b.text) for b in tree.blocks if not b.is_section and b.parent == section["nodeId"]]
                assert [(x["nodeId"], x["text"]) for x in walk(section["statements"])] == expected
                assert section["statements"]["totalCount"] == len(expected)
    synthesis = walk(walk(sets[1]["documents"])[0]["sections"])
    assert synthesis[0]["heading"] == "Bounded synthesis"
    assert [x["nodeId"] for x in walk(synthesis[1]["statements"])][:2] == ["tolaria/synthesis#L5", "tolaria/synthesis#L6"]


def test_record_cited_by_statement_document(seeded):
    """record → citedBy → statement → document: the direct citations of the mission record."""
    data = ok(seeded, """{ record(id: "RT-RTE-mcp-write") { nodeId citedBy { totalCount edges { node {
        form token statement { nodeId document { nodeId title } } } } }
        annotations { edges { node { section { nodeId } body { nodeId } } } } } }""")
    record = data["record"]
    cited = walk(record["citedBy"])
    assert record["citedBy"]["totalCount"] == 11
    assert {(c["form"], c["token"]) for c in cited} == {("citation", "RT-RTE-mcp-write")}
    citing = [c["statement"]["nodeId"] for c in cited]
    annotating = [s["nodeId"] for a in walk(record["annotations"]) for s in a["body"]]
    assert citing + annotating == MISSION_DIRECT
    assert [c["statement"]["document"]["title"] for c in cited] == ["Tolaria synthesis"] * 4 + ["Tolaria workflow report"] * 7


def test_filters(seeded):
    data = ok(seeded, """{
        rt: records(set: "tolaria", analyst: "RT", kind: "RTE", text: "mcp") { edges { node { recordId } } }
        all: records(first: 200) { totalCount }
        tolaria: records(set: "tolaria", first: 200) { totalCount }
        syn: documents(role: "synthesis") { edges { node { nodeId } } }
        statements(text: "EXPECTEDMTIME", role: "workflow-report") { edges { node { nodeId kind } } }
        rows: statements(document: "tolaria/synthesis", kind: "table_row") { totalCount }
        files: sourceFiles(set: "tolaria", text: "vault") { edges { node { path } } } }""")
    assert [r["recordId"] for r in walk(data["rt"])] == ["RT-RTE-mcp-write"]
    assert (data["all"]["totalCount"], data["tolaria"]["totalCount"]) == (62, 24)
    assert [d["nodeId"] for d in walk(data["syn"])] == ["talorys/synthesis", "tolaria/synthesis"]
    hits = walk(data["statements"])
    assert hits and all(h["nodeId"].startswith("tolaria/workflow-report#") for h in hits)
    expected = [n.id for n in seeded.find_nodes(Label.STATEMENT, document_id="tolaria/workflow-report")
                if "expectedmtime" in (n.get("text") or "").lower()]
    assert sorted(h["nodeId"] for h in hits) == sorted(expected)
    assert data["rows"]["totalCount"] == len(seeded.find_nodes(Label.STATEMENT, document_id="tolaria/synthesis",
                                                                where={"kind": "table_row"}))
    assert all("vault" in f["path"].lower() for f in walk(data["files"])) and walk(data["files"])


def test_check_findings_agree_with_the_cli_counts(seeded):
    data = ok(seeded, """{ check { errors warnings
        findings(code: "undeclared-record", first: 200) { totalCount edges { node { severity nodeId node { nodeId } } } } } }""")
    check = data["check"]
    assert (check["errors"], check["warnings"], check["findings"]["totalCount"]) == (0, 74, 62)
    assert {f["severity"] for f in walk(check["findings"])} == {"warning"}
    assert all(f["node"]["nodeId"] == f["nodeId"] for f in walk(check["findings"]))


def test_equal_findings_are_two_items_told_apart_by_their_rank(monkeypatch):
    """A finding reported twice is listed twice; each cursor ends with its rank among the equal
    findings (0, then 1), so paging after the first gives the second."""
    import app.graphql.result_types as results
    from app.graphql.pagination import decode_cursor
    from queries.validation import CheckReport, Finding

    twice = Finding("undeclared-record", "warning", "s", "a.md", 3, "s/x", "cited twice")
    monkeypatch.setattr(results, "check", lambda store, set_id=None: CheckReport((twice, twice)))
    query = """query($after: String) { check { warnings
        findings(first: 1, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { node { message } } } } }"""
    first = ok(load(G4), query)["check"]
    cursor = first["findings"]["pageInfo"]["endCursor"]
    assert (first["warnings"], first["findings"]["totalCount"], first["findings"]["pageInfo"]["hasNextPage"]) == (2, 2, True)
    assert decode_cursor(cursor) == ["s", "a.md", 3, "undeclared-record", "s/x", "cited twice", 0]
    second = ok(load(G4), query, {"after": cursor})["check"]["findings"]
    assert [f["message"] for f in walk(second)] == ["cited twice"] and not second["pageInfo"]["hasNextPage"]
    assert decode_cursor(second["pageInfo"]["endCursor"])[-1] == 1


def test_declaration_supersessions_parts_and_dossier():
    """On the G4 fixture set (Markdown declarations, supersessions, ``Part of:``)."""
    store = load(G4)
    data = ok(store, """{
      index: record(id: "MEM-OBJ-index") { recordId container { recordId } supersedes { edges { node { recordId } } }
        declaration { label section { heading } document { nodeId } fields { label value form statement { nodeId } } }
        dossier { declarationDocument fields { nodeId } partOf { recordId statement } supersedes { recordId }
                  restsOn { count } } }
      blob: record(id: "RT-OBJ-blob") { supersededBy { edges { node { recordId } } } }
      store: record(id: "RT-OBJ-store") { parts { edges { node { recordId } } } }
      reindex: record(id: "MEM-RTE-reindex") { supersededBy { edges { node { recordId } } }
        declaration { statuses { label value statement { nodeId } } } } }""")
    index = data["index"]
    assert index["container"] == {"recordId": "RT-OBJ-store"}
    assert [r["recordId"] for r in walk(index["supersedes"])] == ["RT-OBJ-blob"]
    assert [r["recordId"] for r in walk(data["blob"]["supersededBy"])] == ["MEM-OBJ-index", "RT-OBJ-store"]
    assert [r["recordId"] for r in walk(data["store"]["parts"])] == ["MEM-OBJ-index"]
    assert [r["recordId"] for r in walk(data["reindex"]["supersededBy"])] == ["RT-RTE-index-write"]
    declaration = index["declaration"]
    assert (declaration["label"], declaration["section"]["heading"], declaration["document"]["nodeId"]) == (
        "Search index", "MEM-OBJ-index", f"{G4_SET}/memory")
    assert [(f["label"], f["value"]) for f in declaration["fields"]][:2] == [("Label", "Search index"),
                                                                             ("Part of", "RT-OBJ-store")]
    assert [(s["label"], s["value"]) for s in data["reindex"]["declaration"]["statuses"]] == [
        ("implementation conclusion status", "wired"), ("operation conclusion status", "uninspected")]
    (expected,) = record_dossiers(store, "MEM-OBJ-index")
    dossier = index["dossier"]
    assert dossier["declarationDocument"] == expected.declaration_document
    assert [f["nodeId"] for f in dossier["fields"]] == [b.id for b in expected.fields]
    assert [(r["recordId"], r["statement"]) for r in dossier["partOf"]] == [
        (r.record_id, r.statement) for r in expected.part_of] == [("RT-OBJ-store", f"{G4_SET}/memory#L30")]
    assert [r["recordId"] for r in dossier["supersedes"]] == ["RT-OBJ-blob"]
    assert dossier["restsOn"]["count"] == len(expected.rests_on.report.results)


# -- Relay: global ids, pagination ---------------------------------------------------------------------

def test_node_round_trip(seeded):
    data = ok(seeded, """{
        record(id: "RT-RTE-mcp-write") { id nodeId }
        set(id: "tolaria") { id nodeId }
        document(id: "tolaria/workflow-report") { id nodeId quotations(first: 1) { edges { node { id nodeId } } } }
        statements(document: "tolaria/synthesis", first: 1) { edges { node { id nodeId } } }
        sections(document: "tolaria/synthesis", first: 1) { edges { node { id nodeId } } }
        sources(set: "tolaria") { edges { node { id nodeId } } }
        sourceFiles(set: "tolaria", first: 1) { edges { node { id nodeId } } } }""")
    objects = [data["record"], data["set"], data["document"], *walk(data["document"]["quotations"]),
               *walk(data["statements"]), *walk(data["sections"]), *walk(data["sources"]), *walk(data["sourceFiles"])]
    assert len(objects) == 8
    query = """query($id: ID!) { node(id: $id) { __typename id ... on GraphNode { nodeId label } } }"""
    typenames = []
    for obj in objects:
        node = ok(seeded, query, {"id": obj["id"]})["node"]
        assert (node["id"], node["nodeId"]) == (obj["id"], obj["nodeId"])
        assert node["__typename"] == node["label"]
        typenames.append(node["__typename"])
    assert typenames == ["Record", "AnalysisSet", "Document", "Quotation", "Statement", "Section", "Source", "SourceFile"]
    many = ok(seeded, """query($ids: [ID!]!) { nodes(ids: $ids) { id } }""",
              {"ids": [objects[1]["id"], "UmVjb3JkOm5vcGU=", objects[0]["id"]]})["nodes"]  # Record:nope in the middle
    assert many == [{"id": objects[1]["id"]}, None, {"id": objects[0]["id"]}]
    by_graph_id = ok(seeded, """{ graphNode(nodeId: "tolaria/synthesis#L29") { __typename ... on Statement { text } } }""")
    assert by_graph_id["graphNode"]["__typename"] == "Statement" and "RT-RTE-mcp-write" in by_graph_id["graphNode"]["text"]
    assert codes(seeded, """{ node(id: "not base64!") { id } }""") == ["BAD_REQUEST"]


@pytest.mark.parametrize(("field", "size"), [("records(first: $n, after: $after)", 7),
                                             ('statements(document: "tolaria/workflow-report", first: $n, after: $after)', 4)])
def test_pagination_walks_every_item_once_in_order(seeded, field, size):
    name = field.partition("(")[0]
    query = f"""query($n: Int, $after: String) {{ {field} {{ totalCount
        pageInfo {{ hasNextPage hasPreviousPage endCursor }} edges {{ cursor node {{ nodeId }} }} }} }}"""

    def pages() -> list[str]:
        seen, after, previous = [], None, False
        while True:
            page = ok(seeded, query, {"n": size, "after": after})[name]
            assert page["pageInfo"]["hasPreviousPage"] is previous
            assert len(page["edges"]) <= size
            seen += [e["node"]["nodeId"] for e in page["edges"]]
            if not page["pageInfo"]["hasNextPage"]:
                assert len(seen) == page["totalCount"]
                return seen
            after, previous = page["pageInfo"]["endCursor"], True
            assert after == page["edges"][-1]["cursor"]

    walked = pages()
    assert len(walked) == len(set(walked)) > 2 * size
    whole = ok(seeded, query, {"n": 200, "after": None})[name]
    assert walked == [e["node"]["nodeId"] for e in whole["edges"]]
    if name == "records":
        assert walked == sorted(walked)
    else:
        assert walked == [n.id for n in sorted(seeded.find_nodes(Label.STATEMENT, document_id="tolaria/workflow-report"),
                                               key=lambda n: n.get("order"))]
    assert pages() == walked


def test_pagination_backwards_and_bad_cursors(seeded):
    whole = [e["node"]["nodeId"] for e in ok(seeded, "{ records(first: 200) { edges { node { nodeId } } } }")["records"]["edges"]]
    tail = ok(seeded, "{ records(last: 3) { pageInfo { hasPreviousPage hasNextPage startCursor } edges { node { nodeId } } } }")
    assert [n["nodeId"] for n in walk(tail["records"])] == whole[-3:]
    assert tail["records"]["pageInfo"]["hasPreviousPage"] and not tail["records"]["pageInfo"]["hasNextPage"]
    before = ok(seeded, "query($c: String) { records(last: 2, before: $c) { edges { node { nodeId } } } }",
                {"c": tail["records"]["pageInfo"]["startCursor"]})
    assert [n["nodeId"] for n in walk(before["records"])] == whole[-5:-3]
    default = ok(seeded, "{ records { edges { node { nodeId } } } }")
    assert len(default["records"]["edges"]) == 50
    assert codes(seeded, '{ records(after: "bm9wZQ==") { totalCount } }') == ["BAD_REQUEST"]
    assert codes(seeded, "{ records(first: -1) { totalCount } }") == ["BAD_REQUEST"]


# -- DataLoaders ---------------------------------------------------------------------------------------

class CountingStore:
    """A store wrapper counting calls per contract primitive."""

    def __init__(self, inner):
        self.inner = inner
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name):
        method = getattr(self.inner, name)

        def counted(*args, **kwargs):
            self.calls[name] += 1
            return method(*args, **kwargs)

        return counted

    @contextmanager
    def snapshot(self, **kwargs):
        """The inner store's read snapshot, counted into the same calls (a request reads through one)."""
        with self.inner.snapshot(**kwargs) as view:
            counting = type(self)(view)
            counting.calls = self.calls
            yield counting


RECORDS_WITH_CITATIONS = """{ records(first: 100) { totalCount edges { node { recordId
    citedBy { totalCount edges { node { form statement { nodeId text } } } } } } } }"""


def test_records_with_citations_take_three_store_calls(store, tmp_path):
    """Listing up to 100 records with their citing statements: one find_nodes (records), one edges
    (every record's incoming CITES), one get_nodes (every citing statement), however many records."""
    ingest_into(store, SEEDS)
    counting = CountingStore(store)
    data = ok(counting, RECORDS_WITH_CITATIONS)["records"]
    assert (data["totalCount"], len(data["edges"])) == (62, 62)
    assert sum(r["citedBy"]["totalCount"] for r in walk(data)) == 128
    assert all(c["statement"]["text"] for r in walk(data) for c in walk(r["citedBy"]))
    assert counting.calls == {"find_nodes": 1, "edges": 1, "get_nodes": 1}

    ingest_into(store, doubled_seeds(tmp_path))
    counting = CountingStore(store)
    data = ok(counting, RECORDS_WITH_CITATIONS)["records"]
    assert (data["totalCount"], len(data["edges"])) == (124, 100)
    assert counting.calls == {"find_nodes": 1, "edges": 1, "get_nodes": 1}


def test_loaders_live_for_one_request(seeds_store):
    counting = CountingStore(seeds_store)
    query = '{ record(id: "RT-RTE-mcp-write") { citedBy { edges { node { statement { nodeId } } } } } }'
    ok(counting, query)
    first = sum(counting.calls.values())
    ok(counting, query)
    assert sum(counting.calls.values()) == 2 * first


# -- limits and error codes ------------------------------------------------------------------------------

def test_depth_limit(seeds_store):
    nested = "recordId"
    for _ in range(16):
        nested = f"container {{ {nested} }}"
    assert codes(seeds_store, f'{{ record(id: "RT-RTE-mcp-write") {{ {nested} }} }}') == ["LIMIT_EXCEEDED"]
    ok(seeds_store, '{ record(id: "RT-RTE-mcp-write") { container { container { recordId } } } }')


def test_alias_limit_counts_aliases_inside_fragments(seeds_store):
    aliases = " ".join(f"a{i}: totalCount" for i in range(5))
    direct = "{ records(first: 1) { " + " ".join(f"b{i}: totalCount" for i in range(20)) + " } }"
    ok(seeds_store, direct)  # 20 aliases: allowed
    assert codes(seeds_store, direct.replace("b0: totalCount", "b0: totalCount b20: totalCount")) == ["LIMIT_EXCEEDED"]
    hidden = f"""{{ records(first: 1) {{ ...F1 ...F2 ...F3 ...F4 ...F5 }} }}
        fragment F1 on RecordConnection {{ {aliases} }} fragment F2 on RecordConnection {{ ...F1 }}
        fragment F3 on RecordConnection {{ ...F2 }} fragment F4 on RecordConnection {{ ...F3 }}
        fragment F5 on RecordConnection {{ ...F4 }}"""
    data, errors = run(seeds_store, hidden)
    assert data is None and [e["code"] for e in errors] == ["LIMIT_EXCEEDED"]
    assert errors[0]["message"] == "25 aliases found. Allowed: 20"


def test_fragment_bombs_are_refused_quickly(seeds_store):
    """Each fragment spreads the next twice: 2**60 fields once expanded, refused before strawberry's
    depth and alias rules (which expand fragments without memo) would run for ages."""
    fragments = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(60))
    query = "{ ...F0 } " + fragments + " fragment F60 on Query { a: __typename }"
    data, errors = run(seeds_store, query)
    assert data is None and [e["code"] for e in errors] == ["LIMIT_EXCEEDED"]
    assert errors[0]["message"] == (f"the query has {2 ** 60} fields with its fragments expanded; "
                                    "at most 10000 are allowed")


def test_token_limit(seeds_store):
    fields = " ".join(["totalCount"] * 2100)
    data, errors = run(seeds_store, f"{{ records {{ {fields} }} }}")
    assert data is None and [e["code"] for e in errors] == ["LIMIT_EXCEEDED"]
    assert "2000 tokens" in errors[0]["message"]


def test_cost_limit_on_traversal_fields(seeds_store):
    nested = "{ records(first: %d) { edges { node { restsOn { count } } } } }"
    assert codes(seeds_store, nested % 200) == ["LIMIT_EXCEEDED"]  # 200 + 200 × 50
    ok(seeds_store, nested % 3)
    via_variable = "query($n: Int) { records(first: $n) { edges { node { dossier { sources } } } } }"
    assert codes(seeds_store, via_variable, {"n": 150}) == ["LIMIT_EXCEEDED"]  # 150 + 150 × 100
    in_fragments = """{ sets(first: 20) { edges { node { ...Heavy } } } }
        fragment Heavy on AnalysisSet { check { errors } render records(first: 10) { edges { node { restsOn { count } } } } }"""
    data, errors = run(seeds_store, in_fragments)  # 20 + 20 × (200 + 300 + 10 + 10 × 50) = 20220 (a set's render: 300)
    assert data is None and errors[0]["code"] == "LIMIT_EXCEEDED" and "costs 20220" in errors[0]["message"]
    small = build_schema(GraphQLLimits(max_cost=100))
    assert codes(seeds_store, '{ a: restsOn(record: "RT-RTE-mcp-write") { count } '
                              'b: restsOn(record: "RT-RTE-owner-chat") { count } c: impact(repo: "x", to: "y") { to } }',
                 graphql_schema=small) == ["LIMIT_EXCEEDED"]


def test_a_document_known_valid_is_still_costed_with_its_variables(seeds_store):
    """A repeated document skips the rules that read only the document, never the cost rule."""
    fresh = build_schema()
    query = "query($n: Int) { records(first: $n) { edges { node { recordId dossier { sources } } } } }"
    digest = hashlib.sha256(query.encode()).digest()
    first = ok(seeds_store, query, {"n": 2}, graphql_schema=fresh)
    assert digest in fresh.valid_documents and len(walk(first["records"])) == 2
    assert codes(seeds_store, query, {"n": 150}, graphql_schema=fresh) == ["LIMIT_EXCEEDED"]  # 150 + 150 × 100
    assert ok(seeds_store, query, {"n": 2}, graphql_schema=fresh) == first
    invalid = "{ records(first: 1) { edges { node { noSuchField } } } }"
    answers = [run(seeds_store, invalid, graphql_schema=fresh) for _ in range(2)]
    assert answers[0] == answers[1] and answers[0][0] is None
    assert [e["message"] for e in answers[0][1]] == ["Cannot query field 'noSuchField' on type 'Record'."]
    assert hashlib.sha256(invalid.encode()).digest() not in fresh.valid_documents


def test_a_known_document_is_costed_to_the_same_errors(seeds_store):
    """A known document's cost rule runs without graphql-core's walk of the document (it has no
    visitor hook); its errors are those of the first, fully validated request, word for word."""
    query = "query($n: Int) { records(first: $n) { edges { node { recordId dossier { sources } } } } }"
    first = run(seeds_store, query, {"n": 150}, graphql_schema=build_schema())  # not known: every rule
    known = build_schema()
    ok(seeds_store, query, {"n": 2}, graphql_schema=known)
    assert hashlib.sha256(query.encode()).digest() in known.valid_documents
    again = run(seeds_store, query, {"n": 150}, graphql_schema=known)  # known: the cost rule alone
    assert first[0] is None and [e["code"] for e in first[1]] == ["LIMIT_EXCEEDED"]
    assert again == first


def test_valid_documents_forget_the_oldest():
    known = ValidDocuments(size=2)
    for digest in (b"a", b"b", b"c"):
        known.add(digest)
    assert (b"a" in known, b"b" in known, b"c" in known) == (False, True, True)


def test_page_size_over_the_maximum_is_rejected_not_clamped(seeds_store):
    assert codes(seeds_store, "{ records(first: 201) { totalCount } }") == ["LIMIT_EXCEEDED"]
    assert codes(seeds_store, "query($n: Int) { sets(first: 1) { edges { node { records(last: $n) { totalCount } } } } }",
                 {"n": 500}) == ["LIMIT_EXCEEDED"]
    assert codes(seeds_store, "query($ids: [ID!]!) { nodes(ids: $ids) { id } }", {"ids": ["x"] * 201}) == ["LIMIT_EXCEEDED"]
    assert len(ok(seeds_store, "{ records(first: 200) { edges { cursor } } }")["records"]["edges"]) == 62


@pytest.mark.parametrize(("query", "code"), [
    ('{ record(id: "RT-RTE-nope") { nodeId } }', "NOT_FOUND"),
    ('{ set(id: "nope") { nodeId } }', "NOT_FOUND"),
    ('{ document(id: "tolaria/nope") { nodeId } }', "NOT_FOUND"),
    ('{ documents(set: "nope") { totalCount } }', "NOT_FOUND"),
    ('{ statements(document: "nope") { totalCount } }', "NOT_FOUND"),
    ('{ restsOn(record: "RT-RTE-mcp-write", maxDepth: 99) { count } }', "LIMIT_EXCEEDED"),
    ('{ render(document: "tolaria/synthesis", format: "pdf") }', "BAD_REQUEST"),
    ("{ records { nope } }", "BAD_REQUEST"),
    ("{ records ", "BAD_REQUEST"),
])
def test_error_codes(seeds_store, query, code):
    _data, errors = run(seeds_store, query)
    assert [e["code"] for e in errors] == [code]


def test_not_found_carries_the_hint(seeds_store):
    _, errors = run(seeds_store, '{ record(id: "rt-rte-mcp-write") { nodeId } }')
    assert errors[0]["code"] == "NOT_FOUND" and "case-sensitive" in errors[0]["hint"]


def test_unexpected_errors_are_masked_as_internal(seeds_store):
    class Broken(CountingStore):
        def __getattr__(self, name):
            if name == "edges":
                def fail(*args, **kwargs):
                    raise RuntimeError("secret connection string")
                return fail
            return super().__getattr__(name)

    _data, errors = run(Broken(seeds_store), '{ record(id: "RT-RTE-mcp-write") { citedBy { totalCount } } }')
    assert errors == [{"message": "Unexpected error.", "code": "INTERNAL"}]


# -- over HTTP -------------------------------------------------------------------------------------------

def test_http_round_trip(seeds_store):
    with TestClient(create_app(Settings(), store=seeds_store)) as client:
        query = """query($r: String!) { restsOn(record: $r) { count results { statement direct } } }"""
        body = client.post("/graphql", json={"query": query, "variables": {"r": "RT-RTE-mcp-write"}}).json()
        assert "errors" not in body
        results = body["data"]["restsOn"]["results"]
        assert sorted(r["statement"] for r in results if r["direct"]) == sorted(MISSION_DIRECT)
        refused = client.post("/graphql", json={"query": "{ records(first: 1000) { totalCount } }"}).json()
        assert "data" not in refused and refused["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"  # a request error
        unparsed = client.post("/graphql", json={"query": "{ records "}).json()
        assert "data" not in unparsed and unparsed["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
        failed = client.post("/graphql", json={"query": '{ record(id: "RT-RTE-nope") { nodeId } }'}).json()
        assert failed["data"] is None and failed["errors"][0]["extensions"]["code"] == "NOT_FOUND"  # executed
        scalar = client.post("/graphql", json="{ records { totalCount } }")  # not a GraphQL-over-HTTP request
        assert (scalar.status_code, scalar.text) == (
            400, 'The request must be a JSON object: {"query": "…", "variables": {…}}')
        binary = client.post("/graphql", content=b"\x80", headers={"Content-Type": "application/json"})
        assert (binary.status_code, binary.text) == (400, "Unable to parse request body as JSON (it is not UTF-8)")


def test_edges_of_the_store_match_the_connections(seeded):
    """``Record.citedBy`` is the store's incoming CITES edges, in document order (on every store)."""
    node = "tolaria/RT-RTE-mcp-write"
    edges = seeded.edges([node], kinds=[EdgeKind.CITES], direction=Direction.IN)[node]
    data = ok(seeded, '{ record(id: "RT-RTE-mcp-write") { citedBy { edges { node { citingId targetId } } } } }')
    assert sorted((c["citingId"], c["targetId"]) for c in walk(data["record"]["citedBy"])) == sorted(
        (e.src, e.dst) for e in edges)


def test_a_document_is_named_by_its_id_or_its_path_on_every_field(seeded):
    """``document(id:)`` took a path and ``statements(document:)`` did not; both follow queries.read now."""
    path = ok(seeded, '{ document(id: "tolaria/synthesis") { path } }')["document"]["path"]
    data = ok(seeded, """query($p: String!) { byPath: statements(document: $p) { totalCount }
        byId: statements(document: "tolaria/synthesis") { totalCount } }""", {"p": path})
    assert data["byPath"]["totalCount"] == data["byId"]["totalCount"] == 24
