"""How much one GraphQL request may ask for, and the stable ``extensions.code`` of every error.

Every limit is a schema extension that rejects a request before anything runs:

=======================  ============================================================================
extension                rejects (``extensions.code`` ``LIMIT_EXCEEDED``)
=======================  ============================================================================
:class:`TokenLimit`      a document of more than ``max_tokens`` lexical tokens (parser option)
:class:`DepthLimit`      a field nested deeper than ``max_depth`` (strawberry's ``QueryDepthLimiter``)
:class:`AliasLimit`      more than ``max_aliases`` aliases, counted through fragments
                         (strawberry's ``MaxAliasesLimiter``, >= 0.315.7)
:class:`CostLimit`       a query costing more than ``max_cost`` (see :func:`query_cost`)
=======================  ============================================================================

What a query costs is estimated before it runs (:func:`query_cost`: traversal fields by weight, each
connection and plain list by the items it may return, times the sizes of the lists around it) and
measured while it runs (:class:`CostMeter`: the weights of the traversal fields resolved, one per
item of every list a field returned, one per KiB of every text): a query whose estimate or whose
measure passes ``max_cost`` gets ``LIMIT_EXCEEDED``, the measure stopping it where it stands.

A document that passed every rule once is known by the SHA-256 of its text (:class:`KnownValid`):
repeated, it is validated again only by the rule that reads the request's variables, the cost rule.
A document that parsed is not parsed again while it is among the last :data:`PARSED_DOCUMENTS`
(:func:`parsed`, :class:`ParsedOnce`); one that does not parse is parsed, and refused, each time.

All validation rules first check that the document, with every fragment spread expanded, has at most
``max_expanded_fields`` fields, computed with one memoised pass: strawberry's depth and alias rules
expand fragments without memo, so a chain of fragments each spreading the next twice would otherwise
take exponential time before any limit could answer.

:class:`CodedErrors` gives every error a code from :func:`app.errors.face_of`, the one mapping table:
``CitegraphError`` subclasses keep theirs (``NOT_FOUND``, ``INVALID_INPUT``, ``LIMIT_EXCEEDED`` …), a
malformed or invalid document is a ``CitegraphError`` (``BAD_REQUEST``), and anything else is masked
as ``INTERNAL``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import re
import threading
from dataclasses import dataclass, field
from inspect import isawaitable
from typing import Any
from collections.abc import Iterator, Mapping
from weakref import WeakKeyDictionary

from graphql import (
    ASTValidationRule,
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSyntaxError,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    TypeInfo,
    ValidationContext,
    ValidationRule,
    VariableNode,
    get_named_type,
    get_nullable_type,
    is_list_type,
    parse,
    validate,
)
from strawberry.extensions import MaskErrors, MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.extensions.base_extension import SchemaExtension

from app.errors import face_of, for_clients, hint_of
from graph.errors import CitegraphError, QueryLimitExceeded

__all__ = [
    "GraphQLLimits",
    "PARSED_DOCUMENTS",
    "parsed",
    "ParsedOnce",
    "LIMIT_EXCEEDED",
    "TokenLimit",
    "DepthLimit",
    "AliasLimit",
    "CostLimit",
    "CostMeter",
    "KnownValid",
    "ValidDocuments",
    "CodedErrors",
    "query_cost",
    "limit_extensions",
    "refused_before_parsing",
]

LIMIT_EXCEEDED = face_of(QueryLimitExceeded("")).code
"""``extensions.code`` of every limit rejection (``LIMIT_EXCEEDED``)."""
_BAD_REQUEST = face_of(CitegraphError("")).code


@dataclass(frozen=True, slots=True)
class GraphQLLimits:
    """The numbers every request is held to.

    Attributes
    ----------
    max_depth : int, default 16
        Field nesting (a connection level costs three: ``records { edges { node``), so four nested
        connections fit.
    max_aliases : int, default 20
        Aliased fields in the whole document, fragments included.
    max_tokens : int, default 2000
        Lexical tokens of the document (GraphiQL's introspection query has about 180).
    max_document_bytes : int, default 262144
        Bytes (UTF-8) of the document, checked before it is parsed (member content goes in
        variables, which are JSON, not in the document).
    max_literal_bytes : int, default 65536
        Bytes of one string literal of the document, checked before it is parsed: the parser reads
        a string character by character (a 1 MB literal took 11 s), and the token limit counts
        it as one token.
    max_expanded_fields : int, default 10000
        Fields of the document with every fragment spread expanded.
    max_cost : int, default 10000
        Cost of one operation, see :func:`query_cost`.
    default_page_size, max_page_size : int, default 50 and 200
        Items of a connection without ``first``/``last``, and the most ``first``/``last`` may ask;
        more is rejected (``LIMIT_EXCEEDED``), never clamped.
    max_node_ids : int, default 200
        Ids one ``nodes(ids:)`` may ask for.
    list_size : int, default 50
        Items a plain list field of objects (``restsOn.results``, a dossier's ``fields``) is
        assumed to return when a query's cost is estimated; what it does return is measured as
        the query runs (:class:`CostMeter`).
    weights : mapping of str to int
        Cost of one call of each traversal field, in units of about 0.5 ms of the server's time (a
        member's ``render`` 50, a whole set's 300, ``search`` 200, ``impact`` 1000): by field name on
        any type, or by ``Type.field`` (``AnalysisSet.render``) where one name costs differently on
        different types.
    """

    max_depth: int = 16
    max_aliases: int = 20
    max_tokens: int = 2000
    max_document_bytes: int = 256 * 1024
    max_literal_bytes: int = 64 * 1024
    max_expanded_fields: int = 10_000
    max_cost: int = 10_000
    default_page_size: int = 50
    max_page_size: int = 200
    max_node_ids: int = 200
    list_size: int = 50
    weights: Mapping[str, int] = field(default_factory=lambda: {
        # about 0.5 ms of server time each, measured on the bundled corpus (its largest set, the Dynamic
        # Cheatsheet's 389 statements), rounded up for larger stores: max_cost is then about 5 s of work
        "restsOn": 50, "render": 50, "dossier": 100, "check": 200,
        "AnalysisSet.render": 300, "Query.render": 300,  # a whole set and its record index: 40-145 ms
        "Query.search": 200,  # counts every hit: a common word takes seconds on a large store
        "impact": 1000,  # git processes: a diff, a batch read and a grep per revision
        "Query.diff": 500, "Query.compare": 500,  # both read two whole sets (a quotation's diff is text)
    })


def _limit_error(message: str, nodes: Any = None) -> GraphQLError:
    return GraphQLError(message, nodes, extensions={"code": LIMIT_EXCEEDED})


_STRINGS = re.compile(r'"""(?:\\"""|[^"]|"(?!""))*"""|"(?:[^"\\\n\r]|\\.)*"')
"""GraphQL string values: block strings and quoted strings (GraphQL spec §2.9.4)."""


def refused_before_parsing(query: str | None, limits: GraphQLLimits) -> GraphQLError | None:
    """The ``LIMIT_EXCEEDED`` error of a document too large to parse, or None: over
    ``max_document_bytes``, or holding a string literal over ``max_literal_bytes`` (found by one
    regular-expression scan, in time linear in the document; a quote inside a comment can only make
    a literal look longer, so the document stays within the size limit either way)."""
    if not query:
        return None
    size = len(query.encode("utf-8", "surrogatepass"))
    if size > limits.max_document_bytes:
        return _limit_error(f"the query document is {size} bytes; at most {limits.max_document_bytes} are allowed "
                            f"(send member content and other long values as variables)")
    for match in _STRINGS.finditer(query):
        length = len(match.group().encode("utf-8", "surrogatepass"))
        if length > limits.max_literal_bytes:
            line = query.count("\n", 0, match.start()) + 1
            return _limit_error(f"the string literal at line {line} is {length} bytes; at most "
                                f"{limits.max_literal_bytes} are allowed (pass long values as variables)")
    return None


# -- parsing once -------------------------------------------------------------------------------

PARSED_DOCUMENTS = 128
"""Parsed documents kept (the most recently used), by text and parser options."""


@functools.lru_cache(maxsize=PARSED_DOCUMENTS)
def _parsed(query: str, options: tuple[tuple[str, Any], ...]) -> DocumentNode:
    return parse(query, **dict(options))


def parsed(query: str, **options: Any) -> DocumentNode:
    """``graphql.parse(query, **options)``, kept for the next request with the same text and
    options (a parsed document is never changed: execution and validation only read it).

    Raises
    ------
    GraphQLError
        As ``parse``: a syntax error, more than ``max_tokens`` tokens (nothing is kept then).
    """
    return _parsed(query, tuple(sorted(options.items())))


class ParsedOnce(SchemaExtension):
    """The request's document from :func:`parsed` (with the request's parser options, the token
    limit's included); a document that does not parse is left to strawberry, which parses it and
    reports the error as it always does."""

    def on_parse(self) -> Iterator[None]:
        ctx = self.execution_context
        if ctx.query and ctx.graphql_document is None:
            with contextlib.suppress(GraphQLError):
                ctx.graphql_document = parsed(ctx.query, **ctx.parse_options)
        yield


# -- fragment expansion guard --------------------------------------------------------------------

_EXPANDED: WeakKeyDictionary[DocumentNode, int] = WeakKeyDictionary()


def expanded_fields(document: DocumentNode) -> int:
    """Fields of ``document`` with every fragment spread expanded (cycles count once), in one pass
    memoised per fragment; cached per parsed document."""
    if document in _EXPANDED:
        return _EXPANDED[document]
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    memo: dict[str, int] = {}

    def size(selection_set: SelectionSetNode | None, active: frozenset[str]) -> int:
        total = 0
        for sel in selection_set.selections if selection_set else ():
            if isinstance(sel, FieldNode):
                total += 1 + size(sel.selection_set, active)
            elif isinstance(sel, InlineFragmentNode):
                total += size(sel.selection_set, active)
            elif isinstance(sel, FragmentSpreadNode):
                name = sel.name.value
                if name in active or name not in fragments:
                    continue
                if name not in memo:
                    memo[name] = size(fragments[name].selection_set, active | {name})
                total += memo[name]
        return total

    total = sum(size(d.selection_set, frozenset()) for d in document.definitions
                if isinstance(d, OperationDefinitionNode))
    _EXPANDED[document] = total
    return total


class _CodingContext:
    """A validation context whose reported errors carry ``extensions.code`` ``LIMIT_EXCEEDED``."""

    def __init__(self, inner: ValidationContext):
        self._inner = inner

    def report_error(self, error: GraphQLError) -> None:
        error.extensions = {**(error.extensions or {}), "code": LIMIT_EXCEEDED}
        self._inner.report_error(error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _guarded(rule: type[ASTValidationRule], max_expanded_fields: int) -> type[ASTValidationRule]:
    """``rule`` with coded errors, run only when the expanded document is small enough (else the
    size itself is reported, once per request, by whichever guarded rule runs first)."""

    class Guarded(rule):  # type: ignore[misc, valid-type]
        def __init__(self, context: ValidationContext) -> None:
            count = expanded_fields(context.document)
            if count > max_expanded_fields:
                ValidationRule.__init__(self, context)
                if not getattr(context, "_citegraph_size_reported", False):
                    context._citegraph_size_reported = True  # type: ignore[attr-defined]
                    context.report_error(_limit_error(
                        f"the query has {count} fields with its fragments expanded; at most "
                        f"{max_expanded_fields} are allowed"))
                return
            super().__init__(_CodingContext(context))

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{rule.__name__}"
    return Guarded


# -- the limits ----------------------------------------------------------------------------------

class TokenLimit(MaxTokensLimiter):
    """strawberry's :class:`MaxTokensLimiter`; its parse error gets ``LIMIT_EXCEEDED``."""

    def on_parse(self) -> Iterator[None]:
        yield
        for error in self.execution_context.pre_execution_errors or ():
            if isinstance(error, GraphQLSyntaxError) and f"more than {self.max_token_count} tokens" in error.message:
                error.extensions = {**(error.extensions or {}), "code": LIMIT_EXCEEDED}


class DepthLimit(QueryDepthLimiter):
    """strawberry's :class:`QueryDepthLimiter` (introspection fields ignored), with coded errors."""

    def __init__(self, max_depth: int, *, max_expanded_fields: int) -> None:
        super().__init__(max_depth=max_depth)
        self.validation_rules = [_guarded(r, max_expanded_fields) for r in self.validation_rules]


class AliasLimit(MaxAliasesLimiter):
    """strawberry's :class:`MaxAliasesLimiter` (aliases inside fragments count), with coded errors."""

    def __init__(self, max_alias_count: int, *, max_expanded_fields: int) -> None:
        super().__init__(max_alias_count=max_alias_count)
        self.validation_rules = [_guarded(r, max_expanded_fields) for r in self.validation_rules]


def _int_argument(node: FieldNode, name: str, variables: Mapping[str, Any],
                  defaults: Mapping[str, Any]) -> int | None:
    for arg in node.arguments or ():
        if arg.name.value != name:
            continue
        value = arg.value
        if isinstance(value, IntValueNode):
            return int(value.value)
        if isinstance(value, VariableNode):
            raw = variables.get(value.name.value, defaults.get(value.name.value))
            return raw if isinstance(raw, int) and not isinstance(raw, bool) else None
    return None


def _list_length(node: FieldNode, name: str, variables: Mapping[str, Any]) -> int | None:
    for arg in node.arguments or ():
        if arg.name.value != name:
            continue
        if isinstance(arg.value, ListValueNode):
            return len(arg.value.values)
        if isinstance(arg.value, VariableNode):
            raw = variables.get(arg.value.name.value)
            return len(raw) if isinstance(raw, list) else 1
        return 1
    return None


def query_cost(context: ValidationContext, operation: OperationDefinitionNode, limits: GraphQLLimits,
               variables: Mapping[str, Any]) -> tuple[int, list[GraphQLError]]:
    """Cost of ``operation``, and errors for page sizes over the limit.

    The cost is the sum over fields of

    - ``weights[name] × m`` for a traversal field (``restsOn``, ``dossier``, ``render``, ``check``,
      ``impact``), where the multiplier ``m`` is the product of the page sizes of the connections
      (and ``nodes(ids:)`` lists) enclosing it, 1 at the top;
    - ``m × page size`` for a connection (one per item it may return), whose page size is
      ``first`` or ``last`` (literal, variable, or the variable's default), else the default page
      size; its children are counted with ``m × page size``;
    - for a plain list of objects (not a connection's ``edges``), its children counted with
      ``m × list_size`` (``nodes(ids:)``: the number of ids): a list returns many objects, each
      costing what its selection costs.

    So ``records(first: 100) { edges { node { restsOn { count } } } }`` costs 100 + 100 × 50, and
    ``restsOn { results { statementNode { document { render } } } }`` 50 + 50 × 50.

    Notes
    -----
    Linear in the document size: a fragment's cost is computed once per type condition, at
    multiplier 1, and scaled (every term is proportional to ``m``).
    """
    schema = context.schema
    fragments = {d.name.value: d for d in context.document.definitions if isinstance(d, FragmentDefinitionNode)}
    defaults = {}
    for definition in operation.variable_definitions or ():
        if isinstance(definition.default_value, IntValueNode):
            defaults[definition.variable.name.value] = int(definition.default_value.value)
    errors: list[GraphQLError] = []
    memo: dict[str, int] = {}

    def cost(selection_set: SelectionSetNode | None, parent: Any, active: frozenset[str]) -> int:
        total = 0
        for sel in selection_set.selections if selection_set else ():
            if isinstance(sel, FieldNode):
                name = sel.name.value
                fields = parent.fields if isinstance(parent, (GraphQLObjectType, GraphQLInterfaceType)) else {}
                definition = fields.get(name)
                if definition is None:  # introspection, __typename, or an unknown field another rule reports
                    continue
                owner = getattr(parent, "name", "")
                total += limits.weights.get(f"{owner}.{name}", limits.weights.get(name, 0))
                size = None
                if "first" in definition.args and "after" in definition.args:
                    first = _int_argument(sel, "first", variables, defaults)
                    last = _int_argument(sel, "last", variables, defaults)
                    for arg_name, value in (("first", first), ("last", last)):
                        if value is not None and value > limits.max_page_size:
                            errors.append(_limit_error(
                                f"{name}({arg_name}: {value}): {arg_name} must be at most {limits.max_page_size}",
                                [sel]))
                    asked = [v for v in (first, last) if v is not None]
                    size = max(0, min(asked)) if asked else limits.default_page_size
                    total += size
                elif name == "nodes" and "ids" in definition.args:
                    size = _list_length(sel, "ids", variables) or 0
                elif is_list_type(get_nullable_type(definition.type)) and "pageInfo" not in fields:
                    size = limits.list_size  # a connection's edges are counted by its page size
                if sel.selection_set is not None:
                    inner = cost(sel.selection_set, get_named_type(definition.type), active)
                    total += inner * (size if size is not None else 1)
            elif isinstance(sel, InlineFragmentNode):
                cond = schema.get_type(sel.type_condition.name.value) if sel.type_condition else parent
                total += cost(sel.selection_set, cond, active)
            elif isinstance(sel, FragmentSpreadNode):
                name = sel.name.value
                fragment = fragments.get(name)
                if fragment is None or name in active:
                    continue
                if name not in memo:
                    memo[name] = cost(fragment.selection_set, schema.get_type(fragment.type_condition.name.value),
                                      active | {name})
                total += memo[name]
        return total

    root = schema.get_root_type(operation.operation)
    return cost(operation.selection_set, root, frozenset()), errors


def _cost_rule(limits: GraphQLLimits, variables: Mapping[str, Any]) -> type[ValidationRule]:
    class CostLimitRule(ValidationRule):
        """Reject operations costing more than ``limits.max_cost`` (see :func:`query_cost`)."""

        reads_variables = True  # run for every request, also of a document known valid (KnownValid)

        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)
            for definition in context.document.definitions:
                if not isinstance(definition, OperationDefinitionNode):
                    continue
                total, errors = query_cost(context, definition, limits, variables)
                for error in errors:
                    context.report_error(error)
                if total > limits.max_cost:
                    name = definition.name.value if definition.name else "anonymous"
                    context.report_error(_limit_error(
                        f"'{name}' costs {total}; at most {limits.max_cost} is allowed "
                        f"(traversal fields weigh {dict(limits.weights)} per call, connections one per item, "
                        f"times the page sizes of enclosing connections and {limits.list_size} per item of "
                        f"an enclosing list); ask for smaller pages with `first`, or fewer fields under lists",
                        [definition]))

    return CostLimitRule


class CostLimit(SchemaExtension):
    """A validation rule (built per request, as strawberry's ``AddValidationRules`` does, but with the
    request's variables) that rejects operations costing more than ``limits.max_cost``."""

    def __init__(self, limits: GraphQLLimits) -> None:
        self.limits = limits

    def on_operation(self) -> Iterator[None]:
        ctx = self.execution_context
        rule = _guarded(_cost_rule(self.limits, dict(ctx.variables or {})), self.limits.max_expanded_fields)
        ctx.validation_rules = (*ctx.validation_rules, rule)
        yield


class ValidDocuments:
    """The digests of at most ``size`` documents found valid (:class:`KnownValid`), the oldest
    forgotten first; shared by the worker threads of one schema."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._digests: dict[bytes, None] = {}
        self._lock = threading.Lock()

    def __contains__(self, digest: bytes) -> bool:
        return digest in self._digests

    def add(self, digest: bytes) -> None:
        """Remember ``digest``, forgetting the oldest past ``size``."""
        with self._lock:
            self._digests[digest] = None
            while len(self._digests) > self.size:
                del self._digests[next(iter(self._digests))]


class KnownValid(SchemaExtension):
    """Validation of a document once: a document (by the SHA-256 of its text) that passed every
    validation rule is remembered in ``known``, and a later request with the same text is validated
    only by the rules that read the request's variables (``reads_variables``: the cost rule); the
    others read the document and the schema alone, so they would answer the same. A document that
    failed is validated again each time, so its errors are always reported."""

    def __init__(self, known: ValidDocuments) -> None:
        self.known = known

    def on_validate(self) -> Iterator[None]:
        ctx = self.execution_context
        document = ctx.graphql_document
        key = hashlib.sha256(ctx.query.encode()).digest() if ctx.query and document is not None else None
        if document is not None and key is not None and key in self.known:
            rules = [rule for rule in ctx.validation_rules if getattr(rule, "reads_variables", False)]
            ctx.pre_execution_errors = _validated_by(ctx.schema._schema, document, rules) if rules else []
            yield
            return
        yield
        if key is not None and ctx.pre_execution_errors == []:
            self.known.add(key)


def _validated_by(schema: Any, document: DocumentNode, rules: list[type[ASTValidationRule]]) -> list[GraphQLError]:
    """``validate(schema, document, rules)``. Rules that judge the whole document when they are made
    (the cost rule: :func:`query_cost` runs in its ``__init__``) and have no visitor hook are only
    made, on a context of their own: graphql-core's ``validate`` would also walk every node of the
    document with a ``TypeInfo`` for hooks they do not have (about 0.4 ms of the bench's GraphQL
    request at L)."""
    if any(_has_hooks(rule) for rule in rules):
        return validate(schema, document, rules)
    errors: list[GraphQLError] = []
    context = ValidationContext(schema, document, TypeInfo(schema), errors.append)
    for rule in rules:
        rule(context)
    return errors


def _has_hooks(rule: type[ASTValidationRule]) -> bool:
    """Whether ``rule`` has a visitor hook (``enter``/``leave``, of any node kind) of its own (not
    cached: the cost rule is a new class per request)."""
    return any(name.startswith(("enter", "leave")) for name in dir(rule) if not hasattr(ValidationRule, name))


class CostMeter(SchemaExtension):
    """What a query costs in fact, counted while it runs: each traversal field's weight before it
    is resolved, one per item of every list a field returns (connection edges, ``restsOn.results``,
    a dossier's blocks …) and one per KiB of every text (a rendering). Once the count passes
    ``limits.max_cost`` every field still to resolve fails with :class:`QueryLimitExceeded`
    (``LIMIT_EXCEEDED``), so no more work is done for the request: the estimate
    (:func:`query_cost`) cannot know how many results a list will hold."""

    def __init__(self, limits: GraphQLLimits) -> None:
        self.limits = limits
        self.spent = 0

    def resolve(self, _next, root, info, *args: Any, **kwargs: Any) -> Any:
        weights = self.limits.weights
        weight = weights.get(f"{info.parent_type.name}.{info.field_name}", weights.get(info.field_name, 0))
        if weight or self.spent > self.limits.max_cost:
            self._spend(weight, info)
        result = _next(root, info, *args, **kwargs)
        if isawaitable(result):
            return self._measured(result, info)
        self._measure(result, info)
        return result

    async def _measured(self, pending: Any, info: Any) -> Any:
        result = await pending
        self._measure(result, info)
        return result

    def _measure(self, result: Any, info: Any) -> None:
        if isinstance(result, (list, tuple)):
            self._spend(len(result), info)
        elif isinstance(result, str) and len(result) >= 1024:
            self._spend(len(result) // 1024, info)

    def _spend(self, units: int, info: Any) -> None:
        self.spent += units
        if self.spent > self.limits.max_cost:
            raise QueryLimitExceeded(
                f"the query cost more than {self.limits.max_cost} as it ran (stopped at {info.field_name}): "
                f"traversal fields weigh {dict(self.limits.weights)} per call, every list item and every KiB "
                f"of text one", hint="ask for fewer fields under lists, smaller pages, or fewer aliases")


def _masked(error: GraphQLError) -> bool:
    """Mask everything that is neither a deliberate GraphQL error nor a CitegraphError."""
    original = error.original_error
    return original is not None and not isinstance(original, (CitegraphError, GraphQLError))


class CodedErrors(MaskErrors):
    """:class:`MaskErrors` letting ``CitegraphError`` through, giving every error ``extensions.code``
    (and ``hint`` when the error has one) from :func:`app.errors.face_of`; masked errors are ``INTERNAL``."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=_masked)

    def _home(self):
        """The embedded store's folder, which no error message may name (:func:`app.errors.for_clients`)."""
        settings = getattr(getattr(self.execution_context, "context", None), "settings", None)
        return getattr(settings, "home", None)

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        out = []
        for error in errors:
            if self.should_mask_error(error):
                masked = self.anonymise_error(error)
                masked.extensions = {"code": face_of(error.original_error).code}  # type: ignore[arg-type]
                out.append(masked)
                continue
            extensions = dict(error.extensions or {})
            original = error.original_error
            if isinstance(original, CitegraphError):
                extensions.setdefault("code", face_of(original).code)
                home = self._home()
                error.message = for_clients(error.message, home)
                hint = for_clients(hint_of(original), home)
                if hint:
                    extensions.setdefault("hint", hint)
                if original.source:
                    extensions.setdefault("source", {"path": original.source.path, "line": original.source.line})
            extensions.setdefault("code", _BAD_REQUEST)
            error.extensions = extensions
            out.append(error)
        return out


def limit_extensions(limits: GraphQLLimits, known: ValidDocuments) -> list[Any]:
    """Extension factories for a schema: the token limit, :class:`ParsedOnce`, the other three
    limits, :class:`KnownValid` (with the schema's own ``known`` documents), the
    :class:`CostMeter`, then :class:`CodedErrors`."""
    return [
        lambda: TokenLimit(max_token_count=limits.max_tokens),
        ParsedOnce,
        lambda: DepthLimit(limits.max_depth, max_expanded_fields=limits.max_expanded_fields),
        lambda: AliasLimit(limits.max_aliases, max_expanded_fields=limits.max_expanded_fields),
        lambda: CostLimit(limits),
        lambda: KnownValid(known),
        lambda: CostMeter(limits),
        CodedErrors,
    ]
