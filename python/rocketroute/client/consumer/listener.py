"""What a consumer's listener is given and answers (Java's ``MessageListenerConcurrently`` /
``MessageListenerOrderly``, their statuses and contexts).

A concurrent listener is ``listener(msgs, context) -> ConsumeConcurrentlyStatus``; an orderly one
``listener(msgs, context) -> ConsumeOrderlyStatus``. ``msgs`` holds at most ``consume_message_batch_max_size``
messages (:class:`~rocketroute.client.message_decode.MessageExt`), all of one queue. As in Java, a listener that
raises or returns ``None`` counts as a failure: ``RECONSUME_LATER`` / ``SUSPEND_CURRENT_QUEUE_A_MOMENT``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ConsumeConcurrentlyContext",
    "ConsumeConcurrentlyStatus",
    "ConsumeOrderlyContext",
    "ConsumeOrderlyStatus",
    "MessageListener",
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

    message_queue: Any
    delay_level_when_next_consume: int = 0
    ack_index: int = 2**31 - 1


@dataclass
class ConsumeOrderlyContext:
    """``message_queue``: where the messages come from. ``suspend_current_queue_time_millis`` (-1: the
    consumer's setting) may be set by the listener before it answers ``SUSPEND_CURRENT_QUEUE_A_MOMENT``."""

    message_queue: Any
    auto_commit: bool = True
    suspend_current_queue_time_millis: int = -1


MessageListener = Callable[[list[Any], Any], Any]
"""``(msgs, context) -> status``."""
