"""``rr.aio.Consumer.ack()`` on Apache RocketMQ 5.5.0, both backends (issue 52, item 1): ``ack()`` settles exactly
the messages already handed to the task, and the rest of its batch is delivered next.

Before the fix ``ack()`` settled the whole batch the task held, the messages not handed out yet included: with
``consume_message_batch_max_size=8`` and ``ack()`` after each message, 26 of 200 messages were delivered and the
committed offsets said 200 of 200. Three groups read one topic at once, each in its own pattern (``ack()`` after
each message, after every fifth, and ``ack()`` then ``break`` then a new ``async for``); after every ``ack()`` the
offsets in memory are checked against what the task was handed, and at the end every message must have been handed
out and the brokers' committed offsets must cover all of them."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import Message
from rocketroute.client.producer import Producer

# no periodic (oneway) commit: Apache's broker applies UPDATE_CONSUMER_OFFSET on a pool of threads, so a periodic
# commit sent just before the stop's acknowledged ones can land after them with an older offset; the brokers' offsets
# read at the end are then the stop's alone
FAST = {"rebalance_interval": 1000, "persist_consumer_offset_interval": 600_000}
MESSAGES = 200
QUEUES = 4
IDLE_S = 8.0
"""How long a pattern waits for its next message before it counts what it has (a lost message never comes)."""

PATTERNS = ("each", "some", "break")


async def _read(
    consumer: rr.aio.Consumer, pattern: str, handed: set[tuple[str, int, int]], violations: list[str]
) -> None:
    """Read in ``pattern`` until every message was handed out, recording what was handed out (broker, queue,
    offset) and every violation seen: an offset in memory past a message not handed out. Each ``async for`` step
    runs in this task (``asyncio.wait_for`` around ``anext`` would take each message in a task of its own, which
    gives it back when it ends): the caller cancels this task when no message came for ``IDLE_S``."""

    def check() -> None:
        for mq, offset in consumer.committed_offsets().items():
            missing = [o for o in range(offset) if (mq.broker_name, mq.queue_id, o) not in handed]
            if missing:
                violations.append(f"{pattern}: {mq} committed at {offset} before {missing[:5]} were handed out")

    count = 0
    while len(handed) < MESSAGES:
        async for msg in consumer:
            handed.add((msg.broker_name, msg.queue_id, msg.queue_offset))
            count += 1
            if pattern == "each" or count % 5 == 0 or len(handed) == MESSAGES:
                consumer.ack()
                check()
                if pattern == "break" or len(handed) == MESSAGES:
                    break  # the guide's pattern; the while loop starts a new async for


async def _until_idle(task: asyncio.Task[None], progress: Any) -> None:
    """Cancel ``task`` once ``progress()`` has not moved for ``IDLE_S`` (a lost message never comes)."""
    last, since = progress(), time.monotonic()
    while not task.done():
        await asyncio.sleep(0.1)
        now = progress()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since > IDLE_S:
            task.cancel()
            break


@pytest.mark.servers("apache-5.5.0")
@pytest.mark.parametrize("batch", [1, 8, 32])
def test_ack_settles_what_was_handed_out_and_the_rest_comes_next(cluster, fresh_topic, backend, batch):
    topic = fresh_topic(queues=QUEUES)
    with Producer(cluster.namesrv_addrs, "pg-aio-ack") as p:
        for i in range(MESSAGES):
            p.send(Message(topic, b"ack-%d" % i))
    ns = ";".join(cluster.namesrv_addrs)
    stem = f"cg_aio_ack_{batch}_{backend.BACKEND}_{time.monotonic_ns()}"
    groups = {pattern: f"{stem}_{pattern}" for pattern in PATTERNS}

    async def one(pattern: str) -> tuple[set[tuple[str, int, int]], list[str]]:
        handed: set[tuple[str, int, int]] = set()
        violations: list[str] = []
        async with rr.aio.Consumer(
            ns,
            groups[pattern],
            [topic],
            backend=backend,
            consume_message_batch_max_size=batch,
            consume_from_where="CONSUME_FROM_FIRST_OFFSET",
            **FAST,
        ) as consumer:
            reading = asyncio.ensure_future(_read(consumer, pattern, handed, violations))
            await _until_idle(reading, lambda: len(handed))
            try:
                await reading
            except asyncio.CancelledError:
                pass
        return handed, violations

    async def main() -> list[tuple[set[tuple[str, int, int]], list[str]]]:
        return await asyncio.gather(*(one(p) for p in PATTERNS))

    results = asyncio.run(asyncio.wait_for(main(), 120))
    for pattern, (handed, violations) in zip(PATTERNS, results, strict=True):
        assert not violations, violations[:3]
        assert len(handed) == MESSAGES, f"{pattern}: {len(handed)} of {MESSAGES} messages handed out"
        committed = sum(
            cluster.consumer_offset(b, groups[pattern], topic, q) for b in cluster.broker_names for q in range(QUEUES)
        )
        assert committed == MESSAGES, f"{pattern}: {committed} committed"
