"""``MQFaultStrategy``: the producer's queue choice with latency fault tolerance, per compat profile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import IllegalArgumentError, IndexOutOfBoundsError, JavaArithmeticError, NullPointerError
from .clock import ManualClock, SystemClock
from .compat import parse_compat
from .fault import LatencyFaultTolerance
from .java import check_long, check_name, check_opt_name, java_abs, java_rem, wrap_int
from .message_queue import MessageQueue
from .publish_info import TopicPublishInfo

__all__ = ["MQFaultStrategy", "DEFAULT_TABLES"]

DEFAULT_TABLES: dict[str, dict[str, Any]] = {
    "5.3": {
        "latency_max": (50, 100, 550, 1800, 3000, 5000, 15000),
        "not_available_duration": (0, 0, 2000, 5000, 6000, 10000, 30000),
        "isolation_latency": 10000,
    },
    "4.9": {
        "latency_max": (50, 100, 550, 1000, 2000, 3000, 15000),
        "not_available_duration": (0, 0, 30000, 60000, 120000, 180000, 600000),
        "isolation_latency": 30000,
    },
}
"""Each profile's ``latencyMax`` / ``notAvailableDuration`` tables and the latency an isolation stands for."""


def _table(name: str, values: Sequence[int]) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of ints")
    return tuple(check_long(name, v) for v in values)


