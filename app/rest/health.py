"""``GET /health``'s answer: the store's totals, asked of the store at most once per
:data:`MAX_AGE` seconds.

A load balancer (or ``serve``'s own wait, or ``bench/run``) may ask ``/health`` many times a second;
asking the store each time costs a count query (Neo4j at M: 177 ms). :class:`Liveness`
keeps the last totals the store answered with their time: a request within :data:`MAX_AGE` of them
is answered from them without touching the store; the first one after asks the store again (one at
a time: requests arriving meanwhile wait for that answer instead of asking too). So an ``ok`` always
rests on a store answer at most :data:`MAX_AGE` seconds old (the bounded-age connectivity check),
and a store that stopped answering is reported (503 ``UNAVAILABLE``) from the first request after
that, within :data:`ASK_TIMEOUT` seconds: the Neo4j driver retries a refused connection for about
30 s before it gives up, longer than a probe waits, so an ask that has not answered by then is a
503 while it goes on in the background (at most one ask runs at a time; a later request waits for
the same one). A failed ask is not kept: the next request asks again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from starlette.concurrency import run_in_threadpool

from graph.errors import StoreUnavailable

__all__ = ["ASK_TIMEOUT", "MAX_AGE", "Liveness"]

MAX_AGE = 1.0
"""Seconds a store's totals answer ``/health`` before the store is asked again."""

ASK_TIMEOUT = 2.0
"""Seconds ``/health`` waits for the store's answer before it answers 503."""


class Counts(Protocol):
    """What :meth:`Liveness.totals` asks of a store (every :class:`graph.store.GraphStore` has it):
    its totals, with at least ``nodes`` and ``edges``."""

    def counts(self) -> Mapping[str, int]: ...


class Liveness:
    """The last totals ``(nodes, edges)`` of one store and when they were read
    (``clock()`` seconds, monotonic by default). While a write through this server runs (between
    :meth:`writing` and :meth:`written`, which a route may call after its answer is sent) nothing is
    kept, so a client that wrote and then asks ``/health`` sees its write; a write by another
    process shows within :attr:`max_age`."""

    def __init__(self, *, max_age: float = MAX_AGE, ask_timeout: float = ASK_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic):
        self.max_age = max_age
        self.ask_timeout = ask_timeout
        self._clock = clock
        self._pending: asyncio.Future[Mapping[str, int]] | None = None  # the ask under way (or last)
        self._totals: tuple[int, int] | None = None
        self._at = 0.0
        self._asking = asyncio.Lock()
        self._writes = 0  # writes under way
        self._epoch = 0  # writes ended

    async def totals(self, store: Counts) -> tuple[int, int]:
        """``(nodes, edges)`` of ``store`` as it answered at most :attr:`max_age` seconds ago and
        after the last write through this server.

        Raises
        ------
        StoreUnavailable
            The store did not answer when asked (whatever ``store.counts`` raises passes through),
            or not within :attr:`ask_timeout` seconds.
        """
        fresh = self._fresh()
        if fresh is not None:
            return fresh
        async with self._asking:
            fresh = self._fresh()  # asked by the request this one waited for
            if fresh is not None:
                return fresh
            if self._pending is None or self._pending.done():
                began = (self._writes, self._epoch)  # writes under way, writes ended
                self._pending = asyncio.ensure_future(run_in_threadpool(store.counts))
                self._pending.add_done_callback(lambda ask: self._answered(ask, began))
            try:
                counts = await asyncio.wait_for(asyncio.shield(self._pending), self.ask_timeout)
            except TimeoutError:
                raise StoreUnavailable(f"the store did not answer within {self.ask_timeout:g} s",
                                       hint="is the database server up and reachable?") from None
            # the ask's done-callback, registered before the shield's, has kept its totals
            return counts["nodes"], counts["edges"]

    def _answered(self, ask: asyncio.Future[Mapping[str, int]], began: tuple[int, int]) -> None:
        """Keep the totals of an ask that answered (also one no request waits for any more), unless
        a write began or ended while it ran."""
        if ask.cancelled() or ask.exception() is not None:
            return
        counts, (writes, epoch) = ask.result(), began
        if writes == 0 and self._writes == 0 and epoch == self._epoch:
            self._totals, self._at = (counts["nodes"], counts["edges"]), self._clock()

    def writing(self) -> None:
        """A write through this server begins: drop the kept totals and keep none until it ends."""
        self._writes += 1
        self._totals = None

    def written(self) -> None:
        """The write begun by :meth:`writing` has ended (committed or not)."""
        self._writes -= 1
        self._epoch += 1
        self._totals = None

    def _fresh(self) -> tuple[int, int] | None:
        if self._writes == 0 and self._totals is not None and self._clock() - self._at <= self.max_age:
            return self._totals
        return None
