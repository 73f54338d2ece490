"""The consume pool (``rocketroute.client.workers.ConsumePool``): calls in order of submission, and a shutdown that
drops what has not started, waits a bounded time for what has, and says how many calls it left running."""

from __future__ import annotations

import threading
import time

from rocketroute.client.workers import ConsumePool


def test_one_thread_runs_the_calls_in_the_order_they_were_submitted():
    pool = ConsumePool(1, "test-order")
    seen: list[int] = []
    done = threading.Event()
    for i in range(200):
        assert pool.submit(seen.append, i)
    assert pool.submit(done.set)
    assert done.wait(10)
    assert seen == list(range(200))
    assert pool.shutdown(5) == 0


def test_slices_are_submitted_in_order_as_calls_of_their_own():
    pool = ConsumePool(1, "test-slices")
    seen: list[tuple[list[int], str]] = []
    done = threading.Event()
    assert pool.submit_slices(lambda part, tag: seen.append((part, tag)), list(range(7)), 3, "q")
    assert pool.submit(done.set)
    assert done.wait(10)
    assert seen == [([0, 1, 2], "q"), ([3, 4, 5], "q"), ([6], "q")]
    assert pool.shutdown(5) == 0
    assert not pool.submit_slices(seen.append, [1], 1)  # refused once shut down


def test_every_thread_takes_calls_and_an_exception_does_not_end_one():
    pool = ConsumePool(4, "test-spread")
    names: set[str] = set()
    barrier = threading.Barrier(4, timeout=10)

    def call() -> None:
        names.add(threading.current_thread().name)
        barrier.wait()  # four calls at once: only four threads can get here together

    def boom() -> None:
        raise LookupError("a listener's own fault")

    for _ in range(4):
        pool.submit(boom)
    for _ in range(4):
        pool.submit(call)
    deadline = time.monotonic() + 10
    while len(names) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert names == {f"test-spread-{i}" for i in range(4)}
    assert pool.shutdown(5) == 0


def test_shutdown_waits_for_the_calls_under_way_and_drops_the_queued_ones():
    pool = ConsumePool(1, "test-drop")
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def slow() -> None:
        started.set()
        release.wait(10)
        ran.append("slow")

    pool.submit(slow)
    pool.submit(ran.append, "queued")
    assert started.wait(10)
    threading.Timer(0.2, release.set).start()
    t0 = time.monotonic()
    assert pool.shutdown(10) == 0  # the call under way ended within the wait
    assert time.monotonic() - t0 >= 0.15
    time.sleep(0.1)
    assert ran == ["slow"]  # the queued call never ran
    assert not pool.submit(ran.append, "late")


def test_shutdown_gives_up_after_its_timeout_and_counts_what_still_runs():
    pool = ConsumePool(3, "test-stuck")
    stuck = threading.Event()
    try:
        entered = threading.Barrier(3, timeout=10)

        def hang() -> None:
            entered.wait()
            stuck.wait(30)

        pool.submit(hang)
        pool.submit(hang)
        entered.wait()
        t0 = time.monotonic()
        assert pool.shutdown(0.3) == 2
        assert 0.25 <= time.monotonic() - t0 < 5
    finally:
        stuck.set()


def test_shutdown_from_a_pool_thread_does_not_wait_for_itself():
    pool = ConsumePool(2, "test-own")
    answer: list[int] = []
    done = threading.Event()

    def shut() -> None:
        answer.append(pool.shutdown(5))
        done.set()

    pool.submit(shut)
    assert done.wait(10)
    assert answer == [0]
