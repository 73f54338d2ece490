"""``PollBuffer``: the pulls a lite pull consumer holds for :meth:`poll` (Java's ``consumeRequestCache``), on
the consumer's event loop.

Each entry is one pull's messages of one queue (:class:`Pulled`); :meth:`PollBuffer.get` hands out the oldest, a
poll at a time, and waits (bounded) when there is none. A seek drops the entries of its queue
(:meth:`PollBuffer.drop_queue`); entries of a queue given up are skipped by the poll (their process queue is
dropped), as Java's. The pulls stop when the buffer holds more than ``pull_threshold_for_all`` messages (the
puller reads :func:`len`), so it is bounded. :meth:`PollBuffer.take_now` may be called from any thread (a threaded
poll that finds messages waiting takes them without a hop to the loop); the rest runs on the loop."""

from __future__ import annotations

import asyncio
import collections
import threading
from dataclasses import dataclass
from typing import Any

from .process_queue import ProcessQueue

__all__ = ["PollBuffer", "Pulled"]


@dataclass(frozen=True, slots=True)
class Pulled:
    """One pull's messages (``ConsumeRequest``): of ``mq``, held in ``pq``."""

    mq: Any
    pq: ProcessQueue
    messages: list[Any]


class PollBuffer:
    """See the module. Use from the loop that owns the consumer."""

    def __init__(self) -> None:
        self._entries: collections.deque[Pulled] = collections.deque()
        self._lock = threading.Lock()  # the entries: the loop puts and drops, any thread may take
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._closed = False

    def __len__(self) -> int:
        return len(self._entries)

    def put(self, pulled: Pulled) -> None:
        """Add a pull's messages and wake one waiting poll."""
        with self._lock:
            self._entries.append(pulled)
        self._wake_one()

    def drop_queue(self, mq: Any) -> None:
        """Forget every entry of ``mq`` (a seek: its messages are pulled again from the new offset)."""
        with self._lock:
            self._entries = collections.deque(p for p in self._entries if p.mq != mq)

    def close(self) -> None:
        """Wake every waiting poll (it returns nothing): the consumer stops."""
        self._closed = True
        with self._lock:
            self._entries.clear()
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    async def get(self, timeout_s: float) -> Pulled | None:
        """The oldest entry whose queue is still held, waiting up to ``timeout_s`` for one; ``None`` when none came
        (or the buffer closed)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not self._closed:
            pulled = self.take_now()
            if pulled is not None:
                if self._entries:
                    self._wake_one()  # another poll waiting may take the next one
                return pulled
            left = deadline - loop.time()
            if left <= 0:
                return None
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            handle = loop.call_later(left, _set_none, waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled() and self._entries:
                    self._wake_one()  # woken, then cancelled: the wake goes to the next poll waiting
                raise
            finally:
                handle.cancel()
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
        return None

    def take_now(self) -> Pulled | None:
        """The oldest entry whose queue is still held, without waiting (from any thread); ``None`` when none."""
        with self._lock:
            while self._entries:
                pulled = self._entries.popleft()
                if not pulled.pq.dropped:
                    return pulled
        return None

    def _wake_one(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return


def _set_none(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
