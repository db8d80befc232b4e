"""Property tests over mutated real members: truncations, byte flips,
CR / CR LF / CR CR LF line breaks, a byte-order mark, NUL bytes, deep nesting, YAML aliases, huge
lines, folded ``Part of:`` lines and spliced chunks (:mod:`tests.ingest.mutations`), one to three
at a time.

Whatever the edits, parsing and ingesting raise no exception but the domain's own
(:class:`~graph.errors.IngestError` and its subclasses), every such error names the file and a line
of it (or the line just after its last, where something missing was expected), a member that is
read rebuilds byte for byte, and a store an ingest was refused by is left exactly as it was, on
both stores.

The budget is bounded for CI: a fixed number of examples per test (a few hundred parses, a few
dozen ingests per store), no example database, and a generous per-example ``deadline`` that only
stops a runaway example (some of these inputs once took minutes); times are measured in
``bench/``, not here.
"""

from __future__ import annotations

import hashlib
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings

from graph.errors import IngestError
from ingest.parsers import parse_member
from ingest.pipeline import ingest_paths
from queries.documents import document_trees
from render.document import verify
from tests.conftest import SEEDS, ingest_into
from tests.contract.helpers import content
from tests.ingest.mutations import apply, line_count, mutated_members

_BOUNDED = dict(deadline=timedelta(seconds=60), database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


def _names_its_line(exc: IngestError, path: str, data: bytes) -> None:
    assert exc.source is not None, f"{type(exc).__name__} without a place: {exc}"
    assert exc.source.path == path, (str(exc), path)
    assert 1 <= exc.source.line <= line_count(data) + 1, (str(exc), line_count(data))


@settings(max_examples=250, **_BOUNDED)
@given(mutated_members())
def test_a_mutated_member_parses_whole_or_is_refused_at_a_line(member):
    path, original, edits = member
    data = apply(original, edits)
    try:
        doc = parse_member(data, path.name)
    except IngestError as exc:
        event(f"refused: {type(exc).__name__}")
        _names_its_line(exc, path.name, data)
        return
    event("parsed")
    assert doc.preamble + "".join(b.gap + b.markup for b in doc.blocks) + doc.trailer == data.decode("utf-8")
    lines = [b.line for b in doc.blocks]
    assert lines == sorted(lines) and all(1 <= n <= line_count(data) for n in lines)


# The same members as the parse test: a huge line repeats its piece up to 3,000 times, so one
# statement may cite one record 3,000 times per edit (three edits of ranges: 27,000 citations, about
# 30 s on Neo4j on a loaded 2-core machine, half the deadline; at 5,000 the worst took 61 s). Once
# the Neo4j store wrote such edges in time quadratic in their number, and pieces stopped at 300.
@settings(max_examples=30, **_BOUNDED)
@given(member=mutated_members())
def test_a_mutated_member_is_ingested_whole_or_leaves_the_store_as_it_was(store, tmp_path, member):
    if not content(store)["nodes"]:
        ingest_into(store, SEEDS)  # the first example: the store holds the seeds from then on
    path, original, edits = member
    data = apply(original, edits)
    file = Path(tempfile.mkdtemp(dir=tmp_path)) / path.name
    file.write_bytes(data)
    before = content(store)
    try:
        report = ingest_paths(store, [file], workers=1)
    except IngestError as exc:
        event(f"refused: {type(exc).__name__}")
        _names_its_line(exc, str(file), data)
        assert content(store) == before
        return
    (outcome,) = report.documents
    event(outcome.status)
    assert outcome.status in ("written", "unchanged"), outcome
    (tree,) = document_trees(store, document_ids=[outcome.document])
    (rebuilt,) = verify([tree]).results
    assert rebuilt.ok and rebuilt.actual == hashlib.sha256(data).hexdigest()
