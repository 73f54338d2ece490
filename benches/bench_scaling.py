"""``make bench-scaling``: how rocketroute's producer and the Java client's scale with concurrency, as a plot.

The sync send from 1, 2, 4, 8 and 16 threads and the async send with 1, 4, 16, 64, 256, 1024 and 4096 sends in
flight, 1 KiB bodies, each point a run of :mod:`bench_clients` (the same drivers, warm-up rule, load check and
figures: this script only chooses the shapes and draws them). Clients: ``java`` (``DefaultMQProducer`` 5.5.0 as
production runs it), ``native`` (``rr.Producer``: ``send`` from threads, ``send_async`` awaited on the caller's
loop) and ``aio`` (``rr.aio.Producer``, async points only). The default broker is the instant peer, which answers
at once and stores nothing, so the curves are the clients' own ceilings; ``--servers apache-5.5.0`` adds the real
broker, whose own limit on a small machine flattens every curve.

:func:`plot` draws the run as an SVG (msgs/s and CPU per message against threads or sends in flight, a log scale
across), which the benchmarks page embeds from the run kept by ``make bench-scaling-docs``
(``docs/bench/scaling.json``) with :func:`bench_clients.table`'s table of the same rows beneath.

    python benches/bench_scaling.py [--quick] [--servers instant] [--clients java,native,aio] [--rounds 1]
        [--threads 1,2,4,8,16] [--in-flight 1,4,16,64,256,1024,4096] [--json FILE] [--keep FILE]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import bench_clients
from bench_clients import Shape

THREADS = (1, 2, 4, 8, 16)
IN_FLIGHT = (1, 4, 16, 64, 256, 1024, 4096)
CLIENTS = ("java", "native", "aio")
LABELS = {"java": "java (DefaultMQProducer)", "native": "native (rr.Producer)", "aio": "aio (rr.aio.Producer)"}
COLOURS = {"java": "#d6672b", "native": "#2b6cb0", "aio": "#2f9e5b", "go": "#7b5ea7", "reference": "#888888"}


def sync_shape(threads: int) -> Shape:
    """The sync send from ``threads`` threads: about two seconds of sends at this machine's rates."""
    name = f"sync {threads} thread{'s' if threads > 1 else ''}"
    return Shape(name, "sync", threads=threads, count=10_000 * min(threads, 2), warmup=3_000)


def async_shape(in_flight: int) -> Shape:
    """The async send with ``in_flight`` sends unanswered."""
    count, warmup = (10_000, 3_000) if in_flight == 1 else (20_000, 5_000) if in_flight <= 4 else (50_000, 10_000)
    return Shape(f"async {in_flight} in flight", "async", in_flight=in_flight, count=count, warmup=warmup)


def shapes(threads: tuple[int, ...], in_flight: tuple[int, ...]) -> list[Shape]:
    return [*(sync_shape(n) for n in threads), *(async_shape(n) for n in in_flight)]


def concurrency(row: dict[str, Any], run_shapes: dict[str, dict[str, Any]]) -> tuple[str, int]:
    """A row's mode and its x: threads of a sync shape, sends in flight of an async one."""
    shape = run_shapes[row["shape"]]
    return shape["mode"], shape["threads"] if shape["mode"] == "sync" else shape["in_flight"]


# -- the plot ----------------------------------------------------------------------------------------------------

PANEL_W, PANEL_H = 330, 190
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 64, 16, 30, 40
METRICS = (("msgs/s", "msgs_per_s"), ("CPU µs per message", "cpu_us"))
MODES = (("sync", "threads"), ("async", "sends in flight"))


def _value(row: dict[str, Any], key: str) -> float:
    return float(row["cpu_s"] / row["msgs"] * 1e6 if key == "cpu_us" else row[key])


def _nice_top(top: float) -> tuple[float, float]:
    """An axis top at or above ``top`` and its tick step: 1, 2 or 5 times a power of ten, four or five ticks."""
    if top <= 0:
        return 1.0, 0.25
    raw = top / 4
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return step * math.ceil(top / step), step


def _label(v: float) -> str:
    if v >= 1000:
        return f"{v / 1000:g}k"
    return f"{v:g}"


