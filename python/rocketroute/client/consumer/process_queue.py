"""A push consumer's cache of one message queue: Java's ``ProcessQueue`` (5.3.3).

The messages pulled from the queue and not yet consumed, keyed by queue offset in ascending order (Java's
``TreeMap``), the counts that drive pull flow control, and the queue's state (dropped, locked, timestamps). For
orderly consumption, the messages handed to the listener move to a second map until they are committed or put
back. All the map operations take one lock: the consumer calls them from its event-loop thread and from the
listener threads.

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
from ...consumer_config import CONSUMER_CONSTANTS
from ..message import PROPERTY_MAX_OFFSET

__all__ = ["PULL_MAX_IDLE_TIME", "REBALANCE_LOCK_INTERVAL", "REBALANCE_LOCK_MAX_LIVE_TIME", "ProcessQueue"]

REBALANCE_LOCK_MAX_LIVE_TIME: int = CONSUMER_CONSTANTS["REBALANCE_LOCK_MAX_LIVE_TIME"]
REBALANCE_LOCK_INTERVAL: int = CONSUMER_CONSTANTS["REBALANCE_LOCK_INTERVAL"]
PULL_MAX_IDLE_TIME: int = CONSUMER_CONSTANTS["PULL_MAX_IDLE_TIME"]

_JAVA_LONG = re.compile(r"[+-]?[0-9]+", re.ASCII)
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


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
    """A ``TreeMap<Long, MessageExt>`` reduced to what ProcessQueue uses: a dict plus its keys kept sorted, and the
    two loops ProcessQueue runs once per pull and once per listener call (:meth:`put_messages`,
    :meth:`remove_messages`). The native backend's twin is ``_native._OffsetMap`` (``rocketroute_core::offset_map``),
    the same methods and answers.

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


_Map: Callable[[], Any] = native_twin("_OffsetMap") or _OffsetMap
"""What a ProcessQueue keeps its messages in: the native map, or the Python one on the reference backend."""


