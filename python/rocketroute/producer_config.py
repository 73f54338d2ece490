"""``DefaultMQProducer``'s settings and their defaults per compat profile, in snake_case: what a producer built
on rocketroute starts from. tests/conformance/test_producer.py checks them against a new Java
``DefaultMQProducer``'s getters (5.3.3 and 4.9.8)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["producer_defaults"]

_COMMON: dict[str, Any] = {
    "send_msg_timeout": 3000,
    "retry_times_when_send_failed": 2,
    "retry_times_when_send_async_failed": 2,
    "retry_another_broker_when_not_store_ok": False,
    "compress_msg_body_over_howmuch": 4096,
    "max_message_size": 4 * 1024 * 1024,
    "default_topic_queue_nums": 4,
    "create_topic_key": "TBW102",
    "send_latency_fault_enable": False,
    "poll_name_server_interval": 30_000,
    "heartbeat_broker_interval": 30_000,
    "persist_consumer_offset_interval": 5000,
    "unit_mode": False,
    "pull_time_delay_mills_when_exception": 1000,
    "mq_client_api_timeout": 3000,
    "enable_stream_request_type": False,
    "send_message_with_vip_channel": False,
    "access_channel": "LOCAL",
    "language": "JAVA",
}

_ONLY_53: dict[str, Any] = {
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
    "back_pressure_for_async_send_num": 10_000,
    "back_pressure_for_async_send_size": 100 * 1024 * 1024,
    "decode_read_body": True,
    "decode_decompress_body": True,
    "enable_heartbeat_channel_event_listener": True,
    "trace_msg_batch_num": 10,
}


@functools.cache
def _defaults(compat: str) -> Mapping[str, Any]:
    from .reference.strategy import DEFAULT_TABLES  # not at import time: the reference package imports this one

    tables = DEFAULT_TABLES[compat]
    values = dict(_COMMON)
    values["latency_max"] = tuple(tables["latency_max"])
    values["not_available_duration"] = tuple(tables["not_available_duration"])
    if compat == "5.3":
        values.update(_ONLY_53)
    return MappingProxyType(values)


def producer_defaults(compat: str | None = "5.3") -> Mapping[str, Any]:
    """``DefaultMQProducer``'s defaults for ``compat``, by snake_case setting name (the producer group is the
    constructor's argument, so it is not among them)."""
    from .reference.compat import parse_compat

    return _defaults(parse_compat(compat))
