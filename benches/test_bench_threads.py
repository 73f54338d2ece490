"""Threads: does a batch call scale with Python threads (the native backend releases the GIL), and what
throughput do many threads get out of one shared counter and one shared fault table (without losing an
increment)?

- ``thread scaling``: the same 2M keys hashed by 1 thread (both halves in turn) or 2 threads (one half each),
  rows ``variant`` "1 thread" / "2 threads" in one group; ``extra_info["speedup_vs_1_thread"]`` on the
  2-thread row is measured inside the test (best of a few runs of each). The reference runs 100k keys.
- ``hammer``: 1 or 4 threads sharing one ``SendWhichQueue`` (``increment_and_get`` and
  ``round_robin_indices``) or one ``MQFaultStrategy`` (``update_fault_item`` and
  ``select_one_message_queue``); the same total number of calls either way, ``extra_info["ops"]`` of them.

With ``--benchmark-disable`` every size shrinks: a smoke test."""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import rocketroute.reference as ref
from rocketroute.examples.sample_route import SAMPLE_BROKERS, sample_route

KEY_WIDTH = 16


def smoke(config: pytest.Config) -> bool:
    return bool(config.getoption("benchmark_disable"))


def ascii_keys(n: int) -> pa.Array:
    """``n`` random 16-character ASCII keys as a pyarrow string array."""
    rng = np.random.default_rng(99 + n)
    data = (np.frombuffer(rng.bytes(n * KEY_WIDTH), dtype=np.uint8) & np.uint8(63)) + np.uint8(48)
    offsets = np.arange(0, (n + 1) * KEY_WIDTH, KEY_WIDTH, dtype=np.int32)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def batch_of(lib: ModuleType) -> Any:
    return importlib.import_module(lib.__name__ + ".batch")


def best_time(fn: Callable[[], Any], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


# --- 1 vs 2 threads on one batch call ------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_thread_scaling(benchmark: Any, request: pytest.FixtureRequest, lib: ModuleType, threads: int) -> None:
    benchmark.group = "thread scaling: java_string_hashes (2M 16-char keys, pyarrow string, in 2 halves)"
    quick = smoke(request.config)
    n = (4_000 if quick else 2_000_000) if lib.BACKEND == "native" else (1_000 if quick else 100_000)
    keys = ascii_keys(n)
    halves = [keys.slice(0, n // 2), keys.slice(n // 2)]
    hashes = batch_of(lib).java_string_hashes

    with ThreadPoolExecutor(max_workers=2) as pool:

        def one_thread() -> list[Any]:
            return pool.submit(lambda: [hashes(h) for h in halves]).result()

        def two_threads() -> list[Any]:
            return [f.result() for f in [pool.submit(hashes, h) for h in halves]]

        run = one_thread if threads == 1 else two_threads
        out = benchmark.pedantic(run, rounds=3 if quick or lib.BACKEND == "reference" else 15, warmup_rounds=1)
        if threads == 2:
            runs = 1 if quick else 7
            speedup = best_time(one_thread, runs) / best_time(two_threads, runs)
            benchmark.extra_info["speedup_vs_1_thread"] = round(speedup, 3)
    benchmark.extra_info.update({"keys": n, "variant": variant(threads)})
    got = np.concatenate(out)
    assert got.dtype == np.int32 and got.shape == (n,)
    assert got[:200].tolist() == [ref.java_string_hash(k) for k in keys[:200].to_pylist()]


# --- many threads hammering one object ---------------------------------------------------------------------


class Hammer:
    """Calls ``work(thread index, calls // threads)`` on ``threads`` pool threads released together and
    returns the sum of what they return; an exception in a thread propagates."""

    def __init__(self, threads: int, calls: int, work: Callable[[int, int], int]) -> None:
        self.threads = threads
        self.per_thread = calls // threads
        self.work = work
        self.barrier = threading.Barrier(threads)
        self.pool = ThreadPoolExecutor(max_workers=threads)

    def _one(self, i: int) -> int:
        self.barrier.wait()
        return self.work(i, self.per_thread)

    def __call__(self) -> int:
        return sum(f.result() for f in [self.pool.submit(self._one, i) for i in range(self.threads)])

    def __enter__(self) -> Hammer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown()


def variant(threads: int) -> str:
    return f"{threads} thread{'s' if threads > 1 else ''}"


@pytest.mark.parametrize("threads", [1, 4])
def test_hammer_counter(benchmark: Any, request: pytest.FixtureRequest, lib: ModuleType, threads: int) -> None:
    benchmark.group = "hammer: one SendWhichQueue (3 increment_and_get + 1 round_robin_indices of 8, per 4 calls)"
    calls = 400 if smoke(request.config) else (40_000 if lib.BACKEND == "native" else 20_000)
    batch = batch_of(lib)
    counter = lib.SendWhichQueue("5.3", start=0)

    def work(i: int, n: int) -> int:
        inc, rr = counter.increment_and_get, batch.round_robin_indices
        increments = 0
        for _ in range(n // 4):
            inc()
            inc()
            inc()
            rr(counter, 8)
            increments += 11
        return increments

    total: list[int] = []
    with Hammer(threads, calls, work) as run:
        benchmark.pedantic(lambda: total.append(run()), rounds=5, warmup_rounds=1)
    benchmark.extra_info.update({"ops": calls, "variant": variant(threads)})
    assert counter.get() == sum(total), "increments were lost"


TOPIC = "TopicTest"
BROKERS = SAMPLE_BROKERS
ROUTE: dict[str, Any] = sample_route(BROKERS, 4)
LATENCIES = (20, 80, 120, 300)  # below latencyMax[2] = 550: no isolation
ISOLATED = "broker-d"  # always sent with 600 ms, so isolated for 2 s; the clock does not move


@pytest.mark.parametrize("threads", [1, 4])
def test_hammer_fault_table(benchmark: Any, request: pytest.FixtureRequest, lib: ModuleType, threads: int) -> None:
    benchmark.group = "hammer: one MQFaultStrategy (update_fault_item + select_one_message_queue, 1 broker isolated)"
    calls = 400 if smoke(request.config) else (40_000 if lib.BACKEND == "native" else 10_000)
    tp = lib.TopicPublishInfo.from_route(TOPIC, lib.TopicRouteData.from_json(ROUTE), compat="5.3")
    clock = lib.ManualClock(1_700_000_000_000)
    strategy = lib.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=clock)
    queues = set(tp.message_queues)
    last: list[Any] = []

    def work(i: int, n: int) -> int:
        update, select = strategy.update_fault_item, strategy.select_one_message_queue
        mq = None
        for k in range(n // 2):
            broker = BROKERS[(i + k) % 4]
            update(broker, 600 if broker == ISOLATED else LATENCIES[k % 4], False)
            mq = select(tp, BROKERS[k % 4])
        last.append(mq)
        return n

    with Hammer(threads, calls, work) as run:
        benchmark.pedantic(run, rounds=5, warmup_rounds=1)
    benchmark.extra_info.update({"ops": calls, "variant": variant(threads)})
    assert last and all(mq in queues and mq.broker_name != ISOLATED for mq in last)
    assert set(strategy.latency_fault_tolerance.broker_names()) <= set(BROKERS)
