""":class:`ConsumerSettings`: every setting the push consumer reads, with ``DefaultMQPushConsumer``'s defaults,
checked when it is built; every other name is refused (see :mod:`rocketroute.client.settings_base`)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ...errors import IllegalArgumentError
from ..message_decode import DEFAULT_MAX_BODY_SIZE
from ..settings_base import ClientSettings, Unread, unread
from ..settings_check import (
    DEFAULT_LANGUAGE,
    check_bool,
    check_choice,
    check_int,
    check_language,
    check_positive_ms,
)
from .constants import CONSUMER_CONSTANTS

__all__ = [
    "CONSUME_FROM",
    "INFORMATIONAL",
    "MODELS",
    "ConsumerSettings",
    "check_client",
    "check_where",
    "java_timestamp_string",
    "parse_java_timestamp",
]

MODELS = ("CLUSTERING", "BROADCASTING")
"""``MessageModel``'s names."""
CONSUME_FROM = ("CONSUME_FROM_LAST_OFFSET", "CONSUME_FROM_FIRST_OFFSET", "CONSUME_FROM_TIMESTAMP")
"""``ConsumeFromWhere``'s names (the deprecated ones left out, as Java's checkConfig does not use them)."""

INFORMATIONAL: Mapping[str, str] = {
    "consume_thread_max": (
        "Java's consume pool never grows past consume_thread_min (its queue is unbounded), nor does rocketroute's: "
        "it is checked (at least consume_thread_min) and shown in the running info"
    ),
}
"""Fields that change no behaviour, as in Java, and why they exist."""


def java_timestamp_string(ms: int) -> str:
    """``UtilAll.timeMillisToHumanString3``: ``yyyyMMddHHmmss`` in local time."""
    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%Y%m%d%H%M%S")


def parse_java_timestamp(s: str) -> int:
    """A ``yyyyMMddHHmmss`` local time (``consume_timestamp``) in epoch milliseconds."""
    return int(datetime.datetime.strptime(s, "%Y%m%d%H%M%S").timestamp() * 1000)


_POP = "pop consumption is not implemented"


