"""One real local SparkSession for the pipeline tests (session-scoped, quiet)."""

from __future__ import annotations

import pytest


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
