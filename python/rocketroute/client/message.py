"""A message: its fields, the checks Java's ``Message`` setters and ``Validators`` make, and the
error they raise."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..errors import IllegalArgumentError, RocketRouteError
from ..protocol.response_code import ResponseCode
from ..reference.compat import COMPAT_PROFILES, parse_compat
from .message_const import (
    DEFAULT_MAX_MESSAGE_SIZE,
    KEY_SEPARATOR,
    NAME_VALUE_SEPARATOR,
    NOT_ALLOWED_SEND_TOPICS,
    PROPERTY_DELAY_TIME_LEVEL,
    PROPERTY_INNER_MULTI_DISPATCH,
    PROPERTY_KEYS,
    PROPERTY_SEPARATOR,
    PROPERTY_TAGS,
    PROPERTY_TIMER_DELAY_MS,
    PROPERTY_TIMER_DELAY_SEC,
    PROPERTY_TIMER_DELIVER_MS,
    PROPERTY_WAIT_STORE_MSG_OK,
    SYSTEM_PROPERTY_NAMES,
    TOPIC_MAX_LENGTH,
)

__all__ = [
    "Message",
    "MessageError",
    "check_message",
    "check_topic",
]


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
