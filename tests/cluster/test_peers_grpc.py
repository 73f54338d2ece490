"""FIFO message groups through Apache's proxy, live: the real Java 5.x gRPC client (``rocketmq-client-java`` 5.2.0,
driven by ``tests/peers/java/GrpcFifoSender.java``) and the official Python 5.x client (``rocketmq-python-client``,
as installed and with ``rocketroute.grpc``'s drop-in) send 240 message groups through ``ProxyStartup -pm cluster``
of Apache RocketMQ 5.5.0, and ``rr.Producer`` with ``ProfileSelector("proxy-jump")`` sends the same keys over
remoting. Read back from the brokers, every group lands where ``proxy-jump`` says (Guava's
``consistentHash(group.hashCode(), n)`` over the topic's queues in ``TopicPublishInfo`` order) from all four: the
proxy picks a FIFO message's queue itself and ignores the one the client chose, so the drop-in changes the Python
client's choice but not where its messages land."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rocketmq.v5 import producer as official  # a test dependency (make test installs it): never skipped
from rocketmq.v5.client import ClientConfiguration
from rocketmq.v5.client.client_configuration import Credentials
from rocketmq.v5.model import Message as GrpcMessage

import rocketroute as rr
from rocketroute import grpc, profiles
from rocketroute.client import Consumer, Message, Producer

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


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Apache RocketMQ 5.5.0: a name server, two brokers and a proxy in cluster mode; a FIFO topic of 8 + 8."""
    with Cluster(1, 2, impl="apache-5.5.0", proxies=1, base_dir=tmp_path_factory.mktemp("proxied")) as c:
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


def test_fifo_groups_land_where_apaches_proxy_puts_them_from_every_client(proxied, tmp_path_factory, tmp_path: Path):
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
    jump = profiles.ProfileSelector("proxy-jump")
    with Producer(proxied.namesrv_addrs, "pg_grpc_peers") as producer:
        ours = {k: producer.send(Message(TOPIC, b"rr:" + k.encode()), jump, k) for k in KEYS}

    landed = _landed(proxied, 4 * len(KEYS))
    predicted = {
        k: (queues[i].broker_name, queues[i].queue_id)
        for k in KEYS
        for i in [profiles.profile_select_index(k, len(queues), "proxy-jump")]
    }
    for source in ("py", "dropin", "java", "rr"):
        at = {k: landed.get(f"{source}:{k}".encode()) for k in KEYS}
        differ = [(k, at[k], predicted[k]) for k in KEYS if at[k] != predicted[k]]
        assert not differ, f"{source}: {len(differ)} of {len(KEYS)} groups elsewhere than proxy-jump says: {differ[:3]}"
    assert {k: (r.queue.broker_name, r.queue.queue_id) for k, r in ours.items()} == predicted
    assert len(set(predicted.values())) == 16

    # the clients chose other queues (the drop-in: the Java gRPC client's SipHash choice), and the proxy overrode them
    assert sum(plain[k] != dropin[k] for k in KEYS) > len(KEYS) // 2
    assert sum(plain[k] != predicted[k] for k in KEYS) > len(KEYS) // 2
