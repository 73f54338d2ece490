"""The same key, the same queue, live: the real Java remoting client (``rocketmq-client`` 4.9.8, 5.3.3 and 5.5.0,
the jars ``make clients`` resolves from Maven Central) and ``rr.Producer``, both with ``SelectMessageQueueByHash``,
send 1,000 keys to one topic of 8 + 8 queues on the cluster's two brokers. Every key must land on the same broker
and queue from both, and the brokers' offsets must count exactly the messages the send results name.

The Java side is ``tests/peers/java/KeyedSender.java`` (ours), compiled here with ``javac`` against the jar; keys
travel to it as UTF-16 code units, so the lone surrogates a Java string may hold reach it unchanged."""

from __future__ import annotations

import collections
import random
import subprocess
from pathlib import Path

import pytest

import rocketroute as rr
from rocketroute.client import Message, Producer

from .._java_peers import JavaPeer

JAVA_CLIENTS = {"4.9.8": "4.9", "5.3.3": "5.3", "5.5.0": "5.3"}
"""The Java client's version (its jar comes with that Apache server's resolved libraries) -> our compat."""


def java_keys() -> list[str]:
    """1,000 keys: ASCII, CJK, emoji, the empty key, 300 characters, lone surrogates, and random mixes."""
    rng = random.Random(26)
    fixed = ["", "a", "order-42", "x" * 300, "键" * 300, "😀" * 150, "顺序消息", "a\ud800b", "\udc00", "\ud83d"]
    alphabet = "abcXYZ019 -_:/" + "中文键值顺序" + "😀🚀" + "éß" + "\ud800\udfff"
    out = list(fixed)
    while len(out) < 1000:
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 48))))
    return out


def utf16_hex(key: str) -> str:
    units = key.encode("utf-16-be", "surrogatepass")
    return units.hex()


@pytest.fixture(scope="module")
def java_senders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, JavaPeer]:
    """Per Java client version: KeyedSender built against it."""
    return {version: JavaPeer("KeyedSender", version, tmp_path_factory) for version in JAVA_CLIENTS}


def send_from_java(peer: JavaPeer, home: Path, namesrv: str, topic: str, keys: list[str]) -> list[str]:
    out = home / "placements.txt"
    done = subprocess.run(
        peer.command(home, namesrv, topic, "java_peer_pg", str(out)),
        input="".join(utf16_hex(k) + "\n" for k in keys),
        capture_output=True,
        text=True,
        timeout=300,
        env=peer.env(),
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    lines = out.read_text().splitlines()
    assert len(lines) == len(keys)
    return lines


@pytest.mark.parametrize("client", list(JAVA_CLIENTS))
def test_the_java_client_and_ours_put_every_key_on_the_same_queue(cluster, fresh_topic, java_senders, tmp_path, client):
    topic = fresh_topic(queues=8)  # 8 queues on each of the two brokers
    keys = java_keys()
    java_lines = send_from_java(java_senders[client], tmp_path, ";".join(cluster.namesrv_addrs), topic, keys)
    errors = [line for line in java_lines if line.startswith("ERROR")]
    assert not errors, errors[:5]
    java_at = [(b, int(q)) for b, q, _ in (line.split() for line in java_lines)]

    selector = rr.SelectMessageQueueByHash()
    with Producer(cluster.namesrv_addrs, "rr_peer_pg", compat=JAVA_CLIENTS[client]) as producer:
        ours = [producer.send(Message(topic, b"rr:" + k.encode("utf-8", "surrogatepass")), selector, k) for k in keys]
    ours_at = [(r.queue.broker_name, r.queue.queue_id) for r in ours]

    differ = [(k, j, o) for k, j, o in zip(keys, java_at, ours_at, strict=True) if j != o]
    assert not differ, f"{len(differ)} of {len(keys)} keys placed differently, e.g. {differ[:3]}"
    assert len(set(ours_at)) == 16  # the keys reach every queue of both brokers

    # the brokers stored exactly what the results say: per queue, one message from each client per key
    per_queue = collections.Counter(ours_at)
    for broker in cluster.broker_names:
        cluster.wait_dispatched(broker)
    for (broker, queue_id), count in per_queue.items():
        assert cluster.max_offset(broker, topic, queue_id) == 2 * count, (broker, queue_id)
