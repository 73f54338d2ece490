"""Many threads against one shared object, on both backends: the round-robin counter (``increment_and_get``
mixed with ``round_robin_indices``), one ``MQFaultStrategy`` selecting and updating, and one
``LatencyFaultTolerance`` updated, queried and pruned at once. No increment may be lost or returned twice,
no call may fail, and every answer must be one the single-threaded code could give.

Iteration counts are bounded so that each test takes well under two seconds on the reference backend;
``ROCKETROUTE_SOAK=N`` multiplies them (``make fuzz`` soaks with N=25)."""

from __future__ import annotations

import importlib
import os
import random
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rocketroute.examples.sample_route import SAMPLE_BROKERS, sample_route

from ._child import run_on_backend
from ._java import INT_MAX, to_int

THREADS = 8
SOAK = max(1, int(os.environ.get("ROCKETROUTE_SOAK", "1")))
POSITIVE_MASK = 0x7FFFFFFF
TOPIC = "TopicTest"
BROKERS = SAMPLE_BROKERS
QUEUES_PER_BROKER = 4
UNKNOWN_BROKER = "broker-gone"  # a fault item whose broker is not in the route (4.9 pick path removes it)
LATENCIES = (0, 10, 60, 120, 600, 1200, 2500, 4000, 16000)


