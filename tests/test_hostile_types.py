"""Hostile values in every argument position of the public API: both backends raise the same documented
exception (its class, and its message unless it is an argument's TypeError, which may word itself as PyO3
does), and nothing crashes the process."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

import pytest

from .test_differential import same

HOSTILE = [
    None,
    True,
    -1,
    0,
    2**31,
    -(2**31) - 1,
    2**63,
    2**70,
    1.5,
    math.nan,
    math.inf,
    "",
    "x",
    b"x",
    [],
    {},
    object(),
    "it's",  # a quote: messages name a str as Python's repr writes it
    "\ud800",  # lone surrogates: a Python str may hold them, UTF-8 cannot
    "a\udfffb",
    "\ud83d\ude00",  # a surrogate pair as two code points: one character to Java, two lone ones to Python
]


def _mqs(m: Any, n: int = 3) -> list[Any]:
    return [m.MessageQueue("T", "b", i) for i in range(n)]


def _tp(m: Any) -> Any:
    return m.TopicPublishInfo(_mqs(m), send_which_queue=m.SendWhichQueue("5.3", start=0))


def _json_parse_error_class(m: Any, x: Any) -> Any:
    """``from_json``: the parsers' own details (serde_json's against the json module's) differ by nature;
    the class and the message up to the detail must not."""
    try:
        return m.TopicRouteData.from_json(x)
    except m.IllegalArgumentError as e:
        raise m.IllegalArgumentError(str(e).split(": ", 1)[0]) from None


def _profiles(m: Any) -> Any:
    return importlib.import_module(f"{m.__name__}.profiles")


def _avg(m: Any, mqs: Any, cids: Any) -> Any:
    return m.AllocateMessageQueueAveragely().allocate("g", "c", mqs, cids)


def _sticky(m: Any, previous: Any) -> Any:
    return m.AllocateMessageQueueSticky(previous).allocate_all(_mqs(m), ["c", "d"])


def _bounded(m: Any, hash_function: Any = None) -> Any:
    return m.AllocateMessageQueueConsistentHashBounded(1.25, 3, hash_function)


def _rr(m: Any, count: Any, n: Any) -> Any:
    return _batch(m).round_robin_indices(m.SendWhichQueue("5.3", start=0), count, n).tolist()


def _batch(m: Any) -> Any:
    return importlib.import_module(f"{m.__name__}.batch")


def _send_select(m: Any, selector: Any) -> Any:
    from rocketroute.send import send_select

    return send_select(_tp(m), selector, None, "k", lambda mq: mq)


def _nearby(m: Any, broker_room: Any, consumer_room: Any) -> Any:
    strategy = m.AllocateMachineRoomNearby(
        m.AllocateMessageQueueAveragely(), broker_deploy_in=broker_room, consumer_deploy_in=consumer_room
    )
    return strategy.allocate("g", "c1", _mqs(m), ["c1", "c2"])


def _detect(m: Any, resolver: Any, detector: Any) -> Any:
    lft = m.LatencyFaultTolerance("5.3", clock=m.ManualClock(0), resolver=resolver, detector=detector)
    lft.update_fault_item("b", 10, 30_000, False)
    lft.detect_by_one_round()
    return "b" in lft, lft.is_reachable("b") if "b" in lft else None


# (label, op(backend, hostile value)); the other arguments are valid
OPS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("MessageQueue.topic", lambda m, x: m.MessageQueue(x, "b", 1)),
    ("MessageQueue.broker", lambda m, x: m.MessageQueue("t", x, 1)),
    ("MessageQueue.queue_id", lambda m, x: m.MessageQueue("t", "b", x)),
    ("MessageQueue.compare_to", lambda m, x: m.MessageQueue("t", "b", 1).compare_to(x)),
    ("java_string_hash", lambda m, x: m.java_string_hash(x)),
    ("java_int_hash", lambda m, x: m.java_int_hash(x)),
    ("java_long_hash", lambda m, x: m.java_long_hash(x)),
    ("JavaRandom.seed", lambda m, x: m.JavaRandom(x).next_int()),
    ("JavaRandom.next_int", lambda m, x: m.JavaRandom(1).next_int(x)),
    ("ManualClock", lambda m, x: m.ManualClock(x).now_ms()),
    ("ManualClock.advance", lambda m, x: m.ManualClock(5).advance(x)),
    ("SendWhichQueue.compat", lambda m, x: m.SendWhichQueue(x, start=0).increment_and_get()),
    ("SendWhichQueue.start", lambda m, x: m.SendWhichQueue("5.3", start=x).increment_and_get()),
    ("SendWhichQueue.advance", lambda m, x: m.SendWhichQueue("5.3", start=0).advance(x)),
    ("TopicPublishInfo.queues", lambda m, x: m.TopicPublishInfo(x)),
    ("TopicPublishInfo.queue_item", lambda m, x: m.TopicPublishInfo([x])),
    ("TopicPublishInfo.select", lambda m, x: _tp(m).select_one_message_queue(x)),
    ("TopicPublishInfo.write_queue_nums", lambda m, x: _tp(m).write_queue_nums_by_broker(x)),
    ("TopicRouteData.from_json", _json_parse_error_class),
    ("TopicPublishInfo.from_route.topic", lambda m, x: m.TopicPublishInfo.from_route(x, m.TopicRouteData())),
    ("MQFaultStrategy.compat", lambda m, x: m.MQFaultStrategy(x)),
    ("MQFaultStrategy.update.name", lambda m, x: m.MQFaultStrategy("5.3", True).update_fault_item(x, 10, False)),
    ("MQFaultStrategy.update.latency", lambda m, x: m.MQFaultStrategy("5.3", True).update_fault_item("b", x, False)),
    ("MQFaultStrategy.select.tp", lambda m, x: m.MQFaultStrategy("5.3", True).select_one_message_queue(x)),
    ("MQFaultStrategy.select.last", lambda m, x: m.MQFaultStrategy("4.9", True).select_one_message_queue(_tp(m), x)),
    ("MQFaultStrategy.duration", lambda m, x: m.MQFaultStrategy("5.3").compute_not_available_duration(x)),
    ("LatencyFaultTolerance.is_available", lambda m, x: m.LatencyFaultTolerance().is_available(x)),
    ("LatencyFaultTolerance.update.duration", lambda m, x: m.LatencyFaultTolerance().update_fault_item("b", 1, x)),
    ("SelectMessageQueueByHash.arg", lambda m, x: m.SelectMessageQueueByHash().select(_mqs(m), None, x)),
    ("SelectMessageQueueByHash.mqs", lambda m, x: m.SelectMessageQueueByHash().select(x, None, "k")),
    ("SelectMessageQueueByHash.n", lambda m, x: m.SelectMessageQueueByHash().select_index("k", x)),
    ("SelectMessageQueueByRandom.n", lambda m, x: m.SelectMessageQueueByRandom(1).select_index(x)),
    ("md5_hash", lambda m, x: m.md5_hash(x)),
    ("ConsistentHashRouter.nodes", lambda m, x: m.ConsistentHashRouter(x, 3)),
    ("ConsistentHashRouter.vnodes", lambda m, x: m.ConsistentHashRouter(["a"], x)),
    ("ConsistentHashRouter.route", lambda m, x: m.ConsistentHashRouter(["a", "b"], 3).route_node(x)),
    ("ConsistentHashRouter.add", lambda m, x: m.ConsistentHashRouter(["a"], 3).add_node(x, 2)),
    ("AVG.mq_all", lambda m, x: m.AllocateMessageQueueAveragely().allocate("g", "c", x, ["c"])),
    ("AVG.cid_all", lambda m, x: m.AllocateMessageQueueAveragely().allocate("g", "c", _mqs(m), x)),
    ("AVG.cid_all.item", lambda m, x: _avg(m, _mqs(m), ["c", x])),
    ("AVG.mq_all.broker", lambda m, x: _avg(m, [m.MessageQueue("t", x, 0)], ["c"])),
    ("CH.cid_all.item", lambda m, x: m.AllocateMessageQueueConsistentHash(3).allocate("g", "c", _mqs(m), ["c", x])),
    ("ConsistentHashRouter.nodes.item", lambda m, x: m.ConsistentHashRouter(["a", x], 3).route_node("k")),
    ("LatencyFaultTolerance.update.name", lambda m, x: m.LatencyFaultTolerance().update_fault_item(x, 1, 10)),
    ("TopicPublishInfo.select.last", lambda m, x: _tp(m).select_one_message_queue(x)),
    ("AVG.current", lambda m, x: m.AllocateMessageQueueAveragely().allocate("g", x, _mqs(m), ["c"])),
    ("CONSISTENT_HASH.vnodes", lambda m, x: m.AllocateMessageQueueConsistentHash(x)),
    ("MACHINE_ROOM.idcs", lambda m, x: m.AllocateMessageQueueByMachineRoom(x)),
    ("STICKY.previous", lambda m, x: m.AllocateMessageQueueSticky(x).allocate("g", "c", _mqs(m), ["c"])),
    ("STICKY.previous.key", lambda m, x: _sticky(m, {x: _mqs(m, 1)})),
    ("STICKY.previous.queues", lambda m, x: _sticky(m, {"c": x})),
    ("STICKY.previous.item", lambda m, x: _sticky(m, {"c": [x]})),
    ("STICKY.with_previous", lambda m, x: m.AllocateMessageQueueSticky().with_previous(x).previous),
    ("STICKY.mq_all", lambda m, x: m.AllocateMessageQueueSticky().allocate("g", "c", x, ["c"])),
    ("STICKY.cid_all.item", lambda m, x: m.AllocateMessageQueueSticky().allocate("g", "c", _mqs(m), ["c", x])),
    ("STICKY.current", lambda m, x: m.AllocateMessageQueueSticky().allocate("g", x, _mqs(m), ["c"])),
    ("STICKY.allocate_all.mq_all", lambda m, x: m.AllocateMessageQueueSticky().allocate_all(x, ["c"])),
    ("STICKY.allocate_all.cid_all", lambda m, x: m.AllocateMessageQueueSticky().allocate_all(_mqs(m), x)),
    ("BOUNDED.load_factor", lambda m, x: m.AllocateMessageQueueConsistentHashBounded(x).load_factor),
    ("BOUNDED.vnodes", lambda m, x: m.AllocateMessageQueueConsistentHashBounded(1.25, x).virtual_node_cnt),
    ("BOUNDED.hash_function", lambda m, x: m.AllocateMessageQueueConsistentHashBounded(1.25, 3, x).name),
    ("BOUNDED.capacity.queues", lambda m, x: m.AllocateMessageQueueConsistentHashBounded().capacity(x, 3)),
    ("BOUNDED.capacity.consumers", lambda m, x: m.AllocateMessageQueueConsistentHashBounded().capacity(8, x)),
    ("BOUNDED.mq_all", lambda m, x: m.AllocateMessageQueueConsistentHashBounded().allocate("g", "c", x, ["c"])),
    ("BOUNDED.cid_all.item", lambda m, x: _bounded(m).allocate("g", "c", _mqs(m), ["c", x])),
    ("BOUNDED.current", lambda m, x: _bounded(m).allocate("g", x, _mqs(m), ["c"])),
    ("BOUNDED.allocate_all.cid_all", lambda m, x: _bounded(m).allocate_all(_mqs(m), x)),
    ("allocate_all.strategy", lambda m, x: m.allocate_all(x, _mqs(m), ["c"])),
    ("allocate_all.group", lambda m, x: m.allocate_all(m.AllocateMessageQueueAveragely(), _mqs(m), ["c"], x)),
    ("java_string_hashes.keys", lambda m, x: _batch(m).java_string_hashes(x).tolist()),
    ("java_string_hashes.item", lambda m, x: _batch(m).java_string_hashes(["a", x]).tolist()),
    ("java_string_hashes.nulls", lambda m, x: _batch(m).java_string_hashes(["a", None], nulls=x).tolist()),
    ("hash_select_indices.n", lambda m, x: _batch(m).hash_select_indices(["a"], x).tolist()),
    ("hash_select_indices.key_type", lambda m, x: _batch(m).hash_select_indices(["a"], 4, x).tolist()),
    # (count: 2**31 is a legitimate 8 GiB request; test_bad_input covers the counts that cannot be held)
    ("round_robin_indices.n", lambda m, x: _rr(m, 3, x)),
    ("route_nodes.item", lambda m, x: m.ConsistentHashRouter(["a", "b"], 2).route_nodes(["k", x])),
    ("route_nodes.nulls", lambda m, x: m.ConsistentHashRouter(["a", "b"], 2).route_nodes(["k", None], nulls=x)),
    ("route_nodes.hashed item", lambda m, x: m.ConsistentHashRouter(["a", "b"], 2, len).route_nodes(["k", x])),
    ("profile_select_index.key", lambda m, x: _profiles(m).profile_select_index(x, 8, "kafka-murmur2")),
    ("profile_select_index.n", lambda m, x: _profiles(m).profile_select_index("k", x, "go4-fnv32a")),
    ("profile_select_index.profile", lambda m, x: _profiles(m).profile_select_index("k", 8, x)),
    *[
        (f"profile_select_index.{p}", lambda m, x, p=p: _profiles(m).profile_select_index(x, 8, p))
        for p in ("java5-grpc-siphash", "python5-sha256", "proxy-jump", "java-hashcode")
    ],
    (
        "profile_select_indices.item",
        lambda m, x: _profiles(m).profile_select_indices(["a", x], 8, "go4-fnv32a").tolist(),
    ),
    (
        "profile_select_indices.nulls",
        lambda m, x: _profiles(m).profile_select_indices(["a"], 8, "java-hashcode", nulls=x).tolist(),
    ),
    (
        "profile_select_indices.refused",
        lambda m, x: _profiles(m).profile_select_indices([""], 8, "go4-fnv32a", refused=x).tolist(),
    ),
    ("ProfileSelector.arg", lambda m, x: _profiles(m).ProfileSelector("python5-sha256").select(_mqs(m), None, x)),
    ("ProfileSelector.mqs", lambda m, x: _profiles(m).ProfileSelector("proxy-jump").select(x, None, "k")),
    ("compat_report.n", lambda m, x: _profiles(m).compat_report(["a", "b"], x).same),
    # what a user's callback returns
    ("hash_function returns", lambda m, x: m.ConsistentHashRouter(["a", "b"], 2, lambda s: x).route_node("k")),
    ("bounded hash_function returns", lambda m, x: _bounded(m, lambda s: x).allocate("g", "a", _mqs(m), ["a", "b"])),
    ("selector returns", lambda m, x: _send_select(m, lambda mqs, msg, arg: x)),
    ("broker_deploy_in returns", lambda m, x: _nearby(m, lambda mq: x, lambda cid: "az1")),
    ("consumer_deploy_in returns", lambda m, x: _nearby(m, lambda mq: "az1", lambda cid: x)),
    ("resolver returns", lambda m, x: _detect(m, lambda name: x, lambda addr, timeout: True)),
    ("detector returns", lambda m, x: _detect(m, lambda name: name, lambda addr, timeout: x)),
]


# None asks for an unseeded random draw here: a value, but not the same one twice
UNSEEDED_WITH_NONE = {"JavaRandom.seed", "SendWhichQueue.start"}


@pytest.mark.parametrize(("label", "op"), OPS, ids=[label for label, _ in OPS])
def test_hostile_values_raise_the_same_documented_exception(label, op):
    for x in HOSTILE:
        if x is None and label in UNSEEDED_WITH_NONE:
            continue
        outcome = same(lambda m, x=x: op(m, x), label=f"{label}({x!r})")
        if outcome[0] == "raised":  # never a bare internal error
            assert outcome[1] not in ("SystemError", "PanicException", "RecursionError"), (label, x, outcome)
