"""Exact rebuild of a member from its graph nodes, and the round-trip check behind ``citegraph verify``.

A parser splits a member into blocks such that ``preamble + "".join(gap + markup) + trailer`` is the
file's text (``ingest/parsers/parsed.py``); the loader stores those pieces on the Document, Section
and Statement nodes. Rebuilding from the nodes in ``order`` and comparing the SHA-256 of the UTF-8
bytes with the Document's stored ``sha256`` proves that the graph holds everything the analysts
wrote. The source file is never read here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable

from queries.documents import DocumentTree

__all__ = ["rebuild", "sha256_hex", "RoundTrip", "VerifyReport", "verify", "first_difference"]


def rebuild(tree: DocumentTree) -> str:
    """The member's text, composed from its nodes in document order.

    Parameters
    ----------
    tree : DocumentTree
        The document as stored (:func:`queries.documents.document_tree`).

    Returns
    -------
    str
        ``preamble + gap₁ + markup₁ + … + gapₙ + markupₙ + trailer``, blocks sorted by ``order``.

    Examples
    --------
    >>> from queries.demo import DEMO_TEXT, demo_store
    >>> from queries.documents import document_tree
    >>> rebuild(document_tree(demo_store(), "demo/synthesis")) == DEMO_TEXT
    True
    """
    preamble, trailer = tree.preamble, tree.trailer
    parts = [preamble]
    for block in tree.blocks:
        parts.append(block.block.gap)
        parts.append(block.block.markup)
    parts.append(trailer)
    return "".join(parts)


def sha256_hex(text: str) -> str:
    """SHA-256 of ``text`` encoded as UTF-8, lowercase hex (64 characters).

    >>> sha256_hex("")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RoundTrip:
    """The round trip of one document.

    ``document`` id, ``path`` it was ingested from, ``format``; ``expected`` the stored SHA-256 and
    ``actual`` that of the rebuild; ``size`` stored and ``rebuilt_size`` in bytes; ``ok`` when the
    digests are equal; ``diff`` the first differing hunk (unified diff, original → rebuilt) when the
    original bytes were available and differ, else None; ``note`` says why no diff is shown.
    """

    document: str
    path: str
    format: str
    expected: str
    actual: str
    size: int
    rebuilt_size: int
    ok: bool
    diff: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Round trips of every document checked (``results``, sorted as given: set, role order, id),
    with the number of ``documents`` checked and of those ``differing`` from the original. Its
    JSON (``verify --json``) is :func:`queries.shapes.plain` of it:
    ``{"documents", "differing", "results": [...]}``."""

    documents: int = field(init=False)
    differing: int = field(init=False)
    results: tuple[RoundTrip, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "documents", len(self.results))
        object.__setattr__(self, "differing", sum(1 for r in self.results if not r.ok))


def verify(trees: Iterable[DocumentTree], *,
           original: Callable[[DocumentTree], bytes | None] | None = None) -> VerifyReport:
    """Rebuild every document and compare its SHA-256 with the stored one.

    Parameters
    ----------
    trees : iterable of DocumentTree
        The documents to check.
    original : callable, optional
        Diagnostics only: called for a document whose digest differs, returns the original bytes
        (or None). Bytes whose SHA-256 is not the stored one are ignored. Used to show the first
        differing hunk; the rebuild itself never depends on it.

    Returns
    -------
    VerifyReport
        One :class:`RoundTrip` per tree.

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> from queries.documents import document_trees
    >>> [(r.document, r.ok) for r in verify(document_trees(demo_store())).results]
    [('demo/synthesis', True)]
    """
    out = []
    for tree in trees:
        text = rebuild(tree)
        data = text.encode("utf-8")
        member = tree.member
        expected = member.sha256
        actual = hashlib.sha256(data).hexdigest()
        diff = note = None
        if actual != expected:
            raw = original(tree) if original is not None else None
            if raw is None:
                note = "original bytes not available for a diff"
            elif hashlib.sha256(raw).hexdigest() != expected:
                note = "the file at the document's path has changed since ingest; no diff shown"
            else:
                diff = first_difference(raw.decode("utf-8", errors="replace"), text, name=member.path or tree.id)
        out.append(RoundTrip(tree.id, member.path, tree.format, expected, actual,
                             member.size, len(data), actual == expected, diff, note))
    return VerifyReport(tuple(out))


def first_difference(expected: str, actual: str, *, name: str = "document", context: int = 3) -> str:
    """The first hunk of the unified diff from ``expected`` to ``actual`` (``""`` when equal).

    Lines keep their endings, so a lost final newline shows as a changed last line.

    >>> print(first_difference("a\\nb\\nc", "a\\nB\\nc", name="x", context=0), end="")
    --- x (original)
    +++ x (rebuilt from the graph)
    @@ -2 +2 @@
    -b
    +B
    """
    import difflib  # verify's difference: rendering a document imports none

    lines = list(difflib.unified_diff(
        expected.splitlines(keepends=True), actual.splitlines(keepends=True),
        fromfile=f"{name} (original)", tofile=f"{name} (rebuilt from the graph)", n=context,
    ))
    if not lines:
        return ""
    out = lines[:2]
    for line in lines[2:]:
        if line.startswith("@@") and len(out) > 2:
            break
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
