"""``rocketroute.integrations.grpc``: the drop-in for the official Python 5.x client's ``QueueSelector``, checked
against the Java vectors (``grpc_balancer.jsonl``) and inside the installed client's own ``Producer``, with the gRPC
calls replaced by an in-process fake (no server, no network)."""

from __future__ import annotations

import inspect
from concurrent.futures import Future

import pytest

rocketmq = pytest.importorskip("rocketmq.v5.producer.producer")

from rocketmq.grpc_protocol import Code, definition_pb2, service_pb2  # noqa: E402
from rocketmq.v5.client import ClientConfiguration  # noqa: E402
from rocketmq.v5.client.balancer import QueueSelector  # noqa: E402
from rocketmq.v5.client.client_configuration import Credentials  # noqa: E402
from rocketmq.v5.exception import IllegalArgumentException  # noqa: E402
from rocketmq.v5.model import Message  # noqa: E402
from rocketmq.v5.model.topic_route import TopicRouteData  # noqa: E402
from rocketmq.v5.producer import Producer  # noqa: E402

import rocketroute.reference  # noqa: E402
from rocketroute.integrations import grpc  # noqa: E402
from rocketroute.reference.profiles import profile_select_index  # noqa: E402

from .conformance._support import load_cases, vectors_dir  # noqa: E402


@pytest.fixture(scope="module")
def cases(pytestconfig):
    found = {}
    for case in load_cases(vectors_dir(pytestconfig), "grpc_balancer"):
        assert case.problem is None, case.problem
        found.setdefault(case.kind, []).append(case.data)
    return found


def _pb_queue(q):
    m = definition_pb2.MessageQueue()
    m.topic.name = q["topic"]
    m.id = q["queue_id"]
    m.permission = definition_pb2.Permission.Value(q["permission"])
    m.broker.name = q["broker"]["name"]
    m.broker.id = q["broker"]["id"]
    endpoints = q["broker"]["endpoints"]
    m.broker.endpoints.scheme = definition_pb2.AddressScheme.Value(endpoints["scheme"])
    for host, port in endpoints["addresses"]:
        a = m.broker.endpoints.addresses.add()
        a.host, a.port = host, port
    m.accept_message_types.extend(definition_pb2.MessageType.Value(t) for t in q["accept_message_types"])
    return m


def _client_route(encoded):
    """The Python client's own ``TopicRouteData`` of a vector route."""
    return TopicRouteData([_pb_queue(q) for q in encoded])


def _name(encoded_mq):
    topic, broker, queue_id = encoded_mq
    return f"{broker}.{topic}.{queue_id}"  # the client's MessageQueue.__str__, and Java's MessageQueueImpl


def _endpoints(backend, e):
    return grpc.balancers(backend).Endpoints(e["scheme"], [tuple(a) for a in e["addresses"]])


# ------------------------------------------------------------------------------------------ the API


def _shape(fn):
    """A signature without the annotations: names, kinds and defaults."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]


def test_same_names_and_signatures_as_the_clients_queue_selector():
    for name, member in inspect.getmembers(QueueSelector):
        if name.startswith("_") and name != "__init__":
            continue
        ours = getattr(grpc.JavaQueueSelector, name)
        if callable(member):
            assert _shape(ours) == _shape(member), name
        else:
            assert ours == member, name


# ------------------------------------------------------------------------------------------ against the vectors


def test_select_next_queue_is_the_first_of_javas_take_message_queues(backend, cases):
    """Every ``takeMessageQueues`` call of the vectors: the drop-in's next queue (with the call's excluded
    endpoints isolated) is Java's first candidate, and its index moves as Java's; ``select_send_candidates``
    gives Java's whole list."""
    checked = 0
    for case in cases["publishing_take_message_queues"]:
        route = _client_route(case["route"])
        isolation = grpc.EndpointIsolation(backend)
        cls = grpc.selector_class(backend, isolation=isolation, start_index=case["start_index"])
        one, whole = cls.producer_queue_selector(route), cls.producer_queue_selector(route)
        for call in case["calls"]:
            isolation.clear()
            for e in call["excluded"]:
                isolation.isolate(_endpoints(backend, e))
            assert str(one.select_next_queue()) == _name(call["expect"][0]), case["id"]
            assert [str(q) for q in whole.select_send_candidates(call["count"])] == [
                _name(e) for e in call["expect"]
            ], case["id"]
            assert one.index == whole.index == call["index_after"], case["id"]
            checked += 1
    assert checked >= 81


