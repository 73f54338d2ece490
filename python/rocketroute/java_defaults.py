""":func:`producer_defaults`, :func:`consumer_defaults` and :func:`lite_pull_consumer_defaults`: the Java clients'
settings and defaults per compat profile, in snake_case, as a new ``DefaultMQProducer`` / ``DefaultMQPushConsumer`` /
``DefaultLitePullConsumer`` has them (Java's settings that
rocketroute does not implement included, rocketroute's own left out). They are read from the settings classes
(:meth:`~rocketroute.client.settings_base.ClientSettings.java_defaults`), which hold each default once; the client
is imported on the first call, not on ``import rocketroute``. tests/conformance/test_producer.py checks the
producer's against a new Java ``DefaultMQProducer``'s getters (5.3.3 and 4.9.8).

Left out: the group, the consumer's allocation strategy and message tracing (constructor arguments), and what
depends on the host or the environment (client IP, instance name, name server address, namespace, callback thread
count, TLS). Units are Java's: the consumer's ``pull_threshold_size_for_queue`` / ``_for_topic`` in MiB,
``consume_timeout`` in minutes, the rest in milliseconds, bytes or counts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["consumer_defaults", "lite_pull_consumer_defaults", "producer_defaults"]


def producer_defaults(compat: str | None = "5.3") -> Mapping[str, Any]:
    """``DefaultMQProducer``'s defaults for ``compat``, by snake_case setting name (the producer group is the
    constructor's argument, so it is not among them)."""
    # not at import time: the client is imported on first use, and the reference package imports this module
    from .client.producer.settings import ProducerSettings
    from .reference.compat import parse_compat

    compat = parse_compat(compat)
    return ProducerSettings.java_defaults(compat)


def consumer_defaults(compat: str | None = "5.3") -> Mapping[str, Any]:
    """``DefaultMQPushConsumer``'s defaults for ``compat``, by snake_case setting name (a read-only mapping).
    ``consume_timestamp`` is ``None``: Java's default is the time the consumer object was built minus 30 minutes,
    which the consumer computes when it starts."""
    from .client.consumer.settings import ConsumerSettings
    from .reference.compat import parse_compat

    compat = parse_compat(compat)
    return ConsumerSettings.java_defaults(compat)


def lite_pull_consumer_defaults(compat: str | None = "5.3") -> Mapping[str, Any]:
    """``DefaultLitePullConsumer``'s defaults for ``compat``, by snake_case setting name (a read-only mapping).
    ``consume_timestamp`` is ``None``, as in :func:`consumer_defaults`."""
    from .client.consumer.lite_pull_settings import LitePullConsumerSettings
    from .reference.compat import parse_compat

    compat = parse_compat(compat)
    return LitePullConsumerSettings.java_defaults(compat)
