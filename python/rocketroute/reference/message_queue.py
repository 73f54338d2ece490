"""``MessageQueue``: immutable, with Java's toString, hashCode and (overflowing) compareTo."""

from __future__ import annotations

import functools
from typing import Any

from ..errors import NullPointerError
from .java import check_int, check_opt_name, java_string_compare, java_string_hash, wrap_int

__all__ = ["MessageQueue"]


@functools.lru_cache(maxsize=4096)
def _name_hash(name: str) -> int:
    """``String.hashCode`` of a topic or broker name, computed once per name as Java caches it in the
    String: a long broker name over thousands of queues is hashed once, not once per queue."""
    return java_string_hash(name)


class MessageQueue:
    """A queue of a topic on a broker. ``topic`` and ``broker_name`` may be ``None`` (Java allows null);
    ordering such a queue raises :class:`NullPointerError`, as ``compareTo`` would."""

    __slots__ = ("_broker_name", "_hash", "_queue_id", "_topic")

    def __init__(self, topic: str | None, broker_name: str | None, queue_id: int) -> None:
        topic = check_opt_name("topic", topic)
        broker_name = check_opt_name("broker_name", broker_name)
        queue_id = check_int("queue_id", queue_id)
        object.__setattr__(self, "_topic", topic)
        object.__setattr__(self, "_broker_name", broker_name)
        object.__setattr__(self, "_queue_id", queue_id)
        h = 1
        h = 31 * h + (0 if broker_name is None else _name_hash(broker_name))
        h = 31 * h + queue_id
        h = 31 * h + (0 if topic is None else _name_hash(topic))
        object.__setattr__(self, "_hash", wrap_int(h))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("MessageQueue is immutable")

    @property
    def topic(self) -> str | None:
        return self._topic

    @property
    def broker_name(self) -> str | None:
        return self._broker_name

    @property
    def queue_id(self) -> int:
        return self._queue_id

    def java_hash_code(self) -> int:
        """Java's ``hashCode()``."""
        return self._hash

    def compare_to(self, other: MessageQueue) -> int:
        """Java's ``compareTo``: topic, then broker name (UTF-16 order), then ``queueId - o.queueId``
        with int overflow (so the order is not transitive for extreme ids, exactly as in Java)."""
        if not isinstance(other, MessageQueue):
            raise TypeError(f"cannot compare MessageQueue with {type(other).__name__}")
        if self._topic is None or other._topic is None:
            raise NullPointerError("cannot compare a MessageQueue whose topic is None")
        r = java_string_compare(self._topic, other._topic)
        if r:
            return r
        if self._broker_name is None or other._broker_name is None:
            raise NullPointerError("cannot compare a MessageQueue whose broker_name is None")
        r = java_string_compare(self._broker_name, other._broker_name)
        if r:
            return r
        return wrap_int(self._queue_id - other._queue_id)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MessageQueue):
            return NotImplemented
        return (
            self._queue_id == other._queue_id
            and self._topic == other._topic
            and self._broker_name == other._broker_name
        )

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __lt__(self, other: MessageQueue) -> bool:
        return self.compare_to(other) < 0

    def __le__(self, other: MessageQueue) -> bool:
        return self.compare_to(other) <= 0

    def __gt__(self, other: MessageQueue) -> bool:
        return self.compare_to(other) > 0

    def __ge__(self, other: MessageQueue) -> bool:
        return self.compare_to(other) >= 0

    def __str__(self) -> str:
        topic = "null" if self._topic is None else self._topic
        broker = "null" if self._broker_name is None else self._broker_name
        return f"MessageQueue [topic={topic}, brokerName={broker}, queueId={self._queue_id}]"

    def __repr__(self) -> str:
        return f"MessageQueue({self._topic!r}, {self._broker_name!r}, {self._queue_id})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (MessageQueue, (self._topic, self._broker_name, self._queue_id))

    def to_list(self) -> list[Any]:
        """``[topic, broker_name, queue_id]``, the vectors' encoding."""
        return [self._topic, self._broker_name, self._queue_id]
