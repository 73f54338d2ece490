"""``ConsumerBase``: what every consumer of a group is, whatever it consumes with: the push consumers
(:class:`~.push_base.PushConsumerBase`: :class:`~rocketroute.client.consumer.consumer.Consumer` and
:class:`rocketroute.aio.Consumer`) and the lite pull consumers (:class:`~.lite_pull_base.LitePullBase`). The
settings, subscriptions and identity a consumer is built from and its state; joining and leaving the client id's
instance with its offset store; the steps of a start and a stop that run on the loop (routes, the unique client
id, heartbeats, the first assignment, the periodic commit; the final commit and unregister), and what the instance
asks of a consumer (:class:`~rocketroute.client.inner.ConsumerInner`: routes, heartbeats and the brokers'
requests). Each kind builds its own parts at start (:meth:`ConsumerBase._build_parts`).

``S`` is the settings class: :class:`~.settings.ConsumerSettings` or
:class:`~.lite_pull_settings.LitePullConsumerSettings`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from ...log_repeats import REPEATS
from ...net.runtime import RemotingClient
from ...net.tls import TLS, check_tls
from ...protocol import RemotingCommand
from ...protocol.acl import Credentials, check_credentials
from ...protocol.response_code import ResponseCode
from ...rebalance import QueueAllocator
from ..broker_addrs import BrokerAddrTable
from ..instance import ClientInstance
from ..instances import acquire_instance, client_identity, forked_error
from ..namespace import check_namespace, wrap
from ..namesrv import parse_namesrv_addrs
from ..settings_base import ClientSettings
from ..settings_check import check_compat, check_group
from ..workers import CallbackThread
from ._shared import _now_ms, log
from .lite_pull_settings import LitePullConsumerSettings
from .offset_store import LocalFileOffsetStore, OffsetStore, RemoteBrokerOffsetStore, default_offset_store_dir
from .process_queue import ProcessQueue
from .queue_locks import QueueLocks
from .rebalance import Rebalancer
from .running_info import CLIENT_VERSION_DESC, encode_running_info, python_stacks, settings_properties
from .settings import ConsumerSettings, java_timestamp_string
from .stats import ConsumerStats
from .subscription import ConsumerData, retry_topic
from .subscription_state import SubscriptionState

if TYPE_CHECKING:
    from ... import MessageQueue

__all__ = ["STOP_TIMEOUT_S", "ConsumerBase"]

STOP_TIMEOUT_S = 10.0
"""How long a stop waits for the pulls and timers it cancelled: they end at once; this bounds a stop if one does
not."""

S = TypeVar("S", ConsumerSettings, LitePullConsumerSettings)


class ConsumerBase(Generic[S]):
    """See the module; the arguments are :class:`~rocketroute.client.consumer.consumer.Consumer`'s (but the
    listener's). A kind says which settings it reads (:attr:`SETTINGS`) and what its heartbeat calls it
    (:attr:`CONSUME_TYPE`), and builds its parts in :meth:`_build_parts`."""

    SETTINGS: ClassVar[type[ClientSettings]] = ConsumerSettings
    CONSUME_TYPE: ClassVar[str] = "CONSUME_PASSIVELY"
    """``ConsumeType``: ``CONSUME_PASSIVELY`` (push) or ``CONSUME_ACTIVELY`` (pull)."""
    LITE: ClassVar[bool] = False
    """A lite pull consumer: it may start with no subscription, and subscribes no retry topic."""

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        subscriptions: Mapping[str, str | None] | Iterable[str],
        strategy: QueueAllocator | None = None,
        *,
        compat: str = "5.3",
        instance_name: str | None = None,
        client_ip: str | None = None,
        instance: ClientInstance | None = None,
        credentials: Credentials | None = None,
        tls: TLS = None,
        namespace: str | None = None,
        on_rebalance: Callable[[str, tuple[MessageQueue, ...]], None] | None = None,
        backend: Any = None,
        settings: S | None = None,
        **overrides: Any,
    ) -> None:
        compat = check_compat(compat)
        check_group(group, "consumer group")
        cfg = cast(S, self.SETTINGS.resolve(compat, settings, overrides))
        if cfg.consume_timestamp is None:  # Java fixes it when the consumer object is built
            cfg = cfg.replace(consume_timestamp=java_timestamp_string(_now_ms() - 30 * 60 * 1000))
        self.namesrv_addrs = parse_namesrv_addrs(namesrv)
        self.namespace = check_namespace(namespace)
        # Java wraps the group at start (setConsumerGroup(wrapNamespace(...))) and each subscribed topic; here at
        # once: every request, the retry topic (%RETRY%ns%group) and the offsets use the names on the wire
        group = wrap(self.namespace, group)
        self.group = group
        self.compat = compat
        self.settings: S = cfg
        if backend is None:
            import rocketroute as backend
        self._rr = backend
        self.strategy: QueueAllocator = strategy if strategy is not None else backend.AllocateMessageQueueAveragely()
        self.on_rebalance = on_rebalance
        # the subscriptions, the queues each route offers and the process queues owned, which the instance and
        # the parts read and the rebalancer changes
        self._subscription = self._initial_subscription(subscriptions)
        self.instance_name, self.client_id = client_identity(instance, instance_name, client_ip)
        self._join = instance
        self.credentials = check_credentials(credentials)
        check_tls(tls)  # a bad value is refused here, not at start
        self.tls = tls
        self.stats = ConsumerStats()
        self._state = "created"
        self._started_ms = 0
        # whether the instance's heartbeats carry this consumer: from its own first one, after the check that no
        # other member runs with its client id (a heartbeat before it would make it see itself)
        self._registered = False
        self._state_lock = threading.Lock()
        self._instance: ClientInstance | None = None
        self._remoting: RemotingClient | None = None
        self._offsets: OffsetStore | None = None
        self._callbacks: CallbackThread | None = None
        self._broker_addrs = BrokerAddrTable()  # brokerAddrTable: the instance's once started
        self._tasks: list[asyncio.Task[None]] = []
        # the parts every kind has, built at start: the rebalancer (RebalanceImpl) and, for an orderly clustering
        # push consumer only, the queues' broker locks
        self._rebalancer: Rebalancer | None = None
        self._rebalance_task: asyncio.Task[None] | None = None
        self._locks: QueueLocks | None = None
        # rocketroute.aio's, set at start: the instance then runs on that (the caller's) loop
        self._bind_loop: asyncio.AbstractEventLoop | None = None

    # -- what each kind of consumer says -------------------------------------------------------------------------

    def _initial_subscription(self, subscriptions: Any) -> SubscriptionState:
        """The subscription state of a consumer built with ``subscriptions`` (a lite pull consumer's may be empty
        and has no retry topic: :attr:`LITE`)."""
        return SubscriptionState.subscribe(
            subscriptions,
            namespace=self.namespace,
            group=self.group,
            clustering=self.settings.message_model == "CLUSTERING",
            compat=self.compat,
            lite=self.LITE,
        )

    def _check_startable(self) -> None:
        """Raise when the consumer cannot start as it is (a push consumer without a listener)."""

    def _build_parts(self, instance: ClientInstance, offsets: OffsetStore) -> None:  # pragma: no cover - overridden
        """Build the kind's parts over the started instance and the offset store (under the state lock)."""
        raise NotImplementedError

    async def _first_assignment(self) -> None:
        """What the consumer owns when its start returns: a first rebalance."""
        await self._rebalancing().rebalance_all()

    def _periodic(self) -> list[tuple[int, Callable[[], Any]]]:
        """The kind's timers beside the rebalance loop and the commit: ``(interval ms, coroutine function)``."""
        return []

    def _kind_text(self) -> str:
        """What the start and shutdown lines say of the kind (``concurrently``, ``orderly``, ``lite pull``)."""
        return ""

    def _kind_properties(self) -> dict[str, str]:
        """The kind's own properties in the running info."""
        return {}

    def _cancel_pulls(self) -> list[asyncio.Task[None]]:
        """Cancel the pulls; their tasks, to wait for."""
        return []

    # -- joining and leaving the instance ----------------------------------------------------------------------

    def _begin_start(self) -> bool:
        """Join the client instance and build the offset store and the parts; False when already running."""
        with self._state_lock:
            if self._state == "running":
                return False
            if self._state != "created":
                raise RuntimeError(f"the consumer is {self._state}; a consumer starts once")
            self._check_startable()
            # the client id's shared instance (one loop thread and one connection per broker for all its clients);
            # a second consumer of this group on it is refused here
            self._instance = instance = acquire_instance(self, "consumer")
            self._remoting = instance.remoting
            self._broker_addrs = instance.broker_addrs
            offsets: OffsetStore
            if self.model == "CLUSTERING":
                timeout = self.settings.mq_client_api_timeout
                offsets = RemoteBrokerOffsetStore(
                    self.group, instance.api, instance.broker_addrs.master, timeout_ms=timeout
                )
            else:
                root = self.settings.offset_store_dir or default_offset_store_dir()
                path = os.path.join(str(root), self.client_id, self.group, "offsets.json")
                offsets = LocalFileOffsetStore(path, self._rr.MessageQueue)
            self._offsets = offsets
            self._callbacks = CallbackThread(f"rocketroute-callbacks-{self.group}")
            self._build_parts(instance, offsets)
            self._started_ms = _now_ms()
            self._state = "running"
        return True

    def _rebalancer_for(self, instance: ClientInstance, offsets: OffsetStore, puller: Any, limits: Any) -> Rebalancer:
        """The rebalancer of this consumer's subscriptions, starting and stopping ``puller``'s queues."""
        timeout = self.settings.mq_client_api_timeout
        return Rebalancer(
            self.group,
            self.client_id,
            self.settings,
            self._subscription,
            self.strategy,
            clustering=self.model == "CLUSTERING",
            api=instance.api,
            broker_addrs=instance.broker_addrs,
            routes=instance.routes,
            update_route=instance.update_route,
            heartbeat=partial(instance.heartbeat_all, timeout),
            offsets=offsets,
            puller=puller,
            limits=limits,
            locks=self._locks,
            stats=self.stats,
            on_change=self._post_rebalance if self.on_rebalance is not None else None,
            running=self._is_running,
        )

    def _begin_stop(self) -> bool:
        """Move a running consumer to "stopping"; False when there is nothing to stop."""
        with self._state_lock:
            if self._state != "running":
                if self._state == "created":
                    self._state = "shut down"
                return False
            self._state = "stopping"
        return True

    def _log_lifecycle(self, what: str) -> None:
        """The INFO line of a start or a shutdown (Java's "the consumer [group] start OK"): who, on which cluster."""
        topics = sorted(t for t in self._subscription.subscriptions if t != retry_topic(self.group))
        log.info(
            "consumer %s %s: client id %s, name servers %s, %s %s, topics %s",
            self.group,
            what,
            self.client_id,
            ";".join(self.namesrv_addrs),
            self.model,
            self._kind_text(),
            ", ".join(topics),
        )

    def _final_bound_s(self) -> float:
        return self.settings.mq_client_api_timeout / 1000 * (2 + 2 * len(self._broker_addrs)) + 1

    @property
    def model(self) -> str:
        """The message model, ``settings.message_model``: ``"CLUSTERING"`` or ``"BROADCASTING"``."""
        return self.settings.message_model

    @property
    def instance(self) -> ClientInstance | None:
        """The client instance this consumer runs on (``None`` before :meth:`start`): pass it as ``instance=`` to
        another producer or consumer to share it."""
        return self._instance

    @property
    def running(self) -> bool:
        return self._is_running()

    def _is_running(self) -> bool:
        """Whether the consumer runs: :attr:`running`, and a call the parts are given in their constructors."""
        return self._state == "running"

    def _forked_away(self) -> None:
        """In the child of a fork (see :func:`~rocketroute.client.instances.forked_error`): unusable, and stopping it
        returns at once; its lock is new."""
        self._state_lock = threading.Lock()
        self._forked_from = os.getppid()
        self._state = "forked"

    # -- what a user can look at --------------------------------------------------------------------------------

    def assignment(self, topic: str | None = None) -> tuple[MessageQueue, ...]:
        """The queues this consumer owns now (of ``topic``, or of all its topics but the retry topic), sorted. In a
        namespace, ``topic`` is the plain name and the queues carry the topic as subscribed (``namespace%topic``)."""
        rt = retry_topic(self.group)
        mqs = self._subscription.owned()
        if topic is None:
            return tuple(sorted(mq for mq in mqs if mq.topic != rt))
        wanted = wrap(self.namespace, topic)
        return tuple(sorted(mq for mq in mqs if mq.topic == wanted))

    def committed_offsets(self) -> dict[MessageQueue, int]:
        """The offsets held in memory (the next message to consume of each owned queue)."""
        return {} if self._offsets is None else self._offsets.offsets()

    def process_queue(self, mq: MessageQueue) -> ProcessQueue | None:
        """The queue's :class:`~rocketroute.client.process_queue.ProcessQueue` (messages pulled, not consumed)."""
        return self._subscription.process_queues.get(mq)

    # -- what the client instance asks of its consumers (Java's MQConsumerInner) ------------------------------

    def _route_topics(self) -> list[str]:
        return self._subscription.route_topics()

    def _takes_route(self, topic: str) -> bool:
        return self._subscription.takes_route(topic)

    def _needs_route(self, topic: str) -> bool:
        return self._subscription.needs_route(topic)

    def _on_route(self, topic: str, route: Any, *, from_default: bool) -> None:
        self._subscription.on_route(topic, route)

    def _consumer_data(self) -> ConsumerData:
        return ConsumerData(
            self.group,
            list(self._subscription.subscriptions.values()),
            message_model=self.model,
            consume_from_where=self.settings.consume_from_where,
            consume_type=self.CONSUME_TYPE,
            unit_mode=False,  # refused unless Java's default (ConsumerSettings.NOT_SUPPORTED)
        )

    def _on_notify(self, cmd: RemotingCommand, addr: str) -> None:
        """NOTIFY_CONSUMER_IDS_CHANGED from a broker: rebalance now (``rebalanceImmediately``)."""
        rebalancer = self._rebalancer
        if cmd.ext_fields.get("consumerGroup") in (None, self.group) and rebalancer is not None:
            log.debug("consumer ids of %s changed (told by %s): rebalancing", self.group, addr)
            rebalancer.wake()

    def _other_group(self, cmd: RemotingCommand) -> RemotingCommand | None:
        """Java's answer to an admin request about a group this consumer is not in, or None for its own."""
        group = cmd.ext_fields.get("consumerGroup")
        if group == self.group:
            return None
        return RemotingCommand.response_to(
            cmd, ResponseCode.SYSTEM_ERROR, f"The Consumer Group <{group}> not exist in this consumer"
        )

    def _on_running_info(self, cmd: RemotingCommand, addr: str) -> RemotingCommand:
        """GET_CONSUMER_RUNNING_INFO, forwarded by a broker for an admin tool: Java's ``ConsumerRunningInfo`` of
        this member (:mod:`.running_info`). Runs on the remoting loop, which also owns the queue table."""
        if (refused := self._other_group(cmd)) is not None:
            return refused
        properties = settings_properties(self.settings.as_dict())
        properties.update(
            consumerGroup=self.group,
            messageModel=self.model,
            instanceName=self.instance_name,
            namesrvAddr=";".join(self.namesrv_addrs),
            allocateMessageQueueStrategy=str(getattr(self.strategy, "name", type(self.strategy).__name__)),
            **self._kind_properties(),
            PROP_CONSUMER_START_TIMESTAMP=str(self._started_ms),
            PROP_NAMESERVER_ADDR=";".join(self.namesrv_addrs),
            PROP_CONSUME_TYPE=self.CONSUME_TYPE,
            PROP_CLIENT_VERSION=CLIENT_VERSION_DESC[self.compat],
        )
        offsets = self._offsets
        assert offsets is not None
        state = self._subscription
        queues = [(mq, pq.info(offsets.read_memory(mq))) for mq, pq in list(state.process_queues.items())]
        jstack = python_stacks() if cmd.ext_fields.get("jstackEnable") == "true" else None
        subs = [sub.to_json() for sub in state.subscriptions.values()]
        return RemotingCommand.response_to(
            cmd, ResponseCode.SUCCESS, body=encode_running_info(properties, subs, queues, jstack)
        )

    def _on_consume_directly(self, cmd: RemotingCommand, addr: str) -> Any:
        """CONSUME_MESSAGE_DIRECTLY, forwarded by a broker for ``mqadmin consumeMessage``: a push consumer's
        (:class:`~.push_base.PushConsumerBase`); any other kind answers as Java's client does for a consumer that
        is not a push consumer."""
        return self._other_group(cmd) or RemotingCommand.response_to(
            cmd, ResponseCode.SYSTEM_ERROR, f"the consumer of group {self.group} is not a push consumer"
        )

    def _post_rebalance(self, topic: str, queues: tuple[Any, ...]) -> None:
        """``on_rebalance(topic, queues)`` on the callback thread (it may call the consumer back)."""
        if self.on_rebalance is not None and self._callbacks is not None:
            self._callbacks.post("on_rebalance", self.on_rebalance, topic, queues)

    def _rebalancing(self) -> Rebalancer:
        """The rebalancer, once the consumer started."""
        if self._state == "forked":
            raise forked_error("consumer", self._forked_from)
        if self._rebalancer is None:
            raise RuntimeError(f"the consumer is {self._state}: call start() first")
        return self._rebalancer

    async def _refresh_routes(self) -> None:
        """The subscribed topics' routes, fetched now (at start, and ``refresh_routes()``), in a round of the
        instance's (:meth:`~rocketroute.client.instance.ClientInstance.refresh_routes`: offline brokers forgotten,
        a heartbeat at once to a broker that came)."""
        instance = self._instance
        assert instance is not None
        await instance.refresh_routes(self._route_topics(), self.settings.mq_client_api_timeout)

    # -- start and stop (on the loop) --------------------------------------------------------------------------

    async def _start(self) -> None:
        rebalancer, instance = self._rebalancing(), self._instance
        assert instance is not None
        await self._refresh_routes()
        clustering = self.model == "CLUSTERING"
        if clustering:
            await rebalancer.check_unique_client_id(registered=False)
        self._registered = True  # in the instance's heartbeats from this one on
        refused = await instance.heartbeat_all(self.settings.mq_client_api_timeout)
        if refused:  # Java only logs it; a consumer its brokers refuse would never receive a message
            raise refused[0]
        if clustering:
            await rebalancer.check_unique_client_id(registered=True)
        await self._first_assignment()
        self._tasks = [
            asyncio.ensure_future(self._every(self.settings.persist_consumer_offset_interval, self._persist_all))
        ]
        if self._rebalances():
            self._ensure_rebalance_loop()
        self._tasks.extend(asyncio.ensure_future(self._every(ms, job)) for ms, job in self._periodic())
        self._log_lifecycle("started")

    def _rebalances(self) -> bool:
        """Whether the rebalance loop runs from the start (a lite pull consumer's assigned queues have none)."""
        return True

    def _ensure_rebalance_loop(self) -> None:
        """Start the rebalance loop (on the loop) unless it runs."""
        if self._rebalance_task is None and self._rebalancer is not None:
            self._rebalance_task = asyncio.ensure_future(self._rebalancer.rebalance_loop())
            self._tasks.append(self._rebalance_task)

    async def _stop_pulls(self) -> None:
        for task in self._tasks:
            task.cancel()
        pulls = self._cancel_pulls()
        await asyncio.gather(*self._tasks, *pulls, return_exceptions=True)

    async def _final_commit_and_unregister(self) -> None:
        assert self._offsets is not None and self._remoting is not None
        pqs = self._subscription.process_queues
        owned = list(pqs)
        for pq in pqs.values():
            pq.dropped = True
        try:
            await self._offsets.persist_all(owned, oneway=False)
            # once more, acknowledged again: Apache's broker runs UPDATE_CONSUMER_OFFSET on a pool of threads, so a
            # periodic (oneway) commit sent just before, with an older offset, can be applied after the first
            # final one and win (CI saw a message consumed before the shutdown come again); by the time the first
            # is answered such a commit has almost always been applied, so the second has the last word
            await self._offsets.persist_all(owned, oneway=False)
        except Exception as e:
            log.warning("committing the offsets at shutdown failed: %s", e)
        if self._locks is not None:
            await self._locks.unlock_all(owned)
        if self._instance is not None:
            await self._instance.unregister(consumer_group=self.group, timeout_ms=self.settings.mq_client_api_timeout)

    async def _every(self, interval_ms: int, job: Callable[[], Any]) -> None:
        while self._state == "running":  # the state too: see Rebalancer.wait_for_wakeup
            await asyncio.sleep(interval_ms / 1000)
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except Exception:
                what = getattr(job, "__name__", job)
                REPEATS.log(log, logging.ERROR, "periodic task %s of %s failed", what, self.group, exc_info=True)

    # -- offsets -------------------------------------------------------------------------------------------------

    async def _persist_all(self) -> None:
        """``persistConsumerOffset``: commit the owned queues' offsets (oneway, as Java), those being given up
        included, as Java's (every queue of its process queue table). Leaving those out forgot their offsets in
        memory (``persist_all`` drops the entries of queues it is not given) while the give-up waited for an orderly
        listener call: its own commit then found no offset, wrote nothing and unlocked the queue, and the next owner
        started from the last periodic commit, consuming the messages after it again."""
        if self._offsets is None:
            return
        owned = list(self._subscription.process_queues)
        try:
            await self._offsets.persist_all(owned)
        except Exception as e:
            REPEATS.log(
                log, logging.WARNING, "committing the offsets of %s failed: %s", self.group, e, about=self.group
            )

    def __repr__(self) -> str:
        return f"Consumer(group={self.group!r}, client_id={self.client_id!r}, model={self.model}, {self._state})"
