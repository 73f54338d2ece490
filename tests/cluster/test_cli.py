"""The command line on the real servers: ``route --namesrv`` (the live route) and ``bench-producer``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

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
    assert done.stderr.strip() == "rocketroute bench-producer: error: --threads must be at least 1"
