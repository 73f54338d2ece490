"""Typed request headers of the remoting protocol: one class per request the client sends, as Java's
``*RequestHeader`` classes, each turning itself into the ext fields of a request (``to_ext_fields(compat)``) or
into the request itself (``request(compat)``).

- ``base``: :class:`RequestHeader`, and :class:`QueueRequestHeader` for the requests about one queue. Their 5.x
  headers extend ``RpcRequestHeader``/``TopicQueueRequestHeader``, which carry the broker's name as ``bname``;
  4.9's have no such field. Here that is one rule: ``bname`` is sent for ``compat="5.3"`` when the broker's
  name is known, never for ``"4.9"``. A ``None`` field is left out, as Java leaves out a null field.
- ``consumer``: pull, the offsets (query, commit, max, search by time), send-back, lock and unlock.
- ``client``: heartbeat, unregister, a group's member list, a topic's route.
- ``send``: the send's :class:`SendMessageRequestHeader`, with ``SEND_MESSAGE_V2``'s short field names.
- ``transaction``: END_TRANSACTION and CHECK_TRANSACTION_STATE.
"""

from __future__ import annotations

from .base import QueueRequestHeader, RequestHeader
from .client import (
    GetConsumerListByGroupRequestHeader,
    GetRouteInfoRequestHeader,
    HeartbeatRequest,
    UnregisterClientRequestHeader,
)
from .consumer import (
    ConsumerSendMsgBackRequestHeader,
    GetMaxOffsetRequestHeader,
    GetMinOffsetRequestHeader,
    LockBatchMqRequest,
    PullMessageRequestHeader,
    QueryConsumerOffsetRequestHeader,
    SearchOffsetRequestHeader,
    UnlockBatchMqRequest,
    UpdateConsumerOffsetRequestHeader,
)
from .send import SendMessageRequestHeader, send_header_v1, send_header_v2
from .transaction import CheckTransactionStateRequestHeader, EndTransactionRequestHeader

__all__ = [
    "CheckTransactionStateRequestHeader",
    "ConsumerSendMsgBackRequestHeader",
    "EndTransactionRequestHeader",
    "GetConsumerListByGroupRequestHeader",
    "GetMaxOffsetRequestHeader",
    "GetMinOffsetRequestHeader",
    "GetRouteInfoRequestHeader",
    "HeartbeatRequest",
    "LockBatchMqRequest",
    "PullMessageRequestHeader",
    "QueryConsumerOffsetRequestHeader",
    "QueueRequestHeader",
    "RequestHeader",
    "SearchOffsetRequestHeader",
    "SendMessageRequestHeader",
    "UnlockBatchMqRequest",
    "UnregisterClientRequestHeader",
    "UpdateConsumerOffsetRequestHeader",
    "send_header_v1",
    "send_header_v2",
]
