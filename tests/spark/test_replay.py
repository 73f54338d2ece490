"""The replay job: each producer's own MQFaultStrategy and retry loop over a broker trace, fault tolerance on
and off, on a real local SparkSession."""

from __future__ import annotations

import pytest

import rocketroute.reference as ref
from rocketroute.errors import IllegalArgumentError
from rocketroute.spark.jobs.replay import BrokerTrace, broker_windows, replay

QUEUES = (("broker-a", 0), ("broker-a", 1), ("broker-b", 0), ("broker-b", 1))
TRACE_SCHEMA = "ts_ms long, broker string, latency_ms long, ok boolean"
SENDS_SCHEMA = "ts_ms long, producer_id string"


def _sends(spark, producers=("p1",), n=20, step=100):
    return spark.createDataFrame([(i * step, p) for p in producers for i in range(n)], SENDS_SCHEMA)


def _by_mode(result, mode):
    rows = [r for r in result.sends.collect() if r["mode"] == mode]
    return sorted(rows, key=lambda r: (r["producer_id"], r["ts_ms"]))


def test_broker_windows_hold_each_window_s_worst_state():
    trace = [(100, "b", 900, True), (1500, "b", 5, False), (1700, "b", 7, True), (2000, "a", 3, True)]
    assert broker_windows(trace, 1000, 0, 3000) == [
        {"window_ms": 0, "broker": "b", "max_latency_ms": 900, "failed": False},
        {"window_ms": 1000, "broker": "b", "max_latency_ms": 900, "failed": True},  # 900 until 1500, then down
        {"window_ms": 2000, "broker": "a", "max_latency_ms": 3, "failed": False},  # a's first row opens it
        {"window_ms": 2000, "broker": "b", "max_latency_ms": 7, "failed": False},
        {"window_ms": 3000, "broker": "a", "max_latency_ms": 3, "failed": False},
        {"window_ms": 3000, "broker": "b", "max_latency_ms": 7, "failed": False},
    ]
    assert broker_windows([], 1000, 0, 5000) == []
    with pytest.raises(IllegalArgumentError):
        broker_windows(trace, 0, 0, 1)


def test_trace_is_a_step_function_per_broker():
    t = BrokerTrace([(100, "b", 900, True), (300, "b", 5, False)])
    assert t.at("b", 99) == (5, True) and t.at("b", 100) == (900, True) and t.at("b", 300) == (5, False)
    assert t.at("other", 10**9) == (5, True)
    assert t.degraded("b", 150, 550) and not t.degraded("b", 50, 550)


def test_healthy_brokers_give_the_plain_round_robin_in_both_modes(spark):
    trace = spark.createDataFrame([], TRACE_SCHEMA)
    result = replay(spark, trace, _sends(spark, ("p1", "p2"), n=9), QUEUES, start_index=-1)
    for mode in ("fault tolerance off", "fault tolerance on"):
        rows = _by_mode(result, mode)
        for producer in ("p1", "p2"):
            got = [(r["broker"], r["queue_id"]) for r in rows if r["producer_id"] == producer]
            counter = ref.SendWhichQueue("5.3", start=-1)
            assert got == [QUEUES[counter.increment_and_get() % len(QUEUES)] for _ in range(9)]
        assert all(r["attempts"] == 1 and r["ok"] for r in rows)
    assert {s["mode"]: (s["sends"], s["failures"], s["retries"]) for s in result.summary} == {
        "fault tolerance off": (18, 0, 0),
        "fault tolerance on": (18, 0, 0),
    }


