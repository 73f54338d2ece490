"""``ProducerBase``: what :class:`~rocketroute.client.producer.producer.Producer` and
:class:`rocketroute.aio.Producer` both are: the settings and identity a producer is built from, its parts (the
:class:`~.lifecycle.Lifecycle`, the :class:`~.sender.Sender`, the send wire and the publish routes), joining and
leaving the client id's instance, and what that instance asks of a producer (:class:`~rocketroute.client.inner.
ProducerInner`). The threaded class adds the blocking calls, the asyncio one the coroutines of the caller's loop; both
send through the one sender."""

from __future__ import annotations

import asyncio
import concurrent.futures
import warnings
import weakref
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from ...loggers import get_logger
from ...net.tls import TLS, check_tls
from ...protocol.acl import Credentials, check_credentials
from ..instance import ClientInstance
from ..instances import acquire_instance, client_identity, release_instance
from ..namespace import check_namespace, wrap
from ..namesrv import parse_namesrv_addrs
from ..settings_check import check_compat, check_group
from ..workers import CallbackThread
from .backpressure import SendWindow
from .encoders import EncoderThreads, encoder_threads
from .lifecycle import Lifecycle
from .publish_routes import PublishRoutes
from .route_change import RouteChange
from .send_wire import SendWire
from .sender import Sender
from .settings import ProducerSettings

if TYPE_CHECKING:
    from ... import MQFaultStrategy, TopicRouteData

__all__ = ["ProducerBase"]

log = get_logger("producer")


class ProducerBase:
    """See the module; the arguments are :class:`~rocketroute.client.producer.producer.Producer`'s."""

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
        window = (
            SendWindow(cfg.back_pressure_for_async_send_num, cfg.back_pressure_for_async_send_size)
            if cfg.enable_backpressure_for_async_mode
            else None
        )
        # the requests and results; its brokerAddrTable is the instance's once started
        self._wire = SendWire(self.group, self.namespace, compat, cfg, backend)
        self._routes = PublishRoutes(compat, cfg, self.namespace, backend, self._wire)  # topicPublishInfoTable
        # created, running, stopping, shut down: the instance it runs on, and the sends accepted and not settled
        # (flush and shutdown wait for them)
        self._life = Lifecycle(self.group)
        self._sender = Sender(
            self._life, cfg, self._wire, self._routes, self.strategy, window, self.namesrv_addrs, self.namespace
        )
        self._callbacks: CallbackThread | None = None
        self._finalizer: weakref.finalize | None = None
        # rocketroute.aio's, set at start: the instance then runs on that (the caller's) loop, no thread
        self._bind_loop: asyncio.AbstractEventLoop | None = None

    # -- joining and leaving the instance ----------------------------------------------------------------------

    def _join_instance(self) -> bool:
        """What :meth:`Producer.start` and :meth:`rocketroute.aio.Producer.start` do: join the client id's instance
        (one loop thread, or the caller's loop for ``rr.aio``, and one connection per broker for all its clients)
        and take sends; ``False`` when the producer runs already."""
        life = self._life
        with life.lock:
            if life.state == "running":
                return False
            if life.state != "created":
                raise RuntimeError(f"the producer is {life.state}; a producer starts once")
            # the client id's shared instance (one loop thread and one connection per broker for all its clients)
            instance = acquire_instance(self, "producer")
            self._wire.broker_addrs = instance.broker_addrs
            self._callbacks = CallbackThread(f"rocketroute-callbacks-{self.group}")
            encoders = EncoderThreads(encoder_threads(), f"rocketroute-encoders-{self.group}")
            self._sender.encoders = encoders
            # a producer dropped without shutdown() is closed when collected: nothing of the client holds it
            # strongly (the instance and the poll timer hold weak references), and a ResourceWarning says it was
            # left open
            self._finalizer = weakref.finalize(
                self, _close_dropped, repr(self), instance, self.group, self._callbacks, encoders
            )
            # Java's producer puts create_topic_key (TBW102) in its publish table at start, and the instance's first
            # route poll fetches it: that route names the brokers (where they create topics automatically), so the
            # heartbeat under the group reaches them at once, before any send (the admin tools' producerConnection
            # lists the producer; a broker can check a transaction through it). Not waited for: a send fetches
            # what it needs itself.
            key = self.settings.create_topic_key
            self._routes.known(key)
            self._prefetch = instance.fetch_route_soon(key)
            life.started(instance)
        self._log_lifecycle("started")
        return True

    def _unregister(self, instance: ClientInstance) -> tuple[Coroutine[Any, Any, None], float]:
        """unregisterProducer, and how long it may take: the brokers forget this group of the client id (one
        request per broker node, each within ``mq_client_api_timeout``)."""
        timeout_ms = self.settings.mq_client_api_timeout
        nodes = len(list(instance.broker_addrs.nodes()))
        return instance.unregister(producer_group=self.group, timeout_ms=timeout_ms), timeout_ms / 1000 * (1 + nodes)

    def _begin_shutdown(self) -> None:
        """What every shutdown does once the sends are settled: the state, the start-time route fetch, the finalizer,
        the callback thread, the encoder threads."""
        self._life.shut_down()
        if self._prefetch is not None:
            self._prefetch.cancel()
        if self._finalizer is not None:
            self._finalizer.detach()
        if self._callbacks is not None:
            self._callbacks.close()
        if self._sender.encoders is not None:
            self._sender.encoders.close()  # the encodes already given finish; their sends then find no producer

    def _log_lifecycle(self, what: str) -> None:
        """The INFO line of a start or a shutdown (Java's "the producer [group] start OK"): who, on which cluster."""
        namesrv = ";".join(self.namesrv_addrs)
        log.info("producer %s %s: client id %s, name servers %s", self.group, what, self.client_id, namesrv)

    @property
    def instance(self) -> ClientInstance | None:
        """The client instance this producer runs on (``None`` before :meth:`start`): pass it as ``instance=`` to
        another producer or consumer to share it."""
        return self._life.instance

    def _forked_away(self) -> None:
        """In the child of a fork (see :func:`~rocketroute.client.instances.forked_error`): unusable, and stopping it
        returns at once."""
        self._life.forked()
        if self._finalizer is not None:
            self._finalizer.detach()

    def route(self, topic: str) -> TopicRouteData | None:
        """The last ``TopicRouteData`` the client instance fetched for ``topic``, or ``None``."""
        instance = self._life.instance
        return None if instance is None else instance.routes.get(wrap(self.namespace, topic))

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
        return f"<Producer group={self.group!r} namesrv={';'.join(self.namesrv_addrs)!r} {self._life.state}>"

    @property
    def async_sends_in_flight(self) -> tuple[int, int]:
        """(sends, body bytes) the back-pressure counts in flight now; (0, 0) without it (Java's
        ``backPressureForAsyncSendNum`` less the semaphore's available permits)."""
        window = self._sender.window
        return (0, 0) if window is None else window.in_flight


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
