"""``rocketroute.LitePullConsumer`` on the scriptable fake brokers (:mod:`tests.client._fake_cluster`), both
backends: what a poll returns and what it commits, the pulls on the wire, assign and subscribe, seeks, pauses, the
bounded buffer, and the errors of bad calls. The same consumer runs on the real servers, beside Java's, in
tests/cluster/test_lite_pull.py."""

from __future__ import annotations

import json
import threading
import time
import zlib
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client.consumer.pull import FLAG_LITE_PULL_MESSAGE, FLAG_SUBSCRIPTION, FLAG_SUSPEND
from rocketroute.errors import IllegalArgumentError, UnsupportedSettingError

from ._fake_cluster import (
    GET_CONSUMER_LIST_BY_GROUP,
    HEART_BEAT,
    LITE_PULL_MESSAGE,
    PULL_MESSAGE,
    UPDATE_CONSUMER_OFFSET,
    FakeBroker,
    FakeCluster,
)
from .test_clients_on_fakes import wait_until

FAST = {"rebalance_interval": 200, "persist_consumer_offset_interval": 100, "heartbeat_broker_interval": 200}
FIRST = {"consume_from_where": "CONSUME_FROM_FIRST_OFFSET"}


def _cluster(messages: int, queues: int = 2, topic: str = "T") -> FakeCluster:
    cluster = FakeCluster(brokers=1)
    cluster.topic(topic, queues=queues)
    broker = cluster.brokers["broker-a"]
    for i in range(messages):
        broker.append(topic, i % queues, b"m%d" % i)
    return cluster


def _consumer(cluster: FakeCluster, backend: Any, subscriptions: Any = ("T",), **settings: Any) -> rr.LitePullConsumer:
    return rr.LitePullConsumer(
        cluster.namesrv_addr, "G", subscriptions, backend=backend, **{**FAST, **FIRST, **settings}
    )


def _poll_all(consumer: rr.LitePullConsumer, n: int, timeout_s: float = 10) -> list[Any]:
    got: list[Any] = []
    deadline = time.monotonic() + timeout_s
    while len(got) < n and time.monotonic() < deadline:
        got += consumer.poll(200)
    return got


def _pulls(broker: FakeBroker, topic: str = "T") -> list[dict[str, str]]:
    """The lite pulls of ``topic``: LITE_PULL_MESSAGE, as Java 5.x sends them (none goes as PULL_MESSAGE)."""
    assert not broker.requests(PULL_MESSAGE)
    return [r["extFields"] for r in broker.requests(LITE_PULL_MESSAGE) if r["extFields"]["topic"] == topic]


def test_polls_return_each_message_once_a_pull_at_a_time_in_queue_order(backend):
    with _cluster(25) as cluster, _consumer(cluster, backend, pull_batch_size=4) as consumer:
        polls = []
        deadline = time.monotonic() + 10
        while sum(map(len, polls)) < 25 and time.monotonic() < deadline:
            if msgs := consumer.poll(200):
                polls.append(msgs)
        got = [m for poll in polls for m in poll]
        assert sorted(m.body for m in got) == sorted(b"m%d" % i for i in range(25))
        assert all(len(p) <= 4 and len({m.queue_id for m in p}) == 1 for p in polls)  # one pull of one queue each
        for q in (0, 1):
            offsets = [m.queue_offset for m in got if m.queue_id == q]
            assert offsets == sorted(offsets) == list(range(len(offsets)))
        assert consumer.poll(100) == []
        assert consumer.stats.consumed == 25


def test_a_pull_is_a_long_polled_lite_pull_with_java_s_fields(backend):
    with _cluster(3, queues=1) as cluster, _consumer(cluster, backend, pull_batch_size=7) as consumer:
        assert len(_poll_all(consumer, 3)) == 3
        broker = cluster.brokers["broker-a"]
        pull = _pulls(broker)[0]
        flag = int(pull["sysFlag"])
        assert flag == FLAG_SUSPEND | FLAG_SUBSCRIPTION | FLAG_LITE_PULL_MESSAGE  # no commit offset in the pull
        assert (pull["maxMsgNums"], pull["suspendTimeoutMillis"], pull["commitOffset"]) == ("7", "20000", "0")
        assert (pull["subVersion"], pull["expressionType"], pull["subscription"]) == ("0", "TAG", "*")
        assert pull["maxMsgBytes"] == str(2**31 - 1)  # 5.3's lite pulls ask for Integer.MAX_VALUE bytes
        heartbeat = json.loads(broker.requests(HEART_BEAT)[-1]["body"])
        [group] = heartbeat["consumerDataSet"]
        assert (group["consumeType"], group["consumeFromWhere"]) == ("CONSUME_ACTIVELY", "CONSUME_FROM_LAST_OFFSET")
        assert [s["topic"] for s in group["subscriptionDataSet"]] == ["T"]  # no retry topic: nothing is sent back


