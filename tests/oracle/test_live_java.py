"""The live Java oracle: Hypothesis generates inputs, the real ``rocketmq-client`` classes (4.9.8, 5.3.3 and 5.5.0,
from Maven Central) and the 5.x gRPC client's balancers (``rocketmq-client-java`` 5.2.0) answer them, and both
backends must reproduce every answer. An answer is a golden-vector case,
checked by the same checker as the committed vectors (``tests/conformance``), so a field the checker does not
read, or an exception of another class or message, fails too.

``make test`` runs the ``rocketroute`` profile (150 examples per kind, release and backend); ``make fuzz`` runs the
``fuzz`` profile (``FUZZ_EXAMPLES``). A difference fails with Hypothesis's shrunk input."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ..conformance import (
    test_allocate,
    test_fault,
    test_grpc_balancer,
    test_java_hash,
    test_publish_info,
    test_select_queue,
    test_static_topic,
)
from ..conformance._support import VectorCase, run_case
from . import strategies
from ._oracle import LABELS, LiveOracle

KINDS: dict[str, tuple[Callable[[], st.SearchStrategy[dict[str, Any]]], dict[str, Any]]] = {
    "select_by_hash": (strategies.select_by_hash, test_java_hash.CHECKS),
    "select_by_random_seeded": (strategies.select_by_random_seeded, test_select_queue.CHECKS),
    "tpinfo_sequence": (strategies.tpinfo_sequence, test_select_queue.CHECKS),
    "allocate": (strategies.allocate, test_allocate.CHECKS),
    "route_conversion": (strategies.route_conversion, test_publish_info.CHECKS),
    "compute_not_available_duration": (strategies.compute_not_available_duration, test_fault.CHECKS),
    "lft_scenario": (strategies.lft_scenario, test_fault.CHECKS),
    "mqfs_scenario": (strategies.mqfs_scenario, test_fault.CHECKS),
    "static_route": (strategies.static_route, test_static_topic.CHECKS),
    "mock_broker_name": (strategies.mock_broker_name, test_static_topic.CHECKS),
}

V5_ONLY = frozenset({"mock_broker_name"})
"""Kinds the 4.9 jars have no class for (the 4.9 oracle refuses them)."""

GRPC_KINDS: dict[str, Callable[[], st.SearchStrategy[dict[str, Any]]]] = {
    "publishing_take_message_queues": strategies.publishing_take_message_queues,
    "publishing_by_message_group": strategies.publishing_by_message_group,
    "subscription_take_message_queue": strategies.subscription_take_message_queue,
    "publishing_update": lambda: strategies.grpc_update("publishing_update"),
    "subscription_update": lambda: strategies.grpc_update("subscription_update"),
}
"""The gRPC oracle's kinds; a route the balancer's constructor refuses comes back as a constructor case."""

CONSTRUCTOR_OF = {
    kind: "publishing_constructor" if kind.startswith("publishing_") else "subscription_constructor"
    for kind in GRPC_KINDS
}


def check_live(oracle: LiveOracle, backend: Any, request: dict[str, Any], checks: dict[str, Any]) -> dict[str, Any]:
    case = oracle.ask(request)
    assert case["versions"] == [oracle.label], case
    assert case["kind"] in (request["kind"], CONSTRUCTOR_OF.get(request["kind"])), case
    run_case(VectorCase(case["id"], oracle.label, LABELS.get(oracle.label), case), backend, checks)
    return case


@pytest.mark.parametrize("kind", list(KINDS))
def test_backends_answer_as_the_real_java_classes(oracle, backend, kind):
    strategy, checks = KINDS[kind]
    if kind in V5_ONLY and oracle.label.startswith("4."):
        with pytest.raises(AssertionError, match="could not answer"):
            oracle.ask({"kind": kind, "scope": "__global__"})
        return

    @given(request=strategy())
    def differential(request):
        check_live(oracle, backend, request, checks)

    differential()


@pytest.mark.parametrize("kind", list(GRPC_KINDS))
def test_backends_balance_as_the_real_grpc_client(grpc_oracle, backend, kind):
    @given(request=GRPC_KINDS[kind]())
    def differential(request):
        check_live(grpc_oracle, backend, request, test_grpc_balancer.CHECKS)

    differential()


def test_the_grpc_oracle_calls_the_real_classes(grpc_oracle, backend):
    """Known answers from the real balancers: a route without a writable queue is refused with Java's message,
    and the subscription balancer walks its readable queues from the index it was given."""
    a = strategies.GRPC_BROKERS[0]
    read_only = [
        {"topic": "grpc-topic", "broker": a, "queue_id": q, "permission": "READ", "accept_message_types": ["NORMAL"]}
        for q in range(2)
    ]
    request = {"kind": "publishing_take_message_queues", "route": read_only, "start_index": 0, "calls": []}
    case = check_live(grpc_oracle, backend, request, test_grpc_balancer.CHECKS)
    assert case["kind"] == "publishing_constructor"
    assert case["exception"]["message"].startswith("No writable message queue found")
    request = {"kind": "subscription_take_message_queue", "route": read_only, "start_index": 1}
    case = check_live(grpc_oracle, backend, request, test_grpc_balancer.CHECKS)
    assert [q[2] for q in case["sequence"]] == [1, 0, 1, 0, 1, 0, 1, 0]
    assert case["index_after"] == 9
    with pytest.raises(AssertionError, match="could not answer"):
        grpc_oracle.ask({"kind": "select_by_hash", "route": read_only})


def test_the_oracle_calls_the_real_classes(oracle, backend):
    """Known answers, so a driver that answered from anything but the jar would fail: the three strings whose
    ``hashCode`` is ``Integer.MIN_VALUE``, and the retry order of 4.9 against 5.x."""
    for key in ("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"):
        case = check_live(
            oracle,
            backend,
            {"kind": "select_by_hash", "arg_type": "string", "arg": key, "num_queues": 7},
            test_java_hash.CHECKS,
        )
        assert case["arg_hash"] == -(2**31)
        assert case["selected_index"] == 2  # |MIN_VALUE % 7| = 2
    seeded = {"kind": "thread_local_index_seeded"}
    with pytest.raises(AssertionError, match="could not answer"):
        oracle.ask(seeded)  # a kind the oracle does not serve is an error, never an empty answer
    empty = {"kind": "select_by_hash", "arg_type": "int", "arg": 5, "num_queues": 0}
    case = check_live(oracle, backend, empty, test_java_hash.CHECKS)
    assert case["exception"]["class"] == "java.lang.ArithmeticException"
