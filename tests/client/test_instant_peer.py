"""Our producer and consumer against the instant peer (the far end of ``make bench-clients``): the peer answers as a
broker would, so the benchmark measures real sends and real pulls. The Java client's side is
benches/test_bench_clients.py."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections import defaultdict
from typing import Any

import pytest

from rocketroute.client import ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, Consumer, Message, SendStatus
from rocketroute.client.producer import Producer
from rocketroute.net import RemotingClient
from rocketroute.protocol import RemotingCommand, RequestCode, ResponseCode

from .._instant_peer import BINARY, instant_peer


def test_sends_are_answered_with_offsets_counted_per_queue() -> None:
    with instant_peer("--queues", "4") as addr, Producer(addr, "pg-instant") as producer:
        results = [producer.send(Message("AnyTopic", b"x" * 100)) for _ in range(40)]
    assert {r.send_status for r in results} == {SendStatus.SEND_OK}
    per_queue = defaultdict(list)
    for r in results:
        per_queue[r.queue.queue_id].append(r.queue_offset)
        assert r.queue.broker_name == "broker-a" and len(r.offset_msg_id or "") == 32
    assert sorted(per_queue) == [0, 1, 2, 3]
    assert all(offsets == list(range(len(offsets))) for offsets in per_queue.values()), per_queue


def test_a_batch_gets_one_id_and_one_offset_per_message() -> None:
    with instant_peer("--queues", "1") as addr, Producer(addr, "pg-instant") as producer:
        first = producer.send_batch([Message("T", b"a"), Message("T", b"b"), Message("T", b"c")])
        second = producer.send(Message("T", b"d"))
    assert len((first.offset_msg_id or "").split(",")) == 3 and len((first.msg_id or "").split(",")) == 3
    assert (first.queue_offset, second.queue_offset) == (0, 3)


def test_a_request_it_does_not_answer_is_refused_not_dropped() -> None:
    with instant_peer() as addr, RemotingClient() as client:
        response = client.invoke(addr, RemotingCommand.request(RequestCode.VIEW_MESSAGE_BY_ID, {}), 3000)
    assert response.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
    assert "not answered by the instant peer" in (response.remark or "")


def test_the_raw_sender_measures_the_peer_s_ceiling() -> None:
    with instant_peer() as addr:
        done = subprocess.run(
            [str(BINARY), "raw-send", "--addr", addr, "--count", "5000", "--window", "64"],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
    figures = json.loads(done.stdout)
    assert figures["msgs"] == 5000 and figures["msgs_per_s"] > 0


def peer_body(size: int) -> bytes:
    """The bodies the peer serves (rust/peer/src/stored.rs): the benchmarks' printable bytes."""
    out = bytearray(size)
    x = 12345
    for i in range(size):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out[i] = ord("a") + (x >> 16) % 26
    return bytes(out)


