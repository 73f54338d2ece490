"""The demo's synthetic inputs, and ``rocketroute demo`` / ``rocketroute report`` end to end on local Spark."""

from __future__ import annotations

import base64
import csv
import json
import re
import subprocess
import sys

from pyspark.sql import functions as F

from rocketroute.reference.profiles import PROFILES
from rocketroute.spark.demo import BROKERS, DEGRADING, FAILING, RETIRED, trace_rows, write_demo_inputs

PNG = b"\x89PNG\r\n\x1a\n"


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", *argv], capture_output=True, text=True, timeout=600, check=False
    )


def test_demo_inputs_are_skewed_seeded_and_have_bad_rows(spark, tmp_path):
    paths = write_demo_inputs(spark, tmp_path / "a", rows=40_000, sends=10_000, seed=3)
    again = write_demo_inputs(spark, tmp_path / "b", rows=40_000, sends=10_000, seed=3)
    msgs = spark.read.parquet(str(paths.messages))
    assert msgs.count() == 40_000
    assert sorted(map(tuple, msgs.collect()), key=str) == sorted(
        map(tuple, spark.read.parquet(str(again.messages)).collect()), key=str
    )
    counts = [r["count"] for r in msgs.where(F.col("key").isNotNull()).groupBy("key").count().collect()]
    # Zipf: the hottest key alone carries far more than a uniform key would (1 / distinct keys)
    assert max(counts) / sum(counts) > 20 / len(counts)
    assert msgs.where(F.col("key").isNull()).count() > 0 and msgs.where(F.col("size") < 0).count() > 0
    sends = spark.read.parquet(str(paths.sends))
    assert sends.columns == ["ts_ms", "producer_id"] and 5_000 < sends.count() < 15_000
    route = json.loads(paths.route.read_text())
    assert [q["brokerName"] for q in route["queueDatas"]] == list(BROKERS)


def test_demo_trace_degrades_one_broker_and_fails_another():
    rows = trace_rows(7)
    worst = {b: max(r[2] for r in rows if r[1] == b) for b in BROKERS}
    assert worst[DEGRADING] > 1000 and all(worst[b] < 10 for b in BROKERS if b not in (DEGRADING, FAILING))
    failed = [r for r in rows if r[3] == "false"]
    assert failed and {r[1] for r in failed} == {FAILING}
    assert any(r[1] == RETIRED for r in rows)  # a broker the route no longer has: replay rejects its rows
    assert rows == trace_rows(7)


def test_cli_demo_end_to_end(tmp_path):
    out = tmp_path / "demo"
    (out / "route" / "compat").mkdir(parents=True)
    (out / "stale.txt").write_text("from an earlier run")
    done = _run("demo", "--rows", "20000", "--sends", "6000", "--consumers", "2..4", "--out", str(out),
                "--master", "local[2]", "--overwrite")  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    # the whole folder is this run's: the earlier run's files are gone, no temporary folder is left
    assert sorted(p.name for p in out.iterdir()) == ["data", "plan", "replay", "report.html", "route"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]
    # the command lines shown name --out, not the temporary folder the jobs wrote into
    shown = [line for line in done.stderr.splitlines() if line.startswith("[rocketroute] demo: rocketroute ")]
    assert len(shown) == 3 and all(f"--out {out}" in line and ".tmp-" not in line for line in shown)
    # said once, before the jobs' own lines name it: everything goes into a temporary folder next to --out
    said = [line for line in done.stderr.splitlines() if "a temporary folder next to" in line]
    assert len(said) == 1, done.stderr[-3000:]
    assert said[0].startswith(f"[rocketroute] demo: writing into {tmp_path / '.demo.tmp-'}"), said[0]
    assert f"next to {out}, which replaces {out} once every step has finished" in said[0]
    report = out / "report.html"
    assert f"report: {report.resolve()}" in done.stdout.splitlines()[-1]
    page = report.read_text()
    images = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 6 and all(base64.b64decode(i).startswith(PNG) for i in images)
    assert "Other clients on the same keys" in page
    # the verdict first, on all four topics, about the largest consumer count plan was run with
    verdict = page[page.index('<section id="verdict">') : page.index('<section id="route">')]
    for topic in ("Strategy.", "Resize.", "Fault tolerance.", "Clients."):
        assert f"<strong>{topic}</strong>" in verdict
    assert "At 4 consumers on 16 queues" in verdict and "Pick " in verdict and "Turning fault tolerance on" in verdict
    # each strategy's consumers are labelled with its own ids: room@ ids for MACHINE_ROOM_NEARBY only
    consumers = json.loads((out / "plan" / "consumers.json").read_text())
    assert all(("@" in r["consumer"]) == r["strategy"].startswith("MACHINE_ROOM_NEARBY") for r in consumers)
    route = json.loads((out / "route" / "summary" / "summary.json").read_text())
    assert route["input_rows"] == 20_000 == route["routed_rows"] + route["rejected_rows"]
    assert route["rejected_rows"] > 0
    assert len(route["compat"]["pairs"]) == len(PROFILES) ** 2 == 49  # every pair of the seven client profiles
    with (out / "plan" / "imbalance.csv").open() as f:
        strategies = {r["strategy"] for r in csv.DictReader(f)}
    assert {r["strategy"] for r in json.loads((out / "plan" / "imbalance.json").read_text())} == strategies
    hot = json.loads((out / "route" / "summary" / "hot_keys.json").read_text())
    assert {r["queue_index"] for r in hot} == set(range(route["queues"])) and all(r["rank"] <= 5 for r in hot)
    windows = json.loads((out / "replay" / "summary" / "broker_windows.json").read_text())
    assert {w["broker"] for w in windows if w["failed"]} == {FAILING}  # the trace's failure, per window
    assert max(w["max_latency_ms"] for w in windows if w["broker"] == DEGRADING) > 1000
    assert strategies == {
        "AVG",
        "AVG_BY_CIRCLE",
        "CONSISTENT_HASH",
        "STICKY",
        "CONSISTENT_HASH_BOUNDED",
        "MACHINE_ROOM_NEARBY-AVG",
    }
    replay = json.loads((out / "replay" / "summary" / "summary.json").read_text())
    assert replay["rows"]["trace_rejected"] == sum(1 for r in trace_rows(7) if r[1] == RETIRED)
    modes = {m["mode"]: m for m in replay["modes"]}
    # the point of the demo: fault tolerance steers sends away from the slow and the failed broker
    assert modes["fault tolerance on"]["degraded_share"] < modes["fault tolerance off"]["degraded_share"]
    assert "input rows 20,000 = routed" in done.stdout and "fault tolerance on" in done.stdout
    assert "a Java remoting producer and a python5-sha256 one" in done.stdout
    assert "== verdict (the report's first section)\nstrategy: At 4 consumers on 16 queues" in done.stdout

    again = tmp_path / "again.html"
    done = _run("report", "--route", str(out / "route"), "--replay", str(out / "replay"), "--out", str(again))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"report: {again.resolve()}"
    assert 'id="replay"' in again.read_text() and 'id="plan"' not in again.read_text()


def test_cli_report_errors_are_clear(tmp_path):
    done = _run("report", "--out", str(tmp_path / "r.html"))
    assert done.returncode == 2 and "give at least one of --route" in done.stderr
    done = _run("report", "--route", str(tmp_path / "nope"), "--out", str(tmp_path / "r.html"))
    assert done.returncode == 2 and "is not a folder" in done.stderr
    assert not (tmp_path / "r.html").exists()
