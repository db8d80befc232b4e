"""The repository's own documents: every grammar section the code cites is a heading of
``docs/grammar.md``, and the README links the grammar and the architecture."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE_FOLDERS = ("citegraph", "domain", "graph", "ingest", "queries", "render", "app", "bench", "tests")

_CITATION = re.compile(r"GRAMMAR(?:\.md)? (§\d+(?:\.\d+)*(?:(?:,| and) §\d+(?:\.\d+)*)*)")
_SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
_HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)\.? ", re.MULTILINE)


def _cited_sections() -> dict[str, list[str]]:
    """Section number → the ``file:line`` places citing it as ``GRAMMAR §N`` (or ``GRAMMAR.md §N``),
    with the further sections of a list (``GRAMMAR §2, §3.9``)."""
    cited: dict[str, list[str]] = {}
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in _CITATION.finditer(line):
                    for section in _SECTION.findall(match.group(1)):
                        cited.setdefault(section, []).append(f"{path.relative_to(ROOT)}:{number}")
    return cited


def test_every_cited_grammar_section_is_a_heading_of_docs_grammar():
    headings = set(_HEADING.findall((ROOT / "docs" / "grammar.md").read_text(encoding="utf-8")))
    cited = _cited_sections()
    assert len(cited) >= 29  # §0 … §10 and their subsections, as the parsers cite them
    missing = {section: places[:3] for section, places in cited.items() if section not in headings}
    assert missing == {}


def test_grammar_headings_are_read_as_the_code_cites_them():
    headings = _HEADING.findall((ROOT / "docs" / "grammar.md").read_text(encoding="utf-8"))
    assert headings[:4] == ["0", "1", "1.1", "1.2"]
    assert "4.4" in headings and "9" in headings and "11.5" in headings
    assert len(headings) == len(set(headings))  # each number names one section


def test_readme_links_the_grammar_and_the_architecture():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in ("docs/grammar.md", "docs/architecture.md"):
        assert f"]({doc})" in readme
        assert (ROOT / doc).is_file()
