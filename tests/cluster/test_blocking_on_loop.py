"""A blocking call on the producer's own event-loop thread raises at once, on Apache RocketMQ 5.5.0, both backends
(issue 52, item 4). Before: ``p.send()`` in a ``submit()`` future's callback (which runs on that thread) blocked
9.0 s with ``send_msg_timeout=1000`` and then raised ``SendFailedError``, while another thread's ``submit()`` took
8.8 s meanwhile."""

from __future__ import annotations

import time

import pytest

from rocketroute.client import Message, Producer

from .loop_thread import callback_on_loop_thread


@pytest.mark.servers("apache-5.5.0")
def test_blocking_sends_in_a_callback_raise_at_once_and_the_loop_goes_on(cluster, fresh_topic, backend):
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    with Producer(cluster.namesrv_addrs, "pg-on-loop", backend=backend, send_msg_timeout=1000) as p:
        p.send(Message(topic, b"warm"))  # the route is known: the sync path would go straight to the request
        outcomes: list[tuple[str, BaseException | None, float]] = []

        def callback() -> None:
            for name, call in (
                ("send", lambda: p.send(Message(topic, b"in callback"))),
                ("send_oneway", lambda: p.send_oneway(Message(topic, b"in callback"))),
                ("send_batch", lambda: p.send_batch([Message(topic, b"in callback")])),
                ("refresh_routes", p.refresh_routes),
            ):
                begin = time.monotonic()
                try:
                    call()
                    error: BaseException | None = None
                except BaseException as e:
                    error = e
                outcomes.append((name, error, time.monotonic() - begin))

        done = callback_on_loop_thread(p, topic, callback)
        # another thread's send meanwhile is not held up by the callback
        begin = time.monotonic()
        p.submit(Message(topic, b"beside")).result(5)
        beside = time.monotonic() - begin
        assert done.wait(5)
    for name, error, took in outcomes:
        assert isinstance(error, RuntimeError), (name, error)
        assert "event-loop thread" in str(error) or "event loop" in str(error), (name, error)
        assert took < 0.5, (name, took)
    assert beside < 1.0
