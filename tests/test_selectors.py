"""Selectors for ordered sends (by hash, random, machine room) and TopicPublishInfo's own round-robin."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute import MessageQueueSelector, as_selector
from rocketroute.errors import IllegalArgumentError, JavaArithmeticError, NullPointerError

from ._java import INT_MIN, java_ints, java_longs, java_rem, java_text, long_hash, string_hash


def _mqs(backend, n, topic="TopicTest"):
    return [backend.MessageQueue(topic, f"broker-{i % 2}", i) for i in range(n)]


@given(key=java_text, n=st.integers(1, 2000))
def test_hash_selector_string_key(backend, key, n):
    # README: value = hashCode % n (Java remainder), then abs -- not floorMod
    want = abs(java_rem(string_hash(key), n))
    sel = backend.SelectMessageQueueByHash()
    assert sel.select_index(key, n) == want
    mqs = _mqs(backend, n)
    assert sel.select(mqs, None, key) == mqs[want]


@given(key=java_ints, n=st.integers(1, 2000))
def test_hash_selector_int_key(backend, key, n):
    assert backend.SelectMessageQueueByHash("int").select_index(key, n) == abs(java_rem(key, n))


@given(key=java_longs, n=st.integers(1, 2000))
def test_hash_selector_long_key(backend, key, n):
    assert backend.SelectMessageQueueByHash("long").select_index(key, n) == abs(java_rem(long_hash(key), n))


def test_hash_selector_is_not_floor_mod(backend):
    # "polygenelubricants".hashCode() == Integer.MIN_VALUE; MIN_VALUE % 3 == -2 in Java, so the pick is 2
    # (floorMod would give 1)
    assert java_rem(INT_MIN, 3) == -2
    assert backend.SelectMessageQueueByHash().select_index("polygenelubricants", 3) == 2
    assert backend.SelectMessageQueueByHash("int").select_index(INT_MIN, 3) == 2


def test_hash_selector_message_queue_key(backend):
    key = backend.MessageQueue("T", "broker-a", 7)
    want = abs(java_rem(key.java_hash_code(), 5))
    assert backend.SelectMessageQueueByHash().select_index(key, 5) == want


def test_hash_selector_key_type(backend):
    assert backend.SelectMessageQueueByHash().key_type is None
    assert backend.SelectMessageQueueByHash(key_type="long").key_type == "long"
    with pytest.raises(IllegalArgumentError):
        backend.SelectMessageQueueByHash(key_type="float")


def test_hash_selector_empty_queue_list_divides_by_zero(backend):
    for key_type, key in ((None, "k"), ("int", 5), ("long", -1)):
        sel = backend.SelectMessageQueueByHash(key_type)
        with pytest.raises(JavaArithmeticError):
            sel.select([], None, key)
        with pytest.raises(JavaArithmeticError):
            sel.select_index(key, 0)


def test_hash_selector_key_checks(backend):
    mqs = _mqs(backend, 4)
    with pytest.raises(TypeError):
        backend.SelectMessageQueueByHash().select(mqs, None, 5)  # int key without key_type: Integer or Long?
    with pytest.raises(TypeError):
        backend.SelectMessageQueueByHash("int").select(mqs, None, "5")
    with pytest.raises(TypeError):
        backend.SelectMessageQueueByHash().select(mqs, None, 1.5)
    with pytest.raises(NullPointerError):
        backend.SelectMessageQueueByHash().select(mqs, None, None)
    with pytest.raises(NullPointerError):
        backend.SelectMessageQueueByHash().select(None, None, "k")
    with pytest.raises(IllegalArgumentError):
        backend.SelectMessageQueueByHash("int").select(mqs, None, 2**31)


@given(seed=java_longs, n=st.integers(1, 64))
def test_random_selector_is_reproducible(backend, seed, n):
    mqs = _mqs(backend, n)
    a, b = backend.SelectMessageQueueByRandom(seed), backend.SelectMessageQueueByRandom(backend.JavaRandom(seed))
    picks = [a.select(mqs, None, None) for _ in range(10)]
    assert picks == [mqs[b.select_index(n)] for _ in range(10)]
    r = backend.JavaRandom(seed)
    assert [q.queue_id for q in picks] == [r.next_int(n) for _ in range(10)]


def test_random_selector_empty_queue_list(backend):
    with pytest.raises(IllegalArgumentError) as ei:
        backend.SelectMessageQueueByRandom(1).select([], None, None)
    assert ei.value.java_class == "java.lang.IllegalArgumentException"


def test_machine_room_selector_returns_none(backend):
    sel = backend.SelectMessageQueueByMachineRoom({"room1"})
    assert sel.select(_mqs(backend, 3), None, "k") is None
    assert sel.consumer_idcs == frozenset({"room1"})
    assert backend.SelectMessageQueueByMachineRoom().consumer_idcs is None


def test_selectors_implement_the_protocol(backend):
    for sel in (
        backend.SelectMessageQueueByHash(),
        backend.SelectMessageQueueByRandom(1),
        backend.SelectMessageQueueByMachineRoom(),
    ):
        assert isinstance(sel, MessageQueueSelector)
    mqs = _mqs(backend, 3)
    custom = as_selector(lambda queues, msg, arg: queues[arg])
    assert custom.select(mqs, None, 2) == mqs[2]
    with pytest.raises(TypeError):
        as_selector(42)


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_publish_info_round_robin(backend, compat):
    mqs = _mqs(backend, 5)
    tp = backend.TopicPublishInfo(mqs, compat=compat)
    tp.send_which_queue.set(-1)
    assert [tp.select_one_message_queue() for _ in range(12)] == [mqs[i % 5] for i in range(12)]
    assert tp.send_which_queue.get() == 11


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_publish_info_avoids_the_last_broker(backend, compat):
    mqs = [backend.MessageQueue("T", b, i) for b in ("broker-a", "broker-b") for i in range(3)]
    tp = backend.TopicPublishInfo(mqs, compat=compat)
    for start in range(-1, 7):
        tp.send_which_queue.set(start)
        assert tp.select_one_message_queue("broker-a").broker_name == "broker-b"
    # a single broker: after a full turn of 3 picks, one more pick whatever its broker
    single = backend.TopicPublishInfo(mqs[:3], compat=compat)
    single.send_which_queue.set(-1)
    assert single.select_one_message_queue("broker-a") == mqs[3 % 3]
    assert single.send_which_queue.get() == -1 + 3 + 1


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_publish_info_empty(backend, compat):
    tp = backend.TopicPublishInfo([], compat=compat)
    assert tp.ok() is False
    with pytest.raises(JavaArithmeticError):
        tp.select_one_message_queue()
    with pytest.raises(JavaArithmeticError):
        tp.select_one_message_queue("broker-a")
    assert tp.select_one_message_queue_filtered(lambda q: True) is None
    assert tp.select_one_message_queue_filtered() is None
