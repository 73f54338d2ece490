"""Where the jobs write: every job's whole output set is staged next to ``--out`` and swapped in when complete;
a non-empty ``--out`` needs ``--overwrite``; an ``--out`` that cannot be written is refused before Spark
starts, in one line, with exit code 2. (The runs that do write are in test_route, test_corrupted_input and
test_demo.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocketroute.errors import RocketRouteError
from rocketroute.spark.cli.common import check_out, staged_output


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}  # the same rocketroute from another cwd
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", *args],
        capture_output=True, text=True, timeout=120, check=False, cwd=cwd, env=env,
    )  # fmt: skip


@pytest.fixture
def inputs(tmp_path):
    """Inputs for every job (never read: each case below stops before Spark starts)."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "m.csv").write_text("key\na\n")
    (d / "trace.csv").write_text("ts_ms,broker,latency_ms,ok\n")
    (d / "sends.csv").write_text("ts_ms,producer_id\n0,p\n")
    (d / "load.csv").write_text("broker,queue_id,messages\nb,0,1\n")
    (d / "route").mkdir()
    return d


def _jobs(inputs: Path, out: Path) -> dict[str, list[str]]:
    q = ["--topic", "T", "--queues", "b:2"]
    return {
        "route": ["route", "--input", str(inputs / "m.csv"), *q, "--out", str(out)],
        "plan": ["plan", "--load", str(inputs / "load.csv"), "--topic", "T", "--out", str(out)],
        "replay": ["replay", "--trace", str(inputs / "trace.csv"), "--sends", str(inputs / "sends.csv"), *q,
                   "--out", str(out)],
        "demo": ["demo", "--rows", "10", "--out", str(out)],
    }  # fmt: skip


def _refused(done: subprocess.CompletedProcess[str], command: str, message: str) -> None:
    """Exit code 2, the one-line error, and Spark never started."""
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("Picked up JAVA_TOOL_OPTIONS")]
    assert lines == [f"rocketroute {command}: error: {message}"]
    assert done.stdout == ""


@pytest.mark.parametrize("command", ["route", "plan", "replay", "demo"])
def test_a_non_empty_out_needs_overwrite_and_is_left_alone(tmp_path, inputs, command):
    out = tmp_path / "out"
    kept = out / "plan" / "keep.csv" if command == "plan" else out / "keep.csv"  # plan replaces OUT/plan only
    kept.parent.mkdir(parents=True)
    kept.write_text("a previous run")
    done = _cli(*_jobs(inputs, out)[command])
    label = repr(str(out / "plan")) if command == "plan" else f"--out {str(out)!r}"
    _refused(done, command, f"{label} already exists and is not empty; pass --overwrite to replace it")
    assert kept.read_text() == "a previous run" and sorted(p.name for p in tmp_path.iterdir()) == ["in", "out"]


def test_plan_writes_next_to_other_folders_in_its_out_without_overwrite(tmp_path, inputs):
    """plan's output set is OUT/plan: other folders in OUT (route's outputs, the demo's) need no --overwrite."""
    out = tmp_path / "out"
    (out / "route").mkdir(parents=True)
    assert check_out(str(out), overwrite=False, sub="plan") == (out / "plan").resolve()


@pytest.mark.parametrize("command", ["route", "plan", "replay", "demo"])
def test_an_out_that_is_a_file_is_refused_before_spark(tmp_path, inputs, command):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    _refused(
        _cli(*_jobs(inputs, afile)[command], "--overwrite"), command, f"--out {str(afile)!r} is a file, not a folder"
    )
    under = afile / "sub"
    _refused(
        _cli(*_jobs(inputs, under)[command]),
        command,
        f"cannot write --out {str(under)!r}: {str(afile)!r} is a file, not a folder",
    )
    assert afile.read_text() == "not a folder"


def test_report_out_that_is_a_folder_or_under_a_file_is_refused(tmp_path, inputs):
    folder = tmp_path / "r"
    folder.mkdir()
    done = _cli("report", "--route", str(inputs / "route"), "--out", str(folder))
    _refused(done, "report", f"--out {str(folder)!r} is a folder; give the HTML file to write, e.g. report.html")
    (tmp_path / "afile").write_text("x")
    under = tmp_path / "afile" / "r.html"
    done = _cli("report", "--route", str(inputs / "route"), "--out", str(under))
    _refused(done, "report", f"cannot write --out {str(under)!r}: {str(tmp_path / 'afile')!r} is a file, not a folder")


def test_an_out_holding_an_input_or_the_current_folder_is_refused_even_with_overwrite(tmp_path, inputs):
    jobs = _jobs(inputs, tmp_path)
    done = _cli(*jobs["route"], "--overwrite")
    held = str(inputs / "m.csv")
    msg = f"--out {str(tmp_path)!r} holds the input {held!r}, which replacing it would delete; choose another --out"
    _refused(done, "route", msg)
    done = _cli(*_jobs(inputs, Path("."))["route"], "--overwrite", cwd=tmp_path / "in" / "route")
    _refused(done, "route", "--out '.' holds the current folder, which replacing it would delete; choose another --out")
    assert (inputs / "m.csv").read_text() == "key\na\n"


def test_an_unwritable_parent_is_refused(tmp_path, monkeypatch):
    # chmod cannot make a folder unwritable for root (the tests may run as root): ask os.access instead
    parent = tmp_path / "ro"
    parent.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: Path(p) != parent and real(p, mode))
    msg = f"cannot write --out {str(parent / 'a' / 'out')!r}: the folder {str(parent)!r} is not writable"
    with pytest.raises(RocketRouteError, match="^" + msg.replace("(", r"\(").replace(")", r"\)") + "$"):
        check_out(str(parent / "a" / "out"), overwrite=True)
    assert check_out(str(tmp_path / "ok"), overwrite=False) == (tmp_path / "ok").resolve()


def test_staged_output_replaces_the_whole_set_or_nothing(tmp_path):
    out = tmp_path / "out"
    (out / "compat").mkdir(parents=True)
    (out / "compat" / "compat.csv").write_text("stale")
    (out / "routed").mkdir()
    (out / "routed" / "old.parquet").write_text("previous run")

    with pytest.raises(RuntimeError, match="the job died"), staged_output(out) as stage:
        (stage / "routed").mkdir()
        (stage / "routed" / "part-0").write_text("half")
        raise RuntimeError("the job died")
    # the previous complete outputs stay; nothing half-written is left, not even hidden
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (out / "routed" / "old.parquet").read_text() == "previous run"
    assert (out / "compat" / "compat.csv").read_text() == "stale"

    with staged_output(out) as stage:
        (stage / "routed").mkdir()
        (stage / "routed" / "part-0").write_text("new")
        assert not (out / "routed" / "part-0").exists()  # nothing shows under --out before the end
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == ["routed", "routed/part-0"]  # no stale compat
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_staged_output_through_a_symbolic_link_keeps_the_link(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "old").write_text("x")
    link = tmp_path / "link"
    link.symlink_to(real)
    with staged_output(check_out(str(link), overwrite=True)) as stage:
        (stage / "new").write_text("y")
    assert link.is_symlink() and sorted(p.name for p in link.iterdir()) == ["new"]
