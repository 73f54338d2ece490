"""The push consumer: :class:`Consumer` (``DefaultMQPushConsumer``) and what it is made of.

Modules: ``consumer`` (the class), ``settings`` (:class:`ConsumerSettings`), ``listener`` (the listener
statuses and contexts), ``subscription`` (subscriptions, tag filters, the heartbeat's consumer data),
``process_queue`` (a queue's cache of pulled messages), ``pull`` (the pull request and its result),
``offset_store`` (broker and local-file offsets), ``running_info`` (what ``consumerStatus`` shows).
``rocketroute.client.consumer.Consumer`` is the class, as it was when this package was one module.
"""

from __future__ import annotations

from .consumer import Consumer, ConsumerStats, DuplicateClientIdError
from .settings import ConsumerSettings

__all__ = ["Consumer", "ConsumerSettings", "ConsumerStats", "DuplicateClientIdError"]
