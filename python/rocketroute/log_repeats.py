"""Warnings that repeat, logged at most once per interval.

A client's periodic work (the route poll, the heartbeat, each queue's pulls, the offset commits, the rebalance)
meets the same trouble again and again while it lasts: a topic without a route, a broker down. Each such warning
goes through :data:`REPEATS`: the first one is logged, the same one again within :data:`REPEAT_INTERVAL_S` is
counted instead, and the next one after the interval is logged with that count ("3 more like this in the last 60
s"), so trouble that lasts is never silent and never a flood.

"The same one" is the same logger, level and message template about the same thing: ``about`` when the caller
gives it (what the warning is about, such as a broker's address, where the arguments also carry an error's text
that changes from one attempt to the next), else the arguments as text.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable
from typing import Any, Protocol

__all__ = ["REPEATS", "REPEAT_INTERVAL_S", "RepeatLimiter"]

REPEAT_INTERVAL_S = 60.0
"""How long a repeated warning stays quiet: two route polls or heartbeats (30 s each by default), three
rebalances (20 s)."""

_MAX_KEYS = 1024  # the distinct warnings remembered; past that, the quiet windows that are over are forgotten


class Clock(Protocol):
    """What :class:`RepeatLimiter` reads the time from: :class:`rocketroute.ManualClock` in tests."""

    def now_ms(self) -> int: ...


class _Window:
    __slots__ = ("start_ms", "suppressed")

    def __init__(self, start_ms: int) -> None:
        self.start_ms = start_ms
        self.suppressed = 0


class RepeatLimiter:
    """Logs each distinct warning at most once per ``interval_s`` (see the module), reading the time from ``clock``
    (wall-clock milliseconds by default). Thread-safe: the clients of several loops share one."""

    def __init__(self, interval_s: float = REPEAT_INTERVAL_S, clock: Clock | None = None) -> None:
        if not interval_s > 0:
            raise ValueError(f"interval_s must be positive, got {interval_s!r}")
        if clock is None:
            from .reference.clock import SystemClock

            clock = SystemClock()
        if not callable(getattr(clock, "now_ms", None)):
            raise TypeError(f"clock must have a now_ms() method (a ManualClock or SystemClock), not {clock!r}")
        self.interval_ms = int(interval_s * 1000)
        self.clock = clock
        self._windows: dict[Hashable, _Window] = {}
        self._lock = threading.Lock()

    def log(
        self,
        logger: logging.Logger,
        level: int,
        msg: str,
        *args: Any,
        about: Hashable = None,
        exc_info: bool = False,
    ) -> bool:
        """``logger.log(level, msg, *args)`` unless the same warning was logged less than the interval ago (then
        it is counted); the first one after the interval says how many were not logged. Returns whether it was
        logged. The record names the caller's line, not this one."""
        if not logger.isEnabledFor(level):
            return False
        key = (logger.name, level, msg, tuple(map(str, args)) if about is None else about)
        now = self.clock.now_ms()
        with self._lock:
            window = self._windows.get(key)
            if window is not None and 0 <= now - window.start_ms < self.interval_ms:
                window.suppressed += 1
                return False
            suppressed, since_ms = (0, 0) if window is None else (window.suppressed, now - window.start_ms)
            if window is None and len(self._windows) >= _MAX_KEYS:
                self._forget_over(now)
            self._windows[key] = _Window(now)
        if suppressed:
            msg += " (%d more like this in the last %.0f s, not logged)"
            args = (*args, suppressed, since_ms / 1000)
        logger.log(level, msg, *args, exc_info=exc_info, stacklevel=2)
        return True

    def _forget_over(self, now: int) -> None:
        over = [k for k, w in self._windows.items() if not 0 <= now - w.start_ms < self.interval_ms]
        for k in over or list(self._windows)[: _MAX_KEYS // 2]:  # all still quiet: the oldest half goes
            del self._windows[k]

    def clear(self) -> None:
        """Forget every warning seen: the next of each is logged."""
        with self._lock:
            self._windows.clear()


REPEATS = RepeatLimiter()
"""The limiter of every periodic warning of the client."""
