"""The route job on a real local SparkSession: every routed row equals the library's per-call answer
(checked against the pure-Python reference), bad rows are set aside with a reason, and no row is lost."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import rocketroute.reference as ref
from rocketroute.errors import IllegalArgumentError
from rocketroute.spark import queue_spec, route
from rocketroute.spark.jobs.route import skew_metrics

TOPIC = "TopicTest"
KEYS = [
    "order-1",
    "polygenelubricants",  # hashes to Integer.MIN_VALUE
    "GydZG_",
    "h\u00e9llo",
    "\U0001f600 astral",
    "",
    *[f"order-{i}" for i in range(200)],
]


@pytest.fixture(scope="module")
def spec():
    return queue_spec(TOPIC, queues="broker-a:4,broker-b:3")


def _ref_queues(spec):
    return [ref.MessageQueue(TOPIC, b, q) for b, q in spec.queues]


@pytest.mark.parametrize("hash_path", ["arrow", "jvm", "jvm-reflect"])
def test_hash_route_equals_the_library_row_for_row(spark, spec, hash_path):
    rows = [(k, i, 10 + i) for i, k in enumerate(KEYS)]
    df = spark.createDataFrame(rows, "key string, id long, size long")
    result = route(spark, df, spec, size="size", hash_path=hash_path)
    selector, mqs = ref.SelectMessageQueueByHash(), _ref_queues(spec)
    got = {r["id"]: (r["broker"], r["queue_id"], r["queue_index"]) for r in result.routed.collect()}
    assert len(got) == len(rows)
    for key, i, _ in rows:
        mq = selector.select(mqs, None, key)
        assert got[i] == (mq.broker_name, mq.queue_id, mqs.index(mq)), key
    assert (result.input_rows, result.routed_rows, result.rejected_rows) == (len(rows), len(rows), 0)


@pytest.mark.parametrize("hash_path", ["arrow", "jvm", "jvm-reflect"])
def test_integer_keys_parse_and_bad_ones_are_rejected(spark, spec, hash_path):
    rows = [("7", 1), ("-1", 2), ("9999999999", 3), ("x1", 4), (None, 5), ("-2147483648", 6)]
    df = spark.createDataFrame(rows, "key string, id long")
    for key_type in ("long", "int"):
        result = route(spark, df, spec, key_type=key_type, hash_path=hash_path)
        routed = {r["id"]: r["queue_index"] for r in result.routed.collect()}
        rejected = {r["id"]: r["reason"] for r in result.rejected.collect()}
        assert rejected[4] == "key is not an integer" and rejected[5] == "null key"
        if key_type == "int":
            assert rejected[3] == "key is out of the Java int range"
        selector = ref.SelectMessageQueueByHash(key_type=key_type)
        for k, i in rows:
            if i in routed:
                assert routed[i] == selector.select_index(int(k), len(spec)), (key_type, k)
        assert set(routed) == ({1, 2, 3, 6} if key_type == "long" else {1, 2, 6})
        assert result.input_rows == result.routed_rows + result.rejected_rows == len(rows)


def test_bad_rows_are_set_aside_with_a_reason_and_counted(spark, spec):
    rows = [("a", 10), (None, 10), ("b", -5), ("c", None), ("d", 0)]
    df = spark.createDataFrame(rows, "key string, size long")
    result = route(spark, df, spec, size="size")
    reasons = sorted(((r["key"] or ""), r["reason"]) for r in result.rejected.collect())
    assert reasons == [("", "null key"), ("b", "negative size")]
    assert sorted(r["key"] for r in result.routed.collect()) == ["a", "c", "d"]
    assert result.input_rows == 5 and result.routed_rows == 3 and result.rejected_rows == 2


def test_per_queue_table_and_skew(spark, spec):
    rows = [(f"k{i % 11}", 100) for i in range(300)]
    result = route(spark, spark.createDataFrame(rows, "key string, size long"), spec, size="size")
    table = [r.asDict() for r in result.per_queue.collect()]
    assert [(r["broker"], r["queue_id"]) for r in table] == list(spec.queues)  # every queue, in order
    assert sum(r["messages"] for r in table) == 300 and sum(r["bytes"] for r in table) == 300 * 100
    assert abs(sum(r["share"] for r in table) - 1.0) < 1e-9
    assert result.skew == skew_metrics([r["messages"] for r in table])
    hot = [r.asDict() for r in result.hot_keys.collect()]
    assert all(h["rank"] <= 5 for h in hot) and sum(h["messages"] for h in hot) <= 300


def test_skew_metrics_by_hand():
    assert skew_metrics([5, 5, 5, 5]) == {"max_over_mean": 1.0, "cv": 0.0, "gini": 0.0}
    even_one = skew_metrics([0, 0, 0, 4])
    assert even_one["max_over_mean"] == 4.0 and even_one["gini"] == 0.75
    assert skew_metrics([]) == {"max_over_mean": 0.0, "cv": 0.0, "gini": 0.0}


def test_round_robin_follows_each_producers_own_index(spark, spec):
    rows = [(f"k{i}", f"p{i % 3}", (i * 7919) % 1000, 50 if i % 10 else -1) for i in range(120)]
    df = spark.createDataFrame(rows, "key string, producer string, ts long, size long")
    result = route(spark, df, spec, selector="round-robin", producer="producer", ts="ts", size="size", start_index=5)
    got = {r["key"]: r["queue_index"] for r in result.routed.collect()}
    counters: dict[str, ref.SendWhichQueue] = {}
    for key, p, _ts, size in sorted(rows, key=lambda r: (r[1], r[2])):
        if size < 0:  # not sent: does not advance the index
            assert key not in got
            continue
        c = counters.setdefault(p, ref.SendWhichQueue("5.3", start=5))
        assert got[key] == c.increment_and_get() % len(spec), key
    assert result.rejected_rows == 12


def test_round_robin_without_timestamps_keeps_the_input_order(spark, spec):
    rows = [(f"k{i:03d}", "p") for i in range(40)]
    df = spark.createDataFrame(rows, "key string, producer string").repartition(3)  # several input partitions
    ordered = [r["key"] for r in df.collect()]  # the input order Spark reads
    result = route(spark, df, spec, selector="round-robin", producer="producer", start_index=-1)
    got = {r["key"]: r["queue_index"] for r in result.routed.collect()}
    assert [got[k] for k in ordered] == [i % len(spec) for i in range(40)]


def test_round_robin_needs_no_key_column(spark, spec):
    df = spark.createDataFrame([(i, "p") for i in range(10)], "ts long, producer string")
    result = route(spark, df, spec, selector="round-robin", producer="producer", ts="ts")
    assert [r["queue_index"] for r in result.routed.orderBy("ts").collect()] == [i % len(spec) for i in range(10)]
    assert result.hot_keys.count() == 0


def test_random_uses_each_producers_seeded_selector(spark, spec):
    rows = [(f"k{i}", f"p{i % 2}", i) for i in range(60)]
    df = spark.createDataFrame(rows, "key string, producer string, ts long")
    result = route(spark, df, spec, selector="random", producer="producer", ts="ts", seed=42)
    got = {r["key"]: r["queue_index"] for r in result.routed.collect()}
    selectors: dict[str, ref.SelectMessageQueueByRandom] = {}
    for key, p, _ in rows:
        s = selectors.setdefault(p, ref.SelectMessageQueueByRandom(ref.JavaRandom(42 + ref.java_string_hash(p))))
        assert got[key] == s.select_index(len(spec))


def test_clear_errors_before_the_job(spark, spec):
    df = spark.createDataFrame([("a", 1)], "key string, n long")
    with pytest.raises(IllegalArgumentError, match="not in the input"):
        route(spark, df, spec, key="nope")
    with pytest.raises(IllegalArgumentError, match="hashes a String and a Long differently"):
        route(spark, df, spec, key="n")
    with pytest.raises(IllegalArgumentError, match="selector"):
        route(spark, df, spec, selector="sticky")


def test_queue_spec_from_a_route_matches_the_publish_info():
    route_json = {
        "queueDatas": [
            {"brokerName": "broker-b", "readQueueNums": 2, "writeQueueNums": 2, "perm": 6},
            {"brokerName": "broker-a", "readQueueNums": 3, "writeQueueNums": 3, "perm": 6},
        ],
        "brokerDatas": [
            {"brokerName": "broker-a", "brokerAddrs": {"0": "a:1"}},
            {"brokerName": "broker-b", "brokerAddrs": {"0": "b:1"}},
        ],
    }
    spec = queue_spec(TOPIC, route_json=json.dumps(route_json))
    tp = ref.TopicPublishInfo.from_route(TOPIC, ref.TopicRouteData.from_json(route_json))
    assert spec.queues == tuple((mq.broker_name, mq.queue_id) for mq in tp.message_queues)
    with pytest.raises(ref.NumberFormatError):
        queue_spec(TOPIC, queues="broker-a:x")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_cli_route_end_to_end_replaces_its_outputs(tmp_path, cli):
    src = tmp_path / "msgs.csv"
    src.write_text("key,size\n" + "".join(f"order-{i % 13},{100 + i}\n" for i in range(50)) + ",7\nneg,-1\n")
    out = tmp_path / "out"
    args = ["route", "--input", str(src), "--topic", TOPIC, "--queues", "broker-a:2,broker-b:2"]
    args += ["--size", "size", "--out", str(out)]
    # the first run compares profiles (writes compat/); the re-run does not, and replaces the whole output set
    first = cli(*args, "--compare-profiles", "java-hashcode,go4-fnv32a")
    assert first.returncode == 0, first.stderr
    assert (out / "compat" / "compat.csv").is_file()
    done = cli(*args, "--overwrite")
    assert done.returncode == 0, done.stderr
    for run in (first, done):  # a re-run into the same folder replaces, never duplicates
        assert "input rows 52 = routed 50 + rejected 2" in run.stdout
    summary = json.loads((out / "summary" / "summary.json").read_text())
    assert (summary["input_rows"], summary["routed_rows"], summary["rejected_rows"]) == (52, 50, 2)
    assert "compat" not in summary
    # no stale compat/ from the first run, and no temporary folder left next to --out
    assert sorted(p.name for p in out.iterdir()) == ["hot_keys", "per_queue", "rejected", "routed", "summary"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["msgs.csv", "out"]
    import pyarrow.parquet as pq

    assert pq.read_table(out / "routed").num_rows == 50
    assert pq.read_table(out / "rejected").num_rows == 2


def test_cli_errors_are_clear(tmp_path):
    src = tmp_path / "m.csv"
    src.write_text("key\na\n")
    missing = _cli("route", "--input", str(tmp_path / "nope.csv"), "--topic", TOPIC, "--queues", "b:1", "--out", "o")
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    bad_route = _cli("route", "--input", str(src), "--topic", TOPIC, "--route", str(tmp_path / "r.json"), "--out", "o")
    assert bad_route.returncode == 2 and "cannot read the route file" in bad_route.stderr
    (tmp_path / "r.json").write_text("{not json")
    bad_json = _cli("route", "--input", str(src), "--topic", TOPIC, "--route", str(tmp_path / "r.json"), "--out", "o")
    assert bad_json.returncode == 2 and "not valid JSON" in bad_json.stderr


def test_cli_uses_the_running_session_and_leaves_it_running(tmp_path, spark, cli):
    """In a process that runs a Spark session (a notebook, an application calling ``main``), a command uses it as
    it is and does not stop it; ``--master`` naming another master and ``--progress`` (off in this session) are
    refused, not ignored."""
    src = tmp_path / "m.csv"
    src.write_text("key\n" + "".join(f"k{i}\n" for i in range(20)))
    args = ["route", "--input", str(src), "--topic", TOPIC, "--queues", "b:4", "--out", str(tmp_path / "out")]
    done = cli(*args)
    assert done.returncode == 0, done.stderr
    assert "[rocketroute] 4 queues on 1 broker; on this process's running Spark session (local[2])\n" in done.stderr
    assert "starting Spark" not in done.stderr
    assert spark.range(5).count() == 5  # still running
    other = cli(*args, "--overwrite", "--master", "local[1]")
    assert (other.returncode, other.stdout) == (2, "")
    assert other.stderr.splitlines()[-1] == (
        "rocketroute route: error: --master local[1]: this process runs a Spark session on local[2] already, which "
        "the command uses; leave --master out"
    )
    progress = cli(*args, "--overwrite", "--progress")
    assert progress.returncode == 2 and "--progress: this process's running Spark session started without" in (
        progress.stderr
    )
    same = cli(*args, "--overwrite", "--master", "local[2]")
    assert same.returncode == 0, same.stderr
    assert spark.range(5).count() == 5


def test_bench_spark_exact_methods_agree(spark):
    from rocketroute.spark.bench import HASH_METHOD, UDF_METHOD, bench_spark, udf_over_hash
    from rocketroute.spark.cli.bench_spark import format_table
    from rocketroute.spark.jvm import jar_path

    rows = bench_spark(spark, [3000, 2000], num_queues=7, reference_rows=1000, runs=3, warmups=1)
    methods = 5 if jar_path() else 4  # the JVM UDF where its jar is built
    assert len(rows) == 1 + 2 * (methods - 1)
    assert rows[0]["method"] == "reference Python UDF" and rows[0]["rows"] == 1000
    for r in rows:
        assert r["runs"] == 3 and r["min_seconds"] <= r["seconds"] <= r["max_seconds"]
        assert r["rows_per_s"] == pytest.approx(r["rows"] / r["seconds"])
    selector = ref.SelectMessageQueueByHash()

    def checksum(size):  # the sum of the indices of synthetic_keys(size), per call
        return sum(selector.select_index(f"order-{(i * 7919) % 100_000:010d}", 7) for i in range(size))

    assert rows[0]["checksum"] == checksum(1000)
    for size in (3000, 2000):
        by = {r["method"]: r for r in rows if r["rows"] == size}
        assert HASH_METHOD in by and (UDF_METHOD in by) == bool(jar_path())
        # the Arrow worker and the JVM paths give the library's answer
        assert {by[m]["checksum"] for m in by if m != HASH_METHOD} == {checksum(size)}
    ratios = udf_over_hash(rows)
    assert set(ratios) == ({3000, 2000} if jar_path() else set())
    table = format_table(rows)
    assert table[0].split()[:3] == ["method", "rows", "runs"] and len(table) == 1 + len(rows) + len(ratios)


def test_bench_spark_rows_take_a_list():
    import argparse

    from rocketroute.spark.cli.bench_spark import rows_list

    assert rows_list("1000000, 10_000_000,1000000") == [1_000_000, 10_000_000]
    assert rows_list("5") == [5]
    for bad, said in (("0", "at least 1"), ("1e6", "must be an integer"), (",", "comma-separated list")):
        with pytest.raises(argparse.ArgumentTypeError, match=said):
            rows_list(bad)
