"""Logging as a library should: silent unless the application configures logging (a ``NullHandler`` on
"rocketroute"), the starts, stops and rebalances at INFO naming the client id, the group and the name servers, and
the periodic warnings at most once a minute with a count of the ones not logged (on the fake cluster)."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import rocketroute as rr
from rocketroute.client import ConsumeConcurrentlyStatus, Consumer, Producer
from rocketroute.log_repeats import REPEATS, RepeatLimiter
from rocketroute.loggers import LOGGER_NAMES, get_logger

from ._fake_cluster import FakeCluster

FAST = {"rebalance_interval": 100, "persist_consumer_offset_interval": 100, "heartbeat_broker_interval": 200}


def wait_until(cond: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(0.02)


def _listener(msgs: list[Any], context: Any) -> Any:
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS


def _consumer(cluster: FakeCluster, group: str, topic: str, instance_name: str, backend: Any = None) -> Consumer:
    return Consumer(
        cluster.namesrv_addr, group, [topic], listener=_listener, instance_name=instance_name, backend=backend, **FAST
    )


@pytest.fixture
def records(caplog: pytest.LogCaptureFixture) -> Iterator[Callable[[str], list[logging.LogRecord]]]:
    """The client's records at INFO and above whose message contains a text; the repeat limiter starts empty."""
    REPEATS.clear()
    with caplog.at_level(logging.INFO, logger="rocketroute"):
        yield lambda text: [r for r in caplog.records if r.name.startswith("rocketroute.") and text in r.getMessage()]
    REPEATS.clear()


_SILENT_CONSUMER = """
import logging, sys, time
from rocketroute.client import Consumer, ConsumeConcurrentlyStatus

seen = []
for name in ("rocketroute.client", "rocketroute.consumer"):  # a filter counts without being a handler
    logging.getLogger(name).addFilter(lambda r: seen.append(r.levelno) or True)
c = Consumer(sys.argv[1], "G", ["Missing"], listener=lambda m, c: ConsumeConcurrentlyStatus.CONSUME_SUCCESS,
             rebalance_interval=100)
c.start()
time.sleep(0.5)
c.shutdown()
print(sum(level >= logging.WARNING for level in seen))
"""


def test_with_no_logging_configured_the_clients_warnings_do_not_reach_stderr():
    with FakeCluster() as cluster:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(_SILENT_CONSUMER), cluster.namesrv_addr],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 1  # the missing topic was warned about...
    assert done.stderr == ""  # ...and Python's last-resort handler did not print it


def test_the_logging_guides_recipe_shows_the_start_rebalance_and_shutdown_lines():
    from ..test_docs import ROOT, python_blocks

    (block,) = python_blocks(ROOT / "docs" / "guide" / "logging.md", "logging")
    with FakeCluster() as cluster:
        cluster.topic("TopicTest", queues=4)
        code = block.replace("127.0.0.1:9876", cluster.namesrv_addr)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = [line.split(" ", 2)[2] for line in done.stderr.splitlines()]  # the date and the time go
    cid = lines[0].split("(client id ")[1].split(",")[0]
    ns, group = cluster.namesrv_addr, "consumer LogDemoGroup"
    assert lines == [
        f"INFO rocketroute.consumer: rebalance of TopicTest in consumer group LogDemoGroup (client id {cid}, "
        "1 member(s)): owns 4 of 4 queues; added broker-a[0,1,2,3]; removed none",
        f"INFO rocketroute.consumer: {group} started: client id {cid}, name servers {ns}, CLUSTERING concurrently, "
        "topics TopicTest",
        f"INFO rocketroute.consumer: {group} shut down: client id {cid}, name servers {ns}, CLUSTERING concurrently, "
        "topics TopicTest",
    ]
    assert "@" in cid


def test_the_rocketroute_logger_has_a_null_handler_and_the_parts_log_under_it():
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger("rocketroute").handlers)
    assert {get_logger(part).name for part in LOGGER_NAMES} == {
        "rocketroute.client",
        "rocketroute.producer",
        "rocketroute.consumer",
        "rocketroute.net",
    }
    with pytest.raises(ValueError, match="no rocketroute logger for 'pull'"):
        get_logger("pull")


