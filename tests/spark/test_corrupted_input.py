"""Corrupted inputs through the CLI: a clear error with Spark's reason, no traceback, no partial output, and
the previous run's outputs left as they were."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _route(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "route", "--input", str(src), "--topic", "T",
         "--queues", "b:4", "--out", str(out), "--master", "local[1]", *extra],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


_EXPECTED_STDERR = ("[rocketroute] ", "WARNING: Using incubator modules", "Picked up JAVA_TOOL_OPTIONS")
"""The lines a quiet run may print before its error: rocketroute's progress, and what the JVM itself prints."""


@pytest.fixture(scope="module")
def parquet_bytes(tmp_path_factory) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("good") / "good.parquet"
    pq.write_table(pa.table({"key": [f"k{i}" for i in range(10_000)]}), path)
    return path.read_bytes()


def test_a_file_that_is_not_parquet_is_a_clear_error_before_the_job(tmp_path, parquet_bytes):
    src = tmp_path / "m.parquet"
    src.write_bytes(parquet_bytes[: len(parquet_bytes) // 2])  # truncated: no footer
    done = _route(src, tmp_path / "out")
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"rocketroute route: error: cannot read {str(src)!r} as parquet:")
    assert "not a Parquet file" in last and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_corrupted_data_pages_fail_the_job_with_spark_s_reason_and_keep_the_previous_outputs(tmp_path, parquet_bytes):
    src = tmp_path / "data" / "m.parquet"
    src.parent.mkdir()
    damaged = bytearray(parquet_bytes)
    damaged[100 : len(damaged) // 2] = b"\xab" * (len(damaged) // 2 - 100)  # the footer still reads
    src.write_bytes(bytes(damaged))
    out = tmp_path / "out"
    previous = {"routed/part-0.parquet": "previous routed", "summary/summary.json": '{"previous": true}'}
    for name, text in previous.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    done = _route(src, out, "--overwrite")
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("rocketroute route: error: the Spark job failed:") and "FAILED_READ_FILE" in last
    assert "Traceback" not in done.stderr
    # no Spark log line, no executor trace: the progress lines, the JVM's own notice, and the one-line reason
    noise = [line for line in done.stderr.splitlines()[:-1] if not line.startswith(_EXPECTED_STDERR)]
    assert noise == []
    # the failed run replaced nothing: the previous outputs are whole, and nothing half-written is left
    assert {str(p.relative_to(out)): p.read_text() for p in out.rglob("*") if p.is_file()} == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "out"]


def test_verbose_shows_the_java_trace_and_spark_s_log(tmp_path, parquet_bytes):
    src = tmp_path / "m.parquet"
    damaged = bytearray(parquet_bytes)
    damaged[100 : len(damaged) // 2] = b"\xab" * (len(damaged) // 2 - 100)
    src.write_bytes(bytes(damaged))
    done = _route(src, tmp_path / "out", "--verbose")
    assert done.returncode == 1, done.stderr
    assert "FAILED_READ_FILE" in done.stderr.strip().splitlines()[-1]
    assert "Traceback" in done.stderr and "\tat org.apache.spark." in done.stderr  # the Python and Java frames


def test_a_corrupted_aggregate_fails_the_report_in_one_line_naming_the_file(tmp_path):
    from rocketroute.spark.aggregates import HOT_KEYS, write_records

    route = tmp_path / "route"
    queue = {"queue_index": 0, "broker": "b", "queue_id": 0, "messages": 1, "bytes": 0, "share": 1.0}
    summary = {"topic": "T", "selector": "hash", "input_rows": 1, "routed_rows": 1, "rejected_rows": 0,
               "skew": {"max_over_mean": 1.0, "cv": 0.0, "gini": 0.0}, "per_queue": [queue]}  # fmt: skip
    (route / "summary").mkdir(parents=True)
    (route / "summary" / "summary.json").write_text(json.dumps(summary))
    hot = write_records(route, HOT_KEYS, [{"queue_index": 0, "key": "k", "messages": 1, "rank": 1}])
    hot.write_bytes(hot.read_bytes()[:-9])  # cut short
    page = tmp_path / "r.html"
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "report", "--route", str(route), "--out", str(page)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("Picked up JAVA_TOOL_OPTIONS")]
    assert len(lines) == 1 and lines[0].startswith(f"rocketroute report: error: {hot} is not valid JSON (the hot keys")
    assert not page.exists()
