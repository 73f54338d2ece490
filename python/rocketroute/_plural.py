"""Counts in the text the command line prints: ``1 queue``, ``2 queues``, ``1 strategy``, ``3 strategies``."""

from __future__ import annotations

__all__ = ["counted", "noun"]


def noun(n: int, one: str, many: str | None = None) -> str:
    """``one`` when ``n`` is 1, else ``many`` (``one`` + ``s`` unless given): ``noun(2, "strategy", "strategies")``."""
    if n == 1:
        return one
    return many if many is not None else one + "s"


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` (with thousands separators) and the :func:`noun` that agrees with it: ``counted(1, "queue")`` is
    ``1 queue``, ``counted(1200, "queue")`` is ``1,200 queues``."""
    return f"{n:,} {noun(n, one, many)}"
