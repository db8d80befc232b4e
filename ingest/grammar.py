"""The analysis-set grammar as data: identifier patterns, member types and section vocabularies.

Every rule here cites its source in ``../shared/format/GRAMMAR.md`` (copied as ``corpus/`` is not;
the grammar is described in the README). Both parsers and the set checker read this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "RECORD_ID",
    "RECORD_ID_STRICT",
    "SOURCE_ID",
    "RUN_ID",
    "PATH_TOKEN",
    "PROSE_PATH",
    "KINDS",
    "ANALYSTS",
    "KIND_HEADINGS",
    "MemberType",
    "member_type",
    "EMPTY_KIND",
    "EVIDENCE_LAYERS",
    "parse_record_id",
    "ParsedRecordId",
    "classify_token",
    "system_from_title",
    "ATTRIBUTION",
    "ID_LIKE",
    "SOURCE_RANGE",
    "RECORD_RANGE",
    "MEMBER_FILES",
    "NON_MEMBER_TYPES",
    "record_id_from_anchor",
    "role_of",
    "role_file",
]

KINDS = ("CMP", "OBJ", "RTE", "CLM", "ABS", "BAP")
"""Record kinds (GRAMMAR §1.1): components, operative objects, routes, claims, evidenced absences,
behavioral-authority paths."""

ANALYSTS = ("RT", "MEM", "EPI")
"""Declaring-analyst prefixes (GRAMMAR §1.1): runtime, memory, epistemic."""

_NAME = r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*){0,2}"
RECORD_ID_STRICT = re.compile(rf"(?<![\w-])(?:RT|MEM|EPI)-(?:CMP|OBJ|RTE|CLM|ABS|BAP)-{_NAME}(?![\w-])")
"""Newest record-ID form (GRAMMAR §1.1, validator ``records.py``): ``RT-RTE-workspace-send``."""

RECORD_ID = re.compile(
    rf"(?<![\w-])(?:(?:RT|MEM|EPI)-)?(?:CMP|OBJ|RTE|CLM|ABS|BAP)-(?:\d+|{_NAME})(?![\w-])"
)
"""Tolerant record-ID form (GRAMMAR §1.1, §10): slug, prefixed numeric (``RT-OBJ-1``) and G2
unprefixed numeric (``RTE-11``). ``EPI-M1`` does not match: ``M`` is not a kind."""

SOURCE_ID = re.compile(r"(?<![\w-])SRC-\d+(?![\w-])")
"""Source IDs (GRAMMAR §1.2): ``SRC-1``; G0 ``SRC-01``."""

RUN_ID = re.compile(r"^AAS-\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*-\d{2}$")
"""Run IDs (GRAMMAR §1.2): ``AAS-2026-10-04-dynamic-cheatsheet-01``."""

PATH_TOKEN = re.compile(r"^(?:[\w.@~+-]+/)*[\w.@~+-]+(?:\.[A-Za-z0-9]{1,8}|/)$|^(?:[\w.@~+-]+/)+[\w.@~+-]+$")
"""A citation-group token that is a commit-relative path (GRAMMAR §9 rule 5: contains ``/`` or a
``.ext``)."""

PROSE_PATH = re.compile(r"(?<![\w./@-])(?:[\w.@-]+/)+[\w@-][\w.@-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/])")
"""A path mentioned in running prose: at least one ``/`` and a file extension
(``src/lib/aiAgentSession.ts``). Bare names such as ``AGENTS.md`` are not taken as source files."""

KIND_HEADINGS = (
    ("CMP", "Components"),
    ("OBJ", "Operative objects"),
    ("RTE", "Routes"),
    ("CLM", "Claims"),
    ("ABS", "Evidenced absences"),
    ("BAP", "Behavioral-authority paths"),
)
"""The six H3 kind headings under ``## Shared records``, in order (GRAMMAR §4.1)."""

EVIDENCE_LAYERS = ("implementation", "doctrine/design", "reported operation", "observed run", "causal experiment")
"""Evidence layers of the Source register (GRAMMAR §7, §8)."""