class ProcessQueue:
    """Java's ``ProcessQueue``: the pulled, not yet consumed messages of one queue.

    ``now_ms`` is the clock (milliseconds, default wall time); the timestamps start at its value. The state that
    Java keeps in volatile fields is plain attributes here: ``dropped``, ``locked``, ``last_lock_timestamp``,
    ``last_pull_timestamp``, ``last_consume_timestamp``, ``msg_acc_cnt``. ``consume_lock`` is held by whoever
    consumes the queue in orderly mode, and by a rebalance that takes the queue away (Java 5.3.3 makes it a
    read-write lock; its consumers take it one at a time anyway)."""

    def __init__(self, *, now_ms: Callable[[], int] | None = None) -> None:
        self._now = _wall_ms if now_ms is None else now_ms
        self._lock = threading.Lock()
        self._msg_tree = _Map()
        self._consuming_orderly = _Map()  # a subset of the messages, only for orderly consumption
        self._msg_count = 0
        self._msg_size = 0
        self._queue_offset_max = 0
        self._consuming = False
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
        return self._msg_count

    @property
    def msg_size(self) -> int:
        """The total body size (bytes) of the cached messages, as :attr:`msg_count` counts them."""
        return self._msg_size

    @property
    def queue_offset_max(self) -> int:
        """The offset of the last message :meth:`put_messages` added (not the largest one, when a batch is out of
        order: Java's arithmetic); 0 at first and after :meth:`clear`."""
        return self._queue_offset_max

    @property
    def consuming(self) -> bool:
        """Whether a consume request is (believed to be) running for this queue: set by :meth:`put_messages`,
        cleared only by a :meth:`take_messages` that found nothing."""
        return self._consuming

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
        with self._lock:
            cached = len(self._msg_tree) > 0
            taken = len(self._consuming_orderly) > 0
            return {
                "commitOffset": commit_offset,
                "cachedMsgMinOffset": self._msg_tree.first_key() if cached else 0,
                "cachedMsgMaxOffset": self._msg_tree.last_key() if cached else 0,
                "cachedMsgCount": len(self._msg_tree),
                "cachedMsgSizeInMiB": self._msg_size // (1024 * 1024),
                "transactionMsgMinOffset": self._consuming_orderly.first_key() if taken else 0,
                "transactionMsgMaxOffset": self._consuming_orderly.last_key() if taken else 0,
                "transactionMsgCount": len(self._consuming_orderly),
                "locked": self.locked,
                "tryUnlockTimes": self._try_unlock_times,
                "lastLockTimestamp": self.last_lock_timestamp,
                "droped": self.dropped,
                "lastPullTimestamp": self.last_pull_timestamp,
                "lastConsumeTimestamp": self.last_consume_timestamp,
            }

    # --- the cache ---------------------------------------------------------------------------------------------

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
        # the lock is held over the map's one call and operators: the interpreter hands the GIL to another thread
        # at calls and loops, and a thread that lost it holding this lock has the consume pool's threads queue on
        # the lock (each then taking it from the last, two context switches a message)
        with self._lock:
            added, size, last = self._msg_tree.put_messages(msgs)
            if last is not None:
                self._queue_offset_max = last
            self._msg_size += size
            self._msg_count += added
            dispatch = False
            if (msgs or len(self._msg_tree)) and not self._consuming:  # messages given: the map holds them
                dispatch = True
                self._consuming = True
            if acc_total > 0:
                self.msg_acc_cnt = acc_total
        if bad_max_offset is not None:
            raise bad_max_offset
        return dispatch

    def get_max_span(self) -> int:
        """The last cached offset minus the first (0 when none is cached); taken messages are not cached."""
        with self._lock:
            if not len(self._msg_tree):
                return 0
            return self._msg_tree.last_key() - self._msg_tree.first_key()

    def remove_messages(self, msgs: Iterable[Any]) -> int:
        """``removeMessage``: drop the consumed ``msgs`` from the cache. Returns the offset the consumer may
        commit: the first offset still cached, ``queue_offset_max + 1`` when none remains, or -1 when the cache
        was already empty (nothing is removed then). Sets ``last_consume_timestamp`` in every case."""
        now = self._now()
        tree = self._msg_tree
        with self._lock:  # one call under it (see put_messages)
            self.last_consume_timestamp = now
            removed, size, first_left = tree.remove_messages(msgs)
            if first_left is None and not removed:  # the cache was empty
                return -1
            self._msg_size -= size
            self._msg_count -= removed
            if self._msg_count == 0:
                self._msg_size = 0
            return self._queue_offset_max + 1 if first_left is None else first_left

    def first_expired(self, consume_timeout_ms: int, now_ms: int) -> Any:
        """The first cached message if a listener started on it (its ``CONSUME_START_TIME`` property) more than
        ``consume_timeout_ms`` before ``now_ms``, else ``None`` (one step of Java's ``cleanExpiredMsg``)."""
        with self._lock:
            if not len(self._msg_tree):
                return None
            msg = self._msg_tree.first()
        start = msg.properties.get("CONSUME_START_TIME")
        if not start or not start.isdigit():
            return None
        return msg if now_ms - int(start) > consume_timeout_ms else None

    def contains_message(self, msg: Any) -> bool:
        """``containsMessage`` (5.3.3): whether ``msg``'s offset is cached (not counting taken messages)."""
        if msg is None:
            return False
        with self._lock:
            return msg.queue_offset in self._msg_tree

    def has_temp_message(self) -> bool:
        """Whether any message is cached (not counting taken messages)."""
        with self._lock:
            return bool(len(self._msg_tree))

    def clear(self) -> None:
        """Empty both maps and zero the counts and ``queue_offset_max`` (``consuming``, ``msg_acc_cnt`` and the
        state are left as they are, as in Java)."""
        with self._lock:
            self._msg_tree.clear()
            self._consuming_orderly.clear()
            self._msg_count = 0
            self._msg_size = 0
            self._queue_offset_max = 0

    # --- orderly consumption -----------------------------------------------------------------------------------

    def take_messages(self, batch_size: int) -> list[Any]:
        """``takeMessages``: move up to ``batch_size`` messages, lowest offsets first, from the cache to the
        consuming map and return them. When none was taken, :attr:`consuming` becomes false. Sets
        ``last_consume_timestamp``."""
        if batch_size < 0:  # Java: new ArrayList<>(batchSize) rejects it
            raise ValueError(f"Illegal Capacity: {batch_size}")
        now = self._now()
        result: list[Any] = []
        with self._lock:
            self.last_consume_timestamp = now
            while len(result) < batch_size:
                entry = self._msg_tree.poll_first()
                if entry is None:
                    break
                result.append(entry[1])
                self._consuming_orderly.put(*entry)
            if not result:
                self._consuming = False
        return result

    def commit(self) -> int:
        """``commit``: the taken messages are consumed. Uncounts them, empties the consuming map and returns the
        offset to commit, the last taken offset + 1; -1 when nothing was taken (Java's ``TreeMap.lastKey`` would
        throw there; nothing changes)."""
        with self._lock:
            taken = self._consuming_orderly
            if not len(taken):
                return -1
            offset = taken.last_key()
            self._msg_count -= len(taken)
            if self._msg_count == 0:
                self._msg_size = 0
            else:
                for msg in taken.values():
                    size = _body_size(msg)
                    if size > 0:
                        self._msg_size -= size
            taken.clear()
            return offset + 1

    def rollback(self) -> None:
        """``rollback``: put every taken message back in the cache (replacing any cached at the same offset);
        the counts do not change."""
        with self._lock:
            for offset, msg in self._consuming_orderly.items():
                self._msg_tree.put(offset, msg)
            self._consuming_orderly.clear()

    def make_message_to_consume_again(self, msgs: Iterable[Any]) -> None:
        """``makeMessageToConsumeAgain``: move ``msgs`` from the consuming map back to the cache (each is put in
        the cache even when it was not taken); the counts do not change."""
        msgs = list(msgs)
        with self._lock:
            for msg in msgs:
                self._consuming_orderly.remove(msg.queue_offset)
                self._msg_tree.put(msg.queue_offset, msg)

    def __repr__(self) -> str:
        with self._lock:
            first = self._msg_tree.first_key() if len(self._msg_tree) else None
            last = self._msg_tree.last_key() if len(self._msg_tree) else None
            taken = len(self._consuming_orderly)
        return (
            f"ProcessQueue(cached={first}..{last}, taken={taken}, count={self._msg_count}, size={self._msg_size}, "
            f"offset_max={self._queue_offset_max}, consuming={self._consuming}, locked={self.locked}, "
            f"dropped={self.dropped})"
        )
