"""rocketroute.consumer_defaults and lite_pull_consumer_defaults: DefaultMQPushConsumer's and
DefaultLitePullConsumer's defaults per compat profile (read from the Java sources of 5.3.3 and 4.9.8; no Java-backed
vector yet) and the push consumer's fixed constants."""

from __future__ import annotations

import pytest

from rocketroute.client.consumer.constants import CONSUMER_CONSTANTS, consumer_constants
from rocketroute.errors import IllegalArgumentError
from rocketroute.java_defaults import consumer_defaults, lite_pull_consumer_defaults, producer_defaults

COMPATS = ["5.3", "4.9"]

# DefaultMQPushConsumer's field initialisers, identical in 5.3.3 and 4.9.8
COMMON = {
    "message_model": "CLUSTERING",
    "consume_from_where": "CONSUME_FROM_LAST_OFFSET",
    "consume_timestamp": None,
    "consume_thread_min": 20,
    "consume_thread_max": 20,
    "adjust_thread_pool_nums_threshold": 100_000,
    "consume_concurrently_max_span": 2000,
    "pull_threshold_for_queue": 1000,
    "pull_threshold_size_for_queue": 100,
    "pull_threshold_for_topic": -1,
    "pull_threshold_size_for_topic": -1,
    "pull_interval": 0,
    "consume_message_batch_max_size": 1,
    "pull_batch_size": 32,
    "post_subscription_when_pull": False,
    "unit_mode": False,
    "max_reconsume_times": -1,
    "suspend_current_queue_time_millis": 1000,
    "consume_timeout": 15,
    "await_termination_millis_when_shutdown": 0,
    "poll_name_server_interval": 30_000,
    "heartbeat_broker_interval": 30_000,
    "persist_consumer_offset_interval": 5000,
    "pull_time_delay_mills_when_exception": 1000,
    "mq_client_api_timeout": 3000,
}
ONLY_53 = {
    "pull_batch_size_in_bytes": 256 * 1024,
    "pop_threshold_for_queue": 96,
    "pop_invisible_time": 60_000,
    "pop_batch_nums": 32,
    "client_rebalance": True,
    "decode_read_body": True,
    "decode_decompress_body": True,
    "use_heartbeat_v2": False,
}

# ClientConfig's settings a consumer has, the same in 5.3.3 and 4.9.8, at Java's values (language JAVA)
CLIENT_COMMON = {
    "vip_channel_enabled": False,
    "enable_stream_request_type": False,
    "access_channel": "LOCAL",
    "language": "JAVA",
}
# ClientConfig's 5.3-only settings that a consumer has too
CLIENT_ONLY_53 = {"enable_heartbeat_channel_event_listener": True, "trace_msg_batch_num": 10}
EVERY_VALUE = {
    "4.9": {**COMMON, **CLIENT_COMMON},
    "5.3": {**COMMON, **CLIENT_COMMON, **ONLY_53, **CLIENT_ONLY_53},
}
"""Every value consumer_defaults gives: derived from the settings classes, pinned to the hand-written table's."""


@pytest.mark.parametrize("compat", COMPATS)
def test_common_values(compat):
    defaults = consumer_defaults(compat)
    assert {k: defaults[k] for k in COMMON} == COMMON


@pytest.mark.parametrize("compat", COMPATS)
def test_every_value(compat):
    assert dict(consumer_defaults(compat)) == EVERY_VALUE[compat]


def test_values_only_53():
    d53, d49 = consumer_defaults("5.3"), consumer_defaults("4.9")
    assert {k: d53[k] for k in ONLY_53} == ONLY_53
    assert not set(ONLY_53) & set(d49)
    assert set(d53) - set(d49) == set(ONLY_53) | set(CLIENT_ONLY_53)
    assert set(d49) < set(d53)


def test_default_compat_and_aliases():
    assert consumer_defaults() is consumer_defaults("5.3")
    assert consumer_defaults(None) is consumer_defaults("5.3.3")
    assert consumer_defaults("4.9.8") is consumer_defaults("4")


@pytest.mark.parametrize("compat", COMPATS)
def test_client_settings_match_the_producers(compat):
    """The ClientConfig settings both have: the same values."""
    consumer, producer = consumer_defaults(compat), producer_defaults(compat)
    shared = set(consumer) & set(producer)
    assert {"poll_name_server_interval", "mq_client_api_timeout", "language", "access_channel"} <= shared
    assert {k: consumer[k] for k in shared} == {k: producer[k] for k in shared}


@pytest.mark.parametrize("compat", COMPATS)
def test_constructor_arguments_and_host_settings_left_out(compat):
    defaults = consumer_defaults(compat)
    for name in ("consumer_group", "allocate_message_queue_strategy", "message_listener", "offset_store"):
        assert name not in defaults
    for name in ("client_ip", "instance_name", "namesrv_addr", "namespace", "client_callback_executor_threads"):
        assert name not in defaults
    assert all(k == k.lower() and " " not in k for k in defaults)