@pytest.fixture(autouse=True)
def _frequent_thread_switches() -> Iterator[None]:
    """Switch threads far more often than the default 5 ms, so the threads really interleave."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_threads(worker: Callable[[int], Any], n: int = THREADS) -> list[Any]:
    """Run ``worker(i)`` on ``n`` threads released together; re-raise the first failure; return the results."""
    barrier = threading.Barrier(n)
    results: list[Any] = [None] * n
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            barrier.wait()
            results[i] = worker(i)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=target, args=(i,), name=f"worker-{i}") for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
        assert not t.is_alive(), f"{t.name} is stuck"
    if errors:
        raise errors[0]
    return results


# --- one SendWhichQueue ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compat", ["4.9", "5.3"])
@pytest.mark.parametrize("start", [0, INT_MAX - 3_000], ids=["no-wrap", "wraps"])
def test_counter_increments_and_batches_lose_nothing(backend, compat, start):
    batch = importlib.import_module(backend.__name__ + ".batch")
    counter = backend.SendWhichQueue(compat, start=start)
    rounds = 300 * SOAK

    def worker(i: int) -> tuple[int, list[int], list[list[int]]]:
        rng = random.Random(i)
        singles: list[int] = []
        batches: list[list[int]] = []
        increments = 0
        inc = counter.increment_and_get
        for _ in range(rounds):
            op = rng.random()
            if op < 0.5:
                singles.append(inc())
                increments += 1
            elif op < 0.9:
                count = rng.randrange(0, 40)
                batches.append(batch.round_robin_indices(counter, count).tolist())
                increments += count
            else:  # positions: cannot be told apart, but they advance the counter all the same
                count = rng.randrange(0, 40)
                positions = batch.round_robin_indices(counter, count, 7).tolist()
                assert len(positions) == count and all(0 <= p < 7 for p in positions)
                increments += count
        return increments, singles, batches

    results = run_threads(worker)
    total = sum(r[0] for r in results)
    assert counter.get() == to_int(start + total), "increments were lost"
    returned = [v for _, singles, batches in results for v in singles + [v for b in batches for v in b]]
    # Every value a call returned was returned once: none was lost, duplicated or torn. (The position calls'
    # values are not in ``returned``, so compare as sets of distinct values that must all be valid.)
    assert len(returned) == len(set(returned)), "a value was returned twice"
    valid = {to_int(start + i) & POSITIVE_MASK for i in range(1, total + 1)}
    assert set(returned) <= valid


@pytest.mark.parametrize("start", [0, INT_MAX - 2_000], ids=["no-wrap", "wraps"])
def test_round_robin_batch_is_one_step(backend, start):
    """``round_robin_indices(counter, count)`` advances the counter by ``count`` atomically: each batch holds
    ``count`` consecutive values, whatever the other threads do meanwhile."""
    batch = importlib.import_module(backend.__name__ + ".batch")
    counter = backend.SendWhichQueue("5.3", start=start)
    rounds = 60 * SOAK

    def worker(i: int) -> list[list[int]]:
        rng = random.Random(300 + i)
        out = []
        for _ in range(rounds):
            if i % 2:
                counter.increment_and_get()
            else:
                out.append(batch.round_robin_indices(counter, rng.randrange(2, 64)).tolist())
        return out

    results = run_threads(worker)
    torn = [b for out in results for b in out if any(b[j + 1] != (b[j] + 1) & POSITIVE_MASK for j in range(len(b) - 1))]
    assert not torn, f"{len(torn)} batches interleaved with other calls, e.g. {torn[0]}"


@pytest.mark.parametrize("compat", ["4.9", "5.3"])
def test_counter_from_an_unset_start(backend, compat):
    """Threads racing on the first draw of an unset counter: one draw wins, every increment counts."""
    batch = importlib.import_module(backend.__name__ + ".batch")
    counter = backend.SendWhichQueue(compat, random=backend.JavaRandom(7))
    twin = backend.SendWhichQueue(compat, random=backend.JavaRandom(7))
    twin.increment_and_get()
    after_first = twin.get()  # the stored value after the first increment

    def worker(i: int) -> int:
        if i % 2:
            counter.increment_and_get()
            return 1 + len(batch.round_robin_indices(counter, 5))
        return len(batch.round_robin_indices(counter, 3)) + len(batch.round_robin_indices(counter, 2, 3))

    total = sum(run_threads(worker))
    assert counter.get() == to_int(after_first + total - 1)


# --- one MQFaultStrategy on one TopicPublishInfo ------------------------------------------------------------------

ROUTE: dict[str, Any] = sample_route(BROKERS, QUEUES_PER_BROKER)


def publish_info(backend: Any, compat: str) -> Any:
    tp = backend.TopicPublishInfo.from_route(TOPIC, backend.TopicRouteData.from_json(ROUTE), compat=compat)
    assert len(tp.message_queues) == len(BROKERS) * QUEUES_PER_BROKER
    return tp


@pytest.mark.parametrize("compat", ["4.9", "5.3"])
def test_fault_strategy_many_threads(backend, compat):
    clock = backend.ManualClock(1_700_000_000_000)
    strategy = backend.MQFaultStrategy(compat, send_latency_fault_enable=True, clock=clock)
    tp = publish_info(backend, compat)
    queues = set(tp.message_queues)
    rounds = 250 * SOAK

    def worker(i: int) -> int:
        rng = random.Random(100 + i)
        picks = 0
        for _ in range(rounds):
            op = rng.random()
            if op < 0.35:
                broker = rng.choice((*BROKERS, UNKNOWN_BROKER))
                strategy.update_fault_item(broker, rng.choice(LATENCIES), rng.random() < 0.2, rng.random() < 0.8)
            elif op < 0.4 and i == 0:
                clock.advance(rng.choice((100, 1000, 5000)))
            else:
                last = rng.choice((None, *BROKERS))
                if compat == "5.3":
                    mq = strategy.select_one_message_queue(tp, last, rng.random() < 0.1)
                else:
                    mq = strategy.select_one_message_queue(tp, last)
                picks += 1
                if mq not in queues:
                    # 4.9's pick_one_at_least path builds a queue on the least-bad known broker
                    assert compat == "4.9", mq
                    assert mq.topic == TOPIC and mq.broker_name in BROKERS, mq
                    assert 0 <= mq.queue_id < QUEUES_PER_BROKER, mq
        return picks

    assert sum(run_threads(worker)) > 0
    lft = strategy.latency_fault_tolerance
    assert set(lft.broker_names()) <= {*BROKERS, UNKNOWN_BROKER}
    assert len(lft) == len(lft.broker_names())
    # the table still works: a long isolation takes a broker out, the clock brings it back
    strategy.update_fault_item("broker-c", 0, True)
    assert not lft.is_available("broker-c")
    clock.advance(10**7)
    assert all(lft.is_available(b) for b in BROKERS)
    assert strategy.select_one_message_queue(tp) in queues


# --- one LatencyFaultTolerance ---------------------------------------------------------------------------------


@pytest.mark.parametrize("compat", ["4.9", "5.3"])
def test_latency_fault_tolerance_many_threads(backend, compat):
    clock = backend.ManualClock(1_000_000)
    lft = backend.LatencyFaultTolerance(compat, clock=clock, random=11)
    names = [f"broker-{i}" for i in range(6)]
    rounds = 400 * SOAK

    def worker(i: int) -> None:
        rng = random.Random(200 + i)
        for _ in range(rounds):
            name = rng.choice(names)
            op = rng.random()
            if op < 0.4:
                lft.update_fault_item(
                    name, rng.choice(LATENCIES), rng.choice((0, 500, 3000, 60000)), rng.random() < 0.7
                )
            elif op < 0.6:
                assert lft.is_available(name) in (True, False)
            elif op < 0.7:
                assert lft.is_reachable(name) in (True, False)
            elif op < 0.8:
                lft.remove(name)
            elif op < 0.9:
                picked = lft.pick_one_at_least()
                assert picked is None or picked in names
            elif i == 0:
                clock.advance(rng.choice((100, 1000)))
            else:
                assert set(lft.broker_names()) <= set(names)
                assert 0 <= len(lft) <= len(names)

    run_threads(worker)
    assert set(lft.broker_names()) <= set(names)
    assert len(lft) == len(lft.broker_names())
    for name in lft.broker_names():
        assert name in lft
    # every item still behaves: a fresh update isolates, time heals, remove forgets
    now = clock.now_ms()
    lft.update_fault_item("broker-0", 100, 10**9)
    assert not lft.is_available("broker-0")
    clock.set(now + 10**9)
    assert lft.is_available("broker-0")
    lft.remove("broker-0")
    assert "broker-0" not in lft


# --- one ConsistentHashRouter ------------------------------------------------------------------------------------


def test_router_routes_while_nodes_join_and_leave(backend):
    """Readers route keys while writers add and remove their own nodes: every answer is a node that was on the
    ring at some point, never a torn entry; when the writers are done the ring is exactly the initial one."""
    stable = [f"consumer-{i}" for i in range(4)]
    router = backend.ConsistentHashRouter(stable, 8)
    initial = router.ring()
    keys = [f"{TOPIC}@broker-a@{q}" for q in range(64)]
    writers, rounds = 3, 40 * SOAK

    def worker(i: int) -> set[str | None]:
        seen: set[str | None] = set()
        if i < writers:  # a writer: its own nodes join, get routed to, and leave again
            mine = [f"w{i}-node-{j}" for j in range(3)]
            for r in range(rounds):
                for node in mine:
                    router.add_node(node, 1 + r % 4)
                seen.update(router.route_node(k) for k in keys[:8])
                for node in mine:
                    router.remove_node(node)
        else:
            for _ in range(rounds * 4):
                seen.update(router.route_node(k) for k in keys)
        return seen

    results = run_threads(worker)
    possible = set(stable) | {f"w{i}-node-{j}" for i in range(writers) for j in range(3)}
    assert set().union(*results) <= possible
    assert router.ring() == initial and len(router) == len(initial)


def test_concurrent_add_node_numbers_every_replica_once(backend):
    """Java's ``addNode`` (ConsistentHashRouter.java:63-69) numbers replicas after ``getExistingReplicas``; with
    adds made one after another, 8 adds of 10 replicas give ``x-0`` .. ``x-79``. Adds from 8 threads, with a
    Python hash function (called while no lock is held), must end the same: no replica number taken twice."""
    import time

    def slow_md5(key: str) -> int:
        time.sleep(0.0002)  # lets the other threads run in the middle of an add
        return backend.md5_hash(key)

    for _ in range(SOAK):
        router = backend.ConsistentHashRouter(hash_function=slow_md5)
        run_threads(lambda i, router=router: router.add_node("x", 10))
        assert router.existing_replicas("x") == 80
        assert sorted(k for _, k, _ in router.ring()) == sorted(f"x-{i}" for i in range(80))


_FINALIZER_SCRIPT = r"""
import gc, sys
import {module} as rr

