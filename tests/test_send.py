"""send_default: the producer's retry loop end to end, with a fake send callable and a ManualClock."""

from __future__ import annotations

import sys

import pytest

from rocketroute.errors import BrokerResponseError, BrokerUnreachableError, SendFailedError

T0 = 1_700_000_000_000
COMPATS = ["5.3", "4.9"]


def assert_note(exc, prefix):
    """send_default notes the attempts on the error it re-raises (``add_note`` exists from Python 3.11)."""
    if sys.version_info < (3, 11):
        return
    notes = getattr(exc, "__notes__", [])
    assert any(n.startswith(prefix) for n in notes), notes
    assert any("TopicTest" in n for n in notes), notes


class FakeBroker:
    """A send callable: fails on the brokers in ``failing`` (raising ``error(n)``), else returns the queue.
    Every call takes ``latency_ms`` on the shared ManualClock."""

    def __init__(self, clock, failing=(), latency_ms=20, error=None):
        self.clock = clock
        self.failing = set(failing)
        self.latency_ms = latency_ms
        self.error = error or (lambda n: BrokerUnreachableError(f"connect to broker failed (call {n})"))
        self.calls = []
        self.raised = []

    def __call__(self, mq):
        self.calls.append(mq)
        self.clock.advance(self.latency_ms)
        if mq.broker_name in self.failing:
            exc = self.error(len(self.calls))
            self.raised.append(exc)
            raise exc
        return ("SEND_OK", mq)


def _setup(backend, compat, *, enable=True):
    mqs = [backend.MessageQueue("TopicTest", b, i) for b in ("broker-a", "broker-b") for i in range(4)]
    tp = backend.TopicPublishInfo(mqs, compat=compat)
    tp.send_which_queue.set(-1)  # the first pick is mqs[0], on broker-a
    clock = backend.ManualClock(T0)
    strategy = backend.MQFaultStrategy(compat, send_latency_fault_enable=enable, clock=clock)
    return tp, strategy, clock


@pytest.mark.parametrize("compat", COMPATS)
def test_retries_on_another_broker_and_then_avoids_the_failed_one(backend, compat):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"})
    attempts = []
    status, mq = backend.send_default(tp, strategy, broker, clock=clock, attempts=attempts)
    assert status == "SEND_OK"
    assert mq.broker_name == "broker-b"
    assert [c.broker_name for c in broker.calls] == ["broker-a", "broker-b"]
    assert [a.queue for a in attempts] == broker.calls
    assert attempts[0].error is broker.raised[0]
    assert attempts[1].error is None
    assert [a.latency_ms for a in attempts] == [20, 20]

    # the failure was reported as an isolation: broker-a is avoided from now on
    lft = strategy.latency_fault_tolerance
    assert lft.is_available("broker-a") is False
    assert lft.is_available("broker-b") is True
    broker.calls.clear()
    for _ in range(10):
        backend.send_default(tp, strategy, broker, clock=clock)
    assert {c.broker_name for c in broker.calls} == {"broker-b"}
    assert len(broker.calls) == 10

    # once the isolation has run out, broker-a is picked again
    clock.advance(strategy.compute_not_available_duration(strategy.isolation_latency))
    assert lft.is_available("broker-a") is True
    broker.failing.clear()
    broker.calls.clear()
    for _ in range(len(tp.message_queues)):
        backend.send_default(tp, strategy, broker, clock=clock)
    assert "broker-a" in {c.broker_name for c in broker.calls}


@pytest.mark.parametrize("compat", COMPATS)
def test_without_fault_tolerance_only_the_retry_avoids_the_failed_broker(backend, compat):
    tp, strategy, clock = _setup(backend, compat, enable=False)
    broker = FakeBroker(clock, failing={"broker-a"})
    backend.send_default(tp, strategy, broker, clock=clock)
    assert [c.broker_name for c in broker.calls] == ["broker-a", "broker-b"]
    assert strategy.latency_fault_tolerance.is_available("broker-a") is True


