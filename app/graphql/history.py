"""GraphQL face of history: versions of a set, the diff of two versions, the runs of a system and
the comparison of two runs, and ``version:`` on every read field.

Types here are built from the frozen results of :mod:`graph.versions`, :mod:`queries.history` and
:mod:`queries.runs` (:func:`app.graphql.shapes.object_type`) and resolvers return those results as
they are; the lists a client pages through (``versions``, ``runs``) are Relay connections.

**Reading a version.** Every top-level read field takes ``version: Int`` beside the set it reads
(``set:``, the ``id`` of ``set(id:)``, the document of ``document(id:)`` or ``document:``). Before
anything runs, :class:`VersionPins` collects those arguments from the operation and the request's
store becomes a :class:`VersionedStore`: the store with each named set read at its version (the
whole request, nested fields included, reads that set at that version; a set asked at two
versions in one request is an error). Version errors (unknown version, a version without a set)
surface on the fields, with the codes of :mod:`app.errors`.
"""

from __future__ import annotations

import threading
from typing import Annotated, Any, Optional
from collections.abc import Iterable, Iterator

import strawberry
from graphql import FieldNode, FragmentSpreadNode, InlineFragmentNode, OperationDefinitionNode
from graphql.utilities import value_from_ast_untyped
from strawberry.extensions.base_extension import SchemaExtension
from strawberry.types import Info

from app.graphql.context import Context, Loaders, call
from app.graphql.shapes import object_type
from app.graphql.types import AnalysisSet, wrap
from graph import versions
from graph.errors import AmbiguousScope, CitegraphError
from graph.store import ClosedOnExit, GraphStore
from queries import history as domain
from queries import runs as runs_domain

__all__ = ["VersionArg", "VersionedStore", "VersionPins", "version_pins", "SetVersion", "SetDiff", "Run",
           "RunComparison", "resolve_versions", "resolve_diff", "resolve_runs", "resolve_compare"]

Ctx = Info[Context, None]

VersionArg = Annotated[Optional[int], strawberry.argument(
    description="Read the set at this version (`versions(set:)` lists them); default: the latest.")]


# -- reading a version ---------------------------------------------------------------------------


