"""One real local SparkSession for the pipeline tests (session-scoped, quiet)."""

from __future__ import annotations

import os

import pytest

# Every JVM of these tests (the session's, and each CLI run's in a subprocess) lives for seconds over small
# data: the C1 compiler alone and the serial GC make them start and finish about twice as fast on 2 cores.
# Tests only; the pipeline itself runs with the JVM's defaults.
_FAST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
if _FAST_JVM not in os.environ.get("JAVA_TOOL_OPTIONS", ""):
    os.environ["JAVA_TOOL_OPTIONS"] = f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} {_FAST_JVM}".strip()


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
