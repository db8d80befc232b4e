"""Pages built from query results: a document, the statements resting on a record, a record dossier
and a whole analysis set with its record index.

Headings keep the members' own wording and document order; each statement keeps its own text (its
Markdown for Markdown members, its line for plain-text members). Write a page with
:func:`render.writers.write`.

A page built with ``markdown_only=True`` is written as Markdown alone: its items' plain forms
(``plain``, table ``cells``, a quote's ``text``), which only the plain-text and HTML writers print,
are left empty, so a Markdown page of Markdown members parses no inline Markdown except what it
prints (a table row's first cell, named in its note) and imports :mod:`render.to_plaintext`
(markdown-it, :mod:`domain.grammar`) only then.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from collections.abc import Iterable, Sequence

from render.page import (
    Heading,
    Index,
    IndexClause,
    IndexEntry,
    Item,
    Note,
    Page,
    Paragraph,
    Quote,
    Table,
    TableRow,
    anchor,
    record_anchor,
)
import itertools

if TYPE_CHECKING:  # the results it composes: a page of one kind imports no other kind's query
    from queries.documents import DocumentBlock, DocumentTree
    from queries.dossier import RecordDossier
    from queries.subgraphs import PathStep, RestsOnSubgraph, SetReport

__all__ = ["document_page", "rests_on_page", "dossier_page", "set_page", "explanation"]

_VERBS = {
    "CITES": "cites", "ANNOTATES": "annotates", "QUOTES": "quotes", "SUPERSEDED_BY": "is superseded by",
    "CONTAINS": "contains", "RESOLVES_TO": "resolves to", "DECLARED_IN": "is declared in", "IN_SOURCE": "is in",
}
_HASHES = re.compile(r"^\s{0,3}#{1,6}[ \t]*|[ \t]+#+[ \t]*$")


# -- blocks → items -----------------------------------------------------------------------------


def _plain_inline(markup: str) -> str:
    from render.to_plaintext import plain_inline  # markdown-it: imported when a page needs plain text

    return plain_inline(markup)


def _plain_block(block: DocumentBlock) -> str:
    from render.to_plaintext import plain_block

    return plain_block(block)


def _plain_heading(markup: str) -> str:
    from render.to_plaintext import plain_heading

    return plain_heading(markup)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _level(level: int) -> int:
    return max(2, min(6, level))


def _heading(tree: DocumentTree, block: DocumentBlock, shift: int, anchored: bool, plain_forms: bool) -> Heading:
    if tree.format == "md":
        plain = _plain_heading(block.block.markup) if plain_forms else ""
        markdown = _HASHES.sub("", block.block.markup.strip())
    else:
        plain = markdown = block.text or block.block.markup
    return Heading(_level(block.level + shift), plain, markdown, anchor("sec", block.id) if anchored else None,
                   tree.set_id)


def _cells_as_written(block: DocumentBlock) -> Sequence[str]:
    row = block.row
    if row is not None:
        return row.cells
    line = block.block.markup.strip().splitlines()[0] if block.block.markup.strip() else ""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _cell(tree: DocumentTree, cell: str) -> str:
    """One cell as plain text: Markdown inline markup dropped, a plain-text member's ``\\|`` unescaped."""
    return _plain_inline(str(cell)) if tree.format == "md" else str(cell).replace("\\|", "|")


def _cells(tree: DocumentTree, block: DocumentBlock, plain_forms: bool) -> tuple[str, ...]:
    if not plain_forms:
        return ()
    return tuple(_cell(tree, c) for c in _cells_as_written(block))


def _row(tree: DocumentTree, block: DocumentBlock, anchored: bool, plain_forms: bool) -> TableRow:
    plain = (_plain_block(block) if plain_forms else "") if tree.format == "md" else block.block.markup
    return TableRow(_cells(tree, block, plain_forms), plain, block.block.markup,
                    anchor("st", block.id) if anchored else None)


