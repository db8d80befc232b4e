"""What a statement states besides its citations, read the same way by both parsers from its
plain text and citations: amendments (GRAMMAR §4.8), the sources a Source register row
declares (§7), ID findings (§1), conclusion statuses (§4.4) and run-on fields (§4.3). A plain-text rendering of a Markdown member must give the same facts as the
member, so each rule is written once, here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.checks import Flaws
from domain.grammar import ID_LIKE, RECORD_ID, SOURCE_RANGE, STATUS_IN_PROSE, STATUS_LABEL, record_ranges, split_status
from domain.ids import RecordId, SourceId
from domain.model import Amendment, Citation, Field, Source, Status

__all__ = ["AMENDMENT", "CONFLICT", "amendment_facts", "register_pin", "id_findings", "status_facts",
           "row_statuses", "run_on_fields"]

AMENDMENT = "Amendment:"
"""Opening of an amendment paragraph (GRAMMAR §4.8)."""

CONFLICT = "Unresolved conflict:"
"""Opening of an unresolved-conflict paragraph (GRAMMAR §4.9)."""

_SUPERSESSION = re.compile(
    rf"^Amendment:\s*({RECORD_ID.pattern})\s+is superseded by\s+"
    rf"((?:{RECORD_ID.pattern})(?:\s*(?:,\s*(?:and\s+)?|and\s+)(?:{RECORD_ID.pattern}))*)"
)
_ACCESS_ROOT = re.compile(r"\s*[(;]\s*access root")


def amendment_facts(text: str, citations: Sequence[Citation]) -> Amendment | None:
    """The :class:`~domain.model.Amendment` an ``Amendment:`` paragraph states, from its plain
    ``text`` and record citations: the record it ``amends`` (the first ID, GRAMMAR §4.8) and, for
    the supersession form, the (old, new) pairs it ``supersedes``; None when it cites no record.

    >>> from ingest.citations import extract_citations
    >>> text = "Amendment: EPI-OBJ-1 is superseded by MEM-OBJ-1 as the canonical identity."
    >>> amendment_facts(text, extract_citations(text))
    Amendment(amends='EPI-OBJ-1', supersedes=(('EPI-OBJ-1', 'MEM-OBJ-1'),))
    """
    records = [c for c in citations if c.target_kind == "record"]
    if not records:
        return None
    m = _SUPERSESSION.match(text)
    if m:
        old = [c.target for c in records if m.start(1) <= c.start < m.end(1)]
        new = [c.target for c in records if m.start(2) <= c.start < m.end(2)]
        if old and new:
            return Amendment(RecordId(old[0]), tuple((RecordId(old[0]), RecordId(n)) for n in new))
    return Amendment(RecordId(records[0].target))


def register_pin(cells: Sequence[str], identity: str | None = None) -> Source:
    """The source a Source register row declares (GRAMMAR §7): ``SRC-n | kind | identity/location
    | revision or capture | evidence layer | …``. The identity is ``identity`` when given (the
    Markdown cell's first code span), else the cell's text before an ``(access root …)`` note.

    >>> pin = register_pin(["SRC-1", "Git", "https://github.com/a/b (access root: x/)", "6acb", "implementation"])
    >>> (pin.source_id, pin.kind, pin.url, pin.commit, pin.evidence_layers, pin.declared)
    ('SRC-1', 'Git', 'https://github.com/a/b', '6acb', 'implementation', True)
    """

    def cell(n: int) -> str | None:
        return cells[n] if n < len(cells) and cells[n] else None

    if identity is None and len(cells) > 2:
        identity = _ACCESS_ROOT.split(cells[2])[0].strip() or None
    return Source(SourceId(cells[0]), url=identity, commit=cell(3), kind=cell(1), evidence_layers=cell(4), declared=True)


def id_findings(text: str) -> Flaws | None:
    """Malformed ID-shaped tokens and refused ranges in one statement's plain text (GRAMMAR §1),
    as :class:`~domain.checks.Flaws`; None when it has none (most statements)."""
    out: dict = {}
    # Each scan only runs when its literal is in the text: ID_LIKE needs an analyst prefix and
    # ``-``, SOURCE_RANGE ``SRC-``, record ranges ``through`` or ``–`` (most statements have none).
    if "RT-" in text or "MEM-" in text or "EPI-" in text:
        malformed = [m.group() for m in ID_LIKE.finditer(text) if not RECORD_ID.fullmatch(m.group())]
        if malformed:
            out["malformed_ids"] = tuple(malformed)
    if "SRC-" in text:
        source_ranges = tuple(m.group() for m in SOURCE_RANGE.finditer(text))
        if source_ranges:
            out["source_ranges"] = source_ranges
    ranges = record_ranges(text)
    if any(r.reason is None for r in ranges):
        out["record_ranges"] = tuple(r.text for r in ranges if r.reason is None)
    if any(r.reason is not None for r in ranges):
        out["unexpanded_ranges"] = tuple((r.text, r.reason) for r in ranges if r.reason is not None)
    return Flaws(**out) if out else None


_STATUS_WORDS = re.compile(r"(?i)conclusion status")
"""The words every :data:`~domain.grammar.STATUS_IN_PROSE` match holds, read the same way (its
``(?i)``): a scan for them alone is several times cheaper than the pattern's at every position."""


def status_facts(text: str, label: str | None, value: str | None, form: str | None) -> tuple[Status, ...]:
    """Conclusion-status fields stated by one statement (GRAMMAR §4.4), each a
    :class:`~domain.model.Status` (:func:`~domain.grammar.split_status`): a ``label: value`` bullet
    or line gives its whole value (so ``wired; observed`` is kept whole and refused); bold bullets
    and run-on prose (G2) give each ``… conclusion status: value`` (or ``… conclusion status
    `wired```, no colon) up to the next ``;`` or ``.``."""
    if (label is not None and form in ("bullet", "line") and STATUS_LABEL.match(label)
            and not STATUS_IN_PROSE.search(value or "")):
        stated = [(label, value or "")]
    elif _STATUS_WORDS.search(text) is None:  # every STATUS_IN_PROSE match holds them (most statements lack them)
        return ()
    else:
        stated = [(m.group(1), m.group(2)) for m in STATUS_IN_PROSE.finditer(text)]
    out = []
    for name, raw in stated:
        status, qualifier = split_status(raw)
        out.append(Status(name.strip(), status, qualifier or None))
    return tuple(out)


def row_statuses(header_cells: Sequence[str], cells: Sequence[str]) -> tuple[Status, ...]:
    """Conclusion statuses a declaring table row states in a status column (GRAMMAR §0: a G0 route
    table ``| ID | Route | Status |`` with ``| RTE-01 | … | wired |``; GRAMMAR §4.4 knows only
    ``… conclusion status:`` fields): for each column whose header is ``Status`` or a status label
    (:data:`~domain.grammar.STATUS_LABEL`) and whose cell is not empty, a status as
    :func:`status_facts` gives them, so ``check`` reads the value as any other status.

    >>> row_statuses(["ID", "Route", "Status"], ["RTE-01", "Task loop writes a summary", "wired"])
    (Status(label='Status', value='wired', qualifier=None),)
    >>> row_statuses(["ID", "Route"], ["RTE-01", "x"]), row_statuses(["ID", "Status"], ["RTE-01", ""])
    ((), ())
    """
    out = []
    for header, cell in zip(header_cells, cells):
        label = header.strip().strip("*").strip()
        if not cell.strip() or not (label.lower() == "status" or STATUS_LABEL.match(label)):
            continue
        status, qualifier = split_status(cell)
        out.append(Status(label, status, qualifier or None))
    return tuple(out)


_RUN_ON_LABEL = re.compile(r"(?:^|(?<=[.;]\s))([A-Z][\w/,' -]{2,80}?):\s")


def run_on_fields(text: str) -> tuple[Field, ...]:
    """The fields (label and value, no form) of a run-on prose record body (G2: ``Source-native
    identity: … Representational form: … Storage substrate: …``, GRAMMAR §4.3); empty unless it
    has two."""
    marks = list(_RUN_ON_LABEL.finditer(text))
    if len(marks) < 2:
        return ()
    return tuple(Field(m.group(1).strip(), text[m.end():nxt.start() if nxt else len(text)].strip())
                 for m, nxt in zip(marks, [*marks[1:], None]))
