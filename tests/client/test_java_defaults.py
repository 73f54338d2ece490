"""The Java defaults that rocketroute.producer_defaults gives per compat profile, written out: they are derived from
the settings classes (fields, NOT_SUPPORTED, JAVA_VALUES, OWN), and this pins the derivation to the values the
hand-written table gave (tests/test_consumer_defaults.py pins consumer_defaults the same way)."""

from __future__ import annotations

import pytest

import rocketroute as rr

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

# 5.3: its own fault-strategy tables, and the settings the 4.9 client does not have
PRODUCER_53 = {
    **PRODUCER_49,
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


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_producer_defaults_are_the_written_values(compat: str) -> None:
    assert dict(rr.producer_defaults(compat)) == {"5.3": PRODUCER_53, "4.9": PRODUCER_49}[compat]
