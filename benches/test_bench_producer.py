"""The producer's hot path: Java hashing, hash selection, the round-robin index, publish-info and
fault-strategy selection, fault-table updates and MessageQueue construction, native against reference."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import rocketroute.reference as ref
from rocketroute.examples.sample_route import SAMPLE_BROKERS, sample_route

TOPIC = "TopicTest"
KEY = "order-0000000042"  # a 16-character order id
BROKERS = SAMPLE_BROKERS
QUEUES_PER_BROKER = 4
ISOLATED = "broker-b"

assert len(KEY) == 16

ROUTE: dict[str, Any] = sample_route(BROKERS, QUEUES_PER_BROKER)
"""16 queues on 4 brokers, as the name server returns them."""


def publish_info(lib: ModuleType) -> Any:
    tp = lib.TopicPublishInfo.from_route(TOPIC, lib.TopicRouteData.from_json(ROUTE), compat="5.3")
    assert len(tp.message_queues) == len(BROKERS) * QUEUES_PER_BROKER
    return tp


@pytest.mark.benchmark(group="java_string_hash (16 chars)")
def test_java_string_hash(benchmark: Any, lib: ModuleType) -> None:
    assert benchmark(lib.java_string_hash, KEY) == ref.java_string_hash(KEY)


@pytest.mark.benchmark(group="SelectMessageQueueByHash.select (str key, 16 queues)")
def test_select_by_hash(benchmark: Any, lib: ModuleType) -> None:
    mqs = list(publish_info(lib).message_queues)
    selector = lib.SelectMessageQueueByHash()
    mq = benchmark(selector.select, mqs, None, KEY)
    assert str(mq) == str(ref.SelectMessageQueueByHash().select(list(publish_info(ref).message_queues), None, KEY))


@pytest.mark.benchmark(group="SendWhichQueue.increment_and_get")
def test_send_which_queue_increment(benchmark: Any, lib: ModuleType) -> None:
    index = lib.SendWhichQueue("5.3", start=0)
    assert benchmark(index.increment_and_get) >= 1


@pytest.mark.benchmark(group="TopicPublishInfo.select_one_message_queue (16 queues, 4 brokers)")
def test_publish_info_select(benchmark: Any, lib: ModuleType) -> None:
    tp = publish_info(lib)
    assert benchmark(tp.select_one_message_queue).broker_name in BROKERS


@pytest.mark.benchmark(group="MQFaultStrategy.select_one_message_queue (fault tolerance off)")
def test_strategy_select_fault_off(benchmark: Any, lib: ModuleType) -> None:
    tp = publish_info(lib)
    strategy = lib.MQFaultStrategy("5.3", send_latency_fault_enable=False, clock=lib.ManualClock(0))
    assert benchmark(strategy.select_one_message_queue, tp, None).broker_name in BROKERS


@pytest.mark.benchmark(group="MQFaultStrategy.select_one_message_queue (fault tolerance on, 1 broker isolated)")
def test_strategy_select_fault_on(benchmark: Any, lib: ModuleType) -> None:
    tp = publish_info(lib)
    strategy = lib.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=lib.ManualClock(0))
    strategy.update_fault_item(ISOLATED, 0, True)
    assert not strategy.latency_fault_tolerance.is_available(ISOLATED)
    mq = benchmark(strategy.select_one_message_queue, tp, None)
    assert mq.broker_name in BROKERS and mq.broker_name != ISOLATED


@pytest.mark.benchmark(group="MQFaultStrategy.update_fault_item")
def test_strategy_update_fault_item(benchmark: Any, lib: ModuleType) -> None:
    strategy = lib.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=lib.ManualClock(0))
    benchmark(strategy.update_fault_item, "broker-c", 120, False)
    assert strategy.latency_fault_tolerance.is_available("broker-c")


@pytest.mark.benchmark(group="MessageQueue(topic, broker, id)")
def test_message_queue_new(benchmark: Any, lib: ModuleType) -> None:
    mq = benchmark(lib.MessageQueue, TOPIC, "broker-a", 3)
    assert str(mq) == "MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=3]"
