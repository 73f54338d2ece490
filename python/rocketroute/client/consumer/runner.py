"""Where a consumer's listener runs: the one place that knows whether it is a function called on the consume pool's
threads (``rr.Consumer``) or a coroutine function awaited on the loop (``rr.aio.Consumer``).

The consume services and the direct consumption write each consume call once, as a coroutine
(``async def consume(...)``), and ask their runner for what differs: calling the listener, sending a message back,
holding a queue for an orderly call, running a call later. :class:`ThreadRunner` drives such a coroutine to its end
on a pool thread without an event loop: every ``await`` of its own returns at once (the listener is called, a
send-back blocks on the connection), so the coroutine never suspends, and one call costs what a plain function call
costs, no hop through the loop. :class:`LoopRunner` awaits the coroutine in a worker task of the loop, and its
``await``\\ s suspend (the listener's, the send-back's), so nothing blocks the loop the pulls run on."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from ...protocol import RemotingCommand

__all__ = ["ListenerRunner", "LoopRunner", "PoolClosedError", "ThreadRunner", "drive"]

if TYPE_CHECKING:
    from ...net.runtime import RemotingClient
    from ..api import BrokerAPI
    from ..workers import ConsumePool
    from .loop_pool import LoopConsumePool


class PoolClosedError(RuntimeError):
    """A call refused by a runner whose pool is shut down: the consumer is stopping."""


ConsumeCall = Callable[..., Coroutine[Any, Any, Any]]
"""A consume call: a coroutine function whose coroutine the runner runs to its end."""


def drive(fn: ConsumeCall, *args: Any) -> None:
    """Run the coroutine ``fn(*args)`` to its end on this thread, with no event loop: it must not suspend (it awaits
    only a :class:`ThreadRunner`'s coroutines, which never do). Iterated as a ``for`` loop iterates, its ``return``
    raises no ``StopIteration``: ``coro.send(None)`` made one for every call, and a tenth of a consumed message's
    instructions went to it."""
    for _ in fn(*args).__await__():
        raise RuntimeError(f"{getattr(fn, '__qualname__', fn)} suspended on a listener thread (it awaited the loop)")


def drive_for(fn: ConsumeCall, *args: Any) -> Any:
    """:func:`drive` for a call that returns what it made (the direct consumption's answer)."""
    coro = fn(*args)
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError(f"{getattr(fn, '__qualname__', fn)} suspended on a listener thread (it awaited the loop)")


class ListenerRunner:
    """What the consume services ask of where their listener runs (see the module); ``remoting``: the client whose
    loop the pulls and timers run on."""

    remoting: RemotingClient

    def submit(self, fn: ConsumeCall, *args: Any) -> bool:
        """Queue the consume call ``fn(*args)`` on the pool; False (not queued) once it is shut down. Called on the
        loop (a pull), or where a call runs (a call of an orderly queue put off)."""
        raise NotImplementedError

    def submit_slices(self, fn: ConsumeCall, items: list[Any], size: int, *args: Any) -> bool:
        """``submit(fn, items[i : i + size], *args)`` for each slice of ``items``, in order, in one call."""
        raise NotImplementedError

    async def call(self, listener: Callable[..., Any], msgs: list[Any], context: Any) -> Any:
        """The listener's answer for ``msgs`` (its exception raised)."""
        raise NotImplementedError

    async def send_back(self, addr: str, request: RemotingCommand, timeout_ms: int) -> None:
        """CONSUMER_SEND_MSG_BACK from a consume call; raises what the broker or the connection answered."""
        raise NotImplementedError

    def hold_queue(self, mq: Any) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold ``mq`` for one orderly consume call at a time (Java's ``MessageQueueLock``)."""
        raise NotImplementedError

    async def take(self, lock: threading.Lock) -> bool:
        """Take a process queue's consume lock for a listener call: whether it was taken (a thread waits for a
        rebalance that holds it; the loop does not wait, as only a give-up holds it, and then there is nothing more
        to consume)."""
        raise NotImplementedError

    async def run(self, fn: ConsumeCall, *args: Any) -> Any:
        """Await, on the loop, the consume call ``fn(*args)`` run where listener calls run (the direct
        consumption); raises :class:`PoolClosedError` when the pool is shut down."""
        raise NotImplementedError

    def later(self, delay_ms: int, running: Callable[[], bool], fn: ConsumeCall, *args: Any) -> None:
        """``submitConsumeRequestLater``: queue ``fn(*args)`` on the pool after ``delay_ms``, if ``running()``
        still; from anywhere (a listener thread, the loop)."""
        loop = self.remoting.loop

        def submit() -> None:
            if running():
                self.submit(fn, *args)

        with contextlib.suppress(RuntimeError):  # the loop closed: the consumer is gone
            loop.call_soon_threadsafe(loop.call_later, delay_ms / 1000, submit)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` on the loop, from wherever a consume call runs (an orderly queue's lock taken again)."""
        try:
            self.remoting.submit(coro)
        except RuntimeError:  # the loop closed: the consumer is gone
            coro.close()


class ThreadRunner(ListenerRunner):
    """A listener called on the consume pool's threads: see the module."""

    def __init__(self, pool: ConsumePool, remoting: RemotingClient) -> None:
        self.pool = pool
        self.remoting = remoting
        self._queue_locks: dict[Any, threading.Lock] = {}
        self._queue_locks_guard = threading.Lock()

    def submit(self, fn: ConsumeCall, *args: Any) -> bool:
        return self.pool.submit(drive, fn, *args)

    def submit_slices(self, fn: ConsumeCall, items: list[Any], size: int, *args: Any) -> bool:
        return self.pool.submit_slices(partial(drive, fn), items, size, *args)

    async def call(self, listener: Callable[..., Any], msgs: list[Any], context: Any) -> Any:
        return listener(msgs, context)

    async def send_back(self, addr: str, request: RemotingCommand, timeout_ms: int) -> None:
        # the runtime's blocking invoke: the listener thread waits for the broker's answer
        self.remoting.invoke_checked(addr, request, timeout_ms)

    @contextlib.asynccontextmanager
    async def hold_queue(self, mq: Any) -> AsyncIterator[None]:
        with self._queue_locks_guard:
            lock = self._queue_locks.get(mq)
            if lock is None:
                lock = self._queue_locks[mq] = threading.Lock()
        with lock:
            yield

    async def take(self, lock: threading.Lock) -> bool:
        return lock.acquire()

    async def run(self, fn: ConsumeCall, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Any] = loop.create_future()

        def settle(outcome: Callable[[], None]) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for the answer
                loop.call_soon_threadsafe(lambda: answered.done() or outcome())

        def on_pool() -> None:
            try:
                result = drive_for(fn, *args)
            except Exception as e:  # raised where it is awaited
                error = e
                settle(lambda: answered.set_exception(error))
            else:
                settle(lambda: answered.set_result(result))

        if not self.pool.submit(on_pool):
            raise PoolClosedError("the consumer is shutting down")
        return await answered


class LoopRunner(ListenerRunner):
    """A coroutine-function listener awaited on the loop, in the worker tasks of a
    :class:`~.loop_pool.LoopConsumePool`: see the module."""

    def __init__(self, pool: LoopConsumePool, remoting: RemotingClient, api: BrokerAPI) -> None:
        self.pool = pool
        self.remoting = remoting
        self.api = api
        self._queue_locks: dict[Any, asyncio.Lock] = {}

    def submit(self, fn: ConsumeCall, *args: Any) -> bool:
        return self.pool.submit(fn, *args)

    def submit_slices(self, fn: ConsumeCall, items: list[Any], size: int, *args: Any) -> bool:
        return self.pool.submit_slices(fn, items, size, *args)

    async def call(self, listener: Callable[..., Any], msgs: list[Any], context: Any) -> Any:
        return await listener(msgs, context)

    async def send_back(self, addr: str, request: RemotingCommand, timeout_ms: int) -> None:
        await self.api.send_back(addr, request, timeout_ms)

    def hold_queue(self, mq: Any) -> asyncio.Lock:
        lock = self._queue_locks.get(mq)
        if lock is None:
            lock = self._queue_locks[mq] = asyncio.Lock()
        return lock

    async def take(self, lock: threading.Lock) -> bool:
        return lock.acquire(blocking=False)

    async def run(self, fn: ConsumeCall, *args: Any) -> Any:
        return await fn(*args)
