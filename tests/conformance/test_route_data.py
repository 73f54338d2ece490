"""Golden vectors of ``route_data.jsonl``: the route model's Java value semantics.

What each kind reproduces (apache/rocketmq 4.9.8 / 5.3.3):

* ``equals``: ``TopicRouteData.equals`` both ways and ``TopicRouteData.hashCode`` (5.3.3 mixes in
  ``topicQueueMappingByBroker``; 4.9.8 has no such field), as ``==`` and ``java_hash_code(compat)``.
* ``route_changed``: 5.3.3 ``TopicRouteData.topicRouteDataChanged(old)`` (copies of both routes, their
  ``queueDatas`` / ``brokerDatas`` sorted with ``Collections.sort``, then ``equals``), as
  ``now.topic_route_data_changed(old)``.
* ``clone``: ``cloneTopicRouteData()`` (4.9.8 and 5.3.3, ``clone_topic_route_data(compat)``), 5.3.3
  ``deepCloneTopicRouteData()`` (``deep_clone_topic_route_data()``) and the 5.3.3 copy constructor
  ``new TopicRouteData(r)`` (``copy()``).
* ``queue_data_equals`` / ``broker_data_equals``: ``QueueData`` / ``BrokerData`` ``equals``, ``hashCode``
  (``java_hash_code()``) and ``compareTo`` (``compare_to``). ``BrokerData.equals`` / ``hashCode`` look at
  ``brokerName`` and ``brokerAddrs`` only (``bd-cluster``): cluster, zoneName and enableActingMaster are ignored.
* ``have_topic_router_info``: ``TopicPublishInfo.isHaveTopicRouterInfo`` / ``setHaveTopicRouterInfo`` and
  ``MQClientInstance.topicRouteData2TopicPublishInfo``, which leaves it ``false``.

Every route of a case is built twice: with the public constructors (``QueueData``, ``BrokerData`` with
``zone_name`` / ``enable_acting_master``, ``TopicQueueMappingInfo``, ``TopicRouteData`` with
``filter_server_table`` / ``topic_queue_mapping_by_broker``), keeping null, empty and absent apart as the
vectors' README says, and with ``TopicRouteData.from_json`` of the same route as the name server's camelCase
JSON (decoded, as text, and as fastjson's text with bare integer map keys); both must be equal, field for field.

**By-design difference: the ``deep`` probes of ``clone``.** Java's ``cloneTopicRouteData`` and copy
constructor copy only the containers, so mutating an element of the clone (``setPerm``, ``setCluster``,
``brokerAddrs.put``, a filter-server list, ``setEpoch``) changes the original too: the vectors record those
probes as ``false``. rocketroute's routes are immutable values: every dict or list a route or its parts hand
out is a fresh copy, and their attributes cannot be set. So for every probe Java ran (non-null), the test
mutates what our clone hands out and asserts that neither the original nor the clone changed, i.e. our answer
is always "independent"; Java's ``false`` entries are read and accepted as this documented difference. A
``null`` probe (Java had no element or container to mutate) must find nothing to mutate in our clone either.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from ._support import expect_java_exception, parametrize_vectors, run_case

VECTOR_FILE = "route_data"

ROUTE_FIELDS = ("order_topic_conf", "queue_datas", "broker_datas", "filter_server_table")
"""The fields ``clone_fields_null`` is made of. The generator probes these four (the fields both versions
have); 5.3.3's mapping is not listed even where the clone's is null (``clone-clone-base@5.3.3``), so it is
checked apart: every copy keeps a null mapping null and a non-null one non-null."""

DEEP_PROBES = {
    "4.9": (
        "queue_datas_list",
        "queue_datas_elements",
        "broker_datas_list",
        "broker_datas_elements",
        "broker_addrs",
        "filter_server_table_map",
        "filter_server_table_lists",
    ),
}
DEEP_PROBES["5.3"] = (*DEEP_PROBES["4.9"], "topic_queue_mapping_map", "topic_queue_mapping_infos")
"""The probes of ``deep`` per version, as the README lists them."""


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


# --- building routes from the vectors' snake_case dicts ---------------------------------------------


def queue_data(rr: Any, d: Mapping[str, Any]) -> Any:
    return rr.QueueData(d["broker_name"], d["read_queue_nums"], d["write_queue_nums"], d["perm"], d["topic_sys_flag"])


def _addrs(addrs: Mapping[str, Any] | None) -> dict[int, Any] | None:
    """``broker_addrs`` with its keys (decimal strings of Java longs) as ints."""
    return None if addrs is None else {int(k): v for k, v in addrs.items()}


def broker_data(rr: Any, d: Mapping[str, Any]) -> Any:
    return rr.BrokerData(
        d["cluster"],
        d["broker_name"],
        _addrs(d["broker_addrs"]),
        zone_name=d.get("zone_name"),
        enable_acting_master=d.get("enable_acting_master", False),
    )


def mapping_info(rr: Any, d: Mapping[str, Any]) -> Any:
    ids = d["curr_id_map"]
    return rr.TopicQueueMappingInfo(
        d["topic"],
        d["total_queues"],
        d["bname"],
        d["epoch"],
        scope=d["scope"],
        dirty=d["dirty"],
        curr_id_map=None if ids is None else {int(k): v for k, v in ids.items()},
    )


def build_route(rr: Any, d: Mapping[str, Any]) -> Any:
    """A route from a vector's snake_case dict with the public constructors: an absent ``filter_server_table``
    is left to the constructor's default (empty), an absent mapping to its default (``None``); a ``null``
    container is passed as ``None`` (Java null)."""
    kwargs: dict[str, Any] = {}
    if "filter_server_table" in d:
        kwargs["filter_server_table"] = d["filter_server_table"]
    if "topic_queue_mapping_by_broker" in d:
        mapping = d["topic_queue_mapping_by_broker"]
        kwargs["topic_queue_mapping_by_broker"] = (
            None if mapping is None else {k: mapping_info(rr, v) for k, v in mapping.items()}
        )
    qds, bds = d["queue_datas"], d["broker_datas"]
    return rr.TopicRouteData(
        None if qds is None else [queue_data(rr, q) for q in qds],
        None if bds is None else [broker_data(rr, b) for b in bds],
        d["order_topic_conf"],
        **kwargs,
    )


def route_json(d: Mapping[str, Any]) -> dict[str, Any]:
    """The same route as the name server's camelCase JSON (fastjson's bean names). ``brokerAddrs`` and
    ``currIdMap`` keep int keys here (Java Long / Integer keys); ``json.dumps`` quotes them."""

    def qd(q: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "brokerName": q["broker_name"],
            "readQueueNums": q["read_queue_nums"],
            "writeQueueNums": q["write_queue_nums"],
            "perm": q["perm"],
            "topicSysFlag": q["topic_sys_flag"],
        }

    def bd(b: Mapping[str, Any]) -> dict[str, Any]:
        out = {"cluster": b["cluster"], "brokerName": b["broker_name"], "brokerAddrs": _addrs(b["broker_addrs"])}
        if "zone_name" in b:
            out["zoneName"] = b["zone_name"]
        if "enable_acting_master" in b:
            out["enableActingMaster"] = b["enable_acting_master"]
        return out

    def info(i: Mapping[str, Any]) -> dict[str, Any]:
        ids = i["curr_id_map"]
        return {
            "topic": i["topic"],
            "scope": i["scope"],
            "totalQueues": i["total_queues"],
            "bname": i["bname"],
            "epoch": i["epoch"],
            "dirty": i["dirty"],
            "currIdMap": None if ids is None else {int(k): v for k, v in ids.items()},
        }

    qds, bds = d["queue_datas"], d["broker_datas"]
    out: dict[str, Any] = {
        "orderTopicConf": d["order_topic_conf"],
        "queueDatas": None if qds is None else [qd(q) for q in qds],
        "brokerDatas": None if bds is None else [bd(b) for b in bds],
    }
    if "filter_server_table" in d:
        out["filterServerTable"] = d["filter_server_table"]
    if "topic_queue_mapping_by_broker" in d:
        mapping = d["topic_queue_mapping_by_broker"]
        out["topicQueueMappingByBroker"] = None if mapping is None else {k: info(v) for k, v in mapping.items()}
    return out


def fastjson_text(value: Any) -> str:
    """JSON text as fastjson writes maps with Long / Integer keys: the keys bare (``{0:"10.0.0.1:10911"}``)."""
    if isinstance(value, dict):
        items = (f"{k if isinstance(k, int) else json.dumps(k)}:{fastjson_text(v)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(fastjson_text(v) for v in value) + "]"
    return json.dumps(value)


def route_state(route: Any) -> dict[str, Any]:
    """Everything a route holds, read through its properties, in the vectors' snake_case form (new
    containers all the way down, so a later mutation of what the route handed out cannot show here)."""

    def qd(q: Any) -> dict[str, Any]:
        return {
            "broker_name": q.broker_name,
            "read_queue_nums": q.read_queue_nums,
            "write_queue_nums": q.write_queue_nums,
            "perm": q.perm,
            "topic_sys_flag": q.topic_sys_flag,
        }

    def bd(b: Any) -> dict[str, Any]:
        addrs = b.broker_addrs
        return {
            "cluster": b.cluster,
            "broker_name": b.broker_name,
            "broker_addrs": None if addrs is None else {str(k): v for k, v in addrs.items()},
            "zone_name": b.zone_name,
            "enable_acting_master": b.enable_acting_master,
        }

    def info(i: Any) -> dict[str, Any]:
        ids = i.curr_id_map
        return {
            "topic": i.topic,
            "scope": i.scope,
            "total_queues": i.total_queues,
            "bname": i.bname,
            "epoch": i.epoch,
            "dirty": i.dirty,
            "curr_id_map": None if ids is None else {str(k): v for k, v in ids.items()},
        }

    qds, bds = route.queue_datas, route.broker_datas
    table = route.filter_server_table
    mapping = route.topic_queue_mapping_by_broker
    return {
        "order_topic_conf": route.order_topic_conf,
        "queue_datas": None if qds is None else [qd(q) for q in qds],
        "broker_datas": None if bds is None else [bd(b) for b in bds],
        "filter_server_table": None if table is None else {k: None if v is None else list(v) for k, v in table.items()},
        "topic_queue_mapping_by_broker": None if mapping is None else {k: info(v) for k, v in mapping.items()},
    }


def expected_state(d: Mapping[str, Any]) -> dict[str, Any]:
    """A vector's route dict with the defaults of what it leaves out filled in, as :func:`route_state`."""
    bds = d["broker_datas"]
    return {
        "order_topic_conf": d["order_topic_conf"],
        "queue_datas": d["queue_datas"],
        "broker_datas": None
        if bds is None
        else [{"zone_name": None, "enable_acting_master": False, **copy.deepcopy(b)} for b in bds],
        "filter_server_table": d.get("filter_server_table", {}),
        "topic_queue_mapping_by_broker": d.get("topic_queue_mapping_by_broker"),
    }


