"""Bad input fails the way Java fails (or with a documented Python exception), on both backends."""

from __future__ import annotations

import pytest

from rocketroute.errors import (
    IllegalArgumentError,
    IndexOutOfBoundsError,
    JavaArithmeticError,
    NullPointerError,
    NumberFormatError,
)

from ._java import INT_MAX, LONG_MAX, LONG_MIN

T0 = 1_700_000_000_000


def _route(backend, conf):
    return backend.TopicRouteData.from_json(
        {
            "orderTopicConf": conf,
            "queueDatas": [{"brokerName": "broker-a", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6}],
            "brokerDatas": [{"cluster": "c", "brokerName": "broker-a", "brokerAddrs": {"0": "10.0.0.1:10911"}}],
        }
    )


@pytest.mark.parametrize("compat", ["nope", "", "4.8", "6.0", "5.4"])
def test_unknown_compat_is_an_illegal_argument(backend, compat):
    for make in (
        lambda: backend.SendWhichQueue(compat),
        lambda: backend.TopicPublishInfo([], compat=compat),
        lambda: backend.MQFaultStrategy(compat),
        lambda: backend.LatencyFaultTolerance(compat),
        lambda: backend.TopicPublishInfo.from_route("T", _route(backend, None), compat=compat),
    ):
        with pytest.raises(IllegalArgumentError) as ei:
            make()
        assert isinstance(ei.value, ValueError)


@pytest.mark.parametrize(("label", "profile"), [("5.3.3", "5.3"), ("4.9.8", "4.9"), ("5.5", "5.3"), ("5.5.0", "5.3")])
def test_full_version_labels_select_their_profile(backend, label, profile):
    """Full versions select their profile; 5.5 is an alias of 5.3 (the live oracle finds no difference)."""
    assert backend.SendWhichQueue(label).compat == profile
    assert backend.MQFaultStrategy(label).compat == profile
    assert backend.LatencyFaultTolerance(label).compat == profile
    assert backend.TopicPublishInfo([], compat=label).compat == profile


def test_compat_must_be_a_string(backend):
    with pytest.raises(TypeError):
        backend.SendWhichQueue(5.3)


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_empty_queue_lists_divide_by_zero(backend, compat):
    tp = backend.TopicPublishInfo([], compat=compat)
    with pytest.raises(JavaArithmeticError) as ei:
        tp.select_one_message_queue()
    assert isinstance(ei.value, ZeroDivisionError)
    for enable in (False, True):
        strategy = backend.MQFaultStrategy(compat, send_latency_fault_enable=enable, clock=backend.ManualClock(T0))
        with pytest.raises(JavaArithmeticError):
            strategy.select_one_message_queue(tp, None, False)
        with pytest.raises(JavaArithmeticError):
            strategy.select_one_message_queue(tp, "broker-a", False)
    with pytest.raises(JavaArithmeticError):
        backend.SelectMessageQueueByHash().select([], None, "key")


def test_none_where_a_name_is_needed_is_a_null_pointer(backend):
    lft = backend.LatencyFaultTolerance("5.3", clock=backend.ManualClock(T0))
    strategy = backend.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=backend.ManualClock(T0))
    route = _route(backend, None)
    calls = [
        lambda: backend.java_string_hash(None),
        lambda: lft.update_fault_item(None, 10, 0),
        lambda: lft.is_available(None),
        lambda: lft.is_reachable(None),
        lambda: lft.remove(None),
        lambda: strategy.update_fault_item(None, 10, False),
        lambda: backend.TopicPublishInfo.from_route(None, route),
        lambda: route.subscribe_queues(None),
        lambda: backend.TopicPublishInfo([backend.MessageQueue("T", None, 0)]),
        lambda: backend.TopicPublishInfo([backend.MessageQueue(None, "b", 0)]),
        lambda: backend.SelectMessageQueueByHash().select([backend.MessageQueue("T", "b", 0)], None, None),
    ]
    for i, call in enumerate(calls):
        with pytest.raises(NullPointerError) as ei:
            call()
        assert isinstance(ei.value, TypeError), i
        assert ei.value.java_class == "java.lang.NullPointerException"


def test_non_string_key_without_key_type_is_a_type_error(backend):
    mqs = [backend.MessageQueue("T", "b", i) for i in range(4)]
    for key in (5, 2**40, 1.0, b"key", ("a",)):
        with pytest.raises(TypeError):
            backend.SelectMessageQueueByHash().select(mqs, None, key)


