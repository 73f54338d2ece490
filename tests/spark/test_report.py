"""The report: one self-contained HTML page from synthetic route / plan / replay outputs (their JSON summaries
and aggregates, written with the jobs' own writer; no Spark needed), a one-line error naming the file for a
missing or corrupted aggregate, and, on a real local SparkSession, aggregates that agree with the per-row
outputs the jobs write."""

from __future__ import annotations

import base64
import html
import json
import re
import subprocess
import sys
from collections import Counter

import pytest

from rocketroute.errors import IllegalArgumentError, RocketRouteError
from rocketroute.spark.aggregates import (
    BROKER_WINDOWS,
    CHURN,
    CONSUMERS,
    HOT_KEYS,
    IMBALANCE,
    TRAFFIC,
    write_records,
)
from rocketroute.spark.report import render_report, write_report

PNG = b"\x89PNG\r\n\x1a\n"
IMG = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="([^"]+)">')
MODES = ("fault tolerance on", "fault tolerance off")


def _json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


PROFILES = ("java-hashcode", "java5-grpc-siphash", "kafka-murmur2")
COMPAT = {("java-hashcode", "java5-grpc-siphash"): 0.125, ("java-hashcode", "kafka-murmur2"): 0.0625,
          ("java5-grpc-siphash", "kafka-murmur2"): 1.0}  # fmt: skip


def _compat():
    pairs = []
    for a in PROFILES:
        for b in PROFILES:
            s = 1.0 if a == b else COMPAT.get((a, b), COMPAT.get((b, a)))
            pairs.append({"a": a, "b": b, "keys_both": 400, "keys_same": round(400 * s), "messages_both": 8000,
                          "messages_same": round(8000 * s), "key_share": s, "message_share": s})  # fmt: skip
    return {"profiles": list(PROFILES), "pairs": pairs}


def make_route_dir(root, compat=False):
    queues = [("broker-a", q, 1000 + 111 * q) for q in range(4)] + [
        ("broker-b", q, 1234 if q == 0 else 900) for q in range(4)
    ]
    routed = sum(m for _, _, m in queues)
    per_queue = [
        {"queue_index": i, "broker": b, "queue_id": q, "messages": m, "bytes": 100 * m, "share": m / routed}
        for i, (b, q, m) in enumerate(queues)
    ]
    _json(
        root / "summary" / "summary.json",
        {
            "topic": "TopicTest",
            "selector": "hash",
            "queues": len(queues),
            "input_rows": routed + 7,
            "routed_rows": routed,
            "rejected_rows": 7,
            "skew": {"max_over_mean": 1.2346, "cv": 0.0812, "gini": 0.04},
            "per_queue": per_queue,
            "seconds": 3.21,
            **({"compat": _compat()} if compat else {}),
        },
    )
    hot = []
    for i in range(len(queues)):
        for rank in (1, 2):
            key = "<b>&x" if (i, rank) == (0, 1) else f"key-{i}-{rank}"
            hot.append({"queue_index": i, "key": key, "messages": 50 - rank, "rank": rank})
    write_records(root, HOT_KEYS, hot)
    return root


STRATEGIES = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")


