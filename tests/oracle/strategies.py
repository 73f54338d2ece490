"""Hypothesis inputs for the live Java oracle, one strategy per vector kind: the inputs only, in the vectors'
schema (``tests/conformance/vectors/README.md``); the oracle adds what the real classes return.

Kept inside what the real classes make deterministic (the README's section 7): fault durations are ``<= 0`` or
``>= 2000`` ms so the wall clock never decides, the latencies of a fault-strategy scenario are distinct, and
``pick_one_at_least`` is asked only while a tolerance table holds at most one item. Strings never hold lone
surrogates (a Python ``str`` crossing into Rust cannot)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from .._java import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
"""Keys and names: any code point but a lone surrogate (CJK, emoji and the empty string included)."""
java_int = st.integers(INT_MIN, INT_MAX)
java_long = st.integers(LONG_MIN, LONG_MAX)
edge_int = st.sampled_from([INT_MIN, INT_MIN + 1, -1, 0, 1, INT_MAX - 1, INT_MAX])
start_index = st.one_of(edge_int, java_int)

BROKERS = ["broker-a", "broker-b", "broker-c", "b\u4e2d"]


def _queue(topics: list[str], brokers: list[str], max_id: int = 15) -> st.SearchStrategy[list[Any]]:
    return st.tuples(st.sampled_from(topics), st.sampled_from(brokers), st.integers(0, max_id)).map(list)


def select_by_hash() -> st.SearchStrategy[dict[str, Any]]:
    by_type = st.one_of(
        st.tuples(st.just("string"), st.one_of(text, st.sampled_from(["polygenelubricants", "GydZG_"]))),
        st.tuples(st.just("int"), st.one_of(edge_int, java_int)),
        st.tuples(st.just("long"), st.one_of(java_long, st.sampled_from([-1, LONG_MIN, LONG_MAX, 2**32]))),
    )
    return st.builds(
        lambda typed, n: {"kind": "select_by_hash", "arg_type": typed[0], "arg": typed[1], "num_queues": n},
        by_type,
        st.integers(0, 64),
    )


def select_by_random_seeded() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda seed, n: {"kind": "select_by_random_seeded", "random_seed": seed, "num_queues": n},
        java_long,
        st.integers(0, 64),
    )


def tpinfo_sequence() -> st.SearchStrategy[dict[str, Any]]:
    last = st.one_of(st.none(), st.sampled_from([*BROKERS, "elsewhere"]))
    return st.builds(
        lambda queues, start, calls: {
            "kind": "tpinfo_sequence",
            "message_queue_list": queues,
            "start_index": start,
            "calls": [{"last_broker": b} for b in calls],
        },
        st.lists(_queue(["T"], BROKERS), max_size=10),
        start_index,
        st.lists(last, min_size=1, max_size=8),
    )


# ---- allocation -----------------------------------------------------------------------------------------------

ROOMS = ["", "r1", "r2", "r3"]
room_name = st.builds(lambda room, rest: f"{room}-{rest}", st.sampled_from(ROOMS), st.sampled_from(["a", "b", "c1"]))
"""A name whose machine room is its part before the first ``-`` (the README's resolver); ``""`` is a missing room."""
idc_broker = st.builds(
    lambda idc, b: f"{idc}@{b}", st.sampled_from(["idc1", "idc2", "idc3"]), st.sampled_from(["a", "b"])
)
"""``AllocateMessageQueueByMachineRoom`` reads a broker's idc as the part of its name before ``@``."""


def _cids(names: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.lists(names, max_size=7))


def _mq_all(brokers: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    queue = st.tuples(st.sampled_from(["T", "U"]), brokers, st.integers(0, 7)).map(list)
    return st.one_of(st.none(), st.lists(queue, max_size=14))


def _plain_strategy(
    kind: str, brokers: st.SearchStrategy[str], *, min_nodes: int = -2
) -> st.SearchStrategy[dict[str, Any]]:
    if kind in ("AVG", "AVG_BY_CIRCLE"):
        return st.just({})
    if kind == "CONSISTENT_HASH":
        return st.one_of(
            st.builds(lambda n: {"virtual_node_cnt": n}, st.integers(min_nodes, 12)),
            st.just({"virtual_node_cnt": 10, "constructor": "no-arg (default 10)"}),
        )
    if kind == "CONFIG":
        queue = st.tuples(st.just("T"), brokers, st.integers(0, 7)).map(list)
        return st.builds(lambda qs: {"message_queue_list": qs}, st.one_of(st.none(), st.lists(queue, max_size=6)))
    assert kind == "MACHINE_ROOM", kind
    return st.builds(
        lambda idcs: {"consumer_idcs": sorted(idcs)}, st.sets(st.sampled_from(["idc1", "idc2", "idc3", "idc9"]))
    )


@st.composite
def allocate(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG", "MACHINE_ROOM", "MACHINE_ROOM_NEARBY"])
    )
    if kind == "MACHINE_ROOM_NEARBY":
        brokers, cids = room_name, room_name
        inner = draw(st.sampled_from(["AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "CONFIG"]))
        params: dict[str, Any] = {
            # an inner strategy whose constructor throws is covered by that strategy alone (the vectors' checker
            # reads a nearby line's resolver only once its inner strategy is built)
            "inner_strategy": {"strategy": inner, "params": draw(_plain_strategy(inner, brokers, min_nodes=0))},
            "resolver": "split_dash_prefix",
        }
    elif kind == "MACHINE_ROOM":
        brokers, cids = idc_broker, st.sampled_from(["c1", "c2", "c3", "c4", "\U0001f600", "\uff5e"])
        params = draw(_plain_strategy(kind, brokers))
    else:
        brokers, cids = st.sampled_from(BROKERS), st.one_of(text, st.sampled_from(["c1", "c2", "c3"]))
        params = draw(_plain_strategy(kind, brokers))
    return {
        "kind": "allocate",
        "strategy": kind,
        "params": params,
        "consumer_group": draw(st.sampled_from(["g", "", "CID_group"])),
        "presorted": draw(st.booleans()),
        "mq_all": draw(_mq_all(brokers)),
        "cid_all": draw(_cids(cids)),
        "probes": draw(st.lists(st.sampled_from(["not-a-member", "r1-z", "", None]), unique=True, max_size=3)),
    }


# ---- routes ---------------------------------------------------------------------------------------------------

perm = st.integers(0, 7)


def _queue_data() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda name, r, w, p: {
            "broker_name": name,
            "read_queue_nums": r,
            "write_queue_nums": w,
            "perm": p,
            "topic_sys_flag": 0,
        },
        st.sampled_from(BROKERS),
        st.integers(0, 12),
        st.integers(0, 12),
        perm,
    )


def _broker_data(*, with_master: bool) -> st.SearchStrategy[dict[str, Any]]:
    ids = st.sets(st.sampled_from(["0", "1", "2"]), max_size=3)
    if with_master:
        ids = ids.map(lambda s: s | {"0"})
    addrs = ids.map(lambda s: {i: f"127.0.0.1:{10911 + int(i)}" for i in sorted(s)})
    if not with_master:
        addrs = st.one_of(st.none(), addrs)
    return st.builds(
        lambda name, a: {"cluster": "DefaultCluster", "broker_name": name, "broker_addrs": a},
        st.sampled_from(BROKERS),
        addrs,
    )


def _order_conf() -> st.SearchStrategy[Any]:
    part = st.builds(lambda b, n: f"{b}:{n}", st.sampled_from([*BROKERS, "x"]), st.sampled_from(["0", "2", "5", "q"]))
    return st.one_of(st.none(), st.just(""), st.lists(part, min_size=1, max_size=3).map(";".join))


def route(*, publishable: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda conf, qds, bds: {"order_topic_conf": conf, "queue_datas": qds, "broker_datas": bds},
        st.none() if publishable else _order_conf(),
        st.lists(_queue_data(), max_size=4),
        st.lists(_broker_data(with_master=publishable), max_size=4),
    )


def route_conversion() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda t, r: {"kind": "route_conversion", "topic": t, "route": r}, st.sampled_from(["T", "\u4e3b"]), route()
    )


# ---- static topics (RIP-21 logic queues) ------------------------------------------------------------------

STATIC_TOPIC = "static-topic"
epoch = st.one_of(st.sampled_from([0, 1, 2, 5, -1, 2**31 - 1, 2**31, 2**32 + 1, LONG_MAX, LONG_MIN]), java_long)
"""Epochs: ties, the int cast's edges (Java compares ``(int) epoch`` in places) and any long."""


def _mapping_info(brokers: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    ids = st.dictionaries(st.integers(-1, 9).map(str), st.integers(0, 3), max_size=5)
    return st.builds(
        lambda topic, scope, total, bname, ep, dirty, curr: {
            "topic": topic,
            "scope": scope,
            "total_queues": total,
            "bname": bname,
            "epoch": ep,
            "dirty": dirty,
            "curr_id_map": curr,
        },
        st.sampled_from([STATIC_TOPIC, STATIC_TOPIC, "other"]),
        st.sampled_from(["__global__", "__global__", "scope-1", "scope-2", None, ""]),
        st.integers(0, 8),
        st.sampled_from([*brokers, "broker-x"]),
        epoch,
        st.booleans(),
        ids,
    )


@st.composite
def static_route(draw: st.DrawFn) -> dict[str, Any]:
    """A route whose brokers publish a static-topic mapping (or an empty / null one) beside plain queue data."""
    brokers = ["broker-a", "broker-b", "broker-c", "broker-d"]
    plain = draw(route())
    mapping = draw(
        st.one_of(
            st.none(),
            st.dictionaries(st.sampled_from(brokers), _mapping_info(brokers), max_size=4),
        )
    )
    return {
        "kind": "static_route",
        "topic": draw(st.sampled_from([STATIC_TOPIC, "T"])),
        "route": {**plain, "topic_queue_mapping_by_broker": mapping},
    }


def mock_broker_name() -> st.SearchStrategy[dict[str, Any]]:
    scope = st.one_of(st.none(), st.sampled_from(["__global__", "", "__", "__x", "global"]), text)
    return st.builds(lambda s: {"kind": "mock_broker_name", "scope": s}, scope)


# ---- the 5.x gRPC client's balancers --------------------------------------------------------------------------

GRPC_TOPIC = "grpc-topic"


def _endpoints(scheme: str, *hosts: str, port: int = 8081) -> dict[str, Any]:
    return {"scheme": scheme, "addresses": [[h, port] for h in hosts]}


GRPC_ENDPOINTS = [
    _endpoints("IPv4", "10.0.0.1"),
    _endpoints("IPv4", "10.0.0.2", "10.0.0.3"),
    _endpoints("IPv4", "10.0.0.3", "10.0.0.2"),
    _endpoints("DOMAIN_NAME", "broker-c.example"),
    _endpoints("IPv6", "::1"),
    _endpoints("IPv4", "10.0.0.1", port=8082),
]
"""Endpoints several brokers may share (the balancers exclude by endpoints, not by broker)."""

GRPC_BROKERS = [
    {"name": name, "id": broker_id, "endpoints": GRPC_ENDPOINTS[ep]}
    for name, broker_id, ep in [
        ("broker-a", 0, 0),
        ("broker-b", 0, 1),
        ("broker-c", 0, 3),
        ("broker-d", 0, 0),  # shares broker-a's endpoints
        ("broker-a", 1, 5),  # broker-a's slave
        ("broker-e", 0, 4),
        ("b\u4e2d", 0, 2),
        ("broker-f", 2, 1),
    ]
]


def _grpc_queue() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda broker, queue_id, perm, types: {
            "topic": GRPC_TOPIC,
            "broker": broker,
            "queue_id": queue_id,
            "permission": perm,
            "accept_message_types": types,
        },
        st.sampled_from(GRPC_BROKERS),
        st.integers(0, 5),
        st.sampled_from(["READ_WRITE", "READ_WRITE", "READ_WRITE", "READ", "WRITE", "NONE"]),
        st.lists(st.sampled_from(["NORMAL", "FIFO", "DELAY", "TRANSACTION"]), max_size=2, unique=True),
    )


grpc_route = st.lists(_grpc_queue(), max_size=9)
grpc_start = st.one_of(edge_int, java_int, st.integers(0, 50))


def publishing_take_message_queues() -> st.SearchStrategy[dict[str, Any]]:
    call = st.builds(
        lambda ex, count: {"excluded": ex, "count": count},
        st.lists(st.sampled_from(GRPC_ENDPOINTS), max_size=3),
        st.one_of(st.integers(-1, 12), st.just(1)),
    )
    return st.builds(
        lambda r, start, calls: {
            "kind": "publishing_take_message_queues",
            "route": r,
            "start_index": start,
            "calls": calls,
        },
        grpc_route,
        grpc_start,
        st.lists(call, min_size=1, max_size=6),
    )


def publishing_by_message_group() -> st.SearchStrategy[dict[str, Any]]:
    group = st.one_of(st.none(), text, st.sampled_from(["", "order-1", "polygenelubricants", "GydZG_"]))
    return st.builds(
        lambda r, gs: {"kind": "publishing_by_message_group", "route": r, "groups": [{"group": g} for g in gs]},
        grpc_route,
        st.lists(group, min_size=1, max_size=8),
    )


def subscription_take_message_queue() -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda r, start: {"kind": "subscription_take_message_queue", "route": r, "start_index": start},
        grpc_route,
        grpc_start,
    )


def grpc_update(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda r, start, nxt: {"kind": kind, "route": r, "start_index": start, "update_route": nxt},
        grpc_route,
        grpc_start,
        grpc_route,
    )


# ---- fault tolerance ------------------------------------------------------------------------------------------

duration = st.one_of(st.integers(-600_000, 0), st.integers(2000, 600_000))
"""A not-available duration the wall clock cannot decide on (README section 7)."""


def compute_not_available_duration() -> st.SearchStrategy[dict[str, Any]]:
    latency = st.one_of(java_long, st.integers(-1, 20_000), st.sampled_from([50, 100, 550, 1000, 2000, 3000, 15000]))
    return st.builds(lambda x: {"kind": "compute_not_available_duration", "latency": x}, latency)


@st.composite
def lft_scenario(draw: st.DrawFn) -> dict[str, Any]:
    names = ["a", "b", "c"]
    held: set[str] = set()
    ops: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(["update", "update", "is_available", "remove", "pick_one_at_least"]))
        name = draw(st.sampled_from(names))
        if op == "update":
            ops.append(
                {"op": "update", "name": name, "latency": draw(st.integers(0, 20_000)), "duration": draw(duration)}
            )
            held.add(name)
        elif op == "is_available":
            ops.append({"op": "is_available", "name": name})
        elif op == "remove":
            ops.append({"op": "remove", "name": name})
            held.discard(name)
        elif len(held) <= 1:  # with 2 or more items the pick is random in 5.x (an unseeded shuffle)
            ops.append({"op": "pick_one_at_least"})
    return {"kind": "lft_scenario", "ops": ops}


@st.composite
def mqfs_scenario(draw: st.DrawFn) -> dict[str, Any]:
    brokers = ["broker-a", "broker-b", "broker-c"]
    qds = draw(
        st.lists(
            st.builds(
                lambda name, w, p: {
                    "broker_name": name,
                    "read_queue_nums": w,
                    "write_queue_nums": w,
                    "perm": p,
                    "topic_sys_flag": 0,
                },
                st.sampled_from(brokers),
                st.integers(0, 4),
                st.sampled_from([6, 6, 6, 4, 2]),
            ),
            min_size=1,
            max_size=3,
        )
    )
    bds = [
        {"cluster": "c", "broker_name": b, "broker_addrs": {"0": f"127.0.0.1:{10911 + k}"}}
        for k, b in enumerate(brokers)
    ]
    latencies = iter(draw(st.lists(st.integers(0, 9_999), unique=True, min_size=12, max_size=12)))
    isolated = False
    ops: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(["update_fault_item", "update_fault_item", "select", "select", "is_available"]))
        broker = draw(st.sampled_from(brokers))
        if op == "update_fault_item":
            isolation = not isolated and draw(st.booleans())
            isolated = isolated or isolation
            ops.append({"op": op, "broker": broker, "latency": next(latencies), "isolation": isolation})
        elif op == "select":
            ops.append({"op": op, "last_broker": draw(st.one_of(st.none(), st.sampled_from(brokers)))})
        else:
            ops.append({"op": op, "broker": broker})
    return {
        "kind": "mqfs_scenario",
        "topic": "T",
        "route": {"order_topic_conf": None, "queue_datas": qds, "broker_datas": bds},
        "send_latency_fault_enable": draw(st.booleans()),
        "start_index": draw(start_index),
        "which_item_worst_start": draw(st.integers(0, 1000)),
        "ops": ops,
    }
