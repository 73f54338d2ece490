"""``ConsistentHashRouter``: RocketMQ's MD5 consistent-hash ring with virtual nodes."""

from __future__ import annotations

import bisect
import hashlib
import threading
from collections.abc import Callable, Iterable

from ..errors import IllegalArgumentError, NullPointerError
from .java import LONG_MAX, LONG_MIN, check_int, check_str, java_utf8, utf8_name

__all__ = ["MAX_VIRTUAL_NODES", "ConsistentHashRouter", "check_ring_size", "md5_hash"]

HashFunction = Callable[[str], int]

MAX_VIRTUAL_NODES = 1 << 20
"""The most virtual nodes a ring may hold. Java would try to allocate any count and run out of memory; a
ring that would grow past this raises :class:`IllegalArgumentError` before anything is added."""


def check_ring_size(size: int) -> None:
    """:class:`IllegalArgumentError` for a ring of ``size`` virtual nodes, past :data:`MAX_VIRTUAL_NODES`."""
    if size > MAX_VIRTUAL_NODES:
        raise IllegalArgumentError(
            f"a ring of {size} virtual nodes is more than MAX_VIRTUAL_NODES ({MAX_VIRTUAL_NODES})"
        )


def md5_hash(key: str) -> int:
    """RocketMQ's ``MD5Hash.hash``: the first 4 bytes of MD5(UTF-8 of ``key``), big-endian, unsigned.
    The bytes are those of Java's ``getBytes(UTF_8)``: an unpaired surrogate is ``?``."""
    key = check_str("key", key)
    return int.from_bytes(hashlib.md5(java_utf8(key)).digest()[:4], "big")


def _checked_hash(fn: HashFunction, key: str) -> int:
    h = fn(key)
    if isinstance(h, bool) or not isinstance(h, int):
        raise TypeError(f"hash_function must return an int, not {type(h).__name__}")
    if not LONG_MIN <= h <= LONG_MAX:
        raise IllegalArgumentError(f"hash_function returned {h}, out of the Java long range")
    return h