def _quote(tree: DocumentTree, block: DocumentBlock, anchored: bool, plain_forms: bool) -> Quote:
    q = block.quotation.quotation if block.quotation is not None else None
    path = q.path if q is not None else ""
    if tree.format == "md":
        plain = _plain_block(block) if plain_forms else ""
        body = q.text if q is not None and q.text else (plain.rsplit(" --- ", 1)[0] if " --- " in plain else plain)
        markdown = block.block.markup
    else:
        plain = block.block.markup
        body = q.text if q is not None and q.text else plain.rsplit(" --- ", 1)[0]
        paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", body) if p.strip()]
        markdown = "\n>\n".join(f"> {p}" for p in paragraphs) + f"\n> --- `{path}`"
    return Quote(body.strip("\n"), path, plain, markdown, anchor("st", block.id) if anchored else None, tree.set_id)


def _paragraph(tree: DocumentTree, block: DocumentBlock, anchored: bool, plain_forms: bool) -> Paragraph:
    plain = (_plain_block(block) if plain_forms else "") if tree.format == "md" else block.block.markup
    return Paragraph(plain, block.block.markup, anchor("st", block.id) if anchored else None, tree.set_id,
                     block.block.kind)


def _is_table(block: DocumentBlock) -> bool:
    return block.block.kind in ("table_header", "table_row")


def _header_of(tree: DocumentTree, row: DocumentBlock) -> DocumentBlock | None:
    """The ``table_header`` block of the table ``row`` belongs to (the nearest one before it)."""
    header = None
    for b in tree.blocks:
        if b.block.order >= row.block.order:
            break
        if b.block.kind == "table_header":
            header = b
        elif not _is_table(b):
            header = None
    return header


def _table(tree: DocumentTree, header: DocumentBlock | None, rows: Sequence[DocumentBlock], anchored: bool,
           plain_forms: bool) -> Table:
    head = TableRow((), "", "") if header is None else _row(tree, header, anchored, plain_forms)
    return Table(head, tuple(_row(tree, r, anchored, plain_forms) for r in rows), tree.set_id)


def _block_items(tree: DocumentTree, blocks: Iterable[DocumentBlock], *, shift: int, anchored: bool,
                 plain_forms: bool) -> list[Item]:
    """Items of ``blocks`` (in order): headings, paragraphs, quotes, and tables grouping a header
    with the rows that follow it."""
    items: list[Item] = []
    pending_header: DocumentBlock | None = None
    rows: list[DocumentBlock] = []

    def flush() -> None:
        nonlocal pending_header, rows
        if pending_header is not None or rows:
            items.append(_table(tree, pending_header, rows, anchored, plain_forms))
        pending_header, rows = None, []

    for block in blocks:
        if block.block.kind == "table_header":
            flush()
            pending_header = block
            continue
        if block.block.kind == "table_row":
            rows.append(block)
            continue
        flush()
        if block.is_section:
            items.append(_heading(tree, block, shift, anchored, plain_forms))
        elif block.block.kind == "quotation" or block.quotation is not None:
            items.append(_quote(tree, block, anchored, plain_forms))
        else:
            items.append(_paragraph(tree, block, anchored, plain_forms))
    flush()
    return items


def _index(entries: dict[tuple[str, str], IndexEntry], html_only: bool) -> Index:
    return Index(tuple(entries[k] for k in sorted(entries)), html_only)


# -- documents -------------------------------------------------------------------------------


def document_page(tree: DocumentTree, *, markdown_only: bool = False) -> Page:
    """One member as a page: its sections and statements in document order, every statement
    anchored, and an (HTML-only) index of the records it cites; ``markdown_only``: a page only
    written as Markdown (module docstring).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> from queries.documents import document_tree
    >>> page = document_page(document_tree(demo_store(), "demo/synthesis"))
    >>> [type(i).__name__ for i in page.items]
    ['Heading', 'Paragraph', 'Paragraph', 'Index']
    """
    member = tree.member
    lead = (f"{tree.id} · {member.member_type} · {tree.format} member ingested from {member.path or '?'}",)
    items = _block_items(tree, tree.blocks, shift=0, anchored=True, plain_forms=not markdown_only)
    entries: dict[tuple[str, str], IndexEntry] = {}
    for block in tree.blocks:
        for rid in block.cited_records():
            _cite_entry(entries, tree.set_id, rid, block.id)
    items.append(_index(entries, html_only=True))
    return Page(_plain_inline(tree.title) if tree.format == "md" else tree.title, lead, tuple(items),
                markdown_only=markdown_only)


