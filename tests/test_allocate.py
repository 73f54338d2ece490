"""Consumer queue allocation on both backends: partition and ``allocate_all`` properties, consistent-hash
stability, custom hash functions, the machine-room resolver forms, and bad input with Java's messages."""

from __future__ import annotations

import bisect
import hashlib
import zlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rocketroute.errors import IllegalArgumentError, NullPointerError

# ---------------------------------------------------------------------------------------------- helpers

TOPICS = ["T", "%RETRY%G", "\u4e3b\u9898", "\U0001f600"]
ROOMS = ["IDC1", "IDC2", "IDC3", "IDC4"]

QUEUE_POOL = [(t, b, q) for t in TOPICS for b in ("broker-a", "broker-b", "broker-c") for q in range(16)]
CID_POOL = [f"{p}{i}" for p in ("c", "c-", "10.0.0.1@", "a-b#", "\uff5e", "\U0001f600") for i in range(12)]
queue_specs = st.lists(st.sampled_from(QUEUE_POOL), min_size=1, max_size=64, unique=True)
cid_names = st.sampled_from(CID_POOL)
unique_cids = st.lists(cid_names, min_size=1, max_size=10, unique=True)
vnode_counts = st.integers(1, 16)


def mqs_of(backend, specs):
    return [backend.MessageQueue(*s) for s in specs]


def roomed_queues(backend, specs, rooms):
    """Queues whose broker names start with a machine room: ``"<room>-<broker>"``."""
    return [backend.MessageQueue(t, f"{rooms[i % len(rooms)]}-{b}", q) for i, (t, b, q) in enumerate(specs)]


def split_room(name: str) -> str:
    return name.split("-")[0]


class SplitResolver:
    """RocketMQ's test resolver: the room is the name up to the first ``-``."""

    def broker_deploy_in(self, mq):
        return split_room(mq.broker_name)

    def consumer_deploy_in(self, cid):
        return split_room(cid)


def nearby(backend, inner):
    return backend.AllocateMachineRoomNearby(inner, SplitResolver())


def key(mq):
    return (mq.topic, mq.broker_name, mq.queue_id)


def outcome(fn):
    """``("ok", value)`` or ``("raised", exception)``."""
    try:
        return ("ok", fn())
    except Exception as exc:  # any exception is an outcome to compare
        return ("raised", exc)


def assert_allocate_all_matches(backend, strategy, mqs, cids, group="G"):
    """``allocate_all`` equals ``{cid: allocate(cid)}`` over the distinct cids, or raises what the first
    failing ``allocate`` raises."""
    expected = {}
    first_error = None
    for cid in dict.fromkeys(cids):
        status, value = outcome(lambda cid=cid: strategy.allocate(group, cid, mqs, cids))
        if status == "raised":
            first_error = value
            break
        expected[cid] = value
    status, got = outcome(lambda: backend.allocate_all(strategy, mqs, cids, group))
    if first_error is not None:
        assert status == "raised", f"allocate_all returned {got!r}, allocate raised {first_error!r}"
        assert type(got) is type(first_error) and str(got) == str(first_error)
        return
    assert status == "ok", f"allocate_all raised {got!r}"
    assert list(got) == list(expected)
    for cid, queues in expected.items():
        assert got[cid] == queues, cid


def assert_partition(backend, strategy, mqs, cids):
    per_consumer = [strategy.allocate("G", cid, mqs, cids) for cid in cids]
    union = [key(q) for queues in per_consumer for q in queues]
    assert Counter(union) == Counter(key(q) for q in mqs), "the union over the members is not mq_all"
    assert len(union) == len(set(union)), "a queue was given twice"
    all_at_once = backend.allocate_all(strategy, mqs, cids)
    assert [all_at_once[c] for c in cids] == per_consumer


# ---------------------------------------------------------------------------------------------- names


