"""The request header of a send: ``SendMessageRequestHeader`` and its short-named ``SendMessageRequestHeaderV2``.

``DefaultMQProducerImpl.sendKernelImpl`` fills a ``SendMessageRequestHeader``; ``MQClientAPIImpl.sendMessage``
then sends ``SEND_MESSAGE_V2`` (310) with ``SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(header)``
(``sendSmartMsg`` is true by default) or, for a ``MessageBatch``, ``SEND_BATCH_MESSAGE`` (320) with the same V2
header. The header goes out as the command's ext fields: every non-null field, by name, as ``toString()``.

V2 field names (the same in 4.9.8 and 5.3.3):

=====  ==========================  ========================================================
name   SendMessageRequestHeader    value a producer sends
=====  ==========================  ========================================================
a      producerGroup               ``DefaultMQProducer.producerGroup``
b      topic                       the message's topic
c      defaultTopic                ``createTopicKey``, ``"TBW102"``
d      defaultTopicQueueNums       ``defaultTopicQueueNums``, 4
e      queueId                     the selected queue
f      sysFlag                     0, or ``0x301`` for a zlib-compressed body
g      bornTimestamp               ``System.currentTimeMillis()``
h      flag                        ``Message.flag``
i      properties                  ``messageProperties2String(message.properties)``
j      reconsumeTimes              0 (a retry topic's message: its ``RECONSUME_TIME``)
k      unitMode                    ``"false"`` unless unit mode
l      maxReconsumeTimes           absent (a retry topic's message: its ``MAX_RECONSUME_TIMES``)
m      batch                       ``"true"`` for ``SEND_BATCH_MESSAGE``
n      brokerName                  the queue's broker (5.3.3: ``getBrokerNameFromMessageQueue``)
=====  ==========================  ========================================================

The version differences do not show on the wire: 4.9.8's ``unitMode``/``batch`` are primitive booleans
(always written), 5.3.3's are ``Boolean`` objects that ``sendKernelImpl`` always sets; 4.9.8 calls the broker
name ``bname`` in ``RpcRequestHeader`` (``setBname``), 5.3.3 ``setBrokerName`` on the same ``bname`` field; the
V2 copy puts it in ``n`` in both. The V1 header (``SEND_MESSAGE``, 10) uses the long names, with the broker
name as ``bname``; 5.3.3's other ``RpcRequestHeader`` fields (``ns``, ``nsd``, ``oway``, ``lo``) stay null
and are not sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._backend import native_twin
from ...errors import IllegalArgumentError, NullPointerError, NumberFormatError
from ...reference.compat import COMPAT_PROFILES, parse_compat
from ...reference.java import java_parse_int
from ..command import EncodedRequest, RemotingCommand
from ..frame import encode_frame

__all__ = [
    "DEFAULT_TOPIC",
    "DEFAULT_TOPIC_QUEUE_NUMS",
    "V2_FIELD_NAMES",
    "SendMessageRequestHeader",
    "java_parse_long",
    "send_header_v1",
    "send_header_v2",
    "send_request",
]

DEFAULT_TOPIC = "TBW102"
"""``TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC``, ``DefaultMQProducer.createTopicKey``'s default."""

DEFAULT_TOPIC_QUEUE_NUMS = 4
"""``DefaultMQProducer.defaultTopicQueueNums``'s default."""

V2_FIELD_NAMES: dict[str, str] = {
    "producer_group": "a",
    "topic": "b",
    "default_topic": "c",
    "default_topic_queue_nums": "d",
    "queue_id": "e",
    "sys_flag": "f",
    "born_timestamp": "g",
    "flag": "h",
    "properties": "i",
    "reconsume_times": "j",
    "unit_mode": "k",
    "max_reconsume_times": "l",
    "batch": "m",
    "broker_name": "n",
}
"""Our field name -> ``SendMessageRequestHeaderV2``'s short name."""

_V1_FIELD_NAMES: dict[str, str] = {
    "producer_group": "producerGroup",
    "topic": "topic",
    "default_topic": "defaultTopic",
    "default_topic_queue_nums": "defaultTopicQueueNums",
    "queue_id": "queueId",
    "sys_flag": "sysFlag",
    "born_timestamp": "bornTimestamp",
    "flag": "flag",
    "properties": "properties",
    "reconsume_times": "reconsumeTimes",
    "unit_mode": "unitMode",
    "max_reconsume_times": "maxReconsumeTimes",
    "batch": "batch",
    "broker_name": "bname",
}

_V2_REQUIRED = frozenset("abcdefgh")
"""The ``@CFNotNull`` fields of ``SendMessageRequestHeaderV2``."""

_INT_FIELDS = ("default_topic_queue_nums", "queue_id", "sys_flag", "flag", "reconsume_times", "max_reconsume_times")


