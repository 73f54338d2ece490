"""Golden vectors of ``static_topic.jsonl``: static topics (RIP-21 logic queues) through the client's route
converters.

What each kind reproduces (apache/rocketmq 4.9.8 / 5.3.3):

* ``static_route``: ``MQClientInstance.topicRouteData2TopicPublishInfo`` (``TopicPublishInfo.from_route(topic,
  route, compat)``: the queues in Java's exact order, ``orderTopic``, ``ok()``), whether two of those queues
  share a queueId, ``MQClientInstance.topicRouteData2TopicSubscribeInfo`` (``route.subscribe_queues(topic,
  compat)``, sorted by ``MessageQueue.compareTo``) and, on 5.3.3, ``ClientMetadata
  .topicRouteData2EndpointsForStaticTopic`` (``route.endpoints_for_static_topic(topic)``). 4.9.8 has no
  mapping and no such method: its ``endpoints`` is ``null``, and its converters must ignore the mapping.
* ``constants``: ``MixAll.LOGICAL_QUEUE_MOCK_BROKER_PREFIX``, ``MixAll.LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST``,
  ``MixAll.METADATA_SCOPE_GLOBAL`` and the scope of a new ``TopicQueueMappingInfo``.
* ``mock_broker_name``: ``TopicQueueMappingUtils.getMockBrokerName(scope)``.

Routes are built as in ``test_route_data`` (the constructors, and ``TopicRouteData.from_json`` of the same
route's JSON, which must build an equal route).
"""

from __future__ import annotations

from typing import Any

from ._support import expect_java_exception, parametrize_vectors, run_case, show
from .test_route_data import build_route, route

VECTOR_FILE = "static_topic"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def _shown(queues: Any) -> list[Any]:
    return [show(q) for q in queues]


def _publish(rr: Any, topic: str, r: Any, compat: str) -> Any:
    return rr.TopicPublishInfo.from_route(topic, r, compat=compat)


def check_static_route(rr, f, compat):
    topic = f["topic"]
    route_dict = f["route"]
    r = route(rr, route_dict, f"{f.where}.route")

    if "publish_exception" in f:
        expect_java_exception(lambda: _publish(rr, topic, r, compat), f["publish_exception"], f"{f.where} publish")
        expect_java_exception(
            lambda: r.publish_queues(topic, compat=compat), f["publish_exception"], f"{f.where} publish_queues"
        )
        # no queue list, so no ties
        assert f.get("publish_queue_id_ties") in (None, False)
    else:
        publish = f["publish"]
        assert set(publish) == {"order_topic", "message_queue_list", "ok"}, f"{f.where}: unknown publish fields"
        tp = _publish(rr, topic, r, compat)
        got = _shown(tp.message_queues)
        assert got == publish["message_queue_list"]  # Java's exact order
        assert tp.order_topic is publish["order_topic"]
        assert tp.ok() is publish["ok"]
        assert tp.compat == compat
        assert tp.have_topic_router_info is False  # the converter does not set it
        assert tp.route is not None
        assert tp.route.topic_queue_mapping_by_broker == r.topic_queue_mapping_by_broker
        queues, order_topic = r.publish_queues(topic, compat=compat)
        assert _shown(queues) == got
        assert order_topic is publish["order_topic"]
        ids = [q.queue_id for q in tp.message_queues]
        assert (len(set(ids)) < len(ids)) is f["publish_queue_id_ties"]

    if "subscribe_exception" in f:
        expect_java_exception(
            lambda: r.subscribe_queues(topic, compat=compat), f["subscribe_exception"], f"{f.where} subscribe"
        )
    else:
        assert _shown(r.subscribe_queues(topic, compat=compat)) == f["subscribe"]

    endpoints = f["endpoints"]
    if compat == "4.9":
        # 4.9.8 has neither the mapping nor ClientMetadata: its converters must not look at the mapping
        assert endpoints is None
        bare = build_route(rr, {k: v for k, v in route_dict.items() if k != "topic_queue_mapping_by_broker"})
        assert bare.topic_queue_mapping_by_broker is None
        if "publish_exception" not in f:
            plain = _publish(rr, topic, bare, compat)
            assert _shown(plain.message_queues) == _shown(_publish(rr, topic, r, compat).message_queues)
            assert plain.order_topic is _publish(rr, topic, r, compat).order_topic
        if "subscribe_exception" not in f:
            assert _shown(bare.subscribe_queues(topic, compat=compat)) == _shown(
                r.subscribe_queues(topic, compat=compat)
            )
    else:
        got = r.endpoints_for_static_topic(topic)
        assert [[show(q), broker] for q, broker in got.items()] == endpoints  # ordered by MessageQueue


def check_constants(rr, f, compat):
    assert rr.LOGICAL_QUEUE_MOCK_BROKER_PREFIX == f["LOGICAL_QUEUE_MOCK_BROKER_PREFIX"]
    assert rr.LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST == f["LOGICAL_QUEUE_MOCK_BROKER_NAME_NOT_EXIST"]
    assert rr.METADATA_SCOPE_GLOBAL == f["METADATA_SCOPE_GLOBAL"]
    default_scope = f["default_scope_of_new_TopicQueueMappingInfo"]
    assert rr.TopicQueueMappingInfo("t", 1, "broker-a", 0).scope == default_scope
    # a mapping info whose JSON leaves out "scope" gets the field initialiser's scope too
    info = {"topic": "t", "totalQueues": 1, "bname": "broker-a", "epoch": 0, "dirty": False, "currIdMap": {}}
    parsed = rr.TopicRouteData.from_json({"topicQueueMappingByBroker": {"broker-a": info}})
    assert parsed.topic_queue_mapping_by_broker["broker-a"].scope == default_scope


def check_mock_broker_name(rr, f, compat):
    scope = f["scope"]
    if "exception" in f:
        expect_java_exception(lambda: rr.mock_broker_name(scope), f["exception"], f.where)
    else:
        assert rr.mock_broker_name(scope) == f["expect"]


CHECKS = {
    "static_route": check_static_route,
    "constants": check_constants,
    "mock_broker_name": check_mock_broker_name,
}


def test_static_topic_vector(case, backend):
    run_case(case, backend, CHECKS)
