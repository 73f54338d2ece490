"""``rocketroute bench-producer`` runs against the instant peer (a name server and broker in one that answers at
once): the progress lines and the summary agree, window by window, in every mode; Ctrl-C prints the summary of
what was sent until then and exits 130. (The refusals before a run are tests/test_cli_bench_args.py's; runs on
real servers are tests/cluster/test_cli.py's.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ._instant_peer import instant_peer
from ._terminal import Terminal

LINE = re.compile(
    r"\[ *(?P<at>[\d.]+)s\] Send TPS: (?P<tps>[\d,]+)  RT avg: (?P<avg>[\d.]+) ms  p99: [\d.]+ ms  "
    r"max: (?P<max>[\d.]+) ms  sent: (?P<sent>[\d,]+)  failed: (?P<failed>[\d,]+)$"
)
SUMMARY = re.compile(r"summary(?P<interrupted> \(interrupted\))?: (?P<sent>[\d,]+) sent, (?P<failed>[\d,]+) failed in ")


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _bench(addr: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "rocketroute.cli", "bench-producer", "--namesrv", addr, "--topic", "T", *args]


def _lines(stdout: str) -> tuple[list[re.Match[str]], re.Match[str]]:
    """The progress lines and the summary line (the last line) of a run's output."""
    rows = stdout.strip().splitlines()
    assert rows[0].startswith("bench-producer: "), stdout
    lines = [LINE.fullmatch(r) for r in rows[1:-1]]
    assert all(lines), stdout
    summary = SUMMARY.match(rows[-1])
    assert summary, stdout
    return lines, summary  # type: ignore[return-value]


def _check_agree(lines: list[re.Match[str]], summary_line: re.Match[str], doc: dict[str, Any]) -> None:
    """Every line is its window in the JSON, and the summary is the windows added up."""
    windows = doc["windows"]
    assert len(lines) == len(windows)
    cumulative = 0
    for line, w in zip(lines, windows, strict=True):
        cumulative += w["sent"]
        assert _int(line["sent"]) == cumulative
        assert line["tps"] == f"{w['tps']:,.0f}" and line["avg"] == f"{w['rt_ms']['avg']:.2f}"
        assert w["tps"] == pytest.approx(w["sent"] / w["seconds"])
    assert _int(summary_line["sent"]) == doc["sent"] == cumulative == _int(lines[-1]["sent"]) > 0
    assert _int(summary_line["failed"]) == doc["failed"] == 0
    assert doc["seconds"] == pytest.approx(sum(w["seconds"] for w in windows), abs=1e-3)
    assert doc["seconds"] == pytest.approx(windows[-1]["end_s"], abs=1e-3)
    assert doc["tps"] == pytest.approx(doc["sent"] / sum(w["seconds"] for w in windows))
    assert min(w["tps"] for w in windows) <= doc["tps"] <= max(w["tps"] for w in windows)
    # the response times: each message once, with its own send's (a batch's messages with the batch's)
    weighted = sum(w["rt_ms"]["avg"] * w["sent"] for w in windows) / doc["sent"]
    assert doc["rt_ms"]["avg"] == pytest.approx(weighted, rel=1e-9)
    assert doc["rt_ms"]["max"] == max(w["rt_ms"]["max"] for w in windows)


@pytest.mark.parametrize("mode", ["batch", "sync", "async"])
def test_every_line_and_the_summary_agree(tmp_path: Path, mode: str) -> None:
    """``--duration 2 --interval 0.5``: four lines, each half a second long (the last one until the sends under
    way at 2 s are answered: no sliver of the senders stopping), whose counts, lengths and response times add up
    to the summary's."""
    out = tmp_path / "summary.json"
    with instant_peer() as addr:
        done = subprocess.run(
            _bench(addr, "--mode", mode, "--duration", "2", "--interval", "0.5", "--json", str(out)),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines, summary = _lines(done.stdout)
    doc = json.loads(out.read_text())
    assert not doc["interrupted"] and summary["interrupted"] is None
    want = {"async": ", 256 in flight", "sync": ", 4 threads", "batch": ", 4 threads, batches of 32"}[mode]
    assert done.stdout.splitlines()[0].endswith(want), done.stdout
    _check_agree(lines, summary, doc)
    windows = doc["windows"]
    assert len(windows) == 4, windows
    assert all(w["seconds"] >= 0.4 for w in windows), windows  # due every 0.5 s from the start, read every 20 ms
    assert 2.0 <= windows[-1]["end_s"] < 3.0, windows


def test_a_run_stopped_by_messages_ends_with_its_last_send(tmp_path: Path) -> None:
    """``--messages``: the senders stop by themselves; every message is in a line and the summary."""
    out = tmp_path / "summary.json"
    with instant_peer() as addr:
        done = subprocess.run(
            _bench(addr, "--mode", "batch", "--messages", "3000", "--batch-size", "10", "--interval", "0.2",
                   "--json", str(out)),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines, summary = _lines(done.stdout)
    doc = json.loads(out.read_text())
    _check_agree(lines, summary, doc)
    assert doc["sent"] == 3000


def _sending(run: Terminal) -> bool:
    """A window line with messages sent."""
    return any(m and _int(m["sent"]) > 0 for m in (LINE.fullmatch(r.rstrip("\n")) for r in run.out))


@pytest.mark.parametrize("mode", ["batch", "sync", "async"])
def test_ctrl_c_prints_the_summary_so_far_and_exits_130(tmp_path: Path, mode: str) -> None:
    out = tmp_path / "summary.json"
    with instant_peer() as addr:
        run = Terminal(_bench(addr, "--mode", mode, "--duration", "300", "--interval", "0.2", "--json", str(out)))
        run.wait_for(lambda: _sending(run), 60, "a window line with messages sent")
        time.sleep(0.3)  # into a window that Ctrl-C cuts short
        took = run.ctrl_c()
    output = "".join(run.out + run.err)
    assert run.proc.returncode == 130, output
    assert "".join(run.err).splitlines() == ["rocketroute bench-producer: interrupted"], output
    lines, summary = _lines("".join(run.out))
    assert summary["interrupted"], output
    doc = json.loads(out.read_text())
    assert doc["interrupted"]
    _check_agree(lines, summary, doc)
    assert doc["seconds"] < 60  # what was sent until Ctrl-C, not the 300 s asked for
    assert took < 5.0, took
