"""A message as the Java producer puts it on the wire: properties, validation, compression and batches.

Everything here follows RocketMQ 5.3.3's client (``compat="5.3"``, the default) or 4.9.8's (``compat="4.9"``);
where the two differ the docstring says so. Java sources, by class:

- ``Message`` / ``MessageConst``: the property names, ``TAGS``/``KEYS``/``WAIT`` put by the constructor, the
  names a user may not set (``MessageConst.STRING_HASH_SET``, 31 names in 4.9.8, 51 in 5.3.3).
- ``MessageDecoder.messageProperties2String`` / ``string2messageProperties``: ``name \\x01 value \\x02`` per
  entry, in the iteration order of the message's ``java.util.HashMap``; 4.9.8 drops the last ``\\x02``.
- ``MessageDecoder.encodeMessage`` / ``encodeMessages`` (``MessageBatch.encode``): the batch body.
- ``Validators.checkMessage`` / ``checkTopic`` and ``TopicValidator``: what a send refuses, with Java's texts.
- ``DefaultMQProducerImpl.tryToCompressMessage`` / ``sendKernelImpl``, ``ZlibCompressor``, ``CompressionType``
  and ``MessageSysFlag``: a body of ``compressMsgBodyOverHowmuch`` (4096) bytes or more, not in a batch, is
  deflated (zlib stream, level 5) and the sysFlag gets ``COMPRESSED_FLAG | COMPRESSION_ZLIB_TYPE`` (``0x301``),
  in both 4.9.8 and 5.3.3.
- ``DefaultMQProducer.batch`` / ``MessageBatch.generateFromList``: the batch checks; each message gets its own
  ``UNIQ_KEY``; the batch itself carries ``WAIT`` and (5.3.3 only) a ``UNIQ_KEY`` of its own.
"""

from __future__ import annotations

import enum
import functools
import os
import unicodedata
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from .._backend import native_twin
from ..errors import IllegalArgumentError, NullPointerError, RocketRouteError
from ..protocol.response_code import ResponseCode
from ..reference.compat import COMPAT_PROFILES, parse_compat
from ..reference.java import java_string_hash, java_utf8
from ..reference.static_topic import hash_map_order
from .message_id import create_uniq_id, create_uniq_ids, default_counter

__all__ = [
    "BODY_CRC",
    "COMPRESSED_FLAG",
    "COMPRESSION_LZ4_TYPE",
    "COMPRESSION_TYPE_COMPARATOR",
    "COMPRESSION_ZLIB_TYPE",
    "COMPRESSION_ZSTD_TYPE",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "KEY_SEPARATOR",
    "MAGIC_CODE",
    "NAME_VALUE_SEPARATOR",
    "NOT_ALLOWED_SEND_TOPICS",
    "PROPERTY_DELAY_TIME_LEVEL",
    "PROPERTY_INNER_MULTI_DISPATCH",
    "PROPERTY_INSTANCE_ID",
    "PROPERTY_KEYS",
    "PROPERTY_MAX_RECONSUME_TIMES",
    "PROPERTY_MSG_REGION",
    "PROPERTY_RECONSUME_TIME",
    "PROPERTY_SEPARATOR",
    "PROPERTY_SHARDING_KEY",
    "PROPERTY_TAGS",
    "PROPERTY_TRACE_SWITCH",
    "PROPERTY_TRANSACTION_PREPARED",
    "PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX",
    "PROPERTY_WAIT_STORE_MSG_OK",
    "RETRY_GROUP_TOPIC_PREFIX",
    "SYSTEM_PROPERTY_NAMES",
    "TOPIC_MAX_LENGTH",
    "TRANSACTION_PREPARED_TYPE",
    "CompressionType",
    "EncodedBatch",
    "EncodedMessage",
    "Message",
    "MessageError",
    "check_message",
    "check_topic",
    "compress_body",
    "encode_batch",
    "encode_for_send",
    "encode_message",
    "java_property_order",
    "properties_to_string",
    "string_to_properties",
]

# --- MessageConst ------------------------------------------------------------------------------------------------

