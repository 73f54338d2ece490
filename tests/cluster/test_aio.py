"""``rocketroute.aio.Producer`` on the real servers: the threaded producer's routing and wire, on the caller's
event loop."""

from __future__ import annotations

import asyncio
import time

import rocketroute as rr
from rocketroute.client import Message, SendStatus
from rocketroute.client.producer import Producer


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
