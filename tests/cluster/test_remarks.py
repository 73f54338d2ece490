"""Errors made from what a real broker answers, on Apache 5.5.0 with ``autoCreateTopicEnable=false`` (a production
broker's setting): a send to a topic the broker does not have is refused with TOPIC_NOT_EXIST and a remark of two
lines (``... apply first please!`` and the FAQ link); the error says it on one line and keeps the remark whole
(docs/servers.md). Without a route of the topic nor of ``create_topic_key``, the send fails before it reaches a
broker, naming the topic."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest

import rocketroute as rr
from rocketroute.errors import BrokerResponseError, SendFailedError

from .harness import Cluster

pytestmark = pytest.mark.servers("apache-5.5.0")

FAQ = "See https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details."


@pytest.fixture(scope="module")
def strict_cluster(server_impl: str) -> Iterator[Cluster]:
    """One name server and one broker that creates no topic at a first send (and so registers no TBW102)."""
    with Cluster(1, 1, impl=server_impl, broker_config={"autoCreateTopicEnable": "false"}) as c:
        yield c


def _missing() -> str:
    return f"Missing_{uuid.uuid4().hex[:12]}"


def test_the_broker_s_two_line_remark_is_one_line_in_the_error_and_kept_in_remark(strict_cluster: Cluster):
    # a create_topic_key that is a plain topic: the client sends to its broker, which will not create the new one
    key = f"Key_{uuid.uuid4().hex[:12]}"
    strict_cluster.create_topic(key, 2)
    broker = strict_cluster.broker_addr("broker-a")
    producer = rr.Producer(strict_cluster.namesrv_addr, "PG_remark", create_topic_key=key).start()
    try:
        for how in ("send", "send_async"):
            topic = _missing()
            msg = rr.Message(topic, b"x")
            with pytest.raises(BrokerResponseError) as info:
                producer.send(msg) if how == "send" else asyncio.run(producer.send_async(msg))
            e = info.value
            assert e.response_code == e.code == 17, how  # TOPIC_NOT_EXIST
            assert e.remark == f"topic[{topic}] not exist, apply first please!\n{FAQ}", how  # as the broker sent it
            assert str(e) == f"CODE: 17  DESC: topic[{topic}] not exist, apply first please! {FAQ} BROKER: {broker}"
            assert e.addr == broker
    finally:
        producer.shutdown()


def test_a_topic_without_a_route_is_named_in_one_line(strict_cluster: Cluster):
    topic = _missing()
    producer = rr.Producer(strict_cluster.namesrv_addr, "PG_noroute").start()
    try:
        with pytest.raises(SendFailedError) as info:
            producer.send(rr.Message(topic, b"x"))
    finally:
        producer.shutdown()
    text = str(info.value)
    assert text.startswith(f"No route info of this topic: {topic}: the name server(s) {strict_cluster.namesrv_addr} ")
    assert "autoCreateTopicEnable=true" in text and "\n" not in text