def _to_java(v: object) -> str:
    """``Object.toString()`` of the header field: ``"true"``/``"false"`` for a Boolean, decimal for a number."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def java_parse_long(s: str) -> int:
    """``Long.parseLong`` over ASCII digits, with Java's message."""
    if len(s) < 19 and s.isascii() and s.isdigit():  # the usual case: at most 18 ASCII digits always fit
        return int(s)
    body = s[1:] if s[:1] in ("-", "+") else s
    if not body or not body.isascii() or not body.isdigit() or not -(2**63) <= int(s) < 2**63:
        raise NumberFormatError(f'For input string: "{s}"')
    return int(s)


def _parse_bool(s: str) -> bool:
    """``Boolean.parseBoolean``: ``"true"`` in any case is true, anything else false."""
    return s.lower() == "true"


@dataclass(frozen=True)
class SendMessageRequestHeader:
    """The fields of ``SendMessageRequestHeader`` a producer fills (see the module's table).

    Required: ``producer_group``, ``topic``, ``queue_id``, ``born_timestamp``; the rest default to what
    ``sendKernelImpl`` sends for a plain message. ``max_reconsume_times`` and ``broker_name`` are left out of
    the ext fields when ``None`` (Java skips null fields)."""

    producer_group: str
    topic: str
    queue_id: int
    born_timestamp: int
    sys_flag: int = 0
    flag: int = 0
    properties: str | None = None
    default_topic: str = DEFAULT_TOPIC
    default_topic_queue_nums: int = DEFAULT_TOPIC_QUEUE_NUMS
    reconsume_times: int = 0
    unit_mode: bool = False
    batch: bool = False
    max_reconsume_times: int | None = None
    broker_name: str | None = None

    def __post_init__(self) -> None:
        for name in ("producer_group", "topic", "default_topic"):
            v = getattr(self, name)
            if v is None:
                raise NullPointerError(f"{name} is required (@CFNotNull)")
            if not isinstance(v, str):
                raise TypeError(f"{name} must be a str, not {type(v).__name__}")
        for name in ("properties", "broker_name"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, str):
                raise TypeError(f"{name} must be a str, not {type(v).__name__}")
        for name in (*_INT_FIELDS, "born_timestamp"):
            v = getattr(self, name)
            if v is None and name == "max_reconsume_times":
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{name} must be an int, not {type(v).__name__}")
            bits = 63 if name == "born_timestamp" else 31
            if not -(2**bits) <= v < 2**bits:
                raise IllegalArgumentError(f"{name} {v} is out of the Java {'long' if bits == 63 else 'int'} range")
        for name in ("unit_mode", "batch"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool")

    def _fields(self, names: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for attr, key in names.items():
            v = getattr(self, attr)
            if v is not None:
                out[key] = _to_java(v)
        return out

    def to_v2_ext_fields(self, compat: str | None = "5.3") -> dict[str, str]:
        """``SendMessageRequestHeaderV2`` as ext fields (``a`` ... ``n``), for ``SEND_MESSAGE_V2`` (310) and
        ``SEND_BATCH_MESSAGE`` (320). Both compat profiles give the same fields."""
        parse_compat(compat)
        return self._fields(V2_FIELD_NAMES)

    def to_v1_ext_fields(self, compat: str | None = "5.3") -> dict[str, str]:
        """``SendMessageRequestHeader`` as ext fields (long names, broker name as ``bname``), for
        ``SEND_MESSAGE`` (10). Both compat profiles give the same fields."""
        parse_compat(compat)
        return self._fields(_V1_FIELD_NAMES)

    @classmethod
    def from_v2_ext_fields(cls, fields: dict[str, str]) -> SendMessageRequestHeader:
        """``SendMessageRequestHeaderV2.decode`` then ``createSendMessageRequestHeaderV1``, as a broker reads the
        header: numbers with ``Integer.parseInt``/``Long.parseLong``, booleans with ``Boolean.parseBoolean``.
        A missing ``a`` ... ``h`` raises :class:`NullPointerError` (Java logs it and fails later)."""
        kw: dict[str, object] = {}
        for attr, key in V2_FIELD_NAMES.items():
            s = fields.get(key)
            if s is None:
                if key in _V2_REQUIRED:
                    raise NullPointerError(f"the custom field <{key}> is null")
                continue
            if attr == "born_timestamp":
                kw[attr] = java_parse_long(s)
            elif attr in _INT_FIELDS:
                kw[attr] = java_parse_int(s)
            elif attr in ("unit_mode", "batch"):
                kw[attr] = _parse_bool(s)
            else:
                kw[attr] = s
        return cls(**kw)  # type: ignore[arg-type]


def send_header_v2(
    *,
    producer_group: str,
    topic: str,
    queue_id: int,
    born_timestamp: int,
    sys_flag: int = 0,
    flag: int = 0,
    properties: str | None = None,
    default_topic: str = DEFAULT_TOPIC,
    default_topic_queue_nums: int = DEFAULT_TOPIC_QUEUE_NUMS,
    reconsume_times: int = 0,
    unit_mode: bool = False,
    batch: bool = False,
    max_reconsume_times: int | None = None,
    broker_name: str | None = None,
    compat: str | None = "5.3",
) -> dict[str, str]:
    """The ext fields of a ``SEND_MESSAGE_V2`` / ``SEND_BATCH_MESSAGE`` request, ``a`` ... ``n`` (see the
    module's table): what :meth:`SendMessageRequestHeader.to_v2_ext_fields` gives, built directly for the send
    path (only the types are checked, not the Java ranges). Both compat profiles give the same fields."""
    if compat not in COMPAT_PROFILES:  # already a profile's name: no call
        parse_compat(compat)
    if not (type(producer_group) is str and type(topic) is str and type(default_topic) is str):
        for v in (producer_group, topic, default_topic):
            if not isinstance(v, str):
                raise TypeError(f"producer_group, topic and default_topic must be str, not {type(v).__name__}")
    if not (
        type(queue_id) is int
        and type(born_timestamp) is int
        and type(sys_flag) is int
        and type(flag) is int
        and type(default_topic_queue_nums) is int
        and type(reconsume_times) is int
    ):
        for v in (queue_id, born_timestamp, sys_flag, flag, default_topic_queue_nums, reconsume_times):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"the numeric header fields must be int, not {type(v).__name__}")
    fields = {
        "a": producer_group,
        "b": topic,
        "c": default_topic,
        "d": str(default_topic_queue_nums),
        "e": str(queue_id),
        "f": str(sys_flag),
        "g": str(born_timestamp),
        "h": str(flag),
    }
    if properties is not None:
        fields["i"] = properties
    fields["j"] = str(reconsume_times)
    fields["k"] = "true" if unit_mode else "false"
    if max_reconsume_times is not None:
        fields["l"] = str(max_reconsume_times)
    fields["m"] = "true" if batch else "false"
    if broker_name is not None:
        fields["n"] = broker_name
    return fields


def send_header_v1(**kwargs: object) -> dict[str, str]:
    """The ext fields of a ``SEND_MESSAGE`` (10) request: :func:`send_header_v2`'s arguments, long names."""
    compat = kwargs.pop("compat", "5.3")
    return SendMessageRequestHeader(**kwargs).to_v1_ext_fields(compat)  # type: ignore[arg-type]


_native_frame = native_twin("_send_request_frame")  # rocketroute_core::send_header


def send_request(
    code: int,
    opaque: int,
    flag: int,
    language: str,
    version: int,
    producer_group: str,
    topic: str,
    default_topic: str,
    default_topic_queue_nums: int,
    queue_id: int,
    sys_flag: int,
    born_timestamp: int,
    msg_flag: int,
    properties: str | None,
    unit_mode: bool,
    batch: bool,
    broker_name: str | None,
    body: bytes | None,
) -> EncodedRequest:
    """A producer's send request (``SEND_MESSAGE_V2`` / ``SEND_BATCH_MESSAGE``) in its wire form: the frame of
    ``RemotingCommand(code, opaque, flag, language, version, None, send_header_v2(...), body)`` (``msg_flag`` is
    the header's ``h``; no reconsume times), as :func:`~rocketroute.protocol.frame.encode_frame` writes it. With
    the native backend the frame is written in one call, without the ext fields' dict (the same bytes); what it
    does not take is written here, which also raises :func:`send_header_v2`'s errors."""
    frame = None
    if _native_frame is not None:
        frame = _native_frame(
            code, opaque, flag, language, version, producer_group, topic, default_topic, default_topic_queue_nums,
            queue_id, sys_flag, born_timestamp, msg_flag, properties, unit_mode, batch, broker_name, body,
        )  # fmt: skip
    if frame is None:
        fields = send_header_v2(
            producer_group=producer_group,
            topic=topic,
            queue_id=queue_id,
            born_timestamp=born_timestamp,
            sys_flag=sys_flag,
            flag=msg_flag,
            properties=properties,
            default_topic=default_topic,
            default_topic_queue_nums=default_topic_queue_nums,
            unit_mode=unit_mode,
            batch=batch,
            broker_name=broker_name,
        )
        frame = encode_frame(RemotingCommand(code, opaque, flag, language, version, None, fields, body))
    return EncodedRequest(code, opaque, frame, len(body) if body else 0)
