"""What a write means, decided once for every store: each store only executes these rules.

A write (:meth:`graph.store.GraphStore.write_set`, ``delete_documents``, ``put_reviews``) is the
:class:`~graph.model.SetBatch` steps run in one transaction. The rules the steps share live here:

- **compare-and-swap** (step 0): :func:`check_expected` compares each ``expect`` item with the
  stored document's SHA-256, read inside the write's transaction;
- **documents to replace** (step 1): :func:`documents_replaced`; an id that names a stored node
  of another kind or owner is refused, never deleted or overwritten (:func:`check_node_kinds`);
- **documents to delete**: :func:`documents_deleted`, only Document nodes;
- **shared-node merge** (step 2): :func:`merged_shared`; non-null properties overwrite, null ones
  never erase;
- **identity and ownership of edges**: :func:`edge_owner` and :func:`edge_identity`; of equal
  nodes or edges in one write the last wins (:func:`last_of`);
- **orphan collection** (step 5): :func:`collected`, from what :class:`SetRemains` reads: the
  nodes with a label in :data:`COLLECTABLE` that no document-owned edge touches go; then a set
  node that contains no Document any more goes, and with it each node that pointed at it (its
  System) and points at nothing else. A store runs this per touched set after the other steps;
- **review validation**: :func:`checked_reviews`, and what a review vouches for: :func:`review_fingerprint`;
- **the answer**: :func:`write_summary`.
"""

from __future__ import annotations

import json
from typing import Protocol, TypeVar
from collections.abc import Collection, Iterable, Mapping, Sequence

from graph.errors import CitegraphError, NodeConflict, PreconditionFailed
from graph.model import SHARED_LABELS, Edge, Label, Node, SetBatch, WriteSummary

__all__ = [
    "COLLECTABLE",
    "SetRemains",
    "collected",
    "orphans_of_new_set",
    "check_expected",
    "documents_replaced",
    "documents_deleted",
    "kind_checked_ids",
    "check_node_kinds",
    "check_edge_ends",
    "merged_shared",
    "edge_owner",
    "edge_identity",
    "last_of",
    "checked_reviews",
    "review_fingerprint",
    "write_summary",
]

COLLECTABLE: frozenset[Label] = SHARED_LABELS - {Label.SYSTEM, Label.ANALYSIS_SET}
"""Shared labels removed when no document-owned edge touches the node (Record, Source,
SourceFile, NamedReference). System and AnalysisSet nodes go with their last document instead."""

T = TypeVar("T", Node, Edge)


def check_expected(expect: Mapping[str, str | None], current: Mapping[str, str | None]) -> None:
    """Step 0: every ``expect`` item (document id → SHA-256, or ``None``: must not exist) must
    equal ``current`` (document id → stored SHA-256; an absent key is an absent document).

    Raises
    ------
    PreconditionFailed
        The first document whose stored version differs; the caller's transaction rolls back.
    """
    for doc_id, sha in expect.items():
        now = current.get(doc_id)
        if now != sha:
            raise PreconditionFailed(
                f"document {doc_id} is at {now or 'nothing'}, not the expected {sha or 'nothing'}",
                hint="fetch the document again for its current ETag and retry")


def documents_replaced(batch: SetBatch) -> list[str]:
    """Step 1: the document ids deleted (with all they own) before ``batch`` is written, sorted:
    every id in ``replace`` and every document the batch writes."""
    return sorted({*batch.replace, *(d.id for d in batch.documents)})


def documents_deleted(ids: Iterable[str], existing: Mapping[str, Node]) -> list[str]:
    """What :meth:`~graph.store.GraphStore.delete_documents` deletes, in order: each id of ``ids``
    naming a stored Document node (``existing``: id → node, as read in the write's transaction),
    except one named twice. Unknown ids are ignored, and so is an id naming a node of another
    label (a set, a record, a statement): deleting documents never deletes anything else.

    Examples
    --------
    >>> doc = Node("s/d", Label.DOCUMENT, "s", "s/d")
    >>> stmt = Node("s/d#L3", Label.STATEMENT, "s", "s/d")
    >>> the_set = Node("s", Label.ANALYSIS_SET, "s", None)
    >>> documents_deleted(["s/d", "s/d#L3", "s", "nope", "s/d"], {n.id: n for n in (doc, stmt, the_set)})
    ['s/d']
    """
    deleted: list[str] = []
    for node_id in ids:
        node = existing.get(node_id)
        if node is None or node.label != Label.DOCUMENT or node_id in deleted:
            continue
        deleted.append(node_id)
    return deleted


