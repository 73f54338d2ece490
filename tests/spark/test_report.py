"""The report job: one self-contained HTML page from synthetic route / plan / replay outputs (no Spark needed)."""

from __future__ import annotations

import base64
import csv
import json
import re
import subprocess
import sys

import pytest

from rocketroute.errors import IllegalArgumentError, RocketRouteError
from rocketroute.spark.report import render_report, write_report

PNG = b"\x89PNG\r\n\x1a\n"
IMG = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)" alt="([^"]+)">')
MODES = ("fault tolerance on", "fault tolerance off")


def _spark_csv(folder, columns, rows):
    """A folder as Spark's ``coalesce(1).write.option("header", True).csv`` leaves it."""
    folder.mkdir(parents=True)
    with (folder / "part-00000-x.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        w.writerows(rows)
    (folder / "_SUCCESS").write_text("")


def _plain_csv(path, columns, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        w.writerows(rows)


def _json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def make_route_dir(root):
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
        },
    )
    hot = []
    for i in range(len(queues)):
        for rank in (1, 2):
            key = "<b>&x" if (i, rank) == (0, 1) else f"key-{i}-{rank}"
            hot.append((i, key, 50 - rank, rank))
    _spark_csv(root / "hot_keys", ["queue_index", "key", "messages", "rank"], hot)
    return root


STRATEGIES = ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH")


def make_plan_dir(root, counts=(2, 4, 8, 16), resize=True):
    d = root / "plan"
    consumers, imbalance, churn = [], [], []
    for s, strategy in enumerate(STRATEGIES):
        for n in counts:
            loads = [1000 + 100 * ((i + s) % 3) for i in range(n)]
            consumers += [(strategy, n, f"consumer-{i}", 2, m, 10 * m) for i, m in enumerate(loads)]
            mean = sum(loads) / n
            imbalance.append((strategy, n, max(loads) / mean, 0.05 * (s + 1), float(s == 2 and n == 16)))
            churn.append((strategy, n, "join", n + 1, 3, 0.1 * (s + 1), 300, 0.1))
            churn.append((strategy, n, "leave", n - 1, 4, 0.15 * (s + 1), "", 0.0))
    _plain_csv(d / "consumers.csv", ["strategy", "consumers", "consumer", "queues", "messages", "bytes"], consumers)
    _plain_csv(d / "imbalance.csv", ["strategy", "consumers", "max_over_mean", "cv", "idle_consumers"], imbalance)
    _plain_csv(
        d / "churn.csv",
        [
            "strategy",
            "consumers",
            "event",
            "consumers_after",
            "queues_moved",
            "queues_moved_share",
            "load_moved",
            "load_moved_share",
        ],
        churn,
    )
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


def make_replay_dir(root, trace=True, summary_layout="list"):
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
        }
        for m, f, r, p99, d in ((MODES[0], 0, 12, 41, 0.012), (MODES[1], 95, 480, 2999, 0.331))
    ]
    _json(root / "summary" / "summary.json", modes if summary_layout == "list" else {"modes": modes, "rows": _ROWS})
    traffic = []
    for mode in MODES:
        for w in range(0, 60_000, 1000):
            bad = 20_000 <= w < 40_000 and mode == MODES[0]
            shares = {"broker-a": 0.45, "broker-b": 0.1, "broker-c": 0.45} if bad else dict.fromkeys(BROKERS, 1 / 3)
            traffic += [(mode, w, b, round(100 * s), s) for b, s in shares.items()]
    _spark_csv(root / "traffic", ["mode", "window_ms", "broker", "sends", "share"], traffic)
    if trace:
        rows = [(0, b, 5, "true") for b in BROKERS]
        rows += [
            (20_000, "broker-b", 800, "true"),
            (30_000, "broker-b", 3000, "false"),
            (40_000, "broker-b", 6, "true"),
        ]
        columns = ["ts_ms", "broker", "latency_ms", "ok"]
        if summary_layout == "list":
            _spark_csv(root / "trace", columns, rows)
        else:  # the layout without Spark: trace/trace.csv
            _plain_csv(root / "trace" / "trace.csv", columns, rows)
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
    return re.findall(r"<td[^>]*>(.*?)</td>", page)


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
    for section in ("route", "plan", "replay"):
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