def _cite_entry(entries: dict[tuple[str, str], IndexEntry], set_id: str, record_id: str, block_id: str | None,
                summary: str = "") -> None:
    key = (set_id, record_id)
    old = entries[key].clauses[0] if key in entries else IndexClause("cited on this page")
    links = old.links
    if block_id is not None and all(target != anchor("st", block_id) for _, target in links):
        links = (*links, (block_id, anchor("st", block_id)))
    entries[key] = IndexEntry(record_id, set_id, record_anchor(set_id, record_id),
                              (IndexClause(summary or old.text, links),))


# -- rests-on ------------------------------------------------------------------------------------


def _step_name(step: PathStep, previous_document: str | None) -> str:
    if step.label == "Section":
        where = f" ({step.document})" if step.document and step.document != previous_document else ""
        return f"section “{step.name}”{where}"
    if step.label == "NamedReference":
        return f"named reference “{step.name}”"
    if step.label == "Document":
        return f"document “{step.name}”"
    if step.label == "Quotation":
        return f"quotation of {step.name}"
    return step.name


def _ranges(step: PathStep) -> str:
    """`` (in the record range A–B)`` when ``step`` cites the next node inside a record range."""
    return f" (in the record range {', '.join(step.ranges)})" if step.ranges else ""


def explanation(steps: Sequence[PathStep], depth: int) -> tuple[str, str]:
    """(tag, sentence) explaining why a statement rests on a record.

    ``tag`` is ``direct`` (the statement itself cites or annotates the record) or ``transitive``;
    the sentence names each node of the path and the edge kinds between them.

    >>> from queries.subgraphs import PathStep
    >>> explanation([PathStep("d#L1", "Statement", "d#L1", "d", ("CITES",)),
    ...              PathStep("s/RT-RTE-x", "Record", "RT-RTE-x", None, ())], 1)
    ('direct', 'cites RT-RTE-x')
    >>> explanation([PathStep("d#L1", "Statement", "d#L1", "d", ("CITES",), ("RT-BAP-1–RT-BAP-3",)),
    ...              PathStep("s/RT-BAP-2", "Record", "RT-BAP-2", None, ())], 1)
    ('direct', 'cites RT-BAP-2 (in the record range RT-BAP-1–RT-BAP-3)')
    """
    if len(steps) <= 2:
        verbs = " and ".join(_VERBS.get(k, k.lower()) for k in (steps[0].kinds if steps else ()))
        within = _ranges(steps[0]) if steps else ""
        return "direct", f"{verbs or 'cites'} {steps[-1].name if steps else ''}{within}".strip()
    parts = [steps[0].name]
    previous = steps[0].document
    for step, nxt in itertools.pairwise(steps):
        verbs = " and ".join(_VERBS.get(k, k.lower()) for k in step.kinds) or "rests on"
        parts.append(f" —{verbs}→ {_step_name(nxt, previous)}{_ranges(step)}")
        previous = nxt.document or previous
    unit = "evidence step" if depth == 1 else "evidence steps"
    return "transitive", f"{depth} {unit}: " + "".join(parts)


def _rests_on_items(sub: RestsOnSubgraph, base: int, entries: dict[tuple[str, str], IndexEntry],
                    plain_forms: bool) -> list[Item]:
    """Per document (heading at ``base``) and section (original headings below it), the result
    statements, each followed by its explanation note; consecutive rows of one table share it."""
    by_document: dict[str, list] = {}
    for r in sub.report.results:
        by_document.setdefault(r.document, []).append(r)
    items: list[Item] = []
    for tree in sub.documents:
        results = by_document.get(tree.id, [])
        if not results:
            continue
        title = tree.title if tree.format != "md" else _plain_inline(tree.title) if plain_forms else ""
        items.append(Heading(_level(base), f"{title} ({tree.id})" if plain_forms else "",
                             f"{tree.title} ({tree.id})", anchor("doc", tree.id), tree.set_id))
        shown: tuple[str, ...] = ()
        i = 0
        while i < len(results):
            r = results[i]
            block = tree.block(r.statement)
            path = tuple(h.id for h in tree.headings(block.id))
            common = next((k for k, (a, b) in enumerate(zip(shown, path)) if a != b), min(len(shown), len(path)))
            for h in path[common:]:
                items.append(_heading(tree, tree.block(h), base - 1, False, plain_forms))
            shown = path
            group = [r]
            if block.block.kind == "table_row":
                header = _header_of(tree, block)
                while (i + len(group) < len(results)
                       and (nxt := tree.block(results[i + len(group)].statement)).block.kind == "table_row"
                       and _header_of(tree, nxt) == header
                       and tuple(h.id for h in tree.headings(nxt.id)) == path):
                    group.append(results[i + len(group)])
                items.append(_table(tree, header, [tree.block(g.statement) for g in group], True, plain_forms))
            else:
                items.extend(_block_items(tree, [block], shift=base - 1, anchored=True, plain_forms=plain_forms))
            for g in group:
                tag, text = explanation(sub.steps.get(g.statement, ()), g.depth)
                if block.block.kind == "table_row":
                    cells = _cells_as_written(tree.block(g.statement))  # the first, as plain text, is printed
                    text = f"row “{_cell(tree, cells[0]) if cells else g.statement}”: {text}"
                items.append(Note(tag, text, tree.set_id))
                for rid in tree.block(g.statement).cited_records():
                    _cite_entry(entries, tree.set_id, rid, g.statement)
                for step in sub.steps.get(g.statement, ()):
                    if step.label == "Record" and step.node.startswith(f"{tree.set_id}/"):
                        _cite_entry(entries, tree.set_id, step.name, None)
            i += len(group)
    return items


