"""What a consumer's listener is given and answers (Java's ``MessageListenerConcurrently`` /
``MessageListenerOrderly``, their statuses and contexts).

A concurrent listener is ``listener(msgs, context) -> ConsumeConcurrentlyStatus``; an orderly one
``listener(msgs, context) -> ConsumeOrderlyStatus``. ``msgs`` holds at most ``consume_message_batch_max_size``
messages (:class:`~rocketroute.client.message_decode.MessageExt`), all of one queue. As in Java, a listener that
raises or returns ``None`` counts as a failure: ``RECONSUME_LATER`` / ``SUSPEND_CURRENT_QUEUE_A_MOMENT``.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..message_decode import MessageExt

if TYPE_CHECKING:
    from ... import MessageQueue

__all__ = [
    "AsyncMessageListener",
    "AsyncMessageListenerConcurrently",
    "AsyncMessageListenerOrderly",
    "ConsumeConcurrentlyContext",
    "ConsumeConcurrentlyStatus",
    "ConsumeOrderlyContext",
    "ConsumeOrderlyStatus",
    "MessageListener",
    "MessageListenerConcurrently",
    "MessageListenerOrderly",
]


class ConsumeConcurrentlyStatus(enum.Enum):
    """``CONSUME_SUCCESS``: done; ``RECONSUME_LATER``: sent back to the broker (clustering) to be delivered
    again after a delay (the retry topic ``%RETRY%<group>``)."""

    CONSUME_SUCCESS = "CONSUME_SUCCESS"
    RECONSUME_LATER = "RECONSUME_LATER"


class ConsumeOrderlyStatus(enum.Enum):
    """``SUCCESS``: done, commit; ``SUSPEND_CURRENT_QUEUE_A_MOMENT``: stop this queue for
    ``suspend_current_queue_time_millis`` and deliver the same messages again."""

    SUCCESS = "SUCCESS"
    SUSPEND_CURRENT_QUEUE_A_MOMENT = "SUSPEND_CURRENT_QUEUE_A_MOMENT"


@dataclass
class ConsumeConcurrentlyContext:
    """``message_queue``: where the messages come from. ``delay_level_when_next_consume`` (0: the broker picks,
    ``3 + reconsume times``; -1: straight to the dead-letter queue) and ``ack_index`` (the last message consumed
    well; those after it are sent back) may be set by the listener."""

    message_queue: MessageQueue
    delay_level_when_next_consume: int = 0
    ack_index: int = 2**31 - 1


@dataclass
class ConsumeOrderlyContext:
    """``message_queue``: where the messages come from. ``suspend_current_queue_time_millis`` (-1: the
    consumer's setting) may be set by the listener before it answers ``SUSPEND_CURRENT_QUEUE_A_MOMENT``."""

    message_queue: MessageQueue
    auto_commit: bool = True
    suspend_current_queue_time_millis: int = -1


MessageListenerConcurrently = Callable[[list[MessageExt], ConsumeConcurrentlyContext], ConsumeConcurrentlyStatus]
"""``listener(msgs, context) -> ConsumeConcurrentlyStatus`` (Java's ``MessageListenerConcurrently``)."""

MessageListenerOrderly = Callable[[list[MessageExt], ConsumeOrderlyContext], ConsumeOrderlyStatus]
"""``listener(msgs, context) -> ConsumeOrderlyStatus`` (Java's ``MessageListenerOrderly``; ``orderly=True``)."""

MessageListener = MessageListenerConcurrently | MessageListenerOrderly
"""What :class:`rocketroute.Consumer` takes as ``listener=``: a concurrent or (``orderly=True``) an orderly one."""

AsyncMessageListenerConcurrently = Callable[
    [list[MessageExt], ConsumeConcurrentlyContext], Awaitable[ConsumeConcurrentlyStatus]
]
"""``async def listener(msgs, context) -> ConsumeConcurrentlyStatus``: :class:`rocketroute.aio.Consumer`'s."""

AsyncMessageListenerOrderly = Callable[[list[MessageExt], ConsumeOrderlyContext], Awaitable[ConsumeOrderlyStatus]]
"""``async def listener(msgs, context) -> ConsumeOrderlyStatus``: :class:`rocketroute.aio.Consumer`'s with
``orderly=True``."""

AsyncMessageListener = AsyncMessageListenerConcurrently | AsyncMessageListenerOrderly
"""What :class:`rocketroute.aio.Consumer` takes as ``listener=``."""
