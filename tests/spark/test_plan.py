"""The plan job: per-consumer load from allocate_all (checked against the reference backend), churn of
joins and leaves, and the ordering risk of a queue-count change on a real local SparkSession."""

from __future__ import annotations

import csv
import json

import pytest

import rocketroute.reference as ref
from rocketroute.errors import IllegalArgumentError
from rocketroute.spark import parse_consumers, plan, resize_risk
from rocketroute.spark.jobs.plan import Rooms, consumer_ids, default_strategies, parse_rooms

TOPIC = "TopicTest"
LOAD = [("broker-a", q, 100 * (q + 1), 10 * q) for q in range(6)] + [("broker-b", q, 7, 1) for q in range(5)]


def _reference_assignment(strategy_name, n):
    strategies = {
        "AVG": ref.AllocateMessageQueueAveragely(),
        "AVG_BY_CIRCLE": ref.AllocateMessageQueueAveragelyByCircle(),
        "CONSISTENT_HASH": ref.AllocateMessageQueueConsistentHash(10),
        "STICKY": ref.AllocateMessageQueueSticky(),
        "CONSISTENT_HASH_BOUNDED": ref.AllocateMessageQueueConsistentHashBounded(1.25, 10),
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
        (s, n)
        for s in ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH", "STICKY", "CONSISTENT_HASH_BOUNDED")
        for n in (1, 3, 4)
    }


