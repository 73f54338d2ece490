"""Issue 29, transactions: ``rr.TransactionProducer`` on Apache 5.5.0 and 4.9.7, the broker's transaction check
shortened (``transactionTimeOut`` 1 s, ``transactionCheckInterval`` 1 s). A consumer of the topic runs throughout:
what it receives is the proof. Committed messages are consumed, rolled-back ones never; a transaction left unknown
(or whose executor raised) is checked by the broker and ends as the checker says; and a producer that dies between
the half message and its end (``os._exit`` inside the executor, in a child process) has its transaction checked
by a new producer of the same group."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from rocketroute.client import (
    ConsumeConcurrentlyStatus,
    Consumer,
    LocalTransactionState,
    Message,
    TransactionProducer,
)

from .harness import Cluster
from .test_consumer import FAST, wait_until

pytestmark = pytest.mark.servers("apache-5.5.0", "apache-4.9.7")

TOPIC = "TxTopic"
CHECK_S = 1.0
COMMIT, ROLLBACK, UNKNOW = (
    LocalTransactionState.COMMIT_MESSAGE,
    LocalTransactionState.ROLLBACK_MESSAGE,
    LocalTransactionState.UNKNOW,
)


class Received:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bodies: list[bytes] = []

    def listener(self, msgs: list[Any], context: Any) -> Any:
        with self.lock:
            self.bodies.extend(m.body for m in msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    def has(self, body: bytes) -> bool:
        with self.lock:
            return body in self.bodies


@pytest.fixture(scope="module")
def tx_cluster(server_impl: str) -> Iterator[tuple[Cluster, Received]]:
    config = {
        "transactionTimeOut": str(int(CHECK_S * 1000)),
        "transactionCheckInterval": str(int(CHECK_S * 1000)),
        "transactionCheckMax": "15",
    }
    with Cluster(1, 1, impl=server_impl, broker_config=config) as c:
        c.create_topic(TOPIC, 2)
        received = Received()
        with Consumer(
            c.namesrv_addrs,
            "cg_tx",
            [TOPIC],
            listener=received.listener,
            compat=c.compat,
            consume_from_where="CONSUME_FROM_FIRST_OFFSET",
            **FAST,
        ):
            yield c, received


def _body(name: str) -> bytes:
    return f"{name}-{time.monotonic_ns()}".encode()


def _group() -> str:
    return f"pg_tx_{time.monotonic_ns()}"


def _never(received: Received, body: bytes, marker: bytes) -> None:
    """``body`` is not consumed: the ``marker`` (committed after it) is, and several check rounds later ``body``
    still is not."""
    wait_until(lambda: received.has(marker), 30, "the committed marker consumed")
    time.sleep(4 * CHECK_S)
    assert not received.has(body)


def test_committed_messages_are_consumed_and_rolled_back_ones_never(tx_cluster: tuple[Cluster, Received]) -> None:
    cluster, received = tx_cluster
    seen: list[tuple[Message, Any]] = []

    def executor(msg: Message, arg: Any) -> LocalTransactionState:
        seen.append((msg, arg))
        return arg  # type: ignore[no-any-return]

    def checker(msg: Any) -> LocalTransactionState:
        raise AssertionError(f"a transaction that got its word was checked: {msg}")

    committed, rolled_back, marker = _body("commit"), _body("rollback"), _body("marker")
    with TransactionProducer(
        cluster.namesrv_addrs, _group(), executor=executor, checker=checker, compat=cluster.compat
    ) as producer:
        r1 = producer.send_message_in_transaction(Message(TOPIC, committed, keys="order-1"), COMMIT)
        r2 = producer.send_message_in_transaction(Message(TOPIC, rolled_back), ROLLBACK)
        r3 = producer.send_message_in_transaction(Message(TOPIC, marker), COMMIT)
        wait_until(lambda: received.has(committed), 30, "the committed message consumed")
        _never(received, rolled_back, marker)
    assert (r1.local_transaction_state, r2.local_transaction_state, r3.local_transaction_state) == (
        COMMIT, ROLLBACK, COMMIT
    )  # fmt: skip
    assert r1.send_status.name == "SEND_OK" and r1.msg_id
    # the executor saw a copy of the message with the half message's id, and the arg
    assert [(m.body, m.transaction_id, a) for m, a in seen] == [
        (committed, r1.msg_id, COMMIT), (rolled_back, r2.msg_id, ROLLBACK), (marker, r3.msg_id, COMMIT)
    ]  # fmt: skip


def test_unknown_transactions_are_checked_and_end_as_the_checker_says(tx_cluster: tuple[Cluster, Received]) -> None:
    cluster, received = tx_cluster
    to_commit, to_roll_back, raised, marker = (
        _body("check-commit"),
        _body("check-rollback"),
        _body("raised"),
        _body("m"),
    )
    answers = {to_commit: COMMIT, to_roll_back: ROLLBACK, raised: COMMIT, marker: COMMIT}
    checked: list[tuple[bytes, str | None, str]] = []

    def executor(msg: Message, arg: Any) -> LocalTransactionState | None:
        if msg.body == raised:
            raise RuntimeError("the local transaction failed half-way")
        return None if msg.body == marker else UNKNOW  # None counts as UNKNOW, as Java's null

    def checker(msg: Any) -> LocalTransactionState:
        checked.append((msg.body, msg.transaction_id, threading.current_thread().name))
        return answers[msg.body]

    with TransactionProducer(
        cluster.namesrv_addrs, _group(), executor=executor, checker=checker, compat=cluster.compat
    ) as producer:
        results = {
            body: producer.send_message_in_transaction(Message(TOPIC, body))
            for body in (to_commit, to_roll_back, raised, marker)
        }
        assert {r.local_transaction_state for r in results.values()} == {UNKNOW}
        wait_until(lambda: received.has(to_commit) and received.has(raised), 60, "the checked commits consumed")
        _never(received, to_roll_back, marker)
    firsts = {body: (tid, thread) for body, tid, thread in checked}
    assert set(firsts) == set(answers)
    for body, (tid, thread) in firsts.items():
        assert tid == results[body].msg_id  # the checker's message carries the transaction's id
        assert thread.startswith("rocketroute-tx-check-")


_CHILD = """
import os, sys
from rocketroute.client import Message, TransactionProducer

