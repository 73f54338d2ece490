"""The rebalancer on its own, without a consumer, on both backends (their ``MessageQueue`` and strategy): built as a
consumer builds it at start (the subscription state, the strategy, the broker requests and addresses, an offset store
on the broker, the queues' limits, the locks of an orderly consumer), over a fake broker over TCP whose member list
the test sets, with a puller that records what it is asked. It takes the strategy's share of a topic from where the
broker's offsets say, gives up what another member takes (committing its offset), takes no queue whose broker lock
another member holds, and ends its wait for the next round when a broker tells it the members changed."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

from rocketroute.client.api import BrokerAPI
from rocketroute.client.broker_addrs import BrokerAddrTable
from rocketroute.client.consumer.offset_store import RemoteBrokerOffsetStore
from rocketroute.client.consumer.process_queue import ProcessQueue
from rocketroute.client.consumer.queue_limits import QueueLimits
from rocketroute.client.consumer.queue_locks import QueueLocks
from rocketroute.client.consumer.rebalance import Rebalancer
from rocketroute.client.consumer.settings import ConsumerSettings
from rocketroute.client.consumer.stats import ConsumerStats
from rocketroute.client.consumer.subscription import build_subscription, retry_topic
from rocketroute.client.consumer.subscription_state import SubscriptionState
from rocketroute.net import RemotingClient

from ._fake_cluster import LOCK_BATCH_MQ, SUCCESS, UNLOCK_BATCH_MQ, UPDATE_CONSUMER_OFFSET, FakeBroker

ME, OTHER = "10.0.0.1@me", "10.0.0.2@other"


class Pulls:
    """The puller's side of a rebalance: the queues it was told to start (with their offsets) and to stop."""

    def __init__(self) -> None:
        self.started: dict[Any, int] = {}
        self.stopped: list[Any] = []

    def start_pull(self, mq: Any, pq: ProcessQueue, offset: int) -> None:
        self.started[mq] = offset

    def stop_pull(self, mq: Any) -> None:
        self.stopped.append(mq)


class Parts:
    """A rebalancer of group ``G`` (client id :data:`ME`) subscribed to ``T``, whose route offers 4 queues on
    ``broker-a``, and what it was built with."""

    def __init__(self, broker: FakeBroker, client: RemotingClient, backend: Any, *, orderly: bool = False) -> None:
        self.backend = backend
        self.queues = [backend.MessageQueue("T", "broker-a", i) for i in range(4)]
        settings = ConsumerSettings.resolve("5.3", None, {})
        self.state = SubscriptionState({"T": build_subscription("T", "*")}, "5.3")
        self.state.subscribe_info["T"] = list(self.queues)
        addrs = BrokerAddrTable()
        addrs.update(
            SimpleNamespace(broker_datas=[SimpleNamespace(broker_name="broker-a", broker_addrs={0: broker.addr})])
        )
        api = BrokerAPI(client.async_client, "5.3")
        self.offsets = RemoteBrokerOffsetStore("G", api, addrs.master, timeout_ms=3000)
        self.pulls = Pulls()
        self.changes: list[tuple[str, tuple[Any, ...]]] = []
        self.heartbeats = 0
        self.routes_asked: list[str] = []
        self.limits = QueueLimits(settings)
        locks = QueueLocks(
            "G", ME, api=api, master_addr=addrs.master, state=self.state, message_queue=backend.MessageQueue
        )

        async def update_route(topic: str, timeout_ms: int) -> bool:
            self.routes_asked.append(topic)
            return False  # no route on the name servers

        async def heartbeat() -> None:
            self.heartbeats += 1

        self.rebalancer = Rebalancer(
            "G",
            ME,
            settings,
            self.state,
            backend.AllocateMessageQueueAveragely(),
            clustering=True,
            api=api,
            broker_addrs=addrs,
            routes={"T": SimpleNamespace(broker_datas=[SimpleNamespace(broker_name="broker-a")])},
            update_route=update_route,
            heartbeat=heartbeat,
            offsets=self.offsets,
            puller=self.pulls,  # type: ignore[arg-type]
            limits=self.limits,
            locks=locks if orderly else None,
            stats=ConsumerStats(),
            on_change=lambda topic, queues: self.changes.append((topic, queues)),
            running=lambda: True,
        )

    def owned(self) -> list[Any]:
        return sorted(self.state.owned("T"))


def test_it_takes_its_share_of_a_topic_from_where_the_broker_s_offsets_say(broker, client, backend) -> None:
    for _ in range(3):
        broker.append("T", 0, b"before")
    broker.offsets[("G", "T", 1)] = 1  # committed by an earlier owner
    broker.members["G"] = [OTHER, ME]
    parts = Parts(broker, client, backend)
    client.run(parts.rebalancer.rebalance_all())
    q0, q1, _, _ = parts.queues
    assert parts.owned() == [q0, q1]  # averagely: the first half to the first client id in order
    # no committed offset: the last one (CONSUME_FROM_LAST_OFFSET, GET_MAX_OFFSET); a committed one: from there
    assert parts.pulls.started == {q0: 3, q1: 1}
    assert parts.changes == [("T", (q0, q1))]
    assert parts.heartbeats == 1  # the brokers told at once of a change
    client.run(parts.rebalancer.rebalance_all())  # nothing changed: nothing told, nothing restarted
    assert (parts.changes, parts.heartbeats, len(parts.pulls.started)) == ([("T", (q0, q1))], 1, 2)


