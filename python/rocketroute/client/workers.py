"""The threads a client runs user code on: the consume pool (listener calls) and the callback thread
(``on_route_change``, ``on_rebalance``).

Neither is the remoting client's event loop: user code there may call back into the client (send, look at the
group, even shut the client down) without blocking the loop the client needs to answer it. Both are daemon threads,
so a listener that never returns cannot keep the process from exiting after the client gave up on it.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from ..loggers import get_logger

__all__ = ["CallbackThread", "ConsumePool"]

log = get_logger("client")

_STOP = object()


class ConsumePool:
    """A fixed pool of ``size`` daemon threads running submitted calls in order of submission (Java's consume
    executor: ``consumeThreadMin`` core threads over an unbounded queue). :meth:`shutdown` drops what has not
    started and waits a bounded time for the calls under way.

    A call costs one queue put and one get, and no lock: with a listener called once per message, a lock shared by
    the workers (a count of calls under way) made every call a hand-over of the GIL between threads queued on it.
    Shutdown waits for the workers themselves instead: each ends after its call under way, since what is queued
    behind it is dropped."""

    def __init__(self, size: int, name: str) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True) for i in range(size)]
        self._idents: set[int] = set()
        for t in self._threads:
            t.start()
            assert t.ident is not None
            self._idents.add(t.ident)

    def submit(self, fn: Callable[..., Any], *args: Any) -> bool:
        """Queue ``fn(*args)``; False (not queued) once the pool is shut down."""
        if self._closed:
            return False
        self._queue.put((fn, args))
        return True

    def submit_slices(self, fn: Callable[..., Any], items: list[Any], size: int, *args: Any) -> bool:
        """``submit(fn, items[i : i + size], *args)`` for each slice of ``items`` in order (a pull's messages, a
        listener call's worth at a time), in one call; False (nothing queued) once the pool is shut down."""
        if self._closed:
            return False
        put = self._queue.put
        for i in range(0, len(items), size):
            put((fn, (items[i : i + size], *args)))
        return True

    def in_pool(self) -> bool:
        """Whether the calling thread is one of the pool's."""
        return threading.get_ident() in self._idents

    def _work(self) -> None:
        get = self._queue.get
        while True:
            item = get()
            if item is _STOP:
                return
            if self._closed:
                continue  # dropped: the pool was shut down before this call started
            fn, args = item
            try:
                fn(*args)
            except BaseException:
                log.exception("a consume task failed")

    def shutdown(self, timeout_s: float) -> int:
        """Stop taking calls, drop the queued ones and wait up to ``timeout_s`` for the calls under way (not
        counting the caller's own, when called from a pool thread). Returns how many are still running."""
        self._closed = True
        for _ in self._threads:
            self._queue.put(_STOP)
        me = threading.current_thread()
        deadline = time.monotonic() + max(timeout_s, 0.0)
        running = 0
        for t in self._threads:
            if t is me:
                continue
            t.join(max(deadline - time.monotonic(), 0.0))
            running += t.is_alive()
        return running


class CallbackThread:
    """One daemon thread that runs a client's user callbacks, one at a time, in the order they were posted."""

    def __init__(self, name: str) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name=name, daemon=True)
        self._thread.start()

    def post(self, what: str, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the callback thread; an exception is logged with ``what`` (e.g. ``"on_rebalance"``)."""
        self._queue.put((what, fn, args))

    def in_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def flush(self, timeout_s: float) -> bool:
        """Wait until every callback posted before this call has run (at once when called from a callback).
        False if ``timeout_s`` passed first."""
        if self.in_thread() or not self._thread.is_alive():
            return True
        done = threading.Event()
        self._queue.put(("flush", done.set, ()))
        return done.wait(timeout_s)

    def close(self) -> None:
        """Run what is posted, then end the thread (not waited for: a callback may be blocked)."""
        self._queue.put(_STOP)

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            what, fn, args = item
            try:
                fn(*args)
            except Exception:
                log.exception("%s raised", what)
