"""Every Cypher statement the Neo4j store runs: named constants and small documented builders.

Values only ever travel as ``$parameters``; batches arrive as ``UNWIND $rows AS row``. Builders
splice in nothing but names from closed sets: a :class:`~graph.model.Label`, an
:class:`~graph.model.EdgeKind` (both validated by their enum) or a property key matching
:data:`PROPERTY_KEY` (backtick-quoted).

Layout in Neo4j
---------------
- Every citegraph node carries :data:`NODE_LABEL` (``:CgNode``) plus its model label
  (``:Record``, ``:Statement``, …), and the properties ``id``, ``set_id``, ``document_id`` (absent
  when ``None``), ``props_json`` (the exact JSON of ``Node.props``, the source of truth on read) and,
  for readability in Neo4j Browser and for indexed lookups, each prop whose value Neo4j can hold
  natively (a string, number, boolean or a list of strings) under its own name unless that name is
  reserved.
- Every edge is a relationship typed by its :class:`~graph.model.EdgeKind` name (``:CITES``, …)
  with ``owner`` (the document id, or ``set:<set id>`` for derived edges), ``seq``,
  ``document_id``, ``set_id``, ``props_json`` and the native props the same way. ``(src, kind, dst,
  owner, seq)`` identifies an edge: writing it again replaces it, as in the embedded store.
- Every ``:Statement`` also carries ``search_words``: the words of its text
  (:func:`graph.text.words`) joined by single spaces, which the full-text index
  :data:`SEARCH_INDEX` (``whitespace`` analyzer) indexes, so its tokens are exactly those words.
- ``:CgWriteLock`` nodes: ``writes`` serialises writers (see :data:`LOCK_WRITES`); ``read-0`` …
  ``read-31`` are the read slots that keep commits out of held read snapshots
  (:data:`LOCK_READERS`); ``clock`` counts the writes begun and ``writing-<token>`` marks each
  write under way (:data:`BEGIN_WRITE`, :data:`WRITE_CLOCK`), which lets read snapshots run in
  READ sessions.
- Each kept version of a set is one ``:CgSetVersion`` node (not a ``:CgNode``): ``set_id``,
  ``number``, ``created``, ``digest``, ``summary`` (JSON) and ``blob`` (the encoded set, bytes), see
  :mod:`graph.versions`.
- Each set has one ``:CgSetStamp`` node (``set_id``, ``stamp``): the number of the last write that
  touched a row of the set (:data:`STAMP_SETS`), and each result a query computed from the set at
  that stamp one ``:CgSetResult`` node (``key``, ``set_id``, ``name``, ``stamp``, ``result`` bytes),
  see :class:`graph.store.KeepsSetResults` and :mod:`queries.kept`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from graph.model import EdgeKind, Label
from graph.writes import COLLECTABLE

if TYPE_CHECKING:
    from graph.text import Phrase

__all__ = [
    "NODE_LABEL",
    "LOCK_LABEL",
    "PROPERTY_KEY",
    "RESERVED_NODE_KEYS",
    "RESERVED_EDGE_KEYS",
    "schema_statements",
    "AWAIT_INDEXES",
    "schema_names",
    "SCHEMA_STATE",
    "SEARCH_INDEX",
    "SEARCH_WORDS",
    "search_query",
    "SEARCH",
    "SEARCH_WORDS_DONE",
    "SET_TALLIES",
    "MARK_SEARCH_WORDS_DONE",
    "UNINDEXED_STATEMENTS",
    "SET_SEARCH_WORDS",
    "GET_NODES",
    "find_nodes",
    "edges",
    "nodes_with_edges",
    "closure",
    "reach",
    "count_nodes_and_edges",
    "count_from_count_store",
    "TOTALS",
    "LOCK_WRITES",
    "READ_SLOTS",
    "HOLD_READ_SLOT",
    "LOCK_READERS",
    "WRITE_MARK_LEASE_MS",
    "BEGIN_WRITE",
    "END_WRITE",
    "WRITE_CLOCK",
    "EXISTING_NODES",
    "EXISTING_KINDS",
    "SET_DOCUMENTS",
    "EXISTING_IDS",
    "DELETE_DOCUMENT_NODES",
    "delete_owned_edges",
    "MERGE_NODES",
    "CREATE_NODES",
    "CREATE_EDGES",
    "SET_STATE",
    "stored_edges",
    "REPLACE_EDGES",
    "UNREFERENCED",
    "HOLDS_DOCUMENTS",
    "POINTING_AT",
    "DETACH_DELETE",
    "VERSION_LABEL",
    "SET_EXISTS",
    "SET_SNAPSHOT_NODES",
    "SET_SNAPSHOT_EDGES",
    "SET_SNAPSHOT",
    "STORED_VERSIONS",
    "VERSION_SUMMARIES",
    "VERSION_BLOB",
    "LATEST_VERSION",
    "LATEST_SUMMARIES",
    "ADD_VERSIONS",
    "DROP_VERSIONS",
    "DROP_ALL_VERSIONS",
    "STAMP_LABEL",
    "RESULT_LABEL",
    "STAMP_SETS",
    "STAMP_EVERY_SET",
    "SET_STAMPS",
    "KEPT_RESULTS",
    "KEEP_RESULTS",
    "result_key",
    "WIPE",
]

NODE_LABEL = "CgNode"
"""Label every citegraph node carries; ``:CgNode(id)`` is unique."""

LOCK_LABEL = "CgWriteLock"
"""Label of the per-set lock nodes that serialise writers; not a citegraph node."""

VERSION_LABEL = "CgSetVersion"
"""Label of the nodes holding a set's kept versions; not a citegraph node."""

STAMP_LABEL = "CgSetStamp"
"""Label of the node holding a set's stamp (:class:`graph.store.KeepsSetResults`); not a citegraph node."""

RESULT_LABEL = "CgSetResult"
"""Label of the nodes holding what a query computed from one set (:mod:`queries.kept`); not a citegraph node."""

