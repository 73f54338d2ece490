"""Corrupted inputs through the CLI: a clear error with Spark's reason, no traceback, no partial output; and
the atomic output swap cleans up after a failed write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rocketroute.cli import _write_atomically


def _route(src: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "route", "--input", str(src), "--topic", "T",
         "--queues", "b:4", "--out", str(out), "--master", "local[1]"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


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


def test_corrupted_data_pages_fail_the_job_with_spark_s_reason_and_leave_no_output(tmp_path, parquet_bytes):
    src = tmp_path / "m.parquet"
    damaged = bytearray(parquet_bytes)
    damaged[100 : len(damaged) // 2] = b"\xab" * (len(damaged) // 2 - 100)  # the footer still reads
    src.write_bytes(bytes(damaged))
    out = tmp_path / "out"
    done = _route(src, out)
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("rocketroute route: error: the Spark job failed:") and "FAILED_READ_FILE" in last
    assert "Traceback" not in done.stderr
    assert not out.exists() or not any(p.name in ("routed", "summary") for p in out.iterdir())


def test_a_failed_write_leaves_neither_the_output_nor_its_temporary_folder(tmp_path):
    (tmp_path / "routed").mkdir()
    (tmp_path / "routed" / "old.parquet").write_text("previous run")

    def fails(p: str) -> None:
        Path(p).mkdir()
        Path(p, "part-0").write_text("half")
        raise RuntimeError("the job died")

    with pytest.raises(RuntimeError, match="the job died"):
        _write_atomically(tmp_path, "routed", fails)
    # the previous complete output stays; nothing half-written is left, not even hidden
    assert [p.name for p in tmp_path.iterdir()] == ["routed"]
    assert (tmp_path / "routed" / "old.parquet").read_text() == "previous run"


def test_a_rerun_drops_the_old_summary_before_replacing_outputs(tmp_path):
    from rocketroute.cli import _begin_outputs

    (tmp_path / "summary").mkdir()
    (tmp_path / "summary" / "summary.json").write_text("{}")
    (tmp_path / "routed").mkdir()
    _begin_outputs(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["routed"]  # no summary: the run is not complete yet
