"""``rocketroute bench-producer``: RocketMQ's benchmark producer (``org.apache.rocketmq.example.benchmark.Producer``)
for rocketroute's :class:`~rocketroute.client.Producer`: send for a while, print the send TPS, the response times
and the failures every few seconds, and a summary at the end."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any, TextIO

from .errors import RocketRouteError

__all__ = ["BenchConfig", "run_bench"]


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

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> BenchConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        cfg = cls(**{k: v for k, v in vars(args).items() if k in names})
        cfg.check()
        return cfg

    def check(self) -> None:
        """What is wrong with the settings, in one line, before anything is sent."""
        if self.mode not in ("sync", "async", "batch", "oneway"):
            raise RocketRouteError(f"--mode must be sync, async, batch or oneway, not {self.mode!r}")
        for name in ("size", "threads", "in_flight", "batch_size"):
            if getattr(self, name) < 1:
                raise RocketRouteError(f"--{name.replace('_', '-')} must be at least 1")
        if self.duration <= 0 or self.interval <= 0:
            raise RocketRouteError("--duration and --interval must be positive")
        if self.messages is not None and self.messages < 1:
            raise RocketRouteError("--messages must be at least 1")
        if self.compat not in ("5.3", "4.9"):
            raise RocketRouteError(f"--compat must be 5.3 or 4.9, not {self.compat!r}")


class _Stats:
    """Counters shared by the senders (a lock: many threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent = 0
        self.failed = 0
        self.errors: dict[str, int] = {}
        self.rt_ms: list[float] = []  # every acknowledged send's response time (one per message of a batch)

    def ok(self, n: int, rt_ms: float) -> None:
        with self.lock:
            self.sent += n
            self.rt_ms.extend([rt_ms] * n)

    def fail(self, n: int, e: BaseException) -> None:
        with self.lock:
            self.failed += n
            name = type(e).__name__
            self.errors[name] = self.errors.get(name, 0) + n


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[max(0, min(998, int(q * 1000) - 1))]


def run_bench(cfg: BenchConfig, out: TextIO) -> dict[str, Any]:
    """Run the benchmark; print progress lines and the summary to ``out``; return the summary."""
    import rocketroute as rr
    from rocketroute.client import Message, Producer

    body = os.urandom(cfg.size)
    stats = _Stats()
    stop = threading.Event()
    budget = threading.Semaphore(cfg.messages) if cfg.messages else None
    selector = rr.SelectMessageQueueByHash() if cfg.keys else None
    counter = iter(range(1 << 62))
    counter_lock = threading.Lock()

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
        key = f"key-{i % 10_000}" if cfg.keys else None
        return Message(cfg.topic, body, keys=key), key

    producer = Producer(
        cfg.namesrv, "rocketroute-bench", compat=cfg.compat, send_latency_fault_enable=cfg.fault_tolerance
    )
    producer.start()
    try:
        try:
            producer.publish_info(cfg.topic)
        except Exception as e:
            raise RocketRouteError(f"cannot reach the cluster at {cfg.namesrv} for {cfg.topic!r}: {e}") from None

        def sync_worker() -> None:
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
                    stats.fail(1, e)
                else:
                    stats.ok(1, (time.perf_counter() - t) * 1e3)
                finally:
                    sem.release()

            tasks = set()
            while not stop.is_set() and take(1):
                await sem.acquire()
                msg, key = message()
                task = asyncio.ensure_future(one(msg, key))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            if tasks:
                await asyncio.gather(*tasks)

        if cfg.mode == "async":
            workers = [threading.Thread(target=lambda: asyncio.run(async_main()), daemon=True)]
        else:
            workers = [threading.Thread(target=sync_worker, daemon=True) for _ in range(cfg.threads)]
        print(
            f"bench-producer: {cfg.mode}, {cfg.size} B messages to {cfg.topic} on {cfg.namesrv}, "
            + (f"{cfg.in_flight} in flight" if cfg.mode == "async" else f"{cfg.threads} thread(s)")
            + (f", batches of {cfg.batch_size}" if cfg.mode == "batch" else "")
            + (", keyed (SelectMessageQueueByHash)" if cfg.keys else ""),
            file=out,
            flush=True,
        )
        t0 = time.perf_counter()
        for w in workers:
            w.start()
        last_t, last_sent, last_rt = t0, 0, 0
        while True:
            alive = any(w.is_alive() for w in workers)
            now = time.perf_counter()
            if now - t0 >= cfg.duration:
                stop.set()
            if now - last_t >= cfg.interval or not alive:
                with stats.lock:
                    sent, failed, window = stats.sent, stats.failed, stats.rt_ms[last_rt:]
                    last_rt = len(stats.rt_ms)
                tps = (sent - last_sent) / (now - last_t) if now > last_t else 0.0
                avg = statistics.fmean(window) if window else 0.0
                print(
                    f"[{now - t0:6.1f}s] Send TPS: {tps:,.0f}  RT avg: {avg:.2f} ms  p99: "
                    f"{_percentile(window, 0.99):.2f} ms  max: {max(window, default=0):.2f} ms  "
                    f"sent: {sent:,}  failed: {failed:,}",
                    file=out,
                    flush=True,
                )
                last_t, last_sent = now, sent
            if not alive:
                break
            time.sleep(0.02)
        for w in workers:
            w.join()
        elapsed = time.perf_counter() - t0
    finally:
        producer.shutdown()
    rts = stats.rt_ms
    summary = {
        "mode": cfg.mode,
        "size": cfg.size,
        "seconds": round(elapsed, 3),
        "sent": stats.sent,
        "failed": stats.failed,
        "errors": dict(stats.errors),
        "tps": stats.sent / elapsed if elapsed else 0.0,
        "rt_ms": {
            "avg": statistics.fmean(rts) if rts else 0.0,
            "p50": _percentile(rts, 0.50),
            "p99": _percentile(rts, 0.99),
            "p999": _percentile(rts, 0.999),
            "max": max(rts, default=0.0),
        },
    }
    rt = summary["rt_ms"]
    print(
        f"summary: {stats.sent:,} sent, {stats.failed:,} failed in {elapsed:.1f} s: {summary['tps']:,.0f} msgs/s; "
        f"RT ms avg {rt['avg']:.2f}, p50 {rt['p50']:.2f}, p99 {rt['p99']:.2f}, p99.9 {rt['p999']:.2f}, "
        f"max {rt['max']:.2f}" + (f"; errors: {stats.errors}" if stats.errors else ""),
        file=out,
        flush=True,
    )
    return summary
