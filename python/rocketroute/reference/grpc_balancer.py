"""The 5.x gRPC client's load balancers (apache/rocketmq-clients, Java 5.2.1): ``PublishingLoadBalancer``
(the producer's queue choice) and ``SubscriptionLoadBalancer`` (the simple consumer's), with the route model
they read: :class:`Endpoints` and :class:`GrpcMessageQueue` (Java's ``MessageQueueImpl`` with its
``Broker``).

* Both keep only the queues of master brokers (``broker_id == 0``) that are writable (publishing) or
  readable (subscription), in route order; none gives ``IllegalArgumentError`` with Java's message (its
  ``topiRouteData`` typo included).
* The round-robin index is an ``AtomicInteger``: ``getAndIncrement`` (wrapping at ``Integer.MAX_VALUE``),
  read with a floor mod, so a negative index is fine. It starts at ``RandomUtils.nextInt(0,
  Integer.MAX_VALUE)``; ``start_index`` fixes it. ``update`` builds a balancer over a new route that shares
  the index (the next pick continues the rotation).
* ``take_message_queues(excluded, count)`` is one ``getAndIncrement``, then a scan from that index taking at
  most one queue per broker **name**, skipping brokers whose endpoints are ``excluded``, until ``count``; if
  that takes nothing (every broker excluded), a second scan without the exclusion. ``count <= 0`` still
  gives one queue (Java checks the size after adding).
* ``take_message_queue_by_message_group(group)`` is ``queues[LongMath.mod(sipHash24(utf8(group)), n)]``; it
  does not move the index, and hashes any string (the blank-group check is the message builder's).
"""

from __future__ import annotations

import random as _random
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import IllegalArgumentError, NullPointerError
from .java import check_int, check_name, java_utf8, wrap_int
from .message_queue import MessageQueue
from .profiles import siphash24
from .route_model import MAX_QUEUES

__all__ = [
    "ADDRESS_SCHEMES",
    "MESSAGE_TYPES",
    "PERMISSIONS",
    "Endpoints",
    "GrpcMessageQueue",
    "PublishingLoadBalancer",
    "SubscriptionLoadBalancer",
]

ADDRESS_SCHEMES = ("IPv4", "IPv6", "DOMAIN_NAME")
"""``AddressScheme`` names; the facade prefixes are ``ipv4:``, ``ipv6:`` and ``dns:``."""
_PREFIX = {"IPv4": "ipv4:", "IPv6": "ipv6:", "DOMAIN_NAME": "dns:"}

PERMISSIONS = ("NONE", "READ", "WRITE", "READ_WRITE")
"""``Permission`` names."""

MESSAGE_TYPES = ("NORMAL", "FIFO", "LITE", "DELAY", "PRIORITY", "TRANSACTION")
"""``MessageType`` names (Java 5.2.1)."""

MASTER_BROKER_ID = 0


class Endpoints:
    """A broker's endpoints: an address scheme and ``(host, port)`` addresses, in order. Equal when the
    scheme and the addresses (in order) are, as Java's ``Endpoints.equals``. ``str()`` is Java's facade
    (``ipv4:10.0.0.2:8081,10.0.0.3:8081``). As Java: no address, or several for ``DOMAIN_NAME``, is refused
    (Java's ``UnsupportedOperationException``, here :class:`IllegalArgumentError` with its message)."""

    __slots__ = ("_addresses", "_facade", "_hash", "_scheme")

    def __init__(self, scheme: str, addresses: Iterable[Sequence[Any]]) -> None:
        if scheme is None:
            raise NullPointerError("scheme is None")
        if not isinstance(scheme, str):
            raise TypeError(f"scheme must be a str, not {type(scheme).__name__}")
        if scheme not in _PREFIX:
            raise IllegalArgumentError(f"unknown address scheme {scheme!r}; expected one of {ADDRESS_SCHEMES}")
        if addresses is None:
            raise NullPointerError("addresses is None")
        if isinstance(addresses, (str, bytes)):
            raise TypeError("addresses must be an iterable of (host, port) pairs, not a str")
        parsed = []
        for a in addresses:
            if isinstance(a, (str, bytes)) or not isinstance(a, Sequence) or len(a) != 2:
                raise TypeError(f"an address must be a (host, port) pair, not {a!r}")
            parsed.append((check_name("host", a[0]), check_int("port", a[1])))
        if scheme == "DOMAIN_NAME" and len(parsed) > 1:
            raise IllegalArgumentError("Multiple addresses not allowed in domain schema")
        if not parsed:
            raise IllegalArgumentError("No available address")
        object.__setattr__(self, "_scheme", scheme)
        object.__setattr__(self, "_addresses", tuple(parsed))
        object.__setattr__(self, "_facade", _PREFIX[scheme] + ",".join(f"{h}:{p}" for h, p in parsed))
        object.__setattr__(self, "_hash", hash((scheme, self._addresses)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Endpoints is immutable")

    @property
    def scheme(self) -> str:
        return self._scheme

    @property
    def addresses(self) -> tuple[tuple[str, int], ...]:
        return self._addresses

    @property
    def facade(self) -> str:
        return self._facade

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Endpoints):
            return NotImplemented
        return self._scheme == other._scheme and self._addresses == other._addresses

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return self._facade

    def __repr__(self) -> str:
        return f"Endpoints({self._scheme!r}, {list(self._addresses)!r})"

    def __reduce__(self) -> Any:
        return (Endpoints, (self._scheme, self._addresses))


class GrpcMessageQueue:
    """One message queue of a gRPC route (Java's ``MessageQueueImpl``): topic, broker (name, id, endpoints),
    queue id, permission (``None``: ``"READ_WRITE"``) and accepted message types (``None``: ``("NORMAL",)``).
    ``str()`` is Java's ``brokerName.topic.queueId``.
    Equality is Java's: topic, broker, queue id and permission (not the accepted types)."""

    __slots__ = (
        "_accept_message_types",
        "_broker_id",
        "_broker_name",
        "_endpoints",
        "_hash",
        "_permission",
        "_queue_id",
        "_topic",
    )

    def __init__(
        self,
        topic: str,
        broker_name: str,
        broker_id: int,
        endpoints: Endpoints,
        queue_id: int,
        permission: str | None = None,
        accept_message_types: Iterable[str] | None = None,
    ) -> None:
        set_ = object.__setattr__
        set_(self, "_topic", check_name("topic", topic))
        set_(self, "_broker_name", check_name("broker_name", broker_name))
        set_(self, "_broker_id", check_int("broker_id", broker_id))
        if endpoints is None:
            raise NullPointerError("endpoints is None")
        if not isinstance(endpoints, Endpoints):
            raise TypeError(f"endpoints must be an Endpoints, not {type(endpoints).__name__}")
        set_(self, "_endpoints", endpoints)
        set_(self, "_queue_id", check_int("queue_id", queue_id))
        if permission is None:
            permission = "READ_WRITE"
        if not isinstance(permission, str):
            raise TypeError(f"permission must be a str, not {type(permission).__name__}")
        if permission not in PERMISSIONS:
            raise IllegalArgumentError("Message queue permission is not specified")
        set_(self, "_permission", permission)
        if accept_message_types is None:
            accept_message_types = ("NORMAL",)
        if isinstance(accept_message_types, (str, bytes)):
            raise TypeError("accept_message_types must be an iterable of str, not a str")
        types = []
        for t in accept_message_types:
            if not isinstance(t, str):
                raise TypeError(f"a message type must be a str, not {type(t).__name__}")
            if t not in MESSAGE_TYPES:
                raise IllegalArgumentError(f"unknown message type {t!r}; expected one of {MESSAGE_TYPES}")
            types.append(t)
        set_(self, "_accept_message_types", tuple(types))
        set_(self, "_hash", hash((topic, broker_name, broker_id, endpoints, queue_id, permission)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("GrpcMessageQueue is immutable")

    @property
    def topic(self) -> str:
        return self._topic

    @property
    def broker_name(self) -> str:
        return self._broker_name

    @property
    def broker_id(self) -> int:
        return self._broker_id

    @property
    def endpoints(self) -> Endpoints:
        return self._endpoints

    @property
    def queue_id(self) -> int:
        return self._queue_id

    @property
    def permission(self) -> str:
        return self._permission

    @property
    def accept_message_types(self) -> tuple[str, ...]:
        return self._accept_message_types

    def is_writable(self) -> bool:
        return self._permission in ("WRITE", "READ_WRITE")

    def is_readable(self) -> bool:
        return self._permission in ("READ", "READ_WRITE")

    def is_master(self) -> bool:
        """On the master broker (``broker_id == 0``)."""
        return self._broker_id == MASTER_BROKER_ID

    def to_message_queue(self) -> MessageQueue:
        """The remoting ``MessageQueue(topic, broker_name, queue_id)``."""
        return MessageQueue(self._topic, self._broker_name, self._queue_id)

    def _key(self) -> tuple[Any, ...]:
        return (self._topic, self._broker_name, self._broker_id, self._endpoints, self._queue_id, self._permission)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GrpcMessageQueue):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return f"{self._broker_name}.{self._topic}.{self._queue_id}"

    def __repr__(self) -> str:
        return (
            f"GrpcMessageQueue({self._topic!r}, {self._broker_name!r}, {self._broker_id}, {self._endpoints!r}, "
            f"{self._queue_id}, {self._permission!r}, {self._accept_message_types!r})"
        )

    def __reduce__(self) -> Any:
        return (GrpcMessageQueue, (*self._key(), self._accept_message_types))


class _AtomicInt:
    """``AtomicInteger``: shared by a balancer and the balancers its ``update`` builds."""

    __slots__ = ("_lock", "_value")

    def __init__(self, value: int) -> None:
        self._value = value
        self._lock = threading.Lock()

    def get(self) -> int:
        return self._value

    def get_and_increment(self) -> int:
        with self._lock:
            v = self._value
            self._value = wrap_int(v + 1)
        return v


def _random_start() -> int:
    """``RandomUtils.nextInt(0, Integer.MAX_VALUE)``: ``[0, 2^31 - 1)``."""
    return _random.SystemRandom().randrange(0, 2**31 - 1)


def _queue_list(message_queues: Iterable[GrpcMessageQueue]) -> tuple[GrpcMessageQueue, ...]:
    if message_queues is None:
        raise NullPointerError("message_queues is None")
    out = []
    for q in message_queues:
        if not isinstance(q, GrpcMessageQueue):
            raise TypeError(f"a message queue must be a GrpcMessageQueue, not {type(q).__name__}")
        out.append(q)
        if len(out) > MAX_QUEUES:
            raise IllegalArgumentError(f"route has more than {MAX_QUEUES} queues")
    return tuple(out)


def _route_text(queues: Sequence[GrpcMessageQueue]) -> str:
    """Java's ``TopicRouteData.toString()``."""
    return "TopicRouteData{messageQueueImpls=[" + ", ".join(str(q) for q in queues) + "]}"


def _excluded_set(excluded: Iterable[Endpoints] | None) -> frozenset[Endpoints]:
    if excluded is None:
        return frozenset()
    out = set()
    for e in excluded:
        if not isinstance(e, Endpoints):
            raise TypeError(f"excluded must hold Endpoints, not {type(e).__name__}")
        out.add(e)
    return frozenset(out)


class _Balancer:
    __slots__ = ("_index", "_queues")
    _kind = ""

    def __init__(self, message_queues: Iterable[GrpcMessageQueue], *, start_index: int | None = None) -> None:
        start = _random_start() if start_index is None else check_int("start_index", start_index)
        self._init(_AtomicInt(start), message_queues)

    def _init(self, index: _AtomicInt, message_queues: Iterable[GrpcMessageQueue]) -> None:
        route = _queue_list(message_queues)
        queues = tuple(q for q in route if self._eligible(q))
        if not queues:
            raise IllegalArgumentError(f"No {self._kind} message queue found, topiRouteData={_route_text(route)}")
        self._index = index
        self._queues = queues

    @staticmethod
    def _eligible(q: GrpcMessageQueue) -> bool:
        raise NotImplementedError

    @property
    def message_queues(self) -> tuple[GrpcMessageQueue, ...]:
        """The queues it picks from: the eligible master queues, in route order."""
        return self._queues

    @property
    def index(self) -> int:
        """The round-robin index now (the value the next pick reads)."""
        return self._index.get()

    def shares_index_with(self, other: object) -> bool:
        """Whether ``other`` advances the same index (one balancer built from the other by ``update``)."""
        if not isinstance(other, _Balancer):
            raise TypeError(f"expected a load balancer, not {type(other).__name__}")
        return self._index is other._index

    def update(self, message_queues: Iterable[GrpcMessageQueue]) -> Any:
        """A balancer over a new route that shares this one's index (Java's ``update``)."""
        new = object.__new__(type(self))
        new._init(self._index, message_queues)
        return new

    def __len__(self) -> int:
        return len(self._queues)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self._queues)} queues, index={self.index})"


class PublishingLoadBalancer(_Balancer):
    """The producer's queue choice over the writable master queues of a route (Java 5.x gRPC client)."""

    __slots__ = ()
    _kind = "writable"

    @staticmethod
    def _eligible(q: GrpcMessageQueue) -> bool:
        return q.is_writable() and q.is_master()

    def take_message_queues(
        self, excluded: Iterable[Endpoints] | None = None, count: int | None = 1
    ) -> list[GrpcMessageQueue]:
        """Up to ``count`` queues on distinct broker names, from the next round-robin position, avoiding
        brokers whose endpoints are in ``excluded`` unless every broker is (Java's ``takeMessageQueues``).
        ``None`` means no exclusion, and a count of 1."""
        ex = _excluded_set(excluded)
        count = 1 if count is None else check_int("count", count)
        queues = self._queues
        n = len(queues)
        nxt = self._index.get_and_increment()
        candidates: list[GrpcMessageQueue] = []
        names: set[str] = set()
        for _ in range(n):
            q = queues[nxt % n]
            nxt = wrap_int(nxt + 1)
            if q.endpoints not in ex and q.broker_name not in names:
                names.add(q.broker_name)
                candidates.append(q)
            if len(candidates) >= count:
                return candidates
        if not candidates:
            for _ in range(n):
                q = queues[nxt % n]
                nxt = wrap_int(nxt + 1)
                if q.broker_name not in names:
                    names.add(q.broker_name)
                    candidates.append(q)
                if len(candidates) >= count:
                    break
        return candidates

    def take_message_queue_by_message_group(self, message_group: str) -> GrpcMessageQueue:
        """``queues[LongMath.mod(sipHash24(utf8(message_group)).asLong(), n)]``; the index does not move."""
        if message_group is None:
            raise NullPointerError("message_group is None")
        if not isinstance(message_group, str):
            raise TypeError(f"message_group must be a str, not {type(message_group).__name__}")
        return self._queues[siphash24(java_utf8(message_group)) % len(self._queues)]


class SubscriptionLoadBalancer(_Balancer):
    """The simple consumer's queue choice over the readable master queues of a route (Java 5.x gRPC client)."""

    __slots__ = ()
    _kind = "readable"

    @staticmethod
    def _eligible(q: GrpcMessageQueue) -> bool:
        return q.is_readable() and q.is_master()

    def take_message_queue(self) -> GrpcMessageQueue:
        """``queues[IntMath.mod(index.getAndIncrement(), n)]``."""
        return self._queues[self._index.get_and_increment() % len(self._queues)]
