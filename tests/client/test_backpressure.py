"""The async sends' back-pressure (``enable_backpressure_for_async_mode``): the window alone, then the producer
against the instant peer made slow (``--delay-us``), so that sends really queue behind the limit."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from rocketroute.client import Message, SendStatus
from rocketroute.client.producer import Producer, ProducerSettings
from rocketroute.client.producer.backpressure import SendWindow
from rocketroute.errors import IllegalArgumentError, UnsupportedSettingError
from rocketroute.protocol import RemotingTooMuchRequestError

from .._instant_peer import instant_peer

# -- the window ----------------------------------------------------------------------------------------------------


def test_the_window_counts_sends_and_bytes() -> None:
    w = SendWindow(2, 100)
    assert w.try_acquire(60) and not w.try_acquire(60)  # the bytes are the limit
    assert w.try_acquire(40) and w.in_flight == (2, 100)
    w.release(60)
    assert w.try_acquire(10) and not w.try_acquire(1)  # now the sends are
    assert w.in_flight == (2, 50)


def test_a_waiting_thread_gets_the_room_a_release_frees() -> None:
    w = SendWindow(1, 100)
    assert w.try_acquire(100)
    got = []
    t = threading.Thread(target=lambda: got.append(w.acquire(50, 10)))
    t.start()
    while not w._waiters:  # the thread waits
        time.sleep(0.001)
    w.release(100)
    t.join(10)
    assert got == [True] and w.in_flight == (1, 50)


def test_a_wait_that_runs_out_takes_nothing() -> None:
    w = SendWindow(1, 100)
    assert w.try_acquire(1)
    assert w.acquire(1, 0.01) is False and w.acquire(1, 0) is False
    assert w.in_flight == (1, 1) and not w._waiters


def test_waiters_are_served_in_order_and_a_small_send_does_not_overtake() -> None:
    w = SendWindow(10, 100)
    assert w.try_acquire(50) and w.try_acquire(50)

    async def main() -> list[int]:
        order: list[int] = []

        async def wait(i: int, size: int) -> None:
            assert await w.acquire_async(size, 10)
            order.append(i)

        tasks = [asyncio.create_task(wait(0, 80)), asyncio.create_task(wait(1, 10))]
        await asyncio.sleep(0.01)
        w.release(50)  # 50 free: the first waiter (80) does not fit, so the second (10) waits behind it
        await asyncio.sleep(0.01)
        assert order == [] and not w.try_acquire(1)  # nor does a newcomer overtake them
        w.release(50)  # 100 free: both, in order
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(main()) == [0, 1]
    assert w.in_flight == (2, 90)


def test_a_cancelled_async_wait_leaves_no_room_taken() -> None:
    w = SendWindow(1, 100)
    assert w.try_acquire(1)

    async def main() -> None:
        task = asyncio.create_task(w.acquire_async(1, 10))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    w.release(1)
    assert w.in_flight == (0, 0) and not w._waiters


def test_an_admission_gives_the_budget_left_and_refuses_in_java_s_words() -> None:
    w = SendWindow(1, 100)
    assert w.admit(10, 3000, wait=False) == 3000  # room at once: the whole budget is left
    with pytest.raises(RemotingTooMuchRequestError, match=r"semaphoreAsyncNum timeout \(1 sends, 10 body bytes"):
        w.admit(10, 3000, wait=False)  # no room now, and not waiting
    with pytest.raises(RemotingTooMuchRequestError, match="a body of 101 bytes never fits"):
        w.admit(101, 3000, wait=True)  # never fits: refused without waiting out the budget
    begin = time.monotonic()
    with pytest.raises(RemotingTooMuchRequestError, match="semaphoreAsyncNum timeout"):
        w.admit(10, 50, wait=True)  # waited its 50 ms for the one send in flight
    assert time.monotonic() - begin >= 0.05
    w.release(10)
    assert w.in_flight == (0, 0)


def test_an_async_admission_waits_on_the_loop_and_counts_the_wait_in_the_budget() -> None:
    w = SendWindow(1, 100)
    assert w.try_acquire(100)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(0.03, w.release, 100)  # the room comes back after 30 ms, within the 1 s budget
        try:
            left = await w.admit_async(50, 1000)
        except RemotingTooMuchRequestError:
            raise AssertionError("the room came within the budget") from None
        assert 0 < left <= 1000 - 30
        w.release(50)
        assert w.try_acquire(100)  # then a 10 ms budget runs out before the room comes back: nothing taken
        loop.call_later(0.03, w.release, 100)
        with pytest.raises(RemotingTooMuchRequestError, match="semaphoreAsyncNum timeout"):
            await w.admit_async(50, 10)
        await asyncio.sleep(0.05)
        assert w.in_flight == (0, 0)

    asyncio.run(main())


# -- the settings --------------------------------------------------------------------------------------------------


def test_the_settings_are_5_x_s_and_below_java_s_floor_are_refused() -> None:
    s = ProducerSettings.of("5.3", enable_backpressure_for_async_mode=True, back_pressure_for_async_send_num=10)
    assert s.back_pressure_for_async_send_num == 10
    with pytest.raises(IllegalArgumentError, match="back_pressure_for_async_send_num Out of range"):
        ProducerSettings.of("5.3", back_pressure_for_async_send_num=9)
    with pytest.raises(IllegalArgumentError, match="back_pressure_for_async_send_size Out of range"):
        ProducerSettings.of("5.3", back_pressure_for_async_send_size=1024)
    with pytest.raises(UnsupportedSettingError, match=r"compat='4\.9'"):
        ProducerSettings.of("4.9", enable_backpressure_for_async_mode=True)


# -- the producer on a slow broker ---------------------------------------------------------------------------------

SLOW = ("--queues", "1", "--delay-us", "2000")  # one send answered per 2 ms
LIMITED = {"enable_backpressure_for_async_mode": True, "back_pressure_for_async_send_num": 10}


def test_submit_waits_for_room_so_no_more_than_the_limit_is_in_flight(backend) -> None:
    seen = []
    with instant_peer(*SLOW) as addr, Producer(addr, "pg-bp", backend=backend, **LIMITED) as producer:
        futures = []
        for _ in range(60):
            futures.append(producer.submit(Message("T", b"x" * 100)))
            seen.append(producer.async_sends_in_flight)
        results = [f.result(30) for f in futures]
        assert producer.async_sends_in_flight == (0, 0)
    assert {r.send_status for r in results} == {SendStatus.SEND_OK}
    assert [r.queue_offset for r in results] == list(range(60))
    assert max(sends for sends, _ in seen) == 10 and max(size for _, size in seen) == 1000


def test_without_it_every_submit_is_in_flight_at_once() -> None:
    with instant_peer(*SLOW) as addr, Producer(addr, "pg-bp") as producer:
        # the route first: a send submitted while the others wait for the route's lookup can be written before
        # them (seen once on a loaded machine), and the offsets below are in the order of the submits
        producer.publish_info("T")
        futures = [producer.submit(Message("T", b"x")) for _ in range(60)]
        assert sum(not f.done() for f in futures) > 10  # nothing held them back: the slow broker has them all
        assert producer.async_sends_in_flight == (0, 0)
        assert [f.result(30).queue_offset for f in futures] == list(range(60))


def test_send_async_waits_on_the_caller_s_loop() -> None:
    with instant_peer(*SLOW) as addr, Producer(addr, "pg-bp", **LIMITED) as producer:

        async def main() -> tuple[list[int], int]:
            peak = 0
            sends = [asyncio.ensure_future(producer.send_async(Message("T", b"y"))) for _ in range(40)]
            while not all(s.done() for s in sends):
                peak = max(peak, producer.async_sends_in_flight[0])
                await asyncio.sleep(0.001)  # the caller's loop runs while sends wait for room
            return [s.result().queue_offset for s in sends], peak

        offsets, peak = asyncio.run(main())
    assert sorted(offsets) == list(range(40)) and peak == 10


def test_no_room_within_the_budget_fails_the_send_and_sends_nothing() -> None:
    with instant_peer("--queues", "1", "--delay-us", "300000") as addr:
        with Producer(addr, "pg-bp", send_msg_timeout=10_000, **LIMITED) as producer:
            held = [producer.submit(Message("T", b"h")) for _ in range(10)]
            refused = producer.submit(Message("T", b"r"), timeout_ms=100)
            with pytest.raises(RemotingTooMuchRequestError, match=r"semaphoreAsyncNum timeout \(10 sends"):
                refused.result(5)

            async def refused_async() -> None:
                await producer.send_async(Message("T", b"r"), timeout_ms=100)

            with pytest.raises(RemotingTooMuchRequestError, match="semaphoreAsyncNum timeout"):
                asyncio.run(refused_async())
            assert [f.result(30).queue_offset for f in held] == list(range(10))
            assert producer.send(Message("T", b"after")).queue_offset == 10  # the refused ones never got there


def test_a_body_larger_than_the_byte_limit_is_refused_at_once() -> None:
    limits = {**LIMITED, "back_pressure_for_async_send_size": 1024 * 1024}
    with instant_peer(*SLOW) as addr, Producer(addr, "pg-bp", **limits) as producer:
        future = producer.submit(Message("T", b"z" * (2 * 1024 * 1024)), timeout_ms=60_000)
        assert future.done()
        with pytest.raises(RemotingTooMuchRequestError, match="never fits in back_pressure_for_async_send_size"):
            future.result()
