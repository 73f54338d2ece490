"""``RemotingCommand``: one request or response of RocketMQ's remoting protocol, as Java's
``org.apache.rocketmq.remoting.protocol.RemotingCommand`` holds it.

A command is a code (a request code, or a response code in a response), an ``opaque`` id that pairs a response with
its request, flag bits (bit 0: response, bit 1: oneway), the sender's language and version, an optional remark
(a response's error text), the "ext fields" (Java's ``HashMap<String, String>``: the custom header's fields as
strings) and an optional body.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

__all__ = [
    "LANGUAGE_CODES",
    "LANGUAGE_NAMES",
    "MQ_VERSIONS",
    "RPC_ONEWAY",
    "RPC_RESPONSE",
    "VERSION_4_9_8",
    "VERSION_5_3_3",
    "EncodedRequest",
    "RemotingCommand",
    "SerializeType",
    "ext_fields_to_strings",
    "next_opaque",
]


class SerializeType(IntEnum):
    """How a frame's header is serialized (Java's ``SerializeType``): the high byte of the frame's header-length
    field."""

    JSON = 0
    ROCKETMQ = 1


RPC_RESPONSE = 1
"""Flag bit 0 (Java's ``1 << RPC_TYPE``): the command is a response."""
RPC_ONEWAY = 2
"""Flag bit 1 (Java's ``1 << RPC_ONEWAY``): the request expects no response."""

LANGUAGE_NAMES: tuple[str, ...] = (
    "JAVA",
    "CPP",
    "DOTNET",
    "PYTHON",
    "DELPHI",
    "ERLANG",
    "RUBY",
    "OTHER",
    "HTTP",
    "GO",
    "PHP",
    "OMS",
    "RUST",
    "NODE_JS",
)
"""Java's ``LanguageCode`` names, indexed by their byte code (the ROCKETMQ binary header carries the code, the JSON
header the name)."""
LANGUAGE_CODES: Mapping[str, int] = {name: code for code, name in enumerate(LANGUAGE_NAMES)}
"""``LanguageCode`` name -> byte code."""

VERSION_5_3_3 = 479
"""``MQVersion.Version.V5_3_3.ordinal()``: ``MQVersion.CURRENT_VERSION`` of RocketMQ 5.3.3. Java's client puts it
in every request (``MQClientAPIImpl`` sets the ``rocketmq.remoting.version`` system property to it, and
``RemotingCommand.createRequestCommand`` copies that into ``version``)."""
VERSION_4_9_8 = 409
"""``MQVersion.Version.V4_9_8.ordinal()``, ``MQVersion.CURRENT_VERSION`` of RocketMQ 4.9.8."""
MQ_VERSIONS: Mapping[str, int] = {"5.3": VERSION_5_3_3, "4.9": VERSION_4_9_8}
"""Compat profile -> the version its requests carry."""

_opaque_counter = itertools.count()


def next_opaque() -> int:
    """The next request id: Java's ``RemotingCommand.requestId.getAndIncrement()``, a process-wide counter from 0
    that wraps around as a Java ``int`` does. Thread-safe (``next`` on an ``itertools.count`` holds the GIL)."""
    n = next(_opaque_counter) & 0xFFFFFFFF
    return n - 0x100000000 if n & 0x80000000 else n


def _ext_value(key: str, value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))
    raise TypeError(f"ext field {key!r}: a str, int or bool is expected, not {type(value).__name__}")


def ext_fields_to_strings(fields: Mapping[str, Any] | None) -> dict[str, str]:
    """Ext fields as Java sends them (``makeCustomHeaderToNet``): every value as a string, ``bool`` as
    ``"true"``/``"false"``, ``int`` in decimal; a ``None`` value is left out, as Java leaves out a null field.
    Other value types (``float``, ...) raise ``TypeError``: Java's text for them is not Python's."""
    if not fields:
        return {}
    out: dict[str, str] = {}
    for key, value in fields.items():
        if not isinstance(key, str):
            raise TypeError(f"ext field names are str, not {type(key).__name__}")
        text = _ext_value(key, value)
        if text is not None:
            out[key] = text
    return out