PROPERTY_KEYS = "KEYS"
PROPERTY_TAGS = "TAGS"
PROPERTY_WAIT_STORE_MSG_OK = "WAIT"
PROPERTY_DELAY_TIME_LEVEL = "DELAY"
PROPERTY_RETRY_TOPIC = "RETRY_TOPIC"
PROPERTY_REAL_TOPIC = "REAL_TOPIC"
PROPERTY_REAL_QUEUE_ID = "REAL_QID"
PROPERTY_TRANSACTION_PREPARED = "TRAN_MSG"
PROPERTY_PRODUCER_GROUP = "PGROUP"
PROPERTY_MIN_OFFSET = "MIN_OFFSET"
PROPERTY_MAX_OFFSET = "MAX_OFFSET"
PROPERTY_BUYER_ID = "BUYER_ID"
PROPERTY_ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID"
PROPERTY_TRANSFER_FLAG = "TRANSFER_FLAG"
PROPERTY_CORRECTION_FLAG = "CORRECTION_FLAG"
PROPERTY_MQ2_FLAG = "MQ2_FLAG"
PROPERTY_RECONSUME_TIME = "RECONSUME_TIME"
PROPERTY_MSG_REGION = "MSG_REGION"
PROPERTY_TRACE_SWITCH = "TRACE_ON"
PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX = "UNIQ_KEY"
PROPERTY_EXTEND_UNIQ_INFO = "EXTEND_UNIQ_INFO"
PROPERTY_MAX_RECONSUME_TIMES = "MAX_RECONSUME_TIMES"
PROPERTY_CONSUME_START_TIMESTAMP = "CONSUME_START_TIME"
PROPERTY_INNER_NUM = "INNER_NUM"
PROPERTY_INNER_BASE = "INNER_BASE"
DUP_INFO = "DUP_INFO"
PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS = "CHECK_IMMUNITY_TIME_IN_SECONDS"
PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET = "TRAN_PREPARED_QUEUE_OFFSET"
PROPERTY_TRANSACTION_ID = "__transactionId__"
PROPERTY_TRANSACTION_CHECK_TIMES = "TRANSACTION_CHECK_TIMES"
PROPERTY_INSTANCE_ID = "INSTANCE_ID"
PROPERTY_CORRELATION_ID = "CORRELATION_ID"
PROPERTY_MESSAGE_REPLY_TO_CLIENT = "REPLY_TO_CLIENT"
PROPERTY_MESSAGE_TTL = "TTL"
PROPERTY_REPLY_MESSAGE_ARRIVE_TIME = "ARRIVE_TIME"
PROPERTY_PUSH_REPLY_TIME = "PUSH_REPLY_TIME"
PROPERTY_CLUSTER = "CLUSTER"
PROPERTY_MESSAGE_TYPE = "MSG_TYPE"
PROPERTY_POP_CK = "POP_CK"
PROPERTY_POP_CK_OFFSET = "POP_CK_OFFSET"
PROPERTY_FIRST_POP_TIME = "1ST_POP_TIME"
PROPERTY_SHARDING_KEY = "__SHARDINGKEY"
PROPERTY_FORWARD_QUEUE_ID = "PROPERTY_FORWARD_QUEUE_ID"
PROPERTY_REDIRECT = "REDIRECT"
PROPERTY_INNER_MULTI_DISPATCH = "INNER_MULTI_DISPATCH"
PROPERTY_INNER_MULTI_QUEUE_OFFSET = "INNER_MULTI_QUEUE_OFFSET"
PROPERTY_TRACE_CONTEXT = "TRACE_CONTEXT"
PROPERTY_TIMER_DELAY_SEC = "TIMER_DELAY_SEC"
PROPERTY_TIMER_DELIVER_MS = "TIMER_DELIVER_MS"
PROPERTY_BORN_HOST = "__BORNHOST"
PROPERTY_BORN_TIMESTAMP = "BORN_TIMESTAMP"
PROPERTY_TIMER_ENQUEUE_MS = "TIMER_ENQUEUE_MS"
PROPERTY_TIMER_DEQUEUE_MS = "TIMER_DEQUEUE_MS"
PROPERTY_TIMER_ROLL_TIMES = "TIMER_ROLL_TIMES"
PROPERTY_TIMER_OUT_MS = "TIMER_OUT_MS"
PROPERTY_TIMER_DEL_UNIQKEY = "TIMER_DEL_UNIQKEY"
PROPERTY_TIMER_DELAY_LEVEL = "TIMER_DELAY_LEVEL"
PROPERTY_TIMER_DELAY_MS = "TIMER_DELAY_MS"
PROPERTY_CRC32 = "__CRC32#"
PROPERTY_DLQ_ORIGIN_TOPIC = "DLQ_ORIGIN_TOPIC"
PROPERTY_DLQ_ORIGIN_MESSAGE_ID = "DLQ_ORIGIN_MESSAGE_ID"

KEY_SEPARATOR = " "
"""``MessageConst.KEY_SEPARATOR``: ``Message.setKeys(Collection)`` joins the keys with it."""

NAME_VALUE_SEPARATOR = "\x01"
PROPERTY_SEPARATOR = "\x02"

_SYSTEM_49 = frozenset(
    {
        PROPERTY_TRACE_SWITCH,
        PROPERTY_MSG_REGION,
        PROPERTY_KEYS,
        PROPERTY_TAGS,
        PROPERTY_WAIT_STORE_MSG_OK,
        PROPERTY_DELAY_TIME_LEVEL,
        PROPERTY_RETRY_TOPIC,
        PROPERTY_REAL_TOPIC,
        PROPERTY_REAL_QUEUE_ID,
        PROPERTY_TRANSACTION_PREPARED,
        PROPERTY_PRODUCER_GROUP,
        PROPERTY_MIN_OFFSET,
        PROPERTY_MAX_OFFSET,
        PROPERTY_BUYER_ID,
        PROPERTY_ORIGIN_MESSAGE_ID,
        PROPERTY_TRANSFER_FLAG,
        PROPERTY_CORRECTION_FLAG,
        PROPERTY_MQ2_FLAG,
        PROPERTY_RECONSUME_TIME,
        PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
        PROPERTY_MAX_RECONSUME_TIMES,
        PROPERTY_CONSUME_START_TIMESTAMP,
        PROPERTY_INSTANCE_ID,
        PROPERTY_CORRELATION_ID,
        PROPERTY_MESSAGE_REPLY_TO_CLIENT,
        PROPERTY_MESSAGE_TTL,
        PROPERTY_REPLY_MESSAGE_ARRIVE_TIME,
        PROPERTY_PUSH_REPLY_TIME,
        PROPERTY_CLUSTER,
        PROPERTY_MESSAGE_TYPE,
        PROPERTY_INNER_MULTI_QUEUE_OFFSET,
    }
)
_SYSTEM_53 = _SYSTEM_49 | {
    PROPERTY_POP_CK,
    PROPERTY_POP_CK_OFFSET,
    PROPERTY_FIRST_POP_TIME,
    PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET,
    DUP_INFO,
    PROPERTY_EXTEND_UNIQ_INFO,
    PROPERTY_TIMER_DELAY_MS,
    PROPERTY_TIMER_DELAY_SEC,
    PROPERTY_TIMER_DELIVER_MS,
    PROPERTY_TIMER_ENQUEUE_MS,
    PROPERTY_TIMER_DEQUEUE_MS,
    PROPERTY_TIMER_ROLL_TIMES,
    PROPERTY_TIMER_OUT_MS,
    PROPERTY_TIMER_DEL_UNIQKEY,
    PROPERTY_TIMER_DELAY_LEVEL,
    PROPERTY_BORN_HOST,
    PROPERTY_BORN_TIMESTAMP,
    PROPERTY_DLQ_ORIGIN_TOPIC,
    PROPERTY_DLQ_ORIGIN_MESSAGE_ID,
    PROPERTY_CRC32,
}

SYSTEM_PROPERTY_NAMES: Mapping[str, frozenset[str]] = {"5.3": frozenset(_SYSTEM_53), "4.9": _SYSTEM_49}
"""``MessageConst.STRING_HASH_SET`` per compat profile: ``Message.putUserProperty`` refuses these names."""

# --- MessageSysFlag ----------------------------------------------------------------------------------------------

