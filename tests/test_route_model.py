"""The route model's second round: ``TopicQueueMappingInfo`` and static topics (RIP-21 logic queues), the 5.x
``BrokerData`` fields, ``filterServerTable``, Java's value semantics (``equals`` / ``hashCode`` / ``compareTo``),
null versus empty, the copies, and ``TopicPublishInfo.have_topic_router_info``.

Every expectation below comes from the Java sources (apache/rocketmq 5.3.3 / 4.9.8, OpenJDK 17 collections);
where an order depends on ``HashMap`` / ``ConcurrentHashMap`` iteration or on ``List.sort`` with 5.3.3's
overflowing comparator, the comment next to the case derives it step by step.
"""

from __future__ import annotations

import json

import pytest

from rocketroute.errors import IllegalArgumentError, NullPointerError

TOPIC = "T"
GLOBAL = "__syslo__global__"


def _info(backend, bname, epoch=1, ids=(), *, total=4, scope="__global__", topic=TOPIC, dirty=False):
    """A mapping info hosting the global ids ``ids`` (physical id = position)."""
    return backend.TopicQueueMappingInfo(
        topic, total, bname, epoch, scope=scope, dirty=dirty, curr_id_map={g: p for p, g in enumerate(ids)}
    )


def _static_route(backend, mapping, *, order_topic_conf=None, queue_datas=(), broker_datas=()):
    return backend.TopicRouteData(queue_datas, broker_datas, order_topic_conf, topic_queue_mapping_by_broker=mapping)


def _shown(queues):
    return [(q.broker_name, q.queue_id) for q in queues]


def _endpoints(route, topic=TOPIC):
    return [(q.broker_name, q.queue_id, broker) for q, broker in route.endpoints_for_static_topic(topic).items()]


def _int32(v):
    """Java ``(int) v``."""
    v &= 0xFFFFFFFF
    return v - 2**32 if v >= 2**31 else v


def _plain_route(backend):
    return backend.TopicRouteData(
        [backend.QueueData("broker-b", 2, 2), backend.QueueData("broker-a", 1, 1)],
        [
            backend.BrokerData("c", "broker-a", {0: "10.0.0.1:10911"}),
            backend.BrokerData("c", "broker-b", {0: "10.0.0.2:10911"}),
        ],
    )


# --- constants and mock broker names ----------------------------------------------------------------------


def test_constants_and_mock_broker_names(backend):
    assert backend.LOGICAL_QUEUE_MOCK_BROKER_PREFIX == "__syslo__"
    assert backend.LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST == "__syslo__none__"
    assert backend.METADATA_SCOPE_GLOBAL == "__global__"
    # TopicQueueMappingUtils.getMockBrokerName: "__global__" drops its first two characters, others do not
    assert backend.mock_broker_name("__global__") == "__syslo__global__"
    assert backend.mock_broker_name("global__") == "__syslo__global__"
    assert backend.mock_broker_name("") == "__syslo__"
    assert backend.mock_broker_name("s1") == "__syslo__s1"
    with pytest.raises(NullPointerError):
        backend.mock_broker_name(None)
    with pytest.raises(TypeError):
        backend.mock_broker_name(5)


# --- TopicQueueMappingInfo ------------------------------------------------------------------------------------


def test_mapping_info_defaults_and_fields(backend):
    info = backend.TopicQueueMappingInfo("t", 8, "broker-a", 3)
    assert (info.topic, info.total_queues, info.bname, info.epoch) == ("t", 8, "broker-a", 3)
    assert info.scope == "__global__"  # Java's field initialiser
    assert info.dirty is False
    assert info.curr_id_map == {}  # left out: the initialiser's empty map
    assert backend.TopicQueueMappingInfo("t", 8, "broker-a", 3, curr_id_map=None).curr_id_map is None  # null
    assert backend.TopicQueueMappingInfo(None, 0, None, 0, scope=None).scope is None
    # keys may be decimal strings, as in JSON; the map hands out a fresh dict in insertion order
    info = backend.TopicQueueMappingInfo("t", 8, "b", 2**40, curr_id_map={"5": 0, 3: 1, "-1": 2})
    ids = info.curr_id_map
    assert ids == {5: 0, 3: 1, -1: 2} and list(ids) == [5, 3, -1]
    ids[99] = 99
    assert info.curr_id_map == {5: 0, 3: 1, -1: 2}
    assert info.epoch == 2**40
    for name, value in [("epoch", 6), ("scope", "x"), ("curr_id_map", {}), ("dirty", True)]:
        with pytest.raises(AttributeError):
            setattr(info, name, value)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"total_queues": "8"}, TypeError),
        ({"total_queues": True}, TypeError),
        ({"total_queues": 2**31}, IllegalArgumentError),
        ({"epoch": 2**63}, IllegalArgumentError),
        ({"epoch": 1.0}, TypeError),
        ({"topic": 5}, TypeError),
        ({"bname": b"b"}, TypeError),
        ({"scope": 1}, TypeError),
        ({"dirty": 1}, TypeError),
        ({"curr_id_map": [(0, 1)]}, TypeError),
        ({"curr_id_map": {0: "1"}}, TypeError),
        ({"curr_id_map": {0: 2**31}}, IllegalArgumentError),
        ({"curr_id_map": {"x": 1}}, IllegalArgumentError),
        ({"curr_id_map": {2**31: 1}}, IllegalArgumentError),
        ({"curr_id_map": {True: 1}}, TypeError),
    ],
)
def test_mapping_info_bad_input(backend, kwargs, error):
    args = {"topic": "t", "total_queues": 8, "bname": "b", "epoch": 1}
    extra = {k: v for k, v in kwargs.items() if k not in args}  # the parameters are shared by both backends
    args.update({k: v for k, v in kwargs.items() if k in args})
    with pytest.raises(error):
        backend.TopicQueueMappingInfo(args["topic"], args["total_queues"], args["bname"], args["epoch"], **extra)


