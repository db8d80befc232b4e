"""The analysis-set grammar as data: identifier patterns, member types and section vocabularies.

Every rule here cites its source in ``docs/grammar.md`` (``GRAMMAR §N`` is its section ``N``); the
closed vocabularies it uses (kinds, analysts, statuses, route fields) are :mod:`domain.vocabulary`'s. Both parsers, the set checker, the
renderers and the bench's invariants read these two modules, so each rule is written once; they do
no I/O and import nothing outside ``domain/``.

Where the real G1 results disagree with GRAMMAR.md (files under
``corpus/commonplace/kb/reports/retained/agentic-system-analysis/<run>/result.md``), the documents
win, and the rule here says so:

- a table whose header's first cell is ``ID`` declares its rows' records (:func:`declaring_table`;
  GRAMMAR §0 names the form for G0 only; AIDE2-01 146-155, 246-255), rows continued after a blank
  line without the header included;
- proposal-to-canonical mappings make aliases (:func:`alias_pairs`, :func:`mapping_table`;
  Fragility Grid-01 489, AIDE2-01 326, Napkin-02 752-754, Supermemory-01 1179, Mem0-01 877);
- a kind section's opening sentence states every record's status (:data:`KIND_STATUSES`;
  AIDE2-01 161), and status labels hold slashes and qualifiers (:data:`STATUS_LABEL`);
- ``ID1 through ID2`` with ends of different kinds means "via" (:func:`record_ranges`); an en dash
  never does: ``RTE-1–OBJ-3`` is a range that cites only its ends, with a warning;
- a numbered ID may open a compound modifier, ``RTE-1-generated OBJ-1`` (mem0-01 615), and cites
  its record (:data:`RECORD_ID`);
- an attribution may pin a capture's digest, `` @ `sha256:…` `` (:data:`ATTRIBUTION`; AIDE2-01 140);
- a citation token of slash-joined IDs, a dotted identifier or a host name is no file
  (:func:`classify_token`, :data:`~domain.vocabulary.FILE_EXTENSIONS`).

The parsers add the structural forms (annotations under ``### Annotations of …``, ledger headings
citing their records, an inline declaration ending at a paragraph opening with another ID), and
:mod:`ingest.accounting` reports any record ID that none of the forms accounts for.

Forms a fresh user's documents showed (their report's B1, B2, B5, A6), decided against the real
corpus, where none of them occurs:

- G0 proposal IDs ``MEM-1``, ``EPI-2`` (GRAMMAR §0 lists "proposals ``MEM-1``/``EPI-1``") are record
  IDs of kind :data:`PROPOSAL_KIND`; ``EPI-M1`` (GRAMMAR §1.2) stays no record ID;
- the accounting looks for record-ID *shapes* (:data:`RECORD_ID_SHAPE`: any case, ``_``, Unicode
  hyphens and their HTML entities, letter suffixes ``RTE-2a``, digit-dot subsections ``RTE-2.1``,
  shorthand lists ``OBJ-1,2,3`` / ``RTE-1&2``), and reports each one no rule reads;
- ``RTE-2.1`` is no citation of ``RTE-2``: no real document writes ``ID.n``, so it is reported, not
  read; the shorthand lists are reported too (their first ID, spelled out, is still cited): no real
  document writes them, and "OBJ-1,2" is ambiguous beside prose such as "OBJ-1, 2 files";
- IDs in an inline HTML comment or a URL are ignored occurrences (:data:`IGNORED_IN_PROSE`);
- a declaring table's ``Status`` column states its row's route status (``| RTE-01 | … | wired |``,
  GRAMMAR §0's route tables; ``ingest.statements.row_statuses``).
Where the real knowledge base goes beyond GRAMMAR (the documents win):

- A member is known by its frontmatter and path (:func:`member_type_of`), not by ``type:`` alone.
  September-generation reviews (``kb/agentic-systems/reviews/*.md``, Sep 2026) say ``type:
  kb/types/note.md`` or ``types/note.md``, ``generated-by: analyse-agentic-system`` and
  ``analysis-run``, usually ``analysis-result`` and ``analysis-result-sha256`` (the SHA-256 of the
  result file's bytes); they are generated reviews (§3.11) of their run. ``dualgraph.md`` writes
  its frontmatter as one JSON object, which is YAML.
- A G0 prototype file (§0) has no member type, often no frontmatter; it is named by its folder
  (:data:`G0_RUN_ID`), its role by its file name (:func:`role_of`).
- The knowledge base holds the format's own files beside its members: ``types/*.md``
  (``type: types/type-spec.md``) with their ``*.schema.yaml``, ``instructions/*.md``
  (``type: types/note.md``), tools' hidden files. They are skipped, each with its reason
  (:func:`skip_reason`), never silently.
"""

from __future__ import annotations

from typing import Any

import re
from pathlib import PurePosixPath
from dataclasses import dataclass

from domain.model import Status
from domain.vocabulary import ANALYSTS, ANY_ANALYST, EVIDENCE_LAYERS, FILE_EXTENSIONS, KIND_HEADINGS, STATUS_VALUES


__all__ = [
    "RECORD_ID",
    "RECORD_ID_STRICT",
    "RECORD_ID_SHAPE",
    "PROPOSAL_KIND",
    "IGNORED_IN_PROSE",
    "ignored_spans",
    "SOURCE_ID",
    "RUN_ID",
    "RUN_ID_NAME",
    "run_id_problem",
    "PATH_TOKEN",
    "PROSE_PATH",
    "MemberType",
    "SECTION_NAMES",
    "member_type",
    "member_type_of",
    "type_path",
    "member_identity",
    "G0_PROTOTYPE",
    "G0_RUN_ID",
    "SKIP_REASONS",
    "skip_reason",
    "EMPTY_KIND",
    "parse_record_id",
    "ParsedRecordId",
    "classify_token",
    "system_from_title",
    "ATTRIBUTION",
    "GITHUB_BLOB",
    "QUOTE_MARKER",
    "ID_LIKE",
    "SOURCE_RANGE",
    "RECORD_RANGE",
    "MAX_RANGE",
    "RecordRange",
    "record_ranges",
    "declaring_table",
    "row_declaration",
    "mapping_table",
    "alias_pairs",
    "MEMBER_FILES",
    "NON_MEMBER_TYPES",
    "record_id_from_anchor",
    "anchor_record",
    "STATUS_LABEL",
    "STATUS_IN_PROSE",
    "KIND_STATUSES",
    "kind_statuses",
    "split_status",
    "role_of",
    "role_file",
]

