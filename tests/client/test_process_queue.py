"""rocketroute.client.consumer.process_queue: Java's ProcessQueue (5.3.3), method by method, with Java's arithmetic."""

from __future__ import annotations

import gc
import queue
import threading
import weakref
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute.client.consumer import process_queue
from rocketroute.client.consumer.process_queue import (
    PULL_MAX_IDLE_TIME,
    REBALANCE_LOCK_INTERVAL,
    REBALANCE_LOCK_MAX_LIVE_TIME,
    ProcessQueue,
)


@dataclass
class Msg:
    queue_offset: int
    body: bytes | None = b"x"
    properties: dict[str, str] = field(default_factory=dict)


class Clock:
    def __init__(self, now: int = 1_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def msgs(*offsets: int, size: int = 1) -> list[Msg]:
    return [Msg(o, b"x" * size) for o in offsets]


_CACHES = {"python": process_queue._QueueCache}
if rocketroute.BACKEND == "native":
    from rocketroute import _native

    _CACHES["native"] = _native._QueueCache


@pytest.fixture(autouse=True, params=sorted(_CACHES))
def queue_cache(request, monkeypatch) -> type:
    """Every test runs with each cache a ProcessQueue can keep its state in: the Python ``_QueueCache`` and, on
    the native backend, its Rust twin."""
    monkeypatch.setattr(process_queue, "_Cache", _CACHES[request.param])
    return _CACHES[request.param]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def pq(clock) -> ProcessQueue:
    return ProcessQueue(now_ms=clock)


def test_constants():
    assert (REBALANCE_LOCK_MAX_LIVE_TIME, REBALANCE_LOCK_INTERVAL, PULL_MAX_IDLE_TIME) == (30_000, 20_000, 120_000)


def test_initial_state(pq, clock):
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max, pq.msg_acc_cnt, pq.try_unlock_times) == (0, 0, 0, 0, 0)
    assert not (pq.dropped or pq.locked or pq.consuming)
    assert pq.last_pull_timestamp == pq.last_consume_timestamp == pq.last_lock_timestamp == clock.now
    assert pq.get_max_span() == 0
    assert not pq.has_temp_message()
    assert isinstance(pq.consume_lock, type(threading.Lock()))


def test_default_clock_is_wall_ms():
    import time

    before = time.time_ns() // 1_000_000
    pq = ProcessQueue()
    after = time.time_ns() // 1_000_000
    assert before <= pq.last_pull_timestamp <= after
    assert isinstance(pq.last_pull_timestamp, int)


# --- putMessage ----------------------------------------------------------------------------------------------------


def test_put_counts_and_dispatches_once(pq):
    assert pq.put_messages([Msg(10, b"abc"), Msg(11, b"de"), Msg(12, None)]) is True
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max) == (3, 5, 12)
    assert pq.consuming
    # already consuming: no second dispatch
    assert pq.put_messages(msgs(13)) is False
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max) == (4, 6, 13)


def test_put_nothing_into_an_empty_queue_does_not_dispatch(pq):
    assert pq.put_messages([]) is False
    assert not pq.consuming


def test_duplicates_are_not_counted_twice_but_replace(pq):
    first = Msg(5, b"aaaa")
    pq.put_messages([first, Msg(6, b"bb")])
    again = Msg(5, b"zzzzzzzz")
    pq.put_messages([again, Msg(6, b"bb")])
    assert (pq.msg_count, pq.msg_size) == (2, 6)
    # TreeMap.put replaced the cached message: the one taken is the second
    assert pq.take_messages(1) == [again]


def test_duplicate_batch_does_not_move_queue_offset_max(pq):
    pq.put_messages(msgs(1, 2, 3))
    pq.put_messages(msgs(2))
    assert pq.queue_offset_max == 3


