"""Suspects: what rests on changed evidence (rests-on from changed files and drifted quotations),
and the reviews that clear them."""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Mapping

from graph.codec import member_of, member_path, record_id_of, section_of, statement_of
from graph.errors import RevisionNotFound
from graph.model import DEPENDENCY_KINDS, EdgeKind, Label, Node
from graph.store import Direction, GraphStore
from graph.writes import review_fingerprint
from queries.impact.drift import DriftChecker, ImpactScope, file_delta
from queries.impact.results import SUSPECT_KINDS, QuotationDrift, Review, Suspect
from queries.names import require_set
from queries.traversal import explain

__all__ = ["reviews_of", "node_order", "suspects_of", "apply_reviews"]


def node_order(node_id: str) -> tuple[str, int, str]:
    """Document, then line number, so ``#L9`` precedes ``#L11`` (as in :func:`~queries.traversal.explain`)."""
    head, _, tail = node_id.partition("#")
    digits = tail[1:] if tail[:1] in ("L", "Q", "D") else ""
    return (head, int(digits) if digits.isdigit() else -1, tail)


def _shown(node: Node) -> tuple[str, int | None, int]:
    """(text, line, order) a suspect shows of ``node``: a statement's text, a section's heading, a
    document's title or a record's ID; the file line and block order of a block (None and 0 else)."""
    if node.label == Label.STATEMENT:
        statement = statement_of(node)
        return statement.text, statement.line, statement.order
    if node.label == Label.SECTION:
        section = section_of(node)
        return section.heading, section.line, section.order
    return (member_of(node).title if node.label == Label.DOCUMENT else record_id_of(node)), None, 0



def suspects_of(store: GraphStore, triggers: Mapping[str, str]) -> tuple[list[Suspect], dict[str, Node]]:
    """Every suspect resting on a ``triggers`` key (start node id → change description)."""
    if not triggers:
        return [], {}
    starts = sorted(triggers)
    best = explain(store.closure(starts, kinds=DEPENDENCY_KINDS), starts)
    nodes = store.get_nodes([n for n in best if n not in triggers])
    statements = [n.id for n in nodes.values() if n.label == Label.STATEMENT]
    parents = store.edges(statements, kinds=[EdgeKind.CONTAINS], direction=Direction.IN)
    parent_of = {s: next((e.src for e in es if "#" in e.src), None) for s, es in parents.items()}
    missing = {p for p in parent_of.values() if p and p not in nodes}
    missing |= {n.document_id for n in nodes.values() if n.document_id and n.document_id not in nodes}
    context = {**nodes, **store.get_nodes(sorted(missing))}
    out = []
    for node_id, node in nodes.items():
        kind = SUSPECT_KINDS.get(node.label)
        if kind is None:
            continue
        why = best[node_id]
        section = parent_of.get(node_id)
        heading = section_of(context[section]).heading if section in context else None
        document = context.get(node.document_id) if node.document_id else None
        conclusion = node.label == Label.STATEMENT and (
            (document is not None and member_of(document).role == "synthesis")
            or (statement_of(node).kind == "table_row" and heading == "Limitations"))
        text, line, order = _shown(node)
        out.append(Suspect(
            node=node_id, kind=kind, set=node.set_id or "", document=node.document_id, section=section,
            section_heading=heading, text=text, line=line, order=order,
            conclusion=conclusion, depth=why.depth, path=why.path, edges=why.edges, trigger=why.path[-1],
            change=triggers[why.path[-1]], file=member_path(document) or None if document is not None else None))
    out.sort(key=Suspect.sort_key)
    return out, nodes


def apply_reviews(store: GraphStore, checker: DriftChecker, scope: ImpactScope, base: str, to_commit: str,
                   drift: list[QuotationDrift], suspects: list[Suspect],
                   nodes: Mapping[str, Node]) -> tuple[list[Suspect], list[Suspect]]:
    """Split ``suspects`` into flagged and cleared by a review (rules in :func:`impact_of`)."""
    if not suspects:
        return [], []
    by_node: dict[str, list[Review]] = {}
    for node in store.find_nodes(Label.REVIEW, set_id=scope.set_id):
        review = Review.from_node(node)
        by_node.setdefault(review.node, []).append(review)
    if not by_node:
        return suspects, []
    resolved: dict[str, str | None] = {}
    rests_since: dict[str, set[str]] = {}
    at_to = {q.quotation: (q.state, q.found_in) for q in drift}
    quotations = {q.id: q for q in scope.quotations}

    def changed_since(commit: str) -> set[str]:
        """Nodes resting on evidence that changed between ``commit`` and ``to_commit``."""
        if commit not in rests_since:
            files, _ = file_delta(checker, commit, to_commit)
            starts = {c.file: c.describe() for c in files}
            checker.prefetch(base, commit)
            for q in drift:
                if q.state == "intact":
                    continue
                then = checker.outcome(quotations[q.quotation], base, commit)
                if (then.state, then.found_in) != at_to[q.quotation]:
                    starts[q.quotation] = q.describe()
            rests_since[commit] = {s.node for s in suspects_of(store, starts)[0]}
        return rests_since[commit]

    flagged, cleared = [], []
    for suspect in suspects:
        clearing = None
        for review in sorted(by_node.get(suspect.node, ()), key=lambda r: r.at, reverse=True):
            if review.fingerprint != review_fingerprint(nodes[suspect.node]):
                continue
            if review.revision not in resolved:
                try:
                    resolved[review.revision] = checker.repo.resolve(review.revision)
                except RevisionNotFound:
                    resolved[review.revision] = None
            commit = resolved[review.revision]
            if commit is None or not checker.repo.is_ancestor(commit, to_commit):
                continue
            if suspect.node not in changed_since(commit):
                clearing = review
                break
        if clearing is None:
            flagged.append(suspect)
        else:
            cleared.append(replace(suspect, review=clearing))
    return flagged, cleared


def reviews_of(store: GraphStore, *, set_id: str | None = None, node_id: str | None = None) -> tuple[Review, ...]:
    """Stored reviews (of one set and/or one node when given), sorted by (set, node, at, revision).

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is not in the store (the hint names the closest sets)."""
    require_set(store, set_id)
    where = {"node": node_id} if node_id is not None else None
    found = [Review.from_node(n) for n in store.find_nodes(Label.REVIEW, set_id=set_id, where=where)]
    return tuple(sorted(found, key=lambda r: (r.set, r.node, r.at, r.revision)))
