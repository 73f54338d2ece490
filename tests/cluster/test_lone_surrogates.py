"""A lone surrogate in a tag, a key or a property, on Apache RocketMQ 5.5.0, both backends (issue 52, item 5): every
send path stores it as ``?``, as Java's ``String.getBytes(UTF_8)`` does, and a surrogate pair given as two code
points is its one character. Before the fix ``send``, ``send_oneway``, threaded ``send_async`` and ``rr.aio``'s
``send`` raised a raw ``UnicodeEncodeError`` from the frame encoder while ``send_batch`` stored ``?``."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import Message, Producer

PATHS = ("send", "send_oneway", "submit", "send_async", "send_batch", "aio.send", "aio.send_oneway", "aio.enqueue")


def _message(topic: str, path: str) -> Message:
    m = Message(topic, path.encode(), tags="t\ud800", keys=["k\udc00", "pair\ud83d\ude00"])
    m.properties["p"] = "v\udbff-end"
    return m


@pytest.mark.servers("apache-5.5.0")
def test_every_send_path_stores_a_lone_surrogate_as_java_does(cluster, fresh_topic, backend):
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    ns = ";".join(cluster.namesrv_addrs)
    with Producer(cluster.namesrv_addrs, "pg-surrogates", backend=backend) as p:
        p.send(_message(topic, "send"))
        p.send_oneway(_message(topic, "send_oneway"))
        p.submit(_message(topic, "submit")).result(10)
        asyncio.run(p.send_async(_message(topic, "send_async")))
        p.send_batch([_message(topic, "send_batch")])

    async def aio_sends() -> None:
        async with rr.aio.Producer(ns, "pg-surrogates-aio", backend=backend) as ap:
            await ap.send(_message(topic, "aio.send"))
            await ap.send_oneway(_message(topic, "aio.send_oneway"))
            await (await ap.enqueue(_message(topic, "aio.enqueue")))

    asyncio.run(aio_sends())

    async def read() -> dict[str, Any]:
        got: dict[str, Any] = {}
        group = f"cg_surrogates_{backend.BACKEND}_{time.monotonic_ns()}"
        async with rr.aio.Consumer(
            ns, group, [topic], backend=backend, consume_from_where="CONSUME_FROM_FIRST_OFFSET"
        ) as consumer:
            async for msg in consumer:
                got[msg.body.decode()] = msg
                if len(got) == len(PATHS):
                    consumer.ack()
                    break
        return got

    got = asyncio.run(asyncio.wait_for(read(), 60))
    assert sorted(got) == sorted(PATHS)
    for path, msg in got.items():
        assert msg.tags == "t?", path
        assert msg.keys == "k? pair\U0001f600", path
        assert msg.properties["p"] == "v?-end", path
