"""``rocketroute.aio.Consumer`` on the real servers: ``async for`` and an async listener on the caller's loop, with
the threaded consumer's pulls, rebalance, offsets and retries."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeConcurrentlyStatus, Message
from rocketroute.client.producer import Producer

FAST = {"rebalance_interval": 1000, "persist_consumer_offset_interval": 500}


def _fill(cluster: Any, topic: str, bodies: list[bytes]) -> None:
    with Producer(cluster.namesrv_addrs, "pg-aio-consumer") as p:
        for b in bodies:
            p.send(Message(topic, b))


def _committed(cluster: Any, topic: str, group: str, queues: int) -> int:
    return sum(cluster.consumer_offset(b, group, topic, q) for b in cluster.broker_names for q in range(queues))


def test_async_for_reads_every_message_once_and_commits_them(cluster, fresh_topic):
    topic = fresh_topic(queues=4)
    group = f"cg_aio_for_{time.monotonic_ns()}"
    bodies = [b"m-%d" % i for i in range(60)]
    _fill(cluster, topic, bodies)
    ns = ";".join(cluster.namesrv_addrs)

    async def main() -> tuple[list[bytes], Any]:
        got: list[bytes] = []
        async with rr.aio.Consumer(ns, group, [topic], **FAST) as consumer:
            assert len(consumer.assignment(topic)) == 4 * len(cluster.broker_names)
            async for msg in consumer:
                got.append(msg.body)
                if len(got) == len(bodies):
                    consumer.ack()
                    break
        return got, consumer.stats

    got, stats = asyncio.run(asyncio.wait_for(main(), 60))
    assert sorted(got) == sorted(bodies)
    assert stats.consumed == len(bodies) and stats.failed == 0
    # committed at stop, acknowledged by the brokers: the group's next member starts after the last message
    assert _committed(cluster, topic, group, 4) == len(bodies)


def test_a_message_held_at_stop_is_delivered_again_and_a_task_that_dies_holding_gives_it_back(cluster, fresh_topic):
    topic = fresh_topic(queues=1, brokers=cluster.broker_names[:1])
    group = f"cg_aio_held_{time.monotonic_ns()}"
    _fill(cluster, topic, [b"a", b"b", b"c"])
    ns = ";".join(cluster.namesrv_addrs)

    async def first_run() -> list[bytes]:
        async with rr.aio.Consumer(ns, group, [topic], **FAST) as consumer:
            it = aiter(consumer)
            # "a" is consumed when "b" is asked for; "b" is held when the consumer stops
            return [(await anext(it)).body, (await anext(it)).body]

    async def second_run() -> tuple[bytes, Any]:
        async with rr.aio.Consumer(ns, group, [topic], **FAST) as consumer:
            first = await anext(aiter(consumer))

            async def dies_holding() -> None:
                await anext(aiter(consumer))
                raise RuntimeError("the handler failed")

            with pytest.raises(RuntimeError):
                await asyncio.create_task(dies_holding())
            deadline = time.monotonic() + 10
            while consumer.stats.sent_back < 1 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            consumer.ack()
            return first.body, consumer.stats

    assert asyncio.run(asyncio.wait_for(first_run(), 60)) == [b"a", b"b"]
    again, stats = asyncio.run(asyncio.wait_for(second_run(), 60))
    assert again == b"b"  # held at stop: not committed, so the group reads it again
    assert stats.failed == 1 and stats.sent_back == 1  # "c", given back as RECONSUME_LATER


def test_an_async_listener_runs_on_the_loop_and_reconsume_later_comes_back(cluster, fresh_topic):
    topic = fresh_topic(queues=2)
    group = f"cg_aio_listener_{time.monotonic_ns()}"
    ns = ";".join(cluster.namesrv_addrs)
    seen: list[tuple[bytes, int]] = []

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        all_back = asyncio.Event()

        async def listener(msgs: list[Any], context: Any) -> Any:
            assert asyncio.get_running_loop() is loop
            context.delay_level_when_next_consume = 1  # 1 s
            await asyncio.sleep(0)
            seen.extend((m.body, m.reconsume_times) for m in msgs)
            if len({b for b, n in seen if n == 1}) == 5:
                all_back.set()
            if all(m.reconsume_times == 0 for m in msgs):
                return ConsumeConcurrentlyStatus.RECONSUME_LATER
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        async with rr.aio.Consumer(ns, group, [topic], listener=listener, **FAST) as consumer:
            async with rr.aio.Producer(ns, "pg-aio-listener") as producer:
                for i in range(5):
                    await producer.send(Message(topic, b"r-%d" % i))
            await asyncio.wait_for(all_back.wait(), 30)
            return consumer.stats

    stats = asyncio.run(asyncio.wait_for(main(), 60))
    assert sorted(b for b, n in seen if n == 0) == [b"r-%d" % i for i in range(5)]
    assert sorted(b for b, n in seen if n == 1) == [b"r-%d" % i for i in range(5)]
    assert stats.sent_back >= 5 and stats.consumed >= 5


def test_tasks_iterating_one_consumer_share_its_messages_and_batches_come_from_one_queue(cluster, fresh_topic):
    topic = fresh_topic(queues=4)
    group = f"cg_aio_tasks_{time.monotonic_ns()}"
    bodies = [b"t-%d" % i for i in range(200)]
    _fill(cluster, topic, bodies)
    ns = ";".join(cluster.namesrv_addrs)

    async def main() -> tuple[dict[int, list[bytes]], list[int]]:
        got: dict[int, list[bytes]] = {0: [], 1: [], 2: []}
        sizes: list[int] = []
        done = asyncio.Event()
        async with rr.aio.Consumer(ns, group, [topic], consume_message_batch_max_size=8, **FAST) as consumer:

            async def worker(i: int) -> None:
                async for msgs in consumer.batches():
                    assert len({(m.broker_name, m.queue_id) for m in msgs}) == 1
                    sizes.append(len(msgs))
                    got[i].extend(m.body for m in msgs)
                    await asyncio.sleep(0.001)
                    if sum(map(len, got.values())) == len(bodies):
                        done.set()

            tasks = [asyncio.create_task(worker(i)) for i in range(3)]
            await asyncio.wait_for(done.wait(), 30)
            for _ in tasks:  # each task acknowledges its last batch by asking for the next
                await asyncio.sleep(0.05)
        for t in tasks:
            await t  # the iterations end when the consumer stops
        return got, sizes

    got, sizes = asyncio.run(asyncio.wait_for(main(), 60))
    assert sorted(b for bs in got.values() for b in bs) == sorted(bodies)
    assert sum(1 for bs in got.values() if bs) >= 2 and max(sizes) <= 8


def test_an_orderly_async_listener_keeps_each_queue_s_order_on_the_real_brokers(cluster, fresh_topic):
    from rocketroute.client import ConsumeOrderlyStatus

    topic = fresh_topic(queues=2)
    group = f"cg_aio_orderly_{time.monotonic_ns()}"
    bodies = [b"o-%03d" % i for i in range(40)]
    _fill(cluster, topic, bodies)
    ns = ";".join(cluster.namesrv_addrs)
    seen: dict[tuple[str, int], list[int]] = {}

    async def main() -> None:
        done = asyncio.Event()

        async def listener(msgs: list[Any], context: Any) -> Any:
            await asyncio.sleep(0)
            for m in msgs:
                seen.setdefault((m.broker_name, m.queue_id), []).append(m.queue_offset)
            if sum(map(len, seen.values())) >= len(bodies):
                done.set()
            return ConsumeOrderlyStatus.SUCCESS

        async with rr.aio.Consumer(ns, group, [topic], listener=listener, orderly=True, **FAST):
            await asyncio.wait_for(done.wait(), 30)

    asyncio.run(asyncio.wait_for(main(), 60))
    # every queue read from its first offset, each message once, in queue order (the brokers' locks held)
    assert all(offsets == list(range(len(offsets))) for offsets in seen.values()), seen
    assert sum(map(len, seen.values())) == len(bodies)


def test_the_aio_consumer_refuses_what_it_cannot_do(cluster):
    ns = ";".join(cluster.namesrv_addrs)
    with pytest.raises(ValueError, match="orderly"):
        rr.aio.Consumer(ns, "cg_x", ["T"], orderly=True)
    with pytest.raises(TypeError, match="coroutine function"):
        rr.aio.Consumer(ns, "cg_x", ["T"], listener=lambda msgs, ctx: None)

    async def iterate_before_start() -> None:
        consumer = rr.aio.Consumer(ns, "cg_x", ["T"])
        with pytest.raises(RuntimeError, match="start"):
            await anext(aiter(consumer))

    asyncio.run(iterate_before_start())
