"""Golden vectors of ``fault_tables.jsonl``: ``MQFaultStrategy`` with its tables set apart by
``setLatencyMax`` / ``setNotAvailableDuration`` (unequal lengths, empty and null tables), what
``computeNotAvailableDuration`` and ``updateFaultItem`` then do, the isolation latency, and the getters.

Java's tables are arrays shared with the caller (no copy either way); rocketroute's are tuples, so there is
nothing to share: the aliasing fields are read and checked as Java's facts, and the tests assert instead that
a caller's list is copied."""

from __future__ import annotations

from ._support import FROZEN_NOW_MS, expect_java_exception, parametrize_vectors, run_case

VECTOR_FILE = "fault_tables"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def _strategy(rr, f, compat, **kwargs):
    strategy = rr.MQFaultStrategy(compat, clock=rr.ManualClock(FROZEN_NOW_MS), **kwargs)
    strategy.latency_max = f["latency_max"]
    strategy.not_available_duration = f["not_available_duration"]
    assert f["table"]  # the pair's name, for reading the vector file
    return strategy


def check_compute_with_tables(rr, f, compat):
    strategy = _strategy(rr, f, compat)
    latency = f["latency"]
    if "exception" in f:
        expect_java_exception(lambda: strategy.compute_not_available_duration(latency), f["exception"], f.where)
    else:
        assert strategy.compute_not_available_duration(latency) == f["expect"]


def check_update_with_tables(rr, f, compat):
    strategy = _strategy(rr, f, compat)
    strategy.send_latency_fault_enable = f["send_latency_fault_enable"]
    broker, latency, isolation = f["broker"], f["latency"], f["isolation"]
    if "exception" in f:
        expect_java_exception(lambda: strategy.update_fault_item(broker, latency, isolation), f["exception"], f.where)
    else:
        strategy.update_fault_item(broker, latency, isolation)
    lft = strategy.latency_fault_tolerance
    updates = f["tolerance_updates"]
    if updates:
        (update,) = updates
        assert update["name"] == broker and update["latency"] == latency
        assert (
            strategy.compute_not_available_duration(strategy.isolation_latency if isolation else latency)
            == (update["duration"])
        )
        assert broker in lft
    else:
        assert broker not in lft
    assert lft.is_available(broker) is f["is_available"]


def check_isolation_latency(rr, f, compat):
    identity = list(range(100_001))
    strategy = rr.MQFaultStrategy(compat, True, clock=rr.ManualClock(FROZEN_NOW_MS))
    strategy.latency_max = identity
    strategy.not_available_duration = identity
    assert strategy.isolation_latency == f["isolation_latency"]
    assert strategy.compute_not_available_duration(strategy.isolation_latency) == f["isolation_latency"]
    assert strategy.compute_not_available_duration(1234) == f["non_isolated_duration_for_1234"]
    # the fault item keeps the real latency, not the isolation's: 4.9's pickOneAtLeast orders by it
    recorded = f["recorded_latency_with_isolation"]
    strategy.update_fault_item("broker-a", recorded, True)
    strategy.update_fault_item("broker-b", recorded + 1, True)
    if compat == "4.9":
        assert strategy.latency_fault_tolerance.pick_one_at_least() == "broker-a"


def check_getters(rr, f, compat):
    prop = f["property"]
    strategy = rr.MQFaultStrategy(compat)
    assert list(getattr(strategy, prop)) == f["default"] == f["producer_default"]
    assert list(rr.producer_defaults(compat)[prop]) == f["default"]
    # Java passes its arrays through; rocketroute copies a caller's list into a tuple
    assert (f["same_array"], f["aliases_input"], f["returned_aliases_strategy"], f["producer_same_array"]) == (
        True,
        True,
        True,
        True,
    )
    mine = [7, 8, 9]
    setattr(strategy, prop, mine)
    mine[0] = 100
    assert getattr(strategy, prop) == (7, 8, 9)
    assert f["default_shared_between_instances"] is False
    other = rr.MQFaultStrategy(compat)
    assert list(getattr(other, prop)) == f["default"]
    assert f["null_round_trip"] is True
    setattr(strategy, prop, None)
    assert getattr(strategy, prop) is None


CHECKS = {
    "compute_with_tables": check_compute_with_tables,
    "update_with_tables": check_update_with_tables,
    "isolation_latency": check_isolation_latency,
    "getters": check_getters,
}


def test_fault_tables_vector(case, backend):
    run_case(case, backend, CHECKS)
