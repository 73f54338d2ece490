"""``SendsInFlight``: the sends a producer has accepted and not settled yet, so that ``flush()`` and a shutdown wait
for them instead of failing them.

A send is accepted when the call that starts it returns (or starts to wait) without raising: ``send``,
``send_oneway`` and ``send_batch`` for as long as they block, ``send_async`` and the ``rr.aio`` sends for as long as
they are awaited, ``submit`` and ``rr.aio``'s ``enqueue`` until their future is done. Once ``close()`` is called
(the producer is stopping) no send is accepted any more, and ``wait`` / ``wait_async`` return when every accepted
one is settled, or when their bound passes, with the number still under way.

The tasks that run a send nobody awaits (``submit``'s on the producer's loop, ``enqueue``'s) are tracked too: when
the bound passes they are cancelled, so that each future is settled by the time the shutdown returns. One lock
guards the count; it is held for an increment or a decrement only, never over a call out."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

__all__ = ["SendsInFlight"]


class SendsInFlight:
    """See the module."""

    __slots__ = ("_accepting", "_blocked", "_count", "_gave_up", "_idle", "_lock", "_tasks", "_waiters")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._count = 0
        self._blocked = 0  # threads in wait(): only they need the condition notified
        self._accepting = False
        self._gave_up = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def count(self) -> int:
        """Sends accepted and not settled."""
        return self._count

    @property
    def accepting(self) -> bool:
        return self._accepting

    def open(self) -> None:
        """Start accepting sends (the producer started)."""
        with self._lock:
            self._accepting = True

    def close(self) -> None:
        """Accept no more sends (the producer is stopping); those accepted go on."""
        with self._lock:
            self._accepting = False

    def begin(self) -> bool:
        """Count one more send, unless sends are no longer accepted (then ``False``, nothing counted)."""
        with self._lock:
            if not self._accepting:
                return False
            self._count += 1
            return True

    def end(self, *_: object) -> None:
        """One accepted send is settled (also a done callback: its argument is ignored)."""
        with self._lock:
            self._count -= 1
            if self._count:
                return
            if self._blocked:  # a sync send from one thread comes here every time: no notify when nobody waits
                self._idle.notify_all()
            waiters, self._waiters = self._waiters, []
        for loop, waiter in waiters:
            try:
                loop.call_soon_threadsafe(_wake, waiter)
            except RuntimeError:  # that loop is closed: nobody waits there any more
                pass

    def track(self, task: asyncio.Task[Any]) -> None:
        """A task running an accepted send that nobody awaits: cancelled by :meth:`cancel_tracked`."""
        self._tasks.add(task)
        task.add_done_callback(self._untrack)

    def _untrack(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        # once the shutdown gave up, a send's failure is said once, by the shutdown's WARNING: its task's exception
        # counts as retrieved (a caller may still read it), so a thousand futures nobody reads log no thousand
        # "Task exception was never retrieved"
        if self._gave_up and not task.cancelled():
            task.exception()

    def tracks(self, task: asyncio.Task[Any] | None) -> bool:
        """Whether ``task`` is one :meth:`track` was given (and is not done)."""
        return task in self._tasks

    def wait(self, timeout_s: float | None) -> int:
        """Block until no accepted send is under way, at most ``timeout_s`` (``None``: no bound); the number still
        under way."""
        with self._idle:
            self._blocked += 1
            try:
                self._idle.wait_for(lambda: self._count == 0, timeout_s)
            finally:
                self._blocked -= 1
            return self._count

    async def wait_async(self, timeout_s: float | None) -> int:
        """:meth:`wait` on the running loop, which goes on meanwhile (the sends it waits for may run on it)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._count == 0:
                return 0
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await asyncio.wait_for(waiter, timeout_s)
        except TimeoutError:
            with self._lock:
                self._waiters = [(lp, w) for lp, w in self._waiters if w is not waiter]
        return self._count

    async def cancel_tracked(self, timeout_s: float) -> None:
        """The wait is over: on the loop that runs the tracked tasks, cancel each one not done and wait (at most
        ``timeout_s``) for them to end, so that their futures are settled."""
        self._gave_up = True
        tasks = [t for t in self._tasks if not t.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
