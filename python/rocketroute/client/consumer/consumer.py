"""``Consumer``: a RocketMQ push consumer on real brokers, with rebalance through rocketroute's strategies.

It is ``DefaultMQPushConsumer`` for Python, push built on pull as the Java client does it:

- heartbeats (HEART_BEAT) to every broker of the subscribed topics, every ``heartbeat_broker_interval`` ms;
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
import ipaddress
import json
import logging
import os
import random
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...consumer_config import CONSUMER_CONSTANTS
from ...rebalance import rebalance
from ...remoting import RemotingClient, RemotingCommand, RequestCode
from ...remoting.headers import (
    ConsumerSendMsgBackRequestHeader,
    GetMaxOffsetRequestHeader,
    HeartbeatRequest,
    LockBatchMqRequest,
    RequestHeader,
    SearchOffsetRequestHeader,
    UnlockBatchMqRequest,
    UnregisterClientRequestHeader,
)
from ...response_code import ResponseCode
from ..broker_addrs import BrokerAddrTable
from ..message_decode import MessageDecodeError, decode_messages, reset_retry_topic
from ..message_id import local_ip_candidates
from ..namesrv import (
    MASTER_ID,
    NameServerClient,
    TopicNotExistError,
    connect_name_servers,
    parse_namesrv_addrs,
)
from ..settings_check import check_compat, check_group
from ..workers import CallbackThread, ConsumePool
from .listener import (
    ConsumeConcurrentlyContext,
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyContext,
    ConsumeOrderlyStatus,
    MessageListener,
)
from .offset_store import LocalFileOffsetStore, OffsetStore, RemoteBrokerOffsetStore, default_offset_store_dir
from .process_queue import ProcessQueue
from .pull import FLAG_COMMIT_OFFSET, PullStatus, pull_request, pull_result, pull_sys_flag
from .running_info import CLIENT_VERSION_DESC, encode_running_info, python_stacks, settings_properties
from .settings import ConsumerSettings, java_timestamp_string, parse_java_timestamp
from .subscription import (
    ConsumerData,
    SubscriptionData,
    build_subscription,
    heartbeat_body,
    query_consumer_ids,
    retry_topic,
)

__all__ = ["Consumer", "ConsumerStats", "DuplicateClientIdError"]

log = logging.getLogger("rocketroute.consumer")


_STOP_TIMEOUT_S = 10.0  # cancelled pulls and timers end at once; this bounds a shutdown if one does not


_RAISED = object()  # what _call_listener returns when the listener raised
_DIRECT_RESULTS = {
    ConsumeConcurrentlyStatus.CONSUME_SUCCESS: "CR_SUCCESS",
    ConsumeConcurrentlyStatus.RECONSUME_LATER: "CR_LATER",
    ConsumeOrderlyStatus.SUCCESS: "CR_SUCCESS",
    ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT: "CR_LATER",
}
"""A listener's status -> ``CMResult`` of ``ConsumeMessageDirectlyResult``; anything else is ``CR_RETURN_NULL``."""


