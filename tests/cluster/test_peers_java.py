"""The same key, the same queue, live: the real Java remoting client (``rocketmq-client`` 4.9.7, 5.3.3 and 5.5.0,
the jars ``make servers`` resolves from Maven Central) and ``rr.Producer``, both with ``SelectMessageQueueByHash``,
send 1,000 keys to one topic of 8 + 8 queues on the cluster's two brokers. Every key must land on the same broker
and queue from both, and the brokers' offsets must count exactly the messages the send results name.

The Java side is ``tests/peers/java/KeyedSender.java`` (ours), compiled here with ``javac`` against the jar; keys
travel to it as UTF-16 code units, so the lone surrogates a Java string may hold reach it unchanged."""

from __future__ import annotations

import collections
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

import rocketroute as rr
from rocketroute.client import Message, Producer

from .impls import ApacheImpl

SOURCE = Path(__file__).parents[1] / "peers" / "java" / "KeyedSender.java"
JAVA_CLIENTS = {"4.9.7": "4.9", "5.3.3": "5.3", "5.5.0": "5.3"}
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
def java_senders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Per Java client version: (the compiled KeyedSender's folder, the jars' folder)."""
    javac = shutil.which("javac")
    assert javac, "javac (JDK 17) is needed to build the Java peer"
    built = {}
    for version in JAVA_CLIENTS:
        lib = ApacheImpl(version).lib_dir
        jar = lib / f"rocketmq-client-{version}.jar"
        assert jar.is_file(), f"{jar} is missing: run `make servers` (it resolves the Java client with the servers)"
        out = tmp_path_factory.mktemp(f"java-{version}")
        subprocess.run([javac, "-nowarn", "-cp", f"{lib}/*", "-d", str(out), str(SOURCE)], check=True)
        built[version] = (out, lib)
    return built


def send_from_java(classes: Path, lib: Path, home: Path, namesrv: str, topic: str, keys: list[str]) -> list[str]:
    java = shutil.which("java")
    assert java
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"))}
    done = subprocess.run(
        [
            java,
            "-Xmx256m",
            "-XX:+UseSerialGC",
            f"-Duser.home={home}",  # the client's own logs stay in the temp dir
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "-cp",
            f"{classes}:{lib}/*",
            "KeyedSender",
            namesrv,
            topic,
            "java_peer_pg",
            str(home / "placements.txt"),
        ],
        input="".join(utf16_hex(k) + "\n" for k in keys),
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    lines = (home / "placements.txt").read_text().splitlines()
    assert len(lines) == len(keys)
    return lines


@pytest.mark.parametrize("client", list(JAVA_CLIENTS))
def test_the_java_client_and_ours_put_every_key_on_the_same_queue(cluster, fresh_topic, java_senders, tmp_path, client):
    topic = fresh_topic(queues=8)  # 8 queues on each of the two brokers
    keys = java_keys()
    classes, lib = java_senders[client]
    java_lines = send_from_java(classes, lib, tmp_path, ";".join(cluster.namesrv_addrs), topic, keys)
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