def route(rr: Any, d: Any, where: str) -> Any:
    """The route of a vector dict, built with the constructors; checked to hold exactly what the vector
    says, and to equal (field for field) what ``TopicRouteData.from_json`` builds from the same route's JSON."""
    if not isinstance(d, dict):
        pytest.fail(f"{where}: a route must be a JSON object, got {d!r}")
    built = build_route(rr, d)
    want = expected_state(d)
    assert route_state(built) == want, f"{where}: the constructors did not keep the route"
    mapping = built.topic_queue_mapping_by_broker
    if mapping is not None:  # insertion order kept (Java's HashMap order is computed from it)
        assert list(mapping) == list(want["topic_queue_mapping_by_broker"]), f"{where}: mapping order"
    camel = route_json(d)
    decoded = json.loads(json.dumps(camel))
    for label, source in (("dict", decoded), ("text", json.dumps(camel)), ("fastjson text", fastjson_text(camel))):
        parsed = rr.TopicRouteData.from_json(source)
        assert parsed == built and built == parsed, f"{where}: from_json ({label}) built another route"
        assert route_state(parsed) == want, f"{where}: from_json ({label}) did not keep the route"
        assert parsed.to_dict() == built.to_dict(), f"{where}: from_json ({label}) to_dict differs"
    return built


