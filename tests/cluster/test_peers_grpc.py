"""FIFO message groups through both proxies, live: the real Java 5.x gRPC client (``rocketmq-client-java`` 5.2.0,
driven by ``tests/peers/java/GrpcFifoSender.java``) and the official Python 5.x client (``rocketmq-python-client``,
as installed and with ``rocketroute.grpc``'s drop-in) send 240 message groups through a proxy in cluster mode, and
``rr.Producer`` sends the same keys over remoting with the profile that proxy calls for. Read back from the brokers:

- **Apache RocketMQ 5.5.0's proxy** (``ProxyStartup -pm cluster``) picks a FIFO message's queue itself and ignores
  the one the client chose: every group of all four lands where ``proxy-jump`` says (Guava's
  ``consistentHash(group.hashCode(), n)`` over the topic's queues in ``TopicPublishInfo`` order). The drop-in
  changes the Python client's choice but not where its messages land.
- **RocketMQ-Rust 1.0.0's proxy** (``rocketmq-proxy-rust --mode cluster``) does not keep a message group on one
  queue. A message without a queue id (the Python client never sends one, with or without the drop-in; the Java
  client's id 0 does not reach it either) goes round-robin over all queues, whatever its group: each of 15 groups
  sent 8 times lands on several queues. A message with a queue id q > 0 (the Java client's choice) goes to the
  first queue numbered q in the route, on the first broker, whichever broker the client chose."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rocketmq.v5 import producer as official  # a test dependency (make test installs it): never skipped
from rocketmq.v5.client import ClientConfiguration
from rocketmq.v5.client.client_configuration import Credentials
from rocketmq.v5.model import Message as GrpcMessage

import rocketroute as rr
from rocketroute import profiles
from rocketroute.client import Consumer, Message, Producer
from rocketroute.integrations import grpc

from .._java_peers import JavaPeer
from .harness import Cluster
from .test_consumer import Receipts, wait_until
from .test_peers_java import utf16_hex

TOPIC = "FifoPeers"
KEYS = (
    [f"order-{i}" for i in range(160)]
    + [f"\u8ba2\u5355-{i}" for i in range(40)]  # CJK
    + [f"\U0001f600{i}" for i in range(40)]  # emoji: a surrogate pair in Java's String
)
"""Message groups of at most 64 UTF-8 bytes (the proxy's ``maxMessageGroupSize``), none blank (the gRPC clients
refuse those)."""


PROXIES = {"apache-5.5.0": "proxy-jump", "rust-1.0.0": None}
"""Each proxy the harness starts -> the profile that says where a message group lands through it (``None``: the
group does not decide)."""


@pytest.fixture(scope="module", params=list(PROXIES))
def proxied(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A name server, two brokers and a proxy in cluster mode; a FIFO topic of 8 + 8."""
    impl = request.param
    with Cluster(1, 2, impl=impl, proxies=1, base_dir=tmp_path_factory.mktemp(f"proxied-{impl}")) as c:
        c.create_topic(TOPIC, 8, attributes="+message.type=FIFO")
        yield c


def _send_official(endpoint: str, prefix: bytes) -> dict[str, tuple[str, int]]:
    """Send one message per group with the Python client; return the queue the client chose for each."""
    producer = official.Producer(ClientConfiguration(endpoint, Credentials()), (TOPIC,))
    producer.startup()
    chosen = {}
    try:
        for key in KEYS:
            m = GrpcMessage()
            m.topic, m.body, m.message_group = TOPIC, prefix + key.encode(), key
            queue = producer.send(m).message_queue.message_queue0()
            chosen[key] = (queue.broker.name, queue.id)
    finally:
        producer.shutdown()
    return chosen


def _landed(cluster: Cluster, expected: int) -> dict[bytes, tuple[str, int]]:
    """Every message of the topic, read back by a consumer: body -> (broker, queue id)."""
    receipts = Receipts()
    consumer = Consumer(
        cluster.namesrv_addrs,
        f"cg_grpc_{time.monotonic_ns()}",
        [TOPIC],
        listener=receipts.listener("reader"),
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
    ).start()
    try:
        wait_until(lambda: len(receipts.bodies()) >= expected, 60, "every message read back")
    finally:
        consumer.shutdown()
    with receipts.lock:
        return {body: (mq.broker_name, mq.queue_id) for _, _, body, mq, _ in receipts.items}


def _predicted(queues: list[Any], profile: str) -> dict[str, tuple[str, int]]:
    """Where ``profile`` puts each key over ``queues``: (broker, queue id)."""
    return {
        k: (queues[i].broker_name, queues[i].queue_id)
        for k in KEYS
        for i in [profiles.profile_select_index(k, len(queues), profile)]
    }


