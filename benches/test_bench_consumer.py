"""The consumer against one real local broker, Apache RocketMQ 5.5.0's and RocketMQ-Rust 1.0.0's in turn (started as
in tests/cluster): messages/s consumed by
one consumer from a topic filled beforehand with 1 KiB messages (each round a new group reading from the first
offset, so every round reads the same messages), with one message per listener call (Java's default
``consume_message_batch_max_size``) and with 32; and the time from a member joining a group of two to the group
having rebalanced (every member owning what the strategy says). ratios.py prints both."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from tests.cluster.harness import Cluster

from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Message, Producer

GROUP = "consume 1 KiB from one local broker"
BODY = b"x" * 1024
QUEUES = 8
N = 8000
_GROUPS = itertools.count()


SERVERS = ["apache-5.5.0", "rust-1.0.0"]


@pytest.fixture(scope="module", params=SERVERS)
def filled(request: pytest.FixtureRequest) -> Iterator[tuple[Cluster, str]]:
    cluster = Cluster(namesrvs=1, brokers=1, impl=request.param, full_jit=True)
    cluster.start()
    try:
        topic = "BenchConsume"
        cluster.create_topic(topic, QUEUES)
        with Producer(cluster.namesrv_addrs, "bench-fill") as p:
            for _ in range(N // 32):
                p.send_batch([Message(topic, BODY) for _ in range(32)])
        yield cluster, topic
    finally:
        cluster.close()


def _consume_all(cluster: Cluster, topic: str, lib: ModuleType, batch: int) -> None:
    done = threading.Event()
    lock = threading.Lock()
    seen = [0]

    def listener(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        with lock:
            seen[0] += len(msgs)
            if seen[0] >= N:
                done.set()
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    with Consumer(
        cluster.namesrv_addrs,
        f"bench-consume-{next(_GROUPS)}-{time.monotonic_ns()}",
        [topic],
        listener=listener,
        backend=lib,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        consume_message_batch_max_size=batch,
    ):
        if not done.wait(120):
            raise AssertionError(f"consumed {seen[0]} of {N} messages in 120 s")


@pytest.mark.parametrize("batch", [1, 32])
def test_consume(benchmark: Any, lib: ModuleType, filled: tuple[Cluster, str], batch: int) -> None:
    cluster, topic = filled
    benchmark.group = GROUP
    benchmark.pedantic(_consume_all, args=(cluster, topic, lib, batch), rounds=3, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(
        {"server": cluster.impl.name, "consumer_variant": f"consume, {batch} per listener call", "ops": N}
    )


def test_member_join_to_rebalanced(benchmark: Any, lib: ModuleType, filled: tuple[Cluster, str]) -> None:
    cluster, topic = filled
    mqs = sorted(
        lib.MessageQueue(q.topic, q.broker_name, q.queue_id) for q in cluster.route(topic).subscribe_queues(topic)
    )

    def ok(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    def member(group: str, name: str) -> Consumer:
        return Consumer(cluster.namesrv_addrs, group, [topic], listener=ok, backend=lib, instance_name=name)

    def join() -> None:
        group = f"bench-join-{next(_GROUPS)}-{time.monotonic_ns()}"
        with member(group, "a") as a, member(group, "b") as b:
            start = time.perf_counter()
            with member(group, "c") as c:
                consumers = [a, b, c]
                want = lib.allocate_all(
                    lib.AllocateMessageQueueAveragely(), mqs, sorted(x.client_id for x in consumers)
                )
                while not all(set(x.assignment(topic)) == set(want[x.client_id]) for x in consumers):
                    if time.perf_counter() - start > 60:
                        raise AssertionError("the group did not rebalance within 60 s")
                    time.sleep(0.001)
                times.append(time.perf_counter() - start)

    times: list[float] = []
    benchmark.group = GROUP
    benchmark.pedantic(join, rounds=3, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(
        {"server": cluster.impl.name, "consumer_variant": "member join -> group rebalanced", "join_s": min(times)}
    )