# --- checks -----------------------------------------------------------------------------------------------


def check_equals(rr, f, compat):
    a = route(rr, f["a"], f"{f.where}.a")
    b = route(rr, f["b"], f"{f.where}.b")
    assert (a == b) is f["equals"]
    assert (a != b) is (not f["equals"])
    assert (b == a) is f["equals_reverse"]
    hash_a, hash_b = a.java_hash_code(compat), b.java_hash_code(compat)
    assert hash_a == f["hash_a"]
    assert hash_b == f["hash_b"]
    assert (hash_a == hash_b) is f["hash_equal"]


def check_route_changed(rr, f, compat):
    old = route(rr, f["old"], f"{f.where}.old")
    now = route(rr, f["now"], f"{f.where}.now")
    if "exception" in f:
        expect_java_exception(lambda: now.topic_route_data_changed(old), f["exception"], f.where)
    else:
        assert now.topic_route_data_changed(old) is f["changed"]
    assert (now == old) is f["now_equals_old"]
    assert now.topic_route_data_changed(None) is True  # `if (oldData == null) return true;`


def _make_clone(method: str, compat: str) -> Callable[[Any], Any]:
    if method == "clone":
        return lambda r: r.clone_topic_route_data(compat)
    if method == "deep_clone":
        return lambda r: r.deep_clone_topic_route_data()
    if method == "copy_constructor":
        return lambda r: r.copy()
    pytest.fail(f"unknown clone method {method!r}")


