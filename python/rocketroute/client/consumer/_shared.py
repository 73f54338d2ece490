"""What the consumer's modules share: its logger, its sentinels and small helpers."""

from __future__ import annotations

import time
from typing import Any

from ...loggers import get_logger
from .listener import (
    ConsumeConcurrentlyStatus,
    ConsumeOrderlyStatus,
)

log = get_logger("consumer")


_RAISED = object()  # what _call_listener returns when the listener raised
_DIRECT_RESULTS = {
    ConsumeConcurrentlyStatus.CONSUME_SUCCESS: "CR_SUCCESS",
    ConsumeConcurrentlyStatus.RECONSUME_LATER: "CR_LATER",
    ConsumeOrderlyStatus.SUCCESS: "CR_SUCCESS",
    ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT: "CR_LATER",
}
"""A listener's status -> ``CMResult`` of ``ConsumeMessageDirectlyResult``; anything else is ``CR_RETURN_NULL``."""


def _name_of(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None)
    return f"{module}.{name}" if module else name


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
