"""TopicRouteData from the name server's camelCase JSON, and the publish / subscribe queues it gives."""

from __future__ import annotations

import json

import pytest

from rocketroute.errors import IllegalArgumentError, NullPointerError

# What `mqadmin topicRoute` / GET_ROUTEINFO_BY_TOPIC returns for a topic on a 2-master cluster (RocketMQ 5.x
# fields, e.g. enableActingMaster, included), with broker ids written as JSON strings. broker-c has only a
# slave, broker-d is read-only and has no BrokerData.
NAME_SERVER_ROUTE = """{
  "brokerDatas": [
    {"brokerAddrs": {"0": "192.168.1.12:10911", "1": "192.168.1.13:10911"}, "brokerName": "broker-b",
     "cluster": "DefaultCluster", "enableActingMaster": false},
    {"brokerAddrs": {"0": "192.168.1.10:10911", "1": "192.168.1.11:10911"}, "brokerName": "broker-a",
     "cluster": "DefaultCluster", "enableActingMaster": false},
    {"brokerAddrs": {"1": "192.168.1.15:10911"}, "brokerName": "broker-c",
     "cluster": "DefaultCluster", "enableActingMaster": false}
  ],
  "filterServerTable": {},
  "queueDatas": [
    {"brokerName": "broker-b", "perm": 6, "readQueueNums": 4, "topicSysFlag": 0, "writeQueueNums": 4},
    {"brokerName": "broker-a", "perm": 6, "readQueueNums": 8, "topicSysFlag": 0, "writeQueueNums": 8},
    {"brokerName": "broker-c", "perm": 6, "readQueueNums": 2, "topicSysFlag": 0, "writeQueueNums": 2},
    {"brokerName": "broker-d", "perm": 4, "readQueueNums": 2, "topicSysFlag": 0, "writeQueueNums": 3}
  ]
}"""

# The same route as the name server really writes it: fastjson prints Map<Long, String> keys without quotes.
NAME_SERVER_ROUTE_FASTJSON = NAME_SERVER_ROUTE.replace('{"0":', "{0:").replace('"1":', "1:")


def _queues(backend, topic, spec):
    return [backend.MessageQueue(topic, broker, i) for broker, n in spec for i in range(n)]


def _check_name_server_route(backend, route):
    assert [qd.broker_name for qd in route.queue_datas] == ["broker-b", "broker-a", "broker-c", "broker-d"]
    qd = route.queue_datas[1]
    assert (qd.read_queue_nums, qd.write_queue_nums, qd.perm, qd.topic_sys_flag) == (8, 8, 6, 0)
    assert route.queue_datas[3].write_queue_nums == 3
    assert [bd.broker_name for bd in route.broker_datas] == ["broker-b", "broker-a", "broker-c"]
    assert route.broker_datas[1].cluster == "DefaultCluster"
    assert dict(route.broker_datas[1].broker_addrs) == {0: "192.168.1.10:10911", 1: "192.168.1.11:10911"}
    assert dict(route.broker_datas[2].broker_addrs) == {1: "192.168.1.15:10911"}
    assert route.order_topic_conf is None


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_from_name_server_json_text(backend, as_bytes):
    text = NAME_SERVER_ROUTE.encode() if as_bytes else NAME_SERVER_ROUTE
    _check_name_server_route(backend, backend.TopicRouteData.from_json(text))


def test_from_fastjson_text_with_unquoted_broker_ids(backend):
    assert "{0:" in NAME_SERVER_ROUTE_FASTJSON
    _check_name_server_route(backend, backend.TopicRouteData.from_json(NAME_SERVER_ROUTE_FASTJSON))


def test_camel_case_and_snake_case_keys_read_the_same(backend):
    camel = json.loads(NAME_SERVER_ROUTE)
    snake = {
        "order_topic_conf": None,
        "queue_datas": [
            {
                "broker_name": q["brokerName"],
                "read_queue_nums": q["readQueueNums"],
                "write_queue_nums": q["writeQueueNums"],
                "perm": q["perm"],
                "topic_sys_flag": q["topicSysFlag"],
            }
            for q in camel["queueDatas"]
        ],
        "broker_datas": [
            {"cluster": b["cluster"], "broker_name": b["brokerName"], "broker_addrs": b["brokerAddrs"]}
            for b in camel["brokerDatas"]
        ],
    }
    assert backend.TopicRouteData.from_json(camel) == backend.TopicRouteData.from_json(snake)


