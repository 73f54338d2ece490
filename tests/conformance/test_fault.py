"""Golden vectors of ``fault.jsonl``: fault tables, LatencyFaultTolerance and MQFaultStrategy scenarios.

The clock is a ManualClock frozen at one instant: the README shows that this is exact for these vectors
(every scenario ran in well under 1 s and every duration is ``<= 0`` or ``>= 2000`` ms).
"""

from __future__ import annotations

from ._support import (
    FROZEN_NOW_MS,
    expect_java_exception,
    mq,
    mq_list,
    parametrize_vectors,
    run_case,
    show,
    unknown_op,
)

VECTOR_FILE = "fault"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def check_default_tables(rr, f, compat):
    strategy = rr.MQFaultStrategy(compat)
    assert list(strategy.latency_max) == f["latency_max"]
    assert list(strategy.not_available_duration) == f["not_available_duration"]
    assert strategy.isolation_latency == f["isolation_latency"]
    assert strategy.compute_not_available_duration(f["isolation_latency"]) == f["isolation_duration"]


def check_compute_not_available_duration(rr, f, compat):
    assert rr.MQFaultStrategy(compat).compute_not_available_duration(f["latency"]) == f["expect"]


def _run_lft(rr, f, compat, *, resolver=None, detector=None, detector_state=None, detect_interval=None):
    kwargs = {"clock": rr.ManualClock(FROZEN_NOW_MS), "resolver": resolver, "detector": detector}
    if detect_interval is not None:
        kwargs["detect_interval"] = detect_interval
    lft = rr.LatencyFaultTolerance(compat, **kwargs)
    if "which_item_worst_start" in f:
        lft.which_item_worst.set(f["which_item_worst_start"])
        assert lft.which_item_worst.get() == f["which_item_worst_start"]
    for i, op in enumerate(f.each("ops")):
        where = f"{f.where} op {i}"
        name = op["op"]
        if name == "update":
            # 5.x is called with reachable=true unless the op says otherwise; 4.9 has no reachable flag
            lft.update_fault_item(op["name"], op["latency"], op["duration"], op.get("reachable", True))
        elif name == "is_available":
            assert lft.is_available(op["name"]) is op["expect"], where
        elif name == "is_reachable":
            assert lft.is_reachable(op["name"]) is op["expect"], where
        elif name == "remove":
            lft.remove(op["name"])
        elif name == "pick_one_at_least":
            assert lft.pick_one_at_least() == op["expect"], where
            if "which_item_worst_after" in op:
                assert lft.which_item_worst.get() == op["which_item_worst_after"], where
        elif name == "detect_by_one_round":
            lft.detect_by_one_round()
        elif name == "set_detector_result":
            if detector_state is None:
                unknown_op(where, f"{name} (this scenario has no detector)")
            detector_state[op["addr"]] = op["ok"]
        else:
            unknown_op(where, name)


def check_lft_scenario(rr, f, compat):
    _run_lft(rr, f, compat)


def check_lft_scenario_5x(rr, f, compat):
    addresses = dict(f["resolver"])  # a broker missing here resolves to null
    state = dict(f["detector_initial"])

    def resolver(name):
        return addresses.get(name)

    def detector(addr, timeout_ms):
        return state[addr]

    _run_lft(
        rr,
        f,
        compat,
        resolver=resolver,
        detector=detector,
        detector_state=state,
        detect_interval=f["detect_interval_ms"],
    )


def check_mqfs_scenario(rr, f, compat):
    route = rr.TopicRouteData.from_json(f["route"])
    tp = rr.TopicPublishInfo.from_route(f["topic"], route, compat=compat)
    want_queues = mq_list(rr, f["message_queue_list"])
    assert [show(q) for q in tp.message_queues] == [show(q) for q in want_queues]
    assert list(tp.message_queues) == want_queues
    if "send_which_queue_random_seed" in f:
        # sendWhichQueue.random was seeded before start_index was forced: reset() draws from it
        swq = rr.SendWhichQueue(compat, random=rr.JavaRandom(f["send_which_queue_random_seed"]))
        tp = rr.TopicPublishInfo(
            tp.message_queues, order_topic=tp.order_topic, route=tp.route, compat=compat, send_which_queue=swq
        )
        assert tp.send_which_queue is swq
    tp.send_which_queue.set(f["start_index"])

    strategy = rr.MQFaultStrategy(
        compat, send_latency_fault_enable=f["send_latency_fault_enable"], clock=rr.ManualClock(FROZEN_NOW_MS)
    )
    assert strategy.send_latency_fault_enable is f["send_latency_fault_enable"]
    lft = strategy.latency_fault_tolerance
    # only 4.9 reads whichItemWorst; forcing it on 5.3 must change nothing
    lft.which_item_worst.set(f["which_item_worst_start"])

    for i, op in enumerate(f.each("ops")):
        where = f"{f.where} op {i}"
        name = op["op"]
        if name == "update_fault_item":
            strategy.update_fault_item(op["broker"], op["latency"], op["isolation"], op.get("reachable", True))
        elif name == "select":
            last = op["last_broker"]
            reset = op.get("reset_index", False)
            if "exception" in op:
                expect_java_exception(
                    lambda last=last, reset=reset: strategy.select_one_message_queue(tp, last, reset),
                    op["exception"],
                    where,
                )
            else:
                got = strategy.select_one_message_queue(tp, last, reset)
                want = mq(rr, op["expect"])
                assert show(got) == show(want), where
                assert got == want, where
            assert tp.send_which_queue.get() == op["index_after"], where
        elif name == "is_available":
            assert lft.is_available(op["broker"]) is op["expect"], where
        elif name == "is_reachable":
            assert lft.is_reachable(op["broker"]) is op["expect"], where
        else:
            unknown_op(where, name)


CHECKS = {
    "default_tables": check_default_tables,
    "compute_not_available_duration": check_compute_not_available_duration,
    "lft_scenario": check_lft_scenario,
    "lft_pick_scenario_4x": check_lft_scenario,
    "lft_scenario_5x": check_lft_scenario_5x,
    "mqfs_scenario": check_mqfs_scenario,
    "mqfs_scenario_5x": check_mqfs_scenario,
}


def test_fault_vector(case, backend):
    run_case(case, backend, CHECKS)