def test_queue_offset_max_is_the_last_added_not_the_largest(pq):
    """Java assigns queueOffsetMax for each new message: an out-of-order batch leaves the last one's offset."""
    pq.put_messages(msgs(7, 9, 8))
    assert pq.queue_offset_max == 8
    pq.put_messages(msgs(3))
    assert pq.queue_offset_max == 3
    assert pq.get_max_span() == 6


def test_dispatch_when_cache_not_empty_and_not_consuming(pq):
    """dispatchToConsume is "the cache is not empty and no consume request runs": even with nothing new."""
    pq.put_messages(msgs(1, 2))
    pq.take_messages(2)
    assert pq.take_messages(1) == []  # clears consuming
    pq.rollback()  # 1, 2 back in the cache, still not consuming
    assert not pq.consuming
    assert pq.put_messages([]) is True
    assert pq.consuming


def test_msg_acc_cnt_from_the_last_messages_max_offset(pq):
    batch = msgs(10, 11, 12)
    batch[0].properties["MAX_OFFSET"] = "1000"  # only the last message's property is read
    pq.put_messages(batch)
    assert pq.msg_acc_cnt == 0
    batch = msgs(13, 14)
    batch[-1].properties["MAX_OFFSET"] = "100"
    pq.put_messages(batch)
    assert pq.msg_acc_cnt == 86
    # not positive: kept
    last = Msg(20, properties={"MAX_OFFSET": "20"})
    pq.put_messages([last])
    assert pq.msg_acc_cnt == 86
    # read even when the last message is a duplicate
    pq.put_messages([Msg(20, properties={"MAX_OFFSET": "25"})])
    assert pq.msg_acc_cnt == 5
    pq.msg_acc_cnt = 0  # Java has a setter
    assert pq.msg_acc_cnt == 0


def test_msg_acc_cnt_without_properties(pq):
    pq.put_messages([Msg(1, properties=None)])  # type: ignore[arg-type]
    assert (pq.msg_count, pq.msg_acc_cnt) == (1, 0)


@pytest.mark.parametrize("bad", ["", " 5", "5 ", "1_000", "0x10", "9223372036854775808", "1.5"])
def test_msg_acc_cnt_malformed_max_offset_raises_like_parse_long(pq, bad):
    """Long.parseLong's NumberFormatException escapes putMessage after the messages were cached."""
    with pytest.raises(ValueError):
        pq.put_messages([Msg(1, properties={"MAX_OFFSET": bad})])
    assert pq.msg_count == 1
    assert pq.consuming


def test_msg_acc_cnt_parse_long_accepts_a_sign(pq):
    pq.put_messages([Msg(1, properties={"MAX_OFFSET": "+9"})])
    assert pq.msg_acc_cnt == 8


def test_put_accepts_any_iterable(pq):
    assert pq.put_messages(iter(msgs(1, 2))) is True
    assert pq.msg_count == 2


# --- getMaxSpan, removeMessage -------------------------------------------------------------------------------------


def test_max_span(pq):
    pq.put_messages(msgs(100))
    assert pq.get_max_span() == 0
    pq.put_messages(msgs(150, 120))
    assert pq.get_max_span() == 50


def test_remove_from_an_empty_queue_returns_minus_one(pq, clock):
    clock.now += 5
    assert pq.remove_messages(msgs(1)) == -1
    assert pq.last_consume_timestamp == clock.now  # set even then
    assert pq.msg_count == 0


def test_remove_returns_first_remaining_then_offset_max_plus_one(pq, clock):
    pq.put_messages(msgs(10, 11, 12, 13))
    clock.now += 7
    assert pq.remove_messages(msgs(11, 12)) == 10  # the lowest offset still cached
    assert pq.last_consume_timestamp == clock.now
    assert (pq.msg_count, pq.msg_size) == (2, 2)
    assert pq.remove_messages(msgs(10)) == 13
    assert pq.remove_messages(msgs(13)) == 14  # empty now: queue_offset_max + 1
    assert (pq.msg_count, pq.msg_size) == (0, 0)
    assert not pq.has_temp_message()
    assert pq.remove_messages(msgs(13)) == -1