EMPTY_KIND = re.compile(r"^none declared in this member\.?$")
"""The empty-kind sentence (GRAMMAR §4.1; a test fixture adds a trailing period)."""


@dataclass(frozen=True, slots=True)
class MemberType:
    """One member type: its role in a set and the headings a plain-text parser may recover.

    ``sections`` are the H2 names (GRAMMAR §3); ``subsections`` the fixed H3 names; ``free`` the H2
    sections whose short lines are free H3 subheadings (GRAMMAR §9 rule 2); ``record_prefix`` the
    analyst prefix it may declare (GRAMMAR §2.2 rule 4), or None.
    """

    name: str
    role: str
    sections: tuple[str, ...]
    subsections: tuple[str, ...] = ()
    free: tuple[str, ...] = ()
    record_prefix: str | None = None


_KIND_NAMES = tuple(name for _, name in KIND_HEADINGS)

_MEMBER_TYPES = (
    MemberType("agentic-system-synthesis", "synthesis", ("Bounded synthesis", "Limitations"),
               free=("Bounded synthesis",)),
    MemberType("agentic-system-workflow-report", "workflow-report",
               ("Workflow account", "Shared records", "Annotations"), _KIND_NAMES, free=("Workflow account",)),
    MemberType("agentic-system-runtime-report", "runtime", ("Runtime account", "Shared records", "Annotations"),
               _KIND_NAMES, free=("Runtime account",), record_prefix="RT"),
    MemberType("agentic-system-memory-report", "memory",
               ("Boundary and evidence", "Core ideas", "Shared records", "Annotations", "Write side", "Read-back",
                "Comparison rationale", "Integration issues", "Limitations and checks"),
               _KIND_NAMES, record_prefix="MEM"),
    MemberType("agent-memory-analysis-report", "memory",
               ("Boundary and evidence", "Core ideas", "Shared records", "Annotations", "Write side", "Read-back",
                "Comparison rationale", "Integration issues", "Limitations and checks"),
               _KIND_NAMES, record_prefix="MEM"),
    MemberType("agentic-system-epistemic-report", "epistemic",
               ("Source-and-claim boundary", "Epistemic-object inventory", "Authority-route ledger",
                "System-claim versus route comparison", "Per-object lifecycle disposition", "Bounded conclusion",
                "Shared records", "Annotations"),
               _KIND_NAMES, record_prefix="EPI"),
    MemberType("agentic-system-reconciliation-report", "reconciliation", ("Reconciliation",),
               free=("Reconciliation",)),
    MemberType("agentic-system-memory-profile", "memory-profile", ("Comparison rationale",)),
    MemberType("agent-memory-profile", "memory-profile", ("Comparison rationale",)),
    MemberType("agentic-system-analysis-overview", "overview",
               ("Boundary and evidence", "Source register", "Bounded synthesis", "Limitations",
                "Verification and blockers", "Members"),
               ("Record verification", "Profile verification", "Synthesis verification",
                "Deterministic validation", "Blockers"),
               free=("Bounded synthesis",)),
    MemberType("agentic-system-boundary", "boundary", ("Boundary and evidence", "Source register", "Not reached")),
    MemberType("agentic-system-verification", "verification", ("Verification", "Blockers", "Limits")),
    MemberType("generated-review", "generated-review", ("Limitations",)),
)

_TYPE_PREFIXES = ("agentic-system-analyses/types/", "agentic-systems/types/", "reports/types/", "types/")
"""Type-path prefixes of the four generations (GRAMMAR §0, §10)."""


def member_type(type_path: str) -> MemberType | None:
    """The member type named by a ``type:`` value, or None when it is not a member type.

    Accepts the four prefixes of GRAMMAR §10 and both names of the memory and profile types.

    >>> member_type("agentic-system-analyses/types/agentic-system-synthesis.md").role
    'synthesis'
    >>> member_type("types/agent-memory-analysis-report.md").role
    'memory'
    >>> member_type("agentic-system-analyses/types/agentic-system-analysis-set.md") is None
    True
    """
    path = type_path.strip()
    for prefix in _TYPE_PREFIXES:
        if path.startswith(prefix):
            path = path[len(prefix):]
            break
    else:
        return None
    name = path.removesuffix(".md")
    return next((t for t in _MEMBER_TYPES if t.name == name), None)


