"""LatencyFaultTolerance and MQFaultStrategy driven by a ManualClock: isolation, expiry, reachability."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ._java import LONG_MAX, LONG_MIN

T0 = 1_700_000_000_000
COMPATS = ["5.3", "4.9"]


def test_manual_clock(backend):
    clock = backend.ManualClock(T0)
    assert clock.now_ms() == T0
    assert clock.advance(250) == T0 + 250
    assert clock.now_ms() == T0 + 250
    clock.set(5)
    assert clock.now_ms() == 5
    assert clock.advance(-5) == 0
    assert backend.ManualClock().now_ms() == 0


def test_system_clock_is_wall_time(backend):
    import time

    before = time.time_ns() // 1_000_000
    now = backend.SystemClock().now_ms()
    after = time.time_ns() // 1_000_000
    assert before <= now <= after


@pytest.mark.parametrize("compat", COMPATS)
def test_isolated_broker_becomes_available_when_the_clock_reaches_its_start(backend, compat):
    clock = backend.ManualClock(T0)
    strategy = backend.MQFaultStrategy(compat, send_latency_fault_enable=True, clock=clock)
    lft = strategy.latency_fault_tolerance
    duration = strategy.compute_not_available_duration(strategy.isolation_latency)
    assert duration > 0
    strategy.update_fault_item("broker-a", 10, True)
    assert lft.is_available("broker-a") is False
    assert lft.is_available("broker-b") is True
    clock.advance(duration - 1)
    assert lft.is_available("broker-a") is False
    clock.advance(1)
    assert lft.is_available("broker-a") is True


@pytest.mark.parametrize("compat", COMPATS)
def test_latency_decides_the_isolation(backend, compat):
    clock = backend.ManualClock(T0)
    lft = backend.LatencyFaultTolerance(compat, clock=clock)
    lft.update_fault_item("broker-a", 3000, 5000)
    assert lft.is_available("broker-a") is False
    clock.advance(5000)
    assert lft.is_available("broker-a") is True
    lft.update_fault_item("broker-b", 20, 0)
    assert lft.is_available("broker-b") is True
    lft.update_fault_item("broker-c", 20, -7)
    assert lft.is_available("broker-c") is True


def test_a_fast_send_does_not_clear_an_isolation_on_53_but_does_on_49(backend):
    # README: 4.9.8 sets start = now + duration on every update; 5.3.3 only moves start forward
    results = {}
    for compat in COMPATS:
        lft = backend.LatencyFaultTolerance(compat, clock=backend.ManualClock(T0))
        lft.update_fault_item("broker-a", 5000, 30000)
        lft.update_fault_item("broker-a", 10, 0)
        results[compat] = lft.is_available("broker-a")
    assert results == {"5.3": False, "4.9": True}


@pytest.mark.parametrize("compat", COMPATS)
def test_remove_forgets_the_fault_item(backend, compat):
    lft = backend.LatencyFaultTolerance(compat, clock=backend.ManualClock(T0))
    lft.update_fault_item("broker-a", 5000, 30000)
    lft.remove("broker-a")
    assert lft.is_available("broker-a") is True
    lft.remove("never-seen")
    assert lft.pick_one_at_least() is None


@pytest.mark.parametrize("compat", COMPATS)
def test_fault_tolerance_off_records_nothing(backend, compat):
    strategy = backend.MQFaultStrategy(compat, clock=backend.ManualClock(T0))
    assert strategy.send_latency_fault_enable is False
    strategy.update_fault_item("broker-a", 20000, True)
    assert strategy.latency_fault_tolerance.is_available("broker-a") is True


def _detecting_lft(backend, clock, addresses, probe):
    return backend.LatencyFaultTolerance(
        "5.3",
        clock=clock,
        resolver=addresses.get,
        detector=lambda addr, timeout_ms: probe[addr],
        detect_interval=2000,
    )


def test_detect_by_one_round_restores_reachability(backend):
    clock = backend.ManualClock(T0)
    probe = {"10.0.0.1:10911": False}
    lft = _detecting_lft(backend, clock, {"broker-a": "10.0.0.1:10911"}, probe)
    lft.update_fault_item("broker-a", 100, 0, False)
    assert lft.is_reachable("broker-a") is False
    assert lft.is_available("broker-a") is True
    lft.detect_by_one_round()  # the probe fails: still unreachable
    assert lft.is_reachable("broker-a") is False
    probe["10.0.0.1:10911"] = True
    lft.detect_by_one_round()  # probed less than detect_interval ago: not probed again yet
    assert lft.is_reachable("broker-a") is False
    clock.advance(1999)
    lft.detect_by_one_round()
    assert lft.is_reachable("broker-a") is False
    clock.advance(1)
    lft.detect_by_one_round()
    assert lft.is_reachable("broker-a") is True


def test_detect_by_one_round_keeps_the_isolation(backend):
    clock = backend.ManualClock(T0)
    lft = _detecting_lft(backend, clock, {"broker-a": "10.0.0.1:10911"}, {"10.0.0.1:10911": True})
    lft.update_fault_item("broker-a", 100, 10000, False)
    lft.detect_by_one_round()
    assert lft.is_reachable("broker-a") is True
    assert lft.is_available("broker-a") is False


def test_detect_by_one_round_drops_brokers_that_no_longer_resolve(backend):
    clock = backend.ManualClock(T0)
    lft = _detecting_lft(backend, clock, {}, {})
    lft.update_fault_item("broker-gone", 100, 10000, False)
    assert (lft.is_available("broker-gone"), lft.is_reachable("broker-gone")) == (False, False)
    lft.detect_by_one_round()
    assert (lft.is_available("broker-gone"), lft.is_reachable("broker-gone")) == (True, True)
    assert lft.pick_one_at_least() is None


def test_pick_one_at_least_53_returns_the_only_reachable_item(backend):
    lft = backend.LatencyFaultTolerance("5.3", clock=backend.ManualClock(T0))
    assert lft.pick_one_at_least() is None
    lft.update_fault_item("broker-a", 100, 10000, False)
    assert lft.pick_one_at_least() is None
    lft.update_fault_item("broker-b", 100, 10000, True)
    assert lft.pick_one_at_least() == "broker-b"


@pytest.mark.parametrize("compat", COMPATS)
@given(latency=st.integers(LONG_MIN, LONG_MAX))
def test_compute_not_available_duration_scans_the_table_from_the_top(backend, compat, latency):
    strategy = backend.MQFaultStrategy(compat)
    table = list(zip(strategy.latency_max, strategy.not_available_duration, strict=True))
    want = next((nad for lm, nad in reversed(table) if latency >= lm), 0)
    assert strategy.compute_not_available_duration(latency) == want


def test_custom_tables(backend):
    strategy = backend.MQFaultStrategy("5.3", latency_max=[10, 20], not_available_duration=[0, 1000])
    assert list(strategy.latency_max) == [10, 20]
    assert [strategy.compute_not_available_duration(v) for v in (5, 10, 19, 20, 10**9)] == [0, 0, 0, 1000, 1000]


@pytest.mark.parametrize("compat", COMPATS)
def test_strategy_avoids_an_isolated_broker(backend, compat):
    mqs = [backend.MessageQueue("T", b, i) for b in ("broker-a", "broker-b") for i in range(4)]
    tp = backend.TopicPublishInfo(mqs, compat=compat)
    tp.send_which_queue.set(0)
    strategy = backend.MQFaultStrategy(compat, send_latency_fault_enable=True, clock=backend.ManualClock(T0))
    strategy.update_fault_item("broker-a", 100, True)
    picks = [strategy.select_one_message_queue(tp, None, False) for _ in range(20)]
    assert {q.broker_name for q in picks} == {"broker-b"}


def test_strategy_53_avoids_an_unreachable_broker_when_all_are_isolated(backend):
    mqs = [backend.MessageQueue("T", b, i) for b in ("broker-a", "broker-b") for i in range(4)]
    tp = backend.TopicPublishInfo(mqs, compat="5.3")
    tp.send_which_queue.set(0)
    strategy = backend.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=backend.ManualClock(T0))
    strategy.update_fault_item("broker-a", 100, True, False)
    strategy.update_fault_item("broker-b", 100, True, True)
    picks = [strategy.select_one_message_queue(tp, None, False) for _ in range(20)]
    assert {q.broker_name for q in picks} == {"broker-b"}


@pytest.mark.parametrize("compat", ["4.9", "5.3"])
def test_pick_one_at_least_does_not_depend_on_which_broker_was_seen_first(backend, compat):
    names = ["broker-x", "broker-q", "broker-7", "b"]  # tied: same latency, same start, all unavailable

    def picks(order):
        clock = backend.ManualClock(0)
        lft = backend.LatencyFaultTolerance(compat, clock=clock, random=11)
        for n in order:
            lft.update_fault_item(n, 3000, 30_000)
        return [lft.pick_one_at_least() for _ in range(6)]

    assert picks(names) == picks(list(reversed(names))) == picks(sorted(names))


def test_broker_names_are_forgotten_with_their_last_holder():
    """Native only (the reference keeps names in its own dicts, freed with them): broker names are interned
    to ids while a publish info or a fault table holds them, and forgotten after; 50,000 short-lived
    publish infos and fault tables, each with a new broker name, leave the table as it was, so a new fault
    table's slots stay small (before, the ids grew without end and a table with one item took 112 MB after
    4M names)."""
    import rocketroute

    if rocketroute.BACKEND != "native":
        pytest.fail("the native backend is not built", pytrace=False)
    from rocketroute import _native

    live_before, ids_before = _native._broker_name_table()
    for i in range(50_000):
        name = f"short-lived-broker-{i}"
        tp = _native.TopicPublishInfo([_native.MessageQueue("T", name, 0), _native.MessageQueue("T", name, 1)])
        strategy = _native.MQFaultStrategy(send_latency_fault_enable=True)
        strategy.update_fault_item(name, 5000, False)
        assert strategy.select_one_message_queue(tp).broker_name == name
        assert not strategy.latency_fault_tolerance.is_available(name)
        del tp, strategy
    live_after, ids_after = _native._broker_name_table()
    assert live_after == live_before
    assert ids_after <= ids_before + 2