def test_a_4_9_lite_pull_is_a_pull_message_with_the_lite_flag(backend):
    with _cluster(2, queues=1) as cluster, _consumer(cluster, backend, compat="4.9") as consumer:
        assert len(_poll_all(consumer, 2)) == 2
        broker = cluster.brokers["broker-a"]
        assert broker.requests(LITE_PULL_MESSAGE) == []  # 4.9.8 has no LITE_PULL_MESSAGE
        [pull, *_] = [r["extFields"] for r in broker.requests(PULL_MESSAGE)]
        assert int(pull["sysFlag"]) & FLAG_LITE_PULL_MESSAGE and "maxMsgBytes" not in pull


def test_a_threaded_poll_takes_waiting_messages_without_the_loop(backend):
    """A poll that finds pulls waiting hands them out on the caller's thread: it returns while the client's event
    loop is held up (by a callback blocking it here), which a poll waiting on the loop could not."""
    with _cluster(20, queues=1) as cluster, _consumer(cluster, backend, pull_batch_size=5) as consumer:
        wait_until(lambda: len(consumer._buffer) >= 2, 10, "two pulls waiting")
        release, blocked, unblocked = threading.Event(), threading.Event(), threading.Event()

        def hold_the_loop() -> None:
            blocked.set()
            release.wait(10)
            unblocked.set()

        consumer._remoting.loop.call_soon_threadsafe(hold_the_loop)
        try:
            assert blocked.wait(5)
            got = consumer.poll(5000)
            assert [m.queue_offset for m in got] == [0, 1, 2, 3, 4] and not unblocked.is_set()
        finally:
            release.set()
        assert [m.queue_offset for m in _poll_all(consumer, 15)] == list(range(5, 20))


def test_auto_commit_commits_what_the_polls_before_returned(backend):
    with _cluster(6, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]
        with _consumer(cluster, backend, pull_batch_size=2, auto_commit_interval_millis=1000) as consumer:
            first = consumer.poll(5000)
            assert [m.queue_offset for m in first] == [0, 1]
            time.sleep(0.3)
            assert ("G", "T", 0) not in broker.offsets  # returned, not committed until the next poll
            time.sleep(0.8)  # past the interval
            second = consumer.poll(5000)
            assert [m.queue_offset for m in second] == [2, 3]
            wait_until(lambda: broker.offsets.get(("G", "T", 0)) == 2, 5, "the first poll's offsets committed")
            assert consumer.committed(backend.MessageQueue("T", "broker-a", 0)) == 2
        # the shutdown commits what the polls returned (as the next poll would have)
        assert broker.offsets[("G", "T", 0)] == 4


def test_without_auto_commit_only_commit_sync_and_commit_write_offsets(backend):
    with _cluster(6, queues=2) as cluster:
        broker = cluster.brokers["broker-a"]
        with _consumer(cluster, backend, auto_commit=False) as consumer:
            assert len(_poll_all(consumer, 6)) == 6
            time.sleep(0.4)  # several periodic commits
            assert not any(k[1] == "T" for k in broker.offsets)
            consumer.commit_sync()
            assert (broker.offsets[("G", "T", 0)], broker.offsets[("G", "T", 1)]) == (3, 3)
            q1 = backend.MessageQueue("T", "broker-a", 1)
            consumer.commit({q1: 1})
            assert broker.offsets[("G", "T", 1)] == 1 and consumer.committed(q1) == 1
            with pytest.raises(IllegalArgumentError, match="must be an int >= 0"):
                consumer.commit({q1: -1})
            with pytest.raises(TypeError, match=r"message queue: offset"):
                consumer.commit([q1])  # type: ignore[arg-type]
        assert broker.offsets[("G", "T", 1)] == 1  # nothing committed at shutdown without auto_commit


def test_a_new_consumer_resumes_from_the_committed_offsets(backend):
    with _cluster(10, queues=1) as cluster:
        with _consumer(cluster, backend, pull_batch_size=3) as consumer:
            assert [m.queue_offset for m in consumer.poll(5000)] == [0, 1, 2]
        assert cluster.brokers["broker-a"].offsets[("G", "T", 0)] == 3
        with _consumer(cluster, backend, pull_batch_size=3) as consumer:
            assert [m.queue_offset for m in consumer.poll(5000)] == [3, 4, 5]


