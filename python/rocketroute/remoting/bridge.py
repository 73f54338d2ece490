"""Coroutines run on the client's loop for callers on other threads or other loops, with the wake-ups coalesced.

``asyncio.run_coroutine_threadsafe`` (and ``asyncio.wrap_future`` on the way back) wakes the other loop once per
call: a write to its self-pipe, a ``select`` return and a read, about a fifth of the CPU of a threaded
``send_async`` with 64 sends in flight. Here a call is queued, and a wake-up is scheduled only when none is pending:
the loop that wakes runs everything queued meanwhile, so many sends in flight share one wake-up each way.

The queues rely on ``collections.deque``'s atomic ``append`` / ``popleft`` and on the flag being cleared before the
queue is emptied (a caller that appends and then sees the flag set knows the drain has not started yet)."""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["LoopInbox", "ReturnPath"]


class LoopInbox:
    """Calls for one loop from other threads: :meth:`post` queues ``fn(*args)`` and wakes the loop only when no
    wake-up is pending."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._queue: collections.deque[tuple[Callable[..., Any], tuple[Any, ...], Any]] = collections.deque()
        self._scheduled = False
        self._abandoned: BaseException | None = None

    def post(
        self, fn: Callable[..., Any], *args: Any, on_abandon: Callable[[BaseException], Any] | None = None
    ) -> None:
        """Run ``fn(*args)`` on the loop soon; ``RuntimeError`` if the loop is closed. ``on_abandon(error)`` is
        called instead if the loop stops before it ran it (:meth:`abandon`)."""
        if self._abandoned is not None:
            raise RuntimeError(f"the loop takes no more calls: {self._abandoned}")
        item = (fn, args, on_abandon)
        self._queue.append(item)
        if self._abandoned is not None:  # abandoned meanwhile, maybe after its sweep: swept again
            self.abandon(self._abandoned)
            return
        if not self._scheduled:
            self._scheduled = True
            try:
                self.loop.call_soon_threadsafe(self._drain)
            except RuntimeError:  # the loop is closed: the caller hears it, not on_abandon
                self._scheduled = False
                with contextlib.suppress(ValueError):
                    self._queue.remove(item)
                raise

    def _drain(self) -> None:
        self._scheduled = False  # before emptying the queue: see the module
        queue = self._queue
        while queue:
            fn, args, _ = queue.popleft()
            try:
                fn(*args)
            except Exception as e:  # one failed hand-over must not drop the others queued behind it
                self.loop.call_exception_handler({"message": "a call handed to the loop raised", "exception": e})

    def abandon(self, error: BaseException) -> None:
        """What no drain took (the loop has stopped): each ``on_abandon(error)``; later posts raise
        ``RuntimeError``."""
        self._abandoned = error
        queue = self._queue
        while queue:
            _, _, on_abandon = queue.popleft()
            if on_abandon is not None:
                on_abandon(error)


class ReturnPath:
    """Coroutines started on ``loop`` for callers elsewhere, their outcomes sent back coalesced: to a caller's loop
    through that loop's :class:`LoopInbox`, or into a ``concurrent.futures.Future`` for a thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, inbox: LoopInbox) -> None:
        self.loop = loop
        self.inbox = inbox
        self._callers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopInbox] = weakref.WeakKeyDictionary()

    def from_thread(self, coro: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        """Start ``coro`` on the loop; its outcome lands in the returned future (its callbacks run on the loop's
        thread, as ``run_coroutine_threadsafe``'s)."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def abandoned(error: BaseException) -> None:
            coro.close()
            future.set_exception(error)

        try:
            self.inbox.post(self._start_for_thread, coro, future, on_abandon=abandoned)
        except BaseException:
            coro.close()
            raise
        return future

    def _start_for_thread(self, coro: Coroutine[Any, Any, Any], future: concurrent.futures.Future[Any]) -> None:
        if not future.set_running_or_notify_cancel():
            coro.close()
            return
        task = self.loop.create_task(coro)
        task.add_done_callback(lambda t: _settle_concurrent(future, t))

    async def from_loop(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro`` on the loop and await its outcome on the calling (other) loop. Cancelling the caller
        cancels the coroutine."""
        caller = asyncio.get_running_loop()
        back = self._callers.get(caller)
        if back is None:
            back = self._callers[caller] = LoopInbox(caller)
        waiter: asyncio.Future[Any] = caller.create_future()
        started: list[asyncio.Task[Any]] = []

        def abandoned(error: BaseException) -> None:
            coro.close()
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed too: nobody waits
                back.post(_fail_loop_future, waiter, error)

        try:
            self.inbox.post(self._start_for_loop, coro, waiter, back, started, on_abandon=abandoned)
        except BaseException:
            coro.close()
            raise
        try:
            return await waiter
        except asyncio.CancelledError:
            if not waiter.cancelled():
                raise
            with contextlib.suppress(RuntimeError):  # the client's loop is closed: the coroutine ended with it
                self.inbox.post(_cancel_started, started)
            raise

    def _start_for_loop(
        self, coro: Coroutine[Any, Any, Any], waiter: asyncio.Future[Any], back: LoopInbox, started: list[Any]
    ) -> None:
        if waiter.done():  # cancelled before it started
            coro.close()
            return
        task = self.loop.create_task(coro)
        started.append(task)

        def done(t: asyncio.Task[Any]) -> None:
            try:
                back.post(_settle_loop_future, waiter, t)
            except RuntimeError:  # the caller's loop is closed: nobody waits
                pass

        task.add_done_callback(done)


def _cancel_started(started: list[asyncio.Task[Any]]) -> None:
    for task in started:
        task.cancel()


def _settle_concurrent(future: concurrent.futures.Future[Any], task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        future.cancel()
        return
    error = task.exception()
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(task.result())


def _fail_loop_future(waiter: asyncio.Future[Any], error: BaseException) -> None:
    if not waiter.done():
        waiter.set_exception(error)


def _settle_loop_future(waiter: asyncio.Future[Any], task: asyncio.Task[Any]) -> None:
    if waiter.done():
        return
    if task.cancelled():
        waiter.cancel()
        return
    error = task.exception()
    if error is not None:
        waiter.set_exception(error)
    else:
        waiter.set_result(task.result())