def test_mapping_info_equals_and_hash(backend):
    a = backend.TopicQueueMappingInfo("t", 8, "b", 2**33 + 5, curr_id_map={0: 1, 2: 3})
    b = backend.TopicQueueMappingInfo("t", 8, "b", 2**33 + 5, curr_id_map={2: 3, 0: 1})  # map: order ignored
    assert a == b and not a != b
    assert a.java_hash_code() == b.java_hash_code()
    for other in (
        backend.TopicQueueMappingInfo("t", 8, "b", 2**33 + 5, curr_id_map={0: 1}),
        backend.TopicQueueMappingInfo("t", 8, "b", 2**33 + 5, curr_id_map=None),
        backend.TopicQueueMappingInfo("t", 8, "b", 2**33 + 5, curr_id_map={0: 1, 2: 3}, dirty=True),
        backend.TopicQueueMappingInfo("t", 8, "b", 2**33 + 5, curr_id_map={0: 1, 2: 3}, scope=None),
        backend.TopicQueueMappingInfo("t", 8, None, 2**33 + 5, curr_id_map={0: 1, 2: 3}),
    ):
        assert a != other
    with pytest.raises(TypeError):
        hash(a)
    # TopicQueueMappingInfo.hashCode: h = topic; h = 31h + scope; 31h + totalQueues; 31h + bname;
    # 31h + (int)(epoch ^ epoch >>> 32); 31h + (dirty ? 1 : 0); 31h + currIdMap.hashCode() (sum of k ^ v)
    h = backend.java_string_hash("t")
    for term in (
        backend.java_string_hash("__global__"),
        8,
        backend.java_string_hash("b"),
        backend.java_long_hash(2**33 + 5),  # 5 ^ 2 = 7
        0,
        (0 ^ 1) + (2 ^ 3),
    ):
        h = _int32(31 * h + term)
    assert a.java_hash_code() == h
    nulls = backend.TopicQueueMappingInfo(None, 0, None, 0, scope=None, curr_id_map=None)
    assert nulls.java_hash_code() == 0


# --- QueueData / BrokerData -----------------------------------------------------------------------------------


def test_queue_data_null_broker_name_and_compare(backend):
    qd = backend.QueueData(None, 4, 4)
    assert qd.broker_name is None
    assert qd == backend.QueueData(None, 4, 4)
    assert qd != backend.QueueData("a", 4, 4)
    # QueueData.hashCode: 31^5 + 31^3 * perm + 31^2 * read + 31 * write + sysFlag, brokerName null -> 0
    assert qd.java_hash_code() == (31**5 + 31**3 * 6 + 31**2 * 4 + 31 * 4 + 0) & 0x7FFFFFFF
    a, b = backend.QueueData("broker-a", 1, 1), backend.QueueData("broker-b", 1, 1)
    assert a.compare_to(b) == -1 and b.compare_to(a) == 1 and a.compare_to(a) == 0
    with pytest.raises(NullPointerError):
        qd.compare_to(a)
    with pytest.raises(NullPointerError):
        a.compare_to(qd)
    with pytest.raises(TypeError):
        a.compare_to("broker-b")
    with pytest.raises(AttributeError):
        a.perm = 2


def test_broker_data_equality_ignores_cluster_zone_and_acting_master(backend):
    addrs = {0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}
    a = backend.BrokerData("c1", "broker-a", addrs)
    b = backend.BrokerData("c2", "broker-a", dict(reversed(addrs.items())), zone_name="z", enable_acting_master=True)
    assert (b.cluster, b.zone_name, b.enable_acting_master) == ("c2", "z", True)
    assert (a.zone_name, a.enable_acting_master) == (None, False)
    assert a == b and b == a  # BrokerData.equals: brokerAddrs (as maps) and brokerName only
    assert a.java_hash_code() == b.java_hash_code()
    assert a.compare_to(b) == 0
    # brokerAddrs compare as maps: a null address is not a missing one, null is not empty
    assert backend.BrokerData("c", "x", {0: None}) != backend.BrokerData("c", "x", {})
    assert backend.BrokerData("c", "x", None) != backend.BrokerData("c", "x", {})
    assert backend.BrokerData("c", "x", None) == backend.BrokerData("d", "x", None)
    assert backend.BrokerData("c", "x", {}) != backend.BrokerData("c", "y", {})
    # hashCode = 31 * (31 + sum(Long.hashCode(id) ^ addr.hashCode())) + brokerName.hashCode()
    want = 31 * (31 + ((0 ^ backend.java_string_hash("h")) + (backend.java_long_hash(-1) ^ 0))) + 120
    assert backend.BrokerData("c", "x", {0: "h", -1: None}).java_hash_code() == want
    with pytest.raises(TypeError):
        backend.BrokerData("c", "x", {}, enable_acting_master=1)
    with pytest.raises(TypeError):
        backend.BrokerData("c", "x", {}, zone_name=5)
    bd = backend.BrokerData("c", "x", {0: "h"})
    bd.broker_addrs[1] = "mutated"
    assert bd.broker_addrs == {0: "h"}
    with pytest.raises(AttributeError):
        bd.cluster = "other"


# --- TopicRouteData: construction, null versus empty ------------------------------------------------------------


def test_route_defaults_and_explicit_nulls(backend):
    route = backend.TopicRouteData()
    assert route.queue_datas == () and route.broker_datas == ()
    assert route.filter_server_table == {}
    assert route.topic_queue_mapping_by_broker is None
    nulls = backend.TopicRouteData(None, None, filter_server_table=None)
    assert nulls.queue_datas is None and nulls.broker_datas is None and nulls.filter_server_table is None
    assert nulls != route  # Java null is not an empty list / map
    assert backend.TopicRouteData(topic_queue_mapping_by_broker={}) != route  # {} is not null either
    assert backend.TopicRouteData(topic_queue_mapping_by_broker={}).topic_queue_mapping_by_broker == {}


