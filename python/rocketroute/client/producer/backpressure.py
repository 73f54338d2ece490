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
from typing import Any

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


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