COMPRESSED_FLAG = 0x1
TRANSACTION_PREPARED_TYPE = 0x1 << 2
COMPRESSION_LZ4_TYPE = 0x1 << 8
COMPRESSION_ZSTD_TYPE = 0x2 << 8
COMPRESSION_ZLIB_TYPE = 0x3 << 8
COMPRESSION_TYPE_COMPARATOR = 0x7 << 8

# --- topics, sizes -----------------------------------------------------------------------------------------------

TOPIC_MAX_LENGTH = 127
"""``Validators.TOPIC_MAX_LENGTH``."""

RETRY_GROUP_TOPIC_PREFIX = "%RETRY%"
"""``MixAll.RETRY_GROUP_TOPIC_PREFIX``: a batch may not go to a retry topic."""

NOT_ALLOWED_SEND_TOPICS = frozenset(
    {
        "SCHEDULE_TOPIC_XXXX",
        "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC",
        "OFFSET_MOVED_EVENT",
    }
)
"""``TopicValidator.NOT_ALLOWED_SEND_TOPIC_SET`` (the same six topics in 4.9.8 and 5.3.3)."""

DEFAULT_MAX_MESSAGE_SIZE = 4 * 1024 * 1024
"""``DefaultMQProducer.maxMessageSize`` (4 MiB)."""

MAGIC_CODE = 0
BODY_CRC = 0
"""``MessageDecoder.encodeMessage`` writes 0 for the magic code and the body CRC of each message of a batch."""

_VALID_TOPIC_CHARS = frozenset("%|-_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_LEGAL_TOPIC_PATTERN = "^[%|a-zA-Z0-9_-]+$"


class MessageError(RocketRouteError, ValueError):
    """A message the Java producer refuses before sending: ``MQClientException``.

    ``response_code`` is the exception's ``getResponseCode()``: ``ResponseCode.MESSAGE_ILLEGAL`` (13) for the
    body checks, -1 where Java builds the exception without a code (the topic checks, a batch that cannot be
    built). ``error_message`` is Java's ``getErrorMessage()``; ``str(e)`` is Java's ``getMessage()`` without the
    FAQ link Java appends (``"CODE: 13  DESC: the message body length is zero"``), followed by the cause's text
    for a batch error."""

    java_class = "org.apache.rocketmq.client.exception.MQClientException"

    def __init__(self, response_code: int, error_message: str, detail: str | None = None) -> None:
        text = error_message if response_code == -1 else f"CODE: {response_code}  DESC: {error_message}"
        if detail:
            text = f"{text}: {detail}"
        super().__init__(text)
        self.response_code = response_code
        self.error_message = error_message


# --- the message -------------------------------------------------------------------------------------------------


def _java_trim_empty(s: str) -> bool:
    """``s.trim().isEmpty()``: Java's ``trim`` drops every char <= U+0020 at both ends."""
    return all(c <= " " for c in s)


def _java_is_whitespace(c: str) -> bool:
    """``Character.isWhitespace(char)``."""
    if c in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f":
        return True
    if c in "\u00a0\u2007\u202f":
        return False
    return unicodedata.category(c) in ("Zs", "Zl", "Zp")


def _java_is_blank(s: str | None) -> bool:
    """``StringUtils.isBlank``: ``None``, empty, or only whitespace."""
    return s is None or all(_java_is_whitespace(c) for c in s)


def _utf16_len(s: str) -> int:
    """``String.length()``: UTF-16 code units."""
    return len(s) if s.isascii() else len(s.encode("utf-16-le", "surrogatepass")) // 2


def _check_no_separator(what: str, s: str) -> None:
    if NAME_VALUE_SEPARATOR in s or PROPERTY_SEPARATOR in s:
        raise IllegalArgumentError(
            f"{what} {s!r} contains \\x01 or \\x02, the separators of the properties string (Java would send a "
            "corrupt property list)"
        )


def _normalize_keys(keys: object) -> str | None:
    if keys is None or isinstance(keys, str):
        return keys
    if isinstance(keys, (bytes, bytearray)):
        raise TypeError("keys must be a str or an iterable of str, not bytes")
    try:
        items = list(keys)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"keys must be a str or an iterable of str, not {type(keys).__name__}") from None
    for k in items:
        if not isinstance(k, str):
            raise TypeError(f"each key must be a str, not {type(k).__name__}")
    return KEY_SEPARATOR.join(items)


_TIMER_FIELDS = {
    "delay_sec": PROPERTY_TIMER_DELAY_SEC,
    "delay_ms": PROPERTY_TIMER_DELAY_MS,
    "deliver_time_ms": PROPERTY_TIMER_DELIVER_MS,
}
"""Message field -> the 5.x timer property it sets."""


