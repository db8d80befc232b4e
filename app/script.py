"""The ``citegraph`` console script (``[project.scripts]`` in pyproject.toml): the cyclic garbage
collector set for a command's process, then :func:`app.cli.main`.

A command's process is short and most of what it allocates lives until it ends (modules, a set's
rows, the result it prints), so the collector's youngest generation, collected every 700 net
allocations by default, found nothing to free in 30–50 collections per one-set command at L:
10–17 ms of a 200–450 ms process, half of it while ``app.cli`` and its command modules are
imported (bench/README.md, "The evening merge of 7 December 2026"). Reference counting frees
everything that is not in a cycle, as before; cycles are still collected, every
:data:`YOUNG_THRESHOLD` net allocations.
"""

from __future__ import annotations

import gc

__all__ = ["main", "YOUNG_THRESHOLD"]

YOUNG_THRESHOLD = 50_000
"""Net allocations between collections of the youngest generation in a ``citegraph`` process
(Python's default is 700); the older generations keep their default ratios (10, 10)."""


def main() -> None:
    """Run the command line in ``sys.argv`` (:func:`app.cli.main`), with the collector's youngest
    generation collected every :data:`YOUNG_THRESHOLD` net allocations from before the CLI's
    modules are imported."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)
    from app.cli import main as cli_main

    cli_main()
