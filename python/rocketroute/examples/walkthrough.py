"""``python -m rocketroute.examples.walkthrough``: a producer's routing step by step, with the Java client's picks.

A topic route as the name server returns it becomes the producer's publish queues; ordered messages go
to the queue ``SelectMessageQueueByHash`` picks; plain sends go round-robin; with latency fault tolerance
on, an isolated broker is avoided until its isolation ends; ``send_default`` retries a failed send on
another broker. Everything is deterministic (fixed start indexes, seeds and a manual clock), so the
output is the same on every run and on both backends. A copy is written to ``out/walkthrough/report.txt``
(``--out DIR`` to change).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

import rocketroute as rr
from rocketroute.errors import BrokerUnreachableError
from rocketroute.send import SendAttempt, send_default

__all__ = ["main"]

TOPIC = "TopicOrders"
SEED = 42
"""Seeds the JavaRandom behind every index re-draw, so retries pick the same queues on every run."""

ROUTE_JSON = """{
  "orderTopicConf": null,
  "queueDatas": [
    {"brokerName": "broker-c", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6, "topicSysFlag": 0},
    {"brokerName": "broker-a", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6, "topicSysFlag": 0},
    {"brokerName": "broker-b", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6, "topicSysFlag": 0}
  ],
  "brokerDatas": [
    {"cluster": "DefaultCluster", "brokerName": "broker-a",
     "brokerAddrs": {"0": "10.0.0.1:10911", "1": "10.0.1.1:10911"}},
    {"cluster": "DefaultCluster", "brokerName": "broker-b", "brokerAddrs": {"0": "10.0.0.2:10911"}},
    {"cluster": "DefaultCluster", "brokerName": "broker-c", "brokerAddrs": {"0": "10.0.0.3:10911"}}
  ]
}"""
"""Three brokers with four write queues each, listed out of order as a name server may list them."""

SEND_LATENCY_MS = {"broker-a": 3, "broker-b": 45, "broker-c": 4}


class Report:
    """Prints each line and keeps it for the report file."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str = "") -> None:
        print(line)
        self.lines.append(line)

    def section(self, title: str) -> None:
        self()
        self(f"== {title} ==")

    def write(self, directory: str) -> str:
        os.makedirs(directory, exist_ok=True)
        path = os.path.abspath(os.path.join(directory, "report.txt"))
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(self.lines) + "\n")
        return path


def publish_info(base: Any, start: int) -> Any:
    """``base``'s queues with a round-robin index stored at ``start`` (and seeded re-draws)."""
    return rr.TopicPublishInfo(
        base.message_queues,
        order_topic=base.order_topic,
        route=base.route,
        compat="5.3",
        send_which_queue=rr.SendWhichQueue("5.3", start=start, random=SEED),
    )


def picks(select: Callable[[], Any], n: int) -> str:
    return ", ".join(short(select()) for _ in range(n))


def short(mq: Any) -> str:
    return f"{mq.broker_name}/{mq.queue_id}"


def demo_route(say: Report) -> Any:
    say.section("1. Route: TopicRouteData.from_json + TopicPublishInfo.from_route")
    route = rr.TopicRouteData.from_json(ROUTE_JSON)
    say(f"name server route of {TOPIC!r}: {len(route.queue_datas)} queue datas, {len(route.broker_datas)} brokers")
    say("  queueDatas as listed: " + ", ".join(q.broker_name for q in route.queue_datas))
    tp = rr.TopicPublishInfo.from_route(TOPIC, route, compat="5.3")
    mqs = tp.message_queues
    say(f"publish queues ({len(mqs)}, brokers sorted by name as Java sorts them):")
    for i in range(0, len(mqs), 4):
        say("  " + "  ".join(f"[{j:2}] {short(mq)}" for j, mq in enumerate(mqs[i : i + 4], start=i)))
    say(f"  str(mqs[0]) = {mqs[0]}")
    say(f"  mqs[0].java_hash_code() = {mqs[0].java_hash_code()}")
    return tp


def demo_hash(say: Report, tp: Any) -> None:
    say.section("2. Ordered messages: SelectMessageQueueByHash")
    mqs = list(tp.message_queues)
    by_hash = rr.SelectMessageQueueByHash()
    say(f"index = |hashCode(key) % {len(mqs)}| (Java remainder, then Math.abs)")
    for key in ("order-1001", "order-1002", "order-1003", "order-20240611-77", "polygenelubricants"):
        mq = by_hash.select(mqs, None, key)
        say(f"  {key!r:22} String.hashCode = {rr.java_string_hash(key):>11}  ->  {short(mq)}")
    say("  ('polygenelubricants' hashes to Integer.MIN_VALUE; Java's abs-after-% keeps the index in range)")
    for key_type, key in (("int", -1), ("long", -1), ("long", 1234567890123)):
        mq = rr.SelectMessageQueueByHash(key_type=key_type).select(mqs, None, key)
        java_hash = rr.java_int_hash(key) if key_type == "int" else rr.java_long_hash(key)
        say(f"  {key!r:>13} as Java {key_type:4} hashCode = {java_hash:>11}  ->  {short(mq)}")