def test_select_queue_by_hash_key_is_javas_message_group_queue(backend, cases):
    differs = 0
    for case in cases["publishing_by_message_group"]:
        route = _client_route(case["route"])
        ours = grpc.selector_class(backend).producer_queue_selector(route)
        stock = QueueSelector.producer_queue_selector(route)
        for g in case["groups"]:
            if g["group"] is None:
                continue
            assert str(ours.select_queue_by_hash_key(g["group"])) == _name(g["expect"]), (case["id"], g["group"])
            differs += str(stock.select_queue_by_hash_key(g["group"])) != _name(g["expect"])
    assert differs > 0  # the stock selector (SHA-256) disagrees with Java


def test_consumer_selectors_are_the_subscription_balancer(backend, cases):
    for case in cases["subscription_take_message_queue"]:
        route = _client_route(case["route"])
        sel = grpc.selector_class(backend, start_index=case["start_index"]).simple_consumer_queue_selector(route)
        assert [str(sel.select_next_queue()) for _ in case["sequence"]] == [_name(e) for e in case["sequence"]]
        assert sel.index == case["index_after"]


def test_update_carries_the_index_on(backend, cases):
    for case in cases["publishing_update"]:
        if "update_exception" in case:
            continue
        sel = grpc.selector_class(backend, start_index=case["start_index"]).producer_queue_selector(
            _client_route(case["route"])
        )
        assert [[str(sel.select_next_queue())] for _ in case["sequence_before"]] == [
            [_name(e) for e in seq] for seq in case["sequence_before"]
        ]
        sel.update(_client_route(case["update_route"]))
        assert [[str(sel.select_next_queue())] for _ in case["sequence_after"]] == [
            [_name(e) for e in seq] for seq in case["sequence_after"]
        ]
        assert sel.index == case["index_after"]


def test_no_queue_raises_the_clients_own_exception(backend):
    sel = grpc.selector_class(backend).producer_queue_selector(TopicRouteData([]))
    with pytest.raises(IllegalArgumentException, match="no available message queues"):
        sel.select_next_queue()
    with pytest.raises(IllegalArgumentException, match="NONE_TYPE_SELECTOR"):
        grpc.selector_class(backend)([1, 2]).select_next_queue()


def test_none_type_hashes_any_list_as_java(backend):
    # the way tests/test_profiles.py drives the stock selector: a plain list of positions
    for n in (1, 3, 16):
        sel = grpc.selector_class(backend)(list(range(n)))
        for key in ("order-1", "键", "a" * 100):
            assert sel.select_queue_by_hash_key(key) == profile_select_index(key, n, "java5-grpc-siphash")
        assert sorted(sel.all_queues()) == list(range(n))


# ------------------------------------------------------------------------------------------ inside the client


class _FakeRpc:
    """Stands in for the client's gRPC calls: records where each send went; fails sends to ``failing``."""

    def __init__(self, failing=()):
        self.sent = []
        self.failing = set(failing)

    def send_message_async(self, endpoints, req, metadata, timeout=3):
        self.sent.append(str(endpoints))
        future = Future()
        if str(endpoints) in self.failing:
            future.set_exception(ConnectionError(f"{endpoints} is down"))
            return future
        response = service_pb2.SendMessageResponse()
        response.status.code = Code.OK
        entry = response.entries.add()
        entry.message_id = req.messages[0].system_properties.message_id
        entry.offset = 1
        future.set_result(response)
        return future


def _producer(route, fake):
    """The installed client's own Producer, started without a server: its route lookup answers ``route``
    and its RPC client is ``fake``."""
    producer = Producer(ClientConfiguration("127.0.0.1:8081", Credentials()))
    producer._Client__is_running = True
    producer._retrieve_topic_route_data = lambda topic: route
    producer.rpc_client.send_message_async = fake.send_message_async
    return producer


def _message(group=None):
    m = Message()
    m.topic = "grpc-topic"
    m.body = b"payload"
    if group is not None:
        m.message_group = group
    return m


@pytest.fixture
def installed(backend):
    undo = []

    def install(**kwargs):
        undo.append(grpc.install(backend, **kwargs))

    yield install
    for u in undo:
        u()
    from rocketmq.v5.producer import producer as module

    assert module.QueueSelector is QueueSelector