def test_strategy_names(backend):
    avg = backend.AllocateMessageQueueAveragely()
    assert avg.name == "AVG"
    assert backend.AllocateMessageQueueAveragelyByCircle().name == "AVG_BY_CIRCLE"
    assert backend.AllocateMessageQueueByConfig([]).name == "CONFIG"
    assert backend.AllocateMessageQueueByMachineRoom(["room1"]).name == "MACHINE_ROOM"
    assert backend.AllocateMessageQueueConsistentHash().name == "CONSISTENT_HASH"
    assert backend.AllocateMessageQueueConsistentHash(3).name == "CONSISTENT_HASH"
    assert nearby(backend, avg).name == "MACHINE_ROOM_NEARBY-AVG"
    ch = backend.AllocateMessageQueueConsistentHash(virtual_node_cnt=5)
    assert nearby(backend, ch).name == "MACHINE_ROOM_NEARBY-CONSISTENT_HASH"


def test_every_strategy_derives_from_the_one_base(backend):
    """The eight strategies share ``AllocateMessageQueueStrategy`` (its ``name`` and ``allocate``), which is not
    made directly; a strategy of one's own need not derive from it to be used by ``allocate_all``."""
    base = backend.AllocateMessageQueueStrategy
    avg = backend.AllocateMessageQueueAveragely()
    strategies = [
        avg,
        backend.AllocateMessageQueueAveragelyByCircle(),
        backend.AllocateMessageQueueByConfig([]),
        backend.AllocateMessageQueueByMachineRoom(["room1"]),
        backend.AllocateMessageQueueConsistentHash(),
        backend.AllocateMessageQueueConsistentHashBounded(),
        backend.AllocateMessageQueueSticky(),
        nearby(backend, avg),
    ]
    for s in strategies:
        assert isinstance(s, base), s
    assert len({type(s) for s in strategies}) == 8
    with pytest.raises(TypeError):
        base()
    mqs = [backend.MessageQueue("T", "b", i) for i in range(4)]

    class Mine:  # duck-typed: only allocate and name
        name = "MINE"

        def allocate(self, consumer_group, current_cid, mq_all, cid_all):
            return [mq for i, mq in enumerate(mq_all) if cid_all[i % len(cid_all)] == current_cid]

    assert not isinstance(Mine(), base)
    got = backend.allocate_all(Mine(), mqs, ("c1", "c2"))
    assert {c: [q.queue_id for q in v] for c, v in got.items()} == {"c1": [0, 2], "c2": [1, 3]}


# ---------------------------------------------------------------------------------------------- partitions


@given(specs=queue_specs, cids=unique_cids)
def test_averagely_partitions(backend, specs, cids):
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueAveragely()
    assert_partition(backend, strategy, mqs, cids)
    # consecutive blocks, in cid_all order, sizes differing by at most one, larger blocks first
    blocks = [strategy.allocate("G", c, mqs, cids) for c in cids]
    assert [q for b in blocks for q in b] == mqs
    sizes = [len(b) for b in blocks]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1


@given(specs=queue_specs, cids=unique_cids)
def test_averagely_by_circle_partitions(backend, specs, cids):
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueAveragelyByCircle()
    assert_partition(backend, strategy, mqs, cids)
    for i, cid in enumerate(cids):
        assert strategy.allocate("G", cid, mqs, cids) == mqs[i :: len(cids)]


@given(specs=queue_specs, cids=unique_cids, vnodes=vnode_counts)
def test_consistent_hash_partitions(backend, specs, cids, vnodes):
    mqs = mqs_of(backend, specs)
    assert_partition(backend, backend.AllocateMessageQueueConsistentHash(vnodes), mqs, cids)


