"""The native send loop (``rocketroute_core::send_loop``, ``_native._SendLoop``, which ``send_default`` and the
producer use for the native backend's strategy and publish info) decides as the Python loop (``send._SendLoop``):
the same queue for every attempt, the same answer or error (with the same note), the same fault table after.

The Python loop is the one ``send_default`` takes when given an ``attempts`` list; each scenario runs once each way
on twin objects (same queues, same round-robin start, same clock)."""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rocketroute
from rocketroute import send as send_module
from rocketroute.errors import (
    AuthenticationError,
    BrokerResponseError,
    BrokerUnreachableError,
)

pytestmark = pytest.mark.skipif(
    rocketroute.BACKEND != "native", reason="the native loop is the native backend's (CI requires it)"
)

T0 = 1_700_000_000_000
BROKERS = ("broker-a", "broker-b", "broker-c")

# what one attempt does: (kind, latency in ms); kinds: a result (stored, or asking for another broker), or an error
_outcomes = st.tuples(
    st.sampled_from(
        ["ok", "not_stored", "unreachable", "connection", "timeout", "code_1", "code_13", "denied", "other"]
    ),
    st.integers(0, 4000),
)


def _twin(compat: str, enable: bool, start_detector: bool, start: int):
    mqs = [rocketroute.MessageQueue("TopicTest", b, i) for b in BROKERS for i in range(2)]
    index = rocketroute.SendWhichQueue(compat, start, random=rocketroute.JavaRandom(7))  # resets draw the same
    tp = rocketroute.TopicPublishInfo(mqs, compat=compat, send_which_queue=index)
    clock = rocketroute.ManualClock(T0)
    lft = rocketroute.LatencyFaultTolerance(compat, clock=clock, random=rocketroute.JavaRandom(11))
    strategy = rocketroute.MQFaultStrategy(
        compat, send_latency_fault_enable=enable, start_detector_enable=start_detector, latency_fault_tolerance=lft
    )
    return tp, strategy, clock


class _Broker:
    def __init__(self, clock, script):
        self.clock, self.script, self.calls = clock, list(script), []

    def __call__(self, mq):
        kind, latency = self.script[len(self.calls) % len(self.script)]
        self.calls.append(mq)
        self.clock.advance(latency)
        n = len(self.calls)
        if kind in ("ok", "not_stored"):
            return (kind, n, mq)
        raise {
            "unreachable": lambda: BrokerUnreachableError(f"down {n}"),
            "connection": lambda: ConnectionResetError(f"reset {n}"),
            "timeout": lambda: TimeoutError(f"slow {n}"),
            "code_1": lambda: BrokerResponseError(1, f"system error {n}"),
            "code_13": lambda: BrokerResponseError(13, f"illegal {n}"),
            "denied": lambda: AuthenticationError(16, f"check signature failed. {n}"),
            "other": lambda: RuntimeError(f"client side {n}"),
        }[kind]()


def _run(python_loop: bool, scenario: dict, asynchronous: bool):
    tp, strategy, clock = _twin(scenario["compat"], scenario["enable"], scenario["detector"], scenario["start"])
    broker = _Broker(clock, scenario["script"])
    retry_result = (lambda r: r[0] == "not_stored") if scenario["retry_result"] else None
    kw = dict(
        mode=scenario["mode"],
        retry_times_when_send_failed=scenario["retries"],
        retry_times_when_send_async_failed=scenario["retries"],
        timeout_ms=scenario["timeout"],
        retry_response_codes=scenario["codes"],
        clock=clock if scenario["clock"] else None,
        attempts=[] if python_loop else None,
        retry_result=retry_result,
    )
    if asynchronous:

        async def send(mq):
            return broker(mq)

        call = lambda: asyncio.run(rocketroute.send_default_async(tp, strategy, send, **kw))  # noqa: E731
    else:
        call = lambda: rocketroute.send_default(tp, strategy, broker, **kw)  # noqa: E731
    try:
        outcome = ("returned", call())
    except Exception as e:  # the error is what is compared
        notes = getattr(e, "__notes__", None)
        if notes is not None and not scenario["clock"]:
            # the note holds the time spent: the same on the ManualClock, 0 or 1 ms on the monotonic one
            notes = [re.sub(r"cost \[\d+\]ms", "cost [..]ms", n) for n in notes]
        outcome = ("raised", type(e), str(e), notes, type(e.__cause__), str(e.__cause__))
    lft = strategy.latency_fault_tolerance
    table = sorted(lft.broker_names()), [(lft.is_available(b), lft.is_reachable(b)) for b in BROKERS]
    return outcome, broker.calls, table, tp.send_which_queue.get()


