"""The runners, the one place that knows where a consumer's listener runs: :class:`ThreadRunner` drives a consume
call (a coroutine) to its end on a pool thread, with no event loop, calling the listener there and blocking on a
send-back; :class:`LoopRunner` awaits the same call in a worker task of the loop. Against a fake broker over TCP."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from rocketroute.client.api import BrokerAPI, send_back_request
from rocketroute.client.consumer.loop_pool import LoopConsumePool
from rocketroute.client.consumer.runner import LoopRunner, PoolClosedError, ThreadRunner, drive
from rocketroute.client.message_decode import decode_messages
from rocketroute.client.workers import ConsumePool
from rocketroute.net import RemotingClient

from ._fake_cluster import CONSUMER_SEND_MSG_BACK, FakeBroker
from ._stored import stored


@pytest.fixture
def pool() -> Iterator[ConsumePool]:
    p = ConsumePool(2, "test-runner")
    yield p
    p.shutdown(5)


def _send_back(broker: FakeBroker) -> tuple[str, Any]:
    (msg,) = decode_messages(stored("T", b"back", queue_offset=3, commit_log_offset=1003))
    request = send_back_request(msg, group="G", delay_level=0, origin_topic="T", max_reconsume_times=16, compat="5.3")
    return broker.addr, request


def test_drive_runs_a_call_to_its_end_without_a_loop_and_refuses_one_that_suspends() -> None:
    seen: list[Any] = []

    async def step(x: int) -> int:
        return x + 1

    async def call(x: int) -> None:
        seen.append(await step(x))
        seen.append(threading.current_thread().name)

    drive(call, 1)
    assert seen == [2, threading.current_thread().name]

    async def suspends() -> None:
        await asyncio.sleep(0)  # needs a loop to come back

    with pytest.raises(RuntimeError, match=r"suspends.*suspended on a listener thread"):
        drive(suspends)


def test_a_thread_runner_calls_the_listener_on_its_pool_and_blocks_on_a_send_back(
    broker: FakeBroker, client: RemotingClient, pool: ConsumePool
) -> None:
    runner = ThreadRunner(pool, client)
    seen: list[Any] = []
    done = threading.Event()

    def listener(msgs: list[Any], context: Any) -> str:
        seen.append((msgs, context, threading.current_thread().name))
        return "status"

    async def call(msgs: list[Any]) -> None:
        seen.append(await runner.call(listener, msgs, "ctx"))
        await runner.send_back(*_send_back(broker), 3000)
        seen.append(len(broker.requests(CONSUMER_SEND_MSG_BACK)))  # answered before it returns: the broker has it
        done.set()

    assert runner.submit(call, [1, 2])
    assert done.wait(5)
    (msgs, context, thread), status, sent = seen
    assert (msgs, context, status, sent) == ([1, 2], "ctx", "status", 1)
    assert thread.startswith("test-runner-")
    pool.shutdown(5)
    assert not runner.submit(call, [4])  # refused once the pool is shut down


def test_a_thread_runner_hands_a_pull_to_its_calls_in_slices_in_order(client: RemotingClient) -> None:
    one = ConsumePool(1, "test-one")
    runner = ThreadRunner(one, client)
    got: list[Any] = []

    async def call(msgs: list[int], pq: str) -> None:
        got.append((msgs, pq))

    try:
        assert runner.submit_slices(call, [1, 2, 3, 4, 5], 2, "pq")
        _until(lambda: len(got) == 3)
        assert got == [([1, 2], "pq"), ([3, 4], "pq"), ([5], "pq")]
    finally:
        one.shutdown(5)


def test_a_thread_runner_holds_a_queue_for_one_call_at_a_time(client: RemotingClient, pool: ConsumePool) -> None:
    runner = ThreadRunner(pool, client)
    inside = [0, 0]  # now, most at once
    finished = threading.Semaphore(0)

    async def call(mq: str) -> None:
        async with runner.hold_queue(mq):
            inside[0] += 1
            inside[1] = max(inside)
            time.sleep(0.05)
            inside[0] -= 1
        finished.release()

    runner.submit(call, "q0")
    runner.submit(call, "q0")
    assert finished.acquire(timeout=5) and finished.acquire(timeout=5)
    assert inside[1] == 1


def test_a_thread_runner_hands_a_call_s_result_to_the_loop_and_refuses_once_shut_down(
    client: RemotingClient, pool: ConsumePool
) -> None:
    runner = ThreadRunner(pool, client)

    async def answer(x: int) -> tuple[int, str]:
        return x * 2, threading.current_thread().name

    async def on_loop() -> Any:
        return await runner.run(answer, 21)

    value, thread = client.run(on_loop())
    assert value == 42 and thread.startswith("test-runner-")
    pool.shutdown(5)
    with pytest.raises(PoolClosedError, match="shutting down"):
        client.run(on_loop())


def test_a_loop_runner_awaits_the_listener_and_the_send_back_on_the_loop(
    broker: FakeBroker, client: RemotingClient
) -> None:
    async def build() -> LoopConsumePool:
        return LoopConsumePool(2, "test-loop-runner")

    loop_pool = client.run(build())
    runner = LoopRunner(loop_pool, client, BrokerAPI(client.async_client, "5.3"))
    seen: list[Any] = []
    done = threading.Event()

    async def listener(msgs: list[Any], context: Any) -> str:
        await asyncio.sleep(0)  # it may suspend: it runs on the loop
        seen.append(client.on_loop_thread())
        return "status"

    async def call(msgs: list[Any]) -> None:
        seen.append(await runner.call(listener, msgs, "ctx"))
        await runner.send_back(*_send_back(broker), 3000)
        seen.append(len(broker.requests(CONSUMER_SEND_MSG_BACK)))
        done.set()

    async def submit() -> bool:
        return runner.submit(call, [1])

    assert client.run(submit())
    assert done.wait(5)
    assert seen == [True, "status", 1]
    client.run(loop_pool.shutdown(5))


def _until(check: Any, timeout_s: float = 5.0) -> None:
    end = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < end, "not in time"
        time.sleep(0.01)
