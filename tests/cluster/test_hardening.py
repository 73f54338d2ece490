"""Issue 27 on real servers: the client under stalled brokers, hostile messages and careless use.

Each test reproduces one defect of the audit and fails without its fix: sends to a paused broker end at their
timeout and timed-out requests are not written later (item 1); shutdown is bounded while a listener blocks (2);
the client's own callbacks may call it back (3); shutdown works from inside a listener (4); an undecodable message
goes to the dead-letter queue instead of stalling its queue, and LZ4 bodies decode (5); message_model,
decode_read_body are read (6); a listener returning no status is named in a WARNING (9); a second member with the
same client id is refused (10)."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from typing import Any

import lz4.frame
import pytest

from rocketroute.client import (
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyStatus,
    Consumer,
    DuplicateClientIdError,
    Message,
    Producer,
)
from rocketroute.client.compression import CompressionType
from rocketroute.client.message_const import COMPRESSED_FLAG
from rocketroute.client.message_encode import EncodedMessage, encode_for_send
from rocketroute.client.producer.send_wire import EncodedSend
from rocketroute.errors import BrokerResponseError
from rocketroute.protocol.response_code import ResponseCode

from .test_consumer import FAST, Receipts, wait_until

MB = 1024 * 1024


def _group(stem: str) -> str:
    return f"cg_{stem}_{time.monotonic_ns()}"


# -- item 1 --------------------------------------------------------------------------------------------------


def test_async_sends_to_a_paused_broker_end_at_their_timeout(cluster, fresh_topic, caplog):
    topic = fresh_topic(queues=4, brokers=["broker-a"])
    with Producer(cluster.namesrv_addrs, "pg-paused", send_msg_timeout=1000) as producer:
        producer.send(Message(topic, b"warm"), timeout_ms=10_000)  # route known, connection open
        cluster.pause_broker("broker-a")
        try:

            async def main() -> list[Any]:
                sends = [producer.send_async(Message(topic, b"x" * 1024)) for _ in range(3000)]
                # every send ends by its own 1 s budget; wait_for's 20 s would raise TimeoutError instead
                return await asyncio.wait_for(asyncio.gather(*sends, return_exceptions=True), 20)

            with caplog.at_level(logging.ERROR, logger="asyncio"):
                outcomes = asyncio.run(main())
        finally:
            cluster.resume_broker("broker-a")
    assert len(outcomes) == 3000 and all(isinstance(o, Exception) for o in outcomes)
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


def test_sync_sends_that_timed_out_are_not_stored_when_the_broker_resumes(cluster, fresh_topic):
    topic = fresh_topic(queues=1, brokers=["broker-a"])
    with Producer(
        cluster.namesrv_addrs, "pg-paused-sync", send_msg_timeout=500, retry_times_when_send_failed=0
    ) as producer:
        producer.send(Message(topic, b"warm"), timeout_ms=10_000)
        cluster.pause_broker("broker-a")
        failed = 0
        body = os.urandom(3_900_000)  # incompressible: 3.9 MB on the wire too
        try:
            for _ in range(15):  # 15 x 3.9 MB, each reported failed
                try:
                    producer.send(Message(topic, body))
                except Exception:
                    failed += 1
            conn = producer._life.remoting.async_client._conns[cluster.broker_addr("broker-a")]
            assert conn._out_bytes == 0  # nothing of a failed send is kept to be written later
        finally:
            cluster.resume_broker("broker-a")
        assert failed == 15
        _send_once_the_broker_takes_it(producer, Message(topic, b"after"))  # behind whatever reached the socket
    cluster.wait_dispatched("broker-a")
    stored = cluster.max_offset("broker-a", topic, 0) - 2  # "warm" and "after"
    # only what had reached the socket before the timeouts can arrive: a few frames, not the 15 reported failed
    assert 0 <= stored <= 4, stored


def _send_once_the_broker_takes_it(producer: Producer, msg: Message, within_s: float = 30) -> None:
    """Send ``msg`` on the producer's connection, again while the broker answers SYSTEM_BUSY at once. Right after a
    pause the broker may refuse every send for a moment: a store in progress when it was stopped (its own, e.g. a
    delayed message coming due) makes its commit log look locked for as long as the pause lasted
    (``isOSPageCacheBusy``), until that store's thread runs again. A refused send is not stored."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            producer.send(msg, timeout_ms=20_000)
            return
        except BrokerResponseError as e:
            if e.response_code != ResponseCode.SYSTEM_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.1)


