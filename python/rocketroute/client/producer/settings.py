""":class:`ProducerSettings`: every setting the producer reads, with ``DefaultMQProducer``'s defaults, checked
when it is built; every other name is refused (see :mod:`rocketroute.client.settings_base`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ...reference.strategy import DEFAULT_TABLES
from ..settings_base import ClientSettings, Unread, unread
from ..settings_check import DEFAULT_LANGUAGE, check_bool, check_int, check_language, check_positive_ms

__all__ = ["ProducerSettings"]

_CONSUMER_ONLY = "a consumer setting of Java's shared ClientConfig: a producer has nothing it would change"
_NO_BATCHING = "automatic batching is not implemented (send_batch sends a batch you build)"
_NO_DETECTOR = "the fault strategy's broker detector is not implemented (latencies come from real sends)"
_TABLES = "the fault strategy's tables are the compat profile's (rocketroute.DEFAULT_TABLES)"


def _table(name: str) -> Unread:
    return Unread({compat: tuple(tables[name]) for compat, tables in DEFAULT_TABLES.items()}, _TABLES)


@dataclass(frozen=True, slots=True)
class ProducerSettings(ClientSettings):
    """A producer's settings (``DefaultMQProducer``'s, in snake_case; times in milliseconds).

    ``ProducerSettings.of("4.9", send_msg_timeout=1000)`` builds them as ``Producer(..., compat="4.9",
    send_msg_timeout=1000)`` does; ``Producer(..., settings=s)`` takes an object, and ``s.replace(...)`` gives a
    checked copy. ``language`` is ``PYTHON`` here (Java's client
    writes ``JAVA``); every other default is Java's, the same on 5.3 and 4.9."""

    send_msg_timeout: int = 3000
    """The budget of one send, every retry included."""
    retry_times_when_send_failed: int = 2
    """Sync sends: retries after the first attempt (another queue, another broker when it can)."""
    retry_times_when_send_async_failed: int = 2
    """``send_async``: retries after the first attempt."""
    retry_another_broker_when_not_store_ok: bool = False
    """Retry a send the broker stored with a status other than ``SEND_OK`` (flush or slave timeouts)."""
    send_latency_fault_enable: bool = False
    """The latency fault tolerance (``MQFaultStrategy``): avoid brokers that were slow or failed."""
    compress_msg_body_over_howmuch: int = 4096
    """Bodies longer than this (bytes) are compressed."""
    compress_level: int = 5
    """The compressor's level: ZLIB -1 to 9, ZSTD -131072 to 22; LZ4 has none (only the default is taken). 4.9's
    is the system property ``rocketmq.message.compressLevel``."""
    compress_type: str = "ZLIB"
    """``"ZLIB"`` (Java's default), ``"LZ4"`` or ``"ZSTD"`` (those two need ``rocketroute[compression]``)."""
    max_message_size: int = 4 * 1024 * 1024
    """A message (or a batch) larger than this is refused before it is sent."""
    default_topic_queue_nums: int = 4
    """Queues of a topic created on first send (through ``create_topic_key``'s route)."""
    create_topic_key: str = "TBW102"
    """The topic whose route a send to an unknown topic borrows, where the broker auto-creates topics."""
    poll_name_server_interval: int = 30_000
    """The route refresh."""
    heartbeat_broker_interval: int = 30_000
    """The heartbeat that registers the producer group with every master broker its routes name (the first one
    comes 1 s after start)."""
    mq_client_api_timeout: int = 3000
    """Requests other than sends (routes)."""
    unit_mode: bool = False
    """Written in the send header (``unitMode``)."""
    enable_backpressure_for_async_mode: bool = False
    """Bound the async sends in flight (``send_async``, ``send_batch_async``, ``submit``): a send waits for room,
    up to its budget, then fails with ``RemotingTooMuchRequestError`` (5.x)."""
    back_pressure_for_async_send_num: int = 10_000
    """With the back-pressure: async sends in flight at most (at least 10, as Java's floor)."""
    back_pressure_for_async_send_size: int = 100 * 1024 * 1024
    """With the back-pressure: body bytes of the async sends in flight at most (at least 1 MiB, as Java's
    floor)."""
    language: str = DEFAULT_LANGUAGE
    """The ``language`` of every request header (a ``LanguageCode`` name)."""
    shutdown_flush_timeout: int = 5000
    """How long ``shutdown()`` (``stop()``, leaving ``with`` / ``async with``) waits for the sends already accepted
    before it fails what is left with ``ProducerClosedError``; longer than ``send_msg_timeout`` by default, so every
    send ends by its own budget first. rocketroute's (Java's shutdown does not wait)."""

    CLIENT: ClassVar[str] = "producer"
    ONLY_53: ClassVar[frozenset[str]] = frozenset(
        {"enable_backpressure_for_async_mode", "back_pressure_for_async_send_num", "back_pressure_for_async_send_size"}
    )
    ALSO_ON_49: ClassVar[frozenset[str]] = frozenset({"compress_level", "compress_type"})
    OWN: ClassVar[frozenset[str]] = frozenset({"shutdown_flush_timeout"})
    JAVA_VALUES: ClassVar[Mapping[str, Any]] = {"language": "JAVA"}
    NOT_SUPPORTED: ClassVar[Mapping[str, Unread]] = {
        "persist_consumer_offset_interval": unread(5000, _CONSUMER_ONLY),
        "pull_time_delay_mills_when_exception": unread(1000, _CONSUMER_ONLY),
        "decode_read_body": unread(True, _CONSUMER_ONLY, only_53=True),
        "decode_decompress_body": unread(True, _CONSUMER_ONLY, only_53=True),
        "enable_stream_request_type": unread(False, "stream requests are not implemented"),
        "send_message_with_vip_channel": unread(False, "the VIP channel is not implemented"),
        "access_channel": unread("LOCAL", "the CLOUD access channel (namespaces) is not implemented yet"),
        "latency_max": _table("latency_max"),
        "not_available_duration": _table("not_available_duration"),
        "send_latency_enable": unread(
            False, "send_latency_fault_enable is the setting that turns the fault tolerance on", only_53=True
        ),
        "start_detector_enable": unread(False, _NO_DETECTOR, only_53=True),
        "detect_timeout": unread(200, _NO_DETECTOR, only_53=True),
        "detect_interval": unread(2000, _NO_DETECTOR, only_53=True),
        "auto_batch": unread(False, _NO_BATCHING, only_53=True),
        "batch_max_delay_ms": unread(0, _NO_BATCHING, only_53=True),
        "batch_max_bytes": unread(0, _NO_BATCHING, only_53=True),
        "total_batch_max_bytes": unread(0, _NO_BATCHING, only_53=True),
        "enable_heartbeat_channel_event_listener": unread(True, "heartbeats go on their timer only", only_53=True),
        "trace_msg_batch_num": unread(10, "message tracing is not implemented", only_53=True),
    }
    """Java's settings that are not fields, with their defaults: accepted at that value only."""

    def __post_init__(self) -> None:
        """Each setting's type and range; raises on the first bad one."""
        for name in (
            "send_msg_timeout",
            "poll_name_server_interval",
            "heartbeat_broker_interval",
            "mq_client_api_timeout",
            "max_message_size",
            "shutdown_flush_timeout",
        ):
            check_positive_ms(name, getattr(self, name))
        # Java takes any int and allocates an array of 1 + retries per send; past 1000 the send budget ends the
        # loop long before, so a larger value is a mistake
        check_int("retry_times_when_send_failed", self.retry_times_when_send_failed, 0, 1000)
        check_int("retry_times_when_send_async_failed", self.retry_times_when_send_async_failed, 0, 1000)
        for name in (
            "retry_another_broker_when_not_store_ok",
            "send_latency_fault_enable",
            "unit_mode",
            "enable_backpressure_for_async_mode",
        ):
            check_bool(name, getattr(self, name))
        # Java raises a smaller value to its floor (and logs it at INFO); here it is refused, not changed unseen
        check_int("back_pressure_for_async_send_num", self.back_pressure_for_async_send_num, 10, 2**31 - 1)
        check_int("back_pressure_for_async_send_size", self.back_pressure_for_async_send_size, 1024 * 1024, 2**31 - 1)
        check_int("compress_msg_body_over_howmuch", self.compress_msg_body_over_howmuch, 0)
        from ..compression import check_compression

        check_int("compress_level", self.compress_level, -(2**31))
        check_compression(self.compress_type, self.compress_level)  # CompressionType.of: trimmed, any case
        check_int("default_topic_queue_nums", self.default_topic_queue_nums, 1)
        if not isinstance(self.create_topic_key, str) or not self.create_topic_key:
            raise TypeError(f"create_topic_key must be a topic name, not {self.create_topic_key!r}")
        check_language(self.language)
