"""YAML documents (member frontmatter, set manifests) composed once, with libyaml when present.

PyYAML's pure-Python parser dominated parsing (about half of read + parse time), and the old path
ran it twice per document: ``yaml.compose`` for line numbers, then ``yaml.load`` for the data.
:func:`load_yaml` composes once and constructs the data from that node, with libyaml's parser
(``yaml.CSafeLoader``) when PyYAML was built with it. libyaml words its errors differently, so a
document libyaml refuses is parsed again by the pure-Python loader: errors (message and line) are
exactly the pure loader's. Where libyaml is more lenient than the pure parser (see
:data:`_PURE_ONLY`), the pure parser alone decides.

Whatever parsed it, a document is refused for its shape (:class:`ShapeError`, with the line) when
it nests deeper than :data:`MAX_DEPTH` or its aliases would expand it by more than
:data:`MAX_ALIAS_EXPANSION` (a billion-laughs document): checked on the composed nodes,
where an alias is the node it names, before anything expands it, in time linear in the document.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["MAX_DEPTH", "MAX_ALIAS_EXPANSION", "ShapeError", "load_yaml"]

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _without_timestamps(resolvers: dict) -> dict:
    return {first: [(tag, rx) for tag, rx in entries if tag != _TIMESTAMP] for first, entries in resolvers.items()}


MAX_DEPTH = 64
"""Deepest nesting of mappings and sequences a document may have (frontmatter needs a handful)."""

MAX_ALIAS_EXPANSION = 100_000
"""Most that aliases may add to a document, beyond what it writes out (unit: nodes plus the
characters of their scalars, counted as if every alias were written out in full). A frontmatter
that names a list twice stays readable; a billion-laughs document (aliases of lists of aliases,
a few hundred bytes that expand to gigabytes) is refused before anything expands it."""


class ShapeError(yaml.composer.ComposerError):
    """A well-formed YAML document citegraph refuses for its shape (see :func:`_check_shape`);
    ``hint`` says what to write instead."""

    def __init__(self, problem: str, mark: yaml.Mark | None, hint: str):
        super().__init__(None, None, problem, mark)
        self.hint = hint


_FLATTER = "frontmatter needs only a few levels of nesting"
_WRITE_OUT = "write the values out instead of aliasing them"


class _Shallow:
    """Composes no node deeper than :data:`MAX_DEPTH`: the pure-Python parser recurses per level and
    its scanner does work per open flow level for every token, so a document thousands of
    brackets deep is refused at level 65 instead of after seconds of scanning."""

    _depth = 0

    def compose_node(self, parent, index):
        if self._depth >= MAX_DEPTH:
            raise ShapeError(f"the document nests deeper than {MAX_DEPTH} levels", self.peek_event().start_mark,
                             _FLATTER)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Pure(_Shallow, yaml.SafeLoader):
    """The pure-Python SafeLoader, composing at most :data:`MAX_DEPTH` levels."""


class _PureTextDates(_Shallow, yaml.SafeLoader):
    """The pure loader (:class:`_Pure`), keeping dates as the strings written (``run-date: 2026-10-04``)."""


_PureTextDates.yaml_implicit_resolvers = _without_timestamps(yaml.SafeLoader.yaml_implicit_resolvers)

if getattr(yaml, "__with_libyaml__", False):

    class _FastTextDates(yaml.CSafeLoader):
        """libyaml's SafeLoader that keeps dates as the strings written."""

    _FastTextDates.yaml_implicit_resolvers = _without_timestamps(yaml.CSafeLoader.yaml_implicit_resolvers)
    _FAST: dict[bool, type | None] = {False: yaml.CSafeLoader, True: _FastTextDates}
else:  # PyYAML built without libyaml: the pure-Python loaders only
    _FAST = {False: None, True: None}
_PURE: dict[bool, type] = {False: _Pure, True: _PureTextDates}

_YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")
"""Characters YAML counts as line breaks and a file's lines (split on ``\n``) do not: a document
holding one gets its marks' lines recounted (see :func:`_recount_lines`)."""

_PURE_ONLY = ("\t", "?", "\ufeff", *_YAML_ONLY_BREAKS)
"""Characters on which libyaml accepts documents the pure-Python parser refuses (a tab or a ``?``
inside a plain scalar, a byte-order mark after the start): a document holding one is parsed by
the pure loader only. Fuzzing (60,000 loads of real frontmatter and manifests with one to three
characters edited) found no other document that libyaml reads differently from the pure loader."""