def test_the_consumer_receives_every_message_of_every_queue_as_the_peer_says(backend) -> None:
    queues, per_queue, size = 4, 70, 300
    delivered: list[Any] = []
    lock, done = threading.Lock(), threading.Event()

    def listener(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        with lock:
            delivered.extend(msgs)
            if len(delivered) >= queues * per_queue:
                done.set()
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    args = ("--queues", str(queues), "--messages-per-queue", str(per_queue), "--body-size", str(size))
    with instant_peer(*args) as addr:
        settings = {"consume_from_where": "CONSUME_FROM_FIRST_OFFSET", "consume_message_batch_max_size": 8}
        with Consumer(addr, "cg-instant", ["PeerTopic"], listener=listener, backend=backend, **settings):
            assert done.wait(30), f"{len(delivered)} of {queues * per_queue} messages"
        with RemotingClient() as client:  # the offsets committed at shutdown: every queue read to its end
            committed = [
                client.invoke(addr, RemotingCommand.request(RequestCode.QUERY_CONSUMER_OFFSET, fields), 3000)
                for fields in (
                    {"consumerGroup": "cg-instant", "topic": "PeerTopic", "queueId": q} for q in range(queues)
                )
            ]
    assert [(r.code, r.ext_fields.get("offset")) for r in committed] == [(ResponseCode.SUCCESS, str(per_queue))] * 4
    assert len(delivered) == queues * per_queue, "each message once"
    assert sorted((m.queue_id, m.queue_offset) for m in delivered) == [
        (q, o) for q in range(queues) for o in range(per_queue)
    ]
    port = int(addr.rsplit(":", 1)[1])
    for m in delivered:
        assert (m.topic, m.body, m.broker_name, m.store_host) == ("PeerTopic", peer_body(size), "broker-a", addr)
        assert m.msg_id == f"7F000001{port:04X}{m.queue_id:04X}{m.queue_offset:016X}"
        assert (m.properties["MIN_OFFSET"], m.properties["MAX_OFFSET"]) == ("0", str(per_queue))


def test_an_orderly_consumer_locks_its_queues_and_reads_each_in_order(backend) -> None:
    queues, per_queue = 4, 40
    offsets: dict[int, list[int]] = defaultdict(list)
    done = threading.Event()

    def listener(msgs: list[Any], context: Any) -> ConsumeOrderlyStatus:
        for m in msgs:  # one thread per queue at a time
            offsets[m.queue_id].append(m.queue_offset)
        if sum(map(len, offsets.values())) >= queues * per_queue:
            done.set()
        return ConsumeOrderlyStatus.SUCCESS

    with instant_peer("--queues", str(queues), "--messages-per-queue", str(per_queue)) as addr:
        first = {"consume_from_where": "CONSUME_FROM_FIRST_OFFSET"}  # the default, the last, would find nothing
        with Consumer(addr, "cg-orderly", ["PeerTopic"], listener=listener, orderly=True, backend=backend, **first):
            assert done.wait(30), dict(offsets)
    assert dict(offsets) == {q: list(range(per_queue)) for q in range(queues)}


def test_a_second_member_of_the_group_gets_half_the_queues_at_once(backend) -> None:
    owned: dict[str, tuple[Any, ...]] = {}
    both = threading.Event()

    def recorder(name: str) -> Any:
        def on_rebalance(topic: str, assigned: tuple[Any, ...]) -> None:
            if topic != "PeerTopic":
                return  # the group's retry topic: one queue
            owned[name] = assigned
            if sorted(len(a) for a in owned.values()) == [2, 2]:
                both.set()

        return on_rebalance

    def listener(msgs: list[Any], context: Any) -> ConsumeConcurrentlyStatus:
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    with instant_peer("--queues", "4") as addr:
        common = {"listener": listener, "backend": backend}
        with Consumer(addr, "cg-pair", ["PeerTopic"], on_rebalance=recorder("a"), **common):
            assert both.wait(0.5) is False and len(owned["a"]) == 4
            with Consumer(addr, "cg-pair", ["PeerTopic"], on_rebalance=recorder("b"), **common):
                # the peer tells the group at once (NOTIFY_CONSUMER_IDS_CHANGED), well before the 20 s rebalance
                assert both.wait(10), owned
    assert {q.queue_id for q in owned["a"]} | {q.queue_id for q in owned["b"]} == {0, 1, 2, 3}


def test_pulls_past_the_end_are_held_then_not_found_and_past_the_max_moved() -> None:
    header = {"consumerGroup": "g", "topic": "T", "queueId": 0, "maxMsgNums": 32, "sysFlag": 2}
    with instant_peer("--messages-per-queue", "5", "--hold-ms", "300") as addr, RemotingClient() as client:
        pull = {**header, "queueOffset": 5, "suspendTimeoutMillis": 15_000}
        t0 = time.monotonic()
        held = client.invoke(addr, RemotingCommand.request(RequestCode.PULL_MESSAGE, pull), 3000)
        waited = time.monotonic() - t0
        moved = client.invoke(addr, RemotingCommand.request(RequestCode.PULL_MESSAGE, {**pull, "queueOffset": 9}), 3000)
    assert (held.code, held.ext_fields["nextBeginOffset"], held.ext_fields["maxOffset"]) == (
        ResponseCode.PULL_NOT_FOUND, "5", "5"
    )  # fmt: skip
    assert 0.25 < waited < 2, waited
    assert (moved.code, moved.ext_fields["nextBeginOffset"]) == (ResponseCode.PULL_OFFSET_MOVED, "5")


def test_the_raw_puller_measures_the_peer_s_pull_ceiling() -> None:
    with instant_peer("--messages-per-queue", "100") as addr:
        done = subprocess.run(
            [str(BINARY), "raw-pull", "--addr", addr, "--count", "5000", "--window", "8"],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
    figures = json.loads(done.stdout)
    assert figures["msgs"] >= 5000 and figures["pulls"] >= 5000 // 32 and figures["msgs_per_s"] > 0


@pytest.mark.parametrize(
    "args", [["--queues", "0"], ["--port", "x"], ["--colour", "red"], ["--messages-per-queue", "-1"]]
)
def test_bad_options_are_refused(args: list[str]) -> None:
    done = subprocess.run([str(BINARY), "serve", *args], capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and "rocketroute-instant-peer:" in done.stderr


def test_async_sends_with_any_timeout_the_loop_takes_are_answered() -> None:
    """The producer's async sends take the native loop: a timeout it does not take (a float, a huge int) gets the
    Python loop, and every one is answered as usual."""
    import asyncio

    import rocketroute as rr

    async def main(addr: str) -> list[Any]:
        async with rr.aio.Producer(addr, "pg-instant-aio") as producer:
            return [await producer.send(Message("T", b"x"), timeout_ms=t) for t in (None, 2500, 2500.5, 1 << 70, 10**6)]

    with instant_peer("--queues", "2") as addr:
        results = asyncio.run(main(addr))
    assert [r.send_status for r in results] == [SendStatus.SEND_OK] * 5
    assert [r.queue_offset for r in results if r.queue.queue_id == results[0].queue.queue_id] == [0, 1, 2]


def test_a_producer_s_result_is_the_same_read_either_way(backend) -> None:
    """``Producer._result`` reads the usual response natively (the native backend): the same ``SendResult`` as
    the Python reader's, with a namespace too."""
    with instant_peer("--queues", "2") as addr:
        for namespace in (None, "ns1"):
            with Producer(addr, "pg-instant", namespace=namespace, backend=backend) as producer:
                sent = producer.send(Message("T", b"x"))
                enc = producer._wire.encode(Message("T", b"y"))
                mq = backend.MessageQueue(enc.topic, "broker-a", 1)
                response = RemotingCommand(
                    0, flag=1, ext_fields={"msgId": "AB", "queueId": "1", "queueOffset": "7", "MSG_REGION": "r"}
                )
                native = producer._wire.result(enc, mq, addr, response)
                producer._wire._make_result = None
                assert native == producer._wire.result(enc, mq, addr, response)
            assert native.queue == backend.MessageQueue("T", "broker-a", 1) and native.queue_offset == 7
            assert sent.queue.topic == "T"