class SetRemains(Protocol):
    """What a store reads of one set, inside a write's transaction once the other steps ran, for
    :func:`collected` to decide what goes."""

    def unreferenced(self, set_id: str) -> list[str]:
        """Ids of the set's nodes with a :data:`COLLECTABLE` label that no document owns and no
        document-owned edge touches (an edge a document owns, not a set's derived one)."""
        ...

    def holds_documents(self, set_id: str) -> bool | None:
        """Whether the node with id ``set_id`` has an edge to a Document; None: no such node."""
        ...

    def pointing_at(self, node_id: str) -> Mapping[str, Collection[str]]:
        """Each node with an edge to ``node_id`` → the ids of every node its edges point at."""
        ...


def orphans_of_new_set(set_id: str, nodes: Sequence[tuple[Node, str]], edges: Sequence[tuple[Edge, str]]
                        ) -> list[str] | None:
    """What :func:`collected` decides for set ``set_id`` after a write that put
    ``nodes`` and ``edges`` into a store holding no node of the set (under the write lock, so
    no other edge touches them), from those rows alone: the set's unreferenced shared nodes,
    when the set node holds a Document. None when the rows do not decide it (an edge with an end
    the write did not put, or no Document held: then the System may go, which the store knows).

    ``nodes`` and ``edges`` are the rows as a store put them, each with its encoded properties
    (unused here). Lets a store skip asking for the set's unreferenced nodes (``SetRemains``) for a
    set new to it; the answer is the one :func:`collected` would give."""
    labels = {node.id: node.label for node, _ in nodes}
    if any(e.src not in labels or e.dst not in labels for e, _ in edges):
        return None
    if not any(e.src == set_id and labels[e.dst] == Label.DOCUMENT for e, _ in edges):
        return None
    touched = {i for e, _ in edges if e.document_id is not None and e.document_id != "" for i in (e.src, e.dst)}
    return sorted(n.id for n, _ in nodes if n.set_id == set_id and n.label in COLLECTABLE
                  and n.document_id is None and n.id not in touched)


def collected(set_id: str, remains: SetRemains) -> list[list[str]]:
    """Step 5 for one set: the node ids a store deletes, each with every edge touching them, stage
    by stage in order (a stage may be empty): the set's unreferenced shared nodes; then, if the set
    node holds no Document any more, the set node; then each node that pointed at it and points
    at nothing that stays (its System).

    Examples
    --------
    >>> class Left:
    ...     def unreferenced(self, set_id): return ["s/record/R-1"]
    ...     def holds_documents(self, set_id): return False
    ...     def pointing_at(self, node_id): return {"system/x": {"s"}, "system/y": {"s", "t"}}
    >>> collected("s", Left())
    [['s/record/R-1'], ['s'], ['system/x']]
    """
    orphans = sorted(remains.unreferenced(set_id))
    if remains.holds_documents(set_id) is not False:
        return [orphans]
    gone = {*orphans, set_id}
    parents = sorted(p for p, targets in remains.pointing_at(set_id).items() if p not in gone and set(targets) <= gone)
    return [orphans, [set_id], parents]


def kind_checked_ids(batch: SetBatch) -> list[str]:
    """The ids :func:`check_node_kinds` needs the stored nodes of (label, set and document are
    enough; props are not read): the documents replaced, the shared nodes and every node the
    batch's documents own."""
    ids = [*documents_replaced(batch), *(n.id for n in batch.shared)]
    ids += [n.id for d in batch.documents for n in d.nodes]
    return list(dict.fromkeys(ids))


def check_node_kinds(batch: SetBatch, stored: Mapping[str, Node]) -> None:
    """Step 0 (after ``expect``): no step of ``batch`` may delete or overwrite a node of another
    kind or owner. ``stored`` maps the ids of :func:`kind_checked_ids` to the nodes stored now (an
    absent key: no such node). Every id the batch replaces or writes as a document must name a
    Document or nothing; every shared node a node of its own label and set, or nothing; every node
    a document owns a node of a document the batch replaces, or nothing.

    Raises
    ------
    NodeConflict
        The first id that breaks a rule; the caller's transaction rolls back.

    Examples
    --------
    >>> from graph.model import DocumentGraph
    >>> doc = Node("s/synthesis", Label.DOCUMENT, "s", "s/synthesis")
    >>> batch = SetBatch("s", (), (DocumentGraph(doc, (), ()),), ())
    >>> check_node_kinds(batch, {"s/synthesis": Node("s/synthesis", Label.RECORD, "s", None)})
    Traceback (most recent call last):
    graph.errors.NodeConflict: s/synthesis is a Record in the store, not a document: it is neither replaced nor deleted
    """
    replaced = documents_replaced(batch)
    for node_id in replaced:
        node = stored.get(node_id)
        if node is not None and node.label != Label.DOCUMENT:
            raise NodeConflict(f"{node_id} is a {node.label} in the store, not a document: it is neither "
                               f"replaced nor deleted", hint="document ids are <set>/<role>")
    for new in batch.shared:
        node = stored.get(new.id)
        if node is not None and (node.label != new.label or node.set_id != new.set_id or node.document_id):
            raise NodeConflict(f"{new.id} is a {node.label} of {node.document_id or node.set_id or 'no set'} "
                               f"in the store; set {batch.set_id} cannot write a {new.label} under that id",
                               hint="a run-id or system name that spells another node's id cannot name a set")
    owners = set(replaced)
    for document in batch.documents:
        for new in document.nodes:
            node = stored.get(new.id)
            if node is not None and node.document_id not in owners:
                raise NodeConflict(f"{new.id} is a {node.label} of {node.document_id or node.set_id or 'no set'} "
                                   f"in the store; document {document.id} cannot write a {new.label} under that id")