router = rr.ConsistentHashRouter([f"n{{i}}" for i in range(50)], 20)

class Joiner:
    # a finalizer that changes the ring, run by the garbage collector at any allocation
    def __init__(self):
        self.me = self
    def __del__(self):
        router.add_node("late", 1)
        router.remove_node("late")

gc.set_threshold(50, 1, 1)
keys = [f"key-{{i}}" for i in range(2000)]
for _ in range(40):
    for _ in range(200):
        Joiner()
    assert len(router.ring()) >= 1000
    assert len(router.route_nodes(keys)) == 2000
print("done")
"""


def test_ring_snapshots_survive_a_finalizer_that_changes_the_ring(backend):
    """``ring()`` and ``route_nodes()`` build many Python objects; a garbage-collector finalizer may run during
    any of them and call ``add_node`` / ``remove_node`` on the same thread. The native router must not hold
    its lock while it builds them (that deadlocked the process); run in a child process with a time limit."""
    out = run_on_backend(_FINALIZER_SCRIPT, backend, timeout=120, what="routing while a finalizer changes the ring")
    assert out.strip() == "done"


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_each_call_gets_a_whole_turn_of_the_index(backend, compat):
    """Java's ``TopicPublishInfo.selectOneMessageQueue(QueueFilter...)`` (5.3.3 TopicPublishInfo.java:70-86)
    and ``selectOneMessageQueue(lastBrokerName)`` (4.9.8 TopicPublishInfo.java:69-84) try one full turn of
    ``sendWhichQueue``, a ``ThreadLocalIndex``: each thread's own counter. Shared by 8 threads, every call must
    still see a whole turn, so a queue that passes is always found and the last broker is always avoided."""
    queues = [backend.MessageQueue(TOPIC, b, q) for b in BROKERS for q in range(QUEUES_PER_BROKER)]
    tp = backend.TopicPublishInfo(queues, compat=compat)
    only = queues[5]
    rounds = 2000 * SOAK

    def worker(i: int) -> tuple[int, int]:
        missed = same_broker = 0
        for _ in range(rounds):
            if compat == "5.3" and tp.select_one_message_queue_filtered(lambda mq: mq == only) != only:
                missed += 1
            if tp.select_one_message_queue("broker-a").broker_name == "broker-a":
                same_broker += 1
        return missed, same_broker

    assert run_threads(worker) == [(0, 0)] * THREADS
