"""Benchmarks at scale: a seeded corpus generator and the ``bench/run`` harness.

- :mod:`bench.generate`: deterministic synthetic analysis sets in canonical G3/G4 Markdown, plus
  the git repository they quote, with a second commit for impact runs. It writes from
  :mod:`bench.plan` (each set's random draws), :mod:`bench.blocks` (citations, prose, tables,
  declarations) and :mod:`bench.members` (the members and the manifest of a set).
- :mod:`bench.invariants`: structural checks of a generated corpus that need no citegraph parser.
- :mod:`bench.run`: the harness behind ``bench/run`` (ingest, rests-on, impact, verify, RSS, disk).
- :mod:`bench.phases`: one measured phase per subprocess, so each phase's peak RSS is its own.
- :mod:`bench.pathological`: the pathological inputs (``bench/run --pathological``).

``bench/`` imports ``ingest/``, ``queries/``, ``render/`` and ``graph/``, never ``app/``.
"""
