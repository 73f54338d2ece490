"""A push consumer's cache of one message queue: Java's ``ProcessQueue`` (5.3.3).

The messages pulled from the queue and not yet consumed, keyed by queue offset in ascending order (Java's
``TreeMap``), the counts that drive pull flow control, and the queue's state (dropped, locked, timestamps). For
orderly consumption, the messages handed to the listener move to a second map until they are committed or put
back. That state is a :class:`_QueueCache` (the native backend's twin: ``_native._QueueCache``,
``rocketroute_core::queue_cache``) with one call per operation, each under the cache's own lock: the consumer
calls them from its event-loop thread and from the listener threads.

Messages are duck-typed: any object with ``queue_offset`` (int), ``body`` (bytes or ``None``) and
``properties`` (a dict, or ``None``).

The counts follow Java's arithmetic, quirks included: ``msg_count`` and ``msg_size`` cover both maps (a message
taken for orderly consumption stays counted until :meth:`ProcessQueue.commit`), a duplicate offset replaces the
cached message without being counted again, and :meth:`ProcessQueue.remove_messages` subtracts the body sizes of
the messages it is given, not of those it removes.
"""

from __future__ import annotations

import re
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Any

from ..._backend import native_twin
from ..message_const import PROPERTY_MAX_OFFSET
from .constants import CONSUMER_CONSTANTS

__all__ = ["PULL_MAX_IDLE_TIME", "REBALANCE_LOCK_INTERVAL", "REBALANCE_LOCK_MAX_LIVE_TIME", "ProcessQueue"]

REBALANCE_LOCK_MAX_LIVE_TIME: int = CONSUMER_CONSTANTS["REBALANCE_LOCK_MAX_LIVE_TIME"]
REBALANCE_LOCK_INTERVAL: int = CONSUMER_CONSTANTS["REBALANCE_LOCK_INTERVAL"]
PULL_MAX_IDLE_TIME: int = CONSUMER_CONSTANTS["PULL_MAX_IDLE_TIME"]

_JAVA_LONG = re.compile(r"[+-]?[0-9]+", re.ASCII)
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _wrap_long(v: int) -> int:
    """Java's ``long`` arithmetic: the low 64 bits, two's complement (what the native cache's ``wrapping_*``
    gives), so hostile offsets near the ends of the range answer as Java's ``ProcessQueue`` does."""
    return ((v - _LONG_MIN) & 0xFFFF_FFFF_FFFF_FFFF) + _LONG_MIN


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


def _body_size(msg: Any) -> int:
    body = msg.body
    return 0 if body is None else len(body)


def _parse_long(s: str) -> int:
    """``Long.parseLong``: ASCII digits with an optional sign, within a signed 64-bit long; anything else raises
    ``ValueError`` (Java's ``NumberFormatException``)."""
    if not _JAVA_LONG.fullmatch(s):
        raise ValueError(f"For input string: {s!r}")
    value = int(s)
    if not _LONG_MIN <= value <= _LONG_MAX:
        raise ValueError(f"For input string: {s!r}")
    return value


