"""Java and Python members in one consumer group, live: two real ``DefaultMQPushConsumer`` members (the
``rocketmq-client`` 4.9.8 or 5.5.0 jar that ``make clients`` resolved, driven by ``tests/peers/java/GroupMember.java``)
and two ``rr.Consumer`` members share a topic of 8 + 8 queues, both sides with the same allocation strategy. Once the
group settles, each queue has exactly one owner and every owner holds what ``allocate_all`` gives it over the four
client ids; 2,000 messages sent then are each consumed once, by whichever member owns their queue.

``AllocateMessageQueueAveragely`` runs with both Java releases on every server implementation; the other strategies
with the 5.5.0 client on Apache 5.5.0: by circle, consistent hash, machine-room nearby (one resolver on both sides),
by machine room (brokers named ``room1@broker-a`` and ``room2@broker-b``, every member in both rooms) and by config
(each member configured with its own quarter of the queues: there the owners are what the operator wrote, and the
test shows both clients consume exactly their lists). A member joining and one leaving mid-stream, and an orderly
mixed group, run on both server implementations."""

from __future__ import annotations

import collections
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeOrderlyStatus, Consumer, Message, Producer

from .._java_peers import JavaPeer
from .harness import Cluster
from .test_consumer import FAST, Receipts, expected_assignment, route_queues, wait_until

JAVA_CLIENTS = {"4.9.8": "4.9", "5.5.0": "5.3"}
JAVA_REBALANCE_INTERVAL = "-Drocketmq.client.rebalance.waitInterval=2000"
"""The Java members rebalance every 2 s (``RebalanceService``'s property; 20 s by default), as ours do with
``FAST``: the group settles in seconds. A change of members still reaches them at once, by the brokers' notice."""


@pytest.fixture(scope="module")
def group_member(tmp_path_factory: pytest.TempPathFactory) -> dict[str, JavaPeer]:
    return {version: JavaPeer("GroupMember", version, tmp_path_factory) for version in JAVA_CLIENTS}


