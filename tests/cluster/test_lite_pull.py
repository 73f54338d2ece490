"""The lite pull consumers (``rr.LitePullConsumer``, ``rr.aio.LitePullConsumer``) on the real servers: assigned
queues read from exact offsets, subscribing members that split a topic's queues and resume from what they
committed, the asyncio twin, and a mixed group where ours poll beside Java's ``DefaultLitePullConsumer`` and
``DefaultMQPushConsumer`` (``tests/peers/java/LitePullMember.java`` and ``GroupMember.java``): one owner per queue
as ``allocate_all`` says, every message consumed once."""

from __future__ import annotations

import asyncio
import collections
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import Message, Producer

from .._java_peers import JavaPeer
from .test_consumer import FAST, expected_assignment, route_queues, wait_until
from .test_peers_java_group import JAVA_CLIENTS, JavaMembers

FIRST = {"consume_from_where": "CONSUME_FROM_FIRST_OFFSET"}


def _to_queue(queue_id: int) -> Any:
    def select(mqs: Sequence[Any], msg: Any, arg: Any) -> Any:
        return next(mq for mq in mqs if mq.queue_id == queue_id)

    return select


def _send(cluster: Any, topic: str, bodies: list[bytes], queue_id: int | None = None) -> None:
    with Producer(cluster.namesrv_addrs, f"pg_{topic}"[:60]) as producer:
        for body in bodies:
            if queue_id is None:
                producer.send(Message(topic, body))
            else:
                producer.send(Message(topic, body), _to_queue(queue_id), None)


def _poll_until(consumers: Sequence[rr.LitePullConsumer], n: int, timeout_s: float = 60) -> list[Any]:
    got: list[Any] = []
    deadline = time.monotonic() + timeout_s
    while len(got) < n and time.monotonic() < deadline:
        for c in consumers:
            got += c.poll(100)
    return got


def test_assigned_queues_are_read_from_exact_offsets(cluster, fresh_topic):
    topic = fresh_topic(queues=4)
    bodies = [b"a%d" % i for i in range(30)]
    _send(cluster, topic, bodies, queue_id=1)
    [mq] = [q for q in route_queues(cluster, topic) if q.queue_id == 1 and q.broker_name == "broker-a"]
    group = f"cg_lite_assign_{time.monotonic_ns()}"
    consumer = rr.LitePullConsumer(cluster.namesrv_addrs, group, auto_commit=False, **FAST, **FIRST)
    consumer.assign([mq])
    with consumer:
        assert consumer.assignment() == (mq,)
        first = _poll_until([consumer], 30)
        assert [m.body for m in first] == bodies and [m.queue_offset for m in first] == list(range(30))
        consumer.seek(mq, 12)
        again = _poll_until([consumer], 18)
        assert [m.queue_offset for m in again] == list(range(12, 30))
        consumer.seek_to_begin(mq)
        assert consumer.poll(10_000)[0].queue_offset == 0
        consumer.seek_to_end(mq)
        assert consumer.poll(1000) == []
        with pytest.raises(ValueError, match="Seek offset illegal, seek offset = 31, min offset = 0, max offset = 30"):
            consumer.seek(mq, 31)
        stored_at = first[20].store_timestamp
        assert consumer.offset_for_timestamp(mq, stored_at) <= 20  # the first stored at or after it
        assert consumer.offset_for_timestamp(mq, int(time.time() * 1000) + 60_000) == 30
        consumer.commit({mq: 17})
        assert consumer.committed(mq) == 17
        fetched = consumer.fetch_message_queues(topic)
        assert sorted(q.queue_id for q in fetched if q.broker_name == "broker-a") == [0, 1, 2, 3]
    with rr.LitePullConsumer(cluster.namesrv_addrs, group, **FAST) as later:
        later.assign([mq])
        assert later.committed(mq) == 17  # read from the broker
        assert [m.queue_offset for m in _poll_until([later], 13)] == list(range(17, 30))


