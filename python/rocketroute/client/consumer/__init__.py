"""The consumers: :class:`Consumer` (``DefaultMQPushConsumer``), :class:`LitePullConsumer`
(``DefaultLitePullConsumer``) and what they are made of.

Modules: ``consumer`` (the push consumer), ``lite_pull_consumer`` (the lite pull consumer; its parts
``lite_pull_base``, ``lite_puller``, ``poll_buffer``, ``lite_pull_settings``), ``settings``
(:class:`ConsumerSettings`), ``listener`` (the listener
statuses and contexts), ``subscription`` (subscriptions, tag filters, the heartbeat's consumer data),
``process_queue`` (a queue's cache of pulled messages), ``pull`` (the pull request and its result),
``offset_store`` (broker and local-file offsets), ``running_info`` (what ``consumerStatus`` shows).
``rocketroute.client.consumer.Consumer`` is the class, as it was when this package was one module.
"""

from __future__ import annotations

from .consumer import Consumer, ConsumerStats, DuplicateClientIdError
from .lite_pull_consumer import LitePullConsumer
from .lite_pull_settings import LitePullConsumerSettings
from .settings import ConsumerSettings

__all__ = [
    "Consumer",
    "ConsumerSettings",
    "ConsumerStats",
    "DuplicateClientIdError",
    "LitePullConsumer",
    "LitePullConsumerSettings",
]