def test_route_hands_out_fresh_containers(backend):
    info = _info(backend, "broker-a", ids=[0])
    route = backend.TopicRouteData(
        filter_server_table={"10.0.0.1:10911": ["f1", "f2"], "10.0.0.2:10911": None},
        topic_queue_mapping_by_broker={"broker-a": info},
    )
    table = route.filter_server_table
    assert table == {"10.0.0.1:10911": ["f1", "f2"], "10.0.0.2:10911": None}
    table["10.0.0.1:10911"].append("f3")
    table["x"] = []
    mapping = route.topic_queue_mapping_by_broker
    assert mapping == {"broker-a": info}
    mapping["broker-b"] = info
    assert route.filter_server_table == {"10.0.0.1:10911": ["f1", "f2"], "10.0.0.2:10911": None}
    assert route.topic_queue_mapping_by_broker == {"broker-a": info}
    for name in ("queue_datas", "filter_server_table", "topic_queue_mapping_by_broker"):
        with pytest.raises(AttributeError):
            setattr(route, name, None)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"filter_server_table": {"a": "f1"}},  # a str is not a list of addresses
        {"filter_server_table": {"a": [1]}},
        {"filter_server_table": {1: ["f"]}},
        {"filter_server_table": ["a"]},
        {"topic_queue_mapping_by_broker": {"b": None}},
        {"topic_queue_mapping_by_broker": {None: None}},
        {"topic_queue_mapping_by_broker": [("b", 1)]},
    ],
)
def test_route_bad_new_fields_are_type_errors(backend, kwargs):
    with pytest.raises(TypeError):
        backend.TopicRouteData(**kwargs)


# --- from_json ------------------------------------------------------------------------------------------------

INFO_JSON = {
    "topic": TOPIC,
    "scope": "__global__",
    "totalQueues": 2,
    "bname": "broker-a",
    "epoch": 7,
    "dirty": False,
    "currIdMap": {"0": 0, "1": 1},
}


@pytest.mark.parametrize("key", ["topicQueueMappingByBroker", "topic_queue_mapping_by_broker", "topicQueueMappingInfo"])
def test_from_json_reads_the_mapping_under_each_name(backend, key):
    route = backend.TopicRouteData.from_json({key: {"broker-a": INFO_JSON}})
    want = backend.TopicQueueMappingInfo(TOPIC, 2, "broker-a", 7, curr_id_map={0: 0, 1: 1})
    assert route.topic_queue_mapping_by_broker == {"broker-a": want}
    # snake_case fields of the info read the same
    snake = {"topic": TOPIC, "total_queues": 2, "bname": "broker-a", "epoch": 7, "curr_id_map": {"0": 0, "1": 1}}
    assert backend.TopicRouteData.from_json({key: {"broker-a": snake}}) == route


def test_from_json_first_present_mapping_name_wins(backend):
    other = dict(INFO_JSON, bname="broker-z")
    both = {"topicQueueMappingByBroker": {"broker-a": INFO_JSON}, "topicQueueMappingInfo": {"broker-a": other}}
    assert backend.TopicRouteData.from_json(both).topic_queue_mapping_by_broker["broker-a"].bname == "broker-a"
    # present and null wins too: the route's mapping is null
    null_first = {"topic_queue_mapping_by_broker": None, "topicQueueMappingInfo": {"broker-a": other}}
    assert backend.TopicRouteData.from_json(null_first).topic_queue_mapping_by_broker is None


def test_from_json_fastjson_bare_integer_keys(backend):
    # fastjson writes Map<Integer, Integer> / Map<Long, String> keys without quotes
    text = (
        '{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",-1:"10.0.0.9:1"},"brokerName":"broker-a",'
        '"cluster":"c","zoneName":"z1","enableActingMaster":true}],'
        '"topicQueueMappingByBroker":{"broker-a":{"bname":"broker-a","currIdMap":{0:1, 5:0},"dirty":true,'
        '"epoch":9,"scope":"s","topic":"T","totalQueues":6}}}'
    )
    route = backend.TopicRouteData.from_json(text)
    info = route.topic_queue_mapping_by_broker["broker-a"]
    assert info.curr_id_map == {0: 1, 5: 0}
    assert (info.scope, info.total_queues, info.epoch, info.dirty) == ("s", 6, 9, True)
    bd = route.broker_datas[0]
    assert bd.broker_addrs == {0: "10.0.0.1:10911", -1: "10.0.0.9:1"}
    assert (bd.zone_name, bd.enable_acting_master) == ("z1", True)
    assert route.queue_datas == ()  # absent: 5.3.3's constructor leaves it empty


def test_from_json_absent_versus_null(backend):
    absent = backend.TopicRouteData.from_json("{}")
    assert absent.queue_datas == () and absent.broker_datas == ()
    assert absent.filter_server_table == {} and absent.topic_queue_mapping_by_broker is None
    nulls = backend.TopicRouteData.from_json(
        '{"queueDatas":null,"brokerDatas":null,"filterServerTable":null,"topicQueueMappingByBroker":null}'
    )
    assert nulls.queue_datas is None and nulls.broker_datas is None
    assert nulls.filter_server_table is None and nulls.topic_queue_mapping_by_broker is None
    table = backend.TopicRouteData.from_json({"filter_server_table": {"a": None, "b": ["f"]}}).filter_server_table
    assert table == {"a": None, "b": ["f"]}
    # a mapping info: absent scope / currIdMap keep the field initialisers, null sets null; null numbers read 0
    infos = backend.TopicRouteData.from_json(
        {
            "topicQueueMappingByBroker": {
                "absent": {},
                "null": {
                    "topic": None,
                    "scope": None,
                    "totalQueues": None,
                    "bname": None,
                    "epoch": None,
                    "dirty": None,
                    "currIdMap": None,
                },
            }
        }
    ).topic_queue_mapping_by_broker
    assert infos["absent"] == backend.TopicQueueMappingInfo(None, 0, None, 0)
    assert infos["absent"].scope == "__global__" and infos["absent"].curr_id_map == {}
    assert infos["null"] == backend.TopicQueueMappingInfo(None, 0, None, 0, scope=None, curr_id_map=None)
    # queue data brokerName null -> None; broker data enableActingMaster null -> False
    route = backend.TopicRouteData.from_json(
        {
            "queueDatas": [{"brokerName": None, "readQueueNums": 1, "writeQueueNums": 1, "perm": 6}],
            "brokerDatas": [{"cluster": "c", "brokerName": "b", "brokerAddrs": {}, "enableActingMaster": None}],
        }
    )
    assert route.queue_datas[0].broker_name is None
    assert route.broker_datas[0].enable_acting_master is False


