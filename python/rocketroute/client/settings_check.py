"""Checks of the producer's and the consumer's settings at construction: every value is read or refused.

A setting gets its type and range checked when the client is built, with Java's limits where Java has them
(``DefaultMQPushConsumerImpl.checkConfig``, ``Validators.checkGroup``) and the clear error Python code expects:
:class:`TypeError` for a value of the wrong type (``'10'`` for an int, ``'false'`` for a bool: no string is
silently taken as True), :class:`ValueError` (:class:`~rocketroute.errors.IllegalArgumentError`) for one out of
range. A Java setting whose feature rocketroute does not implement is accepted only at Java's default value (which
is what rocketroute does), and refused with an error naming it otherwise: it is never accepted and ignored.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from ..errors import IllegalArgumentError
from ..remoting.command import LANGUAGE_CODES

__all__ = [
    "DEFAULT_LANGUAGE",
    "GROUP_MAX_LENGTH",
    "JAVA_INT_MAX",
    "check_bool",
    "check_choice",
    "check_compat",
    "check_consumer_settings",
    "check_group",
    "check_int",
    "check_language",
    "check_positive_ms",
    "check_producer_settings",
    "refuse_unless_default",
]

JAVA_INT_MAX = 2**31 - 1


def check_compat(compat: Any) -> str:
    """The client's compat profile, ``"5.3"`` or ``"4.9"``, from it or one of its aliases (``"5.3.3"``, ``"5.5"``,
    ``"4.9.8"``, ...); anything else is a :class:`ValueError`."""
    from ..reference.compat import parse_compat

    try:
        return parse_compat(compat)
    except (IllegalArgumentError, TypeError):  # an unknown name, or not a str
        raise ValueError(f"compat must be '5.3' or '4.9' (or an alias such as '5.5'), not {compat!r}") from None


DEFAULT_LANGUAGE = "PYTHON"
"""The ``language`` rocketroute's clients write in their requests' headers unless told otherwise (Java's clients
write ``JAVA``; brokers show it in ``consumerConnection`` and the like)."""
GROUP_MAX_LENGTH = 255
"""``Validators.CHARACTER_MAX_LENGTH``."""
_LEGAL_GROUP = frozenset("%|abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def check_int(name: str, value: Any, lo: int, hi: int = JAVA_INT_MAX, *, also: Collection[int] = ()) -> int:
    """``value`` as an int in ``[lo, hi]`` (or one of ``also``, e.g. -1 for "no limit"). A bool, a float or a str
    is refused with :class:`TypeError`; an int out of range with :class:`IllegalArgumentError` in Java's words
    (``"pullInterval Out of range [0, 65535]"``, the setting named in snake_case)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__} {value!r}")
    if value in also:
        return value
    if not lo <= value <= hi:
        extra = "".join(f" or {v}" for v in also)
        raise IllegalArgumentError(f"{name} Out of range [{lo}, {hi}]{extra}: {value}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a bool: only ``True`` or ``False`` (``'false'``, ``'no'`` and ``0`` are refused, not guessed)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {value!r}")
    return value


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """``value`` as one of ``choices`` (case-sensitive, as Java's enum names)."""
    options = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {', '.join(options)}; not {type(value).__name__} {value!r}")
    if value not in options:
        raise IllegalArgumentError(f"{name} must be one of {', '.join(options)}, not {value!r}")
    return value


def check_language(value: Any) -> str:
    """The ``language`` a client writes in its requests' headers: a ``LanguageCode`` name."""
    return check_choice("language", value, sorted(LANGUAGE_CODES))


def check_group(group: Any, what: str = "group") -> str:
    """``Validators.checkGroup``: not blank, at most 255 characters, only ``%|a-zA-Z0-9_-``."""
    if not isinstance(group, str):
        raise TypeError(f"the {what} must be a str, not {type(group).__name__} {group!r}")
    if not group.strip():
        raise IllegalArgumentError(f"the specified {what} is blank")
    if len(group) > GROUP_MAX_LENGTH:
        raise IllegalArgumentError(f"the specified {what} is longer than group max length {GROUP_MAX_LENGTH}.")
    if not _LEGAL_GROUP.issuperset(group):
        raise IllegalArgumentError(
            f"the specified {what}[{group}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
        )
    return group


def check_positive_ms(name: str, value: Any) -> int:
    """A time in milliseconds (or a count) that must be at least 1."""
    return check_int(name, value, 1)


def refuse_unless_default(
    cfg: Mapping[str, Any], defaults: Mapping[str, Any], names: Mapping[str, str], client: str
) -> None:
    """Raise :class:`IllegalArgumentError` for each setting of ``names`` (setting -> why it is not supported) set
    to anything but its default; the default is what rocketroute does, so it is accepted."""
    for name, why in names.items():
        if name in cfg and name in defaults and cfg[name] != defaults[name]:
            raise IllegalArgumentError(
                f"{client} setting {name}={cfg[name]!r} is not supported: {why} (only {defaults[name]!r}, Java's "
                "default, is accepted)"
            )


# -- the consumer ------------------------------------------------------------------------------------------------

