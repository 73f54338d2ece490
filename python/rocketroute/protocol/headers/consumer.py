"""The headers of a consumer's requests about one queue: pull, offsets (query, commit, max, search by time),
send-back; and the orderly consumer's lock and unlock, whose queues travel in the body."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from ..codes import RequestCode
from ..command import RemotingCommand
from ..message_queue_json import message_queue_json
from .base import QueueRequestHeader, RequestHeader

__all__ = [
    "FLAG_LITE_PULL_MESSAGE",
    "ConsumerSendMsgBackRequestHeader",
    "GetMaxOffsetRequestHeader",
    "GetMinOffsetRequestHeader",
    "LockBatchMqRequest",
    "PullMessageRequestHeader",
    "QueryConsumerOffsetRequestHeader",
    "SearchOffsetRequestHeader",
    "UnlockBatchMqRequest",
    "UpdateConsumerOffsetRequestHeader",
]

FLAG_LITE_PULL_MESSAGE = 0x10
"""``PullSysFlag``'s lite pull bit (the other flags are the client's, in ``client/consumer/pull.py``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PullMessageRequestHeader(QueueRequestHeader):
    """PULL_MESSAGE (``PullMessageRequestHeader``). ``subscription`` is sent only with ``FLAG_SUBSCRIPTION`` in
    ``sys_flag`` (the caller leaves it ``None`` otherwise); ``max_msg_bytes`` exists in 5.x only. A 5.x lite pull
    (the lite pull flag in ``sys_flag``) goes out as LITE_PULL_MESSAGE (361), as Java 5.x's
    ``MQClientAPIImpl.pullMessage`` sends it (its brokers run those on an executor of their own, and may refuse them
    with ``litePullMessageEnable=false``); 4.9's lite pulls are PULL_MESSAGE."""

    CODE: ClassVar[int] = RequestCode.PULL_MESSAGE
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("consumer_group", "consumerGroup"),
        ("topic", "topic"),
        ("queue_id", "queueId"),
        ("queue_offset", "queueOffset"),
        ("max_msg_nums", "maxMsgNums"),
        ("sys_flag", "sysFlag"),
        ("commit_offset", "commitOffset"),
        ("suspend_timeout_millis", "suspendTimeoutMillis"),
        ("subscription", "subscription"),
        ("sub_version", "subVersion"),
        ("expression_type", "expressionType"),
    )

    consumer_group: str
    topic: str
    queue_id: int
    queue_offset: int
    max_msg_nums: int
    sys_flag: int
    commit_offset: int
    suspend_timeout_millis: int
    sub_version: int
    expression_type: str
    subscription: str | None = None
    max_msg_bytes: int | None = None

    def to_ext_fields(self, compat: str) -> dict[str, Any]:
        ext = QueueRequestHeader.to_ext_fields(self, compat)
        if compat == "5.3" and self.max_msg_bytes is not None:
            ext["maxMsgBytes"] = self.max_msg_bytes
        return ext

    def request(self, compat: str) -> RemotingCommand:
        cmd = QueueRequestHeader.request(self, compat)
        if compat == "5.3" and self.sys_flag & FLAG_LITE_PULL_MESSAGE:
            cmd.code = RequestCode.LITE_PULL_MESSAGE
        return cmd


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryConsumerOffsetRequestHeader(QueueRequestHeader):
    """QUERY_CONSUMER_OFFSET: the group's committed offset of one queue."""

    CODE: ClassVar[int] = RequestCode.QUERY_CONSUMER_OFFSET
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("consumer_group", "consumerGroup"),
        ("topic", "topic"),
        ("queue_id", "queueId"),
    )

    consumer_group: str
    topic: str
    queue_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateConsumerOffsetRequestHeader(QueueRequestHeader):
    """UPDATE_CONSUMER_OFFSET: commit the group's offset of one queue."""

    CODE: ClassVar[int] = RequestCode.UPDATE_CONSUMER_OFFSET
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("consumer_group", "consumerGroup"),
        ("topic", "topic"),
        ("queue_id", "queueId"),
        ("commit_offset", "commitOffset"),
    )

    consumer_group: str
    topic: str
    queue_id: int
    commit_offset: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GetMaxOffsetRequestHeader(QueueRequestHeader):
    """GET_MAX_OFFSET: one queue's max offset."""

    CODE: ClassVar[int] = RequestCode.GET_MAX_OFFSET
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("topic", "topic"), ("queue_id", "queueId"))

    topic: str
    queue_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GetMinOffsetRequestHeader(QueueRequestHeader):
    """GET_MIN_OFFSET: one queue's min offset (its oldest message still stored)."""

    CODE: ClassVar[int] = RequestCode.GET_MIN_OFFSET
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("topic", "topic"), ("queue_id", "queueId"))

    topic: str
    queue_id: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchOffsetRequestHeader(QueueRequestHeader):
    """SEARCH_OFFSET_BY_TIMESTAMP: the offset of one queue's first message stored at or after ``timestamp`` (ms)."""

    CODE: ClassVar[int] = RequestCode.SEARCH_OFFSET_BY_TIMESTAMP
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("topic", "topic"),
        ("queue_id", "queueId"),
        ("timestamp", "timestamp"),
    )

    topic: str
    queue_id: int
    timestamp: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerSendMsgBackRequestHeader(QueueRequestHeader):
    """CONSUMER_SEND_MSG_BACK: a message the listener failed goes back to the broker, for a retry or the DLQ."""

    CODE: ClassVar[int] = RequestCode.CONSUMER_SEND_MSG_BACK
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("offset", "offset"),
        ("group", "group"),
        ("delay_level", "delayLevel"),
        ("origin_msg_id", "originMsgId"),
        ("origin_topic", "originTopic"),
        ("unit_mode", "unitMode"),
        ("max_reconsume_times", "maxReconsumeTimes"),
    )

    offset: int
    group: str
    delay_level: int
    origin_msg_id: str | None
    origin_topic: str | None
    max_reconsume_times: int
    unit_mode: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class LockBatchMqRequest(RequestHeader):
    """LOCK_BATCH_MQ: no header; the body is ``LockBatchRequestBody`` (group, client id, the queues)."""

    CODE: ClassVar[int] = RequestCode.LOCK_BATCH_MQ

    consumer_group: str
    client_id: str
    mqs: tuple[Any, ...]
    only_this_broker: bool = False

    @classmethod
    def of(cls, consumer_group: str, client_id: str, mqs: Iterable[Any]) -> LockBatchMqRequest:
        return cls(consumer_group=consumer_group, client_id=client_id, mqs=tuple(mqs))

    def body(self, compat: str) -> bytes:
        """``LockBatchRequestBody`` as ``compat``'s client writes it with fastjson: properties in name order,
        compact, each queue as :func:`~rocketroute.protocol.message_queue_json.message_queue_json` writes one;
        ``onlyThisBroker`` from 5.x on (4.9's class has no such field). ``tests/protocol/test_bodies_java.py``
        holds it to the real Java classes' bytes."""
        mqs = ",".join(message_queue_json(m) for m in self.mqs)
        head = f'{{"clientId":{json.dumps(self.client_id)},"consumerGroup":{json.dumps(self.consumer_group)},'
        if compat == "4.9":
            return f'{head}"mqSet":[{mqs}]}}'.encode()
        return f'{head}"mqSet":[{mqs}],"onlyThisBroker":{"true" if self.only_this_broker else "false"}}}'.encode()


@dataclass(frozen=True, slots=True, kw_only=True)
class UnlockBatchMqRequest(LockBatchMqRequest):
    """UNLOCK_BATCH_MQ: the same body as a lock (``UnlockBatchRequestBody``)."""

    CODE: ClassVar[int] = RequestCode.UNLOCK_BATCH_MQ
