"""The result of a send: ``SendStatus``, ``SendResult`` and ``MQClientAPIImpl.processSendResponse``.

``processSendResponse`` (4.9.8 and 5.3.3) maps the broker's response code to a status: ``SUCCESS`` (0) is
``SEND_OK``, ``FLUSH_DISK_TIMEOUT`` (10), ``FLUSH_SLAVE_TIMEOUT`` (12) and ``SLAVE_NOT_AVAILABLE`` (11) are
those statuses (the message was stored, but not as safely as asked), and any other code throws
``MQBrokerException(code, remark, addr)``: :class:`rocketroute.errors.BrokerResponseError` here. It reads the
response's ``SendMessageResponseHeader`` ext fields: ``msgId`` (the offset message id), ``queueId``,
``queueOffset``, ``transactionId`` and, in 5.3.3, ``batchUniqId`` and ``recallHandle``; plus the ``MSG_REGION``
(default ``"DefaultRegion"``) and ``TRACE_ON`` (anything but ``"false"`` is on) ext fields.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..._backend import native_twin
from ...errors import BrokerResponseError, NullPointerError
from ...protocol.errors import access_error
from ...protocol.headers.send import java_parse_long
from ...protocol.response_code import ResponseCode
from ...reference.compat import COMPAT_PROFILES, parse_compat
from ...reference.java import java_parse_int

if TYPE_CHECKING:
    from ... import MessageQueue

__all__ = ["DEFAULT_TRACE_REGION_ID", "SendResult", "SendStatus", "result_maker", "send_result_from_response"]

DEFAULT_TRACE_REGION_ID = "DefaultRegion"
"""``MixAll.DEFAULT_TRACE_REGION_ID``: the region of a response without ``MSG_REGION``."""


class SendStatus(str, enum.Enum):
    """``org.apache.rocketmq.client.producer.SendStatus``."""

    SEND_OK = "SEND_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"

    def __str__(self) -> str:
        """The name, as Java prints an enum."""
        return self.value


_STATUS_BY_CODE = {
    ResponseCode.SUCCESS: SendStatus.SEND_OK,
    ResponseCode.FLUSH_DISK_TIMEOUT: SendStatus.FLUSH_DISK_TIMEOUT,
    ResponseCode.FLUSH_SLAVE_TIMEOUT: SendStatus.FLUSH_SLAVE_TIMEOUT,
    ResponseCode.SLAVE_NOT_AVAILABLE: SendStatus.SLAVE_NOT_AVAILABLE,
}


@dataclass(frozen=True, init=False)
class SendResult:
    """``org.apache.rocketmq.client.producer.SendResult``.

    - ``msg_id``: the message's ``UNIQ_KEY`` (a batch: its messages' ids joined by ``","``);
    - ``offset_msg_id``: the broker's ``msgId`` (store host and commit-log offset), ``None`` if absent;
    - ``queue``: a :class:`rocketroute.MessageQueue` of the topic, the broker the request went to and the
      ``queueId`` the broker answered;
    - ``queue_offset``: the message's offset in that queue;
    - ``transaction_id``, ``recall_handle`` (5.3.3): from the response, else ``None``;
    - ``region_id``: ``MSG_REGION``, ``"DefaultRegion"`` when absent or empty;
    - ``trace_on``: ``False`` only when ``TRACE_ON`` is ``"false"``.
    """

    send_status: SendStatus
    msg_id: str | None
    offset_msg_id: str | None
    queue: MessageQueue
    queue_offset: int
    transaction_id: str | None = None
    region_id: str = DEFAULT_TRACE_REGION_ID
    trace_on: bool = True
    recall_handle: str | None = None

    def __init__(
        self,
        send_status: SendStatus,
        msg_id: str | None,
        offset_msg_id: str | None,
        queue: MessageQueue,
        queue_offset: int,
        transaction_id: str | None = None,
        region_id: str = DEFAULT_TRACE_REGION_ID,
        trace_on: bool = True,
        recall_handle: str | None = None,
    ) -> None:
        # the fields straight into the instance's dict: the __init__ of a frozen dataclass sets each one through
        # object.__setattr__, which took 1.5 us of every send (one result per send)
        d = self.__dict__
        d["send_status"] = send_status
        d["msg_id"] = msg_id
        d["offset_msg_id"] = offset_msg_id
        d["queue"] = queue
        d["queue_offset"] = queue_offset
        d["transaction_id"] = transaction_id
        d["region_id"] = region_id
        d["trace_on"] = trace_on
        d["recall_handle"] = recall_handle

    def __str__(self) -> str:
        """``SendResult.toString()`` (5.3.3's, with ``recallHandle``; ``None`` reads ``null``)."""
        return (
            f"SendResult [sendStatus={self.send_status.value}, msgId={_j(self.msg_id)}, "
            f"offsetMsgId={_j(self.offset_msg_id)}, messageQueue={self.queue}, queueOffset={self.queue_offset}, "
            f"recallHandle={_j(self.recall_handle)}]"
        )


def _j(v: object) -> str:
    """Java's string concatenation of a possibly null value."""
    return "null" if v is None else str(v)


_MESSAGE_QUEUE: Any = None


def _message_queue_class() -> Any:
    global _MESSAGE_QUEUE
    if _MESSAGE_QUEUE is None:
        from ... import MessageQueue  # at first use: the top-level package may import this module

        _MESSAGE_QUEUE = MessageQueue
    return _MESSAGE_QUEUE


def send_result_from_response(
    code: int,
    ext_fields: Mapping[str, str] | None,
    *,
    topic: str,
    broker_name: str,
    msg_id: str | None,
    batch_msg_ids: Sequence[str] | None = None,
    remark: str | None = None,
    broker_addr: str | None = None,
    compat: str | None = "5.3",
    request_code: int | None = None,
    message_queue: Any = None,
) -> SendResult:
    """``MQClientAPIImpl.processSendResponse``: the :class:`SendResult` of a send response, or the error.

    - ``code`` not one of 0, 10, 11, 12: raises :class:`~rocketroute.errors.BrokerResponseError` with ``code``,
      ``remark`` and ``broker_addr``, and Java's text on one line ``"CODE: c  DESC: remark BROKER: addr"``
      (``remark`` ``None`` reads ``null``, as Java prints it; ``BROKER`` only with ``broker_addr``); an
      :class:`~rocketroute.errors.AuthenticationError` or :class:`~rocketroute.errors.PermissionDeniedError`
      (naming ``request_code``) when the broker refused the producer's credentials
      (:func:`~rocketroute.protocol.errors.access_error`).
    - ``msg_id``: the message's ``UNIQ_KEY`` (for a batch, 5.3.3's batch ``UNIQ_KEY``). For a batch, pass its
      messages' ids as ``batch_msg_ids``: the result's ``msg_id`` is them joined by ``","``, except in 5.3.3
      when the response carries ``batchUniqId`` (an inner batch), where it stays ``msg_id``.
    - ``message_queue``: the ``MessageQueue`` class of the result's ``queue`` (the producer's backend's; default
      the package's).
    - ``queueId`` / ``queueOffset`` missing: :class:`~rocketroute.errors.NullPointerError` (Java unboxes a null
      ``Integer``/``Long``); not a number: :class:`~rocketroute.errors.NumberFormatError`.
    """
    if compat not in COMPAT_PROFILES:  # already a profile's name: no call
        compat = parse_compat(compat)
    status = _STATUS_BY_CODE.get(code)
    if status is None:
        refused = access_error(code, remark, addr=broker_addr, request_code=request_code)
        if refused is not None:
            raise refused
        raise BrokerResponseError(code, remark, addr=broker_addr)
    fields: Mapping[str, str] = ext_fields if ext_fields is not None else {}
    queue_id_s = fields.get("queueId")
    if queue_id_s is None:
        raise NullPointerError("the send response has no queueId")
    queue_offset_s = fields.get("queueOffset")
    if queue_offset_s is None:
        raise NullPointerError("the send response has no queueOffset")
    queue_id = java_parse_int(queue_id_s)
    queue_offset = java_parse_long(queue_offset_s)
    uniq = msg_id
    if batch_msg_ids is not None and (compat == "4.9" or fields.get("batchUniqId") is None):
        uniq = ",".join(batch_msg_ids)
    region = fields.get("MSG_REGION")
    if not region:
        region = DEFAULT_TRACE_REGION_ID
    return SendResult(
        send_status=status,
        msg_id=uniq,
        offset_msg_id=fields.get("msgId"),
        queue=(message_queue or _message_queue_class())(topic, broker_name, queue_id),
        queue_offset=queue_offset,
        transaction_id=fields.get("transactionId"),
        region_id=region,
        trace_on=fields.get("TRACE_ON") != "false",
        recall_handle=fields.get("recallHandle") if compat == "5.3" else None,
    )


ResultMaker = Callable[[int, Any, Any, "str | None", str], "SendResult | None"]
"""``maker(code, ext_fields, mq, msg_id, topic)``: see :func:`result_maker`."""

_NATIVE_MAKER = native_twin("_SendResultMaker")


def result_maker(compat: str | None, message_queue: Any) -> ResultMaker | None:
    """The native backend's reader of the usual send response, for a producer whose queues are of the class
    ``message_queue``: ``maker(code, ext_fields, mq, msg_id, topic)`` is
    ``send_result_from_response(code, ext_fields, topic=topic, broker_name=mq.broker_name, msg_id=msg_id,
    compat=compat, message_queue=message_queue)`` for a single message whose response stored it with the usual
    numbers, in one native call; ``None`` for any other response, which that function then reads (and raises
    for). ``None`` instead of a maker on the reference backend, or for queues of another class."""
    if _NATIVE_MAKER is None or message_queue is not _message_queue_class():
        return None
    statuses = (SendStatus.SEND_OK, SendStatus.FLUSH_DISK_TIMEOUT, SendStatus.FLUSH_SLAVE_TIMEOUT,
                SendStatus.SLAVE_NOT_AVAILABLE)  # fmt: skip
    maker: ResultMaker = _NATIVE_MAKER(SendResult, statuses, DEFAULT_TRACE_REGION_ID, parse_compat(compat) == "5.3")
    return maker
