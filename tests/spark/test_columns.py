"""Input columns through the jobs: never clobbered by a job's own columns, kept (renamed) when named like an
output column, refused when two share a name; and a key whose bytes are not UTF-8 is rejected on both hash
paths alike."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rocketroute.reference as ref
from rocketroute.errors import IllegalArgumentError, RocketRouteError
from rocketroute.spark import queue_spec, route
from rocketroute.spark.cli.common import read_input
from rocketroute.spark.jobs.plan import resize_risk
from rocketroute.spark.jobs.replay import replay

TOPIC = "TopicTest"


@pytest.fixture(scope="module")
def spec():
    return queue_spec(TOPIC, queues="broker-a:4,broker-b:3")


def _expected(spec, key: str) -> tuple[str, int, int]:
    mqs = [ref.MessageQueue(TOPIC, b, q) for b, q in spec.queues]
    mq = ref.SelectMessageQueueByHash().select(mqs, None, key)
    return mq.broker_name, mq.queue_id, mqs.index(mq)


@pytest.mark.parametrize("hash_path", ["arrow", "jvm"])
def test_input_columns_named_like_outputs_are_kept_as_input_columns(spark, spec, hash_path):
    rows = [(f"k{i}", f"their-broker-{i}", 100 + i, 200 + i, f"their-reason-{i}", f"taken-{i}") for i in range(30)]
    rows.append((None, "b-null", 1, 2, "r-null", "t-null"))  # rejected: its input columns are kept too
    df = spark.createDataFrame(
        rows, "key string, broker string, queue_id long, Queue_Index long, reason string, input_broker string"
    )
    result = route(spark, df, spec, hash_path=hash_path)
    # input_broker is taken by the input: the input's broker becomes input_broker_2
    assert result.renamed == {
        "broker": "input_broker_2",
        "queue_id": "input_queue_id",
        "Queue_Index": "input_Queue_Index",
        "reason": "input_reason",
    }
    routed = result.routed.collect()
    assert len(routed) == 30
    for r in routed:
        i = int(r["key"][1:])
        assert (r["input_broker_2"], r["input_queue_id"], r["input_Queue_Index"]) == (
            f"their-broker-{i}",
            100 + i,
            200 + i,
        )
        assert (r["input_reason"], r["input_broker"]) == (f"their-reason-{i}", f"taken-{i}")
        assert (r["broker"], r["queue_id"], r["queue_index"]) == _expected(spec, r["key"])
    [bad] = result.rejected.collect()
    assert bad["reason"] == "null key" and bad["input_reason"] == "r-null" and bad["input_broker_2"] == "b-null"


@pytest.mark.parametrize("selector", ["hash-arrow", "hash-jvm", "round-robin"])
def test_internal_column_names_never_overwrite_input_columns(spark, spec, selector):
    internal = ["_key", "_reject", "_queue_index", "_input_order", "_key_2", "_reject_2"]
    rows = [(f"k{i}", "p", i, *(f"{c}-{i}" for c in internal)) for i in range(25)]
    schema = "key string, producer string, ts long, " + ", ".join(f"{c} string" for c in internal)
    df = spark.createDataFrame(rows, schema)
    if selector == "round-robin":
        result = route(spark, df, spec, selector="round-robin", producer="producer", ts="ts")
    else:
        result = route(spark, df, spec, hash_path=selector.split("-")[1])
    got = result.routed.collect()
    assert len(got) == 25 and result.rejected_rows == 0 and result.renamed == {}
    assert sorted(result.routed.columns) == sorted(
        ["key", "producer", "ts", *internal, "queue_index", "broker", "queue_id"]
    )
    for r in got:
        assert [r[c] for c in internal] == [f"{c}-{r['ts']}" for c in internal]  # the input's own values
        if selector == "round-robin":
            assert r["queue_index"] == r["ts"] % len(spec)
        else:
            assert (r["broker"], r["queue_id"], r["queue_index"]) == _expected(spec, r["key"])


def test_replay_keeps_the_inputs_reason_and_reject_columns(spark):
    queues = (("broker-a", 0), ("broker-b", 0))
    trace = spark.createDataFrame(
        [(0, "broker-a", 5, True, "t-ok", "tr-ok"), (10, "broker-x", 5, True, "t-bad", "tr-bad")],
        "ts_ms long, broker string, latency_ms long, ok boolean, reason string, _reject string",
    )
    sends = spark.createDataFrame(
        [(i * 10, "p1", f"s-{i}", f"sr-{i}") for i in range(5)] + [(-1, "p1", "s-neg", "sr-neg")],
        "ts_ms long, producer_id string, reason string, _reject string",
    )
    result = replay(spark, trace, sends, queues)
    assert result.renamed == {"trace": {"reason": "input_reason"}, "sends": {"reason": "input_reason"}}
    [bad_trace] = result.rejected_trace.collect()
    assert (bad_trace["reason"], bad_trace["input_reason"], bad_trace["_reject"]) == (
        "unknown broker",
        "t-bad",
        "tr-bad",
    )
    [bad_send] = result.rejected_sends.collect()
    assert (bad_send["reason"], bad_send["input_reason"], bad_send["_reject"]) == ("negative ts_ms", "s-neg", "sr-neg")
    assert result.counts["trace_used"] == 1 and result.counts["sends_replayed"] == 5


def test_duplicate_column_names_are_refused(spark, spec):
    df = spark.createDataFrame([("a", 1, 2)], "key string, size long, size long")
    with pytest.raises(IllegalArgumentError, match=r"the input has the column 'size' 2 times"):
        route(spark, df, spec, size="size")
    folded = spark.createDataFrame([("a", "b")], "key string, KEY string")
    with pytest.raises(IllegalArgumentError, match=r"the input has the column 'key' 2 times \('key', 'KEY'\)"):
        route(spark, folded, spec)
    with pytest.raises(IllegalArgumentError, match=r"the sends has the column 'size' 2 times"):
        replay(spark, spark.createDataFrame([], "ts_ms long, broker string, latency_ms long, ok boolean"),
               spark.createDataFrame([(1, "p", 1, 2)], "ts_ms long, producer_id string, size long, size long"),
               (("broker-a", 0),))  # fmt: skip
    with pytest.raises(IllegalArgumentError, match="2 times"):
        resize_risk(df, "key", "string", 4, 8)


def test_a_csv_header_naming_a_column_twice_is_refused(spark, tmp_path):
    dup = tmp_path / "dup.csv"
    dup.write_text("key,size,size\na,1,2\nb,3,4\n")
    with pytest.raises(RocketRouteError, match=r"the CSV header of .*dup.csv' names the column 'size' 2 times"):
        read_input(spark, str(dup), None)
    folded = tmp_path / "folded.csv"
    folded.write_text("Key,key\na,b\n")
    with pytest.raises(RocketRouteError, match=r"names the column 'Key' 2 times"):
        read_input(spark, str(folded), None)
    # a header that only looks like Spark's renaming of duplicates is a real one
    real = tmp_path / "real.csv"
    real.write_text("key,size1,size2\na,1,2\n")
    assert read_input(spark, str(real), None).columns == ["key", "size1", "size2"]


def test_cli_refuses_duplicate_columns_and_keeps_an_input_broker_column(tmp_path, cli):
    """One Spark run each: the CSV header naming ``size`` twice, and then a CSV with its own ``broker``, which
    used to fail in the middle of writing."""
    dup = tmp_path / "dup.csv"
    dup.write_text("key,size,size\na,1,2\n")
    out = tmp_path / "out"
    args = ["--topic", TOPIC, "--queues", "broker-a:2,broker-b:2", "--out", str(out)]
    done = cli("route", "--input", str(dup), "--size", "size", *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"rocketroute route: error: the CSV header of {str(dup)!r} names the column 'size' 2 times; "
        "rename them so that every column has its own name"
    )
    assert not out.exists()
    src = tmp_path / "m.csv"
    src.write_text("key,broker,reason\n" + "".join(f"k{i},old-{i},why-{i}\n" for i in range(20)) + ",old-x,why-x\n")
    done = cli("route", "--input", str(src), *args)
    assert done.returncode == 0, done.stderr
    note = "the input columns named like an output column are kept under another name: "
    assert note + "'broker' as 'input_broker', 'reason' as 'input_reason'" in done.stdout
    summary = json.loads((out / "summary" / "summary.json").read_text())
    assert summary["renamed_columns"] == {"broker": "input_broker", "reason": "input_reason"}
    routed = pq.read_table(out / "routed").to_pylist()
    assert sorted(r["input_broker"] for r in routed) == sorted(f"old-{i}" for i in range(20))
    assert {r["broker"] for r in routed} <= {"broker-a", "broker-b"}
    assert pq.read_table(out / "rejected").to_pylist() == [
        {"key": None, "input_broker": "old-x", "input_reason": "why-x", "reason": "null key"}
    ]


INVALID = [b"ab\xff", b"\xc3\x28x", b"\xed\xa0\x80", b"\x80"]  # a bad byte, a bad sequence, a surrogate, a lone tail
VALID = [b"ok", "h\u00e9llo".encode(), "\U0001f600".encode(), b""]


@pytest.fixture(scope="module")
def invalid_utf8_parquet(tmp_path_factory):
    keys = [*INVALID, *VALID]
    path = tmp_path_factory.mktemp("utf8") / "keys.parquet"
    # Parquet does not check that a string column holds UTF-8: write the bytes as strings without validation
    column = pa.array(keys, pa.binary()).cast(pa.string(), safe=False)
    pq.write_table(pa.table({"key": column, "id": pa.array(range(len(keys)), pa.int64())}), path)
    assert pq.read_schema(path).field("key").type == pa.string()
    return path


@pytest.mark.parametrize("hash_path", ["arrow", "jvm"])
def test_keys_that_are_not_utf8_are_rejected_on_both_hash_paths(spark, spec, invalid_utf8_parquet, hash_path):
    result = route(spark, spark.read.parquet(str(invalid_utf8_parquet)), spec, hash_path=hash_path)
    rejected = {r["id"]: r["reason"] for r in result.rejected.collect()}
    assert rejected == {i: "key is not valid UTF-8" for i in range(len(INVALID))}
    routed = {r["id"]: (r["broker"], r["queue_id"], r["queue_index"]) for r in result.routed.collect()}
    assert routed == {len(INVALID) + j: _expected(spec, k.decode()) for j, k in enumerate(VALID)}


def test_resize_risk_leaves_keys_that_are_not_utf8_out(spark, invalid_utf8_parquet):
    risk = resize_risk(spark.read.parquet(str(invalid_utf8_parquet)), "key", "string", 4, 8)
    assert risk["messages"] == risk["keys"] == len(VALID)
