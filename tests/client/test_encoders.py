"""The producer's encoder threads (``rocketroute.client.producer.encoders``): jobs run off the calling loop, their
results and exceptions come back on that loop, from any number of loops, and closing never strands a job."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from rocketroute.client.producer.encoders import EncoderThreads, encoder_threads


def _where(tag: str) -> tuple[str, str]:
    return tag, threading.current_thread().name


def test_jobs_run_on_the_pool_s_threads_and_answer_on_the_calling_loop() -> None:
    pool = EncoderThreads(2, "test-encoders")

    async def main() -> tuple[list[tuple[str, str]], set[str]]:
        loop = asyncio.get_running_loop()
        futures = [pool.run(_where, f"job-{i}") for i in range(200)]
        assert all(f.get_loop() is loop for f in futures)
        results = await asyncio.gather(*futures)
        return results, {t.name for t in threading.enumerate()}

    try:
        results, alive = asyncio.run(main())
    finally:
        pool.close()
    assert [tag for tag, _ in results] == [f"job-{i}" for i in range(200)]
    ran_on = {name for _, name in results}
    assert ran_on <= {"test-encoders-0", "test-encoders-1"} and ran_on, ran_on
    assert {"test-encoders-0", "test-encoders-1"} <= alive  # started as jobs came, never more than the size


def test_an_exception_is_raised_where_the_job_is_awaited() -> None:
    def fails(text: str) -> None:
        raise ValueError(text)

    pool = EncoderThreads(1, "test-encoders")

    async def main() -> None:
        with pytest.raises(ValueError, match="bad message"):
            await pool.run(fails, "bad message")
        assert await pool.run(_where, "next") == ("next", "test-encoders-0")  # the thread lives on

    try:
        asyncio.run(main())
    finally:
        pool.close()


def test_two_loops_in_two_threads_each_get_their_own_results() -> None:
    pool = EncoderThreads(2, "test-encoders")
    out: dict[str, list[str]] = {}

    def loop_thread(name: str) -> None:
        async def main() -> list[str]:
            loop = asyncio.get_running_loop()
            futures = [pool.run(_where, f"{name}-{i}") for i in range(300)]
            assert all(f.get_loop() is loop for f in futures)
            return [tag for tag, _ in await asyncio.gather(*futures)]

        out[name] = asyncio.run(main())

    threads = [threading.Thread(target=loop_thread, args=(n,)) for n in ("a", "b")]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        pool.close()
    assert out == {n: [f"{n}-{i}" for i in range(300)] for n in ("a", "b")}


def _held(release: threading.Event) -> Callable[[str], str]:
    """A job that returns its tag once ``release`` is set."""

    def job(tag: str) -> str:
        release.wait(10)
        return tag

    return job


def test_close_lets_the_given_jobs_finish_and_refuses_new_ones() -> None:
    release = threading.Event()
    slow = _held(release)
    pool = EncoderThreads(1, "test-encoders")

    async def main() -> list[str]:
        given = [pool.run(slow, f"given-{i}") for i in range(5)]
        pool.close()
        with pytest.raises(RuntimeError, match="closed"):
            pool.run(slow, "late")
        release.set()
        return list(await asyncio.wait_for(asyncio.gather(*given), 10))

    assert asyncio.run(main()) == [f"given-{i}" for i in range(5)]
    pool.close()  # twice: nothing more


def test_a_cancelled_wait_drops_its_result_and_the_rest_still_arrive() -> None:
    release = threading.Event()
    held = _held(release)
    pool = EncoderThreads(1, "test-encoders")

    async def main() -> str:
        first = pool.run(held, "cancelled")
        second = pool.run(held, "kept")
        first.cancel()
        release.set()
        return await asyncio.wait_for(second, 10)

    try:
        assert asyncio.run(main()) == "kept"
    finally:
        pool.close()


def test_the_pool_is_as_large_as_the_cores_the_process_may_use() -> None:
    import os

    assert encoder_threads() == len(os.sched_getaffinity(0))
