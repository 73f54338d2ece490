""":class:`ClientInstance`: what the producers and consumers of one client id share in a process, as Java's
``MQClientInstance``: one remoting client (one event-loop thread, one connection per broker), one name-server
client, one broker address table (the master and subscribe-node choice), and the dispatch of the requests
brokers send (NOTIFY_CONSUMER_IDS_CHANGED, GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY) to the consumer of
the group they name.

Which clients share one: Java's rule, the client id ``ip@instance_name``. The default instance name is
``<pid>#<nanos>`` (as Java's 5.x clients), so clients share an instance only when they are given the same
``instance_name`` (and IP); then they must also agree on the name servers, the compat profile and the
``language``, and a group may have one producer and one consumer per instance (Java: "The consumer group has been
created before, specify another name please"): two consumers of one group in one process need different instance
names, and the second gets :class:`~rocketroute.client.consumer.DuplicateClientIdError` saying so. The first user
starts the instance; the last one to shut down closes it.

Each client's requests keep its own ``mq_client_api_timeout``; the time allowed to open a connection is the
instance's, the first client's ``mq_client_api_timeout``. For now each client keeps its own route table and route
poll on the shared instance; the instance's :meth:`ClientInstance.clean_offline_brokers` forgets a broker only
when no user's route names it. One heartbeat (:meth:`ClientInstance.heartbeat_all`) carries every group of the
instance; each client's timer sends it.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..remoting import RemotingClient, RemotingCommand, RequestCode
from ..remoting.headers import HeartbeatRequest, UnregisterClientRequestHeader
from ..response_code import ResponseCode
from .broker_addrs import BrokerAddrTable
from .message_id import local_ip_candidates
from .namesrv import NameServerClient, connect_name_servers

__all__ = [
    "ClientInstance",
    "acquire_instance",
    "default_client_ip",
    "default_instance_name",
    "instances",
    "release_instance",
]


log = logging.getLogger("rocketroute.client")


def default_client_ip() -> str:
    """``NetworkUtil.getLocalAddress``, simplified: this host's first IPv4 address that is not a loopback one, else
    its first IPv6 one (compressed), else ``127.0.0.1``."""
    candidates = local_ip_candidates()
    for ip in candidates:
        if len(ip) == 4 and ip[0] != 127:
            return str(ipaddress.IPv4Address(ip))
    for ip in candidates:
        if len(ip) == 16 and ipaddress.IPv6Address(ip).is_loopback is False:
            return str(ipaddress.IPv6Address(ip))
    return "127.0.0.1"


def default_instance_name() -> str:
    """Java 5.x's ``changeInstanceNameToPID``: ``<pid>#<nanos>``, so two clients of a process do not share an
    instance unless told to."""
    return f"{os.getpid()}#{time.monotonic_ns()}"


class ClientInstance:
    """The shared part of the clients of ``client_id`` (see the module); built by :func:`acquire_instance`."""

    def __init__(
        self,
        client_id: str,
        namesrv_addrs: Sequence[str],
        *,
        compat: str,
        timeout_ms: int,
        language: str,
        backend: Any,
    ) -> None:
        self.client_id = client_id
        self.namesrv_addrs = list(namesrv_addrs)
        self.compat = compat
        self.language = language
        self.backend = backend
        self.remoting: RemotingClient
        self.names: NameServerClient
        self.remoting, self.names = connect_name_servers(
            self.namesrv_addrs, timeout_ms=timeout_ms, compat=compat, backend=backend, language=language
        )
        self.broker_addrs = BrokerAddrTable()  # brokerAddrTable
        # (kind, group) -> the user, held weakly: a producer dropped without shutdown() can still be collected
        self._users: dict[tuple[str, str], weakref.ReferenceType[Any]] = {}
        self.closed = False
        for code, name in (
            (RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, "_on_notify"),
            (RequestCode.GET_CONSUMER_RUNNING_INFO, "_on_running_info"),
            (RequestCode.CONSUME_MESSAGE_DIRECTLY, "_on_consume_directly"),
        ):
            self.remoting.register_processor(code, self._dispatcher(name))

    def users(self, kind: str | None = None) -> list[Any]:
        """The producers and consumers registered (``kind``: ``"producer"`` or ``"consumer"`` only)."""
        found = []
        for (k, _), ref in list(self._users.items()):
            user = ref()
            if user is not None and (kind is None or k == kind):
                found.append(user)
        return found

    def consumer(self, group: str) -> Any:
        """The consumer of ``group`` registered here, or ``None``."""
        ref = self._users.get(("consumer", group))
        return ref() if ref is not None else None

    def clean_offline_brokers(self) -> None:
        """``cleanOfflineBroker``: forget the brokers no user's route names any more."""
        names = set()
        for user in self.users():
            for route in list(user._routes.values()):
                names.update(b.broker_name for b in route.broker_datas or ())
        self.broker_addrs.retain(names)

    async def heartbeat_all(self, timeout_ms: int) -> None:
        """``sendHeartbeatToAllBroker``: one HEART_BEAT per broker node carrying every consumer group's
        subscriptions and every producer group of this instance; to the masters only when it has no consumer, as
        Java's. A broker that does not answer is logged and tried again at the next heartbeat."""
        from .consumer.subscription import heartbeat_body  # not at import time: the consumer package imports this

        consumers, producers = self.users("consumer"), self.users("producer")
        if not consumers and not producers:
            return
        body = heartbeat_body(self.client_id, [c._consumer_data() for c in consumers], [p.group for p in producers])
        for name, addr in self.broker_addrs.nodes(masters_only=not consumers):
            request = HeartbeatRequest(heartbeat_data=body).request(self.compat)
            try:
                await self.remoting.async_client.invoke_checked(addr, request, timeout_ms)
            except Exception as e:
                log.warning("heartbeat to %s (%s) failed: %s", name, addr, e)

    async def unregister(
        self, *, producer_group: str | None = None, consumer_group: str | None = None, timeout_ms: int
    ) -> None:
        """``unregisterClient``: tell every broker node that a group of this client id leaves (a failure is logged
        at DEBUG: the broker forgets a silent client after its channel expiry anyway)."""
        request = UnregisterClientRequestHeader(
            client_id=self.client_id, producer_group=producer_group, consumer_group=consumer_group
        ).request(self.compat)
        for name, addr in self.broker_addrs.nodes():
            try:
                await self.remoting.async_client.invoke(addr, request, timeout_ms)
            except Exception as e:
                log.debug("unregister from %s (%s) failed: %s", name, addr, e)

    def _dispatcher(self, method: str) -> Callable[[RemotingCommand, str], Any]:
        """A processor that hands a broker's request to the consumer of the group it names."""

        def dispatch(cmd: RemotingCommand, addr: str) -> Any:
            group = cmd.ext_fields.get("consumerGroup")
            consumer = self.consumer(group) if group is not None else None
            if consumer is not None:
                return getattr(consumer, method)(cmd, addr)
            if method == "_on_notify":  # no group named: every consumer rebalances
                for c in self.users("consumer") if group is None else ():
                    c._on_notify(cmd, addr)
                return None
            return RemotingCommand.response_to(
                cmd, ResponseCode.SYSTEM_ERROR, f"The Consumer Group <{group}> not exist in this consumer"
            )

        return dispatch

    def _check_same(self, namesrv_addrs: Sequence[str], compat: str, language: str) -> None:
        for what, ours, theirs in (
            ("name servers", self.namesrv_addrs, list(namesrv_addrs)),
            ("compat", self.compat, compat),
            ("language", self.language, language),
        ):
            if ours != theirs:
                raise ValueError(
                    f"client id {self.client_id!r} already runs in this process with {what} {ours!r}, not {theirs!r}: "
                    "clients that share an instance name share one client instance; give this one another "
                    "instance_name"
                )

    def __repr__(self) -> str:
        users = ", ".join(f"{k} {g}" for k, g in self._users)
        return f"ClientInstance({self.client_id!r}, users=[{users}]{', closed' if self.closed else ''})"


