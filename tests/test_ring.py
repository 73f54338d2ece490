"""``ConsistentHashRouter`` on both backends: add / remove / existing_replicas / route, virtual-node numbering,
collisions (the later put wins), and routing checked against an MD5 ring written out here."""

from __future__ import annotations

import bisect
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError

from ._java import java_text

node_names = st.text(alphabet="ab-@#9\U0001f600", min_size=1, max_size=5)


def md5_oracle(key: str) -> int:
    return int.from_bytes(hashlib.md5(key.encode("utf-8")).digest()[:4], "big")


def vnode_keys(router, node):
    return sorted((v for _, v, n in router.ring() if n == node), key=lambda v: int(v.rpartition("-")[2]))


def table_hash(table):
    """A hash function from a lookup table (the key must be in it)."""
    return lambda key: table[key]


def test_add_node_numbers_replicas_after_existing_ones(backend):
    router = backend.ConsistentHashRouter([], 3)
    assert len(router) == 0
    router.add_node("a", 3)
    assert router.existing_replicas("a") == 3
    assert vnode_keys(router, "a") == ["a-0", "a-1", "a-2"]
    router.add_node("a", 2)  # continues after the existing replicas
    assert router.existing_replicas("a") == 5
    assert vnode_keys(router, "a") == ["a-0", "a-1", "a-2", "a-3", "a-4"]
    router.add_node("b", 0)  # nothing added
    assert router.existing_replicas("b") == 0
    assert len(router) == 5
    router.remove_node("a")
    assert router.existing_replicas("a") == 0
    assert len(router) == 0
    router.add_node("a", 2)  # removal restarts the numbering
    assert vnode_keys(router, "a") == ["a-0", "a-1"]


def test_constructor_adds_each_node_with_the_count(backend):
    router = backend.ConsistentHashRouter(["x", "y", "x"], 2)
    # a repeated node is added again: its replicas continue at x-2
    assert vnode_keys(router, "x") == ["x-0", "x-1", "x-2", "x-3"]
    assert vnode_keys(router, "y") == ["y-0", "y-1"]
    assert len(router) == 6
    for h, vnode, _ in router.ring():
        assert h == md5_oracle(vnode) == backend.md5_hash(vnode)


def test_remove_and_unknown_nodes(backend):
    router = backend.ConsistentHashRouter(["a", "b"], 4)
    router.remove_node("nobody")  # no-op
    assert len(router) == 8
    assert router.existing_replicas("nobody") == 0
    router.remove_node("a")
    assert len(router) == 4
    assert {router.route_node(k) for k in map(str, range(50))} == {"b"}
    router.remove_node("b")
    assert router.route_node("anything") is None


def test_empty_ring_routes_to_none(backend):
    for router in (backend.ConsistentHashRouter([], 5), backend.ConsistentHashRouter(["a", "b"], 0)):
        assert len(router) == 0
        assert router.ring() == []
        assert router.route_node("key") is None
        assert router.route_node("") is None
        assert router.route_nodes(["a", "b"]) == [None, None]


def test_route_takes_the_first_entry_at_or_after_the_hash_and_wraps(backend):
    table = {"a-0": 10, "a-1": 30, "b-0": 20, "b-1": -5}
    table.update({"k-6": -6, "k-5": -5, "k0": 0, "k10": 10, "k11": 11, "k25": 25, "k30": 30, "k31": 31})
    router = backend.ConsistentHashRouter(["a", "b"], 2, hash_function=table_hash(table))
    # signed order, as the Java TreeMap<Long, ...>
    assert [tuple(e) for e in router.ring()] == [(-5, "b-1", "b"), (10, "a-0", "a"), (20, "b-0", "b"), (30, "a-1", "a")]
    want = {"k-6": "b", "k-5": "b", "k0": "a", "k10": "a", "k11": "b", "k25": "a", "k30": "a", "k31": "b"}
    for key, node in want.items():
        assert router.route_node(key) == node, key
    assert router.route_nodes(list(want)) == list(want.values())


def test_collisions_later_put_wins(backend):
    # every virtual node hashes to len(key): "a-0".."a-2" share one slot
    router = backend.ConsistentHashRouter([], 1, hash_function=len)
    router.add_node("a", 3)
    assert len(router) == 1
    assert router.existing_replicas("a") == 1
    assert [tuple(e) for e in router.ring()] == [(3, "a-2", "a")]
    router.add_node("a", 1)  # existing == 1: adds "a-1" again, onto the same slot
    assert router.existing_replicas("a") == 1
    assert [tuple(e) for e in router.ring()] == [(3, "a-1", "a")]
    router.add_node("b", 1)  # "b-0" takes a's slot
    assert router.existing_replicas("a") == 0
    assert router.existing_replicas("b") == 1
    assert router.route_node("zz") == "b"
    router.remove_node("a")  # a owns nothing any more: nothing to remove
    assert len(router) == 1
    router.add_node("a", 1)  # numbering restarts at a-0, and a wins the slot back
    assert [tuple(e) for e in router.ring()] == [(3, "a-0", "a")]


@given(
    nodes=st.lists(node_names, max_size=8),
    vnodes=st.integers(0, 12),
    keys=st.lists(java_text, max_size=20),
)
def test_routing_matches_an_md5_ring(backend, nodes, vnodes, keys):
    router = backend.ConsistentHashRouter(nodes, vnodes)
    table: dict[int, tuple[str, str]] = {}
    for node in nodes:
        existing = sum(1 for _, owner in table.values() if owner == node)
        for i in range(existing, existing + vnodes):
            table[md5_oracle(f"{node}-{i}")] = (f"{node}-{i}", node)
    hashes = sorted(table)
    assert [tuple(e) for e in router.ring()] == [(h, *table[h]) for h in hashes]
    assert len(router) == len(table)
    want = []
    for k in keys:
        if not hashes:
            want.append(None)
        else:
            pos = bisect.bisect_left(hashes, md5_oracle(k))
            want.append(table[hashes[pos % len(hashes)]][1])
    assert [router.route_node(k) for k in keys] == want
    assert router.route_nodes(keys) == want
    for node in set(nodes):
        assert router.existing_replicas(node) == sum(1 for _, owner in table.values() if owner == node)


