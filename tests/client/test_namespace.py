"""Namespaces: ``NamespaceUtil``'s wrap and unwrap, and a producer in a namespace against the fake cluster (the
topic and group on the wire, the plain topic in its results and its selector's queues). On the real servers:
tests/cluster/test_namespace.py."""

from __future__ import annotations

import pytest

from rocketroute.client import Consumer, Message, Producer
from rocketroute.client.namespace import check_namespace, is_system_resource, unwrap, wrap

from ._fake_cluster import FakeCluster

NS = "MQ_INST_a"


@pytest.mark.parametrize(
    ("name", "wrapped"),
    [
        ("Orders", "MQ_INST_a%Orders"),
        ("%RETRY%Billing", "%RETRY%MQ_INST_a%Billing"),
        ("%DLQ%Billing", "%DLQ%MQ_INST_a%Billing"),
        ("MQ_INST_a%Orders", "MQ_INST_a%Orders"),  # already in the namespace
        ("%RETRY%MQ_INST_a%Billing", "%RETRY%MQ_INST_a%Billing"),
        ("MQ_INST_b%Orders", "MQ_INST_a%MQ_INST_b%Orders"),  # another namespace's name is a plain name here
        ("TBW102", "TBW102"),  # system topics and groups stay
        ("SCHEDULE_TOPIC_XXXX", "SCHEDULE_TOPIC_XXXX"),
        ("rmq_sys_wheel_timer", "rmq_sys_wheel_timer"),
        ("CID_RMQ_SYS_TRANS", "CID_RMQ_SYS_TRANS"),
        ("", ""),
    ],
)
def test_wrap_and_unwrap_as_namespace_util(name, wrapped):
    assert wrap(NS, name) == wrapped
    if not is_system_resource(name) and name and not name.replace("%RETRY%", "").startswith("MQ_INST_b"):
        assert unwrap(NS, wrapped) == name.replace("MQ_INST_a%", "")
    assert wrap(None, name) == name and unwrap(None, name) == name


def test_unwrap_leaves_other_namespaces_and_plain_names():
    assert unwrap(NS, "MQ_INST_b%Orders") == "MQ_INST_b%Orders"
    assert unwrap(NS, "Orders") == "Orders"
    assert unwrap(NS, "%DLQ%MQ_INST_a%Billing") == "%DLQ%Billing"


@pytest.mark.parametrize(("value", "error"), [("a%b", ValueError), ("a b", ValueError), (5, TypeError)])
def test_a_namespace_is_a_plain_name(value, error):
    with pytest.raises(error, match="namespace"):
        check_namespace(value)
    assert check_namespace("") is None and check_namespace(None) is None
    with pytest.raises(error, match="namespace"):
        Producer("127.0.0.1:9876", "PG", namespace=value)


def test_a_consumer_in_a_namespace_subscribes_the_wrapped_names():
    c = Consumer("127.0.0.1:9876", "Billing", ["Orders"], namespace=NS, listener=lambda m, c: None)
    assert c.group == "MQ_INST_a%Billing" and c.namespace == NS
    assert set(c._subscription.subscriptions) == {"MQ_INST_a%Orders", "%RETRY%MQ_INST_a%Billing"}


def test_a_producer_in_a_namespace_sends_wrapped_and_reports_plain():
    with FakeCluster() as cluster:
        cluster.topic("MQ_INST_a%Orders", queues=2)
        with Producer(cluster.namesrv_addr, "Billing", namespace=NS) as producer:
            assert producer.group == "MQ_INST_a%Billing"
            msg = Message("Orders", b"x")
            result = producer.send(msg)
            assert result.queue.topic == "Orders" and msg.topic == "Orders"  # the user's message is unchanged
            shown: list[str] = []

            def selector(mqs, m, arg):
                shown.extend(q.topic for q in mqs)
                return mqs[1]

            chosen = producer.send(Message("Orders", b"y"), selector, None)
            assert set(shown) == {"Orders"} and chosen.queue.queue_id == 1 and chosen.queue.topic == "Orders"
            assert producer.route("Orders") is not None
        sends = cluster.brokers["broker-a"].requests(310)
        assert {r["extFields"]["b"] for r in sends} == {"MQ_INST_a%Orders"}  # the topic on the wire
        assert {r["extFields"]["a"] for r in sends} == {"MQ_INST_a%Billing"}  # the group
        assert {r["extFields"]["topic"] for r in cluster.namesrv.requests(105)} >= {"MQ_INST_a%Orders"}
