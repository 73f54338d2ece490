"""The producer's encoder threads: a large body's compression, for a send awaited on an event loop, runs on them and
not on the loop.

zlib holds no Python lock while it compresses, so the compressions of concurrent sends run on other cores while
the loop writes, reads and answers; Java's async sends compress on its async sender executor's threads too. A
thread's result goes back to the loop that waits for it in batches: the first result of a batch wakes the loop (one
``call_soon_threadsafe``), the ones that come before the loop runs join it. ``loop.run_in_executor`` wakes the
loop once per result, which cost the loop ~40 µs of CPU per send at 6,000 sends/s on 2 cores.
"""

from __future__ import annotations

import asyncio
import collections
import os
import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

from ...loggers import get_logger

__all__ = ["EncoderThreads", "encoder_threads"]

log = get_logger("producer")

_STOP = object()


def encoder_threads() -> int:
    """As many threads as the process may run on cores (Java's async sender executor has ``availableProcessors()``
    threads)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class _Inbox:
    """One loop's finished jobs, handed to it a batch at a time."""

    __slots__ = ("_done", "_lock", "_scheduled", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._done: collections.deque[tuple[asyncio.Future[Any], Any, BaseException | None]] = collections.deque()
        self._lock = threading.Lock()
        self._scheduled = False

    def put(self, future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
        """From a worker thread: the job of ``future`` finished; the loop is woken unless a wake-up is pending."""
        with self._lock:
            self._done.append((future, result, error))
            if self._scheduled:
                return
            self._scheduled = True
        try:
            self.loop.call_soon_threadsafe(self._drain)
        except RuntimeError:  # the loop is closed: nobody waits for these any more
            log.debug("an encoder's result for a closed loop was dropped")

    def _drain(self) -> None:
        with self._lock:
            self._scheduled = False
            done, self._done = self._done, collections.deque()
        for future, result, error in done:
            if future.done():  # cancelled while the job ran
                continue
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)


class EncoderThreads:
    """Up to ``size`` daemon threads (started as jobs come) running jobs for coroutines of any event loop:
    :meth:`run` returns a future of the calling loop. :meth:`close` lets the jobs already given finish and takes no
    more."""

    def __init__(self, size: int, name: str) -> None:
        self._size = size
        self._name = name
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False
        self._inboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Inbox] = weakref.WeakKeyDictionary()
        self._last: _Inbox | None = None

    def run(self, fn: Callable[[Any], Any], arg: Any) -> asyncio.Future[Any]:
        """``fn(arg)`` on a thread of the pool; its result (or exception) in a future of the running loop.
        ``RuntimeError`` after :meth:`close`, or with no loop running."""
        loop = asyncio.get_running_loop()
        inbox = self._last
        if inbox is None or inbox.loop is not loop:
            inbox = self._inbox(loop)
        future = loop.create_future()
        thread = None
        with self._lock:  # a job is never queued behind the threads' stops, nor left with no thread to run it
            if self._closed:
                raise RuntimeError(f"{self._name} are closed")
            self._jobs.put((fn, arg, future, inbox))
            if len(self._threads) < self._size:
                thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
        if thread is not None:
            thread.start()
        return future

    def _inbox(self, loop: asyncio.AbstractEventLoop) -> _Inbox:
        with self._lock:
            inbox = self._inboxes.get(loop)
            if inbox is None:
                inbox = self._inboxes[loop] = _Inbox(loop)
            self._last = inbox
        return inbox

    def close(self) -> None:
        """Take no more jobs; each thread ends after the jobs given before (not waited for)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            count = len(self._threads)
        for _ in range(count):
            self._jobs.put(_STOP)

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            job = jobs.get()
            if job is _STOP:
                return
            fn, arg, future, inbox = job
            try:
                result, error = fn(arg), None
            except BaseException as e:  # the caller's: raised where it awaits
                result, error = None, e
            inbox.put(future, result, error)
            del job, fn, arg, future, inbox, result, error
