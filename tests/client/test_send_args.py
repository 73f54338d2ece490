"""A send's ``selector`` and ``arg`` (rocketroute.client.producer.send_args): Java's overloads written out in Python
(``send(msg, 3000)`` for ``send(msg, timeout)``, ``send(msg, None, key)``) are a ``TypeError`` naming the right
call, raised before anything is accepted or sent, by every send method of both producers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import rocketroute as rr

from .._instant_peer import instant_peer

# (what the user wrote after msg, what the error must say); {call} is the method's name
MISTAKES = [
    ((None, "order-42"), r"{call}\(msg, None, 'order-42'\): arg is read only by a selector, and none was given; "
     r"a keyed send \(Java's send\(msg, selector, arg\)\) is {call}\(msg, rr\.SelectMessageQueueByHash\(\), "
     r"'order-42'\)"),
    ((3000,), r"{call}\(msg, 3000\): the second argument is a selector, not a timeout; Java's send\(msg, timeout\) "
     r"is {call}\(msg, timeout_ms=3000\)"),
    ((3000, None), r"not a timeout; Java's send\(msg, timeout\) is {call}\(msg, timeout_ms=3000\)"),
    (("not a selector", "k"), r"selector must be a MessageQueueSelector \(an object with select\(mqs, msg, arg\), "
     r"such as rr\.SelectMessageQueueByHash\(\)\) or a callable \(mqs, msg, arg\) -> queue, not str"),
    ((rr.MessageQueue("T", "broker-a", 0),), r"not MessageQueue; to send to one queue \(Java's send\(msg, mq\)\), "
     r"give a selector that returns it"),
]  # fmt: skip
ONEWAY_TIMEOUT = r"send_oneway\(msg, 3000\): the second argument is a selector, not a timeout; send_oneway takes no "
ONEWAY_TIMEOUT += r"timeout \(as Java's sendOneway\): send_oneway\(msg\)"


def _expected(call: str, says: str) -> str:
    if call == "send_oneway" and "timeout_ms=3000" in says:
        return ONEWAY_TIMEOUT
    return says.replace("{call}", call)


def _first_offset_after(send: Callable[[rr.Message], Any]) -> int:
    """The queue offset a good keyed send then gets: 0 on a fresh one-queue peer when nothing was stored before."""
    return int(send(rr.Message("T", b"good")).queue_offset)


def test_the_threaded_producer_refuses_java_s_overloads_before_sending(backend: Any) -> None:
    with instant_peer("--queues", "1") as addr:
        producer = rr.Producer(addr, "pg-args", backend=backend).start()
        try:
            calls: dict[str, Callable[..., Any]] = {
                "send": producer.send,
                "send_oneway": producer.send_oneway,
                "submit": producer.submit,
                "send_async": lambda *a: asyncio.run(producer.send_async(*a)),
            }
            for call, method in calls.items():
                for args, says in MISTAKES:
                    with pytest.raises(TypeError, match=_expected(call, says)):
                        method(rr.Message("T", b"refused"), *args)
            assert producer.flush(timeout_ms=1000) == 0  # none of them was accepted
            assert _first_offset_after(producer.send) == 0  # nor sent
            keyed = producer.send(rr.Message("T", b"keyed"), backend.SelectMessageQueueByHash(), "order-42")
            by_callable = producer.send(rr.Message("T", b"picked"), lambda mqs, msg, arg: mqs[0])
            assert (keyed.queue_offset, by_callable.queue_offset) == (1, 2)
            assert producer.send(rr.Message("T", b"timed"), timeout_ms=3000).queue_offset == 3
        finally:
            producer.shutdown()


def test_the_asyncio_producer_refuses_java_s_overloads_before_sending(backend: Any) -> None:
    async def main(addr: str) -> None:
        async with rr.aio.Producer(addr, "pg-args-aio", backend=backend) as producer:
            calls = {"send": producer.send, "send_oneway": producer.send_oneway, "enqueue": producer.enqueue}
            for call, method in calls.items():
                for args, says in MISTAKES:
                    with pytest.raises(TypeError, match=_expected(call, says)):
                        await method(rr.Message("T", b"refused"), *args)
            assert await producer.flush(timeout_ms=1000) == 0
            assert (await producer.send(rr.Message("T", b"good"))).queue_offset == 0
            keyed = await producer.send(rr.Message("T", b"keyed"), backend.SelectMessageQueueByHash(), "order-42")
            assert keyed.queue_offset == 1

    with instant_peer("--queues", "1") as addr:
        asyncio.run(main(addr))