class ConsistentHashRouter:
    """Physical nodes (string keys) on a ring of virtual nodes ``"<key>-<replica>"`` (a ``TreeMap`` of
    the virtual nodes' hashes, signed long order). ``route_node(key)`` is the node of the first virtual node
    at or after ``hash(key)``, wrapping around; a later virtual node with the same hash replaces the earlier
    one, as ``TreeMap.put`` does. ``hash_function`` is any callable ``str -> int`` (default: MD5)."""

    __slots__ = ("_hash", "_lock", "_state")

    def __init__(
        self,
        nodes: Iterable[str] | None = None,
        virtual_node_cnt: int | None = 10,
        hash_function: HashFunction | None = None,
    ) -> None:
        virtual_node_cnt = 10 if virtual_node_cnt is None else virtual_node_cnt  # None: the default, as natively
        if hash_function is not None and not callable(hash_function):
            raise TypeError("hash_function must be a callable str -> int")
        self._hash: HashFunction = md5_hash if hash_function is None else hash_function
        # The ring is copied on write: a state is never changed once published, so a reader works on the
        # state it took even if a hash function or a garbage-collector finalizer on its own thread adds or
        # removes nodes meanwhile. The lock orders writers (re-entrant: a hash function may use the router).
        self._lock = threading.RLock()
        virtual_node_cnt = check_int("virtual_node_cnt", virtual_node_cnt)
        table: dict[int, tuple[str, str]] = {}
        owned: dict[str, int] = {}
        if nodes is not None:
            for node in nodes:  # built in place: the router is not shared before it is returned
                if virtual_node_cnt < 0:
                    raise IllegalArgumentError(f"illegal virtual node counts :{virtual_node_cnt}")
                _check_node(node)
                check_ring_size(len(table) + virtual_node_cnt)
                hashed: list[tuple[int, str]] = []
                self._hash_replicas(hashed, node, owned.get(node, 0), virtual_node_cnt)
                _put(table, owned, node, hashed)
        self._state = _RingState(table, owned)

    def add_node(self, node: str, vnode_count: int) -> None:
        """Adds ``vnode_count`` virtual nodes, numbered after the ones ``node`` already owns. Each is put as
        soon as it is hashed: a hash function that raises leaves the replicas before it, as in Java."""
        vnode_count = check_int("vnode_count", vnode_count)
        if vnode_count < 0:
            raise IllegalArgumentError(f"illegal virtual node counts :{vnode_count}")
        _check_node(node)
        with self._lock:
            for _ in range(MAX_ADD_ATTEMPTS):
                before = self._state
                check_ring_size(len(before.table) + vnode_count)
                hashed: list[tuple[int, str]] = []
                failed: BaseException | None = None
                try:
                    self._hash_replicas(hashed, node, before.owned.get(node, 0), vnode_count)
                except BaseException as e:
                    failed = e
                if self._state is not before:
                    continue  # the hash function changed the ring: number the replicas again
                self._state = before.with_added(node, hashed)
                if failed is not None:
                    raise failed
                return
            raise RuntimeError(
                f"add_node({node!r}): the ring changed while the hash function ran, {MAX_ADD_ATTEMPTS} times"
            )

    def _hash_replicas(self, hashed: list[tuple[int, str]], node: str, existing: int, count: int) -> None:
        """Appends ``(hash, key)`` of replicas ``existing`` .. ``existing + count - 1`` of ``node`` to ``hashed``,
        one by one, so the ones before a failing hash are there when it raises."""
        for i in range(count):
            vnode = f"{node}-{i + existing}"
            hashed.append((_checked_hash(self._hash, vnode), vnode))

    def remove_node(self, node: str) -> None:
        """Removes every virtual node of ``node``."""
        _check_node(node)
        with self._lock:
            state = self._state
            if state.owned.get(node, 0):
                owned = dict(state.owned)
                del owned[node]
                self._state = _RingState({h: e for h, e in state.table.items() if e[1] != node}, owned)

    def existing_replicas(self, node: str) -> int:
        """How many ring entries ``node`` owns now."""
        _check_node(node)
        return self._state.owned.get(node, 0)

    def route_node(self, key: str) -> str | None:
        """The node ``key`` routes to, or ``None`` for an empty ring."""
        key = check_str("key", key)
        state = self._state
        if not state.table:
            return None  # an empty ring hashes nothing, as in Java
        return state.route_hash(_checked_hash(self._hash, key))

    def route_nodes(self, keys: Iterable[str], *, nulls: str | None = "raise") -> list[str | None]:
        """``route_node`` of every key (a list, a NumPy array or a pyarrow array of strings); a null key
        raises, or routes to ``None`` with ``nulls="mask"``."""
        from .batch import route_nodes

        return route_nodes(self, keys, nulls=nulls)

    def ring(self) -> list[tuple[int, str, str]]:
        """``[(hash, virtual node key, node), ...]`` in ring order."""
        state = self._state
        return [(h, *state.table[h]) for h in state.sorted_hashes()]

    def __len__(self) -> int:
        return len(self._state.table)

    def __repr__(self) -> str:
        return f"ConsistentHashRouter(ring_size={len(self._state.table)})"


MAX_ADD_ATTEMPTS = 1000
"""How often ``add_node`` numbers and hashes its replicas again because its own hash function (or a finalizer
on its thread) changed the ring meanwhile, as the native backend does."""


class _RingState:
    """One published version of a ring: hash -> (virtual node key, node), the entries of each node, and the
    sorted hashes (computed on first use). Never changed after it is published."""

    __slots__ = ("_sorted", "owned", "table")

    def __init__(self, table: dict[int, tuple[str, str]], owned: dict[str, int]) -> None:
        self.table = table
        self.owned = owned
        self._sorted: list[int] | None = None

    def sorted_hashes(self) -> list[int]:
        keys = self._sorted
        if keys is None:
            keys = self._sorted = sorted(self.table)
        return keys

    def route_hash(self, h: int) -> str:
        keys = self.sorted_hashes()
        pos = bisect.bisect_left(keys, h)
        return self.table[keys[pos if pos < len(keys) else 0]][1]

    def with_added(self, node: str, hashed: list[tuple[int, str]]) -> _RingState:
        """A new state with ``node``'s hashed virtual nodes put in order (a later equal hash replaces)."""
        if not hashed:
            return self
        table, owned = dict(self.table), dict(self.owned)
        _put(table, owned, node, hashed)
        return _RingState(table, owned)


def _put(table: dict[int, tuple[str, str]], owned: dict[str, int], node: str, hashed: list[tuple[int, str]]) -> None:
    for h, vnode in hashed:
        old = table.get(h)
        if old is not None:
            owned[old[1]] -= 1
        table[h] = (vnode, node)
        owned[node] = owned.get(node, 0) + 1


def _check_node(node: object) -> None:
    if node is None:
        raise NullPointerError("node is None")
    if not isinstance(node, str):
        raise TypeError(f"node must be a str, not {type(node).__name__}")
    utf8_name("node", node)
