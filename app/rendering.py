"""One render request for every face (CLI, REST, GraphQL): run the query, pick the renderer.

``citegraph render``, ``GET /documents/{id}/render``, ``GET /records/{id}/dossier``,
``GET /records/{id}/rests-on/report``, ``GET /sets/{id}/render`` and the GraphQL ``render`` field all
call :func:`render_request`, so they return the same bytes for the same question.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable

from typing import TYPE_CHECKING

from graph.errors import CitegraphError, InvalidQuery
from graph.model import Label
from render import MEDIA_TYPES, Format
from render.writers import write

if TYPE_CHECKING:
    from graph.store import GraphStore
    from queries.documents import DocumentTree
    from render.document import RoundTrip

# Each kind of rendering imports its own query and page builder (a rests-on report reads no dossier,
# a document no subgraph), in the function that renders it.

__all__ = ["Rendered", "parse_format", "render_request", "render_document", "original_bytes", "set_of_request",
           "verify_sets"]


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendering: ``text``, its ``format`` and HTTP ``media_type`` (UTF-8)."""

    text: str
    format: Format
    media_type: str


def parse_format(value: str | Format | None) -> Format | None:
    """``md``, ``txt`` or ``html`` as a :class:`Format` (None stays None).

    Raises
    ------
    CitegraphError
        Any other value.
    """
    if value is None or isinstance(value, Format):
        return value
    try:
        return Format(value.lower())
    except ValueError:
        raise CitegraphError(f"unknown format {value!r}", hint="use md, txt or html") from None


def _rendered(text: str, fmt: Format) -> Rendered:
    return Rendered(text, fmt, MEDIA_TYPES[fmt])


def render_document(store: GraphStore, document: str, fmt: str | Format | None = None) -> Rendered:
    """A stored member rendered from its graph nodes.

    In its own format (the default) the rendering is the exact original text; ``txt`` of a
    Markdown member is the seeds' plain-text style; ``html`` (and ``md`` of a plain-text member) is a
    page of its sections and statements.

    Raises
    ------
    DocumentNotFound
        No such document.
    CitegraphError
        Unknown format.
    """
    from queries.documents import document_tree

    tree = document_tree(store, document)
    chosen = parse_format(fmt) or Format(tree.format)
    if chosen.value == tree.format:
        from render.document import rebuild  # the member's own text: no page, no Markdown parsing

        return _rendered(rebuild(tree), chosen)
    if chosen is Format.TXT:
        from render.to_plaintext import plaintext_of

        return _rendered(plaintext_of(tree), chosen)
    from render.compose import document_page

    return _rendered(write(document_page(tree, markdown_only=chosen is Format.MD), chosen), chosen)


def render_request(
    store: GraphStore,
    *,
    document: str | None = None,
    rests_on: str | None = None,
    record: str | None = None,
    set_id: str | None = None,
    fmt: str | Format | None = None,
    max_depth: int | None = None,
) -> Rendered:
    """Render exactly one thing: a ``document``, the statements resting on record ``rests_on``, the
    dossier of ``record``, or (``set_id`` alone) a whole analysis set.

    Parameters
    ----------
    store : GraphStore
        Any backend.
    document, rests_on, record : str, optional
        What to render; at most one. ``set_id`` restricts ``rests_on``/``record`` to one set.
    set_id : str, optional
        Alone: render the whole set with its record index.
    fmt : str, optional
        ``md`` (default for reports), ``txt`` or ``html``; documents default to their own format.
    max_depth : int, optional
        Evidence-step limit for rests-on parts (1..16).

    Raises
    ------
    InvalidQuery
        Nothing or more than one thing asked for (a usage error: exit 2, 422).
    CitegraphError
        An unknown format.
    RecordNotFound, AnalysisSetNotFound, DocumentNotFound, QueryLimitExceeded
        From the queries.
    """
    asked = [name for name, value in (("document", document), ("rests-on", rests_on), ("record", record))
             if value]
    if len(asked) > 1:
        raise InvalidQuery(f"render one thing at a time, not {' and '.join(asked)}",
                           hint="give a document, --rests-on ID, --record ID or --set S alone")
    if document:
        return render_document(store, document, fmt)
    chosen = parse_format(fmt) or Format.MD
    markdown_only = chosen is Format.MD  # the page's plain forms are for the other writers only
    if rests_on:
        from queries.subgraphs import rests_on_subgraph
        from render.compose import rests_on_page

        page = rests_on_page(rests_on_subgraph(store, rests_on, set_id=set_id, max_depth=max_depth, kind=None),
                             markdown_only=markdown_only)
    elif record:
        from queries.dossier import record_dossiers
        from render.compose import dossier_page

        page = dossier_page(record_dossiers(store, record, set_id=set_id, max_depth=max_depth),
                            markdown_only=markdown_only)
    elif set_id:
        from queries.subgraphs import analysis_set_report
        from render.compose import set_page

        page = set_page(analysis_set_report(store, set_id), markdown_only=markdown_only)
    else:
        raise InvalidQuery("nothing to render",  # a usage error: exit 2, 422
                           hint="give a document id, --rests-on ID, --record ID or --set S")
    return _rendered(write(page, chosen), chosen)


def set_of_request(store: GraphStore, document: str | None, set_id: str | None) -> str | None:
    """The analysis set a render request reads (for ``version``): ``set_id`` when given, else the
    set of ``document``: the ``<set>`` of a document id ``<set>/<role>`` when that set is stored
    (the member may exist only in an earlier version), else the set of the document ingested
    from that path; else None.

    Raises
    ------
    DocumentNotFound
        ``document`` names no stored set's document and no stored document's path.
    """
    if set_id is not None or not document:
        return set_id
    from queries.documents import find_document

    head = document.split("/", 1)[0]
    node = store.get_nodes([head]).get(head) if "/" in document else None
    if node is not None and node.label == Label.ANALYSIS_SET:
        return head
    return find_document(store, document).set_id


def original_bytes(tree: DocumentTree) -> bytes | None:
    """Diagnostics for ``citegraph verify``: the bytes at the path a document was ingested from, or
    None when that file is gone. Only read after a rebuild differs, to show the first difference."""
    path = Path(tree.member.path)
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def verify_sets(store: GraphStore, set_ids: list[str], *, fresh: bool = False,
                progress: Callable[[int, int], None] | None = None) -> tuple[RoundTrip, ...]:
    """The round trip of every document of each set (``citegraph verify``), in set order, then
    :func:`queries.documents.document_trees`' order. A set at a time, so memory holds one set's
    trees; a set unchanged since a round trip that rebuilt every member reuses it
    (:func:`queries.kept.per_set`; ``fresh`` rebuilds). ``progress(done, total)`` counts sets."""
    from queries.documents import document_trees
    from queries.kept import per_set, rows_of
    from render.document import RoundTrip, verify

    encode, decode = rows_of(RoundTrip)
    trips = per_set(store, "verify", set_ids,
                    lambda s: verify(document_trees(store, set_id=s), original=original_bytes).results,
                    encode=encode, decode=decode, fresh=fresh, reusable=lambda rs: all(r.ok for r in rs),
                    progress=progress)
    return tuple(r for s in set_ids for r in trips[s])
