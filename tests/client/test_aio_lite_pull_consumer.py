"""``rocketroute.aio.LitePullConsumer`` on the scriptable fake brokers, both backends: ``await poll()``, ``async
for`` a message and a batch at a time and what each commits, seeks and assign on the caller's loop, and a stop that
ends a waiting poll. The threaded twin's behaviours are in test_lite_pull_consumer.py (the same base)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import rocketroute as rr

from .test_aio_consumer import _until
from .test_lite_pull_consumer import FAST, FIRST, _cluster


def _consumer(cluster: Any, backend: Any, **settings: Any) -> rr.aio.LitePullConsumer:
    return rr.aio.LitePullConsumer(cluster.namesrv_addr, "G", ["T"], backend=backend, **{**FAST, **FIRST, **settings})


def test_async_for_hands_out_every_message_once_on_the_caller_s_loop(backend):
    with _cluster(12, queues=2) as cluster:
        broker = cluster.brokers["broker-a"]

        async def main() -> tuple[list[bytes], list[str]]:
            got: list[bytes] = []
            async with _consumer(cluster, backend, pull_batch_size=3) as consumer:
                threads = sorted(t.name for t in threading.enumerate() if "rocketroute-remoting" in t.name)
                async for msg in consumer:
                    got.append(msg.body)
                    if len(got) == 12:
                        break
                assert await consumer.poll(100) == []
            return got, threads

        got, threads = asyncio.run(main())
        assert sorted(got) == sorted(b"m%d" % i for i in range(12))
        assert threads == []  # no loop thread of its own: the caller's loop runs the connections
        assert (broker.offsets[("G", "T", 0)], broker.offsets[("G", "T", 1)]) == (6, 6)  # committed at stop


def test_batches_and_poll_return_one_pull_each_and_auto_commit_at_the_next_poll(backend):
    with _cluster(8, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]

        async def main() -> None:
            async with _consumer(cluster, backend, pull_batch_size=4, auto_commit_interval_millis=1000) as consumer:
                first = await consumer.poll(5000)
                assert [m.queue_offset for m in first] == [0, 1, 2, 3]
                await asyncio.sleep(1.1)
                async for batch in consumer.batches():
                    assert [m.queue_offset for m in batch] == [4, 5, 6, 7]
                    break
                await _until(lambda: broker.offsets.get(("G", "T", 0)) == 4, 5, "the first poll committed")
                assert await consumer.committed(backend.MessageQueue("T", "broker-a", 0)) == 4

        asyncio.run(main())


def test_assign_and_seek_on_the_loop(backend):
    with _cluster(10, queues=2) as cluster:

        async def main() -> list[int]:
            consumer = rr.aio.LitePullConsumer(cluster.namesrv_addr, "G", backend=backend, **FAST, **FIRST)
            q1 = backend.MessageQueue("T", "broker-a", 1)
            consumer.assign([q1])
            async with consumer:
                assert consumer.assignment() == (q1,)
                await consumer.seek(q1, 3)
                offsets = [m.queue_offset for m in await consumer.poll(5000)]
                assert await consumer.fetch_message_queues("T") == [backend.MessageQueue("T", "broker-a", 0), q1]
                assert await consumer.offset_for_timestamp(q1, 0) == 5
                with pytest.raises(ValueError, match="Seek offset illegal"):
                    await consumer.seek(q1, 6)
                return offsets

        assert asyncio.run(main()) == [3, 4]


def test_stop_ends_a_waiting_poll_and_async_for(backend):
    with _cluster(0) as cluster:

        async def main() -> tuple[list[Any], list[Any]]:
            consumer = await _consumer(cluster, backend).start()
            waiting = asyncio.ensure_future(consumer.poll(30_000))
            iterating = asyncio.ensure_future(_drain(consumer))
            await asyncio.sleep(0.3)
            await asyncio.wait_for(consumer.stop(), 10)
            return await asyncio.wait_for(waiting, 5), await asyncio.wait_for(iterating, 5)

        assert asyncio.run(main()) == ([], [])


async def _drain(consumer: rr.aio.LitePullConsumer) -> list[Any]:
    return [msg async for msg in consumer]


def test_it_refuses_another_loop_and_a_shared_instance(backend):
    with _cluster(0) as cluster:
        with pytest.raises(TypeError, match="instance= is not taken"):
            rr.aio.LitePullConsumer(cluster.namesrv_addr, "G", instance=object())
        started: dict[str, Any] = {}

        async def start() -> None:
            started["c"] = await _consumer(cluster, backend).start()

        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            asyncio.run_coroutine_threadsafe(start(), loop).result(10)
            consumer = started["c"]

            async def elsewhere() -> None:
                with pytest.raises(RuntimeError, match="used on the event loop that started it"):
                    await consumer.poll(10)
                with pytest.raises(RuntimeError, match="used on the event loop that started it"):
                    consumer.assign([backend.MessageQueue("T", "broker-a", 0)])

            asyncio.run(elsewhere())
            asyncio.run_coroutine_threadsafe(consumer.stop(), loop).result(10)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(5)
            loop.close()