def _rests_on_lead(sub: RestsOnSubgraph) -> tuple[str, ...]:
    report = sub.report
    query = f"Query: rests-on {report.record}"
    query += f" --set {report.set}" if report.set else " (every set)"
    query += f" --max-depth {sub.max_depth}" if sub.max_depth else ""
    query += " --direct" if sub.direct_only else ""
    direct = sum(1 for r in report.results if r.direct)
    sets = sorted({r.set for r in report.results})
    documents = len({r.document for r in report.results})
    counts = (f"{_count(len(report.results), 'statement')}: {direct} direct, {len(report.results) - direct} transitive, "
              f"in {_count(documents, 'document')} of {'set' if len(sets) < 2 else 'sets'} "
              f"{', '.join(sets) if sets else 'none'}.")
    return query, counts


def rests_on_page(sub: RestsOnSubgraph, *, markdown_only: bool = False) -> Page:
    """The statements resting on a record, per document and section in document order, each
    marked direct or transitive with its explanation path; ``markdown_only``: a page only written
    as Markdown (module docstring).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> from queries.subgraphs import rests_on_subgraph
    >>> page = rests_on_page(rests_on_subgraph(demo_store(), "RT-RTE-x"))
    >>> page.title, page.lead[1]
    ('Statements resting on RT-RTE-x', '1 statement: 1 direct, 0 transitive, in 1 document of set demo.')
    >>> [(i.tag, i.text) for i in page.items if type(i).__name__ == "Note"]
    [('direct', 'cites RT-RTE-x')]
    """
    entries: dict[tuple[str, str], IndexEntry] = {}
    for node_id in sub.report.records:
        set_id, _, rid = node_id.partition("/")
        _cite_entry(entries, set_id, rid, None, f"the record asked about, in set {set_id}")
    items = _rests_on_items(sub, 2, entries, not markdown_only)
    if not sub.report.results:
        items.append(Paragraph("No statement rests on this record.", "No statement rests on this record."))
    items.append(_index(entries, html_only=True))
    title = f"Statements resting on {sub.report.record}" + (f" in set {sub.report.set}" if sub.report.set else "")
    return Page(title, _rests_on_lead(sub), tuple(items), markdown_only=markdown_only)


# -- dossiers ------------------------------------------------------------------------------------


def _tree(dossier: RecordDossier, document_id: str) -> DocumentTree:
    return next(t for t in dossier.documents if t.id == document_id)


def _where(tree: DocumentTree, block: DocumentBlock) -> str:
    path = " › ".join(h.text for h in tree.headings(block.id))
    return f"{tree.title} ({tree.id})" + (f" › {path}" if path else "")


def _text(plain: str) -> Paragraph:
    return Paragraph(plain, plain)