def demo_round_robin(say: Report, base: Any) -> None:
    say.section("3. Round-robin: TopicPublishInfo.select_one_message_queue")
    start = 2**31 - 3
    tp = publish_info(base, start)
    say(f"sendWhichQueue stored at {start} (Integer.MAX_VALUE - 2); each pick is (++index & 0x7fffffff) % 12:")
    say(f"  {picks(tp.select_one_message_queue, 6)}")
    say("  (the index wraps to Integer.MIN_VALUE and the mask turns it into 0, exactly as Java's ThreadLocalIndex)")
    tp = publish_info(base, 3)
    say("stored at 3, retrying after a failure on broker-b (select_one_message_queue('broker-b')):")
    say(f"  {picks(lambda: tp.select_one_message_queue('broker-b'), 6)}")


def demo_fault(say: Report, base: Any) -> None:
    say.section("4. Latency fault tolerance: MQFaultStrategy(compat='5.3', send_latency_fault_enable=True)")
    clock = rr.ManualClock(1_000_000)
    strategy = rr.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=clock)
    lft = strategy.latency_fault_tolerance
    say("send latency (ms) -> broker not available for (ms):")
    say(
        "  "
        + ", ".join(f"{lat} -> {strategy.compute_not_available_duration(lat)}" for lat in (30, 120, 600, 2000, 6000))
    )
    say(f"  an isolation counts as {strategy.isolation_latency} ms")
    strategy.update_fault_item("broker-b", 0, True)
    say("update_fault_item('broker-b', 0, isolation=True):")
    say(f"  broker-b available: {lft.is_available('broker-b')}, reachable: {lft.is_reachable('broker-b')}")
    off = rr.MQFaultStrategy("5.3", send_latency_fault_enable=False, clock=clock)
    tp_off, tp_on = publish_info(base, 0), publish_info(base, 0)
    say(f"  fault tolerance off, start 0: {picks(lambda: off.select_one_message_queue(tp_off, None), 8)}")
    say(f"  fault tolerance on,  start 0: {picks(lambda: strategy.select_one_message_queue(tp_on, None), 8)}")
    clock.advance(10_000)
    say(f"clock + 10000 ms: broker-b available: {lft.is_available('broker-b')}")
    tp_on = publish_info(base, 0)
    say(f"  fault tolerance on,  start 0: {picks(lambda: strategy.select_one_message_queue(tp_on, None), 8)}")


def describe(attempts: list[SendAttempt], say: Report) -> None:
    for n, a in enumerate(attempts, start=1):
        outcome = "ok" if a.error is None else f"{type(a.error).__name__}: {a.error}"
        say(f"  attempt {n}: {short(a.queue):12} {a.latency_ms:>3} ms  {outcome}")


def demo_send(say: Report, base: Any) -> None:
    say.section("5. send_default: the producer's retry loop (sync: 1 + 2 retries)")
    clock = rr.ManualClock(1_000_000)
    strategy = rr.MQFaultStrategy("5.3", send_latency_fault_enable=True, clock=clock)
    lft = strategy.latency_fault_tolerance
    tp = publish_info(base, 3)
    down = {"broker-b"}

    def send(mq: Any) -> str:
        clock.advance(SEND_LATENCY_MS[mq.broker_name])
        if mq.broker_name in down:
            raise BrokerUnreachableError(f"connect to {mq.broker_name} failed")
        return f"SEND_OK {mq}"

    say("a fake send: broker-b is down (raises BrokerUnreachableError, Java's RemotingException)")
    for n in (1, 2):
        attempts: list[SendAttempt] = []
        result = send_default(tp, strategy, send, clock=clock, attempts=attempts)
        say(f"message {n}:")
        describe(attempts, say)
        say(f"  -> {result}")
        if n == 1:
            say(
                f"  broker-b isolated: available = {lft.is_available('broker-b')} "
                "(until the isolation ends, sends avoid it without trying it)"
            )

    down = {"broker-a", "broker-b", "broker-c"}
    say("every broker down:")
    attempts = []
    try:
        send_default(tp, strategy, send, clock=clock, attempts=attempts)
    except BrokerUnreachableError as e:
        describe(attempts, say)
        say(f"  raised {type(e).__name__}: {e}")
        for note in getattr(e, "__notes__", []):
            say(f"  note: {note}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rocketroute.examples.walkthrough", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--out", default=os.path.join("out", "walkthrough"), help="report directory (default: out/walkthrough)"
    )
    args = parser.parse_args(argv)

    say = Report()
    say("rocketroute walkthrough: a producer's routing, as the Java client (RocketMQ 5.3.3) does it")
    where = "Rust core, rocketroute._native" if rr.BACKEND == "native" else "pure Python, rocketroute.reference"
    say(f"backend: {rr.BACKEND} ({where}), rocketroute {rr.__version__}")

    tp = demo_route(say)
    demo_hash(say, tp)
    demo_round_robin(say, tp)
    demo_fault(say, tp)
    demo_send(say, tp)

    path = say.write(args.out)
    print()
    print(f"Report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
