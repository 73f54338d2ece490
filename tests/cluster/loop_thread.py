"""Run a callback on a producer's event-loop thread, as a ``submit()`` future's callback.

A send can be done before ``add_done_callback`` is called, and then the future runs the callback at once on the
calling thread, which is not the case these tests are about; this submits again until one is left to the loop."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rocketroute.client import Message, Producer


def callback_on_loop_thread(p: Producer, topic: str, callback: Callable[[], None], tries: int = 50) -> threading.Event:
    """Submit a message to ``topic`` with ``callback()`` in its future's done-callback until one future is still
    under way when the callback is added, so that the loop's thread runs it; returns the event set once it ran."""
    ran = threading.Event()
    caller = threading.current_thread()
    inline: list[bool] = []

    def on_done(_: Any) -> None:
        if threading.current_thread() is caller:
            inline.append(True)
            return
        try:
            callback()
        finally:
            ran.set()

    for _ in range(tries):
        inline.clear()
        p.submit(Message(topic, b"callback")).add_done_callback(on_done)
        if not inline:
            return ran
    raise AssertionError(f"each of {tries} sends was done before its callback could be added")
