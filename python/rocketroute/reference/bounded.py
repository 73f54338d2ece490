"""``AllocateMessageQueueConsistentHashBounded``: consistent hashing with bounded loads (Mirrokni, Thorup and
Zadimoghaddam) on RocketMQ's consistent-hash ring (not a strategy of the Java client: opt in, every member
alike)."""

from __future__ import annotations

import bisect
import math

from ..errors import IllegalArgumentError
from .allocate import _GlobalStrategy, ring_params
from .java import check_int
from .message_queue import MessageQueue
from .ring import ConsistentHashRouter, HashFunction, _checked_hash, md5_hash

__all__ = ["AllocateMessageQueueConsistentHashBounded", "bounded_capacity"]


def _load_factor(load_factor: object) -> float:
    if load_factor is None:  # None: the default, as for the other optional arguments
        return 1.25
    if isinstance(load_factor, bool) or not isinstance(load_factor, (int, float)):
        raise TypeError(f"load_factor must be a float, not {type(load_factor).__name__}")
    try:
        value = float(load_factor)
    except OverflowError:
        value = math.inf
    if not (math.isfinite(value) and value >= 1.0):
        raise IllegalArgumentError(f"load_factor must be a finite number >= 1.0, not {load_factor!r}")
    return value


def bounded_capacity(load_factor: float, n_mq: int, n_cid: int) -> int:
    """``ceil(load_factor * n_mq / n_cid)`` over the exact value of the float ``load_factor`` (no rounding on
    the way), at most ``n_mq``."""
    num, den = load_factor.as_integer_ratio()
    return min(-(-(num * n_mq) // (den * n_cid)), n_mq)


def bounded_owners(ring: list[tuple[int, int]], n_mq: int, n_cid: int, capacity: int, hashes: list[int]) -> list[int]:
    """The consumer index of each queue: ``ring`` is ``[(hash, consumer index), ...]`` in ring order,
    ``hashes[i]`` the ring hash of queue ``i`` (unused, and may be empty, when the ring is)."""
    load = [0] * n_cid
    on_ring = sorted({c for _, c in ring})
    open_on_ring = len(on_ring)  # consumers on the ring still below capacity
    keys = [h for h, _ in ring]
    owners = []
    for i in range(n_mq):
        owner = -1
        if open_on_ring:
            start = bisect.bisect_left(keys, hashes[i])
            for k in range(len(ring)):
                c = ring[(start + k) % len(ring)][1]
                if load[c] < capacity:
                    owner = c
                    break
        if owner < 0:  # every consumer on the ring is full (some own no ring entry): the least loaded one
            owner = min(range(n_cid), key=lambda c: (load[c], c))
        load[owner] += 1
        if load[owner] == capacity and owner in on_ring:
            open_on_ring -= 1
        owners.append(owner)
    return owners


class AllocateMessageQueueConsistentHashBounded(_GlobalStrategy):
    """``CONSISTENT_HASH_BOUNDED``: consistent hashing with bounded loads. The ring is ``CONSISTENT_HASH``'s
    (RocketMQ's :class:`ConsistentHashRouter` of the consumers, ``virtual_node_cnt`` virtual nodes each, MD5 or
    ``hash_function``); the queues, in ``mq_all`` order, each go to the first consumer clockwise from
    ``hash(str(mq))`` that holds fewer than ``capacity(len(mq_all), n)`` queues, ``n`` the distinct consumers:
    ``ceil(load_factor * len(mq_all) / n)``, so no consumer takes more than ``load_factor`` times its fair
    share, and a join or leave moves few queues besides those it must.

    ``load_factor`` is a finite number >= 1.0; the capacity is computed on its exact binary value (``1.25`` is
    exact, ``1.1`` is a little above 1.1). A queue that finds every consumer on the ring full (possible only
    when a consumer has no ring entry: ``virtual_node_cnt=0``, or a ``hash_function`` whose values collide)
    goes to the least loaded consumer, the earlier in ``cid_all`` on a tie. Duplicates in ``mq_all`` /
    ``cid_all`` count once. All members must use the same parameters to agree."""

    __slots__ = ("_hash", "_load_factor", "_vnodes")
    name = "CONSISTENT_HASH_BOUNDED"

    def __init__(
        self,
        load_factor: float | None = 1.25,
        virtual_node_cnt: int | None = 10,
        hash_function: HashFunction | None = None,
    ) -> None:
        self._load_factor = _load_factor(load_factor)
        self._vnodes, self._hash = ring_params(virtual_node_cnt, hash_function)

    @property
    def load_factor(self) -> float:
        return self._load_factor

    @property
    def virtual_node_cnt(self) -> int:
        return self._vnodes

    @property
    def hash_function(self) -> HashFunction | None:
        return self._hash

    def capacity(self, queue_count: int, consumer_count: int) -> int:
        """The most queues one consumer takes: ``ceil(load_factor * queue_count / consumer_count)`` exactly,
        at most ``queue_count``."""
        queue_count = check_int("queue_count", queue_count)
        consumer_count = check_int("consumer_count", consumer_count)
        if queue_count < 0:
            raise IllegalArgumentError(f"queue_count must not be negative: {queue_count}")
        if consumer_count < 1:
            raise IllegalArgumentError(f"consumer_count must be positive: {consumer_count}")
        return bounded_capacity(self._load_factor, queue_count, consumer_count)

    def _assignment(self, mqs: list[MessageQueue], cids: list[str]) -> dict[str, list[MessageQueue]]:
        queues = list(dict.fromkeys(mqs))
        router = ConsistentHashRouter(cids, self._vnodes, self._hash)
        index = {c: i for i, c in enumerate(cids)}
        ring = [(h, index[node]) for h, _, node in router.ring()]
        hashes: list[int] = []
        if ring:  # an empty ring hashes nothing, as CONSISTENT_HASH
            fn = self._hash
            hashes = [md5_hash(str(mq)) if fn is None else _checked_hash(fn, str(mq)) for mq in queues]
        capacity = bounded_capacity(self._load_factor, len(queues), len(cids))
        owners = bounded_owners(ring, len(queues), len(cids), capacity, hashes)
        out: dict[str, list[MessageQueue]] = {c: [] for c in cids}
        for mq, o in zip(queues, owners, strict=True):
            out[cids[o]].append(mq)
        return out

    def __repr__(self) -> str:
        return (
            f"AllocateMessageQueueConsistentHashBounded(load_factor={self._load_factor!r}, "
            f"virtual_node_cnt={self._vnodes})"
        )
