"""``AllocateMessageQueueConsistentHashBounded`` on both backends: the assignment partitions the queues and no
consumer exceeds ``ceil(load_factor * queues / consumers)`` (exact arithmetic, edge cases), the placement walks
RocketMQ's ring as an independent oracle does, a custom hash function works, bad input raises the documented
exceptions."""

from __future__ import annotations

import math
import re
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError

from .test_allocate import (
    CID_POOL,
    QUEUE_POOL,
    HashBoom,
    assert_allocate_all_matches,
    assert_illegal,
    key,
    md5_oracle,
    mqs_of,
    signed_crc,
)

queue_specs = st.lists(st.sampled_from(QUEUE_POOL), min_size=1, max_size=64, unique=True)
unique_cids = st.lists(st.sampled_from(CID_POOL), min_size=1, max_size=10, unique=True)
load_factors = st.one_of(
    st.sampled_from([1.0, 1.25, 1.5, 2.0, 1.1, 1.2, 1e9]),
    st.floats(1.0, 4.0),
    st.integers(1, 5),
)
vnode_counts = st.integers(1, 16)


def capacity_oracle(load_factor, n_mq, n_cid):
    return min(math.ceil(Fraction(load_factor) * n_mq / n_cid), n_mq)


def bounded_oracle(mqs, cids, vnodes, load_factor, hash_function=md5_oracle):
    """The bounded-load walk written out over a TreeMap-like ring (a later put with the same hash wins)."""
    table = {}
    for node in cids:
        for i in range(vnodes):
            table[hash_function(f"{node}-{i}")] = node
    ring = sorted(table.items())
    cap = capacity_oracle(load_factor, len(mqs), len(cids))
    load = dict.fromkeys(cids, 0)
    out = {c: [] for c in cids}
    for mq in mqs:
        owner = None
        if ring:
            h = hash_function(str(mq))
            start = next((i for i, (k, _) in enumerate(ring) if k >= h), len(ring))
            for step in range(len(ring)):
                node = ring[(start + step) % len(ring)][1]
                if load[node] < cap:
                    owner = node
                    break
        if owner is None:  # the ring's consumers are full: the least loaded, the earlier on a tie
            owner = min(cids, key=lambda c: (load[c], cids.index(c)))
        load[owner] += 1
        out[owner].append(mq)
    return out


# ---------------------------------------------------------------------------------------------- basics


def test_name_properties_and_repr(backend):
    b = backend.AllocateMessageQueueConsistentHashBounded()
    assert b.name == "CONSISTENT_HASH_BOUNDED"
    assert (b.load_factor, b.virtual_node_cnt, b.hash_function) == (1.25, 10, None)
    assert repr(b) == "AllocateMessageQueueConsistentHashBounded(load_factor=1.25, virtual_node_cnt=10)"
    b = backend.AllocateMessageQueueConsistentHashBounded(2, 3, len)
    assert (b.load_factor, b.virtual_node_cnt, b.hash_function) == (2.0, 3, len)
    assert type(b.load_factor) is float
    assert repr(b) == "AllocateMessageQueueConsistentHashBounded(load_factor=2.0, virtual_node_cnt=3)"
    # None: the defaults
    b = backend.AllocateMessageQueueConsistentHashBounded(None, None, None)
    assert (b.load_factor, b.virtual_node_cnt) == (1.25, 10)


NEXT_ABOVE_ONE = math.nextafter(1.0, 2.0)


@pytest.mark.parametrize(
    ("load_factor", "n_mq", "n_cid", "want"),
    [
        (1.0, 10, 3, 4),
        (1.0, 9, 3, 3),
        (1.25, 8, 2, 5),
        (1.25, 16, 5, 4),
        (1.5, 7, 3, 4),
        (2.0, 6, 4, 3),
        # 1.1 is 1.100000000000000088...: 1.1 * 100 / 10 is a little above 11
        (1.1, 100, 10, 12),
        # 1.2 is 1.199999999999999955...: a little below 12
        (1.2, 100, 10, 12),
        (1.2, 5, 1, 5),  # never more than the queues
        (NEXT_ABOVE_ONE, 12, 4, 4),
        (NEXT_ABOVE_ONE, 12, 3, 5),
        (1e300, 5, 2, 5),
        (3.0, 5, 3, 5),
        (1.0, 0, 3, 0),
        (1.0, 2**31 - 1, 2**31 - 1, 1),
        (1.5, 2**31 - 1, 2, 1610612736),
        (1.0, 1, 2**31 - 1, 1),
    ],
)
def test_capacity_edge_cases(backend, load_factor, n_mq, n_cid, want):
    assert capacity_oracle(load_factor, n_mq, n_cid) == want
    assert backend.AllocateMessageQueueConsistentHashBounded(load_factor).capacity(n_mq, n_cid) == want