def _dossier_items(d: RecordDossier, base: int, entries: dict[tuple[str, str], IndexEntry],
                   plain_forms: bool) -> list[Item]:
    rid, set_id = d.record_id, d.set_id
    items: list[Item] = []
    record = d.stored.record
    about = f"{rid}: kind {record.kind or '?'}, analyst prefix {record.analyst or 'none'}, analysis set {set_id}."
    items.append(Paragraph(about, about, set_id=set_id))

    def heading(text: str, level: int = base) -> Heading:
        return Heading(_level(level), text, text, anchor("part", f"{set_id}-{rid}-{text}"), set_id)

    items.append(heading("Declaration and fields"))
    if d.declaration is not None and d.declaration_document:
        tree = _tree(d, d.declaration_document)
        items.append(_text(f"Declared in {_where(tree, d.declaration)}."))
        items.extend(_block_items(tree, [d.declaration, *d.fields], shift=base - d.declaration.level + 1,
                                  anchored=True, plain_forms=plain_forms))
    else:
        items.append(_text("cited but not declared in the ingested members"))

    items.append(heading("Annotations"))
    for a in d.annotations:
        tree = _tree(d, a.document)
        first = a.section or a.body[0]
        items.append(_text(f"In {_where(tree, first)}."))
        blocks = [a.section, *a.body] if a.section is not None else list(a.body)
        shift = base - a.section.level + 1 if a.section is not None else 0
        items.extend(_block_items(tree, blocks, shift=shift, anchored=True, plain_forms=plain_forms))
    if not d.annotations:
        items.append(_text("none"))

    items.append(heading("Amendments and supersessions"))
    lines = [f"Superseded by {r.record_id}" + (f" (stated in {r.statement})" if r.statement else "") + "."
             for r in d.superseded_by]
    lines += [f"Supersedes {r.record_id}" + (f" (stated in {r.statement})" if r.statement else "") + "."
              for r in d.supersedes]
    items.extend(Paragraph(line, line, set_id=set_id) for line in lines)
    for block in d.amendments:
        items.extend(_block_items(_tree(d, block.document), [block], shift=0, anchored=True, plain_forms=plain_forms))
    if not lines and not d.amendments:
        items.append(_text("none"))
    for r in (*d.superseded_by, *d.supersedes, *d.part_of, *d.parts):
        _cite_entry(entries, set_id, r.record_id, None)

    items.append(heading("Parts and container"))
    lines = [f"Part of {r.record_id}" + (f" (stated in {r.statement})" if r.statement else "") + "." for r in d.part_of]
    if d.parts:
        lines.append("Parts: " + ", ".join(r.record_id for r in d.parts) + ".")
    items.extend(Paragraph(line, line, set_id=set_id) for line in lines)
    if not lines:
        items.append(_text("none"))

    items.append(heading("Quotations and source files"))
    for quoted in d.quotations:
        statement, q = quoted.statement, quoted.quotation.quotation
        body = q.text.strip("\n")
        one_line = " ".join(body.split())
        block_quote = "\n".join(f"> {line}" if line.strip() else ">" for line in body.split("\n"))
        items.append(Quote(body, q.path, f"{one_line} --- {q.path}", f"{block_quote}\n> --- `{q.path}`", None, set_id))
        items.append(Note("quoted", f"in {statement}", set_id))
    if d.source_files:
        line = "Source files: " + ", ".join(d.source_files) + "."
        items.append(Paragraph(line, line, set_id=set_id, kind="files"))
    if d.sources:
        line = "Sources: " + ", ".join(d.sources) + "."
        items.append(Paragraph(line, line, set_id=set_id, kind="files"))
    if not d.quotations and not d.source_files and not d.sources:
        items.append(_text("none"))

    items.append(heading("Limitations naming it"))
    by_document: dict[str, list[DocumentBlock]] = {}
    for block in d.limitations:
        by_document.setdefault(block.document, []).append(block)
    for document, rows in by_document.items():
        tree = _tree(d, document)
        items.append(_text(f"In {_where(tree, rows[0])}."))
        items.append(_table(tree, _header_of(tree, rows[0]), rows, True, plain_forms))
    if not d.limitations:
        items.append(_text("none"))

    items.append(heading("Everything that rests on it"))
    report = d.rests_on.report
    direct = sum(1 for r in report.results if r.direct)
    line = f"{_count(len(report.results), 'statement')}: {direct} direct, {len(report.results) - direct} transitive."
    items.append(_text(line))
    items.extend(_rests_on_items(d.rests_on, base + 1, entries, plain_forms))
    return items