def test_assign_pulls_exactly_the_queues_given_and_joins_no_rebalance(backend):
    with _cluster(12, queues=3) as cluster:
        broker = cluster.brokers["broker-a"]
        broker.offsets[("G", "T", 2)] = 2  # committed before: the queue resumes there
        consumer = rr.LitePullConsumer(cluster.namesrv_addr, "G", backend=backend, **FAST, **FIRST)
        queues = [backend.MessageQueue("T", "broker-a", 0), backend.MessageQueue("T", "broker-a", 2)]
        consumer.assign(queues)
        with pytest.raises(RuntimeError, match="Subscribe and assign are mutually exclusive"):
            consumer.subscribe("T")
        with consumer:
            got = _poll_all(consumer, 6)
            assert sorted((m.queue_id, m.queue_offset) for m in got) == [(0, 0), (0, 1), (0, 2), (0, 3), (2, 2), (2, 3)]
            assert consumer.assignment() == tuple(queues)
            assert broker.requests(GET_CONSUMER_LIST_BY_GROUP) == []  # no rebalance asks for the members
            consumer.assign([backend.MessageQueue("T", "broker-a", 1)])  # running: the others stop, committed
            assert consumer.assignment() == (backend.MessageQueue("T", "broker-a", 1),)
            assert sorted((m.queue_id, m.queue_offset) for m in _poll_all(consumer, 4)) == [(1, i) for i in range(4)]
            wait_until(lambda: broker.offsets.get(("G", "T", 0)) == 4, 5, "queue 0's offset committed when dropped")
        with pytest.raises(IllegalArgumentError, match="Message queues can not be null or empty"):
            rr.LitePullConsumer(cluster.namesrv_addr, "G2", backend=backend).assign([])


def test_a_queue_assigned_away_and_back_at_once_resumes_after_its_commit(backend):
    with _cluster(6, queues=2) as cluster:
        broker = cluster.brokers["broker-a"]
        q0, q1 = backend.MessageQueue("T", "broker-a", 0), backend.MessageQueue("T", "broker-a", 1)
        consumer = rr.LitePullConsumer(cluster.namesrv_addr, "G", backend=backend, **FAST, **FIRST)
        consumer.assign([q0, q1])
        with consumer:
            assert len(_poll_all(consumer, 6)) == 6
            consumer.assign([q1])
            consumer.assign([q0, q1])  # before q0's give-up (its commit) is over: taken again once it is
            wait_until(lambda: q0 in consumer.assignment(), 5, "queue 0 taken again")
            assert broker.offsets[("G", "T", 0)] == 3  # committed by the give-up
            broker.append("T", 0, b"after")
            assert [(m.queue_offset, m.body) for m in _poll_all(consumer, 1)] == [(3, b"after")]


def test_set_sub_expression_for_assign_filters_the_assigned_queues(backend):
    with FakeCluster(brokers=1) as cluster:
        cluster.topic("T", queues=1)
        broker = cluster.brokers["broker-a"]
        for i in range(6):
            broker.append("T", 0, b"m%d" % i, {"TAGS": "A" if i % 2 else "B"})
        consumer = rr.LitePullConsumer(cluster.namesrv_addr, "G", backend=backend, **FAST, **FIRST)
        consumer.set_sub_expression_for_assign("T", "A")
        consumer.assign([backend.MessageQueue("T", "broker-a", 0)])
        with consumer:
            got = _poll_all(consumer, 3)
            assert [m.body for m in got] == [b"m1", b"m3", b"m5"]
            assert _pulls(broker)[0]["subscription"] == "A"
            with pytest.raises(RuntimeError, match="only can be called before start"):
                consumer.set_sub_expression_for_assign("T", "B")


def test_seek_moves_a_queue_to_an_exact_offset_within_its_bounds(backend):
    with _cluster(10, queues=1) as cluster:
        broker = cluster.brokers["broker-a"]
        broker.min_offsets[("T", 0)] = 2
        mq = backend.MessageQueue("T", "broker-a", 0)
        with _consumer(cluster, backend, pull_batch_size=3, auto_commit=False) as consumer:
            assert [m.queue_offset for m in consumer.poll(5000)] == [0, 1, 2]  # CONSUME_FROM_FIRST_OFFSET: from 0
            consumer.seek(mq, 7)
            assert [m.queue_offset for m in _poll_all(consumer, 3)] == [7, 8, 9]
            consumer.seek_to_begin(mq)
            assert [m.queue_offset for m in consumer.poll(5000)] == [2, 3, 4]
            consumer.seek_to_end(mq)
            assert consumer.poll(300) == []
            broker.append("T", 0, b"new")
            assert [m.body for m in consumer.poll(5000)] == [b"new"]
            with pytest.raises(IllegalArgumentError, match=r"Seek offset illegal, seek offset = 1, min offset = 2"):
                consumer.seek(mq, 1)
            with pytest.raises(IllegalArgumentError, match=r"max offset = 11"):
                consumer.seek(mq, 12)
            with pytest.raises(IllegalArgumentError, match="not in assigned list, may be rebalancing"):
                consumer.seek(backend.MessageQueue("T", "broker-a", 5), 0)
            with pytest.raises(TypeError, match="a seek offset is an int"):
                consumer.seek(mq, "3")  # type: ignore[arg-type]
            assert consumer.offset_for_timestamp(mq, 0) == 11  # the fake broker's answer: its max offset
            assert consumer.fetch_message_queues("T") == [mq]