@pytest.mark.parametrize(
    "doc",
    [
        {"filterServerTable": []},
        {"filterServerTable": {"a": "f"}},
        {"filterServerTable": {"a": [1]}},
        {"topicQueueMappingByBroker": []},
        {"topicQueueMappingByBroker": {"b": None}},
        {"topicQueueMappingByBroker": {"b": {"epoch": "1"}}},
        {"topicQueueMappingByBroker": {"b": {"totalQueues": 2**31}}},
        {"topicQueueMappingByBroker": {"b": {"dirty": 0}}},
        {"topicQueueMappingByBroker": {"b": {"currIdMap": []}}},
        {"topicQueueMappingByBroker": {"b": {"currIdMap": {"x": 1}}}},
        {"topicQueueMappingByBroker": {"b": {"currIdMap": {"1": None}}}},
        {"brokerDatas": [{"brokerName": "b", "enableActingMaster": "yes"}]},
        {"brokerDatas": [{"brokerName": "b", "zoneName": 1}]},
    ],
)
def test_from_json_wrong_types_are_illegal_arguments(backend, doc):
    with pytest.raises(IllegalArgumentError):
        backend.TopicRouteData.from_json(doc)
    with pytest.raises(IllegalArgumentError):
        backend.TopicRouteData.from_json(json.dumps(doc))


def test_to_dict_round_trips_through_from_json(backend):
    mapping = {
        "broker-b": _info(backend, "broker-b", 2**40, [3, 1], scope="s", dirty=True),
        "broker-a": backend.TopicQueueMappingInfo(None, -1, None, -(2**63), scope=None, curr_id_map=None),
    }
    routes = [
        backend.TopicRouteData(
            [backend.QueueData("broker-b", 2, 2), backend.QueueData(None, 1, 1, 4, 3)],
            [backend.BrokerData(None, "broker-b", {0: "h", 7: None}, zone_name="z", enable_acting_master=True)],
            "broker-b:2",
            filter_server_table={"h": ["f1", "f2"], "g": None, "e": []},
            topic_queue_mapping_by_broker=mapping,
        ),
        backend.TopicRouteData(None, None, filter_server_table=None, topic_queue_mapping_by_broker={}),
        backend.TopicRouteData(),
    ]
    for route in routes:
        again = backend.TopicRouteData.from_json(route.to_json())
        assert again == route
        assert again.to_dict() == route.to_dict()
        assert backend.TopicRouteData.from_json(route.to_dict()) == route
        assert list(again.topic_queue_mapping_by_broker or ()) == list(route.topic_queue_mapping_by_broker or ())
    d = routes[0].to_dict()
    assert d["filterServerTable"] == {"h": ["f1", "f2"], "g": None, "e": []}
    assert d["brokerDatas"][0]["zoneName"] == "z" and d["brokerDatas"][0]["enableActingMaster"] is True
    assert d["topicQueueMappingByBroker"]["broker-b"] == {
        "topic": TOPIC,
        "scope": "s",
        "totalQueues": 4,
        "bname": "broker-b",
        "epoch": 2**40,
        "dirty": True,
        "currIdMap": {"3": 0, "1": 1},
    }
    assert routes[1].to_dict()["queueDatas"] is None


# --- equals / hashCode / topicRouteDataChanged / copies -------------------------------------------------------------


def test_route_equals_and_hash_with_the_mapping(backend):
    base = _plain_route(backend)
    with_map = backend.TopicRouteData(
        base.queue_datas, base.broker_datas, topic_queue_mapping_by_broker={"broker-a": _info(backend, "broker-a")}
    )
    assert base != with_map
    # 4.9.8's hashCode has no mapping term; 5.3.3 adds 31 * h + mapping.hashCode() (0 when null)
    assert base.java_hash_code("4.9") == with_map.java_hash_code("4.9")
    assert base.java_hash_code("5.3") == _int32(31 * base.java_hash_code("4.9"))
    assert base.java_hash_code("5.3") != with_map.java_hash_code("5.3")
    with pytest.raises(IllegalArgumentError):
        base.java_hash_code("6.0")
    with pytest.raises(TypeError):
        hash(base)


def test_topic_route_data_changed(backend):
    route = _plain_route(backend)
    shuffled = backend.TopicRouteData(tuple(reversed(route.queue_datas)), tuple(reversed(route.broker_datas)))
    assert route != shuffled
    assert shuffled.topic_route_data_changed(route) is False  # both copies are sorted before equals
    assert route.topic_route_data_changed(None) is True
    # the copies turn null lists into empty ones, so null and empty are no change
    assert backend.TopicRouteData(None, None).topic_route_data_changed(backend.TopicRouteData()) is False
    with_null_name = backend.TopicRouteData([backend.QueueData("a", 1, 1), backend.QueueData(None, 1, 1)])
    with pytest.raises(NullPointerError):
        with_null_name.topic_route_data_changed(route)
    with pytest.raises(NullPointerError):
        route.topic_route_data_changed(with_null_name)
    with pytest.raises(TypeError):
        route.topic_route_data_changed("route")


