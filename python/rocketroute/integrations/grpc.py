"""Java's gRPC-client queue choice inside the official Python 5.x client (``rocketmq-python-client``).

The Python client picks a producer's queue with its own ``QueueSelector``
(``rocketmq.v5.client.balancer.QueueSelector``): a round-robin index that starts at
``random.randint(1, 1000)`` and moves once per *attempt*, and ``sha256(message_group) % n`` for FIFO
messages. The Java 5.x gRPC client (``PublishingLoadBalancer``) starts at ``RandomUtils.nextInt(0,
Integer.MAX_VALUE)``, skips the endpoints it isolated after failed sends, and hashes a message group with
SipHash-2-4. So a Python producer and a Java producer on one FIFO topic put the same message group on
different queues. :class:`JavaQueueSelector` has ``QueueSelector``'s constants, constructor, class methods
and methods, and makes the Java client's choices with :class:`PublishingLoadBalancer` /
:class:`SubscriptionLoadBalancer` (this module's: the chosen backend's; :func:`balancers` gives either backend's):

* ``select_queue_by_hash_key(group)`` is ``takeMessageQueueByMessageGroup``: a message group lands where a
  Java producer puts it;
* ``select_next_queue()`` is the first queue of ``takeMessageQueues(isolated, n)``: Java's round-robin
  start, skipping isolated endpoints (the :class:`EndpointIsolation` it was given);
* ``update(route)`` keeps the index, as the Java client's ``update`` does.

:func:`install` makes the installed client use it (it replaces the ``QueueSelector`` name the producer and
the simple consumer modules look up; :func:`install` returns the undo). :func:`attach_isolation` makes a
client isolate the endpoints of a failed send and rejoin them on a successful heartbeat, as Java's
``ProducerImpl`` / ``ClientImpl`` do.

One difference stays: the Python client re-selects a queue for each retry (so its index moves once per
attempt), where Java takes all its candidates at once and retries along them (its index moves once per
send). With one endpoints set per broker, the retried queue is the same; the next send's start is not.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from .. import _backend as _chosen_backend
from ..errors import IllegalArgumentError

__all__ = [
    "Endpoints",
    "GrpcMessageQueue",
    "PublishingLoadBalancer",
    "SubscriptionLoadBalancer",
    "balancers",
    "EndpointIsolation",
    "JavaQueueSelector",
    "attach_isolation",
    "install",
    "selector_class",
    "to_endpoints",
    "to_grpc_message_queue",
]

# protobuf enum numbers of apache.rocketmq.v2 (definition.proto)
_SCHEMES = {0: "DOMAIN_NAME", 1: "IPv4", 2: "IPv6", 3: "DOMAIN_NAME"}  # Java reads an unspecified one as DNS
_PERMISSIONS = {1: "NONE", 2: "READ", 3: "WRITE", 4: "READ_WRITE"}
_MESSAGE_TYPES = {1: "NORMAL", 2: "FIFO", 3: "DELAY", 4: "TRANSACTION", 5: "LITE", 6: "PRIORITY"}

SELECTOR_MODULES = ("rocketmq.v5.producer.producer", "rocketmq.v5.consumer.simple.simple_consumer")
"""The client modules whose ``QueueSelector`` name :func:`install` replaces."""


def balancers(backend: Any = None) -> Any:
    """The module that holds ``backend``'s gRPC route model and balancers (``Endpoints``, ``GrpcMessageQueue``,
    ``PublishingLoadBalancer``, ``SubscriptionLoadBalancer``): the Rust extension's for the native backend
    (``rocketroute``, or ``None``: the chosen one), :mod:`rocketroute.reference.grpc_balancer` for the reference
    (``rocketroute.reference``). The names below are the chosen backend's."""
    if backend is None or backend is sys.modules.get("rocketroute"):
        backend = _chosen_backend.core
    if getattr(backend, "BACKEND", None) == "reference":
        from ..reference import grpc_balancer

        return grpc_balancer
    return backend


