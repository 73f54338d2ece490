"""Golden vectors of ``grpc_balancer.jsonl`` (label ``clients-java-5.2.1``): the 5.x gRPC Java client's
``PublishingLoadBalancer`` and ``SubscriptionLoadBalancer``, run from the real classes of
apache/rocketmq-clients java-5.2.1."""

from __future__ import annotations

import gzip
import json

from rocketroute.integrations.grpc import balancers

from ._support import CLIENT_LABELS, expect_java_exception, load_cases, parametrize_vectors, run_case

VECTOR_FILE = "grpc_balancer"


def pytest_generate_tests(metafunc):
    parametrize_vectors(metafunc, VECTOR_FILE)


def _endpoints(rr, e):
    return balancers(rr).Endpoints(e["scheme"], [tuple(a) for a in e["addresses"]])


def _queue(rr, q):
    broker = q["broker"]
    return balancers(rr).GrpcMessageQueue(
        q["topic"],
        broker["name"],
        broker["id"],
        _endpoints(rr, broker["endpoints"]),
        q["queue_id"],
        q["permission"],
        q["accept_message_types"],
    )


def _route(rr, encoded):
    return [_queue(rr, q) for q in encoded]


def _show(q):
    """A picked queue as the vectors write it: ``[topic, brokerName, queueId]``."""
    return [q.topic, q.broker_name, q.queue_id]


def _shows(queues):
    return [_show(q) for q in queues]


def _picked_from(balancer, got, where):
    """A pick is one of the balancer's own queue objects, and its MessageQueue view agrees."""
    for q in got:
        assert any(q is own for own in balancer.message_queues), f"{where}: {q!r} is not one of the balancer's queues"
        mq = q.to_message_queue()
        assert [mq.topic, mq.broker_name, mq.queue_id] == _show(q), where


def check_constructor(cls_name):
    def check(rr, f, compat):
        route = _route(rr, f["route"])
        cls = getattr(balancers(rr), cls_name)
        expect_java_exception(lambda: cls(route, start_index=0), f["exception"], f"{f.where} start_index=0")
        expect_java_exception(lambda: cls(route), f["exception"], f"{f.where} random start")

    return check


def check_publishing_take_message_queues(rr, f, compat):
    lb = balancers(rr).PublishingLoadBalancer(_route(rr, f["route"]), start_index=f["start_index"])
    assert lb.index == f["start_index"]
    for i, call in enumerate(f.each("calls")):
        where = f"{f.where} call {i}"
        excluded = [_endpoints(rr, e) for e in call["excluded"]]
        count = call["count"]
        if "exception" in call:
            expect_java_exception(lambda ex=excluded, c=count: lb.take_message_queues(ex, c), call["exception"], where)
        else:
            got = lb.take_message_queues(excluded, count)
            assert isinstance(got, list), where
            assert _shows(got) == call["expect"], where
            _picked_from(lb, got, where)
        assert lb.index == call["index_after"], where


def check_publishing_by_message_group(rr, f, compat):
    lb = balancers(rr).PublishingLoadBalancer(_route(rr, f["route"]), start_index=12345)
    for i, g in enumerate(f.each("groups")):
        where = f"{f.where} group {i} {g['group']!r}"
        before = lb.index
        if "exception" in g:
            expect_java_exception(lambda g=g: lb.take_message_queue_by_message_group(g["group"]), g["exception"], where)
        else:
            got = lb.take_message_queue_by_message_group(g["group"])
            assert _show(got) == g["expect"], where
            _picked_from(lb, [got], where)
        assert (lb.index == before) is g["index_unchanged"], where


def check_subscription_take_message_queue(rr, f, compat):
    lb = balancers(rr).SubscriptionLoadBalancer(_route(rr, f["route"]), start_index=f["start_index"])
    assert lb.index == f["start_index"]
    got = [lb.take_message_queue() for _ in f["sequence"]]
    assert _shows(got) == f["sequence"], f.where
    _picked_from(lb, got, f.where)
    assert lb.index == f["index_after"], f.where


def check_update(publishing):
    def take(lb):
        return lb.take_message_queues((), 1) if publishing else lb.take_message_queue()

    def show(got):
        return _shows(got) if publishing else _show(got)

    def check(rr, f, compat):
        cls = balancers(rr).PublishingLoadBalancer if publishing else balancers(rr).SubscriptionLoadBalancer
        old = cls(_route(rr, f["route"]), start_index=f["start_index"])
        before = [show(take(old)) for _ in f["sequence_before"]]
        assert before == f["sequence_before"], f"{f.where} before update"
        new_route = _route(rr, f["update_route"])
        if "update_exception" in f:
            index = old.index
            expect_java_exception(lambda: old.update(new_route), f["update_exception"], f"{f.where} update")
            assert old.index == index, f"{f.where}: a refused update must not move the index"
            return
        new = old.update(new_route)
        assert type(new) is cls
        assert new.shares_index_with(old) is f["same_index_object"], f.where
        after = [show(take(new)) for _ in f["sequence_after"]]
        assert after == f["sequence_after"], f"{f.where} after update"
        assert new.index == f["index_after"], f.where
        assert old.index == f["old_index_after"], f.where

    return check


CHECKS = {
    "publishing_constructor": check_constructor("PublishingLoadBalancer"),
    "subscription_constructor": check_constructor("SubscriptionLoadBalancer"),
    "publishing_take_message_queues": check_publishing_take_message_queues,
    "publishing_by_message_group": check_publishing_by_message_group,
    "subscription_take_message_queue": check_subscription_take_message_queue,
    "publishing_update": check_update(publishing=True),
    "subscription_update": check_update(publishing=False),
}


def test_grpc_balancer_vector(case, backend):
    run_case(case, backend, CHECKS)


# ------------------------------------------------------------------------------------------ the label


def _write(path, lines):
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(json.dumps(line) for line in lines) + "\n")


def test_the_client_label_is_accepted_only_in_its_own_file(tmp_path):
    assert CLIENT_LABELS == {"clients-java-5.2.1": frozenset({"grpc_balancer"})}
    line = {"id": "x", "versions": ["clients-java-5.2.1"], "kind": "k"}
    for name in ("grpc_balancer", "select_queue"):
        _write(tmp_path / f"{name}.jsonl.gz", [line, {**line, "id": "y", "versions": ["9.9.9"]}])
    ok, unknown = load_cases(tmp_path, "grpc_balancer")
    assert (ok.problem, ok.compat, ok.version) == (None, None, "clients-java-5.2.1")
    assert "unknown version label '9.9.9'" in unknown.problem
    elsewhere, _ = load_cases(tmp_path, "select_queue")
    assert "unknown version label 'clients-java-5.2.1'" in elsewhere.problem
