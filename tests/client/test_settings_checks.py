"""Every setting of the producer and the consumer is read or refused, and checked when the client is built
(issue 27, items 6 and 7): wrong types raise TypeError, values out of Java's ranges ValueError, Java settings whose
feature is not implemented are refused unless left at Java's default. Nothing here connects anywhere."""

from __future__ import annotations

import pytest

import rocketroute as rr
from rocketroute.client import Consumer, ConsumerSettings, Producer
from rocketroute.client.consumer.queue_limits import QueueLimits
from rocketroute.errors import UnsupportedSettingError

NS = "127.0.0.1:1"


def consumer(**kwargs):
    return Consumer(NS, "G", ["T"], **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        # types: a str never passes for a number or a bool
        ({"pull_interval": "10"}, TypeError, "pull_interval must be an int, not str"),
        ({"pull_batch_size": 32.0}, TypeError, "pull_batch_size must be an int"),
        ({"post_subscription_when_pull": "false"}, TypeError, "post_subscription_when_pull must be True or False"),
        ({"decode_read_body": 1}, TypeError, "decode_read_body must be True or False"),
        # Java's ranges (DefaultMQPushConsumerImpl.checkConfig)
        ({"pull_interval": -1}, ValueError, r"pull_interval Out of range \[0, 65535\]"),
        ({"pull_interval": 65536}, ValueError, r"pull_interval Out of range \[0, 65535\]"),
        ({"consume_thread_min": 0}, ValueError, r"consume_thread_min Out of range \[1, 1000\]"),
        ({"consume_thread_max": 1001}, ValueError, r"consume_thread_max Out of range \[1, 1000\]"),
        ({"consume_thread_min": 30}, ValueError, r"consume_thread_min \(30\) is larger than consume_thread_max"),
        ({"consume_concurrently_max_span": 65536}, ValueError, "consume_concurrently_max_span Out of range"),
        ({"pull_threshold_for_queue": 0}, ValueError, "pull_threshold_for_queue Out of range"),
        ({"pull_threshold_for_topic": 0}, ValueError, r"pull_threshold_for_topic Out of range \[1, 6553500\] or -1"),
        ({"pull_threshold_size_for_queue": 1025}, ValueError, "pull_threshold_size_for_queue Out of range"),
        ({"pull_threshold_size_for_topic": -2}, ValueError, "pull_threshold_size_for_topic Out of range"),
        ({"consume_message_batch_max_size": 1025}, ValueError, "consume_message_batch_max_size Out of range"),
        ({"max_reconsume_times": -2}, ValueError, "max_reconsume_times Out of range"),
        ({"consume_timeout": 0}, ValueError, "consume_timeout Out of range"),
        ({"await_termination_millis_when_shutdown": -1}, ValueError, "await_termination_millis_when_shutdown"),
        ({"max_body_size": 0}, ValueError, "max_body_size Out of range"),
        ({"language": "KLINGON"}, ValueError, "language must be one of"),
        # not implemented: refused unless at Java's default, naming the setting
        ({"client_rebalance": False}, ValueError, "client_rebalance=False is not supported: pop"),
        ({"pop_batch_nums": 16}, ValueError, "pop_batch_nums=16 is not supported"),
        ({"pop_invisible_time": 30_000}, ValueError, "pop_invisible_time=30000 is not supported"),
        ({"pop_threshold_for_queue": 10}, ValueError, "pop_threshold_for_queue=10 is not supported"),
        ({"use_heartbeat_v2": True}, ValueError, "use_heartbeat_v2=True is not supported"),
        ({"unit_mode": True}, ValueError, "unit_mode=True is not supported"),
        ({"unit_mode": "false"}, ValueError, "unit_mode='false' is not supported"),
        ({"access_channel": "CLOUD"}, ValueError, "access_channel='CLOUD' is not supported"),
        ({"vip_channel_enabled": True}, ValueError, "vip_channel_enabled=True is not supported"),
        ({"adjust_thread_pool_nums_threshold": 5}, ValueError, "adjust_thread_pool_nums_threshold=5"),
        # the group and the subscriptions
        ({"message_model": "FANOUT"}, ValueError, "message model must be one of"),
    ],
)
def test_consumer_settings_checked_at_construction(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        consumer(**kwargs)


def test_message_model_setting_is_the_model() -> None:
    c = consumer(message_model="BROADCASTING")
    assert c.model == "BROADCASTING" and c.settings.message_model == "BROADCASTING"
    assert set(c._subscription.subscriptions) == {"T"}  # broadcasting: no retry topic
    assert consumer().model == "CLUSTERING"


def test_model_is_not_a_second_name_of_message_model() -> None:
    # the old name went with issue 54 (one name per setting): refused, with the list that starts with the right one
    with pytest.raises(UnsupportedSettingError, match=r"unknown consumer setting model \(known: message_model"):
        consumer(model="BROADCASTING")
    with pytest.raises(TypeError, match="positional"):
        Consumer(NS, "G", ["T"], None, "BROADCASTING")  # the old fifth place


def test_defaults_pass_and_java_defaults_of_refused_settings_are_accepted() -> None:
    defaults = dict(rr.consumer_defaults())
    defaults.pop("consume_timestamp")
    c = consumer(**defaults)
    assert c.settings.consume_thread_max == 20
    # accepted at Java's default (what rocketroute does), but not a field: nothing reads it
    assert "client_rebalance" not in c.settings.field_names()
    assert c.settings == consumer(language="JAVA", consume_timestamp=c.settings.consume_timestamp).settings
    producer_defaults = dict(rr.producer_defaults())
    assert Producer(NS, **producer_defaults).settings == Producer(NS, language="JAVA").settings


@pytest.mark.parametrize(
    ("group", "error", "match"),
    [
        ("", ValueError, "blank"),
        ("  ", ValueError, "blank"),
        ("a b", ValueError, "illegal characters"),
        ("g" * 256, ValueError, "longer than group max length 255"),
        (7, TypeError, "must be a str"),
    ],
)
def test_group_names(group: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Consumer(NS, group, ["T"])  # type: ignore[arg-type]
    with pytest.raises(error, match=match):
        Producer(NS, group)  # type: ignore[arg-type]


def test_subscriptions_must_be_a_mapping_or_a_list_of_topics() -> None:
    with pytest.raises(TypeError, match=r"not a str \('TC'; for one topic: \['TC'\]\)"):
        Consumer(NS, "G", "TC")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="non-blank str"):
        Consumer(NS, "G", [""])
    with pytest.raises(TypeError, match="tag expression"):
        Consumer(NS, "G", {"T": 3})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"retry_times_when_send_failed": "2"}, TypeError, "retry_times_when_send_failed must be an int"),
        ({"retry_times_when_send_failed": 10**9}, ValueError, r"retry_times_when_send_failed Out of range \[0, 1000\]"),
        ({"retry_times_when_send_async_failed": -1}, ValueError, "retry_times_when_send_async_failed Out of range"),
        ({"unit_mode": "false"}, TypeError, "unit_mode must be True or False"),
        ({"send_latency_fault_enable": "no"}, TypeError, "send_latency_fault_enable must be True or False"),
        ({"retry_another_broker_when_not_store_ok": 1}, TypeError, "must be True or False"),
        ({"compress_level": 99}, ValueError, "invalid compression level"),  # ZLIB's, Deflater's text
        ({"compress_level": 1.5}, TypeError, "compress_level must be an int"),
        ({"compress_msg_body_over_howmuch": "4096"}, TypeError, "compress_msg_body_over_howmuch must be an int"),
        ({"compress_type": "LZ4", "compress_level": 1}, ValueError, "the LZ4 frame writer has no level"),
        ({"compress_type": "SNAPPY"}, ValueError, "Unsupported compress type name"),
        ({"send_msg_timeout": 0}, ValueError, "send_msg_timeout Out of range"),
        ({"default_topic_queue_nums": 0}, ValueError, "default_topic_queue_nums Out of range"),
        ({"language": "java"}, ValueError, "language must be one of"),
        ({"auto_batch": True}, UnsupportedSettingError, "auto_batch=True is not supported: automatic batching"),
        ({"persist_consumer_offset_interval": 10}, UnsupportedSettingError, "persist_consumer_offset_interval=10"),
        ({"heartbeat_broker_interval": 0}, ValueError, "heartbeat_broker_interval Out of range"),
        ({"send_msg_timeot": 5}, TypeError, "unknown producer setting send_msg_timeot; did you mean send_msg_timeout"),
    ],
)
def test_producer_settings_checked_at_construction(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Producer(NS, "PG", **kwargs)


def test_producer_accepts_good_values() -> None:
    p = Producer(NS, "PG", compress_type=" zlib ", compress_level=9, retry_times_when_send_failed=0, language="JAVA")
    assert p.settings.compress_level == 9 and p.settings.language == "JAVA"
    assert Producer(NS).settings.language == "PYTHON"


def test_topic_thresholds_are_shared_among_the_owned_queues() -> None:
    limits = QueueLimits(consumer(pull_threshold_for_topic=100, pull_threshold_size_for_topic=10).settings)
    limits.share("T", 8)
    assert limits.of("T") == (12, 1 * 1024 * 1024)  # Java: max(1, 100 / 8), max(1, 10 / 8) MiB
    limits.share("T", 200)
    assert limits.of("T") == (1, 1024 * 1024)
    assert limits.of("U") == (1000, 100 * 1024 * 1024)  # a topic not shared yet: the per-queue limits
    plain = QueueLimits(consumer().settings)
    plain.share("T", 8)
    assert plain.of("T") == (1000, 100 * 1024 * 1024)  # -1: the per-queue limits


def test_a_4_9_consumer_reads_and_inflates_bodies() -> None:
    c = Consumer(NS, "G", ["T"], compat="4.9")
    assert c.settings.decode_read_body is True and c.settings.decode_decompress_body is True
    for name, value in (("decode_read_body", False), ("pull_batch_size_in_bytes", 1024)):  # 5.3's settings only
        with pytest.raises(UnsupportedSettingError, match=f"{name} is not supported with compat='4.9'"):
            Consumer(NS, "G", ["T"], compat="4.9", **{name: value})
        with pytest.raises(UnsupportedSettingError, match=f"{name} is not supported with compat='4.9'"):
            Consumer(NS, "G", ["T"], compat="4.9", settings=ConsumerSettings(**{name: value}))


@pytest.mark.parametrize(("compat", "profile"), [("5.5", "5.3"), ("5.5.0", "5.3"), ("5.3.3", "5.3"), ("4.9.8", "4.9")])
def test_clients_take_the_compat_aliases(compat: str, profile: str) -> None:
    """The routing core's aliases work for the clients too (5.5 routes as 5.3: the live Java oracle)."""
    assert Consumer("127.0.0.1:1", "G", ["T"], compat=compat).compat == profile
    producer = Producer("127.0.0.1:1", "PG", compat=compat)
    try:
        assert producer.compat == profile and producer.strategy.compat == profile
    finally:
        producer.shutdown()


@pytest.mark.parametrize("compat", ["6.0", "", 5.3])
def test_clients_refuse_an_unknown_compat(compat: object) -> None:
    with pytest.raises(ValueError, match=r"compat must be '5\.3' or '4\.9'"):
        Consumer("127.0.0.1:1", "G", ["T"], compat=compat)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"compat must be '5\.3' or '4\.9'"):
        Producer("127.0.0.1:1", "PG", compat=compat)  # type: ignore[arg-type]
