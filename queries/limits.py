"""Limits every query shares, in a module of their own so that a face can declare its options
without importing the queries (the command line's start-up, :mod:`app.cli`)."""

from __future__ import annotations

__all__ = ["MAX_DEPTH"]

MAX_DEPTH = 16
"""Largest ``max_depth`` any query accepts (evidence steps)."""
