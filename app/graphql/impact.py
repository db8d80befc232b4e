"""GraphQL types of the ``impact`` field (issue #6): :class:`queries.impact.ImpactReport` field for field,
names camel-cased by strawberry (``old_path`` → ``oldPath``); ``from_`` is exposed as ``from``."""

from __future__ import annotations

from typing import Optional

import strawberry

from queries import impact as domain

__all__ = ["Impact"]


@strawberry.type(description="A cited source file changed between the two revisions.")
class ChangedFile:
    file: str
    path: str
    status: str
    old_path: Optional[str]
    new_path: Optional[str]
    cited_by: list[str]
    renamed: bool

    @classmethod
    def from_domain(cls, c: domain.ChangedFile) -> "ChangedFile":
        return cls(file=c.file, path=c.path, status=c.status, old_path=c.old_path, new_path=c.new_path,
                   cited_by=list(c.cited_by), renamed=c.renamed)


@strawberry.type(description="Occurrences of a quotation in one file.")
class Occurrence:
    path: str
    count: int


@strawberry.type(description="Lines of one file version around a quotation (1-based, inclusive).")
class QuotationContext:
    path: str
    revision: str
    start_line: int
    end_line: int
    text: str

    @classmethod
    def from_domain(cls, c: domain.QuotationContext | None) -> Optional["QuotationContext"]:
        if c is None:
            return None
        return cls(path=c.path, revision=c.revision, start_line=c.start_line, end_line=c.end_line, text=c.text)


@strawberry.type(description="A quotation's state at `to`: intact, moved, ambiguous or broken.")
class QuotationDrift:
    quotation: str
    statement: Optional[str]
    document: str
    path: str
    checked_path: Optional[str]
    text: str
    state: str
    found_in: list[Occurrence]
    reason: str
    old: Optional[QuotationContext]
    new: Optional[QuotationContext]
    diff: str

    @classmethod
    def from_domain(cls, q: domain.QuotationDrift) -> "QuotationDrift":
        return cls(quotation=q.quotation, statement=q.statement, document=q.document, path=q.path,
                   checked_path=q.checked_path, text=q.text, state=q.state,
                   found_in=[Occurrence(path=o.path, count=o.count) for o in q.found_in], reason=q.reason,
                   old=QuotationContext.from_domain(q.old), new=QuotationContext.from_domain(q.new), diff=q.diff)


@strawberry.type(description="A suspect reviewed at a source revision.")
class Review:
    id: str
    node: str
    set: str
    revision: str
    reviewer: str
    at: str
    note: Optional[str]
    fingerprint: str

    @classmethod
    def from_domain(cls, r: domain.Review | None) -> Optional["Review"]:
        if r is None:
            return None
        return cls(id=r.id, node=r.node, set=r.set, revision=r.revision, reviewer=r.reviewer, at=r.at, note=r.note,
                   fingerprint=r.fingerprint)


@strawberry.type(description="A statement, record, section or document resting on changed evidence.")
class Suspect:
    node: str
    kind: str
    set: str
    document: Optional[str]
    section: Optional[str]
    section_heading: Optional[str]
    text: str
    line: Optional[int]
    order: int
    conclusion: bool
    depth: int
    path: list[str]
    edges: list[str]
    trigger: str
    change: str
    review: Optional[Review]

    @classmethod
    def from_domain(cls, s: domain.Suspect) -> "Suspect":
        return cls(node=s.node, kind=s.kind, set=s.set, document=s.document, section=s.section,
                   section_heading=s.section_heading, text=s.text, line=s.line, order=s.order,
                   conclusion=s.conclusion, depth=s.depth, path=list(s.path), edges=list(s.edges), trigger=s.trigger,
                   change=s.change, review=Review.from_domain(s.review))


@strawberry.type(description="Counts of an impact report.")
class ImpactSummary:
    changed_files: int
    uncited_changes: int
    intact: int
    moved: int
    ambiguous: int
    broken: int
    statements: int
    records: int
    sections: int
    documents: int
    conclusions: int
    reviewed: int


@strawberry.type(description="What moving the analysed source between two revisions does to an analysis set.")
class Impact:
    set: str
    source: Optional[str]
    from_: str = strawberry.field(name="from")
    to: str
    summary: ImpactSummary
    changes: list[ChangedFile]
    uncited_changes: list[str]
    quotations: list[QuotationDrift]
    suspects: list[Suspect]
    reviewed: list[Suspect]

    @classmethod
    def from_domain(cls, report: domain.ImpactReport) -> "Impact":
        m = report.summary
        return cls(
            set=report.set, source=report.source, from_=report.from_revision, to=report.to_revision,
            summary=ImpactSummary(**{name: getattr(m, name) for name in m.__dataclass_fields__}),
            changes=[ChangedFile.from_domain(c) for c in report.changes],
            uncited_changes=list(report.uncited_changes),
            quotations=[QuotationDrift.from_domain(q) for q in report.quotations],
            suspects=[Suspect.from_domain(s) for s in report.suspects],
            reviewed=[Suspect.from_domain(s) for s in report.reviewed],
        )