def to_endpoints(obj: Any, backend: Any = None) -> Any:
    """``obj`` as the backend's ``Endpoints``: an ``Endpoints`` (of either backend), the Python client's
    ``RpcEndpoints``, or a protobuf ``apache.rocketmq.v2.Endpoints``."""
    rr = balancers(backend)
    if isinstance(obj, rr.Endpoints):
        return obj
    if hasattr(obj, "facade") and hasattr(obj, "endpoints"):  # the client's RpcEndpoints
        obj = obj.endpoints
    scheme = getattr(obj, "scheme", None)
    addresses = getattr(obj, "addresses", None)
    if isinstance(scheme, str) and addresses is not None:  # the other backend's Endpoints
        return rr.Endpoints(scheme, addresses)
    if isinstance(scheme, int) and addresses is not None:  # protobuf
        return rr.Endpoints(_SCHEMES.get(scheme, "DOMAIN_NAME"), [(a.host, a.port) for a in addresses])
    raise TypeError(f"cannot read endpoints from {type(obj).__name__}")


def to_grpc_message_queue(queue: Any, backend: Any = None) -> Any:
    """The Python client's ``MessageQueue`` (or a protobuf ``apache.rocketmq.v2.MessageQueue``) as the
    backend's ``GrpcMessageQueue``."""
    rr = balancers(backend)
    pb = queue.message_queue0() if hasattr(queue, "message_queue0") else queue
    try:
        topic, broker, qid, perm, types = pb.topic.name, pb.broker, pb.id, pb.permission, pb.accept_message_types
    except AttributeError:
        raise TypeError(f"not a gRPC message queue: {type(queue).__name__}") from None
    return rr.GrpcMessageQueue(
        topic,
        broker.name,
        broker.id,
        to_endpoints(broker.endpoints, rr),
        qid,
        _PERMISSIONS.get(perm, "PERMISSION_UNSPECIFIED"),
        [_MESSAGE_TYPES.get(t, "MESSAGE_TYPE_UNSPECIFIED") for t in types],
    )


class EndpointIsolation:
    """The endpoints a producer avoids (Java's ``ClientImpl.isolated``): :meth:`isolate` after a failed send
    (``ProducerImpl``), :meth:`rejoin` after a successful heartbeat (``ClientImpl.doHeartbeat``). Thread-safe;
    pass it (or :meth:`snapshot`) as ``excluded`` to ``PublishingLoadBalancer.take_message_queues``."""

    __slots__ = ("_backend", "_endpoints", "_lock")

    def __init__(self, backend: Any = None) -> None:
        self._backend = balancers(backend)
        self._endpoints: frozenset[Any] = frozenset()
        self._lock = threading.Lock()

    def isolate(self, endpoints: Any) -> bool:
        """Avoid ``endpoints`` from now on; whether it was not isolated yet."""
        e = to_endpoints(endpoints, self._backend)
        with self._lock:
            if e in self._endpoints:
                return False
            self._endpoints = self._endpoints | {e}
            return True

    def rejoin(self, endpoints: Any) -> bool:
        """Stop avoiding ``endpoints``; whether it was isolated."""
        e = to_endpoints(endpoints, self._backend)
        with self._lock:
            if e not in self._endpoints:
                return False
            self._endpoints = self._endpoints - {e}
            return True

    def snapshot(self) -> frozenset[Any]:
        """The isolated endpoints now (an immutable set)."""
        return self._endpoints

    def clear(self) -> None:
        with self._lock:
            self._endpoints = frozenset()

    def __contains__(self, endpoints: object) -> bool:
        try:
            return to_endpoints(endpoints, self._backend) in self._endpoints
        except (TypeError, ValueError):
            return False

    def __iter__(self) -> Any:
        return iter(self._endpoints)

    def __len__(self) -> int:
        return len(self._endpoints)

    def __repr__(self) -> str:
        return f"EndpointIsolation({sorted(str(e) for e in self._endpoints)})"


def _client_illegal_argument(message: str) -> Exception:
    """The client's own ``IllegalArgumentException`` (what its ``QueueSelector`` raises), if installed."""
    try:
        from rocketmq.v5.exception import IllegalArgumentException
    except ImportError:  # pragma: no cover - the client is not installed
        return IllegalArgumentError(message)
    return IllegalArgumentException(message)


