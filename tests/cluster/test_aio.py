"""``rocketroute.aio.Producer`` on the real servers: the threaded producer's routing and wire, on the caller's
event loop."""

from __future__ import annotations

import asyncio
import time

import pytest

import rocketroute as rr
from rocketroute.client import Message, SendStatus
from rocketroute.client.message_decode import decode_messages
from rocketroute.client.producer import Producer
from rocketroute.client.producer.sender import OFF_LOOP_MIN_BODY


def test_the_aio_producer_stores_what_it_sends_where_the_threaded_one_would(cluster, fresh_topic):
    topic = fresh_topic(queues=4)
    ns = ";".join(cluster.namesrv_addrs)
    keys = [f"order-{i}" for i in range(20)]

    async def main() -> tuple[list[object], list[SendStatus]]:
        async with rr.aio.Producer(ns, "pg-aio-cluster") as producer:
            keyed = [await producer.send(Message(topic, b"k"), rr.SelectMessageQueueByHash(), k) for k in keys]
            many = await asyncio.gather(*(producer.send(Message(topic, b"c")) for _ in range(50)))
            batch = await producer.send_batch([Message(topic, b"b1"), Message(topic, b"b2"), Message(topic, b"b3")])
            await producer.send_oneway(Message(topic, b"o"))
            return [r.queue for r in keyed], [r.send_status for r in (*keyed, *many, batch)]

    queues, statuses = asyncio.run(main())
    assert set(statuses) == {SendStatus.SEND_OK}
    with Producer(cluster.namesrv_addrs, "pg-threaded-cluster") as threaded:
        assert queues == [threaded.send(Message(topic, b"t"), rr.SelectMessageQueueByHash(), k).queue for k in keys]

    def stored() -> int:
        return sum(cluster.max_offset(b, topic, q) for b in cluster.broker_names for q in range(4))

    deadline = time.monotonic() + 5  # the oneway send is not acknowledged
    while stored() < 20 + 50 + 3 + 1 + 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored() == 20 + 50 + 3 + 1 + 20


@pytest.mark.servers("apache-5.5.0")
def test_bodies_compressed_off_the_loop_are_stored_compressed_and_read_back_whole(cluster, fresh_topic):
    """Bodies over OFF_LOOP_MIN_BODY sent from an event loop are compressed on the producer's encoder threads: the
    broker holds them with the ZLIB flag, and they decompress to what was sent."""
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    ns = ";".join(cluster.namesrv_addrs)
    bodies = {how: (f"{how}: compressed off the loop, stored whole. " * 600).encode() for how in ("send", "enqueue")}
    bodies["send_async"] = (b"threaded producer, caller's loop. " * 600)[: OFF_LOOP_MIN_BODY + 1]

    async def main() -> list[rr.SendResult]:
        async with rr.aio.Producer(ns, "pg-aio-compress", compat=cluster.compat) as producer:
            sent = [
                await producer.send(Message(topic, bodies["send"])),
                await (await producer.enqueue(Message(topic, bodies["enqueue"]))),
            ]
        with Producer(cluster.namesrv_addrs, "pg-threaded-compress", compat=cluster.compat) as threaded:
            sent.append(await threaded.send_async(Message(topic, bodies["send_async"])))
        return sent

    results = asyncio.run(main())
    assert all(len(b) >= OFF_LOOP_MIN_BODY for b in bodies.values())
    cluster.wait_dispatched("broker-a")
    for body, r in zip(bodies.values(), results, strict=True):
        assert r.send_status is SendStatus.SEND_OK and r.offset_msg_id is not None
        offset = int(r.offset_msg_id[-16:], 16)  # VIEW_MESSAGE_BY_ID (33) at the commit-log offset
        resp = cluster.invoke(cluster.broker_addr("broker-a"), 33, {"offset": str(offset), "topic": topic})
        assert resp.code == 0, (resp.code, resp.remark)
        (raw,) = decode_messages(resp.body or b"", decompress_body=False)
        assert raw.sys_flag & 0x701 == 0x301 and len(raw.body or b"") < len(body) // 4  # ZLIB, compressed
        (whole,) = decode_messages(resp.body or b"")
        assert whole.body == body
