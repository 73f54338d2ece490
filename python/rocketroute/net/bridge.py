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
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["LoopInbox", "ReturnPath", "loop_runs_here"]


_UNKNOWN = object()


def loop_runs_here(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` is running in the calling thread now. Without a system call where the loop says which
    thread runs it (the standard loops' ``_thread_id``): ``asyncio.get_running_loop()`` asks the kernel for the
    process id on every call, a cost a send would pay per message."""
    thread_id = getattr(loop, "_thread_id", _UNKNOWN)
    if thread_id is not _UNKNOWN:
        return thread_id == threading.get_ident()  # type: ignore[no-any-return]
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


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
        self._last_caller: weakref.ref[asyncio.AbstractEventLoop] | None = None

    def from_thread(self, coro: Coroutine[Any, Any, Any]) -> concurrent.futures.Future[Any]:
        """Start ``coro`` on the loop; its outcome lands in the returned future (its callbacks run on the loop's
        thread, as ``run_coroutine_threadsafe``'s)."""
        call = _ThreadCall(self.loop, coro)
        try:
            self.inbox.post(_ThreadCall.start, call, on_abandon=call.abandoned)
        except BaseException:
            coro.close()
            raise
        return call.future

    async def from_loop(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coro`` on the loop and await its outcome on the calling (other) loop. Cancelling the caller
        cancels the coroutine."""
        last = self._last_caller
        caller = last() if last is not None else None
        if caller is None or not loop_runs_here(caller):
            # asyncio.get_running_loop() asks the kernel for the process id: once per new caller, not per call
            caller = asyncio.get_running_loop()
            self._last_caller = weakref.ref(caller)
        back = self._callers.get(caller)
        if back is None:
            back = self._callers[caller] = LoopInbox(caller)
        call = _LoopCall(self.loop, coro, caller.create_future(), back)
        try:
            self.inbox.post(_LoopCall.start, call, on_abandon=call.abandoned)
        except BaseException:
            coro.close()
            raise
        try:
            return await call.waiter
        except asyncio.CancelledError:
            if not call.waiter.cancelled():
                raise
            with contextlib.suppress(RuntimeError):  # the client's loop is closed: the coroutine ended with it
                self.inbox.post(_LoopCall.cancel, call)
            raise


class _ThreadCall:
    """One coroutine :meth:`ReturnPath.from_thread` runs for a thread: one object per call in flight."""

    __slots__ = ("coro", "future", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any]) -> None:
        self.loop, self.coro = loop, coro
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def start(self) -> None:
        """On the client's loop: start the coroutine, unless the future was cancelled before."""
        if not self.future.set_running_or_notify_cancel():
            self.coro.close()
            return
        self.loop.create_task(self.coro).add_done_callback(self.done)

    def done(self, task: asyncio.Task[Any]) -> None:
        _settle_concurrent(self.future, task)

    def abandoned(self, error: BaseException) -> None:
        """The client's loop stopped before it started the coroutine."""
        self.coro.close()
        self.future.set_exception(error)


class _LoopCall:
    """One coroutine :meth:`ReturnPath.from_loop` runs for another loop: one object per call in flight (no
    closures), as a thousand of them may wait at once and the garbage collector walks each."""

    __slots__ = ("back", "coro", "loop", "task", "waiter")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        coro: Coroutine[Any, Any, Any],
        waiter: asyncio.Future[Any],
        back: LoopInbox,
    ) -> None:
        self.loop, self.coro, self.waiter, self.back = loop, coro, waiter, back
        self.task: asyncio.Task[Any] | None = None

    def start(self) -> None:
        """On the client's loop: start the coroutine, unless the caller gave up before."""
        if self.waiter.done():  # cancelled before it started
            self.coro.close()
            return
        self.task = task = self.loop.create_task(self.coro)
        task.add_done_callback(self.done)

    def done(self, task: asyncio.Task[Any]) -> None:
        """On the client's loop: hand the outcome back to the caller's loop."""
        try:
            self.back.post(_settle_loop_future, self.waiter, task)
        except RuntimeError:  # the caller's loop is closed: nobody waits
            pass

    def cancel(self) -> None:
        """On the client's loop: the caller was cancelled."""
        if self.task is not None:
            self.task.cancel()

    def abandoned(self, error: BaseException) -> None:
        """The client's loop stopped before it started the coroutine."""
        self.coro.close()
        with contextlib.suppress(RuntimeError):  # the caller's loop is closed too: nobody waits
            self.back.post(_fail_loop_future, self.waiter, error)


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