def test_subscribing_members_split_the_queues_and_resume_from_what_they_committed(cluster, fresh_topic):
    topic = fresh_topic(queues=4)
    group = f"cg_lite_sub_{time.monotonic_ns()}"
    members = [
        rr.LitePullConsumer(cluster.namesrv_addrs, group, [topic], instance_name=f"lite-{i}", **FAST, **FIRST).start()
        for i in range(2)
    ]
    mqs = route_queues(cluster, topic)
    strategy = rr.AllocateMessageQueueAveragely()
    try:

        def settled() -> bool:
            want = expected_assignment(strategy, mqs, [c.client_id for c in members], group)
            return all(set(c.assignment(topic)) == want[c.client_id] for c in members)

        wait_until(settled, 60, "the two members own what AllocateMessageQueueAveragely gives each")
        bodies = [b"s%d" % i for i in range(400)]
        _send(cluster, topic, bodies)
        got: list[tuple[int, Any]] = []
        deadline = time.monotonic() + 60
        while len(got) < 400 and time.monotonic() < deadline:
            for i, c in enumerate(members):
                got += [(i, m) for m in c.poll(100)]
        counts = collections.Counter(m.body for _, m in got)
        assert set(counts) == set(bodies) and set(counts.values()) == {1}
        for i, m in got:  # each message from the member owning its queue
            assert (m.broker_name, m.queue_id) in {(q.broker_name, q.queue_id) for q in members[i].assignment()}
        assert {i for i, _ in got} == {0, 1}
    finally:
        for c in members:
            c.shutdown()  # commits what the polls returned (auto_commit)
    more = [b"t%d" % i for i in range(100)]
    _send(cluster, topic, more)
    with rr.LitePullConsumer(cluster.namesrv_addrs, group, [topic], **FAST) as again:
        got = _poll_until([again], 100)
        assert sorted(m.body for m in got) == sorted(more)  # nothing of the 400 again: their offsets were committed
        assert again.poll(1000) == []


def test_the_asyncio_lite_pull_consumer_on_the_servers(cluster, fresh_topic):
    topic = fresh_topic(queues=2)
    bodies = [b"aio%d" % i for i in range(50)]
    _send(cluster, topic, bodies)
    group = f"cg_lite_aio_{time.monotonic_ns()}"

    async def main() -> list[bytes]:
        got: list[bytes] = []
        async with rr.aio.LitePullConsumer(cluster.namesrv_addrs, group, [topic], **FAST, **FIRST) as consumer:
            async for msg in consumer:
                got.append(msg.body)
                if len(got) == len(bodies):
                    break
            await consumer.commit_sync()
            committed = [await consumer.committed(mq) for mq in consumer.assignment()]
            assert sum(committed) == len(bodies)  # each queue's offset after its last message (read from 0)
        return got

    assert sorted(asyncio.run(main())) == sorted(bodies)


@pytest.mark.servers("apache-4.9.7")
def test_a_4_9_broker_serves_a_4_9_lite_pull_consumer_and_tells_a_5_3_one_why_not(cluster, fresh_topic, caplog):
    topic = fresh_topic(queues=2)
    bodies = [b"old%d" % i for i in range(20)]
    _send(cluster, topic, bodies)
    group = f"cg_lite_49_{time.monotonic_ns()}"
    with rr.LitePullConsumer(cluster.namesrv_addrs, group, [topic], compat="4.9", **FAST, **FIRST) as consumer:
        got = _poll_until([consumer], 20)
        assert sorted(m.body for m in got) == sorted(bodies)
        mq = consumer.assignment()[0]
        consumer.seek_to_begin(mq)
        assert consumer.poll(10_000)[0].queue_offset == 0
    with rr.LitePullConsumer(cluster.namesrv_addrs, f"{group}_53", [topic], **FAST, **FIRST) as newer:
        assert newer.poll(2000) == []  # Java 5.x's lite pull consumer gets nothing from a 4.9 broker either
    assert "does not know LITE_PULL_MESSAGE" in caplog.text


