"""YAML documents (member frontmatter, set manifests) composed once, with libyaml when present.

PyYAML's pure-Python parser dominated parsing (about half of read + parse time), and the old path
ran it twice per document: ``yaml.compose`` for line numbers, then ``yaml.load`` for the data.
:func:`load_yaml` composes once and constructs the data from that node, with libyaml's parser
(``yaml.CSafeLoader``) when PyYAML was built with it. libyaml words its errors differently, so a
document libyaml refuses is parsed again by the pure-Python loader: errors (message and line) are
exactly the pure loader's. Where libyaml is more lenient than the pure parser (see
:data:`_PURE_ONLY`), the pure parser alone decides.
"""

from __future__ import annotations

from typing import Any

import yaml

__all__ = ["MAX_DEPTH", "load_yaml"]

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _without_timestamps(resolvers: dict) -> dict:
    return {first: [(tag, rx) for tag, rx in entries if tag != _TIMESTAMP] for first, entries in resolvers.items()}


class _PureTextDates(yaml.SafeLoader):
    """SafeLoader that keeps dates as the strings written (``run-date: 2026-10-04``)."""


_PureTextDates.yaml_implicit_resolvers = _without_timestamps(yaml.SafeLoader.yaml_implicit_resolvers)

if getattr(yaml, "__with_libyaml__", False):

    class _FastTextDates(yaml.CSafeLoader):
        """libyaml's SafeLoader that keeps dates as the strings written."""

    _FastTextDates.yaml_implicit_resolvers = _without_timestamps(yaml.CSafeLoader.yaml_implicit_resolvers)
    _FAST: dict[bool, type | None] = {False: yaml.CSafeLoader, True: _FastTextDates}
else:  # PyYAML built without libyaml: the pure-Python loaders only
    _FAST = {False: None, True: None}
_PURE: dict[bool, type] = {False: yaml.SafeLoader, True: _PureTextDates}

_YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")
"""Characters YAML counts as line breaks and a file's lines (split on ``\n``) do not: a document
holding one gets its marks' lines recounted (see :func:`_recount_lines`)."""

_PURE_ONLY = ("\t", "?", "\ufeff", *_YAML_ONLY_BREAKS)
"""Characters on which libyaml accepts documents the pure-Python parser refuses (a tab or a ``?``
inside a plain scalar, a byte-order mark after the start): a document holding one is parsed by
the pure loader only. Fuzzing (60,000 loads of real frontmatter and manifests with one to three
characters edited) found no other document that libyaml reads differently from the pure loader."""


MAX_DEPTH = 64
"""Deepest nesting of mappings and sequences a document may have (frontmatter needs a handful)."""


def _run(loader_cls: type, text: str) -> tuple[Any, Any]:
    loader = loader_cls(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:  # the pure parser recurses per nesting level
            raise yaml.composer.ComposerError(
                None, None, f"the document nests deeper than {MAX_DEPTH} levels", None) from None
        _check_shape(node)
        return node, (loader.construct_document(node) if node is not None else None)
    finally:
        loader.dispose()


def _check_shape(root: yaml.Node | None) -> None:
    """Refuse what no frontmatter needs and what would make every later walk of the data recurse
    without end: an alias used inside the node it names (``&a [*a]``), nesting deeper than
    :data:`MAX_DEPTH`. Walks without recursion.

    Raises
    ------
    yaml.composer.ComposerError
        With the offending node's mark, so the caller reports its line.
    """
    if root is None:
        return
    stack: list[tuple[yaml.Node, int, frozenset[int]]] = [(root, 1, frozenset())]
    while stack:
        node, depth, ancestors = stack.pop()
        if id(node) in ancestors:
            raise yaml.composer.ComposerError(None, None, "an alias is used inside the node it names",
                                              node.start_mark)
        if depth > MAX_DEPTH:
            raise yaml.composer.ComposerError(None, None, f"the document nests deeper than {MAX_DEPTH} levels",
                                              node.start_mark)
        inside = ancestors | {id(node)}
        stack.extend((child, depth + 1, inside) for child in _children(node))


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
