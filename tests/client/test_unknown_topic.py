"""A send to a topic the name servers know no route of, nor of ``create_topic_key`` (a cluster whose brokers run
with ``autoCreateTopicEnable=false``): Java's "No route info of this topic", naming the topic and what to do, on
every send path, with nothing sent. On Apache 5.5.0's servers: tests/cluster/test_remarks.py."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import Message, Producer
from rocketroute.errors import SendFailedError

from ._fake_cluster import SEND_MESSAGE_V2, FakeCluster


def _says(cluster: FakeCluster, topic: str) -> str:
    return re.escape(
        f"No route info of this topic: {topic}: the name server(s) {cluster.namesrv_addr} know no writable queue of "
        f"it, nor of create_topic_key 'TBW102' (a broker creates a topic at its first send only with "
        f"autoCreateTopicEnable=true): create the topic first (mqadmin updateTopic -t {topic} -c <cluster>)"
    )


def test_every_send_path_names_the_missing_topic(backend: Any) -> None:
    with FakeCluster() as cluster, Producer(cluster.namesrv_addr, "PG", backend=backend) as producer:
        sends = {
            "send": lambda m: producer.send(m),
            "keyed send": lambda m: producer.send(m, backend.SelectMessageQueueByHash(), "k"),
            "send_oneway": lambda m: producer.send_oneway(m),
            "submit": lambda m: producer.submit(m).result(5),
            "send_async": lambda m: asyncio.run(producer.send_async(m)),
        }
        for n, send in enumerate(sends.values()):
            topic = f"Missing{n}"
            with pytest.raises(SendFailedError, match=_says(cluster, topic)):
                send(Message(topic, b"x"))
        assert cluster.brokers["broker-a"].requests(SEND_MESSAGE_V2) == []


def test_the_asyncio_producer_names_it_too(backend: Any) -> None:
    async def main(cluster: FakeCluster) -> None:
        async with rr.aio.Producer(cluster.namesrv_addr, "PG", backend=backend) as producer:
            with pytest.raises(SendFailedError, match=_says(cluster, "Missing")):
                await producer.send(Message("Missing", b"x"))
            with pytest.raises(SendFailedError, match=_says(cluster, "Missing")):
                await (await producer.enqueue(Message("Missing", b"x")))

    with FakeCluster() as cluster:
        asyncio.run(main(cluster))