def test_unknown_compat_raises_as_producer_defaults():
    for fn in (consumer_defaults, consumer_constants, producer_defaults):
        with pytest.raises(IllegalArgumentError, match="unknown compat profile"):
            fn("6.0")
        with pytest.raises(TypeError):
            fn(5.3)


@pytest.mark.parametrize("compat", COMPATS)
def test_read_only(compat):
    defaults = consumer_defaults(compat)
    with pytest.raises(TypeError):
        defaults["pull_batch_size"] = 64
    with pytest.raises(TypeError):
        del defaults["pull_batch_size"]
    with pytest.raises(TypeError):
        CONSUMER_CONSTANTS["PULL_MAX_IDLE_TIME"] = 1
    with pytest.raises(TypeError):
        consumer_constants(compat)["PULL_MAX_IDLE_TIME"] = 1
    # a copy is the caller's to change
    mine = dict(defaults)
    mine["pull_batch_size"] = 64
    assert consumer_defaults(compat)["pull_batch_size"] == 32


def test_constants():
    assert dict(CONSUMER_CONSTANTS) == {
        "PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL": 50,
        "PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL": 20,
        "PULL_TIME_DELAY_MILLS_WHEN_SUSPEND": 1000,
        "BROKER_SUSPEND_MAX_TIME_MILLIS": 15_000,
        "CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND": 30_000,
        "REBALANCE_INTERVAL": 20_000,
        "UNLOCK_DELAY_TIME_MILLS": 20_000,
        "REBALANCE_LOCK_MAX_LIVE_TIME": 30_000,
        "REBALANCE_LOCK_INTERVAL": 20_000,
        "PULL_MAX_IDLE_TIME": 120_000,
        "MAX_TIME_CONSUME_CONTINUOUSLY": 60_000,
    }
    # DefaultMQPushConsumerImpl's 3000 is overwritten by ClientConfig's value in its constructor
    assert "PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION" not in CONSUMER_CONSTANTS


def test_constants_per_compat():
    assert consumer_constants("4.9") == CONSUMER_CONSTANTS
    c53 = consumer_constants("5.3")
    assert dict(c53) == {**CONSUMER_CONSTANTS, "REBALANCE_MIN_INTERVAL": 1000}
    assert consumer_constants() is c53


# DefaultLitePullConsumer's field initialisers (5.3.3 and 4.9.8 alike), its ClientConfig settings at Java's values
LITE_PULL_COMMON = {
    "message_model": "CLUSTERING",
    "consume_from_where": "CONSUME_FROM_LAST_OFFSET",
    "consume_timestamp": None,
    "auto_commit": True,
    "auto_commit_interval_millis": 5000,
    "pull_batch_size": 10,
    "pull_threshold_for_all": 10_000,
    "consume_max_span": 2000,
    "pull_threshold_for_queue": 1000,
    "pull_threshold_size_for_queue": 100,
    "poll_timeout_millis": 5000,
    "broker_suspend_max_time_millis": 20_000,
    "consumer_timeout_millis_when_suspend": 30_000,
    "consumer_pull_timeout_millis": 10_000,
    "pull_thread_nums": 20,
    "topic_metadata_check_interval_millis": 30_000,
    "unit_mode": False,
    "poll_name_server_interval": 30_000,
    "heartbeat_broker_interval": 30_000,
    "persist_consumer_offset_interval": 5000,
    "pull_time_delay_mills_when_exception": 1000,
    "mq_client_api_timeout": 3000,
    **CLIENT_COMMON,
}
LITE_PULL_ONLY_53 = {"decode_read_body": True, "decode_decompress_body": True, "use_heartbeat_v2": False}


@pytest.mark.parametrize("compat", COMPATS)
def test_every_lite_pull_consumer_value(compat):
    expected = dict(LITE_PULL_COMMON)
    if compat == "5.3":
        expected.update(LITE_PULL_ONLY_53, **CLIENT_ONLY_53)
    assert dict(lite_pull_consumer_defaults(compat)) == expected
    assert lite_pull_consumer_defaults(compat) is lite_pull_consumer_defaults(compat)
    with pytest.raises(TypeError):
        lite_pull_consumer_defaults(compat)["pull_batch_size"] = 32  # type: ignore[index]


@pytest.mark.parametrize("compat", COMPATS)
def test_the_lite_pull_consumer_shares_the_push_consumer_s_client_settings(compat):
    lite, push = lite_pull_consumer_defaults(compat), consumer_defaults(compat)
    shared = set(lite) & set(push)
    assert {"poll_name_server_interval", "persist_consumer_offset_interval", "language", "access_channel"} <= shared
    assert {k: lite[k] for k in shared if k != "pull_batch_size"} == {
        k: push[k] for k in shared if k != "pull_batch_size"
    }
    assert (lite["pull_batch_size"], push["pull_batch_size"]) == (10, 32)  # the one shared name Java defaults apart