@dataclass(slots=True)
class RemotingCommand:
    """One remoting command (Java's ``RemotingCommand``).

    ``opaque`` defaults to :func:`next_opaque` (Java draws it in the field initializer), ``language`` to
    ``"PYTHON"`` (a ``LanguageCode`` name), ``version`` to :data:`VERSION_5_3_3`. ``ext_fields`` values must be
    strings: build requests with :meth:`request`, which converts them. ``serialize_type`` is how the command was
    or will be serialized (Java's ``serializeTypeCurrentRPC``); decoded commands keep the type they came in.
    A decoded command's ``body`` is ``None`` when its frame has no body bytes and its ``remark`` ``None`` when
    absent, as in Java.
    """

    code: int
    opaque: int = field(default_factory=next_opaque)
    flag: int = 0
    language: str = "PYTHON"
    version: int = VERSION_5_3_3
    remark: str | None = None
    ext_fields: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    serialize_type: SerializeType = SerializeType.JSON

    @classmethod
    def request(
        cls,
        code: int,
        ext_fields: Mapping[str, Any] | None = None,
        body: bytes | None = None,
        *,
        remark: str | None = None,
        version: int = VERSION_5_3_3,
        serialize_type: SerializeType = SerializeType.JSON,
    ) -> RemotingCommand:
        """A request with a fresh opaque (Java's ``createRequestCommand``); ``ext_fields`` values are converted
        by :func:`ext_fields_to_strings`."""
        return cls(
            code,
            next_opaque(),
            0,
            "PYTHON",
            version,
            remark,
            ext_fields_to_strings(ext_fields),
            body,
            serialize_type,
        )

    @classmethod
    def response_to(
        cls,
        request: RemotingCommand,
        code: int,
        remark: str | None = None,
        ext_fields: Mapping[str, Any] | None = None,
        body: bytes | None = None,
    ) -> RemotingCommand:
        """A response to ``request`` (Java's ``createResponseCommand`` then ``setOpaque(request.getOpaque())``):
        the response flag set, the request's opaque and serialize type."""
        return cls(
            code,
            request.opaque,
            RPC_RESPONSE,
            "PYTHON",
            request.version,
            remark,
            ext_fields_to_strings(ext_fields),
            body,
            request.serialize_type,
        )

    @property
    def is_response(self) -> bool:
        """Flag bit 0 (Java's ``isResponseType()``)."""
        return bool(self.flag & RPC_RESPONSE)

    @property
    def is_oneway(self) -> bool:
        """Flag bit 1 (Java's ``isOnewayRPC()``)."""
        return bool(self.flag & RPC_ONEWAY)

    def mark_response(self) -> None:
        """Set flag bit 0 (Java's ``markResponseType()``)."""
        self.flag |= RPC_RESPONSE

    def mark_oneway(self) -> None:
        """Set flag bit 1 (Java's ``markOnewayRPC()``)."""
        self.flag |= RPC_ONEWAY

    def __repr__(self) -> str:
        body = "None" if self.body is None else f"<{len(self.body)} bytes>"
        return (
            f"RemotingCommand(code={self.code}, opaque={self.opaque}, flag={self.flag}, language={self.language!r}, "
            f"version={self.version}, remark={self.remark!r}, ext_fields={self.ext_fields!r}, body={body}, "
            f"serialize_type={getattr(self.serialize_type, 'name', self.serialize_type)})"
        )


class EncodedRequest:
    """A request already in its wire form: the frame a connection writes as it is, with what the connection needs
    to know of it (its code for a timeout's error, its opaque to match the response, its body's size).

    The send path builds one in a single native call (:func:`rocketroute.protocol.headers.send.send_request`)
    instead of a :class:`RemotingCommand` whose ext fields are encoded when written; the language is written in
    the frame by whoever encodes it (:meth:`~rocketroute.net.transport.AsyncRemotingClient.frame_language`),
    and a client that signs its requests takes commands only."""

    __slots__ = ("body_size", "code", "frame", "opaque")

    def __init__(self, code: int, opaque: int, frame: bytes, body_size: int) -> None:
        self.code = code
        self.opaque = opaque
        self.frame = frame
        self.body_size = body_size

    def __repr__(self) -> str:
        return (
            f"EncodedRequest(code={self.code}, opaque={self.opaque}, frame=<{len(self.frame)} bytes>, "
            f"body_size={self.body_size})"
        )
