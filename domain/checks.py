"""What only ``citegraph check`` reads of the stored graph, one frozen type each (GRAMMAR §1, §2, §4, §6).

A member's identity (what it states of the set it belongs to), how its set's manifest pins it, and
the flaws a parser found in a block: facts no other query shows. The parsers and the set assembly
state them (:mod:`ingest.parsers`, :mod:`ingest.sets`); they live apart from :mod:`domain.model` so
that a process that only queries does not build their classes (about 1 ms each); :mod:`graph.codec`
encodes and decodes them (:func:`~graph.codec.member_props`, :func:`~graph.codec.member_identity_of`,
:func:`~graph.codec.pinning_of`, :func:`~graph.codec.flaws_of`), importing this module on first use
of a reader.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MemberIdentity", "Pinning", "Flaws"]


@dataclass(frozen=True, slots=True)
class MemberIdentity:
    """What a member states of the set it belongs to (GRAMMAR §2.2 rules 4–5), as its parser read it.

    Parameters
    ----------
    file_name : str or None
        The file name it was read from (``runtime.md``); None for a plain-text member.
    record_prefix : str or None
        The analyst prefix of the records its type declares (``RT``|``MEM``|``EPI``,
        :data:`domain.grammar.ANY_ANALYST` for the G1 result), None for a type declaring none.
    states_prefix : bool
        Whether the member states a ``record_prefix`` at all (Markdown members do; a plain-text
        member states none, and no prefix rule applies to it).
    run_id, reviewed_boundary : str or None
        Its run-id and reviewed boundary (a generated review's ``analysis-run`` and
        ``reviewed-revision``, §3.11), None when unstated.
    frontmatter_lines : tuple of (str, int)
        Each front-matter key with the line it is on, in file order.
    run_id_key, boundary_key : str
        The front-matter keys stating the run-id and the reviewed boundary (a generated review's
        differ, §3.11).
    projection : bool
        True for a generated review, published outside the set folder and unpinned (§3.11).
    analysis_result, analysis_result_sha256 : str or None
        The result a generated review pins (``analysis-result``) and its SHA-256, else None.
    """

    file_name: str | None = None
    record_prefix: str | None = None
    states_prefix: bool = False
    run_id: str | None = None
    reviewed_boundary: str | None = None
    frontmatter_lines: tuple[tuple[str, int], ...] = ()
    run_id_key: str = "run-id"
    boundary_key: str = "reviewed-boundary"
    projection: bool = False
    analysis_result: str | None = None
    analysis_result_sha256: str | None = None

    def line_of(self, key: str, default: int = 1) -> int:
        """The front-matter line stating ``key``, ``default`` when unstated."""
        return next((line for k, line in self.frontmatter_lines if k == key), default)

    @property
    def run_id_line(self) -> int:
        """The front-matter line stating the run-id (1 when unstated)."""
        return self.line_of(self.run_id_key)

    @property
    def boundary_line(self) -> int:
        """The front-matter line stating the reviewed boundary (1 when unstated)."""
        return self.line_of(self.boundary_key)


@dataclass(frozen=True, slots=True)
class Pinning:
    """How its set's manifest pins a member (GRAMMAR §2.1; :mod:`ingest.sets`): the ``manifest``'s
    path (None: the member was read with none), the member files it ``pins``, in order, as (file
    name, manifest line), the member's pinned ``sha256`` (None: the manifest does not pin it) and
    whether its bytes match that pin, ``verified`` (None when unpinned)."""

    manifest: str | None = None
    pins: tuple[tuple[str, int], ...] = ()
    sha256: str | None = None
    verified: bool | None = None

@dataclass(frozen=True, slots=True)
class Flaws:
    """What a parser found against the grammar in one block, for ``citegraph check`` to report.

    Parameters
    ----------
    malformed_ids : tuple of str
        Tokens shaped like a record ID that are none (GRAMMAR §1.1).
    source_ranges : tuple of str
        Source ranges such as ``SRC-1 through SRC-3`` (§1.2).
    record_ranges : tuple of str
        Record ranges expanded into every record in them (§1.1).
    unexpanded_ranges : tuple of (str, str)
        Record ranges that cannot be expanded exactly, with the reason: (range, reason).
    unattributed : bool
        A blockquote without a ``> --- `path``` attribution (§6).
    part_of_malformed : str or None
        What is wrong with a ``Part of:`` line (§4.7), else None.
    malformed_declaration, malformed_annotation : str or None
        Of a heading: the ID-like token of one shaped like a declaration (§4.2), the text of an
        ``On …`` heading naming no record (§4.6); else None.
    misplaced_declaration : str or None
        Of an H4 in the declaration form (§4.2) outside ``## Shared records``, which declares
        nothing there (§4.1): the record ID it names (and cites); else None.
    unaccounted_ids : tuple of str
        Record-ID tokens of the block's prose that are no citation, declaration, alias or ignored
        occurrence (the accounting invariant, :mod:`ingest.accounting`), one per occurrence.
    row_cells : tuple of (int, int) or None
        Of a table row: (the header's cell count, the row's) when they differ (§3.5: equal cell
        counts), else None.
    unclosed_row : bool
        A table row that does not end with ``|`` (§3.5).
    """

    malformed_ids: tuple[str, ...] = ()
    source_ranges: tuple[str, ...] = ()
    record_ranges: tuple[str, ...] = ()
    unexpanded_ranges: tuple[tuple[str, str], ...] = ()
    unattributed: bool = False
    part_of_malformed: str | None = None
    malformed_declaration: str | None = None
    malformed_annotation: str | None = None
    unaccounted_ids: tuple[str, ...] = ()
    misplaced_declaration: str | None = None
    row_cells: tuple[int, int] | None = None
    unclosed_row: bool = False