def plot(run: dict[str, Any]) -> str:
    """The run as an SVG: per server a row of panels, msgs/s and CPU per message against threads (sync) and sends
    in flight (async) on a log-2 scale, one line per client. Points absent from the run are left out."""
    run_shapes = run["shapes"]
    servers = list(dict.fromkeys(r["server"] for r in run["rows"]))
    clients = list(dict.fromkeys(r["client"] for r in run["rows"]))
    panels = [
        (ri, ci, m, axis, label, key) for ri, (label, key) in enumerate(METRICS) for ci, (m, axis) in enumerate(MODES)
    ]
    rows_per_server = len(METRICS)
    width = len(MODES) * PANEL_W
    height = len(servers) * rows_per_server * PANEL_H + 28
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="msgs/s and CPU per message against concurrency, per client" '
        f'font-family="sans-serif" font-size="11">'
    ]
    for si, server in enumerate(servers):
        for ri, ci, mode, axis, label, key in panels:
            x0, y0 = ci * PANEL_W + MARGIN_L, (si * rows_per_server + ri) * PANEL_H + MARGIN_T
            w, h = PANEL_W - MARGIN_L - MARGIN_R, PANEL_H - MARGIN_T - MARGIN_B
            lines: dict[str, list[tuple[int, float]]] = {}
            for r in run["rows"]:
                if r["server"] != server:
                    continue
                m, x = concurrency(r, run_shapes)
                if m == mode:
                    lines.setdefault(r["client"], []).append((x, _value(r, key)))
            xs = sorted({x for pts in lines.values() for x, _ in pts})
            if not xs:
                continue
            top, step = _nice_top(max(v for pts in lines.values() for _, v in pts))
            lo, hi = math.log2(xs[0]), math.log2(xs[-1])

            def px(x: int, lo: float = lo, hi: float = hi, x0: int = x0, w: int = w) -> float:
                return x0 + (w * (math.log2(x) - lo) / (hi - lo) if hi > lo else w / 2)

            def py(v: float, y0: int = y0, h: int = h, top: float = top) -> float:
                return y0 + h - h * v / top

            title = f"{server}: {mode}, {label}"
            out.append(f'<text x="{x0}" y="{y0 - 10}" font-weight="bold">{escape(title)}</text>')
            out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#bbb"/>')
            tick = 0.0
            while tick <= top + step / 2:
                y = py(tick)
                out.append(f'<line x1="{x0}" x2="{x0 + w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
                out.append(f'<text x="{x0 - 4}" y="{y + 4:.1f}" text-anchor="end">{_label(tick)}</text>')
                tick += step
            for x in xs:
                out.append(f'<text x="{px(x):.1f}" y="{y0 + h + 14}" text-anchor="middle">{x}</text>')
            out.append(f'<text x="{x0 + w / 2}" y="{y0 + h + 30}" text-anchor="middle">{axis}</text>')
            for client in clients:
                pts = sorted(lines.get(client, []))
                if not pts:
                    continue
                colour = COLOURS.get(client, "#000")
                path = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in pts)
                out.append(
                    f'<polyline data-server="{escape(server)}" data-mode="{mode}" data-metric="{key}" '
                    f'data-client="{escape(client)}" points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
                )
                for x, v in pts:
                    out.append(f'<circle cx="{px(x):.1f}" cy="{py(v):.1f}" r="2.5" fill="{colour}"/>')
    legend_y = len(servers) * rows_per_server * PANEL_H + 16
    for i, client in enumerate(clients):
        x = MARGIN_L + i * 180
        colour = COLOURS.get(client, "#000")
        out.append(f'<line x1="{x}" x2="{x + 24}" y1="{legend_y - 4}" y2="{legend_y - 4}" stroke="{colour}" '
                   f'stroke-width="2"/>')  # fmt: skip
        out.append(f'<text x="{x + 30}" y="{legend_y}">{escape(LABELS.get(client, client))}</text>')
    out.append("</svg>")
    return "\n".join(out)


# -- the run -----------------------------------------------------------------------------------------------------


def _points(text: str, option: str) -> tuple[int, ...]:
    try:
        points = tuple(int(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise SystemExit(f"{option} takes comma-separated whole numbers, not {text!r}") from None
    if any(p < 1 for p in points):
        raise SystemExit(f"{option} takes numbers of at least 1, not {text!r}")
    return points


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few hundred messages per point (a smoke test)")
    parser.add_argument("--servers", default="instant", help=f"comma-separated, of {', '.join(bench_clients.SERVERS)}")
    parser.add_argument("--clients", default=",".join(CLIENTS), help="comma-separated (default java,native,aio)")
    parser.add_argument("--threads", default=",".join(map(str, THREADS)), help="sync senders of each point")
    parser.add_argument("--in-flight", default=",".join(map(str, IN_FLIGHT)), help="async sends of each point")
    parser.add_argument("--rounds", type=int, default=1, metavar="N", help="runs per point, median kept (default 1)")
    parser.add_argument("--json", metavar="FILE", help="write the run here")
    parser.add_argument("--keep", metavar="FILE", help="also write it here (the docs' copy)")
    parser.add_argument("--svg", metavar="FILE", help="write the plot here")
    args = parser.parse_args(argv)
    servers, clients = args.servers.split(","), args.clients.split(",")
    for name, given, known in (("server", servers, bench_clients.SERVERS), ("client", clients, bench_clients.CLIENTS)):
        if unknown := [g for g in given if g not in known]:
            parser.error(f"unknown {name}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, not {args.rounds}")
    chosen = shapes(_points(args.threads, "--threads"), _points(args.in_flight, "--in-flight"))
    if args.quick:
        chosen = [bench_clients.quick(s) for s in chosen]
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        max_warmup = 0.0 if args.quick else bench_clients.MAX_WARMUP_S
        run = bench_clients.run_all(servers, chosen, clients, Path(tmp), args.rounds, max_warmup)
    run["shapes"] = {s.name: {"mode": s.mode, "threads": s.threads, "in_flight": s.in_flight} for s in chosen}
    print("\n".join(bench_clients.table(run)))
    kept = bench_clients.write_run(run, args.json, args.keep)
    if args.svg:
        Path(args.svg).write_text(plot(run) + "\n", encoding="utf-8")
    return 2 if args.keep and not kept else 0


if __name__ == "__main__":
    sys.exit(main())