_instances: dict[str, ClientInstance] = {}
_registry = threading.Lock()


def instances() -> dict[str, ClientInstance]:
    """The client instances open in this process, by client id (a copy)."""
    with _registry:
        return dict(_instances)


def acquire_instance(user: Any, kind: str) -> ClientInstance:
    """Register ``user`` (a producer or a consumer: ``kind``) with the instance of its ``client_id``, starting the
    instance when it is the first; the instance is built from the user's name servers, compat, ``language``,
    ``mq_client_api_timeout`` and backend. Raises :class:`~rocketroute.client.consumer.DuplicateClientIdError` when
    the instance already has a ``kind`` of the user's group, :class:`ValueError` when its name servers, compat or
    language differ."""
    from .consumer.errors import DuplicateClientIdError

    client_id, group, namesrv_addrs = user.client_id, user.group, user.namesrv_addrs
    compat, language = user.compat, user.settings.language
    with _registry:
        instance = _instances.get(client_id)
        if instance is not None:
            instance._check_same(namesrv_addrs, compat, language)
            ref = instance._users.get((kind, group))
            if ref is not None and ref() is not None:
                raise DuplicateClientIdError(
                    f"{kind} group {group} already runs with client id {client_id!r} in this process (Java: the "
                    f"{kind} group has been created before): give this {kind} another instance_name"
                )
        else:
            timeout_ms = user.settings.mq_client_api_timeout
            instance = ClientInstance(
                client_id, namesrv_addrs, compat=compat, timeout_ms=timeout_ms, language=language, backend=user._rr
            )
            _instances[client_id] = instance
        instance._users[(kind, group)] = weakref.ref(user)
        return instance


def release_instance(instance: ClientInstance, kind: str, group: str) -> None:
    """Unregister the ``kind`` of ``group``; the last user's release closes the instance (its connections and its
    loop thread)."""
    with _registry:
        instance._users.pop((kind, group), None)
        if any(ref() is not None for ref in instance._users.values()) or instance.closed:
            return
        instance.closed = True
        if _instances.get(instance.client_id) is instance:
            del _instances[instance.client_id]
    instance.remoting.close()