@pytest.mark.parametrize("compat", COMPATS)
def test_raises_the_last_error_after_all_attempts(backend, compat):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a", "broker-b"})
    attempts = []
    with pytest.raises(BrokerUnreachableError) as ei:
        backend.send_default(tp, strategy, broker, clock=clock, attempts=attempts, retry_times_when_send_failed=2)
    assert len(broker.calls) == 3
    assert len(attempts) == 3
    assert ei.value is broker.raised[-1]
    assert_note(ei.value, "Send [3] times, still failed")
    # every retry went to the other broker
    assert broker.calls[1].broker_name != broker.calls[0].broker_name


@pytest.mark.parametrize("compat", COMPATS)
def test_an_attempt_that_uses_up_the_budget_ends_in_java_s_timeout_naming_the_brokers(backend, compat):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"}, latency_ms=3001)
    with pytest.raises(SendFailedError) as ei:
        backend.send_default(tp, strategy, broker, clock=clock, timeout_ms=3000)
    assert str(ei.value) == "sendDefaultImpl call timeout"
    assert [c.broker_name for c in broker.calls] == ["broker-a"]  # no time left for the retry
    assert ei.value.__cause__ is broker.raised[0]
    # Java's brokersSent: the retry's broker is chosen before the budget is checked
    assert_note(ei.value, "Send [1] times, still failed")
    if sys.version_info >= (3, 11):
        assert "BrokersSent: [broker-a, broker-b, null]" in ei.value.__notes__[0]


@pytest.mark.parametrize("compat", COMPATS)
def test_oneway_makes_one_attempt(backend, compat):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"})
    with pytest.raises(BrokerUnreachableError) as ei:
        backend.send_default(tp, strategy, broker, clock=clock, mode="oneway", retry_times_when_send_failed=5)
    assert len(broker.calls) == 1
    assert ei.value is broker.raised[0]
    assert_note(ei.value, "Send [1] times, still failed")


@pytest.mark.parametrize("compat", COMPATS)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_retry_counts_by_mode(backend, compat, mode):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a", "broker-b"})
    with pytest.raises(BrokerUnreachableError):
        backend.send_default(
            tp,
            strategy,
            broker,
            clock=clock,
            mode=backend.CommunicationMode(mode),
            retry_times_when_send_failed=1,
            retry_times_when_send_async_failed=4,
        )
    assert len(broker.calls) == {"sync": 1 + 1, "async": 1 + 4}[mode]


@pytest.mark.parametrize("compat", COMPATS)
def test_a_plain_exception_reports_latency_without_isolation(backend, compat):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, error=lambda n: RuntimeError("client side"))
    first_call_fails = broker.__call__

    def send(mq):
        broker.failing = {"broker-a"} if not broker.calls else set()
        return first_call_fails(mq)

    attempts = []
    assert backend.send_default(tp, strategy, send, clock=clock, attempts=attempts)[0] == "SEND_OK"
    assert [type(a.error) for a in attempts] == [RuntimeError, type(None)]
    assert attempts[0].queue.broker_name == "broker-a"
    # 20 ms is below the first latency step: broker-a stays available
    assert strategy.latency_fault_tolerance.is_available("broker-a") is True


@pytest.mark.parametrize("compat", COMPATS)
def test_a_non_retryable_broker_response_is_raised_at_once(backend, compat):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"}, error=lambda n: BrokerResponseError(13, "MESSAGE_ILLEGAL"))
    with pytest.raises(BrokerResponseError) as ei:
        backend.send_default(tp, strategy, broker, clock=clock, retry_response_codes={1})
    assert ei.value.response_code == 13
    assert len(broker.calls) == 1
    lft = strategy.latency_fault_tolerance
    assert lft.is_available("broker-a") is False
    if compat == "5.3":
        assert lft.is_reachable("broker-a") is False


@pytest.mark.parametrize("compat", COMPATS)
def test_a_retryable_broker_response_is_retried(backend, compat):
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"}, error=lambda n: BrokerResponseError(1, "SYSTEM_ERROR"))
    assert backend.send_default(tp, strategy, broker, clock=clock, retry_response_codes={1})[1].broker_name == (
        "broker-b"
    )
    assert len(broker.calls) == 2


