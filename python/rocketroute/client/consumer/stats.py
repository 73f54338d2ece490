"""The consumer's counters."""

from __future__ import annotations

import threading

__all__ = ["ConsumerStats"]


class ConsumerStats:
    """Counters of one consumer (read them any time): messages pulled, consumed well, failed (sent back or to be
    consumed again), sent back, pulls, pull errors, messages set aside as undecodable, rebalances run and the time
    the last one changed something."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.pulled = 0
        self.consumed = 0
        self.failed = 0
        self.sent_back = 0
        self.pulls = 0
        self.pull_errors = 0
        self.undecodable = 0
        self.rebalances = 0
        self.last_change_ms: int | None = None

    def add(self, **counts: int) -> None:
        # one counter, the usual call, by operators only under the lock (see add_result)
        if len(counts) == 1:
            [(name, n)] = counts.items()
            values = self.__dict__
            with self._lock:
                values[name] += n
            return
        with self._lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)

    def add_result(self, consumed: int, failed: int) -> None:
        """A listener call's result: ``add(consumed=..., failed=...)`` without building keywords (once per call).
        The lock is held over operators only, no call: a thread switched out while holding it (the interpreter
        switches threads at calls and loops) would have the consume pool's threads queue on it."""
        with self._lock:
            self.consumed += consumed
            self.failed += failed

    def as_dict(self) -> dict[str, int | None]:
        with self._lock:
            return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def __repr__(self) -> str:
        return f"ConsumerStats({self.as_dict()})"
