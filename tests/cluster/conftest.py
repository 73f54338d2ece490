"""Fixtures of the cluster tests: real name servers and brokers (see harness.py).

- ``cluster``: one :class:`~tests.cluster.harness.Cluster` for the session, 2 name servers and 2 brokers
  (``broker-a``, ``broker-b``). Before each test that uses it, paused brokers are resumed and stopped ones started
  again, so a test that failed halfway through a stop/start does not break the next one.
- ``fresh_topic``: a factory for unique topic names, created on the cluster's brokers by default.
- ``make_cluster``: a factory for a cluster of another shape, closed after the test.

Every test under tests/cluster is marked ``cluster`` (``pytest -m "not cluster"`` leaves them out). Missing server
binaries make the tests fail with a message telling to run ``make servers``; they never skip.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .harness import Cluster

_HERE = Path(__file__).parent
_STATS: dict[str, object] = {}
_TOPIC_COUNTER = itertools.count()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.cluster)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if "started_in_s" in _STATS:
        disk = _STATS.get("disk_per_broker_mb") or {}
        terminalreporter.write_line(
            f"cluster: {_STATS['shape']} started in {_STATS['started_in_s']:.2f} s; "
            f"disk per broker at the end (MB): {disk}"
        )


@pytest.fixture(scope="session")
def _session_cluster() -> Iterator[Cluster]:
    c = Cluster(namesrvs=2, brokers=2)
    try:
        c.start()
        _STATS["shape"] = "2 name servers, 2 brokers"
        _STATS["started_in_s"] = c.started_in_s
        yield c
        _STATS["disk_per_broker_mb"] = {n: round(c.disk_usage(n) / 2**20, 1) for n in c.broker_names}
    finally:
        c.close()


@pytest.fixture(scope="session")
def cluster(_session_cluster: Cluster) -> Cluster:
    """The session's cluster: 2 name servers, 2 brokers (``broker-a``, ``broker-b``) in ``DefaultCluster``."""
    return _session_cluster


@pytest.fixture(autouse=True)
def _whole_cluster(request: pytest.FixtureRequest) -> None:
    """Before a test that uses ``cluster``: every broker running, not paused, and registered everywhere."""
    if "cluster" in request.fixturenames:
        request.getfixturevalue("cluster").ensure_all_up()


@pytest.fixture
def fresh_topic(request: pytest.FixtureRequest) -> Callable[..., str]:
    """``fresh_topic(queues=8, brokers=None, *, create=True, **create_topic_kwargs) -> str``: a topic name no
    other test uses (from the test's name), created with :meth:`Cluster.create_topic` on ``brokers`` (default all)
    and present in every name server's route when it returns; ``create=False`` only makes up the name."""
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", request.node.name)[:60]

    def make(queues: int = 8, brokers: list[str] | None = None, *, create: bool = True, **kwargs: object) -> str:
        topic = f"rr_{stem}_{next(_TOPIC_COUNTER)}_{uuid.uuid4().hex[:8]}"
        if create:
            request.getfixturevalue("cluster").create_topic(topic, queues, brokers, **kwargs)
        return topic

    return make


@pytest.fixture
def make_cluster() -> Iterator[Callable[..., Cluster]]:
    """``make_cluster(namesrvs=1, brokers=1, **kwargs) -> Cluster``: a started cluster of its own, closed after
    the test."""
    made: list[Cluster] = []

    def make(namesrvs: int = 1, brokers: int = 1, **kwargs: object) -> Cluster:
        c = Cluster(namesrvs, brokers, **kwargs)  # type: ignore[arg-type]
        made.append(c)
        return c.start()

    yield make
    for c in made:
        c.close()