@dataclass(init=False)
class Message:
    """``org.apache.rocketmq.common.message.Message`` as built by
    ``new Message(topic, tags, keys, flag, body, waitStoreMsgOK)``, plus ``setDelayTimeLevel`` and
    ``putUserProperty``.

    - ``tags``: the ``TAGS`` property (not set when ``None`` or empty, as Java).
    - ``keys``: the ``KEYS`` property; a ``str`` as is, an iterable of ``str`` joined by ``" "``
      (``Message.setKeys(Collection)``); not set when empty. Normalized to ``str | None`` on construction.
    - ``properties``: user properties (``putUserProperty``), in put order; copied into a new ``dict``.
    - ``delay_level``: the ``DELAY`` property when > 0 (``setDelayTimeLevel``).
    - ``flag``: the message's int flag (``Message.flag``, header field ``h``).
    - ``wait_store_msg_ok``: the ``WAIT`` property, always set (``"true"``/``"false"``), as the Java constructor
      does.
    - ``delay_sec``, ``delay_ms``, ``deliver_time_ms``: a 5.x timer message (Java 5.x's ``setDelayTimeSec``,
      ``setDelayTimeMs``, ``setDeliverTimeMs``: the ``TIMER_DELAY_SEC``, ``TIMER_DELAY_MS`` and
      ``TIMER_DELIVER_MS`` properties). The broker keeps the message until then (a 5.x broker with
      ``timerWheelEnable=true``, its default; its ``timerMaxDelaySec``, 3 days by default, bounds the delay). A
      delay is >= 0; ``deliver_time_ms`` is a wall-clock time in ms since the epoch (``time.time() * 1000``).
      The 4.9 client has no timer messages: ``compat="4.9"`` refuses them when the message is encoded.

    - ``transaction_id``: Java's ``Message.transactionId``, not sent: the
      :class:`~rocketroute.client.producer.transaction.TransactionProducer` gives its executor a copy of the
      message with the half message's id here (``sendMessageInTransaction``'s ``msg.setTransactionId``).

    A message takes at most one of ``delay_level``, ``delay_sec``, ``delay_ms`` and ``deliver_time_ms``
    (Java lets a message carry several and leaves the broker to pick one; rocketroute refuses the ambiguity).

    ``topic`` and ``body`` may be ``None`` here (Java's constructor accepts null): sending such a message
    fails the checks of :func:`check_message`, with Java's texts. Encoding never changes the message: the
    ``UNIQ_KEY`` and a compressed body are returned by :func:`encode_for_send`, not stored on it.
    """

    topic: str | None
    body: bytes | None
    tags: str | None = None
    keys: str | Iterable[str] | None = None
    properties: dict[str, str] = field(default_factory=dict)
    delay_level: int = 0
    flag: int = 0
    wait_store_msg_ok: bool = True
    delay_sec: int | None = None
    delay_ms: int | None = None
    deliver_time_ms: int | None = None
    transaction_id: str | None = field(default=None, compare=False)

    def __init__(
        self,
        topic: str | None,
        body: bytes | None,
        tags: str | None = None,
        keys: str | Iterable[str] | None = None,
        properties: Mapping[str, str] | None = None,
        delay_level: int = 0,
        flag: int = 0,
        wait_store_msg_ok: bool = True,
        delay_sec: int | None = None,
        delay_ms: int | None = None,
        deliver_time_ms: int | None = None,
        transaction_id: str | None = None,
    ) -> None:
        # written by hand, not by the dataclass (every message of a producer is made here): the fields stored once,
        # the usual message told apart from its arguments
        self.topic = topic
        self.body = body
        self.tags = tags
        self.keys = keys
        self.delay_level = delay_level
        self.flag = flag
        self.wait_store_msg_ok = wait_store_msg_ok
        self.delay_sec = delay_sec
        self.delay_ms = delay_ms
        self.deliver_time_ms = deliver_time_ms
        self.transaction_id = transaction_id
        # the usual message (a str topic, a bytes body, str or no tags and keys, a dict of properties or none, ints
        # in range, no timer) passes every check of _check: told apart by exact types, as cheaply as possible
        if (
            type(topic) is str
            and type(body) is bytes
            and (tags is None or type(tags) is str)
            and (keys is None or type(keys) is str)
            and type(delay_level) is int
            and 0 <= delay_level < 2**31
            and type(flag) is int
            and -(2**31) <= flag < 2**31
            and type(wait_store_msg_ok) is bool
            and delay_sec is None
            and delay_ms is None
            and deliver_time_ms is None
        ):
            if properties is None:
                self.properties = {}
                return
            if type(properties) is dict:
                self.properties = dict(properties)
                return
        self.properties = properties  # type: ignore[assignment]
        self._check()

    def _check(self) -> None:
        """The checks and conversions of a message that is not the usual one (raises on bad fields)."""
        if self.topic is not None and not isinstance(self.topic, str):
            raise TypeError(f"topic must be a str, not {type(self.topic).__name__}")
        if self.body is not None:
            if isinstance(self.body, (bytearray, memoryview)):
                self.body = bytes(self.body)
            elif not isinstance(self.body, bytes):
                raise TypeError(f"body must be bytes, not {type(self.body).__name__}")
        if self.tags is not None and not isinstance(self.tags, str):
            raise TypeError(f"tags must be a str, not {type(self.tags).__name__}")
        self.keys = _normalize_keys(self.keys)
        props = self.properties
        if props is None:
            self.properties = {}
        else:  # type(props) is dict first: isinstance(x, Mapping) is an ABC check, slow for every message
            if type(props) is not dict and not isinstance(props, Mapping):
                raise TypeError(f"properties must be a mapping of str to str, not {type(props).__name__}")
            self.properties = dict(props)
        for name in ("delay_level", "flag"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{name} must be an int, not {type(v).__name__}")
            if not -(2**31) <= v < 2**31:
                raise IllegalArgumentError(f"{name} {v} is out of the Java int range")
        if self.delay_level < 0:
            raise IllegalArgumentError(f"delay_level must be >= 0, not {self.delay_level}")
        if not isinstance(self.wait_store_msg_ok, bool):
            raise TypeError(f"wait_store_msg_ok must be a bool, not {type(self.wait_store_msg_ok).__name__}")
        for name in _TIMER_FIELDS:
            v = getattr(self, name)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{name} must be an int or None, not {type(v).__name__}")
            if not 0 <= v < 2**63:
                raise IllegalArgumentError(f"{name} must be >= 0 and a Java long, not {v}")
        given = ["delay_level"] if self.delay_level > 0 else []
        given += [n for n in _TIMER_FIELDS if getattr(self, n) is not None]
        if len(given) > 1:
            raise IllegalArgumentError(
                "a message takes one of delay_level, delay_sec, delay_ms and deliver_time_ms, not "
                + " and ".join(given)
            )

    def property_items(self, compat: str | None = "5.3") -> list[tuple[str, str]]:
        """The message's properties in the order Java puts them into its ``HashMap``: ``TAGS``, ``KEYS``,
        ``WAIT`` (the constructor), ``DELAY`` or the timer property, then the user properties. (The order of the
        puts decides the order of names that share a ``HashMap`` bin.) User properties are checked as
        ``Message.putUserProperty`` checks them, against ``compat``'s reserved names."""
        system = SYSTEM_PROPERTY_NAMES[compat if compat in COMPAT_PROFILES else parse_compat(compat)]
        items: list[tuple[str, str]] = []
        if self.tags:
            _check_no_separator("tags", self.tags)
            items.append((PROPERTY_TAGS, self.tags))
        keys = _normalize_keys(self.keys)
        if keys:
            _check_no_separator("keys", keys)
            items.append((PROPERTY_KEYS, keys))
        items.append((PROPERTY_WAIT_STORE_MSG_OK, "true" if self.wait_store_msg_ok else "false"))
        if self.delay_level > 0:
            items.append((PROPERTY_DELAY_TIME_LEVEL, str(self.delay_level)))
        for field_name, prop in _TIMER_FIELDS.items():
            value = getattr(self, field_name)
            if value is None:
                continue
            if parse_compat(compat) == "4.9":
                raise IllegalArgumentError(
                    f"{field_name}: the 4.9 client has no timer messages (compat='4.9'); use delay_level, or "
                    "compat='5.3' with a 5.x broker"
                )
            items.append((prop, str(value)))
        for name, value in self.properties.items():
            if name in system:
                # Java throws a plain RuntimeException here
                raise IllegalArgumentError(f"The Property<{name}> is used by system, input another please")
            if value is None or name is None:
                raise IllegalArgumentError("The name or value of property can not be null or blank string!")
            if not isinstance(name, str) or not isinstance(value, str):
                raise TypeError(
                    f"property names and values must be str, not {type(name).__name__}: {type(value).__name__}"
                )
            if _java_trim_empty(value) or _java_trim_empty(name):
                raise IllegalArgumentError("The name or value of property can not be null or blank string!")
            _check_no_separator("property name", name)
            _check_no_separator(f"value of property {name!r}", value)
            items.append((name, value))
        return items


# --- validation --------------------------------------------------------------------------------------------------


_CHECKED_TOPICS: set[str] = set()
"""Topics :func:`check_topic` passed (the check depends on the name alone): a producer sends to few topics, many
times each. Bounded: emptied when it reaches ``_CHECKED_TOPICS_MAX``."""
_CHECKED_TOPICS_MAX = 4096


def check_topic(topic: str | None) -> None:
    """``Validators.checkTopic`` then ``Validators.isNotAllowedSendTopic``, with Java's texts (response code
    -1)."""
    if topic in _CHECKED_TOPICS:
        return
    _check_topic(topic)
    if len(_CHECKED_TOPICS) >= _CHECKED_TOPICS_MAX:
        _CHECKED_TOPICS.clear()
    _CHECKED_TOPICS.add(topic)  # type: ignore[arg-type]  # None never passes


def _check_topic(topic: str | None) -> None:
    if _java_is_blank(topic):
        raise MessageError(-1, "The specified topic is blank")
    assert topic is not None
    if _utf16_len(topic) > TOPIC_MAX_LENGTH:
        raise MessageError(-1, f"The specified topic is longer than topic max length {TOPIC_MAX_LENGTH}.")
    if not _VALID_TOPIC_CHARS.issuperset(topic):
        raise MessageError(
            -1, f"The specified topic[{topic}] contains illegal characters, allowing only {_LEGAL_TOPIC_PATTERN}"
        )
    if topic in NOT_ALLOWED_SEND_TOPICS:
        raise MessageError(-1, f"Sending message to topic[{topic}] is forbidden.")


def check_message(
    msg: Message | None, *, max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE, compat: str | None = "5.3"
) -> None:
    """``Validators.checkMessage``: the message, its topic (:func:`check_topic`), its body (not ``None``, not
    empty, at most ``max_message_size`` bytes: ``ResponseCode.MESSAGE_ILLEGAL``) and, in 5.3.3 only, an
    ``INNER_MULTI_DISPATCH`` property without the platform's path separator. The user properties are checked
    first, as ``putUserProperty`` would have refused them when the Java message was built."""
    compat = parse_compat(compat)
    if msg is None:
        raise MessageError(ResponseCode.MESSAGE_ILLEGAL, "the message is null")
    msg.property_items(compat)
    _check_message_fields(msg, max_message_size, compat)


def _check_message_fields(msg: Message, max_message_size: int, compat: str) -> None:
    """:func:`check_message` after the properties."""
    check_topic(msg.topic)
    if msg.body is None:
        raise MessageError(ResponseCode.MESSAGE_ILLEGAL, "the message body is null")
    if len(msg.body) == 0:
        raise MessageError(ResponseCode.MESSAGE_ILLEGAL, "the message body length is zero")
    if len(msg.body) > max_message_size:
        raise MessageError(
            ResponseCode.MESSAGE_ILLEGAL, f"the message body size over max value, MAX: {max_message_size}"
        )
    if compat == "5.3":
        lmq = msg.properties.get(PROPERTY_INNER_MULTI_DISPATCH)
        if lmq is not None and os.sep in lmq:
            raise MessageError(
                ResponseCode.MESSAGE_ILLEGAL, f"INNER_MULTI_DISPATCH {lmq} can not contains {os.sep} character"
            )


# --- properties --------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _spread(name: str) -> int:
    """``HashMap.hash(name)``: ``h ^ (h >>> 16)`` of ``String.hashCode``."""
    h = java_string_hash(name) & 0xFFFFFFFF
    return h ^ (h >> 16)


def java_property_order(names: Sequence[str]) -> list[str]:
    """The iteration order of a ``new HashMap<String, String>()`` after putting the distinct ``names`` in this
    order (``Message.properties``). Up to 8 names the table keeps its 16 bins, so the order is the names stably
    sorted by bin; beyond that :func:`rocketroute.reference.static_topic.hash_map_order` follows the resizes.
    In the case that function cannot reproduce (a red-black tree bin: 9 names colliding in the low 6+ bits of
    their hash), the put order is kept: the broker reads the properties in any order."""
    if len(names) <= 8:
        return sorted(names, key=lambda n: _spread(n) & 15)
    try:
        return hash_map_order(list(names), "message properties")
    except IllegalArgumentError:
        return list(names)


def _join_properties(items: Sequence[tuple[str, str]], compat: str) -> str:
    if _native_properties is not None and type(items) is list:
        joined = _native_properties(items, compat == "4.9")  # None past 8 items or with a lone surrogate
        if joined is not None:
            return joined  # type: ignore[no-any-return]
    if len(items) <= 8:
        ordered: Iterable[tuple[str, str]] = sorted(items, key=lambda kv: _spread(kv[0]) & 15)
    else:
        values = dict(items)
        ordered = [(n, values[n]) for n in java_property_order([n for n, _ in items])]
    s = "".join(f"{n}\x01{v}\x02" for n, v in ordered)
    if compat == "4.9" and s:
        s = s[:-1]
    return s


def properties_to_string(properties: Mapping[str, str | None] | None, *, compat: str | None = "5.3") -> str:
    """``MessageDecoder.messageProperties2String``: ``name \\x01 value \\x02`` for each entry whose value is not
    ``None``, in the iteration order of the Java ``HashMap`` the entries were put into in ``properties``'
    order. 4.9.8 drops the final ``\\x02``; 5.3.3 keeps it. ``None`` gives ``""``."""
    compat = parse_compat(compat)
    if properties is None:
        return ""
    items = [(n, v) for n, v in properties.items() if v is not None]
    return _join_properties(items, compat)  # type: ignore[arg-type]


def string_to_properties(s: str | None) -> dict[str, str]:
    """``MessageDecoder.string2messageProperties``: reads what either version wrote. An entry shorter than 3
    chars, or without a name or a value, is skipped as Java skips it. Entries come back in the string's order
    (Java returns a ``HashMap``)."""
    out: dict[str, str] = {}
    if s is None:
        return out
    n = len(s)
    index = 0
    while index < n:
        new_index = s.find(PROPERTY_SEPARATOR, index)
        if new_index < 0:
            new_index = n
        if new_index - index >= 3:
            kv = s.find(NAME_VALUE_SEPARATOR, index)
            if index < kv < new_index - 1:
                out[s[index:kv]] = s[kv + 1 : new_index]
        index = new_index + 1
    return out


# --- compression -------------------------------------------------------------------------------------------------


class CompressionType(enum.Enum):
    """``org.apache.rocketmq.common.compression.CompressionType`` (same in 4.9.8 and 5.3.3): the body's
    compressor, named in the sysFlag bits 8-10 (:attr:`compression_flag`)."""

    LZ4 = 1
    ZSTD = 2
    ZLIB = 3

    @property
    def compression_flag(self) -> int:
        """``getCompressionFlag()``: the sysFlag bits of the type (``value << 8``)."""
        return self.value << 8

    @classmethod
    def of(cls, name: str | CompressionType) -> CompressionType:
        """``CompressionType.of(name)``: trimmed, case-insensitive."""
        if isinstance(name, CompressionType):
            return name
        if not isinstance(name, str):
            raise TypeError(f"compress type must be a str, not {type(name).__name__}")
        try:
            return cls[name.strip().upper()]
        except KeyError:
            raise IllegalArgumentError(f"Unsupported compress type name: {name}") from None


DEFAULT_COMPRESS_LEVEL = 5
"""Java's ``compressLevel`` (the ``rocketmq.message.compressLevel`` property's default), for every type."""
ZSTD_LEVELS = (-(2**17), 22)
"""The levels libzstd takes (``ZSTD_minCLevel()`` .. ``ZSTD_maxCLevel()``)."""
_CODEC_PACKAGES = {CompressionType.LZ4: "lz4", CompressionType.ZSTD: "zstandard"}


def check_compression(compress_type: str | CompressionType, level: int) -> CompressionType:
    """The type and level a producer compresses with, checked as the compressor would take them:

    - ZLIB: ``java.util.zip.Deflater``'s levels, -1 .. 9;
    - ZSTD: libzstd's, -131072 .. 22 (zstd-jni's ``ZstdOutputStream(out, level)``);
    - LZ4: lz4-java's ``LZ4FrameOutputStream`` has no level and Java ignores ``compressLevel``; rocketroute
      refuses a level other than the default rather than ignore it.

    LZ4 and ZSTD need the optional packages ``lz4`` / ``zstandard`` (``pip install 'rocketroute[compression]'``),
    the same the consumer decodes with: without them, an ``ImportError`` that says so."""
    ctype = CompressionType.of(compress_type)
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"compress level must be an int, not {type(level).__name__}")
    if ctype is CompressionType.ZLIB and not -1 <= level <= 9:
        raise IllegalArgumentError("invalid compression level")  # java.util.zip.Deflater's text
    if ctype is CompressionType.ZSTD and not ZSTD_LEVELS[0] <= level <= ZSTD_LEVELS[1]:
        raise IllegalArgumentError(f"invalid ZSTD compression level {level} (libzstd takes {ZSTD_LEVELS[0]} .. 22)")
    if ctype is CompressionType.LZ4 and level != DEFAULT_COMPRESS_LEVEL:
        raise IllegalArgumentError(
            f"compress level {level} with LZ4: the LZ4 frame writer has no level (Java ignores compressLevel for "
            f"LZ4); leave it at {DEFAULT_COMPRESS_LEVEL}"
        )
    package = _CODEC_PACKAGES.get(ctype)
    if package is not None:
        try:
            __import__(package)
        except ImportError:
            raise ImportError(
                f"compress type {ctype.name} needs the {package} package: pip install 'rocketroute[compression]'",
                name=package,
            ) from None
    return ctype