_CONSUMER_NOT_SUPPORTED = {
    "client_rebalance": "pop consumption (server-side rebalance) is not implemented; the consumer rebalances itself",
    "pop_threshold_for_queue": "pop consumption is not implemented",
    "pop_invisible_time": "pop consumption is not implemented",
    "pop_batch_nums": "pop consumption is not implemented",
    "use_heartbeat_v2": "heartbeat v2 (fingerprinted heartbeats) is not implemented",
    "enable_heartbeat_channel_event_listener": "the consumer heartbeats on its timer only",
    "unit_mode": "unit mode is not implemented by the consumer",
    "vip_channel_enabled": "the VIP channel is not implemented",
    "enable_stream_request_type": "stream requests are not implemented",
    "access_channel": "the CLOUD access channel (namespaces) is not implemented yet",
    "trace_msg_batch_num": "message tracing is not implemented",
    "adjust_thread_pool_nums_threshold": "the consume pool is fixed at consume_thread_min threads, as Java's is",
}
"""Java settings the consumer accepts at their default only, and why."""


def check_consumer_settings(cfg: dict[str, Any], defaults: Mapping[str, Any]) -> None:
    """Every consumer setting's type and range, Java's checks (``DefaultMQPushConsumerImpl.checkConfig``) first;
    raises on the first bad one."""
    refuse_unless_default(cfg, defaults, _CONSUMER_NOT_SUPPORTED, "consumer")
    check_int("consume_thread_min", cfg["consume_thread_min"], 1, 1000)
    check_int("consume_thread_max", cfg["consume_thread_max"], 1, 1000)
    if cfg["consume_thread_min"] > cfg["consume_thread_max"]:
        raise IllegalArgumentError(
            f"consume_thread_min ({cfg['consume_thread_min']}) is larger than consume_thread_max "
            f"({cfg['consume_thread_max']})"
        )
    check_int("consume_concurrently_max_span", cfg["consume_concurrently_max_span"], 1, 65535)
    check_int("pull_threshold_for_queue", cfg["pull_threshold_for_queue"], 1, 65535)
    check_int("pull_threshold_for_topic", cfg["pull_threshold_for_topic"], 1, 6_553_500, also=(-1,))
    check_int("pull_threshold_size_for_queue", cfg["pull_threshold_size_for_queue"], 1, 1024)
    check_int("pull_threshold_size_for_topic", cfg["pull_threshold_size_for_topic"], 1, 102_400, also=(-1,))
    check_int("pull_interval", cfg["pull_interval"], 0, 65535)
    check_int("consume_message_batch_max_size", cfg["consume_message_batch_max_size"], 1, 1024)
    check_int("pull_batch_size", cfg["pull_batch_size"], 1, 1024)
    if "pull_batch_size_in_bytes" in cfg:
        check_int("pull_batch_size_in_bytes", cfg["pull_batch_size_in_bytes"], 1)
    check_int("max_reconsume_times", cfg["max_reconsume_times"], -1)
    check_int("suspend_current_queue_time_millis", cfg["suspend_current_queue_time_millis"], 1)
    check_int("consume_timeout", cfg["consume_timeout"], 1, 35_791)  # minutes; x 60,000 stays a Java int
    check_int("await_termination_millis_when_shutdown", cfg["await_termination_millis_when_shutdown"], 0)
    for name in (
        "persist_consumer_offset_interval",
        "heartbeat_broker_interval",
        "poll_name_server_interval",
        "rebalance_interval",
        "mq_client_api_timeout",
    ):
        check_positive_ms(name, cfg[name])
    check_int("pull_time_delay_mills_when_exception", cfg["pull_time_delay_mills_when_exception"], 0)
    for name in ("post_subscription_when_pull", "decode_read_body", "decode_decompress_body"):
        if name in cfg:
            check_bool(name, cfg[name])
    for name in _CONSUMER_NOT_SUPPORTED:
        if name in cfg and isinstance(defaults.get(name), bool):
            check_bool(name, cfg[name])
    check_language(cfg["language"])
    if cfg.get("max_body_size") is not None:
        check_int("max_body_size", cfg["max_body_size"], 1)


# -- the producer ------------------------------------------------------------------------------------------------


def check_producer_settings(cfg: dict[str, Any]) -> None:
    """Every producer setting's type and range; raises on the first bad one."""
    for name in ("send_msg_timeout", "poll_name_server_interval", "mq_client_api_timeout", "max_message_size"):
        check_positive_ms(name, cfg[name])
    # Java takes any int and allocates an array of 1 + retries per send; past 1000 the send budget ends the loop
    # long before, so a larger value is a mistake
    check_int("retry_times_when_send_failed", cfg["retry_times_when_send_failed"], 0, 1000)
    check_int("retry_times_when_send_async_failed", cfg["retry_times_when_send_async_failed"], 0, 1000)
    for name in ("retry_another_broker_when_not_store_ok", "send_latency_fault_enable", "unit_mode"):
        check_bool(name, cfg[name])
    check_int("compress_msg_body_over_howmuch", cfg["compress_msg_body_over_howmuch"], 0)
    from .message import CompressionType

    ctype = CompressionType.of(cfg["compress_type"])  # Java's CompressionType.of: trimmed, any case
    if ctype is not CompressionType.ZLIB:
        raise IllegalArgumentError(
            f"compress_type={cfg['compress_type']!r} is not supported for sending (ZLIB, Java's default, is)"
        )
    check_int("compress_level", cfg["compress_level"], -1, 9)  # java.util.zip.Deflater's levels
    check_int("default_topic_queue_nums", cfg["default_topic_queue_nums"], 1)
    if not isinstance(cfg["create_topic_key"], str) or not cfg["create_topic_key"]:
        raise TypeError(f"create_topic_key must be a topic name, not {cfg['create_topic_key']!r}")
    check_language(cfg["language"])
