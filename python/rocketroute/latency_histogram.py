"""A fixed-size latency histogram: counts in log-linear buckets, so that recording a value costs no memory and a
percentile is within 0.4 % of the recorded value it stands for.

Values (milliseconds, as ``bench-producer`` measures them) are kept as whole nanoseconds. Below
``2 ** SUB_BITS`` ns each nanosecond has its own bucket; above, every power of two ``[2 ** e, 2 ** (e + 1))`` is
cut into ``2 ** SUB_BITS`` buckets of equal width, so a bucket is at most ``1 / 2 ** SUB_BITS`` of its lower
bound wide and its midpoint is within half that of any value in it. Values above ``2 ** MAX_BITS`` ns (about
78 hours) are counted in the last bucket; the count, the sum, the minimum and the maximum are exact.
"""

from __future__ import annotations

import math
from array import array

__all__ = ["LatencyHistogram"]

SUB_BITS = 7
"""log2 of the buckets per power of two: 128, a bucket at most 1/128 of its lower bound wide."""
MAX_BITS = 48
"""Values up to ``2 ** MAX_BITS`` ns have their own bucket."""
_SUB = 1 << SUB_BITS
_BUCKETS = _SUB + (MAX_BITS - SUB_BITS) * _SUB
_TOP = (1 << MAX_BITS) - 1
_NS_PER_MS = 1_000_000
_ZEROS = array("q", bytes(8 * _BUCKETS))


def _index(ns: int) -> int:
    if ns < _SUB:
        return ns
    shift = ns.bit_length() - SUB_BITS - 1  # ns >> shift is in [_SUB, 2 * _SUB)
    return _SUB + shift * _SUB + (ns >> shift) - _SUB


def _bounds(index: int) -> tuple[int, int]:
    """The bucket's values in ns: ``[low, high)``."""
    if index < _SUB:
        return index, index + 1
    shift, sub = divmod(index - _SUB, _SUB)
    low = (_SUB + sub) << shift
    return low, low + (1 << shift)


class LatencyHistogram:
    """Counts of latencies (ms) in :data:`_BUCKETS` fixed buckets (an ``array`` of 64-bit counts, about 43 KB),
    whatever the number of values recorded. Not thread-safe: the caller holds its lock."""

    __slots__ = ("_counts", "count", "max", "min", "total")

    def __init__(self) -> None:
        self._counts = array("q", _ZEROS)
        self.count = 0
        self.total = 0.0
        self.min = math.inf
        self.max = 0.0

    def record(self, ms: float, n: int = 1) -> None:
        """``n`` values of ``ms`` milliseconds (a negative or NaN value is refused)."""
        if not ms >= 0:
            raise ValueError(f"a latency is a non-negative number of ms, not {ms!r}")
        ns = min(int(ms * _NS_PER_MS + 0.5), _TOP)
        self._counts[_index(ns)] += n
        self.count += n
        self.total += ms * n
        if ms < self.min:
            self.min = ms
        if ms > self.max:
            self.max = ms

    def reset(self) -> None:
        """Forget every value (the buckets stay: nothing is allocated)."""
        self._counts[:] = _ZEROS
        self.count = 0
        self.total = 0.0
        self.min = math.inf
        self.max = 0.0

    def merge(self, other: LatencyHistogram) -> None:
        """Add ``other``'s values to this one."""
        counts = self._counts
        for i, c in enumerate(other._counts):
            if c:
                counts[i] += c
        self.count += other.count
        self.total += other.total
        self.min = min(self.min, other.min)
        self.max = max(self.max, other.max)

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    def percentile(self, q: float) -> float:
        """The value (ms) at quantile ``q`` in ``[0, 1]``, nearest rank: the value of the ``ceil(q * count)``-th
        smallest recorded value's bucket (its midpoint, kept within the exact minimum and maximum); 0 when
        nothing was recorded."""
        if not 0 <= q <= 1:
            raise ValueError(f"a quantile is in [0, 1], not {q!r}")
        if not self.count:
            return 0.0
        rank = max(1, math.ceil(q * self.count))
        if rank >= self.count:
            return self.max
        seen = 0
        for i, c in enumerate(self._counts):
            if c:
                seen += c
                if seen >= rank:
                    low, high = _bounds(i)
                    mid = (low + high - 1) / 2 / _NS_PER_MS
                    return min(max(mid, self.min), self.max)
        return self.max  # not reached: the counts add up to count

    @property
    def size_bytes(self) -> int:
        """The bytes the buckets take: the same for every number of values."""
        return self._counts.itemsize * len(self._counts)
