"""``python -m rocketroute.examples.walkthrough``: runs on both backends and prints the same picks on each."""

from __future__ import annotations

import os
import subprocess
import sys


def _run(backend: str, out: str) -> list[str]:
    env = {**os.environ, "ROCKETROUTE_BACKEND": backend}
    done = subprocess.run(
        [sys.executable, "-m", "rocketroute.examples.walkthrough", "--out", out],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_walkthrough_is_the_same_on_both_backends(tmp_path):
    native = _run("native", str(tmp_path / "n"))
    reference = _run("reference", str(tmp_path / "r"))
    assert native[-1] == f"Report: {tmp_path / 'n' / 'report.txt'}"
    same = lambda lines: [x for x in lines if not x.startswith(("backend:", "Report:"))]  # noqa: E731
    assert same(native) == same(reference) and len(same(native)) > 20
    assert (tmp_path / "n" / "report.txt").read_text().splitlines() == native[:-2]