def make_plan_dir(root, counts=(2, 4, 8, 16), resize=True):
    d = root / "plan"
    consumers, imbalance, churn = [], [], []
    for s, strategy in enumerate(STRATEGIES):
        for n in counts:
            loads = [1000 + 100 * ((i + s) % 3) for i in range(n)]
            consumers += [
                {"strategy": strategy, "consumers": n, "consumer": f"consumer-{i}", "queues": 2, "messages": m,
                 "bytes": 10 * m}
                for i, m in enumerate(loads)
            ]  # fmt: skip
            mean = sum(loads) / n
            imbalance.append(
                {"strategy": strategy, "consumers": n, "max_over_mean": max(loads) / mean, "cv": 0.05 * (s + 1),
                 "idle_consumers": int(s == 2 and n == 16)}
            )  # fmt: skip
            for event, after, moved, share, load in (("join", n + 1, 3, 0.1, 300.0), ("leave", n - 1, 4, 0.15, None)):
                churn.append(
                    {"strategy": strategy, "consumers": n, "event": event, "consumers_after": after,
                     "queues_moved": moved, "queues_moved_share": share * (s + 1), "load_moved": load,
                     "load_moved_share": 0.1 if load else 0.0}
                )  # fmt: skip
    for schema, rows in ((CONSUMERS, consumers), (IMBALANCE, imbalance), (CHURN, churn)):
        write_records(d, schema, rows)
    risk = {
        "from_queues": 8,
        "to_queues": 12,
        "messages": 10000,
        "messages_moved": 6500,
        "messages_moved_share": 0.65,
        "keys": 400,
        "keys_moved": 270,
        "keys_moved_share": 0.675,
    }
    summary = {"topic": "TopicTest", "queues": 8, "consumer_counts": list(counts), "strategies": list(STRATEGIES)}
    _json(d / "summary.json", {**summary, "resize": risk if resize else None})
    return root


BROKERS = ("broker-a", "broker-b", "broker-c")


T0_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z, as the demo's trace


def make_replay_dir(root, trace=True, wall_clock=False):
    """Windows from 0 (``wall_clock``: from :data:`T0_MS`, epoch milliseconds as a real trace has them)."""
    t0 = T0_MS if wall_clock else 0
    modes = [
        {
            "mode": m,
            "sends": 6000,
            "failures": f,
            "retries": r,
            "p50_ms": 5,
            "p99_ms": p99,
            "max_ms": 3000,
            "degraded_share": d,
            "max_delay_ms": delay,
        }
        for m, f, r, p99, d, delay in ((MODES[0], 0, 12, 41, 0.012, 22_500), (MODES[1], 95, 480, 2999, 0.331, 59_600))
    ]
    _json(root / "summary" / "summary.json", {"modes": modes, "rows": _ROWS})
    traffic = []
    for mode in MODES:
        for w in range(0, 60_000, 1000):
            bad = 20_000 <= w < 40_000 and mode == MODES[0]
            shares = {"broker-a": 0.45, "broker-b": 0.1, "broker-c": 0.45} if bad else dict.fromkeys(BROKERS, 1 / 3)
            traffic += [
                {"mode": mode, "window_ms": t0 + w, "broker": b, "sends": round(100 * s), "share": s}
                for b, s in shares.items()
            ]
    write_records(root, TRAFFIC, traffic)
    windows = []
    if trace:  # broker-b slows at 20 s, fails from 30 s to 40 s
        for w in range(0, 60_000, 1000):
            for b in BROKERS:
                slow = b == "broker-b" and 20_000 <= w < 40_000
                failed = b == "broker-b" and 30_000 <= w < 40_000
                latency = 3000 if failed else 800 if slow else 5
                windows.append({"window_ms": t0 + w, "broker": b, "max_latency_ms": latency, "failed": failed})
    write_records(root, BROKER_WINDOWS, windows)
    return root


_ROWS = {
    "trace_rows": 7,
    "trace_used": 6,
    "trace_rejected": 1,
    "send_rows": 6002,
    "sends_replayed": 6000,
    "sends_rejected": 2,
}


@pytest.fixture
def dirs(tmp_path):
    return {
        "route_dir": make_route_dir(tmp_path / "route"),
        "plan_dir": make_plan_dir(tmp_path / "plan"),
        "replay_dir": make_replay_dir(tmp_path / "replay"),
    }


def _images(page):
    found = IMG.findall(page)
    assert page.count("<img") == len(found)  # every image is an embedded PNG with an alt text
    return [(base64.b64decode(data, validate=True), alt) for data, alt in found]


def _cells(page):
    return re.findall(r"<td[^>]*>(.*?)</td>", page, flags=re.S)