def _add(seq: Any, item: Any) -> None:
    """``list.add`` on a sequence a route handed out: a list (our copy) gets the item; a tuple cannot change."""
    if isinstance(seq, list):
        seq.append(item)
    else:
        assert isinstance(seq, tuple), f"expected a list or tuple, got {type(seq).__name__}"


def _set(obj: Any, name: str, value: Any) -> None:
    """A Java setter on an element: our values are read-only, so refusing the assignment is the answer."""
    try:
        setattr(obj, name, value)
    except (AttributeError, TypeError):
        pass


def _mutate(rr: Any, probe: str, clone: Any) -> bool:
    """Java's probe ``probe`` done to what ``clone`` hands out; False when there is nothing it applies to."""
    if probe in ("queue_datas_list", "queue_datas_elements"):
        qds = clone.queue_datas
        if qds is None or (probe == "queue_datas_elements" and not qds):
            return False
        if probe == "queue_datas_list":
            _add(qds, rr.QueueData("probe-broker", 1, 1))
        else:
            _set(qds[0], "perm", qds[0].perm ^ rr.PermName.PERM_WRITE)
        return True
    if probe in ("broker_datas_list", "broker_datas_elements", "broker_addrs"):
        bds = clone.broker_datas
        if bds is None or (probe != "broker_datas_list" and not bds):
            return False
        if probe == "broker_datas_list":
            _add(bds, rr.BrokerData("probe-cluster", "probe-broker", {0: "10.9.9.9:10911"}))
        elif probe == "broker_datas_elements":
            _set(bds[0], "cluster", "probe-cluster")
        else:
            addrs = bds[0].broker_addrs
            if addrs is None:
                return False
            addrs[99] = "10.9.9.9:10911"
        return True
    if probe in ("filter_server_table_map", "filter_server_table_lists"):
        table = clone.filter_server_table
        if table is None:
            return False
        if probe == "filter_server_table_map":
            table["10.9.9.9:10911"] = ["10.9.9.9:40001"]
            return True
        lists = [v for v in table.values() if v is not None]
        for v in lists:
            v.append("10.9.9.9:40001")
        return bool(lists)
    if probe in ("topic_queue_mapping_map", "topic_queue_mapping_infos"):
        mapping = clone.topic_queue_mapping_by_broker
        if mapping is None or (probe == "topic_queue_mapping_infos" and not mapping):
            return False
        if probe == "topic_queue_mapping_map":
            mapping["probe-broker"] = rr.TopicQueueMappingInfo("probe-topic", 1, "probe-broker", 0)
        else:
            info = next(iter(mapping.values()))
            _set(info, "epoch", info.epoch + 1)
            ids = info.curr_id_map
            if ids is not None:
                ids[999] = 999
        return True
    pytest.fail(f"unknown deep probe {probe!r}")