def test_a_paused_queue_is_not_pulled_until_it_is_resumed(backend):
    with _cluster(0, queues=2) as cluster:
        broker = cluster.brokers["broker-a"]
        q0, q1 = backend.MessageQueue("T", "broker-a", 0), backend.MessageQueue("T", "broker-a", 1)
        with _consumer(cluster, backend) as consumer:
            consumer.pause([q0])
            time.sleep(1.2)  # a pull in flight when paused ends; then none
            before = len([p for p in _pulls(broker) if p["queueId"] == "0"])
            broker.append("T", 0, b"held")
            broker.append("T", 1, b"free")
            assert [m.body for m in _poll_all(consumer, 1, 3)] == [b"free"]
            time.sleep(0.5)
            assert len([p for p in _pulls(broker) if p["queueId"] == "0"]) == before
            consumer.resume([q0])
            assert [m.body for m in _poll_all(consumer, 1, 5)] == [b"held"]
            assert q1 in consumer.assignment()


def test_a_caller_that_does_not_poll_holds_a_bounded_number_of_messages(backend):
    with _cluster(2000, queues=2) as cluster:
        with _consumer(cluster, backend, pull_batch_size=10, pull_threshold_for_all=50) as consumer:
            time.sleep(1.5)  # no poll: the pulls stop once the buffer holds more than the threshold
            pulled = consumer.stats.pulled
            assert 50 < pulled <= 50 + 2 * 10 + 10  # the threshold, plus a pull per queue in flight when it was hit
            time.sleep(0.5)
            assert consumer.stats.pulled == pulled
            for _ in range(pulled // 10 - 5 + 1):  # polled down to the threshold (50 / 10 pulls)
                assert len(consumer.poll(1000)) == 10
            wait_until(lambda: consumer.stats.pulled > pulled, 5, "pulls again once a poll made room")
    with _cluster(2000, queues=1) as cluster:
        with _consumer(cluster, backend, pull_batch_size=10, pull_threshold_for_queue=30) as consumer:
            time.sleep(1.5)
            assert 30 < consumer.stats.pulled <= 40  # the queue's own limit


def test_two_subscribing_members_split_the_queues_and_poll_each_message_once(backend):
    with _cluster(40, queues=4) as cluster:
        a = _consumer(cluster, backend, instance_name="a").start()
        b = _consumer(cluster, backend, instance_name="b").start()
        try:
            wait_until(lambda: len(a.assignment()) == len(b.assignment()) == 2, 10, "two queues each")
            assert not set(a.assignment()) & set(b.assignment())
            got = []
            deadline = time.monotonic() + 10
            while len(got) < 40 and time.monotonic() < deadline:
                got += a.poll(100) + b.poll(100)
            assert sorted(m.body for m in got) == sorted(b"m%d" % i for i in range(40))
        finally:
            a.shutdown()
            b.shutdown()


def test_messages_come_with_the_plain_topic_in_a_namespace(backend):
    with _cluster(2, queues=1, topic="ns%T") as cluster:
        consumer = _consumer(cluster, backend, ["T"], namespace="ns")
        with consumer:
            got = _poll_all(consumer, 2)
            assert [m.topic for m in got] == ["T", "T"]
            assert consumer.assignment("T") == (backend.MessageQueue("ns%T", "broker-a", 0),)
            mq = backend.MessageQueue("T", "broker-a", 0)  # the plain topic is taken too
            consumer.seek(mq, 0)
            assert [m.queue_offset for m in _poll_all(consumer, 2)] == [0, 1]
            assert consumer.fetch_message_queues("T") == [mq]


def test_a_message_too_large_to_decode_is_handed_over_with_its_error_not_lost(backend):
    with FakeCluster(brokers=1) as cluster:
        cluster.topic("T", queues=1)
        broker = cluster.brokers["broker-a"]
        broker.append("T", 0, zlib.compress(b"x" * 100), sys_flag=1)  # inflates past max_body_size
        broker.append("T", 0, b"ok")
        with _consumer(cluster, backend, max_body_size=10) as consumer:
            got = _poll_all(consumer, 2)
            assert [m.decode_error is not None for m in got] == [True, False]
            assert got[1].body == b"ok" and consumer.stats.undecodable == 1


def test_bad_calls_raise_java_s_errors_as_python_exceptions(backend):
    with _cluster(0) as cluster:
        consumer = _consumer(cluster, backend)
        with pytest.raises(RuntimeError, match="The consumer not running, please start it first"):
            consumer.poll(10)
        with pytest.raises(IllegalArgumentError, match="Topic can not be null or empty"):
            consumer.subscribe("")
        with consumer:
            with pytest.raises(IllegalArgumentError, match="Timeout must not be negative"):
                consumer.poll(-1)
            with pytest.raises(TypeError, match="poll timeout is an int"):
                consumer.poll(1.5)  # type: ignore[arg-type]
            with pytest.raises(RuntimeError, match="mutually exclusive"):
                consumer.assign([backend.MessageQueue("T", "broker-a", 0)])
            with pytest.raises(TypeError, match="a message queue"):
                consumer.pause(["T"])  # type: ignore[list-item]
            started = time.monotonic()
            assert consumer.poll(300) == []
            assert time.monotonic() - started >= 0.25
        with pytest.raises(RuntimeError, match="starts once"):
            consumer.start()


@pytest.mark.parametrize(
    ("settings", "error", "match"),
    [
        ({"auto_commit_interval_millis": 999}, IllegalArgumentError, "auto_commit_interval_millis"),
        (
            {"consumer_timeout_millis_when_suspend": 10_000},
            IllegalArgumentError,
            "consumerTimeoutMillisWhenSuspend must greater than brokerSuspendMaxTimeMillis",
        ),
        ({"pull_thread_nums": 4}, UnsupportedSettingError, "pull_thread_nums=4 is not supported"),
        ({"consume_thread_min": 4}, UnsupportedSettingError, "unknown lite pull consumer setting consume_thread_min"),
        ({"decode_read_body": False, "compat": "4.9"}, UnsupportedSettingError, "compat='4.9'"),
        ({"message_model": "PUSH"}, IllegalArgumentError, "message model"),
    ],
)
def test_settings_are_read_or_refused(settings, error, match):
    with pytest.raises(error, match=match):
        rr.LitePullConsumer("127.0.0.1:1", "G", ["T"], **settings)


def test_java_s_defaults_are_accepted_for_what_is_not_implemented():
    consumer = rr.LitePullConsumer("127.0.0.1:1", "G", pull_thread_nums=20, topic_metadata_check_interval_millis=30_000)
    assert consumer.settings.pull_batch_size == 10 and consumer.settings.auto_commit is True


def test_the_admin_tools_see_an_active_consumer_and_cannot_consume_directly(backend):
    with _cluster(1, queues=1) as cluster, _consumer(cluster, backend) as consumer:
        assert len(_poll_all(consumer, 1)) == 1
        broker = cluster.brokers["broker-a"]
        info = broker.ask(307, {"consumerGroup": "G", "clientId": consumer.client_id})  # GET_CONSUMER_RUNNING_INFO
        body = info["body"].decode()
        properties = json.loads(body[body.index('"properties":') + 13 : body.index(',"statusTable"')])
        assert properties["PROP_CONSUME_TYPE"] == "CONSUME_ACTIVELY" and "PROP_CONSUMEORDERLY" not in properties
        assert '{"brokerName":"broker-a","queueId":0,"topic":"T"}:{' in body  # the queue held, with its state
        direct = broker.ask(309, {"consumerGroup": "G", "clientId": consumer.client_id, "msgId": "X"})
        assert direct["code"] == 1 and "not a push consumer" in direct["remark"]


def test_commits_go_to_the_broker_of_each_queue(backend):
    with FakeCluster(brokers=2) as cluster:
        cluster.topic("T", queues=1)
        for broker in cluster.brokers.values():
            broker.append("T", 0, b"x")
        with _consumer(cluster, backend) as consumer:
            assert len(_poll_all(consumer, 2)) == 2
            consumer.commit_sync()
        for broker in cluster.brokers.values():
            assert broker.offsets[("G", "T", 0)] == 1
            assert any(c["extFields"]["topic"] == "T" for c in broker.requests(UPDATE_CONSUMER_OFFSET))
