"""The threaded ``rocketroute.Producer``'s async sends awaited from another event loop (an asyncio service sharing a
threaded producer): written, answered and timed out on connections of that loop's own
(``rocketroute.net.caller_loops``), with no hop to the producer's thread; the route is still looked up on the
producer's loop. Against the instant peer."""

from __future__ import annotations

import asyncio

import pytest

from rocketroute.client import Message, SendStatus
from rocketroute.client.producer import Producer
from rocketroute.errors import SendFailedError
from rocketroute.protocol import RemotingTimeoutError

from .._instant_peer import instant_peer
from .._loop_thread import loop_in_thread, until_closed


def test_send_async_from_another_loop_is_sent_on_that_loop_s_own_connection(backend) -> None:
    with instant_peer("--queues", "2") as addr, Producer(addr, "pg-loops", backend=backend) as producer:
        remoting, _ = producer._life.running()
        on_its_loop = remoting.async_client._seq

        async def main() -> tuple[list[SendStatus], int, bool]:
            # the first send of the topic looks its route up (on the producer's loop), the others find it
            results = await asyncio.gather(*(producer.send_async(Message("T", b"x")) for _ in range(50)))
            batch = await producer.send_batch_async([Message("T", b"1"), Message("T", b"2")])
            keyed = await producer.send_async(Message("T", b"k"), backend.SelectMessageQueueByHash(), "order-1")
            here = remoting.caller_loops.here()
            statuses = [r.send_status for r in (*results, batch, keyed)]
            return statuses, here._seq, here.connected(addr)

        statuses, sent_here, connected = asyncio.run(main())
        assert set(statuses) == {SendStatus.SEND_OK} and connected
        assert sent_here == 52  # every send was put in flight on the caller's loop
        assert remoting.async_client._seq - on_its_loop < 10  # the producer's loop: route lookups (a heartbeat)
        assert remoting.caller_loops.clients() == {}  # closed with the loop that asyncio.run ended
        assert producer.send(Message("T", b"sync")).send_status is SendStatus.SEND_OK


def test_a_timeout_on_another_loop_fails_as_on_the_producer_s_loop() -> None:
    with instant_peer("--queues", "1", "--delay-us", "300000") as addr, Producer(addr, "pg-loops-slow") as producer:
        producer.send(Message("T", b"route"), timeout_ms=5000)  # the route is known: only the send times out
        with pytest.raises(SendFailedError) as through_its_loop:
            producer.submit(Message("T", b"x"), timeout_ms=100).result(10)

        async def main() -> BaseException:
            with pytest.raises(SendFailedError) as info:
                await producer.send_async(Message("T", b"x"), timeout_ms=100)
            return info.value

        on_another_loop = asyncio.run(main())
        assert str(on_another_loop) == str(through_its_loop.value) == "sendDefaultImpl call timeout"
        assert type(on_another_loop.__cause__) is type(through_its_loop.value.__cause__) is RemotingTimeoutError


def test_shutdown_closes_another_running_loop_s_connections_and_later_sends_raise() -> None:
    with loop_in_thread() as loop, instant_peer() as addr:
        producer = Producer(addr, "pg-loops-stop")
        producer.start()
        remoting, _ = producer._life.running()

        async def send() -> SendStatus:
            return (await producer.send_async(Message("T", b"x"))).send_status

        assert asyncio.run_coroutine_threadsafe(send(), loop).result(10) is SendStatus.SEND_OK
        [here] = remoting.caller_loops.clients().values()
        assert here.connected(addr)
        producer.shutdown()  # from this thread, while that loop runs

        async def after() -> bool:
            closed = await until_closed(here, addr)
            with pytest.raises(RuntimeError, match="shut down"):
                await producer.send_async(Message("T", b"y"))
            return closed

        assert asyncio.run_coroutine_threadsafe(after(), loop).result(10)


def test_a_cancelled_send_on_another_loop_leaves_nothing_waiting() -> None:
    with instant_peer("--queues", "1", "--delay-us", "200000") as addr, Producer(addr, "pg-loops-cancel") as producer:
        producer.send(Message("T", b"route"), timeout_ms=5000)
        remoting, _ = producer._life.running()

        async def main() -> int:
            send = asyncio.ensure_future(producer.send_async(Message("T", b"x")))
            await asyncio.sleep(0.05)  # written, not yet answered
            here = remoting.caller_loops.here()
            assert sum(len(c.pending) for c in here._conns.values()) == 1
            send.cancel()
            with pytest.raises(asyncio.CancelledError):
                await send
            left = sum(len(c.pending) for c in here._conns.values())
            later = await producer.send_async(Message("T", b"y"))  # the connection still serves
            assert later.send_status is SendStatus.SEND_OK
            return left

        assert asyncio.run(main()) == 0
