"""The golden vectors, regenerated from the released jars: every committed case of a kind the live oracles serve
is asked again of the real ``rocketmq-client`` classes from Maven Central (4.9.8 and 5.3.3, the labels of the
vectors), and the answer must equal the committed case, field for field. The cases labelled 5.3.3 are asked of
the 5.5.0 jar too: the same answers are why ``compat="5.5"`` is an alias of ``"5.3"``. ``grpc_balancer.jsonl``
(labelled ``clients-java-5.2.1``) is asked of the released gRPC client ``rocketmq-client-java`` 5.2.0.

(The vectors came from the classes compiled from the tagged sources, with stubs for some infrastructure; this
shows the released jars answer exactly as they did.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ..conformance._support import load_cases, vectors_dir
from ._oracle import LiveOracle

OUTPUTS = ("expect", "exception", "index_after")


def _ops(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in op.items() if k not in OUTPUTS} for op in case["ops"]]


def _allocate(case: dict[str, Any]) -> dict[str, Any]:
    params = dict(case["params"])
    if "inner_strategy" in params:
        params["inner_strategy"] = {k: v for k, v in params["inner_strategy"].items() if k != "strategy_name"}
        params.pop("broker_rooms")
        params.pop("consumer_rooms")
    return {
        **{k: case[k] for k in ("strategy", "consumer_group", "presorted", "mq_all", "cid_all")},
        "params": params,
        "probes": [e["current_cid"] for e in case.get("results", ()) if not e["in_cid_all"]],
    }


def _fields(*names: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda case: {k: case[k] for k in names}


REQUESTS: dict[tuple[str, str], Callable[[dict[str, Any]], dict[str, Any]]] = {
    ("allocate", "allocate"): _allocate,
    ("java_hash", "select_by_hash"): _fields("arg_type", "arg", "num_queues"),
    ("select_queue", "select_by_random_seeded"): _fields("random_seed", "num_queues"),
    ("select_queue", "tpinfo_sequence"): lambda case: {
        **_fields("message_queue_list", "start_index")(case),
        "calls": [{"last_broker": call["last_broker"]} for call in case["calls"]],
    },
    ("publish_info", "route_conversion"): _fields("topic", "route"),
    ("fault", "compute_not_available_duration"): _fields("latency"),
    ("fault", "lft_scenario"): lambda case: {"ops": _ops(case)},
    ("fault", "mqfs_scenario"): lambda case: {
        **_fields("topic", "route", "send_latency_fault_enable", "start_index", "which_item_worst_start")(case),
        "ops": _ops(case),
    },
    ("static_topic", "static_route"): _fields("topic", "route"),
    ("static_topic", "mock_broker_name"): _fields("scope"),
}
"""(vector file, kind) -> the request of a case: its inputs, as the oracle reads them."""

V5_ONLY = frozenset({"mock_broker_name"})
"""Kinds with no 4.9.8 case: the 4.9 jar has no such class, and its oracle refuses them."""

GRPC_REQUESTS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "publishing_constructor": _fields("route"),
    "subscription_constructor": _fields("route"),
    "publishing_take_message_queues": lambda case: {
        **_fields("route", "start_index")(case),
        "calls": [{"excluded": c["excluded"], "count": c["count"]} for c in case["calls"]],
    },
    "publishing_by_message_group": lambda case: {
        "route": case["route"],
        "groups": [{"group": g["group"]} for g in case["groups"]],
    },
    "subscription_take_message_queue": _fields("route", "start_index"),
    "publishing_update": _fields("route", "start_index", "update_route"),
    "subscription_update": _fields("route", "start_index", "update_route"),
}
"""grpc_balancer.jsonl's kinds -> the request of a case, for the gRPC oracle."""


def _rooms_agree(answer: dict[str, Any], case: dict[str, Any]) -> None:
    """A machine-room-nearby line's tables list the room of every name in the case; the oracle lists the names
    the strategy looked up. Those must be in the case's tables with the same room; then the tables compare equal."""
    for table in ("broker_rooms", "consumer_rooms"):
        looked_up, listed = answer["params"][table], case["params"][table]
        assert all(listed.get(name) == room for name, room in looked_up.items()), (table, looked_up, listed)
        answer["params"][table] = listed


def _differences(
    oracle: LiveOracle, cases: list[Any], request_of: Callable[[dict[str, Any]], dict[str, Any]]
) -> list[tuple[str, dict[str, Any]]]:
    """Each case asked again of ``oracle``: (case id, {field: (committed, answered)}) where the answer differs."""
    differ = []
    for case in cases:
        answer = oracle.ask({"kind": case.kind, **request_of(case.data)})
        if case.kind == "allocate" and "broker_rooms" in case.data["params"]:
            _rooms_agree(answer, case.data)
        want = {k: v for k, v in case.data.items() if k not in ("id", "versions")}
        got = {k: v for k, v in answer.items() if k not in ("id", "versions")}
        if got != want:
            fields = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
            differ.append((case.id, {k: (want.get(k), got.get(k)) for k in fields}))
    return differ


@pytest.mark.parametrize(("file", "kind"), list(REQUESTS))
def test_the_released_jars_answer_every_vector_as_committed(oracle: LiveOracle, pytestconfig, file, kind):
    label = "5.3.3" if oracle.label == "5.5.0" else oracle.label
    cases = [c for c in load_cases(vectors_dir(pytestconfig), file) if c.version == label and c.kind == kind]
    if kind in V5_ONLY and label.startswith("4."):
        assert not cases, f"{file} has {kind} cases labelled {label}"
        with pytest.raises(AssertionError, match="could not answer"):
            oracle.ask({"kind": kind, **REQUESTS[(file, kind)](load_cases(vectors_dir(pytestconfig), file)[-1].data)})
        return
    assert cases, f"no {kind} case labelled {label} in {file}"
    differ = _differences(oracle, cases, REQUESTS[(file, kind)])
    assert not differ, f"{len(differ)} of {len(cases)} {kind} cases answered otherwise by {oracle.label}: {differ[:2]}"


@pytest.mark.parametrize("kind", list(GRPC_REQUESTS))
def test_the_released_grpc_client_answers_every_vector_as_committed(grpc_oracle: LiveOracle, pytestconfig, kind):
    """grpc_balancer.jsonl (labelled clients-java-5.2.1, from the tagged sources) asked again of the released
    ``rocketmq-client-java`` 5.2.0 jar: every case comes back as committed."""
    cases = [c for c in load_cases(vectors_dir(pytestconfig), "grpc_balancer") if c.kind == kind]
    assert cases, f"no {kind} case in grpc_balancer"
    differ = _differences(grpc_oracle, cases, GRPC_REQUESTS[kind])
    assert not differ, f"{len(differ)} of {len(cases)} {kind} cases answered otherwise by 5.2.0: {differ[:2]}"
