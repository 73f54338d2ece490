"""Issue 29, namespaces on Apache's brokers: two namespaces, each with a topic ``Orders`` and a consumer group
``Billing``, do not see each other's messages. The brokers hold them under ``namespace%Orders``; the send results
and the consumed messages show ``Orders``; a message a listener asks to see again comes back through
``%RETRY%namespace%Billing``, still as ``Orders``."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Message, Producer

from .harness import Cluster
from .test_consumer import FAST, wait_until

pytestmark = pytest.mark.servers("apache-5.5.0", "apache-4.9.7")


def test_two_namespaces_with_the_same_names_do_not_see_each_other(cluster: Cluster) -> None:
    run = time.monotonic_ns()
    spaces = [f"MQ_INST_a{run}", f"MQ_INST_b{run}"]
    for ns in spaces:
        cluster.create_topic(f"{ns}%Orders", 2, ["broker-a"])
    lock = threading.Lock()
    got: dict[str, list[tuple[bytes, str, int]]] = {ns: [] for ns in spaces}

    def listener(ns: str) -> Any:
        def listen(msgs: list[Any], context: Any) -> Any:
            context.delay_level_when_next_consume = 1
            with lock:
                got[ns].extend((m.body, m.topic, m.reconsume_times) for m in msgs)
            # the "again" message is asked for once more: it comes back through the namespace's retry topic
            if any(m.body.endswith(b"again") and m.reconsume_times == 0 for m in msgs):
                return ConsumeConcurrentlyStatus.RECONSUME_LATER
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        return listen

    consumers = [
        Consumer(
            cluster.namesrv_addrs,
            "Billing",
            ["Orders"],
            listener=listener(ns),
            namespace=ns,
            compat=cluster.compat,
            instance_name=f"ns-{i}",
            consume_from_where="CONSUME_FROM_FIRST_OFFSET",
            **FAST,
        ).start()
        for i, ns in enumerate(spaces)
    ]
    try:
        results = {}
        for ns in spaces:
            with Producer(cluster.namesrv_addrs, "Billing", namespace=ns, compat=cluster.compat) as producer:
                results[ns] = [producer.send(Message("Orders", f"{ns} {i}".encode())) for i in range(4)]
                results[ns].append(producer.send(Message("Orders", f"{ns} again".encode())))
        for ns in spaces:
            assert {r.queue.topic for r in results[ns]} == {"Orders"}
            cluster.wait_dispatched("broker-a")
            assert sum(cluster.max_offset("broker-a", f"{ns}%Orders", q) for q in range(2)) == 5

        def done() -> bool:
            with lock:
                return all(sum(1 for _, _, n in got[ns] if n == 1) == 1 for ns in spaces)

        wait_until(done, 60, "each namespace's 'again' message back once through its retry topic")
        for c, ns in zip(consumers, spaces, strict=True):  # the plain topic names the queues it owns
            assert {mq.topic for mq in c.assignment("Orders")} == {f"{ns}%Orders"}
        time.sleep(1)
    finally:
        for c in consumers:
            c.shutdown()
    for ns in spaces:
        bodies = {b for b, _, _ in got[ns]}
        assert bodies == {f"{ns} {i}".encode() for i in range(4)} | {f"{ns} again".encode()}
        assert {t for _, t, _ in got[ns]} == {"Orders"}  # the plain topic, the retried one's too
        assert consumers[spaces.index(ns)].group == f"{ns}%Billing"
        assert cluster.consumer_ids("broker-a", f"{ns}%Billing") == []  # left at shutdown


def test_the_production_guide_example_runs(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/guide/production.md's `<!-- test: ns-cluster -->` block: the message is stored under the wrapped topic."""
    from ..test_docs import ROOT, python_blocks

    (block,) = python_blocks(ROOT / "docs" / "guide" / "production.md", "ns-cluster")
    topic = f"rr_ns_doc_{time.monotonic_ns()}"
    cluster.create_topic(f"MQ_INST_shop%{topic}", 1, ["broker-a"])
    code = block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs)).replace("TopicTest", topic)
    exec(compile(code, "production.md ns-cluster block", "exec"), {})
    assert capsys.readouterr().out == f"MQ_INST_shop%Billing {topic}\n"
    cluster.wait_dispatched("broker-a")
    assert cluster.max_offset("broker-a", f"MQ_INST_shop%{topic}", 0) == 1