def _run(loader_cls: type, text: str) -> tuple[Any, Any]:
    loader = loader_cls(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:  # the pure parser recurses per nesting level
            raise ShapeError(f"the document nests deeper than {MAX_DEPTH} levels", None, _FLATTER) from None
        _check_shape(node)
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _check_shape(root: yaml.Node | None) -> None:
    """Refuse what no frontmatter needs and what would make every later walk of the data recurse
    without end or expand without bound: an alias used inside the node it names (``&a [*a]``),
    nesting deeper than :data:`MAX_DEPTH`, aliases that add more than
    :data:`MAX_ALIAS_EXPANSION` to the document.

    One depth-first walk without recursion, in document order, that enters each node once
    however often aliases name it (in either parser an alias is the very node it names): time and
    memory linear in the document as written. A node's expanded size is 1, plus its scalar's
    characters, plus its children's expanded sizes. The first time the walk meets a node is
    where it is written; every later meeting is an alias and adds the node's whole expanded size,
    so the sum is exactly what expanding every alias adds.

    Raises
    ------
    ShapeError
        With the offending node's mark, so the caller reports its line; for too much expansion,
        the alias that goes over: the key whose value it is, else the sequence holding it.
    """
    if root is None:
        return
    open_, done = 1, 2
    state: dict[int, int] = {id(root): open_}
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    added = 0
    stack: list[tuple[yaml.Node, list[yaml.Node], list[int]]] = [(root, _children(root), [0])]
    while stack:
        node, kids, at = stack[-1]
        if at[0] == len(kids):
            stack.pop()
            own = 1 + (len(node.value) if isinstance(node, yaml.ScalarNode) else 0)
            size[id(node)] = own + sum(size[id(child)] for child in kids)
            height[id(node)] = 1 + max((height[id(child)] for child in kids), default=0)
            state[id(node)] = done
            continue
        child = kids[at[0]]
        at[0] += 1
        seen = state.get(id(child))
        if seen is None:
            if len(stack) + 1 > MAX_DEPTH:
                raise ShapeError(f"the document nests deeper than {MAX_DEPTH} levels", child.start_mark, _FLATTER)
            state[id(child)] = open_
            stack.append((child, _children(child), [0]))
            continue
        if seen == open_:
            raise ShapeError("an alias is used inside the node it names", child.start_mark, _WRITE_OUT)
        if len(stack) + height[id(child)] > MAX_DEPTH:  # an alias of a node met before, deeper here
            raise ShapeError(f"the document nests deeper than {MAX_DEPTH} levels", child.start_mark, _FLATTER)
        added += size[id(child)]
        if added > MAX_ALIAS_EXPANSION:
            where = kids[at[0] - 2] if isinstance(node, yaml.MappingNode) and at[0] % 2 == 0 else node
            raise ShapeError(f"aliases here expand the document by more than {MAX_ALIAS_EXPANSION:,} nodes "
                             "and characters", where.start_mark, _WRITE_OUT)


def _children(node: yaml.Node) -> list[yaml.Node]:
    """The nodes directly inside ``node``: a sequence's items, a mapping's keys and values."""
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def load_yaml(text: str, *, dates_as_text: bool = False) -> tuple[Any, Any]:
    """The composed node and the constructed data of one YAML document, safe types only.

    Parameters
    ----------
    text : str
        One YAML document.
    dates_as_text : bool, default False
        Keep unquoted dates (``2026-10-04``) as the strings written instead of ``datetime.date``.

    Returns
    -------
    tuple
        ``(node, data)``: the root ``yaml.Node`` (its marks give 0-based lines) and the data
        ``yaml.safe_load`` would give; ``(None, None)`` for an empty document.

    Raises
    ------
    yaml.YAMLError
        The text is not one well-formed YAML document: the pure-Python loader's error, with its
        message and marks, whichever parser ran first.

    Examples
    --------
    >>> node, data = load_yaml("a: 1\\nrun-date: 2026-10-04\\n", dates_as_text=True)
    >>> data, [k.start_mark.line for k, _ in node.value]
    ({'a': 1, 'run-date': '2026-10-04'}, [0, 1])
    >>> load_yaml("")
    (None, None)
    """
    fast = _FAST[dates_as_text]
    if fast is not None and not any(ch in text for ch in _PURE_ONLY):
        try:
            return _run(fast, text)
        except yaml.YAMLError:
            pass  # parse again below, for the pure loader's own wording of the error
    if not any(ch in text for ch in _YAML_ONLY_BREAKS):
        return _run(_PURE[dates_as_text], text)
    try:
        node, data = _run(_PURE[dates_as_text], text)
    except yaml.YAMLError as exc:
        _recount_lines(text, [getattr(exc, "problem_mark", None), getattr(exc, "context_mark", None)])
        raise
    _recount_lines(text, _marks(node))
    return node, data


def _marks(root: yaml.Node | None) -> list[yaml.Mark]:
    """Start and end marks of every node under ``root`` (aliases visited once)."""
    out, seen, stack = [], set(), [root] if root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out += [node.start_mark, node.end_mark]
        stack.extend(_children(node))
    return out


def _recount_lines(text: str, marks: list[yaml.Mark | None]) -> None:
    """Set each mark's 0-based ``line`` to the ``\n``-separated line of its ``index`` in ``text``
    (the pure parser's marks index characters of ``text``), so a NEL or LINE SEPARATOR inside a
    value no longer shifts the lines reported after it."""
    for mark in marks:
        if mark is not None:
            mark.line = text.count("\n", 0, mark.index)
