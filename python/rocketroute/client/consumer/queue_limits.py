"""``QueueLimits``: how many messages and bytes each owned queue may hold pulled and not consumed yet (Java's flow
control: ``pull_threshold_for_queue`` / ``pull_threshold_size_for_queue``, or a topic's
``pull_threshold_for_topic`` / ``pull_threshold_size_for_topic`` shared among the queues of it this consumer owns).

The rebalancer shares a topic's limits at each of its rebalances; the puller reads them before each pull."""

from __future__ import annotations

from .settings import ConsumerSettings

__all__ = ["QueueLimits"]


class QueueLimits:
    """See the module."""

    __slots__ = ("_per_queue", "_topics", "settings")

    def __init__(self, settings: ConsumerSettings) -> None:
        self.settings = settings
        s = self.settings
        self._per_queue = (s.pull_threshold_for_queue, s.pull_threshold_size_for_queue * 1024 * 1024)
        self._topics: dict[str, tuple[int, int]] = {}

    def of(self, topic: str) -> tuple[int, int]:
        """(messages, bytes) a queue of ``topic`` may cache."""
        return self._topics.get(topic, self._per_queue)

    def share(self, topic: str, owned: int) -> None:
        """``RebalancePushImpl.messageQueueChanged``: with ``pull_threshold_for_topic`` (or ``_size_for_topic``)
        set, each owned queue of the topic may cache that divided by the number of owned queues (at least 1).
        Java sets the consumer-wide per-queue limit from the last topic rebalanced; here each topic keeps its own."""
        s = self.settings
        count, size = self._per_queue
        if owned > 0 and s.pull_threshold_for_topic != -1:
            count = max(1, s.pull_threshold_for_topic // owned)
        if owned > 0 and s.pull_threshold_size_for_topic != -1:
            size = max(1, s.pull_threshold_size_for_topic // owned) * 1024 * 1024
        self._topics[topic] = (count, size)