_scenarios = st.fixed_dictionaries(
    {
        "compat": st.sampled_from(["5.3", "4.9"]),
        "enable": st.booleans(),
        "detector": st.booleans(),
        "start": st.integers(-3, 7),
        "mode": st.sampled_from(["sync", "async", "oneway"]),
        "retries": st.integers(0, 4),
        "timeout": st.sampled_from([3000, 5000, 100_000]),
        "codes": st.sampled_from([None, (), frozenset({1})]),
        "clock": st.booleans(),
        "retry_result": st.booleans(),
        "script": st.lists(_outcomes, min_size=1, max_size=6),
    }
)


@settings(max_examples=400, deadline=None)
@given(scenario=_scenarios, asynchronous=st.booleans())
def test_the_native_loop_decides_as_the_python_one(scenario: dict, asynchronous: bool) -> None:
    if not scenario["clock"]:
        # on the monotonic clock no latency passes: the scripted latencies are the ManualClock's
        scenario["script"] = [(kind, 0) for kind, _ in scenario["script"]]
    assert _run(False, scenario, asynchronous) == _run(True, scenario, asynchronous)


def test_the_native_loop_is_taken_for_native_objects_only() -> None:
    from rocketroute import reference

    tp, strategy, clock = _twin("5.3", True, False, 0)
    args = (tp, strategy, "sync", 2, 2, 3000, None)
    assert isinstance(send_module._send_loop(*args, None, None, None), send_module._native_loop_types()[0])
    assert isinstance(send_module._send_loop(*args, clock, None, None), send_module._native_loop_types()[0])
    assert type(send_module._send_loop(*args, clock, [], None)) is send_module._SendLoop
    assert type(send_module._send_loop(*args, reference.ManualClock(0), None, None)) is send_module._SendLoop
    ref_tp = reference.TopicPublishInfo([reference.MessageQueue("T", "b", 0)])
    assert type(send_module._send_loop(ref_tp, strategy, "sync", 2, 2, 3000, None, None, None, None)) is (
        send_module._SendLoop
    )


def test_a_loop_records_nothing_before_its_first_queue() -> None:
    from rocketroute.errors import NullPointerError

    tp, strategy, _ = _twin("5.3", True, False, 0)
    loop = send_module._send_loop(tp, strategy, "sync", 2, 2, 3000, None, None, None, None)
    with pytest.raises(NullPointerError):
        loop.succeeded("early")
    assert loop.mq is None and loop.times == 0 and loop.brokers_sent == [None, None, None]


@pytest.mark.parametrize(("retries", "timeout_ms"), [(-3, 3000), (2, 2.5), (2, -1), (2, 1 << 70), (1 << 20, 3000)])
def test_what_the_native_loop_does_not_take_goes_to_the_python_loop(retries, timeout_ms) -> None:
    tp, strategy, clock = _twin("5.3", True, False, 0)
    loop = send_module._send_loop(tp, strategy, "sync", retries, 2, timeout_ms, None, clock, None, None)
    assert type(loop) is send_module._SendLoop
    loop = send_module._send_loop(tp, strategy, "sync", 2, 2, 3000, None, clock, None, None)
    assert type(loop) is send_module._native_loop_types()[0]


class _Failure(RuntimeError):
    pass


@pytest.mark.parametrize("python_loop", [False, True])
def test_a_failed_loop_is_collected_with_its_error(python_loop: bool) -> None:
    """The loop keeps the last error, whose traceback holds the frame that holds the loop: a cycle the garbage
    collector must see through the native loop too (else each failed send would leak its error, frames and
    message)."""
    import gc
    import weakref

    tp, strategy, clock = _twin("5.3", False, False, 0)
    refs = []

    def send(mq):
        e = _Failure("down")
        refs.append(weakref.ref(e))
        raise e

    with pytest.raises(_Failure):
        rocketroute.send_default(tp, strategy, send, clock=clock, attempts=[] if python_loop else None)
    gc.collect()
    assert len(refs) == 3 and all(r() is None for r in refs)


def test_the_native_loop_refuses_a_count_it_would_not_hold() -> None:
    from rocketroute import _native

    tp, strategy, _ = _twin("5.3", True, False, 0)
    with pytest.raises(ValueError, match="at most 65536 attempts"):
        _native._SendLoop(tp, strategy, True, (1 << 16) + 1, 3000, ())
    assert _native._SendLoop(tp, strategy, True, 1 << 16, 3000, ()).total == 1 << 16
