"""The ``MessageQueueSelector`` protocol shared by both backends, and custom selectors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

if TYPE_CHECKING:  # for the annotations only: importing this module imports no client
    from . import MessageQueue
    from .client.message import Message

__all__ = ["MessageQueueSelector", "SelectorFunction", "as_selector"]


@runtime_checkable
class MessageQueueSelector(Protocol):
    """Anything with ``select(mqs, msg, arg)`` returning one of ``mqs`` (or ``None``), like Java's
    ``MessageQueueSelector``. The built-in selectors of both backends implement it."""

    def select(self, mqs: Sequence[Any], msg: Any, arg: Any) -> Any: ...


SelectorFunction: TypeAlias = "Callable[[Sequence[MessageQueue], Message, Any], MessageQueue | None]"
"""The other form of a producer's ``send(msg, selector, arg)`` selector, beside a :class:`MessageQueueSelector`: a
callable ``(mqs, msg, arg) -> mq`` (so a ``lambda`` gets ``mqs`` as a sequence of :class:`rocketroute.MessageQueue`
and ``msg`` as the :class:`rocketroute.Message` sent)."""


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