def test_copies_and_their_null_pointers(backend):
    route = backend.TopicRouteData(
        [backend.QueueData("a", 1, 1)],
        [backend.BrokerData("c", "a", {0: "h"})],
        filter_server_table={"h": ["f"]},
        topic_queue_mapping_by_broker={"a": _info(backend, "a", ids=[0])},
    )
    for copy in (route.copy(), route.clone_topic_route_data(), route.deep_clone_topic_route_data()):
        assert copy == route and copy.java_hash_code() == route.java_hash_code()
        assert copy.topic_queue_mapping_by_broker == route.topic_queue_mapping_by_broker
    nulls = backend.TopicRouteData(None, None, filter_server_table=None)
    assert nulls.copy() == backend.TopicRouteData()  # the copy constructor turns nulls into empties
    assert nulls.clone_topic_route_data("4.9") == backend.TopicRouteData()  # 4.9.8 null-checks
    with pytest.raises(NullPointerError):
        nulls.clone_topic_route_data("5.3")  # 5.3.3 addAll(null)
    with pytest.raises(NullPointerError):
        nulls.deep_clone_topic_route_data()
    for field in ("queue_datas", "broker_datas"):
        half = backend.TopicRouteData(**{field: None})
        with pytest.raises(NullPointerError):
            half.clone_topic_route_data()
    # deepClone copies each filter server list (new ArrayList<>(null)) and each currIdMap
    # (new ConcurrentHashMap<>(null)): a null one is a NullPointerException there
    with pytest.raises(NullPointerError):
        backend.TopicRouteData(filter_server_table={"h": None}).deep_clone_topic_route_data()
    no_ids = {"a": backend.TopicQueueMappingInfo("t", 1, "a", 1, curr_id_map=None)}
    with pytest.raises(NullPointerError):
        backend.TopicRouteData(topic_queue_mapping_by_broker=no_ids).deep_clone_topic_route_data()
    assert (
        backend.TopicRouteData(topic_queue_mapping_by_broker=no_ids)
        .clone_topic_route_data()
        .topic_queue_mapping_by_broker
        == no_ids
    )


# --- publish / subscribe: null pointers of the normal path ---------------------------------------------------------


@pytest.mark.parametrize("compat", ["5.3", "4.9"])
def test_normal_path_null_pointers(backend, compat):
    with pytest.raises(NullPointerError):
        backend.TopicRouteData(None, []).publish_queues(TOPIC, compat)
    with pytest.raises(NullPointerError):
        backend.TopicRouteData(None, []).subscribe_queues(TOPIC, compat)
    with pytest.raises(NullPointerError):
        backend.TopicPublishInfo.from_route(TOPIC, backend.TopicRouteData(None, []), compat=compat)
    # brokerDatas null is dereferenced only for a writeable queue data
    with pytest.raises(NullPointerError):
        backend.TopicRouteData([backend.QueueData("a", 1, 1, 6)], None).publish_queues(TOPIC, compat)
    assert backend.TopicRouteData([backend.QueueData("a", 1, 1, 4)], None).publish_queues(TOPIC, compat) == ([], False)
    # Collections.sort compares every element of two or more: a null name is a NullPointerException
    two = backend.TopicRouteData([backend.QueueData("a", 1, 1), backend.QueueData(None, 1, 1)], [])
    with pytest.raises(NullPointerError):
        two.publish_queues(TOPIC, compat)
    with pytest.raises(NullPointerError):
        two.sorted_queue_datas()
    # one queue data with a null name is not sorted, and matches no broker (bd.getBrokerName().equals(null))
    one = backend.TopicRouteData([backend.QueueData(None, 1, 1)], [backend.BrokerData("c", "a", {0: "h"})])
    assert one.publish_queues(TOPIC, compat) == ([], False)


# --- static topics ------------------------------------------------------------------------------------------------


def test_static_topic_publish_subscribe_and_endpoints(backend):
    mapping = {
        "broker-a": _info(backend, "broker-a", 3, [0, 1], total=4),
        "broker-b": _info(backend, "broker-b", 3, [3], total=4),
    }
    route = _static_route(backend, mapping, queue_datas=[backend.QueueData("broker-a", 2, 2)])
    want = [(GLOBAL, i) for i in range(4)]
    queues, order_topic = route.publish_queues(TOPIC)
    assert _shown(queues) == want and order_topic is False
    tp = backend.TopicPublishInfo.from_route(TOPIC, route)
    assert _shown(tp.message_queues) == want
    assert tp.route.topic_queue_mapping_by_broker == mapping
    assert tp.have_topic_router_info is False
    assert _shown(route.subscribe_queues(TOPIC)) == want
    assert _endpoints(route) == [
        (GLOBAL, 0, "broker-a"),
        (GLOBAL, 1, "broker-a"),
        (GLOBAL, 2, "__syslo__none__"),  # a gap
        (GLOBAL, 3, "broker-b"),
    ]
    # an orderTopicConf "" takes the normal path for publishing; subscribing looks at the mapping only
    empty_conf = _static_route(
        backend,
        mapping,
        order_topic_conf="",
        queue_datas=[backend.QueueData("broker-a", 2, 2)],
        broker_datas=[backend.BrokerData("c", "broker-a", {0: "h"})],
    )
    assert _shown(empty_conf.publish_queues(TOPIC)[0]) == [("broker-a", 0), ("broker-a", 1)]
    assert _shown(empty_conf.subscribe_queues(TOPIC)) == want
    # a non-empty orderTopicConf always wins
    ordered = _static_route(backend, mapping, order_topic_conf="broker-x:1")
    assert route.publish_queues(TOPIC)[1] is False and ordered.publish_queues(TOPIC) == (
        [backend.MessageQueue(TOPIC, "broker-x", 0)],
        True,
    )


@pytest.mark.parametrize("mapping", [None, {}])
def test_without_a_mapping_there_is_no_static_topic(backend, mapping):
    route = backend.TopicRouteData(
        [backend.QueueData("broker-a", 1, 1)],
        [backend.BrokerData("c", "broker-a", {0: "h"})],
        topic_queue_mapping_by_broker=mapping,
    )
    assert route.endpoints_for_static_topic(TOPIC) == {}
    assert _shown(route.publish_queues(TOPIC)[0]) == [("broker-a", 0)]
    assert _shown(route.subscribe_queues(TOPIC)) == [("broker-a", 0)]


