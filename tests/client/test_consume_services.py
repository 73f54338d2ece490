"""The consume services on their own, without a consumer, on both backends (their ``MessageQueue``): built as a
consumer builds them at start (the listener, the consume pool, the connections, the broker requests, an offset
store, the counters), over process queues filled by hand, with a fake broker over TCP taking the send-backs, for a
listener on the pool's threads and for a coroutine function awaited on the loop (each service's two calls). The
concurrent service settles each listener call's status (the offset moves; failed messages go back to the broker);
the orderly one consumes a queue one call at a time in queue order and delivers the same messages again after a
suspend."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rocketroute.client.api import BrokerAPI
from rocketroute.client.consumer.consume_concurrently import ConcurrentConsumeService
from rocketroute.client.consumer.consume_orderly import OrderlyConsumeService
from rocketroute.client.consumer.listener import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus
from rocketroute.client.consumer.loop_pool import LoopConsumePool
from rocketroute.client.consumer.offset_store import LocalFileOffsetStore
from rocketroute.client.consumer.process_queue import ProcessQueue
from rocketroute.client.consumer.settings import ConsumerSettings
from rocketroute.client.consumer.stats import ConsumerStats
from rocketroute.client.message_decode import decode_messages
from rocketroute.client.workers import ConsumePool
from rocketroute.net import RemotingClient

from ._fake_cluster import CONSUMER_SEND_MSG_BACK, FakeBroker
from ._stored import stored


class Where:
    """Where the listener runs, as a consumer's start builds it: ``rr.Consumer``'s pool of threads, or
    ``rr.aio.Consumer``'s worker tasks on the loop, and the test's listener made what that pool calls (a coroutine
    function on the loop)."""

    def __init__(self, executor: ConsumePool | LoopConsumePool, on_loop: bool) -> None:
        self.executor = executor
        self.on_loop = on_loop

    def listener(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        if not self.on_loop:
            return fn

        async def listener(msgs: list[Any], context: Any) -> Any:
            return fn(msgs, context)

        return listener


@pytest.fixture(params=["threads", "loop"])
def where(request: Any, client: RemotingClient) -> Iterator[Where]:
    """Both: each service has a call for a listener on threads and one for a coroutine function on the loop."""
    if request.param == "threads":
        pool = ConsumePool(4, "test-consume")
        yield Where(pool, on_loop=False)
        pool.shutdown(5)
        return

    async def build() -> LoopConsumePool:  # its workers are tasks of the client's loop
        return LoopConsumePool(4, "test-consume")

    loop_pool = client.run(build())
    yield Where(loop_pool, on_loop=True)
    client.run(loop_pool.shutdown(5))


def _submit(client: RemotingClient, service: Any, msgs: list[Any], pq: ProcessQueue, mq: Any) -> None:
    """Pulled messages cached and handed to the service, on the loop, as the puller does."""

    async def submit() -> None:
        service.submit_consume(msgs, pq, mq, pq.put_messages(msgs))

    client.run(submit())


def _parts(
    broker: FakeBroker, client: RemotingClient, where: Where, tmp_path: Any, backend: Any, **settings: Any
) -> Any:
    cfg = ConsumerSettings.resolve("5.3", None, settings)
    args = ("G", cfg, "5.3", None)
    parts = {
        "clustering": True,
        "on_loop": where.on_loop,
        "executor": where.executor,
        "remoting": client,
        "api": BrokerAPI(client.async_client, "5.3"),
        "master_addr": lambda name: broker.addr,
        "offsets": LocalFileOffsetStore(str(tmp_path / "offsets.json"), backend.MessageQueue),
        "stats": ConsumerStats(),
        "running": lambda: True,
    }
    return args, parts


def _messages(n: int, first_offset: int = 0) -> list[Any]:
    msgs = []
    for i in range(n):
        offset = first_offset + i
        (m,) = decode_messages(stored("T", b"m%d" % offset, queue_offset=offset, commit_log_offset=1000 + offset))
        m.broker_name = "broker-a"
        msgs.append(m)
    return msgs


def _until(check: Any, what: str, timeout_s: float = 5.0) -> None:
    end = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout_s} s: {what}")
        time.sleep(0.01)


def test_consumed_calls_leave_the_cache_and_move_the_offset(broker, client, where, tmp_path, backend) -> None:
    queue = backend.MessageQueue("T", "broker-a", 0)
    calls: list[list[bytes]] = []
    lock = threading.Lock()

    def listener(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        with lock:
            calls.append([m.body for m in msgs])
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    args, parts = _parts(broker, client, where, tmp_path, backend, consume_message_batch_max_size=2)
    pq = ProcessQueue()
    service = ConcurrentConsumeService(*args, where.listener(listener), process_queues={queue: pq}, **parts)
    _submit(client, service, _messages(5, first_offset=10), pq, queue)
    _until(lambda: pq.msg_count == 0, "every message consumed")
    assert sorted(b for call in calls for b in call) == [b"m%d" % i for i in range(10, 15)]
    assert sorted(len(call) for call in calls) == [1, 2, 2]  # slices of consume_message_batch_max_size
    assert parts["offsets"].read_memory(queue) == 15 and parts["stats"].consumed == 5
    assert broker.requests(CONSUMER_SEND_MSG_BACK) == []


def test_a_failed_call_sends_its_messages_back_and_the_offset_still_moves(
    broker, client, where, tmp_path, backend
) -> None:
    queue = backend.MessageQueue("T", "broker-a", 0)

    def listener(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        context.delay_level_when_next_consume = 2
        return ConsumeConcurrentlyStatus.RECONSUME_LATER

    args, parts = _parts(broker, client, where, tmp_path, backend)
    pq = ProcessQueue()
    service = ConcurrentConsumeService(*args, where.listener(listener), process_queues={queue: pq}, **parts)
    _submit(client, service, _messages(3), pq, queue)
    _until(lambda: pq.msg_count == 0, "the failed messages settled")
    sent = [r["extFields"] for r in broker.requests(CONSUMER_SEND_MSG_BACK)]
    assert sorted(f["offset"] for f in sent) == ["1000", "1001", "1002"]  # each message's commit log offset
    assert {(f["group"], f["delayLevel"], f["originTopic"]) for f in sent} == {("G", "2", "T")}
    assert parts["offsets"].read_memory(queue) == 3  # stored again by the broker: consumed here
    assert parts["stats"].sent_back == 3 and parts["stats"].failed == 3


def test_an_orderly_queue_is_consumed_one_call_at_a_time_in_order_and_again_after_a_suspend(
    broker, client, where, tmp_path, backend
) -> None:
    queue = backend.MessageQueue("T", "broker-a", 0)
    calls: list[list[bytes]] = []
    running = [0, 0]  # now, most at once

    def listener(msgs: list[Any], context: Any) -> ConsumeOrderlyStatus:
        running[0] += 1
        running[1] = max(running)
        try:
            calls.append([m.body for m in msgs])
            time.sleep(0.01)
            if len(calls) == 2:  # the second call: the same messages again, after 50 ms
                context.suspend_current_queue_time_millis = 50
                return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
            return ConsumeOrderlyStatus.SUCCESS
        finally:
            running[0] -= 1

    async def lock(mq: Any) -> bool:  # the rebalancer's LOCK_BATCH_MQ: always granted here
        return True

    args, parts = _parts(broker, client, where, tmp_path, backend, consume_message_batch_max_size=3)
    parts["clustering"] = False  # no broker lock to hold: the queue's order is the service's alone
    service = OrderlyConsumeService(*args, where.listener(listener), lock=lock, **parts)
    pq = ProcessQueue()
    _submit(client, service, _messages(6), pq, queue)
    _submit(client, service, _messages(3, first_offset=6), pq, queue)  # not dispatched: the call under way takes it
    _until(lambda: pq.msg_count == 0, "the queue consumed")
    assert calls == [[b"m0", b"m1", b"m2"], [b"m3", b"m4", b"m5"], [b"m3", b"m4", b"m5"], [b"m6", b"m7", b"m8"]]
    assert running[1] == 1 and parts["offsets"].read_memory(queue) == 9