PROPERTY_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""Property keys a builder may splice into a query (other keys live in ``props_json`` only)."""

RESERVED_NODE_KEYS = frozenset({"id", "set_id", "document_id", "props_json", "search_words"})
"""Node property names the store uses itself; a prop with such a name lives in ``props_json`` only."""

RESERVED_EDGE_KEYS = frozenset({"owner", "seq", "document_id", "set_id", "props_json"})
"""Relationship property names the store uses itself."""

_COLLECTABLE = sorted(str(label) for label in COLLECTABLE)


def _label(label: Label | str) -> str:
    return Label(label).value


def _kind(kind: EdgeKind | str) -> str:
    return EdgeKind(kind).value


def _kinds(kinds: Iterable[EdgeKind | str]) -> str:
    """``CITES|QUOTES``: a relationship-type union of validated kinds, in a stable order."""
    names = sorted({_kind(k) for k in kinds})
    if not names:
        raise ValueError("a relationship-type union needs at least one kind")
    return "|".join(names)


def _key(key: str) -> str:
    if not PROPERTY_KEY.fullmatch(key):
        raise ValueError(f"property key {key!r} cannot be spliced into Cypher")
    return f"`{key}`"


# -- schema -----------------------------------------------------------------------------------


def schema_statements() -> list[str]:
    """Idempotent schema: uniqueness of ``:CgNode(id)`` and ``:CgWriteLock(name)`` (the write lock
    and the read slots, :data:`LOCK_WRITES` and :data:`LOCK_READERS`), and indexes for
    every lookup the store runs: ``:CgNode(document_id)`` (document deletes), ``(set_id)`` per model
    label (``find_nodes(label, set_id=…)``, orphan collection), ``:Record(record_id)`` (rests-on start
    nodes) and ``owner`` per relationship type (deleting a document's or a set's edges)."""
    out = [
        f"CREATE CONSTRAINT cg_node_id IF NOT EXISTS FOR (n:{NODE_LABEL}) REQUIRE n.id IS UNIQUE",
        f"CREATE CONSTRAINT cg_write_lock IF NOT EXISTS FOR (l:{LOCK_LABEL}) REQUIRE l.name IS UNIQUE",
        f"CREATE INDEX cg_node_document IF NOT EXISTS FOR (n:{NODE_LABEL}) ON (n.document_id)",
        f"CREATE INDEX cg_node_set IF NOT EXISTS FOR (n:{NODE_LABEL}) ON (n.set_id)",
        "CREATE INDEX cg_record_record_id IF NOT EXISTS FOR (n:Record) ON (n.record_id)",
        f"CREATE INDEX cg_set_version IF NOT EXISTS FOR (v:{VERSION_LABEL}) ON (v.set_id, v.number)",
        f"CREATE CONSTRAINT cg_set_stamp IF NOT EXISTS FOR (s:{STAMP_LABEL}) REQUIRE s.set_id IS UNIQUE",
        f"CREATE CONSTRAINT cg_set_result IF NOT EXISTS FOR (r:{RESULT_LABEL}) REQUIRE r.key IS UNIQUE",
        f"CREATE INDEX cg_set_result_set IF NOT EXISTS FOR (r:{RESULT_LABEL}) ON (r.set_id)",
    ]
    out += [f"CREATE INDEX cg_{label.value.lower()}_set IF NOT EXISTS FOR (n:{label.value}) ON (n.set_id)"
            for label in Label]
    out += [f"CREATE INDEX cg_rel_{kind.value.lower()}_owner IF NOT EXISTS FOR ()-[r:{kind.value}]-() ON (r.owner)"
            for kind in EdgeKind]
    out.append(f"CREATE FULLTEXT INDEX {SEARCH_INDEX} IF NOT EXISTS FOR (n:Statement) ON EACH [n.{SEARCH_WORDS}] "
               "OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace', `fulltext.eventually_consistent`: false}}")
    return out


def schema_names() -> list[str]:
    """The names of the constraints and indexes of :func:`schema_statements`, in order (a
    uniqueness constraint's backing index has the constraint's name)."""
    return [_SCHEMA_NAME.findall(statement)[0] for statement in schema_statements()]


_SCHEMA_NAME = re.compile(r"CREATE (?:CONSTRAINT|(?:FULLTEXT )?INDEX) (\w+) IF NOT EXISTS")


SCHEMA_STATE = "SHOW INDEXES YIELD name, state WHERE state = 'ONLINE' RETURN collect(name) AS online"
"""The names of the database's usable (``ONLINE``) indexes, in one record: one round trip that tells
whether :func:`schema_statements` has anything left to do (a record per index is a message each
to read)."""


SEARCH_INDEX = "cg_statement_search"
"""The full-text index of statements: Lucene over ``search_words`` with the ``whitespace`` analyzer,
updated in the writing transaction (not eventually consistent), so a search sees every committed write."""

SEARCH_WORDS = "search_words"
"""The Statement property the full-text index reads (the words of ``text``, space-separated)."""


def search_query(phrases: Sequence[Phrase]) -> str:
    """The Lucene query asking for every :class:`~graph.text.Phrase`: ``+"compare and swap" +vau*``.
    Words hold only lower-case letters and digits, so a quoted phrase needs no escapes and a prefix
    word no quoting; the analyzer splits the phrase at its spaces, as the words were indexed."""
    return " ".join(f"+{p.words[0]}*" if p.prefix else '+"' + " ".join(p.words) + '"' for p in phrases)


SEARCH = f"""
CALL db.index.fulltext.queryNodes('{SEARCH_INDEX}', $lucene) YIELD node
WHERE $set_id IS NULL OR node.set_id = $set_id
RETURN node.id AS id, node.set_id AS set_id, node.document_id AS document_id,
  node.kind AS kind, node.text AS text, node.line AS line, node.`order` AS ord, node.props_json AS props_json