def test_start_shutdown_and_rebalance_changes_are_logged_at_info_with_the_client_id_group_and_name_servers(
    records, backend
):
    with FakeCluster() as cluster:
        cluster.topic("T", queues=4)
        ns = cluster.namesrv_addr
        with Producer(ns, "PG", instance_name="p1", backend=backend) as producer:
            started = records("producer PG started")
            assert [r.levelno for r in started] == [logging.INFO]
            assert f"client id {producer.client_id}, name servers {ns}" in started[0].getMessage()
        assert f"producer PG shut down: client id {producer.client_id}, name servers {ns}" in (
            records("producer PG shut down")[0].getMessage()
        )

        first = _consumer(cluster, "G", "T", "c1", backend).start()
        try:
            cid = first.client_id
            (started,) = records("consumer G started")
            assert started.levelno == logging.INFO and started.name == "rocketroute.consumer"
            msg = started.getMessage()
            assert f"client id {cid}, name servers {ns}, CLUSTERING concurrently, topics T" in msg
            (taken,) = records(f"rebalance of T in consumer group G (client id {cid}")
            assert "1 member(s)): owns 4 of 4 queues; added broker-a[0,1,2,3]; removed none" in taken.getMessage()

            time.sleep(0.5)  # five rebalance rounds without a change: no line
            assert len(records("rebalance of T in consumer group G")) == 1

            second = _consumer(cluster, "G", "T", "c2", backend).start()
            try:
                wait_until(lambda: len(first.assignment("T")) == 2, 10, "the first consumer gives up two queues")
                wait_until(lambda: len(records(f"(client id {cid}, ")) == 2, 5, "the first consumer's second line")
                given = records(f"rebalance of T in consumer group G (client id {cid}, ")[1].getMessage()
                kept = sorted(mq.queue_id for mq in first.assignment("T"))
                lost = sorted({0, 1, 2, 3} - set(kept))
                assert (
                    f"2 member(s)): owns 2 of 4 queues; added none; removed broker-a[{','.join(map(str, lost))}]"
                    in given
                )
            finally:
                second.shutdown()
        finally:
            first.shutdown()
        assert len(records(f"consumer G shut down: client id {cid}, name servers {ns}, CLUSTERING")) == 1


def test_a_repeated_warning_is_logged_once_per_interval_then_with_the_count_of_those_not_logged(caplog):
    clock = rr.ManualClock(1_000_000)
    limiter = RepeatLimiter(60.0, clock)
    log = logging.getLogger("rocketroute.client")
    with caplog.at_level(logging.WARNING, logger="rocketroute"):
        logged = [limiter.log(log, logging.WARNING, "heartbeat to %s failed: %s", "b", f"error {i}", about="b")
                  for i in range(5)]  # fmt: skip
        clock.advance(59_999)
        logged.append(limiter.log(log, logging.WARNING, "heartbeat to %s failed: %s", "b", "again", about="b"))
        assert logged == [True, False, False, False, False, False]
        assert [r.getMessage() for r in caplog.records] == ["heartbeat to b failed: error 0"]
        assert caplog.records[0].filename == "test_logging.py"  # the record names the caller's line

        clock.advance(1)
        assert limiter.log(log, logging.WARNING, "heartbeat to %s failed: %s", "b", "late", about="b")
        assert caplog.records[-1].getMessage() == (
            "heartbeat to b failed: late (5 more like this in the last 60 s, not logged)"
        )
        clock.advance(60_000)  # nothing was held back since: no count
        limiter.log(log, logging.WARNING, "heartbeat to %s failed: %s", "b", "later", about="b")
        assert caplog.records[-1].getMessage() == "heartbeat to b failed: later"


def test_what_makes_a_warning_the_same_is_its_logger_level_template_and_subject(caplog):
    limiter = RepeatLimiter(60.0, rr.ManualClock(0))
    client, consumer = logging.getLogger("rocketroute.client"), logging.getLogger("rocketroute.consumer")
    with caplog.at_level(logging.DEBUG, logger="rocketroute"):
        assert limiter.log(client, logging.WARNING, "no route for topic %s", "A")
        assert limiter.log(client, logging.WARNING, "no route for topic %s", "B")  # another subject (the arguments)
        assert limiter.log(consumer, logging.WARNING, "no route for topic %s", "A")  # another logger
        assert limiter.log(client, logging.ERROR, "no route for topic %s", "A")  # another level
        assert limiter.log(client, logging.WARNING, "route of %s failed: %s", "A", "x", about="A")
        assert not limiter.log(client, logging.WARNING, "route of %s failed: %s", "A", "y", about="A")
        assert not limiter.log(client, logging.WARNING, "no route for topic %s", "A")
    with caplog.at_level(logging.ERROR, logger="rocketroute"):  # a level not logged is not counted either
        assert not limiter.log(client, logging.WARNING, "quiet %s", 1)
    with caplog.at_level(logging.WARNING, logger="rocketroute"):
        assert limiter.log(client, logging.WARNING, "quiet %s", 1)


def test_a_limiter_refuses_a_bad_interval_or_clock():
    with pytest.raises(ValueError, match="interval_s must be positive"):
        RepeatLimiter(0)
    with pytest.raises(TypeError, match="now_ms"):
        RepeatLimiter(60, clock=time.monotonic)  # type: ignore[arg-type]


def test_a_subscribed_topic_without_a_route_is_warned_about_once_a_minute_not_at_every_rebalance(records, monkeypatch):
    clock = rr.ManualClock(1_000_000)
    monkeypatch.setattr(REPEATS, "clock", clock)
    with FakeCluster() as cluster:
        consumer = _consumer(cluster, "G", "Missing", "c1").start()
        try:
            said = "no route for topic Missing, subscribed by consumer group G"
            time.sleep(1.0)  # ten rebalances, each looking the route up
            assert len(records(said)) == 1
            clock.advance(60_000)
            wait_until(lambda: len(records(said)) == 2, 5, "the warning once more, a minute later")
            assert "more like this in the last 60 s, not logged)" in records(said)[1].getMessage()
        finally:
            consumer.shutdown()