@given(
    specs=queue_specs,
    broker_rooms=st.lists(st.sampled_from(ROOMS), min_size=1, max_size=4),
    consumers=st.lists(st.tuples(st.sampled_from(ROOMS), cid_names), min_size=1, max_size=10, unique=True),
)
def test_machine_room_nearby_partitions(backend, specs, broker_rooms, consumers):
    mqs = roomed_queues(backend, specs, broker_rooms)
    cids = list(dict.fromkeys(f"{room}-{name}" for room, name in consumers))
    strategy = nearby(backend, backend.AllocateMessageQueueAveragely())
    assert_partition(backend, strategy, mqs, cids)
    # a consumer takes only queues of its own room, or of rooms without consumers
    consumer_rooms = {split_room(c) for c in cids}
    for cid in cids:
        for q in strategy.allocate("G", cid, mqs, cids):
            room = split_room(q.broker_name)
            assert room == split_room(cid) or room not in consumer_rooms


def test_machine_room_nearby_example(backend):
    # RocketMQ's AllocateMachineRoomNearByTest layout: IDC3 has queues but no consumer, so its queues are
    # shared by every consumer (inner strategy over all cids); IDC1 / IDC2 queues stay in their room
    mqs = [backend.MessageQueue("T", f"{room}-broker", q) for room in ("IDC1", "IDC2", "IDC3") for q in range(2)]
    cids = ["IDC1-c0", "IDC1-c1", "IDC2-c0"]
    strategy = nearby(backend, backend.AllocateMessageQueueAveragely())
    got = backend.allocate_all(strategy, mqs, cids)
    assert got == {
        "IDC1-c0": [mqs[0], mqs[4]],
        "IDC1-c1": [mqs[1], mqs[5]],
        "IDC2-c0": [mqs[2], mqs[3]],
    }


@pytest.mark.parametrize(
    ("cid", "mq_all", "cid_all"),
    [("\ud800", [], ["a"]), (5, "not queues", 7), (None, None, None), ("", [object()], [])],
)
def test_config_reads_none_of_its_arguments(backend, cid, mq_all, cid_all):
    """Java's AllocateMessageQueueByConfig returns its list whatever it is given: no argument is checked (a lone
    surrogate, a wrong type or None included), on both backends (the native one once converted every argument
    before looking at the strategy)."""
    config_list = mqs_of(backend, [("T", "b", 0), ("T", "b", 1)])
    assert backend.AllocateMessageQueueByConfig(config_list).allocate("g", cid, mq_all, cid_all) == config_list
    assert backend.AllocateMessageQueueByConfig(None).allocate("g", cid, mq_all, cid_all) is None


# ---------------------------------------------------------------------------------------------- allocate_all


