"""The puller on its own, without a consumer, on both backends (their ``MessageQueue``): built as a consumer builds it
at start (connections, the brokers' addresses, an offset store, the queues' limits, a consume service, the
process-queue table), pulling from a fake broker over TCP. It hands what it pulls to the consume service in queue order,
holds a queue at its limit, and stops pulling a queue it is told to stop."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from rocketroute.client.broker_addrs import BrokerAddrTable
from rocketroute.client.consumer.offset_store import LocalFileOffsetStore
from rocketroute.client.consumer.process_queue import ProcessQueue
from rocketroute.client.consumer.puller import Puller
from rocketroute.client.consumer.queue_limits import QueueLimits
from rocketroute.client.consumer.settings import ConsumerSettings
from rocketroute.client.consumer.stats import ConsumerStats
from rocketroute.client.consumer.subscription import build_subscription
from rocketroute.net import RemotingClient

from ._fake_cluster import PULL_MESSAGE, FakeBroker


class Taken:
    """The consume service's side of a pull: what it was handed, in order (it consumes nothing, so what it takes
    stays in the process queue)."""

    def __init__(self) -> None:
        self.batches: list[tuple[list[Any], ProcessQueue, Any]] = []

    def submit_consume(self, msgs: list[Any], pq: ProcessQueue, mq: Any, dispatch: bool) -> None:
        self.batches.append((msgs, pq, mq))

    async def set_aside_undecodable(self, msgs: list[Any], mq: Any) -> bool:  # pragma: no cover - none here
        raise AssertionError(f"undecodable messages pulled: {msgs}")

    def bodies(self) -> list[bytes]:
        return [m.body for msgs, _, _ in self.batches for m in msgs]


def _puller(
    broker: FakeBroker, client: RemotingClient, tmp_path: Any, taken: Taken, backend: Any, **settings: Any
) -> Puller:
    cfg = ConsumerSettings.resolve("5.3", None, {"pull_batch_size": 4, **settings})
    addrs = BrokerAddrTable()
    addrs.update(SimpleNamespace(broker_datas=[SimpleNamespace(broker_name="broker-a", broker_addrs={0: broker.addr})]))
    return Puller(
        "G",
        cfg,
        "5.3",
        {"T": build_subscription("T", "*")},
        orderly=False,
        clustering=False,
        client=client.async_client,
        broker_addrs=addrs,
        offsets=LocalFileOffsetStore(str(tmp_path / "offsets.json"), backend.MessageQueue),
        limits=QueueLimits(cfg),
        consume=taken,  # type: ignore[arg-type]
        process_queues={},
        stats=ConsumerStats(),
        running=lambda: True,
    )


def _until(check: Any, what: str, timeout_s: float = 5.0) -> None:
    end = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout_s} s: {what}")
        time.sleep(0.01)


def _start(client: RemotingClient, puller: Puller, mq: Any, pq: ProcessQueue, offset: int) -> None:
    async def start() -> None:  # on the client's loop, where the pull task runs
        puller.start_pull(mq, pq, offset)

    client.run(start())


def test_it_hands_a_queue_s_messages_to_the_consume_service_in_order(broker, client, tmp_path, backend) -> None:
    for i in range(10):
        broker.append("T", 0, b"m%d" % i)
    taken, pq, mq = Taken(), ProcessQueue(), backend.MessageQueue("T", "broker-a", 0)
    puller = _puller(broker, client, tmp_path, taken, backend)
    _start(client, puller, mq, pq, 2)  # from queue offset 2
    _until(lambda: len(taken.bodies()) == 8, "the 8 messages from offset 2")
    assert taken.bodies() == [b"m%d" % i for i in range(2, 10)]
    assert [len(msgs) for msgs, _, _ in taken.batches] == [4, 4]  # pull_batch_size
    assert all(p is pq and q == mq for _, p, q in taken.batches)
    assert pq.msg_count == 8 and puller.stats.pulled == 8
    assert [int(r["extFields"]["queueOffset"]) for r in broker.requests(PULL_MESSAGE)[:2]] == [2, 6]
    client.run(_cancel_all(puller))


def test_a_queue_at_its_limit_is_not_pulled_until_it_has_room(broker, client, tmp_path, backend) -> None:
    for i in range(10):
        broker.append("T", 0, b"m%d" % i)
    taken, pq, mq = Taken(), ProcessQueue(), backend.MessageQueue("T", "broker-a", 0)
    puller = _puller(broker, client, tmp_path, taken, backend, pull_threshold_for_queue=3)
    _start(client, puller, mq, pq, 0)
    _until(lambda: len(taken.bodies()) == 4, "the first pull")
    time.sleep(0.3)  # six flow-control pauses (50 ms each): none of them pulls
    assert len(broker.requests(PULL_MESSAGE)) == 1 and len(taken.bodies()) == 4
    client.run(_consumed(pq, taken.batches[0][0]))  # the listener consumed the first batch: room again
    _until(lambda: len(taken.bodies()) == 8, "the second pull, once the queue had room")
    assert taken.bodies() == [b"m%d" % i for i in range(8)]
    client.run(_cancel_all(puller))


def test_a_stopped_queue_is_pulled_no_more_and_the_others_go_on(broker, client, tmp_path, backend) -> None:
    taken = Taken()
    puller = _puller(broker, client, tmp_path, taken, backend)
    q0, q1 = backend.MessageQueue("T", "broker-a", 0), backend.MessageQueue("T", "broker-a", 1)
    _start(client, puller, q0, ProcessQueue(), 0)
    _start(client, puller, q1, ProcessQueue(), 0)
    _until(lambda: {r["extFields"]["queueId"] for r in broker.requests(PULL_MESSAGE)} == {"0", "1"}, "both pulled")

    async def stop() -> None:
        puller.stop_pull(q0)

    client.run(stop())
    time.sleep(0.1)  # a pull answered "nothing new" takes 50 ms at the fake broker
    broker.append("T", 0, b"not pulled")
    broker.append("T", 1, b"pulled")
    _until(lambda: taken.bodies() == [b"pulled"], "queue 1's message")
    time.sleep(0.2)
    assert taken.bodies() == [b"pulled"] and list(puller.tasks) == [q1]
    client.run(_cancel_all(puller))
    assert puller.tasks == {}


async def _consumed(pq: ProcessQueue, msgs: list[Any]) -> None:
    pq.remove_messages(msgs)


async def _cancel_all(puller: Puller) -> None:
    await asyncio.gather(*puller.cancel_all(), return_exceptions=True)