def check_clone(rr, f, compat):
    method = f["method"]
    route_dict = f["route"]
    make = _make_clone(method, compat)
    original = route(rr, route_dict, f"{f.where}.route")
    if "exception" in f:
        expect_java_exception(lambda: make(original), f["exception"], f.where)
        return
    clone = make(original)
    assert (clone == original) is f["equals_original"]
    assert (original == clone) is f["equals_original"]
    assert (clone.java_hash_code(compat) == original.java_hash_code(compat)) is f["hash_equal"]
    fields_null = [name for name in ROUTE_FIELDS if getattr(clone, name) is None]
    assert sorted(fields_null) == sorted(f["clone_fields_null"])
    assert (clone.topic_queue_mapping_by_broker is None) == (original.topic_queue_mapping_by_broker is None)

    deep = f["deep"]
    assert isinstance(deep, dict) and set(deep) == set(DEEP_PROBES[compat]), f"{f.where}: deep probes {deep!r}"
    for probe, java in deep.items():
        assert java in (True, False, None), f"{f.where}: deep.{probe} = {java!r}"
        fresh = build_route(rr, route_dict)  # every probe on a fresh original and clone, as Java's
        fresh_clone = make(fresh)
        before, clone_before = route_state(fresh), route_state(fresh_clone)
        # null: the probe does not apply (an empty or null container), so ours finds nothing to mutate either.
        # Java's false (a container shared with the original) is the by-design difference of immutable values.
        applies = _mutate(rr, probe, fresh_clone)
        assert applies is (java is not None), f"{f.where}: Java's probe {probe} is {java}, ours applies: {applies}"
        assert route_state(fresh) == before, f"{f.where}: probe {probe} changed the original"
        assert route_state(fresh_clone) == clone_before, f"{f.where}: probe {probe} changed the clone"


def _check_pair(f, a: Any, b: Any) -> None:
    """``equals`` both ways, ``hashCode`` and ``compareTo`` of two queue datas or broker datas."""
    assert (a == b) is f["equals"]
    assert (b == a) is f["equals"]
    hash_a, hash_b = a.java_hash_code(), b.java_hash_code()
    assert hash_a == f["hash_a"]
    assert hash_b == f["hash_b"]
    assert (hash_a == hash_b) is f["hash_equal"]
    if "compare_to_exception" in f:
        spec = f["compare_to_exception"]
        expect_java_exception(lambda: a.compare_to(b), spec, f.where)
        expect_java_exception(lambda: b.compare_to(a), spec, f"{f.where} (reversed)")
    else:
        assert a.compare_to(b) == f["compare_to"]
        assert b.compare_to(a) == -f["compare_to"]  # String.compareTo is exactly antisymmetric


def check_queue_data_equals(rr, f, compat):
    _check_pair(f, queue_data(rr, f["a"]), queue_data(rr, f["b"]))


def check_broker_data_equals(rr, f, compat):
    a, b = broker_data(rr, f["a"]), broker_data(rr, f["b"])
    for bd, d in ((a, f["a"]), (b, f["b"])):
        assert bd.cluster == d["cluster"]
        assert bd.zone_name == d.get("zone_name")
        assert bd.enable_acting_master is d.get("enable_acting_master", False)
    _check_pair(f, a, b)


def check_have_topic_router_info(rr, f, compat):
    info = rr.TopicPublishInfo(())  # new TopicPublishInfo()
    assert info.have_topic_router_info is f["default"]
    info.have_topic_router_info = True
    assert info.have_topic_router_info is f["after_set_true"]
    info.have_topic_router_info = False
    assert info.have_topic_router_info is f["after_set_false"]
    converted = rr.TopicPublishInfo.from_route("TopicTest", route(rr, f["route"], f.where), compat=compat)
    assert converted.have_topic_router_info is f["after_topic_route_data_2_topic_publish_info"]


CHECKS = {
    "equals": check_equals,
    "route_changed": check_route_changed,
    "clone": check_clone,
    "queue_data_equals": check_queue_data_equals,
    "broker_data_equals": check_broker_data_equals,
    "have_topic_router_info": check_have_topic_router_info,
}


def test_route_data_vector(case, backend):
    run_case(case, backend, CHECKS)