"""
"""Statements matching the Lucene ``$lucene`` (:func:`search_query`), of set ``$set_id`` unless it is
null, with their light fields (``props_json`` too, for a field that is not native)."""

SEARCH_WORDS_DONE = f"""
MATCH (m:{LOCK_LABEL} {{name: 'search_words'}}) RETURN count(m) AS done
"""
"""Whether every statement has had its ``search_words`` written (a marker beside the write lock,
set once the statements an earlier citegraph wrote have them; wiped with the rest)."""

MARK_SEARCH_WORDS_DONE = f"""
MERGE (:{LOCK_LABEL} {{name: 'search_words'}})
"""
"""Set the :data:`SEARCH_WORDS_DONE` marker."""

UNINDEXED_STATEMENTS = f"""
MATCH (n:{NODE_LABEL}:Statement) WHERE n.{SEARCH_WORDS} IS NULL
RETURN n.id AS id, n.props_json AS props_json LIMIT $limit
"""
"""Statements written before the full-text index existed (no ``search_words``), ``$limit`` at a time."""

SET_SEARCH_WORDS = f"""
UNWIND $rows AS row
MATCH (n:{NODE_LABEL} {{id: row.id}})
SET n.{SEARCH_WORDS} = row.words
"""
"""Give each statement of ``$rows`` (``{{id, words}}``) its ``search_words``."""


AWAIT_INDEXES = "CALL db.awaitIndexes($seconds)"
"""Block until every index is online (at most ``$seconds``)."""


# -- reads ------------------------------------------------------------------------------------

_NODE_FIELDS = (
    "n.id AS id, [l IN labels(n) WHERE l <> 'CgNode'] AS labels, n.set_id AS set_id, "
    "n.document_id AS document_id, n.props_json AS props_json"
)
_NODE_MAP = (
    "{id: n.id, labels: [l IN labels(n) WHERE l <> 'CgNode'], set_id: n.set_id, "
    "document_id: n.document_id, props_json: n.props_json}"
)
_EDGE_MAP = (
    "{src: a.id, kind: type(r), dst: b.id, seq: r.seq, document_id: r.document_id, "
    "set_id: r.set_id, props_json: r.props_json}"
)
_EDGE_FIELDS = (
    "a.id AS src, type(r) AS kind, b.id AS dst, r.seq AS seq, r.document_id AS document_id, "
    "r.set_id AS set_id, r.props_json AS props_json"
)

GET_NODES = f"""
MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids
RETURN collect({_NODE_MAP}) AS nodes
"""
"""Nodes whose id is in ``$ids`` (list of str), in one record whose ``nodes`` lists a map per node
(``id``, ``labels``, ``set_id``, ``document_id``, ``props_json``); unknown ids are left out."""


def find_nodes(label: Label | str, *, by_set: bool, by_document: bool, where_keys: Sequence[str]) -> str:
    """Nodes with ``label``, filtered by ``$set_id`` and ``$document_id`` when asked, and by
    ``n.<where_keys[i]> = $where_values[i]`` for each pushed-down property (string values only, so
    Cypher equality agrees with Python's; the store re-checks every ``where`` item on the decoded
    props). One record whose ``nodes`` lists a map per node with the :data:`GET_NODES` fields (a
    record per node is a message each to read). Unordered: the store sorts by node id in Python,
    as the embedded store does."""
    conditions = []
    if by_set:
        conditions.append("n.set_id = $set_id")
    if by_document:
        conditions.append("n.document_id = $document_id")
    conditions += [f"n.{_key(k)} = $where_values[{i}]" for i, k in enumerate(where_keys)]
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    return f"MATCH (n:{NODE_LABEL}:{_label(label)}) {where} RETURN collect({_NODE_MAP}) AS nodes"


def edges(*, outgoing: bool, kinds: Collection[EdgeKind] | None) -> str:
    """Edges leaving (``outgoing``) or entering each node of ``$ids`` (list of distinct str),
    restricted to ``kinds`` (a non-empty collection) when given: one record whose ``edges`` lists a
    map per edge with the asked id (``asked``) and the edge's ``src``, ``kind``, ``dst``, ``seq``,
    ``document_id``, ``set_id`` and ``props_json``; the store groups them by the asked id and sorts
    each list."""
    types = f":{_kinds(kinds)}" if kinds is not None else ""
    pattern = f"(a:{NODE_LABEL} {{id: id}})-[r{types}]->(b:{NODE_LABEL})" if outgoing else \
        f"(a:{NODE_LABEL})-[r{types}]->(b:{NODE_LABEL} {{id: id}})"
    return f"UNWIND $ids AS id MATCH {pattern} RETURN collect({{asked: id, edge: {_EDGE_MAP}}}) AS edges"


def nodes_with_edges(kinds: Collection[EdgeKind]) -> str:
    """:data:`GET_NODES` and :func:`edges` leaving each of those nodes (``outgoing``, of ``kinds``, a
    non-empty collection) in one statement: a row per node of ``$ids`` that exists, with the
    :data:`GET_NODES` fields and ``out``, a list of maps with the :func:`edges` row fields (``src``,
    ``kind``, ``dst``, ``seq``, ``document_id``, ``set_id``, ``props_json``). A rests-on query reads
    its record and the record's alias edges this way: one round trip, not two."""
    return f"""
MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids
RETURN {_NODE_FIELDS},
  COLLECT {{
    MATCH (n)-[r:{_kinds(kinds)}]->(b:{NODE_LABEL})
    RETURN {{src: n.id, kind: type(r), dst: b.id, seq: r.seq, document_id: r.document_id, set_id: r.set_id,
            props_json: r.props_json}}
  }} AS out
"""


def degrees(*, outgoing: bool, kinds: Collection[EdgeKind] | None) -> str:
    """How many edges :func:`edges` would give each node of ``$ids``: rows ``{asked, count}``,
    counted from the node's degree store without reading the relationships."""
    types = f":{_kinds(kinds)}" if kinds is not None else ""
    pattern = f"(a)-[{types}]->()" if outgoing else f"(a)<-[{types}]-()"
    return f"UNWIND $ids AS id MATCH (a:{NODE_LABEL} {{id: id}}) RETURN id AS asked, COUNT {{ {pattern} }} AS count"


def closure(kinds: Collection[EdgeKind]) -> str:
    """Every edge of ``kinds`` whose target reaches a node of ``$ids`` along edges of ``kinds``, in
    one query.

    First the reached nodes: per start node, every node with a path of ``kinds`` to it (``*0..``
    includes the start itself). ``RETURN DISTINCT b`` right after the unbounded variable-length
    pattern lets the planner use a pruning breadth-first expand (``VarLengthExpand(Pruning,BFS)``:
    each node expanded once, so cycles and diamonds cost nothing) instead of enumerating paths.
    Then ``WITH DISTINCT b`` across the start nodes, and every edge of ``kinds`` into a reached
    node: its source is reached too, so these are exactly the edges among reached nodes. Rows carry
    ``rid`` (the relationship's element id) so the store can drop any duplicate row.

    Notes
    -----
    The per-start ``CALL`` subquery is deliberate. Written flat (``MATCH (b)-[*0..]->(s) WITH
    DISTINCT b`` with several start rows), Neo4j 5.26 plans the pruning expand and drops the
    ``Distinct`` operator (also for ``collect(DISTINCT b)``), so a node reached from k starts comes
    back k times. Inside the subquery each expand has one start, and the outer ``DISTINCT`` stays a
    real operator. ``tests/contract/test_parity.py`` checks closures of many starts at once.
    """
    types = _kinds(kinds)
    return f"""{_reached(types)}
MATCH (a:{NODE_LABEL})-[r:{types}]->(b)
RETURN elementId(r) AS rid, {_EDGE_FIELDS}
"""


