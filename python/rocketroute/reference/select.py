"""Message queue selectors for ordered sends: by hash, at random, by machine room."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import IllegalArgumentError, JavaArithmeticError
from .java import (
    INT_MAX,
    INT_MIN,
    JavaRandom,
    check_int,
    java_abs,
    java_int_hash,
    java_long_hash,
    java_rem,
    java_string_hash,
)
from .message_queue import MessageQueue

__all__ = [
    "SelectMessageQueueByHash",
    "SelectMessageQueueByRandom",
    "SelectMessageQueueByMachineRoom",
    "KEY_TYPES",
]

KEY_TYPES = ("string", "int", "long")


def _check_key_type(key_type: str | None) -> str | None:
    if key_type is not None and key_type not in KEY_TYPES:
        raise IllegalArgumentError(f"key_type must be one of {KEY_TYPES} or None, not {key_type!r}")
    return key_type


def arg_hash_code(arg: Any, key_type: str | None) -> int:
    """``arg.hashCode()`` of the boxed Java value ``arg`` stands for.

    A ``str`` hashes as ``java.lang.String`` (unless ``key_type`` says otherwise); an ``int`` needs a
    ``key_type`` ("int" = ``Integer``, "long" = ``Long``) since Python cannot tell which box Java used;
    an object with ``java_hash_code()`` (e.g. a MessageQueue) uses it."""
    if isinstance(arg, str):
        if key_type not in (None, "string"):
            raise TypeError(f"key_type {key_type!r} needs an int key, got a str")
        return java_string_hash(arg)
    if isinstance(arg, int) and not isinstance(arg, bool):
        if key_type == "int":
            return java_int_hash(arg)
        if key_type == "long":
            return java_long_hash(arg)
        raise TypeError('an int key needs key_type="int" or key_type="long" (Java Integer or Long)')
    if arg is None:
        from ..errors import NullPointerError

        raise NullPointerError("the key (arg) is None")
    hc = getattr(arg, "java_hash_code", None)
    if hc is not None and key_type is None:
        return _checked_hash_code(hc())
    raise TypeError(f"cannot hash a {type(arg).__name__} as Java does; pass a str, or an int with key_type")


def _checked_hash_code(h: object) -> int:
    """What ``java_hash_code()`` returned, as the Java int ``hashCode()`` is."""
    if isinstance(h, bool) or not isinstance(h, int):
        raise TypeError(f"java_hash_code() must return an int, not {type(h).__name__}")
    if not INT_MIN <= h <= INT_MAX:
        raise IllegalArgumentError(f"java_hash_code() returned {int(h)}, out of the Java int range")
    return int(h)


def _queues(mqs: Sequence[MessageQueue]) -> Sequence[MessageQueue]:
    if mqs is None:
        from ..errors import NullPointerError

        raise NullPointerError("mqs is None")
    return mqs


class SelectMessageQueueByHash:
    """``SelectMessageQueueByHash``: ``mqs[|arg.hashCode() % len(mqs)|]`` (Java remainder, then abs)."""

    __slots__ = ("_key_type",)

    def __init__(self, key_type: str | None = None) -> None:
        self._key_type = _check_key_type(key_type)

    @property
    def key_type(self) -> str | None:
        return self._key_type

    def select_index(self, arg: Any, num_queues: int) -> int:
        """The index ``select`` picks among ``num_queues`` queues."""
        h = arg_hash_code(arg, self._key_type)
        num_queues = check_int("num_queues", num_queues)  # a Java int, as the native backend takes it
        if num_queues == 0:
            raise JavaArithmeticError("/ by zero")
        if num_queues < 0:
            raise IllegalArgumentError("num_queues must not be negative")
        return java_abs(java_rem(h, num_queues))

    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        mqs = _queues(mqs)
        return mqs[self.select_index(arg, len(mqs))]

    __call__ = select

    def __repr__(self) -> str:
        return f"SelectMessageQueueByHash(key_type={self._key_type!r})"


class SelectMessageQueueByRandom:
    """``SelectMessageQueueByRandom``: ``mqs[random.nextInt(len(mqs))]``. Java seeds it with the current
    time; pass ``seed`` (or a :class:`JavaRandom`) to reproduce Java's picks for a known seed."""

    __slots__ = ("_random",)

    def __init__(self, seed: int | JavaRandom | None = None) -> None:
        self._random = seed if isinstance(seed, JavaRandom) else JavaRandom(seed)

    def select_index(self, num_queues: int) -> int:
        num_queues = check_int("num_queues", num_queues)
        return self._random.next_int(num_queues)

    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> MessageQueue:
        mqs = _queues(mqs)
        return mqs[self._random.next_int(len(mqs))]

    __call__ = select

    def __repr__(self) -> str:
        return "SelectMessageQueueByRandom()"


class SelectMessageQueueByMachineRoom:
    """``SelectMessageQueueByMachineRoom`` as Java ships it: ``select`` always returns ``None`` (the
    class is an unfinished stub upstream). Kept for parity; do not use it to route."""

    __slots__ = ("_consumer_idcs",)

    def __init__(self, consumer_idcs: Iterable[str] | None = None) -> None:
        self._consumer_idcs = None if consumer_idcs is None else frozenset(consumer_idcs)

    @property
    def consumer_idcs(self) -> frozenset[str] | None:
        return self._consumer_idcs

    def select(self, mqs: Sequence[MessageQueue], msg: Any, arg: Any) -> None:
        return None

    __call__ = select

    def __repr__(self) -> str:
        return f"SelectMessageQueueByMachineRoom(consumer_idcs={self._consumer_idcs!r})"