@dataclass(frozen=True, slots=True)
class ParsedRecordId:
    """A record ID split into analyst prefix (or None for G2 unprefixed), kind and slug/number."""

    analyst: str | None
    kind: str
    slug: str


def parse_record_id(record_id: str) -> ParsedRecordId:
    """Split a record ID (GRAMMAR §1.1).

    >>> parse_record_id("RT-RTE-mcp-write")
    ParsedRecordId(analyst='RT', kind='RTE', slug='mcp-write')
    >>> parse_record_id("RTE-11")
    ParsedRecordId(analyst=None, kind='RTE', slug='11')

    Raises
    ------
    ValueError
        ``record_id`` does not match the tolerant record-ID pattern.
    """
    if not RECORD_ID.fullmatch(record_id):
        raise ValueError(f"not a record ID: {record_id!r}")
    parts = record_id.split("-")
    if parts[0] in ANALYSTS:
        return ParsedRecordId(parts[0], parts[1], "-".join(parts[2:]))
    return ParsedRecordId(None, parts[0], "-".join(parts[1:]))


def classify_token(token: str) -> str:
    """Classify one citation-group token (GRAMMAR §9 rule 5): ``record``, ``source``, ``file`` or
    ``named``.

    >>> [classify_token(t) for t in ["RT-RTE-mcp-write", "SRC-1", "mcp-server/vault.js", "workflow account"]]
    ['record', 'source', 'file', 'named']
    >>> classify_token("doctrine/design")  # an evidence layer (GRAMMAR §7), not a path
    'named'
    """
    if RECORD_ID.fullmatch(token):
        return "record"
    if SOURCE_ID.fullmatch(token):
        return "source"
    if " " not in token and PATH_TOKEN.match(token) and token.lower() not in EVIDENCE_LAYERS:
        return "file"
    return "named"


_ROLE_WORDS = frozenset(
    "synthesis workflow report runtime memory epistemic reconciliation profile overview boundary "
    "verification analysis agent agentic system record synthesis-verification generated review".split()
)


def system_from_title(title: str) -> str:
    """The system's name from a member's H1 title: trailing role words dropped, while they are
    written in the case of the last one (a capitalised ``Memory`` before a lower-case
    ``runtime report`` is part of the name).

    >>> system_from_title("Tolaria workflow report")
    'Tolaria'
    >>> system_from_title("Dynamic Cheatsheet memory profile")
    'Dynamic Cheatsheet'
    >>> system_from_title("Instinctual Memory runtime report")  # the G2.5 rewrite's title
    'Instinctual Memory'
    """
    words = title.split()
    lower = words[-1].islower() if words else True
    while len(words) > 1 and words[-1].lower() in _ROLE_WORDS and words[-1].islower() == lower:
        words.pop()
    return " ".join(words)


ATTRIBUTION = re.compile(
    r"^[ \t]*>[ \t]*---[ \t]+`([^`]+)`(?:[ \t]*@[ \t]*`([0-9a-f]{7,64})`)?[ \t]*$"
)
"""A quotation's attribution line (GRAMMAR §6, tolerant): ``> --- `path` `` with optional
``:lines`` inside the code span and an optional `` @ `rev` ``; leading indentation allowed for quotes
nested in list items. Group 1 is the code span, group 2 the revision."""

ID_LIKE = re.compile(r"(?<![\w-])(?:RT|MEM|EPI)-[A-Za-z]+-[\w-]*\w(?![\w-])")
"""Tokens shaped like an analyst-prefixed record ID (``RT-XYZ-foo``, ``RT-RTE-Foo``,
``RT-RTE-a-b-c-d``); those the tolerant :data:`RECORD_ID` does not match are malformed (GRAMMAR §1.1).
Wildcards such as ``RT-*`` and mismatch markers such as ``EPI-M1`` are not ID-shaped."""