def _reached(types: str) -> str:
    """The Cypher prefix shared by :func:`closure` and :func:`reach`: one row ``b`` per distinct
    node reaching a node of ``$ids`` along relationships of ``types`` (starts included), found
    by a per-start ``CALL`` (see :func:`closure`'s notes for why)."""
    return f"""
MATCH (s:{NODE_LABEL}) WHERE s.id IN $ids
CALL (s) {{
  MATCH (b:{NODE_LABEL})-[:{types}*0..]->(s)
  RETURN DISTINCT b
}}
WITH DISTINCT b"""


def reach(kinds: Collection[EdgeKind], *, clock: bool = False) -> str:
    """:func:`closure` and the nodes on it in one query and one row (``nodes``): a map per node
    reaching a node of ``$ids`` along edges of ``kinds`` (the starts included), carrying the node's
    light fields and the edges of ``kinds`` into it. One row, not a row per node: the driver reads
    each row as a message of its own (two socket reads each), which at M cost about a quarter of
    the query's wall time seen from the client.

    Parameters (Cypher)
    -------------------
    ``$ids``
        Start node ids (list of distinct str).
    ``$fields``
        Map from model label name to the prop keys read from the node's native properties
        (keys the store may splice: :data:`PROPERTY_KEY`, not reserved).
    ``$whole``
        Model label names whose rows always carry ``props_json`` (a key that has no native
        property was asked for them).
    ``$edge_props``
        Whether the edges carry their ``props_json`` (else null: a reach asked without edge props).

    Rows
    ----
    One row, ``nodes``: a list (empty when no start exists) of maps with ``id``, ``labels`` (model labels), ``set_id``, ``document_id``; ``values``, the native value of
    each key ``$fields`` names for the node's label, in order; ``props_json``, only when the label
    is in ``$whole`` or a value is null (absent, ``None`` or not native: the store then reads the
    props from the JSON); ``incoming``, a list of maps with the :func:`closure` row fields
    (``rid``, ``src``, ``kind``, ``dst``, ``seq``, ``document_id``, ``set_id``, ``props_json``, null
    unless ``$edge_props``).
    Markup and other heavy props never travel unless a value is null.

    Notes
    -----
    The reached nodes are found exactly as in :func:`closure` (per-start ``CALL`` with ``RETURN
    DISTINCT b``, so a pruning breadth-first expand, then ``WITH DISTINCT b``); every edge into a
    reached node comes from a reached node, so the ``incoming`` lists together are the closure.

    With ``clock``, the row also carries :data:`WRITE_CLOCK`'s ``begun`` and ``writing``, read
    after the nodes: the clock is read in a subquery given the collected ``nodes``, so it runs for
    the aggregation's one row, which exists only once every node and edge has been read (an
    aggregation consumes all its input first; ``PROFILE`` shows ``Apply`` with the clock on its
    right-hand side, after ``EagerAggregation``). A read snapshot whose last read this is needs
    no clock read of its own at its end (:meth:`graph.stores.neo4j.Neo4jStore.snapshot`).
    """
    types = _kinds(kinds)
    if clock:
        return f"""{_reach_nodes(types)}
CALL (nodes) {{
  WITH nodes WHERE nodes IS NOT NULL
  {WRITE_CLOCK.strip()}
}}
RETURN nodes, begun, writing
"""
    return f"""{_reach_nodes(types)}
RETURN nodes
"""


def _reach_nodes(types: str) -> str:
    """:func:`reach` up to ``WITH … AS nodes``, its one aggregated value."""
    return f"""{_reached(types)}
WITH b, [l IN labels(b) WHERE l <> '{NODE_LABEL}'] AS labels
WITH b, labels, reduce(ks = [], l IN labels | ks + coalesce($fields[l], [])) AS keys
WITH b, labels, [k IN keys | b[k]] AS values
WITH collect({{id: b.id, labels: labels, set_id: b.set_id, document_id: b.document_id, values: values,
  props_json: CASE WHEN any(l IN labels WHERE l IN $whole) OR any(v IN values WHERE v IS NULL)
                   THEN b.props_json END,
  incoming: COLLECT {{
    MATCH (a:{NODE_LABEL})-[r:{types}]->(b)
    RETURN {{rid: elementId(r), src: a.id, kind: type(r), dst: b.id, seq: r.seq,
            document_id: r.document_id, set_id: r.set_id, props_json: CASE WHEN $edge_props THEN r.props_json END}}
  }}}}) AS nodes"""


def count_nodes_and_edges() -> str:
    """Node count per model label (one scan of ``:CgNode``) and relationship count per
    :class:`~graph.model.EdgeKind` (count-store lookups), one row ``{name, count}`` per name."""
    per_kind = "\n".join(
        f"  UNION ALL MATCH (:{NODE_LABEL})-[r:{kind.value}]->() RETURN '{kind.value}' AS name, count(r) AS count"
        for kind in EdgeKind
    )
    return f"""
CALL () {{
  MATCH (n:{NODE_LABEL})
  UNWIND [l IN labels(n) WHERE l <> '{NODE_LABEL}'] AS name
  RETURN name, count(*) AS count
{per_kind}
}}
RETURN name, count
"""


def count_from_count_store() -> str:
    """The same rows as :func:`count_nodes_and_edges` from Neo4j's count store (no scan, constant
    time): ``:CgNode``'s count and each model label's count over the whole database, one row
    ``{name, count}`` each. A model label's count is citegraph's only while no other node of the
    database carries it: every citegraph node has exactly one model label, so that holds exactly
    when the labels' counts add up to ``:CgNode``'s (:meth:`graph.stores.neo4j.Neo4jStore.counts`
    checks it, and scans otherwise). Each count is its own ``CALL``: so written, each is planned as
    a count-store lookup (inside one ``UNION`` they were label scans). One record: ``counts``, the
    list of those ``{name, count}`` maps."""
    counted = [(NODE_LABEL, f"MATCH (n:{NODE_LABEL}) RETURN count(n)")]
    counted += [(label.value, f"MATCH (n:{label.value}) RETURN count(n)") for label in Label]
    counted += [(kind.value, f"MATCH (:{NODE_LABEL})-[r:{kind.value}]->() RETURN count(r)") for kind in EdgeKind]
    calls = "\n".join(f"CALL () {{ {match} AS c{i} }}" for i, (_, match) in enumerate(counted))
    pairs = ", ".join(f"{{name: '{name}', count: c{i}}}" for i, (name, _) in enumerate(counted))
    return f"{calls}\nRETURN [{pairs}] AS counts\n"


