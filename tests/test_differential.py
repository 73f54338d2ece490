"""Differential fuzzing: the native and the reference backend driven by the same random operations must give
the same results, or raise the same exception class with the same message.

Every test draws one scenario and replays it on both backends side by side. ``make test`` runs the default
hypothesis profile (a bounded number of examples); ``make fuzz`` runs the ``fuzz`` profile (many more).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rocketroute
import rocketroute.reference

from ._java import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, java_text, python_text

NATIVE, REFERENCE = rocketroute, rocketroute.reference
COMPATS = st.sampled_from(["5.3", "4.9"])

pytestmark = pytest.mark.skipif(rocketroute.BACKEND != "native", reason="needs the native backend to compare")


def _plain(v: Any) -> Any:
    """A backend-independent value: queues as tuples, containers recursively."""
    if isinstance(v, (NATIVE.MessageQueue, REFERENCE.MessageQueue)):
        return ("MQ", v.topic, v.broker_name, v.queue_id)
    if isinstance(v, dict):
        return {_plain(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (frozenset, set)):
        return sorted(map(repr, v))
    if type(v).__module__.startswith("rocketroute"):  # any other object of a backend: its data, or its repr
        return _plain(v.to_dict()) if hasattr(v, "to_dict") else repr(v)
    return v


def _outcome(fn: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", _plain(fn()))
    except TypeError as e:  # an argument's TypeError may word itself as PyO3 does: the class must agree
        return ("raised", type(e).__name__)
    except Exception as e:  # the class and the (Java) message are what must agree
        return ("raised", type(e).__name__, str(e))


def same(op: Callable[[Any], Any], *, label: str = "") -> tuple[Any, ...]:
    """``op(backend)`` on both backends: equal outcomes, or an assertion naming both."""
    native, reference = _outcome(lambda: op(NATIVE)), _outcome(lambda: op(REFERENCE))
    assert native == reference, f"{label}: native {native!r} != reference {reference!r}"
    return native


# ------------------------------------------------------------------------------------------------ strategies

names = st.one_of(st.sampled_from(["broker-a", "broker-b", "broker-c", "", "b@az1", "键"]), python_text)
small_counts = st.one_of(st.integers(-3, 12), st.sampled_from([INT_MAX, INT_MIN, 2**20 + 1]))  # over the cap: errors
perms = st.one_of(st.sampled_from([0, 2, 4, 6, 7]), st.integers(INT_MIN, INT_MAX))
latencies = st.one_of(
    st.integers(-5, 20_000), st.sampled_from([LONG_MAX, LONG_MIN, 0]), st.integers(LONG_MIN, LONG_MAX)
)


@st.composite
def route_json(draw: Any) -> str:
    brokers = draw(st.lists(names, max_size=5))
    queue_datas = [
        {
            "brokerName": b,
            "readQueueNums": draw(small_counts),
            "writeQueueNums": draw(small_counts),
            "perm": draw(perms),
            "topicSysFlag": draw(st.integers(0, 3)),
        }
        for b in brokers
    ]
    addrs = st.dictionaries(st.integers(0, 3).map(str), st.sampled_from(["10.0.0.1:10911", ""]), max_size=2)
    broker_datas = [
        {"cluster": "c", "brokerName": b, "brokerAddrs": draw(addrs)}
        for b in draw(st.lists(st.one_of(st.sampled_from(brokers or ["x"]), names), max_size=5))
    ]
    conf = draw(
        st.one_of(
            st.none(),
            st.text(alphabet="ab-:;,0123456789 ", max_size=24),
            st.lists(st.tuples(names, st.integers(-2, 9)), max_size=4).map(
                lambda xs: ";".join(f"{b}:{n}" for b, n in xs)
            ),
        )
    )
    return json.dumps({"orderTopicConf": conf, "queueDatas": queue_datas, "brokerDatas": broker_datas})


# ------------------------------------------------------------------------------------------------ tests


@given(doc=route_json(), topic=names, compat=COMPATS)
def test_route_conversions_agree(doc, topic, compat):
    same(lambda m: m.TopicRouteData.from_json(doc).to_dict(), label="from_json")
    same(lambda m: m.TopicRouteData.from_json(doc).publish_queues(topic), label="publish_queues")
    same(lambda m: m.TopicRouteData.from_json(doc).subscribe_queues(topic), label="subscribe_queues")

    def publish(m: Any) -> Any:
        tp = m.TopicPublishInfo.from_route(topic, m.TopicRouteData.from_json(doc), compat=compat)
        brokers = sorted({q.broker_name for q in tp.message_queues})
        return tp.message_queues, tp.order_topic, tp.ok(), [tp.write_queue_nums_by_broker(b) for b in brokers]

    same(publish, label="from_route")


@st.composite
def fault_scenario(draw: Any) -> dict[str, Any]:
    brokers = draw(st.lists(st.sampled_from(["broker-a", "broker-b", "broker-c", "broker-d"]), min_size=1, unique=True))
    queues = [(b, q) for b in brokers for q in range(draw(st.integers(1, 4)))]
    op = st.one_of(
        st.tuples(st.just("select"), st.one_of(st.none(), st.sampled_from(brokers), names), st.booleans()),
        st.tuples(
            st.just("update"), st.one_of(st.sampled_from(brokers), names), latencies, st.booleans(), st.booleans()
        ),
        st.tuples(st.just("advance"), st.integers(0, 40_000)),
        st.tuples(st.just("query"), st.one_of(st.sampled_from(brokers), names)),
        st.tuples(st.just("pick")),
        st.tuples(st.just("remove"), st.sampled_from(brokers)),
    )
    return {
        "compat": draw(COMPATS),
        "enable": draw(st.booleans()),
        "start": draw(st.one_of(st.none(), st.integers(INT_MIN, INT_MAX))),
        "seed": draw(st.integers(LONG_MIN, LONG_MAX)),
        "t0": draw(st.integers(0, 2**45)),
        "queues": queues,
        "ops": draw(st.lists(op, max_size=40)),
    }


@given(s=fault_scenario())
def test_selection_with_fault_updates_agrees_step_by_step(s):
    def build(m: Any) -> dict[str, Any]:
        clock = m.ManualClock(s["t0"])
        lft = m.LatencyFaultTolerance(s["compat"], clock=clock, random=s["seed"])
        strategy = m.MQFaultStrategy(s["compat"], s["enable"], clock=clock, latency_fault_tolerance=lft)
        counter = m.SendWhichQueue(s["compat"], start=s["start"], random=m.JavaRandom(s["seed"]))
        tp = m.TopicPublishInfo(
            [m.MessageQueue("T", b, q) for b, q in s["queues"]], compat=s["compat"], send_which_queue=counter
        )
        return {"clock": clock, "lft": lft, "strategy": strategy, "tp": tp}

    worlds = {NATIVE: build(NATIVE), REFERENCE: build(REFERENCE)}
    for i, op in enumerate(s["ops"]):
        kind = op[0]

        def step(m: Any, op: tuple[Any, ...] = op, kind: str = kind) -> Any:
            w = worlds[m]
            if kind == "select":
                return w["strategy"].select_one_message_queue(w["tp"], op[1], op[2])
            if kind == "update":
                w["strategy"].update_fault_item(op[1], op[2], op[3], op[4])
                return None
            if kind == "advance":
                return w["clock"].advance(op[1])
            if kind == "query":
                return w["lft"].is_available(op[1]), w["lft"].is_reachable(op[1]), op[1] in w["lft"]
            if kind == "pick":
                return w["lft"].pick_one_at_least()
            w["lft"].remove(op[1])
            return len(w["lft"])

        same(step, label=f"op {i} {op!r}")
        same(lambda m: (worlds[m]["tp"].send_which_queue.get(), sorted(worlds[m]["lft"].broker_names())), label="state")


STRATEGY_KINDS = [
    "AVG",
    "AVG_BY_CIRCLE",
    "CONSISTENT_HASH",
    "MACHINE_ROOM",
    "CONFIG",
    "MACHINE_ROOM_NEARBY",
    "STICKY",
    "CONSISTENT_HASH_BOUNDED",
]


def _previous(m: Any, previous: dict[str, Any]) -> dict[str, Any]:
    return {c: None if qs is None else [m.MessageQueue(*q) for q in qs] for c, qs in previous.items()}


def _strategy(m: Any, kind: str, p: dict[str, Any]) -> Any:
    if kind == "AVG":
        return m.AllocateMessageQueueAveragely()
    if kind == "AVG_BY_CIRCLE":
        return m.AllocateMessageQueueAveragelyByCircle()
    if kind == "CONSISTENT_HASH":
        return m.AllocateMessageQueueConsistentHash(p["vnodes"])
    if kind == "MACHINE_ROOM":
        return m.AllocateMessageQueueByMachineRoom(p["idcs"])
    if kind == "CONFIG":
        return m.AllocateMessageQueueByConfig([m.MessageQueue(*q) for q in p["config"]])
    if kind == "STICKY":
        return m.AllocateMessageQueueSticky(_previous(m, p["previous"]))
    if kind == "CONSISTENT_HASH_BOUNDED":
        return m.AllocateMessageQueueConsistentHashBounded(p["load_factor"], p["vnodes"])
    return m.AllocateMachineRoomNearby(
        m.AllocateMessageQueueAveragely(),
        broker_deploy_in=lambda mq: (mq.broker_name or "").split("-")[0] or None,
        consumer_deploy_in=lambda cid: cid.split("-")[0] or None,
    )


queue_tuples = st.tuples(
    st.sampled_from(["T", "U"]), st.sampled_from(["az1-b", "az2-b", "az1@x", "az3@y", "z"]), st.integers(-2, 9)
)
previous_assignments = st.dictionaries(
    st.one_of(st.sampled_from(["az1-c", "az2-c", "az3-c", "c", "gone"]), python_text),
    st.one_of(st.none(), st.lists(queue_tuples, max_size=8)),
    max_size=5,
)
load_factors = st.one_of(
    st.floats(0.5, 4.0), st.sampled_from([1.0, 1.25, math.nan, math.inf, None]), st.integers(-1, 4), st.floats()
)


@given(
    kind=st.sampled_from(STRATEGY_KINDS),
    mqs=st.one_of(st.none(), st.lists(queue_tuples, max_size=24)),
    cids=st.one_of(
        st.none(), st.lists(st.one_of(st.sampled_from(["az1-c", "az2-c", "az3-c", "c"]), python_text), max_size=8)
    ),
    current=st.one_of(st.none(), python_text, st.sampled_from(["az1-c", "c"])),
    group=st.one_of(st.none(), st.just(""), python_text),
    params=st.fixed_dictionaries(
        {
            "vnodes": st.integers(-1, 12),
            "idcs": st.lists(st.sampled_from(["az1", "az3", "x"]), max_size=3),
            "config": st.lists(queue_tuples, max_size=4),
            "previous": previous_assignments,
            "load_factor": load_factors,
        }
    ),
)
def test_allocation_agrees(kind, mqs, cids, current, group, params):
    def queues(m: Any) -> Any:
        return None if mqs is None else [m.MessageQueue(*q) for q in mqs]

    same(lambda m: _strategy(m, kind, params).name, label="name")
    for cid in [current, *(cids or [])[:3]]:
        same(
            lambda m, cid=cid: _strategy(m, kind, params).allocate(group, cid, queues(m), cids),
            label=f"allocate {cid!r}",
        )
    same(lambda m: m.allocate_all(_strategy(m, kind, params), queues(m), cids, group), label="allocate_all")
    if kind in ("STICKY", "CONSISTENT_HASH_BOUNDED"):
        same(lambda m: _strategy(m, kind, params).allocate_all(queues(m), cids), label="method allocate_all")


@given(
    mqs=st.lists(queue_tuples, min_size=1, max_size=40),
    rounds=st.lists(
        st.lists(st.one_of(st.sampled_from(["c0", "c1", "c2", "c3", "c4", "c5"]), python_text), max_size=6),
        min_size=1,
        max_size=8,
    ),
    previous=previous_assignments,
)
def test_sticky_rounds_agree(mqs, rounds, previous):
    # each round feeds the last assignment back, as a group rebalancing again and again would
    if same(lambda m: m.AllocateMessageQueueSticky(_previous(m, previous)).previous, label="previous")[0] != "ok":
        return
    current = {m: m.AllocateMessageQueueSticky(_previous(m, previous)) for m in (NATIVE, REFERENCE)}

    def allocate(m: Any, cids: list[Any], cid: Any = None) -> Any:
        queues = [m.MessageQueue(*q) for q in mqs]
        if cid is None:
            return current[m].allocate_all(queues, cids)
        return current[m].allocate("g", cid, queues, cids)

    for i, cids in enumerate(rounds):
        if same(lambda m, cids=cids: allocate(m, cids), label=f"round {i}")[0] != "ok":
            continue
        for cid in cids[:3]:
            same(lambda m, cids=cids, cid=cid: allocate(m, cids, cid), label=f"round {i} {cid!r}")
        current = {m: current[m].with_previous(allocate(m, cids)) for m in current}


@given(
    load_factor=st.one_of(st.floats(), st.integers(-(2**70), 2**70), st.sampled_from([None, 1.25, "1.5", True])),
    n_mq=st.one_of(st.integers(-2, 2**31), st.sampled_from([2**63, None, 1.5])),
    n_cid=st.one_of(st.integers(-2, 2**31), st.sampled_from([2**63, None, 1.5])),
)
def test_bounded_capacity_agrees(load_factor, n_mq, n_cid):
    same(lambda m: m.AllocateMessageQueueConsistentHashBounded(load_factor).load_factor, label="load_factor")
    same(lambda m: m.AllocateMessageQueueConsistentHashBounded(load_factor).capacity(n_mq, n_cid), label="capacity")


@given(
    nodes=st.lists(st.one_of(st.sampled_from(["c-1", "c-2", "c-3"]), python_text), max_size=6),
    vnodes=st.integers(-2, 16),
    ops=st.lists(
        st.one_of(
            st.tuples(st.just("add"), st.one_of(st.sampled_from(["c-1", "c-4"]), python_text), st.integers(-1, 8)),
            st.tuples(st.just("remove"), st.one_of(st.sampled_from(["c-1", "c-2"]), python_text)),
            st.tuples(st.just("route"), python_text),
            st.tuples(st.just("replicas"), st.sampled_from(["c-1", "c-2", "c-4"])),
        ),
        max_size=25,
    ),
)
def test_ring_operations_agree(nodes, vnodes, ops):
    rings: dict[Any, Any] = {}

    def build(m: Any) -> Any:
        rings[m] = m.ConsistentHashRouter(nodes, vnodes)
        return len(rings[m])

    if same(build, label="router")[0] != "ok":
        return
    for i, op in enumerate(ops):

        def step(m: Any, op: tuple[Any, ...] = op) -> Any:
            r = rings[m]
            if op[0] == "add":
                r.add_node(op[1], op[2])
            elif op[0] == "remove":
                r.remove_node(op[1])
            elif op[0] == "route":
                return r.route_node(op[1])
            else:
                return r.existing_replicas(op[1])
            return len(r)

        same(step, label=f"op {i} {op!r}")
    same(lambda m: rings[m].ring(), label="ring")


batch_keys = st.lists(
    st.one_of(
        java_text, st.none(), st.integers(INT_MIN, INT_MAX), st.integers(LONG_MIN - 1, LONG_MAX + 1), st.floats()
    ),
    max_size=40,
)


@given(
    keys=batch_keys,
    n=st.one_of(st.integers(-2, 40), st.sampled_from([INT_MAX, 2**31, INT_MIN])),
    key_type=st.sampled_from(["string", "int", "long", "bytes"]),
    nulls=st.sampled_from(["raise", "mask", "zero"]),
)
def test_batch_functions_agree(keys, n, key_type, nulls):
    import importlib

    def batch(m: Any) -> Any:
        return importlib.import_module(m.__name__ + ".batch")

    def plain(a: Any) -> Any:
        mask = getattr(a, "mask", None)
        data = a.tolist() if hasattr(a, "tolist") else list(a)
        return data, (None if mask is None else list(map(bool, getattr(mask, "tolist", lambda: mask)())))

    same(lambda m: plain(batch(m).hash_select_indices(keys, n, key_type, nulls=nulls)), label="hash_select_indices")
    same(lambda m: plain(batch(m).java_string_hashes(keys, nulls=nulls)), label="java_string_hashes")


@given(
    compat=COMPATS,
    start=st.one_of(st.none(), st.integers(INT_MIN, INT_MAX)),
    count=st.one_of(st.integers(-2, 50), st.sampled_from([-(2**31), LONG_MAX, 2**64])),  # huge: errors, no arrays
    n=st.one_of(st.none(), st.integers(-1, 17)),
)
def test_round_robin_batches_agree(compat, start, count, n):
    import importlib

    counters = {m: m.SendWhichQueue(compat, start=start, random=m.JavaRandom(5)) for m in (NATIVE, REFERENCE)}

    def run(m: Any) -> Any:
        out = importlib.import_module(m.__name__ + ".batch").round_robin_indices(counters[m], count, n)
        return [int(x) for x in out], counters[m].get()

    same(run, label="round_robin_indices")


lone_surrogate_text = st.lists(
    st.one_of(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), st.characters(exclude_categories=("Cs",))),
    max_size=12,
).map("".join)


@given(key=lone_surrogate_text, n=st.integers(1, 64))
def test_keys_with_lone_surrogates_hash_as_java_does(key, n):
    # a Java String may hold lone surrogates, and so may a Python str: keys hash over the UTF-16 units
    from ._java import string_hash

    assert same(lambda m: m.java_string_hash(key), label="java_string_hash") == ("ok", string_hash(key))
    same(lambda m: m.SelectMessageQueueByHash().select_index(key, n), label="select_index")
    same(lambda m: m.md5_hash(key), label="md5_hash")


def test_a_million_queues_and_consumers_give_the_same_answers():
    # 10^6-element lists: no quadratic path, no size limit below the route cap, the same picks on both backends
    n = 10**6
    cids = [f"consumer-{i}" for i in range(n)]

    def run(m: Any) -> Any:
        mqs = [m.MessageQueue("T", f"broker-{i % 16}", i // 16) for i in range(n)]
        tp = m.TopicPublishInfo(mqs, send_which_queue=m.SendWhichQueue("5.3", start=n - 3))
        picks = [tp.select_one_message_queue("broker-3") for _ in range(3)]
        by_avg = m.AllocateMessageQueueAveragely().allocate("g", cids[123_456], mqs, cids)
        by_circle = m.AllocateMessageQueueAveragelyByCircle().allocate("g", cids[-1], mqs, cids)
        return picks, by_avg, by_circle

    same(run, label="a million queues")
