"""``make bench-scaling`` (benches/bench_scaling.py): the sweep runs every client at every point it is given on the
instant peer (a few hundred messages each: the figures mean nothing), and the plot draws each client's figures
where they belong."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import bench_scaling
import pytest

SVG = "{http://www.w3.org/2000/svg}"


def lines(svg: str) -> dict[tuple[str, str, str, str], list[tuple[float, float]]]:
    """The plot's lines by (server, mode, metric, client): their points, left to right as drawn."""
    out = {}
    for line in ET.fromstring(svg).iter(f"{SVG}polyline"):
        key = tuple(line.get(k) or "" for k in ("data-server", "data-mode", "data-metric", "data-client"))
        points = [tuple(float(c) for c in p.split(",")) for p in (line.get("points") or "").split()]
        out[key] = points
    return out  # type: ignore[return-value]


def test_the_sweep_runs_every_client_at_every_point_on_the_instant_peer(tmp_path: Path) -> None:
    out, svg = tmp_path / "scaling.json", tmp_path / "scaling.svg"
    args = ["--quick", "--threads", "1,2", "--in-flight", "1,16", "--json", str(out), "--svg", str(svg)]
    assert bench_scaling.main(args) == 0
    run = json.loads(out.read_text())
    sync, async_ = ["sync 1 thread", "sync 2 threads"], ["async 1 in flight", "async 16 in flight"]
    expected = {(s, c) for s in sync for c in ("java", "native")}
    expected |= {(s, c) for s in async_ for c in bench_scaling.CLIENTS}
    assert {(r["shape"], r["client"]) for r in run["rows"]} == expected
    assert run["shapes"]["sync 2 threads"] == {"mode": "sync", "threads": 2, "in_flight": 1}
    assert run["shapes"]["async 16 in flight"] == {"mode": "async", "threads": 1, "in_flight": 16}
    for r in run["rows"]:
        assert r["msgs"] == 200 and r["msgs_per_s"] > 0, r
    drawn = lines(svg.read_text())
    for metric in ("msgs_per_s", "cpu_us"):
        for client in ("java", "native"):
            assert len(drawn["instant", "sync", metric, client]) == 2
        assert ("instant", "sync", metric, "aio") not in drawn  # aio sends async only
        for client in bench_scaling.CLIENTS:
            assert len(drawn["instant", "async", metric, client]) == 2


def _row(shape: str, client: str, msgs_per_s: float, cpu_us: float) -> dict[str, Any]:
    return {"server": "instant", "shape": shape, "client": client, "msgs": 1000, "msgs_per_s": msgs_per_s,
            "cpu_s": cpu_us * 1000 / 1e6}  # fmt: skip


def test_the_plot_puts_each_point_at_its_concurrency_and_value() -> None:
    shapes = {
        "sync 1 thread": {"mode": "sync", "threads": 1, "in_flight": 1},
        "sync 4 threads": {"mode": "sync", "threads": 4, "in_flight": 1},
        "sync 16 threads": {"mode": "sync", "threads": 16, "in_flight": 1},
        "async 64 in flight": {"mode": "async", "threads": 1, "in_flight": 64},
    }
    rows = [  # out of order: the plot sorts by concurrency
        _row("sync 16 threads", "native", 30_000, 20.0),
        _row("sync 1 thread", "native", 10_000, 60.0),
        _row("sync 4 threads", "native", 20_000, 40.0),
        _row("sync 1 thread", "java", 15_000, 70.0),
        _row("sync 4 threads", "java", 15_000, 70.0),
        _row("async 64 in flight", "java", 50_000, 10.0),
    ]
    drawn = lines(bench_scaling.plot({"rows": rows, "shapes": shapes}))
    native = drawn["instant", "sync", "msgs_per_s", "native"]
    xs, ys = [x for x, _ in native], [y for _, y in native]
    assert xs == sorted(xs) and xs[1] - xs[0] == pytest.approx(xs[2] - xs[1])  # 1, 4, 16: equal steps of a log scale
    assert ys[0] > ys[1] > ys[2]  # more msgs/s, higher up (SVG's y runs down)
    (_, y10k), (_, y20k), (_, y30k) = native
    assert y10k - y20k == pytest.approx(y20k - y30k)  # a linear scale up
    java = drawn["instant", "sync", "msgs_per_s", "java"]
    assert [x for x, _ in java] == xs[:2]  # java was not run at 16 threads: no point there
    assert java[0][1] == java[1][1] and y10k > java[0][1] > y20k  # 15k between 10k and 20k
    cpu = drawn["instant", "sync", "cpu_us", "native"]
    assert cpu[0][1] < cpu[1][1] < cpu[2][1]  # less CPU per message, lower down
    assert len(drawn["instant", "async", "msgs_per_s", "java"]) == 1
    assert ("instant", "async", "msgs_per_s", "native") not in drawn


@pytest.mark.parametrize("option", ["--threads", "--in-flight"])
@pytest.mark.parametrize("value", ["0", "1,x"])
def test_points_that_are_not_counts_of_at_least_one_are_refused(option: str, value: str) -> None:
    with pytest.raises(SystemExit, match=option):
        bench_scaling.main([option, value])