def test_the_producer_sends_fifo_messages_where_java_does(cases, installed):
    case = next(c for c in cases["publishing_by_message_group"] if c["id"] == "pub-group-three-brokers")
    # a FIFO topic (the client checks the message type against the queues'; the balancer does not read it)
    route = _client_route([{**q, "accept_message_types": ["FIFO"]} for q in case["route"]])
    groups = [g for g in case["groups"] if g["group"] and g["group"].strip()]  # the client refuses blank groups
    writable = [str(q) for q in route.message_queues if q.is_writable() and q.is_master_broker()]

    stock = _producer(route, _FakeRpc())
    stock_picks = [str(stock.send(_message(g["group"])).message_queue) for g in groups]
    # the stock client: SHA-256 of the group
    assert stock_picks == [writable[profile_select_index(g["group"], len(writable), "python5-sha256")] for g in groups]

    installed()
    java = _producer(route, _FakeRpc())
    java_picks = [str(java.send(_message(g["group"])).message_queue) for g in groups]
    assert java_picks == [_name(g["expect"]) for g in groups]  # Java's queue for every group
    assert sum(a != b for a, b in zip(stock_picks, java_picks, strict=True)) >= len(groups) // 2


def test_the_producer_round_robin_is_javas(backend, cases, installed):
    case = cases["publishing_take_message_queues"][0]
    route = _client_route(case["route"])
    start = case["start_index"]
    installed(start_index=start)
    fake = _FakeRpc()
    producer = _producer(route, fake)
    picks = [str(producer.send(_message()).message_queue) for _ in range(12)]
    reference = rocketroute.reference
    java = grpc.balancers(reference).PublishingLoadBalancer(
        [grpc.to_grpc_message_queue(q, reference) for q in route.message_queues], start_index=start
    )
    assert picks == [str(java.take_message_queues(None, 1)[0]) for _ in range(12)]
    # and the stock client starts anywhere in 1..1000, as Java never does for a route it sees first
    assert 1 <= QueueSelector.producer_queue_selector(route)._QueueSelector__index.get() <= 1000


def test_a_failed_send_isolates_its_endpoints_and_a_heartbeat_rejoins_them(backend, cases, installed):
    case = next(c for c in cases["publishing_take_message_queues"] if c["id"] == "pub-take-three-brokers-0")
    route = _client_route(case["route"])
    isolation = grpc.EndpointIsolation(backend)
    installed(isolation=isolation, start_index=0)
    broker_a = next(q.endpoints for q in route.message_queues if str(q).startswith("broker-a."))
    fake = _FakeRpc(failing={str(broker_a)})
    producer = _producer(route, fake)
    grpc.attach_isolation(producer, isolation)

    # index 0 is broker-a: the send fails there, broker-a is isolated, the retry goes where Java's retry goes
    receipt = producer.send(_message())
    reference = rocketroute.reference
    java = grpc.balancers(reference).PublishingLoadBalancer(
        [grpc.to_grpc_message_queue(q, reference) for q in route.message_queues], start_index=0
    )
    candidates = [str(q) for q in java.take_message_queues(None, 3)]  # Java's ProducerImpl: maxAttempts = 3
    assert fake.sent[0] == str(broker_a) and candidates[0].startswith("broker-a.")
    assert str(receipt.message_queue) == candidates[1]
    assert broker_a in isolation and len(isolation) == 1

    # while isolated, no send goes to broker-a, as Java's takeMessageQueues(isolated, n) skips it
    fake.sent.clear()
    for _ in range(8):
        producer.send(_message())
    assert str(broker_a) not in fake.sent

    # a heartbeat answered OK rejoins it (ClientImpl.doHeartbeat)
    ok = Future()
    response = service_pb2.HeartbeatResponse()
    response.status.code = Code.OK
    ok.set_result(response)
    producer._Client__heartbeat_callback(ok, endpoints=broker_a)
    assert broker_a not in isolation and len(isolation) == 0


def test_isolation_accepts_the_clients_endpoints_and_either_backend(backend):
    isolation = grpc.EndpointIsolation(backend)
    e = grpc.balancers(backend).Endpoints("IPv4", [("10.0.0.1", 8081)])
    other = grpc.balancers(rocketroute.reference).Endpoints("IPv4", [("10.0.0.1", 8081)])
    assert isolation.isolate(other) and not isolation.isolate(e)
    assert e in isolation and list(isolation) == [e]
    assert isolation.rejoin(e) and not isolation.rejoin(e)
    with pytest.raises(TypeError):
        isolation.isolate("ipv4:10.0.0.1:8081")
    assert "ipv4:10.0.0.1:8081" not in isolation
