"""SendWhichQueue: ThreadLocalIndex arithmetic, shared by all threads without losing increments."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError

from ._java import INT_MAX, INT_MIN, java_ints, java_longs, to_int


@given(start=java_ints, k=st.integers(1, 20))
def test_increment_and_get_from_a_forced_start(backend, start, k):
    # README: each incrementAndGet stores stored + 1 (int wrap-around) and returns (stored + 1) & 0x7FFFFFFF
    for compat in ("5.3", "4.9"):
        swq = backend.SendWhichQueue(compat, start=start)
        for i in range(1, k + 1):
            assert swq.increment_and_get() == to_int(start + i) & 0x7FFFFFFF
            assert swq.get() == to_int(start + i)


@given(seed=java_longs)
def test_first_draw_differs_by_compat(backend, seed):
    # README: 4.9.8 starts from Math.abs(nextInt()), 5.x from nextInt()
    first = backend.JavaRandom(seed).next_int()
    abs_first = first if first == INT_MIN else abs(first)
    assert backend.SendWhichQueue("5.3", random=backend.JavaRandom(seed)).increment_and_get() == (
        to_int(first + 1) & 0x7FFFFFFF
    )
    assert backend.SendWhichQueue("4.9", random=backend.JavaRandom(seed)).increment_and_get() == (
        to_int(abs_first + 1) & 0x7FFFFFFF
    )


@given(seed=java_longs)
def test_reset_stores_abs_next_int_max(backend, seed):
    swq = backend.SendWhichQueue("5.3", start=5, random=backend.JavaRandom(seed))
    swq.reset()
    assert swq.get() == backend.JavaRandom(seed).next_int(INT_MAX)
    assert swq.increment_and_get() == swq.get()


def test_get_before_the_first_draw(backend):
    swq = backend.SendWhichQueue("5.3")
    assert swq.get() is None
    assert 0 <= swq.increment_and_get() <= INT_MAX
    assert swq.get() is not None


def test_compat(backend):
    assert backend.SendWhichQueue().compat == "5.3"
    assert backend.SendWhichQueue("4.9").compat == "4.9"


@pytest.mark.parametrize("value", [INT_MAX + 1, INT_MIN - 1])
def test_stored_value_is_an_int(backend, value):
    with pytest.raises(IllegalArgumentError):
        backend.SendWhichQueue("5.3", start=value)
    swq = backend.SendWhichQueue("5.3", start=0)
    with pytest.raises(IllegalArgumentError):
        swq.set(value)
    assert swq.get() == 0


@pytest.mark.parametrize("start", [0, INT_MAX - 20_000], ids=["no-wrap", "wraps"])
def test_concurrent_increments_are_not_lost(backend, start):
    threads_n, calls = 8, 5_000
    swq = backend.SendWhichQueue("5.3", start=start)
    barrier = threading.Barrier(threads_n)
    results: list[list[int]] = [[] for _ in range(threads_n)]

    def worker(out):
        barrier.wait()
        inc = swq.increment_and_get
        for _ in range(calls):
            out.append(inc())

    threads = [threading.Thread(target=worker, args=(results[i],)) for i in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = threads_n * calls
    assert swq.get() == to_int(start + total)
    returned = [v for out in results for v in out]
    # every increment returned its own value: none was lost or duplicated
    assert sorted(returned) == sorted(to_int(start + i) & 0x7FFFFFFF for i in range(1, total + 1))