def test_hot_keys_written_by_spark_keep_quotes_and_backslashes(tmp_path):
    root = make_route_dir(tmp_path)
    # Spark escapes inside quotes with a backslash, and leaves an unquoted field literal
    part = root / "hot_keys" / "part-00000-x.csv"
    part.write_text('queue_index,key,messages,rank\n0,"a\\"b,\\\\c",9,1\n0,d\\e,8,2\n0,"",7,3\n0,,6,4\n')
    cells = _cells(render_report(route_dir=root))
    assert "a&quot;b,\\c" in cells and "d\\e" in cells


def test_plan_section(dirs):
    page = render_report(plan_dir=dirs["plan_dir"])
    images = _images(page)
    assert len(images) == 3
    assert "with 8 consumers" in images[0][1]  # the largest count <= 8
    assert "Resizing the topic from 8 to 12 queues moves 67.5% of the keys (270 of 400)" in page
    cells = _cells(page)
    assert "CONSISTENT_HASH" in cells and "1.091" in cells  # max/mean of 1100 over 1033.3
    assert "30.0%" in cells  # CONSISTENT_HASH's join churn
    assert 'id="route"' not in page and 'id="replay"' not in page


def test_plan_without_resize_and_with_large_counts_only(tmp_path):
    page = render_report(plan_dir=make_plan_dir(tmp_path, counts=(10, 12), resize=False))
    images = _images(page)
    assert len(images) == 3 and "with 10 consumers" in images[0][1]  # none <= 8: the smallest
    assert "Resizing" not in page
    assert "10, 12" in page


def test_replay_section(dirs):
    page = render_report(replay_dir=dirs["replay_dir"])
    images = _images(page)
    assert len(images) == 1 and "latency" in images[0][1]
    cells = _cells(page)
    assert "fault tolerance on" in cells and "2,999" in cells and "33.1%" in cells
    assert page.index("fault tolerance on") < page.index("fault tolerance off")
    assert 'id="route"' not in page and 'id="plan"' not in page


def test_replay_without_trace(tmp_path):
    page = render_report(replay_dir=make_replay_dir(tmp_path, trace=False))
    images = _images(page)
    assert len(images) == 1 and images[0][0].startswith(PNG)
    assert "latency" not in images[0][1]
    assert "No trace folder" in page


def test_replay_summary_with_modes_and_row_counts(tmp_path):
    page = render_report(replay_dir=make_replay_dir(tmp_path, summary_layout="dict"))
    assert len(_images(page)) == 1
    assert "6,002 = replayed 6,000 + rejected 2" in page
    assert "fault tolerance off" in _cells(page)


def test_no_dirs_is_an_illegal_argument():
    with pytest.raises(IllegalArgumentError, match="at least one"):
        render_report()
    with pytest.raises(ValueError):
        render_report(title="x")


def test_missing_or_malformed_files_name_the_file(tmp_path, dirs):
    (dirs["route_dir"] / "summary" / "summary.json").unlink()
    with pytest.raises(RocketRouteError, match=r"summary[/\\]summary\.json does not exist"):
        render_report(route_dir=dirs["route_dir"])

    (dirs["plan_dir"] / "plan" / "summary.json").write_text("{not json")
    with pytest.raises(RocketRouteError, match=r"plan[/\\]summary\.json is not valid JSON"):
        render_report(plan_dir=dirs["plan_dir"])

    part = dirs["replay_dir"] / "traffic" / "part-00000-x.csv"
    part.write_text("mode,window_ms,broker,sends\nx,0,broker-a,1\n")
    with pytest.raises(RocketRouteError, match=r"part-00000-x\.csv lacks the columns \['share'\]"):
        render_report(replay_dir=dirs["replay_dir"])
    part.write_text("mode,window_ms,broker,sends,share\nx,zero,broker-a,1,0.5\n")
    with pytest.raises(RocketRouteError, match=r"traffic: row 1 has a bad 'window_ms'"):
        render_report(replay_dir=dirs["replay_dir"])

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
