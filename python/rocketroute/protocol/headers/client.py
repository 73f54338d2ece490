"""The headers of a client's requests about itself and its routes: heartbeat, unregister, a group's member list,
a topic's route."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..codes import RequestCode
from .base import RequestHeader

__all__ = [
    "GetConsumerListByGroupRequestHeader",
    "GetRouteInfoRequestHeader",
    "HeartbeatRequest",
    "UnregisterClientRequestHeader",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class UnregisterClientRequestHeader(RequestHeader):
    """UNREGISTER_CLIENT: a producer or consumer group of this client id leaves the broker."""

    CODE: ClassVar[int] = RequestCode.UNREGISTER_CLIENT
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("client_id", "clientID"),
        ("producer_group", "producerGroup"),
        ("consumer_group", "consumerGroup"),
    )

    client_id: str
    producer_group: str | None = None
    consumer_group: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GetConsumerListByGroupRequestHeader(RequestHeader):
    """GET_CONSUMER_LIST_BY_GROUP: the client ids of a group a broker knows."""

    CODE: ClassVar[int] = RequestCode.GET_CONSUMER_LIST_BY_GROUP
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("consumer_group", "consumerGroup"),)

    consumer_group: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GetRouteInfoRequestHeader(RequestHeader):
    """GET_ROUTEINFO_BY_TOPIC, to a name server."""

    CODE: ClassVar[int] = RequestCode.GET_ROUTEINFO_BY_TOPIC
    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = (("topic", "topic"),)

    topic: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HeartbeatRequest(RequestHeader):
    """HEART_BEAT: no header; the body is the ``HeartbeatData`` JSON (built by the client)."""

    CODE: ClassVar[int] = RequestCode.HEART_BEAT

    heartbeat_data: bytes

    def body(self, compat: str) -> bytes:
        return self.heartbeat_data
