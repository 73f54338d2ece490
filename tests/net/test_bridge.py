"""``net.bridge``: coroutines run on a loop thread for other threads and loops, every outcome delivered, the
wake-ups coalesced, nothing left waiting when the loop stops."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Iterator

import pytest

from rocketroute.net.bridge import LoopInbox, ReturnPath


@pytest.fixture
def loop_thread() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    if loop.is_running():
        loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


def _path(loop: asyncio.AbstractEventLoop) -> ReturnPath:
    return ReturnPath(loop, LoopInbox(loop))


async def _double(x: int) -> int:
    await asyncio.sleep(0)
    return 2 * x


async def _fail() -> None:
    raise ValueError("from the loop")


def test_a_thread_gets_results_and_errors_of_coroutines_on_the_loop(loop_thread):
    path = _path(loop_thread)
    futures = [path.from_thread(_double(i)) for i in range(200)]
    assert [f.result(5) for f in futures] == [2 * i for i in range(200)]
    with pytest.raises(ValueError, match="from the loop"):
        path.from_thread(_fail()).result(5)


def test_calls_posted_while_the_loop_is_busy_share_one_wake_up(loop_thread):
    inbox = LoopInbox(loop_thread)
    busy, release = threading.Event(), threading.Event()
    loop_thread.call_soon_threadsafe(lambda: (busy.set(), release.wait(5)))
    assert busy.wait(5)
    wakeups = 0
    original = loop_thread.call_soon_threadsafe

    def counting(*args: object) -> object:
        nonlocal wakeups
        wakeups += 1
        return original(*args)  # type: ignore[arg-type]

    loop_thread.call_soon_threadsafe = counting  # type: ignore[method-assign]
    ran: list[int] = []
    for i in range(100):
        inbox.post(ran.append, i)
    release.set()
    done = concurrent.futures.Future[None]()
    inbox.post(done.set_result, None)
    done.result(5)
    loop_thread.call_soon_threadsafe = original  # type: ignore[method-assign]
    assert ran == list(range(100)) and wakeups == 1


def test_another_loop_awaits_the_outcome_and_its_cancellation_reaches_the_coroutine(loop_thread):
    path = _path(loop_thread)
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def caller() -> list[int]:
        got = await asyncio.gather(*(path.from_loop(_double(i)) for i in range(100)))
        with pytest.raises(ValueError, match="from the loop"):
            await path.from_loop(_fail())
        task = asyncio.ensure_future(path.from_loop(forever()))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return got

    assert asyncio.run(caller()) == [2 * i for i in range(100)]
    assert cancelled.wait(5)


def test_what_the_loop_never_took_fails_when_it_is_abandoned():
    loop = asyncio.new_event_loop()  # never run
    inbox = LoopInbox(loop)
    path = ReturnPath(loop, inbox)
    future = path.from_thread(_double(1))
    failed: list[BaseException] = []
    inbox.post(print, "never", on_abandon=failed.append)
    inbox.abandon(RuntimeError("closed"))
    loop.close()
    with pytest.raises(RuntimeError, match="closed"):
        future.result(1)
    assert len(failed) == 1 and str(failed[0]) == "closed"
    with pytest.raises(RuntimeError):  # a closed loop takes nothing more
        path.from_thread(_double(2))


def test_each_caller_loop_gets_its_own_outcomes_in_turn_and_at_once(loop_thread):
    path = _path(loop_thread)
    woken: list[asyncio.AbstractEventLoop] = []

    async def caller(base: int) -> list[int]:
        got = await asyncio.gather(*(path.from_loop(_double(base + i)) for i in range(50)))
        woken.append(asyncio.get_running_loop())  # resumed on its own loop, not the last caller's
        return got

    # loops one after another in one thread (the last caller remembered is closed), then two threads at once
    assert asyncio.run(caller(0)) == [2 * i for i in range(50)]
    assert asyncio.run(caller(100)) == [2 * (100 + i) for i in range(50)]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda b: asyncio.run(caller(b)), (1000, 2000)))
    assert both == [[2 * (b + i) for i in range(50)] for b in (1000, 2000)]
    assert len({id(loop) for loop in woken}) == 4