# -- item 2 --------------------------------------------------------------------------------------------------


def test_shutdown_is_bounded_while_a_listener_blocks(cluster, fresh_topic, caplog):
    topic = fresh_topic(queues=1)
    group = _group("blocked")
    entered, release = threading.Event(), threading.Event()

    def blocking(msgs: list[Any], context: Any) -> Any:
        entered.set()
        release.wait(60)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    consumer = Consumer(
        cluster.namesrv_addrs, group, [topic], listener=blocking, await_termination_millis_when_shutdown=1000, **FAST
    ).start()
    try:
        with Producer(cluster.namesrv_addrs, "pg-blocked") as p:
            p.send(Message(topic, b"stuck"))
        assert entered.wait(30)
        with caplog.at_level(logging.WARNING, logger="rocketroute.consumer"):
            begin = time.monotonic()
            consumer.shutdown()
            took = time.monotonic() - begin
        assert took < 10, took
        assert any("abandoned" in r.getMessage() for r in caplog.records)
        # its message was not committed: the group's next member gets it again
        again = Receipts()
        with Consumer(cluster.namesrv_addrs, group, [topic], listener=again.listener("next"), **FAST):
            wait_until(lambda: again.bodies()[b"stuck"] >= 1, 30, "the abandoned message is consumed again")
    finally:
        release.set()
        consumer.shutdown()


# -- item 3 --------------------------------------------------------------------------------------------------


def test_callbacks_may_call_the_client_back(cluster, fresh_topic):
    topic = fresh_topic(queues=4, brokers=["broker-a"])
    other = fresh_topic(queues=4)
    sent: list[Any] = []

    def on_change(change: Any) -> None:  # a send to a topic not known yet: a route fetch from the callback
        sent.append(producer.send(Message(other, b"from-callback")))

    producer = Producer(cluster.namesrv_addrs, "pg-reentrant", on_route_change=on_change).start()
    try:
        assert len(producer.publish_info(topic).message_queues) == 4
        cluster.create_topic(topic, 8, ["broker-a"])
        changes = producer.refresh_routes()
        assert changes and sent and sent[0].send_status.name == "SEND_OK"  # the callback ran, and its send
        begin = time.monotonic()
        producer.send(Message(topic, b"after"), timeout_ms=20_000)  # behind whatever reached the socket
        assert time.monotonic() - begin < 3
    finally:
        producer.shutdown()

    seen: list[list[str]] = []
    consumer = Consumer(
        cluster.namesrv_addrs,
        _group("reentrant"),
        [topic],
        listener=Receipts().listener("c"),
        on_rebalance=lambda t, assigned: seen.append(consumer.consumer_ids(t)),
        **FAST,
    )
    consumer.start()  # returns: the callback's consumer_ids() did not block it
    try:
        assert seen and consumer.client_id in seen[0]
    finally:
        consumer.shutdown()


# -- item 4 --------------------------------------------------------------------------------------------------