@dataclass(frozen=True, slots=True)
class ConsumerSettings(ClientSettings):
    """A push consumer's settings (``DefaultMQPushConsumer``'s, in snake_case; times in milliseconds unless said).

    ``ConsumerSettings.of("4.9", pull_batch_size=64)`` builds them as ``Consumer(..., compat="4.9",
    pull_batch_size=64)`` does; ``Consumer(..., settings=s)`` takes an object, and ``s.replace(...)`` gives a
    checked copy. Defaults are Java's (the same on 5.3 and 4.9),
    except ``language`` (``PYTHON``); ``rebalance_interval``, ``offset_store_dir`` and ``max_body_size`` are
    rocketroute's (Java's first two are system properties)."""

    message_model: str = "CLUSTERING"
    """``CLUSTERING`` (the group shares the queues) or ``BROADCASTING`` (every member takes every queue)."""
    consume_from_where: str = "CONSUME_FROM_LAST_OFFSET"
    """Where a queue with no stored offset starts (a new group)."""
    consume_timestamp: str | None = None
    """``yyyyMMddHHmmss`` (local time) for ``CONSUME_FROM_TIMESTAMP``; ``None``: 30 minutes before the consumer
    was built, as Java's."""
    consume_thread_min: int = 20
    """The listener threads."""
    consume_thread_max: int = 20
    """Informational, as in Java (see :data:`INFORMATIONAL`)."""
    consume_concurrently_max_span: int = 2000
    """Concurrent listeners: stop pulling a queue while its cached offsets span more than this."""
    pull_threshold_for_queue: int = 1000
    """Messages cached per queue before its pulls wait."""
    pull_threshold_size_for_queue: int = 100
    """MiB cached per queue before its pulls wait."""
    pull_threshold_for_topic: int = -1
    """Messages cached per topic, shared among its owned queues; -1: no topic limit."""
    pull_threshold_size_for_topic: int = -1
    """MiB cached per topic, shared among its owned queues; -1: no topic limit."""
    pull_interval: int = 0
    """A pause between a queue's pulls that found messages."""
    consume_message_batch_max_size: int = 1
    """Messages per listener call."""
    pull_batch_size: int = 32
    """Messages per pull (``maxMsgNums``)."""
    pull_batch_size_in_bytes: int = 256 * 1024
    """Bytes per pull (``maxMsgBytes``), 5.3 only: 4.9's pulls carry no such field."""
    post_subscription_when_pull: bool = False
    """Send the subscription in every pull (the ``FLAG_SUBSCRIPTION`` bit)."""
    max_reconsume_times: int = -1
    """Deliveries before a message goes to the DLQ; -1: 16 (concurrent) or ``Integer.MAX_VALUE`` (orderly)."""
    suspend_current_queue_time_millis: int = 1000
    """Orderly: the pause after ``SUSPEND_CURRENT_QUEUE_A_MOMENT`` when the context sets none."""
    consume_timeout: int = 15
    """Minutes: a cached message older than this is sent back (concurrent), and the shutdown's default wait."""
    await_termination_millis_when_shutdown: int = 0
    """How long a shutdown waits for listener calls under way; 0: ``consume_timeout``."""
    poll_name_server_interval: int = 30_000
    """The route refresh."""
    heartbeat_broker_interval: int = 30_000
    """The heartbeat to every broker of the subscribed topics."""
    persist_consumer_offset_interval: int = 5000
    """The offset commit."""
    pull_time_delay_mills_when_exception: int = 1000
    """The pause before a failed pull is retried."""
    mq_client_api_timeout: int = 3000
    """Requests other than pulls (offsets, locks, consumer lists, routes)."""
    language: str = DEFAULT_LANGUAGE
    """The ``language`` of every request header (a ``LanguageCode`` name)."""
    decode_read_body: bool = True
    """Decode the pulled bodies (``False``: messages come with ``body=None``)."""
    decode_decompress_body: bool = True
    """Inflate compressed bodies."""
    rebalance_interval: int = CONSUMER_CONSTANTS["REBALANCE_INTERVAL"]
    """The time between rebalances (Java's system property ``rocketmq.client.rebalance.waitInterval``)."""
    offset_store_dir: str | os.PathLike[str] | None = None
    """Broadcasting offsets' directory (Java's ``rocketmq.client.localOffsetStoreDir``); ``None``:
    ``~/.rocketmq_offsets``."""
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE
    """A pulled body (after inflating) larger than this is set aside as undecodable; ``None``: no limit."""

    CLIENT: ClassVar[str] = "consumer"
    ONLY_53: ClassVar[frozenset[str]] = frozenset(
        {"pull_batch_size_in_bytes", "decode_read_body", "decode_decompress_body"}
    )
    OWN: ClassVar[frozenset[str]] = frozenset({"rebalance_interval", "offset_store_dir", "max_body_size"})
    JAVA_VALUES: ClassVar[Mapping[str, Any]] = {"language": "JAVA"}
    NOT_SUPPORTED: ClassVar[Mapping[str, Unread]] = {
        "client_rebalance": unread(
            True, "pop consumption (server-side rebalance) is not implemented; the consumer rebalances", only_53=True
        ),
        "pop_threshold_for_queue": unread(96, _POP, only_53=True),
        "pop_invisible_time": unread(60_000, _POP, only_53=True),
        "pop_batch_nums": unread(32, _POP, only_53=True),
        # system property com.rocketmq.heartbeat.v2, default false
        "use_heartbeat_v2": unread(False, "heartbeat v2 (fingerprinted heartbeats) is not implemented", only_53=True),
        "enable_heartbeat_channel_event_listener": unread(
            True, "the consumer heartbeats on its timer only", only_53=True
        ),
        "unit_mode": unread(False, "unit mode is not implemented by the consumer"),
        # system property com.rocketmq.sendMessageWithVIPChannel, default false
        "vip_channel_enabled": unread(False, "the VIP channel is not implemented"),
        "enable_stream_request_type": unread(False, "stream requests are not implemented"),
        "access_channel": unread("LOCAL", "the CLOUD access channel (namespaces) is not implemented yet"),
        "trace_msg_batch_num": unread(10, "message tracing is not implemented", only_53=True),
        "adjust_thread_pool_nums_threshold": unread(
            100_000, "the consume pool is fixed at consume_thread_min threads, as Java's is"
        ),
    }
    """Java's settings that are not fields, with their defaults: accepted at that value only."""

    def __post_init__(self) -> None:
        """Each setting's type and range, Java's checks (``DefaultMQPushConsumerImpl.checkConfig``) first; raises
        on the first bad one."""
        check_where(self)
        check_int("consume_thread_min", self.consume_thread_min, 1, 1000)
        check_int("consume_thread_max", self.consume_thread_max, 1, 1000)
        if self.consume_thread_min > self.consume_thread_max:
            raise IllegalArgumentError(
                f"consume_thread_min ({self.consume_thread_min}) is larger than consume_thread_max "
                f"({self.consume_thread_max})"
            )
        check_int("consume_concurrently_max_span", self.consume_concurrently_max_span, 1, 65535)
        check_int("pull_threshold_for_queue", self.pull_threshold_for_queue, 1, 65535)
        check_int("pull_threshold_for_topic", self.pull_threshold_for_topic, 1, 6_553_500, also=(-1,))
        check_int("pull_threshold_size_for_queue", self.pull_threshold_size_for_queue, 1, 1024)
        check_int("pull_threshold_size_for_topic", self.pull_threshold_size_for_topic, 1, 102_400, also=(-1,))
        check_int("pull_interval", self.pull_interval, 0, 65535)
        check_int("consume_message_batch_max_size", self.consume_message_batch_max_size, 1, 1024)
        check_int("pull_batch_size", self.pull_batch_size, 1, 1024)
        check_int("pull_batch_size_in_bytes", self.pull_batch_size_in_bytes, 1)
        check_int("max_reconsume_times", self.max_reconsume_times, -1)
        check_int("suspend_current_queue_time_millis", self.suspend_current_queue_time_millis, 1)
        check_int("consume_timeout", self.consume_timeout, 1, 35_791)  # minutes; x 60,000 stays a Java int
        check_int("await_termination_millis_when_shutdown", self.await_termination_millis_when_shutdown, 0)
        check_bool("post_subscription_when_pull", self.post_subscription_when_pull)
        check_client(self)