def test_json_round_trip(backend):
    route = backend.TopicRouteData.from_json(NAME_SERVER_ROUTE)
    again = backend.TopicRouteData.from_json(route.to_json())
    assert again == route
    _check_name_server_route(backend, again)


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_publish_queues_of_a_normal_topic(backend, compat):
    route = backend.TopicRouteData.from_json(NAME_SERVER_ROUTE)
    tp = backend.TopicPublishInfo.from_route("TopicTest", route, compat=compat)
    # writeable brokers that have a master (id 0), in broker-name order
    assert list(tp.message_queues) == _queues(backend, "TopicTest", [("broker-a", 8), ("broker-b", 4)])
    assert tp.order_topic is False
    assert tp.ok() is True
    assert len(tp) == 12
    assert [qd.broker_name for qd in tp.route.queue_datas] == ["broker-a", "broker-b", "broker-c", "broker-d"]
    assert tp.write_queue_nums_by_broker("broker-a") == 8
    assert tp.write_queue_nums_by_broker("broker-x") == -1
    # README: 4.9.8 counts only writeable queue datas; 5.3.3 has no perm check
    assert tp.write_queue_nums_by_broker("broker-d") == (3 if compat == "5.3" else -1)


def test_subscribe_queues(backend):
    route = backend.TopicRouteData.from_json(NAME_SERVER_ROUTE)
    got = route.subscribe_queues("TopicTest")
    # every readable queue data, slaves-only and BrokerData-less brokers included, sorted by compareTo
    spec = [("broker-a", 8), ("broker-b", 4), ("broker-c", 2), ("broker-d", 2)]
    assert list(got) == _queues(backend, "TopicTest", spec)


def test_subscribe_queues_drop_duplicates(backend):
    route = backend.TopicRouteData.from_json(
        {
            "queueDatas": [
                {"brokerName": "b", "readQueueNums": 2, "writeQueueNums": 2, "perm": 6},
                {"brokerName": "b", "readQueueNums": 3, "writeQueueNums": 3, "perm": 6},
                {"brokerName": "a", "readQueueNums": 1, "writeQueueNums": 1, "perm": 2},
            ],
            "brokerDatas": [],
        }
    )
    assert list(route.subscribe_queues("T")) == _queues(backend, "T", [("b", 3)])


def test_order_topic_conf_decides_the_publish_queues(backend):
    route_json = json.loads(NAME_SERVER_ROUTE)
    route_json["orderTopicConf"] = "broker-b:2;broker-a:3"
    route = backend.TopicRouteData.from_json(route_json)
    tp = backend.TopicPublishInfo.from_route("TopicTest", route, compat="5.3")
    assert tp.order_topic is True
    assert list(tp.message_queues) == _queues(backend, "TopicTest", [("broker-b", 2), ("broker-a", 3)])
    # the ordered branch leaves queueDatas as given
    assert [qd.broker_name for qd in tp.route.queue_datas] == ["broker-b", "broker-a", "broker-c", "broker-d"]


def test_empty_order_topic_conf_is_a_normal_topic(backend):
    route_json = json.loads(NAME_SERVER_ROUTE)
    route_json["orderTopicConf"] = ""
    tp = backend.TopicPublishInfo.from_route("T", backend.TopicRouteData.from_json(route_json))
    assert tp.order_topic is False
    assert len(tp.message_queues) == 12


def test_a_route_without_usable_brokers_is_not_ok(backend):
    route = backend.TopicRouteData.from_json({"queueDatas": [], "brokerDatas": []})
    tp = backend.TopicPublishInfo.from_route("T", route)
    assert list(tp.message_queues) == []
    assert tp.ok() is False


def test_missing_broker_addrs_on_a_writeable_broker_is_a_null_pointer(backend):
    route = backend.TopicRouteData.from_json(
        {
            "queueDatas": [{"brokerName": "b", "readQueueNums": 1, "writeQueueNums": 1, "perm": 6}],
            "brokerDatas": [{"cluster": "c", "brokerName": "b", "brokerAddrs": None}],
        }
    )
    with pytest.raises(NullPointerError):
        backend.TopicPublishInfo.from_route("T", route)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", '"route"', '{"queueDatas": 5}'])
def test_invalid_json_is_an_illegal_argument(backend, text):
    with pytest.raises(IllegalArgumentError):
        backend.TopicRouteData.from_json(text)


def test_perm_names(backend):
    p = backend.PermName
    assert (p.PERM_PRIORITY, p.PERM_READ, p.PERM_WRITE, p.PERM_INHERIT) == (8, 4, 2, 1)
    for perm in range(-2, 17):
        want = ("R" if perm & 4 else "-") + ("W" if perm & 2 else "-") + ("X" if perm & 1 else "-")
        assert p.perm_to_string(perm) == want
        assert p.is_accessible(perm) is bool(perm & 6)
        assert p.is_valid(perm) is (0 <= perm < 8)
