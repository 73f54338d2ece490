""":class:`LitePullConsumerSettings`: every setting the lite pull consumer reads, with ``DefaultLitePullConsumer``'s
defaults (the same on the 5.3.3 and 4.9.8 Java clients), checked when it is built; every other name is refused
(see :mod:`rocketroute.client.settings_base`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import IllegalArgumentError
from ..message_decode import DEFAULT_MAX_BODY_SIZE
from ..settings_base import ClientSettings, Unread, unread
from ..settings_check import DEFAULT_LANGUAGE, check_bool, check_int
from .constants import CONSUMER_CONSTANTS
from .settings import check_client, check_where

__all__ = ["MIN_AUTO_COMMIT_INTERVAL_MILLIS", "LitePullConsumerSettings"]

MIN_AUTO_COMMIT_INTERVAL_MILLIS = 1000
"""``DefaultLitePullConsumer.MIN_AUTOCOMMIT_INTERVAL_MILLIS``: Java's setter ignores a shorter interval; rocketroute
refuses it."""

_NO_TASKS = "the pulls are tasks on the client's event loop, not a pool of threads"


@dataclass(frozen=True, slots=True)
class LitePullConsumerSettings(ClientSettings):
    """A lite pull consumer's settings (``DefaultLitePullConsumer``'s, in snake_case; times in milliseconds).

    ``LitePullConsumerSettings.of("4.9", pull_batch_size=32)`` builds them as ``LitePullConsumer(...,
    compat="4.9", pull_batch_size=32)`` does; ``s.replace(...)`` gives a checked copy. Defaults are Java's, except
    ``language`` (``PYTHON``); ``rebalance_interval``, ``offset_store_dir`` and ``max_body_size`` are rocketroute's,
    as on :class:`~rocketroute.client.consumer.settings.ConsumerSettings`."""

    message_model: str = "CLUSTERING"
    """``CLUSTERING`` (the group shares the queues of a subscription) or ``BROADCASTING`` (every member takes every
    queue)."""
    consume_from_where: str = "CONSUME_FROM_LAST_OFFSET"
    """Where a queue with no committed offset starts."""
    consume_timestamp: str | None = None
    """``yyyyMMddHHmmss`` (local time) for ``CONSUME_FROM_TIMESTAMP``; ``None``: 30 minutes before the consumer
    was built, as Java's."""
    auto_commit: bool = True
    """Commit what :meth:`poll` returned at the next :meth:`poll`, at most every ``auto_commit_interval_millis``."""
    auto_commit_interval_millis: int = 5000
    """The least time between two automatic commits (at least 1000)."""
    pull_batch_size: int = 10
    """Messages per pull (``maxMsgNums``), and so at most per :meth:`poll`."""
    pull_threshold_for_all: int = 10_000
    """Messages pulled and not polled yet, all queues together, before the pulls wait (counted as Java does: the
    pulls waiting in the buffer times ``pull_batch_size``)."""
    consume_max_span: int = 2000
    """Stop pulling a queue while the offsets it holds unpolled span more than this."""
    pull_threshold_for_queue: int = 1000
    """Messages held per queue before its pulls wait."""
    pull_threshold_size_for_queue: int = 100
    """MiB held per queue before its pulls wait."""
    poll_timeout_millis: int = 5000
    """How long :meth:`poll` waits when it is given no timeout."""
    broker_suspend_max_time_millis: int = 20_000
    """How long a broker holds a pull that found nothing (long polling)."""
    consumer_timeout_millis_when_suspend: int = 30_000
    """The timeout of a long-polled pull: at least ``broker_suspend_max_time_millis``."""
    poll_name_server_interval: int = 30_000
    """The route refresh."""
    heartbeat_broker_interval: int = 30_000
    """The heartbeat to every broker."""
    persist_consumer_offset_interval: int = 5000
    """The offsets committed in memory are written to the brokers this often (and at shutdown)."""
    pull_time_delay_mills_when_exception: int = 1000
    """The pause before a failed pull is retried."""
    mq_client_api_timeout: int = 3000
    """Requests other than pulls (offsets, consumer lists, routes)."""
    language: str = DEFAULT_LANGUAGE
    """The ``language`` of every request header (a ``LanguageCode`` name)."""
    decode_read_body: bool = True
    """Decode the pulled bodies (``False``: messages come with ``body=None``)."""
    decode_decompress_body: bool = True
    """Inflate compressed bodies."""
    rebalance_interval: int = CONSUMER_CONSTANTS["REBALANCE_INTERVAL"]
    """The time between rebalances of a subscribing consumer (Java's system property
    ``rocketmq.client.rebalance.waitInterval``)."""
    offset_store_dir: str | os.PathLike[str] | None = None
    """Broadcasting offsets' directory (Java's ``rocketmq.client.localOffsetStoreDir``); ``None``:
    ``~/.rocketmq_offsets``."""
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE
    """A pulled body (after inflating) larger than this is handed over undecoded, with its ``decode_error``;
    ``None``: no limit."""

    CLIENT: ClassVar[str] = "lite pull consumer"
    ONLY_53: ClassVar[frozenset[str]] = frozenset({"decode_read_body", "decode_decompress_body"})
    OWN: ClassVar[frozenset[str]] = frozenset({"rebalance_interval", "offset_store_dir", "max_body_size"})
    JAVA_VALUES: ClassVar[Mapping[str, Any]] = {"language": "JAVA"}
    NOT_SUPPORTED: ClassVar[Mapping[str, Unread]] = {
        "pull_thread_nums": unread(20, _NO_TASKS),
        "consumer_pull_timeout_millis": unread(
            10_000, "Java's lite pull consumer only long-polls, timed by consumer_timeout_millis_when_suspend"
        ),
        "topic_metadata_check_interval_millis": unread(
            30_000, "topic message queue change listeners are not implemented"
        ),
        "unit_mode": unread(False, "unit mode is not implemented by the consumer"),
        "use_heartbeat_v2": unread(False, "heartbeat v2 (fingerprinted heartbeats) is not implemented", only_53=True),
        "enable_heartbeat_channel_event_listener": unread(
            True, "the consumer heartbeats on its timer only", only_53=True
        ),
        "vip_channel_enabled": unread(False, "the VIP channel is not implemented"),
        "enable_stream_request_type": unread(False, "stream requests are not implemented"),
        "access_channel": unread("LOCAL", "the CLOUD access channel (namespaces) is not implemented yet"),
        "trace_msg_batch_num": unread(10, "message tracing is not implemented", only_53=True),
    }
    """Java's settings that are not fields, with their defaults: accepted at that value only."""

    def __post_init__(self) -> None:
        """Each setting's type and range, Java's checks (``DefaultLitePullConsumerImpl.checkConfig``) first."""
        check_where(self)
        check_int("broker_suspend_max_time_millis", self.broker_suspend_max_time_millis, 1)
        check_int("consumer_timeout_millis_when_suspend", self.consumer_timeout_millis_when_suspend, 1)
        if self.consumer_timeout_millis_when_suspend < self.broker_suspend_max_time_millis:
            raise IllegalArgumentError(
                "Long polling mode, the consumer consumerTimeoutMillisWhenSuspend must greater than "
                f"brokerSuspendMaxTimeMillis ({self.consumer_timeout_millis_when_suspend} < "
                f"{self.broker_suspend_max_time_millis})"
            )
        check_bool("auto_commit", self.auto_commit)
        check_int("auto_commit_interval_millis", self.auto_commit_interval_millis, MIN_AUTO_COMMIT_INTERVAL_MILLIS)
        check_int("pull_batch_size", self.pull_batch_size, 1, 1024)
        check_int("pull_threshold_for_all", self.pull_threshold_for_all, 1)
        check_int("consume_max_span", self.consume_max_span, 1)
        check_int("pull_threshold_for_queue", self.pull_threshold_for_queue, 1)
        check_int("pull_threshold_size_for_queue", self.pull_threshold_size_for_queue, 1)
        check_int("poll_timeout_millis", self.poll_timeout_millis, 0)
        check_client(self)