def test_remove_absent_offsets(pq):
    pq.put_messages(msgs(10, 11))
    assert pq.remove_messages(msgs(99)) == 10
    assert pq.remove_messages([]) == 10
    assert pq.msg_count == 2


def test_remove_twice_is_counted_once(pq):
    pq.put_messages(msgs(1, 2, 3))
    pq.remove_messages(msgs(2))
    pq.remove_messages(msgs(2))
    assert (pq.msg_count, pq.msg_size) == (2, 2)


def test_remove_subtracts_the_given_messages_body_sizes(pq):
    """Java subtracts the argument's body length, not the cached message's."""
    pq.put_messages([Msg(1, b"aaaa"), Msg(2, b"bb")])
    pq.remove_messages([Msg(1, b"a")])
    assert (pq.msg_count, pq.msg_size) == (1, 5)
    # the count reaching zero resets the size
    pq.remove_messages([Msg(2, None)])
    assert (pq.msg_count, pq.msg_size) == (0, 0)


def test_remove_after_out_of_order_put_uses_last_added_offset(pq):
    pq.put_messages(msgs(7, 9, 8))
    assert pq.remove_messages(msgs(7, 8, 9)) == 9  # queue_offset_max (8) + 1


def test_contains_message(pq):
    pq.put_messages(msgs(4))
    assert pq.contains_message(Msg(4))
    assert not pq.contains_message(Msg(5))
    assert not pq.contains_message(None)
    pq.take_messages(1)
    assert not pq.contains_message(Msg(4))  # taken messages are not in the cache


# --- orderly: takeMessages, commit, rollback, makeMessageToConsumeAgain ------------------------------------------


def test_take_moves_lowest_offsets_first(pq, clock):
    pq.put_messages(msgs(5, 3, 4, 6))
    clock.now += 3
    taken = pq.take_messages(3)
    assert [m.queue_offset for m in taken] == [3, 4, 5]
    assert pq.last_consume_timestamp == clock.now
    assert pq.msg_count == 4  # still counted until commit
    assert pq.get_max_span() == 0
    assert pq.has_temp_message()
    assert pq.consuming
    assert [m.queue_offset for m in pq.take_messages(10)] == [6]
    assert not pq.has_temp_message()
    assert pq.consuming
    assert pq.take_messages(10) == []
    assert not pq.consuming


def test_take_zero_and_negative(pq):
    pq.put_messages(msgs(1))
    assert pq.take_messages(0) == []
    assert not pq.consuming  # an empty result clears it, whatever the cache holds
    with pytest.raises(ValueError):
        pq.take_messages(-1)
    assert pq.has_temp_message()


def test_commit_returns_last_taken_plus_one_and_uncounts(pq):
    pq.put_messages([Msg(1, b"aa"), Msg(2, b"bbb"), Msg(3, b"c")])
    pq.take_messages(2)
    assert pq.commit() == 3
    assert (pq.msg_count, pq.msg_size) == (1, 1)
    assert pq.commit() == -1  # nothing taken
    assert (pq.msg_count, pq.msg_size) == (1, 1)
    pq.take_messages(5)
    assert pq.commit() == 4
    assert (pq.msg_count, pq.msg_size) == (0, 0)


def test_commit_resets_size_when_count_reaches_zero(pq):
    pq.put_messages([Msg(1, b"aa")])
    pq.remove_messages([Msg(1, b"")])  # subtracts 0 bytes, but the count reaching 0 resets the size
    assert (pq.msg_count, pq.msg_size) == (0, 0)
    pq.put_messages([Msg(2, b"aaa")])
    pq.take_messages(1)
    assert pq.commit() == 3
    assert (pq.msg_count, pq.msg_size) == (0, 0)


