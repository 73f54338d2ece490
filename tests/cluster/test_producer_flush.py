"""A producer that stops waits for the sends it accepted, on Apache RocketMQ 5.5.0, both backends (issue 52, item 3).

Before: 5,000 ``submit()`` then ``shutdown()`` failed 2,516 futures with "the producer is shut down" (and some sends
reported failed were stored), and 1,000 ``await p.enqueue(m)`` then leaving ``async with`` failed all 1,000 with no
error printed. Now ``shutdown()`` / ``stop()`` first wait (``shutdown_flush_timeout``) for every send accepted, and
what is left when that bound passes fails with ``ProducerClosedError``, said once in a WARNING."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import Message, Producer
from rocketroute.errors import ProducerClosedError, SendFailedError

from .loop_thread import callback_on_loop_thread


def _stored(cluster: Any, topic: str, queues: int, brokers: list[str], want: int, within_s: float = 10) -> int:
    """The messages the topic holds (its queues' max offsets), waited for up to ``within_s`` to reach ``want``
    (Apache's consume queue is built behind the commit log)."""
    deadline = time.monotonic() + within_s
    while True:
        n = sum(cluster.max_offset(b, topic, q) for b in brokers for q in range(queues))
        if n >= want or time.monotonic() > deadline:
            return n
        time.sleep(0.1)


@pytest.mark.servers("apache-5.5.0")
def test_ten_thousand_submits_then_shutdown_are_all_stored(cluster, fresh_topic, backend):
    topic = fresh_topic(queues=4, brokers=["broker-a"])
    # what this checks is that shutdown waits for each accepted send, not how fast a loaded machine is: the budgets
    # are wide (on stop 62's 2-core CI machine, 10,000 sends ran past the 3 s send and 5 s flush defaults, and the
    # next run's name server let the one route lookup the 10,000 sends waited on pass the 3 s mq_client_api_timeout)
    wide = {"send_msg_timeout": 60_000, "shutdown_flush_timeout": 120_000, "mq_client_api_timeout": 30_000}
    p = Producer(cluster.namesrv_addrs, "pg-flush-submit", backend=backend, **wide).start()
    futures = [p.submit(Message(topic, b"s-%d" % i)) for i in range(10_000)]
    p.shutdown()
    assert all(f.done() for f in futures)  # settled when shutdown returns
    failed = [f.exception() for f in futures if f.exception() is not None]
    assert not failed, f"{len(failed)} failed, e.g. {failed[0]!r}"
    assert _stored(cluster, topic, 4, ["broker-a"], 10_000) == 10_000
    with pytest.raises(RuntimeError, match="shut down"):
        p.submit(Message(topic, b"late"))


@pytest.mark.servers("apache-5.5.0")
def test_enqueued_sends_then_leaving_async_with_are_all_stored_and_flush_says_none_left(cluster, fresh_topic, backend):
    topic = fresh_topic(queues=4, brokers=["broker-a"])
    ns = ";".join(cluster.namesrv_addrs)

    async def main() -> tuple[list[asyncio.Future[Any]], int, int]:
        async with rr.aio.Producer(ns, "pg-flush-aio", backend=backend) as p:
            first = [await p.enqueue(Message(topic, b"a-%d" % i)) for i in range(500)]
            left = await p.flush(30_000)  # all done: nothing under way
            assert all(f.done() for f in first)
            futures = [await p.enqueue(Message(topic, b"b-%d" % i)) for i in range(1_000)]
            under_way = sum(not f.done() for f in futures)
        return first + futures, left, under_way

    futures, left, under_way = asyncio.run(main())
    assert left == 0 and under_way > 0  # the block was left with sends under way
    assert all(f.done() and f.exception() is None for f in futures)
    assert _stored(cluster, topic, 4, ["broker-a"], 1_500) == 1_500


@pytest.mark.servers("apache-5.5.0")
def test_with_the_broker_paused_shutdown_returns_within_its_bound_and_settles_every_send(
    cluster, fresh_topic, backend, caplog
):
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    p = Producer(
        cluster.namesrv_addrs,
        "pg-flush-paused",
        backend=backend,
        send_msg_timeout=20_000,  # longer than the flush: the sends are still under way when it ends
        shutdown_flush_timeout=1000,
        mq_client_api_timeout=500,
    ).start()
    p.send(Message(topic, b"warm"))
    cluster.pause_broker("broker-a")
    try:
        futures = [p.submit(Message(topic, b"p-%d" % i)) for i in range(300)]
        blocked = concurrent.futures.ThreadPoolExecutor(2)
        sync_sends = [blocked.submit(p.send, Message(topic, b"sync-%d" % i)) for i in range(2)]
        time.sleep(0.3)
        begin = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="rocketroute"):
            p.shutdown()
        took = time.monotonic() - begin
        # the flush bound, one unregister per broker node (mq_client_api_timeout each), the give-up's second
        assert took < 1.0 + 2 * 0.5 + 1.0 + 1.5, took
        assert all(f.done() for f in futures)
        errors = [f.exception() for f in futures]
        assert all(isinstance(e, ProducerClosedError) for e in errors), {type(e).__name__ for e in errors}
        assert errors[0].unsent >= 300 and "shut down before this send was done" in str(errors[0])
        for s in sync_sends:
            with pytest.raises(SendFailedError):
                s.result(10)
        blocked.shutdown()
    finally:
        cluster.resume_broker("broker-a")
    said = [r for r in caplog.records if "were not done" in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in caplog.records]  # once, not once per send


@pytest.mark.servers("apache-5.5.0")
def test_an_aio_producer_stopping_on_a_paused_broker_fails_what_is_left_once_and_quietly(
    cluster, fresh_topic, backend, caplog
):
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    ns = ";".join(cluster.namesrv_addrs)

    async def main() -> tuple[list[asyncio.Future[Any]], float]:
        p = rr.aio.Producer(
            ns,
            "pg-flush-aio-paused",
            backend=backend,
            send_msg_timeout=20_000,
            shutdown_flush_timeout=800,
            mq_client_api_timeout=500,
        )
        await p.start()
        await p.send(Message(topic, b"warm"))
        cluster.pause_broker("broker-a")
        futures = [await p.enqueue(Message(topic, b"q-%d" % i)) for i in range(200)]
        begin = time.monotonic()
        await p.stop()
        return futures, time.monotonic() - begin

    with caplog.at_level(logging.WARNING):
        try:
            futures, took = asyncio.run(main())
        finally:
            cluster.resume_broker("broker-a")
        del futures[1:]  # the futures nobody reads are collected: no "Task exception was never retrieved" each
        import gc

        gc.collect()
    assert took < 0.8 + 2 * 0.5 + 1.0 + 1.5, took
    assert isinstance(futures[0].exception(), ProducerClosedError)
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
    assert len([r for r in caplog.records if "were not done" in r.getMessage()]) == 1


@pytest.mark.servers("apache-5.5.0")
def test_flush_waits_for_the_sends_under_way_and_is_refused_on_the_loop_thread(cluster, fresh_topic, backend):
    topic = fresh_topic(queues=2, brokers=["broker-a"])
    with Producer(cluster.namesrv_addrs, "pg-flush", backend=backend) as p:
        futures = [p.submit(Message(topic, b"f-%d" % i)) for i in range(2_000)]
        assert p.flush() == 0
        assert all(f.done() and f.exception() is None for f in futures)
        refused: list[BaseException] = []

        def flush_there() -> None:
            try:
                p.flush(1000)
            except RuntimeError as e:
                refused.append(e)

        assert callback_on_loop_thread(p, topic, flush_there).wait(10)
        with pytest.raises(ValueError, match="timeout_ms"):
            p.flush(0)
    assert refused and "event-loop thread" in str(refused[0])
