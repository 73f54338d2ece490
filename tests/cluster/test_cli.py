"""The command line on the real servers: ``route --namesrv`` (the live route), ``plan --namesrv`` and
``bench-producer``, and what Ctrl-C does to each of them."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import rocketroute as rr

from .._java_peers import SHORT_JVM
from .._terminal import Terminal


def _cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.setdefault("JAVA_TOOL_OPTIONS", SHORT_JVM)
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )


def test_route_takes_the_live_route_from_the_name_servers(cluster, fresh_topic, tmp_path):
    topic = fresh_topic(queues=3)
    keys = [f"order-{i}" for i in range(50)]
    src = tmp_path / "m.csv"
    src.write_text("key\n" + "".join(f"{k}\n" for k in keys))
    out = tmp_path / "out"
    done = _cli(
        "route", "--input", str(src), "--topic", topic, "--namesrv", ";".join(cluster.namesrv_addrs),
        "--master", "local[1]", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"route of {topic} from" in done.stderr
    # the queues are the live route's publish queues, each key on SelectMessageQueueByHash's queue
    queues = list(rr.TopicPublishInfo.from_route(topic, cluster.route(topic)).message_queues)
    selector = rr.SelectMessageQueueByHash()
    rows = []
    for part in sorted((out / "routed").glob("*.csv")) or []:
        with part.open() as f:
            rows += list(csv.DictReader(f))
    if not rows:  # Parquet output
        import pyarrow.parquet as pq

        rows = pq.read_table(out / "routed").to_pylist()
    assert len(rows) == len(keys)
    for row in rows:
        mq = selector.select(queues, None, row["key"])
        assert (row["broker"], int(row["queue_id"])) == (mq.broker_name, mq.queue_id)


def test_route_with_an_unknown_topic_is_a_one_line_error(cluster, fresh_topic, tmp_path):
    src = tmp_path / "m.csv"
    src.write_text("key\na\n")
    topic = fresh_topic(create=False)
    done = _cli(
        "route", "--input", str(src), "--topic", topic, "--namesrv", cluster.namesrv_addrs[0],
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith(f"rocketroute route: error: cannot fetch the route of {topic!r}")
    )


def test_bench_producer_prints_progress_and_a_summary_and_loses_nothing(cluster, fresh_topic, tmp_path):
    topic = fresh_topic(queues=2)
    summary_file = tmp_path / "summary.json"
    done = _cli(
        "bench-producer", "--namesrv", ";".join(cluster.namesrv_addrs), "--topic", topic, "--mode", "async",
        "--messages", "600", "--duration", "30", "--interval", "0.5", "--size", "512", "--keys",
        "--json", str(summary_file),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("bench-producer: async, 512 B messages")
    assert any("Send TPS:" in line for line in lines[1:-1])
    assert lines[-1].startswith("summary: 600 sent, 0 failed")
    summary = json.loads(summary_file.read_text())
    assert summary["sent"] == 600 and summary["failed"] == 0 and summary["rt_ms"]["p99"] > 0
    stored = sum(cluster.max_offset(b, topic, q) for b in cluster.broker_names for q in range(2))
    assert stored == 600


def test_bench_producer_refuses_bad_settings_in_one_line(cluster):
    done = _cli("bench-producer", "--namesrv", cluster.namesrv_addrs[0], "--topic", "T", "--threads", "0")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "rocketroute bench-producer: error: argument --threads: must be at least 1, not 0 "
        "(see rocketroute bench-producer --help)"
    )


def test_plan_live_plans_the_group_and_flags_a_member_one_broker_lacks(cluster, fresh_topic, tmp_path):
    """``plan --namesrv --group``: with three members settled the plan is what each of them owns and every source
    agrees; a fourth member whose heartbeat reached broker-a only is flagged, with the queues at risk."""
    from rocketroute.client import ConsumeConcurrentlyStatus, Consumer
    from rocketroute.client.consumer.subscription import ConsumerData, build_subscription, heartbeat_body
    from rocketroute.net import RemotingClient
    from rocketroute.protocol import RemotingCommand, RequestCode

    from .test_consumer import FAST, owns_expected, route_queues, wait_until

    topic = fresh_topic(queues=4)
    group = f"cg_plan_{os.getpid()}_{topic[-8:]}"
    mqs = route_queues(cluster, topic)
    strategy = rr.AllocateMessageQueueAveragely()
    namesrv = ";".join(cluster.namesrv_addrs)
    names = ("plan-a", "plan-b", "plan-c")

    def listener(msgs: Any, context: Any) -> Any:
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    consumers = [
        Consumer(cluster.namesrv_addrs, group, [topic], instance_name=n, listener=listener, **FAST) for n in names
    ]
    try:
        for c in consumers:
            c.start()
        wait_until(lambda: owns_expected(consumers, strategy, mqs, group, topic), 20, "three members settle")
        wait_until(
            lambda: all(
                set(cluster.consumer_ids(b, group)) == {c.client_id for c in consumers} for b in cluster.broker_names
            ),
            10,
            "every broker lists the three members",
        )
        out = tmp_path / "plan.json"
        done = _cli("plan", "--namesrv", namesrv, "--group", group, "--topic", topic, "--json", str(out), "--check")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "every source agrees" in done.stdout
        doc = json.loads(out.read_text())
        (plan,) = doc["plans"]
        assert plan["consistent"] and plan["strategy"] == "AVG" and not plan["flagged"]
        owned = {c.client_id: sorted(f"{q.broker_name}:{q.queue_id}" for q in c.assignment(topic)) for c in consumers}
        assert {cid: sorted(qs) for cid, qs in plan["plan"].items()} == owned
        assert set(doc["sources"]["name_servers"]) == set(cluster.namesrv_addrs)

        # a member whose heartbeat went to broker-a only (the connection stays open, so broker-a keeps it)
        ghost = "10.255.0.1@ghost"
        body = heartbeat_body(ghost, [ConsumerData(group, [build_subscription(topic)])])
        with RemotingClient() as client:
            request = RemotingCommand.request(RequestCode.HEART_BEAT, None, body)
            assert client.invoke(cluster.broker_addr("broker-a"), request, 3000).code == 0
            done = _cli("plan", "--namesrv", namesrv, "--group", group, "--topic", topic, "--json", str(out), "--check")
        assert done.returncode == 3, done.stdout + done.stderr
        assert f"FLAGGED {ghost}" in done.stdout
        assert "not in the member list of broker-b" in done.stdout
        (plan,) = json.loads(out.read_text())["plans"]
        assert not plan["consistent"]
        assert "not in the member list of broker-b" in plan["flagged"][ghost]
        # the ghost is a consensus member if broker-a's list wins the tie (longer), and the queues it could take
        # are at risk of being consumed twice
        assert ghost in plan["consensus"]["members"] and plan["may_duplicate"]
        with_ghost = sorted([*owned, ghost])
        want = rr.allocate_all(strategy, sorted(mqs), with_ghost, group)
        assert {cid: sorted(qs) for cid, qs in plan["plan"].items()} == {
            cid: sorted(f"{q.broker_name}:{q.queue_id}" for q in qs) for cid, qs in want.items()
        }
    finally:
        for c in consumers:
            c.shutdown()


def test_plan_live_refuses_bad_options_in_one_line(cluster, fresh_topic):
    topic = fresh_topic(queues=2)
    namesrv = ";".join(cluster.namesrv_addrs)
    cases = [
        (["--namesrv", namesrv, "--topic", topic], "needs --group"),
        (["--namesrv", namesrv, "--topic", topic, "--group", "g", "--load", "x"], "--load: only for the Spark plan"),
        (["--namesrv", namesrv, "--topic", topic, "--group", "g", "--strategies", "NOPE"], "unknown strategy"),
        (["--namesrv", namesrv, "--topic", topic, "--group", "g", "--strategies", "MACHINE_ROOM_NEARBY"], "room"),
        (["--namesrv", namesrv, "--topic", topic, "--group", "nobody-here"], "no broker lists a member"),
        (["--namesrv", namesrv, "--topic", fresh_topic(create=False), "--group", "g"], "no name server gave a route"),
        (["--topic", topic, "--group", "g", "--load", "x", "--out", "y"], "--group is for the live plan"),
    ]
    for argv, message in cases:
        done = _cli("plan", *argv)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert lines[-1].startswith("rocketroute plan: error:") and message in lines[-1], (argv, done.stderr)
        assert "Traceback" not in done.stderr


def test_bench_producer_stops_with_one_error_when_its_first_sends_all_fail(cluster, fresh_topic):
    """A topic every broker serves read-only (perm 4): no send can succeed. The run stops after the first
    ``FAIL_FAST_SENDS`` failures with one line naming the first error, instead of failing every message for the
    whole --duration."""
    from rocketroute.cli.bench_producer_run import FAIL_FAST_SENDS

    topic = fresh_topic(queues=2, perm=4)
    started = time.monotonic()
    done = _cli(
        "bench-producer", "--namesrv", ";".join(cluster.namesrv_addrs), "--topic", topic, "--duration", "120",
        "--interval", "0.5", timeout=120,
    )  # fmt: skip
    assert time.monotonic() - started < 60
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("rocketroute bench-producer: error: stopped: the first "), lines[0]
    assert "sends all failed and none succeeded; the first error: " in lines[0]
    failed = int(lines[0].split("the first ", 1)[1].split(" ", 1)[0].replace(",", ""))
    assert FAIL_FAST_SENDS <= failed <= FAIL_FAST_SENDS + 4  # the 4 sending threads' last sends at most
    assert "summary:" not in done.stdout


# --- Ctrl-C: one line, exit status 130, within a bound ---------------------------------------------------------

STOP_BOUND_S = 5.0
"""How long after Ctrl-C a command may take to exit."""


def _running(*args: str) -> Terminal:
    """``rocketroute ARGS`` as a terminal runs it, its JVMs (Spark's) started short as the suite's are."""
    env = dict(os.environ)
    env.setdefault("JAVA_TOOL_OPTIONS", SHORT_JVM)
    return Terminal([sys.executable, "-m", "rocketroute.cli", *args], env=env)


def _sending(run: Terminal) -> bool:
    """A progress line with messages sent."""
    return any("Send TPS:" in line and " sent: 0 " not in line for line in run.out)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_ctrl_c_stops_bench_producer_in_one_line(cluster, fresh_topic, mode):
    topic = fresh_topic(queues=4)
    run = _running(
        "bench-producer", "--namesrv", ";".join(cluster.namesrv_addrs), "--topic", topic, "--mode", mode,
        "--duration", "300", "--interval", "0.5",
    )  # fmt: skip
    try:
        run.wait_for(lambda: _sending(run), 60, "sending")
        took = run.ctrl_c()
    finally:
        run.kill()
    assert run.proc.returncode == 130, run.output()
    assert run.stderr_lines() == ["rocketroute bench-producer: interrupted"], run.output()
    assert "".join(run.out).splitlines()[-1].startswith("summary (interrupted): "), run.output()
    assert took < STOP_BOUND_S, took


def test_ctrl_c_stops_the_async_bench_with_its_sends_hanging_on_a_paused_broker(cluster, fresh_topic):
    """Sends in flight that no broker answers (broker-b stopped by SIGSTOP) are cancelled, not waited for."""
    topic = fresh_topic(queues=4)
    run = _running(
        "bench-producer", "--namesrv", ";".join(cluster.namesrv_addrs), "--topic", topic, "--mode", "async",
        "--duration", "300", "--interval", "0.5",
    )  # fmt: skip
    try:
        run.wait_for(lambda: _sending(run), 60, "sending")
        cluster.pause_broker("broker-b")
        lines = len(run.out)
        run.wait_for(lambda: len(run.out) > lines + 1, 10, "a progress line while broker-b is paused")
        took = run.ctrl_c()
    finally:
        run.kill()
        cluster.resume_broker("broker-b")
    assert run.proc.returncode == 130, run.output()
    assert run.stderr_lines() == ["rocketroute bench-producer: interrupted"], run.output()
    assert "".join(run.out).splitlines()[-1].startswith("summary (interrupted): "), run.output()
    assert took < STOP_BOUND_S, took


def test_ctrl_c_stops_the_live_plan_in_one_line(cluster, fresh_topic):
    """The live plan waiting on a broker that does not answer (paused): Ctrl-C ends it at once."""
    topic = fresh_topic(queues=2)
    cluster.pause_broker("broker-b")
    try:
        run = _running(
            "plan", "--namesrv", ";".join(cluster.namesrv_addrs), "--topic", topic, "--group", "cg_ctrl_c",
            "--timeout-ms", "120000",
        )  # fmt: skip
        try:
            run.wait_for(lambda: any("asking" in line for line in run.err), 60, "asking the brokers")
            time.sleep(1.0)  # the requests are out; broker-b's is not answered
            assert run.proc.poll() is None, run.output()
            took = run.ctrl_c()
        finally:
            run.kill()
    finally:
        cluster.resume_broker("broker-b")
    assert run.proc.returncode == 130, run.output()
    lines = run.stderr_lines()
    assert len(lines) == 2 and lines[0].startswith("[rocketroute] asking "), run.output()
    assert lines[1] == "rocketroute plan: interrupted"
    assert took < STOP_BOUND_S, took


def _spark_jvms_of(pid: int) -> list[int]:
    """The Spark JVMs process ``pid`` started (its children running ``org.apache.spark``)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == pid and b"org.apache.spark" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the Spark JVM in /proc")
@pytest.mark.parametrize("when", ["starting Spark", "writing"])
# Ctrl-C is the pipeline's: one server is enough (test_route_takes_the_live_route_from_the_name_servers: each)
@pytest.mark.servers("rust-1.0.0")
def test_ctrl_c_stops_route_in_one_line_and_leaves_no_jvm(cluster, fresh_topic, tmp_path, when):
    """Ctrl-C while Spark starts or while the job writes: one line, exit 130, within the bound; Spark's JVM is
    gone (not left running, printing a stack trace later) and no output folder, staged or final, is left."""
    topic = fresh_topic(queues=4)
    src = tmp_path / "m.csv"
    with src.open("w") as f:
        f.write("key\n")
        f.writelines(f"order-{i}\n" for i in range(1_000_000))
    out = tmp_path / "out"
    run = _running(
        "route", "--input", str(src), "--topic", topic, "--namesrv", ";".join(cluster.namesrv_addrs),
        "--master", "local[1]", "--out", str(out),
    )  # fmt: skip
    jvms: list[int] = []
    try:
        if when == "writing":
            run.wait_for(lambda: any("route: writing" in line for line in run.err), 240, "the job writing")
        else:
            run.wait_for(lambda: bool(_spark_jvms_of(run.proc.pid)), 120, "Spark's JVM starting")
        jvms = _spark_jvms_of(run.proc.pid)
        assert jvms, run.output()
        took = run.ctrl_c()
    finally:
        run.kill()
    assert run.proc.returncode == 130, run.output()
    lines = run.stderr_lines()
    assert lines[-1] == "rocketroute route: interrupted", run.output()
    assert not any("Traceback" in line or "ERROR" in line or "Exception" in line for line in lines), run.output()
    assert took < STOP_BOUND_S, took
    time.sleep(0.5)
    assert not [p for p in jvms if _alive(p)], f"Spark JVM(s) {jvms} still running after Ctrl-C"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.csv"]
