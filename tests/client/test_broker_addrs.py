"""``BrokerAddrTable``: the one broker address table of the producer and the consumer (Java's brokerAddrTable) and
the address choices made from it."""

from __future__ import annotations

import json

from rocketroute.client.broker_addrs import BrokerAddrTable


def _route(backend, brokers):
    """A real ``TopicRouteData`` of ``{broker name: {id: address}}``."""
    body = {
        "queueDatas": [{"brokerName": b, "readQueueNums": 2, "writeQueueNums": 2, "perm": 6} for b in brokers],
        "brokerDatas": [
            {"cluster": "c", "brokerName": b, "brokerAddrs": {str(i): a for i, a in addrs.items()}}
            for b, addrs in brokers.items()
        ],
    }
    return backend.TopicRouteData.from_json(json.dumps(body).encode())


def test_the_master_is_where_sends_and_commits_go(backend):
    table = BrokerAddrTable()
    table.update(_route(backend, {"broker-a": {0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}, "broker-b": {1: "s:1"}}))
    assert table.master("broker-a") == "10.0.0.1:10911"
    assert table.master("broker-b") is None  # its master is down: nothing to send to
    assert table.master("broker-c") is None
    assert table.master_or_first("broker-b") == "s:1"  # any node knows the group's members
    assert len(table) == 2 and "broker-a" in table and "broker-c" not in table


def test_a_pull_goes_to_the_suggested_node_else_any(backend):
    table = BrokerAddrTable()
    table.update(_route(backend, {"broker-a": {0: "m:1", 1: "s:1"}, "broker-b": {2: "s:2"}}))
    assert table.subscribe_addr("broker-a", 1) == ("s:1", True)
    assert table.subscribe_addr("broker-a", 0) == ("m:1", False)
    assert table.subscribe_addr("broker-b", 0) == ("s:2", True)  # no master: the slave, flagged
    assert table.subscribe_addr("broker-x", 0) == (None, False)


def test_a_newer_route_replaces_a_broker_and_offline_brokers_are_forgotten(backend):
    table = BrokerAddrTable()
    table.update(_route(backend, {"broker-a": {0: "old:1"}, "broker-b": {0: "b:1"}}))
    table.update(_route(backend, {"broker-a": {0: "new:1"}}))
    assert table.master("broker-a") == "new:1"
    assert table.addresses() == {"new:1", "b:1"}
    assert sorted(table.nodes()) == [("broker-a", "new:1"), ("broker-b", "b:1")]
    table.retain(["broker-a"])  # no route names broker-b any more
    assert list(table.nodes()) == [("broker-a", "new:1")]
    assert table.master("broker-b") is None