def _name_of(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else name


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class DuplicateClientIdError(RuntimeError):
    """:meth:`Consumer.start` found another member of its group with the same client id (``ip@instance_name``)."""


class ConsumerStats:
    """Counters of one consumer (read them any time): messages pulled, consumed well, failed (sent back or to be
    consumed again), sent back, pulls, pull errors, messages set aside as undecodable, rebalances run and the time
    the last one changed something."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.pulled = 0
        self.consumed = 0
        self.failed = 0
        self.sent_back = 0
        self.pulls = 0
        self.pull_errors = 0
        self.undecodable = 0
        self.rebalances = 0
        self.last_change_ms: int | None = None

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)

    def as_dict(self) -> dict[str, int | None]:
        with self._lock:
            return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def __repr__(self) -> str:
        return f"ConsumerStats({self.as_dict()})"


def _client_ip() -> str:
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
    ``model=`` is the deprecated old name of ``message_model=``. ``instance_name`` and ``client_ip`` make the
    client id (``ip@instance``); the default instance name is ``<pid>#<nanos>`` as Java's, so consumers in one
    process have distinct ids.

    Use it as a context manager, or call :meth:`start` and :meth:`shutdown`.
    """

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str,
        subscriptions: Mapping[str, str | None] | Iterable[str],
        strategy: Any = None,
        model: str | None = None,
        *,
        listener: MessageListener | None = None,
        orderly: bool = False,
        compat: str = "5.3",
        instance_name: str | None = None,
        client_ip: str | None = None,
        on_rebalance: Callable[[str, tuple[Any, ...]], None] | None = None,
        backend: Any = None,
        settings: ConsumerSettings | None = None,
        **overrides: Any,
    ) -> None:
        compat = check_compat(compat)
        check_group(group, "consumer group")
        if model is not None:  # the old name of message_model
            warnings.warn(
                "Consumer(model=...) is deprecated: give message_model=..., Java's name for the setting",
                DeprecationWarning,
                stacklevel=2,
            )
            given = overrides.get("message_model", model)
            if given != model:
                raise ValueError(f"model={model!r} and message_model={given!r} disagree: give message_model only")
            overrides["message_model"] = model
        if settings is None:
            cfg = ConsumerSettings.of(compat, **overrides)
        else:
            if not isinstance(settings, ConsumerSettings):
                raise TypeError(f"settings must be a ConsumerSettings, not {type(settings).__name__}")
            cfg = settings.replace(**overrides).for_compat(compat) if overrides else settings.for_compat(compat)
        if cfg.consume_timestamp is None:  # Java fixes it when the consumer object is built
            cfg = cfg.replace(consume_timestamp=java_timestamp_string(_now_ms() - 30 * 60 * 1000))
        self.namesrv_addrs = parse_namesrv_addrs(namesrv)
        self.group = group
        self.compat = compat
        self.orderly = orderly
        self.settings: ConsumerSettings = cfg
        if backend is None:
            import rocketroute as backend
        self._rr = backend
        self.strategy = strategy if strategy is not None else backend.AllocateMessageQueueAveragely()
        self.listener = listener
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
        self._subs: dict[str, SubscriptionData] = {t: build_subscription(t, e) for t, e in subs.items()}
        if cfg.message_model == "CLUSTERING":  # copySubscription: a clustering group also consumes its retry topic
            rt = retry_topic(group)
            self._subs.setdefault(rt, build_subscription(rt, "*"))
        ip = client_ip or _client_ip()
        self.instance_name = instance_name or f"{os.getpid()}#{time.monotonic_ns()}"
        self.client_id = f"{ip}@{self.instance_name}"
        self.stats = ConsumerStats()
        self._state = "created"
        self._started_ms = 0
        self._state_lock = threading.Lock()
        self._remoting: RemotingClient | None = None
        self._names: NameServerClient | None = None
        self._offsets: OffsetStore | None = None
        self._executor: ConsumePool | None = None
        self._callbacks: CallbackThread | None = None
        self._routes: dict[str, Any] = {}
        self._broker_addrs = BrokerAddrTable()  # brokerAddrTable
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

    # -- lifecycle --------------------------------------------------------------------------------------------

    def register_message_listener(self, listener: MessageListener, *, orderly: bool = False) -> None:
        """``registerMessageListener``: set the listener (before :meth:`start`)."""
        if self._state != "created":
            raise RuntimeError("the listener is registered before start()")
        self.listener = listener
        self.orderly = orderly

    def start(self) -> Consumer:
        """Fetch the routes, heartbeat to the brokers, run the first rebalance (so the consumer owns its queues
        when this returns) and start the pulls and the timers."""
        with self._state_lock:
            if self._state == "running":
                return self
            if self._state != "created":
                raise RuntimeError(f"the consumer is {self._state}; a consumer starts once")
            if self.listener is None:
                raise RuntimeError("register a message listener before start()")
            timeout = self.settings.mq_client_api_timeout
            self._remoting, self._names = connect_name_servers(
                self.namesrv_addrs,
                timeout_ms=timeout,
                compat=self.compat,
                backend=self._rr,
                language=self.settings.language,
            )
            if self.model == "CLUSTERING":
                self._offsets = RemoteBrokerOffsetStore(
                    self.group, self._remoting.async_client, self._master_addr, timeout_ms=timeout, compat=self.compat
                )
            else:
                root = self.settings.offset_store_dir or default_offset_store_dir()
                path = os.path.join(str(root), self.client_id, self.group, "offsets.json")
                self._offsets = LocalFileOffsetStore(path, self._rr.MessageQueue)
            self._executor = ConsumePool(self.settings.consume_thread_min, f"rocketroute-consume-{self.group}")
            self._callbacks = CallbackThread(f"rocketroute-callbacks-{self.group}")
            self._remoting.register_processor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, self._on_notify)
            self._remoting.register_processor(RequestCode.GET_CONSUMER_RUNNING_INFO, self._on_running_info)
            self._remoting.register_processor(RequestCode.CONSUME_MESSAGE_DIRECTLY, self._on_consume_directly)
            self._started_ms = _now_ms()
            self._state = "running"
        try:
            self._call(self._start())
            self._flush_callbacks()  # on_rebalance has run
        except BaseException:
            self.shutdown()
            raise
        return self

    def shutdown(self) -> None:
        """Stop pulling, wait for the listener calls under way (their offsets are committed), commit every
        offset and wait for the brokers' acknowledgement (Java's commit is oneway), unlock the orderly queues,
        unregister from the brokers (so the others rebalance at once) and close the connections.

        The wait for listener calls is bounded by ``await_termination_millis_when_shutdown`` (ms) or, when that is
        0 (Java's default), by ``consume_timeout`` (minutes): a call still running then is abandoned with a
        WARNING, and its messages are not committed (they are consumed again, by this group's next owner of the
        queue). It may be called from a listener (the caller's own call is not waited for) or a callback."""
        self._refuse_on_loop("shutdown()")
        with self._state_lock:
            if self._state != "running":
                if self._state == "created":
                    self._state = "shut down"
                return
            self._state = "stopping"
        remoting, executor = self._remoting, self._executor
        assert remoting is not None and executor is not None
        # bounded: a shutdown never hangs, whatever a task or a broker does (the loops also end on the state)
        try:
            self._call(self._stop_pulls(), timeout=_STOP_TIMEOUT_S)
        except Exception as e:
            log.warning("stopping the pulls and timers did not finish: %r", e)
        s = self.settings
        wait_ms = s.await_termination_millis_when_shutdown or s.consume_timeout * 60_000
        still = executor.shutdown(wait_ms / 1000)
        if still:
            log.warning(
                "%d listener call(s) of %s still running %d ms into shutdown: abandoned, their messages are not "
                "committed and will be consumed again",
                still,
                self.group,
                wait_ms,
            )
        api_s = self.settings.mq_client_api_timeout / 1000
        try:
            self._call(self._final_commit_and_unregister(), timeout=api_s * (2 + 2 * len(self._broker_addrs)) + 1)
        except Exception as e:
            log.warning("the final commit or unregister did not finish: %r", e)
        if self._callbacks is not None:
            self._callbacks.close()
        remoting.close()
        # last: "shut down" means the connections are closed and the loop thread has ended
        self._state = "shut down"

    def __enter__(self) -> Consumer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    @property
    def model(self) -> str:
        """The message model, ``settings.message_model``: ``"CLUSTERING"`` or ``"BROADCASTING"``."""
        return self.settings.message_model

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

    def _call(self, coro: Any, timeout: float | None = None) -> Any:
        remoting = self._remoting
        if remoting is None:
            coro.close()
            raise RuntimeError(f"the consumer is {self._state}: call start() first")
        if remoting.on_loop_thread():
            coro.close()
            self._refuse_on_loop("a blocking Consumer method")
        return asyncio.run_coroutine_threadsafe(coro, remoting.loop).result(timeout)

    # -- what a user can look at --------------------------------------------------------------------------------

    def assignment(self, topic: str | None = None) -> tuple[Any, ...]:
        """The queues this consumer owns now (of ``topic``, or of all its topics but the retry topic), sorted."""
        rt = retry_topic(self.group)
        mqs = [mq for mq, pq in list(self._pqs.items()) if not pq.dropped]
        if topic is None:
            return tuple(sorted(mq for mq in mqs if mq.topic != rt))
        return tuple(sorted(mq for mq in mqs if mq.topic == topic))

    def committed_offsets(self) -> dict[Any, int]:
        """The offsets held in memory (the next message to consume of each owned queue)."""
        return {} if self._offsets is None else self._offsets.offsets()

    def process_queue(self, mq: Any) -> ProcessQueue | None:
        """The queue's :class:`~rocketroute.client.process_queue.ProcessQueue` (messages pulled, not consumed)."""
        return self._pqs.get(mq)

    def consumer_ids(self, topic: str) -> list[str]:
        """The group's members as a broker of ``topic`` reports them (GET_CONSUMER_LIST_BY_GROUP)."""
        return self._call(self._find_consumer_ids(topic))

    def rebalance_now(self) -> None:
        """Run a rebalance now (what a NOTIFY_CONSUMER_IDS_CHANGED triggers) and return when it is done (and
        ``on_rebalance`` has been called for what it changed, unless this is called from ``on_rebalance``)."""
        self._call(self._rebalance_all())
        self._flush_callbacks()

    def _flush_callbacks(self) -> None:
        if self._callbacks is not None:
            self._callbacks.flush(self.settings.mq_client_api_timeout / 1000)

    def refresh_routes(self) -> None:
        """Fetch the subscribed topics' routes now (what the timer does every ``poll_name_server_interval`` ms)."""
        self._call(self._refresh_routes())

    # -- start and stop (on the loop) --------------------------------------------------------------------------

    async def _start(self) -> None:
        self._rebalance_wakeup = asyncio.Event()
        self._rebalance_lock = asyncio.Lock()
        await self._refresh_routes()
        clustering = self.model == "CLUSTERING"
        if clustering:
            await self._check_unique_client_id(registered=False)
        await self._heartbeat_all()
        if clustering:
            await self._check_unique_client_id(registered=True)
        await self._rebalance_all()
        s = self.settings
        self._tasks = [
            asyncio.ensure_future(self._rebalance_loop()),
            asyncio.ensure_future(self._every(s.poll_name_server_interval, self._refresh_routes)),
            asyncio.ensure_future(self._every(s.heartbeat_broker_interval, self._heartbeat_all)),
            asyncio.ensure_future(self._every(s.persist_consumer_offset_interval, self._persist_all)),
        ]
        if self.orderly and self.model == "CLUSTERING":
            self._tasks.append(
                asyncio.ensure_future(self._every(CONSUMER_CONSTANTS["REBALANCE_LOCK_INTERVAL"], self._lock_all))
            )
        if not self.orderly:  # ConsumeMessageConcurrentlyService.cleanExpireMsg, every consume_timeout minutes
            self._tasks.append(asyncio.ensure_future(self._every(s.consume_timeout * 60_000, self._clean_expired)))

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
        except Exception as e:
            log.warning("committing the offsets at shutdown failed: %s", e)
        if self.orderly and self.model == "CLUSTERING":
            await self._unlock_all(owned)
        request = UnregisterClientRequestHeader(client_id=self.client_id, consumer_group=self.group).request(
            self.compat
        )
        for name, addr in self._broker_addrs.nodes():
            try:
                await self._remoting.async_client.invoke(addr, request, self.settings.mq_client_api_timeout)
            except Exception as e:
                log.debug("unregister from %s (%s) failed: %s", name, addr, e)

    async def _every(self, interval_ms: int, job: Callable[[], Any]) -> None:
        while self._state == "running":  # the state too: see _wait_for_wakeup
            await asyncio.sleep(interval_ms / 1000)
            try:
                await job()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("periodic task %s failed", getattr(job, "__name__", job))

    # -- routes and heartbeats ---------------------------------------------------------------------------------

    def _master_addr(self, broker_name: str) -> str | None:
        return self._broker_addrs.master(broker_name)

    def _subscribe_addr(self, mq: Any) -> tuple[str | None, bool]:
        """The node ``pullFromWhichNode`` suggests for ``mq`` (the master at first)."""
        return self._broker_addrs.subscribe_addr(mq.broker_name, self._pull_from.get(mq, MASTER_ID))

    async def _refresh_routes(self) -> None:
        known = self._broker_addrs.addresses()
        for topic in list(self._subs):
            await self._refresh_route(topic)
        self._clean_offline_brokers()
        new = self._broker_addrs.addresses() - known
        if new and self._state == "running" and self._tasks:
            # a broker that came (back): it must know this consumer's subscriptions before it is pulled from
            # (Java waits for the next heartbeat, up to 30 s, its pulls failing meanwhile)
            await self._heartbeat_all()

    async def _refresh_route(self, topic: str) -> bool:
        """``updateTopicRouteInfoFromNameServer`` for one topic: True when a route was found."""
        assert self._names is not None
        try:
            route = await self._names.get_route(topic)
        except TopicNotExistError:
            if topic != retry_topic(self.group):
                log.warning("no route for subscribed topic %s", topic)
            return False
        except Exception as e:  # the name servers down: try again next round
            log.warning("route refresh of %s failed: %s", topic, e)
            return False
        old = self._routes.get(topic)
        if old is not None and not route.topic_route_data_changed(old):
            return True
        self._routes[topic] = route
        self._broker_addrs.update(route)
        self._sub_info[topic] = list(route.subscribe_queues(topic, self.compat))
        if old is not None:
            log.info("route of %s changed: %d queues to read", topic, len(self._sub_info[topic]))
        return True

    def _clean_offline_brokers(self) -> None:
        """``cleanOfflineBroker``: forget brokers that no route of ours names any more."""
        self._broker_addrs.retain(b.broker_name for r in self._routes.values() for b in (r.broker_datas or ()))

    def _consumer_data(self) -> ConsumerData:
        return ConsumerData(
            self.group,
            list(self._subs.values()),
            message_model=self.model,
            consume_from_where=self.settings.consume_from_where,
            unit_mode=False,  # refused unless Java's default (ConsumerSettings.NOT_SUPPORTED)
        )

    async def _heartbeat_all(self) -> None:
        """``sendHeartbeatToAllBroker``: every known broker node (masters and slaves)."""
        assert self._remoting is not None
        body = heartbeat_body(self.client_id, [self._consumer_data()])
        for name, addr in self._broker_addrs.nodes():
            request = HeartbeatRequest(heartbeat_data=body).request(self.compat)
            try:
                await self._remoting.async_client.invoke_checked(addr, request, self.settings.mq_client_api_timeout)
            except Exception as e:
                log.warning("heartbeat to %s (%s) failed: %s", name, addr, e)

    def _on_notify(self, cmd: RemotingCommand, addr: str) -> None:
        """NOTIFY_CONSUMER_IDS_CHANGED from a broker: rebalance now (``rebalanceImmediately``)."""
        if cmd.ext_fields.get("consumerGroup") in (None, self.group) and self._rebalance_wakeup is not None:
            log.debug("consumer ids of %s changed (told by %s): rebalancing", self.group, addr)
            self._rebalance_wakeup.set()
        return None

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
        properties = settings_properties(self.settings)
        properties.update(
            consumerGroup=self.group,
            messageModel=self.model,
            instanceName=self.instance_name,
            namesrvAddr=";".join(self.namesrv_addrs),
            allocateMessageQueueStrategy=str(getattr(self.strategy, "name", type(self.strategy).__name__)),
            PROP_CONSUMEORDERLY=str(self.orderly).lower(),
            PROP_THREADPOOL_CORE_SIZE=str(self.settings.consume_thread_min),
            PROP_CONSUMER_START_TIMESTAMP=str(self._started_ms),
            PROP_NAMESERVER_ADDR=";".join(self.namesrv_addrs),
            PROP_CONSUME_TYPE="CONSUME_PASSIVELY",
            PROP_CLIENT_VERSION=CLIENT_VERSION_DESC[self.compat],
        )
        assert self._offsets is not None
        queues = [(mq, pq.info(self._offsets.read_memory(mq))) for mq, pq in list(self._pqs.items())]
        jstack = python_stacks() if cmd.ext_fields.get("jstackEnable") == "true" else None
        body = encode_running_info(properties, [sub.to_json() for sub in self._subs.values()], queues, jstack)
        return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=body)

    def _on_consume_directly(self, cmd: RemotingCommand, addr: str) -> Any:
        """CONSUME_MESSAGE_DIRECTLY, forwarded by a broker for ``mqadmin consumeMessage`` on one member: the
        listener consumes the message in the body once more, on the consume pool (nothing is committed or sent
        back), and the answer is Java's ``ConsumeMessageDirectlyResult``, written when the listener returns."""
        if (refused := self._other_group(cmd)) is not None:
            return refused
        try:
            (msg,) = decode_messages(cmd.body or b"", compat=self.compat, max_body_size=self.settings.max_body_size)
        except Exception as e:
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, f"the message cannot be decoded: {e}")
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[bytes] = loop.create_future()

        def consume() -> None:
            def settle(outcome: Callable[[], None]) -> None:
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for the answer
                    loop.call_soon_threadsafe(lambda: answered.done() or outcome())

            try:
                body = self._consume_directly(msg, cmd.ext_fields.get("brokerName") or msg.broker_name)
            except Exception as e:  # answered as SYSTEM_ERROR, never left waiting
                error = e
                settle(lambda: answered.set_exception(error))
            else:
                settle(lambda: answered.set_result(body))

        assert self._executor is not None
        if not self._executor.submit(consume):
            return RemotingCommand.response_to(cmd, ResponseCode.SYSTEM_ERROR, "the consumer is shutting down")

        async def answer() -> RemotingCommand:
            return RemotingCommand.response_to(cmd, ResponseCode.SUCCESS, body=await answered)

        return answer()

    def _consume_directly(self, msg: Any, broker_name: str) -> bytes:
        """``consumeMessageDirectly`` of the consume services: the listener's answer as a ``CMResult``."""
        msg.broker_name = broker_name
        mq = self._rr.MessageQueue(msg.topic, broker_name, msg.queue_id)
        context: Any = ConsumeOrderlyContext(mq) if self.orderly else ConsumeConcurrentlyContext(mq)
        reset_retry_topic(msg, self.group)
        begin = _now_ms()
        remark = None
        assert self.listener is not None
        try:
            status = self.listener([msg], context)
        except Exception as e:
            result, remark = "CR_THROW_EXCEPTION", f"{type(e).__name__}: {e}"
        else:
            known = isinstance(status, (ConsumeConcurrentlyStatus, ConsumeOrderlyStatus))
            result = _DIRECT_RESULTS.get(status, "CR_RETURN_NULL") if known else "CR_RETURN_NULL"
        fields = {
            "autoCommit": bool(getattr(context, "auto_commit", True)),
            "consumeResult": result,
            "order": self.orderly,
            "remark": remark,
            "spentTimeMills": _now_ms() - begin,
        }
        return json.dumps(fields, separators=(",", ":")).encode()

    # -- rebalance ---------------------------------------------------------------------------------------------

    async def _check_unique_client_id(self, *, registered: bool) -> None:
        """Refuse to start when another member of the group runs with this consumer's client id (the same IP and
        instance name): both would own the same queues and every message would be consumed twice. Java only logs
        it; this raises :class:`DuplicateClientIdError`. Asked twice: before this consumer's first heartbeat
        (is the id listed already? RocketMQ-Rust lists an id once however many connections carry it) and after
        it (is it listed twice? Apache's brokers list one entry per connection, which catches two starting at
        once)."""
        rt = retry_topic(self.group)
        for topic in self._subs:
            if topic == rt or topic not in self._routes:
                continue
            try:
                cids = await self._find_consumer_ids(topic)
            except Exception as e:
                log.debug("the member list of %s could not be read at start: %s", self.group, e)
                continue
            if cids.count(self.client_id) > (1 if registered else 0):
                raise DuplicateClientIdError(
                    f"another member of consumer group {self.group!r} already runs with client id "
                    f"{self.client_id!r}: two members with one id would both own the same queues and consume every "
                    "message twice. Give each consumer of a process its own instance_name (the default, "
                    "<pid>#<nanos>, is unique)"
                )
            if cids:
                return

    async def _find_consumer_ids(self, topic: str) -> list[str]:
        """``findConsumerIdList``: GET_CONSUMER_LIST_BY_GROUP to a broker of the topic. Java asks one broker
        picked at random and gives up if it fails; this asks the others in turn before giving up."""
        assert self._remoting is not None
        route = self._routes.get(topic)
        names = [b.broker_name for b in (route.broker_datas if route is not None else None) or ()]
        random.shuffle(names)
        last: Exception | None = None
        for name in names:
            addr = self._broker_addrs.master_or_first(name)
            if addr is None:
                continue
            try:
                ids = await query_consumer_ids(
                    self._remoting.async_client,
                    addr,
                    self.group,
                    compat=self.compat,
                    timeout_ms=self.settings.mq_client_api_timeout,
                )
            except Exception as e:
                last = e
                continue
            if ids:  # a broker that has just (re)started knows no member yet: ask another
                return ids
        if last is not None:
            raise last
        return []

    async def _rebalance_loop(self) -> None:
        assert self._rebalance_wakeup is not None
        while self._state == "running":
            await self._wait_for_wakeup(self.settings.rebalance_interval / 1000)
            if self._state != "running":
                return
            self._rebalance_wakeup.clear()
            try:
                await self._rebalance_all()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("rebalance failed")

    async def _wait_for_wakeup(self, timeout_s: float) -> None:
        """Until a broker's notification sets the wakeup event, or ``timeout_s``. Not ``asyncio.wait_for``: on
        Python 3.11 it returns normally when it is cancelled just as the event is set (the cancellation is lost),
        and the rebalance loop then ran on after shutdown had cancelled it, so shutdown waited for ever."""
        assert self._rebalance_wakeup is not None
        waiter = asyncio.ensure_future(self._rebalance_wakeup.wait())
        try:
            await asyncio.wait([waiter], timeout=timeout_s)
        finally:
            waiter.cancel()

    async def _rebalance_all(self) -> None:
        """``RebalanceImpl.doRebalance``: each subscribed topic, then the queues of topics no longer subscribed
        are given up."""
        assert self._rebalance_lock is not None
        async with self._rebalance_lock:
            self.stats.add(rebalances=1)
            for topic in list(self._subs):
                try:
                    await self._rebalance_topic(topic)
                except Exception as e:
                    log.warning("rebalance of %s failed: %s", topic, e)
            for mq in [mq for mq in self._pqs if mq.topic not in self._subs]:
                await self._drop(mq)

    async def _rebalance_topic(self, topic: str) -> None:
        mqs = self._sub_info.get(topic)
        if mqs is None:
            # Java logs "doRebalance, ... the topic[...] not exist" and waits for the next route poll (30 s); the
            # retry topic of a new group is created by the broker on the first heartbeat, so it is looked up here
            if not await self._refresh_route(topic):
                return
            mqs = self._sub_info[topic]
        if self.model == "BROADCASTING":
            assigned: tuple[Any, ...] = tuple(sorted(mqs))
        else:
            cids = await self._find_consumer_ids(topic)
            if not cids:
                log.warning("rebalance of %s: the brokers report no member of %s", topic, self.group)
                return
            if cids.count(self.client_id) > 1 and topic not in self._duplicate_logged:
                self._duplicate_logged.add(topic)
                log.error(
                    "another member of %s runs with this consumer's client id %s: both own the same queues of %s "
                    "and consume its messages twice; give each consumer its own instance_name",
                    self.group,
                    self.client_id,
                    topic,
                )
            owned = [mq for mq in self._pqs if mq.topic == topic]
            assigned = rebalance(self.strategy, self.group, self.client_id, mqs, cids, owned).assigned
        self._set_topic_thresholds(topic, len(assigned))
        if await self._update_process_queues(topic, set(assigned)):
            await self._heartbeat_all()  # 5.x messageQueueChanged: tell the brokers at once
            if self.on_rebalance is not None and self._callbacks is not None:  # it may call the consumer back
                self._callbacks.post("on_rebalance", self.on_rebalance, topic, tuple(sorted(assigned)))

    def _set_topic_thresholds(self, topic: str, owned: int) -> None:
        """``RebalancePushImpl.messageQueueChanged``: with ``pull_threshold_for_topic`` (or ``_size_for_topic``)
        set, each owned queue of the topic may cache that divided by the number of owned queues (at least 1).
        Java sets the consumer-wide per-queue limit from the last topic rebalanced; here each topic keeps its own."""
        s = self.settings
        count, size = self._queue_thresholds
        if owned > 0 and s.pull_threshold_for_topic != -1:
            count = max(1, s.pull_threshold_for_topic // owned)
        if owned > 0 and s.pull_threshold_size_for_topic != -1:
            size = max(1, s.pull_threshold_size_for_topic // owned) * 1024 * 1024
        self._thresholds[topic] = (count, size)

    async def _update_process_queues(self, topic: str, assigned: set[Any]) -> bool:
        """``updateProcessQueueTableInRebalance``: give up the queues no longer assigned (and those not pulled
        for ``PULL_MAX_IDLE_TIME``), take the new ones from where their offsets say."""
        changed = False
        for mq, pq in list(self._pqs.items()):
            if mq.topic != topic:
                continue
            if mq not in assigned or pq.is_pull_expired():
                if mq in assigned:
                    log.warning("%s not pulled for a long time: taken again", mq)
                if await self._drop(mq):
                    changed = True
        orderly_clustering = self.orderly and self.model == "CLUSTERING"
        for mq in sorted(assigned):
            existing = self._pqs.get(mq)
            if existing is not None:
                # a queue whose earlier give-up could not finish (an orderly listener call held it) is finished first
                if not existing.dropped or not await self._drop(mq):
                    continue
            if orderly_clustering and not await self._lock(mq):
                log.info("%s is still locked by another member: not taken this time", mq)
                continue
            assert self._offsets is not None
            self._offsets.remove_offset(mq)  # removeDirtyOffset
            try:
                offset = await self._compute_pull_from_where(mq)
            except Exception as e:
                log.warning("no start offset for %s (%s): not taken this time", mq, e)
                continue
            pq = ProcessQueue()
            if orderly_clustering:
                pq.locked = True
                pq.last_lock_timestamp = _now_ms()
            self._pqs[mq] = pq
            self._start_pull(mq, pq, offset)
            changed = True
        if changed:
            self.stats.last_change_ms = _now_ms()
        return changed

    async def _drop(self, mq: Any) -> bool:
        """``removeUnnecessaryMessageQueue``: stop the queue, commit its offset, forget it; an orderly queue is
        unlocked on its broker once no listener call is under way on it (the lock is taken for up to 1 s, else
        the queue is tried again next rebalance)."""
        pq = self._pqs.get(mq)
        if pq is None:
            return False
        pq.dropped = True
        task = self._pull_tasks.pop(mq, None)
        if task is not None:
            task.cancel()
        assert self._offsets is not None
        if self.orderly and self.model == "CLUSTERING":
            got = await asyncio.to_thread(pq.consume_lock.acquire, True, 1.0)
            if not got:
                pq.try_unlock_times += 1
                return False
            try:
                committed = await self._commit_and_forget(mq)
                # Java unlocks 20 s later when the queue still holds pulled messages, giving its oneway commit
                # time to land before the next owner reads the offset. This commit was acknowledged, under the
                # consume lock, so the next owner starts right after the last message consumed here: the queue
                # is unlocked at once, and the hand-over takes one rebalance, not 20 s. The delay stays for a
                # commit that failed.
                if not committed and pq.has_temp_message():
                    asyncio.get_running_loop().call_later(
                        CONSUMER_CONSTANTS["UNLOCK_DELAY_TIME_MILLS"] / 1000,
                        lambda: asyncio.ensure_future(self._unlock_all([mq])),
                    )
                else:
                    await self._unlock_all([mq])
            finally:
                pq.consume_lock.release()
        else:
            await self._commit_and_forget(mq)
        del self._pqs[mq]
        return True

    async def _commit_and_forget(self, mq: Any) -> bool:
        """Commit the queue's offset and forget it; returns whether the commit was acknowledged."""
        assert self._offsets is not None
        try:
            await self._offsets.persist(mq)
        except Exception as e:
            log.warning("committing the offset of %s failed: %s", mq, e)
            return False
        finally:
            self._offsets.remove_offset(mq)
        return True

    async def _compute_pull_from_where(self, mq: Any) -> int:
        """``RebalancePushImpl.computePullFromWhereWithException``."""
        assert self._offsets is not None
        last = await self._offsets.read_from_store(mq)
        if last >= 0:
            return last
        if last != -1:
            raise RuntimeError(f"offset {last} read from the store")
        where = self.settings.consume_from_where
        is_retry = mq.topic.startswith("%RETRY%")
        if where == "CONSUME_FROM_FIRST_OFFSET" or (where == "CONSUME_FROM_LAST_OFFSET" and is_retry):
            return 0
        if where == "CONSUME_FROM_LAST_OFFSET" or is_retry:
            header: RequestHeader = GetMaxOffsetRequestHeader(
                topic=mq.topic, queue_id=mq.queue_id, broker_name=mq.broker_name
            )
        else:
            ts = parse_java_timestamp(self.settings.consume_timestamp)
            header = SearchOffsetRequestHeader(
                topic=mq.topic, queue_id=mq.queue_id, timestamp=ts, broker_name=mq.broker_name
            )
        return await self._queue_offset(mq, header)

    async def _queue_offset(self, mq: Any, header: RequestHeader) -> int:
        assert self._remoting is not None
        addr = self._master_addr(mq.broker_name)
        if addr is None:
            raise RuntimeError(f"The broker[{mq.broker_name}] not exist")
        request = header.request(self.compat)
        response = await self._remoting.async_client.invoke_checked(addr, request, self.settings.mq_client_api_timeout)
        return int(response.ext_fields["offset"])

    # -- orderly locks -----------------------------------------------------------------------------------------

    async def _lock_batch(self, broker_name: str, mqs: list[Any]) -> set[Any]:
        assert self._remoting is not None
        addr = self._master_addr(broker_name)
        if addr is None:
            return set()
        request = LockBatchMqRequest.of(self.group, self.client_id, mqs).request(self.compat)
        response = await self._remoting.async_client.invoke_checked(addr, request, 1000)
        locked = json.loads(response.body or b"{}").get("lockOKMQSet") or []
        return {self._rr.MessageQueue(m["topic"], m["brokerName"], int(m["queueId"])) for m in locked}

    async def _lock(self, mq: Any) -> bool:
        """``RebalanceImpl.lock(mq)``."""
        try:
            locked = await self._lock_batch(mq.broker_name, [mq])
        except Exception as e:
            log.warning("locking %s failed: %s", mq, e)
            return False
        pq = self._pqs.get(mq)
        if pq is not None and mq in locked:
            pq.locked = True
            pq.last_lock_timestamp = _now_ms()
        return mq in locked

    async def _lock_all(self) -> None:
        """``RebalanceImpl.lockAll``: renew the locks of every owned queue, broker by broker."""
        by_broker: dict[str, list[Any]] = {}
        for mq, pq in self._pqs.items():
            if not pq.dropped:
                by_broker.setdefault(mq.broker_name, []).append(mq)
        for broker_name, mqs in by_broker.items():
            try:
                locked = await self._lock_batch(broker_name, mqs)
            except Exception as e:
                log.warning("locking the queues of %s failed: %s", broker_name, e)
                continue
            now = _now_ms()
            for mq in mqs:
                pq = self._pqs.get(mq)
                if pq is None:
                    continue
                if mq in locked:
                    pq.locked = True
                    pq.last_lock_timestamp = now
                else:
                    pq.locked = False

    async def _unlock_all(self, mqs: Iterable[Any]) -> None:
        assert self._remoting is not None
        by_broker: dict[str, list[Any]] = {}
        for mq in mqs:
            by_broker.setdefault(mq.broker_name, []).append(mq)
        for broker_name, group in by_broker.items():
            addr = self._master_addr(broker_name)
            if addr is None:
                continue
            request = UnlockBatchMqRequest.of(self.group, self.client_id, group).request(self.compat)
            try:
                await self._remoting.async_client.invoke_checked(addr, request, 1000)
            except Exception as e:
                log.warning("unlocking %s on %s failed: %s", group, broker_name, e)
            for mq in group:
                pq = self._pqs.get(mq)
                if pq is not None:
                    pq.locked = False

    # -- pulling -----------------------------------------------------------------------------------------------

    def _start_pull(self, mq: Any, pq: ProcessQueue, offset: int) -> None:
        task = asyncio.ensure_future(self._pull_loop(mq, pq, offset))
        self._pull_tasks[mq] = task

    async def _pull_loop(self, mq: Any, pq: ProcessQueue, next_offset: int) -> None:
        """``DefaultMQPushConsumerImpl.pullMessage`` and its callback, as a loop: one pull in flight per queue."""
        assert self._remoting is not None and self._offsets is not None
        s = self.settings
        c = CONSUMER_CONSTANTS
        client = self._remoting.async_client
        sub = self._subs.get(mq.topic)
        if sub is None:
            return
        clustering = self.model == "CLUSTERING"
        failures = 0
        while not pq.dropped and self._state == "running":  # the state too: see _wait_for_wakeup
            pq.last_pull_timestamp = _now_ms()
            count_limit, size_limit = self._thresholds.get(mq.topic, self._queue_thresholds)
            if pq.msg_count > count_limit or pq.msg_size > size_limit:
                await asyncio.sleep(c["PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL"] / 1000)
                continue
            if not self.orderly and pq.get_max_span() > s.consume_concurrently_max_span:
                await asyncio.sleep(c["PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL"] / 1000)
                continue
            if self.orderly and clustering and not pq.locked:
                await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                continue
            addr, slave = self._subscribe_addr(mq)
            if addr is None:
                await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                continue
            commit_offset = self._offsets.read_memory(mq) if clustering else -1
            sys_flag = pull_sys_flag(commit_offset > 0, True, bool(s.post_subscription_when_pull))
            if slave:
                sys_flag &= ~FLAG_COMMIT_OFFSET
            request = pull_request(
                self.group,
                mq,
                next_offset,
                max_nums=s.pull_batch_size,
                max_msg_bytes=s.pull_batch_size_in_bytes,  # 5.3's header only, as Java's
                sys_flag=sys_flag,
                commit_offset=max(commit_offset, 0),
                suspend_timeout_ms=c["BROKER_SUSPEND_MAX_TIME_MILLIS"],
                subscription=sub,
                compat=self.compat,
            )
            self.stats.add(pulls=1)
            try:
                response = await client.invoke(addr, request, c["CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND"])
                result = pull_result(
                    response,
                    mq,
                    sub,
                    addr=addr,
                    read_body=s.decode_read_body,
                    decompress_body=s.decode_decompress_body,
                    max_body_size=s.max_body_size,
                    undecodable="mark",
                )
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self.stats.add(pull_errors=1)
                failures += 1
                # the first failure in a row is a WARNING (an ERROR for a response that cannot be read), the
                # ones after it DEBUG: a queue that stops moving is never silent, a broker down is not a flood
                level = (
                    logging.DEBUG
                    if failures > 1
                    else logging.ERROR
                    if isinstance(e, MessageDecodeError)
                    else logging.WARNING
                )
                log.log(level, "pull of %s from %s failed (%d in a row): %s", mq, addr, failures, e)
                await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                continue
            failures = 0
            if pq.dropped:
                break
            self._pull_from[mq] = result.suggest_which_broker_id
            if result.status is PullStatus.FOUND:
                msgs = result.messages
                if msgs and any(m.decode_error is not None for m in msgs):
                    if not await self._set_aside_undecodable([m for m in msgs if m.decode_error is not None], mq):
                        await asyncio.sleep(s.pull_time_delay_mills_when_exception / 1000)
                        continue  # pulled again from the same offset
                    msgs = [m for m in msgs if m.decode_error is None]
                    if not msgs and pq.msg_count == 0:
                        self._offsets.update_offset(mq, result.next_begin_offset, True)
                next_offset = result.next_begin_offset
                if msgs:
                    self.stats.add(pulled=len(msgs))
                    dispatch = pq.put_messages(msgs)
                    self._submit_consume(msgs, pq, mq, dispatch)
                    if s.pull_interval > 0:
                        await asyncio.sleep(s.pull_interval / 1000)
            elif result.status in (PullStatus.NO_NEW_MSG, PullStatus.NO_MATCHED_MSG):
                next_offset = result.next_begin_offset
                if pq.msg_count == 0:  # correctTagsOffset
                    self._offsets.update_offset(mq, next_offset, True)
            else:  # OFFSET_ILLEGAL: Java drops the queue, then after 10 s commits the broker's offset
                log.warning("the offset of %s is illegal: the broker says %d", mq, result.next_begin_offset)
                next_offset = result.next_begin_offset
                pq.dropped = True
                await asyncio.sleep(10)
                self._offsets.update_offset(mq, next_offset, False)
                try:
                    await self._offsets.persist(mq)
                except Exception as e:
                    log.warning("committing the corrected offset of %s failed: %s", mq, e)
                if self._pqs.get(mq) is pq:
                    del self._pqs[mq]
                    self._pull_tasks.pop(mq, None)
                break

    # -- consuming ---------------------------------------------------------------------------------------------

    def _submit_consume(self, msgs: list[Any], pq: ProcessQueue, mq: Any, dispatch: bool) -> None:
        assert self._executor is not None
        if self.orderly:
            if dispatch:
                self._executor.submit(self._consume_orderly, pq, mq)
        else:  # not queued once the pool is shut down: the consumer is stopping
            n = self.settings.consume_message_batch_max_size
            for i in range(0, len(msgs), n):
                self._executor.submit(self._consume_concurrently, msgs[i : i + n], pq, mq)

    def _later(self, delay_ms: int, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the pool after ``delay_ms`` (Java's ``submitConsumeRequestLater``)."""
        remoting, executor = self._remoting, self._executor
        if remoting is None or executor is None or self._state != "running":
            return

        def submit() -> None:
            if self._state == "running":
                executor.submit(fn, *args)

        try:
            remoting.loop.call_soon_threadsafe(remoting.loop.call_later, delay_ms / 1000, submit)
        except RuntimeError:
            pass

    def _call_listener(self, msgs: list[Any], context: Any) -> Any:
        listener = self.listener
        assert listener is not None
        for m in msgs:
            reset_retry_topic(m, self.group)
            m.properties["CONSUME_START_TIME"] = str(_now_ms())
        try:
            return listener(msgs, context)
        except Exception:
            log.warning(
                "the listener %s raised on %d message(s) of %s",
                _name_of(listener),
                len(msgs),
                context.message_queue,
                exc_info=True,
            )
            return _RAISED

    def _not_a_status(self, status: Any, expected: type, instead: Any) -> Any:
        """Java's answer to a listener that returns no status (``null``) or a wrong one: ``instead``
        (RECONSUME_LATER, or SUSPEND_CURRENT_QUEUE_A_MOMENT for an orderly listener), with a WARNING naming the
        listener (none for one that raised: that was logged with its traceback)."""
        if status is not _RAISED:
            log.warning(
                "the listener %s returned %r, not a %s: treated as %s",
                _name_of(self.listener),
                status,
                expected.__name__,
                instead.name,
            )
        return instead

    def _consume_concurrently(self, msgs: list[Any], pq: ProcessQueue, mq: Any) -> None:
        """``ConsumeMessageConcurrentlyService.ConsumeRequest.run`` and ``processConsumeResult``."""
        if pq.dropped:
            return
        context = ConsumeConcurrentlyContext(mq)
        status = self._call_listener(msgs, context)
        if not isinstance(status, ConsumeConcurrentlyStatus):
            status = self._not_a_status(status, ConsumeConcurrentlyStatus, ConsumeConcurrentlyStatus.RECONSUME_LATER)
        if pq.dropped:  # Java: the queue was given up meanwhile; the result is not processed
            return
        if status is ConsumeConcurrentlyStatus.CONSUME_SUCCESS:
            ack = min(context.ack_index, len(msgs) - 1)
        else:
            ack = -1
        self.stats.add(consumed=ack + 1, failed=len(msgs) - ack - 1)
        retry_later: list[Any] = []
        if self.model == "CLUSTERING":
            for m in msgs[ack + 1 :]:
                if self._send_back(m, context.delay_level_when_next_consume):
                    self.stats.add(sent_back=1)
                else:
                    m.reconsume_times += 1
                    retry_later.append(m)
        elif ack + 1 < len(msgs):
            log.warning("BROADCASTING: %d message(s) failed and are dropped (no retry)", len(msgs) - ack - 1)
        later_ids = {id(m) for m in retry_later}
        done = [m for m in msgs if id(m) not in later_ids] if retry_later else msgs
        offset = pq.remove_messages(done)
        if offset >= 0 and not pq.dropped and self._offsets is not None:
            self._offsets.update_offset(mq, offset, True)
        if retry_later:  # submitConsumeRequestLater: 5 s
            self._later(5000, self._consume_concurrently, retry_later, pq, mq)

    def _max_reconsume_times(self) -> int:
        n = self.settings.max_reconsume_times
        return 16 if n == -1 else n

    def _send_back(self, msg: Any, delay_level: int) -> bool:
        """CONSUMER_SEND_MSG_BACK to the message's broker: the broker stores it again in the retry topic (or
        the dead-letter queue). Java falls back to sending it as a new message through its internal producer
        when this fails; here it is consumed again locally after 5 s instead."""
        remoting = self._remoting
        if remoting is None:
            return False
        addr, request = self._send_back_request(msg, delay_level)
        try:
            remoting.invoke_checked(addr, request, self.settings.mq_client_api_timeout)
            return True
        except Exception as e:
            log.warning("sending back %s failed: %s", msg.msg_id, e)
            return False

    async def _clean_expired(self, now_ms: int | None = None) -> None:
        """``cleanExpireMsg``: a message a listener started on more than ``consume_timeout`` minutes ago and
        still the first of its queue's cache is sent back (delay level 3) and removed from the cache, so one stuck
        listener call does not hold its queue's committed offset for ever (at most 16 per queue per round, as
        Java's). Concurrent consumption only."""
        timeout_ms = self.settings.consume_timeout * 60_000
        for mq, pq in list(self._pqs.items()):
            for _ in range(16):
                if pq.dropped:
                    break
                msg = pq.first_expired(timeout_ms, _now_ms() if now_ms is None else now_ms)
                if msg is None:
                    break
                try:
                    await self._send_back_async(msg, 3)
                except Exception as e:
                    log.error("sending back %s, expired in its listener (consume_timeout), failed: %s", msg.msg_id, e)
                    break
                log.warning(
                    "message %s of %s has been in its listener over consume_timeout (%d min): sent back",
                    msg.msg_id,
                    mq,
                    self.settings.consume_timeout,
                )
                pq.remove_messages([msg])
                self.stats.add(sent_back=1)

    async def _set_aside_undecodable(self, msgs: list[Any], mq: Any) -> bool:
        """Messages whose body cannot be decoded (a codec missing, corrupt, over ``max_body_size``) never reach
        the listener and never stall their queue: each is logged at ERROR and, in a clustering group, sent back
        with delay level -1, which the broker stores straight into the group's dead-letter queue
        (``%DLQ%<group>``), where it can be looked at. False if a send-back failed (the pull is retried)."""
        for m in msgs:
            log.error(
                "message %s (offset %d of %s) cannot be decoded, %s: %s",
                m.msg_id,
                m.queue_offset,
                mq,
                "sent to the dead-letter queue" if self.model == "CLUSTERING" else "skipped (broadcasting)",
                m.decode_error,
            )
            if self.model != "CLUSTERING":
                continue
            try:
                await self._send_back_async(m, -1)
            except Exception as e:
                log.error("sending the undecodable message %s to the dead-letter queue failed: %s", m.msg_id, e)
                return False
        self.stats.add(undecodable=len(msgs))
        return True

    async def _send_back_async(self, msg: Any, delay_level: int) -> None:
        """:meth:`_send_back` on the loop; raises what the broker or the connection answered."""
        assert self._remoting is not None
        addr, request = self._send_back_request(msg, delay_level)
        await self._remoting.async_client.invoke_checked(addr, request, self.settings.mq_client_api_timeout)

    def _send_back_request(self, msg: Any, delay_level: int) -> tuple[str, RemotingCommand]:
        addr = self._master_addr(msg.broker_name) if msg.broker_name else None
        if addr is None:
            addr = msg.store_host
        request = ConsumerSendMsgBackRequestHeader(
            offset=msg.commit_log_offset,
            group=self.group,
            delay_level=delay_level,
            origin_msg_id=msg.msg_id,
            origin_topic=msg.topic,
            max_reconsume_times=self._max_reconsume_times(),
            broker_name=msg.broker_name,
        ).request(self.compat)
        return addr, request

    def _mq_lock(self, mq: Any) -> threading.Lock:
        with self._mq_locks_guard:
            lock = self._mq_locks.get(mq)
            if lock is None:
                lock = self._mq_locks[mq] = threading.Lock()
            return lock

    def _try_lock_later(self, mq: Any, pq: ProcessQueue, delay_ms: int) -> None:
        """``tryLockLaterAndReconsume``: lock the queue on its broker after ``delay_ms``; consume again soon if
        it worked, else in 3 s."""
        remoting = self._remoting
        if remoting is None or self._state != "running":
            return

        async def relock() -> None:
            await asyncio.sleep(delay_ms / 1000)
            ok = await self._lock(mq)
            self._later(10 if ok else 3000, self._consume_orderly, pq, mq)

        try:
            asyncio.run_coroutine_threadsafe(relock(), remoting.loop)
        except RuntimeError:
            pass

    def _consume_orderly(self, pq: ProcessQueue, mq: Any) -> None:
        """``ConsumeMessageOrderlyService.ConsumeRequest.run``: one thread per queue at a time, the queue's
        broker lock held, messages in queue order; ``SUSPEND_CURRENT_QUEUE_A_MOMENT`` delivers the same messages
        again after the suspend time. The listener call and the commit of its offset happen under the queue's
        consume lock, which a rebalance takes before it commits and unlocks the queue on the broker: the next
        owner starts exactly after the last message consumed here."""
        if pq.dropped:
            return
        clustering = self.model == "CLUSTERING"
        c = CONSUMER_CONSTANTS
        with self._mq_lock(mq):
            if clustering and (not pq.locked or pq.is_lock_expired()):
                self._try_lock_later(mq, pq, 100)
                return
            begin = time.monotonic()
            batch = self.settings.consume_message_batch_max_size
            while not pq.dropped:
                if clustering and (not pq.locked or pq.is_lock_expired()):
                    self._try_lock_later(mq, pq, 10)
                    return
                if (time.monotonic() - begin) * 1000 > c["MAX_TIME_CONSUME_CONTINUOUSLY"]:
                    self._later(10, self._consume_orderly, pq, mq)
                    return
                msgs = pq.take_messages(batch)
                if not msgs:
                    return
                context = ConsumeOrderlyContext(mq)
                with pq.consume_lock:
                    if pq.dropped:
                        return
                    status = self._call_listener(msgs, context)
                    if not isinstance(status, ConsumeOrderlyStatus):
                        status = self._not_a_status(
                            status, ConsumeOrderlyStatus, ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
                        )
                    if status is ConsumeOrderlyStatus.SUCCESS:
                        self.stats.add(consumed=len(msgs))
                        offset = pq.commit()
                    elif self._over_reconsume_times(msgs):
                        self.stats.add(failed=len(msgs))
                        offset = pq.commit()
                    else:
                        self.stats.add(failed=len(msgs))
                        pq.make_message_to_consume_again(msgs)
                        suspend = context.suspend_current_queue_time_millis
                        if suspend < 0:
                            suspend = self.settings.suspend_current_queue_time_millis
                        self._later(suspend, self._consume_orderly, pq, mq)
                        return
                    # Java skips this when the queue was dropped during the listener call, so the next owner
                    # consumes those messages again. Here the give-up waits for this consume lock before it
                    # commits, so the offset is recorded even then and the commit includes these messages.
                    if offset >= 0 and self._offsets is not None:
                        self._offsets.update_offset(mq, offset, False)

    def _over_reconsume_times(self, msgs: list[Any]) -> bool:
        """``checkReconsumeTimes``: a message consumed ``max_reconsume_times`` times already goes to the
        dead-letter queue (sent back with delay level -1); the others are counted once more. True when every
        message was moved away (nothing to suspend for). With the default -1 (no limit for orderly consumers),
        messages are retried for ever, as Java's."""
        limit = self.settings.max_reconsume_times
        limit = 2**31 - 1 if limit == -1 else limit
        suspend = False
        for m in msgs:
            if m.reconsume_times >= limit:
                m.properties["RECONSUME_TIME"] = str(m.reconsume_times)
                if not self._send_back(m, -1):
                    suspend = True
                    m.reconsume_times += 1
                else:
                    self.stats.add(sent_back=1)
            else:
                suspend = True
                m.reconsume_times += 1
        return not suspend

    # -- offsets -------------------------------------------------------------------------------------------------

    async def _persist_all(self) -> None:
        """``persistConsumerOffset``: commit the owned queues' offsets (oneway, as Java)."""
        if self._offsets is None:
            return
        owned = [mq for mq, pq in self._pqs.items() if not pq.dropped]
        try:
            await self._offsets.persist_all(owned)
        except Exception as e:
            log.warning("committing offsets failed: %s", e)

    def __repr__(self) -> str:
        return f"Consumer(group={self.group!r}, client_id={self.client_id!r}, model={self.model}, {self._state})"
