"""Writers: a :class:`~render.page.Page` as Markdown, as plain text (the seeds' style) or as one
self-contained HTML page.

HTML: inline CSS, no scripts and no external assets; every piece of document text goes through
:func:`html.escape`; each indexed record has exactly one ``id`` anchor and record IDs in the text of
its set link to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from render import Format
from render.page import Heading, Index, IndexEntry, Note, Page, Paragraph, Quote, Table

__all__ = ["write", "write_markdown", "write_text", "write_html", "STYLE_SHEET"]


def write(page: Page, fmt: Format | str) -> str:
    """``page`` in format ``fmt`` (``md``, ``txt`` or ``html``).

    Raises
    ------
    ValueError
        ``fmt`` is not one of the three formats, or not Markdown for a page composed
        ``markdown_only``.
    """
    fmt = Format(fmt)
    if fmt is Format.MD:
        return write_markdown(page)
    if page.markdown_only:
        raise ValueError(f"a page composed for Markdown alone cannot be written as {fmt.value}")
    if fmt is Format.TXT:
        return write_text(page)
    return write_html(page)


# -- plain text ----------------------------------------------------------------------------------


def write_text(page: Page) -> str:
    """Plain text in the seeds' style: title on line 1, lead lines, then items separated by blank
    lines, headings as bare lines, table rows on consecutive lines, notes as ``[tag] text``; ends
    with one newline, as Markdown does (a report is no member: no byte-for-byte original to keep).

    >>> from render.page import Page, Heading, Paragraph, Note
    >>> print(write_text(Page("T", ("lead",), (Heading(2, "H", "H"), Paragraph("p", "p"), Note("direct", "cites X")))), end="")
    T
    lead
    <BLANKLINE>
    H
    <BLANKLINE>
    p
    <BLANKLINE>
    [direct] cites X
    """
    chunks: list[str] = []
    for item in page.items:
        if isinstance(item, (Heading, Paragraph, Quote)):
            chunks.append(item.plain)
        elif isinstance(item, Table):
            chunks.append("\n".join(x for x in [item.header.plain, *(r.plain for r in item.rows)] if x))
        elif isinstance(item, Note):
            chunks.append(f"[{item.tag}] {item.text}")
        elif isinstance(item, Index):
            if item.html_only or not item.entries:
                continue
            chunks.append("\n".join(_index_line(e.record_id, e) for e in item.entries))
    head = "\n".join([page.title, *page.lead])
    return "\n\n".join([head, *(c for c in chunks if c)]) + "\n"


def _index_line(record_id: str, entry: IndexEntry) -> str:
    """``record_id: clause (link, …); clause (…).``, the links named by their labels."""
    return f"{record_id}: " + _sentence(entry, lambda label, _: label)


def _sentence(entry: IndexEntry, link: Callable[[str, str], str], text: Callable[[str], str] = str) -> str:
    """The clauses of ``entry`` as one sentence: each clause's ``text(…)`` followed by its links
    (``link(label, target)``) in parentheses, joined by semicolons."""
    clauses = [text(c.text) + (f" ({', '.join(link(label, target) for label, target in c.links)})" if c.links else "")
               for c in entry.clauses]
    return "; ".join(clauses) + "."


# -- Markdown ------------------------------------------------------------------------------------


def write_markdown(page: Page) -> str:
    """Markdown: ``# title``, lead paragraphs, ``#``-headings at each item's level, statements in
    their own Markdown, pipe tables, blockquotes with their attribution, notes as
    ``**tag**: text``; ends with one newline.

    >>> from render.page import Page, Heading, Paragraph
    >>> print(write_markdown(Page("T", ("lead",), (Heading(3, "H", "H"), Paragraph("p", "p")))), end="")
    # T
    <BLANKLINE>
    lead
    <BLANKLINE>
    ### H
    <BLANKLINE>
    p
    """
    chunks: list[str] = [f"# {page.title}", *page.lead]
    for item in page.items:
        if isinstance(item, Heading):
            chunks.append("#" * item.level + " " + item.markdown)
        elif isinstance(item, (Paragraph, Quote)):
            chunks.append(item.markdown)
        elif isinstance(item, Table):
            chunks.append("\n".join(x for x in [item.header.markdown, *(r.markdown for r in item.rows)] if x))
        elif isinstance(item, Note):
            chunks.append(f"**{item.tag}**: {item.text}")
        elif isinstance(item, Index):
            if item.html_only or not item.entries:
                continue
            chunks.append("\n".join("- " + _index_line(f"**{e.record_id}**", e) for e in item.entries))
    return "\n\n".join(c for c in chunks if c) + "\n"


# -- HTML ----------------------------------------------------------------------------------------

STYLE_SHEET = """
body{margin:0;background:#fbfbf8;color:#1d1d1b;font:16px/1.55 Georgia,'Times New Roman',serif}
main{max-width:52rem;margin:0 auto;padding:2rem 1.25rem 4rem}
h1,h2,h3,h4,h5,h6{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;line-height:1.25;margin:1.6em 0 .5em}
h1{font-size:1.7rem}h2{font-size:1.35rem;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{font-size:1.15rem}h4,h5,h6{font-size:1rem}
p.lead{color:#555;margin:.2em 0}
p.note{font:.85rem/1.4 system-ui,sans-serif;color:#444;margin:-.4em 0 1.1em;padding-left:.8em;border-left:3px solid #bbb}
p.note .tag{font-weight:600;text-transform:uppercase;letter-spacing:.04em;margin-right:.4em}
p.note.direct{border-color:#2f7d32}p.note.transitive{border-color:#b26a00}
table{border-collapse:collapse;margin:1em 0;font-size:.88rem;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:.3em .5em;vertical-align:top;text-align:left}
th{background:#f0efe9}
blockquote{margin:1em 0;padding:.4em 1em;border-left:4px solid #9aa;background:#f3f4f2;font-family:ui-monospace,monospace;font-size:.85rem}
blockquote p{white-space:pre-wrap;margin:.2em 0}
blockquote footer{margin-top:.3em;color:#555}
a.rec{color:#1a4f8b;text-decoration:none;border-bottom:1px dotted #1a4f8b}
:target{background:#fff6c8}
ul.index{padding-left:1.2em}ul.index li{margin:.3em 0}
code{font-family:ui-monospace,monospace;font-size:.9em}
""".strip()
"""The page's inline CSS (no external assets)."""


class _Html:
    """HTML writing state: used anchors (kept unique) and the page's record anchors."""

    def __init__(self, page: Page):
        self.used: set[str] = set()
        self.records = page.record_anchors()
        self._patterns: dict[str, re.Pattern[str]] = {}

    def id(self, value: str | None) -> str:
        import html  # here: a Markdown or text page need not import html's entity table

        if not value:
            return ""
        candidate, n = value, 2
        while candidate in self.used:
            candidate, n = f"{value}-{n}", n + 1
        self.used.add(candidate)
        return f' id="{html.escape(candidate, quote=True)}"'

    def text(self, value: str, set_id: str | None) -> str:
        """``value`` escaped, record IDs of ``set_id`` that have an anchor on the page linked."""
        import html

        escaped = html.escape(value, quote=True)
        anchors = self.records.get(set_id or "", {})
        if not anchors:
            return escaped
        key = set_id or ""
        if key not in self._patterns:
            ids = sorted(anchors, key=len, reverse=True)
            self._patterns[key] = re.compile(
                r"(?<![\w-])(" + "|".join(re.escape(html.escape(i, quote=True)) for i in ids) + r")(?![\w-])")
        pattern = self._patterns[key]
        return pattern.sub(
            lambda m: f'<a class="rec" href="#{html.escape(anchors[html.unescape(m.group(1))], quote=True)}">{m.group(1)}</a>',
            escaped)


def write_html(page: Page) -> str:
    """One self-contained HTML5 page (inline CSS, no scripts, no external assets).

    >>> from render.page import Page, Paragraph
    >>> out = write_html(Page("<T>", (), (Paragraph("a <script>x</script>", "a"),)))
    >>> "<script>" in out, "&lt;script&gt;x&lt;/script&gt;" in out, "<title>&lt;T&gt;</title>" in out
    (False, True, True)
    """
    import html

    w = _Html(page)
    body: list[str] = [f"<h1>{html.escape(page.title)}</h1>"]
    body += [f'<p class="lead">{html.escape(line)}</p>' for line in page.lead]
    for item in page.items:
        if isinstance(item, Heading):
            body.append(f"<h{item.level}{w.id(item.anchor)}>{w.text(item.plain, item.set_id)}</h{item.level}>")
        elif isinstance(item, Paragraph):
            lines = "<br>\n".join(w.text(line, item.set_id) for line in item.plain.split("\n"))
            body.append(f'<p{w.id(item.anchor)} class="{html.escape(item.kind, quote=True)}">{lines}</p>')
        elif isinstance(item, Quote):
            body.append(f"<blockquote{w.id(item.anchor)}><p>{w.text(item.text, item.set_id)}</p>"
                        f"<footer>--- <cite>{html.escape(item.path)}</cite></footer></blockquote>")
        elif isinstance(item, Table):
            rows = []
            if item.header.cells:
                cells = "".join(f"<th>{w.text(c, item.set_id)}</th>" for c in item.header.cells)
                rows.append(f"<thead><tr{w.id(item.header.anchor)}>{cells}</tr></thead>")
            rows.append("<tbody>")
            for r in item.rows:
                cells = "".join(f"<td>{w.text(c, item.set_id)}</td>" for c in r.cells)
                rows.append(f"<tr{w.id(r.anchor)}>{cells}</tr>")
            rows.append("</tbody>")
            body.append("<table>\n" + "\n".join(rows) + "\n</table>")
        elif isinstance(item, Note):
            tag = html.escape(item.tag, quote=True)
            body.append(f'<p class="note {tag}"><span class="tag">{tag}</span>{w.text(item.text, item.set_id)}</p>')
        elif isinstance(item, Index):
            if not item.entries:
                continue
            if item.html_only:
                body.append(f"<h2{w.id('records')}>Records on this page</h2>")
            lis = []
            for e in item.entries:
                summary = _sentence(e, lambda label, target: f'<a href="#{html.escape(target, quote=True)}">'
                                                             f'{html.escape(label)}</a>', html.escape)
                lis.append(f"<li{w.id(e.anchor)}><code>{html.escape(e.record_id)}</code> "
                           f"<span class=\"set\">({html.escape(e.set_id)})</span>: {summary}</li>")
            body.append('<ul class="index">\n' + "\n".join(lis) + "\n</ul>")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(page.title)}</title>\n<style>\n{STYLE_SHEET}\n</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body) + "\n</main>\n</body>\n</html>\n"
    )