SET_TALLIES = f"""
UNWIND $set_ids AS sid
CALL (sid) {{
  MATCH (n:{NODE_LABEL} {{set_id: sid}})
  UNWIND [l IN labels(n) WHERE l <> '{NODE_LABEL}'] AS name
  WITH name, count(*) AS c
  RETURN collect([name, c]) AS labels
}}
CALL (sid) {{
  MATCH (d:{NODE_LABEL}:Document {{set_id: sid}})
  RETURN collect([d.id, d.unaccounted_record_ids]) AS documents
}}
CALL (sid) {{
  MATCH (r:{NODE_LABEL}:Record {{set_id: sid}})
  RETURN sum(COUNT {{ (r)<-[:CITES]-() }}) AS record_citations
}}
CALL (sid) {{
  MATCH (s:{NODE_LABEL}:Section {{set_id: sid}}) WHERE s.kind = 'annotation'
  RETURN count(s) AS annotations
}}
CALL (sid) {{
  MATCH (f:{NODE_LABEL}:SourceFile {{set_id: sid}})
  RETURN collect([f.id, f.path]) AS source_files
}}
RETURN sid, labels, documents, record_citations, annotations, source_files
"""
"""Per set of ``$set_ids``, the counts of :class:`graph.tallies.SetTally` in one round trip, each
through the ``set_id`` index of its label: node counts per label, the Document ids with their
native ``unaccounted_record_ids`` (never their large ``props_json``), the ``CITES`` degree summed
over the Records (``COUNT {…}`` reads the degree, not the edges), the annotation Sections, and the
SourceFiles' ``[id, path]`` (sorted in Python, as every answer is)."""

COUNT_SET = f"""
CALL () {{
  MATCH (n:{NODE_LABEL} {{set_id: $set_id}})
  UNWIND [l IN labels(n) WHERE l <> '{NODE_LABEL}'] AS name
  RETURN name, count(*) AS count
  UNION ALL
  MATCH (:{NODE_LABEL} {{set_id: $set_id}})-[r]->() WHERE r.set_id = $set_id
  RETURN type(r) AS name, count(r) AS count
  UNION ALL
  MATCH (:{NODE_LABEL}:System)-[r]->() WHERE r.set_id = $set_id
  RETURN type(r) AS name, count(r) AS count
}}
RETURN name, count
"""
"""Node count per label of set ``$set_id`` and edge count per type of its edges (each starts at a
node of the set or at its System), one row ``{name, count}`` per name, through the ``set_id``
indexes."""


TOTALS = f"""
CALL () {{ MATCH (n:{NODE_LABEL}) RETURN count(n) AS nodes }}
CALL () {{ MATCH (:{NODE_LABEL})-[r]->() RETURN count(r) AS edges }}
RETURN nodes, edges
"""
"""Total node and edge counts (for :class:`~graph.model.WriteSummary`)."""


# -- writes (each runs inside the one transaction of a write) ---------------------------------

LOCK_WRITES = f"""
MERGE (l:{LOCK_LABEL} {{name: 'writes'}})
WITH l, coalesce(l.stamped = coalesce(l.writes, 0), false) AS unbroken
SET l.writes = coalesce(l.writes, 0) + 1, l.stamped = coalesce(l.writes, 0) + 1
RETURN l.writes AS stamp, unbroken
"""
"""Take the store-wide write lock, first thing in every write transaction, and count the write:
``stamp`` is its number (the sets it touches take it, :data:`STAMP_SETS`), and ``unbroken`` says
that the write before it was counted here too (``stamped``): a write of a citegraph that kept no
stamps counts ``writes`` alone, and the next write then stamps every set (:data:`STAMP_EVERY_SET`).
Neo4j runs at read-committed isolation: without the lock two replacements of one document could
interleave into a mix of both, and a set emptied while another set of its system is written could
take the shared System node with it. Writers wait for each other (whole-set writes are rare)."""

READ_SLOTS = 32
"""How many read slots a store has (``:CgWriteLock`` nodes named ``read-0`` … ``read-31``): a read
snapshot holds one (:data:`HOLD_READ_SLOT`), a write takes them all to commit (:data:`LOCK_READERS`)."""

HOLD_READ_SLOT = f"""
MERGE (s:{LOCK_LABEL} {{name: 'read-' + toString($slot)}})
SET s.reads = coalesce(s.reads, 0) + 1
"""
"""Take read slot ``$slot`` for a read snapshot: the snapshot's transaction holds the slot's lock
and is rolled back at the end, so nothing is written and the lock goes with it. A slot that does
not exist yet is created in the transaction, whose uniqueness lock on the name then excludes a
writer just as the node's lock would."""

LOCK_READERS = f"""
UNWIND range(0, $slots - 1) AS slot
MERGE (s:{LOCK_LABEL} {{name: 'read-' + toString(slot)}})
SET s.writes = coalesce(s.writes, 0) + 1
"""
"""Take every read slot, the last step of every write transaction (``$slots`` is
:data:`READ_SLOTS`). Neo4j releases a transaction's locks only once its commit is wholly applied,
and reads at read-committed isolation, so this is what makes a read snapshot one state: a write
commits only while no snapshot is open (its work runs meanwhile; the commit waits for the open
snapshots to end), and a snapshot that begins while a commit is applied waits for it. The open
snapshots of one process hold distinct slots, so readers wait for each other only when those of
several processes meet on one slot, and then only for the other's read."""

WRITE_MARK_LEASE_MS = 600_000
"""How old (server milliseconds) a ``writing-`` mark must be before the next write removes it as
left by a writer that died between :data:`BEGIN_WRITE` and :data:`END_WRITE`. Removing it is safe
even if its writer lives: the remover's own mark stands until the remover's write, which waits for
the store-wide write lock (:data:`LOCK_WRITES`), has committed."""

