"""One client instance per client id (Java's ``MQClientInstance``): clients given the same ``instance_name`` share
one remoting client, loop thread and connection per broker; a group runs once per instance; the brokers' requests
go to the consumer of the group they name; the last client to shut down closes the instance. On the fake name
server and brokers (:mod:`tests.client._fake_cluster`)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

import rocketroute
from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, DuplicateClientIdError, Message, Producer
from rocketroute.client.instances import instances

from ._fake_cluster import FakeCluster

GET_CONSUMER_RUNNING_INFO = 307
SAME = {"instance_name": "shared", "client_ip": "10.1.2.3"}
FAST = {"rebalance_interval": 200, "persist_consumer_offset_interval": 100, "heartbeat_broker_interval": 200}


def _listener(msgs: list[Any], context: Any) -> Any:
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def _consumer(cluster: FakeCluster, group: str, **kwargs: Any) -> Consumer:
    return Consumer(cluster.namesrv_addr, group, ["T"], listener=_listener, **{**FAST, **kwargs})


def _cluster() -> FakeCluster:
    cluster = FakeCluster(brokers=1)
    cluster.topic("T", queues=2)
    for group in ("G1", "G2"):
        cluster.topic(f"%RETRY%{group}", queues=1)
    return cluster


def test_clients_with_one_instance_name_share_one_instance_and_one_connection_per_broker():
    with _cluster() as cluster:
        broker = cluster.brokers["broker-a"]
        p1 = Producer(cluster.namesrv_addr, "PG1", **SAME).start()
        p2 = Producer(cluster.namesrv_addr, "PG2", **SAME).start()
        consumer = _consumer(cluster, "G1", **SAME).start()
        try:
            assert p1.client_id == p2.client_id == consumer.client_id == "10.1.2.3@shared"
            assert p1.instance is p2.instance is consumer._instance is instances()["10.1.2.3@shared"]
            remoting = p1.instance.remoting
            assert remoting is consumer._remoting and remoting._thread is p2.instance.remoting._thread
            p1.send(Message("T", b"1"))
            p2.send(Message("T", b"2"))
            # the consumer's pulls and heartbeats and everything else on one connection; both producers' sync sends
            # on the instance's one direct connection with the native backend (net.direct), on the same
            # connection as the rest with the reference
            assert broker.peer.connections == (2 if rocketroute.BACKEND == "native" else 1)
            p1.shutdown()
            consumer.shutdown()
            assert p2.instance is not None and not p2.instance.closed
            p2.send(Message("T", b"3"))  # the instance stays open for its last client
            thread = p2.instance.remoting._thread
        finally:
            for client in (p1, p2, consumer):
                client.shutdown()
        assert p2.instance.closed and not thread.is_alive() and "10.1.2.3@shared" not in instances()


def test_clients_by_default_each_have_their_own_instance():
    with _cluster() as cluster:
        with Producer(cluster.namesrv_addr, "PG") as p1, Producer(cluster.namesrv_addr, "PG") as p2:
            assert p1.client_id != p2.client_id and p1.instance is not p2.instance
            assert p1.instance.remoting._thread is not p2.instance.remoting._thread


def test_a_group_runs_once_per_instance_as_in_java():
    with _cluster() as cluster:
        with _consumer(cluster, "G1", **SAME):
            second = _consumer(cluster, "G1", **SAME)
            with pytest.raises(DuplicateClientIdError, match=r"already runs with client id '10\.1\.2\.3@shared'"):
                second.start()
            assert not second.running
            with _consumer(cluster, "G1", instance_name="other", client_ip="10.1.2.3"):  # another instance name
                pass
            with Producer(cluster.namesrv_addr, "PG", **SAME), pytest.raises(DuplicateClientIdError, match="producer"):
                Producer(cluster.namesrv_addr, "PG", **SAME).start()


def test_a_shared_instance_needs_the_same_name_servers_compat_and_language():
    with _cluster() as cluster, Producer(cluster.namesrv_addr, "PG", **SAME):
        with pytest.raises(ValueError, match=r"compat '5\.3', not '4\.9'"):
            Producer(cluster.namesrv_addr, "PG2", compat="4.9", **SAME).start()
        with pytest.raises(ValueError, match="language 'PYTHON', not 'JAVA'"):
            Producer(cluster.namesrv_addr, "PG2", language="JAVA", **SAME).start()
        with pytest.raises(ValueError, match="name servers"):
            Producer("127.0.0.1:1", "PG2", **SAME).start()


def test_a_broker_s_request_goes_to_the_consumer_of_the_group_it_names():
    with _cluster() as cluster:
        broker = cluster.brokers["broker-a"]
        with _consumer(cluster, "G1", **SAME), _consumer(cluster, "G2", pull_batch_size=7, **SAME):
            deadline = time.monotonic() + 5
            while not broker.conns and time.monotonic() < deadline:
                time.sleep(0.01)
            for group, batch in (("G1", "32"), ("G2", "7")):
                response = broker.ask(
                    GET_CONSUMER_RUNNING_INFO, {"consumerGroup": group, "clientId": SAME["instance_name"]}
                )
                assert response["code"] == 0, response
                body = response["body"].decode()  # Java's ConsumerRunningInfo JSON (fastjson's, not strict JSON)
                assert f'"consumerGroup":"{group}"' in body and f'"pullBatchSize":"{batch}"' in body, body[:300]
            unknown = broker.ask(GET_CONSUMER_RUNNING_INFO, {"consumerGroup": "G3"})
            assert unknown["code"] == 1 and "<G3> not exist" in unknown["remark"]


HEART_BEAT, UNREGISTER_CLIENT = 34, 35


def _heartbeats(broker: Any) -> list[dict[str, Any]]:
    return [json.loads(r["body"]) for r in broker.requests(HEART_BEAT)]


def test_one_heartbeat_carries_every_group_of_the_instance_and_each_group_unregisters_when_it_leaves():
    with _cluster() as cluster:
        broker = cluster.brokers["broker-a"]
        producer = Producer(cluster.namesrv_addr, "PG", heartbeat_broker_interval=200, **SAME).start()
        try:
            producer.send(Message("T", b"x"))  # the route names broker-a: the heartbeat has somewhere to go
            with _consumer(cluster, "G1", **SAME):
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    both = [
                        h
                        for h in _heartbeats(broker)
                        if h["producerDataSet"] == [{"groupName": "PG"}]
                        and [c["groupName"] for c in h["consumerDataSet"]] == ["G1"]
                    ]
                    if both:
                        break
                    time.sleep(0.05)
                assert both and both[0]["clientID"] == "10.1.2.3@shared"
            leave = [r["extFields"] for r in broker.requests(UNREGISTER_CLIENT)]
            assert leave == [{"clientID": "10.1.2.3@shared", "consumerGroup": "G1"}]
            # the consumer gone, the instance's heartbeats carry the producer group alone (one already built when
            # the consumer left may still carry both)
            seen = len(_heartbeats(broker))

            def producer_only() -> bool:
                return any(h["consumerDataSet"] == [] for h in _heartbeats(broker)[seen:])

            deadline = time.monotonic() + 5
            while not producer_only() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert producer_only()
        finally:
            producer.shutdown()
        leave = [r["extFields"] for r in broker.requests(UNREGISTER_CLIENT)]
        assert leave[-1] == {"clientID": "10.1.2.3@shared", "producerGroup": "PG"}


def test_a_producer_alone_heartbeats_its_group_from_one_second_after_start():
    with _cluster() as cluster, Producer(cluster.namesrv_addr, "PG") as producer:
        producer.send(Message("T", b"x"))
        broker = cluster.brokers["broker-a"]
        deadline = time.monotonic() + 5
        while not _heartbeats(broker) and time.monotonic() < deadline:
            time.sleep(0.05)
        (first, *_) = _heartbeats(broker)
        assert first == {
            "clientID": producer.client_id,
            "producerDataSet": [{"groupName": "PG"}],
            "consumerDataSet": [],
        }


GET_ROUTEINFO_BY_TOPIC = 105


def _route_requests(cluster: FakeCluster, topic: str) -> int:
    return sum(r["extFields"].get("topic") == topic for r in cluster.namesrv.requests(GET_ROUTEINFO_BY_TOPIC))


def test_the_clients_of_an_instance_share_one_route_table_and_fetch_a_route_once():
    with _cluster() as cluster:
        with Producer(cluster.namesrv_addr, "PG1", **SAME) as p1, Producer(cluster.namesrv_addr, "PG2", **SAME) as p2:
            p1.send(Message("T", b"1"))
            fetched = _route_requests(cluster, "T")
            p2.send(Message("T", b"2"))  # the instance has the route: p2 takes it without asking again ...
            assert _route_requests(cluster, "T") == fetched
            assert p1.route("T") is p2.route("T") is p1.instance.routes["T"]
            # ... and one route poll serves both: a change one client's refresh finds reaches the other
            changes: list[Any] = []
            with Producer(cluster.namesrv_addr, "PG3", on_route_change=changes.append, **SAME) as p3:
                p3.send(Message("T", b"3"))
                cluster.topic("T", queues=4)
                (change,) = p1.refresh_routes()
                assert len(change.added) == 2 and len(p1.publish_info("T").message_queues) == 4
                assert len(p2.publish_info("T").message_queues) == 4 and p2.refresh_routes() == []
                deadline = time.monotonic() + 5
                while not changes and time.monotonic() < deadline:
                    time.sleep(0.02)
                assert [len(c.added) for c in changes] == [2]  # reported to p3's own on_route_change


def test_a_route_a_producer_fetched_gives_a_consumer_of_its_instance_the_new_queues():
    with _cluster() as cluster:
        with Producer(cluster.namesrv_addr, "PG", **SAME) as producer, _consumer(cluster, "G1", **SAME) as consumer:
            assert len(consumer.assignment("T")) == 2
            cluster.topic("T", queues=3)
            producer.send(Message("T", b"x"))  # the producer's first send fetches T: unchanged for the instance
            assert len(consumer.assignment("T")) == 2
            producer.refresh_routes()  # T has 3 queues now: the consumer's subscribe info too, at once
            consumer.rebalance_now()
            assert len(consumer.assignment("T")) == 3


def test_an_instance_polls_once_per_interval_at_the_smallest_interval_its_clients_ask_for():
    with _cluster() as cluster:
        changes: list[Any] = []
        slow = Producer(
            cluster.namesrv_addr, "PG1", poll_name_server_interval=600_000, on_route_change=changes.append, **SAME
        )
        fast = Producer(cluster.namesrv_addr, "PG2", poll_name_server_interval=250, **SAME)
        with slow, fast:
            slow.send(Message("T", b"1"))
            fast.send(Message("T", b"2"))
            before, start = _route_requests(cluster, "T"), time.monotonic()
            time.sleep(1.5)
            polls, elapsed = _route_requests(cluster, "T") - before, time.monotonic() - start
            # one poll of T every 250 ms for the instance; a poll per client would ask twice as often
            assert 1 <= polls <= elapsed / 0.25 + 1, polls
            cluster.topic("T", queues=3)  # found by the instance's poll at the fast client's interval, for both
            deadline = time.monotonic() + 5
            while not changes and time.monotonic() < deadline:
                time.sleep(0.02)
            assert [len(c.added) for c in changes] == [1]


def test_a_client_given_another_s_instance_joins_it():
    with _cluster() as cluster:
        with Producer(cluster.namesrv_addr, "PG") as producer:
            assert producer.instance is producer._life.instance and producer.instance is not None
            with _consumer(cluster, "G1", instance=producer.instance) as consumer:
                assert consumer.instance is producer.instance and consumer.client_id == producer.client_id
                assert consumer.instance_name == producer.instance_name
                assert consumer.assignment("T")  # it runs on the shared connection
            with pytest.raises(ValueError, match="not both"):
                Producer(cluster.namesrv_addr, "PG2", instance=producer.instance, instance_name="x")
            with pytest.raises(TypeError, match="ClientInstance"):
                Producer(cluster.namesrv_addr, "PG2", instance=producer)  # type: ignore[arg-type]
            late = Producer(cluster.namesrv_addr, "PG2", instance=producer.instance)
        assert producer.instance.closed  # its last client shut down
        with pytest.raises(RuntimeError, match="was closed"):
            late.start()
        with pytest.raises(RuntimeError, match="call start"):  # it did not start
            late.send(Message("T", b"x"))
