"""What a push consumer subscribes to and what it owns: the three tables of Java's ``RebalanceImpl``
(``subscriptionInner``, ``topicSubscribeInfoTable``, ``processQueueTable``), as aiokafka's ``SubscriptionState``.

The consumer builds one with its subscriptions and hands it to its parts. The client instance fills the queues each
subscribed topic's route offers (:meth:`SubscriptionState.on_route`, on the loop). The rebalancer adds and removes
the process queues (the puller forgets one whose offset is illegal, as Java's ``removeProcessQueue``); the consume
services and what a user reads (``assignment()``, the running info) look at them."""

from __future__ import annotations

from typing import Any

from ._shared import log
from .process_queue import ProcessQueue
from .subscription import SubscriptionData

__all__ = ["SubscriptionState"]


class SubscriptionState:
    """See the module. ``subscriptions`` maps each topic on the wire (namespaced, the retry topic included) to
    its subscription."""

    def __init__(self, subscriptions: dict[str, SubscriptionData], compat: str) -> None:
        self.subscriptions = subscriptions
        self.compat = compat
        self.subscribe_info: dict[str, list[Any]] = {}  # topicSubscribeInfoTable: the queues each route offers
        self.process_queues: dict[Any, ProcessQueue] = {}  # processQueueTable: the queues owned, or being given up

    # -- what the client instance asks (routes) ----------------------------------------------------------------

    def route_topics(self) -> list[str]:
        """The topics whose routes the instance keeps for this consumer: its subscriptions."""
        return list(self.subscriptions)

    def takes_route(self, topic: str) -> bool:
        """Whether a changed route of ``topic`` is handed to this consumer: one of its subscriptions."""
        return topic in self.subscriptions

    def needs_route(self, topic: str) -> bool:
        """``isSubscribeTopicNeedUpdate``: a subscribed topic without subscribe info yet."""
        return topic in self.subscriptions and topic not in self.subscribe_info

    def on_route(self, topic: str, route: Any) -> None:
        """``updateTopicSubscribeInfo`` (on the loop): the queues to read of a subscribed topic's new route."""
        if topic not in self.subscriptions:
            return
        queues = list(route.subscribe_queues(topic, self.compat))
        old = self.subscribe_info.get(topic)
        self.subscribe_info[topic] = queues
        if old is not None and old != queues:
            log.info("route of %s changed: %d queues to read", topic, len(queues))

    # -- what the parts and a user read --------------------------------------------------------------------------

    def owned(self, topic: str | None = None) -> set[Any]:
        """The queues this consumer owns now (of ``topic``, or of every topic); those being given up are not."""
        return {
            mq
            for mq, pq in list(self.process_queues.items())
            if not pq.dropped and (topic is None or mq.topic == topic)
        }
