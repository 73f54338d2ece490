"""The command line on the real servers: ``route --namesrv`` (the live route) and ``bench-producer``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from typing import Any

import rocketroute as rr


def _cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.setdefault("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
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
    from rocketroute.client.subscription import ConsumerData, build_subscription, heartbeat_body
    from rocketroute.remoting import RemotingClient, RemotingCommand, RequestCode

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