@given(
    load_factor=st.one_of(st.floats(1.0, 16.0), st.floats(1.0, 1e30), st.integers(1, 2**64)),
    n_mq=st.integers(0, 2**31 - 1),
    n_cid=st.integers(1, 2**31 - 1),
)
def test_capacity_is_exact(backend, load_factor, n_mq, n_cid):
    b = backend.AllocateMessageQueueConsistentHashBounded(load_factor)
    assert b.capacity(n_mq, n_cid) == capacity_oracle(float(load_factor), n_mq, n_cid)


# ---------------------------------------------------------------------------------------------- properties


@given(specs=queue_specs, cids=unique_cids, vnodes=st.integers(0, 16), load_factor=load_factors)
def test_partitions_within_capacity(backend, specs, cids, vnodes, load_factor):
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueConsistentHashBounded(load_factor, vnodes)
    got = strategy.allocate_all(mqs, cids)
    assert list(got) == cids
    assert Counter(key(q) for qs in got.values() for q in qs) == Counter(key(q) for q in mqs)
    cap = strategy.capacity(len(mqs), len(cids))
    assert cap == capacity_oracle(load_factor, len(mqs), len(cids))
    assert max(len(qs) for qs in got.values()) <= cap
    position = {q: i for i, q in enumerate(mqs)}
    for qs in got.values():
        assert [position[q] for q in qs] == sorted(position[q] for q in qs)


@given(specs=queue_specs, cids=unique_cids, vnodes=st.integers(0, 16), load_factor=load_factors)
def test_follows_the_ring(backend, specs, cids, vnodes, load_factor):
    mqs = mqs_of(backend, specs)
    got = backend.AllocateMessageQueueConsistentHashBounded(load_factor, vnodes).allocate_all(mqs, cids)
    assert got == bounded_oracle(mqs, cids, vnodes, load_factor)


@given(specs=queue_specs, cids=unique_cids, vnodes=vnode_counts, load_factor=load_factors)
def test_each_member_allocates_its_part(backend, specs, cids, vnodes, load_factor):
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueConsistentHashBounded(load_factor, vnodes)
    everyone = strategy.allocate_all(mqs, cids)
    for cid in cids:
        assert strategy.allocate("G", cid, mqs, cids) == everyone[cid]
    assert backend.allocate_all(strategy, mqs, cids, "G") == everyone
    assert strategy.allocate("G", "stranger", mqs, cids) == []
    assert_allocate_all_matches(backend, strategy, mqs, cids)


@given(specs=queue_specs, cids=unique_cids, vnodes=vnode_counts)
def test_an_unbinding_capacity_is_consistent_hash(backend, specs, cids, vnodes):
    mqs = mqs_of(backend, specs)
    bounded = backend.AllocateMessageQueueConsistentHashBounded(float(len(cids)), vnodes)
    plain = backend.AllocateMessageQueueConsistentHash(vnodes)
    assert bounded.allocate_all(mqs, cids) == backend.allocate_all(plain, mqs, cids)


