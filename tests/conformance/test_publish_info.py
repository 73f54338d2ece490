"""Golden vectors of ``publish_info.jsonl``: route -> publish / subscribe queues, write queue counts, PermName."""

from __future__ import annotations

from ._support import expect_java_exception, mq_list, parametrize_vectors, run_case, show

VECTOR_FILE = "publish_info"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def _broker_names(queue_datas):
    return [qd.broker_name for qd in queue_datas]


def check_route_conversion(rr, f, compat):
    topic = f["topic"]
    route_json = f["route"]
    route = rr.TopicRouteData.from_json(route_json)
    assert _broker_names(route.queue_datas) == [qd["broker_name"] for qd in route_json["queue_datas"]]

    # the non-order branch (orderTopicConf null or "") sorts route.queueDatas in place, even when it throws later
    conf = route_json["order_topic_conf"]
    order_after = f["queue_datas_order_after_publish"]
    if conf is None or conf == "":
        assert _broker_names(route.sorted_queue_datas()) == order_after
    else:
        assert _broker_names(route.queue_datas) == order_after

    if "publish_exception" in f:
        expect_java_exception(
            lambda: rr.TopicPublishInfo.from_route(topic, route, compat=compat),
            f["publish_exception"],
            f"{f.where} publish",
        )
    else:
        publish = f["publish"]
        tp = rr.TopicPublishInfo.from_route(topic, route, compat=compat)
        want = mq_list(rr, publish["message_queue_list"])
        assert [show(q) for q in tp.message_queues] == [show(q) for q in want]
        assert list(tp.message_queues) == want
        assert tp.order_topic is publish["order_topic"]
        assert tp.ok() is publish["ok"]
        assert set(publish) == {"order_topic", "message_queue_list", "ok"}, f"{f.where}: unknown publish fields"
        assert tp.route is not None
        assert _broker_names(tp.route.queue_datas) == order_after
        assert tp.compat == compat

    if "subscribe_exception" in f:
        expect_java_exception(lambda: route.subscribe_queues(topic), f["subscribe_exception"], f"{f.where} subscribe")
    else:
        want = mq_list(rr, f["subscribe"])
        got = list(route.subscribe_queues(topic))
        assert [show(q) for q in got] == [show(q) for q in want]
        assert got == want


def check_write_queue_nums_by_broker(rr, f, compat):
    route = rr.TopicRouteData.from_json(f["route"])
    tp = rr.TopicPublishInfo.from_route(f["topic"], route, compat=compat)
    for broker, want in f["results"]:
        assert tp.write_queue_nums_by_broker(broker) == want, f"{f.where}: broker {broker!r}"


def check_perm_constants(rr, f, compat):
    for name in ("PERM_PRIORITY", "PERM_READ", "PERM_WRITE", "PERM_INHERIT"):
        assert getattr(rr.PermName, name) == f[name], name


def check_perm(rr, f, compat):
    perm = f["perm"]
    p = rr.PermName
    assert p.perm_to_string(perm) == f["perm2string"]
    assert p.is_readable(perm) is f["is_readable"]
    assert p.is_writeable(perm) is f["is_writeable"]
    assert p.is_inherited(perm) is f["is_inherited"]


def check_perm_5x(rr, f, compat):
    perm = f["perm"]
    p = rr.PermName
    assert p.is_valid(perm) is f["is_valid"]
    assert p.is_priority(perm) is f["is_priority"]
    assert p.is_accessible(perm) is f["is_accessible"]


CHECKS = {
    "route_conversion": check_route_conversion,
    "write_queue_nums_by_broker": check_write_queue_nums_by_broker,
    "perm_constants": check_perm_constants,
    "perm": check_perm,
    "perm_5x": check_perm_5x,
}


def test_publish_info_vector(case, backend):
    run_case(case, backend, CHECKS)
