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

Routes: the instance keeps the one route table (Java's ``topicRouteTable``) and fetches routes for all its
clients (:meth:`ClientInstance.update_route`: one fetch at a time per topic, the callers that need it meanwhile
await that one). A fetched route that changed is handed to every client using the topic (a producer builds its
publish info from it, a consumer its subscribe info); an unchanged one only to a client that has none yet. One
poll (:meth:`ClientInstance.poll_routes`) refreshes every topic any client publishes to or subscribes, then forgets
the brokers no route names (``cleanOfflineBroker``); one heartbeat (:meth:`ClientInstance.heartbeat_all`) carries
every group of the instance.

Timers: the poll runs every ``poll_name_server_interval`` ms and the heartbeat every ``heartbeat_broker_interval``
ms, the smallest interval any client of the instance asks for (Java takes the first client's: here no client's
setting is silently overridden by another's). The first heartbeat goes 1 s after the instance starts, as Java's,
and within 1 s of a client joining. The first poll comes one interval after the start (Java's comes at 10 ms, when
there is nothing to poll yet: a producer fetches a route at its first send to the topic, a consumer its
subscriptions' as it starts).

Each client's own requests (sends, pulls, its route fetches, ``refresh_routes()``) keep its own
``mq_client_api_timeout``; the instance's (the first client's) bounds the connects, the poll and the timers'
heartbeats."""

from __future__ import annotations

import asyncio
import concurrent.futures
import ipaddress
import logging
import os
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, overload

from ..errors import AccessDeniedError
from ..log_repeats import REPEATS
from ..loggers import get_logger
from ..net.runtime import RemotingClient
from ..net.tls import TLS
from ..protocol import RemotingCommand, RequestCode
from ..protocol.acl import Credentials
from ..protocol.response_code import ResponseCode
from .api import BrokerAPI
from .broker_addrs import BrokerAddrTable
from .inner import ClientInner, ConsumerInner, ProducerInner, TransactionInner
from .message_id import local_ip_candidates
from .namesrv import NameServerClient, TopicNotExistError, connect_name_servers

__all__ = [
    "ClientInstance",
    "default_client_ip",
    "default_instance_name",
]


log = get_logger("client")


_FIRST_HEARTBEAT_S = 1.0
"""Java's instance heartbeats 1 s after it starts."""


_TIMERS = ("poll", "heartbeat")


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
        credentials: Credentials | None = None,
        tls: TLS = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.client_id = client_id
        self.credentials = credentials
        self.tls = tls
        self.timeout_ms = timeout_ms
        self.namesrv_addrs = list(namesrv_addrs)
        self.compat = compat
        self.language = language
        self.backend = backend
        self.remoting: RemotingClient
        self.names: NameServerClient
        self.remoting, self.names = connect_name_servers(
            self.namesrv_addrs,
            timeout_ms=timeout_ms,
            compat=compat,
            backend=backend,
            language=language,
            credentials=credentials,
            tls=tls,
            loop=loop,
        )
        self.api = BrokerAPI(self.remoting.async_client, compat)  # mQClientAPIImpl: the brokers' requests
        self.broker_addrs = BrokerAddrTable()  # brokerAddrTable
        self.routes: dict[str, Any] = {}  # topicRouteTable
        # route fetches under way, by (topic, default): callers that need the same route await the one fetch
        self._route_fetches: dict[tuple[str, tuple[str, int] | None], asyncio.Future[bool]] = {}
        # the poll and heartbeat timers ("poll", "heartbeat") and the tasks they run; on the loop only
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._timer_tasks: dict[str, asyncio.Task[None]] = {}
        # group -> the producer / consumer of that group, held weakly: one dropped without shutdown() can still be
        # collected
        self._producers: dict[str, weakref.ReferenceType[ProducerInner]] = {}
        self._consumers: dict[str, weakref.ReferenceType[ConsumerInner]] = {}
        self.closed = False
        register = self.remoting.register_processor
        self._notify_named = self._to_consumer(lambda c, r, a: c._on_notify(r, a))
        register(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, self._on_notify)
        register(RequestCode.GET_CONSUMER_RUNNING_INFO, self._to_consumer(lambda c, r, a: c._on_running_info(r, a)))
        register(RequestCode.CONSUME_MESSAGE_DIRECTLY, self._to_consumer(lambda c, r, a: c._on_consume_directly(r, a)))
        register(RequestCode.CHECK_TRANSACTION_STATE, self._on_check_transaction)

    def forked_away(self) -> None:
        """In the child of a fork: this instance, its remoting client and its users are the parent's (see
        ``_after_fork_in_child``); each user keeps a strong reference here, so none is finalized in the child."""
        self.closed = True
        self.remoting.forked_away()
        self._kept = [u for u in self.users()]
        for user in self._kept:
            user._forked_away()

    @overload
    def users(self, kind: Literal["consumer"]) -> list[ConsumerInner]: ...
    @overload
    def users(self, kind: Literal["producer"]) -> list[ProducerInner]: ...
    @overload
    def users(self, kind: None = None) -> list[ClientInner]: ...
    def users(self, kind: str | None = None) -> Sequence[ClientInner]:
        """The producers and consumers registered (``kind``: ``"producer"`` or ``"consumer"`` only)."""
        producers = [p for ref in list(self._producers.values()) if (p := ref()) is not None]
        consumers = [c for ref in list(self._consumers.values()) if (c := ref()) is not None]
        if kind is None:
            return [*producers, *consumers]
        return producers if kind == "producer" else consumers

    def registered(self, kind: str, group: str) -> ClientInner | None:
        """The ``kind`` (``"producer"`` or ``"consumer"``) of ``group`` registered here, or ``None``."""
        ref = self._table(kind).get(group)
        return ref() if ref is not None else None

    def consumer(self, group: str) -> ConsumerInner | None:
        """The consumer of ``group`` registered here, or ``None``."""
        ref = self._consumers.get(group)
        return ref() if ref is not None else None

    def join(self, kind: str, user: ProducerInner | ConsumerInner) -> None:
        """Register ``user``, the ``kind`` of its group (by :func:`~rocketroute.client.instances.acquire_instance`,
        which checked that the group has none here yet)."""
        self._table(kind)[user.group] = weakref.ref(user)

    def leave(self, kind: str, group: str) -> bool:
        """Unregister the ``kind`` of ``group``; whether a client is left."""
        self._table(kind).pop(group, None)
        return bool(self.users())

    def _table(self, kind: str) -> dict[str, weakref.ReferenceType[Any]]:
        if kind not in ("producer", "consumer"):
            raise ValueError(f"a client instance has producers and consumers, not {kind!r}")
        return self._producers if kind == "producer" else self._consumers

    # -- routes ----------------------------------------------------------------------------------------------

    def topics(self) -> set[str]:
        """The topics the clients use: every producer's published topics and every consumer's subscriptions."""
        topics: set[str] = set()
        for user in self.users():
            topics.update(user._route_topics())
        return topics

    def clean_offline_brokers(self) -> None:
        """``cleanOfflineBroker``: forget the brokers no route of a topic in use names any more (and the routes of
        topics no client uses now)."""
        in_use = self.topics()
        for topic in [t for t in self.routes if t not in in_use]:
            del self.routes[topic]
        self.broker_addrs.retain(b.broker_name for route in self.routes.values() for b in route.broker_datas or ())

    async def update_route(self, topic: str, timeout_ms: int, *, default: tuple[str, int] | None = None) -> bool:
        """``updateTopicRouteInfoFromNameServer``: fetch ``topic``'s route (with ``default``, ``(create_topic_key,
        default_topic_queue_nums)``: the route of ``create_topic_key``, its queue numbers capped, taken as
        ``topic``'s, for a producer's first send to a topic the brokers may create); when it changed, update the
        broker addresses and hand it to every client using the topic, else to those that have none yet. False when
        the name servers know no such topic; a name server error is raised.

        Java serialises these fetches under one lock (``lockNamesrv``), so a burst of sends to a new topic asks
        the name server once per sending thread, one after another. Here the callers that need a route already
        being fetched await that one fetch, so 200 concurrent ``send_async`` calls to a new topic make one
        request, not 200."""
        key = (topic, default)
        while (pending := self._route_fetches.get(key)) is not None:
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                if pending.cancelled():
                    continue  # the fetch's owner was cancelled, not this caller: fetch again
                raise
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._route_fetches[key] = future
        try:
            found = await self._fetch_route(topic, timeout_ms, default)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # retrieved: the waiters re-raise it, no "never retrieved" warning if none wait
            raise
        else:
            future.set_result(found)
            return found
        finally:
            del self._route_fetches[key]

    async def _fetch_route(self, topic: str, timeout_ms: int, default: tuple[str, int] | None) -> bool:
        try:
            if default is None:
                route = await self.names.get_route(topic, timeout_ms)
            else:
                create_topic_key, queue_nums = default
                route = _capped(self.backend, await self.names.get_route(create_topic_key, timeout_ms), queue_nums)
        except TopicNotExistError:
            return False
        old = self.routes.get(topic)
        users = self.users()
        if old is None or route.topic_route_data_changed(old):
            # every producer (Java's updateTopicPublishInfo: the next to send there needs no fetch) and the
            # consumers subscribing it
            told = [u for u in users if u._takes_route(topic)]
        else:  # isNeedUpdateTopicRouteInfo: unchanged, but a client has no route for it yet
            told = [u for u in users if u._needs_route(topic)]
            if not told:
                return True
        self.broker_addrs.update(route)
        self.routes[topic] = route
        for user in told:
            user._on_route(topic, route, from_default=default is not None)
        return True

    async def poll_routes(self) -> None:
        """The route poll: :meth:`refresh_routes` of every topic a client uses."""
        await self.refresh_routes(sorted(self.topics()), self.timeout_ms)

    async def refresh_routes(self, topics: Iterable[str], timeout_ms: int) -> None:
        """A round of route fetches: each of ``topics`` (a failure is logged: the next round tries again), then
        forget the brokers no route names, and heartbeat at once when a broker (re)appeared and a consumer runs
        here, so it knows the consumers before they pull from it (Java waits for the next heartbeat, up to 30 s,
        the pulls failing meanwhile)."""
        known = self.broker_addrs.addresses()
        subscribed = {t for c in self.users("consumer") for t in c._route_topics()}
        for topic in topics:
            try:
                found = await self.update_route(topic, timeout_ms)
            except Exception as e:  # a name server down: Java logs and tries again next round
                REPEATS.log(log, logging.WARNING, "route refresh of %s failed: %s", topic, e, about=topic)
                continue
            if not found:
                quiet = topic not in subscribed or topic.startswith("%RETRY%")  # a retry topic comes with use
                level = logging.DEBUG if quiet else logging.WARNING
                REPEATS.log(log, level, "no route for topic %s on the name servers", topic)
        self.clean_offline_brokers()
        if self.broker_addrs.addresses() - known and any(c._registered for c in self.users("consumer")):
            await self.heartbeat_all(timeout_ms)

    def fetch_route_soon(self, topic: str) -> concurrent.futures.Future[bool]:
        """Fetch ``topic``'s route now, from any thread, without waiting for it: a producer's
        ``create_topic_key`` at its start, which Java's first route poll (10 ms after start) fetches. The fetch
        holds the instance only (a client dropped meanwhile can be collected) and is cancelled when the instance
        closes."""
        return self.remoting.submit(self._tracked(topic))

    async def _tracked(self, topic: str) -> bool:
        task = asyncio.current_task()
        key = f"fetch {topic} {id(task)}"
        if self.closed or task is None:
            return False
        self._timer_tasks[key] = task  # type: ignore[assignment]
        try:
            known = self.broker_addrs.addresses()
            found = await self.update_route(topic, self.timeout_ms)
            if self.broker_addrs.addresses() - known:  # brokers to register with now, not at the next heartbeat
                await self.heartbeat_all(self.timeout_ms)
            return found
        finally:
            self._timer_tasks.pop(key, None)

    # -- timers ------------------------------------------------------------------------------------------------

    def user_joined(self) -> None:
        """A client joined, the first one included (from any thread): heartbeat within 1 s, and poll within its
        interval if that is sooner than planned."""
        self.remoting.loop.call_soon_threadsafe(self._arm_all, {"heartbeat": _FIRST_HEARTBEAT_S})

    def _interval_s(self, timer: str) -> float:
        """The timer's interval: the smallest any client asks for."""
        users = self.users()
        if timer == "poll":
            wanted = [u.settings.poll_name_server_interval for u in users]
        else:
            wanted = [u.settings.heartbeat_broker_interval for u in users]
        return min(wanted, default=30_000) / 1000

    def _arm_all(self, first: dict[str, float]) -> None:
        for timer in _TIMERS:
            self._arm(timer, first.get(timer, self._interval_s(timer)))

    def _arm(self, timer: str, delay_s: float, *, sooner_only: bool = True) -> None:
        """Run ``timer`` in ``delay_s``; ``sooner_only``: unless it is due sooner already. Not while it runs: it
        re-arms itself when done."""
        if self.closed or timer in self._timer_tasks:
            return
        loop = self.remoting.loop
        armed = self._timers.get(timer)
        if armed is not None:
            if sooner_only and armed.when() <= loop.time() + delay_s:
                return
            armed.cancel()
        self._timers[timer] = loop.call_later(delay_s, self._fire, timer)

    def _fire(self, timer: str) -> None:
        self._timers.pop(timer, None)

        async def run() -> None:
            try:
                await (self.poll_routes() if timer == "poll" else self.heartbeat_all(self.timeout_ms))
            except Exception:
                REPEATS.log(
                    log, logging.ERROR, "the %s of client instance %s failed", timer, self.client_id, exc_info=True
                )
            finally:
                self._timer_tasks.pop(timer, None)
                self._arm(timer, self._interval_s(timer), sooner_only=False)

        self._timer_tasks[timer] = asyncio.ensure_future(run())

    def _stop_timers(self) -> None:
        """Cancel the timers and what they run (on the loop)."""
        for handle in self._timers.values():
            handle.cancel()
        for task in self._timer_tasks.values():
            task.cancel()
        self._timers.clear()

    async def heartbeat_all(self, timeout_ms: int) -> list[AccessDeniedError]:
        """``sendHeartbeatToAllBroker``: one HEART_BEAT per broker node carrying every consumer group's
        subscriptions and every producer group of this instance; to the masters only when it has no consumer, as
        Java's. A consumer still starting is left out until it sends its own first heartbeat (after it checked
        that no other member of its group runs with its client id). A broker that does not answer is logged and
        tried again at the next heartbeat. Returns the refusals of the credentials (logged as errors; a starting
        consumer raises the first)."""
        from .consumer.subscription import heartbeat_body  # not at import time: the consumer package imports this

        consumers = [c for c in self.users("consumer") if c._registered]
        producers = self.users("producer")
        if not consumers and not producers:
            return []
        body = heartbeat_body(self.client_id, [c._consumer_data() for c in consumers], [p.group for p in producers])
        refused: list[AccessDeniedError] = []
        for name, addr in self.broker_addrs.nodes(masters_only=not consumers):
            try:
                await self.api.heartbeat(addr, body, timeout_ms)
            except AccessDeniedError as e:
                REPEATS.log(log, logging.ERROR, "heartbeat to %s refused: %s", name, e, about=addr)
                refused.append(e)
            except Exception as e:
                REPEATS.log(log, logging.WARNING, "heartbeat to %s (%s) failed: %s", name, addr, e, about=addr)
        return refused

    async def unregister(
        self, *, producer_group: str | None = None, consumer_group: str | None = None, timeout_ms: int
    ) -> None:
        """``unregisterClient``: tell every broker node that a group of this client id leaves (a failure is logged
        at DEBUG: the broker forgets a silent client after its channel expiry anyway)."""
        for name, addr in self.broker_addrs.nodes():
            try:
                await self.api.unregister_client(
                    addr,
                    self.client_id,
                    producer_group=producer_group,
                    consumer_group=consumer_group,
                    timeout_ms=timeout_ms,
                )
            except Exception as e:
                log.debug("unregister from %s (%s) failed: %s", name, addr, e)

    def _to_consumer(
        self, answer: Callable[[ConsumerInner, RemotingCommand, str], Any]
    ) -> Callable[[RemotingCommand, str], Any]:
        """A processor that hands a broker's request to the consumer of the group it names (``answer``: what it
        asks of that consumer); a group not here is answered SYSTEM_ERROR, as Java's ``ClientRemotingProcessor``."""

        def dispatch(cmd: RemotingCommand, addr: str) -> Any:
            group = cmd.ext_fields.get("consumerGroup")
            consumer = self.consumer(group) if group is not None else None
            if consumer is not None:
                return answer(consumer, cmd, addr)
            return RemotingCommand.response_to(
                cmd, ResponseCode.SYSTEM_ERROR, f"The Consumer Group <{group}> not exist in this consumer"
            )

        return dispatch

    def _on_notify(self, cmd: RemotingCommand, addr: str) -> Any:
        """NOTIFY_CONSUMER_IDS_CHANGED: the consumer of the group it names rebalances; one naming no group, every
        consumer here."""
        if cmd.ext_fields.get("consumerGroup") is None:
            for c in self.users("consumer"):
                c._on_notify(cmd, addr)
            return None
        return self._notify_named(cmd, addr)

    def _on_check_transaction(self, cmd: RemotingCommand, addr: str) -> None:
        """CHECK_TRANSACTION_STATE (oneway): the half message in the body names its producer group (``PGROUP``);
        that group's transactional producer checks it (Java's ``ClientRemotingProcessor.checkTransactionState``).
        Nothing is answered: the producer ends the transaction with its own oneway END_TRANSACTION."""
        from .message_decode import decode_messages

        try:
            # a body that does not decode (a codec missing here) still gets its check: the checker mostly needs
            # the properties and the transaction id (its ``decode_error`` says why the body is None)
            (msg,) = decode_messages(cmd.body or b"", compat=self.compat, undecodable="mark")
        except Exception as e:
            log.warning("a transaction check from %s without a readable half message: %s", addr, e)
            return None
        group = msg.properties.get("PGROUP")
        producer = self.registered("producer", group) if group is not None else None
        if not isinstance(producer, TransactionInner):
            log.warning("a transaction check from %s for producer group %s, which has no transactional producer "
                        "here", addr, group)  # fmt: skip
            return None
        producer._on_check_transaction(cmd, addr, msg)
        return None

    def _check_same(
        self, namesrv_addrs: Sequence[str], compat: str, language: str, credentials: Credentials | None, tls: TLS
    ) -> None:
        if credentials != self.credentials:  # not shown: a secret is never put in a message
            raise ValueError(
                f"client id {self.client_id!r} already runs in this process with other credentials: clients that share "
                "an instance name share one client instance and sign with its credentials; give this one another "
                "instance_name"
            )
        for what, ours, theirs in (
            ("name servers", self.namesrv_addrs, list(namesrv_addrs)),
            ("compat", self.compat, compat),
            ("language", self.language, language),
            ("tls", self.tls or None, tls or None),  # False is plain too; a context must be the same object
        ):
            if ours != theirs:
                raise ValueError(
                    f"client id {self.client_id!r} already runs in this process with {what} {ours!r}, not {theirs!r}: "
                    "clients that share an instance name share one client instance; give this one another "
                    "instance_name"
                )

    def __repr__(self) -> str:
        users = ", ".join([*(f"producer {g}" for g in self._producers), *(f"consumer {g}" for g in self._consumers)])
        return f"ClientInstance({self.client_id!r}, users=[{users}]{', closed' if self.closed else ''})"


def _capped(rr: Any, route: Any, queue_nums: int) -> Any:
    """``route`` (of ``create_topic_key``) with every broker's queue numbers capped at ``queue_nums``: what a
    producer's first send to a topic the brokers may create takes as the topic's route."""
    queues = [
        rr.QueueData(
            q.broker_name,
            min(queue_nums, q.read_queue_nums),
            min(queue_nums, q.read_queue_nums),
            q.perm,
            q.topic_sys_flag,
        )
        for q in route.queue_datas or ()
    ]
    return rr.TopicRouteData(queues, route.broker_datas, route.order_topic_conf)