@pytest.mark.parametrize("compat", COMPATS)
def test_no_route_fails_without_sending(backend, compat):
    tp = backend.TopicPublishInfo([], compat=compat)
    strategy = backend.MQFaultStrategy(compat, clock=backend.ManualClock(T0))
    broker = FakeBroker(backend.ManualClock(T0))
    with pytest.raises(SendFailedError) as ei:
        backend.send_default(tp, strategy, broker)
    assert broker.calls == []
    assert ei.value.java_class == "org.apache.rocketmq.client.exception.MQClientException"


# --- send_select: ordered sends through a selector (Java's sendSelectImpl) --------------------------------


def _ordered_info(rr):
    queues = [rr.MessageQueue("TopicTest", b, q) for b in ("broker-a", "broker-b") for q in range(4)]
    return rr.TopicPublishInfo(queues, compat="5.3")


def test_send_select_sends_once_to_the_queue_the_selector_picks(backend):
    rr = backend
    tp = _ordered_info(rr)
    sent = []
    result = rr.send_select(tp, rr.SelectMessageQueueByHash(), "msg", "order-42", lambda mq: sent.append(mq) or "OK")
    want = list(tp.message_queues)[rr.SelectMessageQueueByHash().select_index("order-42", len(tp))]
    assert result == "OK"
    assert sent == [want]


def test_send_select_takes_a_plain_callable(backend):
    tp = _ordered_info(backend)
    picked = backend.send_select(tp, lambda mqs, msg, arg: mqs[arg], None, 5, lambda mq: mq)
    assert picked == list(tp.message_queues)[5]


def test_send_select_does_not_retry_a_failed_send(backend):
    tp = _ordered_info(backend)
    calls = []

    def send(mq):
        calls.append(mq)
        raise BrokerUnreachableError("down")

    with pytest.raises(BrokerUnreachableError):
        backend.send_select(tp, backend.SelectMessageQueueByHash(), None, "k", send)
    assert len(calls) == 1


def test_send_select_selector_failures(backend):
    rr = backend
    tp = _ordered_info(rr)
    with pytest.raises(SendFailedError, match=r"select message queue return null\."):
        rr.send_select(tp, rr.SelectMessageQueueByMachineRoom(), None, "k", lambda mq: mq)

    def boom(mqs, msg, arg):
        raise KeyError("no such order")

    with pytest.raises(SendFailedError, match=r"select message queue threw exception\.") as info:
        rr.send_select(tp, boom, None, "k", lambda mq: mq)
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(TypeError, match="not a MessageQueue"):
        rr.send_select(tp, lambda mqs, msg, arg: 3, None, "k", lambda mq: mq)
    empty = rr.TopicPublishInfo([], compat="5.3")
    with pytest.raises(SendFailedError, match="No route info for this topic"):
        rr.send_select(empty, rr.SelectMessageQueueByHash(), None, "k", lambda mq: mq)


def test_send_select_times_out_while_selecting(backend):
    rr = backend
    tp = _ordered_info(rr)
    clock = rr.ManualClock(T0)

    def slow(mqs, msg, arg):
        clock.advance(5000)
        return mqs[0]

    with pytest.raises(SendFailedError, match="sendSelectImpl call timeout"):
        rr.send_select(tp, slow, None, "k", lambda mq: mq, timeout_ms=3000, clock=clock)