def test_fifo_groups_through_each_proxy_from_every_client(proxied, tmp_path_factory, tmp_path: Path):
    (endpoint,) = proxied.proxy_grpc_endpoints
    plain = _send_official(endpoint, b"py:")
    undo = grpc.install()
    try:
        dropin = _send_official(endpoint, b"dropin:")
    finally:
        undo()

    peer = JavaPeer("GrpcFifoSender", "5.2.0", tmp_path_factory, artifact="rocketmq-client-java")
    done = subprocess.run(
        peer.command(tmp_path, endpoint, TOPIC),
        input="".join(utf16_hex(k) + "\n" for k in KEYS),
        capture_output=True,
        text=True,
        timeout=300,
        env=peer.env(),
    )
    assert done.returncode == 0 and f"sent {len(KEYS)}" in done.stdout, done.stdout[-2000:] + done.stderr[-3000:]

    queues = rr.TopicPublishInfo.from_route(TOPIC, proxied.route(TOPIC)).message_queues
    assert len(queues) == 16
    # the drop-in names the queue the Java gRPC client would (its SipHash choice), not the Python client's own
    assert sum(plain[k] != dropin[k] for k in KEYS) > len(KEYS) // 2
    profile = PROXIES[proxied.impl.name]
    if profile is None:
        _rust_proxy_ignores_the_group(proxied, endpoint, queues, dropin)
        return

    with Producer(proxied.namesrv_addrs, "pg_grpc_peers") as producer:
        selector = profiles.ProfileSelector(profile)
        ours = {k: producer.send(Message(TOPIC, b"rr:" + k.encode()), selector, k) for k in KEYS}
    landed = _landed(proxied, 4 * len(KEYS))
    predicted = _predicted(queues, profile)
    assert len(set(predicted.values())) == 16
    assert {k: (r.queue.broker_name, r.queue.queue_id) for k, r in ours.items()} == predicted
    # Apache's proxy: every client's group lands where proxy-jump says, whatever queue the client chose
    for source in ("py", "dropin", "java", "rr"):
        at = {k: landed.get(f"{source}:{k}".encode()) for k in KEYS}
        differ = [(k, at[k], predicted[k]) for k in KEYS if at[k] != predicted[k]]
        assert not differ, f"{source}: {len(differ)} groups elsewhere than proxy-jump says: {differ[:3]}"
    assert sum(plain[k] != predicted[k] for k in KEYS) > len(KEYS) // 2  # the proxy overrode the client


def _rust_proxy_ignores_the_group(
    proxied: Cluster, endpoint: str, queues: list[Any], dropin: dict[str, tuple[str, int]]
) -> None:
    """RocketMQ-Rust 1.0.0's proxy: the Java client's queue id picks the first broker's queue of that id, and a
    message without one goes round-robin, its group ignored."""
    groups, rounds = 15, 8  # 15 groups over 16 queues: a round-robin never keeps a group in place
    producer = official.Producer(ClientConfiguration(endpoint, Credentials()), (TOPIC,))
    producer.startup()
    try:
        for r in range(rounds):
            for g in range(groups):
                m = GrpcMessage()
                m.topic, m.body, m.message_group = TOPIC, f"again:{g}:{r}".encode(), f"group-{g}"
                producer.send(m)
    finally:
        producer.shutdown()
    landed = _landed(proxied, 3 * len(KEYS) + groups * rounds)

    # the Java client names the drop-in's queue; the proxy keeps its id and takes the first broker's queue
    first_of = {}
    for q in queues:
        first_of.setdefault(q.queue_id, (q.broker_name, q.queue_id))
    named = [k for k in KEYS if dropin[k][1] > 0]
    assert len(named) > len(KEYS) // 2
    java = {k: landed.get(f"java:{k}".encode()) for k in named}
    differ = [(k, java[k], dropin[k]) for k in named if java[k] != first_of[dropin[k][1]]]
    assert not differ, f"{len(differ)} Java groups not on the first broker's queue of their id: {differ[:3]}"
    assert {b for b, _ in java.values()} == {queues[0].broker_name}  # one broker takes them all

    # the Python client's group does not decide its queue: each group lands on several
    spread: dict[str, set[tuple[str, int]]] = {}
    for body, where in landed.items():
        if body.startswith(b"again:"):
            spread.setdefault(body.split(b":")[1].decode(), set()).add(where)
    assert len(spread) == groups
    assert all(len(where) > 1 for where in spread.values()), spread