@given(specs=queue_specs, cids=unique_cids, vnodes=vnode_counts)
def test_load_factor_one_is_within_one_of_even(backend, specs, cids, vnodes):
    mqs = mqs_of(backend, specs)
    got = backend.AllocateMessageQueueConsistentHashBounded(1.0, vnodes).allocate_all(mqs, cids)
    assert max(len(qs) for qs in got.values()) <= -(-len(mqs) // len(cids))


def test_zero_virtual_nodes_balance_by_load(backend):
    # no ring at all: every queue goes to the least loaded consumer
    mqs = mqs_of(backend, [("T", "b", q) for q in range(5)])
    got = backend.AllocateMessageQueueConsistentHashBounded(1.25, 0).allocate_all(mqs, ["c0", "c1"])
    assert got == {"c0": [mqs[0], mqs[2], mqs[4]], "c1": [mqs[1], mqs[3]]}


def test_duplicates_count_once(backend):
    mqs = mqs_of(backend, [("T", "b", q) for q in range(6)])
    strategy = backend.AllocateMessageQueueConsistentHashBounded(1.0, 4)
    got = strategy.allocate_all([*mqs, mqs[0], mqs[5]], ["a", "b", "a"])
    assert got == strategy.allocate_all(mqs, ["a", "b"])
    assert sorted(len(qs) for qs in got.values()) == [3, 3]


# ---------------------------------------------------------------------------------------------- hash functions


@pytest.mark.parametrize("hash_function", [len, signed_crc, lambda k: -len(k) * 1_000_003])
def test_custom_hash_function(backend, hash_function):
    # with len, "a-0" and "c-0" collide: the later put wins, so "a" has no ring entry and takes the overflow
    cids = ["a", "bb-1", "c", "dddd-333", "\U0001f600"]
    mqs = mqs_of(backend, [(t, b, q) for t in ("T", "TopicLonger") for b in ("b", "broker-xyz") for q in range(6)])
    strategy = backend.AllocateMessageQueueConsistentHashBounded(1.0, 3, hash_function)
    got = strategy.allocate_all(mqs, cids)
    assert got == bounded_oracle(mqs, cids, 3, 1.0, hash_function)
    assert {c: strategy.allocate("G", c, mqs, cids) for c in cids} == got
    assert max(len(qs) for qs in got.values()) <= strategy.capacity(len(mqs), len(cids))


def test_hash_function_exceptions_propagate(backend):
    def boom(k: str) -> int:
        raise HashBoom(k)

    strategy = backend.AllocateMessageQueueConsistentHashBounded(1.25, 2, boom)
    mqs = mqs_of(backend, [("T", "b", 0)])
    with pytest.raises(HashBoom):
        strategy.allocate("G", "c", mqs, ["c"])
    with pytest.raises(HashBoom):
        backend.allocate_all(strategy, mqs, ["c"])
    # no ring, nothing hashed
    assert backend.AllocateMessageQueueConsistentHashBounded(1.25, 0, boom).allocate_all(mqs, ["c"]) == {"c": mqs}

    def queues_boom(k: str) -> int:
        if k.startswith("MessageQueue"):
            raise HashBoom(k)
        return 1

    with pytest.raises(HashBoom, match="queueId=0"):
        backend.AllocateMessageQueueConsistentHashBounded(1.25, 2, queues_boom).allocate_all(mqs, ["c"])


@pytest.mark.parametrize("bad", [lambda k: "1", lambda k: 1.5, lambda k: None, lambda k: 2**63])
def test_hash_function_must_return_a_java_long(backend, bad):
    strategy = backend.AllocateMessageQueueConsistentHashBounded(1.25, 1, hash_function=bad)
    mqs = mqs_of(backend, [("T", "b", 0)])
    error = IllegalArgumentError if bad("") == 2**63 else TypeError
    with pytest.raises(error):
        strategy.allocate("G", "a", mqs, ["a"])
    with pytest.raises(error):
        strategy.allocate_all(mqs, ["a"])


# ---------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("load_factor", [0.5, 0.0, -1, 0, 0.9999999999999999, math.nan, math.inf, -math.inf, 10**400])
def test_load_factor_must_be_finite_and_at_least_one(backend, load_factor):
    assert_illegal(
        lambda: backend.AllocateMessageQueueConsistentHashBounded(load_factor),
        f"load_factor must be a finite number >= 1.0, not {load_factor!r}",
    )


@pytest.mark.parametrize("load_factor", ["1.5", True, [], b"1", Fraction(3, 2)])
def test_load_factor_must_be_a_number(backend, load_factor):
    with pytest.raises(TypeError) as ei:
        backend.AllocateMessageQueueConsistentHashBounded(load_factor)
    # the reference's words, or PyO3's for an argument
    wanted = rf"(load_factor |argument 'load_factor': )must be a float, not {type(load_factor).__name__}"
    assert re.fullmatch(wanted, str(ei.value))


def test_other_arguments(backend):
    bounded = backend.AllocateMessageQueueConsistentHashBounded
    assert_illegal(lambda: bounded(1.25, -1), "illegal virtualNodeCnt :-1")
    with pytest.raises(TypeError, match=r"virtual_node_cnt'?:? must be an int, not float"):
        bounded(1.25, 1.5)
    with pytest.raises(TypeError, match="hash_function must be a callable"):
        bounded(1.25, 3, "md5")
    b = bounded()
    assert_illegal(lambda: b.capacity(-1, 1), "queue_count must not be negative: -1")
    assert_illegal(lambda: b.capacity(1, 0), "consumer_count must be positive: 0")
    assert_illegal(lambda: b.capacity(2**31, 1), "queue_count 2147483648 is out of the Java int range")
    with pytest.raises(TypeError, match=r"consumer_count'?:? must be an int, not float"):
        b.capacity(1, 1.0)


@pytest.mark.parametrize("mq_all", [[], None])
def test_empty_lists_and_ids_like_java(backend, mq_all):
    b = backend.AllocateMessageQueueConsistentHashBounded()
    mqs = mqs_of(backend, [("T", "b", 0)])
    assert_illegal(lambda: b.allocate("G", "c", mq_all, ["c"]), "mqAll is null or mqAll empty")
    assert_illegal(lambda: b.allocate_all(mq_all, ["c"]), "mqAll is null or mqAll empty")
    assert_illegal(lambda: b.allocate("G", "c", mqs, mq_all), "cidAll is null or cidAll empty")
    assert_illegal(lambda: b.allocate("G", "", mqs, ["c"]), "currentCID is empty")
    assert_illegal(lambda: backend.allocate_all(b, mqs, ["", "c"]), "currentCID is empty")
    assert b.allocate_all(mqs, mq_all) == {}


def test_threads_share_one_strategy(backend):
    # the native strategy caches the last ring: threads asking about different groups must not mix them up
    from concurrent.futures import ThreadPoolExecutor

    mqs = mqs_of(backend, [("T", f"b{b}", q) for b in range(3) for q in range(8)])
    groups = [[f"c{i}" for i in range(n)] for n in (2, 3, 5, 7)]
    strategy = backend.AllocateMessageQueueConsistentHashBounded(1.25, 5)
    want = [strategy.allocate_all(mqs, cids) for cids in groups]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda i: strategy.allocate_all(mqs, groups[i % 4]), range(400)))
    assert got == [want[i % 4] for i in range(400)]
