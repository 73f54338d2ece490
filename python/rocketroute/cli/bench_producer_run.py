"""``rocketroute bench-producer``: RocketMQ's benchmark producer (``org.apache.rocketmq.example.benchmark.Producer``)
for rocketroute's :class:`~rocketroute.client.Producer`: send for a while, print the send TPS, the response times
and the failures every few seconds, and a summary at the end.

The response times go into a :class:`~rocketroute.latency_histogram.LatencyHistogram` (fixed size: a run of any
length takes the same memory). Ctrl-C stops a run within :data:`STOP_BOUND_S` seconds: the senders stop, the sends
in flight are cancelled, the producer is shut down (waiting at most that long), the summary of what was
acknowledged until Ctrl-C is printed and :class:`BenchInterrupted` (a ``KeyboardInterrupt``) goes on to the
caller."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import math
import os
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any, TextIO

from .._plural import counted
from ..errors import RocketRouteError
from ..latency_histogram import LatencyHistogram
from ..protocol.acl import Credentials
from .bench_producer_progress import Progress

__all__ = [
    "FAIL_FAST_SENDS",
    "STOP_BOUND_S",
    "BenchConfig",
    "BenchInterrupted",
    "check_namesrv",
    "check_topic_name",
    "run_bench",
]

STOP_BOUND_S = 3.0
"""After Ctrl-C, how long the producer's shutdown and the senders are waited for, at most."""
FAIL_FAST_SENDS = 100
"""A run whose first this many sends all failed stops, with the first error, instead of failing every send."""
MODES = ("sync", "async", "batch", "oneway")


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C ended the run: ``summary`` is what :func:`run_bench` printed of the messages sent until then."""

    def __init__(self, summary: dict[str, Any]) -> None:
        super().__init__("interrupted")
        self.summary = summary


def check_namesrv(namesrv: str) -> list[str]:
    """The name server addresses of ``namesrv`` by the producer's own rule (``host:port;host:port``, a port in
    1..65535), or a :class:`RocketRouteError` saying what is wrong, in one line."""
    from ..client.namesrv import parse_namesrv_addrs
    from ..net.connection import parse_addr
    from ..protocol.errors import RemotingError

    try:
        addrs = parse_namesrv_addrs(namesrv)
        for a in addrs:
            parse_addr(a)
    except (ValueError, RemotingError) as e:
        raise RocketRouteError(str(e)) from None
    return addrs


def check_topic_name(topic: str) -> None:
    """The producer's topic check (Java's ``Validators.checkTopic``, and the system topics a send may not use),
    as a :class:`RocketRouteError` with Java's text."""
    from ..client.message import MessageError, check_topic

    try:
        check_topic(topic)
    except MessageError as e:
        raise RocketRouteError(e.error_message) from None


def _max_message_size(compat: str) -> int:
    from ..java_defaults import producer_defaults

    return int(producer_defaults(compat)["max_message_size"])