def compress_body(
    body: bytes, level: int = DEFAULT_COMPRESS_LEVEL, compress_type: str | CompressionType = "ZLIB"
) -> bytes:
    """``Compressor.compress(body, level)`` of the type (:func:`check_compression` checks both):

    - ZLIB (``ZlibCompressor``): a zlib stream (``java.util.zip.Deflater(level)`` behind a
      ``DeflaterOutputStream``), which Python's ``zlib`` writes too;
    - LZ4 (``Lz4Compressor``): one LZ4 frame as lz4-java's ``LZ4FrameOutputStream`` writes it by default
      (independent blocks of up to 4 MiB, no content size, no checksums);
    - ZSTD (``ZstdCompressor``): one Zstandard frame at ``level``, as zstd-jni's ``ZstdOutputStream`` writes it
      (a stream: no content size, the level's window, the data block then an empty last block; no checksum).

    The bytes are Java's for the bodies checked (tests/client/test_message_compress.py); any valid frame would
    decode the same."""
    ctype = check_compression(compress_type, level)
    if ctype is CompressionType.LZ4:
        import lz4.frame as lz4_frame

        # the streaming writer: LZ4F_compressFrame would shrink the block size to fit a small body
        lz4_out = lz4_frame.LZ4FrameCompressor(
            block_size=lz4_frame.BLOCKSIZE_MAX4MB,
            block_linked=False,
            content_checksum=False,
            block_checksum=False,
            auto_flush=False,
        )
        return bytes(lz4_out.begin() + lz4_out.compress(body) + lz4_out.flush())
    if ctype is CompressionType.ZSTD:
        import zstandard

        # a stream of unknown size, flushed, then ended with an empty last block: ZstdOutputStream's write,
        # flush and close (its window is the level's, not one fitted to the body)
        zstd_out = zstandard.ZstdCompressor(level=level, write_content_size=False).compressobj(size=-1)
        return bytes(zstd_out.compress(body) + zstd_out.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK) + zstd_out.flush())
    return zlib.compress(body, level)


