"""What a client instance asks of the producers and consumers registered on it (Java's ``MQProducerInner`` and
``MQConsumerInner``): the Protocols :class:`~rocketroute.client.instance.ClientInstance` and
:func:`~rocketroute.client.instances.acquire_instance` are written against, so the instance never reaches a
client through anything else.

The members keep a leading underscore: they are the instance's calls, not the user's API (Java has them on
``DefaultMQProducerImpl`` / ``DefaultMQPushConsumerImpl``, not on the classes users build).
``tests/client/test_inner.py`` has a type checker confirm that :class:`~rocketroute.client.Producer`,
:class:`~rocketroute.client.TransactionProducer` and :class:`~rocketroute.client.Consumer` implement them."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..net.tls import TLS
    from ..protocol import RemotingCommand
    from ..protocol.acl import Credentials
    from .instance import ClientInstance
    from .message_decode import MessageExt

__all__ = ["ClientInner", "ConsumerInner", "InnerSettings", "ProducerInner", "TransactionInner"]


class InnerSettings(Protocol):
    """The settings of a client its instance reads: the timers' intervals (the smallest any client asks for),
    and, from the first client, the instance's request timeout and ``language``."""

    @property
    def poll_name_server_interval(self) -> int: ...
    @property
    def heartbeat_broker_interval(self) -> int: ...
    @property
    def mq_client_api_timeout(self) -> int: ...
    @property
    def language(self) -> str: ...


class ClientInner(Protocol):
    """What a producer and a consumer both answer: who they are (an instance is built from its first client's
    identity, and a later one must agree with it), and their part in the routes the instance keeps."""

    group: str
    client_id: str
    namesrv_addrs: list[str]
    compat: str
    credentials: Credentials | None
    tls: TLS
    _rr: Any  # the backend whose route classes the instance builds
    _join: ClientInstance | None  # the instance given as instance=, else None
    _bind_loop: asyncio.AbstractEventLoop | None  # an asyncio-native client's loop, where its instance runs

    @property
    def settings(self) -> InnerSettings: ...

    def _route_topics(self) -> list[str]:
        """The topics whose routes the instance polls for this client."""
        ...

    def _takes_route(self, topic: str) -> bool:
        """Whether a changed route of ``topic`` is handed to this client."""
        ...

    def _needs_route(self, topic: str) -> bool:
        """Whether this client lacks a usable route of ``topic`` (``isPublishTopicNeedUpdate`` /
        ``isSubscribeTopicNeedUpdate``): an unchanged route is handed to it then."""
        ...

    def _on_route(self, topic: str, route: Any, *, from_default: bool) -> None:
        """The route of ``topic`` (on the loop); ``from_default``: ``create_topic_key``'s, taken as the topic's."""
        ...

    def _forked_away(self) -> None:
        """In the child of a fork: unusable from now on."""
        ...


class ProducerInner(ClientInner, Protocol):
    """A producer, as its instance sees it: its group goes in every heartbeat."""


@runtime_checkable
class TransactionInner(ProducerInner, Protocol):
    """A transactional producer: a broker's CHECK_TRANSACTION_STATE for its group is handed to it (the instance
    tells one from a plain producer with ``isinstance``)."""

    def _on_check_transaction(self, cmd: RemotingCommand, addr: str, msg: MessageExt) -> None: ...


class ConsumerInner(ClientInner, Protocol):
    """A consumer, as its instance sees it: its subscriptions go in every heartbeat once it is registered, and
    the brokers' requests naming its group are handed to it."""

    _registered: bool  # in the heartbeats (after it checked that no other member runs with its client id)

    def _consumer_data(self) -> Any:
        """Its ``ConsumerData`` for the heartbeat body."""
        ...

    def _on_notify(self, cmd: RemotingCommand, addr: str) -> None:
        """NOTIFY_CONSUMER_IDS_CHANGED: rebalance soon."""
        ...

    def _on_running_info(self, cmd: RemotingCommand, addr: str) -> Any:
        """GET_CONSUMER_RUNNING_INFO: the response."""
        ...

    def _on_consume_directly(self, cmd: RemotingCommand, addr: str) -> Any:
        """CONSUME_MESSAGE_DIRECTLY: the response, or ``None`` when it is answered later."""
        ...