class VersionedStore(ClosedOnExit):
    """``base`` with the sets of ``pins`` read at their versions, resolved on first use (in the
    worker thread of the first store call) through :func:`queries.history.store_at`.

    ``pins`` are ``(set id or None, document reference or None, version)``: the set named, else the
    set of the document named. A pin without either, or one set at two versions, raises on every
    call; so does an unknown set, document or version."""

    def __init__(self, base: GraphStore, pins: list[tuple[str | None, str | None, int]]):
        self.base = base
        self._pins = pins
        self._lock = threading.Lock()
        self._view: GraphStore | None = None
        self._error: CitegraphError | None = None

    def _resolved(self) -> GraphStore:
        with self._lock:
            if self._view is None and self._error is None:
                try:
                    self._view = self._resolve()
                except CitegraphError as exc:
                    self._error = exc
            if self._error is not None:
                raise self._error
            return self._view  # type: ignore[return-value]

    def _resolve(self) -> GraphStore:
        from app.rendering import set_of_request
        from graph.stores.pinned import PinnedStore

        wanted: dict[str, int] = {}
        for set_id, document, version in self._pins:
            if set_id is None and document is not None:
                set_id = set_of_request(self.base, document, None)
            if set_id is None:
                raise AmbiguousScope(f"version {version} of which analysis set?",
                                     hint="give `set:` (or the set's or document's id) beside `version:`")
            if wanted.setdefault(set_id, version) != version:
                raise CitegraphError(f"analysis set {set_id!r} is asked at versions {wanted[set_id]} and {version} "
                                     f"in one request", hint="a request reads each set at one version; send one "
                                                             "request per version")
        pins: dict[str, GraphStore] = {}
        for set_id, version in wanted.items():
            view = domain.store_at(self.base, set_id, version)
            if isinstance(view, PinnedStore):
                pins.update(view.pins)
        return PinnedStore(self.base, pins) if pins else self.base

    # the store contract, each call resolving the view first (in the caller's worker thread)

    def get_nodes(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().get_nodes(*args, **kwargs)

    def find_nodes(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().find_nodes(*args, **kwargs)

    def edges(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().edges(*args, **kwargs)

    def degrees(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().degrees(*args, **kwargs)

    def closure(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().closure(*args, **kwargs)

    def reach(self, *args: Any, **kwargs: Any) -> Any:
        from queries.traversal import reach

        return reach(self._resolved(), *args, **kwargs)

    def counts(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().counts(*args, **kwargs)

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().search(*args, **kwargs)

    def set_versions(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().set_versions(*args, **kwargs)  # type: ignore[attr-defined]

    def set_version(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().set_version(*args, **kwargs)  # type: ignore[attr-defined]

    def part_changes(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().part_changes(*args, **kwargs)  # type: ignore[attr-defined]

    def replace_versions(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().replace_versions(*args, **kwargs)  # type: ignore[attr-defined]

    def write_set(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().write_set(*args, **kwargs)

    def delete_documents(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().delete_documents(*args, **kwargs)

    def put_reviews(self, *args: Any, **kwargs: Any) -> Any:
        return self._resolved().put_reviews(*args, **kwargs)

    def close(self) -> None:
        """Nothing: the app owns the store."""


def _arguments(field: FieldNode, variables: dict[str, Any]) -> dict[str, Any]:
    return {a.name.value: value_from_ast_untyped(a.value, variables) for a in field.arguments or ()}


def version_pins(document: Any, operation_name: str | None, variables: dict[str, Any] | None
                 ) -> list[tuple[str | None, str | None, int]]:
    """The ``version:`` arguments of the top-level fields of the operation to run, each with the set
    (or document) it names: ``set``; for ``set(id:)`` the ``id``; for ``graphNode(nodeId:)`` the
    node id's set; for ``document(id:)`` the document ``id``; else a ``document`` argument."""
    variables = dict(variables or {})
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    operation = next((o for o in operations if o.name and o.name.value == operation_name), None) \
        if operation_name else (operations[0] if len(operations) == 1 else None)
    if operation is None:
        return []
    fragments = {d.name.value: d for d in document.definitions if type(d).__name__ == "FragmentDefinitionNode"}
    out: list[tuple[str | None, str | None, int]] = []

    def visit(selections: Iterable[Any], seen: frozenset[str]) -> None:
        for selection in selections:
            if isinstance(selection, FieldNode):
                args = _arguments(selection, variables)
                version = args.get("version")
                if version is None:
                    continue
                name = selection.name.value
                set_id = args.get("set") if name != "set" else args.get("id")
                if set_id is None and name == "graphNode" and args.get("nodeId"):
                    set_id = str(args["nodeId"]).split("/", 1)[0]
                doc = args.get("id") if name == "document" else args.get("document")
                out.append((set_id, doc if set_id is None else None, int(version)))
            elif isinstance(selection, InlineFragmentNode):
                visit(selection.selection_set.selections, seen)
            elif isinstance(selection, FragmentSpreadNode) and selection.name.value not in seen:
                fragment = fragments.get(selection.name.value)
                if fragment is not None:
                    visit(fragment.selection_set.selections, seen | {selection.name.value})

    visit(operation.selection_set.selections, frozenset())
    return out


class VersionPins(SchemaExtension):
    """Before execution: the request's store becomes a :class:`VersionedStore` when any top-level
    field asks for a ``version`` (see the module docstring)."""

    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        context = ctx.context
        if ctx.graphql_document is not None and isinstance(context, Context):
            pins = version_pins(ctx.graphql_document, ctx.operation_name, ctx.variables)
            if pins:
                context.store = VersionedStore(context.store, pins)
                context.loaders = Loaders(context.store)
        yield


# -- versions ------------------------------------------------------------------------------------


async def _history(info: Ctx, set_id: str) -> domain.SetHistory:
    """The versions of ``set_id`` (of the store without the request's pins), read once per request."""
    answers = info.context.loaders.answers
    if ("history", set_id) not in answers:
        answers["history", set_id] = await call(domain.history, _unpinned(info.context.store), set_id)
    return answers["history", set_id]


@strawberry.field
async def _latest(self: versions.SetVersion, info: Ctx) -> bool:
    return self.number == (await _history(info, self.set_id)).latest


MemberVersion = object_type(versions.MemberVersion,
                            description="A member of a set version: document id, role, path and the SHA-256 of its bytes.")
VersionCounts = object_type(versions.VersionCounts, description="Counts of a set version.")
SetVersion = object_type(versions.SetVersion, description="A kept version of an analysis set (the latest is the live graph).",
                         names={"number": "number"}, key=lambda v: (v.number,),
                         descriptions={"created": "UTC time of the write that made it; null for the state a set had "
                                                  "before versions were kept."},
                         added={"latest": _latest}, after={"latest": "digest"})


# -- diff ----------------------------------------------------------------------------------------


Cited = object_type(domain.Cited, description="A cited record, source, file or named reference.")
MemberChange = object_type(domain.MemberChange, description="A member added, removed or changed between two versions.")
ValueChange = object_type(domain.StatusChange, name="ValueChange",
                          description="A status or field of a record whose value changed (null: absent in that version).")
RecordChange = object_type(domain.RecordChange,
                           description="A record added, removed, or whose label, status or a field changed.",
                           overrides={"fields": (list[ValueChange], strawberry.field())})  # a FieldChange is a ValueChange
StatementChange = object_type(domain.StatementChange, description="A statement added, removed or whose text changed "
                                                                  "(with the unified diff of its markup).")
CitationChange = object_type(domain.CitationChange, description="The citations a statement gained and lost.")
QuotationChange = object_type(domain.QuotationChange, description="A quotation added, removed or changed.")
LimitationChange = object_type(domain.LimitationChange, description="A Limitations row added, removed or changed.")
DepthChange = object_type(domain.DepthChange, description="A statement resting on a record in both versions, at "
                                                          "another depth (evidence steps).")
RestsOnChange = object_type(domain.RestsOnChange, description="The rests-on answer of a record whose evidence changed: "
                                                              "statements gained, lost, or reached at another depth.")


@strawberry.field
def _unchanged(self: domain.SetDiff) -> bool:
    return self.unchanged


SetDiff = object_type(domain.SetDiff, description="What changed in an analysis set between two versions.",
                      names={"from_version": "fromVersion", "to_version": "toVersion"},
                      added={"unchanged": _unchanged}, after={"unchanged": "to_version"})


# -- runs ----------------------------------------------------------------------------------------


RunSource = object_type(runs_domain.RunSource,
                        description="A source a run pins (each part null when the run does not state it).")


@strawberry.field(description="The analysis set as a node.")
async def _analysis_set(self: runs_domain.Run, info: Ctx) -> Optional[AnalysisSet]:
    return wrap(await info.context.loaders.node(self.set_id))  # type: ignore[return-value]


Run = object_type(runs_domain.Run, description="An analysis set analysing a system: run-id, date, pinned revisions, cutoff.",
                  added={"analysis_set": _analysis_set}, key=lambda r: (r.date or "", r.set_id))
Candidate = object_type(runs_domain.Candidate,
                        description="A record of the other run citing some of the same source files: a candidate, not a match.")
StatusAgreement = object_type(runs_domain.StatusAgreement,
                              description="One status label of a matched record in each run.")
FieldAgreement = object_type(runs_domain.FieldAgreement,
                             description="One field label of a matched record: stated in each run, and alike.")
RecordMatch = object_type(runs_domain.RecordMatch,
                          description="Two records taken for the same thing (by identical slug ID, or kind plus label).")
UnmatchedRecord = object_type(runs_domain.UnmatchedRecord,
                              description="A record of one run matching none of the other's, with its candidates.")
DeclaredCount = object_type(runs_domain.DeclaredCount, description="Declared records of one kind in each run.")
FileCitation = object_type(runs_domain.FileCitation,
                           description="A source file and how many statements of each run cite it.")
RunLimitation = object_type(runs_domain.RunLimitation, description="A Limitations row of one run.")


def _declared(self: runs_domain.RunComparison) -> list[DeclaredCount]:
    return list(self.declared_counts)


RunComparison = object_type(runs_domain.RunComparison, description="Where two runs of one system agree.",
                            overrides={"declared": (list[DeclaredCount], strawberry.field(resolver=_declared))})


# -- resolvers (fields of Query, see app.graphql.schema) ------------------------------------------


def _unpinned(store: GraphStore) -> GraphStore:
    """The store without the request's ``version:`` pins: history fields name their versions."""
    return store.base if isinstance(store, VersionedStore) else store


async def resolve_versions(info: Ctx, set_id: str) -> list[versions.SetVersion]:
    """The kept versions of ``set_id``, oldest first."""
    return list((await _history(info, set_id)).versions)


async def resolve_diff(info: Ctx, set_id: str, from_version: int | None, to_version: int | None,
                       max_depth: int | None) -> domain.SetDiff:
    """:func:`queries.history.diff_versions` in a worker thread."""
    ctx = info.context
    return await call(domain.diff_versions, _unpinned(ctx.store), set_id, from_version, to_version,
                      max_depth=ctx.settings.depth(max_depth))


async def resolve_runs(info: Ctx, system: str) -> list[runs_domain.Run]:
    """The runs of ``system``, by date."""
    return list((await call(runs_domain.runs_of, _unpinned(info.context.store), system)).runs)


async def resolve_compare(info: Ctx, a: str, b: str, version_a: int | None,
                          version_b: int | None) -> runs_domain.RunComparison:
    """:func:`queries.runs.compare_runs` in a worker thread."""
    return await call(runs_domain.compare_runs, _unpinned(info.context.store), a, b, version_a=version_a,
                      version_b=version_b)
