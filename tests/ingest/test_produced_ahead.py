"""The producing thread of :func:`ingest.loader.ingest_stream` for stores without one transaction
per run: order kept, errors raised in place, producing bounded and stopped when left early."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from ingest.loader import produced_ahead


def test_items_come_in_order_from_another_thread():
    threads: list[str] = []

    def produce() -> Iterator[int]:
        for i in range(10):
            threads.append(threading.current_thread().name)
            yield i

    assert list(produced_ahead(produce(), 2)) == list(range(10))
    assert set(threads) == {"citegraph-ingest-producer"}


def test_an_error_producing_is_raised_after_the_items_before_it():
    def produce() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("member 3 is unreadable")

    got: list[int] = []
    with pytest.raises(ValueError, match="member 3 is unreadable"):
        for item in produced_ahead(produce(), 2):
            got.append(item)
    assert got == [1, 2]


def test_leaving_early_stops_the_producer_and_closes_its_iterator():
    produced: list[int] = []
    closed = threading.Event()

    def produce() -> Iterator[int]:
        try:
            for i in range(1000):
                produced.append(i)
                yield i
        finally:
            closed.set()

    items = produced_ahead(produce(), 2)
    assert next(items) == 0
    items.close()
    assert closed.wait(5)
    assert produced == list(range(len(produced))) and len(produced) <= 4  # handed, two queued, one waiting
