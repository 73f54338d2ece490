"""What a push consumer subscribes to and what it owns: the three tables of Java's ``RebalanceImpl``
(``subscriptionInner``, ``topicSubscribeInfoTable``, ``processQueueTable``), as aiokafka's ``SubscriptionState``.

The consumer builds one with its subscriptions and hands it to its parts. The client instance fills the queues each
subscribed topic's route offers (:meth:`SubscriptionState.on_route`, on the loop). The rebalancer adds and removes
the process queues (the puller forgets one whose offset is illegal, as Java's ``removeProcessQueue``); the consume
services and what a user reads (``assignment()``, the running info) look at them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..namespace import wrap
from ._shared import log
from .process_queue import ProcessQueue
from .subscription import SubscriptionData, build_subscription, retry_topic

__all__ = ["SubscriptionState"]


class SubscriptionState:
    """See the module. ``subscriptions`` maps each topic on the wire (namespaced, the retry topic included) to
    its subscription."""

    def __init__(self, subscriptions: dict[str, SubscriptionData], compat: str) -> None:
        self.subscriptions = subscriptions
        self.compat = compat
        self.subscribe_info: dict[str, list[Any]] = {}  # topicSubscribeInfoTable: the queues each route offers
        self.process_queues: dict[Any, ProcessQueue] = {}  # processQueueTable: the queues owned, or being given up

    @classmethod
    def subscribe(
        cls,
        subscriptions: Mapping[str, str | None] | Iterable[str],
        *,
        namespace: str | None,
        group: str,
        clustering: bool,
        compat: str,
        lite: bool = False,
    ) -> SubscriptionState:
        """The state of a consumer built with ``subscriptions`` (``{topic: tag expression}``, or topics, each
        ``"*"``), checked: each topic wrapped in the ``namespace`` (Java wraps them at start; here at once, so every
        request uses the names on the wire) and, for a ``clustering`` group (``group`` on the wire), its retry topic
        added (``copySubscription``). A ``lite`` pull consumer may start with none (it subscribes or is assigned
        queues later) and has no retry topic (it never sends a message back)."""
        if isinstance(subscriptions, (str, bytes)):
            raise TypeError(
                f"subscriptions must be a {{topic: tag expression}} mapping or a list of topics, not a "
                f"{type(subscriptions).__name__} ({subscriptions!r}; for one topic: [{subscriptions!r}])"
            )
        subs = dict(subscriptions) if isinstance(subscriptions, Mapping) else {t: "*" for t in subscriptions}
        if not subs and not lite:
            raise ValueError("a consumer needs at least one subscription")
        for topic, expression in subs.items():
            if not isinstance(topic, str) or not topic.strip():
                raise TypeError(f"a subscribed topic must be a non-blank str, not {topic!r}")
            if expression is not None and not isinstance(expression, str):
                raise TypeError(f"the tag expression of {topic!r} must be a str or None, not {expression!r}")
        wire = {wrap(namespace, t): build_subscription(wrap(namespace, t), e) for t, e in subs.items()}
        if clustering and not lite:
            rt = retry_topic(group)
            wire.setdefault(rt, build_subscription(rt, "*"))
        return cls(wire, compat)

    def add(self, topic: str, expression: str | None) -> None:
        """Subscribe ``topic`` (on the wire) with ``expression`` (a lite pull consumer's ``subscribe``)."""
        self.subscriptions[topic] = build_subscription(topic, expression)

    def remove(self, topic: str) -> None:
        """Unsubscribe ``topic`` (on the wire): the next rebalance gives its queues up."""
        self.subscriptions.pop(topic, None)
        self.subscribe_info.pop(topic, None)

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
