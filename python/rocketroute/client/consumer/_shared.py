"""What the consumer's modules share: its logger, its sentinels and small helpers."""

from __future__ import annotations

import time
from typing import Any

from ...loggers import get_logger

log = get_logger("consumer")


_RAISED = object()  # what _call_listener returns when the listener raised


def _name_of(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else name


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
