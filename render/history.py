"""Pages of the history queries: a set's versions, the diff of two versions, the runs of
a system and the comparison of two runs, for :func:`render.writers.write` (Markdown, plain text,
HTML). Built from the frozen results of :mod:`queries.history` and :mod:`queries.runs` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Iterable, Sequence

from render.page import Heading, Item, Note, Page, Paragraph, Table, TableRow, anchor

if TYPE_CHECKING:  # the results it renders: a page of one kind imports no other kind's query
    from queries.history import Cited, SetDiff, SetHistory
    from queries.runs import RunComparison, SystemRuns

__all__ = ["history_page", "diff_page", "runs_page", "comparison_page"]


def _escape_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], set_id: str | None = None) -> Table:
    def row(cells: Sequence[object]) -> TableRow:
        text = tuple("" if c is None else str(c) for c in cells)
        return TableRow(text, " | ".join(text), "| " + " | ".join(_escape_cell(c) for c in text) + " |")

    head = row(header)
    head = TableRow(head.cells, head.plain, head.markdown + "\n|" + "---|" * len(header))
    return Table(head, tuple(row(r) for r in rows), set_id)


def _para(text: str, set_id: str | None = None, kind: str = "paragraph") -> Paragraph:
    return Paragraph(text, text, None, set_id, kind)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def history_page(found: SetHistory) -> Page:
    """The versions of a set, newest first: number, time, members with their SHA-256, counts.

    >>> from queries.demo import demo_store
    >>> from queries.history import history
    >>> page = history_page(history(demo_store(), "demo"))
    >>> page.title, page.items[0].rows[0].cells[0], page.items[0].rows[0].cells[3:]
    ('History of analysis set demo', '1 (latest)', ('1', '2', '0', '1'))
    """
    rows = []
    for v in reversed(found.versions):
        c = v.counts
        rows.append((f"{v.number}{' (latest)' if v.number == found.latest else ''}",
                     v.created or "before versions were kept",
                     ", ".join(f"{m.role or m.document} {(m.sha256 or '')[:12]}" for m in v.members),
                     c.documents, c.statements, c.declarations, c.citations))
    items: list[Item] = [_table(("version", "ingested", "members (SHA-256)", "members", "statements", "declarations",
                                 "citations"), rows, found.set_id)]
    lead = (f"{_count(len(found.versions), 'version')} kept; the latest, {found.latest}, is the live graph.",)
    return Page(f"History of analysis set {found.set_id}", lead, tuple(items))


def _cited(items: Sequence[Cited]) -> str:
    return ", ".join(c.target for c in items) or "none"


def diff_page(diff: SetDiff) -> Page:
    """What changed between two versions, section by section; empty sections are left out, and a
    diff without changes says so."""
    s = diff.set_id
    items: list[Item] = []

    def section(title: str, things: Sequence[object]) -> None:
        items.append(Heading(2, f"{title} ({len(things)})", f"{title} ({len(things)})", anchor("diff", title), s))

    if diff.members:
        section("Members", diff.members)
        items.append(_table(("member", "change", f"SHA-256 at {diff.from_version}", f"SHA-256 at {diff.to_version}"),
                            [(m.document, m.change, (m.from_sha256 or "")[:12], (m.to_sha256 or "")[:12])
                             for m in diff.members], s))
    if diff.records:
        section("Records", diff.records)
        rows = []
        for r in diff.records:
            what = []
            if r.change == "changed":
                if r.from_label != r.to_label:
                    what.append(f"label: {r.from_label} → {r.to_label}")
                what += [f"{x.label}: {x.from_value or '—'} → {x.to_value or '—'}" for x in r.statuses]
                what += [f"field {x.label}: {'changed' if x.from_value and x.to_value else 'added' if x.to_value else 'removed'}"
                         for x in r.fields]
            rows.append((r.record_id, r.change, r.to_label or r.from_label or "", "; ".join(what)))
        items.append(_table(("record", "change", "label", "what changed"), rows, s))
    if diff.statements:
        section("Statements", diff.statements)
        for st in diff.statements:
            where = st.to_statement or st.from_statement
            items.append(_para(f"{st.change}: {where} ({st.kind})", s, "heading"))
            if st.change == "changed":
                items.append(Paragraph(st.diff.rstrip("\n"), f"```diff\n{st.diff.rstrip()}\n```", None, s, "diff"))
            else:
                items.append(_para(st.text, s))
    if diff.citations:
        section("Citations", diff.citations)
        items.append(_table(("statement", "gained", "lost"),
                            [(c.to_statement or c.from_statement, _cited(c.gained), _cited(c.lost))
                             for c in diff.citations], s))
    if diff.quotations:
        section("Quotations", diff.quotations)
        items.append(_table(("statement", "change", "path"),
                            [(q.to_statement or q.from_statement, q.change, q.to_path or q.from_path)
                             for q in diff.quotations], s))
    if diff.limitations:
        section("Limitations rows", diff.limitations)
        items.append(_table(("row", "change", "text"),
                            [(x.to_statement or x.from_statement, x.change, x.to_text or x.from_text)
                             for x in diff.limitations], s))
    if diff.rests_on:
        section("Rests-on answers that moved", diff.rests_on)
        for moved in diff.rests_on:
            items.append(_para(f"{moved.record_id}: {moved.from_count} → {moved.to_count} statements", s, "heading"))
            if moved.gained:
                items.append(Note("gained", ", ".join(moved.gained), s))
            if moved.lost:
                items.append(Note("lost", ", ".join(moved.lost), s))
            for tag, moves in (("deeper", moved.deeper), ("shallower", moved.shallower)):
                if moves:
                    items.append(Note(tag, ", ".join(f"{x} ({a} → {b} evidence steps)" for x, a, b in moves), s))
    counts = (f"{_count(len(diff.members), 'member')}, {_count(len(diff.records), 'record')}, "
              f"{_count(len(diff.statements), 'statement')} changed; "
              f"{_count(len(diff.rests_on), 'rests-on answer')} moved.")
    lead = ("No changes." if diff.unchanged else counts,)
    return Page(f"Analysis set {s}: version {diff.from_version} → {diff.to_version}", lead, tuple(items))


def runs_page(found: SystemRuns) -> Page:
    """The runs of a system: set, run-id, date, pinned revisions, cutoff, size, latest version."""
    rows = [(r.set_id, r.date or "", ", ".join(x[:12] for x in r.revisions) or "none", r.cutoff or "",
             r.documents, r.declarations, r.version) for r in found.runs]
    items: list[Item] = [_table(("set", "date", "pinned revisions", "cutoff", "members", "declarations",
                                 "version"), rows)]
    lead = (f"{_count(len(found.runs), 'run')} of system {found.system}.",)
    return Page(f"Runs of {found.name or found.system}", lead, tuple(items))


def comparison_page(c: RunComparison) -> Page:
    """Where two runs agree: matched records with their agreement, unmatched records with their
    candidates, source files by run, each run's Limitations."""
    a, b = c.a.set_id, c.b.set_id
    items: list[Item] = []
    items.append(Heading(2, "Declared records", "Declared records", anchor("cmp", "declared")))
    items.append(_table(("kind", a, b), [(d.kind, d.a, d.b) for d in c.declared_counts]))
    items.append(Heading(2, f"Matched records ({len(c.matches)})", f"Matched records ({len(c.matches)})",
                         anchor("cmp", "matched")))
    if c.matches:
        items.append(_table(("record in a", "record in b", "by", "label", "statuses", "fields agreeing"), [
            (m.a, m.b, m.by, m.label or "",
             "; ".join(f"{s.label}: {s.a or '—'} / {s.b or '—'}{'' if s.agree else ' (differ)'}" for s in m.statuses)
             or "none stated",
             f"{sum(f.agree for f in m.fields)} of {len(m.fields)}") for m in c.matches]))
    else:
        items.append(_para("No record of one run is identified with a record of the other: neither slug IDs nor "
                           "kind plus label coincide. Candidates below share cited source files; they are not matches."))
    for side, name in (("a", a), ("b", b)):
        rows = [(u.record_id, u.label or "", ", ".join(f"{x.record_id} ({len(x.shared)} shared)" for x in u.candidates)
                 or "none") for u in c.unmatched if u.run == side]
        title = f"Unmatched in {name} ({len(rows)})"
        items.append(Heading(2, title, title, anchor("cmp", f"unmatched-{side}")))
        if rows:
            items.append(_table(("record", "label", "candidates in the other run (not matches)"), rows))
    both = [f.path for f in c.files if f.runs == "both"]
    only_a = [f.path for f in c.files if f.runs == "a"]
    only_b = [f.path for f in c.files if f.runs == "b"]
    items.append(Heading(2, "Source files", "Source files", anchor("cmp", "files")))
    items.append(_table(("path", f"cited in {a}", f"cited in {b}"), [(f.path, f.a, f.b) for f in c.files]))
    items.append(Heading(2, "Limitations", "Limitations", anchor("cmp", "limitations")))
    for side, name in (("a", a), ("b", b)):
        stated = [x for x in c.limitations if x.run == side]
        items.append(_para(f"{name} states {_count(len(stated), 'Limitations row')}.", None, "heading"))
        for x in stated:
            items.append(_para(x.text + ("" if not x.shared else " (the other run states it too)")))
    lead = (f"Runs {a} (a) and {b} (b) of system {c.system}, at versions {c.a.version} and {c.b.version}: "
            f"{_count(len(c.matches), 'matched record')}, {_count(sum(u.run == 'a' for u in c.unmatched), 'record')} "
            f"only in a, {_count(sum(u.run == 'b' for u in c.unmatched), 'record')} only in b; "
            f"{len(both)} source files cited by both, {len(only_a)} only by a, {len(only_b)} only by b.",)
    return Page(f"Comparison of {a} and {b}", lead, tuple(items))
