"""``rebalance`` (RebalanceImpl's sort, allocate, compare with what the consumer owned) and ``churn`` (what an
assignment change moves), on both backends' strategies and queues."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError

from ._java import utf16_units

ASTRAL = "\U0001f600"  # UTF-16: D83D DE00, which sorts before U+FF5E in Java, after it by code point
FF5E = "\uff5e"

TOPICS = ["T", "TopicB", "\u4e3b\u9898", ASTRAL, FF5E, f"{ASTRAL}x", f"{FF5E}x"]
BROKERS = ["broker-a", "broker-b", ASTRAL, FF5E]
QUEUE_POOL = [(t, b, q) for t in TOPICS for b in BROKERS for q in range(12)]
CID_POOL = [f"{p}{i}" for p in ("a", "a-", "b@", ASTRAL, FF5E, f"x{ASTRAL}", f"x{FF5E}") for i in range(12)]
queue_specs = st.lists(st.sampled_from(QUEUE_POOL), min_size=1, max_size=48, unique=True)
cid_lists = st.lists(st.sampled_from(CID_POOL), min_size=1, max_size=10, unique=True)


def java_mq_key(mq):
    """MessageQueue.compareTo for small queue ids: topic, broker (String.compareTo), then queue id."""
    return (utf16_units(mq.topic), utf16_units(mq.broker_name), mq.queue_id)


def java_sorted_cids(cids):
    return sorted(cids, key=utf16_units)


def partitioning_strategies(backend):
    return [
        backend.AllocateMessageQueueAveragely(),
        backend.AllocateMessageQueueAveragelyByCircle(),
        backend.AllocateMessageQueueConsistentHash(5),
    ]


def test_astral_consumer_sorts_before_ff5e(backend):
    # Java: "\ud83d\ude00" < "\uff5e" (first code unit D83D < FF5E); code-point order says the opposite
    assert utf16_units(ASTRAL) < utf16_units(FF5E) and ASTRAL > FF5E
    mqs = [backend.MessageQueue("T", "b", 0), backend.MessageQueue("T", "b", 1)]
    avg = backend.AllocateMessageQueueAveragely()
    for cids in ([FF5E, ASTRAL], [ASTRAL, FF5E]):
        assert backend.rebalance(avg, "G", ASTRAL, mqs, cids).assigned == (mqs[0],)
        assert backend.rebalance(avg, "G", FF5E, mqs, cids).assigned == (mqs[1],)


def test_astral_topic_sorts_before_ff5e(backend):
    mqs = [backend.MessageQueue(FF5E, "b", 0), backend.MessageQueue(ASTRAL, "b", 0)]
    avg = backend.AllocateMessageQueueAveragely()
    assert backend.rebalance(avg, "G", "c0", mqs, ["c1", "c0"]).assigned == (mqs[1],)
    assert backend.rebalance(avg, "G", "c1", mqs, ["c1", "c0"]).assigned == (mqs[0],)


@given(specs=queue_specs, cids=cid_lists, data=st.data())
def test_rebalance_sorts_before_allocating(backend, specs, cids, data):
    mqs = [backend.MessageQueue(*s) for s in specs]
    shuffled_mqs = data.draw(st.permutations(mqs))
    shuffled_cids = data.draw(st.permutations(cids))
    sorted_mqs = sorted(mqs, key=java_mq_key)
    sorted_cids = java_sorted_cids(cids)
    for strategy in partitioning_strategies(backend):
        for cid in cids:
            want = tuple(strategy.allocate("G", cid, sorted_mqs, sorted_cids))
            assert backend.rebalance(strategy, "G", cid, shuffled_mqs, shuffled_cids).assigned == want
            assert backend.rebalance(strategy, "G", cid, sorted_mqs, sorted_cids).assigned == want


@given(specs=queue_specs, cids=cid_lists, data=st.data())
def test_rebalance_added_and_dropped(backend, specs, cids, data):
    mqs = [backend.MessageQueue(*s) for s in specs]
    cid = data.draw(st.sampled_from(cids))
    owned = data.draw(st.lists(st.sampled_from(mqs), max_size=10, unique=True))
    strategy = backend.AllocateMessageQueueAveragelyByCircle()
    result = backend.rebalance(strategy, "G", cid, mqs, cids, owned=owned)
    assigned = result.assigned
    assert result.added == tuple(q for q in assigned if q not in owned)
    assert result.dropped == tuple(q for q in owned if q not in assigned)
    # owning exactly the assignment changes nothing
    steady = backend.rebalance(strategy, "G", cid, mqs, cids, owned=assigned)
    assert steady.assigned == assigned and steady.added == () and steady.dropped == ()


def test_rebalance_small_example(backend):
    q = [backend.MessageQueue("T", "b", i) for i in range(4)]
    avg = backend.AllocateMessageQueueAveragely()
    # sorted: [q0..q3], consumers [a, b]: b gets q2, q3
    result = backend.rebalance(avg, "G", "b", [q[3], q[1], q[2], q[0]], ["b", "a"], owned=[q[1], q[2]])
    assert result.assigned == (q[2], q[3])
    assert result.added == (q[3],)
    assert result.dropped == (q[1],)
    # a consumer that is not in the group is given nothing and drops everything
    result = backend.rebalance(avg, "G", "z", q, ["a", "b"], owned=[q[0]])
    assert (result.assigned, result.added, result.dropped) == ((), (), (q[0],))


def test_rebalance_ignores_duplicate_queues(backend):
    mqs = [backend.MessageQueue("T", "b", i) for i in range(5)]
    twice = [*mqs, *reversed(mqs)]
    for strategy in partitioning_strategies(backend):
        for cid in ("a", "b"):
            assert (
                backend.rebalance(strategy, "G", cid, twice, ["a", "b"]).assigned
                == backend.rebalance(strategy, "G", cid, mqs, ["a", "b"]).assigned
            )


def test_rebalance_propagates_strategy_errors(backend):
    with pytest.raises(IllegalArgumentError, match=r"^mqAll is null or mqAll empty$"):
        backend.rebalance(backend.AllocateMessageQueueAveragely(), "G", "a", [], ["a"])
    with pytest.raises(IllegalArgumentError, match=r"^currentCID is empty$"):
        backend.rebalance(backend.AllocateMessageQueueAveragely(), "G", "", [backend.MessageQueue("T", "b", 0)], ["a"])


# ---------------------------------------------------------------------------------------------- churn


def owners_of(assignment):
    owners = {}
    for cid, queues in assignment.items():
        for q in queues or ():
            owners.setdefault(q, set()).add(cid)
    return owners


def assert_churn_matches(backend, before, after, load):
    c = backend.churn(before, after, load)
    ob, oa = owners_of(before), owners_of(after)
    moved = {q for q in oa if q in ob and ob[q] != oa[q]}
    assert {m[0] for m in c.moved} == moved
    for q, was, now in c.moved:
        assert set(was) == ob[q] and set(now) == oa[q]
    assert set(c.added) == set(oa) - set(ob)
    assert set(c.removed) == set(ob) - set(oa)
    assert c.queues_total == len(oa)
    assert c.queues_moved == len(moved)
    assert c.moved_share == (len(moved) / len(oa) if oa else 0.0)
    assert c.load_moved == pytest.approx(sum(load.get(q, 0) for q in moved))
    assert c.load_total == pytest.approx(sum(load.get(q, 0) for q in oa))
    return c


@given(specs=queue_specs, cids=st.lists(st.sampled_from(CID_POOL), min_size=2, max_size=10, unique=True))
def test_churn_when_a_consumer_joins_and_leaves(backend, specs, cids):
    mqs = sorted((backend.MessageQueue(*s) for s in specs), key=java_mq_key)
    load = {q: float(i % 7) + 0.5 for i, q in enumerate(mqs)}
    for strategy in partitioning_strategies(backend):
        full = backend.allocate_all(strategy, mqs, java_sorted_cids(cids))
        without = backend.allocate_all(strategy, mqs, java_sorted_cids(cids[1:]))
        leave = assert_churn_matches(backend, full, without, load)
        join = assert_churn_matches(backend, without, full, load)
        assert leave.added == () and leave.removed == () and join.added == () and join.removed == ()
        assert leave.queues_total == join.queues_total == len(mqs)
        if strategy.name == "CONSISTENT_HASH":
            # only the leaver's queues move, to the others; joining takes back exactly those
            gone = set(full[cids[0]])
            assert {m[0] for m in leave.moved} == gone
            assert {m[0] for m in join.moved} == gone
            assert leave.load_moved == pytest.approx(sum(load[q] for q in gone))


def test_churn_small_example(backend):
    q = [backend.MessageQueue("T", "b", i) for i in range(4)]
    before = {"a": [q[0], q[1]], "b": [q[2], q[3]]}
    after = {"a": [q[0]], "b": [q[2], q[3]], "c": [q[1]]}
    c = backend.churn(before, after, {q[0]: 1.0, q[1]: 2.5, q[2]: 1.0, q[3]: 1.0})
    assert c.moved == ((q[1], frozenset({"a"}), frozenset({"c"})),)
    assert c.added == () and c.removed == ()
    assert c.queues_total == 4 and c.queues_moved == 1 and c.moved_share == 0.25
    assert c.load_moved == 2.5 and c.load_total == 5.5
    # without load, no load figures
    c = backend.churn(before, after)
    assert c.load_moved is None and c.load_total is None


def test_churn_queue_count_change(backend):
    q = [backend.MessageQueue("T", "b", i) for i in range(6)]
    avg = backend.AllocateMessageQueueAveragely()
    four = backend.allocate_all(avg, q[:4], ["a", "b"])  # a: q0 q1, b: q2 q3
    six = backend.allocate_all(avg, q, ["a", "b"])  # a: q0 q1 q2, b: q3 q4 q5
    grow = backend.churn(four, six)
    assert set(grow.added) == {q[4], q[5]} and grow.removed == ()
    assert grow.moved == ((q[2], frozenset({"b"}), frozenset({"a"})),)
    shrink = backend.churn(six, four)
    assert shrink.added == () and set(shrink.removed) == {q[4], q[5]}
    assert shrink.queues_total == 4
    # None (CONFIG without a list) counts as no queues
    assert backend.churn({"a": None}, {"a": [q[0]]}).added == (q[0],)
