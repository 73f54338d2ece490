"""``Producer``: a RocketMQ producer that sends to real brokers through rocketroute's routing core.

It is ``DefaultMQProducer`` for Python: the same settings (snake_case), the same route lookup
(``tryToFindTopicPublishInfo``, with the ``TBW102`` fallback for a topic the name servers do not know yet), the
same send loop (``sendDefaultImpl``, :func:`rocketroute.send_default`) with real latencies feeding the
``MQFaultStrategy``, the same ordered send (``sendSelectImpl``), oneway and batch sends, and the same bytes on the
wire (``SEND_MESSAGE_V2`` / ``SEND_BATCH_MESSAGE``). Routes are refreshed every ``poll_name_server_interval`` ms and
each change is reported with its ordering risk (:class:`~rocketroute.client.route_change.RouteChange`).

Threads: a producer is safe to share. Sync sends run the routing in the calling thread and wait on the remoting
client's event loop (a daemon thread); :meth:`Producer.send_async` runs the whole send on that loop and can be
awaited from any event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
import time
import warnings
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from threading import get_ident
from typing import TYPE_CHECKING, Any, TypeVar

from ... import send as _send_module
from ...errors import BrokerUnreachableError, ProducerClosedError, SendFailedError
from ...loggers import get_logger
from ...net.bridge import loop_runs_here
from ...net.runtime import RemotingClient
from ...net.tls import TLS, check_tls
from ...net.transport import AsyncRemotingClient
from ...protocol import RemotingError, RemotingTooMuchRequestError
from ...protocol.acl import Credentials, check_credentials
from ...protocol.command import RPC_ONEWAY
from ...selector import MessageQueueSelector, SelectorFunction
from ...send import _NATIVE_MAX_ATTEMPTS, _NATIVE_MAX_TIMEOUT, CommunicationMode, _send_loop, send_default, send_select
from ..instance import ClientInstance
from ..instances import acquire_instance, client_identity, forked_error, release_instance
from ..message import Message
from ..namespace import check_namespace, wrap
from ..namesrv import parse_namesrv_addrs
from ..settings_check import check_compat, check_group, check_positive_ms
from ..workers import CallbackThread
from .backpressure import SendWindow
from .encoders import EncoderThreads, encoder_threads
from .inflight import SendsInFlight
from .publish_routes import PublishRoutes
from .route_change import RouteChange
from .send_args import check_selector
from .send_budget import kernel_budget, loop_budget
from .send_result import SendResult
from .send_wire import EncodedSend, SendWire
from .settings import ProducerSettings

if TYPE_CHECKING:
    from ... import MQFaultStrategy, TopicPublishInfo, TopicRouteData

__all__ = ["Producer"]

log = get_logger("producer")

T = TypeVar("T")


OFF_LOOP_MIN_BODY = 8 * 1024
"""A send awaited on an event loop (:meth:`Producer.send_async`, :mod:`rocketroute.aio`) whose body is compressed
and at least this long is encoded on the producer's encoder threads, not on the loop: zlib takes ~30 µs for 4 KiB,
~60 µs for 8 KiB, ~125 µs for 16 KiB and ~1.3 ms for 64 KiB on a 2-core x86_64 machine, and the hand-over to a
thread and back costs the loop ~20-30 µs. A smaller compressed body costs the loop less than the hand-over would."""


class Producer:
    """A producer of group ``group`` on the cluster behind ``namesrv`` (``"host:port;host:port"`` or a list).

    ``compat`` (``"5.3"`` or ``"4.9"``) picks the Java client whose behaviour is copied: routing, fault
    tolerance, message encoding. Settings (:class:`~rocketroute.client.producer.settings.ProducerSettings`) are
    ``DefaultMQProducer``'s, in snake_case, with its defaults, given as keyword arguments
    (``send_msg_timeout=1000``), as a ``settings=`` object, or both (the keywords change the object's values); a
    name the producer would not read is refused with :class:`~rocketroute.errors.UnsupportedSettingError`.

    ``on_route_change(change)`` is called (on the remoting thread) for every route change a refresh finds;
    ``backend`` is the routing module (default: the ``rocketroute`` package, native when built).
    ``instance_name`` and ``client_ip`` make the client id (``ip@instance``; the default instance name is
    ``<pid>#<nanos>``, as Java's 5.x clients); clients with one client id share one client instance. ``instance=``
    (another client's :attr:`instance`) joins that instance instead (:mod:`rocketroute.client.instance`).
    ``credentials`` (:class:`~rocketroute.Credentials`) sign every request (:mod:`rocketroute.protocol.acl`); ``tls``
    (``True``, or an :class:`ssl.SSLContext`) makes every connection TLS (:mod:`rocketroute.net.tls`).
    ``namespace`` (Java 5.x's): topics and the group go out as ``namespace%name``; send results, route changes
    and a selector's queues show the plain topic (:mod:`rocketroute.client.namespace`).

    Use it as a context manager, or call :meth:`start` and :meth:`shutdown`.
    """

    def __init__(
        self,
        namesrv: str | Sequence[str],
        group: str = "DEFAULT_PRODUCER",
        *,
        compat: str = "5.3",
        on_route_change: Callable[[RouteChange], None] | None = None,
        backend: Any = None,
        instance_name: str | None = None,
        client_ip: str | None = None,
        instance: ClientInstance | None = None,
        credentials: Credentials | None = None,
        tls: TLS = None,
        namespace: str | None = None,
        settings: ProducerSettings | None = None,
        **overrides: Any,
    ) -> None:
        compat = check_compat(compat)
        cfg = ProducerSettings.resolve(compat, settings, overrides)
        self.namesrv_addrs = parse_namesrv_addrs(namesrv)
        self.namespace = check_namespace(namespace)
        # Java wraps the group at start (setProducerGroup(withNamespace(...))); here at once: the same name after
        self.group = wrap(self.namespace, check_group(group, "producer group"))
        self.compat = compat
        self.settings: ProducerSettings = cfg
        self.instance_name, self.client_id = client_identity(instance, instance_name, client_ip)
        self._join = instance
        self.credentials = check_credentials(credentials)
        self._prefetch: concurrent.futures.Future[bool] | None = None
        check_tls(tls)  # a bad value is refused here, not at start
        self.tls = tls
        if backend is None:
            import rocketroute as backend
        self._rr = backend
        self.on_route_change = on_route_change
        self.strategy: MQFaultStrategy = backend.MQFaultStrategy(
            compat, send_latency_fault_enable=cfg.send_latency_fault_enable
        )
        self._window = (
            SendWindow(cfg.back_pressure_for_async_send_num, cfg.back_pressure_for_async_send_size)
            if cfg.enable_backpressure_for_async_mode
            else None
        )
        self._lock = threading.Lock()
        # the requests and results; its brokerAddrTable is the instance's once started
        self._wire = SendWire(self.group, self.namespace, compat, cfg, backend)
        self._routes = PublishRoutes(compat, cfg, self.namespace, backend, self._wire)  # topicPublishInfoTable
        self._instance: ClientInstance | None = None
        self._remoting: RemotingClient | None = None
        self._callbacks: CallbackThread | None = None
        # the encoder threads (OFF_LOOP_MIN_BODY), started by the first send that needs one
        self._encoders: EncoderThreads | None = None
        self._off_loop_min = max(OFF_LOOP_MIN_BODY, cfg.compress_msg_body_over_howmuch)
        self._finalizer: weakref.finalize | None = None
        self._state = "created"
        # the sends accepted and not settled (flush and shutdown wait for them); _live: accepted sends may still
        # run (running, or stopping while they drain); _closed_error: what those left when the wait ended get
        self._inflight = SendsInFlight()
        self._live = False
        self._closed_error: ProducerClosedError | None = None
        # set by rocketroute.aio before start(): the instance then runs on that (the caller's) loop, no thread
        self._bind_loop: asyncio.AbstractEventLoop | None = None

    # -- lifecycle --------------------------------------------------------------------------------------------

    def start(self) -> Producer:
        """Join the client id's instance (starting it when this is its first client): its remoting client, and
        its route poll (every ``poll_name_server_interval`` ms) and heartbeat that register this producer's group
        with the brokers within 1 s and then every ``heartbeat_broker_interval`` ms."""
        with self._lock:
            if self._state == "running":
                return self
            if self._state != "created":
                raise RuntimeError(f"the producer is {self._state}; a producer starts once")
            # the client id's shared instance (one loop thread and one connection per broker for all its clients)
            self._instance = instance = acquire_instance(self, "producer")
            self._remoting = instance.remoting
            self._wire.broker_addrs = instance.broker_addrs
            self._callbacks = CallbackThread(f"rocketroute-callbacks-{self.group}")
            self._encoders = EncoderThreads(encoder_threads(), f"rocketroute-encoders-{self.group}")
            # a producer dropped without shutdown() is closed when collected: nothing of the client holds it
            # strongly (the instance and the poll timer hold weak references), and a ResourceWarning says it was
            # left open
            self._finalizer = weakref.finalize(
                self, _close_dropped, repr(self), instance, self.group, self._callbacks, self._encoders
            )
            # Java's producer puts create_topic_key (TBW102) in its publish table at start, and the instance's first
            # route poll fetches it: that route names the brokers (where they create topics automatically), so the
            # heartbeat under the group reaches them at once, before any send (the admin tools' producerConnection
            # lists the producer; a broker can check a transaction through it). Not waited for: a send fetches
            # what it needs itself.
            key = self.settings.create_topic_key
            self._routes.known(key)
            self._prefetch = instance.fetch_route_soon(key)
            self._state = "running"
            self._live = True
            self._inflight.open()
        self._log_lifecycle("started")
        return self

    def shutdown(self) -> None:
        """Take no new sends, wait for the sends already accepted (at most ``shutdown_flush_timeout`` ms; see
        :meth:`flush`), then leave the instance's route poll and heartbeat, unregister the producer group from the
        brokers (each within ``mq_client_api_timeout``) and release the client instance (its connections are closed
        when this was its last client). Sends still under way when the wait ends fail with
        :class:`~rocketroute.errors.ProducerClosedError`, which says how many there were (one WARNING says it
        too); sends after this raise ``RuntimeError``. It may be called from any thread, ``on_route_change`` and a
        send's callback included: on the producer's own event-loop thread it cannot wait, so what is under way
        fails at once."""
        remoting = self._stop_accepting()
        if remoting is None:
            return
        if remoting.on_loop_thread():
            self._give_up(self._inflight.count, "it was shut down from its own event-loop thread, where it cannot wait")
            remoting.loop.create_task(self._inflight.cancel_tracked(1.0))
        else:
            bound_ms = self.settings.shutdown_flush_timeout
            left = self._inflight.wait(bound_ms / 1000)
            if left:
                self._give_up(left, f"shutdown_flush_timeout ({bound_ms} ms) passed")
                try:
                    remoting.run(self._inflight.cancel_tracked(1.0), 2)
                except Exception as e:  # the loop is stopped or blocked: the connections' close settles the rest
                    log.debug("cancelling the sends under way of %s did not finish: %r", self.group, e)
        self._begin_shutdown()
        if self._instance is not None and not remoting.on_loop_thread():
            unregister, bound_s = self._unregister(self._instance)
            try:
                remoting.run(unregister, bound_s)
            except Exception as e:
                log.debug("unregistering producer group %s did not finish: %r", self.group, e)
        if self._instance is not None:  # the last client of the instance closes its connections and loop thread
            release_instance(self._instance, "producer", self.group)
        self._log_lifecycle("shut down")

    def _unregister(self, instance: ClientInstance) -> tuple[Coroutine[Any, Any, None], float]:
        """unregisterProducer, and how long it may take: the brokers forget this group of the client id (one
        request per broker node, each within ``mq_client_api_timeout``)."""
        timeout_ms = self.settings.mq_client_api_timeout
        nodes = len(list(instance.broker_addrs.nodes()))
        return instance.unregister(producer_group=self.group, timeout_ms=timeout_ms), timeout_ms / 1000 * (1 + nodes)

    def flush(self, timeout_ms: int | None = None) -> int:
        """Wait until every send accepted so far is done (stored, failed or timed out: each ends by its own
        budget), at most ``timeout_ms`` (``None``: until they are); returns how many are still under way (0: all
        done). Sends go on being taken meanwhile. confluent-kafka's ``flush``; :meth:`shutdown` flushes first.
        Refused (``RuntimeError``) on the producer's event-loop thread, where the sends it waits for run."""
        if timeout_ms is not None:
            check_positive_ms("timeout_ms", timeout_ms)
        if self._state == "forked":
            raise forked_error("producer", self._forked_from)
        remoting = self._remoting
        if remoting is not None and remoting.on_loop_thread():
            raise RuntimeError(
                "Producer.flush() cannot be called on the producer's event-loop thread (a send's callback): the sends "
                "it waits for run there"
            )
        return self._inflight.wait(None if timeout_ms is None else timeout_ms / 1000)

    def _accept(self) -> None:
        """Count one send as accepted (flush and shutdown wait for it), or raise: the producer is not running."""
        if not self._inflight.begin():
            self._running()  # raises, saying why
            raise RuntimeError("the producer is stopping: it takes no new sends")

    def _not_live(self) -> BaseException:
        """What an accepted send raises when the producer stopped under it."""
        if self._state == "forked":
            return forked_error("producer", self._forked_from)
        if self._closed_error is not None:
            return self._unsent_error()
        try:
            self._running()
        except RuntimeError as e:
            return e
        return RuntimeError("the producer is not running")

    def _unsent_error(self) -> ProducerClosedError:
        """A new exception for one send the shutdown gave up on (each send raises its own)."""
        e = self._closed_error
        assert e is not None
        return ProducerClosedError(str(e), e.unsent)

    def _give_up(self, left: int, why: str) -> None:
        """The shutdown stops waiting: the ``left`` sends under way fail with :class:`ProducerClosedError` (said
        once here, not once per send)."""
        if not left:
            return
        self._closed_error = ProducerClosedError(
            f"the producer {self.group} shut down before this send was done: {left} of the sends it had accepted "
            f"were not done when {why}; the broker may still have stored it",
            left,
        )
        self._live = False
        log.warning("producer %s: %d send(s) accepted were not done when %s: they fail with ProducerClosedError",
                    self.group, left, why)  # fmt: skip

    def _stop_accepting(self) -> RemotingClient | None:
        """The first step of every shutdown: no new sends; the remoting client, or ``None`` when the producer was
        not running (or another shutdown is under way)."""
        with self._lock:
            if self._state != "running":
                if self._state == "created":
                    self._state = "shut down"
                return None
            self._state = "stopping"
            remoting = self._remoting
        assert remoting is not None
        self._inflight.close()
        return remoting

    def _begin_shutdown(self) -> None:
        """What every shutdown does once the sends are settled: the state, the start-time route fetch, the finalizer,
        the callback thread."""
        with self._lock:
            self._state = "shut down"
            self._live = False
        if self._prefetch is not None:
            self._prefetch.cancel()
        if self._finalizer is not None:
            self._finalizer.detach()
        if self._callbacks is not None:
            self._callbacks.close()
        if self._encoders is not None:
            self._encoders.close()  # the encodes already given finish; their sends then find no producer

    async def _shutdown_on_loop(self) -> None:
        """:meth:`shutdown` for a producer whose instance runs on the calling loop (:mod:`rocketroute.aio`): the wait
        for the sends under way, the unregistration and the closing of the connections are awaited there."""
        remoting = self._stop_accepting()
        instance = self._instance
        if remoting is None or instance is None:
            return
        bound_ms = self.settings.shutdown_flush_timeout
        left = await self._inflight.wait_async(bound_ms / 1000)
        if left:
            self._give_up(left, f"shutdown_flush_timeout ({bound_ms} ms) passed")
            await self._inflight.cancel_tracked(1.0)
        self._begin_shutdown()
        unregister, bound_s = self._unregister(instance)
        try:
            await asyncio.wait_for(unregister, bound_s)
        except Exception as e:
            log.debug("unregistering producer group %s did not finish: %r", self.group, e)
        if release_instance(instance, "producer", self.group, close=False):
            await remoting.aclose()
        self._log_lifecycle("shut down")

    def _log_lifecycle(self, what: str) -> None:
        """The INFO line of a start or a shutdown (Java's "the producer [group] start OK"): who, on which cluster."""
        namesrv = ";".join(self.namesrv_addrs)
        log.info("producer %s %s: client id %s, name servers %s", self.group, what, self.client_id, namesrv)

    def __enter__(self) -> Producer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    @property
    def instance(self) -> ClientInstance | None:
        """The client instance this producer runs on (``None`` before :meth:`start`): pass it as ``instance=`` to
        another producer or consumer to share it."""
        return self._instance

    def _forked_away(self) -> None:
        """In the child of a fork (see :func:`~rocketroute.client.instances.forked_error`): unusable, and stopping it
        returns at once; its locks are new (another thread of the parent may have held them over the fork)."""
        self._lock = threading.Lock()
        self._inflight = SendsInFlight()  # accepts nothing
        self._live = False
        self._forked_from = os.getppid()
        self._state = "forked"
        if self._finalizer is not None:
            self._finalizer.detach()

    def _running(self) -> tuple[RemotingClient, ClientInstance]:
        if self._state != "running" or self._remoting is None or self._instance is None:
            if self._state == "forked":
                raise forked_error("producer", self._forked_from)
            if self._state == "stopping":
                raise RuntimeError("the producer is shutting down: it takes no new sends")
            raise RuntimeError(f"the producer is {self._state}: call start() (or use it as a context manager)")
        return self._remoting, self._instance

    # -- routes -----------------------------------------------------------------------------------------------

    def _submit(self, coro: Awaitable[T], timeout_s: float | None = None) -> T:
        """Run ``coro`` on the client's loop and wait for it (at most ``timeout_s``: ``TimeoutError``)."""
        try:
            remoting = self._remoting if self._live else None  # an accepted send's route lookup while stopping too
            if remoting is None:
                raise self._not_live()
            if remoting.on_loop_thread():
                raise RuntimeError(
                    "a blocking Producer method cannot be called on the producer's event-loop thread (it would wait "
                    "for that loop): use send_async there, or call it from another thread"
                )
        except BaseException:
            coro.close()  # type: ignore[attr-defined]
            raise
        return remoting.run(coro, timeout_s)  # type: ignore[arg-type]

    def publish_info(self, topic: str) -> TopicPublishInfo:
        """The topic's ``TopicPublishInfo`` as the next send would use it (fetched now if not known yet; its
        queues carry the topic as sent: ``namespace%topic`` in a namespace)."""
        return self._submit(self._find_publish_info(wrap(self.namespace, topic)))

    def route(self, topic: str) -> TopicRouteData | None:
        """The last ``TopicRouteData`` the client instance fetched for ``topic``, or ``None``."""
        return None if self._instance is None else self._instance.routes.get(wrap(self.namespace, topic))

    def refresh_routes(self) -> list[RouteChange]:
        """Fetch the routes of the topics this producer published to now (what the instance's poll does every
        ``poll_name_server_interval`` ms) and return the changes found, once ``on_route_change`` has been called
        for them (unless this is called from ``on_route_change`` itself)."""
        before = self._routes.queues()
        self._submit(self._refresh_all())
        changes = self._routes.changes_since(before)
        if self._callbacks is not None:
            self._callbacks.flush(self.settings.mq_client_api_timeout / 1000)
        return changes

    async def _find_publish_info(self, topic: str) -> Any:
        """``tryToFindTopicPublishInfo`` (:meth:`PublishRoutes.find`), also while the producer is stopping: an
        accepted send's lookup."""
        instance = self._instance if self._live else None
        if instance is None:
            raise self._not_live()
        return await self._routes.find(instance, topic)

    async def _refresh_all(self) -> None:
        await self._routes.refresh_all(self._running()[1])

    # -- what the client instance asks of its clients ----------------------------------------------------------

    def _route_topics(self) -> list[str]:
        """The topics whose routes the instance keeps for this producer: those it knows (sent to, or fetched by
        another producer of the instance)."""
        return list(self._routes.table)

    def _takes_route(self, topic: str) -> bool:
        """Whether a changed route of ``topic`` is handed to this producer: every one (Java's)."""
        return True

    def _needs_route(self, topic: str) -> bool:
        return self._routes.needs_route(topic)

    def _on_route(self, topic: str, route: Any, *, from_default: bool) -> None:
        """``updateTopicPublishInfo`` (on the loop): a change of the topic's publish queues is logged and reported
        to ``on_route_change``."""
        change = self._routes.update(topic, route, from_default=from_default)
        if change is not None:
            log.info("route change: %s", change.describe())
            if self.on_route_change is not None and self._callbacks is not None:
                # on the callback thread, where it may call the producer (send, refresh, shut down)
                self._callbacks.post("on_route_change", self.on_route_change, change)

    def __repr__(self) -> str:
        return f"<Producer group={self.group!r} namesrv={';'.join(self.namesrv_addrs)!r} {self._state}>"

    # -- encoding ---------------------------------------------------------------------------------------------

    def _encodes_off_loop(self, msg: Message) -> bool:
        """Whether a send of ``msg`` awaited on a loop is encoded on the encoder threads (:data:`OFF_LOOP_MIN_BODY`)."""
        body = msg.body if isinstance(msg, Message) else None
        return type(body) is bytes and len(body) >= self._off_loop_min

    async def _encode_off_loop(self, msg: Message, timeout_ms: int | None) -> tuple[EncodedSend, int]:
        """:meth:`_encode` on one of the producer's encoder threads while the calling loop goes on (zlib releases
        Python's lock: the compressions of concurrent sends run on other cores), and the send's budget left after
        it. The wait for a thread and the encoding count against the budget, as the wait for Java's async sender
        executor does; none left: ``RemotingTooMuchRequestError("DEFAULT ASYNC send call timeout")``, Java's
        words."""
        if not self._live:
            raise self._not_live()
        encoders = self._encoders
        assert encoders is not None
        timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
        begin = time.monotonic()
        try:
            future = encoders.run(self._wire.encode, msg)
        except RuntimeError:
            if not self._live:  # shut down since the check above: say so
                raise self._not_live() from None
            raise
        enc: EncodedSend = await future
        left = timeout - int((time.monotonic() - begin) * 1000)
        if left <= 0:
            raise RemotingTooMuchRequestError("DEFAULT ASYNC send call timeout")
        return enc, left

    # -- sync sends -------------------------------------------------------------------------------------------

    def send(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> SendResult:
        """Send one message and wait for the broker's answer.

        Without ``selector``: ``sendDefaultImpl``, up to 1 + ``retry_times_when_send_failed`` attempts on the
        queues the ``MQFaultStrategy`` picks. With ``selector`` (e.g. ``SelectMessageQueueByHash()``) and ``arg``:
        ``sendSelectImpl``, one attempt on the selected queue, as Java (no retry, which would break the order).
        ``arg`` without a ``selector``, and a ``selector`` that is none (a number: Java's ``send(msg, timeout)``
        is ``send(msg, timeout_ms=...)``), raise ``TypeError`` before anything is sent."""
        check_selector("send", selector, arg)
        return self._send_sync(self._wire.encode(msg), msg, selector, arg, timeout_ms, CommunicationMode.SYNC)

    def send_oneway(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
    ) -> None:
        """``sendOneway``: one attempt, no answer awaited (the request goes out with the oneway flag). ``selector``
        and ``arg`` as for :meth:`send`."""
        check_selector("send_oneway", selector, arg, timeout=False)
        self._send_sync(self._wire.encode(msg), msg, selector, arg, None, CommunicationMode.ONEWAY)

    def send_batch(self, msgs: Iterable[Message], *, timeout_ms: int | None = None) -> SendResult:
        """``send(Collection<Message>)``: the messages as one ``SEND_BATCH_MESSAGE`` (same topic, no delay; Java's
        checks), with the sync retry loop. The result's ``msg_id`` is the messages' ids joined by ``","``."""
        return self._send_sync(self._wire.encode_batch(msgs), None, None, None, timeout_ms, CommunicationMode.SYNC)

    def _send_sync(
        self,
        enc: EncodedSend,
        msg: Message | None,
        selector: Any,
        arg: Any,
        timeout_ms: int | None,
        mode: CommunicationMode,
        *,
        accepted: bool = False,
    ) -> Any:
        """A sync send: accepted here (flush and shutdown wait for it), unless the caller ``accepted`` it already
        (a transaction is accepted whole: its half message, its executor and its END_TRANSACTION)."""
        remoting = self._remoting
        if remoting is not None and threading.current_thread() is remoting._thread:  # remoting.on_loop_thread()
            raise RuntimeError(
                "a blocking Producer send cannot be called on the producer's event-loop thread (a submit() future's "
                "callback runs there): it would wait for that loop; use submit or send_async there, or call it from "
                "another thread"
            )
        if not accepted:
            self._accept()
        try:
            return self._send_sync_accepted(enc, msg, selector, arg, timeout_ms, mode)
        except Exception as e:
            if self._closed_error is not None:  # the shutdown stopped waiting for it
                raise self._unsent_error() from e
            raise
        finally:
            if not accepted:
                self._inflight.end()

    def _send_sync_accepted(
        self,
        enc: EncodedSend,
        msg: Message | None,
        selector: Any,
        arg: Any,
        timeout_ms: int | None,
        mode: CommunicationMode,
    ) -> Any:
        remoting = self._remoting
        assert remoting is not None
        timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
        begin = time.monotonic()
        rest = timeout  # what the loop of attempts has: all of it, less a route lookup's time
        info = self._routes.table.get(enc.topic)
        if info is None or not info.ok():
            try:
                info = self._submit(self._find_publish_info(enc.topic), timeout / 1000)
            except (RemotingError, BrokerUnreachableError) as e:  # first: a name server's timeout is a TimeoutError
                raise self._no_route(enc.topic, timeout, e) from e
            except concurrent.futures.TimeoutError:
                raise self._no_route(enc.topic, timeout, None) from None
            if not info.ok():
                raise self._unknown_topic(enc.topic)
            rest = loop_budget(timeout, begin)
        oneway = mode is CommunicationMode.ONEWAY
        language = remoting.async_client.frame_language()
        flag = RPC_ONEWAY if oneway else 0

        def attempt(mq: Any) -> Any:
            left = kernel_budget(timeout, begin)
            addr, request = self._wire.request(enc, mq, language, flag)
            if oneway:
                remoting.invoke_oneway(addr, request, direct=True)
                return None
            response = remoting.invoke(addr, request, left, direct=True)
            return self._wire.result(enc, mq, addr, response)

        if selector is not None:
            return send_select(info, self._wire.user_selector(selector), msg, arg, attempt, timeout_ms=rest)
        return send_default(
            info,
            self.strategy,
            attempt,
            mode=mode,
            retry_times_when_send_failed=self.settings.retry_times_when_send_failed,
            timeout_ms=rest,
            retry_result=self._wire.retry_result(),
        )

    def _no_route(self, topic: str, timeout_ms: int, error: BaseException | None) -> SendFailedError:
        """The route lookup of a send is bounded by the send's budget (Java's is not: it waits for the name
        server's own timeout, then throws "No route info"): the error when it failed or ran out of time."""
        addrs = ";".join(self.namesrv_addrs)
        why = f"the name server(s) {addrs} did not answer within send_msg_timeout ({timeout_ms} ms)"
        if error is not None:
            why = f"the name server(s) {addrs} failed: {error}"
        return SendFailedError(f"No route info of this topic: {topic}: {why}")

    def _unknown_topic(self, topic: str) -> SendFailedError:
        """The name servers answered, with no writable queue of ``topic`` nor of ``create_topic_key`` (Java's
        "No route info of this topic" after ``tryToFindTopicPublishInfo``): the error says which topic, and why a
        first send does not create it."""
        key = self.settings.create_topic_key
        return SendFailedError(
            f"No route info of this topic: {topic}: the name server(s) {';'.join(self.namesrv_addrs)} know no "
            f"writable queue of it, nor of create_topic_key {key!r} (a broker creates a topic at its first send only "
            f"with autoCreateTopicEnable=true): create the topic first (mqadmin updateTopic -t {topic} -c <cluster>)"
        )

    # -- async sends ------------------------------------------------------------------------------------------

    async def send_async(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> SendResult:
        """Send one message without blocking the caller's event loop (Java's ``send(msg, SendCallback)``): up to
        1 + ``retry_times_when_send_async_failed`` attempts, retried only when the request could not be sent or
        timed out (a broker's error answer is not retried, as in Java's async path). With ``selector``: one
        attempt on the selected queue. Await it from any event loop. A large compressed body is compressed on the
        producer's encoder threads, not on the loop (:data:`OFF_LOOP_MIN_BODY`). ``selector`` and ``arg`` as for
        :meth:`send`."""
        check_selector("send_async", selector, arg)
        body = msg.body if isinstance(msg, Message) else None  # self._encodes_off_loop(msg) written out
        self._accept()
        try:
            if type(body) is bytes and len(body) >= self._off_loop_min:
                enc, timeout_ms = await self._encode_off_loop(msg, timeout_ms)
            else:
                enc = self._wire.encode(msg)
            if self._window is None:
                # _send_async_admitted written out: one coroutine fewer held by each send in flight
                return await self._send_here(enc, msg, selector, arg, timeout_ms)  # type: ignore[no-any-return]
            return await self._send_async_admitted(enc, msg, selector, arg, timeout_ms, _body_size(msg.body))
        finally:
            self._inflight.end()

    async def send_batch_async(self, msgs: Iterable[Message], *, timeout_ms: int | None = None) -> SendResult:
        """:meth:`send_batch` without blocking the caller's event loop."""
        enc = self._wire.encode_batch(msgs)
        self._accept()
        try:
            return await self._send_async_admitted(enc, None, None, None, timeout_ms, len(enc.body))
        finally:
            self._inflight.end()

    def submit(
        self,
        msg: Message,
        selector: MessageQueueSelector | SelectorFunction | None = None,
        arg: Any = None,
        *,
        timeout_ms: int | None = None,
    ) -> concurrent.futures.Future[SendResult]:
        """Send one message and return at once with a future of its result (Java's ``send(msg, SendCallback)``;
        ``future.add_done_callback(fn)`` is the callback). From any thread, no event loop needed; the attempts are
        :meth:`send_async`'s.

        With ``enable_backpressure_for_async_mode`` the call first waits for room (it blocks the calling thread, as
        Java's does), so a loop of ``submit`` calls runs at the broker's pace with bounded memory; no room within
        the budget gives a future failed with ``RemotingTooMuchRequestError``. Callbacks run on the client's I/O
        thread: keep them short; a blocking call there (``send``, ``flush``, ...) raises ``RuntimeError`` at once,
        while ``submit`` and ``send_async`` work. A shutdown waits for the future (see :meth:`shutdown`).
        ``selector`` and ``arg`` as for :meth:`send`."""
        check_selector("submit", selector, arg)
        enc = self._wire.encode(msg)
        self._accept()
        remoting = self._remoting
        assert remoting is not None
        timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
        size = _body_size(msg.body)
        window = self._window
        if window is not None:
            try:
                # on the I/O thread itself (a callback sending again) waiting would stop the answers that free room
                timeout = window.admit(size, timeout, wait=not remoting.on_loop_thread())
            except RemotingTooMuchRequestError as e:
                self._inflight.end()
                return _failed(e)  # as Java's callback gets it
        try:
            future = remoting.returns.from_thread(self._send_async(enc, msg, selector, arg, timeout, track=True))
        except BaseException:
            if window is not None:
                window.release(size)
            self._inflight.end()
            raise
        if window is not None:
            future.add_done_callback(lambda _: window.release(size))  # before the caller's callbacks, as in Java
        future.add_done_callback(self._inflight.end)
        return future

    @property
    def async_sends_in_flight(self) -> tuple[int, int]:
        """(sends, body bytes) the back-pressure counts in flight now; (0, 0) without it (Java's
        ``backPressureForAsyncSendNum`` less the semaphore's available permits)."""
        return (0, 0) if self._window is None else self._window.in_flight

    async def _send_async_admitted(
        self, enc: EncodedSend, msg: Message | None, selector: Any, arg: Any, timeout_ms: int | None, size: int
    ) -> SendResult:
        """The async send, after waiting on the caller's loop for room when the back-pressure is on."""
        window = self._window
        if window is None:
            return await self._send_here(enc, msg, selector, arg, timeout_ms)  # type: ignore[no-any-return]
        timeout = await window.admit_async(size, self.settings.send_msg_timeout if timeout_ms is None else timeout_ms)
        try:
            return await self._send_here(enc, msg, selector, arg, timeout)  # type: ignore[no-any-return]
        finally:
            window.release(size)

    def _send_here(
        self, enc: EncodedSend, msg: Message | None, selector: Any, arg: Any, timeout_ms: int | None
    ) -> Coroutine[Any, Any, Any]:
        """:meth:`_send_async` on the running loop: on the client's connections when it is the client's loop, else
        on connections of that loop's own (``net.caller_loops``: no hop to the client's thread and back)."""
        remoting = self._remoting if self._live else None
        if remoting is None:
            raise self._not_live()
        loop = remoting.loop
        # remoting.loop_runs_here() written out: the standard loops say which thread runs them
        thread_id = getattr(loop, "_thread_id", _NO_THREAD_ID)
        here = thread_id == get_ident() if thread_id is not _NO_THREAD_ID else loop_runs_here(loop)
        client = None if here else remoting.caller_loops.here()
        return self._send_async(enc, msg, selector, arg, timeout_ms, client=client)

    async def _send_async(
        self,
        enc: EncodedSend,
        msg: Message | None,
        selector: Any,
        arg: Any,
        timeout_ms: int | None,
        mode: CommunicationMode = CommunicationMode.ASYNC,
        *,
        client: AsyncRemotingClient | None = None,
        track: bool = False,
    ) -> Any:
        """The async send on the client's loop, or with ``client`` (the running loop's own, another loop than the
        client's) on that loop: its route lookups still run on the client's loop (its name server connections).
        ``track``: this coroutine is the task of a send nobody awaits (``submit``): cancelled if the shutdown stops
        waiting for it. An accepted send the shutdown gave up on raises :class:`ProducerClosedError`."""
        remoting = self._remoting if self._live else None
        if remoting is None:
            raise self._not_live()
        if track:
            self._inflight.track(asyncio.current_task(remoting.loop))  # type: ignore[arg-type]
        try:
            if client is None:
                client = remoting.async_client
            timeout = self.settings.send_msg_timeout if timeout_ms is None else timeout_ms
            begin = time.monotonic()
            rest = timeout  # what the loop of attempts has: all of it, less a route lookup's time
            info = self._routes.table.get(enc.topic)
            if info is None or not info.ok():
                find = self._find_publish_info(enc.topic)
                if client is not remoting.async_client:
                    find = remoting.returns.from_loop(find)
                try:
                    info = await asyncio.wait_for(find, timeout / 1000)
                except (RemotingError, BrokerUnreachableError) as e:  # first: RemotingTimeoutError is a TimeoutError
                    raise self._no_route(enc.topic, timeout, e) from e
                except asyncio.TimeoutError:
                    raise self._no_route(enc.topic, timeout, None) from None
                if not info.ok():
                    raise self._unknown_topic(enc.topic)
                rest = loop_budget(timeout, begin)

            # sendDefaultImpl's loop (send.send_default_async's) or, with a selector, one attempt on the queue it
            # picks, written out here: every coroutine and closure of an async send lives as long as the send is in
            # flight, and the garbage collector walks each of them while a thousand sends wait
            oneway = mode is CommunicationMode.ONEWAY
            language = client.encoded_language
            flag = RPC_ONEWAY if oneway else 0
            sends: Any = None  # the send loop's state (send._send_loop), without a selector
            if selector is not None:
                chosen_by = selector if not self.namespace else self._wire.user_selector(selector)
                mq = send_select(info, chosen_by, msg, arg, _chosen, timeout_ms=rest)
            else:
                # _send_loop's choice of the native loop written out for the async sends (the same checks)
                loops = _send_module._NATIVE_LOOP or _send_module._native_loop_types()
                total = 1 + self.settings.retry_times_when_send_async_failed
                if (
                    loops
                    and mode is _ASYNC
                    and type(self.strategy) is loops[1]
                    and type(info) is loops[2]
                    and type(rest) is int
                    and 0 <= rest <= _NATIVE_MAX_TIMEOUT
                    and type(total) is int
                    and 0 <= total <= _NATIVE_MAX_ATTEMPTS
                    and info.ok()  # else _send_loop raises "No route info"
                ):
                    sends = loops[0](info, self.strategy, False, total, rest, (), None, None)
                else:
                    sends = _send_loop(
                        info, self.strategy, mode, 2, self.settings.retry_times_when_send_async_failed, rest, (),
                        None, None, None,
                    )  # fmt: skip
                mq = sends.next_queue()
            while mq is not None:
                try:
                    left = timeout - int((time.monotonic() - begin) * 1000)  # kernel_budget written out
                    if left < 0:
                        raise RemotingTooMuchRequestError("sendKernelImpl call timeout")
                    addr, request = self._wire.request(enc, mq, language, flag)
                    if oneway:
                        await client.invoke_oneway(addr, request)
                        result = None
                    else:
                        left = left or 1  # Java sends with the 0 ms left; the wait needs a deadline after now
                        waiter = client.start_invoke(addr, request, left)
                        if waiter is None:  # no connection yet
                            response = await client.invoke(addr, request, left)
                        else:
                            try:
                                response = await waiter
                            except asyncio.CancelledError:
                                client.abandon(addr, request, waiter)
                                raise
                        result = self._wire.result(enc, mq, addr, response)
                except Exception as e:
                    if sends is None:
                        raise
                    if sends.failed(e):
                        return sends.result
                    mq = sends.next_queue()
                    continue
                if sends is None or sends.succeeded(result):
                    return result
                mq = sends.next_queue()
            assert sends is not None
            return sends.finish()
        except asyncio.CancelledError:
            if self._closed_error is not None and self._inflight.tracks(asyncio.current_task()):
                raise self._unsent_error() from None
            raise
        except Exception as e:
            if self._closed_error is not None:
                raise self._unsent_error() from e
            raise


_ASYNC = CommunicationMode.ASYNC
_NO_THREAD_ID = object()  # a loop that does not say which thread runs it (not one of asyncio's)


def _chosen(mq: Any) -> Any:
    return mq


def _body_size(body: bytes | None) -> int:
    """What a send holds of the back-pressure's bytes: the body as given (Java's ``msgLen``, 1 without a body)."""
    return len(body) if body else 1


def _failed(error: BaseException) -> concurrent.futures.Future[Any]:
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()
    future.set_exception(error)
    return future


def _close_dropped(
    what: str,
    instance: ClientInstance,
    group: str,
    callbacks: CallbackThread,
    encoders: EncoderThreads,
) -> None:
    """The finalizer of a producer collected while running: release what it held (its instance closes when it was
    the last client), and say so as Python's own unclosed resources do."""
    warnings.warn(f"unclosed {what}: call shutdown() or use it as a context manager", ResourceWarning, stacklevel=1)
    callbacks.close()
    encoders.close()
    release_instance(instance, "producer", group)