def every_strategy(backend, specs, vnodes):
    """One of each strategy (and a few nearby ones), configured from the drawn data."""
    config_list = mqs_of(backend, specs[: len(specs) // 2])
    return [
        backend.AllocateMessageQueueAveragely(),
        backend.AllocateMessageQueueAveragelyByCircle(),
        backend.AllocateMessageQueueByConfig(config_list),
        backend.AllocateMessageQueueByConfig(None),
        backend.AllocateMessageQueueByMachineRoom(["IDC1", "IDC3"]),
        backend.AllocateMessageQueueConsistentHash(vnodes),
        backend.AllocateMessageQueueConsistentHash(0),
        nearby(backend, backend.AllocateMessageQueueAveragely()),
        nearby(backend, backend.AllocateMessageQueueAveragelyByCircle()),
        nearby(backend, backend.AllocateMessageQueueConsistentHash(vnodes)),
        backend.AllocateMessageQueueSticky({"IDC1-c0": mqs_of(backend, specs[::2]), "c1": config_list[1::3]}),
        backend.AllocateMessageQueueConsistentHashBounded(1.25, vnodes),
        backend.AllocateMessageQueueConsistentHashBounded(1.0, 0),
    ]


SMALL_QUEUE_POOL = [(t, b, q) for t in TOPICS[:2] for b in ("b0", "b1") for q in range(8)]


@given(
    specs=st.lists(st.sampled_from(SMALL_QUEUE_POOL), max_size=40),
    rooms=st.lists(st.sampled_from([*ROOMS, ""]), min_size=1, max_size=3),
    sep=st.sampled_from(["-", "@"]),
    cids=st.lists(
        st.tuples(st.sampled_from([*ROOMS, ""]), st.sampled_from(["c0", "c1", "c-2", "\U0001f6000", "", "-x"])),
        min_size=1,
        max_size=10,
    ),
    vnodes=vnode_counts,
)
def test_allocate_all_equals_per_consumer_allocate(backend, specs, rooms, sep, cids, vnodes):
    # duplicate queues and cids are likely; an empty mq_all, "" cids and "" machine rooms give Java's exceptions
    mqs = [backend.MessageQueue(t, f"{rooms[i % len(rooms)]}{sep}{b}", q) for i, (t, b, q) in enumerate(specs)]
    cid_all = [f"{room}-{name}" if room else name for room, name in cids]
    for strategy in every_strategy(backend, specs, vnodes):
        assert_allocate_all_matches(backend, strategy, mqs, cid_all)


@pytest.mark.parametrize("cid_all", [[], None])
def test_allocate_all_without_consumers_is_empty(backend, cid_all):
    mqs = mqs_of(backend, [("T", "b", 0)])
    for strategy in every_strategy(backend, [("T", "b", 0)], 3):
        assert backend.allocate_all(strategy, mqs, cid_all) == {}


def test_allocate_all_duplicate_cids(backend):
    mqs = mqs_of(backend, [("T", "b", q) for q in range(5)])
    cids = ["c0", "c1", "c0", "c2"]
    for strategy in (backend.AllocateMessageQueueAveragely(), backend.AllocateMessageQueueAveragelyByCircle()):
        got = backend.allocate_all(strategy, mqs, cids)
        assert list(got) == ["c0", "c1", "c2"]
        # Java: the index of the first occurrence, in a list of 4 consumers
        assert got == {c: strategy.allocate("", c, mqs, cids) for c in ("c0", "c1", "c2")}
    # AVG over 4 consumers: blocks [0,1], [2], [3], [4]; c0 and c2 take blocks 0 and 3, block 2 is lost
    assert backend.allocate_all(backend.AllocateMessageQueueAveragely(), mqs, cids) == {
        "c0": mqs[0:2],
        "c1": mqs[2:3],
        "c2": mqs[4:5],
    }


def test_allocate_all_config_none(backend):
    mqs = mqs_of(backend, [("T", "b", 0)])
    assert backend.allocate_all(backend.AllocateMessageQueueByConfig(None), mqs, ["a", "b"]) == {"a": None, "b": None}


# ---------------------------------------------------------------------------------------------- consistent hash


@given(specs=queue_specs, cids=st.lists(cid_names, min_size=2, max_size=10, unique=True), data=st.data())
def test_consistent_hash_moves_only_the_departing_consumers_queues(backend, specs, cids, data):
    vnodes = data.draw(vnode_counts)
    leaver = data.draw(st.sampled_from(cids))
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueConsistentHash(vnodes)
    before = backend.allocate_all(strategy, mqs, cids)
    remaining = [c for c in cids if c != leaver]
    after = backend.allocate_all(strategy, mqs, remaining)
    assert list(after) == remaining
    for cid in remaining:
        # everything a remaining consumer had, it keeps; it only gains queues of the leaver
        assert set(before[cid]) <= set(after[cid]), cid
        assert set(after[cid]) - set(before[cid]) <= set(before[leaver]), cid
    assert sorted(key(q) for c in remaining for q in after[c]) == sorted(key(q) for q in mqs)
    # and the other way round: a consumer that joins only takes queues
    rejoined = backend.allocate_all(strategy, mqs, [*remaining, leaver])
    assert {c: set(v) for c, v in rejoined.items()} == {c: set(v) for c, v in before.items()}


@given(specs=queue_specs, cids=unique_cids, vnodes=vnode_counts, data=st.data())
def test_consistent_hash_ignores_consumer_order(backend, specs, cids, vnodes, data):
    shuffled = data.draw(st.permutations(cids))
    mqs = mqs_of(backend, specs)
    strategy = backend.AllocateMessageQueueConsistentHash(vnodes)
    for cid in cids:
        assert strategy.allocate("G", cid, mqs, cids) == strategy.allocate("G", cid, mqs, shuffled)


def md5_oracle(s: str) -> int:
    return int.from_bytes(hashlib.md5(s.encode("utf-8")).digest()[:4], "big")


def ring_oracle(nodes, vnodes, hash_function):
    """Java's ConsistentHashRouter written out: a TreeMap (later put wins) of ``node-i`` hashes."""
    table: dict[int, str] = {}
    for node in nodes:
        existing = sum(1 for owner in table.values() if owner == node)
        for i in range(existing, existing + vnodes):
            table[hash_function(f"{node}-{i}")] = node
    hashes = sorted(table)

    def route(k: str):
        if not hashes:
            return None
        pos = bisect.bisect_left(hashes, hash_function(k))
        return table[hashes[pos % len(hashes)]]

    return route


@given(specs=queue_specs, cids=unique_cids, vnodes=st.integers(0, 16))
def test_consistent_hash_follows_the_md5_ring(backend, specs, cids, vnodes):
    mqs = mqs_of(backend, specs)
    route = ring_oracle(cids, vnodes, md5_oracle)
    got = backend.allocate_all(backend.AllocateMessageQueueConsistentHash(vnodes), mqs, cids)
    assert got == {c: [q for q in mqs if route(str(q)) == c] for c in cids}


def length_hash(k: str) -> int:
    return len(k)


def signed_crc(k: str) -> int:
    return zlib.crc32(k.encode("utf-8")) - 2**31  # negative values too: TreeMap order is signed


@pytest.mark.parametrize("hash_function", [length_hash, signed_crc, lambda k: -len(k) * 1_000_003])
def test_custom_hash_function(backend, hash_function):
    cids = ["c", "cc-1", "ccc-22", "dddd-333", "\U0001f600"]
    mqs = mqs_of(backend, [(t, b, q) for t in ("T", "TopicLonger") for b in ("b", "broker-xyz") for q in range(6)])
    route = ring_oracle(cids, 3, hash_function)
    router = backend.ConsistentHashRouter(cids, 3, hash_function=hash_function)
    keys = [str(q) for q in mqs] + ["", "x", "a" * 50]
    assert [router.route_node(k) for k in keys] == [route(k) for k in keys]
    strategy = backend.AllocateMessageQueueConsistentHash(3, hash_function=hash_function)
    want = {c: [q for q in mqs if route(str(q)) == c] for c in cids}
    assert backend.allocate_all(strategy, mqs, cids) == want
    assert {c: strategy.allocate("G", c, mqs, cids) for c in cids} == want


def test_length_hash_routes_by_length(backend):
    # hash = len(key): "a-0".."a-2" all hash to 3 (one ring entry, a-2 wins), "bbbb-0" to 6
    router = backend.ConsistentHashRouter(["a", "bbbb"], 3, hash_function=len)
    assert len(router) == 2
    assert [tuple(e) for e in router.ring()] == [(3, "a-2", "a"), (6, "bbbb-2", "bbbb")]
    assert router.route_node("xy") == "a"  # 2 -> first entry >= 2 is 3
    assert router.route_node("xyz") == "a"  # 3 -> exact hit
    assert router.route_node("wxyz") == "bbbb"  # 4 -> 6
    assert router.route_node("x" * 7) == "a"  # 7 -> wraps to the first entry


class HashBoom(Exception):
    pass


def test_hash_function_exceptions_propagate(backend):
    def boom(k: str) -> int:
        raise HashBoom(k)

    with pytest.raises(HashBoom):
        backend.ConsistentHashRouter(["a"], 1, hash_function=boom)
    router = backend.ConsistentHashRouter([], 1, hash_function=boom)
    assert router.route_node("k") is None  # an empty ring hashes nothing
    with pytest.raises(HashBoom):
        router.add_node("a", 1)
    strategy = backend.AllocateMessageQueueConsistentHash(2, hash_function=boom)
    mqs = mqs_of(backend, [("T", "b", 0)])
    with pytest.raises(HashBoom):
        strategy.allocate("G", "c", mqs, ["c"])
    with pytest.raises(HashBoom):
        backend.allocate_all(strategy, mqs, ["c"])

    calls = []

    def route_boom(k: str) -> int:
        calls.append(k)
        if not k.startswith("n-"):
            raise HashBoom(k)
        return 1

    router = backend.ConsistentHashRouter(["n"], 2, hash_function=route_boom)
    with pytest.raises(HashBoom):
        router.route_node("key")
    assert "key" in calls


@pytest.mark.parametrize("bad", [lambda k: "1", lambda k: 1.5, lambda k: None])
def test_hash_function_must_return_an_int(backend, bad):
    with pytest.raises(TypeError):
        backend.ConsistentHashRouter(["a"], 1, hash_function=bad)
    strategy = backend.AllocateMessageQueueConsistentHash(1, hash_function=bad)
    mqs = mqs_of(backend, [("T", "b", 0)])
    with pytest.raises(TypeError):
        strategy.allocate("G", "a", mqs, ["a"])
    with pytest.raises(TypeError):
        backend.allocate_all(strategy, mqs, ["a"])


# ---------------------------------------------------------------------------------------------- resolvers


def test_machine_room_nearby_resolver_forms(backend):
    mqs = [backend.MessageQueue("T", f"{room}-b", q) for room in ("IDC1", "IDC2", "IDC3") for q in range(3)]
    cids = ["IDC1-a", "IDC1-b", "IDC2-a", "IDC4-a"]
    inner = backend.AllocateMessageQueueAveragelyByCircle()
    by_object = backend.AllocateMachineRoomNearby(inner, SplitResolver())
    by_callables = backend.AllocateMachineRoomNearby(
        inner,
        broker_deploy_in=lambda mq: split_room(mq.broker_name),
        consumer_deploy_in=split_room,
    )
    assert by_callables.name == by_object.name == "MACHINE_ROOM_NEARBY-AVG_BY_CIRCLE"
    want = backend.allocate_all(by_object, mqs, cids)
    assert backend.allocate_all(by_callables, mqs, cids) == want
    for cid in cids:
        assert by_callables.allocate("G", cid, mqs, cids) == want[cid]
    # IDC1 / IDC2 queues stay in their rooms; IDC3 has no consumer, so its queues go round all four consumers;
    # IDC4-a has no queue in its own room
    assert want == {
        "IDC1-a": [mqs[0], mqs[2], mqs[6]],
        "IDC1-b": [mqs[1], mqs[7]],
        "IDC2-a": [mqs[3], mqs[4], mqs[5], mqs[8]],
        "IDC4-a": [],
    }


def test_machine_room_nearby_resolver_is_asked_only_about_members(backend):
    asked = []

    class Recording(SplitResolver):
        def consumer_deploy_in(self, cid):
            asked.append(cid)
            return super().consumer_deploy_in(cid)

    strategy = backend.AllocateMachineRoomNearby(backend.AllocateMessageQueueAveragely(), Recording())
    mqs = [backend.MessageQueue("T", "IDC1-b", 0)]
    assert strategy.allocate("G", "IDC1-stranger", mqs, ["IDC1-a"]) == []
    assert asked == []


# ---------------------------------------------------------------------------------------------- bad input


def checked_strategies(backend):
    """The strategies that run AbstractAllocateMessageQueueStrategy.check (all but CONFIG), and the opt-in ones,
    which check alike."""
    return [
        backend.AllocateMessageQueueAveragely(),
        backend.AllocateMessageQueueAveragelyByCircle(),
        backend.AllocateMessageQueueByMachineRoom(["room1"]),
        backend.AllocateMessageQueueConsistentHash(),
        nearby(backend, backend.AllocateMessageQueueAveragely()),
        backend.AllocateMessageQueueSticky({"IDC1-c": [backend.MessageQueue("T", "IDC1-b", 0)]}),
        backend.AllocateMessageQueueConsistentHashBounded(),
    ]


def assert_illegal(fn, message):
    with pytest.raises(IllegalArgumentError) as ei:
        fn()
    assert str(ei.value) == message
    assert ei.value.java_class == "java.lang.IllegalArgumentException"
    assert isinstance(ei.value, ValueError)


@pytest.mark.parametrize("mq_all", [[], None])
def test_empty_mq_all(backend, mq_all):
    for strategy in checked_strategies(backend):
        assert_illegal(lambda s=strategy: s.allocate("G", "IDC1-c", mq_all, ["IDC1-c"]), "mqAll is null or mqAll empty")
        assert_illegal(lambda s=strategy: backend.allocate_all(s, mq_all, ["IDC1-c"]), "mqAll is null or mqAll empty")


@pytest.mark.parametrize("cid_all", [[], None])
def test_empty_cid_all(backend, cid_all):
    mqs = [backend.MessageQueue("T", "IDC1-b", 0)]
    for strategy in checked_strategies(backend):
        assert_illegal(lambda s=strategy: s.allocate("G", "IDC1-c", mqs, cid_all), "cidAll is null or cidAll empty")


@pytest.mark.parametrize("current_cid", ["", None])
def test_empty_current_cid(backend, current_cid):
    mqs = [backend.MessageQueue("T", "IDC1-b", 0)]
    for strategy in checked_strategies(backend):
        assert_illegal(lambda s=strategy: s.allocate("G", current_cid, mqs, ["IDC1-c"]), "currentCID is empty")
        # Java checks currentCID first, then mqAll, then cidAll
        assert_illegal(lambda s=strategy: s.allocate("G", current_cid, [], []), "currentCID is empty")
        assert_illegal(lambda s=strategy: s.allocate("G", "IDC1-c", [], []), "mqAll is null or mqAll empty")
        assert_illegal(lambda s=strategy: s.allocate("G", "IDC1-c", mqs, None), "cidAll is null or cidAll empty")


def test_empty_member_fails_allocate_all(backend):
    mqs = [backend.MessageQueue("T", "IDC1-b", 0)]
    for strategy in checked_strategies(backend):
        # a member "" fails allocate_all as it fails allocate (for nearby, the first member already fails:
        # the room of "" is empty)
        assert_allocate_all_matches(backend, strategy, mqs, ["IDC1-c", ""])
    avg = backend.AllocateMessageQueueAveragely()
    assert_illegal(lambda: backend.allocate_all(avg, mqs, ["IDC1-c", ""]), "currentCID is empty")
    assert_illegal(lambda: backend.allocate_all(avg, mqs, ["", "IDC1-c"]), "currentCID is empty")


def test_non_member_gets_nothing(backend):
    mqs = [backend.MessageQueue("T", "IDC1-b", q) for q in range(4)]
    for strategy in checked_strategies(backend):
        assert strategy.allocate("G", "IDC1-stranger", mqs, ["IDC1-c"]) == []


def test_config_checks_nothing(backend):
    configured = [backend.MessageQueue("T", "b", 3), backend.MessageQueue("T", "a", 1)]
    strategy = backend.AllocateMessageQueueByConfig(configured)
    for args in (("G", "c", None, None), ("G", "", [], []), (None, None, None, ["x"])):
        assert strategy.allocate(*args) == configured
    assert backend.AllocateMessageQueueByConfig(None).allocate("G", "c", None, None) is None


def test_negative_virtual_node_count(backend):
    assert_illegal(lambda: backend.AllocateMessageQueueConsistentHash(-1), "illegal virtualNodeCnt :-1")
    assert_illegal(lambda: backend.AllocateMessageQueueConsistentHash(-7), "illegal virtualNodeCnt :-7")
    router = backend.ConsistentHashRouter(["a"], 2)
    assert_illegal(lambda: router.add_node("b", -1), "illegal virtual node counts :-1")
    assert len(router) == 2
    # the constructor adds every node with the count: Java fails there too, but only when there is a node
    assert_illegal(lambda: backend.ConsistentHashRouter(["a"], -1), "illegal virtual node counts :-1")
    assert len(backend.ConsistentHashRouter([], -1)) == 0


def test_zero_virtual_nodes_allocate_nothing(backend):
    mqs = mqs_of(backend, [("T", "b", q) for q in range(4)])
    strategy = backend.AllocateMessageQueueConsistentHash(0)
    assert strategy.allocate("G", "a", mqs, ["a", "b"]) == []
    assert backend.allocate_all(strategy, mqs, ["a", "b"]) == {"a": [], "b": []}


def test_empty_machine_room(backend):
    strategy = nearby(backend, backend.AllocateMessageQueueAveragely())
    good = backend.MessageQueue("T", "IDC1-b", 0)
    roomless = backend.MessageQueue("T", "-b", 1)
    assert_illegal(
        lambda: strategy.allocate("G", "IDC1-c", [good, roomless], ["IDC1-c"]),
        "Machine room is null for mq MessageQueue [topic=T, brokerName=-b, queueId=1]",
    )
    assert_illegal(
        lambda: strategy.allocate("G", "IDC1-c", [good], ["IDC1-c", "-c"]), "Machine room is null for consumer id -c"
    )
    # queues are grouped first
    assert_illegal(
        lambda: strategy.allocate("G", "IDC1-c", [roomless], ["IDC1-c", "-c"]),
        "Machine room is null for mq MessageQueue [topic=T, brokerName=-b, queueId=1]",
    )
    assert_illegal(
        lambda: backend.allocate_all(strategy, [good], ["IDC1-c", "-c"]), "Machine room is null for consumer id -c"
    )
    # a resolver returning None is an empty room too
    none_rooms = backend.AllocateMachineRoomNearby(
        backend.AllocateMessageQueueAveragely(), broker_deploy_in=lambda mq: None, consumer_deploy_in=split_room
    )
    assert_illegal(
        lambda: none_rooms.allocate("G", "IDC1-c", [good], ["IDC1-c"]),
        "Machine room is null for mq MessageQueue [topic=T, brokerName=IDC1-b, queueId=0]",
    )


def test_machine_room_nearby_needs_a_strategy_and_a_resolver(backend):
    with pytest.raises(NullPointerError) as ei:
        backend.AllocateMachineRoomNearby(None, SplitResolver())
    assert str(ei.value) == "allocateMessageQueueStrategy is null"
    assert ei.value.java_class == "java.lang.NullPointerException"
    with pytest.raises(NullPointerError) as ei:
        backend.AllocateMachineRoomNearby(backend.AllocateMessageQueueAveragely(), None)
    assert str(ei.value) == "machineRoomResolver is null"


def test_machine_room_nearby_inner_returning_none(backend):
    # Java: allocateResults.addAll(null)
    strategy = nearby(backend, backend.AllocateMessageQueueByConfig(None))
    with pytest.raises(NullPointerError):
        strategy.allocate("G", "IDC1-c", [backend.MessageQueue("T", "IDC1-b", 0)], ["IDC1-c"])


def test_machine_room_strategy(backend):
    # only brokers named "<room>@<name>" of a consumer idc; blocks of len // n, the remainder one each
    mqs = [backend.MessageQueue("T", f"{room}@b", q) for room in ("r1", "r2") for q in range(5)]
    mqs.append(backend.MessageQueue("T", "r1-plain", 0))  # no "@": never allocated
    mqs.append(backend.MessageQueue("T", "r1@b@c", 0))  # three parts: never allocated
    strategy = backend.AllocateMessageQueueByMachineRoom(["r1"])
    got = backend.allocate_all(strategy, mqs, ["c0", "c1"])
    assert got == {"c0": [mqs[0], mqs[1], mqs[4]], "c1": [mqs[2], mqs[3]]}
