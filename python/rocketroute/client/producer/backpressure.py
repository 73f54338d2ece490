"""The async sends' back-pressure (Java 5.x ``enableBackpressureForAsyncMode``): at most
``back_pressure_for_async_send_num`` sends and ``back_pressure_for_async_send_size`` body bytes in flight. A send
waits for room before it is encoded onto the wire, up to its budget, so a producer faster than its broker slows
down instead of queueing without limit; the room comes back when the send ends, answered or failed.

One :class:`SendWindow` serves threads (:meth:`SendWindow.acquire` blocks) and event loops
(:meth:`SendWindow.acquire_async` suspends), first come first served as Java's fair semaphores. Waiters are woken
outside the lock, each on its own loop or thread."""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from typing import Any

from ...protocol.errors import RemotingTooMuchRequestError

__all__ = ["SendWindow"]


class _Waiter:
    __slots__ = ("granted", "size", "wake")

    def __init__(self, size: int, wake: Any) -> None:
        self.size = size
        self.wake = wake  # called once, outside the lock, when the room is granted
        self.granted = False


class SendWindow:
    """Room for ``max_sends`` sends and ``max_bytes`` body bytes in flight."""

    def __init__(self, max_sends: int, max_bytes: int) -> None:
        self.max_sends, self.max_bytes = max_sends, max_bytes
        self._lock = threading.Lock()
        self._sends, self._bytes = max_sends, max_bytes
        self._waiters: collections.deque[_Waiter] = collections.deque()

    @property
    def in_flight(self) -> tuple[int, int]:
        """(sends, body bytes) holding room now."""
        with self._lock:
            return self.max_sends - self._sends, self.max_bytes - self._bytes

    def _take_now(self, size: int) -> bool:
        # under the lock; only when nobody waits ahead (fair, as Java's semaphores)
        if not self._waiters and self._sends >= 1 and self._bytes >= size:
            self._sends -= 1
            self._bytes -= size
            return True
        return False

    def _give_up(self, waiter: _Waiter) -> bool:
        """A waiter's time ran out: True when the room was granted meanwhile (the caller keeps it)."""
        with self._lock:
            if waiter.granted:
                return True
            self._waiters.remove(waiter)
            wakes = self._grant()  # a large send that gave up may have held back smaller ones behind it
        for wake in wakes:
            wake()
        return False

    def _grant(self) -> list[Any]:
        # under the lock: room for the waiters at the head, in order
        wakes = []
        while self._waiters and self._sends >= 1 and self._bytes >= self._waiters[0].size:
            waiter = self._waiters.popleft()
            self._sends -= 1
            self._bytes -= waiter.size
            waiter.granted = True
            wakes.append(waiter.wake)
        return wakes

    def try_acquire(self, size: int) -> bool:
        """Room for one send of ``size`` body bytes now, or False."""
        with self._lock:
            return self._take_now(size)

    def acquire(self, size: int, timeout_s: float) -> bool:
        """Room for one send of ``size`` body bytes, waiting up to ``timeout_s`` (blocks the calling thread)."""
        event = threading.Event()
        with self._lock:
            if self._take_now(size):
                return True
            if timeout_s <= 0:
                return False
            waiter = _Waiter(size, event.set)
            self._waiters.append(waiter)
        if event.wait(timeout_s):
            return True
        return self._give_up(waiter)

    async def acquire_async(self, size: int, timeout_s: float) -> bool:
        """:meth:`acquire` for a coroutine: the running loop goes on while it waits."""
        with self._lock:
            if self._take_now(size):
                return True  # room now: no future, and no get_running_loop (a system call)
            if timeout_s <= 0:
                return False
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            loop.call_soon_threadsafe(_resolve, future)

        with self._lock:
            if self._take_now(size):
                return True
            waiter = _Waiter(size, wake)
            self._waiters.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout_s)
            return True
        except asyncio.TimeoutError:
            return self._give_up(waiter)
        except asyncio.CancelledError:
            if self._give_up(waiter):
                self.release(size)  # granted as it was cancelled: the room goes back
            raise

    def release(self, size: int) -> None:
        """A send of ``size`` body bytes ended: its room goes to the waiters first in line."""
        with self._lock:
            self._sends += 1
            self._bytes += size
            wakes = self._grant()
        for wake in wakes:
            wake()

    # -- a send's admission: the room, within its budget ----------------------------------------------------------

    def admit(self, size: int, timeout_ms: int, *, wait: bool) -> int:
        """Room for a send of ``size`` body bytes, waited for in this thread (``wait``) or taken if there is some
        now; the send's budget left. No room: ``RemotingTooMuchRequestError``."""
        begin = time.monotonic()
        if size > self.max_bytes or not (self.acquire(size, timeout_ms / 1000) if wait else self.try_acquire(size)):
            raise self.too_much(size)
        return self._budget_left(size, timeout_ms, time.monotonic() - begin)

    async def admit_async(self, size: int, timeout_ms: int) -> int:
        """:meth:`admit`, waiting on the running loop."""
        begin = time.monotonic()
        if size > self.max_bytes or not await self.acquire_async(size, timeout_ms / 1000):
            raise self.too_much(size)
        return self._budget_left(size, timeout_ms, time.monotonic() - begin)

    def _budget_left(self, size: int, timeout_ms: int, waited_s: float) -> int:
        # the wait counts in the budget (Java passes timeout - costTime on); none left: the room goes back
        left = timeout_ms - int(waited_s * 1000)
        if left <= 0:
            self.release(size)
            raise RemotingTooMuchRequestError("DEFAULT ASYNC send call timeout")
        return left

    def too_much(self, size: int) -> RemotingTooMuchRequestError:
        """No room: Java's words (``semaphoreAsyncNum`` when the sends are the limit, else ``semaphoreAsyncSize``),
        then what was in flight."""
        if size > self.max_bytes:  # Java would wait out the budget for it
            return RemotingTooMuchRequestError(
                f"send message tryAcquire semaphoreAsyncSize: a body of {size} bytes never fits in "
                f"back_pressure_for_async_send_size ({self.max_bytes})"
            )
        sends, size_in_flight = self.in_flight
        which = "Num" if sends >= self.max_sends else "Size"
        return RemotingTooMuchRequestError(
            f"send message tryAcquire semaphoreAsync{which} timeout ({sends} sends, {size_in_flight} body bytes in "
            f"flight; back_pressure_for_async_send_num {self.max_sends}, back_pressure_for_async_send_size "
            f"{self.max_bytes})"
        )


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
