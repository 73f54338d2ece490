"""CONSUME_MESSAGE_DIRECTLY (``consumeMessageDirectly`` of Java's consume services): a broker forwards
``mqadmin consumeMessage`` for one member, whose listener consumes the message in the request's body once more
(nothing is committed or sent back); the answer is Java's ``ConsumeMessageDirectlyResult``, written when the
listener returns.

A part of the consumer, built when it starts (:class:`~.base.ConsumerBase`) beside its consume service, with what
it needs in its constructor: the listener (or, for an asyncio-native consumer read by ``async for``, its feed) and
the runner it runs on (:mod:`.runner`), as a consume call does."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from ...protocol import RemotingCommand
from ...protocol.response_code import ResponseCode
from ..message_decode import decode_messages, reset_retry_topic
from ..namespace import unwrap
from ._shared import _now_ms
from .listener import (
    ConsumeConcurrentlyContext,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyContext,
    ConsumeOrderlyStatus,
)
from .runner import PoolClosedError

__all__ = ["DirectConsumer"]

if TYPE_CHECKING:
    from .feed import Feed
    from .runner import ListenerRunner
    from .settings import ConsumerSettings

DIRECT_RESULTS = {
    ConsumeConcurrentlyStatus.CONSUME_SUCCESS: "CR_SUCCESS",
    ConsumeConcurrentlyStatus.RECONSUME_LATER: "CR_LATER",
    ConsumeOrderlyStatus.SUCCESS: "CR_SUCCESS",
    ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT: "CR_LATER",
}
"""A listener's status -> ``CMResult`` of ``ConsumeMessageDirectlyResult``; anything else is ``CR_RETURN_NULL``."""


class DirectConsumer:
    """See the module. ``feed``: the ``async for`` feed of an asyncio-native consumer without a listener (None
    otherwise); ``message_queue``: the backend's ``MessageQueue``, the context's queue."""

    def __init__(
        self,
        group: str,
        settings: ConsumerSettings,
        compat: str,
        namespace: str | None,
        listener: Callable[..., Any] | None,
        *,
        orderly: bool,
        runner: ListenerRunner,
        feed: Feed | None,
        message_queue: Callable[..., Any],
    ) -> None:
        self.group = group
        self.settings = settings
        self.compat = compat
        self.namespace = namespace
        self.listener = listener
        self.orderly = orderly
        self.runner = runner
        self.feed = feed
        self.message_queue = message_queue

    def answer(self, cmd: RemotingCommand) -> RemotingCommand | Coroutine[Any, Any, RemotingCommand]:
        """The response to ``cmd`` when its message cannot be decoded, else a coroutine that answers it once the
        listener returned (SYSTEM_ERROR when the consumer is shutting down; a fault past the listener is raised)."""
        try:
            (msg,) = decode_messages(cmd.body or b"", compat=self.compat, max_body_size=self.settings.max_body_size)
        except Exception as e:
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, f"the message cannot be decoded: {e}")
        broker_name = cmd.ext_fields.get("brokerName") or msg.broker_name

        async def answer() -> RemotingCommand:
            try:
                body = await self.runner.run(self.consume, msg, broker_name)
            except PoolClosedError as e:
                return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, str(e))
            return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=body)

        return answer()

    async def consume(self, msg: Any, broker_name: str) -> bytes:
        """The listener's answer to ``msg`` (or the ``async for``'s that reads the feed), as a
        ``ConsumeMessageDirectlyResult``."""
        context = self.context(msg, broker_name)
        begin = _now_ms()
        try:
            feed = self.feed
            if feed is not None:
                status = await feed.deliver([msg], context)
            else:
                assert self.listener is not None
                status = await self.runner.call(self.listener, [msg], context)
        except Exception as e:
            return self.result(context, None, e, begin)
        return self.result(context, status, None, begin)

    def context(self, msg: Any, broker_name: str) -> Any:
        """The listener's context, and the message as a listener sees it (its retry topic and namespace
        undone: ``resetRetryAndNamespace``)."""
        msg.broker_name = broker_name
        mq = self.message_queue(msg.topic, broker_name, msg.queue_id)
        context: Any = ConsumeOrderlyContext(mq) if self.orderly else ConsumeConcurrentlyContext(mq)
        reset_retry_topic(msg, self.group)
        msg.topic = unwrap(self.namespace, msg.topic)
        return context

    def result(self, context: Any, status: Any, error: BaseException | None, begin: int) -> bytes:
        """Java's ``ConsumeMessageDirectlyResult`` of a listener's ``status`` (or the ``error`` it raised)."""
        remark = None
        if error is not None:
            result, remark = "CR_THROW_EXCEPTION", f"{type(error).__name__}: {error}"
        else:
            known = isinstance(status, (ConsumeConcurrentlyStatus, ConsumeOrderlyStatus))
            result = DIRECT_RESULTS.get(status, "CR_RETURN_NULL") if known else "CR_RETURN_NULL"
        fields = {
            "autoCommit": bool(getattr(context, "auto_commit", True)),
            "consumeResult": result,
            "order": self.orderly,
            "remark": remark,
            "spentTimeMills": _now_ms() - begin,
        }
        return json.dumps(fields, separators=(",", ":")).encode()