def test_it_gives_up_what_another_member_takes_and_commits_its_offset(broker, client, backend) -> None:
    broker.members["G"] = [ME]
    parts = Parts(broker, client, backend)
    client.run(parts.rebalancer.rebalance_all())
    assert parts.owned() == parts.queues
    q0, q1, q2, q3 = parts.queues
    given_up = parts.state.process_queues[q3]
    parts.offsets.update_offset(q2, 5)  # consumed so far
    parts.offsets.update_offset(q3, 7)
    broker.members["G"] = [ME, OTHER]
    client.run(parts.rebalancer.rebalance_all())
    assert parts.owned() == [q0, q1]
    assert sorted(parts.pulls.stopped) == [q2, q3]
    assert given_up.dropped and q3 not in parts.state.process_queues
    assert (broker.offsets[("G", "T", 2)], broker.offsets[("G", "T", 3)]) == (5, 7)
    assert [r["extFields"]["queueId"] for r in broker.requests(UPDATE_CONSUMER_OFFSET)].count("3") >= 1
    assert parts.offsets.read_memory(q3) == -1  # forgotten
    assert parts.changes[-1] == ("T", (q0, q1))


def test_an_orderly_consumer_takes_no_queue_another_member_holds_locked(broker, client, backend) -> None:
    def lock_all_but_queue_1(request: dict[str, Any]) -> Any:
        wanted = json.loads(request["body"])["mqSet"]
        return SUCCESS, {}, json.dumps({"lockOKMQSet": [mq for mq in wanted if mq["queueId"] != 1]}).encode()

    broker.script[LOCK_BATCH_MQ] = lock_all_but_queue_1
    broker.members["G"] = [ME]
    parts = Parts(broker, client, backend, orderly=True)
    client.run(parts.rebalancer.rebalance_all())
    q0, _, q2, q3 = parts.queues
    assert parts.owned() == [q0, q2, q3]
    assert all(parts.state.process_queues[mq].locked for mq in (q0, q2, q3))
    broker.script.pop(LOCK_BATCH_MQ)
    client.run(parts.rebalancer.rebalance_all())  # the other member let it go
    assert parts.owned() == parts.queues


def test_a_topic_without_subscribe_info_is_looked_up_and_not_taken_without_a_route(broker, client, backend) -> None:
    broker.members["G"] = [ME]
    parts = Parts(broker, client, backend)
    rt = retry_topic("G")
    parts.state.subscriptions[rt] = build_subscription(rt, "*")
    client.run(parts.rebalancer.rebalance_all())
    assert parts.routes_asked == [rt]
    assert {mq.topic for mq in parts.state.process_queues} == {"T"}


def test_the_rebalance_wait_is_cancelled_even_as_a_notification_arrives(broker, client, backend) -> None:
    """Shutdown cancels the rebalance loop; a broker's notification setting the wakeup at that moment must not
    swallow the cancellation (asyncio.wait_for does on Python 3.11, and shutdown then waited for ever)."""
    rebalancer = Parts(broker, client, backend).rebalancer

    async def race() -> str:
        task = asyncio.ensure_future(rebalancer.wait_for_wakeup(5.0))
        await asyncio.sleep(0.01)
        rebalancer.wake()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"
        return "returned"

    assert client.run(race()) == "cancelled"
    rebalancer = Parts(broker, client, backend).rebalancer  # its wakeup not set

    async def woken() -> float:
        loop = asyncio.get_running_loop()
        begin = loop.time()
        loop.call_later(0.05, rebalancer.wake)
        await rebalancer.wait_for_wakeup(5.0)
        return loop.time() - begin

    assert client.run(woken()) < 2.0  # a notification ends the wait early (the timeout is 5 s)


def test_the_locks_are_renewed_marked_lost_when_refused_and_released(broker, client, backend) -> None:
    """``QueueLocks.lock_all`` (every ``REBALANCE_LOCK_INTERVAL``) marks a queue whose lock the broker no longer
    grants as not locked (its orderly consumption stops); ``unlock_all`` (a give-up, a shutdown) asks the broker to
    release them."""
    broker.members["G"] = [ME]
    parts = Parts(broker, client, backend, orderly=True)
    client.run(parts.rebalancer.rebalance_all())
    locks = parts.rebalancer.locks
    assert locks is not None
    q0, q1, _, _ = parts.queues

    def refuse_queue_0(request: dict[str, Any]) -> Any:
        wanted = json.loads(request["body"])["mqSet"]
        return SUCCESS, {}, json.dumps({"lockOKMQSet": [mq for mq in wanted if mq["queueId"] != 0]}).encode()

    broker.script[LOCK_BATCH_MQ] = refuse_queue_0
    client.run(locks.lock_all())
    pqs = parts.state.process_queues
    assert (pqs[q0].locked, pqs[q1].locked) == (False, True)
    client.run(locks.unlock_all([q1]))
    assert not pqs[q1].locked
    (unlocked,) = broker.requests(UNLOCK_BATCH_MQ)
    assert [mq["queueId"] for mq in json.loads(unlocked["body"])["mqSet"]] == [1]
