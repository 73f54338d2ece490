"""``SendsInFlight``: a thread in ``wait`` returns once the last accepted send settles (the condition is notified
only while a thread waits on it), and no send is accepted after ``close``."""

from __future__ import annotations

import threading
import time

from rocketroute.client.producer.inflight import SendsInFlight


def test_a_waiting_thread_returns_when_the_last_send_settles():
    sends = SendsInFlight()
    sends.open()
    assert sends.begin() and sends.begin()
    left: list[int] = []
    waiter = threading.Thread(target=lambda: left.append(sends.wait(10)))
    waiter.start()
    time.sleep(0.05)
    sends.end()
    time.sleep(0.05)
    assert waiter.is_alive(), "one send is still under way"
    begun = time.monotonic()
    sends.end()
    waiter.join(5)
    assert not waiter.is_alive() and left == [0]
    assert time.monotonic() - begun < 2, "woken by the last end, not by its own bound"


def test_ends_with_nobody_waiting_then_a_wait_returns_at_once():
    sends = SendsInFlight()
    sends.open()
    for _ in range(3):
        assert sends.begin()
        sends.end()
    assert sends.wait(0) == 0
    assert sends.begin()
    assert sends.wait(0.05) == 1, "bounded: the number still under way"


def test_nothing_is_accepted_after_close():
    sends = SendsInFlight()
    sends.open()
    sends.close()
    assert not sends.begin()
    assert sends.count == 0