# --- encoding for a send -----------------------------------------------------------------------------------------


class EncodedMessage(NamedTuple):
    """What ``sendKernelImpl`` sends for one message: the body (compressed or not), the header's ``sysFlag``
    (``f``) and ``properties`` (``i``), and the message id (``UNIQ_KEY``), which ``SendResult.msg_id`` is."""

    body: bytes
    sys_flag: int
    properties: str
    msg_id: str


def encode_for_send(
    msg: Message,
    *,
    compat: str | None = "5.3",
    compress_over: int = 4096,
    compress_level: int = 5,
    compress_type: str | CompressionType = "ZLIB",
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    msg_id: str | None = None,
    check: bool = True,
    transaction_group: str | None = None,
) -> EncodedMessage:
    """One message as ``DefaultMQProducerImpl.sendDefaultImpl``/``sendKernelImpl`` sends it.

    1. :func:`check_message` (``Validators.checkMessage``), unless ``check=False``.
    2. ``MessageClientIDSetter.setUniqID``: ``UNIQ_KEY`` = ``msg_id`` or a new
       :func:`~rocketroute.client.message_id.create_uniq_id` (pass the same ``msg_id`` on every retry of a send:
       Java keeps the first one on the message).
    3. ``tryToCompressMessage``: a body of ``compress_over`` bytes or more (Java compares with ``>=``) is
       compressed with ``compress_type`` at ``compress_level``; ``sys_flag`` gets ``COMPRESSED_FLAG`` and the
       type's flag: ``0x301`` for ZLIB, ``0x101`` for LZ4, ``0x201`` for ZSTD, in 4.9.8 as in 5.3.3 (both
       ``sendKernelImpl`` versions OR in ``compressType.getCompressionFlag()``). Other sysFlag bits
       (transactions) are not produced.
    4. ``MessageDecoder.messageProperties2String`` of the properties (:meth:`Message.property_items` plus
       ``UNIQ_KEY``), in Java's ``HashMap`` order.

    ``transaction_group``: the message is the half message of a transaction of that producer group
    (``sendMessageInTransaction``): ``TRAN_MSG=true`` and ``PGROUP`` are put after the user properties, and
    ``sys_flag`` gets ``TRANSACTION_PREPARED_TYPE``. Java clears a delay level of a transactional message; a delay
    or timer is refused here instead.

    With the native backend the usual message (a topic already checked, a body under ``compress_over``, tags, keys
    and a few user properties, no delay) is checked and written in Rust (``rocketroute_core::send_properties``,
    the same properties string), its new id made after the checks as here; any other message is encoded here.

    The message itself is left as it was.
    """
    if compat not in COMPAT_PROFILES:  # already a profile's name: no call
        compat = parse_compat(compat)
    if _native_send_properties is not None and check and transaction_group is None:
        # the usual message, checked and written in Rust (the same properties); the rest is written here
        usual = _native_send_properties(
            msg,
            compat == "4.9",
            compress_over,
            max_message_size,
            _CHECKED_TOPICS,
            SYSTEM_PROPERTY_NAMES[compat],
            default_counter(),
            msg_id,
        )
        if usual is not None:
            return EncodedMessage(msg.body, 0, usual[0], usual[1])  # type: ignore[arg-type]
    if msg is None:
        raise MessageError(ResponseCode.MESSAGE_ILLEGAL, "the message is null")
    items = msg.property_items(compat)
    if check:
        _check_message_fields(msg, max_message_size, compat)
    sys_flag = 0
    if transaction_group is not None:
        delayed = ["delay_level"] if msg.delay_level > 0 else []
        delayed += [n for n in _TIMER_FIELDS if getattr(msg, n) is not None]
        if delayed:
            raise IllegalArgumentError(
                f"a transactional message cannot be delayed ({delayed[0]}): Java drops the delay of a half message"
            )
        items.append((PROPERTY_TRANSACTION_PREPARED, "true"))
        items.append((PROPERTY_PRODUCER_GROUP, transaction_group))
        sys_flag |= TRANSACTION_PREPARED_TYPE
    if msg_id is None:
        msg_id = create_uniq_id()
    items.append((PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, msg_id))
    body = msg.body
    if body is None:
        raise NullPointerError("the message body is null")
    if len(body) >= compress_over:
        ctype = CompressionType.of(compress_type)
        body = compress_body(body, compress_level, ctype)
        sys_flag |= COMPRESSED_FLAG | ctype.compression_flag
    return EncodedMessage(body, sys_flag, _join_properties(items, compat), msg_id)


