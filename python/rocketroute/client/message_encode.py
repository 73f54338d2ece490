"""A message as ``sendKernelImpl`` puts it in a request, and a batch as ``MessageBatch.encode`` does: the body
(compressed or not), the sysFlag, the properties and the message id; the batch body of
``MessageDecoder.encodeMessages``, with the batch checks of ``DefaultMQProducer.batch``. The native twins do the
same in Rust."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .._backend import native_twin
from ..errors import IllegalArgumentError, NullPointerError
from ..protocol.response_code import ResponseCode
from ..reference.compat import COMPAT_PROFILES, parse_compat
from ..reference.java import java_utf8
from .compression import CompressionType, compress_body
from .message import _CHECKED_TOPICS, _TIMER_FIELDS, Message, MessageError, _check_message_fields
from .message_const import (
    BODY_CRC,
    COMPRESSED_FLAG,
    DEFAULT_MAX_MESSAGE_SIZE,
    MAGIC_CODE,
    PROPERTY_PRODUCER_GROUP,
    PROPERTY_TRANSACTION_PREPARED,
    PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
    PROPERTY_WAIT_STORE_MSG_OK,
    RETRY_GROUP_TOPIC_PREFIX,
    SYSTEM_PROPERTY_NAMES,
    TRANSACTION_PREPARED_TYPE,
)
from .message_id import create_uniq_id, create_uniq_ids, default_counter
from .message_properties import _join_properties

__all__ = [
    "EncodedBatch",
    "EncodedMessage",
    "encode_batch",
    "encode_for_send",
    "encode_message",
]


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


_native_send_properties = native_twin("_send_properties")
_native_usual_batch = native_twin("_usual_batch_body")


def encode_batch(
    messages: Iterable[Message],
    *,
    compat: str | None = "5.3",
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    msg_ids: Sequence[str] | None = None,
    batch_msg_id: str | None = None,
) -> EncodedBatch:
    """``DefaultMQProducer.batch(msgs)`` then the checks ``sendDefaultImpl`` runs on the batch.

    With the native backend a batch of usual messages (``Message`` objects that ``encode_for_send`` would take in
    Rust, to a topic sent to before, with new ids) is checked and written in Rust in one call, with no Python per
    message. Any other batch is checked here, then its body is written in Rust (``rocketroute_core::message_batch``,
    the same bytes); a message that does not take (more than 8 properties, a lone surrogate, a body that is not
    ``bytes``) is written here.

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
    if _native_usual_batch is not None and msg_ids is None:
        usual = _native_usual_batch(
            msgs,
            Message,
            compat == "4.9",
            max_message_size,
            _CHECKED_TOPICS,
            SYSTEM_PROPERTY_NAMES[compat],
            default_counter(),
        )
        if usual is not None:
            return _batch_of(usual[0], usual[1], msgs[0], compat, max_message_size, batch_msg_id)
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
    return _batch_of(body, ids, first, compat, max_message_size, batch_msg_id)


def _batch_of(
    body: bytes, ids: Sequence[str], first: Message, compat: str, max_message_size: int, batch_msg_id: str | None
) -> EncodedBatch:
    """The encoded batch of a checked ``body`` whose messages have ``ids``: the batch's own properties (and, in
    5.3, its own ``UNIQ_KEY``), then the size check of the whole as a message."""
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