SOURCE_RANGE = re.compile(
    r"(?<![\w-])SRC-\d+(?:[ \t]+through[ \t]+SRC-\d+|[ \t]*[\u2013\u2014][ \t]*SRC-\d+|-\d+)(?![\w-])"
)
"""A source range, refused by the contract (GRAMMAR §1.2): ``SRC-1 through SRC-3``, ``SRC-1–SRC-3``,
``SRC-1-3``."""

RECORD_RANGE = re.compile(
    rf"({RECORD_ID.pattern})[ \t]+through[ \t]+({RECORD_ID.pattern})"
)
"""A record range such as ``RTE-4 through RTE-9``, refused by the record contract but present in G2
prose (GRAMMAR §1.1)."""

MEMBER_FILES: dict[str, str] = {
    "boundary": "boundary.md",
    "overview": "overview.md",
    "runtime": "runtime.md",
    "memory": "memory.md",
    "epistemic": "epistemic.md",
    "reconciliation": "reconciliation.md",
    "memory-profile": "memory-profile.md",
    "synthesis": "synthesis.md",
    "report-verification": "report-verification.md",
    "record-verification": "record-verification.md",
    "profile-verification": "profile-verification.md",
    "synthesis-verification": "synthesis-verification.md",
    "workflow-report": "workflow.md",
}
"""Role → file name in a set folder (GRAMMAR §2 layout; the verification type's own name
``record-verification.md`` is accepted beside the layout's ``report-verification.md``)."""

_FILE_ROLES = {name: role for role, name in MEMBER_FILES.items()}

NON_MEMBER_TYPES = frozenset({
    "type-spec", "note", "agentic-system-analysis-set", "agentic-system-analysis-run-state",
})
"""Type names of Markdown files that live beside members but are not members: type definitions,
instructions, the set type itself and run state (GRAMMAR §2; ``corpus/…/types/``)."""


def role_of(member: MemberType, file_name: str) -> str:
    """The role of a member of type ``member`` stored as ``file_name``.

    The three verification members share one type, so their role comes from the file name
    (GRAMMAR §2, §3.9); every other role comes from the type.

    >>> role_of(member_type("agentic-system-analyses/types/agentic-system-verification.md"),
    ...         "profile-verification.md")
    'profile-verification'
    >>> role_of(member_type("types/agent-memory-profile.md"), "anything.md")
    'memory-profile'
    """
    if member.role == "verification":
        return _FILE_ROLES.get(file_name, "verification") if file_name.endswith("verification.md") else "verification"
    return member.role


def role_file(role: str) -> str | None:
    """The file name of ``role`` in a set folder, or None for an unknown role.

    >>> role_file("memory-profile")
    'memory-profile.md'
    """
    return MEMBER_FILES.get(role)


_ANCHOR = re.compile(r"^(?:(rt|mem|epi)-)?(cmp|obj|rte|clm|abs|bap)-([a-z0-9]+(?:-[a-z0-9]+)*)$")


def record_id_from_anchor(anchor: str) -> str | None:
    """The record ID an anchor names, its analyst prefix and kind upper-cased again (GRAMMAR §1.1:
    ``ANCHOR = lower(ID)``), or None when the anchor is not a record anchor.

    >>> record_id_from_anchor("rt-rte-cumulative-update")
    'RT-RTE-cumulative-update'
    >>> record_id_from_anchor("rte-3"), record_id_from_anchor("limitations")
    ('RTE-3', None)
    """
    m = _ANCHOR.match(anchor.strip().lower())
    if not m:
        return None
    prefix, kind, name = m.groups()
    record_id = f"{prefix.upper()}-" if prefix else ""
    record_id += f"{kind.upper()}-{name}"
    return record_id if RECORD_ID.fullmatch(record_id) else None