_NAME = r"[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*){0,2}"
RECORD_ID_STRICT = re.compile(rf"(?<![\w-])(?:RT|MEM|EPI)-(?:CMP|OBJ|RTE|CLM|ABS|BAP)-{_NAME}(?![\w-])")
"""Newest record-ID form (GRAMMAR §1.1, validator ``records.py``): ``RT-RTE-workspace-send``."""

_END = r"(?![\w-]|\.\d)"
_COMPOUND = r"(?=-[a-z]{2,}\b)"
RECORD_ID = re.compile(
    rf"(?<![\w-])(?:(?:(?:RT|MEM|EPI)-)?(?:CMP|OBJ|RTE|CLM|ABS|BAP)-(?:\d+(?:{_COMPOUND}|{_END})|{_NAME}{_END})"
    rf"|(?:MEM|EPI)-\d+{_END})"
)
"""Tolerant record-ID form (GRAMMAR §1.1, §10): slug, prefixed numeric (``RT-OBJ-1``), G2
unprefixed numeric (``RTE-11``) and G0 proposals (``MEM-1``, ``EPI-2``; GRAMMAR §0 "proposals
``MEM-1``/``EPI-1``"). ``EPI-M1`` does not match: ``M`` is not a kind and a proposal is numbered
(GRAMMAR §1.2: mismatch markers). Neither does ``RTE-2`` inside ``RTE-2.1``: a subsection-numbered
token is no citation of its head (no real document writes ``ID.n``; :data:`RECORD_ID_SHAPE` reports it).
A numbered ID may open a compound modifier, ``RTE-1-generated OBJ-1`` (the OBJ-1 that RTE-1
generates; mem0-01 ``result.md`` 615): the ID ends before ``-generated``.

>>> [m.group() for m in RECORD_ID.finditer("MEM-1, EPI-M1, RTE-2.1, RTE-2. RT-RTE-x, RTE-3-generated OBJ-2")]
['MEM-1', 'RTE-2', 'RT-RTE-x', 'RTE-3', 'OBJ-2']
"""

IGNORED_IN_PROSE = re.compile(r"<!--.*?-->|<?\b(?:https?|ftp)://[^\s<>`]*[^\s<>`.,;:!?)\]'\"]>?", re.S)
"""Spans of a statement's plain text whose IDs are ignored occurrences, neither cited nor
unaccounted: an inline HTML comment (``<!-- RTE-2 -->``; a comment that is a
block of its own is an ``html`` block, ignored whole) and a URL, bare or an autolink
(``<https://example.org/RTE-1>``): a path segment of an address names no record. An unclosed
``<!--`` is text, as in CommonMark: what follows it is read.

>>> [m.group() for m in IGNORED_IN_PROSE.finditer("a <!-- RTE-2 --> b <https://example.org/RTE-1>.")]
['<!-- RTE-2 -->', '<https://example.org/RTE-1>']
>>> IGNORED_IN_PROSE.search("an unclosed <!-- & (RT-RTE-x).") is None
True
"""


def ignored_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each :data:`IGNORED_IN_PROSE` span of ``text``, in order; ``[]`` at once
    for a text holding neither ``<!--`` nor ``://``.

    >>> ignored_spans("See RTE-1 (https://x.org/RTE-2).")
    [(11, 30)]
    """
    if "<!--" not in text and "://" not in text:
        return []
    return [m.span() for m in IGNORED_IN_PROSE.finditer(text)]


PROPOSAL_KIND = "proposal"
"""The kind of a G0 proposal ID (``MEM-1``, GRAMMAR §0), which names its analyst and a number but
no record kind: a specialist's proposal that the reconciliation maps to a canonical record."""

_SEP = r"(?:[-_\u2010-\u2015\u2212]|&(?:\#\d{1,7}|\#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,31});)"
_LEAD = r"(?:RT|MEM|EPI|CMP|OBJ|RTE|CLM|ABS|BAP)"
RECORD_ID_SHAPE = re.compile(
    rf"(?i)(?<![\w-])(?:(?:(?:RT|MEM|EPI){_SEP})?(?:CMP|OBJ|RTE|CLM|ABS|BAP){_SEP}"
    rf"(?:\d+(?-i:{_COMPOUND})|[a-z0-9]+(?:{_SEP}(?!{_LEAD}{_SEP})[a-z0-9]+)*)|(?:MEM|EPI){_SEP}\d[a-z0-9]*)(?:[.,&]\d+)*"
)
"""What looks like a record ID, found more loosely than :data:`RECORD_ID` reads one (the accounting
invariant, GRAMMAR §11.11; :mod:`ingest.accounting`): any case (``Rte-4``), ``_`` (``RTE_5``),
Unicode hyphens U+2010–U+2015 and the minus sign (``CMP‑2``, a non-breaking hyphen), HTML entities
for them (``RTE&#8209;2``, in plain text where no Markdown parser decoded it), letter suffixes
(``RTE-2a``, ``RTE-02b``), digit-dot subsections (``RTE-2.1``), shorthand lists (``OBJ-1,2,3``,
``RTE-1&2``), slugs of any case (``RT-RTE-Recall-Path``) and G0 proposals (``MEM-1``). A
separator followed by another ID's lead ends a token, so a range's ends (``RTE-4–RTE-9``) are
two tokens, and so does a compound modifier after a number (``RTE-1-generated``, as
:data:`RECORD_ID` reads it). ``EPI-M1`` (a mismatch marker, GRAMMAR §1.2) is no shape: a proposal
is numbered.

>>> [m.group() for m in RECORD_ID_SHAPE.finditer("RTE-2a, Rte-4, RTE_5, OBJ-1,2,3, RTE-4–RTE-9, EPI-M1, MEM-1")]
['RTE-2a', 'Rte-4', 'RTE_5', 'OBJ-1,2,3', 'RTE-4', 'RTE-9', 'MEM-1']
>>> [m.group() for m in RECORD_ID_SHAPE.finditer("RTE&#8209;2 RTE-1&2 RTE-2.1. RTE-1-generated RT-RTE-Recall-Path")]
['RTE&#8209;2', 'RTE-1&2', 'RTE-2.1', 'RTE-1', 'RT-RTE-Recall-Path']
"""