@pytest.mark.parametrize("compat", COMPATS)
@pytest.mark.parametrize("code", [1, 2, 14, 16, 17, 25, 26, 204, 205, 1500])
def test_the_default_retry_codes_are_the_java_producers(backend, compat, code):
    """DefaultMQProducer.java (5.3.3: its retryResponseCodes field; 4.9.8 likewise): a send failing with one of
    the default codes is retried on another broker, any other code is raised at once. 5.3 retries
    SYSTEM_BUSY (2) and GO_AWAY (1500), 4.9 does not; neither retries SUBSCRIPTION_NOT_LATEST (25) or
    SUBSCRIPTION_GROUP_NOT_EXIST (26)."""
    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"}, error=lambda n: BrokerResponseError(code, "refused"))
    retried = code in ({1, 14, 16, 17, 204, 205} | ({2, 1500} if compat == "5.3" else set()))
    assert (code in backend.default_retry_response_codes(compat)) is retried
    if retried:
        assert backend.send_default(tp, strategy, broker, clock=clock)[1].broker_name == "broker-b"
        assert len(broker.calls) == 2
    else:
        with pytest.raises(BrokerResponseError):
            backend.send_default(tp, strategy, broker, clock=clock)
        assert len(broker.calls) == 1


# --- retry_result (retryAnotherBrokerWhenNotStoreOK) and the coroutine loop ----------------------------------------


@pytest.mark.parametrize("compat", COMPATS)
def test_a_result_asking_for_a_retry_goes_to_another_broker_and_is_returned_last(backend, compat):
    tp, strategy, clock = _setup(backend, compat, enable=False)  # 4.9's latency path may pick broker-a again
    broker = FakeBroker(clock)
    not_stored = lambda result: result[1].broker_name == "broker-a"  # noqa: E731
    _status, mq = backend.send_default(tp, strategy, broker, clock=clock, retry_result=not_stored)
    assert [q.broker_name for q in broker.calls] == ["broker-a", "broker-b"]
    assert mq.broker_name == "broker-b"
    # every attempt asks for a retry: 3 attempts, and the last result comes back instead of an error
    broker = FakeBroker(clock)
    result = backend.send_default(tp, strategy, broker, clock=clock, retry_result=lambda r: True)
    assert len(broker.calls) == 3 and result == ("SEND_OK", broker.calls[-1])


@pytest.mark.parametrize("compat", COMPATS)
def test_a_non_retryable_error_after_a_not_stored_result_returns_that_result(backend, compat):
    # Java: catch MQBrokerException, not a retry code -> "if (sendResult != null) return sendResult"
    tp, strategy, clock = _setup(backend, compat, enable=False)  # 4.9's latency path may pick broker-a again
    broker = FakeBroker(clock, failing={"broker-b"}, error=lambda n: BrokerResponseError(13, "MESSAGE_ILLEGAL"))
    result = backend.send_default(
        tp, strategy, broker, clock=clock, retry_result=lambda r: True, retry_response_codes={1}
    )
    assert result == ("SEND_OK", broker.calls[0]) and len(broker.calls) == 2


@pytest.mark.parametrize("compat", COMPATS)
def test_the_coroutine_loop_retries_as_the_sync_one(backend, compat):
    import asyncio

    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"})

    async def send(mq):
        await asyncio.sleep(0)
        return broker(mq)

    attempts = []
    _status, mq = asyncio.run(backend.send_default_async(tp, strategy, send, clock=clock, attempts=attempts))
    assert mq.broker_name == "broker-b"
    assert [type(a.error) for a in attempts] == [BrokerUnreachableError, type(None)]
    # the async mode's retry count
    broker = FakeBroker(clock, failing={"broker-a", "broker-b"})
    with pytest.raises(BrokerUnreachableError):
        asyncio.run(backend.send_default_async(tp, strategy, send, clock=clock, retry_times_when_send_async_failed=3))
    assert len(broker.calls) == 4


@pytest.mark.parametrize("compat", COMPATS)
def test_a_malformed_frame_from_the_broker_isolates_it_as_any_remoting_error(backend, compat):
    # Java fails the pending request with RemotingSendRequestException (a RemotingException): isolation
    from rocketroute.protocol import FrameError

    tp, strategy, clock = _setup(backend, compat)
    broker = FakeBroker(clock, failing={"broker-a"}, error=lambda n: FrameError("frame of 2147483651 bytes"))
    _status, mq = backend.send_default(tp, strategy, broker, clock=clock)
    assert mq.broker_name == "broker-b"
    assert strategy.latency_fault_tolerance.is_available("broker-a") is False