def test_a_failed_broker_is_retried_around_and_isolated_only_with_fault_tolerance(spark):
    trace = spark.createDataFrame([(1000, "broker-b", 5, False)], TRACE_SCHEMA)
    result = replay(spark, trace, _sends(spark), QUEUES, start_index=-1)
    off, on = _by_mode(result, "fault tolerance off"), _by_mode(result, "fault tolerance on")
    # off (by hand): the round-robin picks broker-b at t = 1000, 1200, 1400, 1600, 1800; each of those fails
    # once and the retry, avoiding broker-b, lands on broker-a; the picks in between are broker-a anyway
    assert [r["ts_ms"] for r in off if r["attempts"] == 2] == [1000, 1200, 1400, 1600, 1800]
    assert all(r["ok"] and r["broker"] == "broker-a" for r in off if r["ts_ms"] >= 1000)
    assert [r["broker"] for r in off if r["ts_ms"] < 1000] == ["broker-a", "broker-a", "broker-b", "broker-b"] * 2 + [
        "broker-a",
        "broker-a",
    ]
    # on: only the first failure costs a retry; then broker-b is isolated for 10 s and never tried
    assert sum(r["attempts"] - 1 for r in on) == 1
    assert all(r["broker"] == "broker-a" and r["ok"] for r in on if r["ts_ms"] >= 1000)
    summary = {s["mode"]: s for s in result.summary}
    assert summary["fault tolerance on"]["degraded_share"] < summary["fault tolerance off"]["degraded_share"]
    shares = {}
    for row in result.traffic.collect():
        shares[(row["mode"], row["window_ms"])] = shares.get((row["mode"], row["window_ms"]), 0) + row["share"]
    assert all(abs(v - 1) < 1e-9 for v in shares.values())


def test_replay_is_deterministic(spark):
    trace = spark.createDataFrame([(500, "broker-a", 2000, True), (900, "broker-b", 5, False)], TRACE_SCHEMA)
    sends = _sends(spark, ("p1", "p2", "p3"), n=15, step=70)
    a = replay(spark, trace, sends, QUEUES, seed=3).sends.collect()
    b = replay(spark, trace, sends, QUEUES, seed=3).sends.collect()
    key = lambda r: (r["mode"], r["producer_id"], r["ts_ms"])  # noqa: E731
    assert sorted(map(tuple, a), key=str) == sorted(map(tuple, b), key=str)
    assert len(a) == 2 * 45 and len({key(r) for r in a}) == 90


def test_missing_columns_are_clear(spark):
    with pytest.raises(IllegalArgumentError, match="lacks the columns"):
        replay(spark, spark.createDataFrame([(1, "b")], "ts_ms long, broker string"), _sends(spark), QUEUES)


def _cli_replay(cli, tmp_path, out):
    """``rocketroute replay`` on ``tmp_path``'s trace.csv and sends.csv, two brokers of two queues."""
    return cli("replay", "--trace", str(tmp_path / "trace.csv"), "--sends", str(tmp_path / "sends.csv"),
               "--topic", "T", "--queues", "broker-a:2,broker-b:2", "--out", str(out))  # fmt: skip


def test_cli_replay_end_to_end(tmp_path, cli):
    import json

    (tmp_path / "trace.csv").write_text("ts_ms,broker,latency_ms,ok\n1000,broker-b,5,false\n")
    (tmp_path / "sends.csv").write_text("ts_ms,producer_id\n" + "".join(f"{i * 100},p1\n" for i in range(20)))
    out = tmp_path / "out"
    done = _cli_replay(cli, tmp_path, out)
    assert done.returncode == 0, done.stderr
    written = json.loads((out / "summary" / "summary.json").read_text())
    summary = {s["mode"]: s for s in written["modes"]}
    assert written["rows"]["send_rows"] == written["rows"]["sends_replayed"] == 20
    # the same scenario as the hand-checked test above, through CSV files and the command line
    assert summary["fault tolerance off"]["retries"] == 5 and summary["fault tolerance on"]["retries"] == 1
    assert summary["fault tolerance off"]["sends"] == summary["fault tolerance on"]["sends"] == 20
    # the timeline's aggregates: broker-b failing from its one trace row on, and every send counted once a mode
    windows = json.loads((out / "summary" / "broker_windows.json").read_text())
    assert windows[0] == {"window_ms": 1000, "broker": "broker-b", "max_latency_ms": 5, "failed": True}
    assert all(w["broker"] == "broker-b" and w["failed"] for w in windows)
    traffic = json.loads((out / "summary" / "traffic.json").read_text())
    assert sum(r["sends"] for r in traffic if r["mode"] == "fault tolerance off") == 20


