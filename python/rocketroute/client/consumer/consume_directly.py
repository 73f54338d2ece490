"""CONSUME_MESSAGE_DIRECTLY (``consumeMessageDirectly`` of Java's consume services): a broker forwards
``mqadmin consumeMessage`` for one member, whose listener consumes the message in the request's body once more
(nothing is committed or sent back); the answer is Java's ``ConsumeMessageDirectlyResult``, written when the
listener returns.

A part of the consumer, built when it starts (:class:`~.base.ConsumerBase`) beside its consume service, with what
it needs in its constructor: the listener, and the pool a threaded listener runs on, or, for an asyncio-native
consumer, the loop its listener (or the ``async for`` that reads its feed) is awaited on."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
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

__all__ = ["DirectConsumer"]

if TYPE_CHECKING:
    from ..workers import ConsumePool
    from .feed import Feed
    from .loop_pool import LoopConsumePool
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
        on_loop: bool,
        executor: ConsumePool | LoopConsumePool,
        feed: Feed | None,
        message_queue: Callable[..., Any],
    ) -> None:
        self.group = group
        self.settings = settings
        self.compat = compat
        self.namespace = namespace
        self.listener = listener
        self.orderly = orderly
        self.on_loop = on_loop
        self.executor = executor
        self.feed = feed
        self.message_queue = message_queue

    def answer(self, cmd: RemotingCommand) -> Any:
        """The response to ``cmd`` (a message that cannot be decoded, or a consumer shutting down), or a
        coroutine that answers it once the listener returned."""
        try:
            (msg,) = decode_messages(cmd.body or b"", compat=self.compat, max_body_size=self.settings.max_body_size)
        except Exception as e:
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, f"the message cannot be decoded: {e}")
        broker_name = cmd.ext_fields.get("brokerName") or msg.broker_name
        if self.on_loop:  # an asyncio-native consumer: its listener is awaited here

            async def answer_on_loop() -> RemotingCommand:
                body = await self.consume_async(msg, broker_name)
                return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=body)

            return answer_on_loop()
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[bytes] = loop.create_future()

        def consume() -> None:
            def settle(outcome: Callable[[], None]) -> None:
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for the answer
                    loop.call_soon_threadsafe(lambda: answered.done() or outcome())

            try:
                body = self.consume(msg, broker_name)
            except Exception as e:  # answered as SYSTEM_ERROR, never left waiting
                error = e
                settle(lambda: answered.set_exception(error))
            else:
                settle(lambda: answered.set_result(body))

        if not self.executor.submit(consume):
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, "the consumer is shutting down")

        async def answer() -> RemotingCommand:
            return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=await answered)

        return answer()

    def consume(self, msg: Any, broker_name: str) -> bytes:
        """The threaded listener's answer to ``msg``, as a ``ConsumeMessageDirectlyResult``."""
        context = self.context(msg, broker_name)
        begin = _now_ms()
        assert self.listener is not None
        try:
            status = self.listener([msg], context)
        except Exception as e:
            return self.result(context, None, e, begin)
        return self.result(context, status, None, begin)

    async def consume_async(self, msg: Any, broker_name: str) -> bytes:
        """:meth:`consume` for an asyncio-native consumer: its listener (or the ``async for`` that reads it) is
        awaited on the loop."""
        context = self.context(msg, broker_name)
        begin = _now_ms()
        try:
            feed = self.feed
            if feed is not None:
                status = await feed.deliver([msg], context)
            else:
                assert self.listener is not None
                status = await self.listener([msg], context)
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
