"""``rocketroute.aio.Consumer`` on the scriptable fake brokers (:mod:`tests.client._fake_cluster`), both backends:
the listener calls on the caller's loop and their bound, what ``async for`` commits, send-backs, and the
shutdown's wait. The same consumer runs on the real servers in tests/cluster/test_aio_consumer.py."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeConcurrentlyStatus

from ._fake_cluster import CONSUMER_SEND_MSG_BACK, FakeCluster
from .test_clients_on_fakes import wait_until

FAST = {"rebalance_interval": 200, "persist_consumer_offset_interval": 100, "heartbeat_broker_interval": 200}


def _cluster(messages: int, queues: int = 2) -> FakeCluster:
    cluster = FakeCluster(brokers=1)
    cluster.topic("T", queues=queues)
    cluster.topic("%RETRY%G", queues=1)
    broker = cluster.brokers["broker-a"]
    for i in range(messages):
        broker.append("T", i % queues, b"m%d" % i)
    return cluster


async def _until(cond: Any, timeout_s: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not cond():
        if loop.time() > deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
        await asyncio.sleep(0.01)


def _consumer(cluster: FakeCluster, backend: Any, **settings: Any) -> rr.aio.Consumer:
    """A consumer of group G on topic T of the fake brokers, from the first offset, with fast timers."""
    return rr.aio.Consumer(
        cluster.namesrv_addr,
        "G",
        ["T"],
        backend=backend,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        **{**FAST, **settings},
    )


def test_async_for_runs_on_the_caller_s_loop_and_commits_what_the_loop_went_past(backend):
    with _cluster(10) as cluster:
        broker = cluster.brokers["broker-a"]

        async def main() -> tuple[list[bytes], list[str], Any]:
            got: list[bytes] = []
            async with _consumer(cluster, backend) as consumer:
                threads = sorted(t.name for t in threading.enumerate() if t.name.startswith("rocketroute"))
                async for msg in consumer:
                    got.append(msg.body)
                    if len(got) == 10:
                        consumer.ack()
                        break
            return got, threads, consumer.stats

        got, threads, stats = asyncio.run(asyncio.wait_for(main(), 20))
        assert stats.consumed == 10
        assert sorted(got) == sorted(b"m%d" % i for i in range(10))
        # no I/O thread and no consume threads: only the callback thread (on_rebalance)
        assert threads == ["rocketroute-callbacks-G"]
        assert broker.offsets.get(("G", "T", 0)) == 5 and broker.offsets.get(("G", "T", 1)) == 5


def test_what_async_for_holds_at_stop_is_not_committed(backend):
    with _cluster(1, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]

        async def main() -> bytes:
            async with _consumer(cluster, backend) as consumer:
                return (await anext(aiter(consumer))).body  # held, never acknowledged

        assert asyncio.run(asyncio.wait_for(main(), 20)) == b"m0"
        assert broker.offsets.get(("G", "T", 0), 0) == 0


def test_an_async_listener_is_awaited_on_the_loop_at_most_consume_thread_min_at_a_time(backend):
    with _cluster(40, queues=4) as cluster:
        running = 0
        most = 0
        seen: list[bytes] = []

        async def main() -> Any:
            loop = asyncio.get_running_loop()

            async def listener(msgs: list[Any], context: Any) -> Any:
                nonlocal running, most
                assert asyncio.get_running_loop() is loop
                running += 1
                most = max(most, running)
                await asyncio.sleep(0.02)
                running -= 1
                seen.extend(m.body for m in msgs)
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

            consumer = _consumer(cluster, backend, consume_thread_min=3, consume_thread_max=3)
            consumer.listener = listener
            async with consumer:
                await _until(lambda: len(seen) == 40, 10, "40 messages consumed")
                return consumer.stats

        stats = asyncio.run(asyncio.wait_for(main(), 20))
        assert most == 3 and stats.consumed == 40 and sorted(seen) == sorted(b"m%d" % i for i in range(40))


def test_a_failed_async_listener_call_is_sent_back_and_a_raising_one_too(backend):
    with _cluster(2, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]

        async def listener(msgs: list[Any], context: Any) -> Any:
            if msgs[0].body == b"m0":
                return ConsumeConcurrentlyStatus.RECONSUME_LATER
            raise ValueError("a bug in the handler")

        async def main() -> Any:
            async with _consumer(
                cluster,
                backend,
                listener=listener,
            ) as consumer:
                await _until(lambda: consumer.stats.sent_back == 2, 10, "both messages sent back")
                await _until(lambda: broker.offsets.get(("G", "T", 0)) == 2, 10, "the offset committed past them")
                return consumer.stats

        stats = asyncio.run(asyncio.wait_for(main(), 20))
        assert stats.failed == 2 and stats.consumed == 0
        assert len([r for r in broker.requests(CONSUMER_SEND_MSG_BACK)]) == 2


@pytest.mark.parametrize("listener_kind", ["async", "threaded"])
def test_ack_index_consumes_the_messages_up_to_it_and_sends_the_rest_back(backend, listener_kind):
    """Java's ``ackIndex`` of a ``CONSUME_SUCCESS`` call: the messages after it failed (sent back), those up to it
    were consumed, and the offset moves past all of them (those sent back are the retry topic's now)."""
    with _cluster(3, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]
        calls: list[list[bytes]] = []

        def answer(msgs: list[Any], context: Any) -> Any:
            calls.append([m.body for m in msgs])
            context.ack_index = 0
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        async def async_listener(msgs: list[Any], context: Any) -> Any:
            return answer(msgs, context)

        async def main() -> Any:
            listener = async_listener if listener_kind == "async" else answer
            async with _consumer(cluster, backend, listener=listener, consume_message_batch_max_size=3) as consumer:
                await _until(lambda: consumer.stats.sent_back == 2, 10, "two messages sent back")
                await _until(lambda: broker.offsets.get(("G", "T", 0)) == 3, 10, "the offset committed past them")
                return consumer.stats

        if listener_kind == "threaded":  # rr.Consumer: the listener runs on the consume threads
            with rr.Consumer(
                cluster.namesrv_addr,
                "G",
                ["T"],
                listener=answer,
                backend=backend,
                consume_from_where="CONSUME_FROM_FIRST_OFFSET",
                consume_message_batch_max_size=3,
                **FAST,
            ) as consumer:
                wait_until(lambda: consumer.stats.sent_back == 2, 10, "two messages sent back")
                wait_until(lambda: broker.offsets.get(("G", "T", 0)) == 3, 10, "the offset committed past them")
                stats = consumer.stats
        else:
            stats = asyncio.run(asyncio.wait_for(main(), 20))
        assert calls == [[b"m0", b"m1", b"m2"]]
        assert (stats.consumed, stats.failed, stats.sent_back) == (1, 2, 2)
        assert broker.offsets.get(("G", "T", 0)) == 3
        assert len(broker.requests(CONSUMER_SEND_MSG_BACK)) == 2


def test_a_task_that_ends_holding_a_batch_gives_it_back_and_is_not_kept(backend):
    """A task of ``async for`` that raises while holding a message: the message is sent back (RECONSUME_LATER,
    as a listener that raised), another task gets the next one, and the ended task is not kept alive."""
    import gc
    import weakref

    with _cluster(2, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]

        async def main() -> tuple[Any, Any, list[bytes]]:
            async with _consumer(cluster, backend) as consumer:

                async def first() -> None:
                    async for _msg in consumer:
                        raise ValueError("a bug in the handler")

                task = asyncio.ensure_future(first())
                with pytest.raises(ValueError):
                    await task
                ended = weakref.ref(task)
                del task
                got = []
                async for msg in consumer:
                    got.append(msg.body)
                    consumer.ack()
                    break
                await _until(lambda: consumer.stats.sent_back == 1, 10, "the held message sent back")
                await _until(lambda: broker.offsets.get(("G", "T", 0)) == 2, 10, "the offset committed past both")
                gc.collect()
                kept = ended() is not None  # while the consumer runs: the feed let go of the task once it ended
                return consumer.stats, kept, got

        stats, kept, got = asyncio.run(asyncio.wait_for(main(), 20))
        assert got == [b"m1"]
        assert (stats.consumed, stats.failed, stats.sent_back) == (1, 1, 1)
        assert not kept


def test_stop_waits_for_the_listener_calls_under_way_then_cancels_them(backend):
    with _cluster(2, queues=2) as cluster:
        broker = cluster.brokers["broker-a"]
        finished: list[bytes] = []
        started = 0

        async def listener(msgs: list[Any], context: Any) -> Any:
            nonlocal started
            started += 1
            await asyncio.sleep(0.3 if msgs[0].body == b"m0" else 60)
            finished.append(msgs[0].body)
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        async def main() -> float:
            consumer = _consumer(
                cluster,
                backend,
                listener=listener,
                await_termination_millis_when_shutdown=1000,
            )
            await consumer.start()
            await _until(lambda: started == 2, 10, "both listener calls started")
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            await consumer.stop()
            return loop.time() - t0

        took = asyncio.run(asyncio.wait_for(main(), 20))
        assert finished == [b"m0"] and 0.9 <= took < 5
        # m0's call finished during the wait and is committed; m1's was abandoned and is not
        assert broker.offsets.get(("G", "T", 0)) == 1 and broker.offsets.get(("G", "T", 1), 0) == 0


def test_the_aio_consumer_is_used_on_its_own_loop_only(backend):
    with _cluster(0) as cluster:
        consumer = _consumer(cluster, backend)

        async def start() -> None:
            await consumer.start()

        async def elsewhere() -> None:
            with pytest.raises(RuntimeError, match="event loop that started it"):
                await consumer.rebalance_now()
            with pytest.raises(RuntimeError, match="event loop that started it"):
                await anext(aiter(consumer))

        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(start())
            asyncio.run(elsewhere())
        finally:
            loop.run_until_complete(consumer.stop())
            loop.close()


def test_an_orderly_async_listener_reads_each_queue_in_order_one_call_at_a_time(backend):
    from rocketroute.client import ConsumeOrderlyStatus

    from .._instant_peer import instant_peer

    queues, per_queue = 4, 40
    offsets: dict[int, list[int]] = {}
    busy: set[int] = set()
    overlap: list[int] = []

    async def main(addr: str) -> None:
        done = asyncio.Event()

        async def listener(msgs: list[Any], context: Any) -> Any:
            q = msgs[0].queue_id
            if q in busy:
                overlap.append(q)
            busy.add(q)
            await asyncio.sleep(0.001)  # other queues' calls run meanwhile, never this queue's
            offsets.setdefault(q, []).extend(m.queue_offset for m in msgs)
            busy.discard(q)
            if sum(map(len, offsets.values())) >= queues * per_queue:
                done.set()
            return ConsumeOrderlyStatus.SUCCESS

        async with rr.aio.Consumer(
            addr,
            "cg-aio-orderly",
            ["PeerTopic"],
            listener=listener,
            orderly=True,
            backend=backend,
            consume_from_where="CONSUME_FROM_FIRST_OFFSET",
            consume_message_batch_max_size=3,
        ):
            await asyncio.wait_for(done.wait(), 30)

    with instant_peer("--queues", str(queues), "--messages-per-queue", str(per_queue)) as addr:
        asyncio.run(main(addr))
    assert offsets == {q: list(range(per_queue)) for q in range(queues)} and not overlap


def test_an_orderly_async_listener_s_suspend_delivers_the_same_messages_again(backend):
    from rocketroute.client import ConsumeOrderlyStatus

    with _cluster(3, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]
        calls: list[list[bytes]] = []

        async def listener(msgs: list[Any], context: Any) -> Any:
            calls.append([m.body for m in msgs])
            if len(calls) == 1:
                context.suspend_current_queue_time_millis = 50
                return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
            return ConsumeOrderlyStatus.SUCCESS

        async def main() -> None:
            async with _consumer(
                cluster,
                backend,
                listener=listener,
                orderly=True,
                consume_message_batch_max_size=3,
            ) as consumer:
                await _until(lambda: broker.offsets.get(("G", "T", 0)) == 3, 10, "the offset committed past all 3")
                assert consumer.stats.failed == 3 and consumer.stats.consumed == 3

        asyncio.run(asyncio.wait_for(main(), 20))
        assert calls[:2] == [[b"m0", b"m1", b"m2"]] * 2  # the same messages again, in order, after the suspend


def test_orderly_without_a_listener_is_refused():
    with pytest.raises(ValueError, match="orderly consumption takes an async listener"):
        rr.aio.Consumer("127.0.0.1:1", "G", ["T"], orderly=True)


def test_an_orderly_message_past_max_reconsume_times_goes_to_the_dead_letter_queue(backend):
    from rocketroute.client import ConsumeOrderlyStatus

    from ._fake_cluster import CONSUMER_SEND_MSG_BACK

    with _cluster(1, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]
        seen: list[int] = []

        async def listener(msgs: list[Any], context: Any) -> Any:
            seen.append(msgs[0].reconsume_times)
            context.suspend_current_queue_time_millis = 20
            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT  # never consumed

        async def main() -> Any:
            async with _consumer(
                cluster,
                backend,
                listener=listener,
                orderly=True,
                max_reconsume_times=2,
            ) as consumer:
                await _until(lambda: broker.offsets.get(("G", "T", 0)) == 1, 10, "the offset committed past it")
                return consumer.stats

        stats = asyncio.run(asyncio.wait_for(main(), 20))
        back = [r["extFields"] for r in broker.requests(CONSUMER_SEND_MSG_BACK)]
        assert seen == [0, 1, 2]  # suspended twice, then over the limit: sent to the dead-letter queue
        assert [b["delayLevel"] for b in back] == ["-1"] and stats.sent_back == 1 and stats.failed == 3


@pytest.mark.parametrize("pattern", ["each", "break", "ends-holding"])
def test_ack_settles_only_the_messages_handed_out_and_the_rest_of_the_batch_comes_next(backend, pattern):
    """``ack()`` with batches of 8 (issue 52, item 1): only what the task was handed is consumed, and the offset never
    moves past a message not handed out; the rest of the batch is the next thing ``async for`` returns, after a
    ``break`` too. A task that ends holding a part of a batch gives back only that part (the remainder goes to the
    next task). The same on Apache's servers: tests/cluster/test_aio_ack.py."""
    with _cluster(24, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]
        wanted = [b"m%d" % i for i in range(24)]

        async def main() -> tuple[list[bytes], list[int], Any]:
            got: list[bytes] = []
            offsets: list[int] = []
            async with _consumer(cluster, backend, consume_message_batch_max_size=8) as consumer:
                (mq,) = consumer.assignment("T")
                if pattern == "ends-holding":

                    async def takes_three_then_dies() -> None:
                        async for msg in consumer:
                            got.append(msg.body)
                            if len(got) == 2:
                                consumer.ack()  # m0, m1 consumed
                            if len(got) == 3:
                                raise ValueError("the handler failed on m2")

                    with pytest.raises(ValueError):
                        await asyncio.create_task(takes_three_then_dies())
                    await _until(lambda: consumer.stats.sent_back == 1, 10, "m2 sent back")
                while len(got) < len(wanted):
                    async for msg in consumer:
                        got.append(msg.body)
                        consumer.ack()
                        offsets.append(consumer.committed_offsets()[mq])
                        if pattern == "break" or len(got) == len(wanted):
                            break
                return got, offsets, consumer.stats

        got, offsets, stats = asyncio.run(asyncio.wait_for(main(), 20))
        if pattern == "ends-holding":  # m2 went back to the broker as a retry; m3 onwards came to the next loop
            assert got[:3] == wanted[:3] and got[3:] == wanted[3:]
            assert (stats.failed, stats.sent_back) == (1, 1)
        else:
            assert got == wanted  # one queue: in order, each once
            # each ack moved the offset to just past the message acknowledged, never further
            assert offsets == list(range(1, 25))
        assert stats.consumed == 24 - (pattern == "ends-holding")
        assert broker.offsets.get(("G", "T", 0)) == 24