@pytest.mark.parametrize("latency", [LONG_MAX + 1, LONG_MIN - 1, 2**100])
@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_latencies_outside_long_are_illegal_arguments(backend, compat, latency):
    strategy = backend.MQFaultStrategy(compat, send_latency_fault_enable=True, clock=backend.ManualClock(T0))
    lft = strategy.latency_fault_tolerance
    for call in (
        lambda: strategy.compute_not_available_duration(latency),
        lambda: strategy.update_fault_item("broker-a", latency, False),
        lambda: lft.update_fault_item("broker-a", latency, 0),
        lambda: lft.update_fault_item("broker-a", 10, latency),
    ):
        with pytest.raises(IllegalArgumentError) as ei:
            call()
        assert isinstance(ei.value, ValueError)
    assert lft.is_available("broker-a") is True


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_negative_and_extreme_latencies_within_long_are_accepted(backend, compat):
    strategy = backend.MQFaultStrategy(compat, send_latency_fault_enable=True, clock=backend.ManualClock(T0))
    assert strategy.compute_not_available_duration(-1) == 0
    assert strategy.compute_not_available_duration(LONG_MIN) == 0
    assert strategy.compute_not_available_duration(LONG_MAX) == strategy.not_available_duration[-1]
    strategy.update_fault_item("broker-a", -5, False)
    assert strategy.latency_fault_tolerance.is_available("broker-a") is True
    strategy.update_fault_item("broker-b", LONG_MAX, False)
    assert strategy.latency_fault_tolerance.is_available("broker-b") is False


@pytest.mark.parametrize(
    ("conf", "error"),
    [
        ("broker-a", IndexOutOfBoundsError),  # no ':'
        ("broker-a:4;broker-b", IndexOutOfBoundsError),
        ("broker-a:x", NumberFormatError),
        ("broker-a: 4", NumberFormatError),  # Integer.parseInt does not trim
        ("broker-a:", IndexOutOfBoundsError),  # split drops the trailing empty string
        ("broker-a:99999999999", NumberFormatError),
        ("broker-a:-", NumberFormatError),
    ],
)
@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_malformed_order_topic_conf(backend, compat, conf, error):
    with pytest.raises(error) as ei:
        backend.TopicPublishInfo.from_route("T", _route(backend, conf), compat=compat)
    assert type(ei.value).java_class == error.java_class
    if error is NumberFormatError:
        assert isinstance(ei.value, ValueError)
    else:
        assert isinstance(ei.value, IndexError)


def test_well_formed_order_topic_conf_edge_cases(backend):
    tp = backend.TopicPublishInfo.from_route("T", _route(backend, "broker-a:+2;broker-b:0;broker-c:-3"))
    assert [(q.broker_name, q.queue_id) for q in tp.message_queues] == [("broker-a", 0), ("broker-a", 1)]
    assert tp.order_topic is True


def test_order_topic_conf_too_large_to_build_is_an_illegal_argument(backend):
    # Java would try to allocate 2^31 - 1 queues; rocketroute refuses anything over MAX_QUEUES
    with pytest.raises(IllegalArgumentError) as ei:
        backend.TopicPublishInfo.from_route("T", _route(backend, f"broker-a:{INT_MAX}"))
    assert not isinstance(ei.value, NumberFormatError)
    half = backend.MAX_QUEUES // 2 + 1
    with pytest.raises(IllegalArgumentError):
        backend.TopicPublishInfo.from_route("T", _route(backend, f"broker-a:{half};broker-b:{half}"))


def test_queue_id_outside_int_is_an_illegal_argument(backend):
    for queue_id in (INT_MAX + 1, -(2**31) - 1):
        with pytest.raises(IllegalArgumentError) as ei:
            backend.MessageQueue("T", "b", queue_id)
        assert isinstance(ei.value, ValueError)


@pytest.mark.parametrize("count", [2**61 + 1, 2**62, LONG_MAX, 2**64])
def test_round_robin_batch_too_large_to_hold_is_an_illegal_argument(backend, count):
    # 2**62 int32 items once wrapped the native buffer size to 0 bytes and wrote past it (a segfault)
    import importlib

    batch = importlib.import_module(backend.__name__ + ".batch")
    counter = backend.SendWhichQueue("5.3", start=7)
    with pytest.raises(IllegalArgumentError, match=f"a result of {count} items is too large"):
        batch.round_robin_indices(counter, count, 4)
    assert counter.get() == 7  # nothing advanced


@pytest.mark.parametrize(
    "strategy",
    [
        "AllocateMessageQueueAveragely",
        "AllocateMessageQueueAveragelyByCircle",
        "AllocateMessageQueueConsistentHash",
        "AllocateMessageQueueConsistentHashBounded",
    ],
)
def test_allocate_converts_its_arguments_in_order(backend, strategy):
    """Both backends convert ``current_cid`` before the lists, so with bad text in both the first is named (found
    by the differential test: the reference checked ``cid_all`` first)."""
    s = getattr(backend, strategy)()
    with pytest.raises(IllegalArgumentError, match=r"^current_cid contains a lone surrogate"):
        s.allocate(None, "\ud800", None, ["\ud800"])
    with pytest.raises(IllegalArgumentError, match=r"^cid_all contains a lone surrogate"):
        s.allocate(None, "c", None, ["\ud800"])
