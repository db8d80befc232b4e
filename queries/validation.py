"""Set validation (``citegraph check``): findings with stable codes, read from the stored graph."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from graph.errors import AnalysisSetNotFound
from graph.model import EdgeKind, Label
from graph.store import Direction, GraphStore

__all__ = ["Finding", "CheckReport", "check"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One validation finding.

    ``code`` is stable (e.g. ``unresolved-reference``), ``severity`` ``error`` or ``warning``,
    ``set`` the analysis set, ``file`` and ``line`` where the problem is (``line`` 0 when the
    finding is about a whole file or set), ``node`` the graph node concerned, ``message`` prose.
    """

    code: str
    severity: str
    set: str
    file: str
    line: int
    node: str
    message: str

    def to_dict(self) -> dict:
        """JSON-compatible form."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CheckReport:
    """All findings, sorted by (set, file, line, code, node); ``errors``/``warnings`` counts."""

    findings: tuple[Finding, ...]

    @property
    def errors(self) -> int:
        """Number of error findings."""
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        """Number of warning findings."""
        return sum(1 for f in self.findings if f.severity == "warning")

    def to_dict(self) -> dict:
        """``{"errors", "warnings", "findings": [...]}``."""
        return {"errors": self.errors, "warnings": self.warnings, "findings": [f.to_dict() for f in self.findings]}


def _first_citation(store: GraphStore, node_ids: list[str]) -> dict[str, tuple[str, int]]:
    """(file path, line) of the first statement or section citing each node."""
    incoming = store.edges(node_ids, kinds=[EdgeKind.CITES, EdgeKind.ANNOTATES], direction=Direction.IN)
    citing = store.get_nodes({e.src for es in incoming.values() for e in es})
    docs = store.get_nodes({n.document_id for n in citing.values() if n.document_id})
    out = {}
    for node_id, edges in incoming.items():
        places = sorted(
            (docs[citing[e.src].document_id].get("path"), citing[e.src].get("line") or 0)
            for e in edges if e.src in citing and citing[e.src].document_id in docs
        )
        out[node_id] = places[0] if places else ("", 0)
    return out


def check(store: GraphStore, *, set_id: str | None = None) -> CheckReport:
    """Validate the stored sets (or one set).

    Rules (stable codes):

    - ``unresolved-reference`` (warning): a named reference resolves to no section or member of
      its set (seeds issue: named references resolve within the citing set only).
    - ``undeclared-record`` (warning): a record is cited but declared in no ingested member.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.
    """
    if set_id is not None and not store.get_nodes([set_id]):
        raise AnalysisSetNotFound(f"no analysis set {set_id!r} in the store")
    findings: list[Finding] = []
    refs = store.find_nodes(Label.NAMED_REFERENCE, set_id=set_id)
    records = store.find_nodes(Label.RECORD, set_id=set_id)
    resolved = store.edges([r.id for r in refs], kinds=[EdgeKind.RESOLVES_TO], direction=Direction.OUT)
    declared = store.edges([r.id for r in records], kinds=[EdgeKind.DECLARED_IN], direction=Direction.OUT)
    unresolved = [r for r in refs if not resolved[r.id]]
    undeclared = [r for r in records if not declared[r.id]]
    where = _first_citation(store, [n.id for n in unresolved + undeclared])
    for ref in unresolved:
        path, line = where[ref.id]
        findings.append(Finding("unresolved-reference", "warning", ref.set_id or "", path, line, ref.id,
                                f"named reference {ref.get('name')!r} resolves to no section or member of set {ref.set_id}"))
    for rec in undeclared:
        path, line = where[rec.id]
        findings.append(Finding("undeclared-record", "warning", rec.set_id or "", path, line, rec.id,
                                f"record {rec.get('record_id')} is cited but declared in no ingested member of set {rec.set_id}"))
    findings.sort(key=lambda f: (f.set, f.file, f.line, f.code, f.node))
    return CheckReport(tuple(findings))
