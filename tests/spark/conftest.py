"""One real local SparkSession for the pipeline tests (session-scoped, quiet)."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from .._java_peers import SHORT_JVM

# every JVM of these tests, the session's and each CLI run's in a subprocess
if SHORT_JVM not in os.environ.get("JAVA_TOOL_OPTIONS", ""):
    os.environ["JAVA_TOOL_OPTIONS"] = f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} {SHORT_JVM}".strip()


@pytest.fixture(scope="session")
def spark():
    from rocketroute.spark import local_session

    session = local_session("local[2]", app_name="rocketroute-tests")
    session.conf.set("spark.sql.shuffle.partitions", "2")
    yield session
    session.stop()


def pytest_collection_modifyitems(items):
    for item in items:
        if "/spark/" in str(item.fspath):
            item.add_marker(pytest.mark.spark)


@dataclass(frozen=True)
class CliRun:
    """What a ``rocketroute`` command run in this process returned and printed (as ``subprocess.run`` says)."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(spark) -> Callable[..., CliRun]:
    """``cli(*argv)``: ``rocketroute argv`` through :func:`rocketroute.cli.main` in this process, as an application or
    a notebook calls it: the command uses the running session (the ``spark`` fixture's) and leaves it running, so a
    run costs its job and not a JVM's start. Its stdout and stderr are captured. The runs that start their own
    Spark in a process of their own are the subprocess tests (test_demo, test_standalone, test_mistakes, ...)."""
    from rocketroute.cli import main

    def run(*argv: str) -> CliRun:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
        return CliRun(code, out.getvalue(), err.getvalue())

    return run