def test_full_page_is_one_self_contained_file(dirs):
    page = render_report(**dirs, title="Nightly <run>")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    for external in ('src="http', "src='http", "<link", "<script", "url(", "@import"):
        assert external not in page
    images = _images(page)
    assert len(images) == 5  # route: queue load; plan: consumer load, imbalance, churn; replay: timeline
    for png, alt in images:
        assert png.startswith(PNG) and len(png) > 1000
        assert alt.strip()
    assert "<title>Nightly &lt;run&gt;</title>" in page
    assert page.index('<section id="verdict"') < page.index('<section id="route">')  # the verdict comes first
    for section in ("verdict", "route", "plan", "replay"):
        assert f'<section id="{section}">' in page
        assert f'href="#{section}"' in page


def test_route_section_numbers_and_escaping(dirs):
    page = render_report(route_dir=dirs["route_dir"])
    assert len(_images(page)) == 1
    cells = _cells(page)
    assert "broker-b" in cells and "1,234" in cells  # broker-b's queue 0 and its message count
    assert "1.235" in page and "0.081" in page  # max/mean and cv, 3 decimals
    routed = 4 * 1000 + 111 * 6 + 1234 + 3 * 900
    assert f"{routed + 7:,} = routed {routed:,} + rejected 7" in page
    assert "&lt;b&gt;&amp;x" in cells
    assert "<b>&x" not in page
    assert 'id="plan"' not in page and 'id="replay"' not in page


def test_hot_keys_are_shown_as_written(tmp_path):
    root = make_route_dir(tmp_path)
    keys = ['a"b,\\c', "d\\e", "", None, "line\nbreak"]
    hot = [{"queue_index": 0, "key": k, "messages": 9 - i, "rank": i + 1} for i, k in enumerate(keys)]
    write_records(root, HOT_KEYS, hot)
    cells = _cells(render_report(route_dir=root))
    assert "a&quot;b,\\c" in cells and "d\\e" in cells and "line\nbreak" in cells
    assert "\u2013" in cells  # a null key (no key column) shows as a dash


def test_plan_section(dirs):
    page = render_report(plan_dir=dirs["plan_dir"])
    images = _images(page)
    assert len(images) == 3
    assert "with 16 consumers" in images[0][1]  # by default the largest count plan was run with
    assert "Resizing the topic from 8 to 12 queues moves 67.5% of the keys (270 of 400)" in page
    cells = _cells(page)
    assert "CONSISTENT_HASH" in cells and "1.091" in cells  # max/mean of 1100 over 1033.3
    assert "30.0%" in cells  # CONSISTENT_HASH's join churn
    assert 'id="route"' not in page and 'id="replay"' not in page


def test_plan_without_resize_and_with_large_counts_only(tmp_path):
    page = render_report(plan_dir=make_plan_dir(tmp_path, counts=(10, 12), resize=False))
    images = _images(page)
    assert len(images) == 3 and "with 12 consumers" in images[0][1]
    assert "Resizing" not in page and "Resize." not in page
    assert "10, 12" in page


def test_replay_section(dirs):
    page = render_report(replay_dir=dirs["replay_dir"])
    images = _images(page)
    assert len(images) == 1 and "latency" in images[0][1]
    cells = _cells(page)
    assert "fault tolerance on" in cells and "2,999" in cells and "33.1%" in cells
    assert page.index("fault tolerance on") < page.index("fault tolerance off")
    assert 'id="route"' not in page and 'id="plan"' not in page


def test_replay_without_trace_rows(tmp_path):
    page = render_report(replay_dir=make_replay_dir(tmp_path, trace=False))
    images = _images(page)
    assert len(images) == 1 and images[0][0].startswith(PNG)
    assert "latency" not in images[0][1]
    assert "No trace row was used" in page
    assert "6,002 = replayed 6,000 + rejected 2" in page


def test_no_dirs_is_an_illegal_argument():
    with pytest.raises(IllegalArgumentError, match="at least one"):
        render_report()
    with pytest.raises(ValueError):
        render_report(title="x")


