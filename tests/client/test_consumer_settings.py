"""rocketroute.Consumer's construction: settings checked before anything connects, the client id, the retry
topic a clustering group subscribes to, and start() without a listener."""

from __future__ import annotations

import os

import pytest

import rocketroute as rr
from rocketroute.client import Consumer
from rocketroute.client.consumer.settings import java_timestamp_string as _java_timestamp_string
from rocketroute.client.consumer.settings import parse_java_timestamp as _parse_java_timestamp


def test_defaults_and_client_id() -> None:
    c = Consumer("127.0.0.1:1", "G", ["T"], instance_name="inst", client_ip="10.0.0.7")
    assert c.client_id == "10.0.0.7@inst"
    assert c.settings.pull_batch_size == rr.consumer_defaults()["pull_batch_size"] == 32
    assert c.settings.rebalance_interval == 20_000
    assert isinstance(c.strategy, rr.AllocateMessageQueueAveragely)
    assert set(c._subscription.subscriptions) == {"T", "%RETRY%G"}  # a clustering group also consumes its retry topic
    assert c._subscription.subscriptions["T"].sub_string == "*"


def test_default_instance_names_differ_in_one_process() -> None:
    a = Consumer("127.0.0.1:1", "G", ["T"])
    b = Consumer("127.0.0.1:1", "G", ["T"])
    assert a.client_id != b.client_id
    assert a.instance_name.startswith(f"{os.getpid()}#")


def test_broadcasting_has_no_retry_topic_and_tags_are_parsed() -> None:
    c = Consumer("127.0.0.1:1", "G", {"T": "a || b"}, message_model="BROADCASTING")
    assert set(c._subscription.subscriptions) == {"T"} and c._subscription.subscriptions["T"].tags_set == ["a", "b"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"message_model": "FANOUT"}, ValueError, "model must be"),
        ({"compat": "6.0"}, ValueError, "compat must be"),
        ({"pull_batch_sise": 3}, TypeError, "unknown consumer setting"),
        ({"pull_batch_size": 0}, ValueError, r"pull_batch_size Out of range \[1, 1024\]"),
        ({"consume_thread_min": True}, TypeError, "consume_thread_min must be an int"),
        ({"consume_from_where": "CONSUME_FROM_MIDDLE"}, ValueError, "consume_from_where must be one of"),
        ({"consume_timestamp": "yesterday"}, ValueError, "consume_timestamp must be yyyyMMddHHmmss"),
    ],
)
def test_bad_settings(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Consumer("127.0.0.1:1", "G", ["T"], **kwargs)


def test_bad_group_subscriptions_and_namesrv() -> None:
    with pytest.raises(ValueError, match="group"):
        Consumer("127.0.0.1:1", "", ["T"])
    with pytest.raises(ValueError, match="at least one subscription"):
        Consumer("127.0.0.1:1", "G", [])
    with pytest.raises(ValueError, match="host:port"):
        Consumer("nowhere", "G", ["T"])


def test_start_needs_a_listener() -> None:
    c = Consumer("127.0.0.1:1", "G", ["T"])
    with pytest.raises(RuntimeError, match="register a message listener"):
        c.start()
    c.register_message_listener(lambda msgs, ctx: None, orderly=True)
    assert c.orderly


def test_consume_timestamp_is_java_s_yyyymmddhhmmss() -> None:
    ms = _parse_java_timestamp("20261123101500")
    assert _java_timestamp_string(ms) == "20261123101500"
    c = Consumer("127.0.0.1:1", "G", ["T"])
    assert len(c.settings.consume_timestamp) == 14  # now - 30 min, as Java's default
