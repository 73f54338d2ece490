"""What a send puts on the wire and reads back (Java's ``sendKernelImpl`` with ``MQClientAPIImpl.sendMessage``
and ``processSendResponse``): a message or batch encoded once, with the namespace on its topic; for each attempt
the SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE request to the queue's master broker (a static topic's logic queue to the
broker hosting it); the response as a :class:`SendResult`. The native twins write the properties, the frame and
the result in Rust where they can."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ...errors import SendFailedError
from ...protocol import RemotingCommand, RequestCode
from ...protocol.command import MQ_VERSIONS, EncodedRequest, next_opaque
from ...protocol.headers.send import _native_frame as _native_request_frame
from ...protocol.headers.send import send_header_v2, send_request
from ...selector import as_selector
from ..broker_addrs import BrokerAddrTable
from ..message import _CHECKED_TOPICS, Message
from ..message_const import SYSTEM_PROPERTY_NAMES
from ..message_encode import EncodedBatch, EncodedMessage, _native_send_properties, encode_for_send
from ..message_encode import encode_batch as _encode_batch
from ..message_id import default_counter
from ..namespace import unwrap, wrap
from .send_result import SendResult, SendStatus, result_maker, send_result_from_response
from .settings import ProducerSettings

__all__ = ["EncodedSend", "SendWire"]


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class EncodedSend:
    """One send's wire form: request code, what goes into the header, the body and the ids for the result."""

    __slots__ = ("batch_msg_ids", "body", "code", "flag", "msg_id", "properties", "sys_flag", "topic")

    def __init__(
        self,
        topic: str,
        body: bytes,
        sys_flag: int,
        properties: str,
        msg_id: str | None,
        flag: int,
        code: int = RequestCode.SEND_MESSAGE_V2,
        batch_msg_ids: tuple[str, ...] | None = None,
    ) -> None:
        self.topic = topic
        self.body = body
        self.sys_flag = sys_flag
        self.properties = properties
        self.msg_id = msg_id
        self.flag = flag
        self.code = code
        self.batch_msg_ids = batch_msg_ids

    @classmethod
    def of(cls, topic: str, e: EncodedMessage | EncodedBatch, flag: int) -> EncodedSend:
        """The send of a message or batch encoded by :func:`encode_for_send` / :func:`encode_batch`."""
        if isinstance(e, EncodedBatch):
            batch = RequestCode.SEND_BATCH_MESSAGE
            return cls(topic, e.body, e.sys_flag, e.properties, e.msg_id, flag, batch, e.msg_ids)
        return cls(topic, e.body, e.sys_flag, e.properties, e.msg_id, flag)