class MQFaultStrategy:
    """Chooses the queue of each send attempt, and keeps the broker fault table up to date.

    With ``send_latency_fault_enable`` off (the Java default), it is the round-robin that skips the broker
    of the previous failed attempt. With it on, brokers whose fault item is not yet available are avoided
    (5.3 also avoids unreachable ones); 4.9 falls back on ``pick_one_at_least``."""

    def __init__(
        self,
        compat: str = "5.3",
        send_latency_fault_enable: bool = False,
        *,
        start_detector_enable: bool = False,
        clock: ManualClock | SystemClock | None = None,
        resolver: Any = None,
        detector: Any = None,
        detect_interval: int = 2000,
        detect_timeout: int = 200,
        latency_max: Sequence[int] | None = None,
        not_available_duration: Sequence[int] | None = None,
        latency_fault_tolerance: LatencyFaultTolerance | None = None,
    ) -> None:
        self._compat = parse_compat(compat)
        defaults = DEFAULT_TABLES[self._compat]
        lm = _table("latency_max", defaults["latency_max"] if latency_max is None else latency_max)
        nad = _table(
            "not_available_duration",
            defaults["not_available_duration"] if not_available_duration is None else not_available_duration,
        )
        # one attribute for both tables, replaced whole by either setter (a reader never sees half a change)
        self._tables: tuple[tuple[int, ...] | None, tuple[int, ...] | None] = (lm, nad)
        if latency_fault_tolerance is None:
            latency_fault_tolerance = LatencyFaultTolerance(
                self._compat,
                clock=clock,
                resolver=resolver,
                detector=detector,
                detect_interval=detect_interval,
                detect_timeout=detect_timeout,
            )
        elif not isinstance(latency_fault_tolerance, LatencyFaultTolerance):
            raise TypeError("latency_fault_tolerance must be a LatencyFaultTolerance")
        elif latency_fault_tolerance.compat != self._compat:
            raise IllegalArgumentError("latency_fault_tolerance has another compat profile")
        self._lft = latency_fault_tolerance
        self.send_latency_fault_enable = bool(send_latency_fault_enable)
        self.start_detector_enable = bool(start_detector_enable)

    @property
    def compat(self) -> str:
        return self._compat

    @property
    def latency_fault_tolerance(self) -> LatencyFaultTolerance:
        return self._lft

    @property
    def latency_max(self) -> tuple[int, ...] | None:
        """``latencyMax`` (``None``: Java's null array)."""
        return self._tables[0]

    @latency_max.setter
    def latency_max(self, value: Sequence[int] | None) -> None:
        """``setLatencyMax``: the other table keeps its length; a latency that lands past the end of
        ``not_available_duration`` raises :class:`IndexOutOfBoundsError` when it is computed, as in Java."""
        table = None if value is None else _table("latency_max", value)
        self._tables = (table, self._tables[1])

    @property
    def not_available_duration(self) -> tuple[int, ...] | None:
        """``notAvailableDuration`` (``None``: Java's null array)."""
        return self._tables[1]

    @not_available_duration.setter
    def not_available_duration(self, value: Sequence[int] | None) -> None:
        """``setNotAvailableDuration``."""
        table = None if value is None else _table("not_available_duration", value)
        self._tables = (self._tables[0], table)

    @property
    def isolation_latency(self) -> int:
        """The latency an isolated send counts as: 10000 ms on 5.3, 30000 ms on 4.9."""
        return int(DEFAULT_TABLES[self._compat]["isolation_latency"])

    @property
    def start_detector_enable(self) -> bool:
        return self._lft.start_detector_enable

    @start_detector_enable.setter
    def start_detector_enable(self, value: bool) -> None:
        self._lft.start_detector_enable = bool(value)

    def compute_not_available_duration(self, current_latency: int) -> int:
        """``notAvailableDuration[i]`` for the highest ``i`` with ``current_latency >= latencyMax[i]``, else 0."""
        current_latency = check_long("current_latency", current_latency)
        lm, nad = self._tables
        if lm is None:
            raise NullPointerError("latency_max is None")
        for i in range(len(lm) - 1, -1, -1):
            if current_latency >= lm[i]:
                if nad is None:
                    raise NullPointerError("not_available_duration is None")
                if i >= len(nad):
                    raise IndexOutOfBoundsError(f"Index {i} out of bounds for length {len(nad)}")
                return nad[i]
        return 0

    def update_fault_item(
        self, broker_name: str, current_latency: int, isolation: bool, reachable: bool = True
    ) -> None:
        """Record a send's latency (or an isolation) for ``broker_name``; a no-op while fault tolerance is
        off. ``reachable`` is 5.3's flag (4.9 ignores it)."""
        broker_name = check_name("broker_name", broker_name)
        current_latency = check_long("current_latency", current_latency)
        if not self.send_latency_fault_enable:
            return
        duration = self.compute_not_available_duration(self.isolation_latency if isolation else current_latency)
        self._lft.update_fault_item(broker_name, current_latency, duration, reachable)

    def select_one_message_queue(
        self, tp_info: TopicPublishInfo, last_broker_name: str | None = None, reset_index: bool = False
    ) -> MessageQueue:
        """The queue for the next send attempt. ``last_broker_name`` is the broker of the previous failed
        attempt; ``reset_index`` (5.3) re-draws the round-robin start first, as a 5.3 retry does."""
        if not isinstance(tp_info, TopicPublishInfo):
            raise TypeError(f"tp_info must be a TopicPublishInfo, not {type(tp_info).__name__}")
        last_broker_name = check_opt_name("last_broker_name", last_broker_name)
        if self._compat == "4.9":
            return self._select_49(tp_info, last_broker_name)
        return self._select_53(tp_info, last_broker_name, bool(reset_index))

    def _select_53(self, tp: TopicPublishInfo, last: str | None, reset_index: bool) -> MessageQueue:
        def other_broker(mq: MessageQueue) -> bool:
            return last is None or mq.broker_name != last

        if self.send_latency_fault_enable:
            if reset_index:
                tp.reset_index()
            lft = self._lft
            mq = tp.select_one_message_queue_filtered(lambda q: lft.is_available(q.broker_name), other_broker)
            if mq is not None:
                return mq
            mq = tp.select_one_message_queue_filtered(lambda q: lft.is_reachable(q.broker_name), other_broker)
            if mq is not None:
                return mq
            return tp.select_one_message_queue()
        mq = tp.select_one_message_queue_filtered(other_broker)
        if mq is not None:
            return mq
        return tp.select_one_message_queue()

    def _select_49(self, tp: TopicPublishInfo, last: str | None) -> MessageQueue:
        if not self.send_latency_fault_enable:
            return tp.select_one_message_queue(last)
        index = tp.send_which_queue
        queues = tp.message_queues
        n = len(queues)
        # Java wraps this whole block in try/catch(Exception) and falls back on a plain pick.
        try:
            i = index.increment_and_get()
            for _ in range(n):
                pos = java_rem(java_abs(i), n)
                i = wrap_int(i + 1)
                if pos < 0:
                    pos = 0
                mq = queues[pos]
                if self._lft.is_available(mq.broker_name):  # type: ignore[arg-type]
                    return mq
            not_best = self._lft.pick_one_at_least()
            write_queue_nums = tp.write_queue_nums_by_broker(not_best) if tp.route is not None else None
            if write_queue_nums is None:
                raise NullPointerError("no route")
            if write_queue_nums > 0:
                mq = tp.select_one_message_queue()
                if not_best is not None:
                    qid = java_rem(index.increment_and_get(), write_queue_nums)
                    return MessageQueue(mq.topic, not_best, qid)
                return mq
            if not_best is None:
                raise NullPointerError("ConcurrentHashMap.remove(null)")
            self._lft.remove(not_best)
        except (JavaArithmeticError, NullPointerError):
            pass
        return tp.select_one_message_queue()

    def __repr__(self) -> str:
        return f"MQFaultStrategy(compat={self._compat!r}, send_latency_fault_enable={self.send_latency_fault_enable})"