def test_sticky_moves_no_more_than_avg_and_bounded_stays_under_its_cap():
    # both start from AVG's blocks (sticky with no history is AVG), then each rebalances its own way
    counts = list(range(1, 12))
    result = plan(LOAD, TOPIC, counts, ["AVG", "STICKY", "CONSISTENT_HASH_BOUNDED"])
    moved = {(c["strategy"], c["consumers"], c["event"]): c["queues_moved"] for c in result.churn}
    for (strategy, n, event), q in moved.items():
        if strategy == "STICKY":
            assert q <= moved[("AVG", n, event)], (n, event)
    joins = [c for c in result.churn if c["strategy"] == "STICKY" and c["event"] == "join"]
    assert sum(c["queues_moved"] for c in joins) < sum(moved[("AVG", c["consumers"], "join")] for c in joins)
    for n in counts:  # a join moves exactly the newcomer's share: the fewest a balanced group can
        after = ref.AllocateMessageQueueSticky(_reference_assignment("STICKY", n)).allocate_all(
            sorted(ref.MessageQueue(TOPIC, b, q) for b, q, _, _ in LOAD),
            sorted(f"consumer-{i}" for i in range(n + 1)),
        )
        assert moved[("STICKY", n, "join")] == len(after[f"consumer-{n}"])
    for r in result.consumers:
        if r["strategy"] == "CONSISTENT_HASH_BOUNDED":
            assert r["queues"] <= -(-125 * len(LOAD) // (100 * r["consumers"]))


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


ROOM_LOAD = [(f"{room}@broker-{room}", q, 10 + q, 1) for room in ("az1", "az2") for q in range(4)] + [
    ("az3@broker-az3", 0, 50, 5)
]


def test_room_strategies_equal_the_reference_allocators():
    rooms = Rooms({b: b.split("@")[0] for b, _, _, _ in ROOM_LOAD}, ("az1", "az2"))
    config = [("az1@broker-az1", 0), ("az3@broker-az3", 0)]
    names = default_strategies(rooms, ["az1", "az3"], config)
    assert names == [
        "AVG",
        "AVG_BY_CIRCLE",
        "CONSISTENT_HASH",
        "STICKY",
        "CONSISTENT_HASH_BOUNDED",
        "MACHINE_ROOM_NEARBY",
        "MACHINE_ROOM",
        "CONFIG",
    ]
    result = plan(ROOM_LOAD, TOPIC, [3], names, rooms=rooms, idcs=["az1", "az3"], config=config)
    assert consumer_ids(3, "consumer-{i}", rooms) == ["az1@consumer-0", "az2@consumer-1", "az1@consumer-2"]
    plain = consumer_ids(3, "consumer-{i}", rooms, prefix=False)
    assert plain == ["consumer-0", "consumer-1", "consumer-2"]
    # only the strategy that reads the room gets room@ ids; the others see the --cid-pattern ids
    for name in {r["strategy"] for r in result.consumers}:
        ids = [r["consumer"] for r in result.consumers if r["strategy"] == name]
        want_ids = consumer_ids(3, "consumer-{i}", rooms, prefix=name.startswith("MACHINE_ROOM_NEARBY"))
        assert ids == want_ids, name
    mqs = sorted(ref.MessageQueue(TOPIC, b, q) for b, q, _, _ in ROOM_LOAD)
    expected = {
        "MACHINE_ROOM_NEARBY-AVG": ref.AllocateMachineRoomNearby(
            ref.AllocateMessageQueueAveragely(),
            broker_deploy_in=lambda mq: mq.broker_name.split("@")[0],
            consumer_deploy_in=lambda cid: cid.split("@")[0],
        ),
        "MACHINE_ROOM": ref.AllocateMessageQueueByMachineRoom(["az1", "az3"]),
        "CONFIG": ref.AllocateMessageQueueByConfig([ref.MessageQueue(TOPIC, b, q) for b, q in config]),
    }
    messages = {(b, q): m for b, q, m, _ in ROOM_LOAD}
    for name, strategy in expected.items():
        cids = consumer_ids(3, "consumer-{i}", rooms, prefix=name.startswith("MACHINE_ROOM_NEARBY"))
        want = ref.allocate_all(strategy, mqs, sorted(cids))
        got = {r["consumer"]: r for r in result.consumers if r["strategy"] == name}
        assert set(got) == set(cids), name
        for cid in cids:
            queues = want[cid] or []
            assert got[cid]["queues"] == len(queues), (name, cid)
            assert got[cid]["messages"] == sum(messages[(mq.broker_name, mq.queue_id)] for mq in queues)
    # nearby: az3's queue has no consumer in its room, so it is shared out; az1 and az2 queues stay in the room
    nearby = {r["consumer"]: r["messages"] for r in result.consumers if r["strategy"] == "MACHINE_ROOM_NEARBY-AVG"}
    assert nearby["az2@consumer-1"] >= sum(m for (b, _), m in messages.items() if b.startswith("az2"))
    join = next(c for c in result.churn if c["strategy"] == "MACHINE_ROOM_NEARBY-AVG" and c["event"] == "join")
    assert join["consumers_after"] == 4  # the joining consumer-3 is in az2 (rooms alternate)


def test_room_strategies_need_their_parameters():
    for name, hint in (("MACHINE_ROOM_NEARBY", "--rooms"), ("MACHINE_ROOM", "--idcs"), ("CONFIG", "--config")):
        with pytest.raises(IllegalArgumentError, match=hint):
            plan(LOAD, TOPIC, [2], [name])
    with pytest.raises(IllegalArgumentError, match="not in the load table"):
        plan(LOAD, TOPIC, [2], ["CONFIG"], config=[("broker-z", 0)])
    with pytest.raises(IllegalArgumentError, match="broker=room"):
        parse_rooms("broker-a")


def test_resize_risk_matches_the_java_hash(spark):
    keys = [f"order-{i}" for i in range(300)] + ["order-1"] * 5
    df = spark.createDataFrame([(k,) for k in keys], "key string")
    risk = resize_risk(df, "key", "string", 8, 16)
    sel = ref.SelectMessageQueueByHash()
    moved_keys = {k for k in set(keys) if sel.select_index(k, 8) != sel.select_index(k, 16)}
    assert risk["keys"] == 300 and risk["keys_moved"] == len(moved_keys)
    assert risk["messages"] == len(keys)
    assert risk["messages_moved"] == sum(1 for k in keys if k in moved_keys)


def test_cli_plan_end_to_end(tmp_path, cli):
    load = tmp_path / "load.csv"
    with load.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["broker", "queue_id", "messages", "bytes"])
        w.writerows(LOAD)
    out = tmp_path / "out"
    done = cli("plan", "--load", str(load), "--topic", TOPIC, "--consumers", "2..3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "CONSISTENT_HASH" in done.stdout
    with (out / "plan" / "consumers.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 5 * (2 + 3)  # strategies x consumers
    # the report's records are the same tables, typed
    for name in ("consumers", "imbalance", "churn"):
        with (out / "plan" / f"{name}.csv").open() as f:
            table = list(csv.DictReader(f))
        records = json.loads((out / "plan" / f"{name}.json").read_text())
        assert [r["strategy"] for r in records] == [r["strategy"] for r in table] and len(records) == len(table)
        assert [r["consumers"] for r in records] == [int(r["consumers"]) for r in table]
    consumers = json.loads((out / "plan" / "consumers.json").read_text())
    assert [r["messages"] for r in consumers] == [int(r["messages"]) for r in rows]
    summary = json.loads((out / "plan" / "summary.json").read_text())
    assert summary["queues"] == len(LOAD) and summary["consumer_counts"] == [2, 3]


def test_cli_plan_with_rooms_adds_machine_room_nearby(tmp_path, cli):
    load = tmp_path / "load.csv"
    with load.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["broker", "queue_id", "messages"])
        w.writerows((b, q, m) for b, q, m, _ in LOAD)
    out = tmp_path / "out"
    done = cli("plan", "--load", str(load), "--topic", TOPIC, "--consumers", "2", "--rooms",
               "broker-a=az1,broker-b=az2", "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    with (out / "plan" / "consumers.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["strategy"] for r in rows} == {
        "AVG",
        "AVG_BY_CIRCLE",
        "CONSISTENT_HASH",
        "STICKY",
        "CONSISTENT_HASH_BOUNDED",
        "MACHINE_ROOM_NEARBY-AVG",
    }
    nearby = {r["consumer"]: int(r["queues"]) for r in rows if r["strategy"] == "MACHINE_ROOM_NEARBY-AVG"}
    assert nearby == {"az1@consumer-0": 6, "az2@consumer-1": 5}  # each consumer takes its own room's broker
    assert {r["consumer"] for r in rows if r["strategy"] == "AVG"} == {"consumer-0", "consumer-1"}  # no room@
