"""A send's route lookup counts against its budget, as in Java, where ``sendSelectImpl`` and ``sendDefaultImpl``
take their start before ``tryToFindTopicPublishInfo``: a lookup that took most of ``send_msg_timeout`` and a
selector that took the rest end the send with "sendSelectImpl call timeout" and nothing written. Before, the
selector's time alone was checked and the request went out with a 1 ms budget: the broker could store a message
the producer reported failed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from rocketroute.client import Message, Producer
from rocketroute.client.producer.send_budget import kernel_budget, loop_budget
from rocketroute.errors import SendFailedError
from rocketroute.protocol import RemotingTooMuchRequestError

from ._fake_cluster import GET_ROUTEINFO_BY_TOPIC, SEND_MESSAGE_V2, FakeCluster

ROUTE_S = 0.8  # the name server's answer to a route lookup, of the 1.2 s budget
SELECT_S = 0.6  # the selector's, more than what is left


def _slow_route(request: dict[str, Any]) -> None:
    time.sleep(ROUTE_S)
    return None  # then answered as usual


def _slow_selector(mqs: list[Any], msg: Any, arg: Any) -> Any:
    time.sleep(SELECT_S)
    return mqs[0]


def test_a_keyed_send_whose_lookup_and_selector_spent_the_budget_writes_nothing(backend: Any) -> None:
    with FakeCluster() as cluster:
        sends = {
            "send": lambda p, m: p.send(m, _slow_selector),
            "submit": lambda p, m: p.submit(m, _slow_selector).result(5),
            "send_async": lambda p, m: asyncio.run(p.send_async(m, _slow_selector)),
        }
        for topic in (*sends, "warm"):
            cluster.topic(topic)
        with Producer(cluster.namesrv_addr, "PG", backend=backend, send_msg_timeout=1200) as producer:
            # one send first: the lookups of the start (create_topic_key's route) are answered, at once
            producer.send(Message("warm", b"w"))
            cluster.namesrv.script[GET_ROUTEINFO_BY_TOPIC] = _slow_route
            for topic, send in sends.items():
                with pytest.raises(SendFailedError, match="sendSelectImpl call timeout"):
                    send(producer, Message(topic, b"x"))
            assert len(cluster.brokers["broker-a"].requests(SEND_MESSAGE_V2)) == 1  # the first one's
            # the route is known now: the same selector has time to pick, and the send is stored
            for topic, send in sends.items():
                assert send(producer, Message(topic, b"y")).send_status.name == "SEND_OK"
        assert len(cluster.brokers["broker-a"].requests(SEND_MESSAGE_V2)) == 1 + len(sends)


def test_the_budget_counts_from_the_send_s_start() -> None:
    begin = time.monotonic() - 0.5  # a send that began 500 ms ago
    assert 0 < loop_budget(1000, begin) <= 500 and loop_budget(400, begin) == 0
    assert 0 < kernel_budget(1000, begin) <= 500
    with pytest.raises(RemotingTooMuchRequestError, match="sendKernelImpl call timeout"):
        kernel_budget(400, begin)  # spent: nothing is written


def _stalled_route(request: dict[str, Any]) -> None:
    time.sleep(0.6)  # past the producer's mq_client_api_timeout, well within its send budget
    return None


def test_a_name_server_timeout_is_told_as_its_own_not_as_the_send_budget(backend: Any) -> None:
    # RemotingTimeoutError is a TimeoutError (asyncio.TimeoutError, concurrent.futures.TimeoutError on 3.11): stop
    # 62's CI said "did not answer within send_msg_timeout (60000 ms)" for a 3 s name server timeout
    with FakeCluster() as cluster:
        sends = {
            "send": lambda p, m: p.send(m),
            "submit": lambda p, m: p.submit(m).result(10),
            "send_async": lambda p, m: asyncio.run(p.send_async(m)),
        }
        for topic in (*sends, "warm"):
            cluster.topic(topic)
        settings = {"send_msg_timeout": 8000, "mq_client_api_timeout": 300}
        with Producer(cluster.namesrv_addr, "PG", backend=backend, **settings) as producer:
            producer.send(Message("warm", b"w"))
            cluster.namesrv.script[GET_ROUTEINFO_BY_TOPIC] = _stalled_route
            for topic, send in sends.items():
                with pytest.raises(SendFailedError, match=r"No route info of this topic: .* failed: .*timeout") as e:
                    send(producer, Message(topic, b"x"))
                assert "send_msg_timeout" not in str(e.value), send