def test_commit_on_an_empty_queue(pq):
    assert pq.commit() == -1


def test_rollback_puts_taken_back(pq):
    pq.put_messages(msgs(1, 2, 3))
    taken = pq.take_messages(2)
    pq.rollback()
    assert pq.msg_count == 3
    assert pq.get_max_span() == 2
    assert pq.commit() == -1  # nothing taken any more
    assert pq.take_messages(2) == taken  # the same objects, in offset order
    pq.rollback()
    assert [m.queue_offset for m in pq.take_messages(3)] == [1, 2, 3]
    assert pq.commit() == 4
    assert (pq.msg_count, pq.msg_size) == (0, 0)


def test_rollback_replaces_a_cached_message_at_the_same_offset(pq):
    pq.put_messages(msgs(1))
    taken = pq.take_messages(1)
    pq.put_messages([Msg(1, b"new")])  # pulled again meanwhile: counted again
    pq.rollback()
    assert pq.take_messages(1) == taken
    assert pq.msg_count == 2


def test_make_message_to_consume_again(pq):
    pq.put_messages(msgs(1, 2, 3, 4))
    taken = pq.take_messages(3)
    pq.make_message_to_consume_again(taken[1:])  # 2, 3 back; 1 stays taken
    assert pq.msg_count == 4
    assert pq.commit() == 2
    assert pq.msg_count == 3
    assert [m.queue_offset for m in pq.take_messages(10)] == [2, 3, 4]
    assert pq.commit() == 5
    assert (pq.msg_count, pq.msg_size) == (0, 0)


def test_make_again_of_a_message_never_taken_is_cached_uncounted(pq):
    pq.put_messages(msgs(1))
    pq.make_message_to_consume_again(msgs(9))
    assert pq.msg_count == 1
    assert pq.get_max_span() == 8


def test_orderly_cycle(pq):
    """take -> fail -> consume again -> take -> commit, as ConsumeMessageOrderlyService drives it."""
    assert pq.put_messages(msgs(0, 1, 2, 3, 4, size=10)) is True
    first = pq.take_messages(2)
    pq.make_message_to_consume_again(first)  # SUSPEND_CURRENT_QUEUE_A_MOMENT
    assert pq.take_messages(2) == first
    assert pq.commit() == 2  # SUCCESS
    assert (pq.msg_count, pq.msg_size) == (3, 30)
    batch = pq.take_messages(2)
    assert [m.queue_offset for m in batch] == [2, 3]
    pq.rollback()  # ROLLBACK (manual commit)
    assert [m.queue_offset for m in pq.take_messages(5)] == [2, 3, 4]
    assert pq.commit() == 5
    assert pq.take_messages(1) == []
    assert not pq.consuming
    assert (pq.msg_count, pq.msg_size) == (0, 0)
    # a new pull dispatches again
    assert pq.put_messages(msgs(5)) is True


def test_put_of_a_taken_offset_is_counted_again(pq):
    """Java's putMessage only looks at the cache: a taken message pulled again is a new entry."""
    pq.put_messages(msgs(1))
    pq.take_messages(1)
    pq.put_messages(msgs(1))
    assert pq.msg_count == 2


# --- clear, state --------------------------------------------------------------------------------------------------


def test_clear(pq):
    pq.put_messages(msgs(1, 2, 3))
    pq.put_messages([Msg(4, properties={"MAX_OFFSET": "10"})])
    pq.take_messages(1)
    pq.locked = True
    pq.clear()
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max) == (0, 0, 0)
    assert not pq.has_temp_message()
    assert pq.commit() == -1
    # not reset by Java's clear
    assert pq.consuming
    assert pq.msg_acc_cnt == 6
    assert pq.locked