def test_bad_rows_are_set_aside_with_a_reason_and_none_is_lost(spark):
    trace = spark.createDataFrame(
        [
            ("1000", "broker-b", "5", "false"),  # good: broker-b fails from 1 s
            ("2000", "broker-a", "-3", "true"),
            ("2000", "broker-x", "5", "true"),
            ("abc", "broker-a", "5", "true"),
            ("2000", None, "5", "true"),
            ("2000", "broker-a", "1.5", "true"),
            ("2000", "broker-a", "5", "maybe"),
            (None, "broker-a", "5", "true"),
            ("-1", "broker-a", "5", "true"),
        ],
        "ts_ms string, broker string, latency_ms string, ok string",
    )
    good_sends = [(str(i * 100), "p1") for i in range(20)]
    sends = spark.createDataFrame(
        [*good_sends, (None, "p1"), ("x", "p2"), ("300", None), ("-5", "p1")], "ts_ms string, producer_id string"
    )
    result = replay(spark, trace, sends, QUEUES)
    reasons = sorted(r["reason"] for r in result.rejected_trace.collect())
    assert reasons == sorted(
        [
            "negative latency",
            "unknown broker",
            "ts_ms is not an integer",
            "null broker",
            "latency_ms is not an integer",
            "ok is not a boolean",
            "null ts_ms",
            "negative ts_ms",
        ]
    )
    assert sorted(r["reason"] for r in result.rejected_sends.collect()) == sorted(
        ["null ts_ms", "ts_ms is not an integer", "null producer_id", "negative ts_ms"]
    )
    assert result.trace == [(1000, "broker-b", 5, False)]
    assert result.counts == {
        "trace_rows": 9,
        "trace_used": 1,
        "trace_rejected": 8,
        "send_rows": 24,
        "sends_rejected": 4,
        "sends_replayed": 20,
    }
    # the good rows replay exactly as the same scenario given clean, typed input
    clean = replay(
        spark,
        spark.createDataFrame([(1000, "broker-b", 5, False)], TRACE_SCHEMA),
        _sends(spark),
        QUEUES,
    )
    key = lambda r: (r["mode"], r["ts_ms"])  # noqa: E731
    assert sorted(map(tuple, result.sends.collect()), key=str) == sorted(map(tuple, clean.sends.collect()), key=str)
    assert sorted(result.summary, key=str) == sorted(clean.summary, key=str)
    assert {key(r) for r in result.sends.collect()} == {key(r) for r in clean.sends.collect()}
    result.unpersist()
    clean.unpersist()


def test_cli_replay_writes_rejected_rows_and_the_broker_windows(tmp_path, cli):
    import json

    import pyarrow.parquet as pq

    (tmp_path / "trace.csv").write_text("ts_ms,broker,latency_ms,ok\n1000,broker-b,5,false\n500,broker-z,5,true\n")
    (tmp_path / "sends.csv").write_text("ts_ms,producer_id\n0,p1\n100,p1\nnope,p1\n")
    out = tmp_path / "out"
    done = _cli_replay(cli, tmp_path, out)
    assert done.returncode == 0, done.stderr
    assert "trace rows 2 = used 1 + rejected 1; send rows 3 = replayed 2 + rejected 1" in done.stdout
    assert pq.read_table(out / "rejected" / "trace").column("reason").to_pylist() == ["unknown broker"]
    assert pq.read_table(out / "rejected" / "sends").column("reason").to_pylist() == ["ts_ms is not an integer"]
    assert not (out / "trace").exists()  # the trace rows used are not an output: the report reads the windows
    # only the used row (broker-b fails from 1000 ms), over the traffic's windows (the sends' 0..100 ms: 0)
    windows = json.loads((out / "summary" / "broker_windows.json").read_text())
    assert windows == []  # broker-b's first row comes after the only window
    traffic = json.loads((out / "summary" / "traffic.json").read_text())
    assert {(r["mode"], r["window_ms"]) for r in traffic} == {("fault tolerance on", 0), ("fault tolerance off", 0)}
    assert all(
        sum(r["sends"] for r in traffic if r["mode"] == m) == 2 for m in ("fault tolerance on", "fault tolerance off")
    )
    assert json.loads((out / "summary" / "summary.json").read_text())["rows"]["trace_rejected"] == 1