def check_edge_ends(edges: Iterable[Edge], known: Collection[str]) -> None:
    """Every edge's ``src`` and ``dst`` must be ``known`` node ids (read in the write's transaction).

    Raises
    ------
    CitegraphError
        The first edge naming an unknown node; the caller's transaction rolls back.
    """
    for edge in edges:
        for end in (edge.src, edge.dst):
            if end not in known:
                raise CitegraphError(f"edge {edge.kind} {edge.src} -> {edge.dst} names unknown node {end}")


def merged_shared(old: Node | None, new: Node) -> Node:
    """Step 2: ``new`` upserted onto the stored ``old`` (or ``None``): ``old``'s properties with
    every non-null property of ``new`` over them; id, label, set and document are ``new``'s.

    Examples
    --------
    >>> old = Node("s/R-1", Label.RECORD, "s", None, {"record_id": "R-1", "kind": "route"})
    >>> merged_shared(old, Node("s/R-1", Label.RECORD, "s", None, {"kind": None, "slug": "r-1"})).props
    {'record_id': 'R-1', 'kind': 'route', 'slug': 'r-1'}
    """
    if old is None:
        return new
    props = dict(old.props)
    props.update({k: v for k, v in new.props.items() if v is not None})
    return Node(new.id, new.label, new.set_id, new.document_id, props)


def edge_owner(edge: Edge) -> str:
    """Who owns ``edge``: its document id, or ``set:<set id>`` for a derived edge (RESOLVES_TO,
    IN_SOURCE, the System's CONTAINS), which every write of the set replaces (step 4)."""
    return edge.document_id or f"set:{edge.set_id}"


def edge_identity(edge: Edge) -> tuple[str, str, str, str, int]:
    """``(src, kind, dst, owner, seq)``: two edges with equal identity are one edge, and writing
    the second replaces the first."""
    return (edge.src, str(edge.kind), edge.dst, edge_owner(edge), edge.seq)


def last_of(items: Iterable[T]) -> list[T]:
    """Nodes (by id) or edges (by :func:`edge_identity`) with the last of equal ones kept, in the
    order each identity first appeared."""
    final: dict[str | tuple[str, str, str, str, int], T] = {}
    for item in items:
        final[_identity(item)] = item
    return list(final.values())


def _identity(item: Node | Edge) -> str | tuple[str, str, str, str, int]:
    return item.id if isinstance(item, Node) else edge_identity(item)


def checked_reviews(reviews: Collection[Node]) -> list[Node]:
    """``reviews`` as a list, each a Review node without a document.

    Raises
    ------
    CitegraphError
        A node of another label, or one owned by a document; nothing is written.
    """
    reviews = list(reviews)
    for node in reviews:
        if node.label != Label.REVIEW or node.document_id is not None:
            raise CitegraphError(f"put_reviews takes Review nodes without a document, not {node.label} {node.id}")
    return reviews


def review_fingerprint(node: Node) -> str:
    """SHA-256 (hex) of what a review of ``node`` vouches for: the node's id, label and content
    (statement text, section heading, document bytes' hash, record ID). Stored with a review when
    it is written, and compared with the node's current one when impact analysis applies it."""
    content = {Label.STATEMENT: "text", Label.SECTION: "heading", Label.DOCUMENT: "sha256",
               Label.RECORD: "record_id"}.get(node.label, "text")
    data = json.dumps([node.id, str(node.label), node.get(content)], ensure_ascii=False)
    import hashlib  # here, not at the top: loading OpenSSL costs a process a few ms, and most never hash

    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def write_summary(batch: SetBatch, nodes: int, edges: int) -> WriteSummary:
    """The :class:`WriteSummary` of ``batch``: the documents written, the ones ``replace`` deleted
    without a new version, and the store's totals after the write."""
    written = tuple(d.id for d in batch.documents)
    return WriteSummary(written, tuple(sorted(set(batch.replace) - set(written))), nodes, edges)
