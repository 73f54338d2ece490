"""The plan job: per-consumer load from allocate_all (checked against the reference backend), churn of
joins and leaves, and the ordering risk of a queue-count change on a real local SparkSession."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

import rocketroute.reference as ref
from rocketroute.errors import IllegalArgumentError
from rocketroute.spark import parse_consumers, plan, resize_risk

TOPIC = "TopicTest"
LOAD = [("broker-a", q, 100 * (q + 1), 10 * q) for q in range(6)] + [("broker-b", q, 7, 1) for q in range(5)]


def _reference_assignment(strategy_name, n):
    strategies = {
        "AVG": ref.AllocateMessageQueueAveragely(),
        "AVG_BY_CIRCLE": ref.AllocateMessageQueueAveragelyByCircle(),
        "CONSISTENT_HASH": ref.AllocateMessageQueueConsistentHash(10),
    }
    mqs = sorted(ref.MessageQueue(TOPIC, b, q) for b, q, _, _ in LOAD)
    cids = sorted(f"consumer-{i}" for i in range(n))
    return ref.allocate_all(strategies[strategy_name], mqs, cids)


def test_parse_consumers():
    assert parse_consumers("2..5") == [2, 3, 4, 5]
    assert parse_consumers("8,2,4,2") == [2, 4, 8]
    for bad in ("0..3", "x", ""):
        with pytest.raises(IllegalArgumentError):
            parse_consumers(bad)


def test_per_consumer_load_equals_allocate_all():
    result = plan(LOAD, TOPIC, [1, 3, 4])
    messages = {(b, q): m for b, q, m, _ in LOAD}
    for row in result.consumers:
        queues = _reference_assignment(row["strategy"], row["consumers"])[row["consumer"]]
        assert row["queues"] == len(queues)
        assert row["messages"] == sum(messages[(mq.broker_name, mq.queue_id)] for mq in queues)
    assert {(r["strategy"], r["consumers"]) for r in result.imbalance} == {
        (s, n) for s in ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH") for n in (1, 3, 4)
    }


def test_consistent_hash_join_moves_only_what_the_new_consumer_takes():
    result = plan(LOAD, TOPIC, [3], ["CONSISTENT_HASH"])
    join = next(c for c in result.churn if c["event"] == "join")
    after = _reference_assignment("CONSISTENT_HASH", 4)
    assert join["queues_moved"] == len(after["consumer-3"])
    assert join["queues_moved_share"] == len(after["consumer-3"]) / len(LOAD)


def test_churn_is_the_reference_churn():
    result = plan(LOAD, TOPIC, [2], ["AVG"])
    weights = {ref.MessageQueue(TOPIC, b, q): m for b, q, m, _ in LOAD}
    before = _reference_assignment("AVG", 2)
    after = _reference_assignment("AVG", 3)
    want = ref.churn(before, after, weights)
    join = next(c for c in result.churn if c["event"] == "join")
    assert (join["queues_moved"], join["load_moved"]) == (want.queues_moved, want.load_moved)


def test_resize_risk_matches_the_java_hash(spark):
    keys = [f"order-{i}" for i in range(300)] + ["order-1"] * 5
    df = spark.createDataFrame([(k,) for k in keys], "key string")
    risk = resize_risk(df, "key", "string", 8, 16)
    sel = ref.SelectMessageQueueByHash()
    moved_keys = {k for k in set(keys) if sel.select_index(k, 8) != sel.select_index(k, 16)}
    assert risk["keys"] == 300 and risk["keys_moved"] == len(moved_keys)
    assert risk["messages"] == len(keys)
    assert risk["messages_moved"] == sum(1 for k in keys if k in moved_keys)


def test_cli_plan_end_to_end(tmp_path):
    load = tmp_path / "load.csv"
    with load.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["broker", "queue_id", "messages", "bytes"])
        w.writerows(LOAD)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "plan", "--load", str(load), "--topic", TOPIC,
         "--consumers", "2..3", "--out", str(out), "--master", "local[1]"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "CONSISTENT_HASH" in done.stdout
    with (out / "plan" / "consumers.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3 * (2 + 3)  # strategies x consumers
    summary = json.loads((out / "plan" / "summary.json").read_text())
    assert summary["queues"] == len(LOAD) and summary["consumer_counts"] == [2, 3]
