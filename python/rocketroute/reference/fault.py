"""``LatencyFaultTolerance``: the fault-item table that steers sends away from slow or failed brokers."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .clock import ManualClock, SystemClock
from .compat import parse_compat
from .counter import SendWhichQueue
from .java import JavaRandom, check_int, check_long, check_name, java_string_hash, java_string_key, utf8_name, wrap_long

__all__ = ["LatencyFaultTolerance"]

Resolver = Callable[[str], "str | None"]
Detector = Callable[[str, int], bool]


def _as_resolver(obj: Any) -> Resolver | None:
    if obj is None:
        return None
    if hasattr(obj, "resolve"):
        return obj.resolve  # type: ignore[no-any-return]
    if callable(obj):
        return obj  # type: ignore[no-any-return]
    raise TypeError("resolver must be a callable name -> address, or have a resolve(name) method")


def _as_detector(obj: Any) -> Detector | None:
    if obj is None:
        return None
    if hasattr(obj, "detect"):
        return obj.detect  # type: ignore[no-any-return]
    if callable(obj):
        return obj  # type: ignore[no-any-return]
    raise TypeError("detector must be a callable (endpoint, timeout_ms) -> bool, or have a detect() method")


def table_order(name: str) -> tuple[int, bytes]:
    """Where Java's fault-item table (a ``ConcurrentHashMap`` of 32 buckets while it holds at most 24 items)
    enumerates ``name``: its bucket ``spread(hashCode) & 31``, then ``String.compareTo`` order within a bucket
    (Java keeps insertion order there). Ties in ``pick_one_at_least`` are broken by it, in both backends."""
    h = java_string_hash(name) & 0xFFFFFFFF
    return ((h ^ (h >> 16)) & 31, java_string_key(name))


class _FaultItem:
    __slots__ = ("check_stamp", "latency", "name", "reachable", "start")

    def __init__(self, name: str) -> None:
        self.name = name
        self.latency = 0
        self.start = 0
        self.check_stamp = 0
        self.reachable = False


class LatencyFaultTolerance:
    """Fault items by broker name: an item is *available* once the clock reaches its start timestamp.

    - 4.9: every update sets ``start = now + duration``; ``pick_one_at_least`` sorts the items (available
      first, then latency, then start) and cycles over the better half with ``which_item_worst``.
    - 5.3: an update only moves ``start`` forward, and only for ``duration > 0``; items also carry a
      reachable flag that a detector round (``detect_by_one_round``) can restore; ``pick_one_at_least``
      returns a random reachable item.

    ``resolver`` maps a broker name to the address the ``detector`` probes (default: the name itself);
    ``detector(address, timeout_ms) -> bool``. Either may be a callable or an object with ``resolve`` /
    ``detect``, like Java's ``Resolver`` and ``ServiceDetector``."""

    def __init__(
        self,
        compat: str = "5.3",
        *,
        clock: ManualClock | SystemClock | None = None,
        resolver: Any = None,
        detector: Any = None,
        detect_interval: int = 2000,
        detect_timeout: int = 200,
        random: JavaRandom | int | None = None,
    ) -> None:
        self._compat = parse_compat(compat)
        self._clock = SystemClock() if clock is None else clock
        if not hasattr(self._clock, "now_ms"):
            raise TypeError("clock must be a ManualClock, a SystemClock or None")
        self._resolver = _as_resolver(resolver)
        self._detector = _as_detector(detector)
        self.detect_interval = check_int("detect_interval", detect_interval)
        self.detect_timeout = check_int("detect_timeout", detect_timeout)
        self.start_detector_enable = False
        if random is None or (isinstance(random, int) and not isinstance(random, bool)):
            random = JavaRandom(random)
        self._random = random
        self._which_item_worst = SendWhichQueue(self._compat, random=self._random)
        self._items: dict[str, _FaultItem] = {}
        self._lock = threading.Lock()

    @property
    def compat(self) -> str:
        return self._compat

    @property
    def clock(self) -> ManualClock | SystemClock:
        return self._clock

    @property
    def which_item_worst(self) -> SendWhichQueue:
        """4.9's ``whichItemWorst`` index, used by ``pick_one_at_least``."""
        return self._which_item_worst

    def update_fault_item(
        self, name: str, current_latency: int, not_available_duration: int, reachable: bool = True
    ) -> None:
        name = check_name("name", name)
        current_latency = check_long("current_latency", current_latency)
        not_available_duration = check_long("not_available_duration", not_available_duration)
        now = self._clock.now_ms()
        with self._lock:
            item = self._items.get(name)
            if item is None:
                item = self._items[name] = _FaultItem(name)
            item.latency = current_latency
            if self._compat == "4.9":
                item.start = wrap_long(now + not_available_duration)
            else:
                until = wrap_long(now + not_available_duration)
                if not_available_duration > 0 and until > item.start:
                    item.start = until
                item.reachable = bool(reachable)

    def _available(self, item: _FaultItem, now: int) -> bool:
        if self._compat == "4.9":
            return wrap_long(now - item.start) >= 0
        return now >= item.start

    def is_available(self, name: str) -> bool:
        name = check_name("name", name)
        item = self._items.get(name)
        return True if item is None else self._available(item, self._clock.now_ms())

    def is_reachable(self, name: str) -> bool:
        """5.3: the item's reachable flag (``True`` for an unknown broker). 4.9 has no such flag: ``True``."""
        name = check_name("name", name)
        item = self._items.get(name)
        if item is None or self._compat == "4.9":
            return True
        return item.reachable

    def remove(self, name: str) -> None:
        name = check_name("name", name)
        with self._lock:
            self._items.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __len__(self) -> int:
        return len(self._items)

    def broker_names(self) -> list[str]:
        """Names that have a fault item."""
        return list(self._items)

    def pick_one_at_least(self) -> str | None:
        """A broker to fall back on when none is available (``None`` for an empty table)."""
        with self._lock:
            items = list(self._items.values())
        if not items:
            return None
        if self._compat == "4.9":
            now = self._clock.now_ms()
            items.sort(key=lambda it: (not self._available(it, now), it.latency, it.start, *table_order(it.name)))
            half = len(items) // 2
            if half <= 0:
                return items[0].name
            return items[self._which_item_worst.increment_and_get() % half].name
        reachable = sorted((it for it in items if it.reachable), key=lambda it: table_order(it.name))
        if not reachable:
            return None
        if len(reachable) == 1:
            return reachable[0].name
        return reachable[self._random.next_int(len(reachable))].name

    def detect_by_one_round(self) -> None:
        """5.3: probe every item whose check time has come; an item whose broker no longer resolves is
        removed, one whose probe succeeds becomes reachable again."""
        with self._lock:
            items = list(self._items.items())
        for key, item in items:
            now = self._clock.now_ms()
            if wrap_long(now - item.check_stamp) < 0:
                continue
            item.check_stamp = wrap_long(self._clock.now_ms() + self.detect_interval)
            addr = item.name if self._resolver is None else self._resolver(item.name)
            if addr is not None and not isinstance(addr, str):
                raise TypeError(f"resolver must return a str or None, not {type(addr).__name__}")
            if addr is not None:
                utf8_name("the resolver's address", addr)
            if addr is None:
                with self._lock:
                    if self._items.get(key) is item:
                        del self._items[key]
                continue
            if self._detector is None:
                continue
            ok = self._detector(addr, self.detect_timeout)
            if not isinstance(ok, bool):
                raise TypeError(f"detector must return a bool, not {type(ok).__name__}")
            if ok and not item.reachable:
                item.reachable = True

    def __repr__(self) -> str:
        return f"LatencyFaultTolerance(compat={self._compat!r}, items={len(self._items)})"
