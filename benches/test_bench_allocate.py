"""Consumer allocation: every strategy at 16 queues / 4 consumers and 1024 queues / 100 consumers,
``allocate_all`` against a per-consumer loop, and the MD5 ring's route, native against reference."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import rocketroute.reference as ref

SIZES = [(16, 4), (1024, 100)]
STRATEGIES = [
    "AVG",
    "AVG_BY_CIRCLE",
    "CONSISTENT_HASH",
    "MACHINE_ROOM",
    "MACHINE_ROOM_NEARBY-AVG",
    "STICKY",
    "CONSISTENT_HASH_BOUNDED",
]


def queues(lib: ModuleType, n: int) -> list[Any]:
    rooms = ("room1", "room2")
    return [lib.MessageQueue("TopicTest", f"{rooms[i % 2]}@broker-{i % 8}", i // 8) for i in range(n)]


def consumers(n: int) -> list[str]:
    return [f"room{1 + i % 2}-10.0.{i // 250}.{i % 250}@{4000 + i}" for i in range(n)]


def strategy(lib: ModuleType, name: str, size: tuple[int, int] = (1024, 100)) -> Any:
    if name == "STICKY":  # the group a moment ago: AVG's blocks without the first consumer, which just joined
        n_mq, n_cid = size
        before = lib.allocate_all(lib.AllocateMessageQueueAveragely(), queues(lib, n_mq), consumers(n_cid)[1:])
        return lib.AllocateMessageQueueSticky(before)
    if name == "CONSISTENT_HASH_BOUNDED":
        return lib.AllocateMessageQueueConsistentHashBounded(1.25)
    if name == "AVG":
        return lib.AllocateMessageQueueAveragely()
    if name == "AVG_BY_CIRCLE":
        return lib.AllocateMessageQueueAveragelyByCircle()
    if name == "CONSISTENT_HASH":
        return lib.AllocateMessageQueueConsistentHash()
    if name == "MACHINE_ROOM":
        return lib.AllocateMessageQueueByMachineRoom({"room1", "room2"})
    return lib.AllocateMachineRoomNearby(
        lib.AllocateMessageQueueAveragely(),
        broker_deploy_in=lambda mq: mq.broker_name.split("@")[0],
        consumer_deploy_in=lambda cid: cid.split("-")[0],
    )


def _names(result: Any) -> list[str]:
    return [str(mq) for mq in result]


@pytest.mark.parametrize("name", STRATEGIES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{q}q-{c}c" for q, c in SIZES])
def test_allocate(benchmark: Any, lib: ModuleType, name: str, size: tuple[int, int]) -> None:
    n_mq, n_cid = size
    benchmark.group = f"allocate {name} ({n_mq} queues, {n_cid} consumers)"
    mqs, cids = queues(lib, n_mq), consumers(n_cid)
    cid = cids[n_cid // 2]
    got = benchmark(strategy(lib, name, size).allocate, "group", cid, mqs, cids)
    assert _names(got) == _names(strategy(ref, name, size).allocate("group", cid, queues(ref, n_mq), cids))


@pytest.mark.parametrize("name", ["AVG", "CONSISTENT_HASH", "STICKY", "CONSISTENT_HASH_BOUNDED"])
def test_allocate_all(benchmark: Any, lib: ModuleType, name: str) -> None:
    benchmark.group = f"allocate_all {name} (1024 queues, 100 consumers)"
    mqs, cids = queues(lib, 1024), consumers(100)
    got = benchmark(lib.allocate_all, strategy(lib, name), mqs, cids)
    assert sum(len(v) for v in got.values()) == 1024


def test_per_consumer_loop_consistent_hash(benchmark: Any, lib: ModuleType) -> None:
    benchmark.group = "per-consumer allocate loop CONSISTENT_HASH (1024 queues, 100 consumers)"
    mqs, cids = queues(lib, 1024), consumers(100)
    s = strategy(lib, "CONSISTENT_HASH")

    def loop() -> int:
        return sum(len(s.allocate("group", c, mqs, cids)) for c in cids)

    assert benchmark.pedantic(loop, rounds=3, iterations=1) == 1024


def test_ring_route(benchmark: Any, lib: ModuleType) -> None:
    benchmark.group = "ConsistentHashRouter.route_node (100 nodes x 10 virtual nodes)"
    router = lib.ConsistentHashRouter(consumers(100), 10)
    key = "MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=7]"
    assert benchmark(router.route_node, key) == ref.ConsistentHashRouter(consumers(100), 10).route_node(key)
