"""The producer's and the consumer's logic against the scriptable fake name server and brokers
(:mod:`tests.client._fake_cluster`): retries, rebalance decisions, offset commits and what a pull asks for, without
starting servers. The same behaviours run on the real servers in tests/cluster."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Message, Producer
from rocketroute.errors import BrokerResponseError

from ._fake_cluster import (
    GET_CONSUMER_LIST_BY_GROUP,
    PULL_MESSAGE,
    SEND_MESSAGE_V2,
    SUCCESS,
    SYSTEM_ERROR,
    UPDATE_CONSUMER_OFFSET,
    FakeCluster,
)

FAST = {"rebalance_interval": 200, "persist_consumer_offset_interval": 100, "heartbeat_broker_interval": 200}


def wait_until(cond: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.02)


def _failing(request: dict[str, Any]) -> tuple[int, dict[str, Any], bytes]:
    return SYSTEM_ERROR, {"_remark": "[fake] store busy"}, b""


def test_a_send_the_broker_refuses_is_retried_on_the_other_broker():
    with FakeCluster(brokers=2) as cluster:
        cluster.topic("T", queues=2)
        cluster.brokers["broker-a"].script[SEND_MESSAGE_V2] = _failing
        with Producer(cluster.namesrv_addr, "PG") as producer:
            results = [producer.send(Message("T", b"m%d" % i)) for i in range(4)]
        assert {r.queue.broker_name for r in results} == {"broker-b"}
        tried_a = len(cluster.brokers["broker-a"].requests(SEND_MESSAGE_V2))
        stored_b = sum(len(q) for q in cluster.brokers["broker-b"].store.values())
        assert stored_b == 4 and 1 <= tried_a <= 4  # each failed attempt on broker-a moved on to broker-b


def test_a_send_every_broker_refuses_fails_after_one_attempt_plus_the_retries():
    with FakeCluster(brokers=2) as cluster:
        cluster.topic("T", queues=2)
        for broker in cluster.brokers.values():
            broker.script[SEND_MESSAGE_V2] = _failing
        with Producer(cluster.namesrv_addr, "PG", retry_times_when_send_failed=3) as producer:
            # the last attempt's broker answer is raised, as Java's MQBrokerException, with the attempts in its text
            with pytest.raises(BrokerResponseError, match=r"Send \[4\] times, still failed.*broker-a, broker-b"):
                producer.send(Message("T", b"x"))
        attempts = sum(len(b.requests(SEND_MESSAGE_V2)) for b in cluster.brokers.values())
        assert attempts == 1 + 3


def _consume(cluster: FakeCluster, group: str, received: list[bytes], **settings: Any) -> Consumer:
    def listener(msgs: list[Any], context: Any) -> Any:
        received.extend(m.body for m in msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    return Consumer(
        cluster.namesrv_addr,
        group,
        ["T"],
        listener=listener,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        **{**FAST, **settings},
    )


def test_the_consumer_pulls_what_its_settings_say_and_commits_what_it_consumed():
    with FakeCluster(brokers=1) as cluster:
        cluster.topic("T", queues=2)
        cluster.topic("%RETRY%G", queues=1)
        broker = cluster.brokers["broker-a"]
        for i in range(10):
            broker.append("T", i % 2, b"m%d" % i)
        received: list[bytes] = []
        with _consume(cluster, "G", received, pull_batch_size=3, pull_batch_size_in_bytes=4096):
            wait_until(lambda: len(received) == 10, 10, "all 10 messages consumed")
            wait_until(
                lambda: broker.offsets.get(("G", "T", 0)) == 5 and broker.offsets.get(("G", "T", 1)) == 5,
                10,
                "both queues' offsets committed at 5",
            )
        assert sorted(received) == sorted(b"m%d" % i for i in range(10))
        pulls = [r["extFields"] for r in broker.requests(PULL_MESSAGE) if r["extFields"]["topic"] == "T"]
        assert {p["maxMsgNums"] for p in pulls} == {"3"} and {p["maxMsgBytes"] for p in pulls} == {"4096"}
        # the shutdown's commit is acknowledged before the consumer says it is shut down
        commits = [c["extFields"] for c in broker.requests(UPDATE_CONSUMER_OFFSET) if c["extFields"]["topic"] == "T"]
        last = {c["queueId"]: c["commitOffset"] for c in commits}  # the shutdown's commits come last
        assert last == {"0": "5", "1": "5"}


def test_a_4_9_consumer_s_pulls_carry_no_max_msg_bytes():
    with FakeCluster(brokers=1) as cluster:
        cluster.topic("T", queues=1)
        cluster.topic("%RETRY%G", queues=1)
        broker = cluster.brokers["broker-a"]
        broker.append("T", 0, b"m")
        received: list[bytes] = []
        with _consume(cluster, "G", received, compat="4.9"):
            wait_until(lambda: received == [b"m"], 10, "the message consumed")
        pulls = [r["extFields"] for r in broker.requests(PULL_MESSAGE)]
        assert pulls and all("maxMsgBytes" not in p and "bname" not in p for p in pulls)


def test_the_consumer_owns_what_its_strategy_gives_it_among_the_members_the_broker_lists():
    other = "10.0.0.9@other"
    with FakeCluster(brokers=2) as cluster:
        cluster.topic("T", queues=4)
        cluster.topic("%RETRY%G", queues=1)
        seen = threading.Event()

        def members(request: dict[str, Any]) -> tuple[int, dict[str, Any], bytes]:
            seen.set()
            ids = [*cluster.brokers["broker-a"].members.get("G", []), other]
            return SUCCESS, {}, json.dumps({"consumerIdList": ids}).encode()

        for broker in cluster.brokers.values():
            broker.script[GET_CONSUMER_LIST_BY_GROUP] = members
        strategy = rr.AllocateMessageQueueAveragelyByCircle()
        with _consume(cluster, "G", [], strategy=strategy) as consumer:
            assert seen.is_set()
            mqs = [rr.MessageQueue("T", b, q) for b in ("broker-a", "broker-b") for q in range(4)]
            cids = sorted([consumer.client_id, other])
            expected = rr.allocate_all(strategy, sorted(mqs), cids, "G")[consumer.client_id]
            wait_until(lambda: set(consumer.assignment("T")) == set(expected), 5, "the strategy's share owned")
            assert len(expected) == 4


def test_an_orderly_message_past_max_reconsume_times_goes_to_the_dead_letter_queue():
    from rocketroute.client import ConsumeOrderlyStatus

    from ._fake_cluster import CONSUMER_SEND_MSG_BACK

    with FakeCluster(brokers=1) as cluster:
        cluster.topic("T", queues=1)
        cluster.topic("%RETRY%G", queues=1)
        broker = cluster.brokers["broker-a"]
        broker.append("T", 0, b"poison")
        seen: list[int] = []

        def listener(msgs: list[Any], context: Any) -> Any:
            seen.append(msgs[0].reconsume_times)
            context.suspend_current_queue_time_millis = 20
            return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT  # never consumed

        consumer = Consumer(
            cluster.namesrv_addr,
            "G",
            ["T"],
            listener=listener,
            orderly=True,
            consume_from_where="CONSUME_FROM_FIRST_OFFSET",
            max_reconsume_times=2,
            **FAST,
        )
        with consumer:
            wait_until(lambda: broker.offsets.get(("G", "T", 0)) == 1, 10, "the offset committed past it")
        back = [r["extFields"] for r in broker.requests(CONSUMER_SEND_MSG_BACK)]
        assert seen == [0, 1, 2]  # suspended twice, then over the limit: sent to the dead-letter queue
        assert [b["delayLevel"] for b in back] == ["-1"]
        assert consumer.stats.sent_back == 1 and consumer.stats.failed == 3