SOURCE_ID = re.compile(r"(?<![\w-])SRC-\d+(?![\w-])")
"""Source IDs (GRAMMAR §1.2): ``SRC-1``; G0 ``SRC-01``."""

RUN_ID = re.compile(r"^AAS-\d{4}-\d{2}-\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*-\d{2}$")
"""Run IDs (GRAMMAR §1.2): ``AAS-2026-10-04-dynamic-cheatsheet-01``."""

RUN_ID_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""Every run-id a member may state (GRAMMAR §1.2 with G0's ``AGS-2026-08-20-SWAMP-01`` and
``AGS-20260821-sequentialthinking``): letters, digits, ``.``, ``_`` and ``-``, at most 128, starting
with a letter or digit. A run-id names its analysis set, and the set's id begins every node id
of the set (``<set>/<role>``, ``<set>/<record>``, ``<set>/<role>#L<line>``), so ``/``, ``#``,
``:``, spaces and control characters would let it spell another node's id."""


def run_id_problem(run_id: str) -> str | None:
    """Why ``run_id`` cannot name an analysis set (:data:`RUN_ID_NAME`), or None when it can.

    >>> run_id_problem("AAS-2026-10-04-dynamic-cheatsheet-01") is None, run_id_problem("AGS-20260821-x") is None
    (True, True)
    >>> run_id_problem("team/AAS-2026-10-04-x-01")
    "holds '/'; a run-id is ASCII letters, digits, '.', '_' and '-' (it names the set in every node id)"
    """
    if RUN_ID_NAME.fullmatch(run_id):
        return None
    if not run_id:
        return "is empty"
    if len(run_id) > 128:
        return f"is {len(run_id)} characters long, over 128"
    bad = next((c for c in run_id if not (c.isascii() and (c.isalnum() or c in "._-"))), None)
    what = f"holds {bad!r}" if bad is not None else f"starts with {run_id[0]!r}"
    return f"{what}; a run-id is ASCII letters, digits, '.', '_' and '-' (it names the set in every node id)"

PATH_TOKEN = re.compile(r"^(?:[\w.@~+-]+/)*[\w.@~+-]+(?:\.[A-Za-z0-9]{1,8}|/)$|^(?:[\w.@~+-]+/)+[\w.@~+-]+$")
"""A citation-group token that is a commit-relative path (GRAMMAR §9 rule 5: contains ``/`` or a
``.ext``)."""

PROSE_PATH = re.compile(r"(?<![\w./@-])(?:[\w.@-]+/)+[\w@-][\w.@-]*\.[A-Za-z][A-Za-z0-9]{0,7}(?![\w/])")
"""A path mentioned in running prose: at least one ``/`` and a file extension
(``src/lib/aiAgentSession.ts``). Bare names such as ``AGENTS.md`` are not taken as source files."""

EMPTY_KIND = re.compile(r"^none declared in this member\.?$")
"""The empty-kind sentence (GRAMMAR §4.1; a test fixture adds a trailing period)."""


@dataclass(frozen=True, slots=True)
class MemberType:
    """One member type: its role in a set and the headings a plain-text parser may recover.

    ``sections`` are the H2 names (GRAMMAR §3); ``subsections`` the fixed H3 names; ``free`` the H2
    sections whose short lines are free H3 subheadings (GRAMMAR §9 rule 2); ``record_prefix`` the
    analyst prefix it may declare (GRAMMAR §2.2 rule 4), :data:`ANY_ANALYST` for the
    G1 result (one file holding every analyst's records), or None. ``run_id_key`` and
    ``boundary_key`` are the frontmatter keys naming its run and reviewed boundary (GRAMMAR §2.2
    rule 5). A ``projection`` (the generated review, §3.11) is published outside the set folder:
    its links reach into the reviewed set's folder, and the set's manifest does not pin it.
    """

    name: str
    role: str
    sections: tuple[str, ...]
    subsections: tuple[str, ...] = ()
    free: tuple[str, ...] = ()
    record_prefix: str | None = None
    run_id_key: str = "run-id"
    boundary_key: str = "reviewed-boundary"
    projection: bool = False


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
    MemberType("generated-review", "generated-review", ("Limitations",), run_id_key="analysis-run",
               boundary_key="reviewed-revision", projection=True),
    MemberType("agentic-system-analysis-result", "result",
               ("Run identity", "Boundary and evidence", "Source register", "Shared records", "Runtime account",
                "Lens scoping", "Lens outputs", "Reconciliation", "Bounded synthesis", "Limitations",
                "Verification and blockers"),
               (*_KIND_NAMES, "Memory/context scope", "Epistemic scope", "Memory/context lens", "Epistemic lens",
                "Semantic verification", "Deterministic validation", "Blockers"),
               free=("Runtime account", "Reconciliation", "Bounded synthesis"), record_prefix=ANY_ANALYST),
)

SECTION_NAMES = frozenset(
    name.lower() for t in _MEMBER_TYPES for name in (*t.sections, *t.subsections)
)
"""Every section and subsection name the member types define (GRAMMAR §3), lower-cased: what a
named reference may name besides a member (``Source register``, ``Bounded conclusion``)."""

_TYPE_PREFIXES = ("agentic-system-analyses/types/", "agentic-systems/types/", "reports/types/", "kb/types/", "types/")
"""Type-path prefixes of the generations (GRAMMAR §0, §10); ``kb/types/`` is a G1 form
(``kb/types/agentic-system-analysis-result.md``, the Supermemory result)."""