def test_lock_and_pull_expiry(pq, clock):
    start = clock.now
    assert not pq.is_lock_expired()
    assert not pq.is_lock_expired(start + REBALANCE_LOCK_MAX_LIVE_TIME)  # strictly greater
    assert pq.is_lock_expired(start + REBALANCE_LOCK_MAX_LIVE_TIME + 1)
    clock.now = start + REBALANCE_LOCK_MAX_LIVE_TIME + 1
    assert pq.is_lock_expired()
    pq.last_lock_timestamp = clock.now
    assert not pq.is_lock_expired()

    assert not pq.is_pull_expired(start + PULL_MAX_IDLE_TIME)
    assert pq.is_pull_expired(start + PULL_MAX_IDLE_TIME + 1)
    clock.now = start + PULL_MAX_IDLE_TIME + 1
    assert pq.is_pull_expired()
    pq.last_pull_timestamp = clock.now
    assert not pq.is_pull_expired()


def test_flags_and_unlock_times(pq):
    pq.dropped = True
    pq.locked = True
    pq.inc_try_unlock_times()
    pq.inc_try_unlock_times()
    assert pq.dropped and pq.locked and pq.try_unlock_times == 2
    pq.try_unlock_times += 1
    assert pq.try_unlock_times == 3
    with pytest.raises(AttributeError):
        pq.msg_count = 5  # type: ignore[misc]


def test_consume_lock_is_exclusive(pq):
    assert pq.consume_lock.acquire(blocking=False)
    assert not pq.consume_lock.acquire(blocking=False)
    pq.consume_lock.release()


def test_info_counts_the_cached_map_and_the_taken_one_apart(pq):
    """``fillProcessQueueInfo``: ``cachedMsgCount`` is ``msgTreeMap.size()`` (taken messages are not in it, though
    ``msg_count`` still counts them), ``transactionMsg*`` the taken map."""
    pq.put_messages(msgs(4, 5, 6, size=1024 * 1024))
    pq.take_messages(1)
    info = pq.info(3)
    assert (info["cachedMsgCount"], info["cachedMsgMinOffset"], info["cachedMsgMaxOffset"]) == (2, 5, 6)
    assert (info["transactionMsgCount"], info["transactionMsgMinOffset"], info["transactionMsgMaxOffset"]) == (1, 4, 4)
    assert info["cachedMsgSizeInMiB"] == 3 and pq.msg_count == 3
    assert info["commitOffset"] == 3


def test_repr(pq):
    assert repr(pq).startswith("ProcessQueue(cached=None..None")
    pq.put_messages(msgs(3, 5))
    pq.take_messages(1)
    text = repr(pq)
    assert "cached=5..5" in text and "taken=1" in text and "count=2" in text
    assert len(text) < 200


# --- threads -------------------------------------------------------------------------------------------------------