def executor(msg, arg):
    print(msg.transaction_id, flush=True)
    os._exit(0)  # dies between the half message and its end

def checker(msg):
    raise AssertionError("the dying producer is not asked")

namesrv, group, topic, body, compat = sys.argv[1:]
producer = TransactionProducer(namesrv, group, executor=executor, checker=checker, compat=compat).start()
producer.send_message_in_transaction(Message(topic, body.encode()))
"""


def test_a_producer_that_died_mid_transaction_is_checked_through_a_new_one(
    tx_cluster: tuple[Cluster, Received],
) -> None:
    cluster, received = tx_cluster
    group, body = _group(), _body("orphan")
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, ";".join(cluster.namesrv_addrs), group, TOPIC, body.decode(), cluster.compat],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.returncode == 0, child.stderr
    transaction_id = child.stdout.strip()
    assert transaction_id
    time.sleep(3 * CHECK_S)  # checks found no producer of the group: the message stays half
    assert not received.has(body)
    checked: list[str | None] = []

    def checker(msg: Any) -> LocalTransactionState:
        checked.append(msg.transaction_id)
        return COMMIT if msg.body == body else UNKNOW

    def executor(msg: Message, arg: Any) -> LocalTransactionState:
        raise AssertionError("nothing is sent")

    with TransactionProducer(cluster.namesrv_addrs, group, executor=executor, checker=checker, compat=cluster.compat):
        wait_until(lambda: received.has(body), 60, "the orphan transaction committed through the new producer")
    assert transaction_id in checked


def test_the_production_guide_example_runs(
    tx_cluster: tuple[Cluster, Received], capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/guide/production.md's `<!-- test: tx-cluster -->` block: committed, and consumed."""
    from ..test_docs import ROOT, python_blocks

    cluster, received = tx_cluster
    (block,) = python_blocks(ROOT / "docs" / "guide" / "production.md", "tx-cluster")
    body = _body("order 42 paid")
    code = (
        block.replace("127.0.0.1:9876", ";".join(cluster.namesrv_addrs))
        .replace("TopicTest", TOPIC)
        .replace('b"order 42 paid"', repr(body))
        .replace('"PaymentProducers"', repr(_group()))
    )
    exec(compile(code, "production.md tx-cluster block", "exec"), {})
    assert capsys.readouterr().out == "SEND_OK COMMIT_MESSAGE\n"
    wait_until(lambda: received.has(body), 30, "the example's committed message consumed")