BEGIN_WRITE = f"""
MERGE (c:{LOCK_LABEL} {{name: 'clock'}})
SET c.begun = coalesce(c.begun, 0) + 1
CREATE (:{LOCK_LABEL} {{name: 'writing-' + $token, since: timestamp()}})
WITH c
CALL () {{
  MATCH (w:{LOCK_LABEL}) WHERE w.name STARTS WITH 'writing-' AND w.since < timestamp() - $lease_ms
  DELETE w
}}
"""
"""Mark a write under way (its own transaction, committed before the write's transaction begins):
count it on the ``clock`` and leave a ``writing-$token`` mark (removed by :data:`END_WRITE` once
the write's transaction has committed or failed), and drop marks older than ``$lease_ms``
(:data:`WRITE_MARK_LEASE_MS`). With :data:`WRITE_CLOCK` this makes an optimistic read snapshot
sound at read-committed isolation: a commit is applied to the store piece by piece, but no piece
of it is visible before its mark and its count are committed, nor after its mark is gone."""

END_WRITE = f"""
MATCH (w:{LOCK_LABEL} {{name: 'writing-' + $token}})
DELETE w
"""
"""Remove the mark of :data:`BEGIN_WRITE` (its own transaction, after the write's)."""

WRITE_CLOCK = f"""
OPTIONAL MATCH (c:{LOCK_LABEL} {{name: 'clock'}})
RETURN coalesce(c.begun, 0) AS begun,
       COUNT {{ MATCH (w:{LOCK_LABEL}) WHERE w.name STARTS WITH 'writing-' }} AS writing
"""
"""How many writes have begun, and how many marks of writes under way there are. A read snapshot
reads it first and last: if no write was under way at the start and none began by the end, every
read between saw one committed state (no part of any commit was applied meanwhile)."""

EXISTING_NODES = f"""
MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids
RETURN {_NODE_FIELDS}
"""
"""Like :data:`GET_NODES`, run inside a write transaction."""

EXISTING_KINDS = f"""
MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids
RETURN n.id AS id, [l IN labels(n) WHERE l <> '{NODE_LABEL}'] AS labels, n.set_id AS set_id,
  n.document_id AS document_id, null AS props_json
"""
"""Like :data:`EXISTING_NODES` without the properties: label, set and document of each id
(for :func:`graph.writes.check_node_kinds`)."""

SET_DOCUMENTS = f"""
MATCH (n:{NODE_LABEL}:Document) WHERE n.set_id IN $sets
RETURN n.id AS id ORDER BY id
"""
"""Ids of the Document nodes of the sets ``$sets`` (list of str), inside a delete's transaction."""

EXISTING_IDS = f"""
MATCH (n:{NODE_LABEL}) WHERE n.id IN $ids
RETURN n.id AS id
"""
"""Which ids of ``$ids`` name a node (edge ends are checked before edges are written)."""

DELETE_DOCUMENT_NODES = f"""
UNWIND $document_ids AS d
CALL (d) {{
  MATCH (n:{NODE_LABEL} {{document_id: d}})
  DETACH DELETE n
}}
CALL (d) {{
  MATCH (n:{NODE_LABEL} {{id: d}})
  DETACH DELETE n
}}
"""
"""Delete each document of ``$document_ids``: the nodes it owns and the node with its id, with
every relationship touching them (whoever owns those)."""


def delete_owned_edges() -> str:
    """Delete every relationship whose ``owner`` is in ``$owners`` (document ids, or ``set:<id>`` for
    a set's derived edges), whatever its type: one subquery per type, each using that type's
    ``owner`` index."""
    parts = "\n".join(f"CALL (o) {{ MATCH ()-[r:{kind.value} {{owner: o}}]->() DELETE r }}" for kind in EdgeKind)
    return f"UNWIND $owners AS o\n{parts}"


def _each(test: str, update: str) -> str:
    """``update`` for the rows where ``test`` holds: a conditional update clause, because a label or
    relationship type cannot be a parameter before Neo4j 5.26 (``SET n:$(row.label)``)."""
    return f"FOREACH (_ IN CASE WHEN {test} THEN [1] ELSE [] END | {update})"


MERGE_NODES = f"""
UNWIND $rows AS row
MERGE (n:{NODE_LABEL} {{id: row.id}})
SET n = row.properties
REMOVE n:{':'.join(label.value for label in Label)}
{chr(10).join(_each(f"row.label = '{label.value}'", f"SET n:{label.value}") for label in Label)}
"""
"""Create or replace nodes of any label from ``$rows`` (``{id, label, properties}``, ``label`` a
model label's name): the properties replace all of the node's properties, and its model label
becomes ``label`` alone. One statement for every label, found by the ``cg_node_id`` constraint
(``NodeUniqueIndexSeek(Locking)``)."""

CREATE_NODES = "\n".join(f"CALL () {{ UNWIND $rows['{label.value}'] AS p CREATE (n:{NODE_LABEL}:{label.value}) SET n = p }}"
                         for label in Label)
"""Create nodes that do not exist yet, from ``$rows``: a map from model label name to the property
maps of that label's new nodes (every label a key, an empty list when it has none). One statement
for every label, a unit subquery per label: no lookup, no lock-seek of the ``cg_node_id`` index
(the constraint checks the new ids at commit), no ``Eager`` and no label removal, which
:data:`MERGE_NODES` needs to replace a node that may exist."""

SET_STATE = f"""
RETURN COLLECT {{ MATCH (v:{VERSION_LABEL} {{set_id: $set_id}}) WHERE v.number IS NOT NULL RETURN [v.number, v.digest] }}
         AS stored,
       EXISTS {{ MATCH (:{NODE_LABEL}:AnalysisSet {{id: $set_id}}) }} AS existed,
       EXISTS {{ MATCH (:{NODE_LABEL} {{set_id: $set_id}}) }} AS holds
"""
"""Set ``$set_id`` before a write, in one row: ``stored``, the ``[number, digest]`` of each kept
version (unordered; as :data:`STORED_VERSIONS`), ``existed``, whether its AnalysisSet node is
stored (:data:`SET_EXISTS`), and ``holds``, whether any node of the set is (the ``cg_node_set``
index). A set holding none has no document, no shared node and no derived edge stored (each
derived edge touches a node of its set: the set node, a NamedReference or a SourceFile)."""