# --- batches -----------------------------------------------------------------------------------------------------

_SHORT_MAX = 32767


def encode_message(flag: int, body: bytes, properties: str) -> bytes:
    """``MessageDecoder.encodeMessage``: one message of a batch body, big-endian:

    ``TOTALSIZE int | MAGICCODE int (0) | BODYCRC int (0) | FLAG int | BODY length int, bytes |
    PROPERTIES length short, UTF-8 bytes``, where TOTALSIZE counts all of it (20 + body + 2 + properties).

    Properties of more than 32767 UTF-8 bytes raise :class:`MessageError`: 4.9.8 refuses them too (a
    ``RuntimeException``), 5.3.3 casts the length to a short and writes a corrupt entry (or fails)."""
    props = java_utf8(properties)
    if len(props) > _SHORT_MAX:
        raise MessageError(
            -1,
            "Failed to initiate the MessageBatch",
            f"the properties of a message are {len(props)} bytes, more than {_SHORT_MAX} (Short.MAX_VALUE)",
        )
    total = 4 + 4 + 4 + 4 + 4 + len(body) + 2 + len(props)
    return b"".join(
        (
            total.to_bytes(4, "big"),
            MAGIC_CODE.to_bytes(4, "big"),
            BODY_CRC.to_bytes(4, "big"),
            (flag & 0xFFFFFFFF).to_bytes(4, "big"),
            len(body).to_bytes(4, "big"),
            body,
            len(props).to_bytes(2, "big"),
            props,
        )
    )


