"""A user's mistakes on the command line: each one is one line on stderr and exit code 2, caught before Spark
starts where it can be (no ``starting Spark`` progress line, nothing on stdout), and a run that routes or
replays nothing says so and exits 2 instead of reporting an empty success."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocketroute.errors import IllegalArgumentError
from rocketroute.spark import queue_spec

QUEUES_FORM = "--queues takes broker:count pairs, e.g. broker-a:8,broker-b:8"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", *args],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )  # fmt: skip


def _stderr_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if not line.startswith("Picked up JAVA_TOOL_OPTIONS")]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """Inputs that exist (each case below stops before any is read) and a JSON file that is not a route."""
    (tmp_path / "m.csv").write_text("key\na\n")
    (tmp_path / "t.csv").write_text("ts_ms,broker,latency_ms,ok\n")
    (tmp_path / "s.csv").write_text("ts_ms,producer_id\n0,p\n")
    (tmp_path / "load.csv").write_text("broker,queue_id,messages\nb,0,1\n")
    (tmp_path / "settings.json").write_text(json.dumps({"name": "x", "retries": 2}))
    (tmp_path / "fake.parquet").write_text("key\na\n")
    return {k: str(tmp_path / v) for k, v in
            (("m", "m.csv"), ("t", "t.csv"), ("s", "s.csv"), ("load", "load.csv"), ("json", "settings.json"),
             ("fake", "fake.parquet"))} | {
        "out": str(tmp_path / "out")}  # fmt: skip


def _route(f: dict[str, str], *extra: str) -> list[str]:
    return ["route", "--input", f["m"], "--topic", "T", "--out", f["out"], *extra]


def _replay(f: dict[str, str], *extra: str) -> list[str]:
    return [
        "replay",
        "--trace",
        f["t"],
        "--sends",
        f["s"],
        "--topic",
        "T",
        "--queues",
        "b:4",
        "--out",
        f["out"],
        *extra,
    ]


def _plan(f: dict[str, str], *extra: str) -> list[str]:
    return ["plan", "--load", f["load"], "--topic", "T", "--out", f["out"], *extra]


CASES = {
    "replay --retries -1": (
        lambda f: _replay(f, "--retries", "-1"),
        "rocketroute replay: error: argument --retries: must be at least 0, not -1 (see rocketroute replay --help)",
    ),
    "replay --window-ms 0": (
        lambda f: _replay(f, "--window-ms", "0"),
        "rocketroute replay: error: argument --window-ms: must be at least 1, not 0 (see rocketroute replay --help)",
    ),
    "--queues 0": (
        lambda f: _route(f, "--queues", "0"),
        f"rocketroute route: error: {QUEUES_FORM}; '0' has no ':count'",
    ),
    "--queues broker-a": (
        lambda f: _route(f, "--queues", "broker-a"),
        f"rocketroute route: error: {QUEUES_FORM}; 'broker-a' has no ':count'",
    ),
    "--queues broker-a:-4": (
        lambda f: _route(f, "--queues", "broker-a:-4"),
        f"rocketroute route: error: {QUEUES_FORM}; the queue count of 'broker-a' must be a whole number of at "
        "least 1, not '-4'",
    ),
    "--queues a:4,a:4": (
        lambda f: _route(f, "--queues", "a:4,a:4"),
        f"rocketroute route: error: {QUEUES_FORM}; 'a' is named twice (give each broker once, with its total count)",
    ),
    "a JSON file that is not a route": (
        lambda f: _route(f, "--route", f["json"]),
        "rocketroute route: error: this is not a topic route (a TopicRouteData JSON from the name server, with "
        "queueDatas and brokerDatas); it has: name, retries",
    ),
    "demo --consumers 0": (
        lambda f: ["demo", "--consumers", "0", "--out", f["out"]],
        "rocketroute demo: error: --consumers 0: a group has at least 1 consumer, not 0",
    ),
    "plan --resize 0:16": (
        lambda f: _plan(f, "--resize", "0:16", "--input", f["m"]),
        "rocketroute plan: error: --resize 0:16: a topic has at least 1 queue before and after",
    ),
    "plan --consumers 5..2": (
        lambda f: _plan(f, "--consumers", "5..2"),
        "rocketroute plan: error: --consumers 5..2 is a reversed range; write 2..5",
    ),
    "route --input fake.parquet (a file that is not parquet)": (
        lambda f: ["route", "--input", f["fake"], "--topic", "T", "--queues", "b:4", "--out", f["out"]],
        lambda f: f"rocketroute route: error: cannot read {f['fake']!r} as parquet: it is not a Parquet file (it "
        "does not end with Parquet's magic number, PAR1)",
    ),
    "an input whose format cannot be told": (
        lambda f: ["route", "--input", f["json"].replace(".json", ".txt"), "--topic", "T", "--queues", "b:4",
                   "--out", f["out"]],
        None,  # filled in below: the path is the test's own
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_mistake_is_one_line_and_exit_2_before_spark_starts(case, files):
    argv, message = CASES[case]
    if callable(message):
        message = message(files)
    if message is None:
        txt = files["json"].replace(".json", ".txt")
        Path(txt).write_text("key\na\n")
        message = f"rocketroute route: error: cannot tell the format of {txt!r}; pass --format parquet/csv/json"
    done = _cli(*argv(files))
    assert done.returncode == 2, done.stderr
    assert _stderr_lines(done) == [message]
    assert done.stdout == ""
    assert not Path(files["out"]).exists()


def test_spaces_around_a_queue_count_are_read_as_meant():
    assert queue_spec("T", queues="broker-a: 4, broker-b :2") == queue_spec("T", queues="broker-a:4,broker-b:2")
    assert len(queue_spec("T", queues="broker-a: 4")) == 4


@pytest.mark.parametrize("text", ["", "a:", "a:0", "a:1.5", "a:4,,b:4"])
def test_other_bad_queue_lists_are_refused(text):
    with pytest.raises(IllegalArgumentError, match="--queues takes broker:count pairs"):
        queue_spec("T", queues=text)


def test_route_that_routes_nothing_says_why_and_exits_2(tmp_path, cli):
    """``--size`` naming a text column: every row is set aside, and the run says so, with the reason."""
    src = tmp_path / "m.csv"
    src.write_text("key,size\na,x\nb,y\nc,z\n")
    out = tmp_path / "out"
    done = cli("route", "--input", str(src), "--topic", "T", "--queues", "b:4", "--size", "key", "--out", str(out))
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"rocketroute route: error: nothing routed: all 3 rows were rejected (size is not an integer: 3); "
        f"see {out}/rejected"
    )
    assert json.loads((out / "summary" / "summary.json").read_text())["rejected_reasons"] == {
        "size is not an integer": 3
    }
    assert done.stdout == ""  # no table of zeros before the error


def test_an_input_with_no_rows_is_nothing_to_route_before_spark_starts(tmp_path):
    """A header-only CSV file, a CSV folder whose parts hold only their headers and a Parquet file whose footer
    counts no rows are known to be empty without Spark: one line, exit 2, no outputs."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    csv_file = tmp_path / "m.csv"
    csv_file.write_text("key\n\n")
    folder = tmp_path / "parts"
    folder.mkdir()
    (folder / "part-00000.csv").write_text("key,size\n")
    (folder / "part-00001.csv.gz").write_bytes(gzip.compress(b"key,size\n"))
    (folder / "_SUCCESS").write_text("")
    parquet = tmp_path / "m.parquet"
    pq.write_table(pa.table({"key": pa.array([], pa.string())}), parquet)
    out = tmp_path / "out"
    for src, fmt in ((csv_file, "csv"), (folder, "csv"), (parquet, "parquet")):
        done = _cli("route", "--input", str(src), "--format", fmt, "--topic", "T", "--queues", "b:4",
                    "--out", str(out))  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert _stderr_lines(done) == [
            f"rocketroute route: error: nothing to route: the input {str(src)!r} has no rows"
        ]
        assert done.stdout == "" and not out.exists()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"retries": -1}, "retries must be at least 0, not -1"),
        ({"window_ms": 0}, "window_ms must be at least 1, not 0"),
    ],
)
def test_replay_from_python_refuses_the_same_values_before_any_job(spark, kwargs, message):
    from rocketroute.spark import replay

    trace = spark.createDataFrame([(0, "b", 1, True)], "ts_ms long, broker string, latency_ms long, ok boolean")
    sends = spark.createDataFrame([(0, "p")], "ts_ms long, producer_id string")
    with pytest.raises(IllegalArgumentError, match=message):
        replay(spark, trace, sends, (("b", 0),), topic="T", **kwargs)


