"""Fixtures of the cluster tests: real name servers and brokers (see harness.py and impls.py).

Every cluster test runs once per server implementation (the ``server_impl`` parameter, in the test id):
Apache RocketMQ 5.5.0 (the Java servers users run) and RocketMQ-Rust 1.0.0. A test marked
``@pytest.mark.every_server`` (keyed sends, consumer groups, orderly consumption, broker kills) also runs against
Apache 5.3.3 and 4.9.7; ``cluster.compat`` is the client compat profile matching each.
``ROCKETROUTE_CLUSTER_IMPLS=apache-5.5.0,...`` narrows the list (a developer's shortcut; CI runs them all).

``ROCKETROUTE_CLUSTER_NAMESRV="host:port;host:port"`` runs the suite once against a cluster someone else runs
instead (``ROCKETROUTE_CLUSTER_COMPAT=4.9`` for a 4.9 cluster): the harness attaches to it, and a test that must
start, stop, kill or pause a server, or start a cluster of its own, is reported as skipped with the reason.

- ``server_impl``: the implementation's name, e.g. ``"apache-5.5.0"``.
- ``cluster``: one :class:`~tests.cluster.harness.Cluster` per implementation for the session, 2 name servers and
  2 brokers (``broker-a``, ``broker-b``); the tests run grouped by implementation, so one cluster runs at a time
  in a process. ``make test`` runs two processes (pytest-xdist, ``-n 2 --dist loadgroup``) that take the tests one
  at a time in this order, so each starts the clusters of the implementations it meets (usually all four).
  Before each test that uses it, paused brokers are resumed and stopped ones started again, so a test that failed
  halfway through a stop/start does not break the next one.
- ``fresh_topic``: a factory for unique topic names, created on the cluster's brokers by default.
- ``make_cluster``: a factory for a cluster of another shape (same implementation), closed after the test.

Every test under tests/cluster is marked ``cluster`` (``pytest -m "not cluster"`` leaves them out). Missing servers
make the tests fail with a message telling to run ``make servers``; they never skip.
"""

from __future__ import annotations

import collections
import itertools
import json
import os
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .harness import Cluster, ControlNotAvailable
from .impls import IMPLS, ExternalImpl

_HERE = Path(__file__).parent
_STATS: dict[str, dict[str, object]] = {}
_TOPIC_COUNTER = itertools.count()
_PASSED: collections.Counter[str] = collections.Counter()

MAIN_IMPLS = ("apache-5.5.0", "rust-1.0.0")
"""The implementations every cluster test runs against."""
EVERY_IMPL = IMPLS
"""Those a test marked ``every_server`` runs against."""
IMPLS_ENV = "ROCKETROUTE_CLUSTER_IMPLS"
EXTERNAL_ENV = "ROCKETROUTE_CLUSTER_NAMESRV"
EXTERNAL_COMPAT_ENV = "ROCKETROUTE_CLUSTER_COMPAT"


def _wanted(config: pytest.Config) -> list[str] | None:
    raw = os.environ.get(IMPLS_ENV, "").strip()
    if not raw:
        return None
    names = [n.strip() for n in raw.split(",") if n.strip()]
    unknown = [n for n in names if n not in IMPLS]
    if unknown:
        raise pytest.UsageError(f"${IMPLS_ENV} names unknown implementations {unknown}; known: {list(IMPLS)}")
    return names


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "every_server: a cluster test that also runs against Apache 5.3.3 and 4.9.7 (not only 5.5.0, Rust)"
    )
    config.addinivalue_line(
        "markers", "servers(*impls): a cluster test of a feature only these implementations have (static topics)"
    )


