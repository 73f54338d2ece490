"""The 5.x gRPC client's load balancers and their route model, on both backends (the Java vectors are in
``conformance/test_grpc_balancer.py``)."""

from __future__ import annotations

import pickle
import threading

import pytest

import rocketroute
import rocketroute.reference
from rocketroute.errors import IllegalArgumentError, NullPointerError
from rocketroute.integrations.grpc import balancers


def _route(rr):
    a = balancers(rr).Endpoints("IPv4", [("10.0.0.1", 8081)])
    b = balancers(rr).Endpoints("IPv4", [("10.0.0.2", 8081), ("10.0.0.3", 8081)])
    c = balancers(rr).Endpoints("DOMAIN_NAME", [("broker-c.example", 8081)])
    route = [balancers(rr).GrpcMessageQueue("t", "broker-a", 0, a, i) for i in range(4)]
    route += [balancers(rr).GrpcMessageQueue("t", "broker-b", 0, b, i) for i in range(2)]
    route += [balancers(rr).GrpcMessageQueue("t", "broker-c", 0, c, i) for i in range(3)]
    return route, (a, b, c)


def test_endpoints(backend):
    e = balancers(backend).Endpoints("IPv4", [("10.0.0.2", 8081), ["10.0.0.3", 8081]])
    assert e.scheme == "IPv4"
    assert e.addresses == (("10.0.0.2", 8081), ("10.0.0.3", 8081))
    assert str(e) == e.facade == "ipv4:10.0.0.2:8081,10.0.0.3:8081"
    assert repr(e) == "Endpoints('IPv4', [('10.0.0.2', 8081), ('10.0.0.3', 8081)])"
    assert e == balancers(backend).Endpoints("IPv4", (("10.0.0.2", 8081), ("10.0.0.3", 8081)))
    assert hash(e) == hash(balancers(backend).Endpoints("IPv4", [("10.0.0.2", 8081), ("10.0.0.3", 8081)]))
    # Java compares the addresses in order, and the scheme
    assert e != balancers(backend).Endpoints("IPv4", [("10.0.0.3", 8081), ("10.0.0.2", 8081)])
    assert e != balancers(backend).Endpoints("IPv6", [("10.0.0.2", 8081), ("10.0.0.3", 8081)])
    assert e != "ipv4:10.0.0.2:8081,10.0.0.3:8081"
    assert pickle.loads(pickle.dumps(e)) == e
    assert str(balancers(backend).Endpoints("DOMAIN_NAME", [("x.example", 80)])) == "dns:x.example:80"
    assert str(balancers(backend).Endpoints("IPv6", [("::1", 80)])) == "ipv6:::1:80"


def test_endpoints_refusals(backend):
    with pytest.raises(IllegalArgumentError, match=r"^No available address$"):
        balancers(backend).Endpoints("IPv4", [])
    with pytest.raises(IllegalArgumentError, match=r"^Multiple addresses not allowed in domain schema$"):
        balancers(backend).Endpoints("DOMAIN_NAME", [("a", 1), ("b", 2)])
    with pytest.raises(IllegalArgumentError, match="unknown address scheme 'ipv4'"):
        balancers(backend).Endpoints("ipv4", [("a", 1)])
    with pytest.raises(NullPointerError):
        balancers(backend).Endpoints(None, [("a", 1)])
    with pytest.raises(TypeError):
        balancers(backend).Endpoints("IPv4", "a:1")
    with pytest.raises(TypeError, match="an address must be a"):
        balancers(backend).Endpoints("IPv4", [("a", 1, 2)])
    with pytest.raises(TypeError):
        balancers(backend).Endpoints("IPv4", [("a", "1")])
    with pytest.raises(IllegalArgumentError, match="out of the Java int range"):
        balancers(backend).Endpoints("IPv4", [("a", 2**31)])


def test_grpc_message_queue(backend):
    e = balancers(backend).Endpoints("IPv4", [("10.0.0.1", 8081)])
    q = balancers(backend).GrpcMessageQueue("TopicTest", "broker-a", 0, e, 3)
    assert (q.topic, q.broker_name, q.broker_id, q.queue_id) == ("TopicTest", "broker-a", 0, 3)
    assert q.endpoints == e
    assert (q.permission, q.accept_message_types) == ("READ_WRITE", ("NORMAL",))
    assert str(q) == "broker-a.TopicTest.3"
    assert q.is_writable() and q.is_readable() and q.is_master()
    assert q.to_message_queue() == backend.MessageQueue("TopicTest", "broker-a", 3)
    assert repr(q) == (
        "GrpcMessageQueue('TopicTest', 'broker-a', 0, Endpoints('IPv4', [('10.0.0.1', 8081)]), 3, 'READ_WRITE', "
        "('NORMAL',))"
    )
    # Java's equals: not the accepted types; the permission, broker id and endpoints do count
    fifo = balancers(backend).GrpcMessageQueue("TopicTest", "broker-a", 0, e, 3, "READ_WRITE", ["FIFO"])
    assert fifo == q and hash(fifo) == hash(q)
    assert balancers(backend).GrpcMessageQueue("TopicTest", "broker-a", 0, e, 3, "READ") != q
    assert balancers(backend).GrpcMessageQueue("TopicTest", "broker-a", 1, e, 3) != q
    slave = balancers(backend).GrpcMessageQueue("TopicTest", "broker-a", 1, e, 3, "WRITE", ["FIFO", "DELAY"])
    assert not slave.is_master() and slave.is_writable() and not slave.is_readable()
    assert pickle.loads(pickle.dumps(slave)).accept_message_types == ("FIFO", "DELAY")
    with pytest.raises(IllegalArgumentError, match=r"^Message queue permission is not specified$"):
        balancers(backend).GrpcMessageQueue("t", "b", 0, e, 0, "PERMISSION_UNSPECIFIED")
    with pytest.raises(IllegalArgumentError, match="unknown message type"):
        balancers(backend).GrpcMessageQueue("t", "b", 0, e, 0, "READ", ["normal"])
    with pytest.raises(TypeError):
        balancers(backend).GrpcMessageQueue("t", "b", 0, "ipv4:10.0.0.1:8081", 0)
    with pytest.raises(NullPointerError):
        balancers(backend).GrpcMessageQueue(None, "b", 0, e, 0)