class Poller:
    """Polls one of our lite pull members on a thread until stopped, recording the bodies."""

    def __init__(self, consumer: rr.LitePullConsumer) -> None:
        self.consumer = consumer
        self.bodies: collections.Counter[bytes] = collections.Counter()
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            msgs = self.consumer.poll(200)
            with self.lock:
                self.bodies.update(m.body for m in msgs)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(10)
        self.consumer.shutdown()

    def held(self, topic: str) -> set[tuple[str, int]]:
        return {(q.broker_name, q.queue_id) for q in self.consumer.assignment(topic)}

    def consumed(self) -> collections.Counter[bytes]:
        with self.lock:
            return collections.Counter(self.bodies)


GROUP_MEMBER = Path(__file__).parent.parent / "peers" / "java" / "GroupMember.java"


@pytest.fixture(scope="module")
def java_members(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], JavaPeer]:
    """(kind, Java client version) -> the peer: ``lite`` (LitePullMember, built with GroupMember's helpers) or
    ``push`` (GroupMember)."""
    peers = {}
    for v in JAVA_CLIENTS:
        peers["lite", v] = JavaPeer("LitePullMember", v, tmp_path_factory, GROUP_MEMBER)
        peers["push", v] = JavaPeer("GroupMember", v, tmp_path_factory)
    return peers


@pytest.mark.servers("apache-5.5.0")
@pytest.mark.parametrize("client", list(JAVA_CLIENTS))
def test_ours_poll_beside_java_s_lite_pull_and_push_members_of_one_group(
    cluster,
    fresh_topic,
    java_members,
    tmp_path,
    client,
):
    topic = fresh_topic(queues=8)
    group = f"cg_lite_mixed_{client.replace('.', '_')}_{time.monotonic_ns()}"
    mqs = route_queues(cluster, topic)
    namesrv = ";".join(cluster.namesrv_addrs)
    (tmp_path / "lite").mkdir()
    (tmp_path / "push").mkdir()
    java = [
        JavaMembers(java_members["lite", client], tmp_path / "lite", namesrv, group, topic, "AVG", ["java-lite"]),
        JavaMembers(java_members["push", client], tmp_path / "push", namesrv, group, topic, "AVG", ["java-push"]),
    ]
    compat = JAVA_CLIENTS[client]
    ours = [
        Poller(
            rr.LitePullConsumer(
                cluster.namesrv_addrs, group, [topic], instance_name=name, compat=compat, **FAST, **FIRST
            ).start()
        )
        for name in ("py-lite-a", "py-lite-b")
    ]
    strategy = rr.AllocateMessageQueueAveragely()
    try:

        def owners() -> dict[str, tuple[str | None, set[Any]]]:
            out = {p.consumer.instance_name: (p.consumer.client_id, p.held(topic)) for p in ours}
            for members in java:
                for name in members.names:
                    out[name] = members.owned(name)
            return out

        def settled() -> bool:
            now = owners()
            if any(cid is None for cid, _ in now.values()):
                return False
            want = expected_assignment(strategy, mqs, [cid for cid, _ in now.values()], group)
            return all(owned == {(q.broker_name, q.queue_id) for q in want[cid]} for cid, owned in now.values())

        wait_until(settled, 90, "the four members own what AllocateMessageQueueAveragely gives each")
        held = [q for _, owned in owners().values() for q in owned]
        assert len(held) == len(mqs) and all(owned for _, owned in owners().values())  # one owner each, all own

        bodies = [b"lite-mixed-%d" % i for i in range(2000)]
        _send(cluster, topic, bodies)

        def total() -> collections.Counter[bytes]:
            out: collections.Counter[bytes] = collections.Counter()
            for p in ours:
                out += p.consumed()
            for members in java:
                out += members.consumed()
            return out

        wait_until(lambda: set(bodies) <= set(total()), 90, "every message consumed by the mixed group")
        time.sleep(1)  # a duplicate would arrive now
        counts = total()
        assert all(counts[b] == 1 for b in bodies), [b for b in bodies if counts[b] != 1][:5]
        assert all(sum(p.consumed().values()) > 0 for p in ours)
        assert all(sum(m.consumed().values()) > 0 for m in java)
    finally:
        for p in ours:
            p.stop()
        for members in java:
            members.stop()
