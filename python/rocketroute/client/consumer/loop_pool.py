"""``LoopConsumePool``: the consume pool of an asyncio-native consumer (:mod:`rocketroute.aio`), the
:class:`~rocketroute.client.workers.ConsumePool` of coroutines.

``size`` worker tasks on the consumer's loop take submitted coroutine functions in order of submission, so at most
``size`` listener calls run at once (Java's ``consumeThreadMin`` threads), and nothing blocks the loop that the
pulls, the heartbeats and the commits run on."""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable, Coroutine
from typing import Any

from ...loggers import get_logger

__all__ = ["LoopConsumePool"]

log = get_logger("client")


class LoopConsumePool:
    """``size`` worker tasks on the running loop (built there). :meth:`shutdown` drops what has not started and
    waits a bounded time for the calls under way, then cancels them."""

    def __init__(self, size: int, name: str) -> None:
        self._queue: collections.deque[tuple[Callable[..., Coroutine[Any, Any, Any]], tuple[Any, ...]]] = (
            collections.deque()
        )
        self._wakeup = asyncio.Event()
        self._closed = False
        self._running: set[asyncio.Task[Any]] = set()  # workers inside a call
        self._idle = asyncio.Event()
        self._idle.set()
        self._workers = [asyncio.ensure_future(self._work()) for _ in range(size)]
        for i, w in enumerate(self._workers):
            w.set_name(f"{name}-{i}")

    def submit(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> bool:
        """Queue ``await fn(*args)``; False (not queued) once the pool is shut down. Called on the loop."""
        if self._closed:
            return False
        self._queue.append((fn, args))
        self._wakeup.set()
        return True

    def submit_slices(
        self, fn: Callable[..., Coroutine[Any, Any, Any]], items: list[Any], size: int, *args: Any
    ) -> bool:
        """``submit(fn, items[i : i + size], *args)`` for each slice of ``items`` in order, in one call; False
        (nothing queued) once the pool is shut down. Called on the loop."""
        if self._closed:
            return False
        append = self._queue.append
        for i in range(0, len(items), size):
            append((fn, (items[i : i + size], *args)))
        self._wakeup.set()
        return True

    def in_pool(self) -> bool:
        """Whether the calling task is one of the pool's workers (a listener call)."""
        try:
            return asyncio.current_task() in self._running
        except RuntimeError:  # no loop running in this thread
            return False

    async def _work(self) -> None:
        me = asyncio.current_task()
        assert me is not None
        while not self._closed:
            if not self._queue:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            fn, args = self._queue.popleft()
            self._running.add(me)
            self._idle.clear()
            try:
                await fn(*args)
            except asyncio.CancelledError:
                if self._closed:
                    return
                raise
            except BaseException:
                log.exception("a consume task failed")
            finally:
                self._running.discard(me)
                if not self._running:
                    self._idle.set()

    async def shutdown(self, timeout_s: float) -> int:
        """Stop taking calls, drop the queued ones, wait up to ``timeout_s`` for the calls under way (not the
        caller's own, when called from a listener call), then cancel the workers. Returns how many calls were
        still running (and were cancelled)."""
        self._closed = True
        self._queue.clear()
        self._wakeup.set()
        me = asyncio.current_task()
        deadline = time.monotonic() + max(timeout_s, 0.0)
        while self._running - {me}:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._idle.clear()
            try:
                await asyncio.wait_for(self._idle.wait(), min(left, 0.05) if me in self._running else left)
            except asyncio.TimeoutError:
                pass
        still = len(self._running - {me})
        for w in self._workers:
            if w is not me:
                w.cancel()
        await asyncio.gather(*(w for w in self._workers if w is not me), return_exceptions=True)
        return still
