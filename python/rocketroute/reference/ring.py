"""``ConsistentHashRouter``: RocketMQ's MD5 consistent-hash ring with virtual nodes."""

from __future__ import annotations

import bisect
import hashlib
import threading
from collections.abc import Callable, Iterable

from ..errors import IllegalArgumentError, NullPointerError
from .java import LONG_MAX, LONG_MIN, check_int, check_str, java_utf8, utf8_name

__all__ = ["ConsistentHashRouter", "md5_hash"]

HashFunction = Callable[[str], int]


def md5_hash(key: str) -> int:
    """RocketMQ's ``MD5Hash.hash``: the first 4 bytes of MD5(UTF-8 of ``key``), big-endian, unsigned.
    The bytes are those of Java's ``getBytes(UTF_8)``: an unpaired surrogate is ``?``."""
    check_str("key", key)
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

    __slots__ = ("_hash", "_keys", "_lock", "_table")

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
        self._table: dict[int, tuple[str, str]] = {}  # hash -> (virtual node key, physical node)
        self._keys: list[int] | None = []  # sorted hashes; None when the table changed since
        # one lock for the table and its sorted keys: routing while nodes join and leave on other threads
        # (re-entrant, so a hash function may read the router)
        self._lock = threading.RLock()
        check_int("virtual_node_cnt", virtual_node_cnt)
        if nodes is not None:
            for node in nodes:
                self.add_node(node, virtual_node_cnt)

    def _sorted(self) -> list[int]:
        if self._keys is None:
            self._keys = sorted(self._table)
        return self._keys

    def add_node(self, node: str, vnode_count: int) -> None:
        """Adds ``vnode_count`` virtual nodes, numbered after the ones ``node`` already owns."""
        check_int("vnode_count", vnode_count)
        if vnode_count < 0:
            raise IllegalArgumentError(f"illegal virtual node counts :{vnode_count}")
        _check_node(node)
        with self._lock:
            existing = self.existing_replicas(node)
            for i in range(vnode_count):
                vnode = f"{node}-{i + existing}"
                self._table[_checked_hash(self._hash, vnode)] = (vnode, node)
                self._keys = None

    def remove_node(self, node: str) -> None:
        """Removes every virtual node of ``node``."""
        _check_node(node)
        with self._lock:
            gone = [h for h, (_, owner) in self._table.items() if owner == node]
            for h in gone:
                del self._table[h]
            if gone:
                self._keys = None

    def existing_replicas(self, node: str) -> int:
        """How many ring entries ``node`` owns now."""
        _check_node(node)
        with self._lock:
            return sum(1 for _, owner in self._table.values() if owner == node)

    def route_node(self, key: str) -> str | None:
        """The node ``key`` routes to, or ``None`` for an empty ring."""
        check_str("key", key)
        with self._lock:
            if not self._table:
                return None  # an empty ring hashes nothing, as in Java
            h = _checked_hash(self._hash, key)
            keys = self._sorted()
            pos = bisect.bisect_left(keys, h)
            return self._table[keys[pos if pos < len(keys) else 0]][1]

    def route_nodes(self, keys: Iterable[str], *, nulls: str | None = "raise") -> list[str | None]:
        """``route_node`` of every key (a list, a NumPy array or a pyarrow array of strings); a null key
        raises, or routes to ``None`` with ``nulls="mask"``."""
        from .batch import route_nodes

        return route_nodes(self, keys, nulls=nulls)

    def ring(self) -> list[tuple[int, str, str]]:
        """``[(hash, virtual node key, node), ...]`` in ring order."""
        with self._lock:
            return [(h, *self._table[h]) for h in self._sorted()]

    def __len__(self) -> int:
        with self._lock:
            return len(self._table)

    def __repr__(self) -> str:
        return f"ConsistentHashRouter(ring_size={len(self._table)})"


def _check_node(node: object) -> None:
    if node is None:
        raise NullPointerError("node is None")
    if not isinstance(node, str):
        raise TypeError(f"node must be a str, not {type(node).__name__}")
    utf8_name("node", node)
