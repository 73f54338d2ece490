"""``DefaultMQPushConsumer``'s settings and their defaults per compat profile, in snake_case: what a push consumer
built on rocketroute starts from, and (:data:`CONSUMER_CONSTANTS`) the fixed delays and intervals of the Java
push consumer's machinery, which a user cannot set.

The values were read from the Java sources of 5.3.3 and 4.9.8 (``DefaultMQPushConsumer``, ``ClientConfig``,
``DefaultMQPushConsumerImpl``, ``RebalanceService``, ``ProcessQueue``, ``ConsumeMessageOrderlyService``); no
Java-backed test checks them yet. Left out, as :func:`rocketroute.producer_defaults` leaves them out: the
consumer group and the allocation strategy and message tracing (constructor arguments), and what depends on the
host or the environment (client IP, instance name, name server address, namespace, callback thread count, TLS).
``ClientConfig``'s producer-only settings (``sendLatencyEnable``, ``startDetectorEnable``, ``detectTimeout``,
``detectInterval``: the producer's fault strategy) are left out too.

Units are Java's: ``pull_threshold_size_for_queue`` / ``_for_topic`` in MiB, ``consume_timeout`` in minutes,
``pull_batch_size_in_bytes`` in bytes, the rest in milliseconds or counts.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["CONSUMER_CONSTANTS", "consumer_constants", "consumer_defaults"]

# DefaultMQPushConsumer's own settings, the same in 4.9.8 and 5.3.3.
_CONSUMER_COMMON: dict[str, Any] = {
    "message_model": "CLUSTERING",
    "consume_from_where": "CONSUME_FROM_LAST_OFFSET",
    # Java's field initialiser: UtilAll.timeMillisToHumanString3(now - 30 min), "yyyyMMddHHmmss" in the JVM's
    # local time zone, fixed when the consumer object is built. None here: the consumer computes it at start.
    "consume_timestamp": None,
    "consume_thread_min": 20,
    "consume_thread_max": 20,
    "adjust_thread_pool_nums_threshold": 100_000,
    "consume_concurrently_max_span": 2000,
    "pull_threshold_for_queue": 1000,
    "pull_threshold_size_for_queue": 100,  # MiB
    "pull_threshold_for_topic": -1,  # -1: no topic-level limit
    "pull_threshold_size_for_topic": -1,  # MiB; -1: no topic-level limit
    "pull_interval": 0,
    "consume_message_batch_max_size": 1,
    "pull_batch_size": 32,
    "post_subscription_when_pull": False,
    "max_reconsume_times": -1,  # -1: 16 for concurrent consumption, Integer.MAX_VALUE for orderly
    "suspend_current_queue_time_millis": 1000,
    "consume_timeout": 15,  # minutes
    "await_termination_millis_when_shutdown": 0,
}

# ClientConfig's settings a consumer uses, the same in 4.9.8 and 5.3.3 (the producer has the same values).
_CLIENT_COMMON: dict[str, Any] = {
    "poll_name_server_interval": 30_000,
    "heartbeat_broker_interval": 30_000,
    "persist_consumer_offset_interval": 5000,
    # The delay before a pull is retried after an error. DefaultMQPushConsumerImpl's field starts at 3000, but
    # its constructor overwrites it with this value, read once: setting it on the consumer after construction
    # does not reach the pull loop.
    "pull_time_delay_mills_when_exception": 1000,
    "unit_mode": False,
    "mq_client_api_timeout": 3000,
    "vip_channel_enabled": False,  # system property com.rocketmq.sendMessageWithVIPChannel, default false
    "enable_stream_request_type": False,
    "access_channel": "LOCAL",
    "language": "JAVA",
}

# Only in 5.3.3 (4.9.8 has no such getter).
_ONLY_53: dict[str, Any] = {
    "pull_batch_size_in_bytes": 256 * 1024,  # the pull request's maxMsgBytes
    "pop_threshold_for_queue": 96,
    "pop_invisible_time": 60_000,
    "pop_batch_nums": 32,
    "client_rebalance": True,
    # ClientConfig
    "decode_read_body": True,
    "decode_decompress_body": True,
    "use_heartbeat_v2": False,  # system property com.rocketmq.heartbeat.v2, default false
    "enable_heartbeat_channel_event_listener": True,
    "trace_msg_batch_num": 10,
}

CONSUMER_CONSTANTS: Mapping[str, int] = MappingProxyType(
    {
        # DefaultMQPushConsumerImpl: the delay before the next pull of a queue whose cache is over a threshold
        # (count, size, or span for concurrent consumption)
        "PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL": 50,
        # ... after the broker answered FLOW_CONTROL
        "PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL": 20,
        # ... while the consumer is paused
        "PULL_TIME_DELAY_MILLS_WHEN_SUSPEND": 1000,
        # the long-polling pull: how long the broker may hold it, and the client's timeout for it
        "BROKER_SUSPEND_MAX_TIME_MILLIS": 15_000,
        "CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND": 30_000,
        # RebalanceService: the time between rebalances (system property rocketmq.client.rebalance.waitInterval)
        "REBALANCE_INTERVAL": 20_000,
        # RebalancePushImpl: an orderly queue given up while it still has cached messages is unlocked on the
        # broker this much later (rocketmq.client.unlockDelayTimeMills)
        "UNLOCK_DELAY_TIME_MILLS": 20_000,
        # ProcessQueue: rocketmq.client.rebalance.lockMaxLiveTime, rocketmq.client.rebalance.lockInterval,
        # rocketmq.client.pull.pullMaxIdleTime
        "REBALANCE_LOCK_MAX_LIVE_TIME": 30_000,
        "REBALANCE_LOCK_INTERVAL": 20_000,
        "PULL_MAX_IDLE_TIME": 120_000,
        # ConsumeMessageOrderlyService: rocketmq.client.maxTimeConsumeContinuously
        "MAX_TIME_CONSUME_CONTINUOUSLY": 60_000,
    }
)
"""The push consumer's fixed delays and intervals (ms), the same in 4.9.8 and 5.3.3 (the ones a system property
can change are given with the property's default). There is no ``PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION``: that
delay is the settable ``pull_time_delay_mills_when_exception`` of :func:`consumer_defaults` (1000). See
:func:`consumer_constants` for the constants only 5.3.3 has."""

_CONSTANTS_ONLY_53: dict[str, int] = {
    # RebalanceService (5.x): after a rebalance that did not balance every topic, the next one comes after this
    # (rocketmq.client.rebalance.minInterval), and never sooner than this after the last one. 4.9.8 always
    # waits REBALANCE_INTERVAL.
    "REBALANCE_MIN_INTERVAL": 1000,
}


@functools.cache
def _defaults(compat: str) -> Mapping[str, Any]:
    values = dict(_CONSUMER_COMMON)
    values.update(_CLIENT_COMMON)
    if compat == "5.3":
        values.update(_ONLY_53)
    return MappingProxyType(values)


@functools.cache
def _constants(compat: str) -> Mapping[str, int]:
    if compat == "5.3":
        return MappingProxyType({**CONSUMER_CONSTANTS, **_CONSTANTS_ONLY_53})
    return CONSUMER_CONSTANTS


def consumer_defaults(compat: str | None = "5.3") -> Mapping[str, Any]:
    """``DefaultMQPushConsumer``'s defaults for ``compat``, by snake_case setting name (a read-only mapping).
    ``consume_timestamp`` is ``None``: Java's default is the time the consumer object was built minus 30 minutes,
    which the consumer computes when it starts."""
    from .reference.compat import parse_compat  # not at import time, as producer_config

    return _defaults(parse_compat(compat))


def consumer_constants(compat: str | None = "5.3") -> Mapping[str, int]:
    """:data:`CONSUMER_CONSTANTS` plus the constants only ``compat``'s client has (5.3.3:
    ``REBALANCE_MIN_INTERVAL``), read-only."""
    from .reference.compat import parse_compat

    return _constants(parse_compat(compat))