def test_shutdown_from_inside_a_listener(cluster, fresh_topic):
    topic = fresh_topic(queues=1)
    group = _group("self_stop")
    got: list[bytes] = []
    errors: list[BaseException] = []

    def listener(msgs: list[Any], context: Any) -> Any:
        got.extend(m.body for m in msgs)
        if len(got) == 10:
            try:
                consumer.shutdown()
            except BaseException as e:
                errors.append(e)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    consumer = Consumer(cluster.namesrv_addrs, group, [topic], listener=listener, consume_thread_min=1, **FAST)
    consumer.start()
    with Producer(cluster.namesrv_addrs, "pg-self-stop") as p:
        for i in range(10):
            p.send(Message(topic, b"m%d" % i))
    wait_until(lambda: not consumer.running and consumer._state == "shut down", 30, "the consumer shut down")
    assert not errors
    assert not consumer._remoting._thread.is_alive()
    assert cluster.consumer_ids("broker-a", group) == [] and cluster.consumer_ids("broker-b", group) == []
    # the nine before the caller's own were committed; at most the tenth (the last consumed: the two queues'
    # messages interleave, so not always m9) comes again
    again = Receipts()
    with Consumer(
        cluster.namesrv_addrs,
        group,
        [topic],
        listener=again.listener("next"),
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        **FAST,
    ):
        time.sleep(3)
    assert set(again.bodies()) <= {got[-1]}


# -- item 5 --------------------------------------------------------------------------------------------------


def _send_raw(producer: Producer, topic: str, body: bytes, sys_flag: int) -> None:
    """Send ``body`` as a Java producer with ``compressType`` set would: the body as given, the sysFlag bits."""
    plain = encode_for_send(Message(topic, b"-"), compress_over=1 << 30)
    enc = EncodedSend.of(topic, EncodedMessage(body, sys_flag, plain.properties, plain.msg_id), 0)
    info = producer.publish_info(topic)
    addr, request = producer._wire.request(enc, info.message_queues[0])
    producer._life.remoting.invoke_checked(addr, request, 5000)