def test_a_missing_column_is_caught_before_spark_starts(tmp_path):
    """A Parquet input's schema (its footer) and a CSV file's header are read without Spark: a column an option
    names that is not there is one line before Spark starts; for route, replay and plan's resize alike."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "m.parquet"
    pq.write_table(pa.table({"order_id": ["a"], "bytes": [1]}), parquet)
    csv_file = tmp_path / "m.csv"
    csv_file.write_text("order_id,bytes\na,1\n")
    out = str(tmp_path / "out")
    for src in (parquet, csv_file):
        done = _cli("route", "--input", str(src), "--topic", "T", "--queues", "b:4", "--out", out)
        assert done.returncode == 2, done.stderr
        assert _stderr_lines(done) == [
            f"rocketroute route: error: the key column 'key' is not in the input {str(src)!r} "
            "(columns: ['bytes', 'order_id'])"
        ]
        done = _cli("route", "--input", str(src), "--topic", "T", "--queues", "b:4", "--key", "order_id",
                    "--size", "size", "--out", out)  # fmt: skip
        assert _stderr_lines(done) == [
            f"rocketroute route: error: the size column 'size' is not in the input {str(src)!r} "
            "(columns: ['bytes', 'order_id'])"
        ]
    trace = tmp_path / "t.csv"
    trace.write_text("ts_ms,broker,latency\n")
    sends = tmp_path / "s.csv"
    sends.write_text("ts_ms,producer_id\n")
    done = _cli("replay", "--trace", str(trace), "--sends", str(sends), "--topic", "T", "--queues", "b:4",
                "--out", out)  # fmt: skip
    assert _stderr_lines(done) == [
        f"rocketroute replay: error: the required column 'latency_ms' is not in the trace {str(trace)!r} "
        "(columns: ['broker', 'latency', 'ts_ms'])"
    ]
    load = tmp_path / "load.csv"
    load.write_text("broker,queue_id,messages\nb,0,1\n")
    done = _cli("plan", "--load", str(load), "--topic", "T", "--resize", "4:8", "--input", str(parquet), "--out", out)
    assert _stderr_lines(done) == [
        f"rocketroute plan: error: the key column 'key' is not in the input {str(parquet)!r} "
        "(columns: ['bytes', 'order_id'])"
    ]
    assert not Path(out).exists()


def test_replay_with_no_send_rows_says_so_before_spark_starts(tmp_path):
    """A header-only sends file replays nothing: one line, exit 2, no outputs (the after-Spark check's words)."""
    trace = tmp_path / "t.csv"
    trace.write_text("ts_ms,broker,latency_ms,ok\n0,b,5,true\n")
    sends = tmp_path / "s.csv"
    sends.write_text("ts_ms,producer_id\n\n")
    out = tmp_path / "out"
    done = _cli("replay", "--trace", str(trace), "--sends", str(sends), "--topic", "T", "--queues", "b:4",
                "--out", str(out))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert _stderr_lines(done) == [f"rocketroute replay: error: nothing replayed: no send rows in {str(sends)!r}"]
    assert not out.exists()


def test_round_robin_needs_no_key_column(tmp_path):
    """The column check asks only for what the job reads: round-robin ignores the key."""
    from rocketroute.spark.cli.inputs import check_columns

    src = tmp_path / "m.csv"
    src.write_text("producer,ts\np,1\n")
    check_columns(str(src), "csv", [("key", None), ("producer", "producer"), ("timestamp", "ts")])


def test_a_json_or_csv_folder_input_missing_the_key_is_caught_before_spark_starts(tmp_path):
    """JSON Lines (every record's keys read: Spark's columns are their union) and a CSV folder as Spark writes
    it (``part-*.csv.gz``, ``_SUCCESS``, ``.crc``): a missing column is one line, and Spark never starts."""
    src = tmp_path / "m.json"
    src.write_text("".join(json.dumps({"order_id": f"o{i}", "bytes": i}) + "\n" for i in range(20)))
    folder = tmp_path / "csv_out"
    folder.mkdir()
    for i in range(2):
        (folder / f"part-0000{i}-c000.csv.gz").write_bytes(gzip.compress(f"order_id,bytes\no{i},{i}\n".encode()))
        (folder / f".part-0000{i}-c000.csv.gz.crc").write_bytes(b"crc\x00")
    (folder / "_SUCCESS").write_text("")
    out = str(tmp_path / "out")
    for path in (src, folder):
        done = _cli("route", "--input", str(path), "--format", "csv" if path == folder else "json", "--topic", "T",
                    "--queues", "b:4", "--out", out)  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert _stderr_lines(done) == [
            f"rocketroute route: error: the key column 'key' is not in the input {str(path)!r} "
            "(columns: ['bytes', 'order_id'])"
        ]
        assert done.stdout == ""
    assert not Path(out).exists()


def test_a_json_key_only_in_the_last_record_or_a_csv_folder_with_it_routes(tmp_path, cli):
    """Not refused before Spark: a key the first records lack but the last one has is a column to Spark (the
    records without it are rejected as null keys), and a CSV folder whose header has the key routes."""
    src = tmp_path / "m.json"
    src.write_text("".join(json.dumps({"id": i}) + "\n" for i in range(30)) + json.dumps({"id": 30, "key": "k"}))
    folder = tmp_path / "csv_out"
    folder.mkdir()
    (folder / "part-00000-c000.csv.gz").write_bytes(gzip.compress(b"key,size\na,1\nb,2\n"))
    (folder / "part-00001-c000.csv").write_text("key,size\nc,3\n")
    (folder / "_SUCCESS").write_text("")
    for path, fmt, rows in ((src, "json", (31, 1, 30)), (folder, "csv", (3, 3, 0))):
        out = tmp_path / f"out_{fmt}"
        done = cli("route", "--input", str(path), "--format", fmt, "--topic", "T", "--queues", "b:4",
                   "--out", str(out))  # fmt: skip
        assert done.returncode == 0, done.stderr
        summary = json.loads((out / "summary" / "summary.json").read_text())
        assert (summary["input_rows"], summary["routed_rows"], summary["rejected_rows"]) == rows
