"""Clocks: every time-dependent object reads one, so tests and replays can freeze or drive time."""

from __future__ import annotations

import threading
import time

from .java import check_long

__all__ = ["ManualClock", "SystemClock"]


class SystemClock:
    """Wall-clock milliseconds (``System.currentTimeMillis()``)."""

    __slots__ = ()

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def __repr__(self) -> str:
        return "SystemClock()"


class ManualClock:
    """A clock that moves only when told to. Thread-safe."""

    __slots__ = ("_lock", "_now")

    def __init__(self, now_ms: int = 0) -> None:
        self._now = 0 if now_ms is None else check_long("now_ms", now_ms)  # None: the default, as natively
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        return self._now

    def set(self, now_ms: int) -> None:
        self._now = 0 if now_ms is None else check_long("now_ms", now_ms)  # None: the default, as natively

    def advance(self, delta_ms: int) -> int:
        """Move forward (or back, if negative) by ``delta_ms``; returns the new time."""
        delta_ms = check_long("delta_ms", delta_ms)
        with self._lock:
            self._now = check_long("now_ms", self._now + delta_ms)
            return self._now

    def __repr__(self) -> str:
        return f"ManualClock(now_ms={self._now})"