class EncodedBatch(NamedTuple):
    """What ``DefaultMQProducer.send(Collection)`` sends with ``SEND_BATCH_MESSAGE`` (320).

    - ``body``: ``MessageBatch.encode()``, the messages one after the other (:func:`encode_message`);
    - ``properties``: the batch's own properties string (header ``i``): ``WAIT`` and, in 5.3.3 only,
      ``UNIQ_KEY`` = ``msg_id``;
    - ``sys_flag``: 0 (a batch is never compressed);
    - ``msg_ids``: each message's ``UNIQ_KEY``, in order; ``SendResult.msgId`` is them joined by ``","``;
    - ``msg_id``: the batch's own ``UNIQ_KEY`` (5.3.3) or ``None`` (4.9.8 gives the batch none);
    - ``topic`` and ``wait_store_msg_ok``: the first message's.
    """

    body: bytes
    properties: str
    sys_flag: int
    msg_ids: tuple[str, ...]
    msg_id: str | None
    topic: str
    wait_store_msg_ok: bool


def _batch_error(detail: str, cause: BaseException | None = None) -> MessageError:
    err = MessageError(-1, "Failed to initiate the MessageBatch", detail)
    err.__cause__ = cause
    return err


# the Rust twins (rocketroute_core::message_batch, ::send_properties): a batch's body, one message's properties
# string, the usual message of a send
_native_batch_body = native_twin("_encode_batch_body")
_native_properties = native_twin("_properties_string")
_native_send_properties = native_twin("_send_properties")


def encode_batch(
    messages: Iterable[Message],
    *,
    compat: str | None = "5.3",
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    msg_ids: Sequence[str] | None = None,
    batch_msg_id: str | None = None,
) -> EncodedBatch:
    """``DefaultMQProducer.batch(msgs)`` then the checks ``sendDefaultImpl`` runs on the batch.

    With the native backend the body is written in Rust (``rocketroute_core::message_batch``, the same bytes)
    after the checks here; a message it does not take (more than 8 properties, a lone surrogate, a body that is
    not ``bytes``) is written here.

    ``MessageBatch.generateFromList`` refuses a message with a delay level > 0 ("TimeDelayLevel is not supported
    for batching"), a topic starting with ``%RETRY%`` ("Retry Group is not supported for batching"), a topic
    other than the first's ("The topic of the messages in one batch should be the same") or another
    ``waitStoreMsgOK`` ("The waitStoreMsgOK of the messages in one batch should the same"); then each message
    passes :func:`check_message` and gets its ``UNIQ_KEY`` (``msg_ids[i]`` if given). Any of these failures is
    Java's ``MQClientException("Failed to initiate the MessageBatch", cause)``: a :class:`MessageError` with
    response code -1, the cause's text after it and the cause chained. 5.3.3 then gives the batch its own
    ``UNIQ_KEY`` (``batch_msg_id`` if given); 4.9.8 does not. Finally the encoded batch is itself checked as a
    message: a body over ``max_message_size`` is ``MESSAGE_ILLEGAL`` (13), not wrapped.
    """
    compat = parse_compat(compat)
    msgs = list(messages)
    if not msgs:
        # Java asserts a non-empty list; without -ea, first.getTopic() throws a NullPointerException
        raise _batch_error("the batch has no message", NullPointerError("the batch has no message"))
    if msg_ids is not None and len(msg_ids) != len(msgs):
        raise IllegalArgumentError(f"{len(msg_ids)} msg_ids for {len(msgs)} messages")
    first = msgs[0]
    for m in msgs:
        if not isinstance(m, Message):
            raise TypeError(f"a batch holds Message objects, not {type(m).__name__}")
        if m.delay_level > 0:
            raise _batch_error("TimeDelayLevel is not supported for batching")
        timer = next((n for n in _TIMER_FIELDS if getattr(m, n) is not None), None)
        if timer is not None:  # rocketroute's check: the broker does not apply an inner message's timer
            raise _batch_error(f"a timer message ({timer}) is not supported for batching")
        if m.topic is None:
            raise _batch_error("a message has no topic", NullPointerError("topic is None"))
        if m.topic.startswith(RETRY_GROUP_TOPIC_PREFIX):
            raise _batch_error("Retry Group is not supported for batching")
        if m is not first:
            if first.topic != m.topic:
                raise _batch_error("The topic of the messages in one batch should be the same")
            if first.wait_store_msg_ok != m.wait_store_msg_ok:
                raise _batch_error("The waitStoreMsgOK of the messages in one batch should the same")
    entries: list[tuple[int, bytes, list[tuple[str, str]]]] = []
    checked = []
    for m in msgs:
        try:  # check_message, keeping the properties it reads
            checked.append(m.property_items(compat))
            _check_message_fields(m, max_message_size, compat)
        except MessageError as e:
            raise _batch_error(str(e), e) from e
    ids = list(msg_ids) if msg_ids is not None else create_uniq_ids(len(msgs))  # in a row, as Java's loop
    for m, items, uid in zip(msgs, checked, ids, strict=True):
        items.append((PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, uid))
        assert m.body is not None
        entries.append((m.flag, m.body, items))
    body = _native_batch_body(entries, compat == "4.9") if _native_batch_body is not None else None
    if body is None:  # the reference backend, or a message only this encoder takes (or refuses)
        body = b"".join(encode_message(f, b, _join_properties(items, compat)) for f, b, items in entries)
    assert first.topic is not None
    wait = first.wait_store_msg_ok
    batch_items = [(PROPERTY_WAIT_STORE_MSG_OK, "true" if wait else "false")]
    own_id: str | None = None
    if compat == "5.3":
        own_id = batch_msg_id if batch_msg_id is not None else create_uniq_id()
        batch_items.append((PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, own_id))
    if len(body) > max_message_size:
        raise MessageError(
            ResponseCode.MESSAGE_ILLEGAL, f"the message body size over max value, MAX: {max_message_size}"
        )
    return EncodedBatch(body, _join_properties(batch_items, compat), 0, tuple(ids), own_id, first.topic, wait)