def test_compat_49_ignores_the_mapping(backend):
    plain = _plain_route(backend)
    mapping = {"broker-a": _info(backend, "broker-a", 1, [0, 1, 2], total=3)}
    static = _static_route(backend, mapping, queue_datas=plain.queue_datas, broker_datas=plain.broker_datas)
    assert _shown(static.publish_queues(TOPIC, "5.3")[0]) == [(GLOBAL, 0), (GLOBAL, 1), (GLOBAL, 2)]
    # 4.9.8 has no topicQueueMappingByBroker: the converters work as if it were not there
    assert static.publish_queues(TOPIC, "4.9") == plain.publish_queues(TOPIC, "4.9")
    assert static.subscribe_queues(TOPIC, "4.9") == plain.subscribe_queues(TOPIC, "4.9")
    tp = backend.TopicPublishInfo.from_route(TOPIC, static, compat="4.9")
    assert _shown(tp.message_queues) == [("broker-a", 0), ("broker-b", 0), ("broker-b", 1)]
    assert tp.compat == "4.9"


def test_static_topic_null_pointers_and_null_scopes(backend):
    # a null currIdMap is dereferenced (entry.getValue().getCurrIdMap().entrySet())
    no_ids = {"a": backend.TopicQueueMappingInfo(TOPIC, 2, "a", 1, curr_id_map=None)}
    for call in (
        lambda r: r.endpoints_for_static_topic(TOPIC),
        lambda r: r.publish_queues(TOPIC),
        lambda r: r.subscribe_queues(TOPIC),
    ):
        with pytest.raises(NullPointerError):
            call(_static_route(backend, no_ids))
    # an info whose scope is null is skipped, even with a null currIdMap
    skipped = {"a": backend.TopicQueueMappingInfo(TOPIC, 2, "a", 1, scope=None, curr_id_map=None)}
    assert _static_route(backend, skipped).endpoints_for_static_topic(TOPIC) == {}
    assert _static_route(backend, skipped).publish_queues(TOPIC) == ([], False)
    # a hosted logic queue whose info has a null bname: ConcurrentHashMap.put(mq, null) is a
    # NullPointerException in Java (a ConcurrentHashMap takes no null value)
    no_bname = {"a": _info(backend, None, 1, [0], total=1)}
    with pytest.raises(NullPointerError):
        _static_route(backend, no_bname).endpoints_for_static_topic(TOPIC)
    # ... but only for the ids 0 .. maxTotalNums - 1 that it hosts
    outside = {"a": _info(backend, None, 1, [5], total=1)}
    assert _endpoints(_static_route(backend, outside)) == [(GLOBAL, 0, "__syslo__none__")]
    with pytest.raises(NullPointerError):
        _static_route(backend, {"a": _info(backend, "a", ids=[0])}).endpoints_for_static_topic(None)


def test_max_total_nums_and_dropped_ids(backend):
    # maxTotalNums: the largest totalQueues among infos with epoch >= -1 (Java compares with a variable that
    # stays -1); ids outside 0 .. maxTotalNums - 1 are dropped
    mapping = {
        "a": _info(backend, "a", -1, [0, 7, -1], total=2),
        "b": _info(backend, "b", -2, [1], total=9),
    }
    assert _endpoints(_static_route(backend, mapping)) == [(GLOBAL, 0, "a"), (GLOBAL, 1, "b")]
    zero = {"a": _info(backend, "a", 5, [0], total=0)}
    assert _static_route(backend, zero).publish_queues(TOPIC) == ([], False)


def test_hash_map_order_decides_epoch_ties(backend):
    # Two infos with the same epoch host global id 0: the later one in the sorted list wins (the walk
    # replaces when oldInfo.epoch <= info.epoch). Equal epochs compare 0, so the sort keeps the order of the
    # HashMap<String, ...> the infos come from. That order is by bin: String.hashCode of a one-letter key is
    # its code point, spread(h) = h ^ (h >>> 16) = h, bin = h & 15 in the 16-bin table:
    #   "b" = 98 -> bin 2, "q" = 113 -> bin 1, "a" = 97 -> bin 1.
    # {"b", "q"}: q (bin 1) then b (bin 2), whatever the insertion order -> "b" wins (neither insertion
    # order nor alphabetical order would give b).
    for keys in (["b", "q"], ["q", "b"]):
        mapping = {k: _info(backend, k, 5, [0], total=1) for k in keys}
        assert _endpoints(_static_route(backend, mapping)) == [(GLOBAL, 0, "b")], keys
    # {"q", "a"}: the same bin 1, where keys stay in insertion order -> the one inserted last wins.
    for keys in (["q", "a"], ["a", "q"]):
        mapping = {k: _info(backend, k, 5, [0], total=1) for k in keys}
        assert _endpoints(_static_route(backend, mapping)) == [(GLOBAL, 0, keys[-1])], keys
    # a higher epoch wins whatever the order
    mapping = {"b": _info(backend, "b", 5, [0], total=1), "q": _info(backend, "q", 6, [0], total=1)}
    assert _endpoints(_static_route(backend, mapping)) == [(GLOBAL, 0, "q")]


def test_overflowing_comparator_reorders_small_lists(backend):
    # 5.3.3 sorts a scope's infos with (o1, o2) -> (int) (o2.epoch - o1.epoch). HashMap order of the keys
    # "a", "b", "c" is a (bin 1), b (bin 2), c (bin 3); epochs 5, 5 + 2^31, 5.
    # TimSort of 3 elements = countRunAndMakeAscending + binarySort:
    #   c(b, a) = (int)(5 - (5 + 2^31)) = (int)(-2^31) = -2^31 < 0 -> a descending run;
    #   c(c, b) = (int)((5 + 2^31) - 5) = (int)(2^31) = -2^31 < 0 -> the run goes on to the end;
    #   the run is reversed: [c, b, a].
    # The walk: c takes id 0, b (epoch 5 + 2^31) takes id 1, a (epoch 5 >= c's 5) takes id 0 back.
    # (A consistent descending sort, [b, a, c], would give id 0 to c.)
    mapping = {
        "a": _info(backend, "a", 5, [0], total=2),
        "b": _info(backend, "b", 5 + 2**31, [1], total=2),
        "c": _info(backend, "c", 5, [0], total=2),
    }
    assert _endpoints(_static_route(backend, mapping)) == [(GLOBAL, 0, "a"), (GLOBAL, 1, "b")]
    # the long subtraction wraps too: epochs 2^63 - 1 and -2^63 are one apart in 64 bits
    extremes = {
        "a": _info(backend, "a", 2**63 - 1, [0], total=1),
        "b": _info(backend, "b", -(2**63), [0], total=1),
    }
    # [a, b]: c(b, a) = (int)(2^63 - 1 - (-2^63)) = (int)(-1) < 0 -> reversed to [b, a]; a (the larger
    # epoch) comes last and keeps id 0 either way; -2^63 < -1 so b does not count for maxTotalNums
    assert _endpoints(_static_route(backend, extremes)) == [(GLOBAL, 0, "a")]