class _State:
    """One route's queues, swapped whole on ``update``."""

    __slots__ = ("balancer", "client_of", "hasher", "holder", "position_of", "queues")

    def __init__(self, queues: list[Any], balancer: Any, client_of: dict[int, Any], holder: Any) -> None:
        self.queues = queues  # the client's queue objects the balancer picks from, in its order
        self.balancer = balancer  # None when no queue is eligible
        self.client_of = client_of  # id(GrpcMessageQueue) -> the client's queue object
        self.holder = holder  # the last balancer built: its index lives on through update
        self.position_of = {id(g): i for i, g in enumerate(balancer.message_queues)} if balancer else {}
        self.hasher: Any = None


class JavaQueueSelector:
    """A drop-in for the Python client's ``QueueSelector`` that picks as the Java 5.x gRPC client does (see
    the module). Same constants, ``__init__(queues, selector_type)``, class methods and methods; queues are
    the client's ``MessageQueue`` objects (any objects for ``NONE_TYPE_SELECTOR``, which only hashes and
    rotates). Class attributes, set by :func:`selector_class`: ``backend`` (``rocketroute`` by default),
    ``isolation`` (shared :class:`EndpointIsolation`; ``None``: one per selector) and ``start_index`` (fix the
    round-robin start; ``None``: Java's random draw)."""

    NONE_TYPE_SELECTOR = 0
    PRODUCER_QUEUE_SELECTOR = 1
    SIMPLE_CONSUMER_QUEUE_SELECTOR = 2
    LITE_SIMPLE_CONSUMER_QUEUE_SELECTOR = 3

    backend: ClassVar[Any] = None
    isolation: ClassVar[EndpointIsolation | None] = None
    start_index: ClassVar[int | None] = None

    def __init__(self, queues: Iterable[Any], selector_type: int = NONE_TYPE_SELECTOR) -> None:
        self._rr = balancers(type(self).backend)
        self._selector_type = selector_type
        iso = type(self).isolation
        self._isolated = iso if iso is not None else EndpointIsolation(self._rr)
        self._lock = threading.Lock()
        self._state = self._build(list(queues), None)

    # ---------------------------------------------------------------- the client's class methods

    @classmethod
    def producer_queue_selector(cls, topic_route: Any) -> JavaQueueSelector:
        return cls(_writable_masters(topic_route), cls.PRODUCER_QUEUE_SELECTOR)

    @classmethod
    def simple_consumer_queue_selector(cls, topic_route: Any) -> JavaQueueSelector:
        return cls(_readable_masters(topic_route), cls.SIMPLE_CONSUMER_QUEUE_SELECTOR)

    @classmethod
    def lite_simple_consumer_queue_selector(cls, topic_route: Any) -> JavaQueueSelector:
        return cls(_readable_masters(topic_route)[:1], cls.LITE_SIMPLE_CONSUMER_QUEUE_SELECTOR)

    # ---------------------------------------------------------------- the client's methods

    def select_next_queue(self) -> Any:
        """The producer's next queue: the first of Java's ``takeMessageQueues(isolated, n)``; a consumer's:
        ``SubscriptionLoadBalancer.takeMessageQueue()``."""
        if self._selector_type == self.NONE_TYPE_SELECTOR:
            raise _client_illegal_argument("error type for queue selector, type is NONE_TYPE_SELECTOR.")
        st = self._state
        if st.balancer is None:
            raise _client_illegal_argument("no available message queues for selection.")
        if self._publishing:
            picked = st.balancer.take_message_queues(self._isolated.snapshot(), 1)[0]
        else:
            picked = st.balancer.take_message_queue()
        return st.client_of[id(picked)]

    def select_queue_by_hash_key(self, key: str) -> Any:
        """Java's ``takeMessageQueueByMessageGroup``: ``queues[LongMath.mod(sipHash24(utf8(key)), n)]``."""
        st = self._state
        if st.balancer is None:
            raise _client_illegal_argument("no available message queues for selection.")
        if self._publishing:
            return st.client_of[id(st.balancer.take_message_queue_by_message_group(key))]
        # a consumer selector hashes over its readable queues: the same formula, by position
        if st.hasher is None:
            st.hasher = self._rr.PublishingLoadBalancer(_stand_ins(self._rr, len(st.queues)), start_index=0)
        return st.queues[st.hasher.take_message_queue_by_message_group(key).queue_id]

    def all_queues(self) -> list[Any]:
        """Every queue, rotated to start at the next round-robin position (no exclusion)."""
        st = self._state
        if st.balancer is None:
            raise _client_illegal_argument("no available message queues for selection.")
        if self._publishing:
            picked = st.balancer.take_message_queues(None, 1)[0]
        else:
            picked = st.balancer.take_message_queue()
        p = st.position_of[id(picked)]
        return st.queues[p:] + st.queues[:p]

    def update(self, topic_route: Any) -> None:
        """Re-read the route; the round-robin index carries on (Java's ``update``)."""
        t = self._selector_type
        if t == self.PRODUCER_QUEUE_SELECTOR:
            queues = _writable_masters(topic_route)
        elif t == self.SIMPLE_CONSUMER_QUEUE_SELECTOR:
            queues = _readable_masters(topic_route)
        elif t == self.LITE_SIMPLE_CONSUMER_QUEUE_SELECTOR:
            queues = _readable_masters(topic_route)[:1]
        else:
            return
        with self._lock:
            self._state = self._build(queues, self._state.holder)

    # ---------------------------------------------------------------- beyond the client's API

    @property
    def isolated(self) -> EndpointIsolation:
        """The endpoints ``select_next_queue`` avoids."""
        return self._isolated

    @property
    def index(self) -> int | None:
        """The round-robin index now (``None`` before any queue was eligible)."""
        holder = self._state.holder
        return None if holder is None else holder.index

    def select_send_candidates(self, max_attempts: int = 3) -> list[Any]:
        """Java's whole ``takeMessageQueues(isolated, max_attempts)``: the queues a Java producer tries, in
        order (attempt ``k`` goes to ``candidates[(k - 1) % len(candidates)]``)."""
        st = self._state
        if not self._publishing or st.balancer is None:
            raise _client_illegal_argument("no available message queues for selection.")
        picked = st.balancer.take_message_queues(self._isolated.snapshot(), max_attempts)
        return [st.client_of[id(g)] for g in picked]

    @property
    def _publishing(self) -> bool:
        return self._selector_type in (self.PRODUCER_QUEUE_SELECTOR, self.NONE_TYPE_SELECTOR)

    def _build(self, queues: list[Any], previous: Any) -> _State:
        rr = self._rr
        if self._selector_type == self.NONE_TYPE_SELECTOR:
            grpc = _stand_ins(rr, len(queues))  # hashed and rotated by position only, as the client does
        else:
            grpc = [to_grpc_message_queue(q, rr) for q in queues]
        client_of = {id(g): q for g, q in zip(grpc, queues, strict=True)}
        cls = rr.PublishingLoadBalancer if self._publishing else rr.SubscriptionLoadBalancer
        try:
            if previous is not None:
                balancer = previous.update(grpc)
            else:
                balancer = cls(grpc, start_index=type(self).start_index)
        except IllegalArgumentError:  # no eligible queue: the client raises when asked to select
            return _State([], None, {}, previous)
        return _State([client_of[id(g)] for g in balancer.message_queues], balancer, client_of, balancer)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._state.queues)} queues, type={self._selector_type})"


