"""The harness itself on real servers: registration with every name server, topic routes, a send to a chosen queue
and its offset, pause/resume, stop/start and kill/start of a broker, the process clean-up, and the error when the
server binaries are missing."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rocketroute import TopicRouteData
from rocketroute.protocol import RemotingCommand, RemotingConnectError, RemotingTimeoutError, RequestCode
from rocketroute.protocol.response_code import ResponseCode

from . import harness
from .harness import (
    BROKER_BINARY,
    CLUSTER_NAME,
    NAMESRV_BINARY,
    SERVERS_BIN_ENV,
    Cluster,
    HarnessError,
    ServersMissingError,
    find_binaries,
    servers_bin_dir,
)
from .impls import SERVERS_DIR_ENV

REPO_ROOT = Path(__file__).resolve().parents[2]


def send_v2(cluster: Cluster, broker: str, topic: str, queue_id: int, body: bytes) -> RemotingCommand:
    """SEND_MESSAGE_V2 (310) with a minimal SendMessageRequestHeaderV2 (a: producerGroup, b: topic, c: defaultTopic,
    d: defaultTopicQueueNums, e: queueId, f: sysFlag, g: bornTimestamp, h: flag, i: properties, j: reconsumeTimes,
    k: unitMode, m: batch) to one queue of one broker; the response as it is."""
    ext = {
        "a": "rocketroute-harness",
        "b": topic,
        "c": "TBW102",
        "d": "4",
        "e": str(queue_id),
        "f": "0",
        "g": str(int(time.time() * 1000)),
        "h": "0",
        "i": "",
        "j": "0",
        "k": "false",
        "m": "false",
    }
    return cluster.invoke(cluster.broker_addr(broker), RequestCode.SEND_MESSAGE_V2, ext, body)


def sent_ok(resp: RemotingCommand) -> tuple[int, int]:
    """(queueId, queueOffset) of a successful send response."""
    assert resp.code == ResponseCode.SUCCESS, f"code {resp.code}: {resp.remark}"
    ext = resp.ext_fields or {}
    return int(ext["queueId"]), int(ext["queueOffset"])


def running_cmdline(pid: int) -> str | None:
    """The command line of a live process with that pid, None if there is none (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return None
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def is_server(pid: int) -> bool:
    cmd = running_cmdline(pid)
    return cmd is not None and (NAMESRV_BINARY in cmd or BROKER_BINARY in cmd or "org.apache.rocketmq." in cmd)


def test_every_broker_is_registered_with_every_name_server(cluster: Cluster) -> None:
    assert len(cluster.namesrv_addrs) == 2 and len(set(cluster.namesrv_addrs)) == 2
    assert cluster.broker_names == ["broker-a", "broker-b"]
    for ns in cluster.namesrv_addrs:
        info = cluster.cluster_info(ns)
        assert sorted(info["clusterAddrTable"][CLUSTER_NAME]) == ["broker-a", "broker-b"]
        for name in cluster.broker_names:
            entry = info["brokerAddrTable"][name]
            assert entry["cluster"] == CLUSTER_NAME
            assert entry["brokerName"] == name
            assert entry["brokerAddrs"] == {"0": cluster.broker_addr(name)}


def test_created_topic_has_the_asked_queues_on_both_brokers_in_every_route(cluster: Cluster, fresh_topic) -> None:
    topic = fresh_topic(queues=8)
    for ns in cluster.namesrv_addrs:
        resp = cluster.invoke(ns, RequestCode.GET_ROUTEINFO_BY_TOPIC, {"topic": topic})
        assert resp.code == ResponseCode.SUCCESS, resp.remark
        route = TopicRouteData.from_json(resp.body)
        queues = {q.broker_name: (q.read_queue_nums, q.write_queue_nums, q.perm) for q in route.queue_datas}
        assert queues == {"broker-a": (8, 8, 6), "broker-b": (8, 8, 6)}
        addrs = {b.broker_name: b.broker_addrs for b in route.broker_datas}
        assert addrs == {n: {0: cluster.broker_addr(n)} for n in ("broker-a", "broker-b")}


def test_topic_created_on_one_broker_is_routed_to_that_broker_only(cluster: Cluster, fresh_topic) -> None:
    topic = fresh_topic(queues=4, brokers=["broker-b"])
    for ns in cluster.namesrv_addrs:
        route = cluster.route(topic, ns)
        assert route is not None
        assert [(q.broker_name, q.read_queue_nums, q.write_queue_nums) for q in route.queue_datas] == [
            ("broker-b", 4, 4)
        ]


def test_topic_grown_from_8_to_12_queues_is_routed_with_12(cluster: Cluster, fresh_topic) -> None:
    topic = fresh_topic(queues=8)
    cluster.create_topic(topic, queues=12)
    for ns in cluster.namesrv_addrs:
        route = cluster.route(topic, ns)
        assert route is not None
        assert {q.broker_name: q.write_queue_nums for q in route.queue_datas} == {"broker-a": 12, "broker-b": 12}


def test_route_of_a_topic_never_created_is_topic_not_exist(cluster: Cluster, fresh_topic) -> None:
    topic = fresh_topic(create=False)
    for ns in cluster.namesrv_addrs:
        resp = cluster.invoke(ns, RequestCode.GET_ROUTEINFO_BY_TOPIC, {"topic": topic})
        assert resp.code == ResponseCode.TOPIC_NOT_EXIST
        assert cluster.route(topic, ns) is None


def test_send_v2_to_queue_3_lands_on_queue_3_and_max_offset_counts_it(cluster: Cluster, fresh_topic) -> None:
    topic = fresh_topic(queues=8)
    assert sent_ok(send_v2(cluster, "broker-a", topic, 3, b"hello")) == (3, 0)
    assert cluster.max_offset("broker-a", topic, 3) == 1
    assert [cluster.max_offset("broker-a", topic, q) for q in range(8)] == [0, 0, 0, 1, 0, 0, 0, 0]
    assert [cluster.max_offset("broker-b", topic, q) for q in range(8)] == [0] * 8
    assert sent_ok(send_v2(cluster, "broker-a", topic, 3, b"again")) == (3, 1)
    assert cluster.max_offset("broker-a", topic, 3) == 2


def test_paused_broker_does_not_answer_until_resumed(cluster: Cluster, fresh_topic) -> None:
    topic = fresh_topic(queues=8)
    addr_a = cluster.broker_addr("broker-a")
    ext = {"topic": topic, "queueId": "0"}
    cluster.pause_broker("broker-a")
    try:
        assert cluster.is_paused("broker-a") and cluster.is_running("broker-a")
        with pytest.raises(RemotingTimeoutError):
            cluster.invoke(addr_a, RequestCode.GET_MAX_OFFSET, ext, timeout_ms=300)
        assert sent_ok(send_v2(cluster, "broker-b", topic, 0, b"b is up")) == (0, 0)
        # Its connections stay open, so the name servers keep listing it.
        for ns in cluster.namesrv_addrs:
            assert cluster.registered_brokers(ns)["broker-a"] == addr_a
    finally:
        cluster.resume_broker("broker-a")
    assert not cluster.is_paused("broker-a")
    assert sent_ok(send_v2(cluster, "broker-a", topic, 0, b"a is back")) == (0, 0)
    assert cluster.max_offset("broker-a", topic, 0) == 1


def test_stopped_broker_leaves_the_name_servers_and_comes_back_with_its_store(cluster: Cluster, fresh_topic) -> None:
    topic = fresh_topic(queues=8)
    addr_b = cluster.broker_addr("broker-b")
    assert [sent_ok(send_v2(cluster, "broker-b", topic, 5, b"m%d" % i)) for i in range(3)] == [(5, 0), (5, 1), (5, 2)]

    status = cluster.stop_broker("broker-b")  # SIGTERM; waits until no name server lists it
    # the Rust broker exits 0; a JVM exits 143 (128 + SIGTERM) once its shutdown hooks have run; -9 would mean the
    # harness had to SIGKILL it after the grace period
    assert status in (0, 128 + signal.SIGTERM), f"the broker did not exit by itself on SIGTERM (status {status})"
    assert not cluster.is_running("broker-b")
    for ns in cluster.namesrv_addrs:
        assert "broker-b" not in cluster.registered_brokers(ns)
        route = cluster.route(topic, ns)
        assert route is not None and [q.broker_name for q in route.queue_datas] == ["broker-a"]
    with pytest.raises(RemotingConnectError):
        cluster.invoke(addr_b, RequestCode.GET_MAX_OFFSET, {"topic": topic, "queueId": "5"})

    cluster.start_broker("broker-b")  # same ports and store; waits for the registration
    assert cluster.broker_addr("broker-b") == addr_b
    for ns in cluster.namesrv_addrs:
        assert cluster.registered_brokers(ns)["broker-b"] == addr_b
        route = cluster.route(topic, ns)
        assert route is not None
        assert {q.broker_name: q.write_queue_nums for q in route.queue_datas} == {"broker-a": 8, "broker-b": 8}
    assert cluster.max_offset("broker-b", topic, 5) == 3
    assert sent_ok(send_v2(cluster, "broker-b", topic, 5, b"after restart")) == (5, 3)


def test_killed_broker_is_dropped_by_the_name_servers_and_keeps_what_it_acknowledged(
    cluster: Cluster, fresh_topic
) -> None:
    topic = fresh_topic(queues=8)
    acked = [sent_ok(send_v2(cluster, "broker-a", topic, 1, b"x" * 100)) for _ in range(20)]
    assert acked == [(1, i) for i in range(20)]

    assert cluster.kill_broker("broker-a", wait_unregistered=True) == -9
    for ns in cluster.namesrv_addrs:
        assert "broker-a" not in cluster.registered_brokers(ns)

    cluster.start_broker("broker-a")
    assert cluster.max_offset("broker-a", topic, 1) == 20


def _thread_cpu_s(pid: int, name: str) -> float | None:
    """User + system seconds of the threads of ``pid`` whose name (15 characters at most) starts with ``name``;
    None when it has no such thread."""
    total: int | None = None
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except (FileNotFoundError, ProcessLookupError):  # the thread ended meanwhile (ENOENT, or ESRCH mid-read)
            continue
        if stat[stat.index("(") + 1 : stat.rindex(")")].startswith(name):
            fields = stat.rsplit(")", 1)[1].split()
            total = (total or 0) + int(fields[11]) + int(fields[12])
    return None if total is None else total / os.sysconf("SC_CLK_TCK")


@pytest.mark.servers("apache-5.5.0")
def test_a_just_started_apache_broker_does_not_spin_and_its_jvm_stops_at_c1(cluster: Cluster) -> None:
    # Apache 5.x's TransactionFlushService spins on the clock until its first flush (10 s after it starts by
    # default, apache/rocketmq#10515); the harness sets that flush to every 500 ms, so the spin ends half a second
    # after the thread starts. The broker's JVM runs C1 only (QUICK_JIT) unless the cluster asked for full_jit.
    cluster.kill_broker("broker-b", wait_unregistered=True)
    cluster.start_broker("broker-b", wait=False)
    pid = cluster.broker_pid("broker-b")
    assert pid is not None
    deadline = time.monotonic() + 60
    while _thread_cpu_s(pid, "TransactionFlus") is None:
        assert time.monotonic() < deadline, "the broker started no TransactionFlushService thread in 60 s"
        time.sleep(0.05)
    assert harness.QUICK_JIT in (running_cmdline(pid) or "").split()
    time.sleep(1.0)
    before = _thread_cpu_s(pid, "TransactionFlus") or 0.0
    time.sleep(2.0)
    spent = (_thread_cpu_s(pid, "TransactionFlus") or 0.0) - before
    assert spent < 0.5, f"the broker's TransactionFlushService took {spent:.2f} s of CPU in 2 s: it spins"
    cluster.wait_registered(["broker-b"])


def test_ensure_all_up_restores_a_stopped_and_a_paused_broker(cluster: Cluster) -> None:
    cluster.stop_broker("broker-a")
    cluster.pause_broker("broker-b")
    cluster.ensure_all_up()
    assert cluster.is_running("broker-a") and cluster.is_running("broker-b")
    assert not cluster.is_paused("broker-b")
    for ns in cluster.namesrv_addrs:
        assert cluster.registered_brokers(ns) == {n: cluster.broker_addr(n) for n in cluster.broker_names}


def test_close_kills_every_server_and_removes_the_temp_dirs(make_cluster) -> None:
    c = make_cluster(namesrvs=1, brokers=1)
    assert c.base_dir is not None
    base = c.base_dir
    pids = [*c.namesrv_pids(), c.broker_pid("broker-a")]
    assert len(pids) == 2 and all(p is not None and is_server(p) for p in pids)
    assert (base / "broker-a" / {"apache": "broker.conf", "rust": "broker.toml"}[c.impl.family]).is_file()
    assert (base / "broker-a" / "server.log").is_file()
    c.close()
    assert [p for p in pids if p is not None and is_server(p)] == []
    assert not base.exists()
    c.close()  # idempotent


def test_servers_die_with_the_process_that_started_them(tmp_path: Path) -> None:
    """The starter is SIGKILLed (no atexit, no fixture teardown): the reaper kills the servers' process groups."""
    script = (
        "import sys, time\n"
        "from tests.cluster.harness import Cluster\n"
        f"c = Cluster(1, 1, base_dir={str(tmp_path)!r}).start()\n"
        "print(*c.namesrv_pids(), c.broker_pid('broker-a'), flush=True)\n"
        "time.sleep(600)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line, f"the child did not start its cluster: {child.communicate()[1][-3000:]}"
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2 and all(is_server(p) for p in pids)
    finally:
        child.kill()
        child.communicate()
    deadline = time.monotonic() + 30
    while any(is_server(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in pids if is_server(p)] == []


def test_missing_binaries_are_an_error_that_says_make_servers(tmp_path: Path, monkeypatch) -> None:
    with pytest.raises(ServersMissingError, match="make servers") as e:
        Cluster(bin_dir=tmp_path).start()
    assert NAMESRV_BINARY in str(e.value) and BROKER_BINARY in str(e.value)
    monkeypatch.setenv(SERVERS_BIN_ENV, str(tmp_path))
    with pytest.raises(ServersMissingError, match="make servers"):
        find_binaries()
    (tmp_path / NAMESRV_BINARY).write_text("#!/bin/sh\n")
    os.chmod(tmp_path / NAMESRV_BINARY, 0o755)
    with pytest.raises(ServersMissingError, match=BROKER_BINARY):
        find_binaries()


def test_missing_apache_jars_are_an_error_that_says_make_servers(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(SERVERS_DIR_ENV, str(tmp_path))
    for impl in ("apache-5.5.0", "apache-4.9.7"):
        with pytest.raises(ServersMissingError, match="make servers") as e:
            Cluster(impl=impl).start()
        assert str(tmp_path / impl / "lib") in str(e.value)
    with pytest.raises(ValueError, match=r"unknown server implementation 'apache-9\.9\.9'"):
        Cluster(impl="apache-9.9.9")
    with pytest.raises(ValueError, match="has no proxy"):
        Cluster(impl="apache-4.9.7", proxies=1)


def fake_bin_dir(tmp_path: Path, broker_script: str) -> Path:
    """A bin dir with the real name server and a fake broker (a shell script)."""
    d = tmp_path / "bin"
    d.mkdir()
    (d / NAMESRV_BINARY).symlink_to(find_binaries(servers_bin_dir())[0])
    (d / BROKER_BINARY).write_text("#!/bin/sh\n" + broker_script)
    os.chmod(d / BROKER_BINARY, 0o755)
    return d


def test_a_broker_that_exits_at_start_is_an_error_with_its_log(tmp_path: Path) -> None:
    bin_dir = fake_bin_dir(tmp_path, "echo 'boom: the fake broker gives up' >&2\nexit 3\n")
    c = Cluster(1, 1, bin_dir=bin_dir, base_dir=tmp_path)
    with pytest.raises(HarnessError) as e:
        c.start()
    text = str(e.value)
    assert "broker-a" in text and "exited with status 3" in text and "boom: the fake broker gives up" in text
    assert [p for p in c.namesrv_pids() if is_server(p)] == []  # the name server started first is gone too
    assert c.base_dir is not None and not c.base_dir.exists()


def test_a_broker_that_never_registers_is_an_error_at_the_deadline(tmp_path: Path) -> None:
    bin_dir = fake_bin_dir(tmp_path, "echo 'the fake broker sleeps'\nexec sleep 600\n")
    c = Cluster(1, 1, bin_dir=bin_dir, base_dir=tmp_path, start_timeout_s=1.0)
    with pytest.raises(HarnessError, match="not ready after") as e:
        c.start()
    assert "broker-a" in str(e.value) and "the fake broker sleeps" in str(e.value)


def test_a_broker_whose_port_was_taken_meanwhile_gets_new_ports(make_cluster, monkeypatch) -> None:
    """Another process binds the broker's fast-channel port (listenPort - 2) between the harness's check and the
    broker's start: the broker exits, and the harness starts it again on other ports."""
    taken = socket.socket()
    real_free_ports = harness._free_ports
    picked: list[int] = []

    def free_ports_then_steal(offsets):
        base = real_free_ports(offsets)
        if -2 in offsets:  # a broker's ports
            if not picked:
                taken.bind(("127.0.0.1", base - 2))
                taken.listen()
            picked.append(base)
        return base

    monkeypatch.setattr(harness, "_free_ports", free_ports_then_steal)
    with taken:
        c = make_cluster(namesrvs=1, brokers=1)
        assert len(picked) == 2
        assert c.broker_addr("broker-a") == f"127.0.0.1:{picked[1]}"
        assert c.registered_brokers(c.namesrv_addrs[0]) == {"broker-a": c.broker_addr("broker-a")}
        assert c.log_tail("broker-a", 10_000).count("---- harness: start #") == 2


def test_apache_proxy_in_cluster_mode_routes_to_itself_and_stores_what_the_producer_sends(tmp_path: Path) -> None:
    """``Cluster(proxies=1)`` starts Apache's ``ProxyStartup -pm cluster``: over remoting it answers a topic's route
    with its own address as every broker's, and a send through it lands in the broker's queue. (Apache 5.5.0 only:
    the harness starts no RocketMQ-Rust proxy, and 4.9 has none.)"""
    from rocketroute.client import Message
    from rocketroute.client.producer import Producer

    with Cluster(1, 1, impl="apache-5.5.0", proxies=1, base_dir=tmp_path) as c:
        c.create_topic("ViaProxy", 4)
        (proxy,) = c.proxy_addrs
        assert c.proxy_grpc_endpoints == [f"127.0.0.1:{int(proxy.rsplit(':', 1)[1]) + 1}"]
        resp = c.invoke(proxy, RequestCode.GET_ROUTEINFO_BY_TOPIC, {"topic": "ViaProxy"})
        assert resp.code == ResponseCode.SUCCESS
        route = TopicRouteData.from_json(resp.body or b"")
        assert [(b.broker_name, dict(b.broker_addrs)) for b in route.broker_datas] == [("broker-a", {0: proxy})]
        with Producer([proxy], "pg-proxy") as producer:
            results = [producer.send(Message("ViaProxy", b"m%d" % i)) for i in range(8)]
        stored = {q: c.max_offset("broker-a", "ViaProxy", q) for q in range(4)}
        assert stored == {q: sum(r.queue.queue_id == q for r in results) for q in range(4)}
        assert sum(stored.values()) == 8
