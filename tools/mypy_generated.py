"""A mypy plugin that makes the generated face types visible to the type checker.

The REST response models and the GraphQL result types are built at import time from the queries'
result dataclasses (``app.rest.shapes.response_model`` and ``listing``, ``app.graphql.shapes.
object_type``), so mypy sees a variable where the faces use a type. This plugin tells it what
each assignment ``Name = factory(…)`` at module level makes:

- ``response_model(cls, …)`` and ``listing(item, …)``: a class ``Name``, a subclass of pydantic's
  ``BaseModel`` (a route may annotate ``-> Name`` and build ``Name(...)``);
- ``object_type(cls, …)``: ``Name`` is an alias of ``cls`` itself, the result dataclass (or
  named tuple): a resolver returns the query's result object and strawberry reads its fields.

Named in ``[tool.mypy] plugins`` of ``pyproject.toml``; ``make lint`` runs mypy with it.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import GDEF, AssignmentStmt, Block, ClassDef, RefExpr, SymbolTable, SymbolTableNode, TypeAlias, TypeInfo
from mypy.plugin import DynamicClassDefContext, Plugin
from mypy.types import Instance

_MODELS = {"app.rest.shapes.response_model", "app.rest.shapes.listing"}
_ALIASES = {"app.graphql.shapes.object_type"}


def _model_class(ctx: DynamicClassDefContext) -> None:
    """``Name = response_model(…)``: ``Name`` is a class deriving from ``pydantic.BaseModel``."""
    base = ctx.api.lookup_fully_qualified_or_none("pydantic.main.BaseModel")
    if base is None or not isinstance(base.node, TypeInfo):
        if not ctx.api.final_iteration:
            ctx.api.defer()
        return
    class_def = ClassDef(ctx.name, Block([]))
    class_def.fullname = ctx.api.qualified_name(ctx.name)
    info = TypeInfo(SymbolTable(), class_def, ctx.api.cur_mod_id)
    class_def.info = info
    info.bases = [Instance(base.node, [])]
    info.calculate_metaclass_type()
    info.mro = [info, *base.node.mro]
    ctx.api.add_symbol_table_node(ctx.name, SymbolTableNode(GDEF, info))


def _alias_of_source(ctx: DynamicClassDefContext) -> None:
    """``Name = object_type(cls, …)``: ``Name`` is an alias of ``cls``."""
    source = ctx.call.args[0] if ctx.call.args else None
    if not isinstance(source, RefExpr) or not isinstance(source.node, TypeInfo):
        if not ctx.api.final_iteration:
            ctx.api.defer()
        return
    fullname = ctx.api.qualified_name(ctx.name)
    # A module analysed again (a name used before its definition) meets the alias made the first
    # time: marked as an alias definition, its statement is not taken for a second assignment.
    for statement in ctx.api.modules[ctx.api.cur_mod_id].defs:
        if isinstance(statement, AssignmentStmt) and statement.rvalue is ctx.call:
            statement.is_alias_def = True
    existing = ctx.api.lookup_fully_qualified_or_none(fullname)
    if existing is not None and isinstance(existing.node, TypeAlias):
        return
    alias = TypeAlias(Instance(source.node, []), fullname, ctx.api.cur_mod_id, ctx.call.line, ctx.call.column)
    ctx.api.add_symbol_table_node(ctx.name, SymbolTableNode(GDEF, alias))


class GeneratedFaceTypes(Plugin):
    """The dynamic-class hooks of :mod:`tools.mypy_generated` for the three face factories."""

    def get_dynamic_class_hook(self, fullname: str) -> Callable[[DynamicClassDefContext], None] | None:
        if fullname in _MODELS:
            return _model_class
        if fullname in _ALIASES:
            return _alias_of_source
        return None


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: the plugin class for any mypy ``version``."""
    return GeneratedFaceTypes