CREATE_EDGES = "\n".join(
    f"CALL () {{ UNWIND $rows['{kind.value}'] AS row MATCH (a:{NODE_LABEL} {{id: row.src}}) "
    f"MATCH (b:{NODE_LABEL} {{id: row.dst}}) CREATE (a)-[r:{kind.value}]->(b) SET r = row.properties }}"
    for kind in EdgeKind)
"""Create a relationship for each row of ``$rows``: a map from relationship type name to that
type's rows (``{src, dst, properties}``; every type a key, an empty list when it has none), with
``properties`` as its property map, its two ends found by the ``cg_node_id`` constraint. One
statement for every type, a unit subquery per type (a conditional ``FOREACH`` per type on every
row, as written before, was planned with an ``Eager`` between each two). Nothing is matched
against the relationships already there: the store creates only edges whose identity no stored
relationship has (see :func:`stored_edges`), so each row costs the same however many parallel
relationships its two nodes have."""


def stored_edges(kind: EdgeKind | str) -> str:
    """The stored ``kind`` relationships from ``src`` to ``dst`` owned by one of ``owners``, for
    each of ``$pairs`` (``{src, dst, owners}``, each (src, dst) once): rows ``{src, dst, owner,
    seq, rid}``, ``rid`` the relationship's element id. Each pair's relationships are expanded once
    (``Expand(Into)``), so a pair with k parallel relationships costs k, not k per edge written."""
    return f"""
UNWIND $pairs AS pair
MATCH (a:{NODE_LABEL} {{id: pair.src}})-[r:{_kind(kind)}]->(b:{NODE_LABEL} {{id: pair.dst}})
WHERE r.owner IN pair.owners
RETURN pair.src AS src, pair.dst AS dst, r.owner AS owner, r.seq AS seq, elementId(r) AS rid
"""


REPLACE_EDGES = """
UNWIND $rows AS row
MATCH ()-[r]->() WHERE elementId(r) = row.rid
SET r = row.properties
"""
"""Replace all properties of stored relationships from ``$rows`` (``{rid, properties}``, ``rid``
an element id from :func:`stored_edges` read in the same transaction), each found by an
element-id seek, whatever its type."""


UNREFERENCED = f"""
MATCH (n:{NODE_LABEL} {{set_id: $set_id}})
WHERE n.document_id IS NULL AND ({' OR '.join(f'n:{name}' for name in _COLLECTABLE)})
  AND NOT EXISTS {{ MATCH (n)-[r]-() WHERE r.document_id IS NOT NULL AND r.document_id <> '' }}
RETURN n.id AS id
"""
"""The shared nodes (Record, Source, SourceFile, NamedReference) of set ``$set_id`` that no
document-owned relationship touches (:meth:`graph.writes.SetRemains.unreferenced`)."""

HOLDS_DOCUMENTS = f"""
MATCH (s:{NODE_LABEL} {{id: $id}})
RETURN EXISTS {{ MATCH (s)-->(:{NODE_LABEL}:Document) }} AS holds
"""
"""One row (``holds``) if node ``$id`` exists: whether it has a relationship to a Document."""

POINTING_AT = f"""
MATCH (u:{NODE_LABEL})-->(:{NODE_LABEL} {{id: $id}})
WITH DISTINCT u
MATCH (u)-->(t:{NODE_LABEL})
RETURN u.id AS id, collect(DISTINCT t.id) AS targets
"""
"""Each node with a relationship to node ``$id``, with the ids of every node it points at."""

DETACH_DELETE = f"""
UNWIND $ids AS i
MATCH (n:{NODE_LABEL} {{id: i}})
DETACH DELETE n
"""
"""Delete the nodes ``$ids`` with every relationship touching them."""

SET_EXISTS = f"""
MATCH (s:{NODE_LABEL}:AnalysisSet {{id: $set_id}})
RETURN count(s) AS n
"""
"""Whether set ``$set_id`` has its AnalysisSet node (one row, ``n`` 0 or 1)."""

SET_SNAPSHOT_NODES = f"""
MATCH (n:{NODE_LABEL} {{set_id: $set_id}}) USING INDEX n:{NODE_LABEL}(set_id) WHERE NOT n:Review
RETURN {_NODE_FIELDS}
UNION ALL
MATCH (n:{NODE_LABEL}:System)-[r:CONTAINS]->(:{NODE_LABEL} {{id: $set_id}}) WHERE r.set_id = $set_id
RETURN DISTINCT {_NODE_FIELDS}
"""
"""The nodes of set ``$set_id`` (Review nodes left out) and its System node, as :data:`GET_NODES` rows.
The ``cg_node_set`` index is named: left to itself, the planner scanned every ``:CgNode`` not a
``:Review`` (``SubtractionNodeByLabelsScan``) and filtered on ``set_id``, paid by every write."""

SET_SNAPSHOT_EDGES = f"""
MATCH (a:{NODE_LABEL} {{set_id: $set_id}})
CALL (a) {{ MATCH (a)-[r]->(b:{NODE_LABEL}) WHERE r.set_id = $set_id RETURN r, b }}
RETURN {_EDGE_FIELDS}
UNION ALL
MATCH (:{NODE_LABEL} {{id: $set_id}})<-[:CONTAINS]-(s:{NODE_LABEL}:System)
WITH DISTINCT s AS a
CALL (a) {{ MATCH (a)-[r]->(b:{NODE_LABEL}) WHERE r.set_id = $set_id RETURN r, b }}
RETURN {_EDGE_FIELDS}
"""
"""The relationships of set ``$set_id`` (``set_id`` = the set): those leaving its nodes and its System's
(the System that CONTAINS the set node: its edges of the set are that derived CONTAINS edge).
Each half expands from its start nodes (the ``set_id`` index; the set node's ``id``) inside a
``CALL``: written as one pattern, the planner chose to scan every relationship of the database and
filter on ``set_id`` (``DirectedAllRelationshipsScan``), a cost growing with the store, paid by
every write."""