class JavaMembers:
    """The Java members' process and what their files say."""

    def __init__(
        self,
        peer: JavaPeer,
        work: Path,
        namesrv: str,
        group: str,
        topic: str,
        strategy: str,
        names: list[str],
        *,
        orderly: bool = False,
        jvm: tuple[str, ...] = (),
    ) -> None:
        self.work, self.names = work, names
        self.log = open(work / "java.log", "w")
        jvm = (JAVA_REBALANCE_INTERVAL, f"-Dgroupmember.orderly={str(orderly).lower()}", *jvm)
        self.proc = subprocess.Popen(
            peer.command(work, namesrv, group, topic, str(work), strategy, *names, jvm=jvm),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=peer.env(),
        )

    def owned(self, name: str) -> tuple[str | None, set[tuple[str, int]]]:
        path = self.work / f"{name}.owned"
        if not path.exists():
            return None, set()
        lines = path.read_text().splitlines()
        if not lines:
            return None, set()
        return lines[0], {(b, int(q)) for b, q in (line.split() for line in lines[1:])}

    def consumed_at(self) -> list[tuple[bytes, int, str]]:
        """``(body, wall clock ms, member)`` of every message the members consumed, each member's in order."""
        out = []
        for name in self.names:
            path = self.work / f"{name}.consumed"
            if path.exists():
                for line in path.read_text().split("\n")[:-1]:  # whole lines: the last may be being written
                    body, at = line.split()
                    out.append((bytes.fromhex(body), int(at), name))
        return out

    def consumed(self) -> collections.Counter[bytes]:
        return collections.Counter(body for body, _, _ in self.consumed_at())

    def stop_member(self, name: str) -> None:
        """Shut one member down (the others keep running); returns once it has."""
        (self.work / f"{name}.stop").touch()
        deadline = time.monotonic() + 60
        while self.owned(name)[0] is not None:
            assert time.monotonic() < deadline, f"{name} did not shut down"
            time.sleep(0.1)

    def stop(self) -> None:
        for name in self.names:
            (self.work / f"{name}.stop").touch()
        try:
            self.proc.wait(60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.log.close()


def python_member(
    cluster: Any,
    group: str,
    topic: str,
    strategy: Any,
    name: str,
    listener: Any,
    *,
    compat: str = "5.3",
    orderly: bool = False,
) -> Consumer:
    """A started ``rr.Consumer`` member of a mixed group: from the first offset, rebalancing every second."""
    return Consumer(
        cluster.namesrv_addrs,
        group,
        [topic],
        strategy,
        instance_name=name,
        listener=listener,
        orderly=orderly,
        consume_from_where="CONSUME_FROM_FIRST_OFFSET",
        compat=compat,
        **FAST,
    ).start()


def owners_by_queue(ours: list[Consumer], java: JavaMembers, topic: str) -> dict[tuple[str, int], str]:
    """Each owned queue of ``topic`` -> its owner's client id (``"(two owners)"`` when two members hold it)."""
    by_queue: dict[tuple[str, int], str] = {}
    held = [(c.client_id, {(q.broker_name, q.queue_id) for q in c.assignment(topic)}) for c in list(ours)]
    held += [java.owned(name) for name in java.names]
    for cid, owned in held:
        for q in owned:
            by_queue[q] = cid if q not in by_queue else "(two owners)"
    return by_queue


def settled_as_allocated(
    now: dict[tuple[str, int], str], members: int, strategy: Any, mqs: list[Any], group: str
) -> bool:
    """``members`` members own every queue, one owner each, as ``allocate_all`` over their ids says."""
    cids = sorted(set(now.values()))
    if len(cids) != members or "(two owners)" in cids or len(now) != len(mqs):
        return False
    want = expected_assignment(strategy, mqs, cids, group)
    return all(now[(q.broker_name, q.queue_id)] == cid for cid, qs in want.items() for q in qs)


def _room(name: str) -> str:
    return name.split("-")[1]


STRATEGIES: dict[str, Any] = {
    "AVG": rr.AllocateMessageQueueAveragely,
    "AVG_BY_CIRCLE": rr.AllocateMessageQueueAveragelyByCircle,
    "CONSISTENT_HASH": rr.AllocateMessageQueueConsistentHash,
    # GroupMember.java's resolver: a broker's room is its name after '-', a member's the same of its instance name
    "MACHINE_ROOM_NEARBY-AVG": lambda: rr.AllocateMachineRoomNearby(
        rr.AllocateMessageQueueAveragely(),
        broker_deploy_in=lambda mq: _room(mq.broker_name),
        consumer_deploy_in=lambda cid: _room(cid.split("@")[1]),
    ),
}

ROOM_BROKERS = ["room1@broker-a", "room2@broker-b"]
"""``AllocateMessageQueueByMachineRoom`` allocates only queues of brokers named ``IDC@NAME`` in its rooms."""

CONFIGURED = {
    "java-a": ("broker-a", range(0, 4)),
    "java-b": ("broker-b", range(0, 4)),
    "py-a": ("broker-a", range(4, 8)),
    "py-b": ("broker-b", range(4, 8)),
}
"""``AllocateMessageQueueByConfig``: each member's own quarter of the 8 + 8 queues."""


@pytest.mark.parametrize("client", list(JAVA_CLIENTS))
def test_java_and_python_members_share_one_group(cluster, fresh_topic, group_member, tmp_path, client):
    topic = fresh_topic(queues=8)
    run_mixed_group(cluster, topic, group_member[client], tmp_path, JAVA_CLIENTS[client], "AVG")


@pytest.mark.servers("apache-5.5.0")
@pytest.mark.parametrize("strategy", [name for name in STRATEGIES if name != "AVG"])
def test_java_and_python_members_share_one_group_with_each_strategy(
    cluster, fresh_topic, group_member, tmp_path, strategy
):
    run_mixed_group(cluster, fresh_topic(queues=8), group_member["5.5.0"], tmp_path, "5.3", strategy)


@pytest.fixture(scope="module")
def room_cluster(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Apache RocketMQ 5.5.0 with its two brokers in two machine rooms: ``room1@broker-a``, ``room2@broker-b``."""
    with Cluster(1, 2, impl="apache-5.5.0", broker_names=ROOM_BROKERS, base_dir=tmp_path_factory.mktemp("rooms")) as c:
        yield c


def test_java_and_python_members_share_one_group_by_machine_room(room_cluster, group_member, tmp_path):
    topic = f"RoomTopic{time.monotonic_ns()}"
    room_cluster.create_topic(topic, 8)
    plan = GroupPlan(
        java="MACHINE_ROOM:room1,room2",
        ours=lambda name: rr.AllocateMessageQueueByMachineRoom({"room1", "room2"}),
        strategy_name="MACHINE_ROOM",
    )
    run_mixed_group(room_cluster, topic, group_member["5.5.0"], tmp_path, "5.3", plan)


@pytest.mark.servers("apache-5.5.0")
def test_java_and_python_members_each_consume_their_configured_queues(cluster, fresh_topic, group_member, tmp_path):
    topic = fresh_topic(queues=8)
    mine = {name: [rr.MessageQueue(topic, b, q) for q in ids] for name, (b, ids) in CONFIGURED.items()}
    config = tuple(
        f"-Dgroupmember.config.{name}=" + ",".join(f"{q.broker_name}/{q.queue_id}" for q in mine[name])
        for name in ("java-a", "java-b")
    )
    plan = GroupPlan(
        java="CONFIG",
        ours=lambda name: rr.AllocateMessageQueueByConfig(mine[name]),
        strategy_name="CONFIG",
        jvm=config,
        configured={name: {(q.broker_name, q.queue_id) for q in qs} for name, qs in mine.items()},
    )
    run_mixed_group(cluster, topic, group_member["5.5.0"], tmp_path, "5.3", plan)


@dataclass(frozen=True)
class GroupPlan:
    """One strategy on both sides: GroupMember.java's STRATEGY argument (and JVM options), a Python member's
    strategy by its name, and, for CONFIG, what each member was configured to own (else ``allocate_all`` says)."""

    java: str
    ours: Callable[[str], Any]
    strategy_name: str
    jvm: tuple[str, ...] = ()
    configured: dict[str, set[tuple[str, int]]] | None = None

    @staticmethod
    def same(strategy_name: str) -> GroupPlan:
        """A strategy both sides build alike from its name (``STRATEGIES``)."""
        return GroupPlan(strategy_name, lambda name: STRATEGIES[strategy_name](), strategy_name)


def run_mixed_group(cluster, topic: str, peer: JavaPeer, tmp_path: Path, compat: str, plan: GroupPlan | str) -> None:
    if isinstance(plan, str):
        plan = GroupPlan.same(plan)
    group = f"cg_mixed_{peer.version.replace('.', '_')}_{plan.strategy_name.replace('-', '_')}_{time.monotonic_ns()}"
    mqs = route_queues(cluster, topic)
    assert len(mqs) == 16
    strategies = {name: plan.ours(name) for name in ("py-a", "py-b")}
    assert {s.name for s in strategies.values()} == {plan.strategy_name}
    namesrv = ";".join(cluster.namesrv_addrs)
    java = JavaMembers(peer, tmp_path, namesrv, group, topic, plan.java, ["java-a", "java-b"], jvm=plan.jvm)
    receipts = Receipts()
    ours: dict[str, Consumer] = {}
    try:
        for name, strategy in strategies.items():
            ours[name] = python_member(cluster, group, topic, strategy, name, receipts.listener(name), compat=compat)

        def owners() -> dict[str, tuple[str | None, set[Any]]]:
            """member name -> (client id, the queues it holds)"""
            out = {
                name: (c.client_id, {(q.broker_name, q.queue_id) for q in c.assignment(topic)})
                for name, c in ours.items()
            }
            for name in java.names:
                out[name] = java.owned(name)
            return out

        def wanted(now: dict[str, tuple[str | None, set[Any]]]) -> dict[str, set[Any]]:
            if plan.configured is not None:
                return plan.configured
            by_cid = expected_assignment(strategies["py-a"], mqs, [cid for cid, _ in now.values()], group)
            return {name: {(q.broker_name, q.queue_id) for q in by_cid[cid]} for name, (cid, _) in now.items()}

        def settled() -> bool:
            now = owners()
            if any(cid is None for cid, _ in now.values()):
                return False
            want = wanted(now)
            return all(owned == want[name] for name, (_, owned) in now.items())

        wait_until(settled, 60, f"the four members own what {plan.strategy_name} gives each")
        final = {name: owned for name, (_, owned) in owners().items()}
        held = [q for owned in final.values() for q in owned]
        assert len(held) == 16 and set(held) == {(q.broker_name, q.queue_id) for q in mqs}  # one owner each
        # every member owns some, except where the consistent-hash ring happens to give one nothing; each side does
        assert all(final.values()) or plan.strategy_name == "CONSISTENT_HASH", final
        assert any(final[n] for n in ours) and any(final[n] for n in java.names), final

        bodies = [b"mixed-%d" % i for i in range(2000)]
        with Producer(cluster.namesrv_addrs, "pg-mixed", compat=compat) as producer:
            for body in bodies:
                producer.send(Message(topic, body))

        def all_consumed() -> bool:
            return set(bodies) <= set(java.consumed() + receipts.bodies())

        wait_until(all_consumed, 60, "every message consumed by the mixed group")
        time.sleep(1)  # a duplicate would arrive now
        total = java.consumed() + receipts.bodies()
        assert all(total[b] == 1 for b in bodies), [b for b in bodies if total[b] != 1][:5]
        assert sum(java.consumed().values()) > 0 and sum(receipts.bodies().values()) > 0  # both sides consumed
    finally:
        for c in ours.values():
            c.shutdown()
        java.stop()


@pytest.mark.servers("apache-5.5.0")  # on rust-1.0.0 too in test_consumer.py (Python members only)
def test_a_python_member_joins_and_a_java_member_leaves_mid_stream(cluster, fresh_topic, group_member, tmp_path):
    """While 3,000 messages stream in, ``py-b`` joins a group of ``java-a``, ``java-b`` and ``py-a``, then
    ``java-b`` leaves. Nothing is lost; a message consumed twice is on a queue that changed hands; and within one
    rebalance interval (Java's 20 s) of the leave every queue has exactly one owner, as ``allocate_all`` says."""
    topic = fresh_topic(queues=8)
    group = f"cg_churn_{time.monotonic_ns()}"
    mqs = route_queues(cluster, topic)
    strategy = rr.AllocateMessageQueueAveragely()
    java = JavaMembers(
        group_member["5.5.0"], tmp_path, ";".join(cluster.namesrv_addrs), group, topic, "AVG", ["java-a", "java-b"]
    )
    receipts = Receipts()
    ours: list[Consumer] = []

    def join(name: str) -> None:
        ours.append(python_member(cluster, group, topic, strategy, name, receipts.listener(name)))

    def owners() -> dict[tuple[str, int], str]:
        return owners_by_queue(ours, java, topic)

    def settled(members: int) -> bool:
        return settled_as_allocated(owners(), members, strategy, mqs, group)

    try:
        join("py-a")
        wait_until(lambda: settled(3), 60, "java-a, java-b and py-a settle")
        first = owners()
        changed: set[tuple[str, int]] = set()
        sent: dict[bytes, tuple[str, int]] = {}
        done = threading.Event()

        def produce() -> None:
            with Producer(cluster.namesrv_addrs, "pg-churn") as producer:
                for i in range(3000):
                    body = b"churn-%d" % i
                    result = producer.send(Message(topic, body))
                    sent[body] = (result.queue.broker_name, result.queue.queue_id)
                    time.sleep(0.004)
            done.set()

        def watch() -> None:  # every queue that ever had another owner than at first
            while not done.is_set():
                changed.update(q for q, cid in owners().items() if first.get(q) != cid)
                time.sleep(0.1)

        threads = [threading.Thread(target=produce), threading.Thread(target=watch)]
        for t in threads:
            t.start()
        time.sleep(3)
        join("py-b")
        time.sleep(3)
        java.stop_member("java-b")
        wait_until(lambda: settled(3), 25, "no queue without an owner one rebalance interval after the leave")
        for t in threads:
            t.join(120)
        changed.update(q for q, cid in owners().items() if first.get(q) != cid)

        bodies = list(sent)
        assert len(bodies) == 3000
        wait_until(lambda: set(bodies) <= set(java.consumed() + receipts.bodies()), 90, "every message consumed")
        time.sleep(1)  # a late duplicate would arrive now
        total = java.consumed() + receipts.bodies()
        assert not [b for b in bodies if total[b] == 0]  # nothing lost
        twice = [b for b in bodies if total[b] > 1]
        assert all(sent[b] in changed for b in twice), [(b, sent[b]) for b in twice if sent[b] not in changed][:5]
        assert changed  # the join and the leave moved queues
    finally:
        for c in ours:
            c.shutdown()
        java.stop()


@pytest.mark.servers("apache-5.5.0", "rust-1.0.0")
def test_per_key_order_holds_across_a_mixed_orderly_group_through_a_rebalance(
    cluster, fresh_topic, group_member, tmp_path
):
    """Orderly members on both sides (Java's ``MessageListenerOrderly``, ``rr.Consumer(orderly=True)``): keyed
    messages go out with ``SelectMessageQueueByHash`` while ``py-b`` joins ``java-a``, ``java-b`` and ``py-a`` and
    then ``java-b`` leaves, so queues change hands between Java and Python members. Merged across the members by
    the time each consumed them, every key's messages come in the order they were sent: none before an earlier
    one of its key (a hand-over may repeat the last ones, Java's at-least-once), none lost."""
    topic = fresh_topic(queues=4)
    group = f"cg_mixed_orderly_{time.monotonic_ns()}"
    mqs = route_queues(cluster, topic)
    strategy = rr.AllocateMessageQueueAveragely()
    java = JavaMembers(
        group_member["5.5.0"],
        tmp_path,
        ";".join(cluster.namesrv_addrs),
        group,
        topic,
        "AVG",
        ["java-a", "java-b"],
        orderly=True,
    )
    records: list[tuple[bytes, int, str]] = []
    lock = threading.Lock()
    ours: list[Consumer] = []

    def join(name: str) -> None:
        def listen(msgs: list[Any], context: Any) -> Any:
            for m in msgs:
                with lock:
                    records.append((m.body, time.time_ns() // 1_000_000, name))
                time.sleep(0.001)
            return ConsumeOrderlyStatus.SUCCESS

        ours.append(python_member(cluster, group, topic, strategy, name, listen, orderly=True))

    def settled(members: int) -> bool:
        return settled_as_allocated(owners_by_queue(ours, java, topic), members, strategy, mqs, group)

    keys = [f"key-{i}" for i in range(24)]
    sent: collections.Counter[str] = collections.Counter()
    try:
        join("py-a")
        wait_until(lambda: settled(3), 60, "java-a, java-b and py-a settle")

        def produce() -> None:
            with Producer(cluster.namesrv_addrs, "pg-mixed-orderly") as producer:
                for i in range(1500):
                    key = keys[i % len(keys)]
                    producer.send(Message(topic, f"{key}:{sent[key]}".encode()), rr.SelectMessageQueueByHash(), key)
                    sent[key] += 1
                    time.sleep(0.003)

        sender = threading.Thread(target=produce)
        sender.start()
        time.sleep(2)
        join("py-b")
        time.sleep(2)
        java.stop_member("java-b")
        sender.join(120)
        wait_until(lambda: settled(3), 25, "java-a, py-a and py-b settle after the leave")
        total = sum(sent.values())

        def consumed() -> list[tuple[bytes, int, str]]:
            with lock:
                return java.consumed_at() + list(records)

        wait_until(lambda: len({body for body, _, _ in consumed()}) >= total, 90, "every message consumed")
        time.sleep(1)
        merged = sorted(consumed(), key=lambda r: r[1])  # stable: each member's own order kept within a ms
        seqs: dict[str, list[int]] = collections.defaultdict(list)
        members: dict[str, set[str]] = collections.defaultdict(set)
        for body, _, name in merged:
            key, seq = body.decode().split(":")
            seqs[key].append(int(seq))
            members[key].add(name)
        for key in keys:
            highest = -1
            for n, seq in enumerate(seqs[key]):
                assert seq <= highest + 1, (
                    f"{key}: {seq} consumed after only {highest} (around {seqs[key][max(0, n - 5) : n + 3]})"
                )
                highest = max(highest, seq)
            assert set(seqs[key]) == set(range(sent[key])), f"{key}: lost {set(range(sent[key])) - set(seqs[key])}"
        # some keys changed hands between a Java and a Python member
        assert any({"java-a", "java-b"} & names and {"py-a", "py-b"} & names for names in members.values())
    finally:
        for c in ours:
            c.shutdown()
        java.stop()