AGGREGATES = [
    ("route_dir", HOT_KEYS.path),
    ("plan_dir", "plan/" + CONSUMERS.path),
    ("plan_dir", "plan/" + IMBALANCE.path),
    ("plan_dir", "plan/" + CHURN.path),
    ("replay_dir", TRAFFIC.path),
    ("replay_dir", BROKER_WINDOWS.path),
]


def _one_line_error(**kwargs) -> str:
    with pytest.raises(RocketRouteError) as e:
        render_report(**kwargs)
    message = str(e.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(("job", "name"), AGGREGATES)
def test_a_missing_or_corrupted_aggregate_is_a_one_line_error_naming_the_file(dirs, job, name):
    path = dirs[job] / name
    good = path.read_text()
    path.unlink()
    assert _one_line_error(**dirs) == f"{path} does not exist ({_what(name)})"

    path.write_text(good[: len(good) // 2])  # cut short, as by a full disk
    assert _one_line_error(**dirs).startswith(f"{path} is not valid JSON ({_what(name)}): ")

    path.write_bytes(b"\xff\xfe[]")
    assert _one_line_error(**dirs).startswith(f"{path} is not UTF-8 text")

    path.write_text('{"rows": []}')
    assert _one_line_error(**dirs) == f"{path}: expected an array of records, found an object"

    records = json.loads(good)
    field = next(iter(records[0]))  # every aggregate's first field is required
    del records[1][field]
    path.write_text(json.dumps(records))
    assert _one_line_error(**dirs) == f"{path}: record 2 lacks {field!r}"

    records = json.loads(good)
    records[2][field] = [1]
    path.write_text(json.dumps(records))
    assert _one_line_error(**dirs).startswith(f"{path}: record 3 has a bad {field!r} ([1]): expected ")

    records = json.loads(good)
    records[0][field] = float("nan")
    path.write_text(json.dumps(records))  # NaN is not JSON
    assert _one_line_error(**dirs).startswith(f"{path} is not valid JSON")


def _what(name):
    schema = {s.path: s for s in (HOT_KEYS, CONSUMERS, IMBALANCE, CHURN, TRAFFIC, BROKER_WINDOWS)}[
        name.removeprefix("plan/")
    ]
    return schema.what


def test_mistyped_values_and_summaries_name_the_file_and_the_field(tmp_path, dirs):
    summary = dirs["route_dir"] / "summary" / "summary.json"
    summary.unlink()
    assert _one_line_error(route_dir=dirs["route_dir"]) == (
        f"{summary} does not exist (the summary `rocketroute route` writes)"
    )
    (dirs["plan_dir"] / "plan" / "summary.json").write_text("{not json")
    assert "plan/summary.json is not valid JSON" in _one_line_error(plan_dir=dirs["plan_dir"])

    traffic = dirs["replay_dir"] / TRAFFIC.path
    records = json.loads(traffic.read_text())
    records[0]["window_ms"] = "0"  # a string is not an integer, even one that reads as one
    traffic.write_text(json.dumps(records))
    assert _one_line_error(replay_dir=dirs["replay_dir"]) == (
        f"{traffic}: record 1 has a bad 'window_ms' ('0'): expected an integer"
    )
    windows = dirs["replay_dir"] / BROKER_WINDOWS.path
    write_records(dirs["replay_dir"], TRAFFIC, [])
    records = json.loads(windows.read_text())
    records[0]["failed"] = "false"
    windows.write_text(json.dumps(records))
    assert _one_line_error(replay_dir=dirs["replay_dir"]) == (
        f"{windows}: record 1 has a bad 'failed' ('false'): expected true or false"
    )
    replay_summary = dirs["replay_dir"] / "summary" / "summary.json"
    replay_summary.write_text("[]")
    assert _one_line_error(replay_dir=dirs["replay_dir"]) == (
        f"{replay_summary}: expected an object with 'modes' and 'rows', found an array"
    )

    with pytest.raises(RocketRouteError, match="is not a folder"):
        render_report(route_dir=tmp_path / "nowhere")


def test_write_report_is_atomic_and_deterministic(tmp_path, dirs):
    out = tmp_path / "out" / "report.html"
    assert write_report(out, **dirs) == out
    first = out.read_text(encoding="utf-8")
    assert first == render_report(**dirs)  # the same inputs, the same bytes
    write_report(out, route_dir=dirs["route_dir"])  # replaces
    assert 'id="plan"' not in out.read_text(encoding="utf-8")
    with pytest.raises(IllegalArgumentError):
        write_report(out)
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html"]  # no temporary file left


def test_importing_the_module_is_cheap():
    code = "import sys, rocketroute.spark.report; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_jobs_aggregates_agree_with_their_per_row_outputs(spark, tmp_path):
    """route and replay as the command runs them (in this process, on the shared local session): the JSON the
    report reads holds the numbers of the per-row outputs, and the report shows the keys as they were."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rocketroute.cli import build_parser
    from rocketroute.spark.cli.replay import check_replay, run_replay
    from rocketroute.spark.cli.route import check_route, run_route
    from rocketroute.spark.jobs.replay import BrokerTrace

    keys = ['a"b,\\c', "d\\e", "x,y", *[f"k{i % 7}" for i in range(60)], *["hot"] * 12]
    pq.write_table(pa.table({"key": keys}), tmp_path / "m.parquet")
    parser = build_parser()
    queues = ["--topic", "T", "--queues", "broker-a:2,broker-b:2"]
    args = parser.parse_args(["route", "--input", str(tmp_path / "m.parquet"), *queues, "--out", str(tmp_path / "r")])
    run_route(spark, args, check_route(args))
    routed = Counter((r["queue_index"], r["key"]) for r in spark.read.parquet(str(tmp_path / "r" / "routed")).collect())
    hot = json.loads((tmp_path / "r" / HOT_KEYS.path).read_text())
    for q in {q for q, _ in routed}:
        mine = [h for h in hot if h["queue_index"] == q]
        assert [h["rank"] for h in mine] == list(range(1, len(mine) + 1))
        assert [h["messages"] for h in mine] == sorted((c for (i, _), c in routed.items() if i == q), reverse=True)[:5]
        assert all(routed[(q, h["key"])] == h["messages"] for h in mine)

    (tmp_path / "trace.csv").write_text("ts_ms,broker,latency_ms,ok\n0,broker-a,3,true\n1500,broker-b,900,true\n"
                                        "2500,broker-b,5,false\n3200,broker-b,4,true\n")  # fmt: skip
    (tmp_path / "sends.csv").write_text("ts_ms,producer_id\n" + "".join(f"{i * 50},p{i % 3}\n" for i in range(80)))
    args = parser.parse_args(["replay", "--trace", str(tmp_path / "trace.csv"), "--sends", str(tmp_path / "sends.csv"),
                              *queues, "--out", str(tmp_path / "p")])  # fmt: skip
    result = run_replay(spark, args, check_replay(args))
    sends = spark.read.parquet(str(tmp_path / "p" / "sends")).collect()
    per_window = Counter((r["mode"], r["sent_ms"] - r["sent_ms"] % 1000, r["broker"]) for r in sends)
    traffic = json.loads((tmp_path / "p" / TRAFFIC.path).read_text())
    assert {(r["mode"], r["window_ms"], r["broker"]): r["sends"] for r in traffic} == dict(per_window)
    for r in traffic:
        total = sum(n for (m, w, _), n in per_window.items() if (m, w) == (r["mode"], r["window_ms"]))
        assert r["share"] == pytest.approx(r["sends"] / total)
    windows = json.loads((tmp_path / "p" / BROKER_WINDOWS.path).read_text())
    assert sorted({w["window_ms"] for w in windows}) == sorted({r["window_ms"] for r in traffic})
    trace = BrokerTrace(result.trace)
    for w in windows:
        instants = [w["window_ms"]] + [
            t for t, b, _, _ in result.trace if b == w["broker"] and 0 < t - w["window_ms"] < 1000
        ]
        states = [trace.at(w["broker"], t) for t in instants]
        assert w["max_latency_ms"] == max(lat for lat, _ in states) and w["failed"] == (not all(ok for _, ok in states))
    assert any(w["failed"] for w in windows) and any(w["max_latency_ms"] == 900 for w in windows)

    page = render_report(route_dir=tmp_path / "r", replay_dir=tmp_path / "p")
    cells = _cells(page)
    assert "a&quot;b,\\c" in cells and "d\\e" in cells and "x,y" in cells and "hot" in cells
    assert len(_images(page)) == 2


# ---------------------------------------------------------------------------------------------------- verdict


def _verdict(page):
    """The verdict section's text, tags stripped and unescaped ("" when the page has none)."""
    found = re.search(r'<section id="verdict".*?</section>', page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(0))).split()) if found else ""


def make_strategies_dir(root, per_count, queues=16):
    """A plan output from ``{consumers: {strategy: (max_over_mean, join share, leave share, idle)}}``, written
    with the job's writer; each consumer table is a busiest consumer over an even rest."""
    d = root / "plan"
    consumers, imbalance, churn = [], [], []
    for n, strategies in per_count.items():
        for strategy, (mom, join, leave, idle) in strategies.items():
            loads = [round(1000 * mom)] + [1000] * (n - 1)
            consumers += [{"strategy": strategy, "consumers": n, "consumer": f"consumer-{i}", "queues": 1,
                           "messages": m, "bytes": m} for i, m in enumerate(loads)]  # fmt: skip
            imbalance.append({"strategy": strategy, "consumers": n, "max_over_mean": mom, "cv": 0.1,
                              "idle_consumers": idle})  # fmt: skip
            for event, after, moved in (("join", n + 1, join), ("leave", n - 1, leave)):
                churn.append({"strategy": strategy, "consumers": n, "event": event, "consumers_after": after,
                              "queues_moved": round(queues * moved), "queues_moved_share": moved,
                              "load_moved": None, "load_moved_share": moved})  # fmt: skip
    for schema, rows in ((CONSUMERS, consumers), (IMBALANCE, imbalance), (CHURN, churn)):
        write_records(d, schema, rows)
    summary = {"topic": "T", "queues": queues, "consumer_counts": sorted(per_count), "resize": None}
    _json(d / "summary.json", {**summary, "strategies": sorted({s for c in per_count.values() for s in c})})
    return root


AT_8 = {
    "AVG": (1.00, 0.45, 0.50, 0),
    "CONSISTENT_HASH": (1.38, 0.12, 0.10, 0),
    "STICKY": (1.05, 0.14, 0.12, 0),
}


def test_verdict_picks_the_least_churn_among_the_balanced_strategies(tmp_path):
    text = _verdict(render_report(plan_dir=make_strategies_dir(tmp_path, {8: AT_8})))
    assert "At 8 consumers on 16 queues, AVG spreads the load most evenly (max/mean 1.00) but moves 45% of the " \
           "queues when a consumer joins and 50% when one leaves" in text  # fmt: skip
    assert "CONSISTENT_HASH moves the fewest (12% of the queues when a consumer joins and 10% when one leaves) " \
           "at max/mean 1.38" in text  # fmt: skip
    # STICKY: 5% above AVG's max/mean (within 10%), and it moves 13% on average against AVG's 48%
    assert "Pick STICKY: its busiest consumer carries 5.0% more than AVG's (within 10%) and it moves 13% of the " \
           "queues per join or leave on average, against 48% for AVG; CONSISTENT_HASH moves fewer but its " \
           "busiest consumer carries 38% more than AVG's." in text  # fmt: skip


def test_verdict_keeps_the_most_even_strategy_when_the_others_are_too_uneven(tmp_path):
    plan = make_strategies_dir(tmp_path, {8: {k: v for k, v in AT_8.items() if k != "STICKY"}})
    text = _verdict(render_report(plan_dir=plan))
    assert "Pick AVG: the strategies that move fewer queues load their busiest consumer more than 10% above " \
           "AVG's (CONSISTENT_HASH: 38% more); pick CONSISTENT_HASH instead if consumers join and leave often." \
           in text  # fmt: skip


def test_verdict_when_one_strategy_is_both_the_most_even_and_the_most_stable(tmp_path):
    plan = make_strategies_dir(tmp_path, {4: {"AVG": (1.2, 0.5, 0.5, 0), "STICKY": (1.0, 0.2, 0.25, 0)}})
    text = _verdict(render_report(plan_dir=plan))
    assert "STICKY spreads the load most evenly (max/mean 1.00) and moves the fewest queues: 20% of the queues " \
           "when a consumer joins and 25% when one leaves." in text  # fmt: skip
    assert "Pick STICKY: no other strategy is more even or moves less." in text


def test_verdict_is_about_the_consumer_count_asked_for(tmp_path):
    at_4 = {"AVG": (1.0, 0.5, 0.5, 0), "CONSISTENT_HASH": (1.02, 0.2, 0.2, 0), "STICKY": (1.3, 0.1, 0.1, 0)}
    at_20 = {"AVG": (1.25, 0.4, 0.4, 4), "CONSISTENT_HASH": (1.25, 0.1, 0.2, 4), "STICKY": (1.25, 0.3, 0.3, 4)}
    plan = make_strategies_dir(tmp_path, {4: at_4, 8: AT_8, 20: at_20})
    page = render_report(plan_dir=plan, consumers=4)
    assert "Pick CONSISTENT_HASH: its busiest consumer carries 2.0% more than AVG's" in _verdict(page)
    assert "with 4 consumers" in _images(page)[0][1]  # the per-consumer plot is about the same count
    assert "Pick STICKY" in _verdict(render_report(plan_dir=plan, consumers=8))
    text = _verdict(render_report(plan_dir=plan))  # by default the largest count
    # a tie on max/mean goes to the strategy that moves less, and says so
    assert "At 20 consumers on 16 queues, CONSISTENT_HASH spreads the load as evenly as any (max/mean 1.25, tied " \
           "with AVG and STICKY) and moves the fewest queues" in text  # fmt: skip
    assert "At 20 consumers on 16 queues" in text and "Pick CONSISTENT_HASH: no other strategy is more even" in text
    assert "Under CONSISTENT_HASH, 4 of the 20 consumers get no queue (20 consumers for 16 queues" in text
    with pytest.raises(RocketRouteError, match=r"plan has no rows for 6 consumers \(its consumer counts: 4, 8, 20\)"):
        render_report(plan_dir=plan, consumers=6)
    with pytest.raises(IllegalArgumentError, match="needs plan_dir"):
        render_report(replay_dir=make_replay_dir(tmp_path / "replay"), consumers=4)


def test_verdict_on_fault_tolerance_resize_and_clients(tmp_path, dirs):
    text = _verdict(render_report(**{**dirs, "route_dir": make_route_dir(tmp_path / "compat", compat=True)}))
    assert "Turning fault tolerance on took the max delay (the longest a send started after its event) from " \
           "59.6 s to 22.5 s, p99 latency from 3.0 s to 41 ms, failures from 95 to 0 and sends to a degraded " \
           "broker from 33% to 1.2% (6,000 sends replayed)." in text  # fmt: skip
    assert "Keep it on (sendLatencyFaultEnable): better on max delay, p99 latency, failures and sends to a " \
           "degraded broker and no worse on anything measured." in text  # fmt: skip
    assert "Resizing the topic from 8 to 12 queues moves 68% of the keys (270 of 400), 65% of the messages" in text
    assert "2 of 3 client pairs would split keys across queues: java-hashcode and kafka-murmur2 put only 6" in text
    assert text.index("kafka-murmur2 put only") < text.index("java-hashcode and java5-grpc-siphash put only 12%")
    assert "Every key on the same queue: java5-grpc-siphash and kafka-murmur2." in text
    # the topics in the page's order
    assert text.index("Strategy.") < text.index("Resize.") < text.index("Fault tolerance.") < text.index("Clients.")


def test_verdict_only_says_what_the_data_shows(tmp_path, dirs):
    assert 'id="verdict"' not in render_report(route_dir=dirs["route_dir"])  # no compat: nothing to conclude
    text = _verdict(render_report(replay_dir=dirs["replay_dir"]))
    assert text.startswith("Verdict Fault tolerance.") and "Pick" not in text and "Clients." not in text

    summary = dirs["replay_dir"] / "summary" / "summary.json"
    doc = json.loads(summary.read_text())
    on, off = doc["modes"]
    on.update(p99_ms=4000, max_delay_ms=None, failures=95)  # worse p99 with fault tolerance on; no delay measured
    summary.write_text(json.dumps(doc))
    text = _verdict(render_report(replay_dir=dirs["replay_dir"]))
    assert "max delay" not in text and "failures unchanged at 95" in text
    assert "A trade-off on this trace: better on sends to a degraded broker, worse on p99 latency." in text
    doc["modes"] = [off]
    summary.write_text(json.dumps(doc))
    text = _verdict(render_report(replay_dir=dirs["replay_dir"]))
    assert "The replay ran with fault tolerance off only: 95 failures in 6,000 sends, p99 3.0 s, max 3.0 s, " \
           "max delay 59.6 s." in text  # fmt: skip


def test_long_tables_are_folded(dirs):
    page = render_report(**dirs)
    folded = re.findall(r"<details><summary>([^<]*)</summary>", page)
    assert "Hot keys per queue (16 rows)" in folded  # 8 queues x 2 keys
    assert "Imbalance and churn, per strategy and consumer count (12 rows)" not in folded  # 12: not over the fold
    assert not any(f.startswith("Messages per queue") for f in folded)  # 8 rows are shown


def _cli_report(*argv):
    return subprocess.run(
        [sys.executable, "-m", "rocketroute.cli", "report", *map(str, argv)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_cli_report_consumers(tmp_path, dirs):
    out = tmp_path / "r.html"
    done = _cli_report("--plan", dirs["plan_dir"], "--consumers", 4, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "At 4 consumers on 8 queues" in _verdict(out.read_text())
    done = _cli_report("--plan", dirs["plan_dir"], "--consumers", 5, "--out", out)
    assert done.returncode == 2 and "plan has no rows for 5 consumers (its consumer counts: 2, 4, 8, 16)" in done.stderr
    done = _cli_report("--replay", dirs["replay_dir"], "--consumers", 4, "--out", out)
    assert done.returncode == 2 and "--consumers picks one of plan's consumer counts: it needs --plan" in done.stderr


def test_verdict_names_a_pair_that_agrees_on_no_key():
    from rocketroute.spark.report.verdict import compat_verdict

    names = ["java-hashcode", "go4-fnv32a", "kafka-murmur2"]
    shares = {("java-hashcode", "go4-fnv32a"): 0.0, ("java-hashcode", "kafka-murmur2"): None}
    pairs = [{"a": a, "b": b, "key_share": shares.get((a, b), 1.0)} for a in names for b in names]
    v = compat_verdict(names, pairs)
    assert v.sentences == [
        "1 of 3 client pairs would split keys across queues: java-hashcode and go4-fnv32a put no key on the same "
        "queue. A key produced through both clients of such a pair loses its order: keep each key on one client.",
        "Every key on the same queue: go4-fnv32a and kafka-murmur2.",
        "1 pair placed no key in common (a client refuses keys).",
    ]