class _OffsetMap:
    """A ``TreeMap<Long, MessageExt>`` reduced to what :class:`_QueueCache` uses: a dict plus its keys kept sorted,
    and the two loops a queue's cache runs once per pull and once per listener call (:meth:`put_messages`,
    :meth:`remove_messages`). The native cache keeps ``rocketroute_core::offset_map``'s, with the same answers.

    Pulls arrive in ascending offset order and are consumed from the front, so the sorted list sees appends and
    removals near its start; a queue caches at most a few thousand messages. The values are messages, never
    ``None`` (so ``None`` answers "not there")."""

    __slots__ = ("_keys", "_values")

    def __init__(self) -> None:
        self._values: dict[int, Any] = {}
        self._keys: list[int] = []

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: int) -> bool:
        return key in self._values

    def put(self, key: int, value: Any) -> Any:
        """Java's ``put``: the previous value of ``key`` (replaced), or ``None``."""
        old = self._values.get(key)
        if key not in self._values:
            keys = self._keys
            if not keys or key > keys[-1]:
                keys.append(key)
            else:
                keys.insert(bisect_left(keys, key), key)
        self._values[key] = value
        return old

    def remove(self, key: int) -> Any:
        """Java's ``remove``: the value of ``key`` (taken out), or ``None``."""
        value = self._values.pop(key, None)
        if value is not None:
            self._drop_key(key)
        return value

    def put_messages(self, msgs: Iterable[Any]) -> tuple[int, int, int | None]:
        """:meth:`put` of each message at its ``queue_offset``: how many offsets were new, the total body size of
        those, and the last new offset (``None`` when none was)."""
        added = size = 0
        last = None
        for msg in msgs:
            offset = msg.queue_offset
            if self.put(offset, msg) is None:
                added += 1
                size += _body_size(msg)
                last = offset
        return added, size, last

    def remove_messages(self, msgs: Iterable[Any]) -> tuple[int, int, int | None]:
        """:meth:`remove` of each message's ``queue_offset``: how many were cached, the total body size of the
        messages given for those, and the first offset still cached (``None``: the map is empty)."""
        values = self._values
        removed = size = 0
        for msg in msgs:
            offset = msg.queue_offset
            if values.pop(offset, None) is not None:
                self._drop_key(offset)
                removed += 1
                size += _body_size(msg)
        keys = self._keys
        return removed, size, keys[0] if keys else None

    def _drop_key(self, key: int) -> None:
        keys = self._keys
        if keys[0] == key:  # removed in order: the first one
            del keys[0]
        else:
            del keys[bisect_left(keys, key)]

    def first_key(self) -> int | None:
        """The lowest offset, or ``None`` when empty."""
        return self._keys[0] if self._keys else None

    def last_key(self) -> int | None:
        """The highest offset, or ``None`` when empty."""
        return self._keys[-1] if self._keys else None

    def first(self) -> Any:
        """The value of the lowest offset, or ``None`` when empty."""
        return self._values[self._keys[0]] if self._keys else None

    def poll_first(self) -> tuple[int, Any] | None:
        if not self._keys:
            return None
        key = self._keys.pop(0)
        return key, self._values.pop(key)

    def items(self) -> list[tuple[int, Any]]:
        values = self._values
        return [(k, values[k]) for k in self._keys]

    def values(self) -> list[Any]:
        values = self._values
        return [values[k] for k in self._keys]

    def clear(self) -> None:
        self._values.clear()
        self._keys.clear()