@given(
    ops=st.lists(
        st.one_of(
            st.tuples(st.just("add"), st.sampled_from("abc"), st.integers(0, 5)),
            st.tuples(st.just("remove"), st.sampled_from("abc"), st.just(0)),
        ),
        max_size=12,
    ),
    keys=st.lists(java_text, min_size=1, max_size=10),
)
def test_add_remove_sequences(backend, ops, keys):
    router = backend.ConsistentHashRouter([], 1)
    replicas = {"a": 0, "b": 0, "c": 0}  # no collisions among these few MD5 hashes
    for op, node, count in ops:
        if op == "add":
            router.add_node(node, count)
            replicas[node] += count
        else:
            router.remove_node(node)
            replicas[node] = 0
        for n, c in replicas.items():
            assert router.existing_replicas(n) == c
            assert vnode_keys(router, n) == [f"{n}-{i}" for i in range(c)]
    assert len(router) == sum(replicas.values())
    assert router.route_nodes(keys) == [router.route_node(k) for k in keys]


@pytest.mark.parametrize(
    "key", ["", "a", "MessageQueue [topic=T, brokerName=b, queueId=0]", "\u4e3b\u9898", "\U0001f600"]
)
def test_md5_hash(backend, key):
    assert backend.md5_hash(key) == md5_oracle(key)
    assert 0 <= backend.md5_hash(key) < 2**32


@pytest.mark.parametrize("count", [10**9, 2**31 - 1, 2**20 + 1])
def test_a_ring_past_max_virtual_nodes_is_refused_not_allocated(backend, count):
    """Java's ``addNode`` (ConsistentHashRouter.java:63-69) loops ``vNodeCount`` times and runs out of memory
    for 10**9; both backends refuse a ring past ``MAX_VIRTUAL_NODES`` up front, adding nothing."""
    assert backend.MAX_VIRTUAL_NODES == 2**20
    router = backend.ConsistentHashRouter(["a"], 2)
    with pytest.raises(backend.IllegalArgumentError, match="MAX_VIRTUAL_NODES"):
        router.add_node("b", count)
    with pytest.raises(backend.IllegalArgumentError, match="MAX_VIRTUAL_NODES"):
        backend.ConsistentHashRouter(["a", "b"], count)
    with pytest.raises(backend.IllegalArgumentError, match="MAX_VIRTUAL_NODES"):
        backend.AllocateMessageQueueConsistentHash(count)
    with pytest.raises(backend.IllegalArgumentError, match="MAX_VIRTUAL_NODES"):
        backend.AllocateMessageQueueConsistentHashBounded(virtual_node_cnt=count)
    assert len(router) == 2 and router.existing_replicas("b") == 0


def test_the_limit_counts_the_whole_ring(backend):
    router = backend.ConsistentHashRouter(["a"], 4, hash_function=lambda k: hash(k) & 0xFFFFFFFFFFFF)
    with pytest.raises(backend.IllegalArgumentError, match="MAX_VIRTUAL_NODES"):
        router.add_node("b", backend.MAX_VIRTUAL_NODES - 3)
    assert len(router) == 4
    mqs = [backend.MessageQueue("T", "b", i) for i in range(4)]
    strategy = backend.AllocateMessageQueueConsistentHash(2**19)
    with pytest.raises(backend.IllegalArgumentError, match="MAX_VIRTUAL_NODES"):
        strategy.allocate("g", "c0", mqs, ["c0", "c1", "c2"])


def test_a_failing_hash_function_keeps_the_replicas_put_before_it(backend):
    """ConsistentHashRouter.java:66-67: each replica is put as soon as it is hashed, so an exception from the
    hash function leaves the earlier replicas of that ``addNode`` on the ring; both backends do the same."""
    calls = []

    def third_fails(key):
        calls.append(key)
        if len(calls) == 3:
            raise KeyError(key)
        return len(calls) * 1000

    router = backend.ConsistentHashRouter(hash_function=third_fails)
    with pytest.raises(KeyError):
        router.add_node("n", 5)
    assert calls == ["n-0", "n-1", "n-2"]
    assert router.ring() == [(1000, "n-0", "n"), (2000, "n-1", "n")]
    assert router.existing_replicas("n") == 2


def test_add_node_checks_the_count_before_the_node_as_java(backend):
    """``ConsistentHashRouter.addNode`` refuses a negative count before it looks at the node: a bad count wins
    over a node rocketroute refuses (a lone surrogate, a non-str), on both backends (Hypothesis found the native
    one checking the node first)."""
    ring = backend.ConsistentHashRouter([], 0)
    for node in ("\ud800", 3):
        with pytest.raises(IllegalArgumentError, match="illegal virtual node counts :-1"):
            ring.add_node(node, -1)
        with pytest.raises(IllegalArgumentError, match="illegal virtual node counts :-1"):
            backend.ConsistentHashRouter([node], -1)  # the constructor adds each node as addNode does
    with pytest.raises(TypeError, match="vnode_count"):
        ring.add_node("\ud800", "1")
    with pytest.raises(IllegalArgumentError, match="lone surrogate"):
        ring.add_node("\ud800", 1)