class SendWire:
    """The wire side of one producer's sends: ``group`` (with its namespace), ``namespace``, ``compat`` and
    ``settings`` as the producer has them, ``backend`` for the queues of the results. ``broker_addrs`` is the
    address table the requests go by (the client instance's once the producer starts) and ``endpoints`` the static
    topics' logic queues (``topicEndPointsTable``, kept by the producer's route updates)."""

    def __init__(
        self, group: str, namespace: str | None, compat: str, settings: ProducerSettings, backend: Any
    ) -> None:
        self.group, self.namespace, self.compat, self.settings = group, namespace, compat, settings
        self._rr = backend
        self._make_result = result_maker(compat, backend.MessageQueue)
        self._version = MQ_VERSIONS[compat]
        self.broker_addrs = BrokerAddrTable()
        self.endpoints: dict[str, dict[Any, str]] = {}

    def broker_name_of(self, mq: Any) -> str:
        """``getBrokerNameFromMessageQueue``: the broker hosting a static topic's logic queue, else the queue's
        own broker name."""
        endpoints = self.endpoints.get(mq.topic)
        if endpoints:
            name = endpoints.get(mq)
            if name is not None:
                return name
        return mq.broker_name

    def broker_addr(self, broker_name: str) -> str | None:
        return self.broker_addrs.master(broker_name)

    def encode(self, msg: Message, *, transaction: bool = False) -> EncodedSend:
        s = self.settings
        if not isinstance(msg, Message):
            raise TypeError(f"send takes a rocketroute.client.Message, not {type(msg).__name__}")
        if self.namespace:
            msg = self.in_namespace(msg)
        if _native_send_properties is not None and not transaction:
            # encode_for_send's native path written out (every send comes here): the usual message checked and its
            # properties written in one call, else None and encode_for_send does it all (and raises its errors)
            compat = self.compat
            usual = _native_send_properties(
                msg, compat == "4.9", s.compress_msg_body_over_howmuch, s.max_message_size, _CHECKED_TOPICS,
                SYSTEM_PROPERTY_NAMES[compat], default_counter(), None,
            )  # fmt: skip
            if usual is not None:
                return EncodedSend(msg.topic, msg.body, 0, usual[0], usual[1], msg.flag)  # type: ignore[arg-type]
        e = encode_for_send(
            msg,
            compat=self.compat,
            compress_over=s.compress_msg_body_over_howmuch,
            compress_level=s.compress_level,
            compress_type=s.compress_type,
            max_message_size=s.max_message_size,
            transaction_group=self.group if transaction else None,
        )
        return EncodedSend.of(msg.topic or "", e, msg.flag)

    def in_namespace(self, msg: Message) -> Message:
        """``msg.setTopic(withNamespace(msg.getTopic()))``, on a copy: the user's message is left as it was."""
        if not self.namespace or not isinstance(msg, Message) or not isinstance(msg.topic, str):
            return msg
        return dataclasses.replace(msg, topic=wrap(self.namespace, msg.topic))

    def user_selector(self, selector: Any) -> Any:
        """A selector that shows ``selector`` the queues with their plain topic (Java's
        ``parsePublishMessageQueues``) and maps its choice back to the queue as sent."""
        if selector is None or not self.namespace:
            return selector
        chosen_by = as_selector(selector)
        namespace, make_queue = self.namespace, self._rr.MessageQueue

        def select(mqs: Sequence[Any], msg: Any, arg: Any) -> Any:
            shown = [make_queue(unwrap(namespace, q.topic), q.broker_name, q.queue_id) for q in mqs]
            mq = chosen_by.select(shown, msg, arg)
            for q, sent in zip(shown, mqs, strict=True):
                if q == mq:
                    return sent
            return mq

        return select

    def encode_batch(self, msgs: Iterable[Message]) -> EncodedSend:
        msgs = [self.in_namespace(m) for m in msgs]
        e = _encode_batch(msgs, compat=self.compat, max_message_size=self.settings.max_message_size)
        return EncodedSend.of(e.topic, e, 0)

    def request(
        self, enc: EncodedSend, mq: Any, language: str | None = None, flag: int = 0
    ) -> tuple[str, RemotingCommand | EncodedRequest]:
        """The request of one attempt and the address it goes to. With ``language`` (the client's
        :meth:`~rocketroute.net.transport.AsyncRemotingClient.frame_language`) the request is encoded now, with
        ``flag`` (``RPC_ONEWAY`` for a oneway send) in it; else it is a command the client encodes (and signs)."""
        # broker_name_of and broker_addr written out (every attempt of every send comes here)
        broker_name = self.broker_name_of(mq) if self.endpoints else mq.broker_name
        addr = self.broker_addrs.master(broker_name)
        if addr is None:
            raise SendFailedError(f"The broker[{broker_name}] not exist")
        s = self.settings
        if language is not None:
            # send_request written out (every attempt comes here): the frame in one native call, else (the
            # reference backend, or what only the Python encoder writes) send_request encodes it
            opaque = next_opaque()
            args = (
                enc.code, opaque, flag, language, self._version, self.group, enc.topic, s.create_topic_key,
                s.default_topic_queue_nums, mq.queue_id, enc.sys_flag, time.time_ns() // 1_000_000, enc.flag,
                enc.properties, bool(s.unit_mode), enc.batch_msg_ids is not None,
                broker_name if self.compat == "5.3" else None, enc.body,
            )  # fmt: skip
            frame = _native_request_frame(*args) if _native_request_frame is not None else None
            if frame is None:
                return addr, send_request(*args)
            body = enc.body
            return addr, EncodedRequest(enc.code, opaque, frame, len(body) if body else 0)
        fields = send_header_v2(
            producer_group=self.group,
            topic=enc.topic,
            queue_id=mq.queue_id,
            born_timestamp=_now_ms(),
            sys_flag=enc.sys_flag,
            flag=enc.flag,
            properties=enc.properties,
            default_topic=s.create_topic_key,
            default_topic_queue_nums=s.default_topic_queue_nums,
            unit_mode=bool(s.unit_mode),
            batch=enc.batch_msg_ids is not None,
            broker_name=broker_name if self.compat == "5.3" else None,
            compat=self.compat,
        )
        # send_header_v2 gives strings only: the command is built as request() builds it, without its conversion
        return addr, RemotingCommand(enc.code, next_opaque(), 0, "PYTHON", self._version, None, fields, enc.body)

    def result(self, enc: EncodedSend, mq: Any, addr: str, response: RemotingCommand) -> SendResult:
        make = self._make_result
        if make is not None and enc.batch_msg_ids is None and not self.endpoints:
            topic = enc.topic if not self.namespace else unwrap(self.namespace, enc.topic)
            result = make(response.code, response.ext_fields, mq, enc.msg_id, topic)
            if result is not None:
                return result
        return send_result_from_response(
            response.code,
            response.ext_fields,
            topic=unwrap(self.namespace, enc.topic),
            broker_name=self.broker_name_of(mq),
            msg_id=enc.msg_id,
            batch_msg_ids=enc.batch_msg_ids,
            remark=response.remark,
            broker_addr=addr,
            compat=self.compat,
            request_code=enc.code,
            message_queue=self._rr.MessageQueue,
        )

    def retry_result(self) -> Callable[[SendResult], bool] | None:
        if not self.settings.retry_another_broker_when_not_store_ok:
            return None
        return lambda r: r.send_status is not SendStatus.SEND_OK
