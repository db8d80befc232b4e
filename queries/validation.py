"""Set validation (``citegraph check``): findings with stable codes, read from the stored graph.

The rules are the set rules of GRAMMAR §2.2 and the record rules of §4, evaluated on what the
parsers stored (declarations, fields, statuses, ``Part of:`` facts, manifest pins, frontmatter
identity), so they run unchanged on every store backend. Problems only a file can show (malformed
YAML, unknown types, missing or mismatched manifest members) come from set assembly and are merged
in through ``problems``.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any
from collections.abc import Callable, Iterable

from domain.vocabulary import ROUTE_FIELDS, STATUS_VALUES
from graph.model import Label
from graph.store import GraphStore
from queries.kept import per_set, rows_of
from queries.findings import CODES, CheckReport, Finding
from queries.names import unknown_set

__all__ = ["Finding", "CheckReport", "check", "CODES", "STATUS_VALUES", "ROUTE_FIELDS"]


def check(store: GraphStore, *, set_id: str | None = None, problems: Iterable[Any] = (),
          progress: Callable[[int, int], None] | None = None, fresh: bool = False) -> CheckReport:
    """Validate the stored sets (or one set).

    Parameters
    ----------
    store : GraphStore
        Any backend satisfying the store contract.
    set_id : str, optional
        Only this analysis set.
    problems : iterable, optional
        Problems found while reading files (objects with ``code``, ``severity``, ``path``,
        ``line``, ``message`` and ``set_id``, e.g. :class:`ingest.sets.SetProblem`); merged in,
        except where a graph rule reports the same code at the same place. A pinned member named
        by an error among them is not reported as ``manifest-missing-member``.
    progress : callable, optional
        ``progress(done, total)`` after each set checked (units: sets).
    fresh : bool
        Check every set again instead of reusing the findings a store keeps for a set unchanged
        since it was last checked (:func:`queries.kept.per_set`; kept only when no ``problems``
        name a refused member).

    Returns
    -------
    CheckReport
        Findings sorted by (set, file, line, code, node); rules and codes in :data:`CODES`.

    Raises
    ------
    AnalysisSetNotFound
        ``set_id`` is given and not in the store.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> [(f.code, f.severity, f.line) for f in check(demo_store()).findings]
    [('undeclared-record', 'warning', 4)]

    Notes
    -----
    A record citation is ``dangling-record-citation`` (error) when the member that should declare
    it — the member a link names, else the analyst's member by prefix — is in the set and does not;
    when that member is absent (the seeds) it is only ``undeclared-record`` (warning). Source
    citations are checked only in sets holding a Source register (a boundary or overview member).
    Route fields are checked on slug-ID routes (G3 and later); statuses on every declaration and
    annotation, a missing one being an error on slug IDs and a warning on numbered (G2) IDs. A status
    is its leading vocabulary term; a trailing qualifier (``wired on target emission``) is kept beside
    it, not refused.
    """
    if set_id is not None and not store.get_nodes([set_id]):
        raise unknown_set(store, set_id)
    problems = list(problems)
    # A pinned member that is present but was refused (unparsable, pin mismatch) is not missing.
    refused = frozenset((p.set_id, PurePosixPath(p.path.replace("\\", "/")).name)
                        for p in problems if p.severity == "error")
    # Every rule is one set's, so the store is checked set by set: memory is one set's, not the
    # store's, and a store that keeps results keeps each set's findings while the set is unchanged.
    scopes = [set_id] if set_id is not None else [s.id for s in store.find_nodes(Label.ANALYSIS_SET)]
    if refused:  # findings that depend on files read now: computed, never kept
        found = {}
        for done, scope in enumerate(scopes):
            if progress is not None:
                progress(done, len(scopes))
            found[scope] = _check_set(store, scope, refused)
        if progress is not None:
            progress(len(scopes), len(scopes))
    else:
        encode, decode = rows_of(Finding)
        found = per_set(store, "check", scopes, lambda scope: _check_set(store, scope), encode=encode,
                        decode=decode, fresh=fresh, progress=progress)
    findings: list[Finding] = [f for scope in scopes for f in found[scope]]
    seen = {(f.code, f.file, f.line) for f in findings}
    for p in problems:
        if set_id is not None and p.set_id not in (None, set_id):
            continue
        if (p.code, p.path, p.line) in seen:
            continue
        seen.add((p.code, p.path, p.line))
        findings.append(Finding(p.code, p.severity, p.set_id or "", p.path, p.line, "", p.message))
    findings.sort(key=lambda f: (f.set, f.file, f.line, f.code, f.node))
    return CheckReport(tuple(findings))


def _check_set(store: GraphStore, scope: str, refused: frozenset[tuple[str | None, str]] = frozenset()
               ) -> tuple[Finding, ...]:
    """:func:`queries.check_rules.check_set`, imported when a set is checked: a check answered
    from the findings a store keeps imports no rule, nor the codec and domain model they read."""
    from queries.check_rules import check_set

    return check_set(store, scope, refused)
