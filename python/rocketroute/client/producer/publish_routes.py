"""A producer's publish routes (Java's ``topicPublishInfoTable`` with ``tryToFindTopicPublishInfo`` and
``updateTopicPublishInfo``): one ``TopicPublishInfo`` per topic it sends to, fetched through the client instance,
the ``create_topic_key`` route standing in for a topic the brokers create at its first send, and what changed when
a new route comes."""

from __future__ import annotations

import logging
from typing import Any

from ...log_repeats import REPEATS
from ...loggers import get_logger
from ..instance import ClientInstance
from ..namespace import unwrap
from .route_change import RouteChange, route_change
from .send_wire import SendWire
from .settings import ProducerSettings

__all__ = ["PublishRoutes"]

log = get_logger("producer")


class PublishRoutes:
    """The publish infos of one producer: ``compat``, ``settings`` and ``namespace`` as the producer has them,
    ``backend`` the one whose ``TopicPublishInfo`` it builds, ``wire`` the send wire whose static-topic endpoints a
    5.3 route updates. ``table`` (topic as sent -> ``TopicPublishInfo``) is read by every send."""

    def __init__(
        self, compat: str, settings: ProducerSettings, namespace: str | None, backend: Any, wire: SendWire
    ) -> None:
        self.compat, self.settings, self.namespace = compat, settings, namespace
        self._rr = backend
        self._wire = wire
        self.table: dict[str, Any] = {}

    def known(self, topic: str) -> None:
        """Put ``topic`` in the table without a route yet (Java's producer does so with ``create_topic_key`` at
        start: the instance's route poll then fetches it)."""
        self.table.setdefault(topic, self._rr.TopicPublishInfo([], compat=self.compat))

    async def find(self, instance: ClientInstance, topic: str) -> Any:
        """``tryToFindTopicPublishInfo``: the topic's route, else (a topic the brokers may create at the first
        send) ``create_topic_key``'s, fetched through ``instance``."""
        timeout = self.settings.mq_client_api_timeout
        info = self.table.get(topic)
        if info is None or not info.ok():
            self.known(topic)
            await instance.update_route(topic, timeout)
            info = self.table[topic]
        if info.have_topic_router_info or info.ok():
            return info
        default = (self.settings.create_topic_key, self.settings.default_topic_queue_nums)
        await instance.update_route(topic, timeout, default=default)
        return self.table[topic]

    async def refresh_all(self, instance: ClientInstance) -> None:
        """Fetch every topic's route again; a name server that fails is logged (Java tries again next round)."""
        for topic in list(self.table):
            try:
                await instance.update_route(topic, self.settings.mq_client_api_timeout)
            except Exception as e:
                REPEATS.log(log, logging.WARNING, "route refresh of %s failed: %s", topic, e, about=topic)

    def queues(self) -> dict[str, Any]:
        """Each topic's publish queues now, to compare with :meth:`changes_since` after a refresh."""
        return {topic: info.message_queues for topic, info in list(self.table.items())}

    def changes_since(self, before: dict[str, Any]) -> list[RouteChange]:
        """The changes of the topics sent to since :meth:`queues` gave ``before`` (not ``create_topic_key``'s,
        fetched at start, never sent to)."""
        changes = []
        for topic, old in before.items():
            info = self.table.get(topic)
            if info is None or topic == self.settings.create_topic_key:
                continue
            change = route_change(unwrap(self.namespace, topic), old, info.message_queues)
            if change is not None:
                changes.append(change)
        return changes

    def needs_route(self, topic: str) -> bool:
        """``isPublishTopicNeedUpdate``: a topic it publishes to without a usable publish info yet."""
        info = self.table.get(topic)
        return info is not None and not info.ok()

    def update(self, topic: str, route: Any, *, from_default: bool) -> RouteChange | None:
        """``updateTopicPublishInfo``: the topic's new route; the change of its publish queues when it had a route
        before (``None`` for its first one, and for ``create_topic_key``'s)."""
        info = self.table.get(topic)
        new_info = self._rr.TopicPublishInfo.from_route(topic, route, compat=self.compat)
        new_info.have_topic_router_info = True
        if self.compat == "5.3" and not from_default:
            # a static topic's publish queues are its logic queues (a mock broker name); each goes to the
            # broker that holds it, as 5.3's topicEndPointsTable
            endpoints = route.endpoints_for_static_topic(topic)
            if endpoints:
                self._wire.endpoints[topic] = endpoints
            else:
                self._wire.endpoints.pop(topic, None)
        self.table[topic] = new_info
        if info is None or not info.have_topic_router_info:
            return None  # the topic's first route here: not a change
        if topic == self.settings.create_topic_key:
            return None  # fetched at start for its brokers (Java's publish table has it), not a topic sent to
        return route_change(unwrap(self.namespace, topic), info.message_queues, new_info.message_queues)
