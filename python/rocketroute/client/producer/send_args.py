"""The checks of a send's ``selector`` and ``arg``, made before the message is encoded or accepted.

Java's ``DefaultMQProducer`` overloads ``send``: ``send(msg, timeout)``, ``send(msg, mq)``, ``send(msg, selector,
arg)``, ``send(msg, callback)``. The Python producers have one ``send(msg, selector=None, arg=None, *,
timeout_ms=None)`` (and ``send_async``, ``submit``, ``send_oneway``, ``rr.aio``'s ``enqueue`` alike), so a Java
call written out in Python lands on the wrong parameter. These checks turn each such call into a ``TypeError``
that names the right one, instead of a send that ignores its ``arg`` or a selector error deep in the send.
"""

from __future__ import annotations

from numbers import Real

__all__ = ["check_selector"]


def check_selector(call: str, selector: object, arg: object, *, timeout: bool = True) -> None:
    """Refuse, with a ``TypeError`` naming the right call, a ``selector`` that is not one and an ``arg`` that no
    selector would read. ``call``: the method's name as the user wrote it (``"send"``, ``"submit"``, ...);
    ``timeout``: whether it takes ``timeout_ms`` (``send_oneway`` does not, as Java's ``sendOneway``)."""
    if selector is None:
        if arg is not None:
            raise TypeError(
                f"{call}(msg, None, {arg!r}): arg is read only by a selector, and none was given; a keyed send "
                f"(Java's send(msg, selector, arg)) is {call}(msg, rr.SelectMessageQueueByHash(), {arg!r}); the "
                f"message's own keys are rr.Message(topic, body, keys=...)"
            )
        return
    if hasattr(selector, "select") or callable(selector):
        return
    if isinstance(selector, Real) and not isinstance(selector, bool):
        if timeout:
            right = f"Java's send(msg, timeout) is {call}(msg, timeout_ms={selector!r})"
        else:
            right = f"{call} takes no timeout (as Java's sendOneway): {call}(msg)"
        raise TypeError(f"{call}(msg, {selector!r}): the second argument is a selector, not a timeout; {right}")
    raise TypeError(
        f"{call}(msg, selector, arg): selector must be a MessageQueueSelector (an object with select(mqs, msg, arg), "
        f"such as rr.SelectMessageQueueByHash()) or a callable (mqs, msg, arg) -> queue, not "
        f"{type(selector).__name__}; to send to one queue (Java's send(msg, mq)), give a selector that returns it"
    )
