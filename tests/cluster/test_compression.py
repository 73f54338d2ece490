"""Issue 29, compression on send: ``rr.Producer(compress_type="LZ4" | "ZSTD" | "ZLIB")`` on Apache's brokers, read
by the real Java ``DefaultMQPushConsumer`` (the client of the server's release: 5.5.0 on Apache 5.5.0, 4.9.8 on
4.9.7, through ``tests/peers/java/GroupMember.java``) and by ``rr.Consumer``. The bodies are large enough to be
compressed (over ``compress_msg_body_over_howmuch``), some compressible and some not, one over 4 MiB (two LZ4
blocks); each arrives byte for byte, and the broker holds the compressed bytes with the type's sysFlag."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Message, Producer
from rocketroute.client.message_decode import decode_messages

from .._java_peers import JavaPeer
from .harness import Cluster
from .test_consumer import FAST, Receipts, wait_until
from .test_peers_java_group import JavaMembers

pytestmark = pytest.mark.servers("apache-5.5.0", "apache-4.9.7")

JAVA_CLIENT = {"apache-5.5.0": "5.5.0", "apache-4.9.7": "4.9.8"}
FLAGS = {"LZ4": 0x101, "ZSTD": 0x201, "ZLIB": 0x301}


def _bodies(ctype: str) -> list[bytes]:
    text = (f"{ctype} compressed by rocketroute, read by Java. " * 400).encode()
    return [
        text,  # ~20 KB of text
        os.urandom(8192),  # incompressible: the frames store it as is
        hashlib.sha256(ctype.encode()).digest() * 140_000,  # 4.5 MB: more than one 4 MiB LZ4 block
    ]


@pytest.fixture(scope="module")
def java_consumer(server_impl: str, tmp_path_factory: pytest.TempPathFactory) -> JavaPeer:
    return JavaPeer("GroupMember", JAVA_CLIENT[server_impl], tmp_path_factory)


@pytest.mark.parametrize("ctype", ["LZ4", "ZSTD", "ZLIB"])
def test_java_and_rocketroute_consumers_read_what_was_compressed(
    cluster: Cluster, fresh_topic, java_consumer: JavaPeer, tmp_path: Path, ctype: str
) -> None:
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    bodies = _bodies(ctype)
    with Producer(
        cluster.namesrv_addrs, "pg_compress", compat=cluster.compat, compress_type=ctype, max_message_size=8 * 2**20
    ) as producer:
        results = [producer.send(Message(topic, body), timeout_ms=10_000) for body in bodies]

    # the broker holds the compressed body with the type's flag (a raw pull, not decompressed)
    cluster.wait_dispatched("broker-a")
    stored = []
    for r in results:
        # VIEW_MESSAGE_BY_ID (33): the message at a commit-log offset (the last 16 hex digits of offsetMsgId)
        assert r.offset_msg_id is not None
        offset = int(r.offset_msg_id[-16:], 16)
        resp = cluster.invoke(
            cluster.broker_addr("broker-a"), 33, {"offset": str(offset), "topic": topic}, timeout_ms=10_000
        )
        assert resp.code == 0, (resp.code, resp.remark)
        (msg,) = decode_messages(resp.body or b"", decompress_body=False)
        stored.append(msg)
    assert all(m.sys_flag & 0x701 == FLAGS[ctype] for m in stored), [hex(m.sys_flag) for m in stored]
    sizes = [len(m.body or b"") for m in stored]
    assert sizes[0] < len(bodies[0]) // 10 and sizes[2] < len(bodies[2]) // 10, sizes  # the repetitive ones
    assert sizes[1] >= len(bodies[1]), sizes  # random bytes do not shrink: stored in the frame as they are

    java = JavaMembers(
        java_consumer, tmp_path, ";".join(cluster.namesrv_addrs), f"cg_java_{time.monotonic_ns()}", topic, "AVG",
        ["java-a"],
    )  # fmt: skip
    try:
        wait_until(lambda: set(bodies) <= set(java.consumed()), 90, f"the Java consumer read the {ctype} bodies")
    finally:
        java.stop()
    assert java.consumed() == {b: 1 for b in bodies}

    receipts = Receipts()
    with Consumer(
        cluster.namesrv_addrs,
        f"cg_py_{time.monotonic_ns()}",
        [topic],
        listener=receipts.listener("py"),
        compat=cluster.compat,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        **FAST,
    ):
        wait_until(lambda: set(bodies) <= set(receipts.bodies()), 60, f"rocketroute read the {ctype} bodies")


@pytest.mark.servers("apache-5.5.0")
def test_the_production_guide_example_runs(cluster: Cluster, fresh_topic, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/guide/production.md's `<!-- test: compress-cluster -->` block: the message is stored LZ4-compressed."""
    from ..test_docs import ROOT, python_blocks

    (block,) = python_blocks(ROOT / "docs" / "guide" / "production.md", "compress-cluster")
    topic = fresh_topic(queues=1, brokers=["broker-a"])
    code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", topic)
    exec(compile(code, "production.md compress-cluster block", "exec"), {})
    assert capsys.readouterr().out == "SEND_OK\n"
    got: list = []

    def listener(msgs: list, context: object) -> object:
        got.extend(msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    with Consumer(
        cluster.namesrv_addrs,
        f"cg_doc_{time.monotonic_ns()}",
        [topic],
        listener=listener,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        decode_decompress_body=False,  # the body as the broker stores it
        **FAST,
    ):
        wait_until(lambda: bool(got), 60, "the example's message consumed")
    (msg,) = got
    assert msg.sys_flag & 0x701 == FLAGS["LZ4"] and (msg.body or b"").startswith(bytes.fromhex("04224D18"))