class _QueueCache:
    """The state Java's ``ProcessQueue`` keeps behind its lock, each operation one method under this object's lock:
    the cached messages (``msgTreeMap``), those taken for orderly consumption and not committed
    (``consumingMsgOrderlyTreeMap``), ``msg_count``, ``msg_size``, ``queue_offset_max`` and ``consuming``. The
    reference backend's; the native one's is ``_native._QueueCache`` (``rocketroute_core::queue_cache``), the same
    methods and answers, which runs no Python code under its lock: a Python lock held over a call can be held
    while the GIL goes to another thread, and the consume pool's threads then queue on it."""

    __slots__ = ("_cached", "_consuming", "_count", "_lock", "_offset_max", "_size", "_taken")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cached = _OffsetMap()
        self._taken = _OffsetMap()
        self._count = 0
        self._size = 0
        self._offset_max = 0
        self._consuming = False

    def __len__(self) -> int:
        return len(self._cached)

    def __contains__(self, offset: int) -> bool:
        with self._lock:
            return offset in self._cached

    @property
    def msg_count(self) -> int:
        return self._count

    @property
    def msg_size(self) -> int:
        return self._size

    @property
    def queue_offset_max(self) -> int:
        return self._offset_max

    @property
    def consuming(self) -> bool:
        return self._consuming

    def put_messages(self, msgs: Iterable[Any]) -> bool:
        with self._lock:
            added, size, last = self._cached.put_messages(msgs)
            if last is not None:
                self._offset_max = last
            self._size += size
            self._count += added
            dispatch = bool(len(self._cached)) and not self._consuming
            if dispatch:
                self._consuming = True
            return dispatch

    def remove_messages(self, msgs: Iterable[Any]) -> int:
        with self._lock:
            if not len(self._cached):
                return -1
            removed, size, first_left = self._cached.remove_messages(msgs)
            self._size -= size
            self._count -= removed
            if self._count == 0:
                self._size = 0
            return _wrap_long(self._offset_max + 1) if first_left is None else first_left

    def take_messages(self, n: int) -> list[Any]:
        result: list[Any] = []
        with self._lock:
            while len(result) < n:
                entry = self._cached.poll_first()
                if entry is None:
                    break
                result.append(entry[1])
                self._taken.put(*entry)
            if not result:
                self._consuming = False
        return result

    def commit(self) -> int:
        with self._lock:
            taken = self._taken
            if not len(taken):
                return -1
            offset = taken.last_key()
            self._count -= len(taken)
            if self._count == 0:
                self._size = 0
            else:
                self._size -= sum(_body_size(msg) for msg in taken.values())
            taken.clear()
            return _wrap_long(offset + 1)

    def rollback(self) -> None:
        with self._lock:
            for offset, msg in self._taken.items():
                self._cached.put(offset, msg)
            self._taken.clear()

    def make_again(self, msgs: Iterable[Any]) -> None:
        with self._lock:
            for msg in msgs:
                self._taken.remove(msg.queue_offset)
                self._cached.put(msg.queue_offset, msg)

    def clear(self) -> None:
        with self._lock:
            self._cached.clear()
            self._taken.clear()
            self._count = self._size = self._offset_max = 0

    def max_span(self) -> int:
        with self._lock:
            if not len(self._cached):
                return 0
            return _wrap_long(self._cached.last_key() - self._cached.first_key())

    def first(self) -> Any:
        with self._lock:
            return self._cached.first()

    def state(self) -> tuple[int, int, int, bool, int, int | None, int | None, int, int | None, int | None]:
        with self._lock:
            c, t = self._cached, self._taken
            return (
                self._count,
                self._size,
                self._offset_max,
                self._consuming,
                len(c),
                c.first_key(),
                c.last_key(),
                len(t),
                t.first_key(),
                t.last_key(),
            )


_Cache: Callable[[], Any] = native_twin("_QueueCache") or _QueueCache
"""What a ProcessQueue keeps its state in: the native cache, or the Python one on the reference backend."""


