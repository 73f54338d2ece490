"""The ``MessageQueueSelector`` protocol shared by both backends, and custom selectors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["MessageQueueSelector", "as_selector"]


@runtime_checkable
class MessageQueueSelector(Protocol):
    """Anything with ``select(mqs, msg, arg)`` returning one of ``mqs`` (or ``None``), like Java's
    ``MessageQueueSelector``. The built-in selectors of both backends implement it."""

    def select(self, mqs: Sequence[Any], msg: Any, arg: Any) -> Any: ...


class _CallableSelector:
    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[Sequence[Any], Any, Any], Any]) -> None:
        self._fn = fn

    def select(self, mqs: Sequence[Any], msg: Any, arg: Any) -> Any:
        return self._fn(mqs, msg, arg)

    def __repr__(self) -> str:
        return f"as_selector({self._fn!r})"


def as_selector(obj: MessageQueueSelector | Callable[[Sequence[Any], Any, Any], Any]) -> MessageQueueSelector:
    """A selector from an object with ``select`` or from a plain callable ``(mqs, msg, arg) -> mq``."""
    if hasattr(obj, "select"):
        return obj  # type: ignore[return-value]
    if callable(obj):
        return _CallableSelector(obj)
    raise TypeError("a selector must have a select(mqs, msg, arg) method or be callable")