SET_SNAPSHOT = f"""
CALL () {{
  CALL () {{
{SET_SNAPSHOT_NODES.strip()}
  }}
  RETURN collect([id, labels, set_id, document_id, props_json]) AS nodes
}}
CALL () {{
  CALL () {{
{SET_SNAPSHOT_EDGES.strip()}
  }}
  RETURN collect([kind, src, dst, seq, document_id, set_id, props_json]) AS edges
}}
RETURN nodes, edges
"""
""":data:`SET_SNAPSHOT_NODES` and :data:`SET_SNAPSHOT_EDGES` of ``$set_id`` in one round trip and
one record (``nodes``: ``[id, labels, set_id, document_id, props_json]`` each; ``edges``: ``[kind,
src, dst, seq, document_id, set_id, props_json]`` each): a write reads its set back this way for
its version, and the driver's cost per record was most of that read. Each half aggregates
inside its own ``CALL``, so it yields its one row even when it matches nothing."""

STORED_VERSIONS = f"""
MATCH (v:{VERSION_LABEL} {{set_id: $set_id}}) WHERE v.number IS NOT NULL
RETURN v.number AS number, v.digest AS digest ORDER BY number
"""
"""``(number, digest)`` of each kept version of ``$set_id``, by number."""

VERSION_SUMMARIES = f"""
MATCH (v:{VERSION_LABEL} {{set_id: $set_id}}) WHERE v.number IS NOT NULL
RETURN v.number AS number, v.created AS created, v.digest AS digest, v.summary AS summary ORDER BY number
"""
"""Each kept version of ``$set_id`` without its blob, by number."""

VERSION_BLOB = f"""
MATCH (v:{VERSION_LABEL} {{set_id: $set_id, number: $number}})
RETURN v.blob AS blob
"""
"""The blob of version ``$number`` of ``$set_id`` (no row when it is not kept)."""

LATEST_VERSION = f"""
MATCH (v:{VERSION_LABEL} {{set_id: $set_id}}) WHERE v.number IS NOT NULL
RETURN v.blob AS blob, v.summary AS summary ORDER BY v.number DESC LIMIT 1
"""
"""The blob and summary of the latest kept version of ``$set_id`` (no row when none is kept)."""

LATEST_SUMMARIES = f"""
MATCH (v:{VERSION_LABEL}) WHERE v.number IS NOT NULL AND ($set_ids IS NULL OR v.set_id IN $set_ids)
WITH v.set_id AS set_id, max(v.number) AS number
MATCH (v:{VERSION_LABEL} {{set_id: set_id, number: number}})
RETURN set_id, v.summary AS summary ORDER BY set_id
"""
"""The summary of the latest kept version of each set (of ``$set_ids``, or of every set when null)."""

ADD_VERSIONS = f"""
UNWIND $rows AS row
CREATE (v:{VERSION_LABEL})
SET v = row
"""
"""Store each of ``$rows`` (``{set_id, number, created, digest, summary, blob}``) as a version node."""

DROP_VERSIONS = f"""
MATCH (v:{VERSION_LABEL} {{set_id: $set_id}}) WHERE v.number IN $numbers
DELETE v
"""
"""Delete versions ``$numbers`` of ``$set_id`` (retention)."""

DROP_ALL_VERSIONS = f"""
MATCH (v:{VERSION_LABEL} {{set_id: $set_id}}) WHERE v.number IS NOT NULL
DELETE v
"""
"""Delete every version of ``$set_id`` (the set is gone). Every version has a ``number``: saying so
lets the planner seek the ``(set_id, number)`` index instead of scanning every version node."""

STAMP_SETS = f"""
UNWIND $set_ids AS sid
MERGE (s:{STAMP_LABEL} {{set_id: sid}})
SET s.stamp = $stamp
WITH sid
CALL (sid) {{
  MATCH (r:{RESULT_LABEL} {{set_id: sid}})
  DELETE r
}}
"""
"""Give each set of ``$set_ids`` the stamp ``$stamp`` (the write's number, :data:`LOCK_WRITES`) and
drop its kept results, inside the write that touched its rows."""

STAMP_EVERY_SET = f"""
CALL () {{
  MATCH (r:{RESULT_LABEL})
  DELETE r
}}
CALL () {{
  MATCH (a:{NODE_LABEL}:AnalysisSet)
  MERGE (s:{STAMP_LABEL} {{set_id: a.id}})
  SET s.stamp = $stamp
}}
"""
"""Give every set the stamp ``$stamp`` and drop every kept result (a write found a write before it
that kept no stamps: which sets that one touched is not known)."""

SET_STAMPS = f"""
MATCH (l:{LOCK_LABEL} {{name: 'writes'}}) WHERE l.stamped = l.writes
UNWIND $set_ids AS sid
MATCH (:{NODE_LABEL}:AnalysisSet {{id: sid}})
MATCH (s:{STAMP_LABEL} {{set_id: sid}})
RETURN collect([sid, s.stamp]) AS stamps
"""
"""The stamp of each set of ``$set_ids`` that is in the store and has one, as ``[set_id, stamp]``
pairs in one record (none while the last write kept no stamps: a citegraph before them wrote,
and its sets are not known)."""

KEPT_RESULTS = f"""
UNWIND $keys AS key
MATCH (r:{RESULT_LABEL} {{key: key}})
RETURN collect([r.set_id, r.stamp, r.result]) AS results
"""
"""The results kept under ``$keys`` (each ``name`` and ``set_id``, :func:`result_key`), as
``[set_id, stamp, result]`` in one record."""

KEEP_RESULTS = f"""
MATCH (l:{LOCK_LABEL} {{name: 'writes'}}) WHERE l.stamped = l.writes
UNWIND $rows AS row
MATCH (s:{STAMP_LABEL} {{set_id: row.set_id}}) WHERE s.stamp = row.stamp
MERGE (r:{RESULT_LABEL} {{key: row.key}})
SET r.set_id = row.set_id, r.name = $name, r.stamp = row.stamp, r.result = row.result
RETURN count(r) AS kept
"""
"""Keep each of ``$rows`` (``{key, set_id, stamp, result}``) whose set's stamp is still ``stamp``."""


def result_key(name: str, set_id: str) -> str:
    """The ``key`` of the ``:CgSetResult`` node of result ``name`` of set ``set_id``."""
    return f"{name}\x00{set_id}"


WIPE = f"""
MATCH (n) WHERE n:{NODE_LABEL} OR n:{LOCK_LABEL} OR n:{VERSION_LABEL} OR n:{STAMP_LABEL} OR n:{RESULT_LABEL}
CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 10000 ROWS
"""
"""Delete every citegraph node, lock node and version node (tests; other data in the database is left alone).
Must run in an auto-commit transaction (``session.run``)."""