@dataclass(frozen=True)
class BenchConfig:
    namesrv: str
    topic: str
    mode: str = "sync"
    size: int = 1024
    threads: int = 4
    in_flight: int = 256
    batch_size: int = 32
    keys: bool = False
    duration: float = 10.0
    messages: int | None = None
    interval: float = 5.0
    compat: str = "5.3"
    fault_tolerance: bool = False
    credentials: Credentials | None = None
    tls: Any = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> BenchConfig:
        from .args import credentials_from_args, tls_from_args

        names = {f.name for f in dataclasses.fields(cls)} - {"credentials", "tls"}
        given = {k: v for k, v in vars(args).items() if k in names}
        cfg = cls(**given, credentials=credentials_from_args(args), tls=tls_from_args(args))
        cfg.check()
        return cfg

    def check(self) -> None:
        """What is wrong with the settings, in one line, before anything is sent: the name servers and the topic
        by the producer's own rules, the counts, finite positive times, and a message (or batch) the producer
        would not refuse as too large."""
        if self.mode not in MODES:
            raise RocketRouteError(f"--mode must be sync, async, batch or oneway, not {self.mode!r}")
        if self.compat not in ("5.3", "4.9"):
            raise RocketRouteError(f"--compat must be 5.3 or 4.9, not {self.compat!r}")
        try:
            check_namesrv(self.namesrv)
        except RocketRouteError as e:
            raise RocketRouteError(f"--namesrv: {e}") from None
        try:
            check_topic_name(self.topic)
        except RocketRouteError as e:
            raise RocketRouteError(f"--topic: {e}") from None
        for name in ("size", "threads", "in_flight", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise RocketRouteError(f"--{name.replace('_', '-')} must be an integer of at least 1, not {value!r}")
        for name in ("duration", "interval"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise RocketRouteError(f"--{name} must be a finite number of seconds above 0, not {value!r}")
        if self.messages is not None and self.messages < 1:
            raise RocketRouteError("--messages must be at least 1")
        limit = _max_message_size(self.compat)
        if self.size > limit:
            raise RocketRouteError(
                f"--size {self.size:,} is over the producer's max_message_size ({limit:,} bytes): every send would "
                "be refused"
            )
        if self.mode == "batch":
            self._check_batch(limit)

    def _check_batch(self, limit: int) -> None:
        """A batch of ``batch_size`` messages of ``size`` bytes, as the producer encodes it, is at most ``limit``
        bytes (the messages' own headers and properties count too)."""
        from ..client.message import Message, MessageError
        from ..client.message_encode import encode_batch

        too_big = RocketRouteError(
            f"a batch of {self.batch_size:,} messages of {self.size:,} bytes is over the producer's "
            f"max_message_size ({limit:,} bytes): lower --batch-size or --size"
        )
        if self.size * self.batch_size > limit:
            raise too_big
        key = f"key-{_KEYS - 1}" if self.keys else None
        sample = [Message(self.topic, bytes(self.size), keys=key) for _ in range(self.batch_size)]
        try:
            encode_batch(sample, compat=self.compat, max_message_size=limit)
        except MessageError:
            raise too_big from None


_KEYS = 10_000
"""``--keys``: the messages' keys are ``key-0`` ... ``key-9999``, in turn."""


class _Stats:
    """Counters shared by the senders (a lock: many threads). The response times of the current progress window
    go into ``window``; each progress line adds it to ``total`` and empties it: both are fixed-size histograms.
    After :meth:`freeze` (Ctrl-C) nothing more is counted: the summary is what was acknowledged until then."""

    def __init__(self, *stop_when_failing: threading.Event) -> None:
        self.lock = threading.Lock()
        self._stop_when_failing = stop_when_failing
        self.failing = False  # the first FAIL_FAST_SENDS sends all failed
        self.sent = 0
        self.failed = 0
        self.errors: dict[str, int] = {}
        self.first_error: str | None = None
        self.window = LatencyHistogram()  # one value per acknowledged message (a batch counts each message)
        self.total = LatencyHistogram()
        self.frozen = False

    def ok(self, n: int, rt_ms: float) -> None:
        with self.lock:
            if self.frozen:
                return
            self.sent += n
            self.window.record(rt_ms, n)

    def fail(self, n: int, e: BaseException) -> None:
        with self.lock:
            if self.frozen:
                return
            self.failed += n
            name = type(e).__name__
            self.errors[name] = self.errors.get(name, 0) + n
            if self.first_error is None:
                text = (str(e).strip().splitlines() or [""])[0][:300]
                self.first_error = f"{name}: {text}" if text else name
            if self.sent == 0 and self.failed >= FAIL_FAST_SENDS and not self.failing:
                self.failing = True
                for event in self._stop_when_failing:
                    event.set()

    def freeze(self) -> None:
        with self.lock:
            self.frozen = True

    def take_window(self) -> tuple[int, int, float, float, float]:
        """``(sent, failed, avg, p99, max)`` of the window since the last call; the window goes into the total."""
        with self.lock:
            w = self.window
            row = (self.sent, self.failed, w.mean, w.percentile(0.99), w.max)
            self.total.merge(w)
            w.reset()
        return row


class _AsyncSenders:
    """The async mode's event loop in its own thread; :meth:`cancel` cancels the loop's sends from any thread."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.main: asyncio.Task[None] | None = None
        self.ready = threading.Event()

    def cancel(self) -> None:
        loop, main = self.loop, self.main
        if loop is None or main is None:
            return
        try:
            loop.call_soon_threadsafe(main.cancel)
        except RuntimeError:  # the loop is closed: nothing left to cancel
            pass


def _shutdown_within(producer: Any, timeout_s: float) -> None:
    """``producer.shutdown()`` waited for at most ``timeout_s`` (a daemon thread: an exit does not wait for it)."""

    def shutdown() -> None:
        try:
            producer.shutdown()
        except Exception:  # already stopping on Ctrl-C: a failed shutdown changes nothing
            pass

    t = threading.Thread(target=shutdown, name="bench-producer-shutdown", daemon=True)
    t.start()
    t.join(timeout_s)


def run_bench(cfg: BenchConfig, out: TextIO) -> dict[str, Any]:
    """Run the benchmark; print progress lines and the summary to ``out``; return the summary (the windows and
    the summary agree by construction: :mod:`.bench_producer_progress`).

    A line is printed every ``cfg.interval`` seconds after the start, except at the end of ``cfg.duration``: the
    window in progress then goes on until the last send under way is answered and ends the run, so the last line
    is never a sliver of the senders stopping. Ctrl-C (``KeyboardInterrupt``) counts what was acknowledged until
    then, stops the senders, cancels the sends in flight, shuts the producer down (waiting :data:`STOP_BOUND_S`
    at most), prints the last (partial) line and the summary, and raises :class:`BenchInterrupted` (a
    ``KeyboardInterrupt``) carrying that summary. A run whose first :data:`FAIL_FAST_SENDS` sends all fail stops
    with a :class:`RocketRouteError` naming the first error."""
    import rocketroute as rr
    from rocketroute.client import Message, Producer

    cfg.check()
    body = os.urandom(cfg.size)
    stop = threading.Event()  # no more sends: the run is over
    cancelled = threading.Event()  # Ctrl-C or a failing start: the sends cut short are not counted
    stats = _Stats(cancelled, stop)
    budget = threading.Semaphore(cfg.messages) if cfg.messages else None
    selector = rr.SelectMessageQueueByHash() if cfg.keys else None
    counter = iter(range(1 << 62))
    counter_lock = threading.Lock()
    senders = _AsyncSenders()
    finished: list[float] = []  # when each sender stopped (perf_counter): the last one ends the run

    def take(n: int) -> int:
        """How many of ``n`` messages may still be sent (``--messages``)."""
        if budget is None:
            return n
        got = 0
        while got < n and budget.acquire(blocking=False):
            got += 1
        return got

    def message() -> tuple[Any, str | None]:
        with counter_lock:
            i = next(counter)
        key = f"key-{i % _KEYS}" if cfg.keys else None
        return Message(cfg.topic, body, keys=key), key

    producer = Producer(
        cfg.namesrv,
        "rocketroute-bench",
        compat=cfg.compat,
        send_latency_fault_enable=cfg.fault_tolerance,
        credentials=cfg.credentials,
        tls=cfg.tls,
    )
    workers: list[threading.Thread] = []
    interrupted_at: float | None = None
    progress: Progress | None = None
    producer.start()
    try:
        try:
            producer.publish_info(cfg.topic)
        except Exception as e:
            raise RocketRouteError(f"cannot reach the cluster at {cfg.namesrv} for {cfg.topic!r}: {e}") from None

        def sync_worker() -> None:
            try:
                sync_sends()
            finally:
                finished.append(time.perf_counter())

        def sync_sends() -> None:
            while not stop.is_set():
                n = take(cfg.batch_size if cfg.mode == "batch" else 1)
                if n == 0:
                    return
                t = time.perf_counter()
                try:
                    if cfg.mode == "batch":
                        producer.send_batch([message()[0] for _ in range(n)])
                    elif cfg.mode == "oneway":
                        msg, key = message()
                        producer.send_oneway(msg, selector, key) if selector else producer.send_oneway(msg)
                    else:
                        msg, key = message()
                        producer.send(msg, selector, key) if selector else producer.send(msg)
                except Exception as e:
                    if cancelled.is_set():
                        return  # a send cut short by the shutdown is no failure of the cluster
                    stats.fail(n, e)
                else:
                    stats.ok(n, (time.perf_counter() - t) * 1e3)

        async def async_main() -> None:
            sem = asyncio.Semaphore(cfg.in_flight)

            async def one(msg: Any, key: str | None) -> None:
                t = time.perf_counter()
                try:
                    if selector:
                        await producer.send_async(msg, selector, key)
                    else:
                        await producer.send_async(msg)
                except Exception as e:
                    if not cancelled.is_set():
                        stats.fail(1, e)
                else:
                    stats.ok(1, (time.perf_counter() - t) * 1e3)
                finally:
                    sem.release()

            tasks: set[asyncio.Task[None]] = set()
            try:
                while not stop.is_set() and take(1):
                    await sem.acquire()
                    msg, key = message()
                    task = asyncio.ensure_future(one(msg, key))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                if tasks:
                    await asyncio.gather(*tasks)
            except asyncio.CancelledError:
                for task in tasks:
                    task.cancel()
                raise

        def async_worker() -> None:
            async def main() -> None:
                senders.loop = asyncio.get_running_loop()
                senders.main = asyncio.current_task()  # type: ignore[assignment]
                senders.ready.set()
                await async_main()

            try:
                asyncio.run(main())
            except asyncio.CancelledError:
                pass  # Ctrl-C: cancelled by the main thread
            finally:
                finished.append(time.perf_counter())

        if cfg.mode == "async":
            workers = [threading.Thread(target=async_worker, name="bench-producer-async", daemon=True)]
        else:
            workers = [
                threading.Thread(target=sync_worker, name=f"bench-producer-{i}", daemon=True)
                for i in range(cfg.threads)
            ]
        print(
            f"bench-producer: {cfg.mode}, {cfg.size} B messages to {cfg.topic} on {cfg.namesrv}, "
            + (f"{cfg.in_flight} in flight" if cfg.mode == "async" else counted(cfg.threads, "thread"))
            + (f", batches of {cfg.batch_size}" if cfg.mode == "batch" else "")
            + (", keyed (SelectMessageQueueByHash)" if cfg.keys else ""),
            file=out,
            flush=True,
        )
        t0 = time.perf_counter()
        progress = Progress(stats, out, t0)
        for w in workers:
            w.start()
        deadline = t0 + cfg.duration
        next_line = t0 + cfg.interval
        failing = False
        while True:
            alive = any(w.is_alive() for w in workers)
            now = time.perf_counter()
            if now >= deadline:
                stop.set()
            if stats.failing:
                failing = True
                senders.cancel()
                break
            if not alive:
                break
            # a line falls due every interval from the start (no drift); the window the duration ends in ends
            # with the run, when the sends under way at the deadline are answered
            if now >= next_line and next_line < deadline:
                progress.line(now)
                while next_line <= now:
                    next_line += cfg.interval
            time.sleep(0.02)
        if failing:
            for w in workers:
                w.join(STOP_BOUND_S)
            with stats.lock:
                failed, first = stats.failed, stats.first_error
            raise RocketRouteError(
                f"stopped: the first {failed:,} sends all failed and none succeeded; the first error: {first}"
            )
        for w in workers:
            w.join()
        # the last window ends when the last sender stopped (--messages: it may end just after a line, with
        # nothing left to show)
        progress.line(max(finished, default=time.perf_counter()), print_empty=False)
    except KeyboardInterrupt:
        interrupted_at = time.perf_counter()
        stats.freeze()  # what was acknowledged until Ctrl-C: the sends it cuts short are not counted
        if progress is None:  # before the first send: nothing to sum up
            raise
    finally:
        interrupted = interrupted_at is not None
        if interrupted:
            cancelled.set()
        stop.set()
        senders.cancel()
        if interrupted:
            # what the shutdown of a producer with sends in flight logs or warns is noise once the user has stopped
            # the run
            logging.disable(logging.CRITICAL)
            warnings.simplefilter("ignore")
            if cfg.mode == "async":  # its sends cancelled on the producer's loop before that loop stops
                for w in workers:
                    w.join(1.0)
            _shutdown_within(producer, STOP_BOUND_S)
            for w in workers:  # the sync senders: their sends fail once the producer is shut down
                w.join(0.5)
        else:
            producer.shutdown()
    assert progress is not None  # the senders ran
    if interrupted_at is not None:
        progress.line(interrupted_at)
        raise BenchInterrupted(progress.summary(cfg.mode, cfg.size, interrupted=True))
    return progress.summary(cfg.mode, cfg.size, interrupted=False)
