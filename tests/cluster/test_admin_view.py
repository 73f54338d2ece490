"""Apache's admin tools see rocketroute's consumers as they see Java's: the real ``DefaultMQAdminExt`` (the
``rocketmq-tools`` 5.5.0 jar, driven by ``tests/peers/java/AdminView.java``) asks the brokers about a group of one
Java member and two ``rr.Consumer`` members. ``consumerConnection`` lists all three (ours with language
``PYTHON``); ``GET_CONSUMER_RUNNING_INFO``, which the broker forwards to the member, comes back from ours decoded
by the tools' own classes, with the ``PROP_*`` properties Java's members send, the subscriptions, exactly the
queues the member owns with its commit offsets, and a stack dump; ``consumeMessage`` (CONSUME_MESSAGE_DIRECTLY)
has each member's listener consume a message again and answers ``CR_SUCCESS`` as Java's does;
``consumerProgress`` shows every message committed. On Apache RocketMQ 5.5.0's servers (the tools' own release)
and on RocketMQ-Rust 1.0.0's, whose broker forwards both requests to the member too."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

import rocketroute as rr
from rocketroute.client import Consumer, Message, Producer

from .._java_peers import J_WRITER, JavaPeer
from .test_consumer import Receipts, route_queues, wait_until
from .test_peers_java_group import JavaMembers, owners_by_queue, python_member, settled_as_allocated

pytestmark = pytest.mark.servers("apache-5.5.0", "rust-1.0.0")


@pytest.fixture(scope="module")
def admin_view(tmp_path_factory: pytest.TempPathFactory) -> JavaPeer:
    return JavaPeer("AdminView", "5.5.0", tmp_path_factory, J_WRITER, artifact="rocketmq-tools")


@pytest.fixture(scope="module")
def java_member(tmp_path_factory: pytest.TempPathFactory) -> JavaPeer:
    return JavaPeer("GroupMember", "5.5.0", tmp_path_factory)


def test_the_admin_tools_see_our_members_as_java_ones(cluster, fresh_topic, admin_view, java_member, tmp_path):
    topic = fresh_topic(queues=4)
    group = f"cg_admin_{time.monotonic_ns()}"
    mqs = route_queues(cluster, topic)
    strategy = rr.AllocateMessageQueueAveragely()
    namesrv = ";".join(cluster.namesrv_addrs)
    java = JavaMembers(java_member, tmp_path, namesrv, group, topic, "AVG", ["java-a"])
    receipts = Receipts()
    ours: list[Consumer] = []
    try:
        for name in ("py-a", "py-b"):
            ours.append(python_member(cluster, group, topic, strategy, name, receipts.listener(name)))

        def settled() -> bool:
            return settled_as_allocated(owners_by_queue(ours, java, topic), 3, strategy, mqs, group)

        wait_until(settled, 60, "the three members own what allocate_all gives each")
        bodies = [b"admin-%d" % i for i in range(200)]
        with Producer(cluster.namesrv_addrs, "pg-admin") as producer:
            sent = [producer.send(Message(topic, body)) for body in bodies]
        wait_until(lambda: set(bodies) <= set(java.consumed() + receipts.bodies()), 60, "every message consumed")

        def view(*direct: str) -> dict:
            run = subprocess.run(
                admin_view.command(tmp_path, namesrv, group, *direct),
                capture_output=True,
                text=True,
                timeout=120,
                env=admin_view.env(),
            )
            assert run.returncode == 0, run.stdout + run.stderr
            return json.loads(run.stdout.strip().splitlines()[-1])

        # consumeMessage on each member: the broker forwards CONSUME_MESSAGE_DIRECTLY, the listener consumes the
        # message once more and the tool gets the listener's answer
        again = sent[7]
        assert again.offset_msg_id
        before = receipts.bodies()[bodies[7]]
        seen = view(topic, again.offset_msg_id)
        java_cid = java.owned("java-a")[0]
        assert set(seen["direct"]) == {java_cid, *(c.client_id for c in ours)}
        for cid, result in seen["direct"].items():
            assert result == {"consumeResult": "CR_SUCCESS", "order": False, "autoCommit": True, "remark": None}, cid
        assert receipts.bodies()[bodies[7]] == before + len(ours)  # each of ours consumed it once more
        languages = {c["clientId"]: c["language"] for c in seen["connections"]}
        assert languages == {java_cid: "JAVA", **{c.client_id: "PYTHON" for c in ours}}

        running = seen["running"]
        java_props = {k for k in running[java_cid]["properties"] if k.startswith("PROP_")}
        for c in ours:
            info = running[c.client_id]
            props = info["properties"]
            assert {k for k in props if k.startswith("PROP_")} == java_props  # every PROP_ a Java member sends
            assert props["PROP_CONSUME_TYPE"] == "CONSUME_PASSIVELY"
            assert props["PROP_CONSUMEORDERLY"] == "false"
            assert props["PROP_CLIENT_VERSION"] == "V5_3_3"
            assert props["PROP_NAMESERVER_ADDR"] == ";".join(cluster.namesrv_addrs)
            assert props["consumerGroup"] == group and props["messageModel"] == "CLUSTERING"
            assert set(info["topics"]) == {topic, f"%RETRY%{group}"}
            owned = {(q.broker_name, q.queue_id) for q in c.assignment(topic)}
            assert {(b, q) for t, b, q, _, _ in info["queues"] if t == topic} == owned
            assert not any(dropped for *_, dropped in info["queues"])
            assert info["jstack_first_line"] and info["jstack_first_line"].startswith('"')
        assert running[java_cid]["jstack_first_line"]

        # consumerProgress: the broker's offsets, which both sides' commits moved to the end of every queue
        def progress_done() -> bool:
            rows = [row for row in view()["progress"] if row[0] == topic]
            return len(rows) == len(mqs) and all(consumer == broker for _, _, _, broker, consumer in rows)

        wait_until(progress_done, 30, "consumerProgress to show every message committed")
    finally:
        for c in ours:
            c.shutdown()
        java.stop()
