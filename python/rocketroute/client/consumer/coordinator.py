"""The consumer's coordination with the cluster: routes, heartbeats and the requests brokers send it
(NOTIFY_CONSUMER_IDS_CHANGED, GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY): ``MQClientInstance``'s part
of ``DefaultMQPushConsumer``.

A part of the :class:`~rocketroute.client.consumer.Consumer`, which builds one
:class:`Coordinator` (its ``_coordinator``): it works on the consumer's state (queues,
offsets, connections, set up in ``ConsumerBase.__init__`` and ``start``) through its ``consumer``, and asks the other
parts through it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import AccessDeniedError
from ...log_repeats import REPEATS
from ...protocol import RemotingCommand
from ...protocol.response_code import ResponseCode
from ..message_decode import decode_messages, reset_retry_topic
from ..namespace import unwrap
from ._shared import _DIRECT_RESULTS, _now_ms, log
from .listener import (
    ConsumeConcurrentlyContext,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyContext,
    ConsumeOrderlyStatus,
)
from .running_info import CLIENT_VERSION_DESC, encode_running_info, python_stacks, settings_properties
from .subscription import (
    ConsumerData,
    retry_topic,
)

__all__ = ["Coordinator"]

if TYPE_CHECKING:
    from .base import ConsumerBase


class Coordinator:
    """See the module."""

    def __init__(self, consumer: ConsumerBase[Any]) -> None:
        self.consumer = consumer

    def master_addr(self, broker_name: str) -> str | None:
        return self.consumer._broker_addrs.master(broker_name)

    @property
    def routes(self) -> dict[str, Any]:
        """The instance's route table (empty before start)."""
        return {} if self.consumer._instance is None else self.consumer._instance.routes

    async def refresh_routes(self) -> None:
        """The subscribed topics' routes, fetched now (at start, and ``refresh_routes()``), in a round of the
        instance's (:meth:`~rocketroute.client.instance.ClientInstance.refresh_routes`: offline brokers forgotten,
        a heartbeat at once to a broker that came)."""
        instance = self.consumer._instance
        assert instance is not None
        await instance.refresh_routes(list(self.consumer._subs), self.consumer.settings.mq_client_api_timeout)

    async def refresh_route(self, topic: str) -> bool:
        """``updateTopicRouteInfoFromNameServer`` for one topic, through the instance: True when a route was
        found."""
        assert self.consumer._instance is not None
        try:
            found = await self.consumer._instance.update_route(topic, self.consumer.settings.mq_client_api_timeout)
        except Exception as e:  # the name servers down: try again next round
            REPEATS.log(log, logging.WARNING, "route refresh of %s failed: %s", topic, e, about=topic)
            return False
        if not found and topic != retry_topic(self.consumer.group):
            group = self.consumer.group
            REPEATS.log(log, logging.WARNING, "no route for topic %s, subscribed by consumer group %s", topic, group)
        return found

    # -- what the client instance asks of its clients ----------------------------------------------------------

    def route_topics(self) -> list[str]:
        """The topics whose routes the instance keeps for this consumer: its subscriptions."""
        return list(self.consumer._subs)

    def takes_route(self, topic: str) -> bool:
        """Whether a changed route of ``topic`` is handed to this consumer: one of its subscriptions."""
        return topic in self.consumer._subs

    def needs_route(self, topic: str) -> bool:
        """``isSubscribeTopicNeedUpdate``: a subscribed topic without subscribe info yet."""
        return topic in self.consumer._subs and topic not in self.consumer._sub_info

    def on_route(self, topic: str, route: Any, *, from_default: bool) -> None:
        """``updateTopicSubscribeInfo`` (on the loop): the queues to read of a subscribed topic's new route."""
        if topic not in self.consumer._subs:
            return
        queues = list(route.subscribe_queues(topic, self.consumer.compat))
        old = self.consumer._sub_info.get(topic)
        self.consumer._sub_info[topic] = queues
        if old is not None and old != queues:
            log.info("route of %s changed: %d queues to read", topic, len(queues))

    def consumer_data(self) -> ConsumerData:
        return ConsumerData(
            self.consumer.group,
            list(self.consumer._subs.values()),
            message_model=self.consumer.model,
            consume_from_where=self.consumer.settings.consume_from_where,
            unit_mode=False,  # refused unless Java's default (ConsumerSettings.NOT_SUPPORTED)
        )

    async def heartbeat_all(self) -> list[AccessDeniedError]:
        """``sendHeartbeatToAllBroker`` of this consumer's instance: every known broker node (masters and slaves)
        gets one heartbeat carrying every group of the instance. Returns the brokers' refusals of the
        credentials."""
        if self.consumer._instance is None:
            return []
        return await self.consumer._instance.heartbeat_all(self.consumer.settings.mq_client_api_timeout)

    def on_notify(self, cmd: RemotingCommand, addr: str) -> None:
        """NOTIFY_CONSUMER_IDS_CHANGED from a broker: rebalance now (``rebalanceImmediately``)."""
        if (
            cmd.ext_fields.get("consumerGroup") in (None, self.consumer.group)
            and self.consumer._rebalance_wakeup is not None
        ):
            log.debug("consumer ids of %s changed (told by %s): rebalancing", self.consumer.group, addr)
            self.consumer._rebalance_wakeup.set()
        return None

    def other_group(self, cmd: RemotingCommand) -> RemotingCommand | None:
        """Java's answer to an admin request about a group this consumer is not in, or None for its own."""
        group = cmd.ext_fields.get("consumerGroup")
        if group == self.consumer.group:
            return None
        return RemotingCommand.response_to(
            cmd, ResponseCode.SYSTEM_ERROR, f"The Consumer Group <{group}> not exist in this consumer"
        )

    def on_running_info(self, cmd: RemotingCommand, addr: str) -> RemotingCommand:
        """GET_CONSUMER_RUNNING_INFO, forwarded by a broker for an admin tool: Java's ``ConsumerRunningInfo`` of
        this member (:mod:`.running_info`). Runs on the remoting loop, which also owns the queue table."""
        if (refused := self.other_group(cmd)) is not None:
            return refused
        properties = settings_properties(self.consumer.settings.as_dict())
        properties.update(
            consumerGroup=self.consumer.group,
            messageModel=self.consumer.model,
            instanceName=self.consumer.instance_name,
            namesrvAddr=";".join(self.consumer.namesrv_addrs),
            allocateMessageQueueStrategy=str(
                getattr(self.consumer.strategy, "name", type(self.consumer.strategy).__name__)
            ),
            PROP_CONSUMEORDERLY=str(self.consumer.orderly).lower(),
            PROP_THREADPOOL_CORE_SIZE=str(self.consumer.settings.consume_thread_min),
            PROP_CONSUMER_START_TIMESTAMP=str(self.consumer._started_ms),
            PROP_NAMESERVER_ADDR=";".join(self.consumer.namesrv_addrs),
            PROP_CONSUME_TYPE="CONSUME_PASSIVELY",
            PROP_CLIENT_VERSION=CLIENT_VERSION_DESC[self.consumer.compat],
        )
        assert self.consumer._offsets is not None
        queues = [(mq, pq.info(self.consumer._offsets.read_memory(mq))) for mq, pq in list(self.consumer._pqs.items())]
        jstack = python_stacks() if cmd.ext_fields.get("jstackEnable") == "true" else None
        body = encode_running_info(properties, [sub.to_json() for sub in self.consumer._subs.values()], queues, jstack)
        return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=body)

    def on_consume_directly(self, cmd: RemotingCommand, addr: str) -> Any:
        """CONSUME_MESSAGE_DIRECTLY, forwarded by a broker for ``mqadmin consumeMessage`` on one member: the
        listener consumes the message in the body once more, on the consume pool (nothing is committed or sent
        back), and the answer is Java's ``ConsumeMessageDirectlyResult``, written when the listener returns."""
        if (refused := self.other_group(cmd)) is not None:
            return refused
        try:
            (msg,) = decode_messages(
                cmd.body or b"", compat=self.consumer.compat, max_body_size=self.consumer.settings.max_body_size
            )
        except Exception as e:
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, f"the message cannot be decoded: {e}")
        if self.consumer._bind_loop is not None:  # an asyncio-native consumer: its listener is awaited here
            broker_name = cmd.ext_fields.get("brokerName") or msg.broker_name

            async def answer_on_loop() -> RemotingCommand:
                body = await self.consume_directly_async(msg, broker_name)
                return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=body)

            return answer_on_loop()
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[bytes] = loop.create_future()

        def consume() -> None:
            def settle(outcome: Callable[[], None]) -> None:
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for the answer
                    loop.call_soon_threadsafe(lambda: answered.done() or outcome())

            try:
                body = self.consume_directly(msg, cmd.ext_fields.get("brokerName") or msg.broker_name)
            except Exception as e:  # answered as SYSTEM_ERROR, never left waiting
                error = e
                settle(lambda: answered.set_exception(error))
            else:
                settle(lambda: answered.set_result(body))

        assert self.consumer._executor is not None
        if not self.consumer._executor.submit(consume):
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, "the consumer is shutting down")

        async def answer() -> RemotingCommand:
            return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=await answered)

        return answer()

    def consume_directly(self, msg: Any, broker_name: str) -> bytes:
        """``consumeMessageDirectly`` of the consume services: the listener's answer as a ``CMResult``."""
        context = self.direct_context(msg, broker_name)
        begin = _now_ms()
        assert self.consumer.listener is not None
        try:
            status = self.consumer.listener([msg], context)
        except Exception as e:
            return self.direct_result(context, None, e, begin)
        return self.direct_result(context, status, None, begin)

    async def consume_directly_async(self, msg: Any, broker_name: str) -> bytes:
        """:meth:`consume_directly` for an asyncio-native consumer: its listener (or the ``async for`` that
        reads it) is awaited on the loop."""
        context = self.direct_context(msg, broker_name)
        begin = _now_ms()
        try:
            feed = self.consumer._feed
            if feed is not None:
                status = await feed.deliver([msg], context)
            else:
                assert self.consumer.listener is not None
                status = await self.consumer.listener([msg], context)
        except Exception as e:
            return self.direct_result(context, None, e, begin)
        return self.direct_result(context, status, None, begin)

    def direct_context(self, msg: Any, broker_name: str) -> Any:
        msg.broker_name = broker_name
        mq = self.consumer._rr.MessageQueue(msg.topic, broker_name, msg.queue_id)
        context: Any = ConsumeOrderlyContext(mq) if self.consumer.orderly else ConsumeConcurrentlyContext(mq)
        reset_retry_topic(msg, self.consumer.group)
        msg.topic = unwrap(self.consumer.namespace, msg.topic)
        return context

    def direct_result(self, context: Any, status: Any, error: BaseException | None, begin: int) -> bytes:
        """Java's ``ConsumeMessageDirectlyResult`` of a listener's ``status`` (or the ``error`` it raised)."""
        remark = None
        if error is not None:
            result, remark = "CR_THROW_EXCEPTION", f"{type(error).__name__}: {error}"
        else:
            known = isinstance(status, (ConsumeConcurrentlyStatus, ConsumeOrderlyStatus))
            result = _DIRECT_RESULTS.get(status, "CR_RETURN_NULL") if known else "CR_RETURN_NULL"
        fields = {
            "autoCommit": bool(getattr(context, "auto_commit", True)),
            "consumeResult": result,
            "order": self.consumer.orderly,
            "remark": remark,
            "spentTimeMills": _now_ms() - begin,
        }
        return json.dumps(fields, separators=(",", ":")).encode()