def _uses_servers(metafunc: pytest.Metafunc) -> bool:
    return _HERE in Path(metafunc.definition.path).parents and bool(
        {"cluster", "make_cluster", "fresh_topic", "server_impl"} & set(metafunc.fixturenames)
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if not _uses_servers(metafunc):
        return
    impls = EVERY_IMPL if metafunc.definition.get_closest_marker("every_server") else MAIN_IMPLS
    only = metafunc.definition.get_closest_marker("servers")
    if only is not None:
        impls = tuple(only.args)
    if os.environ.get(EXTERNAL_ENV, "").strip():
        impls = ("external",)
    wanted = _wanted(metafunc.config)
    if wanted is not None:
        impls = tuple(i for i in impls if i in wanted or i == "external")
    metafunc.parametrize("server_impl", list(impls), indirect=True, scope="session", ids=list(impls))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the cluster tests, and run them grouped by server implementation: pytest's own ordering by fixture
    parameters interleaves the implementations of tests with several parameters (backend, compat), and every
    switch stops one session cluster and starts another (a JVM cluster takes 10-25 s to start)."""
    for item in items:
        if _HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.cluster)
    order = {name: i for i, name in enumerate(("external", *IMPLS))}

    def impl_of(item: pytest.Item) -> str | None:
        callspec = getattr(item, "callspec", None)
        impl = callspec.params.get("server_impl") if callspec is not None else None
        return None if impl is None else str(impl)

    def rank(item: pytest.Item) -> int:
        impl = impl_of(item)
        return -1 if impl is None else order.get(impl, len(order))

    items.sort(key=rank)  # stable: the order within one implementation is pytest's
    # No xdist_group marks: pytest-xdist reads them before this hook (trylast) could add them, and the ones this hook
    # added never took effect, so the workers have always taken the tests one at a time. One worker for each
    # implementation would be slower: apache-5.5.0's tests are over half of the cluster work (issue 30's note).


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    callspec = getattr(item, "callspec", None)
    if report.when == "call" and report.passed and callspec is not None and "server_impl" in callspec.params:
        _PASSED[str(callspec.params["server_impl"])] += 1
    if call.excinfo is not None and call.excinfo.errisinstance(ControlNotAvailable):
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: {call.excinfo.value}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its clusters' figures go to the controller's summary
        workeroutput["rocketroute_clusters"] = json.dumps({"stats": _STATS, "passed": _PASSED})


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    output = getattr(node, "workeroutput", {}).get("rocketroute_clusters")
    if output is not None:
        figures = json.loads(output)
        _STATS.update(figures["stats"])
        _PASSED.update(figures["passed"])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for impl, st in _STATS.items():
        disk = st.get("disk_per_broker_mb") or {}
        terminalreporter.write_line(
            f"cluster {impl}: {st['shape']} started in {st['started_in_s']:.2f} s; "
            f"{_PASSED.get(impl, 0)} tests passed; disk per broker at the end (MB): {disk}"
        )


@pytest.fixture(scope="session")
def server_impl(request: pytest.FixtureRequest) -> str:
    """The name of the server implementation this test runs against (``apache-5.5.0``, ``rust-1.0.0``, ...)."""
    return str(request.param)


@pytest.fixture(scope="session")
def _session_cluster(server_impl: str) -> Iterator[Cluster]:
    if server_impl == "external":
        impl = ExternalImpl(os.environ[EXTERNAL_ENV], os.environ.get(EXTERNAL_COMPAT_ENV, "5.3"))
        c = Cluster(impl=impl)
    else:
        c = Cluster(namesrvs=2, brokers=2, impl=server_impl)
    try:
        c.start()
        shape = f"attached to {c.namesrv_addr}" if server_impl == "external" else "2 name servers, 2 brokers"
        st = _STATS[server_impl] = {"shape": shape, "started_in_s": c.started_in_s}
        yield c
        if server_impl != "external":  # an attached cluster's stores are not on this machine
            st["disk_per_broker_mb"] = {n: round(c.disk_usage(n) / 2**20, 1) for n in c.broker_names}
    finally:
        c.close()


@pytest.fixture(scope="session")
def cluster(_session_cluster: Cluster) -> Cluster:
    """The session's cluster of this implementation: 2 name servers, 2 brokers (``broker-a``, ``broker-b``) in
    ``DefaultCluster``."""
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
def make_cluster(server_impl: str) -> Iterator[Callable[..., Cluster]]:
    """``make_cluster(namesrvs=1, brokers=1, **kwargs) -> Cluster``: a started cluster of its own (this test's
    implementation unless ``impl=`` says otherwise), closed after the test."""
    made: list[Cluster] = []

    def make(namesrvs: int = 1, brokers: int = 1, **kwargs: object) -> Cluster:
        if server_impl == "external":
            raise ControlNotAvailable("this test starts a cluster of its own; the harness is attached to one")
        kwargs.setdefault("impl", server_impl)
        c = Cluster(namesrvs, brokers, **kwargs)  # type: ignore[arg-type]
        made.append(c)
        return c.start()

    yield make
    for c in made:
        c.close()
