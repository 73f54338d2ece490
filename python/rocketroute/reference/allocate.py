"""Consumer queue allocation: the six ``AllocateMessageQueueStrategy`` classes of the Java client, and
``allocate_all``, every consumer's queues in one pass."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from ..errors import IllegalArgumentError, NullPointerError
from .java import check_int, java_split, java_string_key, utf8_name
from .message_queue import MessageQueue
from .ring import ConsistentHashRouter, HashFunction, check_ring_size

__all__ = [
    "AllocateMessageQueueStrategy",
    "AllocateMessageQueueAveragely",
    "AllocateMessageQueueAveragelyByCircle",
    "AllocateMessageQueueByConfig",
    "AllocateMessageQueueByMachineRoom",
    "AllocateMessageQueueConsistentHash",
    "AllocateMachineRoomNearby",
    "MachineRoomResolver",
    "allocate_all",
]


@runtime_checkable
class MachineRoomResolver(Protocol):
    """Where a broker and a consumer are deployed (Java's ``AllocateMachineRoomNearby.MachineRoomResolver``)."""

    def broker_deploy_in(self, mq: Any) -> str | None: ...

    def consumer_deploy_in(self, cid: str) -> str | None: ...


def _cid_list(cid_all: Iterable[str] | None) -> list[str] | None:
    if cid_all is None:
        return None
    cids = list(cid_all)
    for c in cids:
        if c is None:
            raise NullPointerError("cid_all holds None")
        if not isinstance(c, str):
            raise TypeError(f"cid_all must hold str, not {type(c).__name__}")
        utf8_name("cid_all", c)
    return cids


def _mq_list(mq_all: Iterable[MessageQueue] | None) -> list[MessageQueue] | None:
    if mq_all is None:
        return None
    mqs = list(mq_all)
    for mq in mqs:
        if not isinstance(mq, MessageQueue):
            raise TypeError(f"mq_all must hold MessageQueue, not {type(mq).__name__}")
    return mqs


def _check_lists(mqs: list[MessageQueue] | None, cids: list[str] | None) -> None:
    if not mqs:
        raise IllegalArgumentError("mqAll is null or mqAll empty")
    if not cids:
        raise IllegalArgumentError("cidAll is null or cidAll empty")


def _cid_arg(current_cid: str | None) -> None:
    """The argument conversion of ``current_cid`` (its type, UTF-8): before the lists', as the native backend
    converts the arguments in order."""
    if current_cid is not None and not isinstance(current_cid, str):
        raise TypeError(f"current_cid must be a str, not {type(current_cid).__name__}")
    if current_cid is not None:
        utf8_name("current_cid", current_cid)


def _check_cid(current_cid: str | None) -> None:
    _cid_arg(current_cid)
    if not current_cid:
        raise IllegalArgumentError("currentCID is empty")


def _check(current_cid: str | None, mqs: list[MessageQueue] | None, cids: list[str] | None) -> bool:
    """``AbstractAllocateMessageQueueStrategy.check``: raises for an empty cid or list; ``False`` (an empty
    result) for a consumer that is not in ``cid_all``."""
    _check_cid(current_cid)
    _check_lists(mqs, cids)
    return current_cid in cids  # type: ignore[operator]


class AllocateMessageQueueStrategy:
    """A consumer group's queue allocation (Java's ``AllocateMessageQueueStrategy``): the base of the
    strategies, not made directly. ``allocate(consumer_group, current_cid, mq_all, cid_all)`` gives the
    current consumer's queues; :func:`allocate_all` every consumer's. A strategy of your own need not derive
    from it: any object with ``allocate`` and ``name`` will do."""

    __slots__ = ()
    name: str

    def __new__(cls, *args: Any, **kwargs: Any) -> AllocateMessageQueueStrategy:
        if cls is AllocateMessageQueueStrategy:
            raise TypeError("No constructor defined for AllocateMessageQueueStrategy")
        return super().__new__(cls)

    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue] | None:
        _cid_arg(current_cid)
        mqs, cids = _mq_list(mq_all), _cid_list(cid_all)
        if not _check(current_cid, mqs, cids):
            return []
        return self._allocate(consumer_group, current_cid, mqs, cids)  # type: ignore[arg-type]

    def _allocate(
        self, group: str | None, cid: str, mqs: list[MessageQueue], cids: list[str]
    ) -> list[MessageQueue]:  # pragma: no cover - every strategy overrides it
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _GlobalStrategy(AllocateMessageQueueStrategy):
    """A strategy that computes the whole group's assignment at once (``STICKY``, ``CONSISTENT_HASH_BOUNDED``):
    ``allocate`` is the current consumer's part of it, ``allocate_all`` all of it."""

    __slots__ = ()

    def allocate_all(
        self, mq_all: Sequence[MessageQueue] | None, cid_all: Sequence[str] | None
    ) -> dict[str, list[MessageQueue]]:
        """The whole assignment, ``{cid: queues}`` for each distinct consumer of ``cid_all`` in order; equal to
        ``allocate`` for each of them (the same first exception too), computed once."""
        cids = _cid_list(cid_all)
        if not cids:
            return {}
        unique = _unique(cids)
        mqs = _mq_list(mq_all)
        for cid in unique:
            _check_cid(cid)
            _check_lists(mqs, cids)
        return self._assignment(mqs, unique)  # type: ignore[arg-type]

    def _allocate(self, group: str | None, cid: str, mqs: list[MessageQueue], cids: list[str]) -> list[MessageQueue]:
        return self._assignment(mqs, _unique(cids))[cid]

    def _assignment(
        self, mqs: list[MessageQueue], cids: list[str]
    ) -> dict[str, list[MessageQueue]]:  # pragma: no cover - every strategy overrides it
        raise NotImplementedError


class AllocateMessageQueueAveragely(AllocateMessageQueueStrategy):
    """``AVG``: consecutive blocks, the first ``len(mq_all) % len(cid_all)`` consumers one queue more."""

    __slots__ = ()
    name = "AVG"

    def _allocate(self, group: str | None, cid: str, mqs: list[MessageQueue], cids: list[str]) -> list[MessageQueue]:
        index = cids.index(cid)
        n, m = len(mqs), len(cids)
        mod = n % m
        if n <= m:
            average = 1
        else:
            average = n // m + 1 if mod > 0 and index < mod else n // m
        start = index * average if mod > 0 and index < mod else index * average + mod
        return [mqs[start + i] for i in range(min(average, n - start))]


class AllocateMessageQueueAveragelyByCircle(AllocateMessageQueueStrategy):
    """``AVG_BY_CIRCLE``: queue ``i`` goes to consumer ``i % len(cid_all)``."""

    __slots__ = ()
    name = "AVG_BY_CIRCLE"

    def _allocate(self, group: str | None, cid: str, mqs: list[MessageQueue], cids: list[str]) -> list[MessageQueue]:
        index = cids.index(cid)
        return mqs[index :: len(cids)]


class AllocateMessageQueueByConfig(AllocateMessageQueueStrategy):
    """``CONFIG``: every consumer gets ``message_queue_list``, whatever the arguments (Java checks nothing
    here, and returns the configured list itself, ``None`` included)."""

    __slots__ = ("_list",)
    name = "CONFIG"

    def __init__(self, message_queue_list: Iterable[MessageQueue] | None = None) -> None:
        self._list = _mq_list(message_queue_list)

    @property
    def message_queue_list(self) -> list[MessageQueue] | None:
        return None if self._list is None else list(self._list)

    def allocate(
        self,
        consumer_group: str | None,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue] | None:
        return None if self._list is None else list(self._list)

    def __repr__(self) -> str:
        return f"AllocateMessageQueueByConfig({self._list!r})"


class AllocateMessageQueueByMachineRoom(AllocateMessageQueueStrategy):
    """``MACHINE_ROOM``: only queues of brokers named ``"<room>@<name>"`` with ``room`` in ``consumer_idcs``,
    split into equal blocks, the remainder dealt one each to the first consumers."""

    __slots__ = ("_idcs",)
    name = "MACHINE_ROOM"

    def __init__(self, consumer_idcs: Iterable[str] | None = None) -> None:
        self._idcs = None if consumer_idcs is None else frozenset(consumer_idcs)

    @property
    def consumer_idcs(self) -> frozenset[str] | None:
        return self._idcs

    def _allocate(self, group: str | None, cid: str, mqs: list[MessageQueue], cids: list[str]) -> list[MessageQueue]:
        index = cids.index(cid)
        pre = []
        for mq in mqs:
            if mq.broker_name is None:
                raise NullPointerError(f"{mq} has no broker name")
            parts = java_split(mq.broker_name, "@")
            if len(parts) == 2:
                if self._idcs is None:
                    raise NullPointerError("consumer_idcs is None")
                if parts[0] in self._idcs:
                    pre.append(mq)
        mod, rem = divmod(len(pre), len(cids))
        result = pre[mod * index : mod * index + mod]
        if rem > index:
            result.append(pre[index + mod * len(cids)])
        return result

    def __repr__(self) -> str:
        return f"AllocateMessageQueueByMachineRoom({self._idcs!r})"


def ring_params(virtual_node_cnt: int | None, hash_function: HashFunction | None) -> tuple[int, HashFunction | None]:
    """The consistent-hash strategies' ring: ``virtual_node_cnt`` (``None``: Java's no-arg default, 10) and the
    ``hash_function`` (``None``: MD5), checked."""
    virtual_node_cnt = 10 if virtual_node_cnt is None else virtual_node_cnt
    virtual_node_cnt = check_int("virtual_node_cnt", virtual_node_cnt)
    if virtual_node_cnt < 0:
        raise IllegalArgumentError(f"illegal virtualNodeCnt :{virtual_node_cnt}")
    check_ring_size(virtual_node_cnt)  # one consumer's ring would already be past the limit
    if hash_function is not None and not callable(hash_function):
        raise TypeError("hash_function must be a callable str -> int")
    return virtual_node_cnt, hash_function


class AllocateMessageQueueConsistentHash(AllocateMessageQueueStrategy):
    """``CONSISTENT_HASH``: each queue goes to the consumer its ``str(mq)`` routes to on a
    :class:`ConsistentHashRouter` of the consumers (``virtual_node_cnt`` virtual nodes each)."""

    __slots__ = ("_hash", "_vnodes")
    name = "CONSISTENT_HASH"

    def __init__(self, virtual_node_cnt: int | None = 10, hash_function: HashFunction | None = None) -> None:
        self._vnodes, self._hash = ring_params(virtual_node_cnt, hash_function)

    @property
    def virtual_node_cnt(self) -> int:
        return self._vnodes

    @property
    def hash_function(self) -> HashFunction | None:
        return self._hash

    def router(self, cid_all: Iterable[str]) -> ConsistentHashRouter:
        """The ring ``allocate`` builds for these consumers."""
        return ConsistentHashRouter(_cid_list(cid_all), self._vnodes, self._hash)

    def _allocate(self, group: str | None, cid: str, mqs: list[MessageQueue], cids: list[str]) -> list[MessageQueue]:
        router = self.router(cids)
        return [mq for mq in mqs if router.route_node(str(mq)) == cid]

    def __repr__(self) -> str:
        return f"AllocateMessageQueueConsistentHash(virtual_node_cnt={self._vnodes})"


class _CallableResolver:
    __slots__ = ("_broker", "_consumer")

    def __init__(self, broker: Callable[[Any], str | None], consumer: Callable[[str], str | None]) -> None:
        self._broker, self._consumer = broker, consumer

    def broker_deploy_in(self, mq: Any) -> str | None:
        return self._broker(mq)

    def consumer_deploy_in(self, cid: str) -> str | None:
        return self._consumer(cid)


def _room(value: object, what: str) -> str:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"the machine room resolver must return a str or None, not {type(value).__name__}")
    if not value:
        raise IllegalArgumentError(f"Machine room is null for {what}")
    return utf8_name("the machine room", value)


class AllocateMachineRoomNearby(AllocateMessageQueueStrategy):
    """``MACHINE_ROOM_NEARBY-<inner>``: consumers take the queues of their own machine room with the inner
    strategy; queues of a room without consumers are shared by all consumers.

    ``resolver`` has ``broker_deploy_in(mq)`` and ``consumer_deploy_in(cid)``; or pass the two callables as
    ``broker_deploy_in=`` and ``consumer_deploy_in=`` (or as a pair)."""

    __slots__ = ("_inner", "_resolver")

    def __init__(
        self,
        inner_strategy: Any,
        resolver: Any = None,
        *,
        broker_deploy_in: Callable[[Any], str | None] | None = None,
        consumer_deploy_in: Callable[[str], str | None] | None = None,
    ) -> None:
        if inner_strategy is None:
            raise NullPointerError("allocateMessageQueueStrategy is null")
        if not hasattr(inner_strategy, "allocate"):
            raise TypeError("inner_strategy must have an allocate(consumer_group, current_cid, mq_all, cid_all)")
        if resolver is None and broker_deploy_in is not None and consumer_deploy_in is not None:
            resolver = (broker_deploy_in, consumer_deploy_in)
        if isinstance(resolver, tuple) and len(resolver) == 2 and all(callable(f) for f in resolver):
            resolver = _CallableResolver(*resolver)
        if resolver is None:
            raise NullPointerError("machineRoomResolver is null")
        if not (hasattr(resolver, "broker_deploy_in") and hasattr(resolver, "consumer_deploy_in")):
            raise TypeError("resolver must have broker_deploy_in(mq) and consumer_deploy_in(cid)")
        self._inner = inner_strategy
        self._resolver = resolver

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"MACHINE_ROOM_NEARBY-{self._inner.name}"

    @property
    def inner_strategy(self) -> Any:
        return self._inner

    @property
    def resolver(self) -> Any:
        return self._resolver

    def _allocate(self, group: str | None, cid: str, mqs: list[MessageQueue], cids: list[str]) -> list[MessageQueue]:
        mq_rooms, cid_rooms = self._rooms(mqs, cids)
        return self._allocate_in_rooms(group, cid, mq_rooms, cid_rooms, cids)

    def _rooms(
        self, mqs: list[MessageQueue], cids: list[str]
    ) -> tuple[dict[str, list[MessageQueue]], dict[str, list[str]]]:
        mq_rooms: dict[str, list[MessageQueue]] = {}
        for mq in mqs:
            mq_rooms.setdefault(_room(self._resolver.broker_deploy_in(mq), f"mq {mq}"), []).append(mq)
        cid_rooms: dict[str, list[str]] = {}
        for c in cids:
            cid_rooms.setdefault(_room(self._resolver.consumer_deploy_in(c), f"consumer id {c}"), []).append(c)
        return mq_rooms, cid_rooms

    def _allocate_in_rooms(
        self,
        group: str | None,
        cid: str,
        mq_rooms: dict[str, list[MessageQueue]],
        cid_rooms: dict[str, list[str]],
        cids: list[str],
    ) -> list[MessageQueue]:
        result: list[MessageQueue] = []
        room = self._resolver.consumer_deploy_in(cid)
        local = mq_rooms.get(room) if isinstance(room, str) else None
        if local:
            result.extend(_inner_result(self._inner.allocate(group, cid, local, cid_rooms.get(room))))
        for r in sorted(mq_rooms, key=java_string_key):
            if r != room and r not in cid_rooms:
                result.extend(_inner_result(self._inner.allocate(group, cid, mq_rooms[r], cids)))
        return result

    def __repr__(self) -> str:
        return f"AllocateMachineRoomNearby({self._inner!r})"


def _inner_result(r: Iterable[MessageQueue] | None) -> Iterable[MessageQueue]:
    if r is None:  # Java: allocateResults.addAll(null)
        raise NullPointerError("the inner strategy returned None")
    return r


def _unique(cids: list[str]) -> list[str]:
    return list(dict.fromkeys(cids))


def allocate_all(
    strategy: Any,
    mq_all: Sequence[MessageQueue] | None,
    cid_all: Sequence[str] | None,
    consumer_group: str | None = "",
) -> dict[str, list[MessageQueue] | None]:
    """Every consumer's queues: ``{cid: strategy.allocate(consumer_group, cid, mq_all, cid_all)}`` for each
    distinct cid of ``cid_all``, in first-occurrence order, equal to calling ``allocate`` for each consumer
    (the same exception too), but in one pass where the strategy allows: the consistent-hash ring is built
    once, not once per consumer."""
    if isinstance(strategy, _GlobalStrategy):  # it computes the whole assignment at once
        return strategy.allocate_all(mq_all, cid_all)  # type: ignore[return-value]
    cids = _cid_list(cid_all)
    if not cids:
        return {}
    unique = _unique(cids)
    if isinstance(strategy, AllocateMessageQueueConsistentHash):
        mqs = _mq_list(mq_all)
        for cid in unique:
            _check_cid(cid)
            _check_lists(mqs, cids)
        router = strategy.router(cids)
        out: dict[str, list[MessageQueue] | None] = {cid: [] for cid in unique}
        for mq in mqs:  # type: ignore[union-attr]
            owner = router.route_node(str(mq))
            if owner is not None:
                out[owner].append(mq)  # type: ignore[union-attr]
        return out
    return {cid: strategy.allocate(consumer_group, cid, mq_all, cid_all) for cid in unique}