class ProcessQueue:
    """Java's ``ProcessQueue``: the pulled, not yet consumed messages of one queue.

    ``now_ms`` is the clock (milliseconds, default wall time); the timestamps start at its value. The state that
    Java keeps in volatile fields is plain attributes here: ``dropped``, ``locked``, ``last_lock_timestamp``,
    ``last_pull_timestamp``, ``last_consume_timestamp``, ``msg_acc_cnt``. ``consume_lock`` is held by whoever
    consumes the queue in orderly mode, and by a rebalance that takes the queue away (Java 5.3.3 makes it a
    read-write lock; its consumers take it one at a time anyway)."""

    def __init__(self, *, now_ms: Callable[[], int] | None = None) -> None:
        self._now = _wall_ms if now_ms is None else now_ms
        self._lock = threading.Lock()  # try_unlock_times' (the cache has its own)
        self._cache = _Cache()
        self._try_unlock_times = 0
        self.consume_lock = threading.Lock()
        self.dropped = False
        self.locked = False
        self.msg_acc_cnt = 0
        now = self._now()
        self.last_pull_timestamp = now
        self.last_consume_timestamp = now
        self.last_lock_timestamp = now

    # --- state -------------------------------------------------------------------------------------------------

    @property
    def msg_count(self) -> int:
        """The messages cached, counting those taken for orderly consumption and not yet committed."""
        return self._cache.msg_count

    @property
    def msg_size(self) -> int:
        """The total body size (bytes) of the cached messages, as :attr:`msg_count` counts them."""
        return self._cache.msg_size

    @property
    def queue_offset_max(self) -> int:
        """The offset of the last message :meth:`put_messages` added (not the largest one, when a batch is out of
        order: Java's arithmetic); 0 at first and after :meth:`clear`."""
        return self._cache.queue_offset_max

    @property
    def consuming(self) -> bool:
        """Whether a consume request is (believed to be) running for this queue: set by :meth:`put_messages`,
        cleared only by a :meth:`take_messages` that found nothing."""
        return self._cache.consuming

    @property
    def try_unlock_times(self) -> int:
        """How many times giving the queue up had to wait for ``consume_lock`` (or its cached messages)."""
        return self._try_unlock_times

    @try_unlock_times.setter
    def try_unlock_times(self, value: int) -> None:
        self._try_unlock_times = value

    def inc_try_unlock_times(self) -> None:
        """``incTryUnlockTimes``, under the lock (``try_unlock_times += 1`` is not atomic across threads)."""
        with self._lock:
            self._try_unlock_times += 1

    def is_lock_expired(self, now_ms: int | None = None) -> bool:
        """More than ``REBALANCE_LOCK_MAX_LIVE_TIME`` (30 s) since the broker lock was last renewed."""
        now = self._now() if now_ms is None else now_ms
        return now - self.last_lock_timestamp > REBALANCE_LOCK_MAX_LIVE_TIME

    def is_pull_expired(self, now_ms: int | None = None) -> bool:
        """More than ``PULL_MAX_IDLE_TIME`` (120 s) since the queue was last pulled."""
        now = self._now() if now_ms is None else now_ms
        return now - self.last_pull_timestamp > PULL_MAX_IDLE_TIME

    def info(self, commit_offset: int) -> dict[str, Any]:
        """``fillProcessQueueInfo``: the queue's state as the admin tools read it (``ProcessQueueInfo``, in its
        JSON field names: ``droped`` is spelt so in every released client, 4.9.8 to 5.5.0). The ``transactionMsg*``
        fields are the messages taken for orderly consumption and not committed yet."""
        _, size, _, _, cached, cached_first, cached_last, taken, taken_first, taken_last = self._cache.state()
        return {
            "commitOffset": commit_offset,
            "cachedMsgMinOffset": 0 if cached_first is None else cached_first,
            "cachedMsgMaxOffset": 0 if cached_last is None else cached_last,
            "cachedMsgCount": cached,  # msgTreeMap.size(): the taken messages are not in it
            "cachedMsgSizeInMiB": size // (1024 * 1024),
            "transactionMsgMinOffset": 0 if taken_first is None else taken_first,
            "transactionMsgMaxOffset": 0 if taken_last is None else taken_last,
            "transactionMsgCount": taken,
            "locked": self.locked,
            "tryUnlockTimes": self._try_unlock_times,
            "lastLockTimestamp": self.last_lock_timestamp,
            "droped": self.dropped,
            "lastPullTimestamp": self.last_pull_timestamp,
            "lastConsumeTimestamp": self.last_consume_timestamp,
        }

    # --- the cache: each one call into it, no lock here (see _QueueCache) ----------------------------------------

    def put_messages(self, msgs: Iterable[Any]) -> bool:
        """``putMessage``: cache ``msgs`` by offset. Returns whether the caller should dispatch a consume
        request: the cache is not empty and no consume request was running (this sets :attr:`consuming`).

        An offset already cached has its message replaced but is not counted again. ``msg_acc_cnt`` becomes the
        last message's ``MAX_OFFSET`` property minus its offset, when that is positive (the messages still on the
        broker behind this batch)."""
        msgs = list(msgs)
        acc_total = 0
        bad_max_offset = None  # Long.parseLong's NumberFormatException, raised once the messages are cached
        if msgs:
            last_msg = msgs[-1]
            properties = last_msg.properties
            max_offset = None if properties is None else properties.get(PROPERTY_MAX_OFFSET)
            if max_offset is not None:
                try:
                    acc_total = _parse_long(max_offset) - last_msg.queue_offset
                except ValueError as e:
                    bad_max_offset = e
        dispatch = self._cache.put_messages(msgs)
        if acc_total > 0:
            self.msg_acc_cnt = acc_total
        if bad_max_offset is not None:
            raise bad_max_offset
        return dispatch

    def get_max_span(self) -> int:
        """The last cached offset minus the first (0 when none is cached); taken messages are not cached."""
        return self._cache.max_span()

    def remove_messages(self, msgs: Iterable[Any]) -> int:
        """``removeMessage``: drop the consumed ``msgs`` from the cache. Returns the offset the consumer may
        commit: the first offset still cached, ``queue_offset_max + 1`` when none remains, or -1 when the cache
        was already empty (nothing is removed then). Sets ``last_consume_timestamp`` in every case."""
        self.last_consume_timestamp = self._now()
        return self._cache.remove_messages(msgs)

    def first_expired(self, consume_timeout_ms: int, now_ms: int) -> Any:
        """The first cached message if a listener started on it (its ``CONSUME_START_TIME`` property) more than
        ``consume_timeout_ms`` before ``now_ms``, else ``None`` (one step of Java's ``cleanExpiredMsg``)."""
        msg = self._cache.first()
        if msg is None:
            return None
        start = msg.properties.get("CONSUME_START_TIME")
        if not start or not start.isdigit():
            return None
        return msg if now_ms - int(start) > consume_timeout_ms else None

    def contains_message(self, msg: Any) -> bool:
        """``containsMessage`` (5.3.3): whether ``msg``'s offset is cached (not counting taken messages)."""
        if msg is None:
            return False
        return msg.queue_offset in self._cache

    def has_temp_message(self) -> bool:
        """Whether any message is cached (not counting taken messages)."""
        return bool(len(self._cache))

    def clear(self) -> None:
        """Empty both maps and zero the counts and ``queue_offset_max`` (``consuming``, ``msg_acc_cnt`` and the
        state are left as they are, as in Java)."""
        self._cache.clear()

    # --- orderly consumption -----------------------------------------------------------------------------------

    def take_messages(self, batch_size: int) -> list[Any]:
        """``takeMessages``: move up to ``batch_size`` messages, lowest offsets first, from the cache to the
        consuming map and return them. When none was taken, :attr:`consuming` becomes false. Sets
        ``last_consume_timestamp``."""
        if batch_size < 0:  # Java: new ArrayList<>(batchSize) rejects it
            raise ValueError(f"Illegal Capacity: {batch_size}")
        self.last_consume_timestamp = self._now()
        return self._cache.take_messages(batch_size)

    def commit(self) -> int:
        """``commit``: the taken messages are consumed. Uncounts them, empties the consuming map and returns the
        offset to commit, the last taken offset + 1; -1 when nothing was taken (Java's ``TreeMap.lastKey`` would
        throw there; nothing changes)."""
        return self._cache.commit()

    def rollback(self) -> None:
        """``rollback``: put every taken message back in the cache (replacing any cached at the same offset);
        the counts do not change."""
        self._cache.rollback()

    def make_message_to_consume_again(self, msgs: Iterable[Any]) -> None:
        """``makeMessageToConsumeAgain``: move ``msgs`` from the consuming map back to the cache (each is put in
        the cache even when it was not taken); the counts do not change."""
        self._cache.make_again(list(msgs))

    def __repr__(self) -> str:
        count, size, offset_max, consuming, _, first, last, taken, _, _ = self._cache.state()
        return (
            f"ProcessQueue(cached={first}..{last}, taken={taken}, count={count}, size={size}, "
            f"offset_max={offset_max}, consuming={consuming}, locked={self.locked}, "
            f"dropped={self.dropped})"
        )
