"""The requests a client makes of its brokers, one async method each (Java's ``MQClientAPIImpl``): the header
built, the request sent on the async remoting client, the answer turned into its outcome (an error answer
raises the documented error, :func:`~rocketroute.protocol.errors.response_error`'s mapping).

Each method takes the broker's address (the caller picks it: the master, the subscribe node, the store host) and
its timeout. Three requests keep paths of their own, for speed: a send (``producer/send_wire.py``, its frame
built in Rust), a pull (``consumer/pull.py``, its response decoded in Rust) and END_TRANSACTION (oneway from
the producer's check threads, ``producer/transaction.py``). A name server's request is the name server
client's (``namesrv.py``: it picks the name server and fails over)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..net.transport import AsyncRemotingClient
from ..protocol import RemotingCommand
from ..protocol.errors import RemotingCommandError, response_error
from ..protocol.headers import (
    ConsumerSendMsgBackRequestHeader,
    GetConsumerListByGroupRequestHeader,
    GetMaxOffsetRequestHeader,
    GetMinOffsetRequestHeader,
    HeartbeatRequest,
    LockBatchMqRequest,
    QueryConsumerOffsetRequestHeader,
    SearchOffsetRequestHeader,
    UnlockBatchMqRequest,
    UnregisterClientRequestHeader,
    UpdateConsumerOffsetRequestHeader,
)
from ..protocol.message_queue_json import message_queue_fields
from ..protocol.response_code import ResponseCode

__all__ = ["BrokerAPI", "send_back_request"]


class BrokerAPI:
    """The broker requests of a client, sent on ``remoting`` (an ``AsyncRemotingClient``: call from its loop)
    with headers as ``compat`` (``"5.3"`` or ``"4.9"``) writes them."""

    def __init__(self, remoting: AsyncRemotingClient, compat: str) -> None:
        self.remoting = remoting
        self.compat = compat

    # -- the client's registration -----------------------------------------------------------------------------

    async def heartbeat(self, addr: str, body: bytes, timeout_ms: int) -> None:
        """HEART_BEAT with ``body`` (``HeartbeatData`` as JSON): raises a refusal
        (:class:`~rocketroute.errors.AccessDeniedError` for the credentials) or a failure."""
        request = HeartbeatRequest(heartbeat_data=body).request(self.compat)
        await self.remoting.invoke_checked(addr, request, timeout_ms)

    async def unregister_client(
        self, addr: str, client_id: str, *, producer_group: str | None, consumer_group: str | None, timeout_ms: int
    ) -> None:
        """UNREGISTER_CLIENT: a group of ``client_id`` leaves (the answer is not looked at, as Java's)."""
        request = UnregisterClientRequestHeader(
            client_id=client_id, producer_group=producer_group, consumer_group=consumer_group
        ).request(self.compat)
        await self.remoting.invoke(addr, request, timeout_ms)

    async def consumer_ids(self, addr: str, group: str, timeout_ms: int) -> list[str]:
        """GET_CONSUMER_LIST_BY_GROUP: the client ids of ``group`` the broker knows (empty when it knows none)."""
        request = GetConsumerListByGroupRequestHeader(consumer_group=group).request(self.compat)
        response = await self.remoting.invoke_checked(addr, request, timeout_ms)
        return [str(c) for c in json.loads(response.body or b"{}").get("consumerIdList") or ()]

    # -- offsets -----------------------------------------------------------------------------------------------

    async def query_consumer_offset(self, addr: str, group: str, mq: Any, timeout_ms: int) -> int | None:
        """QUERY_CONSUMER_OFFSET: the group's committed offset of ``mq``; ``None`` when the broker has none
        (QUERY_NOT_FOUND: Java's ``OffsetNotFoundException``)."""
        request = QueryConsumerOffsetRequestHeader(
            consumer_group=group, topic=mq.topic, queue_id=mq.queue_id, broker_name=mq.broker_name
        ).request(self.compat)
        response = await self.remoting.invoke(addr, request, timeout_ms)
        if response.code == ResponseCode.QUERY_NOT_FOUND:
            return None
        if response.code != ResponseCode.SUCCESS:
            raise response_error(response.code, response.remark, addr, request_code=request.code)
        return _offset(response, "QUERY_CONSUMER_OFFSET", addr)

    async def update_consumer_offset(
        self, addr: str, group: str, mq: Any, offset: int, *, oneway: bool, timeout_ms: int
    ) -> None:
        """UPDATE_CONSUMER_OFFSET: commit ``offset`` of ``mq``; ``oneway`` (the periodic commit, as Java's) or
        acknowledged."""
        request = UpdateConsumerOffsetRequestHeader(
            consumer_group=group, topic=mq.topic, queue_id=mq.queue_id, commit_offset=offset, broker_name=mq.broker_name
        ).request(self.compat)
        if oneway:
            await self.remoting.invoke_oneway(addr, request)
        else:
            await self.remoting.invoke_checked(addr, request, timeout_ms)

    async def max_offset(self, addr: str, mq: Any, timeout_ms: int) -> int:
        """GET_MAX_OFFSET: the offset after the last message of ``mq``."""
        header = GetMaxOffsetRequestHeader(topic=mq.topic, queue_id=mq.queue_id, broker_name=mq.broker_name)
        response = await self.remoting.invoke_checked(addr, header.request(self.compat), timeout_ms)
        return _offset(response, "GET_MAX_OFFSET", addr)

    async def min_offset(self, addr: str, mq: Any, timeout_ms: int) -> int:
        """GET_MIN_OFFSET: the offset of the oldest message of ``mq`` the broker still stores."""
        header = GetMinOffsetRequestHeader(topic=mq.topic, queue_id=mq.queue_id, broker_name=mq.broker_name)
        response = await self.remoting.invoke_checked(addr, header.request(self.compat), timeout_ms)
        return _offset(response, "GET_MIN_OFFSET", addr)

    async def search_offset(self, addr: str, mq: Any, timestamp_ms: int, timeout_ms: int) -> int:
        """SEARCH_OFFSET_BY_TIMESTAMP: the offset of ``mq``'s first message stored at or after ``timestamp_ms``."""
        header = SearchOffsetRequestHeader(
            topic=mq.topic, queue_id=mq.queue_id, timestamp=timestamp_ms, broker_name=mq.broker_name
        )
        response = await self.remoting.invoke_checked(addr, header.request(self.compat), timeout_ms)
        return _offset(response, "SEARCH_OFFSET_BY_TIMESTAMP", addr)

    # -- consumption -------------------------------------------------------------------------------------------

    async def send_back(self, addr: str, request: RemotingCommand, timeout_ms: int) -> None:
        """CONSUMER_SEND_MSG_BACK (built by :func:`send_back_request`): the broker stores the message again in
        its retry topic, or its dead-letter queue."""
        await self.remoting.invoke_checked(addr, request, timeout_ms)

    async def lock_batch(
        self, addr: str, group: str, client_id: str, mqs: Iterable[Any], timeout_ms: int
    ) -> list[tuple[str, str, int]]:
        """LOCK_BATCH_MQ: lock ``mqs`` for ``client_id`` on their broker; the ``(topic, broker_name, queue_id)``
        of those it locked."""
        request = LockBatchMqRequest.of(group, client_id, list(mqs)).request(self.compat)
        response = await self.remoting.invoke_checked(addr, request, timeout_ms)
        locked = json.loads(response.body or b"{}").get("lockOKMQSet") or []
        return [message_queue_fields(m) for m in locked]

    async def unlock_batch(self, addr: str, group: str, client_id: str, mqs: Iterable[Any], timeout_ms: int) -> None:
        """UNLOCK_BATCH_MQ: give up ``client_id``'s locks of ``mqs`` on their broker."""
        request = UnlockBatchMqRequest.of(group, client_id, list(mqs)).request(self.compat)
        await self.remoting.invoke_checked(addr, request, timeout_ms)


def send_back_request(
    msg: Any, *, group: str, delay_level: int, origin_topic: str, max_reconsume_times: int, compat: str
) -> RemotingCommand:
    """CONSUMER_SEND_MSG_BACK for ``msg`` (a pulled ``MessageExt``), as :meth:`BrokerAPI.send_back` sends it and
    a listener thread's blocking send-back writes it."""
    return ConsumerSendMsgBackRequestHeader(
        offset=msg.commit_log_offset,
        group=group,
        delay_level=delay_level,
        origin_msg_id=msg.msg_id,
        origin_topic=origin_topic,
        max_reconsume_times=max_reconsume_times,
        broker_name=msg.broker_name,
    ).request(compat)


def _offset(response: RemotingCommand, what: str, addr: str) -> int:
    try:
        return int(response.ext_fields["offset"])
    except (KeyError, ValueError):
        raise RemotingCommandError(response.code, f"{what} answered no offset", addr) from None