def test_concurrent_put_and_remove_keep_counts_consistent():
    """Each writer thread puts its own offset range in batches, re-putting half of each batch (duplicates), and
    hands the batch to its remover thread, which removes it (twice) except every 7th offset; all eight threads run
    at once. Whatever the interleaving, the end state is exact."""
    pq = ProcessQueue(now_ms=lambda: 0)
    writers, per_writer, batch = 4, 2000, 50
    kept_every = 7  # offsets that are never removed
    barrier = threading.Barrier(writers * 2)
    handoff = [queue.SimpleQueue() for _ in range(writers)]
    errors: list[BaseException] = []

    def write(w: int) -> None:
        try:
            barrier.wait()
            for start in range(w * per_writer, (w + 1) * per_writer, batch):
                chunk = [Msg(o, b"ab") for o in range(start, start + batch)]
                pq.put_messages(chunk)
                pq.put_messages(chunk[: batch // 2])
                handoff[w].put(chunk)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
        finally:
            handoff[w].put(None)

    def remove(w: int) -> None:
        try:
            barrier.wait()
            while (chunk := handoff[w].get()) is not None:
                gone = [m for m in chunk if m.queue_offset % kept_every]
                pq.remove_messages(gone)
                pq.remove_messages(gone)  # already removed: not counted again
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    threads += [threading.Thread(target=remove, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors

    kept = [o for o in range(writers * per_writer) if o % kept_every == 0]
    assert pq.msg_count == len(kept)
    assert pq.msg_size == 2 * len(kept)
    assert pq.get_max_span() == kept[-1] - kept[0]
    assert all(pq.contains_message(Msg(o)) for o in kept)
    assert not pq.contains_message(Msg(1))
    assert pq.remove_messages([Msg(o, b"ab") for o in kept]) == pq.queue_offset_max + 1
    assert (pq.msg_count, pq.msg_size) == (0, 0)


def test_concurrent_orderly_consumers_take_each_message_once():
    """Consumers holding consume_lock take and commit batches; every offset is consumed exactly once and the
    committed offsets only grow."""
    pq = ProcessQueue(now_ms=lambda: 0)
    total = 5000
    pq.put_messages(msgs(*range(total)))
    seen: list[int] = []
    commits: list[int] = []

    def consume() -> None:
        while True:
            with pq.consume_lock:
                batch = pq.take_messages(7)
                if not batch:
                    return
                seen.extend(m.queue_offset for m in batch)
                commits.append(pq.commit())

    threads = [threading.Thread(target=consume) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == list(range(total))
    assert seen == sorted(seen)
    assert commits == sorted(commits) and commits[-1] == total
    assert (pq.msg_count, pq.msg_size) == (0, 0)
    assert not pq.consuming


def test_a_cycle_through_a_cached_message_is_collected():
    pq = ProcessQueue()
    first, second = Msg(1), Msg(2)
    first.properties["owner"] = second.properties["owner"] = pq  # type: ignore[assignment]
    pq.put_messages([first, second])
    assert pq.take_messages(1) == [first]  # one message in each map: taken (orderly) and cached
    gone = weakref.ref(pq)
    del pq, first, second
    gc.collect()
    assert gone() is None, "the process queue's map kept it alive through a cycle the collector could not see"


def test_the_native_backend_caches_in_the_native_cache():
    if rocketroute.BACKEND != "native":
        pytest.skip("the native cache is the native backend's (CI requires it)")
    assert process_queue.native_twin("_QueueCache") is _native._QueueCache


_batch = st.lists(st.tuples(st.integers(-3, 40), st.integers(0, 9)), max_size=6)
_ops = st.lists(
    st.one_of(
        st.tuples(st.just("put_messages"), _batch),
        st.tuples(st.just("remove_messages"), _batch),
        st.tuples(st.just("take_messages"), st.integers(0, 5)),
        st.tuples(st.just("make_again"), _batch),
        st.tuples(st.just("commit"), st.none()),
        st.tuples(st.just("rollback"), st.none()),
        st.tuples(st.just("clear"), st.none()),
        st.tuples(st.just("body"), st.integers(0, 9)),  # a listener replaces the bodies of the taken messages
    ),
    max_size=40,
)


@pytest.mark.skipif(rocketroute.BACKEND != "native", reason="the native cache is the native backend's (CI requires it)")
@settings(max_examples=400, deadline=None)
@given(_ops)
def test_the_native_cache_answers_as_the_python_one(ops):
    """Any sequence of operations: the same answers, counts, offsets and messages from both caches (a commit
    counts the taken messages' bodies as they are at the commit, as Java's reads ``getBody()`` then)."""
    caches = [process_queue._QueueCache(), _native._QueueCache()]
    taken: list[Msg] = []
    for op, arg in ops:
        if op == "body":
            for m in taken:
                m.body = None if arg == 0 else b"y" * arg
            continue
        if op in ("put_messages", "remove_messages", "make_again"):
            arg = [Msg(o, None if n == 0 else b"x" * n) for o, n in arg]
        answers = [getattr(c, op)() if arg is None else getattr(c, op)(arg) for c in caches]
        if op == "take_messages":
            assert answers[0] == answers[1] and all(a is b for a, b in zip(*answers, strict=True)), (op, arg)
            taken = answers[0]
        else:
            assert answers[0] == answers[1], (op, arg)
        views = [
            (c.state(), len(c), c.max_span(), c.first(), c.msg_count, c.msg_size, c.queue_offset_max, c.consuming)
            for c in caches
        ]
        assert views[0] == views[1], (op, arg)
        assert all((k in caches[0]) == (k in caches[1]) for k in range(-3, 41))


_LONG = (-(2**63), 2**63 - 1)
_extreme_offset = st.one_of(
    st.sampled_from([_LONG[0], _LONG[0] + 1, _LONG[1] - 1, _LONG[1], -1, 0, 1, 2]),
    st.integers(*_LONG),
)
_extreme_batch = st.lists(st.tuples(_extreme_offset, st.integers(0, 3)), max_size=5)
_extreme_ops = st.lists(
    st.one_of(
        st.tuples(st.just("put_messages"), _extreme_batch),
        st.tuples(st.just("remove_messages"), _extreme_batch),
        st.tuples(st.just("take_messages"), st.integers(0, 4)),
        st.tuples(st.just("make_again"), _extreme_batch),
        st.tuples(st.just("commit"), st.none()),
        st.tuples(st.just("rollback"), st.none()),
    ),
    max_size=25,
)


@pytest.mark.skipif(rocketroute.BACKEND != "native", reason="the native cache is the native backend's (CI requires it)")
@settings(max_examples=400, deadline=None)
@given(_extreme_ops)
def test_both_caches_wrap_as_java_s_long_at_the_ends_of_the_range(ops):
    """Offsets anywhere in Java's ``long`` range, the ends included (issue 52, item 6): ``max_span``, the offset a
    remove or a commit gives back, and the counts agree, wrapping as Java's ``long`` does (-2**63 .. 2 spans
    -9223372036854775806, not 2**63 + 2, which would throttle the queue for ever on the reference backend)."""
    caches = [process_queue._QueueCache(), _native._QueueCache()]
    for op, arg in ops:
        if op in ("put_messages", "remove_messages", "make_again"):
            arg = [Msg(o, None if n == 0 else b"x" * n) for o, n in arg]
        answers = [getattr(c, op)() if arg is None else getattr(c, op)(arg) for c in caches]
        assert answers[0] == answers[1], (op, arg)
        assert all(_LONG[0] <= a <= _LONG[1] for a in answers if type(a) is int), (op, answers)
        views = [(c.state(), c.max_span(), c.msg_count, c.queue_offset_max) for c in caches]
        assert views[0] == views[1], (op, arg)
        assert _LONG[0] <= views[0][1] <= _LONG[1]


def test_max_span_past_the_long_range_wraps_as_java(pq):
    pq.put_messages([Msg(-(2**63)), Msg(2)])
    assert pq.get_max_span() == -9223372036854775806  # Java: 2L - Long.MIN_VALUE
    pq.put_messages([Msg(2**63 - 1)])
    assert pq.get_max_span() == -1
    assert pq.remove_messages([Msg(-(2**63)), Msg(2), Msg(2**63 - 1)]) == -(2**63)  # queueOffsetMax + 1, wrapped


@pytest.mark.skipif(rocketroute.BACKEND != "native", reason="the native cache is the native backend's (CI requires it)")
def test_the_native_cache_refuses_what_is_not_a_queue_offset():
    c = _native._QueueCache()
    with pytest.raises(TypeError):
        c.put_messages([Msg("7")])  # type: ignore[arg-type]
    with pytest.raises(OverflowError):
        c.put_messages([Msg(2**63)])
    with pytest.raises(AttributeError):
        c.remove_messages([object()])
    with pytest.raises(OverflowError):
        c.take_messages(-1)
    assert len(c) == 0 and c.msg_count == 0  # nothing of a refused batch was cached