def member_type(type_path: str) -> MemberType | None:
    """The member type named by a ``type:`` value, or None when it is not a member type.

    Accepts the four prefixes of GRAMMAR §10 and both names of the memory and profile types.

    >>> member_type("agentic-system-analyses/types/agentic-system-synthesis.md").role
    'synthesis'
    >>> member_type("types/agent-memory-analysis-report.md").role
    'memory'
    >>> member_type("kb/types/agentic-system-analysis-result.md").role  # G1 single-file result
    'result'
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
    return next((t for t in (*_MEMBER_TYPES, G0_PROTOTYPE) if t.name == name), None)


def type_path(member: MemberType) -> str:
    """The newest ``type:`` path naming ``member`` (GRAMMAR §10), what a plain-text rendering
    states for a member its frontmatter names otherwise (a September review, a G0 prototype).

    >>> type_path(member_type("types/generated-review.md"))
    'agentic-system-analyses/types/generated-review.md'
    >>> member_type(type_path(G0_PROTOTYPE)) is G0_PROTOTYPE
    True
    """
    return f"{_TYPE_PREFIXES[0]}{member.name}.md"


G0_PROTOTYPE = MemberType("g0-prototype", "result", (), _KIND_NAMES, record_prefix=ANY_ANALYST)
"""A G0 prototype file (GRAMMAR §0, Aug 2026, ``kb/work/multistage-…/trials/<run-id>/``): no member
type in its frontmatter (often no frontmatter at all), records declared by table rows
``| CMP-01 | … |``; one of ``result.md``, ``lens-*.md``, ``runtime-account.md``,
``reconciliation.md``, its role the file name's stem, its run-id the folder's name."""

G0_RUN_ID = re.compile(r"^AGS-(?:\d{4}-\d{2}-\d{2}|\d{8})-[A-Za-z0-9][A-Za-z0-9-]*$")
"""A G0 run-id, the name of a prototype's folder (GRAMMAR §1.2: ``AGS-2026-08-20-SWAMP-01``,
``AGS-20260821-sequentialthinking``)."""

_G0_FILE = re.compile(r"^(?:result|runtime-account|reconciliation|lens-[a-z0-9]+(?:-[a-z0-9]+)*)\.md$")

_REVIEW_NOTE_TYPES = frozenset({"kb/types/note.md", "types/note.md"})
_REVIEW_GENERATOR = "analyse-agentic-system"


def _g0_prototype(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return len(parts) >= 2 and bool(_G0_FILE.match(parts[-1])) and bool(G0_RUN_ID.match(parts[-2]))


def member_type_of(frontmatter: dict[str, Any] | None, path: str) -> MemberType | None:
    """The member type of a Markdown file, from its frontmatter and path; None when it is no member.

    Besides a ``type:`` naming a member type (:func:`member_type`): a September-generation review
    (observed in ``kb/agentic-systems/reviews/``: ``type: kb/types/note.md`` or ``types/note.md``,
    ``generated-by: analyse-agentic-system`` and an ``analysis-run``) is a generated review
    (§3.11), and a file without a member type in a G0 prototype's folder is a G0 prototype
    (:data:`G0_PROTOTYPE`).

    >>> member_type_of({"type": "types/note.md", "generated-by": "analyse-agentic-system",
    ...                 "analysis-run": "AAS-2026-09-26-napkin-03"}, "reviews/napkin.md").name
    'generated-review'
    >>> member_type_of({"type": "types/note.md"}, "instructions/agentic-analysis-boundary.md") is None
    True
    >>> member_type_of(None, "trials/AGS-2026-08-20-SWAMP-01/lens-memory.md").name
    'g0-prototype'
    """
    type_path = (frontmatter or {}).get("type")
    if isinstance(type_path, str):
        found = member_type(type_path)
        if found is not None:
            return found
        if frontmatter and type_path.strip() in _REVIEW_NOTE_TYPES \
                and frontmatter.get("generated-by") == _REVIEW_GENERATOR and frontmatter.get("analysis-run") is not None:
            return next(t for t in _MEMBER_TYPES if t.name == "generated-review")
    if (frontmatter is None or not isinstance(type_path, str)) and _g0_prototype(path):
        return G0_PROTOTYPE
    return None


def member_identity(frontmatter: dict[str, Any], member: MemberType, path: str | None = None) -> tuple[str | None, str | None]:
    """(run-id, reviewed boundary) a member's frontmatter states (GRAMMAR §2.2 rule 5): ``run-id``
    and ``reviewed-boundary``, or a generated review's ``analysis-run`` and ``reviewed-revision``
    (§3.11), which tie it to the set it reviews; a G0 prototype without ``run-id`` is named by its
    folder (``path``'s parent).

    >>> member_identity({"analysis-run": "AAS-2026-10-02-x-01", "reviewed-revision": "6acb"},
    ...                 member_type("agentic-systems/types/generated-review.md"))
    ('AAS-2026-10-02-x-01', '6acb')
    >>> member_identity({}, G0_PROTOTYPE, "trials/AGS-2026-08-20-SWAMP-01/result.md")
    ('AGS-2026-08-20-SWAMP-01', None)
    """
    run_id, boundary = frontmatter.get(member.run_id_key), frontmatter.get(member.boundary_key)
    if run_id is None and member is G0_PROTOTYPE and path is not None:
        run_id = path.replace("\\", "/").split("/")[-2]
    return (str(run_id) if run_id is not None else None, str(boundary) if boundary is not None else None)


SKIP_REASONS = {
    "type-definition": "a type definition of the format",
    "instruction": "an instruction of the format",
    "unsupported-generation": "an analysis document of a form this citegraph does not read",
    "not-a-document": "no analysis document",
}
"""Why a file found in the input is not ingested, by stable code (the knowledge base holds
members beside the format's own files: ``types/*.md`` and ``*.schema.yaml``, ``instructions/``,
notes, tools' marker files)."""


def skip_reason(file_name: str, folder: str, frontmatter: dict[str, Any] | None) -> tuple[str, str]:
    """(code of :data:`SKIP_REASONS`, sentence) for a file that is no member: ``frontmatter`` is
    None for a file without one (or not Markdown).

    >>> skip_reason("agentic-system-set.schema.yaml", "kb/types", None)
    ('type-definition', 'a type definition of the format (a schema)')
    >>> skip_reason("records.md", "kb/instructions", {"type": "types/note.md"})
    ('instruction', "an instruction of the format (type 'types/note.md')")
    """
    name = file_name.lower()
    type_path = (frontmatter or {}).get("type")
    type_name = PurePosixPath(type_path.strip()).stem if isinstance(type_path, str) else None
    if name.endswith((".schema.yaml", ".schema.yml", ".schema.json")):
        return "type-definition", f"{SKIP_REASONS['type-definition']} (a schema)"
    if type_name == "type-spec":
        return "type-definition", f"{SKIP_REASONS['type-definition']} (type {type_path!r})"
    if type_name == "note" and PurePosixPath(folder.replace("\\", "/")).name == "instructions":
        return "instruction", f"{SKIP_REASONS['instruction']} (type {type_path!r})"
    if name.startswith("."):
        return "not-a-document", f"{SKIP_REASONS['not-a-document']}: a hidden file"
    if not name.endswith((".md", ".txt")):
        return "not-a-document", f"{SKIP_REASONS['not-a-document']}: not a member file (.md, .txt) or manifest"
    if frontmatter is None:
        return "not-a-document", f"{SKIP_REASONS['not-a-document']}: no frontmatter"
    if type_path is None:
        return "not-a-document", f"{SKIP_REASONS['not-a-document']}: its frontmatter has no `type`"
    if frontmatter.get("generated-by") == _REVIEW_GENERATOR:
        return "unsupported-generation", (f"{SKIP_REASONS['unsupported-generation']} (`generated-by: "
                                          f"{_REVIEW_GENERATOR}`, type {type_path!r}, no `analysis-run`)")
    if type_name == "note":
        return "not-a-document", (f"{SKIP_REASONS['not-a-document']}: a note (type {type_path!r} without "
                                  f"`generated-by: {_REVIEW_GENERATOR}` and `analysis-run`)")
    return "not-a-document", f"{SKIP_REASONS['not-a-document']}: its type {type_path!r} is no member type"


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
    >>> parse_record_id("MEM-1")  # a G0 proposal (GRAMMAR §0)
    ParsedRecordId(analyst='MEM', kind='proposal', slug='1')

    Raises
    ------
    ValueError
        ``record_id`` does not match the tolerant record-ID pattern.
    """
    if not RECORD_ID.fullmatch(record_id):
        raise ValueError(f"not a record ID: {record_id!r}")
    parts = record_id.split("-")
    if len(parts) == 2 and parts[0] in ANALYSTS and parts[1].isdigit():  # a G0 proposal, MEM-1
        return ParsedRecordId(parts[0], PROPOSAL_KIND, parts[1])
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

    A token made of record IDs joined by ``/`` (``OBJ-5/OBJ-9``) is no path: it is ``named``, and
    the citation rules cite each ID in it; a token without ``/`` is a file only when it ends with
    a file extension (:data:`~domain.vocabulary.FILE_EXTENSIONS`), so dotted identifiers and host
    names are not.

    >>> [classify_token(t) for t in ["OBJ-5/OBJ-9", "json.dump", "api.example.com", "run_benchmark.py"]]
    ['named', 'named', 'named', 'file']
    """
    if RECORD_ID.fullmatch(token):
        return "record"
    if SOURCE_ID.fullmatch(token):
        return "source"
    if " " not in token and PATH_TOKEN.match(token) and token.lower() not in EVIDENCE_LAYERS:
        if "/" in token.rstrip("/") and all(RECORD_ID.fullmatch(part) for part in token.split("/")):
            return "named"
        if "/" not in token and token.rsplit(".", 1)[-1].lower() not in FILE_EXTENSIONS:
            return "named"
        return "file"
    return "named"


_ROLE_WORDS = frozenset(
    "synthesis workflow report runtime memory epistemic reconciliation profile overview boundary "
    "verification analysis agent agentic system agentic-system record synthesis-verification generated review "
    "result lens account".split()
)


def system_from_title(title: str) -> str:
    """The system's name from a member's H1 title: trailing role words dropped, while they are
    written in the case of the last one (a capitalised ``Memory`` before a lower-case
    ``runtime report`` is part of the name).

    >>> system_from_title("Tolaria workflow report")
    'Tolaria'
    >>> system_from_title("Dynamic Cheatsheet memory profile")
    'Dynamic Cheatsheet'
    >>> system_from_title("instinctual-memory agentic-system analysis")  # G2 overview title
    'instinctual-memory'
    >>> system_from_title("Instinctual Memory runtime report")  # the G2.5 rewrite's title
    'Instinctual Memory'
    """
    words = title.split()
    lower = words[-1].islower() if words else True
    while len(words) > 1 and words[-1].lower() in _ROLE_WORDS and words[-1].islower() == lower:
        words.pop()
    return " ".join(words)


GITHUB_BLOB = re.compile(
    r"^https://github\.com/[^/\s]+/[^/\s]+/blob/([0-9a-f]{7,40})/([^#?\s]+)(?:#L(\d+)(?:-L(\d+))?)?$"
)
"""A link to a file pinned at a commit on a code host (September reviews: ``[Pipeline](https://github.com/
o/r/blob/<commit>/src/main.py#L300-L778)``): group 1 the commit, 2 the path, 3 and 4 the lines. A
Markdown link of this form cites the file; its plain-text rendering writes the path in parentheses
after the label so the text cites it too.

>>> GITHUB_BLOB.match("https://github.com/o/r/blob/abc1234/src/main.py#L3-L9").groups()
('abc1234', 'src/main.py', '3', '9')
"""


ATTRIBUTION = re.compile(
    r"^[ \t]*>[ \t]*---[ \t]+(?:`(?P<span>[^`]+)`|(?P<url>https?://[^\s`]+))"
    r"(?:[ \t]*@[ \t]*`(?P<rev>(?:sha256:)?[0-9a-f]{7,64})`)?[ \t]*$"
)
"""A quotation's attribution line (GRAMMAR §6, tolerant): ``> --- `path` `` with optional
``:lines`` inside the code span and an optional `` @ `rev` ``; leading indentation allowed for quotes
nested in list items. Group 1 is the code span, group 2 the revision. G1 extends the revision to a
pinned capture's digest, ``sha256:`` and its hex (AIDE2-01 ``result.md`` 140: ``> ---
`kb/sources/.snapshots/aide2-….md` @ `sha256:86d1…` ``); GRAMMAR §6 knows only a commit. September
reviews also attribute to a bare URL that pins its own commit (``napkin.md`` 33: ``> ---
https://github.com/…/blob/7582d6a…/skills/distill/SKILL.md``). Groups: ``span`` (the code span) or
``url`` (a bare URL), and ``rev``.

>>> ATTRIBUTION.match("> --- `kb/sources/.snapshots/x.md` @ `sha256:86d1b094`").group("span", "rev")
('kb/sources/.snapshots/x.md', 'sha256:86d1b094')
>>> ATTRIBUTION.match("> --- https://example.org/o/r/blob/abc1234/a.md").group("url")
'https://example.org/o/r/blob/abc1234/a.md'
"""

QUOTE_MARKER = re.compile(r"^[ \t]*>[ ]?")
"""The block-quote marker that opens each line of a quotation (GRAMMAR §6): ``>`` and one optional
space, after any indentation (quotes nested in list items); what follows it is the passage."""

ID_LIKE = re.compile(rf"(?<![\w-])(?:RT|MEM|EPI)-[A-Za-z]+-(?!\d+{_COMPOUND})[\w-]*\w(?![\w-])")
"""Tokens shaped like an analyst-prefixed record ID (``RT-XYZ-foo``, ``RT-RTE-Foo``,
``RT-RTE-a-b-c-d``); those the tolerant :data:`RECORD_ID` does not match are malformed (GRAMMAR §1.1).
Wildcards such as ``RT-*`` and mismatch markers such as ``EPI-M1`` are not ID-shaped, nor is a
numbered ID opening a compound modifier (``RT-OBJ-1-generated``, :data:`RECORD_ID`)."""

SOURCE_RANGE = re.compile(
    r"(?<![\w-])SRC-\d+(?:[ \t]+through[ \t]+SRC-\d+|[ \t]*[\u2013\u2014][ \t]*SRC-\d+|-\d+)(?![\w-])"
)
"""A source range, refused by the contract (GRAMMAR §1.2): ``SRC-1 through SRC-3``, ``SRC-1–SRC-3``,
``SRC-1-3``."""

RECORD_RANGE = re.compile(
    rf"({RECORD_ID.pattern})(?:[ \t]+through[ \t]+|[ \t]*\u2013[ \t]*)({RECORD_ID.pattern})"
)
"""A record range, refused by the record contract but present in real prose (GRAMMAR §1.1): ``RTE-4
through RTE-9`` (G2) and, with an en dash, ``RT-OBJ-1–RT-OBJ-3`` (the G2.5 rewrite writes
`` `RT-OBJ-1`–`RT-OBJ-3` ``; the code spans are gone from the plain text this runs on). ``OBJ-2
to OBJ-8`` is not one: it names a transformation's ends (a G1 ledger)."""

MAX_RANGE = 100
"""Most records a range is expanded to; a longer one cites only its ends."""


@dataclass(frozen=True, slots=True)
class RecordRange:
    """A record range in a text: ``[start, end)`` its offsets, ``text`` as written, ``records`` the
    IDs it cites (every record from ``first`` to ``last`` when ``reason`` is None; else only its two
    ends, and ``reason`` says why it cannot be expanded exactly)."""

    start: int
    end: int
    text: str
    records: tuple[str, ...]
    reason: str | None = None


def record_ranges(text: str) -> list[RecordRange]:
    """Every record range in ``text`` (GRAMMAR §1.1, :data:`RECORD_RANGE`), in order.

    A range cites every record in it when its ends share analyst and kind and are numbered
    (``MEM-RTE-1 through MEM-RTE-7`` is seven records), the first no greater than the last, written
    with the same number of digits when either is zero-padded, and at most :data:`MAX_RANGE` long;
    otherwise it cites only its ends.

    >>> [r.records for r in record_ranges("see RT-BAP-1–RT-BAP-3 and RTE-2 through RTE-3")]
    [('RT-BAP-1', 'RT-BAP-2', 'RT-BAP-3'), ('RTE-2', 'RTE-3')]
    >>> [(r.records, r.reason) for r in record_ranges("RT-OBJ-1 through EPI-OBJ-4")]
    [(('RT-OBJ-1', 'EPI-OBJ-4'), 'its ends differ in analyst or kind')]

    Ends of different kinds joined by ``through`` are no range: ``RTE-2 through OBJ-4`` means "via"
    (a route through an object, G1 prose), and each ID is cited on its own. An en
    dash means no "via": ``RTE-1–OBJ-3`` is a range whose ends differ in kind, which cites only its
    ends, with the reason.

    >>> record_ranges("the write reaches RTE-2 through OBJ-4")
    []
    >>> [(r.records, r.reason) for r in record_ranges("a mixed range RTE-1–OBJ-3")]
    [(('RTE-1', 'OBJ-3'), 'its ends differ in analyst or kind')]
    """
    if "through" not in text and "\u2013" not in text:
        return []
    out = []
    for m in RECORD_RANGE.finditer(text):
        first, last = m.group(1), m.group(2)
        via = "through" in text[m.end(1):m.start(2)]
        if via and parse_record_id(first).kind != parse_record_id(last).kind:
            continue
        records, reason = _expand(first, last)
        out.append(RecordRange(m.start(), m.end(), m.group(), records, reason))
    return out


def _expand(first: str, last: str) -> tuple[tuple[str, ...], str | None]:
    """(records, reason) of the range ``first``..``last`` (see :func:`record_ranges`)."""
    a, b = parse_record_id(first), parse_record_id(last)
    ends = (first,) if first == last else (first, last)
    if (a.analyst, a.kind) != (b.analyst, b.kind):
        return ends, "its ends differ in analyst or kind"
    if not (a.slug.isdigit() and b.slug.isdigit()):
        return ends, "its ends are not numbered IDs"
    lo, hi = int(a.slug), int(b.slug)
    padded = a.slug.startswith("0") or b.slug.startswith("0")
    if lo > hi:
        return ends, "its first end is greater than its last"
    if padded and len(a.slug) != len(b.slug):
        return ends, "its ends are zero-padded to different widths"
    if hi - lo + 1 > MAX_RANGE:
        return ends, f"it spans more than {MAX_RANGE} records"
    head = first[: len(first) - len(a.slug)]
    width = len(a.slug) if padded else 0
    return tuple(f"{head}{n:0{width}d}" for n in range(lo, hi + 1)), None

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
    "result": "result.md",
}
"""Role → file name in a set folder (GRAMMAR §2 layout; the verification type's own name
``record-verification.md`` is accepted beside the layout's ``report-verification.md``; a G1 run is
one ``result.md``, GRAMMAR §0)."""

_FILE_ROLES = {name: role for role, name in MEMBER_FILES.items()}

NON_MEMBER_TYPES = frozenset({
    "type-spec", "note", "agentic-system-analysis-set", "agentic-system-analysis-run-state",
})
"""Type names of Markdown files that live beside members but are not members: type definitions,
instructions, the set type itself and run state (GRAMMAR §2; ``corpus/…/types/``)."""


def role_of(member: MemberType, file_name: str) -> str:
    """The role of a member of type ``member`` stored as ``file_name``.

    The three verification members share one type, so their role comes from the file name
    (GRAMMAR §2, §3.9), and a G0 prototype's is its file name's stem (GRAMMAR §0: ``lens-memory``);
    every other role comes from the type.

    >>> role_of(member_type("agentic-system-analyses/types/agentic-system-verification.md"),
    ...         "profile-verification.md")
    'profile-verification'
    >>> role_of(member_type("types/agent-memory-profile.md"), "anything.md")
    'memory-profile'
    """
    if member is G0_PROTOTYPE:
        return PurePosixPath(file_name).stem
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


_NUMERIC_ANCHOR = re.compile(r"^(?:(rt|mem|epi)-)?(cmp|obj|rte|clm|abs|bap)-(\d+)(?:-|$)")
_PROPOSAL_ANCHOR = re.compile(r"^(mem|epi)-(\d+)(?:-|$)")


def anchor_record(anchor: str) -> str | None:
    """The record a link's anchor names, or None when it names none (GRAMMAR §5; §2.2 rule 3).

    An anchor names a record in two ways: it is the record anchor itself (``lower(ID)``, GRAMMAR
    §1.1), or it is the slug of the record's declaration heading ``#### ID — Label``, as G2
    overviews and generated reviews link them (``mem-obj-1-source-event-journal``, or with GitHub's
    double dash for the dash ``rte-1--local-cli-operation``). A numeric ID ends after its number; a
    slug ID, whose words are dash-joined too, ends at the ``--`` of a heading slug, else the whole
    anchor is the ID.

    >>> anchor_record("mem-obj-1-source-event-journal"), anchor_record("epi-rte-2--model-extraction")
    ('MEM-OBJ-1', 'EPI-RTE-2')
    >>> anchor_record("rt-rte-cumulative-update"), anchor_record("rt-rte-mcp-write--mcp-note-write")
    ('RT-RTE-cumulative-update', 'RT-RTE-mcp-write')
    >>> anchor_record("rte-2"), anchor_record("limitations")
    ('RTE-2', None)
    >>> anchor_record("mem-1"), anchor_record("epi-2--dropped-proposal")  # G0 proposals (GRAMMAR §0)
    ('MEM-1', 'EPI-2')
    """
    a = anchor.strip().lower()
    m = _NUMERIC_ANCHOR.match(a)
    if m:
        prefix, kind, number = m.groups()
        return (f"{prefix.upper()}-" if prefix else "") + f"{kind.upper()}-{number}"
    m = _PROPOSAL_ANCHOR.match(a)
    if m:
        return f"{m.group(1).upper()}-{m.group(2)}"
    return record_id_from_anchor(a.split("--", 1)[0])


_STATUS_TERMS = "|".join(re.escape(v) for v in sorted(STATUS_VALUES, key=lambda v: (-len(v), v)))
_STATUS_TERM = re.compile(rf"^({_STATUS_TERMS})(?![\w-])")

STATUS_LABEL = re.compile(r"(?i)^(?:[\w/-]+ )*conclusion status(?: for [^:;.\n]{1,80})?$")
"""A conclusion-status label (GRAMMAR §4.4): ``implementation conclusion status``, ``operation
conclusion status``, ``Component existence and roles conclusion status`` (G1) …; G1 also writes a
slash in the label (``Activation/effect conclusion status``) and qualifies it (``Implementation
conclusion status for host execution``)."""

STATUS_IN_PROSE = re.compile(
    rf"(?im)(?:^|(?<=[.;:]\s))((?:[\w/-]+ ){{0,5}}conclusion status(?: for [^:;.\n]{{1,80}}?)?)"
    rf"(?::[ \t]*|[ \t]+(?=`?(?:{_STATUS_TERMS})(?![\w-])))"
    r"([^;.\n]*)"
)
"""A conclusion status stated inside running prose (GRAMMAR §4.4, G2): ``… conclusion status:
value`` up to the next ``;`` or ``.``, at the start of a line or after ``.``/``;``/``:``; also
without the colon when a vocabulary term follows (the G2.5 rewrite's ``Activation/effect:
implementation conclusion status `wired` for context output``). The label may hold a slash
(``Activation/effect conclusion status: wired``) and a qualifier (``Implementation conclusion
status for host execution: afforded.``), each part of the label."""

KIND_STATUSES = re.compile(
    rf"(?i)(?:^|(?<=[.;]\s))(?:all[ \t]+)?((?:[\w/-]+[ \t]+){{0,6}}?conclusion status(?:es)?)(?:[ \t]+for[ \t]+[^:;.\n]{{1,80}})?:"
    rf"[ \t]*`?({_STATUS_TERMS})`?(?![\w-])"
)
"""A sentence heading a kind section that states the status of every record under it (G1, issue
23 item 8; GRAMMAR §4.4 knows only per-record statuses): AIDE2-01 ``result.md`` 161 ``All
described route operation conclusion statuses: claimed. Implementation conclusion status:
uninspected.``. Group 1 is the label (``statuses`` read as ``status``), group 2 the value."""


def kind_statuses(text: str) -> tuple[Status, ...]:
    """The statuses a kind section's opening paragraph states for every record under it
    (:data:`KIND_STATUSES`), labels singular and without ``All``; empty when it states none.

    >>> [(s.label, s.value) for s in kind_statuses("All described route operation conclusion statuses: claimed. "
    ...                                             "Implementation conclusion status: uninspected. These records …")]
    [('described route operation conclusion status', 'claimed'), ('Implementation conclusion status', 'uninspected')]
    """
    return tuple(Status(re.sub(r"(?i)statuses$", "status", m.group(1).strip()), m.group(2))
                 for m in KIND_STATUSES.finditer(text))


def split_status(stated: str) -> tuple[str, str | None]:
    """(value, qualifier) of a stated conclusion status (GRAMMAR §4.4).

    The value is the leading vocabulary term (:data:`STATUS_VALUES`, backticks
    stripped); what follows it in its sentence is its qualifier (real forms: ``wired on target
    emission``, ``uninspected, no supplied benchmark result``). A statement that opens with no term,
    or whose qualifier is itself a term (``wired; observed`` is two values), is returned whole with
    no qualifier, for ``check`` to refuse.

    >>> split_status("`wired` on target emission"), split_status("uninspected, no supplied benchmark result")
    (('wired', 'on target emission'), ('uninspected', 'no supplied benchmark result'))
    >>> split_status("wired. The adapter sends messages."), split_status("wired; observed")
    (('wired', None), ('wired; observed', None))
    >>> split_status("causally supported"), split_status("not determinable")
    (('causally supported', None), ('not determinable', None))
    """
    text = stated.replace("`", "").strip()
    m = _STATUS_TERM.match(text)
    if not m:
        return text, None
    rest = text[m.end():]
    if not rest.strip() or rest.lstrip().startswith("."):
        return m.group(1), None
    qualifier = re.split(r"\.(?:\s|$)", rest.lstrip(" \t,;:\u2014\u2013-"), maxsplit=1)[0].strip()
    if not qualifier:
        return m.group(1), None
    if _STATUS_TERM.match(qualifier):
        return text, None
    return m.group(1), qualifier


def declaring_table(header_cells: list[str]) -> bool:
    """Whether a pipe table declares its rows' records: its header's first cell is ``ID``
    (GRAMMAR §0: G0 prototypes declare ``CMP-01``, ``OBJ-11`` … in tables; G1 results do the same
    under a kind heading, AIDE2-01 ``result.md`` 146 ``| ID | Source-native object | … |`` and 246).

    >>> declaring_table(["ID", "Consumer"]), declaring_table(["Route", "Function"])
    (True, False)
    """
    return bool(header_cells) and header_cells[0].strip().strip("*").strip() == "ID"


def row_declaration(cells: list[str]) -> str | None:
    """The record a declaring table's row declares: its first cell when that cell is exactly one
    record ID (``| OBJ-8 | … |``), else None (:func:`declaring_table`).

    >>> row_declaration(["OBJ-8", "Held-out scoring script"]), row_declaration(["OBJ-1, OBJ-2", "x"])
    ('OBJ-8', None)
    """
    first = cells[0].strip() if cells else ""
    return first if RECORD_ID.fullmatch(first) else None


def mapping_table(header_cells: list[str]) -> bool:
    """Whether a pipe table maps proposal IDs to canonical records: its first header cell names a
    proposal and its second a canonical record (G1 reconciliations: Supermemory-01 ``result.md``
    1179 ``| Specialist proposal | Canonical record |``, Mem0-01 877 ``| specialist proposal |
    canonical registration | disposition |``). Each row whose first two cells are record IDs makes
    the first a retired alias of the second (:func:`alias_pairs`).

    >>> mapping_table(["Specialist proposal", "Canonical record"]), mapping_table(["ID", "Label"])
    (True, False)
    """
    return (len(header_cells) >= 2 and "proposal" in header_cells[0].lower()
            and "canonical" in header_cells[1].lower())


_MAPPING_WORD = re.compile(r"(?i)\bmap(?:ped|ping|pings|s)?\b")
_ARROW = re.compile(rf"({RECORD_ID.pattern})[ \t]*(?:\u2192|->)[ \t]*([^;.\n]*)")
_MERGED = re.compile(rf"({RECORD_ID.pattern})[ \t]+(?:was[ \t]+|were[ \t]+)?(?:merged|separated|split)\b([^;.\n]{{0,200}}?)"
                     r"\binto\b([^;\n]*?)(?:\.(?:\s|$)|;|$)")


def alias_pairs(text: str) -> list[tuple[str, str]]:
    """(alias, canonical) pairs a proposal-to-canonical mapping states (G1 reconciliations; GRAMMAR
    knows no such form): in a statement that speaks of mapping (``Mapped``, ``mapping``,
    ``mappings``), each ``ALIAS → … CANONICAL`` (the first record ID after the arrow, before the
    next ``;`` or ``.``), ``ALIAS merged into existing CANONICAL`` and ``ALIAS was separated …
    into CANONICAL-1 (…), CANONICAL-2 …`` (every record ID of that clause). The left-hand ID is a retired
    proposal tag of the right-hand record: not dangling, not undeclared, and ``rests-on`` of it
    answers through the canonical record.

    Real forms: Fragility Grid-01 ``result.md`` 489 ``Mapped MEM-RTE-1 → RTE-6; …``; AIDE2-01 326
    ``Proposal mapping: MEM-OBJ-1 → OBJ-9; MEM-RTE-1 → the already described outer-reviewer branch
    of RTE-2``; Napkin-02 752-754 ``Exact-token mappings: …``, ``MEM-OBJ-5 was separated before
    canonical allocation into OBJ-8 (bases/database), OBJ-9 (canvas), …``, ``MEM-CLM-2 merged into
    existing CLM-2``.

    >>> alias_pairs("Mapped MEM-RTE-1 → RTE-6; MEM-ABS-1 → ABS-1. Existing IDs retain referents.")
    [('MEM-RTE-1', 'RTE-6'), ('MEM-ABS-1', 'ABS-1')]
    >>> alias_pairs("Proposal mapping: MEM-RTE-1 → the outer-reviewer branch of RTE-2; MEM-CLM-2 merged into existing CLM-2")
    [('MEM-RTE-1', 'RTE-2'), ('MEM-CLM-2', 'CLM-2')]
    >>> alias_pairs("Mappings: MEM-OBJ-5 was separated before allocation into OBJ-8 (bases), OBJ-9 and OBJ-10, because X.")
    [('MEM-OBJ-5', 'OBJ-8'), ('MEM-OBJ-5', 'OBJ-9'), ('MEM-OBJ-5', 'OBJ-10')]
    >>> alias_pairs("RTE-1 → RTE-2 hands the candidate on")  # a flow, not a mapping
    []
    """
    if not _MAPPING_WORD.search(text):
        return []
    out = []
    for m in _ARROW.finditer(text):
        right = RECORD_ID.search(m.group(2))
        if right and right.group() != m.group(1):
            out.append(((m.start(), 0), m.group(1), right.group()))
    for m in _MERGED.finditer(text):
        out.extend(((m.start(), c.start()), m.group(1), c.group())
                   for c in RECORD_ID.finditer(m.group(3)) if c.group() != m.group(1))
    return [(a, c) for _, a, c in sorted(out)]