def dossier_page(dossiers: Sequence[RecordDossier], *, markdown_only: bool = False) -> Page:
    """Record dossiers (one per set holding the record ID) as one page; ``markdown_only``: a page
    only written as Markdown (module docstring).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> from queries.dossier import record_dossiers
    >>> page = dossier_page(record_dossiers(demo_store(), "RT-RTE-x"))
    >>> [i.plain for i in page.items if type(i).__name__ == "Heading"][:3]
    ['Declaration and fields', 'Annotations', 'Amendments and supersessions']
    """
    rid = dossiers[0].record_id if dossiers else "?"
    entries: dict[tuple[str, str], IndexEntry] = {}
    items: list[Item] = []
    for d in dossiers:
        _cite_entry(entries, d.set_id, d.record_id, None, f"the record of this dossier, in set {d.set_id}")
        if len(dossiers) > 1:
            items.append(Heading(2, f"{d.record_id} in set {d.set_id}", f"{d.record_id} in set {d.set_id}",
                                 anchor("set", f"{d.set_id}-{d.record_id}"), d.set_id))
        items.extend(_dossier_items(d, 3 if len(dossiers) > 1 else 2, entries, not markdown_only))
    items.append(_index(entries, html_only=True))
    sets = ", ".join(d.set_id for d in dossiers)
    return Page(f"Record dossier: {rid}", (f"Query: record {rid}, analysis set {sets}.",), tuple(items),
                markdown_only=markdown_only)


# -- whole sets ----------------------------------------------------------------------------------


def set_page(report: SetReport, *, markdown_only: bool = False) -> Page:
    """A whole analysis set as one document: every member in layout order (headings one level
    down, under the member's title), then the record index: for each record its declaration (or
    "cited but not declared in the ingested members"), annotations and citing statements;
    ``markdown_only``: a page only written as Markdown (module docstring).

    Examples
    --------
    >>> from queries.demo import demo_store
    >>> from queries.subgraphs import analysis_set_report
    >>> page = set_page(analysis_set_report(demo_store(), "demo"))
    >>> page.title, [i.plain for i in page.items if type(i).__name__ == "Heading"]
    ('Demo analysis set demo', ['Demo synthesis (demo/synthesis)', 'Bounded synthesis', 'Record index'])
    """
    items: list[Item] = []
    trees = {t.id: t for t in report.documents}
    for tree in report.documents:
        title = tree.title if tree.format != "md" else _plain_inline(tree.title) if not markdown_only else ""
        items.append(Heading(2, f"{title} ({tree.id})" if not markdown_only else "", f"{tree.title} ({tree.id})",
                             anchor("doc", tree.id), tree.set_id))
        items.extend(_block_items(tree, tree.blocks, shift=1, anchored=True, plain_forms=not markdown_only))
    items.append(Heading(2, "Record index", "Record index", anchor("index", report.id), report.id))
    entries = []
    for e in report.records:
        clauses = []
        for section in e.declarations:
            member = trees.get(section.partition("#")[0])
            if member is not None:
                clauses.append(IndexClause(f"declared in {_where(member, member.block(section))}",
                                           ((section, anchor("sec", section)),)))
        if not e.declarations:
            clauses.append(IndexClause("cited but not declared in the ingested members"))
        for section in e.annotations:
            member = trees.get(section.partition("#")[0])
            if member is not None:
                clauses.append(IndexClause(f"annotated in {_where(member, member.block(section))}",
                                           ((section, anchor("sec", section)),)))
        clauses.append(IndexClause(f"cited by {_count(len(e.citations), 'statement')}", tuple(
            (c, anchor("st" if not _is_section_id(trees, c) else "sec", c)) for c in e.citations)))
        entries.append(IndexEntry(e.record_id, report.id, record_anchor(report.id, e.record_id), tuple(clauses)))
    items.append(Index(tuple(entries)))
    documents = len(report.documents)
    lead = (f"Analysis set {report.id} of {report.system}: {_count(documents, 'member')}, "
            f"{_count(len(report.records), 'record')}.",)
    return Page(f"{report.system} analysis set {report.id}", lead, tuple(items), markdown_only=markdown_only)


def _is_section_id(trees: dict[str, DocumentTree], node_id: str) -> bool:
    tree = trees.get(node_id.partition("#")[0])
    try:
        return tree is not None and tree.block(node_id).is_section
    except KeyError:
        return False
