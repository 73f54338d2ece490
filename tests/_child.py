"""Running a script against one backend in a child process with a time limit: for tests whose failure mode is
a hang (a deadlock, a path gone quadratic), so a regression fails its test instead of stalling the suite."""

from __future__ import annotations

import os
import subprocess
import sys
from types import ModuleType

import pytest


def run_on_backend(script: str, backend: ModuleType, *, timeout: float, what: str) -> str:
    """``script`` with ``{module}`` replaced by the backend's module name, run by this interpreter; its stdout.
    Fails the test, naming ``what``, when it runs past ``timeout`` seconds or exits non-zero."""
    module = "rocketroute.reference" if backend.BACKEND == "reference" else "rocketroute"
    env = dict(os.environ)
    env.pop("ROCKETROUTE_BACKEND", None)  # the child picks the native backend itself, as the suite does
    try:
        proc = subprocess.run(
            [sys.executable, "-c", script.format(module=module)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} did not finish in {timeout:g} s")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout
