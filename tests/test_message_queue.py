"""MessageQueue: immutable, hashable, a dict key, Java's compareTo order, input checks."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError, NullPointerError

from ._java import INT_MAX, INT_MIN, java_text, string_hash, to_int, utf16_units


def test_fields(backend):
    q = backend.MessageQueue("TopicTest", "broker-a", 3)
    assert (q.topic, q.broker_name, q.queue_id) == ("TopicTest", "broker-a", 3)


@pytest.mark.parametrize("attr", ["topic", "broker_name", "queue_id", "something_else"])
def test_is_immutable(backend, attr):
    q = backend.MessageQueue("TopicTest", "broker-a", 3)
    with pytest.raises(AttributeError):
        setattr(q, attr, 1)
    assert (q.topic, q.broker_name, q.queue_id) == ("TopicTest", "broker-a", 3)


def test_is_hashable_and_a_dict_key(backend):
    mq = backend.MessageQueue
    counts = {mq("T", "broker-a", 0): 1, mq("T", "broker-b", 0): 2}
    assert counts[mq("T", "broker-a", 0)] == 1
    assert counts[mq("T", "broker-b", 0)] == 2
    assert mq("T", "broker-a", 1) not in counts
    assert hash(mq("T", "broker-a", 0)) == hash(mq("T", "broker-a", 0))
    assert len({mq("T", "b", 1), mq("T", "b", 1), mq("T", "b", 2), mq("U", "b", 1)}) == 3


def test_equality(backend):
    mq = backend.MessageQueue
    assert mq("T", "b", 1) == mq("T", "b", 1)
    assert mq("T", "b", 1) != mq("T", "b", 2)
    assert mq("T", "b", 1) != mq("T", "c", 1)
    assert mq("T", "b", 1) != mq("U", "b", 1)
    assert mq(None, None, 0) == mq(None, None, 0)
    assert mq("T", "b", 1) != ("T", "b", 1)
    assert mq("T", "b", 1) != "MessageQueue [topic=T, brokerName=b, queueId=1]"
    assert mq("T", "b", 1) is not None


def test_pickle_round_trip(backend):
    # Spark ships queues to its workers by pickling them
    for q in (backend.MessageQueue("T\U0001f600", "broker-a", -7), backend.MessageQueue(None, None, 0)):
        back = pickle.loads(pickle.dumps(q))
        assert back == q
        assert type(back) is type(q)
        assert back.java_hash_code() == q.java_hash_code()


@pytest.mark.parametrize("queue_id", [INT_MAX + 1, INT_MIN - 1, 2**63])
def test_queue_id_outside_int_is_rejected(backend, queue_id):
    with pytest.raises(IllegalArgumentError):
        backend.MessageQueue("T", "b", queue_id)


def test_queue_id_bounds_are_accepted(backend):
    assert backend.MessageQueue("T", "b", INT_MAX).queue_id == INT_MAX
    assert backend.MessageQueue("T", "b", INT_MIN).queue_id == INT_MIN


def test_wrong_types_are_rejected(backend):
    with pytest.raises(TypeError):
        backend.MessageQueue("T", "b", "1")
    with pytest.raises(TypeError):
        backend.MessageQueue(1, "b", 1)
    with pytest.raises(TypeError):
        backend.MessageQueue("T", b"b", 1)


def test_null_fields_print_as_null_and_cannot_be_ordered(backend):
    mq = backend.MessageQueue
    assert str(mq(None, None, 5)) == "MessageQueue [topic=null, brokerName=null, queueId=5]"
    with pytest.raises(NullPointerError):
        mq(None, "b", 0).compare_to(mq("T", "b", 0))
    with pytest.raises(NullPointerError):
        mq("T", "b", 0).compare_to(mq(None, "b", 0))
    with pytest.raises(NullPointerError):
        mq("T", None, 0).compare_to(mq("T", "b", 0))
    with pytest.raises(NullPointerError):
        sorted([mq("T", "b", 0), mq(None, "b", 0)])


@given(topic=java_text, broker=java_text, queue_id=st.integers(INT_MIN, INT_MAX))
def test_java_hash_code_formula(backend, topic, broker, queue_id):
    # README: 31*(31*(31*1+hash(broker))+queueId)+hash(topic), int arithmetic
    want = to_int(31 * (31 * (31 + string_hash(broker)) + queue_id) + string_hash(topic))
    assert backend.MessageQueue(topic, broker, queue_id).java_hash_code() == want


# queue ids small enough that ``a - b`` cannot overflow: there compareTo is a true total order
_small_ids = st.integers(-(2**30), 2**30 - 1)
_queues = st.tuples(st.sampled_from(["T", "U", "T\U0001f600", "T\uff5e", ""]), java_text, _small_ids)


@given(a=_queues, b=_queues)
def test_compare_to_is_antisymmetric_and_agrees_with_utf16_order(backend, a, b):
    qa, qb = backend.MessageQueue(*a), backend.MessageQueue(*b)
    ab, ba = qa.compare_to(qb), qb.compare_to(qa)
    assert (ab > 0) - (ab < 0) == -((ba > 0) - (ba < 0))
    assert (ab == 0) == (qa == qb)
    key_a = (utf16_units(a[0]), utf16_units(a[1]), a[2])
    key_b = (utf16_units(b[0]), utf16_units(b[1]), b[2])
    assert (ab > 0) - (ab < 0) == (key_a > key_b) - (key_a < key_b)
    if a[:2] == b[:2]:
        assert ab == a[2] - b[2]


@given(items=st.lists(_queues, max_size=12))
def test_sorted_is_the_utf16_order(backend, items):
    queues = [backend.MessageQueue(*t) for t in items]
    got = [(q.topic, q.broker_name, q.queue_id) for q in sorted(queues)]
    want = sorted(items, key=lambda t: (utf16_units(t[0]), utf16_units(t[1]), t[2]))
    assert got == want


def test_compare_to_overflows_like_java(backend):
    # README: queueId is compared with this.queueId - o.queueId, which overflows
    lo, one = backend.MessageQueue("T", "b", INT_MIN), backend.MessageQueue("T", "b", 1)
    assert lo.compare_to(one) == to_int(INT_MIN - 1) > 0
    assert one.compare_to(lo) == to_int(1 - INT_MIN) < 0


def test_compare_to_rejects_other_types(backend):
    with pytest.raises(TypeError):
        backend.MessageQueue("T", "b", 1).compare_to(("T", "b", 1))