def check_where(s: Any) -> None:
    """What every consumer's settings check first, as Java's ``checkConfig`` does: the message model and where a
    queue with no offset starts (``consume_timestamp`` a ``yyyyMMddHHmmss`` when given)."""
    check_choice("message model", s.message_model, MODELS)
    check_choice("consume_from_where", s.consume_from_where, CONSUME_FROM)
    if s.consume_timestamp is not None:
        if not isinstance(s.consume_timestamp, str):
            raise TypeError(f"consume_timestamp must be a str (yyyyMMddHHmmss), not {s.consume_timestamp!r}")
        try:
            parse_java_timestamp(s.consume_timestamp)
        except ValueError:
            bad = s.consume_timestamp
            raise IllegalArgumentError(f"consume_timestamp must be yyyyMMddHHmmss, not {bad!r}") from None


def check_client(s: Any) -> None:
    """What every consumer's settings check last: the timers and timeouts, the pulled bodies' decoding, the
    language, the broadcasting offsets' directory."""
    for name in (
        "persist_consumer_offset_interval",
        "heartbeat_broker_interval",
        "poll_name_server_interval",
        "rebalance_interval",
        "mq_client_api_timeout",
    ):
        check_positive_ms(name, getattr(s, name))
    check_int("pull_time_delay_mills_when_exception", s.pull_time_delay_mills_when_exception, 0)
    for name in ("decode_read_body", "decode_decompress_body"):
        check_bool(name, getattr(s, name))
    check_language(s.language)
    if s.offset_store_dir is not None and not isinstance(s.offset_store_dir, (str, os.PathLike)):
        raise TypeError(f"offset_store_dir must be a path, not {s.offset_store_dir!r}")
    if s.max_body_size is not None:
        check_int("max_body_size", s.max_body_size, 1)
