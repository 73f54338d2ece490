"""The Java defaults that rocketroute.producer_defaults / consumer_defaults give per compat profile, written out:
they are derived from the settings classes (fields, NOT_SUPPORTED, JAVA_VALUES, OWN), and this pins the derivation
to the values the hand-written tables gave."""

from __future__ import annotations

import pytest

import rocketroute as rr

PRODUCER_53 = {
    "send_msg_timeout": 3000,
    "retry_times_when_send_failed": 2,
    "retry_times_when_send_async_failed": 2,
    "retry_another_broker_when_not_store_ok": False,
    "compress_msg_body_over_howmuch": 4096,
    "max_message_size": 4194304,
    "default_topic_queue_nums": 4,
    "create_topic_key": "TBW102",
    "send_latency_fault_enable": False,
    "poll_name_server_interval": 30000,
    "heartbeat_broker_interval": 30000,
    "persist_consumer_offset_interval": 5000,
    "unit_mode": False,
    "pull_time_delay_mills_when_exception": 1000,
    "mq_client_api_timeout": 3000,
    "enable_stream_request_type": False,
    "send_message_with_vip_channel": False,
    "access_channel": "LOCAL",
    "language": "JAVA",
    "latency_max": (50, 100, 550, 1800, 3000, 5000, 15000),
    "not_available_duration": (0, 0, 2000, 5000, 6000, 10000, 30000),
    "send_latency_enable": False,
    "start_detector_enable": False,
    "detect_timeout": 200,
    "detect_interval": 2000,
    "compress_level": 5,
    "compress_type": "ZLIB",
    "auto_batch": False,
    "batch_max_delay_ms": 0,
    "batch_max_bytes": 0,
    "total_batch_max_bytes": 0,
    "enable_backpressure_for_async_mode": False,
    "back_pressure_for_async_send_num": 10000,
    "back_pressure_for_async_send_size": 104857600,
    "decode_read_body": True,
    "decode_decompress_body": True,
    "enable_heartbeat_channel_event_listener": True,
    "trace_msg_batch_num": 10,
}

PRODUCER_49 = {
    "send_msg_timeout": 3000,
    "retry_times_when_send_failed": 2,
    "retry_times_when_send_async_failed": 2,
    "retry_another_broker_when_not_store_ok": False,
    "compress_msg_body_over_howmuch": 4096,
    "max_message_size": 4194304,
    "default_topic_queue_nums": 4,
    "create_topic_key": "TBW102",
    "send_latency_fault_enable": False,
    "poll_name_server_interval": 30000,
    "heartbeat_broker_interval": 30000,
    "persist_consumer_offset_interval": 5000,
    "unit_mode": False,
    "pull_time_delay_mills_when_exception": 1000,
    "mq_client_api_timeout": 3000,
    "enable_stream_request_type": False,
    "send_message_with_vip_channel": False,
    "access_channel": "LOCAL",
    "language": "JAVA",
    "latency_max": (50, 100, 550, 1000, 2000, 3000, 15000),
    "not_available_duration": (0, 0, 30000, 60000, 120000, 180000, 600000),
}

CONSUMER_53 = {
    "message_model": "CLUSTERING",
    "consume_from_where": "CONSUME_FROM_LAST_OFFSET",
    "consume_timestamp": None,
    "consume_thread_min": 20,
    "consume_thread_max": 20,
    "adjust_thread_pool_nums_threshold": 100000,
    "consume_concurrently_max_span": 2000,
    "pull_threshold_for_queue": 1000,
    "pull_threshold_size_for_queue": 100,
    "pull_threshold_for_topic": -1,
    "pull_threshold_size_for_topic": -1,
    "pull_interval": 0,
    "consume_message_batch_max_size": 1,
    "pull_batch_size": 32,
    "post_subscription_when_pull": False,
    "max_reconsume_times": -1,
    "suspend_current_queue_time_millis": 1000,
    "consume_timeout": 15,
    "await_termination_millis_when_shutdown": 0,
    "poll_name_server_interval": 30000,
    "heartbeat_broker_interval": 30000,
    "persist_consumer_offset_interval": 5000,
    "pull_time_delay_mills_when_exception": 1000,
    "unit_mode": False,
    "mq_client_api_timeout": 3000,
    "vip_channel_enabled": False,
    "enable_stream_request_type": False,
    "access_channel": "LOCAL",
    "language": "JAVA",
    "pull_batch_size_in_bytes": 262144,
    "pop_threshold_for_queue": 96,
    "pop_invisible_time": 60000,
    "pop_batch_nums": 32,
    "client_rebalance": True,
    "decode_read_body": True,
    "decode_decompress_body": True,
    "use_heartbeat_v2": False,
    "enable_heartbeat_channel_event_listener": True,
    "trace_msg_batch_num": 10,
}

CONSUMER_49 = {
    "message_model": "CLUSTERING",
    "consume_from_where": "CONSUME_FROM_LAST_OFFSET",
    "consume_timestamp": None,
    "consume_thread_min": 20,
    "consume_thread_max": 20,
    "adjust_thread_pool_nums_threshold": 100000,
    "consume_concurrently_max_span": 2000,
    "pull_threshold_for_queue": 1000,
    "pull_threshold_size_for_queue": 100,
    "pull_threshold_for_topic": -1,
    "pull_threshold_size_for_topic": -1,
    "pull_interval": 0,
    "consume_message_batch_max_size": 1,
    "pull_batch_size": 32,
    "post_subscription_when_pull": False,
    "max_reconsume_times": -1,
    "suspend_current_queue_time_millis": 1000,
    "consume_timeout": 15,
    "await_termination_millis_when_shutdown": 0,
    "poll_name_server_interval": 30000,
    "heartbeat_broker_interval": 30000,
    "persist_consumer_offset_interval": 5000,
    "pull_time_delay_mills_when_exception": 1000,
    "unit_mode": False,
    "mq_client_api_timeout": 3000,
    "vip_channel_enabled": False,
    "enable_stream_request_type": False,
    "access_channel": "LOCAL",
    "language": "JAVA",
}


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_producer_defaults_are_the_written_values(compat: str) -> None:
    assert dict(rr.producer_defaults(compat)) == {"5.3": PRODUCER_53, "4.9": PRODUCER_49}[compat]


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_consumer_defaults_are_the_written_values(compat: str) -> None:
    assert dict(rr.consumer_defaults(compat)) == {"5.3": CONSUMER_53, "4.9": CONSUMER_49}[compat]