def test_32_or_more_infos_of_one_scope(backend):
    # consistent epochs (within 2^31 - 1 of each other): any stable sort is TimSort's order
    mapping = {f"broker-{i:02d}": _info(backend, f"broker-{i:02d}", i % 3, [i], total=40) for i in range(40)}
    ends = _endpoints(_static_route(backend, mapping))
    assert ends == [(GLOBAL, i, f"broker-{i:02d}") for i in range(40)]
    # epochs 2^31 or more apart make the comparator inconsistent: TimSort's merge order is not reproduced
    mapping["broker-00"] = _info(backend, "broker-00", 2**31 + 1, [0], total=40)
    with pytest.raises(IllegalArgumentError, match="32 or more"):
        _static_route(backend, mapping).endpoints_for_static_topic(TOPIC)
    # ... only within one scope
    del mapping["broker-00"]
    mapping["other"] = _info(backend, "other", 2**40, [0], total=1, scope="s")
    ends = _endpoints(_static_route(backend, mapping))
    assert len(ends) == 41 and ends[0] == (GLOBAL, 0, "__syslo__none__") and ends[-1] == ("__syslo__s", 0, "other")


def test_concurrent_hash_map_order_of_the_publish_queues(backend):
    # The static publish list is the endpoint map's key set (a ConcurrentHashMap<MessageQueue, String>)
    # sorted stably by queue id, so queues of two scopes with the same id keep the map's iteration order.
    # Scopes "x" then "y": HashMap bins 120 & 15 = 8 and 121 & 15 = 9. The keys, put in that order, with
    # MessageQueue.hashCode = 31 * (31 * (31 + hash(brokerName)) + queueId) + hash(topic), hash("T") = 84,
    # hash("__syslo__x") = 570586472, hash("__syslo__y") = 570586473, and the ConcurrentHashMap's
    # spread(h) = (h ^ (h >>> 16)) & 0x7fffffff, bin = spread & 15 (16 bins until the 12th key):
    #   x0: h = -1422184421, spread 0x2b3b9b20 -> bin 0
    #   x1: h = -1422184390, spread 0x2b3b9b01 -> bin 1
    #   y0: h = -1422183460, spread 0x2b3b98e7 -> bin 7
    #   y1: h = -1422183429, spread 0x2b3b98c0 -> bin 0 (after x0 in the bin)
    # Iteration: bin 0 [x0, y1], bin 1 [x1], bin 7 [y0] -> x0, y1, x1, y0; sorted by id: x0, y0, y1, x1.
    mapping = {
        "a": _info(backend, "a", 1, [0, 1], total=2, scope="x"),
        "b": _info(backend, "b", 1, [0, 1], total=2, scope="y"),
    }
    route = _static_route(backend, mapping)
    want = [("__syslo__x", 0), ("__syslo__y", 0), ("__syslo__y", 1), ("__syslo__x", 1)]
    assert _shown(route.publish_queues(TOPIC)[0]) == want
    assert _shown(backend.TopicPublishInfo.from_route(TOPIC, route).message_queues) == want
    # subscribe and endpoints are sorted by MessageQueue.compareTo
    assert _shown(route.subscribe_queues(TOPIC)) == sorted(want)
    # Six ids per scope: the 12th put (y5) reaches sizeCtl 12 and the table doubles to 32 bins. Every
    # spread above has bit 4 clear (bins 0, 1, 2, 3, 12, 13 and 7 at 16 bins), so each bin moves whole:
    #   bin 0 [x0, y1], 1 [x1, y2], 2 [x2, y3], 3 [x3, y4], 7 [y0], 12 [x4, y5], 13 [x5]
    # -> x0 y1 x1 y2 x2 y3 x3 y4 y0 x4 y5 x5; sorted by id: x0 y0, then y before x for ids 1 to 5.
    mapping = {
        "a": _info(backend, "a", 1, range(6), total=6, scope="x"),
        "b": _info(backend, "b", 1, range(6), total=6, scope="y"),
    }
    want = [("__syslo__x", 0), ("__syslo__y", 0)]
    for i in range(1, 6):
        want += [("__syslo__y", i), ("__syslo__x", i)]
    assert _shown(_static_route(backend, mapping).publish_queues(TOPIC)[0]) == want


def test_two_scopes_with_one_mock_broker_name(backend):
    # "__global__" and "global__" both give the mock broker name "__syslo__global__". The scopes' HashMap
    # order: hash("global__") spreads to bin 5, hash("__global__") to bin 15, so "global__" is put first and
    # "__global__"'s puts replace its values for the ids both have (ConcurrentHashMap.put on an existing key).
    mapping = {
        "a": _info(backend, "a", 1, [0, 1], total=2, scope="__global__"),
        "b": _info(backend, "b", 9, [0, 1, 2], total=3, scope="global__"),
    }
    route = _static_route(backend, mapping)
    assert _endpoints(route) == [(GLOBAL, 0, "a"), (GLOBAL, 1, "a"), (GLOBAL, 2, "b")]
    assert _shown(route.publish_queues(TOPIC)[0]) == [(GLOBAL, 0), (GLOBAL, 1), (GLOBAL, 2)]


