"""``Consumer``: a RocketMQ push consumer on real brokers, with rebalance through rocketroute's strategies.

It is ``DefaultMQPushConsumer`` for Python, push built on pull as the Java client does it:

- routes and heartbeats through its client instance (:mod:`rocketroute.client.instance`, shared with the producers
  and consumers of its client id): the subscribed topics' routes every ``poll_name_server_interval`` ms and a
  heartbeat (HEART_BEAT) carrying its subscriptions to every broker node every ``heartbeat_broker_interval`` ms;
- a rebalance every ``rebalance_interval`` ms (Java's 20 s) and whenever a broker pushes
  NOTIFY_CONSUMER_IDS_CHANGED: the topic's queues (from its route) and the group's members (GET_CONSUMER_LIST_BY_GROUP)
  go through :func:`rocketroute.rebalance` with the consumer's strategy (any of the library's, or a user's object
  with ``allocate(group, cid, mq_all, cid_all)``); broadcasting consumers take every queue;
- one pull loop per owned queue (PULL_MESSAGE with long polling, the broker holding a pull up to 15 s), with
  Java's flow control (``pull_threshold_for_queue`` messages, ``pull_threshold_size_for_queue`` MiB,
  ``consume_concurrently_max_span``);
- offsets: read from the broker when a queue is taken (``consume_from_where`` when none is stored), committed every
  ``persist_consumer_offset_interval`` ms and at shutdown; broadcasting consumers keep them in a local file;
- a concurrent listener (``CONSUME_SUCCESS`` / ``RECONSUME_LATER``: sent back with CONSUMER_SEND_MSG_BACK) on
  ``consume_thread_min`` threads, or an orderly one: each queue locked on its broker (LOCK_BATCH_MQ /
  UNLOCK_BATCH_MQ) and consumed by one thread at a time, in queue order.

Threads: the network work runs on the remoting client's event loop (a daemon thread); listeners run on the
consumer's thread pool. Where this consumer does better than Java's, the docstrings say so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...log_repeats import REPEATS
from ...net.runtime import RemotingClient
from ...net.tls import TLS, check_tls
from ...protocol.acl import Credentials, check_credentials
from ...rebalance import QueueAllocator
from ..broker_addrs import BrokerAddrTable
from ..instance import ClientInstance
from ..instances import acquire_instance, client_identity, forked_error, release_instance
from ..namespace import check_namespace, wrap
from ..namesrv import parse_namesrv_addrs
from ..settings_check import check_compat, check_group
from ..workers import CallbackThread, ConsumePool
from ._shared import _STOP_TIMEOUT_S, _now_ms, log
from .constants import CONSUMER_CONSTANTS
from .consume_concurrently import ConcurrentConsumeService
from .consume_orderly import OrderlyConsumeService
from .consume_service import ConsumeService
from .coordinator import Coordinator
from .errors import DuplicateClientIdError
from .feed import Feed
from .listener import MessageListener
from .loop_pool import LoopConsumePool
from .offset_store import LocalFileOffsetStore, OffsetStore, RemoteBrokerOffsetStore, default_offset_store_dir
from .process_queue import ProcessQueue
from .puller import Puller
from .rebalance import Rebalancer
from .settings import ConsumerSettings, java_timestamp_string
from .stats import ConsumerStats
from .subscription import (
    SubscriptionData,
    build_subscription,
    retry_topic,
)

if TYPE_CHECKING:
    from ... import MessageQueue

__all__ = ["Consumer", "ConsumerStats", "DuplicateClientIdError"]


class Consumer:
    """A push consumer of group ``group`` on the cluster behind ``namesrv`` (``"host:port;host:port"`` or a list).

    ``subscriptions``: ``{topic: tag expression}`` (``"*"``, ``"TagA || TagB"``) or a list of topics (all tags).
    ``strategy``: the allocation strategy (default the backend's ``AllocateMessageQueueAveragely()``).
    ``listener(msgs, context)``: see :mod:`rocketroute.client.consumer.listener`; ``orderly=True`` makes it an
    orderly listener. ``on_rebalance(topic, assigned)`` is called on the consumer's callback thread (where it may
    call the consumer's methods) after each rebalance that changed what this consumer owns.

    Settings (:class:`~rocketroute.client.consumer.settings.ConsumerSettings`) are ``DefaultMQPushConsumer``'s in
    snake_case with Java's defaults, given as keyword arguments (``message_model="BROADCASTING"``,
    ``pull_batch_size=64``), as a ``settings=`` object, or both (the keywords change the object's values). A name
    the consumer would not read is refused with :class:`~rocketroute.errors.UnsupportedSettingError`.
    ``instance_name`` and ``client_ip`` make the
    client id (``ip@instance``); the default instance name is ``<pid>#<nanos>`` as Java's, so consumers in one
    process have distinct ids. ``instance=`` (another client's :attr:`instance`) joins that client instance
    instead: one connection per broker, one route table and heartbeat (:mod:`rocketroute.client.instance`).
    ``credentials`` (:class:`~rocketroute.Credentials`) sign every request (:mod:`rocketroute.protocol.acl`); ``tls``
    (``True``, or an :class:`ssl.SSLContext`) makes every connection TLS (:mod:`rocketroute.net.tls`).
    ``namespace`` (Java 5.x's): the subscribed topics and the group go out as ``namespace%name``; the listener
    gets messages with the plain topic (:mod:`rocketroute.client.namespace`).

    Use it as a context manager, or call :meth:`start` and :meth:`shutdown`.
    """

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        subscriptions: Mapping[str, str | None] | Iterable[str],
        strategy: QueueAllocator | None = None,
        *,
        listener: MessageListener | None = None,
        orderly: bool = False,
        compat: str = "5.3",
        instance_name: str | None = None,
        client_ip: str | None = None,
        instance: ClientInstance | None = None,
        credentials: Credentials | None = None,
        tls: TLS = None,
        namespace: str | None = None,
        on_rebalance: Callable[[str, tuple[MessageQueue, ...]], None] | None = None,
        backend: Any = None,
        settings: ConsumerSettings | None = None,
        **overrides: Any,
    ) -> None:
        compat = check_compat(compat)
        check_group(group, "consumer group")
        cfg = ConsumerSettings.resolve(compat, settings, overrides)
        if cfg.consume_timestamp is None:  # Java fixes it when the consumer object is built
            cfg = cfg.replace(consume_timestamp=java_timestamp_string(_now_ms() - 30 * 60 * 1000))
        self.namesrv_addrs = parse_namesrv_addrs(namesrv)
        self.namespace = check_namespace(namespace)
        # Java wraps the group at start (setConsumerGroup(wrapNamespace(...))) and each subscribed topic; here at
        # once: every request, the retry topic (%RETRY%ns%group) and the offsets use the names on the wire
        group = wrap(self.namespace, group)
        self.group = group
        self.compat = compat
        self.orderly = orderly
        self.settings: ConsumerSettings = cfg
        if backend is None:
            import rocketroute as backend
        self._rr = backend
        self.strategy: QueueAllocator = strategy if strategy is not None else backend.AllocateMessageQueueAveragely()
        # a MessageListener, or rocketroute.aio's AsyncMessageListener: the consume service checks what it answers
        self.listener: Callable[..., Any] | None = listener
        self.on_rebalance = on_rebalance
        if isinstance(subscriptions, (str, bytes)):
            raise TypeError(
                f"subscriptions must be a {{topic: tag expression}} mapping or a list of topics, not a "
                f"{type(subscriptions).__name__} ({subscriptions!r}; for one topic: [{subscriptions!r}])"
            )
        if isinstance(subscriptions, Mapping):
            subs = dict(subscriptions)
        else:
            subs = {t: "*" for t in subscriptions}
        if not subs:
            raise ValueError("a consumer needs at least one subscription")
        for topic, expression in subs.items():
            if not isinstance(topic, str) or not topic.strip():
                raise TypeError(f"a subscribed topic must be a non-blank str, not {topic!r}")
            if expression is not None and not isinstance(expression, str):
                raise TypeError(f"the tag expression of {topic!r} must be a str or None, not {expression!r}")
        self._subs: dict[str, SubscriptionData] = {
            wrap(self.namespace, t): build_subscription(wrap(self.namespace, t), e) for t, e in subs.items()
        }
        if cfg.message_model == "CLUSTERING":  # copySubscription: a clustering group also consumes its retry topic
            rt = retry_topic(group)
            self._subs.setdefault(rt, build_subscription(rt, "*"))
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
        self._executor: ConsumePool | LoopConsumePool | None = None
        self._callbacks: CallbackThread | None = None
        self._broker_addrs = BrokerAddrTable()  # brokerAddrTable: the instance's once started
        self._sub_info: dict[str, list[Any]] = {}  # topicSubscribeInfoTable
        self._pqs: dict[Any, ProcessQueue] = {}  # processQueueTable
        self._pull_tasks: dict[Any, asyncio.Task[None]] = {}
        self._pull_from: dict[Any, int] = {}  # pullFromWhichNodeTable
        self._tasks: list[asyncio.Task[None]] = []
        self._rebalance_wakeup: asyncio.Event | None = None
        self._rebalance_lock: asyncio.Lock | None = None
        self._mq_locks: dict[Any, threading.Lock] = {}  # MessageQueueLock (orderly)
        self._mq_locks_guard = threading.Lock()
        # the cache limits of a queue (messages, bytes): pull_threshold_*_for_queue, or a topic's share of
        # pull_threshold_*_for_topic among the queues this consumer owns (set at each rebalance)
        self._queue_thresholds = (cfg.pull_threshold_for_queue, cfg.pull_threshold_size_for_queue * 1024 * 1024)
        self._thresholds: dict[str, tuple[int, int]] = {}
        self._duplicate_logged: set[str] = set()
        # the parts, each an object over this consumer's state (Java's RebalancePushImpl, the pull of
        # DefaultMQPushConsumerImpl, the ConsumeMessage*Service; the coordinator is its MQClientInstance side)
        self._coordinator = Coordinator(self)
        self._rebalancer = Rebalancer(self)
        self._puller = Puller(self)
        self._consume_service: ConsumeService = self._consume_service_for(orderly)
        # set by rocketroute.aio before start(): the instance then runs on that (the caller's) loop, the listener is
        # a coroutine function awaited there, or the feed that ``async for`` reads
        self._bind_loop: asyncio.AbstractEventLoop | None = None
        self._feed: Feed | None = None

    # -- lifecycle --------------------------------------------------------------------------------------------

    def register_message_listener(self, listener: MessageListener, *, orderly: bool = False) -> None:
        """``registerMessageListener``: set the listener (before :meth:`start`)."""
        if self._state != "created":
            raise RuntimeError("the listener is registered before start()")
        self.listener = listener
        self.orderly = orderly
        self._consume_service = self._consume_service_for(orderly)

    def _consume_service_for(self, orderly: bool) -> ConsumeService:
        """The consume service the listener asks for (Java's ``start`` picks it by the listener's type)."""
        return OrderlyConsumeService(self) if orderly else ConcurrentConsumeService(self)

    def start(self) -> Consumer:
        """Fetch the routes, heartbeat to the brokers, run the first rebalance (so the consumer owns its queues
        when this returns) and start the pulls and the timers."""
        if not self._begin_start():
            return self
        try:
            self._call(self._start())
            self._flush_callbacks()  # on_rebalance has run
        except BaseException:
            self.shutdown()
            raise
        return self

    def _begin_start(self) -> bool:
        """Join the client instance and build the offset store and the pools; False when already running."""
        with self._state_lock:
            if self._state == "running":
                return False
            if self._state != "created":
                raise RuntimeError(f"the consumer is {self._state}; a consumer starts once")
            if self.listener is None and self._feed is None:
                raise RuntimeError("register a message listener before start()")
            timeout = self.settings.mq_client_api_timeout
            # the client id's shared instance (one loop thread and one connection per broker for all its clients);
            # a second consumer of this group on it is refused here
            self._instance = instance = acquire_instance(self, "consumer")
            self._remoting = instance.remoting
            self._broker_addrs = instance.broker_addrs
            if self.model == "CLUSTERING":
                self._offsets = RemoteBrokerOffsetStore(
                    self.group, instance.api, self._coordinator.master_addr, timeout_ms=timeout
                )
            else:
                root = self.settings.offset_store_dir or default_offset_store_dir()
                path = os.path.join(str(root), self.client_id, self.group, "offsets.json")
                self._offsets = LocalFileOffsetStore(path, self._rr.MessageQueue)
            name = f"rocketroute-consume-{self.group}"
            n = self.settings.consume_thread_min
            self._executor = LoopConsumePool(n, name) if self._bind_loop is not None else ConsumePool(n, name)
            self._callbacks = CallbackThread(f"rocketroute-callbacks-{self.group}")
            self._started_ms = _now_ms()
            self._state = "running"
        return True

    async def _start_on_loop(self) -> None:
        """:meth:`start` for a consumer whose instance runs on the calling loop (:mod:`rocketroute.aio`)."""
        if not self._begin_start():
            return
        try:
            await self._start()
            await self._flush_callbacks_on_loop()  # on_rebalance has run
        except BaseException:
            await self._shutdown_on_loop()
            raise

    def shutdown(self) -> None:
        """Stop pulling, wait for the listener calls under way (their offsets are committed), commit every
        offset and wait for the brokers' acknowledgement (Java's commit is oneway), unlock the orderly queues,
        unregister from the brokers (so the others rebalance at once) and close the connections.

        The wait for listener calls is bounded by ``await_termination_millis_when_shutdown`` (ms) or, when that is
        0 (Java's default), by ``consume_timeout`` (minutes): a call still running then is abandoned with a
        WARNING, and its messages are not committed (they are consumed again, by this group's next owner of the
        queue). It may be called from a listener (the caller's own call is not waited for) or a callback."""
        self._refuse_on_loop("shutdown()")
        if not self._begin_stop():
            return
        remoting, executor = self._remoting, self._executor
        assert remoting is not None and isinstance(executor, ConsumePool)
        # bounded: a shutdown never hangs, whatever a task or a broker does (the loops also end on the state)
        try:
            self._call(self._stop_pulls(), timeout=_STOP_TIMEOUT_S)
        except Exception as e:
            log.warning("stopping the pulls and timers did not finish: %r", e)
        wait_ms = self._listener_wait_ms()
        self._abandoned(executor.shutdown(wait_ms / 1000), wait_ms)
        try:
            self._call(self._final_commit_and_unregister(), timeout=self._final_bound_s())
        except Exception as e:
            log.warning("the final commit or unregister did not finish: %r", e)
        if self._callbacks is not None:
            self._callbacks.close()
        if self._instance is not None:  # the last client of the instance closes its connections and loop thread
            release_instance(self._instance, "consumer", self.group)
        # last: "shut down" means this consumer's part is over (and the instance closed when it was the last)
        self._state = "shut down"
        self._log_lifecycle("shut down")

    async def _shutdown_on_loop(self) -> None:
        """:meth:`shutdown` for a consumer whose instance runs on the calling loop (:mod:`rocketroute.aio`): the
        same steps, awaited there. Messages handed to ``async for`` and not acknowledged are not committed."""
        if not self._begin_stop():
            return
        remoting, executor = self._remoting, self._executor
        assert remoting is not None and isinstance(executor, LoopConsumePool)
        try:
            await asyncio.wait_for(self._stop_pulls(), _STOP_TIMEOUT_S)
        except Exception as e:
            log.warning("stopping the pulls and timers did not finish: %r", e)
        if self._feed is not None:  # what async for holds or has not taken yet is not consumed
            self._feed.close()
        wait_ms = self._listener_wait_ms()
        self._abandoned(await executor.shutdown(wait_ms / 1000), wait_ms)
        try:
            await asyncio.wait_for(self._final_commit_and_unregister(), self._final_bound_s())
        except Exception as e:
            log.warning("the final commit or unregister did not finish: %r", e)
        if self._callbacks is not None:
            self._callbacks.close()
        if self._instance is not None and release_instance(self._instance, "consumer", self.group, close=False):
            await remoting.aclose()
        self._state = "shut down"
        self._log_lifecycle("shut down")

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
        topics = sorted(t for t in self._subs if t != retry_topic(self.group))
        log.info(
            "consumer %s %s: client id %s, name servers %s, %s %s, topics %s",
            self.group,
            what,
            self.client_id,
            ";".join(self.namesrv_addrs),
            self.model,
            "orderly" if self.orderly else "concurrently",
            ", ".join(topics),
        )

    def _listener_wait_ms(self) -> int:
        s = self.settings
        return s.await_termination_millis_when_shutdown or s.consume_timeout * 60_000

    def _abandoned(self, still: int, wait_ms: int) -> None:
        if still:
            log.warning(
                "%d listener call(s) of %s still running %d ms into shutdown: abandoned, their messages are not "
                "committed and will be consumed again",
                still,
                self.group,
                wait_ms,
            )

    def _final_bound_s(self) -> float:
        return self.settings.mq_client_api_timeout / 1000 * (2 + 2 * len(self._broker_addrs)) + 1

    def __enter__(self) -> Consumer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

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
        return self._state == "running"

    def _refuse_on_loop(self, what: str) -> None:
        remoting = self._remoting
        if remoting is not None and remoting.on_loop_thread():
            raise RuntimeError(
                f"{what} cannot be called on the consumer's event-loop thread (it would wait for that loop): call "
                "it from a listener, a callback or any other thread"
            )

    def _forked_away(self) -> None:
        """In the child of a fork (see :func:`~rocketroute.client.instances.forked_error`): unusable, and stopping it
        returns at once; its lock is new."""
        self._state_lock = threading.Lock()
        self._forked_from = os.getppid()
        self._state = "forked"

    def _call(self, coro: Any, timeout: float | None = None) -> Any:
        if self._state == "forked":
            coro.close()
            raise forked_error("consumer", self._forked_from)
        remoting = self._remoting
        if remoting is None:
            coro.close()
            raise RuntimeError(f"the consumer is {self._state}: call start() first")
        if remoting.on_loop_thread():
            coro.close()
            self._refuse_on_loop("a blocking Consumer method")
        return remoting.run(coro, timeout)

    # -- what a user can look at --------------------------------------------------------------------------------

    def assignment(self, topic: str | None = None) -> tuple[MessageQueue, ...]:
        """The queues this consumer owns now (of ``topic``, or of all its topics but the retry topic), sorted. In a
        namespace, ``topic`` is the plain name and the queues carry the topic as subscribed (``namespace%topic``)."""
        rt = retry_topic(self.group)
        mqs = [mq for mq, pq in list(self._pqs.items()) if not pq.dropped]
        if topic is None:
            return tuple(sorted(mq for mq in mqs if mq.topic != rt))
        wanted = wrap(self.namespace, topic)
        return tuple(sorted(mq for mq in mqs if mq.topic == wanted))

    def committed_offsets(self) -> dict[MessageQueue, int]:
        """The offsets held in memory (the next message to consume of each owned queue)."""
        return {} if self._offsets is None else self._offsets.offsets()

    def process_queue(self, mq: MessageQueue) -> ProcessQueue | None:
        """The queue's :class:`~rocketroute.client.process_queue.ProcessQueue` (messages pulled, not consumed)."""
        return self._pqs.get(mq)

    def consumer_ids(self, topic: str) -> list[str]:
        """The group's members as a broker of ``topic`` reports them (GET_CONSUMER_LIST_BY_GROUP)."""
        return self._call(self._rebalancer.find_consumer_ids(wrap(self.namespace, topic)))

    def rebalance_now(self) -> None:
        """Run a rebalance now (what a NOTIFY_CONSUMER_IDS_CHANGED triggers) and return when it is done (and
        ``on_rebalance`` has been called for what it changed, unless this is called from ``on_rebalance``)."""
        self._call(self._rebalancer.rebalance_all())
        self._flush_callbacks()

    def _flush_callbacks(self) -> None:
        if self._callbacks is not None:
            self._callbacks.flush(self.settings.mq_client_api_timeout / 1000)

    async def _flush_callbacks_on_loop(self) -> None:
        """:meth:`_flush_callbacks` awaited: the callback thread wakes the loop when it reaches this point."""
        if self._callbacks is None:
            return
        loop = asyncio.get_running_loop()
        reached: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(lambda: reached.done() or reached.set_result(None))

        self._callbacks.post("flush", wake)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(reached, self.settings.mq_client_api_timeout / 1000)

    def refresh_routes(self) -> None:
        """Fetch the subscribed topics' routes now (what the instance's poll does every ``poll_name_server_interval``
        ms)."""
        self._call(self._coordinator.refresh_routes())

    # -- what the client instance asks of its consumers (Java's MQConsumerInner) ------------------------------

    def _route_topics(self) -> list[str]:
        return self._coordinator.route_topics()

    def _takes_route(self, topic: str) -> bool:
        return self._coordinator.takes_route(topic)

    def _needs_route(self, topic: str) -> bool:
        return self._coordinator.needs_route(topic)

    def _on_route(self, topic: str, route: Any, *, from_default: bool) -> None:
        self._coordinator.on_route(topic, route, from_default=from_default)

    def _consumer_data(self) -> Any:
        return self._coordinator.consumer_data()

    def _on_notify(self, cmd: Any, addr: str) -> None:
        return self._coordinator.on_notify(cmd, addr)

    def _on_running_info(self, cmd: Any, addr: str) -> Any:
        return self._coordinator.on_running_info(cmd, addr)

    def _on_consume_directly(self, cmd: Any, addr: str) -> Any:
        return self._coordinator.on_consume_directly(cmd, addr)

    # -- start and stop (on the loop) --------------------------------------------------------------------------

    async def _start(self) -> None:
        self._rebalance_wakeup = asyncio.Event()
        self._rebalance_lock = asyncio.Lock()
        await self._coordinator.refresh_routes()
        clustering = self.model == "CLUSTERING"
        if clustering:
            await self._rebalancer.check_unique_client_id(registered=False)
        self._registered = True  # in the instance's heartbeats from this one on
        refused = await self._coordinator.heartbeat_all()
        if refused:  # Java only logs it; a consumer its brokers refuse would never receive a message
            raise refused[0]
        if clustering:
            await self._rebalancer.check_unique_client_id(registered=True)
        await self._rebalancer.rebalance_all()
        s = self.settings
        self._tasks = [
            asyncio.ensure_future(self._rebalancer.rebalance_loop()),
            asyncio.ensure_future(self._every(s.persist_consumer_offset_interval, self._persist_all)),
        ]
        if self.orderly and self.model == "CLUSTERING":
            self._tasks.append(
                asyncio.ensure_future(
                    self._every(CONSUMER_CONSTANTS["REBALANCE_LOCK_INTERVAL"], self._rebalancer.lock_all)
                )
            )
        service = self._consume_service
        if isinstance(service, ConcurrentConsumeService):  # its cleanExpireMsg, every consume_timeout minutes
            self._tasks.append(asyncio.ensure_future(self._every(s.consume_timeout * 60_000, service.clean_expired)))
        self._log_lifecycle("started")

    async def _stop_pulls(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in list(self._pull_tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks, *self._pull_tasks.values(), return_exceptions=True)
        self._pull_tasks.clear()

    async def _final_commit_and_unregister(self) -> None:
        assert self._offsets is not None and self._remoting is not None
        owned = list(self._pqs)
        for pq in self._pqs.values():
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
        if self.orderly and self.model == "CLUSTERING":
            await self._rebalancer.unlock_all(owned)
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
        owned = list(self._pqs)
        try:
            await self._offsets.persist_all(owned)
        except Exception as e:
            REPEATS.log(
                log, logging.WARNING, "committing the offsets of %s failed: %s", self.group, e, about=self.group
            )

    def __repr__(self) -> str:
        return f"Consumer(group={self.group!r}, client_id={self.client_id!r}, model={self.model}, {self._state})"