def test_an_undecodable_message_goes_to_the_dead_letter_queue_and_lz4_decodes(cluster, fresh_topic, caplog):
    topic = fresh_topic(queues=1, brokers=["broker-a"])
    group = _group("undecodable")
    receipts = Receipts()
    lz4_flag = COMPRESSED_FLAG | CompressionType.LZ4.compression_flag
    with (
        caplog.at_level(logging.ERROR, logger="rocketroute.consumer"),
        Consumer(cluster.namesrv_addrs, group, [topic], listener=receipts.listener("c"), **FAST) as consumer,
        Producer(cluster.namesrv_addrs, "pg-lz4") as p,
    ):
        _send_raw(p, topic, b"this is not an LZ4 frame", lz4_flag)
        _send_raw(p, topic, lz4.frame.compress(b"a Java producer's LZ4 body " * 100), lz4_flag)
        for i in range(10):
            p.send(Message(topic, b"good-%d" % i))
        wait_until(lambda: len(receipts.bodies()) == 11, 30, "the LZ4 body and the 10 after the bad one")
        assert consumer.stats.undecodable == 1
    bodies = receipts.bodies()
    assert bodies[b"a Java producer's LZ4 body " * 100] == 1
    assert all(bodies[b"good-%d" % i] == 1 for i in range(10))
    assert any("cannot be decoded" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
    dlq = f"%DLQ%{group}"
    wait_until(lambda: cluster.max_offset("broker-a", dlq, 0) == 1, 30, "the bad message is in the group's DLQ")


# -- item 6 --------------------------------------------------------------------------------------------------


def test_message_model_setting_broadcasts_and_decode_read_body_is_read(cluster, fresh_topic):
    topic = fresh_topic(queues=4)
    group = _group("bcast")
    a, b = Receipts(), Receipts()
    bodies: list[Any] = []

    def no_body(msgs: list[Any], context: Any) -> Any:
        bodies.extend(m.body for m in msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    with (
        Consumer(cluster.namesrv_addrs, group, [topic], listener=a.listener("a"), message_model="BROADCASTING", **FAST),
        Consumer(cluster.namesrv_addrs, group, [topic], listener=b.listener("b"), message_model="BROADCASTING", **FAST),
        Consumer(cluster.namesrv_addrs, _group("nobody"), [topic], listener=no_body, decode_read_body=False, **FAST),
        Producer(cluster.namesrv_addrs, "pg-bcast") as p,
    ):
        for i in range(40):
            p.send(Message(topic, b"b%d" % i))
        wait_until(lambda: len(a.bodies()) == 40 and len(b.bodies()) == 40, 30, "each member gets all 40")
        wait_until(lambda: len(bodies) == 40, 30, "the body-less consumer gets all 40")
    assert set(bodies) == {None}


# -- item 9 --------------------------------------------------------------------------------------------------


def returns_none_once(seen: list[bytes], status: Any) -> Any:
    def listener_without_status(msgs: list[Any], context: Any) -> Any:
        first = not seen
        seen.extend(m.body for m in msgs)
        return None if first else status

    return listener_without_status


@pytest.mark.parametrize("orderly", [False, True], ids=["concurrently", "orderly"])
def test_a_listener_returning_no_status_is_named_in_a_warning(cluster, fresh_topic, caplog, orderly):
    topic = fresh_topic(queues=1)
    seen: list[bytes] = []
    status = ConsumeOrderlyStatus.SUCCESS if orderly else ConsumeConcurrentlyStatus.CONSUME_SUCCESS
    with (
        caplog.at_level(logging.WARNING, logger="rocketroute.consumer"),
        Consumer(
            cluster.namesrv_addrs,
            _group("nostatus"),
            [topic],
            listener=returns_none_once(seen, status),
            orderly=orderly,
            suspend_current_queue_time_millis=100,
            **FAST,
        ),
        Producer(cluster.namesrv_addrs, "pg-nostatus") as p,
    ):
        p.send(Message(topic, b"once"))
        wait_until(lambda: len(seen) >= 2, 30, "the message is consumed again after the missing status")
    expected = "SUSPEND_CURRENT_QUEUE_A_MOMENT" if orderly else "RECONSUME_LATER"
    warned = [r.getMessage() for r in caplog.records if "listener_without_status returned None" in r.getMessage()]
    assert warned and expected in warned[0]


# -- item 10 -------------------------------------------------------------------------------------------------


def test_a_second_member_with_the_same_client_id_is_refused(cluster, fresh_topic):
    topic = fresh_topic(queues=4)
    group = _group("dup")
    first, second = Receipts(), Receipts()
    same = {"instance_name": "same-instance", "client_ip": "127.0.0.1"}
    with Consumer(cluster.namesrv_addrs, group, [topic], listener=first.listener("first"), **same, **FAST):
        with pytest.raises(DuplicateClientIdError, match=r"already runs with client id '127\.0\.0\.1@same-instance'"):
            Consumer(cluster.namesrv_addrs, group, [topic], listener=second.listener("second"), **same, **FAST).start()
        with Producer(cluster.namesrv_addrs, "pg-dup") as p:
            for i in range(20):
                p.send(Message(topic, b"d%d" % i))
        wait_until(lambda: len(first.bodies()) == 20, 30, "the first member consumes everything")
    assert not second.bodies() and all(n == 1 for n in first.bodies().values())


def test_a_listener_stuck_past_consume_timeout_has_its_message_sent_back(cluster, fresh_topic):
    topic = fresh_topic(queues=1)
    entered, release = threading.Event(), threading.Event()
    seen: list[tuple[bytes, int]] = []

    def listener(msgs: list[Any], context: Any) -> Any:
        seen.extend((m.body, m.reconsume_times) for m in msgs)
        if msgs[0].reconsume_times == 0:
            entered.set()
            release.wait(60)  # stuck
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    with Consumer(cluster.namesrv_addrs, _group("expire"), [topic], listener=listener, consume_timeout=1, **FAST) as c:
        try:
            with Producer(cluster.namesrv_addrs, "pg-expire") as p:
                p.send(Message(topic, b"slow"))
            assert entered.wait(30)
            mq = next(q for q in c.assignment(topic) if c.process_queue(q).msg_count)
            assert c.process_queue(mq).msg_count == 1
            # the timer's round, a minute and a second later (consume_timeout=1 minute)
            c._call(c._consume_service.clean_expired(now_ms=time.time_ns() // 1_000_000 + 61_000))
            assert c.process_queue(mq).msg_count == 0  # the stuck message no longer holds the queue
            wait_until(lambda: (b"slow", 1) in seen, 30, "the expired message comes back through the retry topic")
        finally:
            release.set()