def _writable_masters(topic_route: Any) -> list[Any]:
    return [q for q in topic_route.message_queues if q.is_writable() and q.is_master_broker()]


def _readable_masters(topic_route: Any) -> list[Any]:
    return [q for q in topic_route.message_queues if q.is_readable() and q.is_master_broker()]


_STAND_INS: dict[tuple[int, int], list[Any]] = {}


def _stand_ins(rr: Any, n: int) -> list[Any]:
    """``n`` distinct writable master queues whose ``queue_id`` is their position: for choices that depend
    only on positions (a hash over a list, a rotation)."""
    key = (id(rr), n)
    found = _STAND_INS.get(key)
    if found is None:
        found = [rr.GrpcMessageQueue("-", f"#{i}", 0, rr.Endpoints("IPv4", [("0.0.0.0", i)]), i) for i in range(n)]
        if n <= 64:
            _STAND_INS[key] = found
    return list(found)


def selector_class(
    backend: Any = None, *, isolation: EndpointIsolation | None = None, start_index: int | None = None
) -> type[JavaQueueSelector]:
    """A :class:`JavaQueueSelector` subclass bound to ``backend`` (``rocketroute`` or
    ``rocketroute.reference``), a shared ``isolation`` and a fixed ``start_index``."""
    rr = balancers(backend)
    return type(
        "JavaQueueSelector",
        (JavaQueueSelector,),
        {"backend": rr, "isolation": isolation, "start_index": start_index, "__module__": __name__},
    )


