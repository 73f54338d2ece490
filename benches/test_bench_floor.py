"""The floor: the cheapest call into each backend, ``java_int_hash(1)`` (Integer.hashCode, the value
itself), timed by the same harness as every per-call benchmark. Every per-call native operation costs this
much at least; the issue's targets compare the fault-tolerant ``select_one_message_queue`` with it.

Calls this short need many iterations per timed round, or the timer's own cost (about 100 ns for a pair of
``perf_counter`` reads) swamps the call: the marker asks for a warm-up and rounds of at least 50 us, so
pytest-benchmark calibrates about a thousand calls per round instead of sometimes settling on one."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

PER_CALL = {"warmup": True, "min_time": 0.00005}
"""pytest-benchmark marker options for calls of well under a microsecond (see the module docstring)."""


@pytest.mark.benchmark(group="floor: java_int_hash(1)", **PER_CALL)
def test_floor_java_int_hash(benchmark: Any, lib: ModuleType) -> None:
    assert benchmark(lib.java_int_hash, 1) == 1
