"""Messages as a PULL_MESSAGE response carries them: stored messages in the broker's commit-log format.

Follows RocketMQ 5.3.3 (``compat="5.3"``, the default) or 4.9.8 (``compat="4.9"``); Java sources, by class:

- ``MessageDecoder.decode`` / ``decodes`` / ``decodesBatch`` (what ``PullAPIWrapper.processPullResult`` calls):
  the layout, read field by field, big-endian; ``MessageVersion``: the magic code picks a 1-byte (V1) or 2-byte
  (V2) topic length; ``MessageSysFlag``: IPv6 born/store hosts, compression and its type; ``CompressionType``:
  type 0 (older producers) and 3 are ZLIB.
- ``MessageDecoder.createMessageId`` / ``decodeMessageId``: the offset message id (store host and commit-log
  offset as upper-case hex).
- ``MessageExt`` / ``MessageClientExt``: the decoded message; ``getMsgId()`` is the ``UNIQ_KEY`` property when
  there is one, else the offset message id. ``Message``: the property accessors.
- ``DefaultMQPushConsumerImpl.resetRetryAndNamespace``: a retry message gets its original topic back.

Where this differs from Java, on purpose:

- Java's ``decodes`` swallows a message it cannot read and returns the messages before it. Here any malformed
  message raises :class:`MessageDecodeError` (naming its offset), so a corrupt response is never half-consumed
  silently. It is raised for: fewer bytes left than a message needs or than its TOTALSIZE says, a TOTALSIZE
  smaller than the fixed part or not equal to what the fields take (Java never looks at TOTALSIZE), an unknown
  magic code (4.9.8 reads any magic code as V1; 4.9.8 brokers only write V1), a negative length (Java skips a
  negative body or properties length and then misreads what follows), a port outside 0..65535, a bad CRC with
  ``check_crc``, and a compressed body that cannot be decompressed (below).
- ``body`` is ``b""`` for an empty body where Java leaves ``null``; with ``read_body=False`` it is ``None``
  (Java skips the body and leaves ``null``).
- Text is decoded as UTF-8 with U+FFFD for malformed bytes, as ``new String(bytes, UTF_8)``; a CESU-8 encoded
  surrogate gives three U+FFFD here and one in Java (Java clients never write those).

Compressed bodies (``decompress_body=True``, the default; :mod:`.decompression` inflates them): the compression
type is in the sysFlag bits ``COMPRESSION_TYPE_COMPARATOR`` (``CompressionType``, ``CompressorFactory``), as Java's
compressors write them:

- ZLIB (type 3, and 0 from producers older than the type bits): a zlib stream (``ZlibCompressor``, ``Deflater``),
  with the standard library's :mod:`zlib`. Bytes after the end of the stream are ignored, as
  ``InflaterInputStream`` ignores them.
- LZ4 (type 1): the LZ4 frame format (``Lz4Compressor``: lz4-java's ``LZ4FrameOutputStream``), with the ``lz4``
  package (``lz4.frame``); concatenated and skippable frames are read, as ``LZ4FrameInputStream`` reads them.
- ZSTD (type 2): the Zstandard frame format (``ZstdCompressor``: zstd-jni's ``ZstdOutputStream``), with the
  ``zstandard`` package; concatenated and skippable frames are read, as ``ZstdInputStream`` reads them.

``lz4`` and ``zstandard`` are the optional extra ``rocketroute[compression]``
(``pip install 'rocketroute[compression]'``); without them an LZ4 or ZSTD body is undecodable and the error says
which package to install. A body is also undecodable when its compressed data is corrupt or truncated, when the
compression type is unknown (4 to 7), or when it inflates to more than ``max_body_size`` bytes
(:data:`DEFAULT_MAX_BODY_SIZE`, 16 MiB, four times the largest body a Java producer sends by default): Java
inflates any size, so a small "compression bomb" could take a consumer to gigabytes. The limit is checked while
inflating, so such a body never costs more than about ``max_body_size`` bytes of memory.

What happens to an undecodable body is ``undecodable``'s choice: ``"raise"`` (the default) raises
:class:`MessageDecodeError` for the whole response, as for any malformed message; ``"mark"`` returns that message
with its stored (compressed) bytes as ``body``, its sysFlag as stored (``COMPRESSED_FLAG`` still set) and the
reason in :attr:`MessageExt.decode_error`, and decodes the others as usual, so one message that cannot be read
does not stop its queue. Only the body is in question there: a message whose layout is malformed (lengths,
TOTALSIZE, magic code, truncation) or whose CRC is wrong with ``check_crc`` still raises for the whole response,
since what follows it cannot be trusted.

Hosts are ``"ip:port"``: Java's ``InetSocketAddress.toString()`` without the leading ``/``. An IPv6 address is
written as ``Inet6Address.getHostAddress()`` does (eight groups, lower-case hex, no ``::``) and without brackets,
as JDK 8 and 11 print it (JDK 14+ adds brackets): ``"0:0:0:0:0:0:0:1:10911"``; split it with ``rsplit(":", 1)``.
An IPv4-mapped IPv6 address (``::ffff:a.b.c.d``) is printed as IPv4, because Java's ``InetAddress.getByAddress``
turns it into an ``Inet4Address``."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from .._backend import native_twin
from ..errors import IllegalArgumentError, RocketRouteError
from ..reference.compat import parse_compat
from ..reference.java import java_parse_int
from .decompression import _BodyError, _decompress
from .message_const import (
    COMPRESSED_FLAG,
    PROPERTY_DELAY_TIME_LEVEL,
    PROPERTY_KEYS,
    PROPERTY_MAX_OFFSET,
    PROPERTY_MIN_OFFSET,
    PROPERTY_RETRY_TOPIC,
    PROPERTY_TAGS,
    PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
    PROPERTY_WAIT_STORE_MSG_OK,
    RETRY_GROUP_TOPIC_PREFIX,
)
from .message_id import hex_id_bytes
from .message_properties import string_to_properties

__all__ = [
    "BORNHOST_V6_FLAG",
    "DEFAULT_MAX_BODY_SIZE",
    "MESSAGE_MAGIC_CODE",
    "MESSAGE_MAGIC_CODE_V2",
    "STOREHOSTADDRESS_V6_FLAG",
    "MessageDecodeError",
    "MessageExt",
    "MessageId",
    "decode_message_id",
    "decode_messages",
    "decode_pulled",
    "reset_retry_topic",
]


MESSAGE_MAGIC_CODE = -626843481
"""``MessageDecoder.MESSAGE_MAGIC_CODE`` (``0xDAA320A7``): V1, the topic length is one (signed) byte."""


MESSAGE_MAGIC_CODE_V2 = -626843477
"""``MessageDecoder.MESSAGE_MAGIC_CODE_V2`` (``0xDAA320AB``): V2, the topic length is a (signed) short."""


_BLANK_MAGIC_CODE = -875286124  # end-of-file filler of a commit-log file, never a message


BORNHOST_V6_FLAG = 0x1 << 4
"""``MessageSysFlag.BORNHOST_V6_FLAG``: the born host is 16 bytes of IPv6 address + port."""


STOREHOSTADDRESS_V6_FLAG = 0x1 << 5
"""``MessageSysFlag.STOREHOSTADDRESS_V6_FLAG``: the store host is 16 bytes of IPv6 address + port."""


# TOTALSIZE MAGICCODE BODYCRC QUEUEID FLAG QUEUEOFFSET PHYSICALOFFSET SYSFLAG BORNTIMESTAMP
_HEAD = struct.Struct(">iiiiiqqiq")


_SIZE_MAGIC = struct.Struct(">ii")


_BYTE = struct.Struct(">b")


_INT = struct.Struct(">i")


_LONG = struct.Struct(">q")


_SHORT = struct.Struct(">h")


# RECONSUMETIMES PREPAREDTRANSACTIONOFFSET BODYLEN
_TAIL = struct.Struct(">iqi")


_MIN_SIZE = _HEAD.size + (4 + 4) + 8 + (4 + 4) + _TAIL.size + 1 + 2  # 91: IPv4 hosts, V1, empty everything


_V4_MAPPED = bytes(10) + b"\xff\xff"


DEFAULT_MAX_BODY_SIZE = 16 * 1024 * 1024
"""The default ``max_body_size`` of :func:`decode_messages`: the most bytes a compressed body may inflate to
(16 MiB: four times ``maxMessageSize``, 4 MiB, the largest body a Java producer sends by default, checked before
it compresses)."""


_UNDECODABLE = ("raise", "mark")


class MessageDecodeError(RocketRouteError, ValueError):
    """A pull response body that is not a well-formed sequence of stored messages. ``offset`` is where the
    message that failed starts in the body (Java's ``decodes`` would have stopped there)."""

    def __init__(self, offset: int, detail: str) -> None:
        super().__init__(f"cannot decode the message at offset {offset}: {detail}")
        self.offset = offset


class MessageId(NamedTuple):
    """``MessageDecoder.decodeMessageId``: the store host and commit-log offset of an offset message id."""

    host: str
    port: int
    offset: int


@dataclass(slots=True)
class MessageExt:
    """``MessageClientExt`` as ``MessageDecoder.decode`` fills it. Mutable: the consumer puts properties
    (``MIN_OFFSET``/``MAX_OFFSET``), sets ``broker_name`` and resets the topic of retry messages.

    ``body`` is ``None`` when decoded with ``read_body=False``. ``born_host`` / ``store_host`` are ``"ip:port"``
    (see the module docstring for IPv6). ``offset_msg_id`` is ``getOffsetMsgId()``; :attr:`msg_id` is
    ``getMsgId()``. ``decode_error`` is ``None``, or, for a message decoded with ``undecodable="mark"`` whose
    compressed body could not be decompressed, why (``body`` is then the stored compressed bytes)."""

    topic: str = ""
    body: bytes | None = b""
    flag: int = 0
    properties: dict[str, str] = field(default_factory=dict)
    queue_id: int = 0
    store_size: int = 0
    queue_offset: int = 0
    sys_flag: int = 0
    born_timestamp: int = 0
    born_host: str = ""
    store_timestamp: int = 0
    store_host: str = ""
    offset_msg_id: str = ""
    commit_log_offset: int = 0
    body_crc: int = 0
    reconsume_times: int = 0
    prepared_transaction_offset: int = 0
    broker_name: str | None = None
    decode_error: str | None = None

    @property
    def msg_id(self) -> str:
        """``MessageClientExt.getMsgId()``: the ``UNIQ_KEY`` property (the producer's id) if set, else
        :attr:`offset_msg_id`."""
        uniq = self.properties.get(PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        return self.offset_msg_id if uniq is None else uniq

    @property
    def tags(self) -> str | None:
        """``getTags()``: the ``TAGS`` property."""
        return self.properties.get(PROPERTY_TAGS)

    @property
    def keys(self) -> str | None:
        """``getKeys()``: the ``KEYS`` property (several keys are separated by ``" "``)."""
        return self.properties.get(PROPERTY_KEYS)

    @property
    def transaction_id(self) -> str | None:
        """The transaction's id: the ``UNIQ_KEY`` property, as Java's ``checkTransactionState`` sets
        ``transactionId`` on the half message it hands the checker (``None`` when not set)."""
        return self.properties.get(PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) or None

    @property
    def delay_time_level(self) -> int:
        """``getDelayTimeLevel()``: the ``DELAY`` property as ``Integer.parseInt`` reads it (raising
        :class:`~rocketroute.errors.NumberFormatError` as Java throws), 0 when not set."""
        s = self.properties.get(PROPERTY_DELAY_TIME_LEVEL)
        return 0 if s is None else java_parse_int(s)

    @property
    def wait_store_msg_ok(self) -> bool:
        """``isWaitStoreMsgOK()``: ``True`` when the ``WAIT`` property is not set, else
        ``Boolean.parseBoolean`` of it."""
        s = self.properties.get(PROPERTY_WAIT_STORE_MSG_OK)
        return True if s is None else s.lower() == "true"

    def get_property(self, name: str) -> str | None:
        """``getProperty(name)``."""
        return self.properties.get(name)

    def user_property(self, name: str) -> str | None:
        """``getUserProperty(name)``: the same look-up as :meth:`get_property`."""
        return self.properties.get(name)

    def put_property(self, name: str, value: str) -> None:
        """``MessageAccessor.putProperty`` / ``Message.putProperty``: no check of the name."""
        self.properties[name] = value


def _java_ip(ip: bytes) -> bytes:
    """``InetAddress.getByAddress(ip).getAddress()``: an IPv4-mapped IPv6 address becomes its IPv4 address."""
    return ip[12:] if len(ip) == 16 and ip[:12] == _V4_MAPPED else ip


def _ip_text(ip: bytes) -> str:
    """``InetAddress.getHostAddress()`` of :func:`_java_ip`'s result."""
    if len(ip) == 4:
        return f"{ip[0]}.{ip[1]}.{ip[2]}.{ip[3]}"
    return ":".join(f"{(ip[i] << 8) | ip[i + 1]:x}" for i in range(0, 16, 2))


def _offset_msg_id(store_ip: bytes, port: int, commit_log_offset: int) -> str:
    """``createMessageId(ByteBuffer.allocate(storehostIPLength + 12), getStoreHostBytes(), commitLogOffset)``.

    Java sizes the buffer by the IP length read (16 for IPv6) but writes the address of the ``InetAddress``,
    which is 4 bytes for an IPv4-mapped address: that id is the IPv4 id followed by 12 zero bytes."""
    raw = _java_ip(store_ip) + _INT.pack(port) + _LONG.pack(commit_log_offset)
    return raw.ljust(len(store_ip) + 12, b"\0").hex().upper()


def _decode_one(
    data: bytes,
    start: int,
    read_body: bool,
    decompress_body: bool,
    check_crc: bool,
    compat: str,
    max_body_size: int | None,
    mark: bool,
) -> MessageExt:
    left = len(data) - start
    if left < 8:
        raise MessageDecodeError(start, f"only {left} bytes left, a message takes at least {_MIN_SIZE} (truncated)")
    store_size, magic = _SIZE_MAGIC.unpack_from(data, start)
    if magic == MESSAGE_MAGIC_CODE:
        topic_len_size = 1
    elif magic == MESSAGE_MAGIC_CODE_V2:
        topic_len_size = 2
    else:
        what = " (the blank magic code of a commit-log file's end)" if magic == _BLANK_MAGIC_CODE else ""
        raise MessageDecodeError(start, f"invalid magic code {magic} (0x{magic & 0xFFFFFFFF:08X}){what}")
    if store_size < _MIN_SIZE + topic_len_size - 1:
        raise MessageDecodeError(start, f"TOTALSIZE {store_size} is smaller than the fixed part of a message")
    if store_size > left:
        raise MessageDecodeError(start, f"TOTALSIZE {store_size} but only {left} bytes are left (truncated)")
    end = start + store_size

    (_, _, body_crc, queue_id, flag, queue_offset, commit_log_offset, sys_flag, born_ts) = _HEAD.unpack_from(
        data, start
    )
    born_ip_len = 16 if sys_flag & BORNHOST_V6_FLAG else 4
    store_ip_len = 16 if sys_flag & STOREHOSTADDRESS_V6_FLAG else 4
    pos = start + _HEAD.size
    if pos + born_ip_len + 4 + 8 + store_ip_len + 4 + _TAIL.size > end:
        raise MessageDecodeError(start, f"TOTALSIZE {store_size} is smaller than the fixed part of a message")
    born_ip = data[pos : pos + born_ip_len]
    pos += born_ip_len
    (born_port,) = _INT.unpack_from(data, pos)
    (store_ts,) = _LONG.unpack_from(data, pos + 4)
    pos += 12
    store_ip = data[pos : pos + store_ip_len]
    pos += store_ip_len
    (store_port,) = _INT.unpack_from(data, pos)
    reconsume_times, prepared_offset, body_len = _TAIL.unpack_from(data, pos + 4)
    pos += 4 + _TAIL.size
    for what, port in (("born", born_port), ("store", store_port)):
        if not 0 <= port <= 0xFFFF:
            raise MessageDecodeError(start, f"{what} host port out of range: {port}")

    if body_len < 0 or pos + body_len > end:
        raise MessageDecodeError(start, f"BODYLEN {body_len} does not fit in TOTALSIZE {store_size}")
    body: bytes | None = None
    decode_error: str | None = None
    if read_body:
        body = data[pos : pos + body_len]
        if body_len > 0:
            crc = zlib.crc32(body) & 0x7FFFFFFF if check_crc else body_crc
            if crc != body_crc:
                raise MessageDecodeError(start, f"the body's CRC is {crc}, BODYCRC says {body_crc}")
            if decompress_body and sys_flag & COMPRESSED_FLAG:
                try:
                    body = _decompress(body, sys_flag, max_body_size)
                except _BodyError as e:
                    if not mark:
                        raise MessageDecodeError(start, str(e)) from None
                    decode_error = str(e)
                else:
                    if compat == "5.3":
                        sys_flag &= ~COMPRESSED_FLAG
    pos += body_len

    if pos + topic_len_size > end:
        raise MessageDecodeError(start, f"TOTALSIZE {store_size} ends before the topic length")
    (topic_len,) = (_BYTE if topic_len_size == 1 else _SHORT).unpack_from(data, pos)
    pos += topic_len_size
    if topic_len < 0 or pos + topic_len + 2 > end:
        raise MessageDecodeError(start, f"TOPICLEN {topic_len} does not fit in TOTALSIZE {store_size}")
    topic = data[pos : pos + topic_len].decode("utf-8", "replace")
    pos += topic_len
    (props_len,) = _SHORT.unpack_from(data, pos)
    pos += 2
    if props_len < 0 or pos + props_len > end:
        raise MessageDecodeError(start, f"PROPERTIESLEN {props_len} does not fit in TOTALSIZE {store_size}")
    properties = string_to_properties(data[pos : pos + props_len].decode("utf-8", "replace")) if props_len else {}
    pos += props_len
    if pos != end:
        raise MessageDecodeError(start, f"TOTALSIZE {store_size} but the fields take {pos - start} bytes")

    return MessageExt(
        topic=topic,
        body=body,
        flag=flag,
        properties=properties,
        queue_id=queue_id,
        store_size=store_size,
        queue_offset=queue_offset,
        sys_flag=sys_flag,
        born_timestamp=born_ts,
        born_host=f"{_ip_text(_java_ip(born_ip))}:{born_port}",
        store_timestamp=store_ts,
        store_host=f"{_ip_text(_java_ip(store_ip))}:{store_port}",
        offset_msg_id=_offset_msg_id(store_ip, store_port, commit_log_offset),
        commit_log_offset=commit_log_offset,
        body_crc=body_crc,
        reconsume_times=reconsume_times,
        prepared_transaction_offset=prepared_offset,
        decode_error=decode_error,
    )


_native_decode = native_twin("_decode_stored")  # the pull decoder, rocketroute_core::stored


def decode_messages(
    body: bytes | bytearray | memoryview,
    *,
    read_body: bool = True,
    decompress_body: bool = True,
    check_crc: bool = False,
    compat: str | None = "5.3",
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE,
    undecodable: Literal["raise", "mark"] = "raise",
) -> list[MessageExt]:
    """``MessageDecoder.decodesBatch(ByteBuffer.wrap(body), readBody, decompressBody, true)``: every message of
    a PULL_MESSAGE response body, in order; ``[]`` for an empty body.

    - ``read_body=False``: the body is skipped (``MessageExt.body`` is ``None``), as is its CRC check and
      decompression.
    - ``decompress_body``: a body with ``COMPRESSED_FLAG`` in its sysFlag is decompressed (ZLIB; LZ4 and ZSTD
      with the ``rocketroute[compression]`` extra: see the module docstring). 5.3.3 then clears
      ``COMPRESSED_FLAG`` in ``sys_flag``; 4.9.8 keeps the sysFlag as stored. With ``decompress_body=False`` the
      stored (compressed) bytes and sysFlag are kept.
    - ``check_crc``: ``decode(..., checkCRC=true)``: the stored body's CRC32 (``& 0x7FFFFFFF``) must equal
      BODYCRC.
    - ``max_body_size``: the most bytes a compressed body may inflate to (default
      :data:`DEFAULT_MAX_BODY_SIZE`, 16 MiB; ``None``: no limit, as Java). A body past it is undecodable; the
      codec stops one byte past the limit, so it costs no more memory than that.
    - ``undecodable``: what a compressed body that cannot be decompressed (codec not installed, corrupt or
      truncated data, unknown compression type, past ``max_body_size``) does: ``"raise"``
      :class:`MessageDecodeError`, or ``"mark"``: that message comes back with its stored bytes as ``body``, its
      stored sysFlag and the reason in ``decode_error``, and the others are decoded.

    With the native backend, a body whose messages are all plain (no compressed body, read with ``read_body``
    and without ``check_crc``: the consumer's pulls) is read in Rust (``rocketroute_core::stored``) into the same
    fields; anything else is read here.

    Raises :class:`MessageDecodeError` on the first malformed message (see the module docstring), where Java
    would stop and return the messages before it; :class:`~rocketroute.errors.IllegalArgumentError` for a
    negative ``max_body_size`` or an ``undecodable`` other than ``"raise"`` and ``"mark"``."""
    return _decode(body, read_body, decompress_body, check_crc, compat, max_body_size, undecodable, None)


def decode_pulled(
    body: bytes | bytearray | memoryview,
    min_offset: str,
    max_offset: str,
    broker_name: str | None,
    *,
    read_body: bool = True,
    decompress_body: bool = True,
    max_body_size: int | None = DEFAULT_MAX_BODY_SIZE,
    undecodable: Literal["raise", "mark"] = "raise",
) -> list[MessageExt]:
    """:func:`decode_messages`, then what a consumer's pull adds to every message (Java's
    ``PullAPIWrapper.processPullResult``): the ``MIN_OFFSET`` and ``MAX_OFFSET`` properties (the queue's offsets
    the broker answered with, put after the stored ones) and ``broker_name``. The native backend reads a body of
    plain messages with those in one pass."""
    pulled = (min_offset, max_offset, broker_name)
    return _decode(body, read_body, decompress_body, False, "5.3", max_body_size, undecodable, pulled)


def _decode(
    body: bytes | bytearray | memoryview,
    read_body: bool,
    decompress_body: bool,
    check_crc: bool,
    compat: str | None,
    max_body_size: int | None,
    undecodable: str,
    pulled: tuple[str, str, str | None] | None,
) -> list[MessageExt]:
    compat = parse_compat(compat)
    if undecodable not in _UNDECODABLE:
        raise IllegalArgumentError(f"undecodable must be 'raise' or 'mark', not {undecodable!r}")
    if max_body_size is not None and (type(max_body_size) is not int or max_body_size < 0):
        raise IllegalArgumentError(f"max_body_size must be None or an int >= 0, not {max_body_size!r}")
    mark = undecodable == "mark"
    data = body if isinstance(body, bytes) else bytes(body)
    if read_body and not check_crc and _native_decode is not None:
        msgs = _native_decode(data, MessageExt, pulled)
        if msgs is not None:  # every message plain (no compressed body): read in Rust, the same fields
            return msgs
    out: list[MessageExt] = []
    pos = 0
    n = len(data)
    while pos < n:
        msg = _decode_one(data, pos, read_body, decompress_body, check_crc, compat, max_body_size, mark)
        out.append(msg)
        pos += msg.store_size
    if pulled is not None:
        min_offset, max_offset, broker_name = pulled
        for m in out:
            m.properties[PROPERTY_MIN_OFFSET] = min_offset
            m.properties[PROPERTY_MAX_OFFSET] = max_offset
            m.broker_name = broker_name
    return out


def decode_message_id(msg_id: str) -> MessageId:
    """``MessageDecoder.decodeMessageId``: the store host, port and commit-log offset of an offset message id
    (32 hex chars for an IPv4 store host, 56 for IPv6). The host is written as in :attr:`MessageExt.store_host`.
    Any other length, a non-hex char or a port outside 0..65535 raises
    :class:`~rocketroute.errors.IllegalArgumentError` (Java reads garbage or throws); lower-case hex is accepted
    (Java's ``string2bytes`` misreads it)."""
    raw = hex_id_bytes(msg_id, "an offset message id")
    ip_len = 4 if len(raw) == 16 else 16
    (port,) = _INT.unpack_from(raw, ip_len)
    if not 0 <= port <= 0xFFFF:
        raise IllegalArgumentError(f"port out of range:{port}")
    (offset,) = _LONG.unpack_from(raw, ip_len + 4)
    return MessageId(_ip_text(_java_ip(raw[:ip_len])), port, offset)


def reset_retry_topic(msg: MessageExt, consumer_group: str) -> None:
    """``DefaultMQPushConsumerImpl.resetRetryAndNamespace`` for one message, without the namespace part: a
    message of the group's retry topic (``"%RETRY%" + consumer_group``) that has a ``RETRY_TOPIC`` property gets
    that topic back. Anything else is left as it is."""
    retry_topic = msg.properties.get(PROPERTY_RETRY_TOPIC)
    if retry_topic is not None and msg.topic == RETRY_GROUP_TOPIC_PREFIX + consumer_group:
        msg.topic = retry_topic