def install(
    backend: Any = None,
    *,
    isolation: EndpointIsolation | None = None,
    start_index: int | None = None,
    modules: Iterable[str] = SELECTOR_MODULES,
) -> Callable[[], None]:
    """Make the installed Python client pick queues as the Java client does: replace the ``QueueSelector``
    name in its producer and simple consumer modules with :func:`selector_class` ``(backend, ...)``. Selectors
    the clients create from then on are Java's; returns the undo."""
    import importlib

    cls = selector_class(backend, isolation=isolation, start_index=start_index)
    saved = []
    for name in modules:
        module = importlib.import_module(name)
        saved.append((module, module.QueueSelector))
        module.QueueSelector = cls

    def uninstall() -> None:
        for module, original in reversed(saved):
            module.QueueSelector = original

    return uninstall


def attach_isolation(client: Any, isolation: EndpointIsolation) -> Callable[[], None]:
    """Make one Python client keep ``isolation`` as Java's does: a failed send isolates the endpoints it went
    to (``ProducerImpl``), a heartbeat answered OK rejoins them (``ClientImpl.doHeartbeat``). Wraps the
    client's own (name-mangled) retry check and heartbeat callback on that instance; returns the undo."""
    wrapped: list[str] = []
    retry_name = "_Producer__check_send_retry_condition"
    original_retry = getattr(client, retry_name, None)
    if original_retry is not None:

        def check_send_retry_condition(message: Any, topic_queue: Any, attempt: Any, e: Any) -> Any:
            isolation.isolate(topic_queue.endpoints)
            return original_retry(message, topic_queue, attempt, e)

        setattr(client, retry_name, check_send_retry_condition)
        wrapped.append(retry_name)

    heartbeat_name = "_Client__heartbeat_callback"
    original_heartbeat = getattr(client, heartbeat_name, None)
    if original_heartbeat is not None:
        from rocketmq.grpc_protocol import Code

        def heartbeat_callback(future: Any, endpoints: Any) -> Any:
            try:
                res = future.result()
            except Exception:
                res = None
            if res is not None and res.status.code == Code.OK:
                isolation.rejoin(endpoints)
            return original_heartbeat(future, endpoints=endpoints)

        setattr(client, heartbeat_name, heartbeat_callback)
        wrapped.append(heartbeat_name)

    def detach() -> None:
        for name in wrapped:
            client.__dict__.pop(name, None)

    return detach


if TYPE_CHECKING:  # what type checkers and the docs see: the native classes (the reference's have their API)
    from .._native import Endpoints, GrpcMessageQueue, PublishingLoadBalancer, SubscriptionLoadBalancer
else:  # the chosen backend's
    _CHOSEN = balancers()
    Endpoints = _CHOSEN.Endpoints
    GrpcMessageQueue = _CHOSEN.GrpcMessageQueue
    PublishingLoadBalancer = _CHOSEN.PublishingLoadBalancer
    SubscriptionLoadBalancer = _CHOSEN.SubscriptionLoadBalancer
