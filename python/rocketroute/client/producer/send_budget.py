"""A send's budget as Java counts it: ``send_msg_timeout`` from the start of the send, its route lookup included
(``sendDefaultImpl`` and ``sendSelectImpl`` take their start before ``tryToFindTopicPublishInfo``), and checked
again before each request is written (``sendKernelImpl``)."""

from __future__ import annotations

import time

from ...protocol.errors import RemotingTooMuchRequestError

__all__ = ["kernel_budget", "loop_budget"]


def loop_budget(timeout_ms: int, begin: float) -> int:
    """The budget of a send's loop of attempts (or of its selector), once its route is found: Java's
    ``sendDefaultImpl`` and ``sendSelectImpl`` take their start before the route lookup, so the time it took is
    spent (a lookup that took most of ``send_msg_timeout`` leaves no time to retry on another broker)."""
    return max(timeout_ms - int((time.monotonic() - begin) * 1000), 0)


def kernel_budget(timeout_ms: int, begin: float) -> int:
    """What is left of a send's budget (``timeout_ms`` from ``begin``, its route lookup included) for its next
    request, checked before the request is built, as Java's ``sendKernelImpl`` does: none left (the lookup, a
    selector, earlier attempts or a busy loop spent it) raises ``RemotingTooMuchRequestError("sendKernelImpl call
    timeout")`` and nothing is written, where a request with no time to wait for its answer could be stored by the
    broker and still reported failed."""
    left = timeout_ms - int((time.monotonic() - begin) * 1000)
    if left < 0:
        raise RemotingTooMuchRequestError("sendKernelImpl call timeout")
    return max(left, 1)  # Java sends with the 0 ms left; the wait needs a deadline after now
