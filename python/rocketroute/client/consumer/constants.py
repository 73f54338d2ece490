"""The Java push consumer's fixed delays and intervals (:data:`CONSUMER_CONSTANTS`), which a user cannot set (its
settings are :class:`~rocketroute.client.consumer.settings.ConsumerSettings`). Read from the Java sources of 5.3.3
and 4.9.8 (``DefaultMQPushConsumerImpl``, ``RebalanceService``, ``ProcessQueue``,
``ConsumeMessageOrderlyService``)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from ...reference.compat import parse_compat

__all__ = ["CONSUMER_CONSTANTS", "consumer_constants"]

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
delay is the settable ``pull_time_delay_mills_when_exception`` of :func:`rocketroute.consumer_defaults` (1000). See
:func:`consumer_constants` for the constants only 5.3.3 has."""

_CONSTANTS_ONLY_53: dict[str, int] = {
    # RebalanceService (5.x): after a rebalance that did not balance every topic, the next one comes after this
    # (rocketmq.client.rebalance.minInterval), and never sooner than this after the last one. 4.9.8 always
    # waits REBALANCE_INTERVAL.
    "REBALANCE_MIN_INTERVAL": 1000,
}


@functools.cache
def _constants(compat: str) -> Mapping[str, int]:
    if compat == "5.3":
        return MappingProxyType({**CONSUMER_CONSTANTS, **_CONSTANTS_ONLY_53})
    return CONSUMER_CONSTANTS


def consumer_constants(compat: str | None = "5.3") -> Mapping[str, int]:
    """:data:`CONSUMER_CONSTANTS` plus the constants only ``compat``'s client has (5.3.3:
    ``REBALANCE_MIN_INTERVAL``), read-only."""
    return _constants(parse_compat(compat))