def test_balancers_return_the_callers_queue_objects(backend):
    route, (a, _, _) = _route(backend)
    pub = balancers(backend).PublishingLoadBalancer(route, start_index=0)
    assert pub.message_queues == tuple(route) and len(pub) == 9
    assert all(x is y for x, y in zip(pub.message_queues, route, strict=True))
    assert pub.take_message_queues()[0] is route[0]
    assert pub.take_message_queues([a], 3) == [route[4], route[6]]
    assert pub.take_message_queue_by_message_group("order-1") is route[6]
    sub = balancers(backend).SubscriptionLoadBalancer(route, start_index=-1)
    assert sub.take_message_queue() is route[8]
    assert repr(sub) == "SubscriptionLoadBalancer(9 queues, index=0)"


def test_random_start_is_a_java_non_negative_int(backend):
    route, _ = _route(backend)
    starts = {balancers(backend).PublishingLoadBalancer(route).index for _ in range(50)}
    assert all(0 <= s < 2**31 - 1 for s in starts)
    assert len(starts) > 1


def test_argument_checks(backend):
    route, _ = _route(backend)
    pub = balancers(backend).PublishingLoadBalancer(route, start_index=0)
    with pytest.raises(NullPointerError):
        pub.take_message_queue_by_message_group(None)
    with pytest.raises(TypeError):
        pub.take_message_queue_by_message_group(b"g")
    with pytest.raises(TypeError, match=r"excluded'?:? must hold Endpoints"):
        pub.take_message_queues(["ipv4:10.0.0.1:8081"])
    with pytest.raises(IllegalArgumentError):
        pub.take_message_queues(None, 2**31)
    assert pub.index == 0  # refused calls do not move the index
    assert pub.take_message_queues(None, None) == [route[0]]
    with pytest.raises(TypeError):
        balancers(backend).PublishingLoadBalancer([object()])
    with pytest.raises(NullPointerError):
        balancers(backend).SubscriptionLoadBalancer(None)
    with pytest.raises(IllegalArgumentError, match="out of the Java int range"):
        balancers(backend).SubscriptionLoadBalancer(route, start_index=2**31)
    with pytest.raises(TypeError):
        pub.shares_index_with(route)
    assert not pub.shares_index_with(balancers(backend).SubscriptionLoadBalancer(route, start_index=0))


def test_message_group_lone_surrogate_is_hashed_as_javas_question_mark(backend):
    route, _ = _route(backend)
    pub = balancers(backend).PublishingLoadBalancer(route, start_index=0)
    for g in ("a\ud800b", "\udfff", "x\ud83d"):
        assert pub.take_message_queue_by_message_group(g) is pub.take_message_queue_by_message_group(
            g.replace("\ud800", "?").replace("\udfff", "?").replace("\ud83d", "?")
        )
    # a pair given as two code points is one character, as Java reads UTF-16
    assert pub.take_message_queue_by_message_group("\ud83d\ude00") is pub.take_message_queue_by_message_group("😀")


def test_backends_agree():
    n, r = rocketroute, rocketroute.reference
    if n.BACKEND != "native":
        pytest.skip("the native backend is not built")
    rn, _ = _route(n)
    rr, _ = _route(r)
    for start in (0, 5, 2**31 - 3, -(2**31), -7):
        pn = balancers(n).PublishingLoadBalancer(rn, start_index=start)
        pr = balancers(r).PublishingLoadBalancer(rr, start_index=start)
        for i in range(40):
            ex_n = [q.endpoints for q in rn[: i % 9 : 3]]
            ex_r = [q.endpoints for q in rr[: i % 9 : 3]]
            count = i % 5 - 1
            assert [str(q) for q in pn.take_message_queues(ex_n, count)] == [
                str(q) for q in pr.take_message_queues(ex_r, count)
            ]
            assert pn.index == pr.index
        for g in ("", "g", "user-1", "键", "😀"):
            assert str(pn.take_message_queue_by_message_group(g)) == str(pr.take_message_queue_by_message_group(g))
        assert repr(rn[4]) == repr(rr[4])


def test_update_shares_the_index_across_threads(backend):
    route, _ = _route(backend)
    sub = balancers(backend).SubscriptionLoadBalancer(route, start_index=2**31 - 1000)
    new = sub.update(route[:4])
    assert new.shares_index_with(sub) and sub.shares_index_with(new)

    def spin(lb):
        for _ in range(500):
            lb.take_message_queue()

    threads = [threading.Thread(target=spin, args=(lb,)) for lb in (sub, new, sub, new)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # every take advanced the one shared AtomicInteger once, wrapping past Integer.MAX_VALUE
    assert sub.index == new.index == 2**31 - 1000 + 2000 - 2**32
    with pytest.raises(IllegalArgumentError, match=r"^No readable message queue found"):
        sub.update([q for q in route if False])
