"""``SendWhichQueue``: the producer's round-robin index, with ``ThreadLocalIndex``'s arithmetic."""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..errors import IllegalArgumentError
from .compat import parse_compat
from .java import INT_MAX, JavaRandom, check_int, java_abs, wrap_int

__all__ = ["SendWhichQueue"]

POSITIVE_MASK = 0x7FFFFFFF


class SendWhichQueue:
    """The index behind ``sendWhichQueue`` (and 4.9's ``whichItemWorst``).

    Java keeps one value per thread (``ThreadLocalIndex``); rocketroute keeps one value shared by all
    threads, advanced atomically, with the same arithmetic: the stored int wraps around, each
    ``increment_and_get`` returns ``(stored + 1) & 0x7FFFFFFF``, and the first call starts from a random
    draw (``nextInt()`` on 5.3; ``Math.abs(nextInt())`` on 4.9). ``start`` sets the stored value up front;
    ``random`` (a :class:`JavaRandom` or a seed) makes the draws reproducible."""

    __slots__ = ("_compat", "_lock", "_random", "_value")

    def __init__(self, compat: str = "5.3", start: int | None = None, random: JavaRandom | int | None = None) -> None:
        self._compat = parse_compat(compat)
        if random is None or (isinstance(random, int) and not isinstance(random, bool)):
            random = JavaRandom(random)
        if not isinstance(random, JavaRandom):
            raise TypeError(f"random must be a JavaRandom, an int seed or None, not {type(random).__name__}")
        self._random = random
        self._value = None if start is None else check_int("start", start)
        self._lock = threading.Lock()

    @property
    def compat(self) -> str:
        return self._compat

    def increment_and_get(self) -> int:
        with self._lock:
            v = self._value
            if v is None:
                v = self._random.next_int()
                if self._compat == "4.9":
                    v = java_abs(v)
            v = wrap_int(v + 1)
            self._value = v
        return v & POSITIVE_MASK

    def advance(self, count: int) -> int:
        """Advance by ``count`` steps at once (atomically) and return the stored value before them: the
        values ``increment_and_get`` would have returned are ``(before + 1 + i) & 0x7FFFFFFF``."""
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count < 2**64:  # a u64 natively
            raise IllegalArgumentError(f"count must be a non-negative int, not {count!r}")
        with self._lock:
            v = self._value
            if v is None:
                v = self._random.next_int()
                if self._compat == "4.9":
                    v = java_abs(v)
            self._value = wrap_int(v + count)
        return v

    def _take_turn(self, count: int, accept: Callable[[int, int], bool]) -> int | None:
        """One call's turn of ``count`` values: the values ``increment_and_get`` would return next are offered
        to ``accept(i, value)`` in order until it takes one (returned; ``None`` if none). The turn is claimed
        at once, so no other thread's call takes values out of its middle (Java's index is per thread); the
        values after the taken one are given back when no other call came since, so a single thread moves
        the index exactly as Java does."""
        before = self.advance(count)
        claimed_end = wrap_int(before + count)
        used = count
        try:
            for i in range(count):
                value = wrap_int(before + 1 + i) & POSITIVE_MASK
                used = i + 1
                if accept(i, value):
                    return value
                used = count
            return None
        finally:
            if used < count:
                with self._lock:
                    if self._value == claimed_end:
                        self._value = wrap_int(before + used)

    def reset(self) -> None:
        """5.x ``reset()``: store ``Math.abs(random.nextInt(Integer.MAX_VALUE))``."""
        v = java_abs(self._random.next_int(INT_MAX))
        with self._lock:
            self._value = v

    def get(self) -> int | None:
        """The stored value (``None`` before the first draw)."""
        return self._value

    def set(self, value: int) -> None:
        """Force the stored value (what the vectors call ``start_index``)."""
        value = check_int("value", value)
        with self._lock:
            self._value = value

    def __repr__(self) -> str:
        return f"SendWhichQueue(compat={self._compat!r}, value={self._value})"