def test_static_topic_queue_budget(backend):
    big = {"a": _info(backend, "a", 1, [], total=backend.MAX_QUEUES)}
    other = {"b": _info(backend, "b", 1, [], total=1, scope="s")}
    with pytest.raises(IllegalArgumentError):
        _static_route(backend, {**big, **other}).publish_queues(TOPIC)
    with pytest.raises(IllegalArgumentError):
        _static_route(backend, {**big, **other}).subscribe_queues(TOPIC)


# --- TopicPublishInfo.have_topic_router_info -----------------------------------------------------------------------


def test_have_topic_router_info(backend):
    info = backend.TopicPublishInfo([])
    assert info.have_topic_router_info is False
    info.have_topic_router_info = True
    assert info.have_topic_router_info is True
    info.have_topic_router_info = False
    assert info.have_topic_router_info is False
    for bad in (1, "yes", None):
        with pytest.raises(TypeError):
            info.have_topic_router_info = bad
    assert info.have_topic_router_info is False
    # MQClientInstance.topicRouteData2TopicPublishInfo does not set it; updateTopicRouteInfoFromNameServer does
    for compat in ("5.3", "4.9"):
        converted = backend.TopicPublishInfo.from_route(TOPIC, _plain_route(backend), compat=compat)
        assert converted.have_topic_router_info is False


# --- the reference backend's Java collection emulations, pinned to OpenJDK 17 ------------------------------------
# These check rocketroute.reference internals (the native backend has its own), against iteration orders printed
# by OpenJDK 17.0.15 for the same puts: a java.util.concurrent.ConcurrentHashMap<MessageQueue, String> and a
# java.util.HashMap<String, Integer>, each `new`, filled in the order given. The cases reach the rare paths:
# treeifyBin below 64 bins (tryPresize), tree bins (new nodes first, split on transfer), a replace that treeifies.


def _chm_order(ids):
    from rocketroute.reference import MessageQueue
    from rocketroute.reference.static_topic import ConcurrentHashMapOrder

    m = ConcurrentHashMapOrder()
    m.put_all((i, MessageQueue("T", "b", i).java_hash_code(), "v") for i in ids)
    return [token for token, _ in m.items()]


def test_reference_chm_presize_reverses_a_crowded_bin():
    # the 9 ids share bin 3 of 16; the 9th put walks 8 nodes -> treeifyBin -> tryPresize(32): 16 -> 128 bins;
    # the bin splits three times, and each split prepends the nodes before the last run
    ids = [3, 19, 35, 51, 67, 83, 99, 115, 131]
    assert _chm_order(ids) == [115, 99, 83, 67, 51, 35, 19, 3, 131]


def test_reference_chm_replace_of_the_eighth_node_treeifies():
    # 8 ids in bin 7 of 16 (no treeify yet), then the same 8 put again: replacing 127, the 8th node,
    # walks 8 nodes -> treeifyBin -> tryPresize although no key is added
    ids = [15, 31, 47, 63, 79, 95, 111, 127]
    assert _chm_order(ids + ids[::-1]) == [111, 95, 79, 63, 47, 31, 15, 127]


def test_reference_chm_tree_bin_prepends_and_splits():
    # 12 ids share bin 5 of 128 (a tree bin from the 10th on, once presized to 128), then ids 0..89 fill the
    # table up to a transfer to 256 bins that splits the tree bin
    ids = [49, 177, 334, 462, 590, 718, 846, 974, 1102, 1230, 1358, 1486, *range(90)]
    java = [20, 53, 1358, 177, 334, 590, 846, 1102, 78, 12, 45, 70, 4, 37, 62, 29, 54, 87, 21, 46, 79, 13, 38, 71, 5]
    java += [30, 63, 88, 22, 55, 80, 14, 47, 72, 6, 39, 64, 31, 56, 89, 23, 48, 81, 15, 40, 73, 7, 32, 65, 24, 57]
    java += [82, 16, 1486, 49, 462, 718, 974, 1230, 74, 8, 41, 66, 0, 33, 58, 25, 50, 83, 17, 42, 75, 9, 34, 67, 1]
    java += [26, 59, 84, 18, 51, 76, 10, 43, 68, 2, 35, 60, 27, 52, 85, 19, 44, 77, 11, 36, 69, 3, 28, 61, 86]
    assert _chm_order(ids) == java


def test_reference_hash_map_order():
    from rocketroute.reference.static_topic import hash_map_order

    # 10 keys in bin 4 of 16 (not of 32): the 9th put resizes (treeifyBin below 64 bins) and splits them
    keys = ["ae", "au", "bf", "bv", "cg", "cw", "dh", "dx", "ei", "ey"]
    assert hash_map_order(keys) == ["ae", "bf", "cg", "dh", "ei", "au", "bv", "cw", "dx", "ey"]
    # 11 keys in one bin of 64: a red-black tree bin, which Java iterates root first
    # ([dh, aE, bf, cG, eI, ...]): not reproduced, refused
    crowded = ["aE", "bf", "cG", "dh", "eI", "fj", "gK", "hl", "iM", "jn"]
    assert hash_map_order(crowded) == crowded
    with pytest.raises(IllegalArgumentError, match="tree-bin"):
        hash_map_order([*crowded, "kO"])


def test_a_tree_bin_of_mapping_keys_is_refused_by_both_backends(backend):
    # "aE", "bf", ... share one bin of java.util.HashMap up to 64 bins: the 9th and 10th resize the table
    # (treeifyBin below 64 bins); the 11th makes a red-black tree bin, whose order is not reproduced
    crowded = ["aE", "bf", "cG", "dh", "eI", "fj", "gK", "hl", "iM", "jn"]
    ten = {k: _info(backend, k, 1, [i], total=11) for i, k in enumerate(crowded)}
    assert len(_endpoints(_static_route(backend, ten))) == 11
    eleven = {**ten, "kO": _info(backend, "kO", 1, [10], total=11)}
    with pytest.raises(IllegalArgumentError, match="tree-bin"):
        _static_route(backend, eleven).endpoints_for_static_topic(TOPIC)
